/*
 * Replicas, failure domains and the hot-key cures, against their stated
 * expectations:
 *  - R replicas read at random: a hot key of share h puts h/R + (1 - h)/N of
 *    the requests on each of its R nodes (N equal nodes), (1 - h)/N on the
 *    others (±0.01);
 *  - writes cost R cache operations (write-through: R sets per write);
 *  - zone-aware replicas: crashing a zone leaves every key a live copy, so
 *    the hit rate right after the crash stays near the baseline (the read
 *    fails over to the next replica), against a deep dip with R = 1;
 *  - a hot key's own replica reads spread it over K nodes;
 *  - a local cache answers the hot key at the client (local_hits), and is
 *    stale under other instances' writes (local_stale_reads);
 *  - the loader refuses what cannot work: more replicas than nodes,
 *    replicas under bounded loads, an unknown zone, splitting with leases.
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

#define TEN_NODES \
    "nodes: [{id: n0}, {id: n1}, {id: n2}, {id: n3}, {id: n4}, {id: n5}, {id: n6}, " \
    "{id: n7}, {id: n8}, {id: n9}]\n"

static const char *hot =
    "name: hot\nduration: 20s\ntick: 1s\n"
    "workload: {keys: 100000, qps: 20000, hot_keys: [{key: key-000001, share: 0.2}]}\n"
    "routing: {vnodes: 1000}\n"
    "health: {mode: off}\n" TEN_NODES;

/* Shares of all GETs per node, sorted descending. */
static void shares(const struct mem_run *m, double *out)
{
    long long total = 0, per[10] = {0};
    for (size_t i = 0; i < m->n_nodes; i++) {
        int k = m->nodes[i].node[1] - '0';
        per[k] += m->nodes[i].requests;
        total += m->nodes[i].requests;
    }
    for (int k = 0; k < 10; k++)
        out[k] = (double)per[k] / (double)total;
    for (int i = 0; i < 10; i++) /* sort descending */
        for (int j = i + 1; j < 10; j++)
            if (out[j] > out[i]) {
                double t = out[i];
                out[i] = out[j];
                out[j] = t;
            }
}

static void test_replica_reads_spread_a_hot_key(void **state)
{
    (void)state;
    const char *r3[] = {"routing.replicas=3", "routing.read_from=random", NULL};
    struct mem_run m;
    mem_run_yaml(&m, hot, r3);
    double sh[10];
    shares(&m, sh);
    double h = 0.2, want_hot = h / 3 + (1 - h) / 10, want_cold = (1 - h) / 10;
    for (int k = 0; k < 3; k++)
        CHECK_NEAR(sh[k], want_hot, 0.01, "replica node %d", k);
    for (int k = 3; k < 10; k++)
        CHECK_NEAR(sh[k], want_cold, 0.01, "other node %d", k);
    mem_run_free(&m);

    /* the same cure for that key alone: hot_key replicas */
    const char *own = "name: hot\nduration: 20s\ntick: 1s\n"
                      "workload: {keys: 100000, qps: 20000,\n"
                      "  hot_keys: [{key: key-000001, share: 0.2, replicas: 3}]}\n"
                      "routing: {vnodes: 1000}\nhealth: {mode: off}\n" TEN_NODES;
    mem_run_yaml(&m, own, NULL);
    shares(&m, sh);
    for (int k = 0; k < 3; k++)
        CHECK_NEAR(sh[k], want_hot, 0.01, "hot key replica node %d", k);
    mem_run_free(&m);
    /* and without: one node takes h + (1 - h)/N */
    mem_run_yaml(&m, hot, NULL);
    shares(&m, sh);
    CHECK_NEAR(sh[0], h + (1 - h) / 10, 0.01, "the hot key's one node");
    mem_run_free(&m);
}

static void test_writes_reach_every_replica(void **state)
{
    (void)state;
    const char *yaml = "name: w\nduration: 10s\ntick: 1s\n"
                       "workload: {keys: 20000, qps: 5000, write_ratio: 0.2}\n"
                       "clients: {write: write_through}\nhealth: {mode: off}\n" TEN_NODES;
    for (int r = 1; r <= 3; r++) {
        char set[40];
        snprintf(set, sizeof set, "routing.replicas=%d", r);
        const char *sets[] = {set, NULL};
        struct mem_run m;
        mem_run_yaml(&m, yaml, sets);
        long long node_sets = 0, writes = MEM_SUM(&m, db_writes, 0, 10);
        for (size_t i = 0; i < m.n_nodes; i++)
            node_sets += m.nodes[i].sets;
        /* every key is cached (prewarm, room for all): sets are the write-throughs */
        CHECK_NEAR((double)node_sets / (double)writes, r, 0.01, "sets per write with %d", r);
        mem_run_free(&m);
    }
}

