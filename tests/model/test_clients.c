/*
 * Client behaviour tests: fill modes (set, add, versioned, lease), write
 * modes, coalescing, the backfill limit, falling back to the previous owner,
 * split brain (overlapping ones holding an instance until the last ends),
 * and bounded loads in the dynamic model. Each compares a run with the
 * behaviour against the same seed without it.
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

#define SUM MEM_SUM

/* A hot key written now and then: every write is followed by a burst of
 * misses of that one key while it refills (a 5 ms database read). */
static const char *hot_writes =
    "name: hotw\nduration: 20s\ntick: 1s\n"
    "workload: {keys: 10000, qps: 20000, write_ratio: 0.002, "
    "hot_keys: [{key: key-000001, share: 0.5}]}\n"
    "nodes: [{id: A}, {id: B}, {id: C}]\n"
    "database: {workers: 64, service_time: 5ms}\n"
    "health: {mode: off}\n";

static void test_coalesce(void **state)
{
    (void)state;
    struct mem_run plain, co;
    mem_run_yaml(&plain, hot_writes, NULL);
    const char *sets[] = {"clients.coalesce=true", NULL};
    mem_run_yaml(&co, hot_writes, sets);
    long long r_plain = SUM(&plain, db_reads, 0, 20), r_co = SUM(&co, db_reads, 0, 20);
    /* the hot key's misses during each refill collapse to one read per instance */
    assert_true(r_co < r_plain / 2);
    /* every read still finishes: same requests, misses are still misses */
    assert_int_equal(SUM(&co, requests, 0, 20), SUM(&plain, requests, 0, 20));
    /* a little more misses: one read per instance refills the key later than
     * the fastest of many racing reads would */
    assert_true(SUM(&co, misses, 0, 20) >= SUM(&plain, misses, 0, 20));
    assert_true(SUM(&co, misses, 0, 20) < 2 * SUM(&plain, misses, 0, 20));
    assert_int_equal(SUM(&co, errors, 0, 20), 0);
    mem_run_free(&plain);
    mem_run_free(&co);
}

static void test_backfill_limit(void **state)
{
    (void)state;
    const char *yaml =
        "name: backfill\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 200000, qps: 10000}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "cache: {prewarm: false}\n"
        "clients: {instances: 4, backfill_qps: 250}\n"
        "health: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    /* cold caches: nearly every read misses, but the database sees at most
     * 4 x 250 reads/s after the first second's burst */
    for (size_t i = 2; i < m.n_ticks; i++)
        assert_true(m.ticks[i].db_reads <= 1000 + 50);
    assert_true(SUM(&m, errors, 2, 20) > 18 * 5000);
    mem_run_free(&m);
}

/* Reads racing writes on hot keys: stale fills happen under set, leases stop
 * the lasting ones. */
static void test_lease_stops_stale_sets(void **state)
{
    (void)state;
    const char *yaml =
        "name: race\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 2000, popularity: zipf, zipf_s: 1.1, qps: 40000, write_ratio: 0.1}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "cache: {service_time: 5us}\n"
        "database: {workers: 128, service_time: 2ms}\n"
        "health: {mode: off}\n";
    struct mem_run set, lease;
    mem_run_yaml(&set, yaml, NULL);
    const char *sets[] = {"clients.fill=lease", NULL};
    mem_run_yaml(&lease, yaml, sets);
    assert_true(set.summary.stale_overwrites > 1000);
    /* with leases a fill whose key was invalidated since the miss is refused;
     * what remains is a fill landing just before its invalidation */
    assert_true(lease.summary.stale_overwrites * 3 < set.summary.stale_overwrites);
    /* stale reads also come from the moment between a commit and its
     * invalidation, which no fill policy changes: fewer, not none */
    assert_true(lease.summary.stale_reads < set.summary.stale_reads);
    mem_run_free(&set);
    mem_run_free(&lease);
}

/* Leases with coalescing: a waiter may hold the key's lease token while its
 * leader holds none (the leader missed while another instance's token was
 * out). The group's fill was the leader's alone, so the waiter's token went
 * unused and the node refused every other fill of the key until it lapsed
 * (10 s): hot keys stayed uncached, the hit rate fell from 0.918 to 0.838.
 * Now the token's holder fills: coalescing costs the hit rate about what it
 * costs under set (0.956 -> 0.949), here 0.918 -> 0.909. */
