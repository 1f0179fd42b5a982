/*
 * Failure tests: slow and crashed nodes, full queues, timeouts, client and
 * central health, cooldown and max_ejected, the gutter pool, and the
 * slow-node cascade incident. Each test fails if its behaviour is removed.
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


static long long node_requests_between(const struct mem_run *m, const char *node, double from,
                                       double to)
{
    long long t = 0;
    for (size_t i = 0; i < m->n_nodes; i++)
        if (!strcmp(m->nodes[i].node, node) && m->nodes[i].t_s >= from && m->nodes[i].t_s < to)
            t += m->nodes[i].requests;
    return t;
}

/* The next row of node's at or after row *i of m->nodes (start at 0), or
 * NULL when there is none; *i moves past it. */
static const struct node_tick_row *next_node_row(const struct mem_run *m, const char *node,
                                                 size_t *i)
{
    for (; *i < m->n_nodes; (*i)++)
        if (!strcmp(m->nodes[*i].node, node))
            return &m->nodes[(*i)++];
    return NULL;
}

static double first_event_time(const struct mem_run *m, const char *kind, const char *node)
{
    for (size_t i = 0; i < m->n_events; i++)
        if (!strcmp(m->events[i].kind, kind) && (!node || !strcmp(m->events[i].node, node)))
            return m->events[i].t_s;
    return -1;
}

/* Runs yaml and fails unless node's first ejection is at `want` s, within
 * tol (what: the case, for the message). */
static void check_first_eject(const char *yaml, const char *node, double want, double tol,
                              const char *what)
{
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double ej = first_event_time(&m, "eject", node);
    mem_run_free(&m);
    if (fabs(ej - want) > tol)
        fail_msg("%s: %s ejected at %.6f s, expected %g s", what, node, ej, want);
}

static size_t count_events_with(const struct mem_run *m, const char *kind, const char *text)
{
    size_t c = 0;
    for (size_t i = 0; i < m->n_events; i++)
        c += !strcmp(m->events[i].kind, kind) && strstr(m->events[i].detail, text);
    return c;
}

/* ---- the slow-node cascade incident ------------------------------------------------ */

static char *cascade_yaml;

static int load_cascade(void **state)
{
    (void)state;
    cascade_yaml = read_file("scenarios/incidents/slow_node_cascade.yaml");
    return 0;
}

static int free_cascade(void **state)
{
    (void)state;
    free(cascade_yaml);
    return 0;
}

static void test_cascade_unguarded(void **state)
{
    (void)state;
    const char *sets[] = {"duration=120s", NULL};
    struct mem_run m;
    mem_run_yaml(&m, cascade_yaml, sets);
    assert_true(m.summary.cascade_removals >= 3);
    assert_true(m.summary.max_ejected >= 4);
    /* the database is driven past its capacity: demand above 1, for long */
    assert_true(m.summary.db_overload_s >= 30);
    double peak_demand = 0;
    for (size_t i = 0; i < m.n_ticks; i++)
        peak_demand = fmax(peak_demand, m.ticks[i].db_demand);
    assert_true(peak_demand > 2);
    assert_true(mem_count_events(&m, "cascade_removal") >= 3);
    mem_run_free(&m);
}

static void test_cascade_cooldown_stops_it(void **state)
{
    (void)state;
    const char *sets[] = {"duration=120s", "health.cooldown=60s", NULL};
    struct mem_run m;
    mem_run_yaml(&m, cascade_yaml, sets);
    assert_int_equal(m.summary.cascade_removals, 0);
    assert_int_equal(m.summary.ejections, 1); /* the slow node itself */
    assert_true(count_events_with(&m, "eject_held", "cooldown") >= 1);
    assert_true(m.summary.db_overload_s < 20);
    mem_run_free(&m);
}

static void test_cascade_max_ejected_stops_it(void **state)
{
    (void)state;
    const char *sets[] = {"duration=120s", "health.max_ejected=0.125", NULL};
    struct mem_run m;
    mem_run_yaml(&m, cascade_yaml, sets);
    assert_int_equal(m.summary.cascade_removals, 0);
    assert_int_equal(m.summary.max_ejected, 1);
    assert_true(count_events_with(&m, "eject_held", "max_ejected") >= 1);
    mem_run_free(&m);
}

/* The gutter takes the slow node's traffic: healthy nodes' load stays flat. */
static void test_cascade_gutter_keeps_load_flat(void **state)
{
    (void)state;
    const char *sets[] = {"duration=90s", "health.on_eject=gutter", "health.gutter_nodes=2", NULL};
    struct mem_run m;
    mem_run_yaml(&m, cascade_yaml, sets);
    assert_int_equal(m.summary.cascade_removals, 0);
    const char *healthy[] = {"n1", "n2", "n4", "n5", "n6", "n7", "n8"};
    for (size_t i = 0; i < ARRAY_LEN(healthy); i++) {
        double before = node_requests_between(&m, healthy[i], 10, 30) / 20.0;
        double during = node_requests_between(&m, healthy[i], 31, 55) / 24.0;
        if (fabs(during - before) > 0.03 * before)
            fail_msg("%s: %.0f GETs/s before, %.0f during the incident", healthy[i], before, during);
    }
    assert_true(node_requests_between(&m, "gutter-0", 31, 55) > 0);
    assert_true(node_requests_between(&m, "gutter-1", 31, 55) > 0);
    mem_run_free(&m);

    /* rehash, for contrast: the same nodes take n3's share */
    const char *rehash[] = {"duration=90s", "health.max_ejected=0.125", NULL};
    mem_run_yaml(&m, cascade_yaml, rehash);
    double before = 0, during = 0;
    for (size_t i = 0; i < ARRAY_LEN(healthy); i++) {
        before += node_requests_between(&m, healthy[i], 10, 30) / 20.0;
        during += node_requests_between(&m, healthy[i], 31, 55) / 24.0;
    }
    assert_true(during > before * 1.1);
    mem_run_free(&m);
}

