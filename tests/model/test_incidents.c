/*
 * Reproduced incidents (scenarios/incidents/): each test runs the scenario
 * file, shortened with --set where that leaves the checked figures alone, and
 * checks the figures its comment states, with the tolerance written where it
 * is asserted. Where the model does not give the reported figure, the test
 * asserts what the model gives and says why, as the file does.
 *
 * Sampling noise, for choosing tolerances: a tick's hit rate over n reads
 * has a standard deviation of at most sqrt(0.25/n) (0.005 at 10,000 reads);
 * a node's share p of n GETs, sqrt(p(1 - p)/n).
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

#include "support_sink.h"

/* ---- helpers ------------------------------------------------------------------------ */

/* Hits / reads over the ticks in [from, to): what one tick that long would show. */
static double hit_rate_between(const struct mem_run *m, double from, double to)
{
    long long hits = 0, reads = 0;
    for (size_t i = 0; i < m->n_ticks; i++) {
        const struct tick_row *t = &m->ticks[i];
        if (t->t_s >= from && t->t_s < to) {
            hits += t->hits;
            reads += t->hits + t->misses;
        }
    }
    return reads ? (double)hits / (double)reads : NAN;
}

static double mean_between(const struct mem_run *m, double from, double to, int db_util)
{
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < m->n_ticks; i++) {
        const struct tick_row *t = &m->ticks[i];
        if (t->t_s >= from && t->t_s < to) {
            sum += db_util ? t->db_util : t->backend_qps;
            n++;
        }
    }
    return n ? sum / n : NAN;
}

static long long node_gets(const struct mem_run *m, const char *node, double from, double to)
{
    long long t = 0;
    for (size_t i = 0; i < m->n_nodes; i++)
        if ((!node || !strcmp(m->nodes[i].node, node)) && m->nodes[i].t_s >= from
            && m->nodes[i].t_s < to)
            t += m->nodes[i].requests;
    return t;
}

static double node_share(const struct mem_run *m, const char *node, double from, double to)
{
    return (double)node_gets(m, node, from, to) / (double)node_gets(m, NULL, from, to);
}

/* The node with the most GETs in [from, to). */
static const char *busiest_node(const struct mem_run *m, double from, double to)
{
    const char *best = NULL;
    long long most = -1;
    for (size_t i = 0; i < m->n_nodes; i++) {
        long long g = node_gets(m, m->nodes[i].node, from, to);
        if (g > most) {
            most = g;
            best = m->nodes[i].node;
        }
    }
    return best;
}

static double node_util(const struct mem_run *m, const char *node, double from, double to)
{
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < m->n_nodes; i++)
        if (!strcmp(m->nodes[i].node, node) && m->nodes[i].t_s >= from && m->nodes[i].t_s < to) {
            sum += m->nodes[i].util;
            n++;
        }
    return sum / n;
}

/* keys moved by the n-th published epoch, from its event ("..., 123 keys moved") */
static long long epoch_keys_moved(const struct mem_run *m, int nth, double *t_s)
{
    int seen = 0;
    for (size_t i = 0; i < m->n_events; i++) {
        if (strcmp(m->events[i].kind, "epoch"))
            continue;
        if (seen++ < nth)
            continue;
        const char *p = strstr(m->events[i].detail, "nodes in the ring, ");
        assert_non_null(p);
        if (t_s)
            *t_s = m->events[i].t_s;
        return atoll(p + strlen("nodes in the ring, "));
    }
    fail_msg("no epoch number %d", nth);
    return -1;
}

/* ---- scale_out_mod_vs_ring.yaml ----------------------------------------------------- */

/* 3 -> 4 nodes, uniform popularity, every key cached: a tick's hit rate and
 * database load follow from f (the share of keys moved) and r = 0.1 reads
 * per key per second. */
