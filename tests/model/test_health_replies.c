/*
 * Replies on the wire at a crash: what a node sent before it crashed
 * reaches its client (the network carries it, not the node); what it had
 * not sent — a request on its way, queued or in service at the crash —
 * is lost, and fails at the timeout. The same rule for a central probe and
 * a client's GET. A reply "is sent" when the node has served the request
 * (a slow node's latency is on the way back); a crash at that very instant
 * comes first, and the reply is lost.
 *
 * The cluster: A and B, 40 ms of round trip (20 ms each way), timeout
 * 100 ms, failure_limit 1, a probe every second (rounds at 1 s, 2 s, ...).
 * The probe of the round at 2 s reaches B at 2.02 s, is served at 2.02002 s
 * (20 us, fixed; 1,000 GETs/s over 2 nodes leave B's queue empty then, and
 * with service_time 0 at 2.02 s exactly), and its reply is back at
 * 2.04002 s.
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

static const char *cluster = "name: wire\nduration: 6s\ntick: 1s\n"
                             "workload: {keys: 1000, qps: 1000}\n"
                             "nodes: [{id: A}, {id: B}]\n"
                             "cache: {rtt: 40ms, service_time: 20us, service_dist: fixed}\n"
                             "clients: {instances: 1, timeout: 100ms}\n"
                             "health: {mode: central, failure_limit: 1, retry_after: 60s, "
                             "probe_interval: 1s}\n"
                             "events: [{at: 5s, crash_node: {id: B}}]\n";

/* The times of node's events of kind (up to max), and how many there were. */
static size_t event_times(const struct mem_run *m, const char *kind, const char *node,
                          double *t, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_events; i++)
        if (!strcmp(m->events[i].kind, kind) && !strcmp(m->events[i].node, node)) {
            if (n < max)
                t[n] = m->events[i].t_s;
            n++;
        }
    return n;
}

/* Runs the cluster with sets (NULL-terminated "path=value") and fails
 * unless B's first ejection is at want s (1 ns of tolerance). */
static void check_eject(const char *const *sets, double want, const char *what)
{
    struct mem_run m;
    mem_run_yaml(&m, cluster, sets);
    double t[1];
    size_t n = event_times(&m, "eject", "B", t, 1);
    mem_run_free(&m);
    if (!n)
        fail_msg("%s: B never ejected, expected at %.9f s", what, want);
    if (fabs(t[0] - want) > 1e-9)
        fail_msg("%s: B ejected at %.9f s, expected %.9f s", what, t[0], want);
}

/* A crash after the probe's reply has left B (2.03 s: the reply is half
 * way) does not fail that probe: B answered it. The next round's probe,
 * at 3 s, finds B down and fails at its timeout: ejected at 3.1 s. The
 * reply was once judged by B's state when it arrived, and B ejected at
 * 2.1 s, a probe interval early. A crash before the probe reaches B
 * (2.01 s), or while it is served (2.02001 s), loses it: ejected at 2.1 s,
 * that probe's timeout. */
static void test_probe_reply_sent_before_a_crash_passes(void **state)
{
    (void)state;
    const char *after[] = {"events.0.at=2.03s", NULL};
    check_eject(after, 3.1, "crash after the reply left");
    const char *late[] = {"events.0.at=2.04s", NULL}; /* the reply arrives at 2.04002 s */
    check_eject(late, 3.1, "crash just before the reply arrives");
    const char *before[] = {"events.0.at=2.01s", NULL};
    check_eject(before, 2.1, "crash before the probe arrives");
    const char *serving[] = {"events.0.at=2.02001s", NULL};
    check_eject(serving, 2.1, "crash while the probe is served");
}

/* The instant the service ends: service_time 0, the probe is served, and
 * its reply sent, at 2.02 s. A crash at 2.02 s comes first (as for a GET):
 * the probe is lost, B ejected at 2.1 s; 1 ns later the reply was out:
 * ejected at 3.1 s. */
static void test_probe_crash_at_the_service_end_comes_first(void **state)
{
    (void)state;
    const char *tie[] = {"cache.service_time=0", "events.0.at=2.02s", NULL};
    check_eject(tie, 2.1, "crash at the service's end");
    const char *next[] = {"cache.service_time=0", "events.0.at=2.020000001s", NULL};
    check_eject(next, 3.1, "crash 1 ns after the service's end");
}