/* ---- a crash spreads over the ring ------------------------------------------------------ */

static void crash_spread(int vnodes, double *max_share, double *min_share)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "name: crash\nduration: 30s\ntick: 1s\n"
             "workload: {keys: 100000, qps: 40000}\n"
             "routing: {algorithm: ring, vnodes: %d}\n"
             "nodes: [{id: n1}, {id: n2}, {id: n3}, {id: n4}, {id: n5}, {id: n6}, {id: n7}, {id: n8}]\n"
             "clients: {timeout: 20ms}\n"
             "health: {mode: client, failure_limit: 3, retry_after: 60s}\n"
             "events: [{at: 10s, crash_node: {id: n3}}]\n",
             vnodes);
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    const char *others[] = {"n1", "n2", "n4", "n5", "n6", "n7", "n8"};
    double inc[7], total = 0, lost = node_requests_between(&m, "n3", 0, 10) / 10.0;
    for (int i = 0; i < 7; i++) {
        inc[i] = node_requests_between(&m, others[i], 12, 30) / 18.0 -
                 node_requests_between(&m, others[i], 0, 10) / 10.0;
        total += inc[i];
    }
    /* all of the crashed node's load went somewhere */
    if (fabs(total - lost) > 0.05 * lost)
        fail_msg("crashed node had %.0f GETs/s; the others gained %.0f", lost, total);
    *max_share = 0;
    *min_share = 1;
    for (int i = 0; i < 7; i++) {
        *max_share = fmax(*max_share, inc[i] / total);
        *min_share = fmin(*min_share, inc[i] / total);
    }
    mem_run_free(&m);
}

static void test_crash_spreads_with_vnodes(void **state)
{
    (void)state;
    double hi, lo;
    crash_spread(160, &hi, &lo);
    /* 160 points: each survivor takes about 1/7 (0.143) of the load */
    assert_true(hi < 0.25);
    assert_true(lo > 0.07);
    crash_spread(1, &hi, &lo);
    /* one point per node: a single successor takes it all */
    assert_true(hi > 0.97);
}

/* ---- client-mode disagreement ---------------------------------------------------------------- */

static void test_client_instances_disagree(void **state)
{
    (void)state;
    /* a node slow enough that some, not all, replies miss the timeout */
    const char *yaml =
        "name: disagree\nduration: 20s\ntick: 100ms\n"
        "workload: {keys: 50000, qps: 20000}\n"
        "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
        "clients: {instances: 8, timeout: 10ms}\n"
        "health: {mode: client, failure_limit: 3, retry_after: 60s}\n"
        "events: [{at: 5s, slow_node: {id: B, latency: 9750us}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double first = 1e9, last = -1;
    size_t ejections = 0;
    for (size_t i = 0; i < m.n_events; i++) {
        if (strcmp(m.events[i].kind, "eject") || strcmp(m.events[i].node, "B"))
            continue;
        first = fmin(first, m.events[i].t_s);
        last = fmax(last, m.events[i].t_s);
        ejections++;
    }
    assert_true(ejections >= 4);
    assert_true(last - first > 0.2); /* instances eject B at different moments */
    /* meanwhile some instances route around B and some do not */
    size_t split_ticks = 0;
    for (size_t i = 0; i < m.n_ticks; i++)
        split_ticks += m.ticks[i].views > 1;
    assert_true(split_ticks >= 2);
    bool partial = false;
    for (size_t i = 0; i < m.n_views; i++)
        partial |= m.views[i].instances > 0 && m.views[i].instances < 8 &&
                   !strcmp(m.views[i].ejected, "B");
    assert_true(partial);
    assert_int_equal(m.summary.ejections, 1); /* one node-level ejection episode */
    assert_true(m.summary.instance_ejections >= 4);
    mem_run_free(&m);
}

/* ---- central mode -------------------------------------------------------------------------------- */

static void test_central_probe_eject_propagate_readmit(void **state)
{
    (void)state;
    const char *yaml =
        "name: central\nduration: 50s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 10000}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "clients: {instances: 6, timeout: 20ms}\n"
        "health: {mode: central, probe_interval: 1s, failure_limit: 3, retry_after: 5s, "
        "propagation_delay: 2s}\n"
        "events: [{at: 10.5s, crash_node: {id: B}}, {at: 30.5s, restart_node: {id: B}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    /* probes at 11, 12, 13 s fail (each at +20 ms): ejected after the third */
    double ej = first_event_time(&m, "eject", "B");
    assert_true(ej > 13.0 && ej < 13.1);
    assert_true(count_events_with(&m, "eject", "coordinator") == 1);
    /* instances adopt the new epoch between 1 and 3 s later, not all at once */
    double amin = 1e9, amax = -1;
    for (size_t i = 0; i < m.n_events; i++) {
        if (strcmp(m.events[i].kind, "adopt") || !strstr(m.events[i].detail, "epoch 2"))
            continue;
        amin = fmin(amin, m.events[i].t_s);
        amax = fmax(amax, m.events[i].t_s);
    }
    assert_true(amin >= ej + 1.0 - 1e-9 && amax <= ej + 3.0 + 1e-9);
    assert_true(amax - amin > 0.1);
    bool disagree = false;
    for (size_t i = 0; i < m.n_ticks; i++)
        disagree |= m.ticks[i].epoch_min < m.ticks[i].epoch_max;
    assert_true(disagree);
    /* readmitted at the first passing probe after the restart (retry_after long past) */
    double re = first_event_time(&m, "readmit", "B");
    assert_true(re > 31.0 && re < 31.1);
    assert_true(m.summary.keys_moved > 0);
    /* after readmission and propagation, B serves again */
    assert_true(node_requests_between(&m, "B", 36, 50) > 10 * 3000);
    mem_run_free(&m);
}