static const char *zones =
    "name: zones\nduration: 40s\ntick: 1s\n"
    "workload: {keys: 30000, qps: 20000}\n"
    "routing: {vnodes: 256}\n"
    "nodes: [{id: a1, zone: za}, {id: a2, zone: za}, {id: b1, zone: zb}, {id: b2, zone: zb}, "
    "{id: c1, zone: zc}, {id: c2, zone: zc}]\n"
    "events: [{at: 20s, crash_zone: {zone: za}}]\n";

static double tick_hit(const struct mem_run *m, double t)
{
    for (size_t i = 0; i < m->n_ticks; i++)
        if (m->ticks[i].t_s == t)
            return m->ticks[i].hit_rate;
    fail_msg("no tick at %g", t);
    return 0;
}

static void test_zone_crash_leaves_a_copy(void **state)
{
    (void)state;
    struct mem_run one, two;
    mem_run_yaml(&one, zones, NULL);
    const char *r2[] = {"routing.replicas=2", NULL};
    mem_run_yaml(&two, zones, r2);
    assert_int_equal(mem_count_events(&two, "crash_zone"), 1);
    /* R = 1: a third of the keys lose their only copy */
    assert_true(tick_hit(&one, 20) < one.summary.baseline_hit_rate - 0.2);
    assert_true(one.summary.min_hit_rate < 0.75);
    /* R = 2 in distinct zones: the read fails over to the live copy */
    for (double t = 20; t < 40; t++)
        assert_true(tick_hit(&two, t) > two.summary.baseline_hit_rate - 0.02);
    assert_true(MEM_SUM(&two, timeouts, 20, 40) > 0); /* the failovers' price */
    mem_run_free(&one);
    mem_run_free(&two);
}

static void test_local_cache(void **state)
{
    (void)state;
    const char *yaml = "name: local\nduration: 20s\ntick: 1s\n"
                       "workload: {keys: 50000, qps: 20000, write_ratio: 0.01,\n"
                       "  hot_keys: [{key: key-000001, share: 0.2}]}\n"
                       "clients: {instances: 8, local_cache: {capacity_items: 100, ttl: 1s}}\n"
                       "health: {mode: off}\n" TEN_NODES;
    struct mem_run on, off;
    mem_run_yaml(&on, yaml, NULL);
    const char *no[] = {"clients.local_cache.capacity_items=0", NULL};
    mem_run_yaml(&off, yaml, no);
    double sh_on[10], sh_off[10];
    shares(&on, sh_on);
    shares(&off, sh_off);
    /* the hot key is answered at the clients: its node is no longer hot */
    assert_true(sh_off[0] > 0.25);
    assert_true(sh_on[0] < 0.15);
    assert_true(MEM_SUM(&on, local_hits, 0, 20) > 0.18 * 20 * 20000 * 0.8);
    assert_int_equal(MEM_SUM(&off, local_hits, 0, 20), 0);
    /* other instances' writes do not reach a local copy: stale for up to the TTL */
    assert_true(MEM_SUM(&on, local_stale_reads, 0, 20) > 100);
    assert_true(on.summary.stale_reads > 10 * (off.summary.stale_reads + 10));
    mem_run_free(&on);
    mem_run_free(&off);
}

static void expect_refused(const char *yaml, const char *needle)
{
    struct diag d;
    diag_init(&d);
    struct scenario *sc = scenario_load_string("x.yaml", yaml, strlen(yaml), NULL, 0, &d);
    assert_null(sc);
    bool found = false;
    for (size_t i = 0; i < d.n && !found; i++)
        found = strstr(d.msgs[i], needle) != NULL;
    if (!found) {
        diag_print(&d, stderr);
        fail_msg("no message with \"%s\"", needle);
    }
    diag_deinit(&d);
}

static void test_refused(void **state)
{
    (void)state;
    expect_refused("routing: {replicas: 3}\nnodes: [{id: A}, {id: B}]\n",
                   "routing.replicas: routing.replicas is 3 but the cluster has 2 nodes");
    expect_refused("routing: {replicas: 2}\nnodes: [{id: A}, {id: B}]\n"
                   "events: [{at: 1s, remove_node: {id: B}}]\n",
                   "events.0.remove_node.id: routing.replicas is 2 but the cluster has 1 node");
    expect_refused("routing: {algorithm: bounded, replicas: 2}\nnodes: [{id: A}, {id: B}]\n",
                   "under bounded loads");
    expect_refused("nodes: [{id: A, zone: z1}]\nevents: [{at: 1s, crash_zone: {zone: z2}}]\n",
                   "no running node of the cluster is in zone \"z2\"");
    expect_refused("clients: {fill: lease}\nnodes: [{id: A}]\n"
                   "workload: {hot_keys: [{key: key-000001, share: 0.1, split: 4}]}\n",
                   "key splitting does not work with clients.fill: lease");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replica_reads_spread_a_hot_key),
        cmocka_unit_test(test_writes_reach_every_replica),
        cmocka_unit_test(test_zone_crash_leaves_a_copy),
        cmocka_unit_test(test_local_cache),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
