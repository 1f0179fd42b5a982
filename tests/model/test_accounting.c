/*
 * Accounting tests: reads, outcomes and errors add up, and the transition
 * after a ring change stays bounded.
 *
 *  - Every read has exactly one outcome: the run checks reads started ==
 *    hits + misses + reads still open at every tick (run_options.
 *    check_invariants, on in every model test); here also summed over a run
 *    where node queues overflow, under both on_timeout settings.
 *  - errors count failed operations once: with on_timeout: error and a
 *    database that never refuses, errors == timeouts + error replies in
 *    every tick; with on_timeout: db, no read fails at all.
 *  - A reply later than clients.timeout is never awaited: with a round
 *    trip longer than the timeout every GET times out, error replies and
 *    MOVED included, with network jitter or without; one at the deadline
 *    itself is in time, however messages are delivered.
 *  - The fallback to the previous owner is bounded: after fallback_window
 *    the stale overwrites of a 3 -> 4 join with 5% writes are those of the
 *    same join without fallback (common random numbers: the same requests),
 *    while without the window (the old behaviour) they go on.
 *  - A split key's copies are the key in the database: split on, off and on
 *    again with writes between, every traced hit older than the key's
 *    database version is counted stale, and no other; the request trace
 *    names the key asked, never a copy.
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

/* A node that can serve 10,000 GETs/s offered 20,000: half refused with an
 * error reply; a node slowed 50x at 5 s: timeouts. The database is large. */
static const char *overload =
    "name: overload\nduration: 10s\ntick: 1s\n"
    "workload: {keys: 20000, qps: 20000}\n"
    "nodes: [{id: A}, {id: B}]\n"
    "cache: {service_time: 80us, max_queue: 50}\n"
    "database: {workers: 4096, max_queue: 1000000, service_time: 1ms}\n"
    "clients: {timeout: 20ms}\n"
    "health: {mode: off}\n"
    "events: [{at: 5s, slow_node: {id: B, factor: 50}}]\n";

/* Fails the test unless every tick counts each failed read once: errors ==
 * timeouts + error replies (on_timeout: error). */
static void check_failures_counted_once(const struct mem_run *m)
{
    for (size_t i = 0; i < m->n_ticks; i++) {
        const struct tick_row *t = &m->ticks[i];
        if (t->errors != t->timeouts + t->cache_errors)
            fail_msg("tick %g: %lld errors, %lld timeouts + %lld error replies", t->t_s,
                     (long long)t->errors, (long long)t->timeouts, (long long)t->cache_errors);
    }
}

/* A node's items at the tick starting at t_s (0 when it has no row then). */
static long long node_items_at(const struct mem_run *m, const char *node, double t_s)
{
    for (size_t i = 0; i < m->n_nodes; i++)
        if (!strcmp(m->nodes[i].node, node) && m->nodes[i].t_s == t_s)
            return m->nodes[i].items;
    return 0;
}

static void test_errors_counted_once(void **state)
{
    (void)state;
    const char *err[] = {"clients.on_timeout=error", NULL};
    struct mem_run m;
    mem_run_yaml(&m, overload, err);
    long long replies = 0, timeouts = 0, errors = 0;
    check_failures_counted_once(&m); /* a timeout or an error reply, never both */
    for (size_t i = 0; i < m.n_ticks; i++) {
        const struct tick_row *t = &m.ticks[i];
        assert_true(t->hits + t->misses <= t->reads + 200); /* reads finish within the tick */
        replies += t->cache_errors;
        timeouts += t->timeouts;
        errors += t->errors;
    }
    assert_true(replies > 10000);  /* the subject is there: queues overflowed */
    assert_true(timeouts > 1000);  /* and the slow node timed out */
    assert_int_equal(m.summary.errors, errors);
    assert_int_equal(m.summary.timeouts, timeouts);
    long long reads = MEM_SUM(&m, reads, 0, 10), done = MEM_SUM(&m, hits, 0, 10) +
                                                      MEM_SUM(&m, misses, 0, 10);
    assert_true(done <= reads && reads - done < 500); /* the rest are open at the end */
    mem_run_free(&m);

    /* on_timeout: db — the same failures end in a database read: none fails */
    mem_run_yaml(&m, overload, NULL);
    assert_true(MEM_SUM(&m, cache_errors, 0, 10) > 10000);
    assert_true(MEM_SUM(&m, timeouts, 0, 10) > 1000);
    assert_int_equal(MEM_SUM(&m, errors, 0, 10), 0);
    assert_int_equal(m.summary.errors, 0);
    mem_run_free(&m);
}

