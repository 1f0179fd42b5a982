/*
 * stats.h — deterministic measurement helpers.
 *
 * lhist: a log-linear latency histogram (HdrHistogram's layout with 32
 * sub-buckets per power of two): values below 64 ns are exact, above that
 * each bucket spans at most 1/32 of its value, so a percentile is within
 * ~3% of the exact order statistic. Integer counts only: the same inputs
 * give the same percentile on every machine.
 *
 * busy_meter: splits busy intervals [start, done) over tick buckets, for
 * utilization. Intervals may reach into future ticks (a job admitted now
 * finishes later); a ring of BUSY_RING ticks holds them, and the rare part
 * of an interval beyond the ring (a backlog longer than BUSY_RING ticks)
 * waits in a min-heap by start until the ring reaches it, so every tick is
 * credited exactly its own busy time, never more than its length per
 * server. busy_cancel drops the busy time still to come (a crash).
 */
#ifndef RINGSIM_STATS_H
#define RINGSIM_STATS_H

#include <stdint.h>
#include <string.h>

#define LHIST_SUB_BITS 5
#define LHIST_SUB (1u << LHIST_SUB_BITS)
#define LHIST_MAX_SHIFT 40 /* values up to 2^46 ns (~19 h); larger clamp */
#define LHIST_BUCKETS (2 * LHIST_SUB + LHIST_MAX_SHIFT * LHIST_SUB)

struct lhist {
    uint64_t n;
    uint64_t sum;   /* for exact means */
    uint32_t count[LHIST_BUCKETS];
};

static inline unsigned lhist_bucket(uint64_t v)
{
    if (v < 2 * LHIST_SUB)
        return (unsigned)v;
    unsigned shift = 63u - (unsigned)__builtin_clzll(v) - LHIST_SUB_BITS;
    if (shift > LHIST_MAX_SHIFT)
        return LHIST_BUCKETS - 1;
    return 2 * LHIST_SUB + (shift - 1) * LHIST_SUB + (unsigned)((v >> shift) - LHIST_SUB);
}

static inline void lhist_add(struct lhist *h, int64_t v)
{
    uint64_t u = v < 0 ? 0 : (uint64_t)v;
    h->n++;
    h->sum += u;
    h->count[lhist_bucket(u)]++;
}

static inline void lhist_reset(struct lhist *h)
{
    memset(h, 0, sizeof(*h));
}

/* Adds every sample of src to h. */
void lhist_merge(struct lhist *h, const struct lhist *src);

/* The value below which a fraction q of the samples fall: the midpoint of
 * the bucket holding the ceil(q*n)-th sample. 0 when empty. */
double lhist_quantile(const struct lhist *h, double q);
static inline double lhist_mean(const struct lhist *h)
{
    return h->n ? (double)h->sum / (double)h->n : 0.0;
}
/* Lower bound and width of bucket b, for tests. */
void lhist_bucket_range(unsigned b, uint64_t *lo, uint64_t *width);

#define BUSY_RING 256

/* A piece of an interval beyond the ring. */
struct busy_span {
    int64_t start_ns, done_ns;
};

struct busy_meter {
    int64_t tick_ns;
    int64_t end_ns;             /* the run's end: busy time after it is no tick's */
    int64_t base_tick;          /* tick index held in slot base_tick % BUSY_RING */
    int64_t base_end_ns;        /* where tick base_tick ends: (base_tick + 1) * tick_ns, or
                                   end_ns for a last tick cut short by it */
    int64_t slot[BUSY_RING];    /* busy ns per tick */
    struct busy_span *far;      /* min-heap by start: pieces past the ring's last tick */
    uint32_t n_far, cap_far;
};

/* Ticks of tick_ns from 0; the last one ends at end_ns (the run's duration),
 * which need not be a whole number of ticks. */
void busy_init(struct busy_meter *m, int64_t tick_ns, int64_t end_ns);
void busy_deinit(struct busy_meter *m);
void busy_add_split_(struct busy_meter *m, int64_t start_ns, int64_t done_ns);
/* Adds [start, done) (done >= start, start in the current tick or later;
 * an earlier start counts from the current tick; what lies past end_ns is
 * dropped). O(1) without a division when the interval ends within the
 * current tick, as almost every service does; O(ticks crossed) otherwise. */
static inline void busy_add(struct busy_meter *m, int64_t start_ns, int64_t done_ns)
{
    if (__builtin_expect(done_ns <= m->base_end_ns, 1)) {
        m->slot[m->base_tick % BUSY_RING] += done_ns - start_ns;
        return;
    }
    busy_add_split_(m, start_ns, done_ns);
}
/* Returns the busy ns credited to tick `tick` (the current one) and moves
 * on to the next tick. */
int64_t busy_take(struct busy_meter *m, int64_t tick);
/* Where the current tick ends. */
static inline int64_t busy_tick_end(const struct busy_meter *m)
{
    return m->base_end_ns;
}
/* The work credited from now on will not be done (a crash drops it): every
 * later tick's busy time goes, and `rest` ns of the current tick's (the
 * part of it after now, at most what the tick holds). */
void busy_cancel(struct busy_meter *m, int64_t rest);

#endif
