/*
 * plot_data.c — `ringsim plot`'s side of the results database: opens it
 * read-only, checks it is ringsim's, reads the runs to draw (labels from
 * their overridden parameters, database capacity from their stored
 * scenario through the scenario loader) and their events, and writes the
 * tab-separated files the gnuplot scripts read (plots/README.md, "Data
 * files").
 *
 * The database is opened with SQLITE_OPEN_READONLY and read inside one
 * transaction, so a run being recorded at the same time is seen as of one
 * moment and the file is never written. Every string written into a data
 * file goes through tsv_field(), which keeps each one a single field.
 *
 * Costs: one pass over each drawn run's ticks and node_ticks rows (indexed
 * by run), O(events log events) for merging the events of several runs.
 */
#include "plots/plot.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/report.h"
#include "output/results.h"
#include "sim/scenario.h"
#include "sim/yamltree.h"

/* Estimated pixel widths, for staggering the labels of the events strip:
 * the average character of the 9-point label font and the narrowest plot
 * area of the charts (nodes.gp: 0.085..0.88 of 1100 px). */
#define LABEL_CHAR_PX 6.2
#define LABEL_PAD_PX 4.0
#define LABEL_GAP_PX 4.0
#define PLOT_AREA_PX 875.0

/* Node states (node_ticks.state) in the order of statecolor() in common.gp. */
static const char *const state_names[] = {"up", "slow", "crashed", "ejected", "removed", "gutter"};
#define STATE_REMOVED 4
#define STATE_OTHER 6

static const char *const run_colours[8] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                           "#9467bd", "#8c564b", "#e377c2", "#17becf"};

const char *plot_run_colour(size_t k)
{
    return run_colours[(k - 1) % ARRAY_LEN(run_colours)];
}

/* The columns each table must have for the charts and the index. */
static const struct {
    const char *table, *cols;
} required[] = {
    {"runs", "run_id, name, seed, scenario_yaml, overrides, status"},
    {"params", "run_id, path, value"},
    {"ticks", "run_id, t_s, hit_rate, backend_qps, db_util, db_p99_ms, client_p99_ms"},
    {"node_ticks", "run_id, t_s, node, state, requests"},
    {"events", "run_id, t_s, kind, node, detail"},
    {"summary", "run_id"},
};

int plot_set_sql_err(struct plot_set *ps, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", ps->db_path, sqlite3_errmsg(ps->db));
    ps->input_fault = results_input_at_fault(sqlite3_errcode(ps->db));
    return -1;
}

static sqlite3_stmt *prepare(struct plot_set *ps, const char *sql, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(ps->db, sql, -1, &st, NULL) != SQLITE_OK) {
        plot_set_sql_err(ps, err, errlen);
        return NULL;
    }
    return st;
}

struct plot_set *plot_set_open(const char *path, bool *input_fault, char *err, size_t errlen)
{
    struct plot_set *ps = xcalloc(1, sizeof(*ps));
    ps->db_path = xstrdup(path);
    ps->tmax_s = 0;
    *input_fault = true;
    int unreadable = results_input_readable(path, err, errlen);
    if (unreadable) {
        *input_fault = unreadable == -1;
        goto fail;
    }
    if (sqlite3_open_v2(path, &ps->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open: %s", path,
                 ps->db ? sqlite3_errmsg(ps->db) : "out of memory");
        *input_fault = false;
        goto fail;
    }
    sqlite3_busy_timeout(ps->db, 10000);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(ps->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL)
            != SQLITE_OK
        || sqlite3_step(st) != SQLITE_ROW) {
        /* locked by another process too long, an I/O error: not the file's fault */
        *input_fault = results_input_at_fault(sqlite3_errcode(ps->db));
        if (*input_fault)
            snprintf(err, errlen, "%s: not a SQLite database (%s); give a file written by "
                                  "ringsim run or ringsim sweep",
                     path, sqlite3_errmsg(ps->db));
        else
            snprintf(err, errlen, "%s: cannot read it (%s)", path, sqlite3_errmsg(ps->db));
        sqlite3_finalize(st);
        goto fail;
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < ARRAY_LEN(required); i++) {
        char *sql = xasprintf("SELECT %s FROM %s LIMIT 0", required[i].cols, required[i].table);
        int rc = sqlite3_prepare_v2(ps->db, sql, -1, &st, NULL);
        free(sql);
        sqlite3_finalize(st);
        st = NULL;
        if (rc != SQLITE_OK) {
            *input_fault = results_input_at_fault(sqlite3_errcode(ps->db));
            snprintf(err, errlen, "%s: %s (%s)%s", path,
                     *input_fault ? "not a ringsim results database" : "cannot read it",
                     sqlite3_errmsg(ps->db),
                     *input_fault ? "; give a file written by ringsim run or ringsim sweep" : "");
            goto fail;
        }
    }
    /* one snapshot for everything read below */
    if (sqlite3_exec(ps->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        plot_set_sql_err(ps, err, errlen);
        *input_fault = ps->input_fault;
        goto fail;
    }
    ps->in_read = true;
    return ps;
fail:
    plot_set_destroy(ps);
    return NULL;
}