/* The same with arrival events (fencing: forward; no jitter, so the same
 * times): the probe is queued when it arrives, at 2.02 s. */
static void test_probe_reply_on_the_wire_arrival_mode(void **state)
{
    (void)state;
    const char *after[] = {"routing.fencing=forward", "events.0.at=2.03s", NULL};
    check_eject(after, 3.1, "arrival mode, crash after the reply left");
    const char *before[] = {"routing.fencing=forward", "events.0.at=2.01s", NULL};
    check_eject(before, 2.1, "arrival mode, crash before the probe arrives");
    const char *tie[] = {"routing.fencing=forward", "cache.service_time=0",
                         "events.0.at=2.02s", NULL};
    check_eject(tie, 2.1, "arrival mode, crash at the service's end");
}

/* A passing reply counts whatever became of the node, readmission
 * included: B crashed at 1.5 s is ejected at 2.1 s (retry_after 1 s),
 * restarts at 3.5 s and crashes again at 4.03 s, after answering the
 * probe of 4 s. That reply, back at 4.04002 s, readmits B; the probe of
 * 5 s finds it down and ejects it again at 5.1 s. The coordinator knows
 * only the replies. */
static void test_probe_reply_sent_before_a_crash_readmits(void **state)
{
    (void)state;
    const char *yaml = "name: wire\nduration: 6s\ntick: 1s\n"
                       "workload: {keys: 1000, qps: 1000}\n"
                       "nodes: [{id: A}, {id: B}]\n"
                       "cache: {rtt: 40ms, service_time: 20us, service_dist: fixed}\n"
                       "clients: {instances: 1, timeout: 100ms}\n"
                       "health: {mode: central, failure_limit: 1, retry_after: 1s, "
                       "probe_interval: 1s}\n"
                       "events:\n"
                       "  - {at: 1.5s, crash_node: {id: B}}\n"
                       "  - {at: 3.5s, restart_node: {id: B}}\n"
                       "  - {at: 4.03s, crash_node: {id: B}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double ej[3], re[3];
    size_t n_ej = event_times(&m, "eject", "B", ej, 3);
    size_t n_re = event_times(&m, "readmit", "B", re, 3);
    mem_run_free(&m);
    if (n_ej != 2 || n_re != 1)
        fail_msg("%zu ejections and %zu readmissions of B, expected 2 and 1", n_ej, n_re);
    CHECK_NEAR(ej[0], 2.1, 1e-9, "first ejection");
    CHECK_NEAR(re[0], 4.04002, 1e-9, "readmission by the reply sent before the crash");
    CHECK_NEAR(ej[1], 5.1, 1e-9, "second ejection");
}

/* A GET follows the same rule (client mode, service_time 0: a GET is
 * served as it arrives, 20 ms after it is sent). The last GET to B before
 * 2.0117 s is sent at 2.009791464 s and served at 2.029791464 s. A crash at
 * that instant loses it: its timeout ejects B at 2.109791464 s. A crash
 * 1 ns later finds its reply sent: a hit, and a success; B is ejected by
 * the next GET's timeout (sent at 2.011693726 s, it arrives after the
 * crash), at 2.111693726 s. */
static void test_get_reply_sent_before_a_crash_arrives(void **state)
{
    (void)state;
    const char *tie[] = {"health.mode=client", "cache.service_time=0",
                         "events.0.at=2.029791464s", NULL};
    check_eject(tie, 2.109791464, "GET served at the crash");
    const char *sent[] = {"health.mode=client", "cache.service_time=0",
                          "events.0.at=2.029791465s", NULL};
    check_eject(sent, 2.111693726, "GET served 1 ns before the crash");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_reply_sent_before_a_crash_passes),
        cmocka_unit_test(test_probe_crash_at_the_service_end_comes_first),
        cmocka_unit_test(test_probe_reply_on_the_wire_arrival_mode),
        cmocka_unit_test(test_probe_reply_sent_before_a_crash_readmits),
        cmocka_unit_test(test_get_reply_sent_before_a_crash_arrives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