/* ---- single faults ---------------------------------------------------------------------------------- */

static void test_slow_latency_and_its_end(void **state)
{
    (void)state;
    const char *yaml =
        "name: slow\nduration: 30s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 10000}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "clients: {timeout: 20ms}\nhealth: {mode: off}\n"
        "events: [{at: 10s, slow_node: {id: B, latency: 50ms, for: 10s}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    long long before = 0, during = 0, after = 0;
    for (size_t i = 0; i < m.n_ticks; i++) {
        long long t = m.ticks[i].timeouts;
        if (m.ticks[i].t_s < 10)
            before += t;
        else if (m.ticks[i].t_s < 20)
            during += t;
        else if (m.ticks[i].t_s >= 21)
            after += t;
    }
    assert_int_equal(before, 0);
    assert_true(during > 10 * 4000); /* every GET to B */
    assert_int_equal(after, 0);
    assert_int_equal(mem_count_events(&m, "slow_node_end"), 1);
    /* the node's state shows it: B's row at 15 s exists and says slow */
    size_t found = 0;
    for (size_t i = 0; i < m.n_nodes; i++)
        if (!strcmp(m.nodes[i].node, "B") && m.nodes[i].t_s == 15) {
            assert_string_equal(m.nodes[i].state, "slow");
            found++;
        }
    assert_int_equal(found, 1);
    mem_run_free(&m);
}

static void test_slow_factor_raises_latency(void **state)
{
    (void)state;
    const char *yaml =
        "name: factor\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 10000}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "cache: {service_time: 20us, service_dist: fixed}\n"
        "health: {mode: off}\n"
        "events: [{at: 10s, slow_node: {id: B, factor: 10}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double u_before = 0, u_after = 0;
    const struct node_tick_row *r;
    for (size_t i = 0; (r = next_node_row(&m, "B", &i));) {
        if (r->t_s < 10)
            u_before += r->util / 10;
        else if (r->t_s >= 11)
            u_after += r->util / 9;
    }
    /* 5000 GETs/s x 20 us = 0.10 busy; ten times slower: about 1.0 (saturated) */
    assert_true(fabs(u_before - 0.10) < 0.01);
    assert_true(u_after > 0.9);
    mem_run_free(&m);
}

/* A crash drops the node's queue, and with it the busy time that queue was
 * to take: B, slowed 20 times (5,000 GETs/s of 400 us: saturated, a backlog
 * of seconds), crashes at 6.5 s. Its tick at 6 s was busy until the crash
 * and no further (a backlog leaves no idle time, so exactly 0.5); the ticks
 * while it is down, none at all; restarted at 9 s (still slow) it is busy
 * again. The queued work was once still counted in the ticks after the
 * crash: 1.0 each, while the node did nothing. */
static void test_crash_drops_queued_busy_time(void **state)
{
    (void)state;
    const char *yaml =
        "name: crash-busy\nduration: 12s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 10000}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "cache: {service_time: 20us, service_dist: fixed}\n"
        "health: {mode: off}\n"
        "events: [{at: 2s, slow_node: {id: B, factor: 20}},\n"
        "         {at: 6.5s, crash_node: {id: B}}, {at: 9s, restart_node: {id: B}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    size_t seen = 0;
    const struct node_tick_row *r;
    for (size_t i = 0; (r = next_node_row(&m, "B", &i)); seen++) {
        if (r->t_s >= 3 && r->t_s < 6)
            CHECK_NEAR(r->util, 1.0, 1e-9, "B saturated at %g s", r->t_s);
        else if (r->t_s == 6)
            CHECK_NEAR(r->util, 0.5, 1e-9, "B busy until its crash at 6.5 s");
        else if (r->t_s >= 7 && r->t_s < 9)
            CHECK_NEAR(r->util, 0.0, 0.0, "B down at %g s", r->t_s);
        else if (r->t_s >= 10)
            CHECK_NEAR(r->util, 1.0, 1e-9, "B restarted, slow, at %g s", r->t_s);
    }
    assert_int_equal(seen, 12);
    mem_run_free(&m);
}

static void test_full_queue_rejects(void **state)
{
    (void)state;
    const char *yaml =
        "name: rejects\nduration: 10s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 20000}\n"
        "nodes: [{id: A}]\n"
        "cache: {service_time: 100us, max_queue: 50}\n"
        "health: {mode: off}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    long long rejects = 0, replies = 0;
    for (size_t i = 0; i < m.n_nodes; i++)
        rejects += m.nodes[i].rejects;
    for (size_t i = 0; i < m.n_ticks; i++)
        replies += m.ticks[i].cache_errors;
    /* 20000/s offered to a node that serves 10000/s: about half refused;
     * the clients saw an error reply for each refused GET (the rest of the
     * refusals are fills) */
    assert_true(rejects > 80000 && rejects < 120000);
    assert_true(replies > 0.8 * rejects && replies <= rejects);
    mem_run_free(&m);
}

