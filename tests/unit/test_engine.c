/* Unit tests: event queue ordering, the random streams against GSL, the
 * analytic FIFO queue, histograms, busy metering, request records
 * (sim/eventq.c, sim/rng.c, models/fifo.c, sim/stats.c, sim/engine.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <math.h>
#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "models/fifo.h"
#include "sim/engine.h"
#include "sim/eventq.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim/util.h"

#include "support_theory.h"

static void test_eventq_order(void **state)
{
    (void)state;
    struct eventq q;
    eventq_init(&q);
    /* random times; equal times must come out in push order */
    uint64_t x = 12345;
    for (uint32_t i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t t = (int64_t)((x >> 33) % 1000);
        assert_int_equal(eventq_push(&q, t, 1 + (i % 7), i, 0), 0);
    }
    struct event e, prev = {INT64_MIN, 0, 0, 0};
    size_t n = 0;
    while (eventq_pop(&q, &e)) {
        assert_true(e.t_ns >= prev.t_ns);
        if (e.t_ns == prev.t_ns)
            assert_true(e.a > prev.a); /* pushed later, popped later */
        assert_int_equal(event_kind(&e), 1 + (e.a % 7));
        prev = e;
        n++;
    }
    assert_int_equal(n, 20000);
    eventq_deinit(&q);
}

static void test_eventq_push_while_handling(void **state)
{
    (void)state;
    struct eventq q;
    eventq_init(&q);
    eventq_push(&q, 10, 1, 0, 0);
    eventq_push(&q, 10, 1, 1, 0);
    struct event e;
    assert_true(eventq_pop(&q, &e));
    assert_int_equal(e.a, 0);
    /* scheduled "now" while handling: runs after the one already waiting */
    eventq_push(&q, 10, 1, 2, 0);
    assert_true(eventq_pop(&q, &e));
    assert_int_equal(e.a, 1);
    assert_true(eventq_pop(&q, &e));
    assert_int_equal(e.a, 2);
    assert_false(eventq_pop(&q, &e));
    eventq_deinit(&q);
}

/* Inserts e into the reference ref[0..*n), kept sorted by (time, sequence). */
static void ref_insert(struct event *ref, size_t *n, struct event e)
{
    size_t i = (*n)++;
    while (i > 0 && (ref[i - 1].t_ns > e.t_ns ||
                     (ref[i - 1].t_ns == e.t_ns && ref[i - 1].seq_kind > e.seq_kind))) {
        ref[i] = ref[i - 1];
        i--;
    }
    ref[i] = e;
}

/* The queue against a plain sorted reference, with the run's pattern: pops
 * interleaved with pushes at and after the current time, near and far, many
 * ties. */
static void test_eventq_against_reference(void **state)
{
    (void)state;
    for (size_t w = 0; w < 3; w++) {
        struct eventq q;
        eventq_init(&q);
        enum { MAXN = 20000 };
        struct event *ref = malloc(MAXN * sizeof(*ref));
        size_t nref = 0;
        uint64_t x = 777 + w, seq = 0;
        int64_t now = 0;
        for (int step = 0; step < 200000; step++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned r = (unsigned)(x >> 40);
            if ((r % 3 != 0 || nref == 0) && nref < MAXN) {
                int64_t d;
                switch (r % 7) {
                case 0: d = 0; break;                                /* now: a tie */
                case 1: d = (int64_t)(x >> 20) % 50; break;          /* very near */
                case 2: d = 100000000 + (int64_t)(x >> 20) % 1000; break; /* far */
                case 3: d = 5000; break;                             /* repeated ties */
                default: d = (int64_t)(x >> 20) % 3000000; break;
                }
                /* the lane: a timeout's constant delay (in order), and now and
                 * then a time before its last (pushed as eventq_push does) */
                bool fifo = r % 11 == 0 || r % 13 == 0;
                if (r % 11 == 0)
                    d = 100000000;
                int rc = fifo ? eventq_push_fifo(&q, now + d, 1 + r % 9, (uint32_t)seq, 0)
                              : eventq_push(&q, now + d, 1 + r % 9, (uint32_t)seq, 0);
                assert_int_equal(rc, 0);
                struct event e = {now + d, (seq << 8) | (1 + r % 9), (uint32_t)seq, 0};
                seq++;
                ref_insert(ref, &nref, e);
            } else {
                struct event p;
                assert_true(eventq_peek(&q, &p));
                assert_int_equal(p.a, ref[0].a);
                assert_int_equal(eventq_next_time(&q), ref[0].t_ns);
                struct event e;
                assert_true(eventq_pop(&q, &e));
                assert_int_equal(e.a, ref[0].a);
                assert_int_equal(e.t_ns, ref[0].t_ns);
                assert_int_equal(event_kind(&e), event_kind(&ref[0]));
                now = e.t_ns;
                memmove(ref, ref + 1, (--nref) * sizeof(*ref));
            }
            assert_int_equal(q.n, nref);
        }
        struct event e;
        while (nref) {
            assert_true(eventq_pop(&q, &e));
            assert_int_equal(e.a, ref[0].a);
            memmove(ref, ref + 1, (--nref) * sizeof(*ref));
        }
        assert_false(eventq_pop(&q, &e));
        assert_false(eventq_peek(&q, &e));
        assert_int_equal(eventq_next_time(&q), INT64_MAX);
        free(ref);
        eventq_deinit(&q);
    }
}

