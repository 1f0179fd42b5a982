/*
 * Model tests: whole runs checked against closed forms, each with its
 * tolerance stated where it is asserted.
 *
 *  - determinism and common random numbers
 *  - scale-out under uniform popularity: 1 - f·exp(-λ(t - t0)), 0.02 on 5 s windows
 *  - Zipf + LRU: Che's approximation, 0.01, and from the first quarter
 *    second (prewarm starts the LRU in its steady state), 0.02
 *  - TTL with fill on miss: λT / (1 + λT), 0.01; with writes invalidating
 *    or written through (and without a TTL: r / (r + w) and 1), 0.01, and
 *    0.02 in the first second; with `fill: none` (only write-throughs
 *    store), from the first second, 0.03, and over the run, 0.01
 *  - arrivals per tick: Poisson mean and variance, 4 standard deviations;
 *    write share; uniform keys, chi-square within 5 standard deviations
 *  - node_ticks: util against the offered load (0.01-0.015), p99 against
 *    M/M/1 (6%), items and bytes within a capacity in items or bytes, an
 *    LRU over uniform keys hits capacity / keys owned (0.01)
 *  - database: M/M/c (Erlang C) mean latency 5%, utilization 0.01; M/D/1
 *    (Pollaczek-Khinchine) and M/M/1 mean latency 5%, M/M/1 p99 6%;
 *    db_overload_s counts the overloaded ticks after warmup
 *  - a hot key's node takes h + (1 - h)/N of requests, 0.01
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "models/workload.h"
#include "support_sink.h"
#include "support_theory.h"


/* ---- determinism ------------------------------------------------------------ */

static const char *small =
    "name: small\nduration: 20s\ntick: 1s\n"
    "workload: {keys: 5000, popularity: zipf, zipf_s: 0.9, qps: 20000, write_ratio: 0.05}\n"
    "routing: {algorithm: ring, vnodes: 64}\n"
    "nodes: [{id: A}, {id: B}, {id: C}]\n"
    "cache: {capacity_items: 800}\n"
    "events:\n"
    "  - {at: 5s, add_node: {id: D}}\n"
    "  - {at: 8s, slow_node: {id: A, factor: 50, for: 4s}}\n"
    "  - {at: 12s, crash_node: {id: B}}\n"
    "  - {at: 15s, restart_node: {id: B}}\n";

static void test_deterministic(void **state)
{
    (void)state;
    struct mem_run a, b, c;
    mem_run_yaml(&a, small, NULL);
    mem_run_yaml(&b, small, NULL);
    assert_int_equal(a.n_ticks, 20);
    assert_int_equal(a.n_ticks, b.n_ticks);
    assert_int_equal(memcmp(a.ticks, b.ticks, a.n_ticks * sizeof(*a.ticks)), 0);
    assert_int_equal(a.n_nodes, b.n_nodes);
    for (size_t i = 0; i < a.n_nodes; i++) {
        assert_string_equal(a.nodes[i].node, b.nodes[i].node);
        assert_string_equal(a.nodes[i].state, b.nodes[i].state);
        assert_int_equal(a.nodes[i].requests, b.nodes[i].requests);
        assert_int_equal(a.nodes[i].items, b.nodes[i].items);
        assert_true(memcmp(&a.nodes[i].util, &b.nodes[i].util, sizeof(double)) == 0);
    }
    assert_int_equal(a.n_events, b.n_events);
    for (size_t i = 0; i < a.n_events; i++)
        assert_string_equal(a.events[i].detail, b.events[i].detail);
    assert_int_equal(memcmp(&a.summary, &b.summary, sizeof a.summary), 0);

    const char *seed2[] = {"seed=2", NULL};
    mem_run_yaml(&c, small, seed2);
    assert_int_not_equal(memcmp(a.ticks, c.ticks, a.n_ticks * sizeof(*a.ticks)), 0);
    mem_run_free(&a);
    mem_run_free(&b);
    mem_run_free(&c);
}

/* Runs differing only in routing see the same requests in every tick. */
static void test_common_random_numbers(void **state)
{
    (void)state;
    const char *variants[][4] = {
        {"routing.algorithm=mod", NULL},
        {"routing.vnodes=7", "routing.hash=xxh64", NULL},
        {"routing.algorithm=maglev", NULL},
        {"health.mode=central", "health.cooldown=5s", NULL},
    };
    struct mem_run base;
    mem_run_yaml(&base, small, NULL);
    for (size_t v = 0; v < ARRAY_LEN(variants); v++) {
        struct mem_run o;
        mem_run_yaml(&o, small, variants[v]);
        assert_int_equal(o.n_ticks, base.n_ticks);
        for (size_t i = 0; i < o.n_ticks; i++) {
            assert_int_equal(o.ticks[i].requests, base.ticks[i].requests);
            assert_int_equal(o.ticks[i].writes, base.ticks[i].writes);
        }
        mem_run_free(&o);
    }
    mem_run_free(&base);
}

/* The file's order of the nodes changes no result: a central probe round
 * and a staged join's copy list take the nodes in id order. Two nodes that
 * crash together fail their probes at one instant, and the cooldown holds
 * back the second: the same one (B, first by id) in either order. */