void plot_set_end_read(struct plot_set *ps)
{
    if (ps->in_read) {
        sqlite3_exec(ps->db, "COMMIT", NULL, NULL, NULL);
        ps->in_read = false;
    }
}

void plot_set_destroy(struct plot_set *ps)
{
    if (!ps)
        return;
    for (size_t i = 0; i < ps->n_runs; i++) {
        struct plot_run *r = &ps->runs[i];
        free(r->name);
        free(r->description);
        free(r->status);
        free(r->label);
    }
    free(ps->runs);
    for (size_t i = 0; i < ps->n_events; i++) {
        struct plot_event *e = &ps->events[i];
        free(e->kind);
        free(e->node);
        free(e->detail);
        free(e->label);
    }
    free(ps->events);
    if (ps->db) {
        plot_set_end_read(ps);
        sqlite3_close(ps->db);
    }
    free(ps->db_path);
    free(ps);
}

int plot_set_run_ids(struct plot_set *ps, int64_t **ids, size_t *n, char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(ps, "SELECT run_id FROM runs ORDER BY run_id", err, errlen);
    if (!st)
        return -1;
    *ids = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        *ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return plot_set_sql_err(ps, err, errlen);
    return 0;
}

/* ---- runs ------------------------------------------------------------------ */

static int col_index(sqlite3_stmt *st, const char *name)
{
    for (int i = 0; i < sqlite3_column_count(st); i++)
        if (!strcmp(sqlite3_column_name(st, i), name))
            return i;
    return -1;
}

static char *col_text(sqlite3_stmt *st, const char *name)
{
    int i = col_index(st, name);
    if (i < 0 || sqlite3_column_type(st, i) == SQLITE_NULL)
        return NULL;
    return xstrdup((const char *)sqlite3_column_text(st, i));
}

static double col_double(sqlite3_stmt *st, const char *name)
{
    int i = col_index(st, name);
    if (i < 0 || sqlite3_column_type(st, i) == SQLITE_NULL)
        return NAN;
    return sqlite3_column_double(st, i);
}

/* A run's overridden parameters and its stored scenario, while labelling. */
struct run_params {
    char **path, **value;
    size_t n;
    struct ynode *yaml;   /* the stored effective scenario, parsed; may be NULL */
};

static void run_params_deinit(struct run_params *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->path[i]);
        free(p->value[i]);
    }
    free(p->path);
    free(p->value);
    ynode_destroy(p->yaml);
}