static void test_on_timeout_db_or_error(void **state)
{
    (void)state;
    const char *yaml =
        "name: ontimeout\nduration: 20s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 10000}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "clients: {timeout: 10ms}\nhealth: {mode: off}\n"
        "database: {workers: 64}\n"
        "events: [{at: 5s, crash_node: {id: B}}]\n";
    struct mem_run db, er;
    mem_run_yaml(&db, yaml, NULL);
    const char *sets[] = {"clients.on_timeout=error", NULL};
    mem_run_yaml(&er, yaml, sets);
    long long t_db = 0, e_db = 0, r_db = 0, t_er = 0, e_er = 0, r_er = 0;
    for (size_t i = 10; i < 20; i++) {
        t_db += db.ticks[i].timeouts;
        e_db += db.ticks[i].errors;
        r_db += db.ticks[i].db_reads;
        t_er += er.ticks[i].timeouts;
        e_er += er.ticks[i].errors;
        r_er += er.ticks[i].db_reads;
    }
    assert_true(t_db > 40000 && labs(t_db - t_er) < 1000); /* the same timeouts */
    assert_int_equal(e_db, 0);
    /* every timed-out read went to the database (give or take those still in
     * flight at the window's edges: a few milliseconds' worth) */
    assert_true(r_db >= t_db - 100);
    assert_true(labs(e_er - t_er) < 100);        /* or failed */
    assert_true(r_er < r_db / 2);
    mem_run_free(&db);
    mem_run_free(&er);
}

static void test_retry_after_and_restart(void **state)
{
    (void)state;
    const char *yaml =
        "name: retry\nduration: 40s\ntick: 1s\n"
        "workload: {keys: 20000, qps: 10000}\n"
        "nodes: [{id: A}, {id: B}, {id: C}]\n"
        "clients: {instances: 1, timeout: 10ms}\n"
        "health: {mode: client, failure_limit: 3, retry_after: 7s}\n"
        "events: [{at: 5s, crash_node: {id: B}}, {at: 20s, restart_node: {id: B}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    /* ejected, retried after exactly 7 s, ejected again while still down */
    double e1 = -1, r1 = -1, e2 = -1;
    for (size_t i = 0; i < m.n_events; i++) {
        const struct mem_event *e = &m.events[i];
        if (strcmp(e->node, "B"))
            continue;
        if (!strcmp(e->kind, "eject") && e1 < 0)
            e1 = e->t_s;
        else if (!strcmp(e->kind, "readmit") && r1 < 0)
            r1 = e->t_s;
        else if (!strcmp(e->kind, "eject") && r1 > 0 && e2 < 0)
            e2 = e->t_s;
    }
    assert_true(e1 > 5 && e1 < 5.1);
    assert_true(fabs(r1 - e1 - 7.0) < 1e-6);
    assert_true(e2 > r1 && e2 < r1 + 0.1);
    assert_true(m.summary.readmissions >= 2); /* once at r1, and again after the restart */
    /* after the restart and the next readmission, B serves again, from empty */
    assert_true(node_requests_between(&m, "B", 30, 40) > 10 * 2500);
    size_t found = 0;
    for (size_t i = 0; i < m.n_nodes; i++)
        if (!strcmp(m.nodes[i].node, "B") && m.nodes[i].t_s == 10) {
            assert_string_equal(m.nodes[i].state, "crashed");
            found++;
        }
    assert_int_equal(found, 1); /* B's row at 10 s exists */
    mem_run_free(&m);
}

/* The most nodes a tick starting in [from, to) seconds had ejected. */
static long long max_ejected_between(const struct mem_run *m, double from, double to)
{
    long long most = 0;
    for (size_t i = 0; i < m->n_ticks; i++)
        if (m->ticks[i].t_s >= from && m->ticks[i].t_s < to && m->ticks[i].ejected > most)
            most = m->ticks[i].ejected;
    return most;
}

/* Client mode, a node that leaves while ejected: the ejection goes with it.
 * It once stayed: it counted against max_ejected (a crash of another node
 * was then held back for good: 290 timeouts a second to the end) and
 * kept the `ejected` column at 1; and an id added back inherited it (no
 * GET until the old retry_after ran out). */
static void test_removed_node_leaves_no_ejection(void **state)
{
    (void)state;
    const char *yaml = "name: left\nduration: 30s\ntick: 1s\n"
                       "workload: {keys: 2000, qps: 1000}\n"
                       "clients: {instances: 2, timeout: 50ms}\n"
                       "health: {mode: client, failure_limit: 2, retry_after: 100s, "
                       "max_ejected: 0.25}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}, {id: D}, {id: E}]\n"
                       "events:\n"
                       "  - {at: 5.5s, crash_node: {id: A}}\n"
                       "  - {at: 10s, remove_node: {id: A}}\n"
                       "  - {at: 14.5s, crash_node: {id: B}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    /* A ejected by both instances, then gone: nothing ejected from 10 s */
    assert_int_equal(count_events_with(&m, "eject", "instance"), 4); /* A twice, B twice */
    assert_int_equal(max_ejected_between(&m, 10, 14), 0);
    /* B's crash: 1 of the 4 members may go (floor(0.25 x 4)), and does */
    assert_int_equal(count_events_with(&m, "eject_held", "max_ejected"), 0);
    assert_true(first_event_time(&m, "eject", "B") > 14.5);
    assert_true(first_event_time(&m, "eject", "B") < 14.7);
    assert_int_equal(MEM_SUM(&m, timeouts, 16, 30), 0);
    mem_run_free(&m);

    /* the dead node replaced under its id: the new one is fresh */
    const char *readd = "name: readd\nduration: 20s\ntick: 1s\n"
                        "workload: {keys: 2000, qps: 1000}\n"
                        "clients: {instances: 2, timeout: 50ms}\n"
                        "health: {mode: client, failure_limit: 3, retry_after: 30s}\n"
                        "nodes: [{id: A}, {id: B}, {id: C}]\n"
                        "events:\n"
                        "  - {at: 5s, crash_node: {id: A}}\n"
                        "  - {at: 8s, remove_node: {id: A}}\n"
                        "  - {at: 10s, add_node: {id: A}}\n";
    mem_run_yaml(&m, readd, NULL);
    /* a third of the GETs, from the moment it joins */
    CHECK_RANGE((double)node_requests_between(&m, "A", 10, 20), 0.25 * 10000, 0.42 * 10000,
                "the new A's GETs");
    assert_int_equal(count_events_with(&m, "readmit", "instance"), 0);
    mem_run_free(&m);
}