static void check_node_order(const char *extra, const char *const *sets, const char *ejected)
{
    static const char *const orders[] = {"[{id: A}, {id: B}, {id: C}, {id: D}, {id: E}]",
                                         "[{id: D}, {id: A}, {id: E}, {id: C}, {id: B}]"};
    struct mem_run m[2];
    for (int k = 0; k < 2; k++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "name: order\nduration: 16s\ntick: 1s\n"
                 "workload: {keys: 20000, qps: 4000, write_ratio: 0.05}\n"
                 "routing: {vnodes: 64}\nnodes: %s\ncache: {capacity_items: 3000}\n"
                 "clients: {timeout: 5ms}\n"
                 "health: {mode: central, failure_limit: 2, retry_after: 30s, cooldown: 5s,"
                 " probe_interval: 500ms}\n"
                 "events:\n%s",
                 orders[k], extra);
        mem_run_yaml(&m[k], yaml, sets);
    }
    assert_int_equal(m[0].n_ticks, m[1].n_ticks);
    assert_int_equal(memcmp(m[0].ticks, m[1].ticks, m[0].n_ticks * sizeof(*m[0].ticks)), 0);
    assert_int_equal(memcmp(&m[0].summary, &m[1].summary, sizeof m[0].summary), 0);
    char ej[2][64] = {"", ""};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < m[k].n_events; i++)
            if (!strcmp(m[k].events[i].kind, "eject") && strlen(ej[k]) < 60)
                strcat(ej[k], m[k].events[i].node);
    assert_string_equal(ej[0], ejected);
    assert_string_equal(ej[1], ejected);
    for (int k = 0; k < 2; k++)
        mem_run_free(&m[k]);
}

static void test_node_order_changes_nothing(void **state)
{
    (void)state;
    const char *crashes = "  - {at: 5s, crash_node: {id: D}}\n"
                          "  - {at: 5s, crash_node: {id: B}}\n";
    check_node_order(crashes, NULL, "BD"); /* D after the cooldown */
    const char *jitter[] = {"network.jitter=50us", NULL};
    check_node_order(crashes, jitter, "BD");
    check_node_order("  - {at: 3s, add_node: {id: F, warm: {rate: 3000}}}\n", NULL, "");
}

/* ---- scale-out -------------------------------------------------------------- */

static void check_scale_out(const char *algo)
{
    /* λ = 10000 reads/s over 50000 keys = 0.2 reads per key per second */
    const char *yaml =
        "name: scale\nduration: 100s\ntick: 1s\n"
        "workload: {keys: 50000, popularity: uniform, qps: 10000}\n"
        "routing: {algorithm: ring, vnodes: 512}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "database: {workers: 64}\n"
        "health: {mode: off}\n"
        "events: [{at: 30s, add_node: {id: D}}]\n";
    char set[64];
    snprintf(set, sizeof set, "routing.algorithm=%s", algo);
    const char *sets[] = {set, NULL};
    struct mem_run m;
    mem_run_yaml(&m, yaml, sets);
    double f = (double)m.summary.keys_moved / 50000.0, lambda = 0.2, t0 = 30;
    assert_true(f > 0.2);
    CHECK_NEAR(m.summary.baseline_hit_rate, 1.0, 1e-9, "%s: warm caches before the join", algo);
    for (double a = 30; a < 95; a += 5) {
        double b = a + 5, sim = 0;
        for (size_t i = (size_t)a; i < (size_t)b; i++)
            sim += m.ticks[i].hit_rate / 5;
        double model = 1 - f * (exp(-lambda * (a - t0)) - exp(-lambda * (b - t0))) / (lambda * 5);
        CHECK_NEAR(sim, model, 0.02, "%s: hit rate over [%.0f, %.0f) s", algo, a, b);
    }
    mem_run_free(&m);
}

static void test_scale_out_ring(void **state)
{
    (void)state;
    check_scale_out("ring");
}

static void test_scale_out_mod(void **state)
{
    (void)state;
    check_scale_out("mod");
}

/* ---- Che's approximation -------------------------------------------------------- */

static double che_hit_ratio(unsigned keys, double s, double cap)
{
    double *p = malloc(keys * sizeof(double)), z = 0;
    for (unsigned i = 0; i < keys; i++)
        z += p[i] = pow(i + 1.0, -s);
    for (unsigned i = 0; i < keys; i++)
        p[i] /= z;
    double lo = 0, hi = 1;
    for (;;) { /* bracket the characteristic time */
        double occ = 0;
        for (unsigned i = 0; i < keys; i++)
            occ += 1 - exp(-p[i] * hi);
        if (occ >= cap)
            break;
        hi *= 2;
    }
    for (int it = 0; it < 200; it++) {
        double mid = (lo + hi) / 2, occ = 0;
        for (unsigned i = 0; i < keys; i++)
            occ += 1 - exp(-p[i] * mid);
        if (occ < cap)
            lo = mid;
        else
            hi = mid;
    }
    double hit = 0;
    for (unsigned i = 0; i < keys; i++)
        hit += p[i] * (1 - exp(-p[i] * lo));
    free(p);
    return hit;
}

static void test_che_approximation(void **state)
{
    (void)state;
    const double ss[] = {0.8, 1.1};
    const unsigned caps[] = {1000, 4000};
    for (size_t i = 0; i < ARRAY_LEN(ss); i++) {
        for (size_t j = 0; j < ARRAY_LEN(caps); j++) {
            char yaml[600];
            snprintf(yaml, sizeof yaml,
                     "name: che\nduration: 40s\nwarmup: 10s\ntick: 250ms\n"
                     "workload: {keys: 20000, popularity: zipf, zipf_s: %g, qps: 50000}\n"
                     "nodes: [{id: A}]\ncache: {capacity_items: %u, service_time: 2us}\n"
                     "database: {workers: 256}\nhealth: {mode: off}\n",
                     ss[i], caps[j]);
            struct mem_run m;
            mem_run_yaml(&m, yaml, NULL);
            double che = che_hit_ratio(20000, ss[i], caps[j]);
            CHECK_NEAR(m.summary.hit_rate, che, 0.01, "LRU hit ratio, zipf s=%g, %u items",
                       ss[i], caps[j]);
            /* prewarm starts the cache in that steady state, not with the
             * `capacity` most popular keys (which hit 0.69 instead of 0.58
             * for s = 0.8 and 4000 items until the LRU has turned over, a
             * few tenths of a second here): the first quarter second, 12,500
             * reads, within 4 standard deviations */
            CHECK_NEAR(m.ticks[0].hit_rate, che, 0.02, "zipf s=%g, %u items: first 250 ms",
                       ss[i], caps[j]);
            mem_run_free(&m);
        }
    }
}