static void test_fifo_single_server(void **state)
{
    (void)state;
    struct fifo q;
    int64_t s, d;
    assert_int_equal(fifo_init(&q, 1, 2), 0);
    assert_int_equal(fifo_admit(&q, 0, 10, &s, &d), 0);
    assert_int_equal(s, 0);
    assert_int_equal(d, 10);
    assert_int_equal(fifo_admit(&q, 1, 10, &s, &d), 0); /* waits */
    assert_int_equal(s, 10);
    assert_int_equal(d, 20);
    assert_int_equal(fifo_admit(&q, 2, 10, &s, &d), 0); /* waits: 2 waiting now */
    assert_int_equal(s, 20);
    assert_int_equal(fifo_waiting(&q, 3), 2);
    assert_int_equal(fifo_admit(&q, 3, 10, &s, &d), -1); /* room full */
    assert_int_equal(fifo_waiting(&q, 10), 1);            /* job 2 started at 10 */
    assert_int_equal(fifo_admit(&q, 10, 10, &s, &d), 0);
    assert_int_equal(s, 30);
    assert_int_equal(fifo_admit(&q, 100, 5, &s, &d), 0); /* idle server */
    assert_int_equal(s, 100);
    assert_int_equal(d, 105);
    fifo_reset(&q, 101);
    assert_int_equal(fifo_waiting(&q, 101), 0);
    assert_int_equal(fifo_admit(&q, 101, 5, &s, &d), 0);
    assert_int_equal(s, 101);
    fifo_deinit(&q);
}

/* The reference queues' server: the one free earliest (the first of ties). */
static size_t earliest_free(const int64_t *free_at, size_t servers)
{
    size_t m = 0;
    for (size_t k = 1; k < servers; k++)
        if (free_at[k] < free_at[m])
            m = k;
    return m;
}

/* The waiting room grows past its first allocation (and wraps around while
 * it does): admissions and refusals against a plain reference — c servers,
 * each job starts at max(arrival, the earliest free server), refused when
 * max_queue jobs wait. */