/* A node removed under load: the GETs it held when it left time out after,
 * at instances that have already adopted the epoch without it. Those
 * failures once counted: both instances ejected the removed node (ejected
 * stayed 1), and the id added back a second later inherited the ejections
 * — no GET from either instance for retry_after. */
static void test_removal_under_load_ejects_nothing(void **state)
{
    (void)state;
    const char *yaml = "name: gone\nduration: 12s\ntick: 1s\n"
                       "workload: {keys: 2000, qps: 4000}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n"
                       "cache: {rtt: 40ms}\n"
                       "clients: {instances: 2, timeout: 50ms}\n"
                       "health: {mode: client, failure_limit: 3, retry_after: 30s}\n"
                       "events:\n"
                       "  - {at: 5s, remove_node: {id: A}}\n"
                       "  - {at: 6s, add_node: {id: A}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    assert_true(MEM_SUM(&m, timeouts, 5, 6) > 5); /* they did time out */
    assert_int_equal(mem_count_events(&m, "eject"), 0);
    assert_int_equal(m.summary.ejections, 0);
    assert_int_equal(max_ejected_between(&m, 0, INFINITY), 0);
    /* the new A takes a third of the GETs at once */
    CHECK_RANGE((double)node_requests_between(&m, "A", 7, 12), 0.22 * 5 * 4000, 0.42 * 5 * 4000,
                "the new A's GETs");
    mem_run_free(&m);
}

/* An instance frozen on the old ring keeps sending to a removed node and
 * ejects it (as documented). That ejection once outlived the split: it
 * counted in `ejected` while the node was out of every ring, and the id
 * added back stayed ejected by that instance until retry_after — whether
 * added after the split or during it. */
static void test_frozen_instance_ejection_of_removed_node_goes(void **state)
{
    (void)state;
    const char *fmt = "name: frozen\nduration: 20s\ntick: 1s\n"
                      "workload: {keys: 2000, qps: 1000}\n"
                      "nodes: [{id: A}, {id: B}, {id: C}]\n"
                      "clients: {instances: 2, timeout: 50ms}\n"
                      "health: {mode: client, failure_limit: 2, retry_after: 20s}\n"
                      "events:\n"
                      "  - {at: 5s, split_brain: {instances: [0], for: %s}}\n"
                      "  - {at: 6s, remove_node: {id: A}}\n"
                      "  - {at: %s, add_node: {id: A}}\n";
    char yaml[1024];
    struct mem_run m;
    /* the split ends at 8 s (instance 0 adopts the ring without A), A is back at 10 s */
    snprintf(yaml, sizeof yaml, fmt, "3s", "10s");
    mem_run_yaml(&m, yaml, NULL);
    assert_int_equal(count_events_with(&m, "eject", "instance 0"), 1);
    assert_true(first_event_time(&m, "eject", "A") > 6);
    assert_int_equal(max_ejected_between(&m, 8, INFINITY), 0);
    CHECK_RANGE((double)node_requests_between(&m, "A", 11, 20), 0.25 * 9 * 1000, 0.42 * 9 * 1000,
                "the new A's GETs, from both instances");
    mem_run_free(&m);
    /* A is back at 9 s, while instance 0 is still frozen on the ring that holds it */
    snprintf(yaml, sizeof yaml, fmt, "10s", "9s");
    mem_run_yaml(&m, yaml, NULL);
    assert_int_equal(count_events_with(&m, "eject", "instance 0"), 1);
    assert_int_equal(max_ejected_between(&m, 9, INFINITY), 0);
    for (size_t i = 0; i < m.n_nodes; i++)
        if (!strcmp(m.nodes[i].node, "A") && m.nodes[i].t_s >= 9)
            assert_string_equal(m.nodes[i].state, "up");
    CHECK_RANGE((double)node_requests_between(&m, "A", 10, 15), 0.25 * 5 * 1000, 0.42 * 5 * 1000,
                "the new A's GETs, frozen instance's included");
    mem_run_free(&m);
}

/* Timeouts of requests a fault lost or delayed arrive up to clients.timeout
 * after the fault ends: an ejection they cause is not a cascade removal.
 * A crash followed by a restart 20 ms later, and a 20 ms slowness, were
 * each counted as one (the node had no fault "at that moment"). */
static void test_ejection_just_after_a_fault_is_no_cascade(void **state)
{
    (void)state;
    const char *yaml = "name: after\nduration: 12s\ntick: 1s\n"
                       "workload: {keys: 2000, qps: 4000}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n"
                       "clients: {instances: 2, timeout: 50ms}\n"
                       "health: {mode: client, failure_limit: 3, retry_after: 2s}\n"
                       "events:\n"
                       "  - {at: 5s, crash_node: {id: A}}\n"
                       "  - {at: 5.02s, restart_node: {id: A}}\n"
                       "  - {at: 8s, slow_node: {id: B, latency: 100ms, for: 20ms}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    /* each is ejected after its fault ended, within the timeout */
    double a = first_event_time(&m, "eject", "A"), b = first_event_time(&m, "eject", "B");
    assert_true(a > 5.02 && a <= 5.07);
    assert_true(b > 8.02 && b <= 8.07);
    assert_int_equal(m.summary.ejections, 2);
    assert_int_equal(m.summary.cascade_removals, 0);
    assert_int_equal(mem_count_events(&m, "cascade_removal"), 0);
    mem_run_free(&m);
}