/* ---- the Zipf sampler ------------------------------------------------------------ */

/* Frequencies of ranks drawn by the workload against the exact Zipf
 * probabilities, for a keyspace inside the head table and one with a long
 * tail: single ranks and rank ranges within 4 standard deviations. */
static void test_zipf_sampler(void **state)
{
    (void)state;
    const unsigned ns[] = {1000, 200000};
    const double ss[] = {0.7, 0.99, 1.3};
    for (size_t a = 0; a < ARRAY_LEN(ns); a++) {
        for (size_t b = 0; b < ARRAY_LEN(ss); b++) {
            char yaml[300];
            snprintf(yaml, sizeof yaml,
                     "name: z\nduration: 1s\nworkload: {keys: %u, popularity: zipf, zipf_s: %g}\n"
                     "nodes: [{id: A}]\n", ns[a], ss[b]);
            struct diag d;
            diag_init(&d);
            struct scenario *sc = scenario_load_string("z.yaml", yaml, strlen(yaml), NULL, 0, &d);
            assert_non_null(sc);
            char err[200];
            struct sim *s = sim_create(sc, NULL, NULL, err, sizeof err);
            assert_non_null(s);
            unsigned n = ns[a];
            double *p = malloc(n * sizeof(double)), z = 0;
            for (unsigned k = n; k >= 1; k--)
                z += p[k - 1] = pow(k, -ss[b]);
            long *count = calloc(n, sizeof(long));
            const long draws = 2000000;
            for (long i = 0; i < draws; i++)
                count[workload_sample_key(s->wl)]++;
            /* ranges: single top ranks, the head's edge, the tail */
            unsigned lo[] = {0, 1, 2, 9, 100, 4000, 4096, 20000, 100000};
            unsigned hi[] = {1, 2, 3, 10, 1000, 4096, 5000, 100000, 200000};
            for (size_t r = 0; r < ARRAY_LEN(lo); r++) {
                if (hi[r] > n)
                    continue;
                double want = 0;
                long got = 0;
                for (unsigned k = lo[r]; k < hi[r]; k++) {
                    want += p[k] / z;
                    got += count[k];
                }
                double sd = sqrt(draws * want * (1 - want));
                if (fabs(got - draws * want) > 4 * sd + 1)
                    fail_msg("n=%u s=%g ranks [%u, %u): %ld draws, expected %.0f +- %.0f", n,
                             ss[b], lo[r], hi[r], got, draws * want, sd);
            }
            free(p);
            free(count);
            sim_destroy(s);
            scenario_destroy(sc);
            diag_deinit(&d);
        }
    }
}

/* ---- TTL -------------------------------------------------------------------------- */

static void test_ttl_hit_ratio(void **state)
{
    (void)state;
    const char *ttls[] = {"1s", "4s", "500ms"};
    const double lt[] = {1.0, 4.0, 0.5}; /* λ = 1 read per key per second */
    for (size_t i = 0; i < ARRAY_LEN(ttls); i++) {
        char yaml[500];
        snprintf(yaml, sizeof yaml,
                 "name: ttl\nduration: 60s\nwarmup: 20s\ntick: 1s\n"
                 "workload: {keys: 10000, popularity: uniform, qps: 10000, ttl: %s}\n"
                 "nodes: [{id: A}, {id: B}]\ndatabase: {workers: 64}\nhealth: {mode: off}\n",
                 ttls[i]);
        struct mem_run m;
        mem_run_yaml(&m, yaml, NULL);
        CHECK_NEAR(m.summary.hit_rate, lt[i] / (1 + lt[i]), 0.01, "TTL %s, λT = %g", ttls[i],
                   lt[i]);
        /* prewarm starts the caches in that steady state: no warm-up transient */
        CHECK_NEAR(m.ticks[0].hit_rate, lt[i] / (1 + lt[i]), 0.03, "TTL %s: first second",
                   ttls[i]);
        long long expirations = 0;
        for (size_t k = 0; k < m.n_nodes; k++)
            expirations += m.nodes[k].expirations;
        assert_true(expirations > 0);
        mem_run_free(&m);
    }
}

/* Two nodes, 10,000 uniform keys read once a second each (r = 0.8, w =
 * 0.2), the TTL and clients' keys given ("fill: none, " or ""), writes
 * invalidating or written through. */
static void writes_yaml(char *yaml, size_t n, const char *name, const char *ttl,
                        const char *clients, int through)
{
    snprintf(yaml, n,
             "name: %s\nduration: 40s\nwarmup: 10s\ntick: 1s\n"
             "workload: {keys: 10000, popularity: uniform, qps: 10000, "
             "write_ratio: 0.2, ttl: %s}\n"
             "nodes: [{id: A}, {id: B}]\ndatabase: {workers: 64}\n"
             "clients: {%swrite: %s}\nhealth: {mode: off}\n",
             name, ttl, clients, through ? "write_through" : "invalidate");
}

