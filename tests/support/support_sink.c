/* support_sink.c — an in-memory sink for model tests (see support_sink.h). */
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

/* Room for one more element after n: the array doubles whenever n reaches a
 * power of two (growing by one each time copies the whole array every time
 * under AddressSanitizer, whose realloc always moves: minutes for a run with
 * thousands of events). */
static void *grow(void *p, size_t n, size_t size)
{
    if (n && (n & (n - 1)))
        return p;
    p = realloc(p, (n ? 2 * n : 1) * size);
    assert_non_null(p);
    return p;
}

static const char *intern(struct mem_run *m, const char *s)
{
    for (size_t i = 0; i < m->n_names; i++)
        if (!strcmp(m->names[i], s))
            return m->names[i];
    m->names = grow(m->names, m->n_names, sizeof(char *));
    m->names[m->n_names] = strdup(s);
    return m->names[m->n_names++];
}

static int on_tick(void *ctx, const struct tick_row *r)
{
    struct mem_run *m = ctx;
    m->ticks = grow(m->ticks, m->n_ticks, sizeof(*r));
    m->ticks[m->n_ticks++] = *r;
    return 0;
}

static int on_node(void *ctx, const struct node_tick_row *r)
{
    struct mem_run *m = ctx;
    m->nodes = grow(m->nodes, m->n_nodes, sizeof(*r));
    struct node_tick_row *c = &m->nodes[m->n_nodes++];
    *c = *r;
    c->node = intern(m, r->node);
    c->state = intern(m, r->state);
    return 0;
}

static int on_view(void *ctx, const struct view_tick_row *r)
{
    struct mem_run *m = ctx;
    m->views = grow(m->views, m->n_views, sizeof(*r));
    struct view_tick_row *c = &m->views[m->n_views++];
    *c = *r;
    c->view = intern(m, r->view);
    c->ejected = intern(m, r->ejected);
    return 0;
}

static int on_event(void *ctx, double t_s, const char *kind, const char *node, const char *detail)
{
    struct mem_run *m = ctx;
    m->events = grow(m->events, m->n_events, sizeof(*m->events));
    struct mem_event *e = &m->events[m->n_events++];
    e->t_s = t_s;
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    snprintf(e->node, sizeof e->node, "%s", node ? node : "");
    snprintf(e->detail, sizeof e->detail, "%s", detail);
    return 0;
}

void mem_run_yaml(struct mem_run *m, const char *yaml, const char *const *sets)
{
    mem_run_yaml_helper(m, yaml, sets, false);
}

enum run_status sink_run_yaml(const char *yaml, const char *const *sets, const struct sink *sink,
                              bool helper, struct summary_row *sum, char *error, size_t errlen)
{
    struct diag d;
    diag_init(&d);
    struct override ov[32];
    size_t n = 0;
    for (; sets && sets[n]; n++)
        assert_int_equal(override_parse(sets[n], &ov[n], &d), 0);
    struct scenario *sc = scenario_load_string("test.yaml", yaml, strlen(yaml), ov, n, &d);
    if (!sc) {
        diag_print(&d, stderr);
        fail_msg("scenario did not load");
    }
    struct run_options opt = {NULL, NULL, NULL, true, helper, NULL};
    char err[256];
    struct sim *s = sim_create(sc, sink, &opt, err, sizeof err);
    if (!s)
        fail_msg("sim_create: %s", err);
    enum run_status status = sim_run(s);
    if (error)
        snprintf(error, errlen, "%s", sim_error(s));
    if (sum)
        sim_summary(s, sum);
    sim_destroy(s);
    scenario_destroy(sc);
    for (size_t i = 0; i < n; i++)
        override_deinit(&ov[i]);
    diag_deinit(&d);
    return status;
}

void mem_run_yaml_helper(struct mem_run *m, const char *yaml, const char *const *sets,
                         bool helper)
{
    memset(m, 0, sizeof(*m));
    struct sink sink = {m, on_tick, on_node, on_view, on_event, NULL, NULL};
    m->status = sink_run_yaml(yaml, sets, &sink, helper, &m->summary, m->error, sizeof m->error);
    if (m->status == RUN_FAILED)
        fail_msg("run failed: %s", m->error);
}

void mem_run_free(struct mem_run *m)
{
    free(m->ticks);
    free(m->nodes);
    free(m->events);
    free(m->views);
    for (size_t i = 0; i < m->n_names; i++)
        free(m->names[i]);
    free(m->names);
    memset(m, 0, sizeof(*m));
}

long long mem_node_requests(const struct mem_run *m, const char *node)
{
    long long t = 0;
    for (size_t i = 0; i < m->n_nodes; i++)
        if (!strcmp(m->nodes[i].node, node))
            t += m->nodes[i].requests;
    return t;
}

size_t mem_count_events(const struct mem_run *m, const char *kind)
{
    size_t c = 0;
    for (size_t i = 0; i < m->n_events; i++)
        c += !strcmp(m->events[i].kind, kind);
    return c;
}

const struct tick_row *mem_tick_at(const struct mem_run *m, double t_s)
{
    for (size_t i = 0; i < m->n_ticks; i++)
        if (fabs(m->ticks[i].t_s - t_s) < 1e-9)
            return &m->ticks[i];
    fail_msg("no tick at %.0f s", t_s);
    return NULL;
}

char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

void mem_run_file(struct mem_run *m, const char *path, const char *const *sets)
{
    char *yaml = read_file(path);
    mem_run_yaml(m, yaml, sets);
    free(yaml);
}

long long mem_sum_ticks(const struct mem_run *m, size_t offset, double from, double to)
{
    long long t = 0;
    for (size_t i = 0; i < m->n_ticks; i++)
        if (m->ticks[i].t_s >= from && m->ticks[i].t_s < to)
            t += *(const int64_t *)((const char *)&m->ticks[i] + offset);
    return t;
}

void expect_load_refused(const char *yaml, const char *needle)
{
    struct diag d;
    diag_init(&d);
    struct scenario *sc = scenario_load_string("x.yaml", yaml, strlen(yaml), NULL, 0, &d);
    assert_null(sc);
    bool found = false;
    for (size_t i = 0; i < d.n && !found; i++)
        found = strstr(d.msgs[i], needle) != NULL;
    if (!found) {
        diag_print(&d, stderr);
        fail_msg("no message with \"%s\"", needle);
    }
    diag_deinit(&d);
}