/* Central mode with arrival events (fencing: forward): a probe arrives
 * after the next rounds are sent (probe_interval 1 ms, 5 ms each way). Each
 * probe's timeout once ran from the latest round's send time: 4 ms late, so
 * that a node 4 ms slow (every client GET timing out) passed every probe
 * and was never ejected. */
static void test_central_probe_overtaken_by_next_rounds(void **state)
{
    (void)state;
    const char *yaml = "name: probes\nduration: 4s\ntick: 1s\n"
                       "workload: {keys: 2000, qps: 1000}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n"
                       "routing: {fencing: forward}\n"
                       "cache: {rtt: 10ms}\n"
                       "clients: {instances: 2, timeout: 12ms}\n"
                       "health: {mode: central, failure_limit: 3, retry_after: 60s, "
                       "probe_interval: 1ms}\n"
                       "events: [{at: 2s, slow_node: {id: A, latency: 4ms}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double ej = first_event_time(&m, "eject", "A");
    assert_true(ej > 2.0 && ej < 2.02);
    assert_int_equal(m.summary.ejections, 1);
    /* the healthy nodes' probes (a 10 ms round trip) pass */
    assert_int_equal(mem_count_events(&m, "eject"), 1);
    mem_run_free(&m);
}

/* Central mode: the tick's `ejected` counts the coordinator's ejections,
 * like the summary's max_ejected. A readmission is not yet adopted by the
 * instances (propagation_delay 4 s) when the next node is ejected: the
 * column once said 2 (counting the instances' stale views) against a
 * max_ejected of 1. The readmitted node's own row still says `ejected`
 * while instances route around it. */
static void test_central_ejected_column_is_the_coordinators(void **state)
{
    (void)state;
    const char *yaml = "name: column\nduration: 15s\ntick: 1s\n"
                       "workload: {keys: 2000, qps: 1000}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
                       "clients: {instances: 3, timeout: 50ms}\n"
                       "health: {mode: central, failure_limit: 1, retry_after: 2s, "
                       "probe_interval: 1s, propagation_delay: 4s}\n"
                       "events:\n"
                       "  - {at: 2.5s, crash_node: {id: A}}\n"
                       "  - {at: 5.5s, restart_node: {id: A}}\n"
                       "  - {at: 6.5s, crash_node: {id: B}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double re = first_event_time(&m, "readmit", "A"), ej = first_event_time(&m, "eject", "B");
    assert_true(re > 6 && re < 6.1);
    assert_true(ej > 7 && ej < 7.1);
    assert_int_equal(m.summary.max_ejected, 1);
    int64_t most = 0;
    for (size_t i = 0; i < m.n_ticks; i++)
        most = MAX(most, m.ticks[i].ejected);
    assert_int_equal(most, 1);
    size_t stale = 0; /* A's rows after its readmission that say instances still avoid it */
    for (size_t i = 0; i < m.n_nodes; i++)
        stale += !strcmp(m.nodes[i].node, "A") && m.nodes[i].t_s >= 6 && m.nodes[i].t_s < 10
                 && !strcmp(m.nodes[i].state, "ejected") && m.nodes[i].ejected_by > 0;
    assert_true(stale >= 1);
    mem_run_free(&m);
}

/* failure_limit takes values up to 1,000,000: a limit above 65,535 ejects
 * too. The consecutive-failure counts were 16-bit and stopped at 65,535,
 * so such a node was never ejected: a crashed node took 521,761 timeouts
 * over 25 s (failure_limit 70,000, 40,000 GETs/s, half of them to it). */
static void test_failure_limit_above_16_bits(void **state)
{
    (void)state;
    /* client mode: B gets about half of 40,000 GETs/s, all timing out after
     * its crash at 1 s: its 70,000th timeout comes near 1 + 70,000 / 20,000
     * = 4.5 s (the key split of two nodes is 50% ± 5% here: 4.2-4.9 s) */
    const char *client =
        "name: limit\nduration: 7s\ntick: 1s\n"
        "workload: {keys: 1000, qps: 40000}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "database: {workers: 100, service_time: 1ms, max_queue: 100000}\n"
        "clients: {instances: 1, timeout: 10ms}\n"
        "health: {mode: client, failure_limit: 70000, retry_after: 60s}\n"
        "events: [{at: 1s, crash_node: {id: B}}]\n";
    struct mem_run m;
    mem_run_yaml(&m, client, NULL);
    double ej = first_event_time(&m, "eject", "B");
    if (!(ej > 4.0 && ej < 5.2))
        fail_msg("client mode: B ejected at %.3f s, expected 4.0-5.2 s", ej);
    assert_int_equal(m.summary.ejections, 1);
    mem_run_free(&m);
    /* central mode: a probe every 20 us (1 us of service each: 5% busy),
     * each failing 10 ms after it is sent: the 70,000th, sent 1.4 s after
     * the crash, fails at 2.41 s */
    const char *central =
        "name: limit\nduration: 3s\ntick: 1s\n"
        "workload: {keys: 1000, qps: 1000}\n"
        "nodes: [{id: A}, {id: B}]\n"
        "cache: {service_time: 1us}\n"
        "clients: {instances: 1, timeout: 10ms}\n"
        "health: {mode: central, failure_limit: 70000, retry_after: 60s, probe_interval: 20us}\n"
        "events: [{at: 1s, crash_node: {id: B}}]\n";
    check_first_eject(central, "B", 2.41, 1e-3, "central mode");
}

