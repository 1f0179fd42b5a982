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
 *    stale under other instances' writes (local_stale_reads); a copy is
 *    kept when the value reaches the client, not when the node serves it;
 *    it holds the key asked: a split key's local hits are those of the key
 *    unsplit, its stale local hits those older than the key's version;
 *  - key splitting: a hot key split into K copies puts h/K of the requests
 *    on the node of each copy (plus (1 - h)/N), where the placement puts
 *    the copies (±0.01); a write costs K cache operations: the write
 *    amplification is (1 - h) + h K (±0.02);
 *  - detection: a key that becomes hot is found at the end of the first
 *    window it spends hot, gets replica reads from then on (its node's
 *    share falls from h + (1 - h)/N to h/R + (1 - h)/N), and cools a
 *    window after it stops, each at the window's very end however sparse
 *    the reads; no key of a uniform workload is detected;
 *  - the hot-key cures incident (scenarios/incidents/hot_key_cures.yaml),
 *    seeds 1-3: each cure's busiest node, write amplification, stale reads;
 *  - the loader refuses what cannot work: more replicas than nodes,
 *    replicas under bounded loads, an unknown zone, splitting with leases;
 *  - next to the transition mechanisms: in the fallback window a write
 *    invalidates the previous owner with replicas and split copies too; a
 *    write whose replicas are all ejected reaches the gutter its reads go
 *    to; fencing knows a hot key's own replicas and sends a fenced
 *    invalidation on to the replica the write missed; a fenced fallback ask
 *    is not a fallback read; a failover that ends in a miss is a miss in
 *    the request trace, and never asks a node twice.
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

#include "models/placement/placement.h"
#include "sim/util.h"
#include "support_sink.h"

#define TEN_NODES \
    "nodes: [{id: n0}, {id: n1}, {id: n2}, {id: n3}, {id: n4}, {id: n5}, {id: n6}, " \
    "{id: n7}, {id: n8}, {id: n9}]\n"

static const char *hot =
    "name: hot\nduration: 20s\ntick: 1s\n"
    "workload: {keys: 100000, qps: 20000, hot_keys: [{key: key-000001, share: 0.2}]}\n"
    "routing: {vnodes: 1000}\n"
    "health: {mode: off}\n" TEN_NODES;

static void node_shares(const struct mem_run *m, double from, double to, double *out);