/* A GET the client gave up on is still served where it went, while the
 * read goes on: to the database, or (with replicas) to another replica,
 * whose GET is then the current one. Such a GET once confused the two:
 * arriving late (network jitter) at a full queue, its refusal failed the
 * read a second time (an assertion, or a second database read); served at
 * the slow replica, it took its in-flight count off the replica the read
 * had moved to (an assertion). Each read still has one outcome, and each
 * failure one count. */
static const char *abandoned =
    "name: abandoned\nduration: 12s\ntick: 1s\n"
    "workload: {keys: 10000, qps: 5000}\n"
    "nodes: [{id: A}, {id: B}, {id: C}]\n"
    "cache: {max_queue: 20}\n"
    "clients: {timeout: 50ms}\n"
    "health: {mode: off}\n"
    "network: {jitter: 30ms}\n"
    "events: [{at: 4s, slow_node: {id: B, factor: 400, for: 6s}}]\n";

static void test_abandoned_gets(void **state)
{
    (void)state;
    const char *err[] = {"clients.on_timeout=error", NULL};
    struct mem_run m;
    mem_run_yaml(&m, abandoned, err);
    check_failures_counted_once(&m);
    assert_true(MEM_SUM(&m, timeouts, 4, 10) > 5000);   /* jitter and the slow node */
    assert_true(MEM_SUM(&m, cache_errors, 4, 10) > 100); /* B's queue full */
    mem_run_free(&m);

    /* replicas: the read moves to the other replica while B still holds the
     * first GET; the hit rate stays near the baseline, at the timeouts' price */
    const char *rep[] = {"routing.replicas=2", "network.jitter=0", "cache.max_queue=10000",
                         "clients.timeout=100ms", "events.0.slow_node.factor=50", NULL};
    mem_run_yaml(&m, abandoned, rep);
    assert_true(MEM_SUM(&m, timeouts, 4, 10) > 1000);
    double base = m.summary.baseline_hit_rate;
    for (size_t i = 0; i < m.n_ticks; i++)
        if (m.ticks[i].t_s >= 4 && m.ticks[i].t_s < 10)
            assert_true(m.ticks[i].hit_rate > base - 0.02);
    assert_int_equal(m.summary.errors, 0);
    mem_run_free(&m);
}

/* A round trip longer than the timeout: every reply reaches the client
 * after it gave up, so every GET is a timeout — the error replies of a full
 * queue and fencing's MOVED replies too, which were once awaited past the
 * timeout when messages are not delivered by arrival events (no jitter):
 * each read then ended 3 ms after it started (an error reply at 2 ms, the
 * database's 1 ms), or, after a MOVED, 4.5 ms (a second GET and its
 * timeout), where the client gives up at 1.5 ms and has its value at
 * 2.5 ms. */
static const char *late_replies =
    "name: late\nduration: 6s\ntick: 1s\n"
    "workload: {keys: 1000, qps: 4000}\n"
    "routing: {fencing: reject}\n"
    "nodes: [{id: A}, {id: B}]\n"
    "cache: {rtt: 2ms, service_time: 1ms, service_dist: fixed, max_queue: 1}\n"
    "database: {workers: 64, service_time: 1ms, service_dist: fixed}\n"
    "clients: {instances: 2, timeout: 1500us}\n"
    "health: {mode: off}\n"
    "events: [{at: 1s, split_brain: {instances: [0], for: 3s}},\n"
    "         {at: 2s, add_node: {id: C}}]\n";