/* Central mode: the coordinator learns that a probe failed when its error
 * reply comes or at the timeout, never later, and a node that does not
 * answer fails its probe at the timeout, never earlier. A probe queued at a
 * node that then crashed was failed when its reply would have come (a crash
 * 50 us after a round, failure_limit 1: ejected 0.18 ms after the crash,
 * before any client could time out); a probe that jitter delayed past the
 * timeout was failed when it arrived (ejections up to 65 ms after a round,
 * with a 10 ms timeout). */
static void test_central_probe_fails_at_its_timeout(void **state)
{
    (void)state;
    const char *crash = "name: crash\nduration: 3s\ntick: 1s\n"
                        "workload: {keys: 1000, qps: 1000}\n"
                        "nodes: [{id: A}, {id: B}]\n"
                        "clients: {instances: 1, timeout: 100ms}\n"
                        "health: {mode: central, failure_limit: 1, retry_after: 60s, "
                        "probe_interval: 1s}\n"
                        "events: [{at: 2.00005s, crash_node: {id: B}}]\n";
    check_first_eject(crash, "B", 2.1, 1e-9, "a crash"); /* the probe sent at 2 s, 100 ms on */
    /* jitter of mean 20 ms, timeout 10 ms: most probes fail, some by an
     * arrival after the timeout; each ejection comes at most 10 ms after
     * the round that sent the probe (rounds every second) */
    const char *late = "name: late\nduration: 30s\ntick: 1s\n"
                       "workload: {keys: 1000, qps: 1000}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n"
                       "network: {jitter: 20ms}\n"
                       "clients: {instances: 1, timeout: 10ms}\n"
                       "health: {mode: central, failure_limit: 1, retry_after: 1s, "
                       "probe_interval: 1s}\n";
    struct mem_run m;
    mem_run_yaml(&m, late, NULL);
    size_t n = 0;
    for (size_t i = 0; i < m.n_events; i++) {
        const struct mem_event *e = &m.events[i];
        if (strcmp(e->kind, "eject"))
            continue;
        n++;
        double after = e->t_s - floor(e->t_s);
        if (after > 0.010 + 1e-9)
            fail_msg("%s ejected at %.6f s: %.1f ms after its probe's round", e->node, e->t_s,
                     after * 1e3);
    }
    assert_true(n >= 3);
    mem_run_free(&m);
}

/* Without jitter too, a probe that cannot arrive within the timeout fails
 * at the timeout: B, 300 ms of round trip away, 100 ms of timeout, is
 * ejected by the round at 1 s at 1.1 s. Such a probe was once never failed
 * (B, whose every GET timed out, was never ejected). */
static void test_central_probe_of_a_far_node_fails(void **state)
{
    (void)state;
    const char *yaml = "name: far\nduration: 3s\ntick: 1s\n"
                       "workload: {keys: 1000, qps: 1000}\n"
                       "nodes: [{id: A}, {id: B, rtt: 300ms}, {id: C}]\n"
                       "clients: {instances: 1, timeout: 100ms}\n"
                       "health: {mode: central, failure_limit: 1, retry_after: 60s, "
                       "probe_interval: 1s}\n";
    check_first_eject(yaml, "B", 1.1, 1e-9, "300 ms of round trip");
}

/* A removed id that comes back is a new node: the slowness of the node that
 * left does not come back with it. It once did (a latency of 80 ms for the
 * rest of the run, given to B before its removal, made the new B time out
 * every GET: 49,270 timeouts against 6,937, and health took it for a faulty
 * node, never a cascade). */
static void test_returning_node_is_not_slow(void **state)
{
    (void)state;
    const char *yaml = "name: back\nduration: 14s\ntick: 1s\n"
                       "workload: {keys: 2000, qps: 2000}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n"
                       "clients: {instances: 1, timeout: 50ms}\n"
                       "health: {mode: off}\n"
                       "events:\n"
                       "  - {at: 2s, slow_node: {id: B, latency: 80ms}}\n"
                       "  - {at: 5s, remove_node: {id: B}}\n"
                       "  - {at: 8s, add_node: {id: B}}\n";
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    size_t rows = 0;
    const struct node_tick_row *r;
    for (size_t i = 0; (r = next_node_row(&m, "B", &i));) {
        if (r->t_s < 9)
            continue;
        rows++;
        assert_string_equal(r->state, "up");
        if (!(r->p99_ms < 5)) /* 200 us round trips, 20 us of service */
            fail_msg("B at %.0f s: p99 %.3f ms", r->t_s, r->p99_ms);
    }
    assert_int_equal(rows, 5);
    for (size_t i = 0; i < m.n_ticks; i++) /* GETs sent from 8 s on do not time out */
        if (m.ticks[i].t_s >= 9)
            assert_int_equal(m.ticks[i].timeouts, 0);
    mem_run_free(&m);
}

/* A probe or a GET sent to a node that then left says nothing about the
 * new node of that id, added back before the timeout. B, crashed at 5.95 s,
 * removed at 6.01 s and added back, healthy, at 6.05 s: the failure of the
 * probe sent at 6 s (at 6.1 s), or of a GET sent at 5.957 s (at 6.057 s),
 * ejected the new B (failure_limit 1) for retry_after, 60 s. */