static int read_params(struct plot_set *ps, int64_t id, struct run_params *p, char *err,
                       size_t errlen)
{
    sqlite3_stmt *st = prepare(ps, "SELECT path, value FROM params WHERE run_id = ? ORDER BY rowid",
                               err, errlen);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        const char *value = (const char *)sqlite3_column_text(st, 1);
        p->path = xrealloc(p->path, (p->n + 1) * sizeof(char *));
        p->value = xrealloc(p->value, (p->n + 1) * sizeof(char *));
        p->path[p->n] = xstrdup(path ? path : "");
        p->value[p->n] = xstrdup(value ? value : "");
        p->n++;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : plot_set_sql_err(ps, err, errlen);
}

/* Capacity, duration and tick from the stored scenario, through the loader. */
static void run_from_scenario(struct plot_run *r, const char *yaml, struct diag *warn)
{
    struct diag d;
    diag_init(&d);
    char *what = xasprintf("run %lld", (long long)r->id);
    struct scenario *sc = yaml ? scenario_load_string(what, yaml, strlen(yaml), NULL, 0, &d) : NULL;
    if (!sc) {
        diag_add(warn, "run %lld: its stored scenario does not load with this ringsim (%s); "
                       "drawn without the database capacity",
                 (long long)r->id, d.n ? d.msgs[0] : "no scenario stored");
    } else {
        r->first_event_s = INFINITY;
        for (size_t i = 0; i < sc->n_events; i++)
            r->first_event_s = fmin(r->first_event_s, (double)sc->events[i].at_ns / NS_PER_S);
        r->db_workers = (int)sc->database.workers;
        r->db_service_ms = (double)sc->database.service_ns / (double)NS_PER_MS;
        if (sc->database.service_ns > 0)
            r->capacity_rps = (double)sc->database.workers * (double)NS_PER_S
                              / (double)sc->database.service_ns;
        if (!(r->duration_s > 0))
            r->duration_s = (double)sc->duration_ns / (double)NS_PER_S;
        if (!(r->tick_s > 0))
            r->tick_s = (double)sc->tick_ns / (double)NS_PER_S;
        if (!r->description && sc->description)
            r->description = xstrdup(sc->description);
    }
    scenario_destroy(sc);
    diag_deinit(&d);
    free(what);
}

static int count_rows(struct plot_set *ps, const char *sql, int64_t id, size_t *out, char *err,
                      size_t errlen)
{
    sqlite3_stmt *st = prepare(ps, sql, err, errlen);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = (size_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : plot_set_sql_err(ps, err, errlen);
}

static int read_run(struct plot_set *ps, struct plot_run *r, char **yaml, struct diag *warn,
                    char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(ps, "SELECT * FROM runs WHERE run_id = ?", err, errlen);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        snprintf(err, errlen, "%s: no run %lld", ps->db_path, (long long)r->id);
        return -1;
    }
    r->name = col_text(st, "name");
    if (!r->name)
        r->name = xstrdup("(unnamed)");
    r->description = col_text(st, "description");
    r->status = col_text(st, "status");
    if (!r->status)
        r->status = xstrdup("unknown");
    int si = col_index(st, "seed");
    r->seed = si >= 0 ? sqlite3_column_int64(st, si) : 0;
    r->duration_s = col_double(st, "duration_s");
    r->tick_s = col_double(st, "tick_s");
    r->capacity_rps = NAN;
    r->first_event_s = NAN;
    *yaml = col_text(st, "scenario_yaml");
    sqlite3_finalize(st);

    run_from_scenario(r, *yaml, warn);
    if (count_rows(ps, "SELECT count(DISTINCT node) FROM node_ticks WHERE run_id = ?", r->id,
                   &r->n_nodes, err, errlen)
        || count_rows(ps, "SELECT count(*) FROM ticks WHERE run_id = ?", r->id, &r->n_ticks, err,
                      errlen))
        return -1;
    if (!(r->tick_s > 0))
        r->tick_s = 1;
    if (!(r->duration_s > 0))
        r->duration_s = (double)r->n_ticks * r->tick_s;
    return 0;
}