static void test_replies_after_the_timeout(void **state)
{
    (void)state;
    const char *jitter[] = {"network.jitter=1ns", NULL};
    for (int j = 0; j < 2; j++) {
        struct mem_run m;
        mem_run_yaml(&m, late_replies, j ? jitter : NULL);
        assert_true(MEM_SUM(&m, reads, 0, 6) > 20000);
        assert_int_equal(MEM_SUM(&m, hits, 0, 6), 0);
        assert_int_equal(MEM_SUM(&m, cache_errors, 0, 6), 0);
        /* the queues were full, and instance 0 behind: the nodes answered */
        long long refused = 0;
        for (size_t i = 0; i < m.n_nodes; i++)
            refused += m.nodes[i].rejects;
        assert_true(refused > 5000);
        assert_true(MEM_SUM(&m, redirects, 0, 6) > 500); /* MOVED, too late */
        assert_int_equal(MEM_SUM(&m, timeouts, 0, 6), MEM_SUM(&m, misses, 0, 6));
        assert_int_equal(m.summary.errors, 0);
        for (size_t i = 0; i < m.n_ticks; i++)
            CHECK_NEAR(m.ticks[i].client_mean_ms, 2.5, 1e-9, "tick %zu's mean latency", i);
        mem_run_free(&m);
    }
}

/* A reply that reaches the client at the deadline itself (rtt 1 ms, 0.5 ms
 * of service, a 1.5 ms timeout) is in time: only a later one is a timeout.
 * With fencing: forward messages are delivered by arrival events, and the
 * timeout, scheduled when the GET left, once went first at that instant:
 * every read a timeout where with fencing: none every one was a hit. Hits,
 * misses (their reply's own event), a service ending at the deadline
 * itself (rtt 0) and error replies (rtt 1.5 ms, full queues) alike. */
static const char *at_deadline =
    "name: deadline\nduration: 3s\ntick: 1s\n"
    "workload: {keys: 100, qps: 400}\n"
    "nodes: [{id: A}]\n"
    "cache: {rtt: 1ms, service_time: 500us, service_dist: fixed, workers: 64}\n"
    "clients: {instances: 2, timeout: 1500us}\n"
    "health: {mode: off}\n";

static void test_replies_at_the_deadline(void **state)
{
    (void)state;
    const char *fencing[] = {"none", "forward", "reject"};
    long long full_timeouts = -1; /* the full queue's case under fencing none */
    for (int f = 0; f < 3; f++) {
        char fence[64];
        snprintf(fence, sizeof fence, "routing.fencing=%s", fencing[f]);
        const char *hit[] = {fence, NULL};
        const char *miss[] = {fence, "cache.capacity_items=1", "cache.prewarm=false", NULL};
        const char *rtt0[] = {fence, "cache.rtt=0", "clients.timeout=500us",
                              "cache.capacity_items=1", "cache.prewarm=false", NULL};
        const char *full[] = {fence, "cache.rtt=1500us", "cache.workers=1",
                              "cache.max_queue=1", "workload.qps=5000", NULL};
        const char *const *sets[] = {hit, miss, rtt0, full};
        for (int k = 0; k < 4; k++) {
            struct mem_run m;
            mem_run_yaml(&m, at_deadline, sets[k]);
            long long reads = MEM_SUM(&m, reads, 0, 3);
            assert_true(reads > 1000);
            long long timeouts = MEM_SUM(&m, timeouts, 0, 3);
            if (k == 3) { /* the GETs admitted queue past the deadline: those time out */
                assert_true(MEM_SUM(&m, cache_errors, 0, 3) > reads / 2);
                if (full_timeouts < 0)
                    full_timeouts = timeouts;
                timeouts -= full_timeouts;
            }
            if (timeouts != 0)
                fail_msg("fencing %s, case %d: %lld timeouts more than expected", fencing[f], k,
                         timeouts);
            if (k == 0)
                assert_true(MEM_SUM(&m, hits, 0, 3) > reads - 10);
            mem_run_free(&m);
        }
    }
}