static void check_scale_out(const char *algo, long long moved, double min_util,
                            double max_util)
{
    char set[64];
    snprintf(set, sizeof set, "routing.algorithm=%s", algo);
    /* 90 s: recovery is over by 75 s */
    const char *sets[] = {set, "duration=90s", NULL};
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/scale_out_mod_vs_ring.yaml", sets);
    const double r = 0.1, t0 = 30, qps = 10000;

    /* the placement known answers (models/placement/README.md): exact */
    assert_int_equal(m.summary.keys_moved, moved);
    double f = moved / 100000.0;

    /* every key is cached before the join: exactly 100%, no database traffic */
    CHECK_NEAR(m.summary.baseline_hit_rate, 1.0, 1e-12, "%s: baseline", algo);
    for (double t = 0; t < t0; t++)
        CHECK_NEAR(mem_tick_at(&m, t)->backend_qps, 0, 0, "%s: database load at %.0f s", algo, t);

    /* the second after the join: 1 - f(1 - e^-r)/r, the reported "about 1 - f"
     * less the moved keys read twice in that second. 0.02: 4 sigma of a tick
     * of 10,000 reads (seeds 1-12 stay within 0.008). */
    double first = 1 - f * (1 - exp(-r)) / r;
    CHECK_NEAR(mem_tick_at(&m, t0)->hit_rate, first, 0.02, "%s: hit rate 30-31 s", algo);
    CHECK_NEAR(m.summary.min_hit_rate, mem_tick_at(&m, t0)->hit_rate, 0, "%s: the dip is at 30 s", algo);
    /* and "about 1 - f": within 0.05 */
    CHECK_NEAR(m.summary.min_hit_rate, 1 - f, 0.05, "%s: hit rate about 1 - f", algo);

    /* the database's peak is that second's misses: 8% for the tick's noise
     * (Poisson arrivals; seeds 1-12 stay within 4.3%) and the reads that
     * complete in the next tick */
    double peak = f * (1 - exp(-r)) / r * qps;
    CHECK_NEAR(m.summary.peak_backend_qps, peak, 0.08 * peak, "%s: peak backend qps", algo);
    CHECK_RANGE(m.summary.peak_db_util, min_util, max_util, "%s: peak database utilization", algo);

    /* back within a point of 100% after ln(100 f)/r; 4 s: the misses left at
     * that time are about 100 a second and fall by 10% a second, so the
     * tick's noise moves the crossing by a few seconds (seeds 1-12: ±2 s) */
    CHECK_NEAR(m.summary.recovery_s, log(100 * f) / r, 4, "%s: recovery", algo);
    assert_true(hit_rate_between(&m, 80, 90) > 0.995);
    mem_run_free(&m);
}

static void test_scale_out_ring(void **state)
{
    (void)state;
    /* model: 24,729 moved, 76.6% in the first second, peak db 28% */
    check_scale_out("ring", 24729, 0.25, 0.33);
}

static void test_scale_out_mod(void **state)
{
    (void)state;
    /* model: 75,273 moved, 28.6% in the first second, peak db 89% */
    check_scale_out("mod", 75273, 0.85, 0.95);
}

/* ---- mod_8_to_10.yaml --------------------------------------------------------------- */

