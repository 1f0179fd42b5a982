/*
 * The helper thread (sim/ahead.h) changes nothing but the time a run
 * takes: every scenario below runs with and without it, and every row —
 * ticks, node ticks, view ticks, events, the summary — must be the same,
 * bit for bit. The scenarios cover every stream it draws and every change
 * that takes a stream back from it:
 *  - the request stream (instances, operations, Zipf and uniform keys) with
 *    hot keys from the file and from events (with and without `for`), and
 *    shift_popularity;
 *  - arrivals at a constant rate, a set_qps step, a ramp (thinning), and a
 *    daily cycle throughout;
 *  - service times of nodes (exponential, fixed, a slow node, a node added
 *    later, more nodes than get a channel) and of the database (exponential
 *    and zero), network jitter;
 *  - a replayed trace (instances drawn inline, service times ahead).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim/ahead.h"
#include "sim/util.h"
#include "support_sink.h"

static bool same_real(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

#define SAME_I(x, y) ((x) == (y))
#define SAME_R(x, y) same_real((x), (y))
#define SAME_T(x, y) same_text((x), (y))
#define CHECK_FIELD(name, type, doc)                                                    \
    if (!SAME_##type(a->name, b->name))                                                 \
        fail_msg("%s: %s row %zu (t=%g) differs in %s", what, table, i, a_t, #name);

/* Rows xs[0..n) and ys[0..n) of one table, column by column (FIELDS: its
 * metric list), their times included. */
#define CHECK_ROWS(table, xs, ys, n, FIELDS)                                            \
    for (size_t i = 0; i < (n); i++) {                                                  \
        const __typeof__(*(xs)) *a = &(xs)[i], *b = &(ys)[i];                          \
        double a_t = a->t_s;                                                            \
        if (!same_real(a->t_s, b->t_s))                                                 \
            fail_msg("%s: %s row %zu differs in t_s", what, table, i);                  \
        FIELDS(CHECK_FIELD)                                                             \
    }

static void check_same(const struct mem_run *x, const struct mem_run *y, const char *what)
{
    const char *table;
    assert_int_equal(x->status, y->status);
    assert_int_equal(x->n_ticks, y->n_ticks);
    assert_int_equal(x->n_nodes, y->n_nodes);
    assert_int_equal(x->n_views, y->n_views);
    assert_int_equal(x->n_events, y->n_events);
    table = "ticks";
    CHECK_ROWS(table, x->ticks, y->ticks, x->n_ticks, TICK_FIELDS)
    table = "node_ticks";
    CHECK_ROWS(table, x->nodes, y->nodes, x->n_nodes, NODE_TICK_FIELDS)
    for (size_t i = 0; i < x->n_nodes; i++)
        assert_true(same_text(x->nodes[i].node, y->nodes[i].node));
    table = "view_ticks";
    CHECK_ROWS(table, x->views, y->views, x->n_views, VIEW_TICK_FIELDS)
    for (size_t i = 0; i < x->n_events; i++) {
        const struct mem_event *a = &x->events[i], *b = &y->events[i];
        if (!same_real(a->t_s, b->t_s) || strcmp(a->kind, b->kind) || strcmp(a->node, b->node)
            || strcmp(a->detail, b->detail))
            fail_msg("%s: event %zu differs: %s %s at %g", what, i, a->kind, a->detail, a->t_s);
    }
    table = "summary";
    {
        const struct summary_row *a = &x->summary, *b = &y->summary;
        size_t i = 0;
        double a_t = 0;
        SUMMARY_FIELDS(CHECK_FIELD)
    }
}

static void check_yaml(const char *yaml, const char *what)
{
    struct mem_run inline_run, helped;
    mem_run_yaml_helper(&inline_run, yaml, NULL, false);
    mem_run_yaml_helper(&helped, yaml, NULL, true);
    assert_true(inline_run.summary.requests > 1000); /* it did run */
    check_same(&inline_run, &helped, what);
    mem_run_free(&inline_run);
    mem_run_free(&helped);
}

