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
 * Every tick's counts and measures are compared exactly, the nodes' rows
 * (node_ticks) too: a node counts a GET, a set or a refusal in the tick it
 * arrives in, with either delivery, and the way of a message may cross
 * several ticks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

/* Runs yaml with sets (NULL-terminated) in both modes; fails unless every
 * tick row is the same. */
static void check_same_ticks_of(const char *yaml, const char *const *sets, const char *what)
{
    const char *fwd[8];
    size_t n = 0;
    for (; sets && sets[n]; n++)
        fwd[n] = sets[n];
    fwd[n++] = "routing.fencing=forward";
    fwd[n] = NULL;
    struct mem_run d, f;
    mem_run_yaml(&d, yaml, sets);
    mem_run_yaml(&f, yaml, fwd);
    assert_int_equal(d.n_ticks, f.n_ticks);
    for (size_t i = 0; i < d.n_ticks; i++) {
        const struct tick_row *a = &d.ticks[i], *b = &f.ticks[i];
        TICK_FIELDS(SAME_FIELD)
    }
    assert_int_equal(d.n_nodes, f.n_nodes);
    for (size_t i = 0; i < d.n_nodes; i++) {
        const struct node_tick_row *a = &d.nodes[i], *b = &f.nodes[i];
        if (strcmp(a->node, b->node) || strcmp(a->state, b->state))
            fail_msg("%s: tick %g: node %s %s direct, %s %s on arrival", what, a->t_s, a->node,
                     a->state, b->node, b->state);
        NODE_TICK_FIELDS(SAME_FIELD)
    }
    mem_run_free(&d);
    mem_run_free(&f);
}