static void test_fifo_grows_against_reference(void **state)
{
    (void)state;
    enum { C = 3, MAXQ = 1000, JOBS = 40000 };
    struct fifo q;
    assert_int_equal(fifo_init(&q, C, MAXQ), 0);
    assert_true(q.cap < MAXQ);
    int64_t free_at[C] = {0}, *starts = calloc(JOBS, sizeof(int64_t));
    size_t n_starts = 0, refused = 0;
    struct rng r;
    rng_init(&r, 3, "fifo");
    int64_t t = 0;
    for (int i = 0; i < JOBS; i++) {
        /* bursts that queue hundreds, then quiet spells that drain them */
        t += (i / 5000) % 2 ? (int64_t)rng_below(&r, 400) : (int64_t)rng_below(&r, 10);
        int64_t svc = 1 + (int64_t)rng_below(&r, 100);
        size_t m = earliest_free(free_at, C);
        int64_t want = MAX(t, free_at[m]);
        size_t waiting = 0;
        for (size_t k = 0; k < n_starts; k++)
            waiting += starts[k] > t;
        int64_t st, dn;
        int rc = fifo_admit(&q, t, svc, &st, &dn);
        if (want > t && waiting >= MAXQ) {
            assert_int_equal(rc, -1);
            refused++;
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(st, want);
        free_at[m] = want + svc;
        /* keep only the starts still in the future */
        size_t w = 0;
        for (size_t k = 0; k < n_starts; k++)
            if (starts[k] > t)
                starts[w++] = starts[k];
        n_starts = w;
        if (want > t)
            starts[n_starts++] = want;
    }
    assert_true(refused > 0);        /* the room filled up */
    assert_int_equal(q.cap, MAXQ);   /* after growing to its bound */
    rng_deinit(&r);
    free(starts);
    fifo_deinit(&q);
}

/* The servers' heap (4-ary, replaced bottom-up, padded past the last
 * server) against a plain array of free times searched for its smallest,
 * for counts that fill its last level partly, exactly and not at all. */
static void test_fifo_heap_against_reference(void **state)
{
    (void)state;
    const uint32_t counts[] = {1, 2, 4, 5, 16, 17, 21, 64, 128, 1000};
    for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
        uint32_t c = counts[ci];
        struct fifo q;
        assert_int_equal(fifo_init(&q, c, 1u << 20), 0);
        int64_t *free_at = calloc(c, sizeof(int64_t));
        assert_non_null(free_at);
        struct rng r;
        rng_init(&r, 11 + c, "fifo heap");
        int64_t t = 0;
        for (int i = 0; i < 20000; i++) {
            /* busy stretches (every server taken) and quiet ones, ties included */
            t += (i / 2000) % 2 ? (int64_t)rng_below(&r, 50) : (int64_t)rng_below(&r, 3);
            int64_t svc = (int64_t)rng_below(&r, 40 * c + 1);
            size_t m = earliest_free(free_at, c);
            int64_t want = MAX(t, free_at[m]), st, dn;
            assert_int_equal(fifo_admit(&q, t, svc, &st, &dn), 0);
            if (st != want || dn != want + svc)
                fail_msg("%u servers, job %d: start %lld, the earliest free server says %lld",
                         c, i, (long long)st, (long long)want);
            free_at[m] = want + svc;
        }
        for (uint32_t k = c; k < c + FIFO_PAD; k++) /* the padding is never taken */
            assert_true(q.free_ns[k] == INT64_MAX);
        rng_deinit(&r);
        free(free_at);
        fifo_deinit(&q);
    }
}

static void test_fifo_multi_server(void **state)
{
    (void)state;
    struct fifo q;
    int64_t s, d;
    assert_int_equal(fifo_init(&q, 3, 100), 0);
    /* three jobs start at once, the fourth takes the earliest server */
    fifo_admit(&q, 0, 30, &s, &d);
    fifo_admit(&q, 0, 10, &s, &d);
    fifo_admit(&q, 0, 20, &s, &d);
    assert_int_equal(fifo_admit(&q, 1, 5, &s, &d), 0);
    assert_int_equal(s, 10);
    assert_int_equal(fifo_admit(&q, 2, 5, &s, &d), 0);
    assert_int_equal(s, 15);
    assert_int_equal(fifo_admit(&q, 3, 5, &s, &d), 0);
    assert_int_equal(s, 20);
    fifo_deinit(&q);
}

/* The analytic queue against the M/M/c closed form: mean wait within 5%. */
static void test_fifo_mmc_closed_form(void **state)
{
    (void)state;
    const unsigned cs[] = {1, 4, 16};
    const double rhos[] = {0.5, 0.9};
    for (size_t ci = 0; ci < ARRAY_LEN(cs); ci++) {
        for (size_t ri = 0; ri < ARRAY_LEN(rhos); ri++) {
            unsigned c = cs[ci];
            double mean_s = 1000.0, lambda = rhos[ri] * c / mean_s; /* per ns */
            struct fifo q;
            struct rng a, sv;
            assert_int_equal(fifo_init(&q, c, 1u << 20), 0);
            rng_init(&a, 7, "arr");
            rng_init(&sv, 7, "svc");
            double t = 0, wait = 0;
            const int n = 2000000;
            for (int i = 0; i < n; i++) {
                t += rng_exp(&a, 1 / lambda);
                int64_t st, dn;
                int64_t svc = (int64_t)llround(rng_exp(&sv, mean_s * 1000)) ; /* finer grain */
                assert_int_equal(fifo_admit(&q, (int64_t)(t * 1000), svc, &st, &dn), 0);
                wait += (double)(st - (int64_t)(t * 1000));
            }
            double got = wait / n / 1000, want = erlang_c_wait(c, lambda, 1 / mean_s);
            double total_got = got + mean_s, total_want = want + mean_s;
            if (fabs(total_got - total_want) > 0.05 * total_want)
                fail_msg("c=%u rho=%.1f: latency %.1f, M/M/c %.1f", c, rhos[ri], total_got,
                         total_want);
            rng_deinit(&a);
            rng_deinit(&sv);
            fifo_deinit(&q);
        }
    }
}

