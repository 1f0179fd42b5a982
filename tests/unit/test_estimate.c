/* Unit tests: the run cost estimate (sim/estimate.c) — the library's
 * scenarios pass; absurd sizes are refused with the key to change; what is
 * merely slow passes with --force; times past the clock's range never do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/estimate.h"

#define GIB (1024.0 * 1024 * 1024)

static struct scenario *load(const char *yaml, const char *set)
{
    struct diag d;
    diag_init(&d);
    struct override o;
    size_t n = 0;
    if (set) {
        assert_int_equal(override_parse(set, &o, &d), 0);
        n = 1;
    }
    struct scenario *sc = scenario_load_string("t.yaml", yaml, strlen(yaml), &o, n, &d);
    diag_print(&d, stderr);
    assert_non_null(sc);
    if (n)
        override_deinit(&o);
    diag_deinit(&d);
    return sc;
}

/* The verdict for yaml (+ one --set) on a 24 GiB machine with 50 GB free. */
static enum run_cost_verdict judge(const char *yaml, const char *set, bool force, char *msg,
                                   size_t n, struct run_cost *out)
{
    struct scenario *sc = load(yaml, set);
    struct run_cost c;
    run_cost_estimate(sc, &c);
    struct strbuf sb;
    sb_init(&sb);
    enum run_cost_verdict v = run_cost_judge(&c, force, 24 * GIB, 50e9, &sb);
    snprintf(msg, n, "%s", sb.buf);
    sb_deinit(&sb);
    if (out)
        *out = c;
    scenario_destroy(sc);
    return v;
}

static const char *small = "name: s\nnodes: [{id: A}, {id: B}, {id: C}]\n";

static void test_library_scenarios_pass(void **state)
{
    (void)state;
    const char *files[] = {"scenarios/bench.yaml", "scenarios/demo.yaml",
                           "scenarios/incidents/slow_node_cascade.yaml"};
    for (size_t i = 0; i < ARRAY_LEN(files); i++) {
        struct diag d;
        diag_init(&d);
        struct scenario *sc = scenario_load(files[i], NULL, 0, &d);
        assert_non_null(sc);
        struct run_cost c;
        run_cost_estimate(sc, &c);
        struct strbuf sb;
        sb_init(&sb);
        if (run_cost_judge(&c, false, 24 * GIB, 50e9, &sb) != COST_OK)
            fail_msg("%s refused: %s", files[i], sb.buf);
        /* bench: 60 M requests, within 1 GiB (measured: 35 MiB) */
        if (i == 0) {
            assert_true(c.requests > 59e6 && c.requests < 61e6);
            assert_true(c.memory_bytes < 1 * GIB);
        }
        sb_deinit(&sb);
        scenario_destroy(sc);
        diag_deinit(&d);
    }
}

static void test_absurd_sizes_refused(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    /* a billion keys: tens of gigabytes of key records */
    assert_int_equal(judge(small, "workload.keys=1000000000", true, msg, sizeof msg, &c),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "workload.keys"));
    assert_true(c.key_bytes > 24e9);
    /* 10^15 requests a second: requests in flight alone exceed memory */
    assert_int_equal(judge(small, "workload.qps=1e15", true, msg, sizeof msg, NULL),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "workload.qps"));
}

static void test_slow_needs_force(void **state)
{
    (void)state;
    char msg[1024];
    /* probing every nanosecond: 3.6e11 events for 60 s */
    const char *central = "name: p\nhealth: {mode: central, probe_interval: 1ns}\n"
                          "nodes: [{id: A}, {id: B}, {id: C}]\n";
    assert_int_equal(judge(central, NULL, false, msg, sizeof msg, NULL), COST_TOO_BIG);
    assert_non_null(strstr(msg, "probe_interval"));
    assert_non_null(strstr(msg, "--force"));
    assert_int_equal(judge(central, NULL, true, msg, sizeof msg, NULL), COST_OK);
    /* 10^7 s of 1 s ticks for 100 nodes: a billion rows */
    struct strbuf y;
    sb_init(&y);
    sb_puts(&y, "name: sparse\nduration: 10000000s\nworkload: {qps: 1e-9}\nnodes:\n");
    for (int i = 0; i < 100; i++)
        sb_printf(&y, "  - {id: n%d}\n", i);
    assert_int_equal(judge(y.buf, NULL, false, msg, sizeof msg, NULL), COST_TOO_BIG);
    assert_non_null(strstr(msg, "tick"));
    assert_int_equal(judge(y.buf, NULL, true, msg, sizeof msg, NULL), COST_OK);
    sb_deinit(&y);
}

static void test_clock_overflow_impossible(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    /* a queue of 1000 requests of 100000 h each (exponential tail): past 2^62 ns */
    assert_int_equal(judge("name: o\ncache: {service_time: 100000h, max_queue: 1000}\n"
                           "nodes: [{id: A}]\n", NULL, true, msg, sizeof msg, &c),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "cache.service_time"));
    assert_int_equal(judge("name: o\ndatabase: {workers: 1, service_time: 1000h}\n"
                           "nodes: [{id: A}]\n", NULL, true, msg, sizeof msg, NULL),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "database.service_time"));
    /* a slow_node factor multiplies the service time */
    assert_int_equal(judge("name: o\ncache: {service_time: 1h}\nnodes: [{id: A}]\n"
                           "events: [{at: 1s, slow_node: {id: A, factor: 1000000}}]\n",
                           NULL, true, msg, sizeof msg, NULL),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "slow_node.factor"));
    /* the defaults are far from it */
    assert_int_equal(judge(small, NULL, false, msg, sizeof msg, &c), COST_OK);
    assert_true(c.max_time_ns < 1e12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_scenarios_pass),
        cmocka_unit_test(test_absurd_sizes_refused),
        cmocka_unit_test(test_slow_needs_force),
        cmocka_unit_test(test_clock_overflow_impossible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