static int str_cmp_null(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* Labels: "run ID[ NAME]: path=value, ..." over the parameters that some
 * drawn run overrides and whose values are not all alike (with one run,
 * every one it overrides) — first those this run overrides itself, then
 * the effective values of the others, so that what tells a run apart comes
 * before the label is cut to PLOT_LABEL_MAX; the seed when seeds differ and
 * no parameter says so; and the status of an unfinished run. */
static void make_labels(struct plot_set *ps, struct run_params *p)
{
    bool same_name = true, same_seed = true, seed_param = false;
    for (size_t i = 1; i < ps->n_runs; i++) {
        same_name = same_name && !strcmp(ps->runs[i].name, ps->runs[0].name);
        same_seed = same_seed && ps->runs[i].seed == ps->runs[0].seed;
    }
    /* the union of overridden paths, in first-seen order */
    const char **paths = NULL;
    size_t n_paths = 0;
    for (size_t i = 0; i < ps->n_runs; i++)
        for (size_t j = 0; j < p[i].n; j++) {
            size_t k = 0;
            while (k < n_paths && strcmp(paths[k], p[i].path[j]))
                k++;
            if (k == n_paths) {
                paths = xrealloc(paths, (n_paths + 1) * sizeof(*paths));
                paths[n_paths++] = p[i].path[j];
                seed_param = seed_param || !strcmp(p[i].path[j], "seed");
            }
        }
    /* each run's value of each path: its own, else its scenario's (own[] says which) */
    const char **val = xcalloc(ps->n_runs * n_paths + 1, sizeof(*val));
    bool *own = xcalloc(ps->n_runs * n_paths + 1, sizeof(*own));
    for (size_t i = 0; i < ps->n_runs; i++)
        for (size_t k = 0; k < n_paths; k++) {
            const char *v = NULL;
            for (size_t j = 0; j < p[i].n && !v; j++)
                if (!strcmp(p[i].path[j], paths[k]))
                    v = p[i].value[j];
            own[i * n_paths + k] = v != NULL;
            val[i * n_paths + k] = v ? v : yaml_scalar_at(p[i].yaml, paths[k]);
        }
    bool *alike = xcalloc(n_paths + 1, sizeof(*alike));
    for (size_t k = 0; k < n_paths; k++) {
        alike[k] = ps->n_runs > 1;
        for (size_t i = 1; i < ps->n_runs && alike[k]; i++)
            alike[k] = !str_cmp_null(val[i * n_paths + k], val[k]);
    }
    for (size_t i = 0; i < ps->n_runs; i++) {
        struct plot_run *r = &ps->runs[i];
        struct strbuf sb;
        sb_init(&sb);
        sb_printf(&sb, "run %lld", (long long)r->id);
        if (!same_name)
            sb_printf(&sb, " %s", r->name);
        const char *sep = ": ";
        for (int pass = 0; pass < 2; pass++) /* its own overrides, then the others */
            for (size_t k = 0; k < n_paths; k++) {
                if (alike[k] || own[i * n_paths + k] != (pass == 0))
                    continue;
                const char *v = val[i * n_paths + k];
                sb_printf(&sb, "%s%s=%s", sep, paths[k], v ? v : "default");
                sep = ", ";
            }
        if (!same_seed && !seed_param)
            sb_printf(&sb, "%sseed=%lld", sep, (long long)r->seed);
        if (strcmp(r->status, "complete"))
            sb_printf(&sb, " (%s)", r->status);
        r->label = sb_steal(&sb);
        utf8_truncate(r->label, PLOT_LABEL_MAX);
    }
    free(alike);
    free(own);
    free(val);
    free(paths);
}

/* ---- events ------------------------------------------------------------------ */

static int event_cmp(const void *pa, const void *pb)
{
    const struct plot_event *a = pa, *b = pb;
    if (a->t_s != b->t_s)
        return a->t_s < b->t_s ? -1 : 1;
    int c = strcmp(a->kind, b->kind);
    if (!c)
        c = str_cmp_null(a->node, b->node);
    if (!c)
        c = str_cmp_null(a->detail, b->detail);
    if (!c)
        c = a->run_no < b->run_no ? -1 : a->run_no > b->run_no;
    return c;
}

static int event_seq_cmp(const void *pa, const void *pb)
{
    const struct plot_event *a = pa, *b = pb;
    if (a->t_s != b->t_s)
        return a->t_s < b->t_s ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool same_event(const struct plot_event *a, const struct plot_event *b)
{
    return a->t_s == b->t_s && !strcmp(a->kind, b->kind) && !str_cmp_null(a->node, b->node)
           && !str_cmp_null(a->detail, b->detail);
}

static void free_event(struct plot_event *e)
{
    free(e->kind);
    free(e->node);
    free(e->detail);
    free(e->label);
}

static void merge_events(struct plot_set *ps, struct plot_event *ev, size_t n);
static void stagger_events(struct plot_set *ps);

/* The scenario events of the drawn runs (counting ejections and cascade
 * removals, which the strip marks apart), merged and staggered. */
static int read_events(struct plot_set *ps, char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(ps, "SELECT t_s, kind, node, detail FROM events WHERE run_id = ? "
                                   "ORDER BY t_s, rowid",
                               err, errlen);
    if (!st)
        return -1;
    struct plot_event *ev = NULL;
    size_t n = 0;
    for (size_t k = 0; k < ps->n_runs; k++) {
        sqlite3_bind_int64(st, 1, ps->runs[k].id);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *kind = (const char *)sqlite3_column_text(st, 1);
            const char *node = (const char *)sqlite3_column_text(st, 2);
            const char *detail = (const char *)sqlite3_column_text(st, 3);
            if (!kind)
                continue;
            if (!strcmp(kind, "eject")) {
                ps->n_ejections++;
                continue;
            }
            if (!strcmp(kind, "cascade_removal")) {
                ps->n_cascades++;
                continue;
            }
            char *label = event_label(kind, node, detail);
            if (!label)
                continue;
            utf8_truncate(label, PLOT_EVENT_LABEL_MAX);
            ev = xrealloc(ev, (n + 1) * sizeof(*ev));
            ev[n] = (struct plot_event){
                .t_s = sqlite3_column_double(st, 0),
                .kind = xstrdup(kind),
                .node = node ? xstrdup(node) : NULL,
                .detail = xstrdup(detail ? detail : ""),
                .label = label,
                .run_no = k + 1,
                .seq = n,
            };
            n++;
        }
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) {
            sqlite3_finalize(st);
            for (size_t i = 0; i < n; i++)
                free_event(&ev[i]);
            free(ev);
            return plot_set_sql_err(ps, err, errlen);
        }
    }
    sqlite3_finalize(st);
    merge_events(ps, ev, n);
    stagger_events(ps);
    return 0;
}