static void test_lhist(void **state)
{
    (void)state;
    /* bucket ranges tile the line and each value lands in its own bucket */
    uint64_t prev_end = 0;
    for (unsigned b = 0; b < 600; b++) {
        uint64_t lo, w;
        lhist_bucket_range(b, &lo, &w);
        assert_int_equal(lo, prev_end);
        prev_end = lo + w;
        assert_int_equal(lhist_bucket(lo), b);
        assert_int_equal(lhist_bucket(lo + w - 1), b);
        if (lo >= 64)
            assert_true((double)w / (double)lo <= 1.0 / 32 + 1e-12);
    }
    struct lhist *h = calloc(1, sizeof(*h));
    for (int i = 1; i <= 1000; i++)
        lhist_add(h, i * 1000);
    double p99 = lhist_quantile(h, 0.99), p50 = lhist_quantile(h, 0.5);
    assert_true(fabs(p99 - 990000) / 990000 < 0.035);
    assert_true(fabs(p50 - 500000) / 500000 < 0.035);
    assert_true(fabs(lhist_mean(h) - 500500) < 1e-6);
    /* merging the odd samples into a histogram of the even ones gives the
     * histogram of them all, bucket by bucket */
    struct lhist *odd = calloc(1, sizeof(*odd)), *even = calloc(1, sizeof(*even));
    for (int i = 1; i <= 1000; i++)
        lhist_add(i % 2 ? odd : even, i * 1000);
    lhist_merge(even, odd);
    assert_memory_equal(even, h, sizeof(*h));
    lhist_reset(odd);
    lhist_merge(even, odd); /* an empty one adds nothing */
    assert_memory_equal(even, h, sizeof(*h));
    free(odd);
    free(even);
    lhist_reset(h);
    assert_true(lhist_quantile(h, 0.99) == 0);
    free(h);
}

static void test_busy_meter(void **state)
{
    (void)state;
    struct busy_meter m;
    busy_init(&m, 100, INT64_MAX);
    busy_add(&m, 50, 250); /* 50 in tick 0, 100 in tick 1, 50 in tick 2 */
    busy_add(&m, 90, 95);
    assert_int_equal(busy_take(&m, 0), 55);
    assert_int_equal(busy_take(&m, 1), 100);
    busy_add(&m, 200, 210);
    assert_int_equal(busy_take(&m, 2), 60);
    assert_int_equal(busy_take(&m, 3), 0);
    /* beyond the ring: each tick still gets its own time, never more than
     * its length (the part past the ring waits until the ring reaches it) */
    busy_add(&m, 400, 400 + 100LL * (BUSY_RING + 10));
    busy_add(&m, 450, 450 + 100LL * (3 * BUSY_RING));
    int64_t total = 0;
    for (int64_t t = 4; t < 4 + 4 * BUSY_RING; t++) {
        int64_t v = busy_take(&m, t);
        /* the first interval fills its ticks; the second, from 450, fills
         * half of the ticks at its two ends */
        int64_t want = (t < 4 + BUSY_RING + 10 ? 100 : 0)
                       + (t == 4 || t == 4 + 3 * BUSY_RING ? 50 : t < 4 + 3 * BUSY_RING ? 100 : 0);
        assert_int_equal(v, want);
        total += v;
    }
    assert_int_equal(total, 100LL * (BUSY_RING + 10) + 100LL * 3 * BUSY_RING);
    busy_deinit(&m);
}

/* busy_cancel (a crash at 250 in tick 2): the rest of the current tick, as
 * told, and every later tick's time go, past the ring too; what comes after
 * counts again. */