static void test_mod_8_to_10(void **state)
{
    (void)state;
    const char *sets[] = {"duration=90s", NULL}; /* recovery is over by 74 s */
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/mod_8_to_10.yaml", sets);

    /* both joins publish one epoch: the keys move once, 8 -> 10 */
    assert_int_equal(mem_count_events(&m, "epoch"), 1);
    /* exact: h mod 8 = h mod 10 for 8 residues in 40, so about 20% stay */
    assert_int_equal(m.summary.keys_moved, 79986);

    /* reported 98%: each node holds 12,250 of its ~12,500 keys; 0.005 covers
     * the nodes' unequal key counts (±105 keys each) */
    CHECK_NEAR(m.summary.baseline_hit_rate, 0.98, 0.005, "baseline hit rate");

    /* reported "towards 20-40%": 23.3% in the first second, 41% three seconds
     * later. 0.02: 4 sigma of a tick of 9,000 reads (seeds 1-12 give
     * 22.3-24.2% and 39.1-41.3%) */
    CHECK_NEAR(mem_tick_at(&m, 30)->hit_rate, 0.231, 0.02, "hit rate 30-31 s");
    CHECK_NEAR(mem_tick_at(&m, 33)->hit_rate, 0.405, 0.02, "hit rate 33-34 s");
    CHECK_NEAR(m.summary.min_hit_rate, mem_tick_at(&m, 30)->hit_rate, 0, "the dip is at 30 s");

    /* reported "several times its usual load": 1,178/s before (1,000 writes
     * and 2% of 9,000 reads), 7,833/s in the first second, 6.7 times; 5% on
     * the usual load (writes are a Poisson count), 0.5 on the multiple
     * (seeds 1-12: 6.5 to 6.9) */
    double usual = mean_between(&m, 10, 30, 0);
    CHECK_NEAR(usual, 1000 + 0.02 * 9000, 0.05 * 1180, "usual database load");
    CHECK_NEAR(m.summary.peak_backend_qps / usual, 6.7, 0.5, "peak over usual database load");
    CHECK_NEAR(m.summary.peak_db_util, 0.80, 0.05, "peak database utilization"); /* 77-81% */

    /* recovery: within a point of 97.9% after 34 s (±4 s; seeds 1-12 give 34
     * or 35), then above it: every key fits in ten nodes of 12,250 items */
    CHECK_NEAR(m.summary.recovery_s, 34, 4, "recovery");
    assert_true(hit_rate_between(&m, 80, 90) > 0.99);
    mem_run_free(&m);
}

/* n1..n10: "n10" sorts between "n1" and "n2" and almost every key moves. */
static void test_mod_8_to_10_ids_out_of_order(void **state)
{
    (void)state;
    const char *sets[] = {"nodes.0.id=n1", "nodes.1.id=n2", "nodes.2.id=n3",
                          "nodes.3.id=n4", "nodes.4.id=n5", "nodes.5.id=n6",
                          "nodes.6.id=n7", "nodes.7.id=n8", "events.0.add_node.id=n9",
                          "events.1.add_node.id=n10", "duration=40s", NULL};
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/mod_8_to_10.yaml", sets);
    assert_int_equal(m.summary.keys_moved, 97489); /* exact; 79,986 with n01..n10 */
    /* model: 7.3%; 0.02 as above */
    CHECK_NEAR(m.summary.min_hit_rate, 0.073, 0.02, "hit rate 30-31 s");
    mem_run_free(&m);
}

/* ---- ring_4_to_8_at_peak.yaml and ring_4_to_8_one_at_a_time.yaml ---------------------- */

static void test_ring_4_to_8_at_peak(void **state)
{
    (void)state;
    /* 110 s: the join at 60 s and the TTL echo at 78-84 s */
    const char *sets[] = {"duration=110s", NULL};
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/ring_4_to_8_at_peak.yaml", sets);

    assert_int_equal(mem_count_events(&m, "epoch"), 1);
    assert_int_equal(m.summary.keys_moved, 26586); /* exact: 53% of 50,000 */

    /* reported 92% and 40% before; model 92.3% and 39.3%. The tolerances
     * are the reported figures' own precision (a point, two points) */
    CHECK_NEAR(m.summary.baseline_hit_rate, 0.92, 0.01, "baseline hit rate");
    CHECK_NEAR(mean_between(&m, 30, 60, 1), 0.40, 0.02, "database utilization before");

    /* reported 61% and 88% after; model 61.9% and 87.1%. Over seeds 1-10 the
     * model gives 60.7-61.9% and 85-89%: 0.02 and 0.05 */
    CHECK_NEAR(m.summary.min_hit_rate, 0.61, 0.02, "hit rate after");
    CHECK_NEAR(mem_tick_at(&m, 60)->hit_rate, m.summary.min_hit_rate, 0, "the dip is at 60 s");
    CHECK_NEAR(m.summary.peak_db_util, 0.88, 0.05, "database utilization after");
    CHECK_NEAR(mem_tick_at(&m, 60)->db_util, m.summary.peak_db_util, 0, "the peak is at 60 s");

    /* the moved keys, all filled within a few seconds, expire together one
     * TTL (18 s) later: an overshoot above the baseline, then a second dip */
    double base = m.summary.baseline_hit_rate;
    assert_true(hit_rate_between(&m, 72, 78) > base + 0.02);
    assert_true(hit_rate_between(&m, 80, 84) < base - 0.01);
    CHECK_NEAR(hit_rate_between(&m, 95, 110), base, 0.01, "settled after");

    /* on a 10-second view the all-at-once dip is 8 points (92.3% -> 84.5%;
     * seeds 1-10: 7.7 to 7.9 points) */
    CHECK_NEAR(base - hit_rate_between(&m, 60, 70), 0.077, 0.015, "dip on a 10 s view");
    mem_run_free(&m);
}