/* Merges an event every drawn run has into one with run_no 0, and puts the
 * events back in time order (those at one time in the scenario's order)
 * into ps->events. Takes ev. */
static void merge_events(struct plot_set *ps, struct plot_event *ev, size_t n)
{
    if (n)
        qsort(ev, n, sizeof(*ev), event_cmp);
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && same_event(&ev[i], &ev[j]))
            j++;
        if (j - i == ps->n_runs && ps->n_runs > 1) {
            ev[i].run_no = 0;
            for (size_t k = i + 1; k < j; k++)
                free_event(&ev[k]);
            ev[out++] = ev[i];
        } else {
            for (size_t k = i; k < j; k++)
                ev[out++] = ev[k];
        }
        i = j;
    }
    if (ps->n_runs == 1)
        for (size_t i = 0; i < out; i++)
            ev[i].run_no = 0;
    /* back to time order, events at the same time in the scenario's order */
    if (out)
        qsort(ev, out, sizeof(*ev), event_seq_cmp);
    ps->events = ev;
    ps->n_events = out;
}

/* Lanes for the labels of the events strip. */
static void stagger_events(struct plot_set *ps)
{
    struct plot_event *ev = ps->events;
    size_t out = ps->n_events;
    double *x = xcalloc(out + 1, sizeof(double)), *w = xcalloc(out + 1, sizeof(double));
    int *lv = xcalloc(out + 1, sizeof(int));
    double s_per_px = (ps->tmax_s > 0 ? ps->tmax_s : 1) / PLOT_AREA_PX;
    for (size_t i = 0; i < out; i++) {
        x[i] = ev[i].t_s;
        w[i] = ((double)utf8_chars(ev[i].label) * LABEL_CHAR_PX + LABEL_PAD_PX) * s_per_px;
    }
    ps->levels = stagger_levels(x, w, out, LABEL_GAP_PX * s_per_px, PLOT_MAX_LEVELS, lv);
    for (size_t i = 0; i < out; i++)
        ev[i].level = lv[i];
    free(x);
    free(w);
    free(lv);
}