/* TTL and writes: a key read r and written w times a second, items living
 * T, fill on miss. Its item is live, expired (still held, found by the next
 * request) or, with invalidation, deleted by a write. A life ends at T
 * unless a write comes first: it lasts m = (1 - e^-wT) / w on average and
 * ends by expiry with probability e^-wT; then the item waits for the next
 * request, 1 / (r + w) on average; after a deletion, for the next read, 1/r.
 * So the share of time live, the hit ratio (reads see time averages):
 *   invalidate:    m / (m + e^-wT / (r + w) + w (m + e^-wT / (r + w)) / r)
 *   write_through: m / (m + e^-wT / (r + w))   (a write sets a new life)
 * and without a TTL r / (r + w) and 1. */
static double ttl_write_hit_ratio(double r, double w, double T, bool through)
{
    if (T <= 0)
        return through ? 1 : r / (r + w);
    double m = -expm1(-w * T) / w, held = exp(-w * T) / (r + w);
    return m / (m + held + (through ? 0 : w * (m + held) / r));
}

static void test_ttl_and_writes(void **state)
{
    (void)state;
    const char *ttls[] = {"0s", "1s", "3s"};
    const double T[] = {0, 1, 3};
    for (size_t i = 0; i < ARRAY_LEN(ttls); i++) {
        for (int through = 0; through < 2; through++) {
            /* λ = 1 request per key per second: r = 0.8, w = 0.2 */
            char yaml[600];
            writes_yaml(yaml, sizeof yaml, "ttlw", ttls[i], "", through);
            struct mem_run m;
            mem_run_yaml(&m, yaml, NULL);
            double want = ttl_write_hit_ratio(0.8, 0.2, T[i], through);
            CHECK_NEAR(m.summary.hit_rate, want, 0.01, "TTL %s, %s", ttls[i],
                       through ? "write_through" : "invalidate");
            /* prewarm starts there: the first second (8,000 reads) within 0.02 */
            CHECK_NEAR(m.ticks[0].hit_rate, want, 0.02, "TTL %s, %s: first second", ttls[i],
                       through ? "write_through" : "invalidate");
            /* and the caches hold from the start what they hold later: every
             * key but those deleted since their last read (expired items stay
             * until found), within 2% */
            long long first = 0, last = 0;
            for (size_t k = 0; k < m.n_nodes; k++) {
                if (m.nodes[k].t_s == 0)
                    first += m.nodes[k].items;
                if (m.nodes[k].t_s == 39)
                    last += m.nodes[k].items;
            }
            CHECK_NEAR((double)first, (double)last, 0.02 * (double)last, "TTL %s, %s: items",
                       ttls[i], through ? "write_through" : "invalidate");
            mem_run_free(&m);
        }
    }
}

/* `fill: none`: reads never fill, so only write-throughs store items, and
 * prewarm starts the nodes as such a cache is after a long run: empty when
 * writes invalidate; written through, every key written since (all of them,
 * without a TTL), and with a TTL T a key is live m = (1 - e^-wT) / w, held
 * expired e^-wT / (r + w), then, when a read finds it expired, out until the
 * next write, e^-wT r / (r + w) / w: the hit ratio is the live share. */
static void test_prewarm_without_fills(void **state)
{
    (void)state;
    const char *ttls[] = {"0s", "3s"};
    const double T[] = {0, 3};
    for (size_t i = 0; i < ARRAY_LEN(ttls); i++) {
        for (int through = 0; through < 2; through++) {
            char yaml[600];
            writes_yaml(yaml, sizeof yaml, "nofill", ttls[i], "fill: none, ", through);
            struct mem_run m;
            mem_run_yaml(&m, yaml, NULL);
            const char *how = through ? "write_through" : "invalidate";
            if (!through) { /* nothing stores an item: none held, no hit, ever */
                for (size_t k = 0; k < m.n_nodes; k++)
                    assert_int_equal(m.nodes[k].items, 0);
                for (size_t k = 0; k < m.n_ticks; k++)
                    assert_int_equal(m.ticks[k].hits, 0);
                mem_run_free(&m);
                continue;
            }
            double r = 0.8, w = 0.2, want = 1; /* a request per key per second */
            if (T[i] > 0) {
                double live = -expm1(-w * T[i]) / w, held = exp(-w * T[i]) / (r + w);
                want = live / (live + held + exp(-w * T[i]) * r / (r + w) / w);
            }
            CHECK_NEAR(m.summary.hit_rate, want, 0.01, "fill none, TTL %s, %s", ttls[i], how);
            /* from the start: the first second (8,000 reads of keys whose
             * states last seconds) within 0.03 */
            CHECK_NEAR(m.ticks[0].hit_rate, want, 0.03, "fill none, TTL %s, %s: first second",
                       ttls[i], how);
            mem_run_free(&m);
        }
    }
}

/* ---- database: M/M/c ----------------------------------------------------------------- */

static void test_database_mmc(void **state)
{
    (void)state;
    const double rhos[] = {0.5, 0.9};
    for (size_t i = 0; i < ARRAY_LEN(rhos); i++) {
        /* writes go straight to the database: its arrivals are Poisson */
        double qps = rhos[i] * 16 / 0.002;
        char yaml[600];
        snprintf(yaml, sizeof yaml,
                 "name: mmc\nduration: 120s\nwarmup: 5s\ntick: 1s\n"
                 "workload: {keys: 10000, qps: %g, write_ratio: 1}\n"
                 "nodes: [{id: A}]\n"
                 "database: {workers: 16, service_time: 2ms, service_dist: exp, max_queue: 100000}\n"
                 "health: {mode: off}\n",
                 qps);
        struct mem_run m;
        mem_run_yaml(&m, yaml, NULL);
        double util = 0, lat = 0, n = 0;
        size_t ticks = 0;
        for (size_t k = 5; k < m.n_ticks; k++) {
            const struct tick_row *t = &m.ticks[k];
            util += t->db_util;
            lat += t->db_mean_ms * (double)(t->db_reads + t->db_writes);
            n += (double)(t->db_reads + t->db_writes);
            ticks++;
        }
        util /= (double)ticks;
        lat /= n;
        double want = (erlang_c_wait(16, qps, 500) + 1.0 / 500) * 1000;
        CHECK_NEAR(util, rhos[i], 0.01, "database utilization at rho %.1f", rhos[i]);
        CHECK_NEAR(lat, want, 0.05 * want, "database mean latency (ms) at rho %.1f", rhos[i]);
        mem_run_free(&m);
    }
}

