/*
 * Slot migration (migrate_slots) against its stated expectations, on a
 * slots cluster at steady state whose caches hold every key (so before the
 * rebalance every read hits), the same requests with and without each
 * setting (common random numbers):
 *  - three nodes give a quarter of the slots to a fourth one that joined
 *    holding none: no read misses because of the move (the hit rate stays
 *    at its baseline, 100%), reads of keys already moved are answered ASK
 *    while their slot migrates, and every cached key of a moved slot is
 *    migrated; the same rebalance as a ring change (the fourth node takes
 *    its slots as it joins) moves the same keys and dips;
 *  - clients that lag (central mode with a propagation delay, or a split
 *    brain) get MOVED for the slots handed over and still never miss; under
 *    a split brain with writes, MOVED keeps the frozen clients' reads and
 *    invalidations at the slots' owners, so the stale reads stay at the
 *    migration's own level, where the same ring change multiplies them;
 *  - with writes, invalidations of moved keys reach the target (ASK): the
 *    stale reads stay at the level of a run without any rebalance, also
 *    for one hot slot (a hash tag) migrating for 10 s, where without ASK
 *    they would be thousands;
 *  - `slots: N` takes the source's first N slots; a migration whose target
 *    crashes stops, and the next one cannot start either;
 *  - a set_routing that stays slots moves no key and keeps migrated slots;
 *  - central health: a readmitted node gets back the slots it held before
 *    its ejection (none if it held none), less those migrated away;
 *  - a slot the source loses mid-migration is skipped, not handed over;
 *  - a node that handed a slot over but is still one of its replicas
 *    serves it (no MOVED); with fencing: forward, a migrated slot is
 *    answered MOVED, not forwarded.
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

#define NOISE(x) (3 * sqrt((double)(x)) + 10)

/* 50,000 keys (3 a slot) under Zipf 0.9, 20,000 requests a second; at 20 s
 * D meets the cluster and A, B and C each give it a third of its share, at
 * 1,000 keys a second (12.5 s). An event placed at the run's end is never
 * applied: the variants below use it to leave an event out. */
static const char *cluster =
    "name: mig\nduration: 60s\ntick: 1s\n"
    "workload: {keys: 50000, popularity: zipf, zipf_s: 0.9, qps: 20000}\n"
    "routing: {algorithm: slots}\n"
    "nodes: [{id: A}, {id: B}, {id: C}]\n"
    "clients: {instances: 4}\nhealth: {mode: off}\n"
    "events:\n"
    "  - {at: 20s, add_node: {id: D, take_slots: false}}\n"
    "  - {at: 20s, migrate_slots: {from: A, to: D, slots: 1365, rate: 1000}}\n"
    "  - {at: 20s, migrate_slots: {from: B, to: D, slots: 1366, rate: 1000}}\n"
    "  - {at: 20s, migrate_slots: {from: C, to: D, slots: 1365, rate: 1000}}\n";

/* The same rebalance as a ring change: D takes its share as it joins (the
 * same slots: B's first 1366, A's and C's first 1365), no migration. */
static const char *const ring_change[] = {"events.0.add_node.take_slots=true",
                                          "events.1.at=60s", "events.2.at=60s",
                                          "events.3.at=60s", NULL};

/* When the last migration was done (s), or -1. */
static double migrations_done(const struct mem_run *m)
{
    double t = -1;
    for (size_t i = 0; i < m->n_events; i++)
        if (!strcmp(m->events[i].kind, "migrate_done"))
            t = m->events[i].t_s;
    return t;
}