/* Shares of all GETs per node over the run, sorted descending. */
static void shares(const struct mem_run *m, double *out)
{
    node_shares(m, -INFINITY, INFINITY, out);
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

/* Cache sets (fills and write-throughs) per database write over the run. */
static double sets_per_write(const struct mem_run *m)
{
    long long sets = 0;
    for (size_t i = 0; i < m->n_nodes; i++)
        sets += m->nodes[i].sets;
    return (double)sets / (double)MEM_SUM(m, db_writes, -INFINITY, INFINITY);
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
        /* every key is cached (prewarm, room for all): sets are the write-throughs */
        CHECK_NEAR(sets_per_write(&m), r, 0.01, "sets per write with %d", r);
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

/* The sampled reads of one key by one instance: when each answer reached
 * the client from the ring or the database, and when each local hit was. */
struct local_times {
    double arrived_ns[4096], local_ns[4096], remote_ns[4096];
    size_t n_arrived, n_local, n_remote;
};

static int local_times_row(void *ctx, const struct request_row *r)
{
    struct local_times *lt = ctx;
    if (strcmp(r->op, "get"))
        return 0;
    if (!strcmp(r->source, "local") && lt->n_local < ARRAY_LEN(lt->local_ns))
        lt->local_ns[lt->n_local++] = (double)r->t_ns;
    else if ((!strcmp(r->source, "node") || !strcmp(r->source, "db"))
             && lt->n_arrived < ARRAY_LEN(lt->arrived_ns)) {
        lt->remote_ns[lt->n_remote++] = (double)r->t_ns;
        lt->arrived_ns[lt->n_arrived++] = (double)r->t_ns + r->latency_us * 1e3;
    }
    return 0;
}

/* The newest answer that reached the client at or before t (-1: none). */
static double newest_before(const struct local_times *lt, double t)
{
    double newest = -1;
    for (size_t j = 0; j < lt->n_arrived; j++)
        if (lt->arrived_ns[j] <= t && lt->arrived_ns[j] > newest)
            newest = lt->arrived_ns[j];
    return newest;
}

/* A local copy is the instance's from the moment the value reaches it:
 * with a 40 ms round trip and a 100 ms TTL, every local hit comes at most
 * 100 ms after some answer reached the instance, and never before the
 * first. The copy was once kept when the node served the GET, 20 ms
 * before the client had it: reads 7 ms after the first GET hit locally.
 * And every read that goes to the ring comes 100 ms or more after the
 * newest answer: the same version answering again (the reads sent while
 * the first was on its way) is a fresh copy, its TTL starts again. It
 * once kept the first one's: 253 of 318 reads in 5 s went to the node
 * with a value less than 100 ms old. */
static void test_local_copy_when_the_value_arrives(void **state)
{
    (void)state;
    const char *yaml = "name: local-arrival\nduration: 2s\ntick: 1s\n"
                       "workload: {keys: 1, qps: 200}\ncache: {rtt: 40ms}\n"
                       "clients: {instances: 1, local_cache: {capacity_items: 10, ttl: 100ms}}\n"
                       "output: {sample_requests: 1}\nnodes: [{id: A}]\n";
    struct local_times *lt = xcalloc(1, sizeof(*lt));
    struct sink sink = {.ctx = lt, .request = local_times_row};
    assert_int_equal(sink_run_yaml(yaml, NULL, &sink, false, NULL, NULL, 0), RUN_COMPLETE);
    assert_true(lt->n_local > 100);
    assert_true(lt->n_arrived > 10);
    for (size_t i = 0; i < lt->n_local; i++) {
        double t = lt->local_ns[i], newest = newest_before(lt, t);
        if (newest < 0 || t - newest > 100e6)
            fail_msg("local hit at %.0f ns: the newest answer before it reached the client "
                     "at %.0f ns", t, newest);
    }
    for (size_t i = 0; i < lt->n_remote; i++) { /* 1 us: the latency's rounding */
        double t = lt->remote_ns[i], newest = newest_before(lt, t);
        if (newest >= 0 && t - newest < 100e6 - 1e3)
            fail_msg("read at %.0f ns went to the ring: an answer reached the client at %.0f ns",
                     t, newest);
    }
    free(lt);
}

/* A local cache holds the keys asked: a split key's value, read from any
 * copy, answers every later read of the key, whichever copy that read drew.
 * With fixed service times and idle nodes (64 workers) every GET takes the
 * same time, so split 8 gives the local hits of split 1, tick by tick (the
 * copy is drawn for every read, a local hit too: its own stream). Keyed by
 * copy, a read that drew a copy the instance did not hold missed locally:
 * 17% fewer local hits here. */
static void test_local_cache_holds_the_key_asked(void **state)
{
    (void)state;
    const char *yaml = "name: local-split\nduration: 10s\ntick: 1s\n"
                       "workload: {keys: 2000, qps: 20000,\n"
                       "  hot_keys: [{key: key-000001, share: 0.3, split: 8}]}\n"
                       "cache: {service_dist: fixed, workers: 64}\n"
                       "clients: {instances: 4, local_cache: {capacity_items: 5000, ttl: 20ms}}\n"
                       "health: {mode: off}\nnodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n";
    struct mem_run one, eight;
    const char *unsplit[] = {"workload.hot_keys.0.split=1", NULL};
    mem_run_yaml(&one, yaml, unsplit);
    mem_run_yaml(&eight, yaml, NULL);
    assert_true(MEM_SUM(&one, local_hits, 0, 10) > 50000);
    for (double t = 0; t < 10; t++) {
        assert_int_equal(MEM_SUM(&eight, reads, t, t + 1), MEM_SUM(&one, reads, t, t + 1));
        assert_int_equal(MEM_SUM(&eight, local_hits, t, t + 1),
                         MEM_SUM(&one, local_hits, t, t + 1));
    }
    mem_run_free(&one);
    mem_run_free(&eight);
}

/* The sampled local hits: how many, and how many older than the database's
 * version of the key asked. */
static int local_stale_row(void *ctx, const struct request_row *r)
{
    long long *n = ctx;
    if (!strcmp(r->source, "local")) {
        n[0]++;
        n[1] += r->version_seen < r->db_version;
    }
    return 0;
}

static int local_stale_tick(void *ctx, const struct tick_row *r)
{
    long long *n = ctx;
    n[2] += r->local_hits;
    n[3] += r->local_stale_reads;
    return 0;
}

/* A split key's local copy is stale when it is older than the database's
 * version of the key (the copies' versions follow it): every local hit
 * that the request trace shows older than the database is counted stale,
 * and no other. */
static void test_local_cache_stale_split_key(void **state)
{
    (void)state;
    const char *yaml = "name: local-split-stale\nduration: 10s\ntick: 1s\n"
                       "workload: {keys: 2000, qps: 20000, write_ratio: 0.02,\n"
                       "  hot_keys: [{key: key-000001, share: 0.3, split: 8}]}\n"
                       "clients: {instances: 4, local_cache: {capacity_items: 5000, ttl: 20ms}}\n"
                       "output: {sample_requests: 1}\n"
                       "health: {mode: off}\nnodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n";
    long long n[4] = {0};
    struct sink sink = {.ctx = n, .request = local_stale_row, .tick = local_stale_tick};
    assert_int_equal(sink_run_yaml(yaml, NULL, &sink, false, NULL, NULL, 0), RUN_COMPLETE);
    assert_int_equal(n[0], n[2]);
    assert_true(n[1] > 100);
    assert_int_equal(n[1], n[3]);
}

static void test_refused(void **state)
{
    (void)state;
    expect_load_refused("routing: {replicas: 3}\nnodes: [{id: A}, {id: B}]\n",
                   "routing.replicas: routing.replicas is 3 but the cluster has 2 nodes");
    expect_load_refused("routing: {replicas: 2}\nnodes: [{id: A}, {id: B}]\n"
                   "events: [{at: 1s, remove_node: {id: B}}]\n",
                   "events.0.remove_node.id: routing.replicas is 2 but the cluster has 1 node");
    expect_load_refused("routing: {algorithm: bounded, replicas: 2}\nnodes: [{id: A}, {id: B}]\n",
                   "under bounded loads");
    expect_load_refused("nodes: [{id: A, zone: z1}]\nevents: [{at: 1s, crash_zone: {zone: z2}}]\n",
                   "no running node of the cluster is in zone \"z2\"");
    expect_load_refused("clients: {fill: lease}\nnodes: [{id: A}]\n"
                   "workload: {hot_keys: [{key: key-000001, share: 0.1, split: 4}]}\n",
                   "key splitting does not work with clients.fill: lease");
}

/* Shares of all GETs per node over ticks in [from, to), by node number
 * modulo 10: n0..n9 at 0..9 (where the placement puts them); n01..n10 at
 * 1..9 and 0. */
static void node_shares(const struct mem_run *m, double from, double to, double *out)
{
    long long total = 0, per[10] = {0};
    for (size_t i = 0; i < m->n_nodes; i++) {
        if (m->nodes[i].t_s < from || m->nodes[i].t_s >= to)
            continue;
        int k = atoi(m->nodes[i].node + 1) % 10;
        per[k] += m->nodes[i].requests;
        total += m->nodes[i].requests;
    }
    for (int k = 0; k < 10; k++)
        out[k] = total ? (double)per[k] / (double)total : 0;
}

static double busiest(const double *sh)
{
    double b = 0;
    for (int k = 0; k < 10; k++)
        b = MAX(b, sh[k]);
    return b;
}

/* The node (0..9) of each of the first n copies of name, as the scenario's
 * routing (ring, sha256, 1000 vnodes, n0..n9) places them. */
static void copy_nodes(const char *name, uint32_t n, uint32_t *out)
{
    struct place_params p;
    place_params_default(&p, PLACE_RING);
    p.hash = HASH_SHA256;
    p.vnodes = 1000;
    static const char *ids[10] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"};
    struct place_member m[10];
    for (uint32_t i = 0; i < 10; i++)
        m[i] = (struct place_member){.id = ids[i], .weight = 1, .node = i};
    char err[256];
    struct placement *pl = placement_create(&p, m, 10, NULL, err, sizeof err);
    assert_non_null(pl);
    for (uint32_t c = 0; c < n; c++) {
        char copy[64];
        snprintf(copy, sizeof copy, "%s#%u", name, c);
        out[c] = placement_lookup(pl, placement_key_position(&p, copy, strlen(copy)));
    }
    placement_destroy(pl);
}

static void test_key_splitting(void **state)
{
    (void)state;
    const char *yaml = "name: split\nduration: 20s\ntick: 1s\n"
                       "workload: {keys: 100000, qps: 20000, write_ratio: 0.1,\n"
                       "  hot_keys: [{key: key-000001, share: 0.2, split: 4}]}\n"
                       "routing: {vnodes: 1000}\nhealth: {mode: off}\n" TEN_NODES;
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    uint32_t at[4];
    copy_nodes("key-000001", 4, at);
    double h = 0.2, sh[10], want[10];
    for (int k = 0; k < 10; k++)
        want[k] = (1 - h) / 10;
    for (int c = 0; c < 4; c++)
        want[at[c]] += h / 4;
    node_shares(&m, 0, 20, sh);
    for (int k = 0; k < 10; k++)
        CHECK_NEAR(sh[k], want[k], 0.01, "node n%d (copies there: %g)", k,
                   (want[k] - (1 - h) / 10) / (h / 4));
    /* the key's own node, unsplit, would take h + (1 - h)/N = 0.28 */
    assert_true(busiest(sh) < 0.2);
    /* every write of it costs 4 cache operations */
    double amp = (double)MEM_SUM(&m, cache_write_ops, 0, 20) / (double)MEM_SUM(&m, writes, 0, 20);
    CHECK_NEAR(amp, (1 - h) + h * 4, 0.02, "write amplification");
    mem_run_free(&m);

    /* split from an event on: the same shares after it, 1 operation per write before */
    const char *ev = "name: split\nduration: 20s\ntick: 1s\n"
                     "workload: {keys: 100000, qps: 20000, write_ratio: 0.1}\n"
                     "routing: {vnodes: 1000}\nhealth: {mode: off}\n" TEN_NODES
                     "events: [{at: 5s, hot_key: {key: key-000001, share: 0.2, split: 4}}]\n";
    mem_run_yaml(&m, ev, NULL);
    CHECK_NEAR((double)MEM_SUM(&m, cache_write_ops, 0, 5) / (double)MEM_SUM(&m, writes, 0, 5), 1,
               0.002, "write amplification before the split (writes in flight at 5 s aside)");
    node_shares(&m, 8, 20, sh);
    for (int k = 0; k < 10; k++)
        CHECK_NEAR(sh[k], want[k], 0.01, "node n%d after the event", k);
    mem_run_free(&m);
}

static void test_hot_key_detection(void **state)
{
    (void)state;
    const char *yaml = "name: detect\nduration: 40s\ntick: 1s\n"
                       "workload: {keys: 100000, qps: 20000}\n"
                       "routing: {vnodes: 1000}\nhealth: {mode: off}\n"
                       "clients: {hot_key_detection: {threshold: 0.1, window: 5s, replicas: 3}}\n"
                       TEN_NODES
                       "events: [{at: 10s, hot_key: {key: key-000001, share: 0.2, for: 15s}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    /* found at the end of the first window it spends hot, [10 s, 15 s) */
    assert_int_equal(mem_count_events(&m, "hot_key_detected"), 1);
    assert_int_equal(mem_count_events(&m, "hot_key_cooled"), 1);
    for (size_t i = 0; i < m.n_events; i++) {
        if (!strcmp(m.events[i].kind, "hot_key_detected")) {
            CHECK_NEAR(m.events[i].t_s, 15, 0.01, "detected");
            assert_non_null(strstr(m.events[i].detail, "key-000001"));
        }
        if (!strcmp(m.events[i].kind, "hot_key_cooled")) /* the window [25 s, 30 s) */
            CHECK_NEAR(m.events[i].t_s, 30, 0.01, "cooled");
    }
    double h = 0.2, before[10], after[10];
    node_shares(&m, 10, 15, before);
    node_shares(&m, 16, 25, after);
    CHECK_NEAR(busiest(before), h + (1 - h) / 10, 0.01, "the hot node before detection");
    CHECK_NEAR(busiest(after), h / 3 + (1 - h) / 10, 0.01, "the busiest node after detection");
    mem_run_free(&m);
    /* off (threshold 0): nothing detected, the node stays hot */
    const char *off[] = {"clients.hot_key_detection.threshold=0", NULL};
    mem_run_yaml(&m, yaml, off);
    assert_int_equal(mem_count_events(&m, "hot_key_detected"), 0);
    node_shares(&m, 16, 25, after);
    CHECK_NEAR(busiest(after), h + (1 - h) / 10, 0.01, "the hot node without detection");
    mem_run_free(&m);
    /* a uniform workload has no key near the threshold */
    const char *low[] = {"clients.hot_key_detection.threshold=0.001", NULL};
    mem_run_yaml(&m, yaml, low);
    assert_int_equal(mem_count_events(&m, "hot_key_detected"), 1);
    mem_run_free(&m);
}

/* Detection judges a window at its end, whatever the traffic: at 20 reads
 * a second (one every 50 ms on average) the key hot from 0 s to 3 s is
 * detected at 1 s and cooled at 4 s exactly. A window was once closed by
 * the first read after its end: detected at 1.0063 s, cooled at 4.0306 s. */
static void test_hot_key_detection_at_the_window_end(void **state)
{
    (void)state;
    const char *yaml = "name: detect-end\nduration: 8s\ntick: 1s\n"
                       "workload: {keys: 1000, qps: 20}\nhealth: {mode: off}\n"
                       "clients: {hot_key_detection: {threshold: 0.2, window: 1s}}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
                       "events: [{at: 0s, hot_key: {key: key-000001, share: 0.5, for: 3s}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_int_equal(mem_count_events(&m, "hot_key_detected"), 1);
    assert_int_equal(mem_count_events(&m, "hot_key_cooled"), 1);
    for (size_t i = 0; i < m.n_events; i++) {
        if (!strcmp(m.events[i].kind, "hot_key_detected"))
            CHECK_NEAR(m.events[i].t_s, 1, 1e-9, "detected");
        if (!strcmp(m.events[i].kind, "hot_key_cooled"))
            CHECK_NEAR(m.events[i].t_s, 4, 1e-9, "cooled");
    }
    mem_run_free(&m);
}

/* A hot key's replica reads on top of routing.replicas: a cure never takes
 * copies away (K below R still uses every replica: reads spread over R,
 * every write reaches R), and K equal to R still turns replica reads on
 * (under read_from: primary the key's reads spread over its R owners). */
static const char *four_zoned =
    "name: four\nduration: 20s\ntick: 1s\n"
    "workload: {keys: 1000, qps: 4000, write_ratio: 0.1}\n"
    "routing: {vnodes: 160, replicas: 3}\nclients: {write: write_through}\nhealth: {mode: off}\n"
    "nodes: [{id: A, zone: z1}, {id: B, zone: z1}, {id: C, zone: z2}, {id: D, zone: z2}]\n"
    "events: [{at: 0s, hot_key: {key: key-000042, share: 0.5}}]\n";

/* The busiest of nodes A..D's share of the GETs from t_s on. */
static double busiest_four_from(const struct mem_run *m, double t_s)
{
    static const char *const ids[] = {"A", "B", "C", "D"};
    long long all = 0, top = 0;
    for (int n = 0; n < 4; n++) {
        long long got = 0;
        for (size_t i = 0; i < m->n_nodes; i++)
            if (m->nodes[i].t_s >= t_s && !strcmp(m->nodes[i].node, ids[n]))
                got += m->nodes[i].requests;
        all += got;
        top = MAX(top, got);
    }
    return (double)top / (double)all;
}

static void test_hot_key_replicas_over_routing_replicas(void **state)
{
    (void)state;
    struct mem_run m[5];
    for (int k = 1; k <= 4; k++) {
        char set[48];
        snprintf(set, sizeof set, "events.0.hot_key.replicas=%d", k);
        const char *sets[] = {set, NULL};
        mem_run_yaml(&m[k], four_zoned, sets);
        /* every key is cached (room for all): sets are the write-throughs,
         * 3 a write, and K for the hot key's half of them when K > 3 */
        CHECK_NEAR(sets_per_write(&m[k]), k == 4 ? 0.5 * 3 + 0.5 * 4 : 3, 0.02,
                   "sets per write, hot key replicas %d", k);
    }
    /* 1: no cure, primary reads: the key's owner takes h + (1 - h)/4 or so */
    assert_true(m[1].summary.max_node_share > 0.55);
    /* 2 and 3: replica reads from the key's 3 owners, alike */
    assert_true(m[2].summary.max_node_share < 0.35);
    CHECK_NEAR(m[2].summary.max_node_share, m[3].summary.max_node_share, 1e-12, "K 2 and 3");
    /* 4: from all four */
    assert_true(m[4].summary.max_node_share < m[3].summary.max_node_share);
    for (int k = 1; k <= 4; k++)
        mem_run_free(&m[k]);
    /* detection with replicas equal to routing.replicas turns replica reads on */
    const char *det[] = {"events.0.at=5s", "clients.hot_key_detection.threshold=0.1",
                         "clients.hot_key_detection.window=2s",
                         "clients.hot_key_detection.replicas=3", NULL};
    const char *none[] = {"events.0.at=5s", NULL};
    struct mem_run on, off;
    mem_run_yaml(&on, four_zoned, det);
    mem_run_yaml(&off, four_zoned, none);
    assert_int_equal(mem_count_events(&on, "hot_key_detected"), 1);
    double busy_on = busiest_four_from(&on, 8), busy_off = busiest_four_from(&off, 8);
    assert_true(busy_off > 0.55);
    assert_true(busy_on < 0.35);
    mem_run_free(&on);
    mem_run_free(&off);
}

/* A node removed and added back is a new node: the add_node event's zone
 * and cache settings, not the first one's; one added back while its drain
 * still runs never left. */
static void test_node_back_with_new_settings(void **state)
{
    (void)state;
    const char *yaml =
        "name: back\nduration: 8s\ntick: 1s\n"
        "workload: {keys: 1000, qps: 4000}\nhealth: {mode: off}\n"
        "nodes: [{id: A, zone: z1}, {id: B, zone: z1}, {id: C, zone: z2}, {id: D, zone: z2}]\n"
        "events:\n"
        "  - {at: 2s, remove_node: {id: D}}\n"
        "  - {at: 3s, add_node: {id: D, zone: z3, capacity_items: 10}}\n"
        "  - {at: 5s, crash_zone: {zone: z3}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    for (size_t i = 0; i < m.n_nodes; i++) {
        const struct node_tick_row *r = &m.nodes[i];
        if (strcmp(r->node, "D"))
            continue;
        if (r->t_s == 0)
            assert_true(r->items > 100); /* its first life: room for its share */
        if (r->t_s >= 3 && r->t_s < 5) {
            assert_string_equal(r->state, "up");
            assert_true(r->items <= 10); /* capacity_items of the event */
        }
        if (r->t_s >= 5) /* its zone is the event's: the zone's crash takes it */
            assert_string_equal(r->state, "crashed");
    }
    mem_run_free(&m);
    /* added back while its drain still runs: it never left, so the drain is
     * cancelled and the node keeps its items (and its settings) */
    const char *draining =
        "name: back\nduration: 8s\ntick: 1s\n"
        "workload: {keys: 5000, qps: 4000}\nhealth: {mode: off}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
        "events:\n"
        "  - {at: 2s, remove_node: {id: D, drain: {rate: 100, max_wait: 10s}}}\n"
        "  - {at: 3s, add_node: {id: D, capacity_items: 10}}\n";
    mem_run_yaml(&m, draining, NULL);
    assert_int_equal(m.status, RUN_COMPLETE);
    assert_int_equal(mem_count_events(&m, "drain_cancel"), 1);
    assert_int_equal(mem_count_events(&m, "drain_done"), 0);
    long long first = -1;
    for (size_t i = 0; i < m.n_nodes; i++) {
        const struct node_tick_row *r = &m.nodes[i];
        if (strcmp(r->node, "D"))
            continue;
        assert_string_equal(r->state, "up");
        if (first < 0)
            first = r->items;
        assert_true(r->items > 100 && r->items == first); /* all it had, no more */
    }
    mem_run_free(&m);
}

/* ---- the incident: scenarios/incidents/hot_key_cures.yaml ------------------------------- */

/* Share of the busiest node's GETs, write amplification, stale reads, from 25 s. */
struct cure_figures {
    double busiest, amp, hit;
    long long stale, local_stale;
};

static struct cure_figures cure_run(const char *seed, const char *a, const char *b)
{
    const char *sets[] = {"duration=45s", seed, a, b, NULL}; /* a NULL a or b ends the list */
    struct mem_run m;
    mem_run_file(&m, "scenarios/incidents/hot_key_cures.yaml", sets);
    struct cure_figures f = {0};
    double sh[10];
    node_shares(&m, 25, 45, sh); /* nodes n01..n10 */
    f.busiest = busiest(sh);
    f.amp = (double)MEM_SUM(&m, cache_write_ops, 25, 45) / (double)MEM_SUM(&m, writes, 25, 45);
    f.hit = (double)MEM_SUM(&m, hits, 25, 45) / (double)MEM_SUM(&m, reads, 25, 45);
    f.stale = MEM_SUM(&m, stale_reads, 25, 45);
    f.local_stale = MEM_SUM(&m, local_stale_reads, 25, 45);
    if (a && strstr(a, "detection")) {
        assert_int_equal(mem_count_events(&m, "hot_key_detected"), 1);
        for (size_t i = 0; i < m.n_events; i++)
            if (!strcmp(m.events[i].kind, "hot_key_detected"))
                CHECK_NEAR(m.events[i].t_s, 22, 0.01, "detected at the first window's end");
    }
    mem_run_free(&m);
    return f;
}

static void test_hot_key_cures_incident(void **state)
{
    (void)state;
    const double h = 0.2, cold = (1 - h) / 10;
    const char *seeds[] = {"seed=1", "seed=2", "seed=3"};
    for (int i = 0; i < 3; i++) {
        struct cure_figures none = cure_run(seeds[i], NULL, NULL);
        struct cure_figures local = cure_run(seeds[i], "clients.local_cache.capacity_items=1000", NULL);
        struct cure_figures rep = cure_run(seeds[i], "events.0.hot_key.replicas=3", NULL);
        struct cure_figures split = cure_run(seeds[i], "events.0.hot_key.split=4", NULL);
        struct cure_figures det = cure_run(seeds[i], "clients.hot_key_detection.threshold=0.1",
                                           "clients.hot_key_detection.window=2s");
        /* the disease: the key's node takes h + (1 - h)/N and is overloaded */
        CHECK_NEAR(none.busiest, h + cold, 0.01, "%s none: busiest node", seeds[i]);
        CHECK_NEAR(none.amp, 1, 0.005, "%s none: cache operations per write", seeds[i]);
        assert_true(none.hit < 0.85);
        /* the local cache: spread, no amplification, stale reads of its own */
        assert_true(local.busiest < 0.13);
        CHECK_NEAR(local.amp, 1, 0.005, "%s local: cache operations per write", seeds[i]);
        assert_true(local.local_stale > 5 * rep.stale);
        assert_true(local.hit > 0.93);
        /* replica reads: h/K + (1 - h)/N on the busiest, (1 - h) + h K per write */
        CHECK_NEAR(rep.busiest, h / 3 + cold, 0.01, "%s replicas 3: busiest node", seeds[i]);
        CHECK_NEAR(rep.amp, (1 - h) + h * 3, 0.02, "%s replicas 3: write amplification", seeds[i]);
        assert_true(rep.stale < none.stale);
        assert_true(rep.hit > none.hit + 0.05);
        /* splitting in 4: the four copies land on four nodes here */
        CHECK_NEAR(split.busiest, h / 4 + cold, 0.01, "%s split 4: busiest node", seeds[i]);
        CHECK_NEAR(split.amp, (1 - h) + h * 4, 0.02, "%s split 4: write amplification", seeds[i]);
        assert_true(split.stale < none.stale);
        /* detection: the replica reads, turned on by the clients */
        CHECK_NEAR(det.busiest, rep.busiest, 0.005, "%s detection: busiest node", seeds[i]);
        CHECK_NEAR(det.amp, rep.amp, 0.01, "%s detection: write amplification", seeds[i]);
    }
}

/* ---- replicas next to the transition mechanisms ----------------------------------------- */

/* A join 4 -> 5 under mod (almost every key moves) with the fallback to
 * previous owners, 5% writes. */
static const char *mod_join =
    "name: fallback\nduration: 30s\ntick: 1s\n"
    "workload: {keys: 20000, qps: 20000, write_ratio: 0.05}\n"
    "routing: {algorithm: mod}\nhealth: {mode: off}\n"
    "clients: {instances: 8, fallback_to_previous_owner: true, fallback_window: 60s}\n"
    "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
    "events: [{at: 5s, add_node: {id: E}}]\n";

static long long stale_from(const struct mem_run *m, double t)
{
    return MEM_SUM(m, stale_reads, t, INFINITY);
}

/* A fallback read asks the key's previous owner, so in the window a write
 * invalidates the key there too (invalidate_previous_owner) — with
 * replicas, and for every copy of a split key, as for a key of one owner.
 * It once did only for the latter: with routing.replicas 2 the join gave
 * 115,585 stale reads (as many as without the invalidations), a split hot
 * key 142,326. */
static void test_fallback_invalidates_previous_owners(void **state)
{
    (void)state;
    struct mem_run one, two, two_off;
    mem_run_yaml(&one, mod_join, NULL);
    const char *r2[] = {"routing.replicas=2", NULL};
    mem_run_yaml(&two, mod_join, r2);
    const char *r2_off[] = {"routing.replicas=2", "clients.invalidate_previous_owner=false", NULL};
    mem_run_yaml(&two_off, mod_join, r2_off);
    assert_true(MEM_SUM(&two, fallback_reads, 5, 30) > 5000); /* the fallback is used */
    assert_true(stale_from(&one, 5) < 100);
    assert_true(stale_from(&two, 5) < 100);
    assert_true(stale_from(&two_off, 5) > 10000); /* what the invalidations are for */
    /* one more cache operation per write while the previous owner is not a replica */
    assert_true(MEM_SUM(&two, cache_write_ops, 5, 30) > 2.4 * MEM_SUM(&two, writes, 5, 30));
    mem_run_free(&one);
    mem_run_free(&two);
    mem_run_free(&two_off);

    /* a hot key split in 4: each copy's previous owner too */
    const char *hot_join =
        "name: fallback\nduration: 30s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 20000, write_ratio: 0.05,\n"
        "  hot_keys: [{key: key-000001, share: 0.3}]}\n"
        "routing: {algorithm: mod}\nhealth: {mode: off}\n"
        "clients: {instances: 8, fallback_to_previous_owner: true, fallback_window: 60s}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
        "events: [{at: 5s, add_node: {id: E}}]\n";
    const char *split4[] = {"workload.hot_keys.0.split=4", NULL};
    struct mem_run whole, split;
    mem_run_yaml(&whole, hot_join, NULL);
    mem_run_yaml(&split, hot_join, split4);
    if (stale_from(&split, 5) > 2 * stale_from(&whole, 5) + 100)
        fail_msg("split: %lld stale reads, against %lld unsplit", stale_from(&split, 5),
                 stale_from(&whole, 5));
    mem_run_free(&whole);
    mem_run_free(&split);
}

/* With a gutter pool, a read whose replicas are all ejected goes to the
 * key's gutter node, and so does a write's cache operation (as for a key
 * of one owner): the gutter's copies are invalidated. They once were not:
 * 33,912 stale reads after both replicas of a third of the keys crashed,
 * against 12 with one owner. */
static void test_gutter_with_replicas(void **state)
{
    (void)state;
    const char *yaml =
        "name: gutter\nduration: 30s\ntick: 1s\n"
        "workload: {keys: 5000, qps: 20000, write_ratio: 0.05}\n"
        "routing: {vnodes: 256, replicas: 2}\n"
        "health: {mode: client, on_eject: gutter, gutter_nodes: 1, gutter_ttl: 10s,\n"
        "  retry_after: 60s}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
        "events: [{at: 5s, crash_node: {id: A}}, {at: 5s, crash_node: {id: B}}]\n";
    for (int r = 1; r <= 2; r++) {
        char set[40];
        snprintf(set, sizeof set, "routing.replicas=%d", r);
        const char *sets[] = {set, NULL};
        struct mem_run m;
        mem_run_yaml(&m, yaml, sets);
        assert_true(mem_node_requests(&m, "gutter-0") > 50000); /* the gutter serves reads */
        if (stale_from(&m, 8) > 100)
            fail_msg("replicas %d: %lld stale reads from 8 s", r, stale_from(&m, 8));
        mem_run_free(&m);
    }
}

/* GETs per node over ticks in [from, to). */
static long long node_gets(const struct mem_run *m, const char *node, double from, double to)
{
    long long n = 0;
    for (size_t i = 0; i < m->n_nodes; i++)
        if (!strcmp(m->nodes[i].node, node) && m->nodes[i].t_s >= from && m->nodes[i].t_s < to)
            n += m->nodes[i].requests;
    return n;
}

/* Fencing knows a hot key's own replicas: a lagging client's GET or write
 * to one of them is served there, not passed on to the key's first owner.
 * F joins at 5 s, the clients adopt it 1-3 s later; the hot key's owners
 * are D, E, F after (C, D, E before). With forwarding they once took
 * 15,697 GETs to F in [5 s, 8 s), 9,213 to D: the cure undone while the
 * clients lag, and D and E stale (the write-throughs passed on to F). */
static void test_fencing_knows_hot_key_replicas(void **state)
{
    (void)state;
    const char *yaml =
        "name: fence\nduration: 12s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 20000, write_ratio: 0.05,\n"
        "  hot_keys: [{key: key-000001, share: 0.2, replicas: 3}]}\n"
        "routing: {vnodes: 256, fencing: forward}\n"
        "health: {mode: central, propagation_delay: 2s}\n"
        "clients: {instances: 8, write: write_through}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}, {id: E}]\n"
        "events: [{at: 5s, add_node: {id: F}}]\n";
    struct mem_run fw, rj;
    mem_run_yaml(&fw, yaml, NULL);
    const char *reject[] = {"routing.fencing=reject", NULL};
    mem_run_yaml(&rj, yaml, reject);
    /* forwarding serves what rejecting clients send once they adopt */
    static const char *const owners[] = {"D", "E", "F"};
    for (int i = 0; i < 3; i++)
        CHECK_NEAR((double)node_gets(&fw, owners[i], 5, 8) / (double)node_gets(&rj, owners[i], 5, 8),
                   1, 0.05, "GETs at %s in [5 s, 8 s), forward over reject", owners[i]);
    assert_true(stale_from(&fw, 5) < 2 * stale_from(&rj, 5) + 100);
    mem_run_free(&fw);
    mem_run_free(&rj);
}

/* With replicas, a lagging client's invalidation fenced at a node that is
 * no longer an owner goes to the owner its write missed (the one the newer
 * epoch added), not to the first owner, which had its own. It once went to
 * the first, and forwarding left 27-110 (ring) and 90-379 (mod) stale reads
 * of a join, seeds 1-4 (110 and 363 with seed 2); now 1-7. */
static void test_fencing_sends_on_to_the_missed_replica(void **state)
{
    (void)state;
    const char *yaml =
        "name: fence\nduration: 15s\ntick: 1s\nseed: 2\n"
        "workload: {keys: 20000, qps: 20000, write_ratio: 0.2}\n"
        "routing: {vnodes: 256, fencing: forward, replicas: 2, read_from: random}\n"
        "health: {mode: central, propagation_delay: 4s}\n"
        "clients: {instances: 8}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}, {id: E}]\n"
        "events: [{at: 5s, add_node: {id: F}}]\n";
    static const char *const algos[] = {"routing.algorithm=ring", "routing.algorithm=mod"};
    for (int a = 0; a < 2; a++) {
        const char *sets[] = {algos[a], NULL};
        struct mem_run m, none;
        mem_run_yaml(&m, yaml, sets);
        const char *off[] = {algos[a], "routing.fencing=none", NULL};
        mem_run_yaml(&none, yaml, off);
        assert_true(MEM_SUM(&m, redirects, 5, 15) > 10000);
        assert_true(stale_from(&none, 5) > 100); /* the lagging clients' stale reads */
        if (stale_from(&m, 5) > 20)
            fail_msg("%s: %lld stale reads with forwarding", algos[a], stale_from(&m, 5));
        mem_run_free(&m);
        mem_run_free(&none);
    }
}

/* A fallback ask fenced at the previous owner (a client lagging behind the
 * epoch the node knows) goes on to the key's owner in the newer epoch as an
 * ordinary GET: a hit there is the owner's, not a fallback read. The hot
 * key moves from C to D at 4 s and stays at D when E joins at 4.5 s; the
 * clients adopt each epoch 2-6 s after it. With forwarding, C passed 1,671
 * fallback asks on to D that hit there, all once counted as fallback reads
 * (1,696 in all); now 26. */
static void test_fenced_fallback_is_not_a_fallback_read(void **state)
{
    (void)state;
    const char *yaml =
        "name: fallback\nduration: 12s\ntick: 1s\n"
        "workload: {keys: 2000, qps: 20000, write_ratio: 0.1,\n"
        "  hot_keys: [{key: key-000001, share: 0.5}]}\n"
        "routing: {vnodes: 256, fencing: forward}\n"
        "health: {mode: central, propagation_delay: 4s}\n"
        "clients: {instances: 16, fallback_to_previous_owner: true}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "events: [{at: 4s, add_node: {id: D}}, {at: 4500ms, add_node: {id: E}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_true(MEM_SUM(&m, redirects, 4, 12) > 10000); /* the lagging clients */
    if (MEM_SUM(&m, fallback_reads, 0, 12) > 200)
        fail_msg("%lld fallback reads", MEM_SUM(&m, fallback_reads, 0, 12));
    mem_run_free(&m);
}

/* Counts sampled reads that the database answered after a timeout. */
static int timeout_then_db(void *ctx, const struct request_row *r)
{
    long long *n = ctx;
    n[0] += !strcmp(r->op, "get");
    n[1] += !strcmp(r->source, "db") && !strcmp(r->outcome, "timeout");
    n[2] += !strcmp(r->op, "get") && r->node && !strncmp(r->node, "A,", 2);
    return 0;
}

/* A read that timed out at a crashed replica and then missed at the next
 * one is a miss in the request trace (its last GET's), as in the ticks;
 * it once was a timeout (977 of them here). */
static void test_request_trace_after_failover(void **state)
{
    (void)state;
    const char *yaml = "name: failover\nduration: 10s\ntick: 1s\n"
                       "workload: {keys: 20000, qps: 10000, write_ratio: 0.05}\n"
                       "routing: {replicas: 2}\nhealth: {mode: off}\n"
                       "output: {sample_requests: 1}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n"
                       "events: [{at: 5s, crash_node: {id: A}}]\n";
    long long n[3] = {0};
    struct sink sink = {.ctx = n, .request = timeout_then_db};
    struct summary_row sum;
    assert_int_equal(sink_run_yaml(yaml, NULL, &sink, false, &sum, NULL, 0), RUN_COMPLETE);
    assert_true(n[2] > 5000); /* reads that failed over from A */
    assert_int_equal(n[1], 0);
}

/* Counts sampled reads, and those that asked a node twice. */
static int asked_twice(void *ctx, const struct request_row *r)
{
    long long *n = ctx;
    if (strcmp(r->op, "get") || !r->node)
        return 0;
    n[0]++;
    char list[256];
    snprintf(list, sizeof list, "%s", r->node);
    const char *name[PLACE_MAX_REPLICAS + 8];
    int k = 0;
    for (char *save, *t = strtok_r(list, ",", &save); t && k < (int)ARRAY_LEN(name);
         t = strtok_r(NULL, ",", &save)) {
        for (int i = 0; i < k; i++)
            if (!strcmp(name[i], t)) {
                n[1]++;
                return 0;
            }
        name[k++] = t;
    }
    return 0;
}

/* A read fails over to a replica it has not asked, whatever sent its last
 * GET where it went: here a hot key whose reads time out at its crashed
 * owner C gets replica reads at 6 s, while GETs routed to C alone are out.
 * Their failover once asked C again (C,C,A: 176 reads). */
static void test_failover_never_asks_twice(void **state)
{
    (void)state;
    const char *yaml =
        "name: twice\nduration: 8s\ntick: 1s\n"
        "workload: {keys: 1000, qps: 20000, hot_keys: [{key: key-000002, share: 0.3}]}\n"
        "routing: {vnodes: 256}\nhealth: {mode: off}\noutput: {sample_requests: 1}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
        "events: [{at: 5s, crash_node: {id: C}},\n"
        "  {at: 6s, hot_key: {key: key-000002, share: 0.3, replicas: 3}}]\n";
    long long n[2] = {0};
    struct sink sink = {.ctx = n, .request = asked_twice};
    struct summary_row sum;
    assert_int_equal(sink_run_yaml(yaml, NULL, &sink, false, &sum, NULL, 0), RUN_COMPLETE);
    assert_true(n[0] > 100000);
    assert_int_equal(n[1], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replica_reads_spread_a_hot_key),
        cmocka_unit_test(test_writes_reach_every_replica),
        cmocka_unit_test(test_zone_crash_leaves_a_copy),
        cmocka_unit_test(test_local_cache),
        cmocka_unit_test(test_local_copy_when_the_value_arrives),
        cmocka_unit_test(test_local_cache_holds_the_key_asked),
        cmocka_unit_test(test_local_cache_stale_split_key),
        cmocka_unit_test(test_key_splitting),
        cmocka_unit_test(test_hot_key_detection),
        cmocka_unit_test(test_hot_key_detection_at_the_window_end),
        cmocka_unit_test(test_hot_key_cures_incident),
        cmocka_unit_test(test_hot_key_replicas_over_routing_replicas),
        cmocka_unit_test(test_node_back_with_new_settings),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_fallback_invalidates_previous_owners),
        cmocka_unit_test(test_gutter_with_replicas),
        cmocka_unit_test(test_fencing_knows_hot_key_replicas),
        cmocka_unit_test(test_fencing_sends_on_to_the_missed_replica),
        cmocka_unit_test(test_fenced_fallback_is_not_a_fallback_read),
        cmocka_unit_test(test_request_trace_after_failover),
        cmocka_unit_test(test_failover_never_asks_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