/* M/D/1 (fixed service times): Pollaczek-Khinchine, the mean wait is
 * rho / (2 mu (1 - rho)); M/M/1: the time in system is exponential with rate
 * mu - lambda, so its 99th percentile is ln(100) / (mu - lambda). 20 s ticks
 * hold 5,000+ operations each, enough for a tick's p99 (the histogram's
 * buckets are within 3%). */
static void test_database_md1_and_p99(void **state)
{
    (void)state;
    const double rhos[] = {0.5, 0.8};
    for (size_t i = 0; i < ARRAY_LEN(rhos); i++) {
        for (int fixed = 0; fixed < 2; fixed++) {
            double mu = 500, lambda = rhos[i] * mu; /* 2 ms, one worker */
            char yaml[600];
            snprintf(yaml, sizeof yaml,
                     "name: md1\nduration: 800s\nwarmup: 20s\ntick: 20s\n"
                     "workload: {keys: 10000, qps: %g, write_ratio: 1}\n"
                     "nodes: [{id: A}]\n"
                     "database: {workers: 1, service_time: 2ms, service_dist: %s, "
                     "max_queue: 100000}\n"
                     "health: {mode: off}\n",
                     lambda, fixed ? "fixed" : "exp");
            struct mem_run m;
            mem_run_yaml(&m, yaml, NULL);
            double util = 0, lat = 0, n = 0, p99 = 0;
            size_t ticks = 0;
            for (size_t k = 1; k < m.n_ticks; k++) {
                const struct tick_row *t = &m.ticks[k];
                util += t->db_util;
                lat += t->db_mean_ms * (double)t->db_writes;
                n += (double)t->db_writes;
                p99 += t->db_p99_ms;
                ticks++;
            }
            util /= (double)ticks;
            lat /= n;
            p99 /= (double)ticks;
            double rho = rhos[i];
            double want = fixed ? (1 / mu + rho / (2 * mu * (1 - rho))) * 1000
                                : 1000 / (mu - lambda);
            CHECK_NEAR(util, rho, 0.01, "database utilization at rho %.1f", rho);
            CHECK_NEAR(lat, want, 0.05 * want, "%s mean latency (ms) at rho %.1f",
                       fixed ? "M/D/1" : "M/M/1", rho);
            if (!fixed) {
                double p = log(100) / (mu - lambda) * 1000;
                CHECK_NEAR(p99, p, 0.06 * p, "M/M/1 p99 latency (ms) at rho %.1f", rho);
            }
            mem_run_free(&m);
        }
    }
}

/* db_overload_s: the seconds of the ticks after warmup whose offered load
 * passed the database's capacity. A database of 2,000 operations/s offered
 * 5,000 writes/s throughout: every tick after the 3 s warmup, the last
 * (half a second) included. */
static void test_database_overload_seconds(void **state)
{
    (void)state;
    const char *yaml =
        "name: overload\nduration: 10.5s\nwarmup: 3s\ntick: 1s\n"
        "workload: {keys: 10000, qps: 5000, write_ratio: 1}\n"
        "nodes: [{id: A}]\n"
        "database: {workers: 4, service_time: 2ms, max_queue: 100}\n"
        "health: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    for (size_t k = 0; k < m.n_ticks; k++)
        assert_true(m.ticks[k].db_demand > 2);
    CHECK_NEAR(m.summary.db_overload_s, 7.5, 1e-9, "seconds overloaded after warmup");
    /* the refused writes are errors, each once */
    assert_int_equal(m.summary.errors, MEM_SUM(&m, db_rejects, 0, 11));
    assert_true(m.summary.errors > 20000);
    mem_run_free(&m);
}

/* The summary's seconds are exact: the nearest double to a whole number of
 * nanoseconds. Ticks of 0.7 s, which no double holds: 11 overloaded ticks
 * after a 2.1 s warmup are 7.7 s (summed in seconds they were
 * 7.700000000000001), and a recovery from a join at 10.4 s to the start of
 * a tick is k × 0.7 − 10.4 s to the nanosecond (here 3.6 s, which the
 * tick's start in seconds less 10.4 made 3.5999999999999996). */
static void test_summary_seconds_are_exact(void **state)
{
    (void)state;
    const char *overload =
        "name: overload07\nduration: 9.8s\nwarmup: 2.1s\ntick: 700ms\n"
        "workload: {keys: 10000, qps: 5000, write_ratio: 1}\n"
        "nodes: [{id: A}]\n"
        "database: {workers: 4, service_time: 2ms, max_queue: 100}\n"
        "health: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, overload, NULL);
    assert_int_equal(m.n_ticks, 14);
    assert_true(m.summary.db_overload_s == 7.7);
    mem_run_free(&m);

    const char *join =
        "name: join07\nduration: 40s\ntick: 700ms\n"
        "workload: {keys: 3000, qps: 3000}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "health: {mode: off}\n"
        "events: [{at: 10.4s, add_node: {id: D}}]\n";
    mem_run_yaml(&m, join, NULL);
    double rec = m.summary.recovery_s;
    assert_false(isnan(rec));
    long long ns = llround(rec * 1e9);
    assert_int_equal((ns + 10400000000LL) % 700000000LL, 0); /* to the start of a tick */
    assert_true(rec == (double)ns / 1e9);
    assert_true(rec > 0);
    mem_run_free(&m);
}