static void test_busy_meter_cancel(void **state)
{
    (void)state;
    struct busy_meter m;
    busy_init(&m, 100, INT64_MAX);
    busy_add(&m, 0, 100);
    assert_int_equal(busy_take(&m, 0), 100);
    assert_int_equal(busy_take(&m, 1), 0);
    busy_add(&m, 200, 100LL * (2 * BUSY_RING));     /* from tick 2 past the ring */
    busy_add(&m, 260, 280);                         /* within tick 2, after the crash */
    busy_cancel(&m, (300 - 250) + 20);
    busy_add(&m, 270, 290);                         /* restarted at 260: counts */
    assert_int_equal(busy_take(&m, 2), 50 + 20);
    for (int64_t t = 3; t < 3 * BUSY_RING; t++)
        assert_int_equal(busy_take(&m, t), 0);
    /* at most what the tick holds */
    busy_add(&m, 3 * 100LL * BUSY_RING, 3 * 100LL * BUSY_RING + 10);
    busy_cancel(&m, 1000);
    assert_int_equal(busy_take(&m, 3 * BUSY_RING), 0);
    busy_deinit(&m);
}

/* A run whose duration is not a whole number of ticks ends within its last
 * tick: service past the end (a backlog still queued) is not that tick's,
 * whose share busy is then at most 1, as every other tick's. */
static void test_busy_meter_run_end(void **state)
{
    (void)state;
    struct busy_meter m;
    busy_init(&m, 100, 250); /* ticks [0,100), [100,200), [200,250) */
    busy_add(&m, 0, 100);
    busy_add(&m, 90, 95);
    assert_int_equal(busy_take(&m, 0), 105);
    busy_add(&m, 150, 400);  /* 50 in tick 1, 50 in tick 2, the rest after the end */
    busy_add(&m, 240, 245);  /* within the last tick: the fast path */
    busy_add(&m, 260, 300);  /* after the end */
    assert_int_equal(busy_take(&m, 1), 50);
    assert_int_equal(busy_take(&m, 2), 55);
    busy_init(&m, 100, 250);
    busy_add(&m, 10, 100LL * (BUSY_RING + 10)); /* past the ring and the end */
    int64_t total = 0;
    for (int64_t t = 0; t < 3; t++)
        total += busy_take(&m, t);
    assert_int_equal(total, 240);
}

/* The meter against a reference that splits every interval by overlap:
 * intervals inside the current tick (the fast path), across ticks, and
 * starting before the current tick (counted from it), with skipped ticks. */
static void test_busy_meter_reference(void **state)
{
    (void)state;
    enum { TICKS = 400 };
    const int64_t T = 1000;
    struct busy_meter m;
    busy_init(&m, T, INT64_MAX);
    int64_t *ref = calloc(TICKS + BUSY_RING + 400, sizeof *ref);
    assert_non_null(ref);
    uint64_t x = 88172645463325252ull;
    unsigned fast = 0, split = 0, early = 0, skipped = 0, far = 0;
    for (int64_t tick = 0; tick < TICKS;) {
        int64_t base = tick * T;
        for (int i = 0; i < 40; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int64_t start = MAX(0, base - T / 2 + (int64_t)(x % (uint64_t)(2 * T)));
            int64_t len = x >> 40 & 1   ? (int64_t)((x >> 20) % 50)
                          : x >> 41 & 7 ? (int64_t)((x >> 24) % (5 * T))
                                        : (int64_t)((x >> 24) % ((BUSY_RING + 300) * T));
            int64_t done = start + len;
            busy_add(&m, start, done);
            fast += done <= base + T;
            split += done > base + T;
            far += done > base + BUSY_RING * T;
            early += start < base && done > start;
            /* reference: what precedes the current tick counts in it */
            int64_t t = start;
            if (t < base && t < done) {
                int64_t seg = MIN(done, base + T);
                ref[tick] += seg - t;
                t = seg;
            }
            for (; t < done;) {
                int64_t k = t / T, seg = MIN(done, (k + 1) * T);
                ref[k] += seg - t;
                t = seg;
            }
        }
        /* now and then a tick is skipped: its time is dropped, the next one's kept */
        if (x >> 60 == 0) {
            tick++;
            skipped++;
        }
        assert_int_equal(busy_take(&m, tick), ref[tick]);
        tick++;
    }
    assert_true(fast > 1000 && split > 1000 && early > 1000 && skipped > 10 && far > 200);
    busy_deinit(&m);
    free(ref);
}

/* The calendar's edges against a sorted reference: events just inside and
 * just past its window, bursts past a bucket's capacity into one bucket,
 * events before the last one taken (the queue allows them; a run never
 * schedules any), and enough time that the ring of buckets wraps again and
 * again. Every pop must be the reference's smallest (time, sequence). */