static void test_migration_keeps_the_hits(void **state)
{
    (void)state;
    struct mem_run mig, ring;
    mem_run_yaml(&mig, cluster, NULL);
    mem_run_yaml(&ring, cluster, ring_change);
    double done = migrations_done(&mig);
    assert_int_equal(mem_count_events(&mig, "migrate_done"), 3);
    assert_true(done > 30 && done < 35);
    /* no read misses: the hit rate stays at its baseline, 100% */
    assert_true(mig.summary.baseline_hit_rate == 1.0);
    assert_true(mig.summary.min_hit_rate == 1.0);
    assert_int_equal(MEM_SUM(&mig, misses, 0, 60), 0);
    assert_true(mig.summary.peak_backend_qps == 0);
    /* reads of moved keys while their slot migrates: ASK, then the target */
    long long asks = MEM_SUM(&mig, ask_redirects, 20, ceil(done));
    assert_true(asks > 0);
    assert_int_equal(MEM_SUM(&mig, ask_redirects, 0, 60), asks);
    /* every cached key of the moved slots moves: all of them here */
    assert_int_equal(MEM_SUM(&mig, migrated_keys, 20, ceil(done)), mig.summary.keys_moved);
    assert_true(mig.summary.keys_moved > 12000 && mig.summary.keys_moved < 13000);
    /* nobody lags: MOVED only for a GET in flight at its slot's handover */
    assert_true(MEM_SUM(&mig, moved_redirects, 0, 60) <= 5);
    /* the same rebalance by a ring change moves the same keys, which miss */
    assert_int_equal(ring.summary.keys_moved, mig.summary.keys_moved);
    assert_true(ring.summary.min_hit_rate < 0.9);
    assert_true(MEM_SUM(&ring, misses, 20, 60) > 10000);
    assert_true(ring.summary.peak_backend_qps > 1000);
    assert_int_equal(MEM_SUM(&ring, migrated_keys, 0, 60), 0);
    assert_int_equal(MEM_SUM(&ring, ask_redirects, 0, 60), 0);
    mem_run_free(&mig);
    mem_run_free(&ring);
}

static void test_lagging_clients_get_moved(void **state)
{
    (void)state;
    struct mem_run central, split;
    const char *c[] = {"health.mode=central", "health.propagation_delay=500ms", NULL};
    mem_run_yaml(&central, cluster, c);
    /* instances 0 and 1 frozen on the epoch before the migrations */
    char *yaml = malloc(strlen(cluster) + 200);
    sprintf(yaml, "%s  - {at: 19s, split_brain: {instances: [0, 1], for: 30s}}\n", cluster);
    mem_run_yaml(&split, yaml, NULL);
    double done = migrations_done(&central);
    /* MOVED for the slots handed over, from the first handover on; no miss */
    assert_int_equal(MEM_SUM(&central, moved_redirects, 0, 20), 0);
    assert_true(MEM_SUM(&central, moved_redirects, 20, ceil(done) + 1) > 20);
    assert_int_equal(MEM_SUM(&central, misses, 0, 60), 0);
    assert_int_equal(MEM_SUM(&central, migrated_keys, 0, 60), central.summary.keys_moved);
    /* frozen instances: a MOVED for each of their operations on a moved key
     * (they do not adopt the epoch it names), about a quarter of half the
     * reads while frozen, and still no miss */
    long long moved = MEM_SUM(&split, moved_redirects, 20, 49);
    assert_true(moved > 20000);
    assert_int_equal(MEM_SUM(&split, misses, 0, 60), 0);
    assert_int_equal(MEM_SUM(&split, moved_redirects, 50, 60), 0); /* adopted at the end */
    free(yaml);
    mem_run_free(&central);
    mem_run_free(&split);
}

/* Writes invalidate: a moved key's invalidation reaches the target (ASK,
 * then MOVED once handed over), so a migration adds no stale reads; a
 * frozen client's invalidations are MOVED to the owner too. */
static void test_writes_reach_the_target(void **state)
{
    (void)state;
    const char *w[] = {"workload.write_ratio=0.05", NULL};
    const char *still[] = {"workload.write_ratio=0.05", "events.0.at=60s", "events.1.at=60s",
                           "events.2.at=60s", "events.3.at=60s", NULL};
    const char *ring_w[] = {"workload.write_ratio=0.05", "events.0.add_node.take_slots=true",
                            "events.1.at=60s", "events.2.at=60s", "events.3.at=60s", NULL};
    struct mem_run none, mig, split, ring_split;
    mem_run_yaml(&none, cluster, still);
    mem_run_yaml(&mig, cluster, w);
    char *yaml = malloc(strlen(cluster) + 200);
    sprintf(yaml, "%s  - {at: 19s, split_brain: {instances: [0, 1], for: 30s}}\n", cluster);
    mem_run_yaml(&split, yaml, w);
    mem_run_yaml(&ring_split, yaml, ring_w);
    long long base = none.summary.stale_reads;
    assert_true(fabs((double)(mig.summary.stale_reads - base)) <= NOISE(base));
    assert_true(MEM_SUM(&mig, ask_redirects, 20, 33) > 0);
    assert_true(fabs((double)(split.summary.stale_reads - base)) <= NOISE(base));
    assert_true(MEM_SUM(&split, moved_redirects, 20, 49) > 20000);
    /* the same rebalance as a ring change under the same split brain */
    assert_true(ring_split.summary.stale_reads > 20 * (base + 10));
    free(yaml);
    mem_run_free(&none);
    mem_run_free(&mig);
    mem_run_free(&split);
    mem_run_free(&ring_split);
}