/* min_hit_rate is the lowest tick from the tick holding the first event on,
 * whatever the warmup; warmup bounds the baseline alone. A 3 -> 4 join at
 * 2 s inside a 5 s warmup, caches warm, 0.1 reads per key per second: a
 * quarter of the keys move, so tick 2 is at about 1 - 0.25 x 0.95 = 76% and
 * tick t after it recovers as 1 - 0.25 x 0.95 x e^(-0.1 (t - 2)): 82% at
 * 5 s, 2.5 points above the dip at 5,000 reads a tick (a tick's standard
 * deviation is about 0.6 points). The summary once took its minimum from the
 * end of the warmup only, so the join's dip was missing from it. The baseline is empty (no
 * tick after warmup ends by the join): NULL, and so is recovery_s. Without
 * events the minimum is over the ticks from the warmup on. */
static void test_min_hit_rate_counts_an_event_in_warmup(void **state)
{
    (void)state;
    const char *yaml =
        "name: mindip\nduration: 20s\nwarmup: 5s\ntick: 1s\n"
        "workload: {keys: 50000, qps: 5000}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "health: {mode: off}\n"
        "events: [{at: 2s, add_node: {id: D}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double dip = mem_tick_at(&m, 2)->hit_rate;
    CHECK_NEAR(dip, 0.76, 0.03, "the join's tick");
    for (size_t i = 0; i < m.n_ticks; i++)
        if (m.ticks[i].t_s >= 5)
            assert_true(m.ticks[i].hit_rate > dip + 0.015);
    CHECK_NEAR(m.summary.min_hit_rate, dip, 0, "the join's dip at 2 s, inside the warmup");
    assert_true(isnan(m.summary.baseline_hit_rate));
    assert_true(isnan(m.summary.recovery_s));
    mem_run_free(&m);

    const char *no_event = "name: minnone\nduration: 10s\nwarmup: 3s\ntick: 1s\n"
                           "workload: {keys: 2000, qps: 5000}\n"
                           "nodes: [{id: A}, {id: B}]\ncache: {prewarm: false}\n"
                           "health: {mode: off}\n";
    mem_run_yaml(&m, no_event, NULL);
    double low = 2;
    for (size_t i = 0; i < m.n_ticks; i++)
        if (m.ticks[i].t_s >= 3 && m.ticks[i].hit_rate < low)
            low = m.ticks[i].hit_rate;
    assert_true(mem_tick_at(&m, 0)->hit_rate < low); /* the cold start is excluded */
    CHECK_NEAR(m.summary.min_hit_rate, low, 0, "no event: the lowest tick from the warmup on");
    mem_run_free(&m);
}

/* A backlog longer than the busy meter's ring of 256 ticks: one worker of
 * 2 ms fixed (500 operations/s) offered 1,000 writes/s, a queue with room
 * for all of them, ticks of 10 ms. The backlog grows by a second a second,
 * so from 2.56 s on every write starts more than 256 ticks after it
 * arrives. The worker is busy without a break from the first arrival, so
 * every tick from the second is exactly busy (db_util 1, within rounding);
 * the busy time past the ring was once crammed into the ring's last tick
 * (db_util 2.8, peak_db_util too). */
static void test_database_backlog_past_the_ring(void **state)
{
    (void)state;
    const char *yaml =
        "name: backlog\nduration: 6s\ntick: 10ms\n"
        "workload: {keys: 1000, qps: 1000, write_ratio: 1}\n"
        "nodes: [{id: A}]\n"
        "database: {workers: 1, service_time: 2ms, service_dist: fixed, max_queue: 100000}\n"
        "health: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_int_equal(m.n_ticks, 600);
    for (size_t k = 1; k < m.n_ticks; k++)
        CHECK_NEAR(m.ticks[k].db_util, 1.0, 1e-9, "db_util at %g s", m.ticks[k].t_s);
    CHECK_NEAR(m.summary.peak_db_util, 1.0, 1e-9, "peak_db_util");
    mem_run_free(&m);
}

/* ---- the request stream: Poisson counts, operations, uniform keys -------------------- */

/* Requests per tick are Poisson: mean qps x tick and variance equal to the
 * mean (2,000 ticks of mean 50: the sample variance within 4 of its
 * standard deviations, sqrt((λ + 2λ²) / n) = 1.6); writes take write_ratio
 * of them; uniform keys are equally likely (chi-square over 1,000 keys
 * within 5 standard deviations of its 999 degrees of freedom). */