static void test_ring_4_to_8_one_at_a_time(void **state)
{
    (void)state;
    const char *sets[] = {"duration=165s", NULL}; /* the last join is at 150 s */
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/ring_4_to_8_one_at_a_time.yaml", sets);

    /* one epoch per join; keys moved by each, exact */
    const long long moved[4] = {10584, 8993, 8187, 7570};
    const double at[4] = {60, 90, 120, 150};
    long long total = 0;
    assert_int_equal(mem_count_events(&m, "epoch"), 4);
    for (int i = 0; i < 4; i++) {
        double t = -1;
        assert_int_equal(epoch_keys_moved(&m, i, &t), moved[i]);
        CHECK_NEAR(t, at[i], 0, "join %d", i + 1);
        total += moved[i];
    }
    assert_int_equal(m.summary.keys_moved, total);

    double base = m.summary.baseline_hit_rate;
    CHECK_NEAR(base, 0.92, 0.01, "baseline hit rate");
    for (int i = 0; i < 4; i++) {
        const struct tick_row *t = mem_tick_at(&m, at[i]);
        double dip = base - t->hit_rate, share = moved[i] / 50000.0;
        /* Reported: "a few points". The model gives 12, 10, 9 and 9 points on
         * 1-second ticks: a second's extra misses are about 0.6 of the share of
         * keys moved (0.57 all at once), and each step moves 15-21% of them.
         * 0.5 to 0.7: the four steps give 0.56 to 0.61 over seeds 1-10 */
        CHECK_RANGE(dip / share, 0.5, 0.7, "dip per share moved, join at %.0f s", at[i]);
        CHECK_RANGE(dip, 0.07, 0.14, "dip at %.0f s", at[i]);
        /* the database stays under 60% (model 53-59%) instead of reaching 87% */
        CHECK_RANGE(t->db_util, 0.45, 0.65, "database utilization at %.0f s", at[i]);
        /* the reported "a few points" holds on a 10-second view: 2-3 points */
        CHECK_RANGE(base - hit_rate_between(&m, at[i], at[i] + 10), 0.015, 0.04,
                    "dip on a 10 s view at %.0f s", at[i]);
    }
    assert_true(m.summary.peak_db_util < 0.65);
    mem_run_free(&m);
}

/* ---- hot_key_10_nodes.yaml ---------------------------------------------------------- */