/* Zipf keys, hot keys changing, shifts, steps and a ramp, a slow node, a
 * node added later, jitter, writes from several instances. */
static void test_request_stream(void **state)
{
    (void)state;
    check_yaml("name: churn\nseed: 3\nduration: 40s\ntick: 1s\n"
               "workload:\n  keys: 50000\n  popularity: zipf\n  zipf_s: 0.9\n  qps: 20000\n"
               "  write_ratio: 0.1\n  hot_keys: [{key: key-000042, share: 0.05}]\n"
               "clients: {instances: 5}\n"
               "network: {jitter: 50us}\n"
               "nodes: [{id: A}, {id: B}, {id: C}, {id: D, service_dist: fixed}]\n"
               "cache: {capacity_items: 4000}\n"
               "events:\n"
               "  - {at: 5s, hot_key: {key: key-000007, share: 0.2, for: 5s}}\n"
               "  - {at: 8s, set_qps: 30000}\n"
               "  - {at: 12s, shift_popularity: {}}\n"
               "  - {at: 15s, hot_key: {key: key-000042, share: 0.3}}\n"
               "  - {at: 18s, slow_node: {id: B, factor: 5, for: 4s}}\n"
               "  - {at: 20s, set_qps: {qps: 10000, over: 10s}}\n"
               "  - {at: 25s, add_node: {id: E}}\n"
               "  - {at: 32s, set_qps: 25000}\n",
               "churn");
}

/* Uniform keys under a daily cycle (thinning all the way), a database
 * without service time. */
static void test_shaped_uniform(void **state)
{
    (void)state;
    check_yaml("name: cycle\nseed: 9\nduration: 30s\ntick: 1s\n"
               "workload:\n  keys: 20000\n  popularity: uniform\n  qps: 15000\n"
               "  diurnal: {amplitude: 0.5, period: 20s, peak_at: 5s}\n"
               "database: {service_time: 0}\n"
               "nodes: [{id: A}, {id: B}]\ncache: {capacity_items: 5000}\n",
               "cycle");
}

/* More nodes than get a channel: the first AHEAD_MAX_NODE_CHANNELS draw
 * ahead, the others inline, one node crashing and coming back. */
static void test_many_nodes(void **state)
{
    (void)state;
    struct strbuf y;
    sb_init(&y);
    sb_puts(&y, "name: wide\nduration: 10s\ntick: 1s\n"
                "workload: {keys: 30000, popularity: zipf, qps: 30000, write_ratio: 0.02}\n"
                "cache: {capacity_items: 300}\nnodes:\n");
    for (int i = 0; i < AHEAD_MAX_NODE_CHANNELS + 16; i++)
        sb_printf(&y, "  - {id: n%03d}\n", i);
    sb_puts(&y, "events:\n  - {at: 3s, crash_node: {id: n070}}\n"
                "  - {at: 6s, restart_node: {id: n070}}\n");
    check_yaml(y.buf, "wide");
    sb_deinit(&y);
}

/* A replayed trace: its requests come from the file, the service times
 * from the helper. */
static void test_trace(void **state)
{
    (void)state;
    char path[] = "/tmp/ringsim-helper-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f, "time,key,op\n");
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 60000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        unsigned key = (unsigned)(x % 1000) * (unsigned)((x >> 20) % 1000) / 1000;
        fprintf(f, "%d,k%u,%s\n", i / 3000, key, (x >> 40) % 20 ? "get" : "set");
    }
    fclose(f);
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: replay\nduration: 25s\ntick: 1s\n"
             "workload:\n  trace: {path: %s, format: csv}\n"
             "clients: {instances: 3}\n"
             "nodes: [{id: A}, {id: B}, {id: C}]\ncache: {capacity_items: 200}\n",
             path);
    check_yaml(yaml, "trace");
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_stream),
        cmocka_unit_test(test_shaped_uniform),
        cmocka_unit_test(test_many_nodes),
        cmocka_unit_test(test_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