static void test_poisson_counts_and_uniform_keys(void **state)
{
    (void)state;
    const char *yaml = "name: poisson\nduration: 200s\ntick: 100ms\n"
                       "workload: {keys: 1000, qps: 500, write_ratio: 0.3}\n"
                       "nodes: [{id: A}]\nhealth: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_int_equal(m.n_ticks, 2000);
    double sum = 0, sum2 = 0;
    long long writes = 0, requests = 0;
    for (size_t t = 0; t < m.n_ticks; t++) {
        double x = (double)m.ticks[t].requests;
        sum += x;
        sum2 += x * x;
        writes += m.ticks[t].writes;
        requests += m.ticks[t].requests;
    }
    double n = (double)m.n_ticks, mean = sum / n, var = (sum2 - n * mean * mean) / (n - 1);
    CHECK_NEAR(mean, 50, 4 * sqrt(50 / n), "requests per tick: mean");
    CHECK_NEAR(var, 50, 4 * sqrt((50 + 2 * 50 * 50) / n), "requests per tick: variance");
    CHECK_NEAR((double)writes / (double)requests, 0.3, 4 * sqrt(0.3 * 0.7 / (double)requests),
               "write share");
    mem_run_free(&m);

    const char *uni = "name: u\nduration: 1s\nworkload: {keys: 1000}\nnodes: [{id: A}]\n";
    struct diag d;
    diag_init(&d);
    struct scenario *sc = scenario_load_string("u.yaml", uni, strlen(uni), NULL, 0, &d);
    assert_non_null(sc);
    char err[200];
    struct sim *s = sim_create(sc, NULL, NULL, err, sizeof err);
    assert_non_null(s);
    long count[1000] = {0};
    const long draws = 2000000;
    for (long i = 0; i < draws; i++)
        count[workload_sample_key(s->wl)]++;
    double chi2 = 0, e = draws / 1000.0;
    for (int k = 0; k < 1000; k++)
        chi2 += (count[k] - e) * (count[k] - e) / e;
    CHECK_NEAR(chi2, 999, 5 * sqrt(2 * 999.0), "uniform keys: chi-square");
    sim_destroy(s);
    scenario_destroy(sc);
    diag_deinit(&d);
}

/* ---- node_ticks: util, p99, items, bytes, evictions ---------------------------------- */

static void test_node_metrics(void **state)
{
    (void)state;
    /* one node holding every key: its queue sees only GETs, Poisson at 5,000/s,
     * exponential service of 100 us: M/M/1 at ρ = 0.5, so util 0.5 and a
     * time in the node exponential of rate μ - λ, its p99 ln(100) / (μ - λ)
     * = 0.92 ms (10 s ticks of 50,000 GETs; the histogram within 3%) */
    const char *mm1 = "name: mm1\nduration: 100s\ntick: 10s\n"
                      "workload: {keys: 10000, qps: 5000}\nnodes: [{id: A}]\n"
                      "cache: {service_time: 100us, workers: 1}\nhealth: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, mm1, NULL);
    double util = 0, p99 = 0;
    for (size_t i = 0; i < m.n_nodes; i++) {
        assert_int_equal(m.nodes[i].sets, 0);
        /* the busy share against the offered load: GETs x service / workers */
        CHECK_NEAR(m.nodes[i].util, (double)m.nodes[i].requests * 100e-6 / 10, 0.01,
                   "util against the offered load, tick %g", m.nodes[i].t_s);
        util += m.nodes[i].util / (double)m.n_nodes;
        p99 += m.nodes[i].p99_ms / (double)m.n_nodes;
    }
    CHECK_NEAR(util, 0.5, 0.01, "M/M/1 utilization");
    CHECK_NEAR(p99, log(100) / 5000 * 1000, 0.06 * log(100) / 5000 * 1000, "M/M/1 p99 (ms)");
    mem_run_free(&m);

    /* two workers, the offered load including the fills; capacities in bytes
     * and in items. Items are 1000 + 10 bytes (value and a 10-byte name):
     * 2,000,000 bytes hold 1,980 of them */
    const char *caps = "name: caps\nduration: 20s\ntick: 1s\n"
                       "workload: {keys: 10000, qps: 10000, value_bytes: 1000}\n"
                       "nodes: [{id: A, capacity: 2MB}, {id: B, capacity_items: 1500}]\n"
                       "cache: {service_time: 40us, workers: 2}\n"
                       "database: {workers: 64}\nhealth: {mode: off}\n";
    mem_run_yaml(&m, caps, NULL);
    for (size_t i = 0; i < m.n_nodes; i++) {
        const struct node_tick_row *r = &m.nodes[i];
        bool a = !strcmp(r->node, "A");
        assert_int_equal(r->items, a ? 1980 : 1500); /* full from the start (prewarm) */
        assert_int_equal(r->bytes, r->items * 1010);
        assert_int_equal(r->expirations, 0);
        /* a fill into a full node evicts one item; a fill of a key a
         * concurrent miss has filled already replaces it (a few in 1000) */
        assert_true(r->evictions <= r->sets && r->evictions >= r->sets - r->sets / 100 - 2);
        CHECK_NEAR(r->util, (double)(r->requests + r->sets) * 40e-6 / 2, 0.015,
                   "%s: util against the offered load, tick %g", r->node, r->t_s);
    }
    /* an LRU over equally likely keys holds a uniformly random part of the
     * keys it owns, whatever its order: its hit ratio is capacity / keys
     * owned, the keys owned being its share of the GETs times 10,000 */
    long long get[2] = {0, 0}, hit[2] = {0, 0};
    for (size_t i = 0; i < m.n_nodes; i++) {
        int b = !strcmp(m.nodes[i].node, "B");
        get[b] += m.nodes[i].requests;
        hit[b] += m.nodes[i].hits;
    }
    for (int b = 0; b < 2; b++) {
        double owned = 10000.0 * (double)get[b] / (double)(get[0] + get[1]);
        CHECK_NEAR((double)hit[b] / (double)get[b], (b ? 1500 : 1980) / owned, 0.01,
                   "%s: LRU hit ratio over uniform keys", b ? "B" : "A");
    }
    mem_run_free(&m);
}

/* ---- hot keys ---------------------------------------------------------------------------- */

