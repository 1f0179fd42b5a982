/*
 * stats.c — percentiles from log-linear histograms; busy-time metering.
 */
#include "sim/stats.h"

#include <math.h>

void lhist_bucket_range(unsigned b, uint64_t *lo, uint64_t *width)
{
    if (b < 2 * LHIST_SUB) {
        *lo = b;
        *width = 1;
        return;
    }
    unsigned rel = b - 2 * LHIST_SUB;
    unsigned shift = rel / LHIST_SUB + 1;
    uint64_t sub = rel % LHIST_SUB + LHIST_SUB;
    *lo = sub << shift;
    *width = 1ULL << shift;
}

double lhist_quantile(const struct lhist *h, double q)
{
    if (!h->n)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)h->n);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < LHIST_BUCKETS; b++) {
        seen += h->count[b];
        if (seen >= rank) {
            uint64_t lo, w;
            lhist_bucket_range(b, &lo, &w);
            return w == 1 ? (double)lo : (double)lo + (double)(w - 1) / 2.0;
        }
    }
    return 0.0;
}

/* A tick's end: (tick + 1) * tick_ns, at most the run's end (so never
 * past INT64_MAX). */
static int64_t tick_end(const struct busy_meter *m, int64_t tick)
{
    return tick + 1 > m->end_ns / m->tick_ns ? m->end_ns : (tick + 1) * m->tick_ns;
}

void busy_init(struct busy_meter *m, int64_t tick_ns, int64_t end_ns)
{
    memset(m, 0, sizeof(*m));
    m->tick_ns = tick_ns;
    m->end_ns = end_ns;
    m->base_end_ns = tick_end(m, 0);
}

/* busy_add's general case: the interval split over the ticks it spans, up
 * to the run's end (a backlog served after it is no tick's). */
void busy_add_split_(struct busy_meter *m, int64_t start_ns, int64_t done_ns)
{
    if (done_ns > m->end_ns)
        done_ns = m->end_ns;
    int64_t t = start_ns;
    while (t < done_ns) {
        int64_t tick = t / m->tick_ns;
        if (tick < m->base_tick)
            tick = m->base_tick;
        int64_t end = tick_end(m, tick);
        if (tick >= m->base_tick + BUSY_RING - 1) {
            /* beyond the ring: credit the rest to its last slot */
            m->slot[(m->base_tick + BUSY_RING - 1) % BUSY_RING] += done_ns - t;
            return;
        }
        int64_t seg_end = done_ns < end ? done_ns : end;
        m->slot[tick % BUSY_RING] += seg_end - t;
        t = seg_end;
    }
}

int64_t busy_take(struct busy_meter *m, int64_t tick)
{
    int64_t v = 0;
    /* ticks may be skipped (nothing happened); clear what lies between */
    while (m->base_tick <= tick) {
        int64_t *s = &m->slot[m->base_tick % BUSY_RING];
        if (m->base_tick == tick)
            v = *s;
        *s = 0;
        m->base_tick++;
    }
    m->base_end_ns = tick_end(m, m->base_tick);
    return v;
}
