/*
 * Transitions and their cures: the incidents of scenarios/incidents/ that
 * show a ring change going wrong (the disease) and the setting that stops it
 * (the cure), run on the same scenario and seed so both see the same
 * requests. Each test runs the scenario file, shortened with --set where
 * that leaves the checked figures alone, and checks the figures its comment
 * states; every tolerance is written where it is asserted, with the spread
 * over the seeds it was chosen on.
 *
 * Sampling noise, for choosing tolerances: a tick's hit rate over n reads
 * has a standard deviation of at most sqrt(0.25/n) (0.005 at 10,000 reads);
 * a count of rare events k, about sqrt(k).
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

/* ---- helpers ------------------------------------------------------------------------ */

/* The time of the first event of a kind, or -1. */
static double event_time(const struct mem_run *m, const char *kind)
{
    for (size_t i = 0; i < m->n_events; i++)
        if (!strcmp(m->events[i].kind, kind))
            return m->events[i].t_s;
    return -1;
}

/* The largest value of an integer tick column over the run. */
static long long tick_max(const struct mem_run *m, size_t offset)
{
    long long most = 0;
    for (size_t i = 0; i < m->n_ticks; i++) {
        int64_t v;
        memcpy(&v, (const char *)&m->ticks[i] + offset, sizeof v);
        if (v > most)
            most = v;
    }
    return most;
}
#define TICK_MAX(m, field) tick_max(m, offsetof(struct tick_row, field))

/* ---- the copier's rate holds when the database refuses ---------------------------------- */

/* A staged join warming from a database of 5,000 reads/s at 8,000 keys/s:
 * the database refuses what its queue cannot hold, and each refused key is
 * skipped — but it takes its turn at `rate`. (The copier once skipped a
 * refused key without spending time on it: once the queue was full it ran
 * through the rest of its list at once, 19,303 requests in one instant, and
 * the node joined 0.7 s after the event with 14% of its keys.) */
static void test_warm_from_db_keeps_its_rate(void **state)
{
    (void)state;
    const char *yaml =
        "name: warm-db\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 100000, qps: 10000}\n"
        "routing: {vnodes: 512}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "database: {workers: 10, service_time: 2ms}\n"
        "events: [{at: 5s, add_node: {id: D, warm: {rate: 8000, source: db}}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    long long listed = 0;
    for (size_t i = 0; i < m.n_events; i++)
        if (!strcmp(m.events[i].kind, "warm_start"))
            listed = atoll(m.events[i].detail);
    assert_true(listed > 20000); /* every key D will own is cached at A, B or C */
    /* every listed key is tried once, read or refused, at 8,000 a second */
    long long tried = SUM(&m, warm_db_reads, 0, 20) + SUM(&m, db_rejects, 0, 20);
    CHECK_NEAR(tried, listed, 0.01 * listed, "keys tried");
    CHECK_NEAR(event_time(&m, "warm_done"), 5 + listed / 8000.0, 0.1, "warm_done");
    /* refused: what passes the database's 5,000 a second, about 3,000 a second */
    assert_true(TICK_MAX(&m, db_rejects) < 3500);
    assert_true(SUM(&m, db_rejects, 0, 20) > 5000);
    mem_run_free(&m);
}

/* ---- a fenced invalidation deletes the previous owner's copy ----------------------------- */

/* Two of four instances frozen on the old ring while D joins; the others
 * fall back to the keys' previous owners; fencing on. A frozen writer's
 * invalidation reaches the previous owner, which answers MOVED (it no
 * longer owns the key) — and deletes its own copy too, which fallback reads
 * would otherwise copy, stale, into D. (Before it did, this run had about
 * 1,000 stale overwrites and 20,000 stale reads in the split, against 0-3
 * and about 10 without the split.) */
static void test_fenced_invalidation_deletes_the_copy(void **state)
{
    (void)state;
    const char *yaml =
        "name: fenced-delete\nduration: 40s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 20000, write_ratio: 0.05}\n"
        "routing: {vnodes: 256, fencing: reject}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "clients: {instances: 4, fallback_to_previous_owner: true}\n"
        "health: {mode: off}\n"
        "events:\n"
        "  - {at: 10s, split_brain: {instances: [0, 1], for: 30s}}\n"
        "  - {at: 12s, add_node: {id: D}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    /* the subject is there: the frozen instances are redirected, the others
     * fall back to previous owners */
    assert_true(SUM(&m, redirects, 12, 40) > 30000);
    assert_true(SUM(&m, fallback_reads, 12, 40) > 1000);
    /* seeds 1-5: 0-1 stale overwrites and 2-8 stale reads */
    assert_true(SUM(&m, stale_overwrites, 12, 40) <= 10);
    assert_true(SUM(&m, stale_reads, 12, 40) <= 50);
    mem_run_free(&m);
}

/* ---- a crashed node answers nothing, MOVED included --------------------------------------- */

/* Central health with a 10 s propagation delay: D crashes, the coordinator
 * ejects it (a new epoch), and the instances still on the old epoch keep
 * sending D's keys to D, where they time out until they adopt. With fencing
 * the same: a crashed node cannot answer MOVED. (It once did, and the first
 * MOVED made each instance adopt the new epoch at once: 5,019 timeouts
 * instead of 45,652.) */
static void test_crashed_node_does_not_fence(void **state)
{
    (void)state;
    const char *yaml =
        "name: crash-fence\nduration: 30s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 20000}\n"
        "routing: {vnodes: 256}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
        "clients: {instances: 4, timeout: 50ms}\n"
        "health: {mode: central, probe_interval: 1s, failure_limit: 2, propagation_delay: 10s}\n"
        "events: [{at: 10s, crash_node: {id: D}}]\n";
    struct mem_run none, fenced;
    mem_run_yaml(&none, yaml, NULL);
    const char *sets[] = {"routing.fencing=reject", NULL};
    mem_run_yaml(&fenced, yaml, sets);
    assert_true(none.summary.timeouts > 20000); /* the subject: late adoptions time out */
    assert_int_equal(SUM(&fenced, redirects, 0, 30), 0);
    assert_int_equal(fenced.summary.timeouts, none.summary.timeouts);
    assert_int_equal(SUM(&fenced, hits, 0, 30), SUM(&none, hits, 0, 30));
    mem_run_free(&none);
    mem_run_free(&fenced);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warm_from_db_keeps_its_rate),
        cmocka_unit_test(test_fenced_invalidation_deletes_the_copy),
        cmocka_unit_test(test_crashed_node_does_not_fence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