/* A 3 -> 4 join at 20 s with 5% writes, 200 s. */
static const char *join =
    "name: join\nduration: 200s\ntick: 1s\n"
    "workload: {keys: 100000, qps: 10000, write_ratio: 0.05}\n"
    "routing: {vnodes: 256}\n"
    "nodes: [{id: A}, {id: B}, {id: C}]\n"
    "health: {mode: off}\n"
    "events: [{at: 20s, add_node: {id: D}}]\n";

static void test_fallback_window_is_bounded(void **state)
{
    (void)state;
    struct mem_run none, bounded, endless;
    mem_run_yaml(&none, join, NULL);
    const char *b[] = {"clients.fallback_to_previous_owner=true", NULL}; /* window 60 s */
    mem_run_yaml(&bounded, join, b);
    const char *e[] = {"clients.fallback_to_previous_owner=true", "clients.fallback_window=1h",
                       "clients.invalidate_previous_owner=false", NULL};
    mem_run_yaml(&endless, join, e);

    /* the benefit: the new owner is warmed from the old owners */
    assert_true(none.summary.min_hit_rate < 0.8);
    assert_true(bounded.summary.min_hit_rate > 0.9);
    assert_true(MEM_SUM(&bounded, fallback_reads, 20, 80) > 10000);
    /* the window closes: no fallback read after 20 s + 60 s */
    assert_int_equal(MEM_SUM(&bounded, fallback_reads, 81, 200), 0);

    /* after the window, stale overwrites and stale reads are the baseline's
     * (within noise: sqrt of the count plus a few) */
    long long base_ow = MEM_SUM(&none, stale_overwrites, 81, 200);
    long long ow = MEM_SUM(&bounded, stale_overwrites, 81, 200);
    assert_true(fabs((double)(ow - base_ow)) <= 3 * sqrt((double)base_ow) + 5);
    long long base_sr = MEM_SUM(&none, stale_reads, 81, 200);
    long long sr = MEM_SUM(&bounded, stale_reads, 81, 200);
    assert_true(fabs((double)(sr - base_sr)) <= 3 * sqrt((double)base_sr) + 5);
    /* in the window, writes invalidate the previous owner: its copies stay fresh */
    assert_true(MEM_SUM(&bounded, stale_overwrites, 20, 81)
                <= MEM_SUM(&none, stale_overwrites, 20, 81) + 5);

    /* the disease it cures: fallback for ever, the old owners' copies stale */
    assert_true(MEM_SUM(&endless, stale_overwrites, 81, 200) > 10 * (base_ow + 10));
    assert_true(MEM_SUM(&endless, stale_reads, 81, 200) > 10 * (base_sr + 10));
    mem_run_free(&none);
    mem_run_free(&bounded);
    mem_run_free(&endless);
}

/* The fallback asks a previous owner that can answer: never one that has
 * left the cluster (the epoch the instance adopted says so; it once asked
 * the removed node and waited for a timeout on every miss of the window:
 * hit rate 0.76 for 60 s, 480 timeouts a second); and a previous owner
 * that does not answer (crashed, still a member) costs a timeout, after
 * which the read is the owner's miss: the database, and the owner filled
 * (it once went the way of a failed read, unfilled: the new node held
 * 1,351 items after 29 s instead of 2,467). */
