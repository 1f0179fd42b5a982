/*
 * stats.c — percentiles from log-linear histograms; busy-time metering.
 */
#include "sim/stats.h"

#include <math.h>
#include <stdlib.h>

#include "sim/util.h"

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

void lhist_merge(struct lhist *h, const struct lhist *src)
{
    if (!src->n)
        return;
    h->n += src->n;
    h->sum += src->sum;
    for (unsigned b = 0; b < LHIST_BUCKETS; b++)
        h->count[b] += src->count[b];
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

void busy_deinit(struct busy_meter *m)
{
    free(m->far);
    m->far = NULL;
    m->n_far = m->cap_far = 0;
}

/* ---- the pieces past the ring: a binary min-heap by start ---------------------- */

static void far_push(struct busy_meter *m, int64_t start_ns, int64_t done_ns)
{
    if (m->n_far == m->cap_far) {
        m->cap_far = m->cap_far ? 2 * m->cap_far : 64;
        m->far = xrealloc(m->far, (size_t)m->cap_far * sizeof(*m->far));
    }
    uint32_t i = m->n_far++;
    while (i > 0) {
        uint32_t up = (i - 1) / 2;
        if (m->far[up].start_ns <= start_ns)
            break;
        m->far[i] = m->far[up];
        i = up;
    }
    m->far[i] = (struct busy_span){start_ns, done_ns};
}

static struct busy_span far_pop(struct busy_meter *m)
{
    struct busy_span top = m->far[0], last = m->far[--m->n_far];
    uint32_t i = 0, n = m->n_far;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && m->far[c + 1].start_ns < m->far[c].start_ns)
            c++;
        if (last.start_ns <= m->far[c].start_ns)
            break;
        m->far[i] = m->far[c];
        i = c;
    }
    if (n)
        m->far[i] = last;
    return top;
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
        if (tick >= m->base_tick + BUSY_RING) {
            /* beyond the ring: kept until the ring reaches it (busy_take) */
            far_push(m, t, done_ns);
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
        /* the ring now reaches one tick further: the pieces that start in
         * it come in (what lies past it again goes back to the heap) */
        int64_t reach = tick_end(m, m->base_tick + BUSY_RING - 1);
        while (m->n_far && m->far[0].start_ns < reach) {
            struct busy_span p = far_pop(m);
            busy_add_split_(m, p.start_ns, p.done_ns);
        }
    }
    m->base_end_ns = tick_end(m, m->base_tick);
    return v;
}

void busy_cancel(struct busy_meter *m, int64_t rest)
{
    int64_t *cur = &m->slot[m->base_tick % BUSY_RING];
    for (int64_t *s = m->slot; s < m->slot + BUSY_RING; s++)
        if (s != cur)
            *s = 0;
    *cur -= rest < *cur ? rest : *cur;
    m->n_far = 0;
}