static void test_eventq_calendar_edges(void **state)
{
    (void)state;
    const int64_t w = (int64_t)1 << EVENTQ_CAL_SHIFT, span = w * EVENTQ_CAL_BUCKETS;
    struct eventq q;
    eventq_init(&q);
    enum { MAXN = 2000 };
    struct event *ref = malloc(MAXN * sizeof(*ref));
    size_t nref = 0;
    uint64_t x = 4242, seq = 0;
    int64_t now = 0;
    size_t behind = 0, past = 0, burst = 0;
    for (int step = 0; step < 120000; step++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned r = (unsigned)(x >> 40);
        if ((r % 5 < 3 || nref == 0) && nref < MAXN) {
            int n = r % 11 == 0 ? 12 : 1; /* a burst overfills its bucket */
            int64_t base = now - now % w;
            int64_t t;
            switch (r % 8) {
            case 0: t = base + span - 1 - (int64_t)(x >> 50) % 3; break; /* last buckets */
            case 1: t = base + span + (int64_t)(x >> 50) % 3; break;     /* just past */
            case 2: t = now - (int64_t)((x >> 20) % (uint64_t)(now + 1)); behind++; break;
            case 3: t = now + (int64_t)(x >> 20) % (20 * span); break; /* far */
            case 4: t = now + (int64_t)(x >> 20) % (2 * w); break;     /* a bucket or two on */
            default: t = now + (int64_t)(x >> 20) % (span / 2); break; /* in the window */
            }
            if (t >= base + span)
                past++;
            for (int k = 0; k < n && nref < MAXN; k++) {
                burst += n > 1;
                assert_int_equal(eventq_push(&q, t, 1 + r % 9, (uint32_t)seq, (uint32_t)~seq), 0);
                struct event e = {t, (seq << 8) | (1 + r % 9), (uint32_t)seq, (uint32_t)~seq};
                seq++;
                ref_insert(ref, &nref, e);
            }
        } else {
            assert_int_equal(eventq_next_time(&q), ref[0].t_ns);
            struct event e;
            assert_true(eventq_pop(&q, &e));
            assert_int_equal(e.a, ref[0].a);
            assert_int_equal(e.b, ref[0].b);
            assert_int_equal(e.t_ns, ref[0].t_ns);
            assert_int_equal(event_kind(&e), event_kind(&ref[0]));
            now = e.t_ns;
            memmove(ref, ref + 1, (--nref) * sizeof(*ref));
        }
        assert_int_equal(q.n, nref);
    }
    assert_true(behind > 1000 && past > 1000 && burst > 1000); /* every edge was taken */
    assert_true(now > 10 * span);                              /* the ring wrapped */
    while (nref) {
        struct event e;
        assert_true(eventq_pop(&q, &e));
        assert_int_equal(e.a, ref[0].a);
        memmove(ref, ref + 1, (--nref) * sizeof(*ref));
    }
    assert_int_equal(eventq_next_time(&q), INT64_MAX);
    free(ref);
    eventq_deinit(&q);
}

/* Sequence numbers running out: the pending events are renumbered and keep
 * their order (ties included), and pushes after it still go after them;
 * the lane's events among them. */
static void test_eventq_renumber(void **state)
{
    (void)state;
    struct eventq q;
    eventq_init(&q);
    q.next_seq = EVENTQ_SEQ_LIMIT - 3000;
    uint64_t x = 99;
    uint32_t id = 0;
    int64_t now = 0, last_t = -1;
    uint32_t last_a = 0;
    for (int step = 0; step < 20000; step++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if ((x >> 40) % 3 != 0 || q.n == 0) {
            int64_t t = now + (int64_t)((x >> 20) % 4); /* many ties */
            bool fifo = (x >> 30) % 4 == 0; /* some into the lane, in order or not */
            int rc = fifo ? eventq_push_fifo(&q, t, 1 + id % 5, id, ~id)
                          : eventq_push(&q, t, 1 + id % 5, id, ~id);
            assert_int_equal(rc, 0);
            id++;
        } else {
            struct event e;
            assert_true(eventq_pop(&q, &e));
            assert_true(e.t_ns >= last_t);
            if (e.t_ns == last_t)
                assert_true(e.a > last_a); /* ids rise with the order of pushing */
            assert_int_equal(event_kind(&e), 1 + e.a % 5);
            assert_int_equal(e.b, ~e.a);
            last_t = now = e.t_ns;
            last_a = e.a;
        }
    }
    assert_true(q.next_seq < 20000); /* it did renumber */
    eventq_deinit(&q);
}