static void check_same_ticks(const char *const *sets, const char *what)
{
    check_same_ticks_of(cluster, sets, what);
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

/* Ticks of 20 ms and 65 ms each way: a message sent in one tick arrives
 * three or four ticks later; the last ones sent arrive after the run. */
static void test_same_run_when_the_way_crosses_ticks(void **state)
{
    (void)state;
    const char *ticks[] = {"tick=20ms", "cache.rtt=130ms", "clients.timeout=300ms", NULL};
    check_same_ticks(ticks, "ticks of 20 ms, 65 ms each way");
    const char *odd[] = {"tick=30ms", "duration=3.99s", "cache.rtt=61ms", NULL};
    check_same_ticks(odd, "ticks of 30 ms, a short last tick, 30.5 ms each way");
}

/* ---- fencing is decided when the message arrives ------------------------------------ */

/* D joins at 2 s (epoch 2), and every instance adopts it then. A GET sent
 * just before, with epoch 1, arrives after it: the node knows epoch 2 once
 * it is fence_delay old, and answers MOVED if the key is D's. So the GETs
 * redirected are those sent in [2 s - (rtt/2 - fence_delay), 2 s) for D's
 * keys: qps x that long x D's share of the keys (uniform popularity, no
 * writes). With fence_delay longer than rtt/2 none is: the node learns of
 * the epoch after every GET sent with the old one has arrived. (Direct
 * delivery used to decide when the GET was sent, with epoch 2 not yet
 * published: no GET was ever redirected.) Poisson counts: 4 standard
 * deviations. */
static void test_fencing_decided_on_arrival(void **state)
{
    (void)state;
    static const char *yaml = "name: fence-way\nduration: 4s\ntick: 1s\n"
                              "workload: {keys: 20000, qps: 20000, popularity: uniform}\n"
                              "routing: {vnodes: 256, fencing: reject}\n"
                              "nodes: [{id: A}, {id: B}, {id: C}]\n"
                              "cache: {rtt: 100ms}\n"
                              "health: {mode: off}\n"
                              "events: [{at: 2s, add_node: {id: D}}]\n";
    const struct {
        const char *delay;
        double way_s; /* rtt/2 - fence_delay, or 0 */
    } cases[] = {{"routing.fence_delay=0s", 0.05}, {"routing.fence_delay=20ms", 0.03},
                 {"routing.fence_delay=50ms", 0}, {"routing.fence_delay=80ms", 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *sets[] = {cases[k].delay, NULL};
        struct mem_run m;
        mem_run_yaml(&m, yaml, sets);
        double share = (double)m.summary.keys_moved / 20000.0, redirects = 0;
        for (size_t i = 0; i < m.n_ticks; i++)
            redirects += (double)m.ticks[i].redirects;
        assert_true(share > 0.15 && share < 0.35); /* the subject: D takes keys */
        double want = 20000.0 * cases[k].way_s * share;
        CHECK_NEAR(redirects, want, 4 * sqrt(want) + 0.5, "%s: GETs redirected", cases[k].delay);
        mem_run_free(&m);
    }
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

/* ---- generated clusters ----------------------------------------------------------- */

static uint64_t next(uint64_t *x) /* splitmix64 */
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static unsigned pick(uint64_t *x, unsigned n)
{
    return (unsigned)(next(x) % n);
}

#define ONE_OF(x, ...)                                                                      \
    ((const char *[]){__VA_ARGS__})[pick(x, sizeof((const char *[]){__VA_ARGS__})           \
                                                / sizeof(const char *))]

/* A cluster of 2 to 4 nodes in two zones, drawn from seed: round trip,
 * service, queue, cache size, writes, timeout (shorter than rtt/2 too),
 * placement and health (never ejecting, so that no epoch is published)
 * drawn, and 1 to 5 slowdowns, crashes, restarts and zone crashes 10 ms to
 * 500 ms apart, each valid where it falls. */
static void generate(char *buf, size_t len, uint64_t seed)
{
    uint64_t x = seed;
    unsigned n = 2 + pick(&x, 3), zone[4];
    bool down[4] = {false};
    size_t o = (size_t)snprintf(buf, len, "name: gen\nseed: %u\nduration: 3s\ntick: 1s\n"
                                "workload: {keys: %s, qps: %s, write_ratio: %s}\nnodes: [",
                                1 + pick(&x, 99), ONE_OF(&x, "500", "3000"),
                                ONE_OF(&x, "1000", "4000"), ONE_OF(&x, "0", "0.05", "0.3"));
    for (unsigned i = 0; i < n; i++) {
        zone[i] = 1 + pick(&x, 2);
        o += (size_t)snprintf(buf + o, len - o, "%s{id: n%u, zone: z%u}", i ? ", " : "", i,
                              zone[i]);
    }
    o += (size_t)snprintf(
        buf + o, len - o,
        "]\ncache: {rtt: %s, service_time: %s, workers: %u, max_queue: %s, capacity_items: %s}\n"
        "clients: {timeout: %s, instances: %u, write: %s, on_timeout: %s}\n"
        "routing: {algorithm: %s}\nhealth: %s\nevents:\n",
        ONE_OF(&x, "0s", "200us", "5ms", "40ms", "90ms"), ONE_OF(&x, "20us", "200us", "1ms"),
        1 + pick(&x, 4), ONE_OF(&x, "5", "1000"), ONE_OF(&x, "100", "10000"),
        ONE_OF(&x, "30ms", "100ms", "1s"), 1 + pick(&x, 3),
        ONE_OF(&x, "invalidate", "write_through"), ONE_OF(&x, "db", "error"),
        ONE_OF(&x, "ring", "jump", "maglev", "slots", "rendezvous"),
        ONE_OF(&x, "{mode: off}", "{mode: client, failure_limit: 1000000}",
               "{mode: central, failure_limit: 1000000, probe_interval: 100ms}"));
    unsigned ms = 200, events = 1 + pick(&x, 5), written = 0;
    for (unsigned e = 0; e < events; e++) {
        static const unsigned gaps[] = {10, 20, 100, 300, 500};
        ms += gaps[pick(&x, 5)];
        unsigned up[4], n_up = 0, crashed[4], n_down = 0;
        for (unsigned i = 0; i < n; i++) {
            if (down[i])
                crashed[n_down++] = i;
            else
                up[n_up++] = i;
        }
        unsigned what = pick(&x, 4);
        if (what == 2 && !n_down)
            what = 1;
        if (what != 2 && !n_up)
            what = 2;
        if (what == 0) { /* a slowdown, for a while or for good */
            o += (size_t)snprintf(buf + o, len - o,
                                  "  - {at: %ums, slow_node: {id: n%u, factor: %s, for: %s}}\n",
                                  ms, up[pick(&x, n_up)], ONE_OF(&x, "2", "40"),
                                  ONE_OF(&x, "10ms", "300ms", "10s"));
        } else if (what == 1) {
            unsigned i = up[pick(&x, n_up)];
            down[i] = true;
            o += (size_t)snprintf(buf + o, len - o, "  - {at: %ums, crash_node: {id: n%u}}\n",
                                  ms, i);
        } else if (what == 2) {
            unsigned i = crashed[pick(&x, n_down)];
            down[i] = false;
            o += (size_t)snprintf(buf + o, len - o, "  - {at: %ums, restart_node: {id: n%u}}\n",
                                  ms, i);
        } else { /* the zone of a running node */
            unsigned z = zone[up[pick(&x, n_up)]];
            for (unsigned i = 0; i < n; i++)
                down[i] = down[i] || zone[i] == z;
            o += (size_t)snprintf(buf + o, len - o, "  - {at: %ums, crash_zone: {zone: z%u}}\n",
                                  ms, z);
        }
        written++;
        assert_true(o < len);
    }
    assert_true(written > 0);
}

/* Forty generated clusters: every tick the same with either delivery. */
static void test_same_run_on_generated_clusters(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        char yaml[4096], what[64];
        generate(yaml, sizeof yaml, seed);
        snprintf(what, sizeof what, "generated cluster %llu", (unsigned long long)seed);
        check_same_ticks_of(yaml, NULL, what);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_run_around_slowness_crash_and_restart),
        cmocka_unit_test(test_same_run_when_the_timeout_is_shorter_than_the_way),
        cmocka_unit_test(test_same_run_when_the_way_crosses_ticks),
        cmocka_unit_test(test_same_run_with_probes_at_the_changes),
        cmocka_unit_test(test_probe_sent_while_down_passes_after_the_restart),
        cmocka_unit_test(test_fencing_decided_on_arrival),
        cmocka_unit_test(test_same_run_on_generated_clusters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