/* One hot slot: 2,000 keys sharing a hash tag ({user}: slot 5474, B's) move
 * to D at 200 a second, nearly 10 s for the slot. Reads of the keys already
 * moved are answered ASK all along, and so are the invalidations of writes
 * to them, which reach D: the stale reads and misses stay at the level of
 * the same run without the migration. */
static const char *hot_slot =
    "name: hot-slot\nduration: 40s\ntick: 1s\n"
    "workload: {keys: 2000, key_format: \"{user}:%d\", qps: 10000, write_ratio: 0.05}\n"
    "routing: {algorithm: slots}\n"
    "nodes: [{id: A}, {id: B}, {id: C}]\n"
    "health: {mode: off}\n"
    "events:\n"
    "  - {at: 10s, add_node: {id: D, take_slots: false}}\n"
    "  - {at: 10s, migrate_slots: {from: B, to: D, slots: [5474, 5474], rate: 200}}\n";

static void test_hot_slot(void **state)
{
    (void)state;
    const char *still[] = {"events.0.at=40s", "events.1.at=40s", NULL};
    struct mem_run none, mig;
    mem_run_yaml(&none, hot_slot, still);
    mem_run_yaml(&mig, hot_slot, NULL);
    double done = migrations_done(&mig);
    assert_true(done > 15 && done < 20);
    assert_true(mig.summary.keys_moved == 2000);
    /* the keys still cached at B when their turn came: written keys were not */
    assert_true(MEM_SUM(&mig, migrated_keys, 10, 20) > 500);
    /* about half the slot's reads and writes while it migrates: ASK */
    assert_true(MEM_SUM(&mig, ask_redirects, 10, 20) > 30000);
    assert_true(fabs((double)(MEM_SUM(&mig, misses, 0, 40) - MEM_SUM(&none, misses, 0, 40)))
                <= NOISE(MEM_SUM(&none, misses, 0, 40)));
    assert_true(fabs((double)(mig.summary.stale_reads - none.summary.stale_reads))
                <= NOISE(none.summary.stale_reads));
    mem_run_free(&none);
    mem_run_free(&mig);
}

/* A hot key (30% of the requests) among the 9 keys of slot 1070 under
 * uniform popularity: the hottest by its share, it is copied first, so its
 * reads get ASK from then until the slot is handed over (2 keys a second:
 * about 4 s). Listed by id, as once, it came last: about 1 ASK in all. */
static void test_hot_key_moves_first(void **state)
{
    (void)state;
    const char *yaml =
        "name: ask\nseed: 2\nduration: 10s\ntick: 1s\n"
        "workload: {keys: 100000, key_format: \"u%06d\", popularity: uniform, qps: 10000}\n"
        "routing: {algorithm: slots}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "cache: {capacity_items: 1000000}\n"
        "health: {mode: off}\n"
        "events:\n"
        "  - {at: 1s, add_node: {id: D, take_slots: false}}\n"
        "  - {at: 2s, hot_key: {key: \"u005772\", share: 0.3}}\n"
        "  - {at: 3s, migrate_slots: {from: A, to: D, slots: [1070, 1070], rate: 2}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double done = migrations_done(&m);
    assert_true(done > 6.5 && done < 7.5);
    /* 3,000 reads a second of the hot key for about 4 s */
    long long asks = MEM_SUM(&m, ask_redirects, 3, 8);
    assert_true(asks > 9000 && asks < 13000);
    mem_run_free(&m);
}

static const struct mem_event *nth_event(const struct mem_run *m, const char *kind, int nth)
{
    for (size_t i = 0; i < m->n_events; i++)
        if (!strcmp(m->events[i].kind, kind) && nth-- == 0)
            return &m->events[i];
    fail_msg("no event %s", kind);
    return NULL;
}