int plot_set_load(struct plot_set *ps, const int64_t *ids, size_t n, struct diag *warn,
                  char *err, size_t errlen)
{
    int rc = -1;
    ps->runs = xcalloc(n, sizeof(*ps->runs));
    struct run_params *p = xcalloc(n, sizeof(*p));
    for (size_t i = 0; i < n; i++) {
        char *yaml = NULL;
        ps->runs[i].id = ids[i];
        ps->n_runs = i + 1;
        int bad = read_run(ps, &ps->runs[i], &yaml, warn, err, errlen)
                  || read_params(ps, ids[i], &p[i], err, errlen);
        if (!bad && yaml) {
            struct ytree_error ye;
            if (ytree_parse(yaml, strlen(yaml), &p[i].yaml, &ye))
                p[i].yaml = NULL;
        }
        free(yaml);
        if (bad)
            goto out;
        if (ps->runs[i].duration_s > ps->tmax_s)
            ps->tmax_s = ps->runs[i].duration_s;
    }
    make_labels(ps, p);
    if (read_events(ps, err, errlen))
        goto out;
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        run_params_deinit(&p[i]);
    free(p);
    return rc;
}

/* ---- data files ------------------------------------------------------------- */

/* A number for a data file; NULL and non-finite values are NaN. */
static void tsv_num(struct strbuf *sb, sqlite3_stmt *st, int col, double scale)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL) {
        sb_puts(sb, "NaN");
        return;
    }
    double v = sqlite3_column_double(st, col) * scale;
    if (!isfinite(v))
        sb_puts(sb, "NaN");
    else
        sb_printf(sb, "%.9g", v);
}

static void tsv_double(struct strbuf *sb, double v)
{
    if (!isfinite(v))
        sb_puts(sb, "NaN");
    else
        sb_printf(sb, "%.9g", v);
}

static int write_file(const char *dir, const char *name, const struct strbuf *sb, char *err,
                      size_t errlen)
{
    return plot_write_file(dir, name, sb->buf, sb->len, err, errlen);
}

/* Columns of the ticks data file: name in the database, header, scale.
 * Those a file made by an earlier ringsim lacks are written empty. */
static const struct {
    const char *col, *head;
    double scale;
} tick_cols[] = {
    {"t_s", "t_s", 1},
    {"hit_rate", "hit_rate_pct", 100},
    {"backend_qps", "backend_qps", 1},
    {"db_util", "db_util_pct", 100},
    {"db_p99_ms", "db_p99_ms", 1},
    {"client_p99_ms", "client_p99_ms", 1},
    {"redirects", "redirects", 1},
    {"warm_copies", "warm_copies", 1},
    {"warm_db_reads", "warm_db_reads", 1},
    {"fallback_reads", "fallback_reads", 1},
    {"stale_reads", "stale_reads", 1},
    {"stale_overwrites", "stale_overwrites", 1},
    {"ask_redirects", "ask_redirects", 1},
    {"moved_redirects", "moved_redirects", 1},
    {"migrated_keys", "migrated_keys", 1},
};