static void test_hot_key_share(void **state)
{
    (void)state;
    const char *yaml =
        "name: hot\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 100000, qps: 50000, hot_keys: [{key: key-000042, share: 0.2}]}\n"
        "routing: {algorithm: ring, vnodes: 1000}\n"
        "nodes: [{id: n0}, {id: n1}, {id: n2}, {id: n3}, {id: n4}, {id: n5}, {id: n6}, "
        "{id: n7}, {id: n8}, {id: n9}]\n"
        "health: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    long long total = 0, top = 0;
    for (int i = 0; i < 10; i++) {
        char id[16];
        snprintf(id, sizeof id, "n%d", i);
        long long r = mem_node_requests(&m, id);
        total += r;
        if (r > top)
            top = r;
    }
    CHECK_NEAR((double)top / (double)total, 0.2 + 0.8 / 10, 0.01, "hot key node's share");
    CHECK_NEAR(m.summary.max_node_share, 0.28, 0.01, "summary max_node_share");
    mem_run_free(&m);

    /* the same from a hot_key event, only while it lasts */
    const char *ev =
        "name: hotev\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 100000, qps: 50000}\n"
        "routing: {algorithm: ring, vnodes: 1000}\n"
        "nodes: [{id: n0}, {id: n1}, {id: n2}, {id: n3}, {id: n4}, {id: n5}, {id: n6}, "
        "{id: n7}, {id: n8}, {id: n9}]\n"
        "health: {mode: off}\n"
        "events: [{at: 10s, hot_key: {key: key-000042, share: 0.2, for: 5s}}]\n";
    mem_run_yaml(&m, ev, NULL);
    double before = 0, during = 0, after = 0;
    for (size_t i = 0; i < m.n_nodes; i++) {
        const struct node_tick_row *r = &m.nodes[i];
        double share = (double)r->requests / (double)m.ticks[(size_t)r->t_s].reads;
        double *slot = r->t_s < 10 ? &before : r->t_s < 15 ? &during : &after;
        if (share > *slot)
            *slot = share; /* the busiest node's share, over the ticks of the phase */
    }
    assert_true(before < 0.13);
    assert_true(during > 0.26);
    assert_true(after < 0.13);
    assert_int_equal(mem_count_events(&m, "hot_key"), 1);
    assert_int_equal(mem_count_events(&m, "hot_key_end"), 1);
    mem_run_free(&m);
}

/* ---- faults and writes ---------------------------------------------------------------------- */

static void test_crash_empties_and_restart(void **state)
{
    (void)state;
    const char *yaml =
        "name: crash\nduration: 30s\ntick: 1s\n"
        "workload: {keys: 10000, qps: 10000}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "clients: {timeout: 50ms}\nhealth: {mode: off}\n"
        "events: [{at: 10s, crash_node: {id: B}}, {at: 20s, restart_node: {id: B}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    for (size_t i = 0; i < m.n_nodes; i++) {
        const struct node_tick_row *r = &m.nodes[i];
        if (strcmp(r->node, "B"))
            continue;
        if (r->t_s >= 10 && r->t_s < 20) {
            assert_string_equal(r->state, "crashed");
            assert_int_equal(r->items, 0);
            assert_int_equal(r->requests, 0);
        }
        if (r->t_s == 20) /* back empty at 20 s; a second of refill holds about 63% of its keys */
            assert_true(r->items > 0 && r->items < 4000);
    }
    /* with no health checks every request to B times out while it is down */
    long long timeouts = 0;
    for (size_t k = 11; k < 19; k++)
        timeouts += m.ticks[k].timeouts;
    assert_true(timeouts > 8 * 4000);
    assert_true(m.ticks[15].hit_rate < 0.6);
    mem_run_free(&m);
}

static void test_writes_invalidate_and_write_through(void **state)
{
    (void)state;
    const char *yaml =
        "name: writes\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 20000, popularity: zipf, qps: 20000, write_ratio: 0.2}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "database: {workers: 64}\nhealth: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    long long writes = 0, dbw = 0;
    for (size_t k = 0; k < m.n_ticks; k++) {
        writes += m.ticks[k].writes;
        dbw += m.ticks[k].db_writes;
    }
    CHECK_NEAR((double)writes / (double)m.summary.requests, 0.2, 0.005, "write share");
    assert_true(dbw > 0 && labs(dbw - writes) < 100);
    /* invalidation: a key read r times and written w times a second hits at most
     * r/(r+w) of the time, here 0.8 */
    assert_true(m.summary.hit_rate < 0.81);
    /* stale reads come only from the short windows between a commit and its
     * invalidation, and from fills that raced a write: rare */
    long long hits = 0;
    for (size_t k = 0; k < m.n_ticks; k++)
        hits += m.ticks[k].hits;
    assert_true(m.summary.stale_reads < hits / 100);
    mem_run_free(&m);

    const char *wt[] = {"clients.write=write_through", NULL};
    mem_run_yaml(&m, yaml, wt);
    assert_true(m.summary.hit_rate > 0.97); /* write-through keeps keys cached */
    mem_run_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_common_random_numbers),
        cmocka_unit_test(test_node_order_changes_nothing),
        cmocka_unit_test(test_scale_out_ring),
        cmocka_unit_test(test_scale_out_mod),
        cmocka_unit_test(test_che_approximation),
        cmocka_unit_test(test_zipf_sampler),
        cmocka_unit_test(test_ttl_hit_ratio),
        cmocka_unit_test(test_ttl_and_writes),
        cmocka_unit_test(test_prewarm_without_fills),
        cmocka_unit_test(test_database_mmc),
        cmocka_unit_test(test_database_md1_and_p99),
        cmocka_unit_test(test_database_overload_seconds),
        cmocka_unit_test(test_database_backlog_past_the_ring),
        cmocka_unit_test(test_poisson_counts_and_uniform_keys),
        cmocka_unit_test(test_node_metrics),
        cmocka_unit_test(test_hot_key_share),
        cmocka_unit_test(test_crash_empties_and_restart),
        cmocka_unit_test(test_writes_invalidate_and_write_through),
        cmocka_unit_test(test_min_hit_rate_counts_an_event_in_warmup),
        cmocka_unit_test(test_summary_seconds_are_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