static void test_slot_choice_and_stops(void **state)
{
    (void)state;
    struct mem_run m, crash;
    mem_run_yaml(&m, cluster, NULL);
    /* slots: N takes the source's first N slots, in order */
    assert_non_null(strstr(nth_event(&m, "migrate_start", 0)->detail,
                           "1365 slots (0..1364) to D"));
    assert_non_null(strstr(nth_event(&m, "migrate_start", 1)->detail,
                           "1366 slots (5461..6826) to D"));
    assert_non_null(strstr(nth_event(&m, "migrate_start", 2)->detail,
                           "1365 slots (10923..12287) to D"));
    assert_non_null(strstr(nth_event(&m, "migrate_done", 0)->detail, "1365 of 1365 slots moved"));
    /* the target crashes during the first migration: it stops, then the next two */
    char *yaml = malloc(strlen(cluster) + 200);
    sprintf(yaml, "%s  - {at: 21s, crash_node: {id: D}}\n", cluster);
    mem_run_yaml(&crash, yaml, NULL);
    assert_int_equal(crash.status, RUN_COMPLETE);
    assert_int_equal(mem_count_events(&crash, "migrate_cancel"), 3);
    assert_int_equal(mem_count_events(&crash, "migrate_done"), 0);
    assert_non_null(strstr(nth_event(&crash, "migrate_cancel", 0)->detail,
                           "stopped: the target is down"));
    assert_true(MEM_SUM(&crash, migrated_keys, 21, 60) == 0);
    free(yaml);
    mem_run_free(&m);
    mem_run_free(&crash);
}

/* The epoch event whose reason contains what, or NULL. */
static const struct mem_event *epoch_with(const struct mem_run *m, const char *what)
{
    for (size_t i = 0; i < m->n_events; i++)
        if (!strcmp(m->events[i].kind, "epoch") && strstr(m->events[i].detail, what))
            return &m->events[i];
    return NULL;
}

/* set_routing that stays slots (a new hash, vnodes, point format, node key,
 * or algorithm: slots again) keeps the slot table: no key moves, the slots
 * migrated to D stay D's — the loader accepts a later migration of them
 * from D, and the run does it — and a migration under way at the change
 * goes on from its list, skipping nothing. */
static const char *reroute =
    "name: reroute\nduration: 8s\ntick: 1s\n"
    "workload: {keys: 20000, qps: 2000}\n"
    "routing: {algorithm: slots}\n"
    "nodes: [{id: A}, {id: B}, {id: C}]\n"
    "health: {mode: off}\n"
    "events:\n"
    "  - {at: 1s, add_node: {id: D, take_slots: false}}\n"
    "  - {at: 1s, migrate_slots: {from: A, to: D, slots: 100, rate: 50}}\n"
    "  - {at: 2s, set_routing: {hash: xxh64, vnodes: 80, point_format: \"%s-%d\"}}\n"
    "  - {at: 3s, set_routing: {algorithm: slots, node_key: address}}\n"
    "  - {at: 7s, migrate_slots: {from: D, to: B, slots: [0, 9], rate: 100000}}\n";

static void test_set_routing_keeps_the_slots(void **state)
{
    (void)state;
    struct mem_run m;
    mem_run_yaml(&m, reroute, NULL);
    assert_int_equal(m.status, RUN_COMPLETE);
    const struct mem_event *e = epoch_with(&m, "set_routing hash=xxh64");
    assert_non_null(e);
    assert_non_null(strstr(e->detail, ", 0 keys moved"));
    e = epoch_with(&m, "set_routing algorithm=slots");
    assert_non_null(e);
    assert_non_null(strstr(e->detail, ", 0 keys moved"));
    assert_int_equal(mem_count_events(&m, "migrate_done"), 2);
    assert_non_null(strstr(nth_event(&m, "migrate_done", 0)->detail,
                           "100 of 100 slots moved to D"));
    assert_non_null(strstr(nth_event(&m, "migrate_done", 0)->detail, " 0 skipped"));
    assert_non_null(strstr(nth_event(&m, "migrate_done", 1)->detail,
                           "10 of 10 slots moved to B"));
    mem_run_free(&m);
}

/* Three nodes under slots with central health (a node that does not
 * answer in time is ejected after two probes, tried again 3 s later). */
#define CENTRAL_SLOTS                                                                      \
    "duration: 8s\ntick: 1s\n"                                                             \
    "workload: {keys: 20000, qps: 4000}\n"                                                  \
    "routing: {algorithm: slots}\n"                                                         \
    "nodes: [{id: A}, {id: B}, {id: C}]\n"                                                  \
    "health: {mode: central, probe_interval: 200ms, failure_limit: 2, retry_after: 3s}\n"   \
    "clients: {timeout: 10ms}\n"