static void test_coalesce_keeps_lease_fills(void **state)
{
    (void)state;
    const char *yaml =
        "name: lease-co\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 2000, popularity: zipf, zipf_s: 1.1, qps: 40000, write_ratio: 0.02}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "cache: {service_time: 5us}\n"
        "database: {workers: 128, service_time: 2ms}\n"
        "clients: {fill: lease}\n"
        "health: {mode: off}\n";
    struct mem_run lease, co;
    mem_run_yaml(&lease, yaml, NULL);
    const char *sets[] = {"clients.coalesce=true", NULL};
    mem_run_yaml(&co, yaml, sets);
    /* coalescing still saves database reads */
    assert_true(SUM(&co, db_reads, 0, 20) < SUM(&lease, db_reads, 0, 20) * 0.8);
    /* and costs at most 0.02 of hit rate (unused tokens cost 0.08) */
    if (co.summary.hit_rate < lease.summary.hit_rate - 0.02)
        fail_msg("lease + coalesce hit rate %.4f, lease alone %.4f", co.summary.hit_rate,
                 lease.summary.hit_rate);
    assert_int_equal(co.summary.errors, 0);
    mem_run_free(&lease);
    mem_run_free(&co);
}

static void test_versioned_never_clobbers(void **state)
{
    (void)state;
    /* A clobber needs a fill to overtake a write-through: here the fill
     * comes from the previous owner (one more slow round trip) while the
     * writer's write-through of a newer version lands first. (Writes do not
     * invalidate the previous owner here, so its copies go stale.) */
    const char *yaml =
        "name: clobber\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 2000, popularity: zipf, zipf_s: 1.1, qps: 40000, write_ratio: 0.3}\n"
        "routing: {vnodes: 64}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "cache: {service_time: 5us, rtt: 4ms}\n"
        "clients: {write: write_through, fallback_to_previous_owner: true,\n"
        "          invalidate_previous_owner: false}\n"
        "database: {workers: 128, service_time: 2ms}\n"
        "health: {mode: off}\n"
        "events: [{at: 5s, add_node: {id: C}}]\n";
    struct mem_run set, ver, add, lease;
    mem_run_yaml(&set, yaml, NULL);
    const char *v[] = {"clients.fill=versioned", NULL};
    const char *a[] = {"clients.fill=add", NULL};
    const char *l[] = {"clients.fill=lease", NULL};
    mem_run_yaml(&ver, yaml, v);
    mem_run_yaml(&add, yaml, a);
    mem_run_yaml(&lease, yaml, l);
    assert_true(set.summary.clobbers >= 3);
    assert_true(set.summary.clobbers <= set.summary.stale_overwrites);
    assert_int_equal(ver.summary.clobbers, 0);   /* never replaces a newer version */
    assert_int_equal(add.summary.clobbers, 0);   /* never replaces anything */
    assert_int_equal(lease.summary.clobbers, 0); /* the write-through voided the lease */
    /* write-through keeps caches fresh: hit rate stays high */
    assert_true(set.summary.hit_rate > 0.95);
    mem_run_free(&set);
    mem_run_free(&ver);
    mem_run_free(&add);
    mem_run_free(&lease);
}

static void test_fallback_to_previous_owner(void **state)
{
    (void)state;
    const char *yaml =
        "name: warm\nduration: 40s\ntick: 1s\n"
        "workload: {keys: 50000, qps: 10000}\n"
        "routing: {vnodes: 256}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "health: {mode: off}\n"
        "events: [{at: 10s, add_node: {id: D}}]\n";
    struct mem_run cold, warm;
    mem_run_yaml(&cold, yaml, NULL);
    const char *sets[] = {"clients.fallback_to_previous_owner=true", NULL};
    mem_run_yaml(&warm, yaml, sets);
    /* without: about a quarter of the keys miss once; with: they are found at
     * their previous owner and copied over */
    assert_true(cold.summary.min_hit_rate < 0.8);
    assert_true(warm.summary.min_hit_rate > 0.99);
    assert_true(SUM(&warm, db_reads, 10, 40) * 20 < SUM(&cold, db_reads, 10, 40));
    mem_run_free(&cold);
    mem_run_free(&warm);

    /* with writes, and writes not invalidating the previous owner, its copy
     * misses the invalidations sent to the new owner: backfilling it installs
     * stale values (tests/model/test_accounting.c: how the window and the
     * invalidation of the previous owner bound this) */
    const char *w[] = {"clients.fallback_to_previous_owner=true", "workload.write_ratio=0.05",
                       "clients.invalidate_previous_owner=false", NULL};
    const char *w0[] = {"workload.write_ratio=0.05", NULL};
    mem_run_yaml(&warm, yaml, w);
    mem_run_yaml(&cold, yaml, w0);
    assert_true(warm.summary.stale_overwrites > 10 * (cold.summary.stale_overwrites + 1));
    assert_true(warm.summary.stale_reads > 10 * (cold.summary.stale_reads + 1));
    mem_run_free(&cold);
    mem_run_free(&warm);
}

