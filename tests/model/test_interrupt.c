/*
 * Interruption tests: a stop request (Ctrl-C, SIGTERM) ends a run promptly
 * wherever simulated time advances — between events, and while closing
 * ticks with no event at all — and interrupts a long setup too.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support_sink.h"

struct counter {
    volatile sig_atomic_t stop;
    int64_t ticks, stop_at;
};

static void on_progress(void *ctx, int64_t now_ns, int64_t duration_ns, int64_t requests)
{
    (void)now_ns, (void)duration_ns, (void)requests;
    struct counter *c = ctx;
    if (++c->ticks == c->stop_at)
        c->stop = 1; /* as a signal handler would */
}

static struct scenario *load(const char *yaml)
{
    struct diag d;
    diag_init(&d);
    struct scenario *sc = scenario_load_string("t.yaml", yaml, strlen(yaml), NULL, 0, &d);
    diag_print(&d, stderr);
    diag_deinit(&d);
    assert_non_null(sc);
    return sc;
}

/* 100 nodes, 10^7 simulated seconds, almost no requests: the run is all
 * tick closing. A stop after 5 ticks ends it at once. */
static void test_sparse_run_stops(void **state)
{
    (void)state;
    struct strbuf y;
    sb_init(&y);
    sb_puts(&y, "name: sparse\nduration: 10000000s\ntick: 1s\nworkload: {qps: 1e-9}\n"
                "health: {mode: off}\nnodes:\n");
    for (int i = 0; i < 100; i++)
        sb_printf(&y, "  - {id: n%d}\n", i);
    struct scenario *sc = load(y.buf);
    struct counter c = {0, 0, 5};
    struct run_options opt = {&c.stop, on_progress, &c, false, false, NULL};
    char err[256];
    struct sim *s = sim_create(sc, NULL, &opt, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(sim_run(s), RUN_INTERRUPTED);
    assert_int_equal(s->n_series, 5); /* the ticks closed before the stop, no more */
    sim_destroy(s);
    scenario_destroy(sc);
    sb_deinit(&y);
}

/* A busy run stops within STOP_CHECK_STEPS events of the request. */
static void test_busy_run_stops(void **state)
{
    (void)state;
    struct scenario *sc = load("name: busy\nduration: 100s\ntick: 1s\n"
                               "workload: {qps: 100000}\nnodes: [{id: A}]\n");
    struct counter c = {0, 0, 2};
    /* with the helper thread */
    struct run_options opt = {&c.stop, on_progress, &c, false, true, NULL};
    char err[256];
    struct sim *s = sim_create(sc, NULL, &opt, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(sim_run(s), RUN_INTERRUPTED);
    assert_int_equal(s->n_series, 2);
    assert_true(s->eng.now_ns < 2 * NS_PER_S + NS_PER_S / 10); /* < 4096 requests more */
    sim_destroy(s);
    scenario_destroy(sc);
}

/* What an interrupted run's summary sees of its nodes: the GETs of its node
 * rows, per node, and a stop raised when a scenario event is recorded (as a
 * signal arriving between two tick ends would). */
struct rows_seen {
    volatile sig_atomic_t stop;
    int64_t gets[2]; /* node A, node B */
};

static int seen_node(void *ctx, const struct node_tick_row *r)
{
    struct rows_seen *v = ctx;
    v->gets[strcmp(r->node, "A") != 0] += r->requests;
    return 0;
}

static int seen_event(void *ctx, double t_s, const char *kind, const char *node,
                      const char *detail)
{
    (void)t_s, (void)node, (void)detail;
    struct rows_seen *v = ctx;
    if (!strcmp(kind, "remove_node"))
        v->stop = 1;
    return 0;
}

/* A run stopped in the middle of a tick: the tick is not recorded, and the
 * summary covers the recorded ticks only — the busiest node's share is that
 * of the node rows' GETs, not of every GET sent (B leaves at 2.5 s, so the
 * GETs of the unrecorded part of tick 2 all went to A). */
static void test_stop_mid_tick_summary(void **state)
{
    (void)state;
    struct scenario *sc = load("name: mid\nduration: 100s\ntick: 1s\n"
                               "workload: {keys: 1000, qps: 100000}\n"
                               "nodes: [{id: A}, {id: B}]\n"
                               "events: [{at: 2500ms, remove_node: {id: B}}]\n");
    struct rows_seen v = {0, {0, 0}};
    struct sink sink = {.ctx = &v, .node_tick = seen_node, .event = seen_event};
    struct run_options opt = {&v.stop, NULL, NULL, false, false, NULL};
    char err[256];
    struct sim *s = sim_create(sc, &sink, &opt, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(sim_run(s), RUN_INTERRUPTED);
    assert_int_equal(s->n_series, 2); /* stopped within tick 2, which is not recorded */
    assert_true(s->eng.now_ns > 2 * NS_PER_S + NS_PER_S / 2);
    struct summary_row sum;
    sim_summary(s, &sum);
    double share = (double)MAX(v.gets[0], v.gets[1]) / (double)(v.gets[0] + v.gets[1]);
    CHECK_NEAR(sum.max_node_share, share, 1e-12, "max_node_share of the recorded node rows");
    sim_destroy(s);
    scenario_destroy(sc);
}

/* A stop during setup (placing 20 million keys) ends it with a reason. */
static void test_setup_stops(void **state)
{
    (void)state;
    struct scenario *sc = load("name: big\nworkload: {keys: 20000000}\nnodes: [{id: A}]\n");
    struct counter c = {1, 0, 0};
    /* the helper is stopped too */
    struct run_options opt = {&c.stop, NULL, NULL, false, true, NULL};
    char err[256];
    struct sim *s = sim_create(sc, NULL, &opt, err, sizeof err);
    assert_null(s);
    assert_non_null(strstr(err, "interrupted"));
    scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_run_stops),
        cmocka_unit_test(test_busy_run_stops),
        cmocka_unit_test(test_stop_mid_tick_summary),
        cmocka_unit_test(test_setup_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