static void check_hot_key(const char *vnodes, const char *owner, double want)
{
    char set[64];
    snprintf(set, sizeof set, "routing.vnodes=%s", vnodes);
    /* 30 s: 20 s before the key is hot, 10 s (500,000 requests) after */
    const char *sets[] = {set, "duration=30s", NULL};
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/hot_key_10_nodes.yaml", sets);
    const char *hot = busiest_node(&m, 20, 30);
    if (strcmp(hot, owner))
        fail_msg("vnodes %s: the hot key's node is %s, expected %s", vnodes, hot, owner);

    /* its share: 0.2 + 0.8 s, s its share of the other keys' traffic, measured
     * before the key is hot. 0.004: 3 sigma of the two measured shares */
    double s = node_share(&m, hot, 0, 20), after = node_share(&m, hot, 20, 30);
    CHECK_NEAR(after, 0.2 + 0.8 * s, 0.004, "vnodes %s: 0.2 + 0.8 s", vnodes);
    /* what the file's table gives, 0.003 (3 sigma) */
    CHECK_NEAR(after, want, 0.003, "vnodes %s: the hot key's node's share", vnodes);
    /* reported 27.7% whatever the vnode count; the model gives 27.5-28.5%:
     * the node's own share of the rest differs from 1/10 by up to 0.75 point */
    CHECK_NEAR(after, 0.277, 0.01, "vnodes %s: about 27.7%%", vnodes);

    /* its node is near saturation (82-86% busy), the others are not */
    assert_true(node_util(&m, hot, 20, 30) > 0.78);
    const char *others[] = {"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "n09", "n10"};
    for (size_t i = 0; i < 10; i++)
        if (strcmp(others[i], hot))
            assert_true(node_util(&m, others[i], 20, 30) < 0.35);
    mem_run_free(&m);
}

static void test_hot_key_10_nodes(void **state)
{
    (void)state;
    check_hot_key("32", "n02", 0.2856);
    check_hot_key("160", "n02", 0.2745);
    check_hot_key("1000", "n04", 0.2824);
}

/* ---- hot_key_moves_in_scale_out.yaml ------------------------------------------------ */

static void test_hot_key_moves_in_scale_out(void **state)
{
    (void)state;
    const double d_keys = 24729 / 100000.0; /* D's share: models/placement/README.md */
    /* 40 s: 20 s before the join, 20 s (200,000 requests) after */
    const char *moves[] = {"duration=40s", NULL};
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/hot_key_moves_in_scale_out.yaml", moves);
    assert_int_equal(m.summary.keys_moved, 24729);
    /* before: C owns the hot key, 0.2 + 0.8 x 32,820/100,000; 0.005 = 4 sigma */
    CHECK_NEAR(node_share(&m, "C", 0, 20), 0.2 + 0.8 * 0.3282, 0.005, "C before the join");
    /* reported: about 40%, not 25%. Model: 0.2 + 0.8 x 0.247 = 39.8%; 0.005 = 4
     * sigma of a share of 200,000 GETs */
    CHECK_NEAR(node_share(&m, "D", 20, 40), 0.2 + 0.8 * d_keys, 0.005, "D after the join");
    /* from its first second, while cold; 0.02: 3 sigma of one tick */
    CHECK_NEAR(node_share(&m, "D", 20, 21), 0.2 + 0.8 * d_keys, 0.02, "D in its first second");
    mem_run_free(&m);

    /* a hot key that stays on A: D takes 0.8 x 0.247 = 19.8%, A keeps 40% */
    const char *stays[] = {"duration=40s", "workload.hot_keys.0.key=key-000042", NULL};
    mem_run_file(&m, "scenarios/incidents/hot_key_moves_in_scale_out.yaml", stays);
    CHECK_NEAR(node_share(&m, "D", 20, 40), 0.8 * d_keys, 0.005, "D, hot key on A");
    CHECK_NEAR(node_share(&m, "A", 20, 40), 0.2 + 0.8 * 0.25451, 0.005, "A, hot key on A");
    mem_run_free(&m);
}

/* ---- slot_migration_vs_ring_change.yaml ----------------------------------------------- */

/* When the k-th migration (from 0) was done, in seconds. */
static double migrate_done_at(const struct mem_run *m, int k)
{
    for (size_t i = 0; i < m->n_events; i++)
        if (!strcmp(m->events[i].kind, "migrate_done") && k-- == 0)
            return m->events[i].t_s;
    fail_msg("no migrate_done number %d", k);
    return NAN;
}

/* The same 4,096 slots move three times: by a ring change at 30 s, back by
 * migration at 90 s, out again by migration at 150 s. Tolerances: seeds 1-8
 * (the ranges in the comments) with a margin; seeds 1 and 2 run here. */
static void check_slot_migration(int seed)
{
    char sd[32];
    snprintf(sd, sizeof sd, "seed=%d", seed);
    const char *sets[] = {sd, NULL};
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/slot_migration_vs_ring_change.yaml", sets);
    assert_int_equal(m.status, RUN_COMPLETE);

    /* the placement: 25,052 keys in those slots, three times; no seed enters it */
    assert_int_equal(m.summary.keys_moved, 3 * 25052);
    CHECK_NEAR(m.summary.baseline_hit_rate, 1.0, 1e-12, "seed %d: baseline", seed);

    /* the ring change: 77.5% in the worst second (seeds 1-8: 76.7-77.6%), the
     * second after the join; every moved key read since misses once (24,974
     * to 25,006); the database's peak is that second (2,231-2,319/s, 28-29%);
     * back within a point after ln(100 f)/r = 32 s (32-35 s) */
    CHECK_RANGE(m.summary.min_hit_rate, 0.755, 0.785, "seed %d: ring change, worst second", seed);
    CHECK_NEAR(m.summary.min_hit_rate, mem_tick_at(&m, 31)->hit_rate, 0, "seed %d: at 31 s", seed);
    CHECK_RANGE((double)MEM_SUM(&m, misses, 30, 90), 24900, 25052, "seed %d: ring change misses",
                seed);
    CHECK_RANGE(m.summary.peak_backend_qps, 2150, 2400, "seed %d: peak database load", seed);
    CHECK_RANGE(m.summary.peak_db_util, 0.26, 0.31, "seed %d: peak database use", seed);
    CHECK_RANGE(m.summary.recovery_s, 30, 37, "seed %d: recovery", seed);
    assert_int_equal(MEM_SUM(&m, ask_redirects, 0, 90) + MEM_SUM(&m, moved_redirects, 0, 90), 0);

    /* back by migration: D's keys (those read since 30 s: 25,009-25,019)
     * move in 12.5 s (12.50-12.51); the only misses are the ring change's
     * last refills (23-39); MOVED for the clients half a second late
     * (266-304), few ASK (1-8) */
    CHECK_NEAR(migrate_done_at(&m, 2) - 90, 12.5, 0.1, "seed %d: migration back, time", seed);
    CHECK_RANGE((double)MEM_SUM(&m, migrated_keys, 90, 120), 24950, 25052,
                "seed %d: migration back, keys", seed);
    CHECK_RANGE((double)MEM_SUM(&m, misses, 90, 120), 0, 100, "seed %d: misses back", seed);
    CHECK_RANGE((double)MEM_SUM(&m, moved_redirects, 90, 120), 200, 400, "seed %d: MOVED back",
                seed);
    CHECK_RANGE((double)MEM_SUM(&m, ask_redirects, 90, 120), 0, 30, "seed %d: ASK back", seed);

    /* out again by migration: every key moves (25,052) in 12.5 s, not one
     * read misses, the database sees nothing; MOVED 270-295, ASK 1-7 */
    CHECK_NEAR(migrate_done_at(&m, 5) - 150, 12.5, 0.1, "seed %d: migration, time", seed);
    assert_int_equal(MEM_SUM(&m, migrated_keys, 150, 180), 25052);
    assert_int_equal(MEM_SUM(&m, misses, 120, 180), 0);
    CHECK_NEAR(mean_between(&m, 150, 180, 0), 0, 0, "seed %d: database load", seed);
    CHECK_RANGE((double)MEM_SUM(&m, moved_redirects, 150, 180), 200, 400, "seed %d: MOVED", seed);
    CHECK_RANGE((double)MEM_SUM(&m, ask_redirects, 150, 180), 0, 30, "seed %d: ASK", seed);
    mem_run_free(&m);
}

static void test_slot_migration_vs_ring_change(void **state)
{
    (void)state;
    check_slot_migration(1);
    check_slot_migration(2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale_out_ring),
        cmocka_unit_test(test_scale_out_mod),
        cmocka_unit_test(test_mod_8_to_10),
        cmocka_unit_test(test_mod_8_to_10_ids_out_of_order),
        cmocka_unit_test(test_ring_4_to_8_at_peak),
        cmocka_unit_test(test_ring_4_to_8_one_at_a_time),
        cmocka_unit_test(test_hot_key_10_nodes),
        cmocka_unit_test(test_hot_key_moves_in_scale_out),
        cmocka_unit_test(test_slot_migration_vs_ring_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