static void test_failure_of_the_node_that_left(void **state)
{
    (void)state;
    const char *modes[] = {"health.mode=central", NULL, "health.mode=client", NULL};
    const char *yaml = "name: back\nduration: 9s\ntick: 1s\n"
                       "workload: {keys: 1000, qps: 1000}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n"
                       "clients: {instances: 1, timeout: 100ms}\n"
                       "health: {mode: central, failure_limit: 1, retry_after: 60s, "
                       "probe_interval: 1s}\n"
                       "events:\n"
                       "  - {at: 5.95s, crash_node: {id: B}}\n"
                       "  - {at: 6.01s, remove_node: {id: B}}\n"
                       "  - {at: 6.05s, add_node: {id: B}}\n";
    for (size_t i = 0; i < ARRAY_LEN(modes); i += 2) {
        struct mem_run m;
        mem_run_yaml(&m, yaml, &modes[i]);
        if (m.summary.ejections)
            fail_msg("%s: B ejected at %.6f s", modes[i], first_event_time(&m, "eject", "B"));
        assert_true(node_requests_between(&m, "B", 7, 9) > 400); /* a third of 1,000 GETs/s */
        mem_run_free(&m);
    }
}

/* A hit is a success for health when its reply reaches the client, not when
 * the node serves it: with every reply of A 15 ms late (its slow_node
 * latency) and its one-place queue refusing a quarter of 9,000 GETs/s, the
 * error replies (a round trip) come before any hit's reply, so 8 of them
 * in a row eject A within the first 15 ms. Counted at service, each of the
 * 9,000 hits a second reset the count and A was never ejected. */
static void test_hit_succeeds_when_its_reply_is_back(void **state)
{
    (void)state;
    const char *yaml = "name: late-hits\nduration: 3s\ntick: 1s\n"
                       "workload: {keys: 1000, qps: 9000}\n"
                       "nodes: [{id: A}]\n"
                       "cache: {service_time: 100us, service_dist: fixed, max_queue: 1, "
                       "rtt: 200us}\n"
                       "clients: {instances: 1, timeout: 20ms}\n"
                       "health: {failure_limit: 8, retry_after: 100s}\n"
                       "events:\n"
                       "  - {at: 1s, slow_node: {id: A, latency: 15ms, for: 1s}}\n";
    check_first_eject(yaml, "A", 1.0075, 0.0075, "replies 15 ms late, errors in 0.2 ms");
}

/* A slowness lasts, for cascade removals, until the node has served the
 * work queued while it was slow: n1, 20x slower for 10 s with its ejection
 * held back by the cooldown, fails its GETs behind 15.7 s of slow work for
 * 9 s after the slowness ended, and its ejection then is its own fault's
 * (it was counted a cascade removal); without the slowness only the
 * crashed n2 is ejected. */
static void test_slow_backlog_ejection_is_no_cascade(void **state)
{
    (void)state;
    const char *yaml = "name: backlog\nduration: 30s\ntick: 1s\n"
                       "workload: {keys: 40000, qps: 32000}\n"
                       "nodes: [{id: n1}, {id: n2}, {id: n3}, {id: n4}]\n"
                       "cache: {service_time: 80us, workers: 1, max_queue: 10000}\n"
                       "database: {workers: 64, service_time: 1ms, max_queue: 100000}\n"
                       "clients: {instances: 2, timeout: 20ms}\n"
                       "health: {cooldown: 20s, retry_after: 100s}\n"
                       "events:\n"
                       "  - {at: 5s, crash_node: {id: n2}}\n"
                       "  - {at: 6s, slow_node: {id: n1, factor: 20, for: 10s}}\n";
    const char *healthy[] = {"events.1.slow_node.factor=1", NULL};
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    double ej = first_event_time(&m, "eject", "n1");
    if (ej < 25 || ej > 25.1 || m.summary.ejections != 2 || m.summary.cascade_removals != 0)
        fail_msg("n1 ejected at %.6f s; %lld ejections, %lld cascade removals", ej,
                 (long long)m.summary.ejections, (long long)m.summary.cascade_removals);
    mem_run_free(&m);
    mem_run_yaml(&m, yaml, healthy);
    assert_int_equal(m.summary.ejections, 1);
    mem_run_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cascade_unguarded),
        cmocka_unit_test(test_cascade_cooldown_stops_it),
        cmocka_unit_test(test_cascade_max_ejected_stops_it),
        cmocka_unit_test(test_cascade_gutter_keeps_load_flat),
        cmocka_unit_test(test_crash_spreads_with_vnodes),
        cmocka_unit_test(test_client_instances_disagree),
        cmocka_unit_test(test_central_probe_eject_propagate_readmit),
        cmocka_unit_test(test_slow_latency_and_its_end),
        cmocka_unit_test(test_slow_factor_raises_latency),
        cmocka_unit_test(test_full_queue_rejects),
        cmocka_unit_test(test_crash_drops_queued_busy_time),
        cmocka_unit_test(test_removed_node_leaves_no_ejection),
        cmocka_unit_test(test_on_timeout_db_or_error),
        cmocka_unit_test(test_retry_after_and_restart),
        cmocka_unit_test(test_removal_under_load_ejects_nothing),
        cmocka_unit_test(test_frozen_instance_ejection_of_removed_node_goes),
        cmocka_unit_test(test_ejection_just_after_a_fault_is_no_cascade),
        cmocka_unit_test(test_central_probe_overtaken_by_next_rounds),
        cmocka_unit_test(test_central_ejected_column_is_the_coordinators),
        cmocka_unit_test(test_failure_limit_above_16_bits),
        cmocka_unit_test(test_central_probe_fails_at_its_timeout),
        cmocka_unit_test(test_central_probe_of_a_far_node_fails),
        cmocka_unit_test(test_returning_node_is_not_slow),
        cmocka_unit_test(test_failure_of_the_node_that_left),
        cmocka_unit_test(test_hit_succeeds_when_its_reply_is_back),
        cmocka_unit_test(test_slow_backlog_ejection_is_no_cascade),
    };
    return cmocka_run_group_tests(tests, load_cascade, free_cascade);
}