/* C, too slow, is ejected at 2.21 s and readmitted at 5.4 s. */
static const char *ejection =
    "name: eject-slots\n" CENTRAL_SLOTS
    "events:\n"
    "  - {at: 2s, slow_node: {id: C, latency: 50ms, for: 2s}}\n";

/* The keys an epoch event says moved. */
static long long epoch_moved(const struct mem_event *e)
{
    const char *p = strstr(e->detail, " keys moved");
    assert_non_null(p);
    while (p > e->detail && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return atoll(p);
}

/* An ejection gives C's slots to A and B; the readmission gives back
 * exactly the slots C held (all 5,461: the same keys move back), not a
 * joiner's share taken from the lowest slots of the others. */
static void test_readmission_gives_the_slots_back(void **state)
{
    (void)state;
    struct mem_run m;
    mem_run_yaml(&m, ejection, NULL);
    assert_int_equal(mem_count_events(&m, "eject"), 1);
    assert_int_equal(mem_count_events(&m, "readmit"), 1);
    const struct mem_event *out = epoch_with(&m, "eject;");
    const struct mem_event *back = epoch_with(&m, "readmit");
    assert_non_null(out);
    assert_non_null(back);
    assert_non_null(strstr(back->detail, "5461 slots back to C"));
    assert_true(epoch_moved(out) > 6000);
    assert_int_equal(epoch_moved(back), epoch_moved(out));
    assert_int_equal(m.summary.keys_moved, 2 * epoch_moved(out));
    mem_run_free(&m);
}

/* A node that holds no slot (added with take_slots: false), crashed and
 * restarted, is ejected and readmitted holding none: no key moves, and it
 * receives no GET. */
static void test_readmission_of_a_node_without_slots(void **state)
{
    (void)state;
    const char *yaml =
        "name: eject-empty\n" CENTRAL_SLOTS
        "events:\n"
        "  - {at: 1s, add_node: {id: D, take_slots: false}}\n"
        "  - {at: 2s, crash_node: {id: D}}\n"
        "  - {at: 3s, restart_node: {id: D}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_int_equal(mem_count_events(&m, "readmit"), 1);
    assert_int_equal(m.summary.keys_moved, 0);
    assert_int_equal(mem_node_requests(&m, "D"), 0);
    mem_run_free(&m);
}

/* Slots migrated away while their node is out are not given back: C gives
 * B slots 16000..16383 (a migration), then is ejected; its other 5,077
 * slots go to A and B (A first, holding fewer, then in turns), and B's
 * first 5,845 slots, migrated to D meanwhile, include 383 of them. C gets
 * back the other 4,694, and D keeps what it was given. */
static void test_readmission_without_slots_migrated_away(void **state)
{
    (void)state;
    char *yaml = malloc(strlen(ejection) + 400);
    sprintf(yaml, "%s%s", ejection,
            "  - {at: 1s, migrate_slots: {from: C, to: B, slots: [16000, 16383], rate: 1e6}}\n"
            "  - {at: 3s, add_node: {id: D, take_slots: false}}\n"
            "  - {at: 3s, migrate_slots: {from: B, to: D, slots: 5845, rate: 1e6}}\n");
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_int_equal(mem_count_events(&m, "migrate_done"), 2);
    assert_non_null(strstr(nth_event(&m, "migrate_done", 1)->detail,
                           "5845 of 5845 slots moved to D"));
    const struct mem_event *back = epoch_with(&m, "readmit");
    assert_non_null(back);
    assert_non_null(strstr(back->detail, "4694 slots back to C"));
    free(yaml);
    mem_run_free(&m);
}

/* A slot the source loses while it migrates is skipped, not handed over:
 * E joins (taking its share) during a migration of A's first 3,000 slots
 * to D and takes A's slots 818..1364 — 818 is migrating then. The
 * migration skips all 547 of them: it never hands slot 818 to D from E. */
static void test_slot_lost_mid_migration_is_skipped(void **state)
{
    (void)state;
    const char *yaml = "name: lost-slot\nduration: 5s\ntick: 1s\n"
                       "workload: {keys: 20000, qps: 4000}\n"
                       "routing: {algorithm: slots}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n"
                       "health: {mode: off}\n"
                       "events:\n"
                       "  - {at: 1s, add_node: {id: D, take_slots: false}}\n"
                       "  - {at: 1s, migrate_slots: {from: A, to: D, slots: 3000, rate: 1000}}\n"
                       "  - {at: 2s, add_node: {id: E}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_int_equal(mem_count_events(&m, "migrate_done"), 1);
    const char *done = nth_event(&m, "migrate_done", 0)->detail;
    assert_non_null(strstr(done, "2453 of 3000 slots moved to D"));
    assert_non_null(strstr(done, "547 skipped"));
    assert_null(epoch_with(&m, "slot 818 to D"));
    mem_run_free(&m);
}

/* With two replicas a slot moved from A to D has replicas D and A (the
 * member after D, wrapping): A still serves it, so once every instance
 * has the migration's epochs no MOVED is answered — clients reading from
 * a random replica keep reading A without a redirect. */
static void test_moved_spares_a_replica(void **state)
{
    (void)state;
    const char *sets[] = {"routing.replicas=2", "routing.read_from=random", NULL};
    struct mem_run m;
    mem_run_yaml(&m, cluster, sets);
    double done = migrations_done(&m);
    assert_true(done > 30 && done < 36);
    assert_true(MEM_SUM(&m, migrated_keys, 20, ceil(done)) > 10000);
    assert_int_equal(MEM_SUM(&m, moved_redirects, ceil(done) + 1, 60), 0);
    assert_true(MEM_SUM(&m, moved_redirects, 0, 60) <= 5);
    mem_run_free(&m);
}

/* fencing: forward does not forward what a migration moved: a node that
 * handed a slot over answers MOVED for it (Redis nodes do not proxy), so
 * lagging clients (central mode, 500 ms to adopt an epoch) get about as
 * many MOVED replies as without fencing, counted in moved_redirects. */
static void test_forward_fencing_answers_moved(void **state)
{
    (void)state;
    const char *lag[] = {"health.mode=central", "health.propagation_delay=500ms", NULL};
    const char *fwd[] = {"health.mode=central", "health.propagation_delay=500ms",
                         "routing.fencing=forward", NULL};
    struct mem_run none, forward;
    mem_run_yaml(&none, cluster, lag);
    mem_run_yaml(&forward, cluster, fwd);
    long long m0 = MEM_SUM(&none, moved_redirects, 20, 40);
    long long m1 = MEM_SUM(&forward, moved_redirects, 20, 40);
    assert_true(m0 > 20);
    assert_true(m1 > m0 / 2);
    assert_true(MEM_SUM(&forward, redirects, 20, 40) >= m1);
    assert_int_equal(MEM_SUM(&forward, misses, 0, 60), 0);
    mem_run_free(&none);
    mem_run_free(&forward);
}

/* migrate_start names the slots' ranges: A's first 300 slots after its
 * slots 100..199 went to D are 0..99 and 200..399, two ranges. */
static void test_start_names_the_ranges(void **state)
{
    (void)state;
    const char *yaml =
        "name: ranges\nduration: 3s\ntick: 1s\n"
        "workload: {keys: 2000, qps: 1000}\n"
        "routing: {algorithm: slots}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "health: {mode: off}\n"
        "events:\n"
        "  - {at: 1s, add_node: {id: D, take_slots: false}}\n"
        "  - {at: 1s, migrate_slots: {from: A, to: D, slots: [100, 199], rate: 1e6}}\n"
        "  - {at: 2s, migrate_slots: {from: A, to: D, slots: 300, rate: 1e6}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_non_null(strstr(nth_event(&m, "migrate_start", 0)->detail, "100 slots (100..199) to D"));
    assert_non_null(
        strstr(nth_event(&m, "migrate_start", 1)->detail, "300 slots in 2 ranges, 0..399, to D"));
    mem_run_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_migration_keeps_the_hits),
        cmocka_unit_test(test_lagging_clients_get_moved),
        cmocka_unit_test(test_writes_reach_the_target),
        cmocka_unit_test(test_hot_slot),
        cmocka_unit_test(test_hot_key_moves_first),
        cmocka_unit_test(test_slot_choice_and_stops),
        cmocka_unit_test(test_set_routing_keeps_the_slots),
        cmocka_unit_test(test_readmission_gives_the_slots_back),
        cmocka_unit_test(test_readmission_of_a_node_without_slots),
        cmocka_unit_test(test_readmission_without_slots_migrated_away),
        cmocka_unit_test(test_slot_lost_mid_migration_is_skipped),
        cmocka_unit_test(test_moved_spares_a_replica),
        cmocka_unit_test(test_forward_fencing_answers_moved),
        cmocka_unit_test(test_start_names_the_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
