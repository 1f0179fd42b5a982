/*
 * The two ways a message reaches a node (models/net.h) give the same run.
 * Direct delivery admits a message into the node's queue when it is sent,
 * arrival delivery (here routing.fencing: forward, with no epoch ever
 * published, so that nothing is fenced) when it arrives; either way the
 * node's state is the one it has when the message arrives. Around a change
 * of that state — a slowness beginning or ending, a crash, a restart — the
 * messages sent within rtt/2 before it arrive after it: a direct run holds
 * them until the change has happened. Before it did, a GET sent to a
 * crashed node in the 20 ms before its restart was lost (a timeout) where
 * an arrival run served it, a GET sent just before a slowness was served at
 * the old speed, and a probe sent just before a restart failed.
 *
 * Every tick's counts and measures are compared exactly. The node's own
 * rows are not: a direct run counts a GET in the node's tick when it is
 * sent, an arrival run when it arrives.
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

/* Two nodes 40 ms of round trip away (20 ms each way); B slow (30 times the
 * service time) from 1 s to 2 s, down from 3 s to 3.5 s. 10% writes: their
 * invalidations and the fills are messages too. */
static const char *cluster = "name: delivery\nseed: 3\nduration: 4s\ntick: 1s\n"
                             "workload: {keys: 2000, qps: 5000, write_ratio: 0.1}\n"
                             "nodes: [{id: A}, {id: B}]\n"
                             "cache: {rtt: 40ms, service_time: 100us, workers: 2}\n"
                             "clients: {timeout: 100ms}\n"
                             "health: {mode: off}\n"
                             "events:\n"
                             "  - {at: 1s, slow_node: {id: B, factor: 30, for: 1s}}\n"
                             "  - {at: 3s, crash_node: {id: B}}\n"
                             "  - {at: 3.5s, restart_node: {id: B}}\n";

#define SAME_I(name)                                                                        \
    if (a->name != b->name)                                                                 \
        fail_msg("%s: tick %g: %s %lld direct, %lld on arrival", what, a->t_s, #name,       \
                 (long long)a->name, (long long)b->name);
#define SAME_R(name)                                                                        \
    if (memcmp(&a->name, &b->name, sizeof(double)))                                         \
        fail_msg("%s: tick %g: %s %.17g direct, %.17g on arrival", what, a->t_s, #name,     \
                 a->name, b->name);
#define SAME_T(name)
#define SAME_FIELD(name, type, doc) SAME_##type(name)

/* Runs the cluster with sets (NULL-terminated) in both modes; fails unless
 * every tick row is the same. */
static void check_same_ticks(const char *const *sets, const char *what)
{
    const char *fwd[8];
    size_t n = 0;
    for (; sets && sets[n]; n++)
        fwd[n] = sets[n];
    fwd[n++] = "routing.fencing=forward";
    fwd[n] = NULL;
    struct mem_run d, f;
    mem_run_yaml(&d, cluster, sets);
    mem_run_yaml(&f, cluster, fwd);
    assert_int_equal(d.n_ticks, f.n_ticks);
    for (size_t i = 0; i < d.n_ticks; i++) {
        const struct tick_row *a = &d.ticks[i], *b = &f.ticks[i];
        TICK_FIELDS(SAME_FIELD)
    }
    mem_run_free(&d);
    mem_run_free(&f);
}

/* The slowness, the crash and the restart as written; then with the
 * restart earlier and later within a tick, and the crash's messages in
 * flight at 2.99 s. */
static void test_same_run_around_slowness_crash_and_restart(void **state)
{
    (void)state;
    check_same_ticks(NULL, "as written");
    const char *early[] = {"events.2.at=3.021s", NULL};
    check_same_ticks(early, "restart 21 ms after the crash");
    const char *late[] = {"events.1.at=2.99s", "events.2.at=3.999s", NULL};
    check_same_ticks(late, "crash at 2.99 s, restart at 3.999 s");
}

/* A client that gives up before its GET arrives (timeout 30 ms, 45 ms each
 * way): a GET sent just before a change waits for it like any message —
 * the fills and invalidations sent after it must not pass it in the
 * queue — and its timeout comes at its deadline, before the change. */
static void test_same_run_when_the_timeout_is_shorter_than_the_way(void **state)
{
    (void)state;
    const char *shorter[] = {"cache.rtt=90ms", "clients.timeout=30ms", NULL};
    check_same_ticks(shorter, "timeout 30 ms, rtt 90 ms");
    const char *restart[] = {"cache.rtt=90ms", "clients.timeout=30ms", "events.2.at=3.02s",
                             "clients.on_timeout=error", NULL};
    check_same_ticks(restart, "timeout 30 ms, rtt 90 ms, restart 20 ms after the crash");
}

/* A probe round every 100 ms sends probes at the very instants of the
 * changes (1 s, 2 s, 3 s, 3.5 s), scheduled before the changes' own
 * events are handled; they arrive after them. The coordinator never
 * ejects (failure_limit), so the clients' routing stays the same. */
static void test_same_run_with_probes_at_the_changes(void **state)
{
    (void)state;
    const char *probes[] = {"health.mode=central", "health.failure_limit=1000000",
                            "health.probe_interval=100ms", NULL};
    check_same_ticks(probes, "probes every 100 ms");
}

/* A probe sent while the node is down, arriving after its restart, is
 * served and passes. B (failure_limit 1, retry_after 500 ms) crashes at
 * 1.5 s; the probe of 2 s fails at its timeout and ejects B at 2.1 s; B
 * restarts at 3.01 s; the probe of 3 s reaches it at 3.02 s, is served in
 * 20 us, and its reply, back at 3.04002 s, readmits B — in both modes. A
 * direct run used to lose that probe and readmit B only at 4.04002 s. */
static void test_probe_sent_while_down_passes_after_the_restart(void **state)
{
    (void)state;
    static const char *yaml = "name: wire\nduration: 6s\ntick: 1s\n"
                              "workload: {keys: 1000, qps: 1000}\n"
                              "nodes: [{id: A}, {id: B}]\n"
                              "cache: {rtt: 40ms, service_time: 20us, service_dist: fixed}\n"
                              "clients: {instances: 1, timeout: 100ms}\n"
                              "health: {mode: central, failure_limit: 1, retry_after: 500ms, "
                              "probe_interval: 1s}\n"
                              "events:\n"
                              "  - {at: 1.5s, crash_node: {id: B}}\n"
                              "  - {at: 3.01s, restart_node: {id: B}}\n";
    const char *modes[][2] = {{NULL, NULL}, {"routing.fencing=forward", NULL}};
    for (size_t k = 0; k < 2; k++) {
        struct mem_run m;
        mem_run_yaml(&m, yaml, modes[k]);
        double readmit = -1, eject = -1;
        for (size_t i = 0; i < m.n_events; i++) {
            if (!strcmp(m.events[i].kind, "readmit") && readmit < 0)
                readmit = m.events[i].t_s;
            if (!strcmp(m.events[i].kind, "eject") && eject < 0)
                eject = m.events[i].t_s;
        }
        mem_run_free(&m);
        CHECK_NEAR(eject, 2.1, 1e-9, "%s: ejection", k ? "arrival" : "direct");
        CHECK_NEAR(readmit, 3.04002, 1e-9, "%s: readmission", k ? "arrival" : "direct");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_run_around_slowness_crash_and_restart),
        cmocka_unit_test(test_same_run_when_the_timeout_is_shorter_than_the_way),
        cmocka_unit_test(test_same_run_with_probes_at_the_changes),
        cmocka_unit_test(test_probe_sent_while_down_passes_after_the_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