static bool has_tick_column(struct plot_set *ps, const char *col)
{
    char *sql = xasprintf("SELECT %s FROM ticks LIMIT 0", col);
    sqlite3_stmt *st = NULL;
    bool ok = sqlite3_prepare_v2(ps->db, sql, -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    free(sql);
    return ok;
}

static int write_ticks(struct plot_set *ps, const struct plot_run *r, struct strbuf *sb,
                       char *err, size_t errlen)
{
    struct strbuf sql;
    sb_init(&sql);
    sb_puts(&sql, "SELECT ");
    for (size_t c = 0; c < ARRAY_LEN(tick_cols); c++) {
        sb_printf(&sql, "%s%s", c ? ", " : "",
                  has_tick_column(ps, tick_cols[c].col) ? tick_cols[c].col : "NULL");
        sb_printf(sb, "%s%s", c ? "\t" : "", tick_cols[c].head);
    }
    sb_puts(&sql, " FROM ticks WHERE run_id = ? ORDER BY t_s");
    sb_putc(sb, '\n');
    sqlite3_stmt *st = prepare(ps, sql.buf, err, errlen);
    sb_deinit(&sql);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < (int)ARRAY_LEN(tick_cols); c++) {
            if (c)
                sb_putc(sb, '\t');
            tsv_num(sb, st, c, tick_cols[c].scale);
        }
        sb_putc(sb, '\n');
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : plot_set_sql_err(ps, err, errlen);
}

static int state_no(const char *s)
{
    for (size_t i = 0; s && i < ARRAY_LEN(state_names); i++)
        if (!strcmp(s, state_names[i]))
            return (int)i;
    return STATE_OTHER;
}

/* nodes-ID.tsv (rates) and states-ID.tsv (state intervals) in one pass. */
static int write_nodes(struct plot_set *ps, const struct plot_run *r, struct strbuf *rates,
                       struct strbuf *states, char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(ps, "SELECT t_s, node, requests, state FROM node_ticks "
                                   "WHERE run_id = ? ORDER BY node, t_s",
                               err, errlen);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    sb_puts(rates, "t_s\tnode_no\trequests_per_s\tnode\n");
    sb_puts(states, "t_from\tt_to\tnode_no\tstate_no\tnode\n");
    char *node = NULL, *shown = NULL; /* the node's id, and as drawn */
    int node_no = 0, cur_state = -1;
    double from = 0, last = 0;
    int rc;
    for (;;) {
        rc = sqlite3_step(st);
        bool row = rc == SQLITE_ROW;
        const char *nd = row ? (const char *)sqlite3_column_text(st, 1) : NULL;
        double t = row ? sqlite3_column_double(st, 0) : 0;
        int s = row ? state_no((const char *)sqlite3_column_text(st, 3)) : -1;
        bool new_node = row && (!node || strcmp(node, nd ? nd : ""));
        bool gap = row && !new_node && fabs(t - (last + r->tick_s)) > r->tick_s * 1e-3;
        /* close the current state interval */
        if (node && (!row || new_node || gap || s != cur_state)) {
            tsv_double(states, from);
            sb_putc(states, '\t');
            tsv_double(states, last + r->tick_s);
            sb_printf(states, "\t%d\t%d\t", node_no, cur_state);
            tsv_field(states, shown);
            sb_putc(states, '\n');
            from = t;
        }
        if (!row)
            break;
        if (new_node) {
            free(node);
            node = xstrdup(nd ? nd : "");
            free(shown);
            shown = xstrdup(node);
            utf8_truncate(shown, PLOT_NODE_MAX);
            node_no++;
            from = t;
        }
        cur_state = s;
        last = t;
        tsv_double(rates, t);
        sb_printf(rates, "\t%d\t", node_no);
        if (s == STATE_REMOVED) /* out of the cluster: no line, the strip says why */
            sb_puts(rates, "NaN");
        else
            tsv_num(rates, st, 2, 1.0 / r->tick_s);
        sb_putc(rates, '\t');
        tsv_field(rates, shown);
        sb_putc(rates, '\n');
    }
    free(node);
    free(shown);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : plot_set_sql_err(ps, err, errlen);
}