/* The inlined taus2 is GSL's gsl_rng_taus2 bit for bit: seeding (0, the
 * LCG's small values, large seeds), raw outputs, and the three conversions
 * with their loops (uniform_int's rejection, uniform_pos's zero). */
static void test_rng_matches_gsl(void **state)
{
    (void)state;
    static const uint32_t seeds[] = {0, 1, 2, 3, 4357, 69069, 0x7fffffffu, 0x80000000u,
                                     0xfffffffeu, 0xffffffffu, 123456789u};
    static const uint32_t ns[] = {1, 2, 3, 7, 10, 1000, 1000003, 0x7fffffffu, 0x80000001u,
                                  0xfffffffeu, 0xffffffffu};
    gsl_rng *g = gsl_rng_alloc(gsl_rng_taus2);
    assert_non_null(g);
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        struct rng r;
        rng_set_raw(&r, seeds[i]);
        gsl_rng_set(g, seeds[i]);
        for (int j = 0; j < 20000; j++) {
            switch (j % 4) {
            case 0:
                assert_int_equal(rng_next(&r), gsl_rng_get(g));
                break;
            case 1:
                assert_true(rng_uniform(&r) == gsl_rng_uniform(g));
                break;
            case 2:
                assert_true(rng_uniform_pos(&r) == gsl_rng_uniform_pos(g));
                break;
            default: {
                uint32_t n = ns[(size_t)j / 4 % (sizeof ns / sizeof *ns)];
                assert_int_equal(rng_below(&r, n), gsl_rng_uniform_int(g, n));
            }
            }
        }
    }
    /* a named stream: the folded seed of rng_init */
    struct rng r;
    rng_init(&r, 42, "arrivals");
    uint64_t x = rng_stream_seed(42, "arrivals");
    gsl_rng_set(g, (unsigned long)((x ^ (x >> 32)) & 0xffffffffu));
    for (int j = 0; j < 1000; j++)
        assert_true(rng_exp(&r, 3.5) == -3.5 * log(gsl_rng_uniform_pos(g)));
    gsl_rng_free(g);
}

/* A new request record is zeroed, whatever the heap held (glibc's malloc
 * perturbation fills new blocks with 0x02 here: req.asking once came as
 * ASKING_NEXT); a recycled one is handed back as its last user left it. */
static void test_req_alloc_new_records_are_zero(void **state)
{
    (void)state;
    mallopt(M_PERTURB, 0xfd);
    struct engine e;
    engine_init(&e, NULL);
    static const struct req zero;
    for (uint32_t i = 0; i < 5000; i++) { /* past two growths */
        uint32_t r = req_alloc(&e);
        assert_int_equal(r, i);
        struct req q;
        memcpy(&q, req_at(&e, r), sizeof q); /* padding too */
        q.pending = 0;
        if (memcmp(&q, &zero, sizeof q))
            fail_msg("record %u is not zeroed (asking %u)", r, q.asking);
    }
    req_at(&e, 7)->asking = ASKING_YES;
    req_put(&e, 7);
    assert_int_equal(req_alloc(&e), 7);
    assert_int_equal(req_at(&e, 7)->asking, ASKING_YES);
    engine_deinit(&e);
    mallopt(M_PERTURB, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eventq_order),
        cmocka_unit_test(test_eventq_push_while_handling),
        cmocka_unit_test(test_eventq_against_reference),
        cmocka_unit_test(test_eventq_calendar_edges),
        cmocka_unit_test(test_eventq_renumber),
        cmocka_unit_test(test_rng_matches_gsl),
        cmocka_unit_test(test_fifo_single_server),
        cmocka_unit_test(test_fifo_heap_against_reference),
        cmocka_unit_test(test_fifo_multi_server),
        cmocka_unit_test(test_fifo_grows_against_reference),
        cmocka_unit_test(test_fifo_mmc_closed_form),
        cmocka_unit_test(test_lhist),
        cmocka_unit_test(test_busy_meter),
        cmocka_unit_test(test_busy_meter_cancel),
        cmocka_unit_test(test_busy_meter_reference),
        cmocka_unit_test(test_busy_meter_run_end),
        cmocka_unit_test(test_req_alloc_new_records_are_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