static void test_split_brain(void **state)
{
    (void)state;
    const char *yaml =
        "name: split\nduration: 40s\ntick: 1s\n"
        "workload: {keys: 20000, popularity: zipf, qps: 20000, write_ratio: 0.05}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "clients: {instances: 4}\n"
        "health: {mode: off}\n"
        "events:\n"
        "  - {at: 10s, split_brain: {instances: [0, 1], for: 15s}}\n"
        "  - {at: 12s, add_node: {id: D}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    /* two instances stay on epoch 1 while the others move to epoch 2 */
    for (size_t i = 0; i < m.n_ticks; i++) {
        const struct tick_row *t = &m.ticks[i];
        if (t->t_s >= 12 && t->t_s < 25) {
            assert_int_equal(t->epoch_min, 1);
            assert_int_equal(t->epoch_max, 2);
            assert_int_equal(t->views, 2);
        } else if (t->t_s >= 26) {
            assert_int_equal(t->epoch_min, 2);
        }
    }
    /* writers on the new ring invalidate at D; the frozen instances read the
     * old copies at A, B, C: stale reads. After the split, D keeps the stale
     * copies the frozen writers never invalidated there, until each key is
     * written again: fewer stale reads, fading. */
    long long during = SUM(&m, stale_reads, 13, 25) / 12, after = SUM(&m, stale_reads, 30, 40) / 10;
    long long before = SUM(&m, stale_reads, 0, 10) / 10;
    assert_true(during > 20 * (before + 1));
    assert_true(after * 3 < during);
    assert_true(after > before);
    assert_int_equal(mem_count_events(&m, "split_brain"), 1);
    assert_int_equal(mem_count_events(&m, "split_brain_end"), 1);
    mem_run_free(&m);
}

/* Overlapping split brains add up: an instance two of them freeze stays on
 * its epoch until the longer one ends, whichever started last. Instance 0
 * is frozen from 2 s to 12 s, instances 0 and 1 from 3 s to 5 s; a node
 * joins at 4 s (epoch 2). Instance 1 adopts it at 5 s, instance 0 at 12 s. */
static void test_split_brains_overlap(void **state)
{
    (void)state;
    const char *yaml =
        "name: splits\nduration: 16s\ntick: 1s\n"
        "workload: {keys: 2000, qps: 2000}\n"
        "nodes: [{id: A}, {id: B}]\nclients: {instances: 4}\nhealth: {mode: off}\n"
        "events:\n"
        "  - {at: 2s, split_brain: {instances: [0], for: 10s}}\n"
        "  - {at: 3s, split_brain: {instances: [0, 1], for: 2s}}\n"
        "  - {at: 4s, add_node: {id: C}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    for (double t = 4; t < 12; t++) {
        const struct tick_row *r = mem_tick_at(&m, t);
        if (r->epoch_min != 1 || r->epoch_max != 2 || r->views != 2)
            fail_msg("tick %g: epochs %lld..%lld in %lld views, expected 1..2 in 2", t,
                     (long long)r->epoch_min, (long long)r->epoch_max, (long long)r->views);
    }
    for (double t = 12; t < 16; t++)
        assert_int_equal(mem_tick_at(&m, t)->epoch_min, 2);
    assert_int_equal(mem_count_events(&m, "split_brain_end"), 2);
    for (size_t i = 0; i < m.n_events; i++)
        if (strcmp(m.events[i].kind, "split_brain_end") == 0 && m.events[i].t_s == 5)
            assert_non_null(strstr(m.events[i].detail, "but 0 (frozen by a longer split_brain)"));
    mem_run_free(&m);
}

static void test_bounded_loads_spread_a_hot_key(void **state)
{
    (void)state;
    const char *yaml =
        "name: bounded\nduration: 10s\ntick: 1s\n"
        "workload: {keys: 50000, qps: 40000, hot_keys: [{key: key-000007, share: 0.3}]}\n"
        "routing: {algorithm: ring, vnodes: 160}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}, {id: E}]\n"
        "cache: {service_time: 50us}\n"
        "health: {mode: off}\n";
    struct mem_run ring, bounded;
    mem_run_yaml(&ring, yaml, NULL);
    const char *sets[] = {"routing.algorithm=bounded", "routing.load_factor=1.25", NULL};
    mem_run_yaml(&bounded, yaml, sets);
    /* ring: the hot key's node takes 0.3 + 0.7/5 = 0.44; bounded caps what is
     * in flight at a node and spills the rest to the next nodes on the ring */
    assert_true(fabs(ring.summary.max_node_share - 0.44) < 0.02);
    assert_true(bounded.summary.max_node_share < ring.summary.max_node_share - 0.05);
    /* spilled keys are not at their usual node: some extra misses */
    assert_true(bounded.summary.hit_rate < ring.summary.hit_rate);
    mem_run_free(&ring);
    mem_run_free(&bounded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coalesce),
        cmocka_unit_test(test_backfill_limit),
        cmocka_unit_test(test_lease_stops_stale_sets),
        cmocka_unit_test(test_coalesce_keeps_lease_fills),
        cmocka_unit_test(test_versioned_never_clobbers),
        cmocka_unit_test(test_fallback_to_previous_owner),
        cmocka_unit_test(test_split_brain),
        cmocka_unit_test(test_split_brains_overlap),
        cmocka_unit_test(test_bounded_loads_spread_a_hot_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