static int write_ejections(struct plot_set *ps, struct strbuf *sb, char *err, size_t errlen)
{
    sqlite3_stmt *st = prepare(ps, "SELECT t_s, kind, node FROM events WHERE run_id = ? AND "
                                   "kind IN ('eject', 'cascade_removal') ORDER BY t_s, rowid",
                               err, errlen);
    if (!st)
        return -1;
    sb_puts(sb, "t_s\trun_no\tcascade\tnode\n");
    for (size_t k = 0; k < ps->n_runs; k++) {
        sqlite3_bind_int64(st, 1, ps->runs[k].id);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *kind = (const char *)sqlite3_column_text(st, 1);
            tsv_double(sb, sqlite3_column_double(st, 0));
            sb_printf(sb, "\t%zu\t%d\t", k + 1, kind && !strcmp(kind, "cascade_removal"));
            tsv_field(sb, (const char *)sqlite3_column_text(st, 2));
            sb_putc(sb, '\n');
        }
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) {
            sqlite3_finalize(st);
            return plot_set_sql_err(ps, err, errlen);
        }
    }
    sqlite3_finalize(st);
    return 0;
}

int plot_write_data(struct plot_set *ps, const char *datadir, char *err, size_t errlen)
{
    struct strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    int rc = -1;

    sb_puts(&a, "run_id\tduration_s\ttick_s\tcapacity_rps\tnodes\tname\tlabel\n");
    for (size_t k = 0; k < ps->n_runs; k++) {
        const struct plot_run *r = &ps->runs[k];
        sb_printf(&a, "%lld\t", (long long)r->id);
        tsv_double(&a, r->duration_s);
        sb_putc(&a, '\t');
        tsv_double(&a, r->tick_s);
        sb_putc(&a, '\t');
        tsv_double(&a, r->capacity_rps);
        sb_printf(&a, "\t%zu\t", r->n_nodes);
        tsv_field(&a, r->name);
        sb_putc(&a, '\t');
        tsv_field(&a, r->label);
        sb_putc(&a, '\n');
    }
    if (write_file(datadir, "runs.tsv", &a, err, errlen))
        goto out;

    for (size_t k = 0; k < ps->n_runs; k++) {
        const struct plot_run *r = &ps->runs[k];
        char name[64];
        sb_reset(&a);
        if (write_ticks(ps, r, &a, err, errlen))
            goto out;
        snprintf(name, sizeof name, "ticks-%lld.tsv", (long long)r->id);
        if (write_file(datadir, name, &a, err, errlen))
            goto out;
        sb_reset(&a);
        sb_reset(&b);
        if (write_nodes(ps, r, &a, &b, err, errlen))
            goto out;
        snprintf(name, sizeof name, "nodes-%lld.tsv", (long long)r->id);
        if (write_file(datadir, name, &a, err, errlen))
            goto out;
        snprintf(name, sizeof name, "states-%lld.tsv", (long long)r->id);
        if (write_file(datadir, name, &b, err, errlen))
            goto out;
    }

    sb_reset(&a);
    sb_puts(&a, "t_s\tlevel\trun_no\tkind\tlabel\n");
    for (size_t i = 0; i < ps->n_events; i++) {
        const struct plot_event *e = &ps->events[i];
        tsv_double(&a, e->t_s);
        sb_printf(&a, "\t%d\t%zu\t", e->level, e->run_no);
        tsv_field(&a, e->kind);
        sb_putc(&a, '\t');
        tsv_field(&a, e->label);
        sb_putc(&a, '\n');
    }
    if (write_file(datadir, "events.tsv", &a, err, errlen))
        goto out;

    sb_reset(&a);
    if (write_ejections(ps, &a, err, errlen) || write_file(datadir, "ejections.tsv", &a, err, errlen))
        goto out;
    rc = 0;
out:
    sb_deinit(&a);
    sb_deinit(&b);
    return rc;
}