static void test_fallback_to_a_node_that_answers(void **state)
{
    (void)state;
    const char *removed = "name: fb\nduration: 30s\ntick: 1s\n"
                          "workload: {keys: 10000, qps: 2000}\n"
                          "clients: {instances: 2, fallback_to_previous_owner: true}\n"
                          "health: {mode: off}\n"
                          "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
                          "events: [{at: 10s, remove_node: {id: D}}]\n";
    const char *plain[] = {"clients.fallback_to_previous_owner=false", NULL};
    struct mem_run f, p;
    mem_run_yaml(&f, removed, NULL);
    mem_run_yaml(&p, removed, plain);
    /* the same refill as without the fallback, nothing asked of D */
    assert_true(MEM_SUM(&f, timeouts, 10, 30) < 50); /* GETs already on their way at 10 s */
    assert_int_equal(MEM_SUM(&f, fallback_reads, 0, 30), 0);
    double hf = (double)MEM_SUM(&f, hits, 12, 30) / (double)MEM_SUM(&f, reads, 12, 30);
    double hp = (double)MEM_SUM(&p, hits, 12, 30) / (double)MEM_SUM(&p, reads, 12, 30);
    CHECK_NEAR(hf, hp, 0.01, "hit rate after the removal, with and without fallback");
    mem_run_free(&f);
    mem_run_free(&p);

    const char *crashed = "name: fb\nduration: 40s\ntick: 1s\n"
                          "workload: {keys: 10000, qps: 2000}\n"
                          "clients: {instances: 2, fallback_to_previous_owner: true}\n"
                          "health: {mode: off}\n"
                          "nodes: [{id: A}, {id: B}, {id: C}]\n"
                          "events: [{at: 10s, add_node: {id: D}}, {at: 10s, crash_node: {id: C}}]\n";
    mem_run_yaml(&f, crashed, NULL);
    mem_run_yaml(&p, crashed, plain);
    long long df = node_items_at(&f, "D", 39), dp = node_items_at(&p, "D", 39); /* last tick */
    assert_true(dp > 2000);
    CHECK_NEAR((double)df, (double)dp, 0.03 * (double)dp, "D filled with and without fallback");
    assert_true(MEM_SUM(&f, fallback_reads, 10, 40) > 1000); /* from A and B: hits */
    mem_run_free(&f);
    mem_run_free(&p);
}

/* The traced hits (sample_requests: 1) older than the database's version of
 * the key asked, and the stale reads counted; rows naming a copy, and node
 * hits of the split key at a node other than its owner. */
static int stale_row(void *ctx, const struct request_row *r)
{
    long long *n = ctx;
    n[0] += !strcmp(r->outcome, "hit") && r->version_seen < r->db_version;
    n[2] += strchr(r->key, '#') != NULL;
    n[3] += !strcmp(r->key, "key-000007") && !strcmp(r->source, "node") && r->owner
            && strcmp(r->owner, r->node);
    return 0;
}

static int stale_tick(void *ctx, const struct tick_row *r)
{
    ((long long *)ctx)[1] += r->stale_reads;
    return 0;
}

/* A key split from 2 s to 6 s and again from 10 s, written while unsplit:
 * its copies kept their versions of 6 s, so from 10 s, until its next
 * write, their cached values (older than the key) were served as fresh and
 * a copy read from the database came at the old version: 112 stale reads
 * counted of the 309 hits the trace shows older than the key. */
static void test_split_copies_follow_the_key(void **state)
{
    (void)state;
    const char *yaml =
        "name: split-versions\nduration: 14s\ntick: 1s\n"
        "workload: {keys: 1000, qps: 2000, write_ratio: 0.002}\n"
        "health: {mode: off}\noutput: {sample_requests: 1}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
        "events:\n"
        "  - {at: 2s, hot_key: {key: key-000007, share: 0.2, split: 4, for: 4s}}\n"
        "  - {at: 6s, hot_key: {key: key-000007, share: 0.2, for: 4s}}\n"
        "  - {at: 10s, hot_key: {key: key-000007, share: 0.2, split: 4, for: 4s}}\n";
    long long n[4] = {0};
    struct sink sink = {.ctx = n, .request = stale_row, .tick = stale_tick};
    assert_int_equal(sink_run_yaml(yaml, NULL, &sink, false, NULL, NULL, 0), RUN_COMPLETE);
    assert_true(n[0] > 200);
    assert_int_equal(n[1], n[0]);
    /* the trace names the key asked; a read of a copy on another node than
     * the key's owner says so in `node` (output/README.md) */
    assert_int_equal(n[2], 0);
    assert_true(n[3] > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors_counted_once),
        cmocka_unit_test(test_abandoned_gets),
        cmocka_unit_test(test_replies_after_the_timeout),
        cmocka_unit_test(test_replies_at_the_deadline),
        cmocka_unit_test(test_fallback_to_a_node_that_answers),
        cmocka_unit_test(test_fallback_window_is_bounded),
        cmocka_unit_test(test_split_copies_follow_the_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
