/*
 * report.c — a results database read back as combinations of parameters
 * (report.h; output/README.md, "Reports").
 *
 * The database is opened read-only and read in one transaction (a run
 * being recorded meanwhile is seen as of one moment): the runs with their
 * summaries, then every params row. Only complete runs with a summary are
 * taken; the others are counted in a note.
 *
 * A combination is the runs that share the scenario name and, for each
 * --by path (normalized as a run reads it: nodes.01.weight is
 * nodes.1.weight, override_path_normalize), the same value: the run's params row for it, else the value in
 * its stored effective scenario (`runs.scenario_yaml`, which holds every
 * key), so a run that did not override a parameter still has its value.
 * Without --by, the paths are every params path but `seed` whose values
 * differ between the runs, in the order they first appear (a sweep's --vary
 * order). Combinations are ordered by scenario name (strcmp), then by
 * each path's values (report_class_values: numbers, durations and sizes by
 * magnitude, other values by strcmp; a value written two ways, "0" and
 * "0s", "5s" and "5000ms", is one value, shown as the first of its ways in
 * strcmp order, and --baseline matches it either way), and the runs of a
 * combination by
 * seed, then by their metrics (sort_group_runs), so the sums over them and
 * everything printed are the same however the runs were recorded or merged:
 * shards merged in any order report alike, byte for byte.
 *
 * With --baseline PATH=VALUE, each combination's baseline is the one with
 * the same scenario and other values whose PATH is VALUE; the difference of
 * a metric is taken run by run, pairing the runs of the same seed and the
 * same pooled parameters (repeats left out: pair_groups), as common random
 * numbers make them see the same requests.
 *
 * Costs: O(runs log runs) to group, O(groups log groups) to find the
 * baselines, O(runs x metrics) for the statistics; the stored scenario of a
 * run is parsed only when a --by path is missing from its params.
 */
#include "output/report.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/results.h"
#include "sim/scenario.h"
#include "sim/yamltree.h"

/* One params row of a run. */
struct param {
    char *path, *value;
};

/* What is read for each run taken, while the report is built. */
struct run_extra {
    struct param *params;
    size_t n_params;
    struct ynode *yaml;   /* its stored scenario, parsed when first needed */
    bool yaml_tried;
};

struct loader {
    const struct report_options *o;
    struct report *r;
    sqlite3 *db;
    struct run_extra *extra;   /* per report run */
    char **names;              /* distinct scenario names, in strcmp order */
    size_t n_names;
    size_t *name_of;           /* per run: its index in names */
    size_t **rank;             /* per --by path, per run: the rank of its value */
    int *kind;                 /* per --by path: how its values read (report_class_values) */
    char *err;
    size_t errlen;
};

const char *yaml_scalar_at(const struct ynode *n, const char *path)
{
    char *copy = xstrdup(path), *save = NULL;
    for (char *part = strtok_r(copy, ".", &save); part && n; part = strtok_r(NULL, ".", &save)) {
        if (n->type == YNODE_MAP) {
            n = ynode_map_get(n, part);
        } else if (n->type == YNODE_SEQ) {
            char *end;
            unsigned long i = strtoul(part, &end, 10);
            n = (*end || end == part || i >= n->n) ? NULL : n->kids[i];
        } else {
            n = NULL;
        }
    }
    free(copy);
    return n && n->type == YNODE_SCALAR ? n->text : NULL;
}

/* ---- reading ---------------------------------------------------------------------- */

/* A read that failed: the file's fault (damaged, not ringsim's) is bad
 * input; the system's (an I/O error, no memory) a failure. */
static enum report_status sql_failed(struct loader *L)
{
    snprintf(L->err, L->errlen, "%s: %s", L->o->db, sqlite3_errmsg(L->db));
    return results_input_at_fault(sqlite3_errcode(L->db)) ? REPORT_BAD_INPUT : REPORT_FAILED;
}

static bool has_column(sqlite3 *db, const char *table, const char *col)
{
    char *sql = xasprintf("SELECT %s FROM %s LIMIT 0", col, table);
    sqlite3_stmt *st = NULL;
    bool ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    free(sql);
    return ok;
}

/* Opens the database read-only and checks it has what a report reads. */
static enum report_status open_db(struct loader *L)
{
    const char *path = L->o->db;
    /* a name that is not there, or not readable, is bad input, as in run,
     * merge and plot */
    int unreadable = results_input_readable(path, L->err, L->errlen);
    if (unreadable)
        return unreadable == -1 ? REPORT_BAD_INPUT : REPORT_FAILED;
    if (sqlite3_open_v2(path, &L->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(L->err, L->errlen, "%s: cannot open: %s", path,
                 L->db ? sqlite3_errmsg(L->db) : "out of memory");
        return REPORT_FAILED;
    }
    sqlite3_busy_timeout(L->db, 10000);
    static const struct {
        const char *table, *cols;
    } need[] = {
        {"runs", "run_id, name, seed, status, scenario_yaml"},
        {"params", "run_id, path, value"},
        {"summary", "run_id"},
    };
    for (size_t i = 0; i < ARRAY_LEN(need); i++) {
        char *sql = xasprintf("SELECT %s FROM %s LIMIT 0", need[i].cols, need[i].table);
        sqlite3_stmt *q = NULL;
        int rc = sqlite3_prepare_v2(L->db, sql, -1, &q, NULL);
        sqlite3_finalize(q);
        free(sql);
        if (rc != SQLITE_OK && !results_input_at_fault(sqlite3_errcode(L->db))) {
            /* locked by another process too long, an I/O error: not the file's fault */
            snprintf(L->err, L->errlen, "%s: cannot read it (%s)", path, sqlite3_errmsg(L->db));
            return REPORT_FAILED;
        }
        if (rc != SQLITE_OK) {
            snprintf(L->err, L->errlen, "%s: not a ringsim results database (%s); give a file "
                                        "written by ringsim run, sweep or merge",
                     path, sqlite3_errmsg(L->db));
            return REPORT_BAD_INPUT;
        }
    }
    return REPORT_OK;
}

static size_t name_index_add(struct loader *L, const char *name)
{
    for (size_t i = 0; i < L->n_names; i++)
        if (!strcmp(L->names[i], name))
            return i;
    L->names = xrealloc(L->names, (L->n_names + 1) * sizeof(*L->names));
    L->names[L->n_names] = xstrdup(name);
    return L->n_names++;
}

static int str_ptr_cmp(const void *pa, const void *pb)
{
    return strcmp(**(char *const *const *)pa, **(char *const *const *)pb);
}

/* The scenario names in strcmp order (not as first seen, which depends on
 * the order runs were merged), each run's name_of following. */
static void sort_names(struct loader *L)
{
    size_t n = L->n_names;
    char ***at = xcalloc(n + 1, sizeof(*at)); /* pointers into L->names, sorted */
    for (size_t i = 0; i < n; i++)
        at[i] = &L->names[i];
    qsort(at, n, sizeof(*at), str_ptr_cmp);
    size_t *to = xcalloc(n + 1, sizeof(*to));
    char **sorted = xcalloc(n + 1, sizeof(*sorted));
    for (size_t i = 0; i < n; i++) {
        to[at[i] - L->names] = i;
        sorted[i] = *at[i];
    }
    for (size_t k = 0; k < L->r->n_runs; k++)
        L->name_of[k] = to[L->name_of[k]];
    free(L->names);
    L->names = sorted;
    free(to);
    free(at);
}

/* The complete runs with a summary, their metrics; the others counted. */
static enum report_status read_runs(struct loader *L)
{
    struct report *r = L->r;
    struct strbuf sql;
    sb_init(&sql);
    sb_puts(&sql, "SELECT r.run_id, r.name, r.seed, r.status, s.run_id IS NOT NULL");
    for (size_t m = 0; m < r->n_all; m++) {
        if (has_column(L->db, "summary", r->metrics[m].name))
            sb_printf(&sql, ", s.%s", r->metrics[m].name);
        else
            sb_puts(&sql, ", NULL");
    }
    sb_puts(&sql, " FROM runs r LEFT JOIN summary s ON s.run_id = r.run_id ORDER BY r.run_id");
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(L->db, sql.buf, -1, &st, NULL);
    sb_deinit(&sql);
    if (rc != SQLITE_OK)
        return sql_failed(L);
    size_t cap = 0, other = 0, no_summary = 0;
    struct strbuf statuses;
    sb_init(&statuses);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *status = (const char *)sqlite3_column_text(st, 3);
        bool complete = status && !strcmp(status, "complete");
        if (!complete || !sqlite3_column_int(st, 4)) {
            if (complete) {
                no_summary++;
            } else {
                other++;
                if (!strstr(statuses.buf ? statuses.buf : "", status ? status : "(none)"))
                    sb_printf(&statuses, "%s%s", statuses.len ? ", " : "",
                              status ? status : "(none)");
            }
            continue;
        }
        if (r->n_runs == cap) {
            cap = cap ? 2 * cap : 64;
            r->runs = xrealloc(r->runs, cap * sizeof(*r->runs));
            L->extra = xrealloc(L->extra, cap * sizeof(*L->extra));
            L->name_of = xrealloc(L->name_of, cap * sizeof(*L->name_of));
        }
        struct report_run *run = &r->runs[r->n_runs];
        memset(run, 0, sizeof(*run));
        memset(&L->extra[r->n_runs], 0, sizeof(*L->extra));
        run->run_id = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        L->name_of[r->n_runs] = name_index_add(L, name ? name : "");
        run->seed = sqlite3_column_int64(st, 2);
        run->m = xcalloc(r->n_all + 1, sizeof(*run->m));
        for (size_t m = 0; m < r->n_all; m++)
            run->m[m] = sqlite3_column_type(st, 5 + (int)m) == SQLITE_NULL
                            ? NAN
                            : sqlite3_column_double(st, 5 + (int)m);
        r->n_runs++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sb_deinit(&statuses);
        return sql_failed(L);
    }
    sort_names(L);
    for (size_t i = 0; i < r->n_runs; i++)
        r->runs[i].name = L->names[L->name_of[i]];
    if (other)
        diag_add(&r->notes, "%zu run%s left out: not complete (%s)", other,
                 other == 1 ? "" : "s", statuses.buf);
    if (no_summary)
        diag_add(&r->notes, "%zu complete run%s left out: no summary row", no_summary,
                 no_summary == 1 ? "" : "s");
    sb_deinit(&statuses);
    r->names_differ = L->n_names > 1;
    return REPORT_OK;
}

/* The index of run_id among the runs taken (sorted by run_id), or -1. */
static long run_pos(const struct report *r, int64_t run_id)
{
    size_t lo = 0, hi = r->n_runs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->runs[mid].run_id < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_runs && r->runs[lo].run_id == run_id ? (long)lo : -1;
}

static enum report_status read_params(struct loader *L)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(L->db, "SELECT run_id, path, value FROM params ORDER BY run_id, rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return sql_failed(L);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long k = run_pos(L->r, sqlite3_column_int64(st, 0));
        const char *given = (const char *)sqlite3_column_text(st, 1);
        const char *value = (const char *)sqlite3_column_text(st, 2);
        if (k < 0 || !given)
            continue;
        struct run_extra *x = &L->extra[k];
        /* the path as the run read it: nodes.01.weight is nodes.1.weight */
        char *path = override_path_normalize(given);
        /* a path given twice (a --set and a --vary of it): the later wins, as in the run */
        size_t j = 0;
        while (j < x->n_params && strcmp(x->params[j].path, path))
            j++;
        if (j == x->n_params) {
            x->params = xrealloc(x->params, (x->n_params + 1) * sizeof(*x->params));
            x->params[x->n_params++] = (struct param){path, NULL};
        } else {
            free(path);
        }
        free(x->params[j].value);
        x->params[j].value = xstrdup(value ? value : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? REPORT_OK : sql_failed(L);
}

/* The stored scenario of run k, parsed (NULL if it has none or it does
 * not parse). */
static const struct ynode *run_yaml(struct loader *L, size_t k)
{
    struct run_extra *x = &L->extra[k];
    if (x->yaml_tried)
        return x->yaml;
    x->yaml_tried = true;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(L->db, "SELECT scenario_yaml FROM runs WHERE run_id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_int64(st, 1, L->r->runs[k].run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        struct ytree_error ye;
        if (ytree_parse(text, (size_t)sqlite3_column_bytes(st, 0), &x->yaml, &ye))
            x->yaml = NULL;
    }
    sqlite3_finalize(st);
    return x->yaml;
}

/* The value of path for run k: its params row, else its stored scenario's
 * (which holds every key, `seed` too), else NULL. */
static const char *run_value(struct loader *L, size_t k, const char *path)
{
    const struct run_extra *x = &L->extra[k];
    for (size_t j = 0; j < x->n_params; j++)
        if (!strcmp(x->params[j].path, path))
            return x->params[j].value;
    return yaml_scalar_at(run_yaml(L, k), path);
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static void add_path(char ***list, size_t *n, const char *path)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*list)[i], path))
            return;
    *list = xrealloc(*list, (*n + 1) * sizeof(**list));
    (*list)[(*n)++] = xstrdup(path);
}

/* Whether path has more than one value over the runs (values of equal
 * magnitude, "0" and "0s", are one; *first: the value of the first run). */
static bool varies(struct loader *L, const char *path, const char **first)
{
    size_t n = L->r->n_runs;
    *first = n ? run_value(L, 0, path) : NULL;
    char **v = xcalloc(n + 1, sizeof(*v));
    size_t *rank = xcalloc(n + 1, sizeof(*rank)), *canon = xcalloc(n + 1, sizeof(*canon));
    for (size_t k = 0; k < n; k++)
        v[k] = (char *)run_value(L, k, path);
    report_class_values(v, n, rank, canon);
    bool differ = false;
    for (size_t k = 1; k < n && !differ; k++)
        differ = rank[k] != rank[0];
    free(v);
    free(rank);
    free(canon);
    return differ;
}

/* The --by paths, given or found, and the params every run has alike. */
static enum report_status choose_by(struct loader *L)
{
    struct report *r = L->r;
    char **seen = NULL; /* every params path, in order of appearance */
    size_t n_seen = 0;
    for (size_t k = 0; k < r->n_runs; k++)
        for (size_t j = 0; j < L->extra[k].n_params; j++)
            add_path(&seen, &n_seen, L->extra[k].params[j].path);
    enum report_status rc = REPORT_OK;
    if (L->o->n_by) {
        for (size_t i = 0; i < L->o->n_by; i++) {
            char *path = override_path_normalize(L->o->by[i]);
            bool any = false;
            for (size_t k = 0; k < r->n_runs && !any; k++)
                any = run_value(L, k, path) != NULL;
            if (!any) {
                struct strbuf sb;
                sb_init(&sb);
                for (size_t j = 0; j < n_seen; j++)
                    sb_printf(&sb, "%s%s", j ? ", " : "", seen[j]);
                snprintf(L->err, L->errlen, "--by %s: no run has %s, neither as a parameter "
                                            "nor in its stored scenario (the parameters: %s)",
                         path, path, sb.len ? sb.buf : "none");
                sb_deinit(&sb);
                free(path);
                rc = REPORT_BAD_INPUT;
                goto out;
            }
            add_path(&r->by, &r->n_by, path);
            free(path);
        }
    } else {
        for (size_t j = 0; j < n_seen; j++) {
            const char *first;
            if (strcmp(seen[j], "seed") && varies(L, seen[j], &first))
                add_path(&r->by, &r->n_by, seen[j]);
        }
    }
    /* the params alike in every run, and those that vary but were left out */
    struct strbuf pooled;
    sb_init(&pooled);
    for (size_t j = 0; j < n_seen; j++) {
        if (!strcmp(seen[j], "seed") || name_index((const char *const *)r->by, r->n_by, seen[j]) >= 0)
            continue;
        const char *first;
        if (varies(L, seen[j], &first)) {
            sb_printf(&pooled, "%s%s", pooled.len ? ", " : "", seen[j]);
        } else if (first) {
            r->fixed_paths = xrealloc(r->fixed_paths, (r->n_fixed + 1) * sizeof(char *));
            r->fixed_values = xrealloc(r->fixed_values, (r->n_fixed + 1) * sizeof(char *));
            r->fixed_paths[r->n_fixed] = xstrdup(seen[j]);
            r->fixed_values[r->n_fixed++] = xstrdup(first);
        }
    }
    if (pooled.len)
        diag_add(&r->notes, "%s also var%s between the runs and %s pooled in each combination "
                            "(--by %s keeps %s apart)",
                 pooled.buf, strchr(pooled.buf, ',') ? "y" : "ies",
                 strchr(pooled.buf, ',') ? "are" : "is", pooled.buf,
                 strchr(pooled.buf, ',') ? "them" : "it");
    sb_deinit(&pooled);
out:
    for (size_t j = 0; j < n_seen; j++)
        free(seen[j]);
    free(seen);
    return rc;
}

/* Each run's --by values, and their ranks: values of equal magnitude
 * ("0" and "0s") are one value, shown as its class's first in order. */
static void take_values(struct loader *L)
{
    struct report *r = L->r;
    L->rank = xcalloc(r->n_by + 1, sizeof(*L->rank));
    L->kind = xcalloc(r->n_by + 1, sizeof(*L->kind));
    for (size_t k = 0; k < r->n_runs; k++)
        r->runs[k].values = xcalloc(r->n_by + 1, sizeof(char *));
    for (size_t b = 0; b < r->n_by; b++) {
        char **distinct = NULL; /* the runs' texts, owned by L->extra */
        size_t n = 0;
        size_t *which = xcalloc(r->n_runs + 1, sizeof(*which));
        for (size_t k = 0; k < r->n_runs; k++) {
            const char *v = run_value(L, k, r->by[b]);
            size_t d = 0;
            while (d < n && !same_text(distinct[d], v))
                d++;
            if (d == n) {
                distinct = xrealloc(distinct, (n + 1) * sizeof(*distinct));
                distinct[n++] = (char *)v;
            }
            which[k] = d;
        }
        size_t *rank = xcalloc(n + 1, sizeof(*rank)), *canon = xcalloc(n + 1, sizeof(*canon));
        L->kind[b] = report_class_values(distinct, n, rank, canon);
        L->rank[b] = xcalloc(r->n_runs + 1, sizeof(size_t));
        for (size_t k = 0; k < r->n_runs; k++) {
            const char *v = distinct[canon[which[k]]];
            r->runs[k].values[b] = v ? xstrdup(v) : NULL;
            L->rank[b][k] = rank[which[k]];
        }
        free(rank);
        free(canon);
        free(which);
        free(distinct);
    }
}

/* Compares the combinations of runs a and b: scenario, then each --by
 * value's rank but that of path skip. */
static int combo_cmp_skip(const struct loader *L, size_t a, size_t b, size_t skip)
{
    if (L->name_of[a] != L->name_of[b])
        return L->name_of[a] < L->name_of[b] ? -1 : 1;
    for (size_t p = 0; p < L->r->n_by; p++) {
        if (p == skip)
            continue;
        size_t ra = L->rank[p][a], rb = L->rank[p][b];
        if (ra != rb)
            return ra < rb ? -1 : 1;
    }
    return 0;
}

/* An element to sort: a run (or a group and its first run), carrying what
 * the comparison needs, so that qsort needs no state outside it. */
struct sort_item {
    const struct loader *L;
    size_t skip;      /* the --by path left out of the comparison, or SIZE_MAX */
    size_t id;        /* the run, or the group */
    size_t run;       /* the run compared */
};

static int sort_item_cmp(const void *pa, const void *pb)
{
    const struct sort_item *a = pa, *b = pb;
    int c = combo_cmp_skip(a->L, a->run, b->run, a->skip);
    return c ? c : (a->id < b->id ? -1 : a->id > b->id);
}

/* A run of a group to sort, with the report it is read from. */
struct group_item {
    const struct report *r;
    size_t run;
};

/* Seed, then the metrics (NULL first), then run_id: an order of the runs
 * of a combination that only their content decides, but for runs alike in
 * every value, whose order changes nothing. */
static int group_item_cmp(const void *pa, const void *pb)
{
    const struct group_item *a = pa, *b = pb;
    const struct report_run *x = &a->r->runs[a->run], *y = &b->r->runs[b->run];
    if (x->seed != y->seed)
        return x->seed < y->seed ? -1 : 1;
    for (size_t m = 0; m < a->r->n_all; m++) {
        double u = x->m[m], v = y->m[m];
        if (isnan(u) != isnan(v))
            return isnan(u) ? -1 : 1;
        if (!isnan(u) && u != v)
            return u < v ? -1 : 1;
    }
    return x->run_id < y->run_id ? -1 : x->run_id > y->run_id;
}

/* Orders a group's runs by group_item_cmp: the sums over them (means,
 * CIs), the JSON seeds and the pairing with a baseline are then the same
 * whatever order the runs were recorded or merged in. */
static void sort_group_runs(const struct report *r, struct report_group *g)
{
    struct group_item *it = xcalloc(g->n_runs + 1, sizeof(*it));
    for (size_t i = 0; i < g->n_runs; i++)
        it[i] = (struct group_item){r, g->runs[i]};
    qsort(it, g->n_runs, sizeof(*it), group_item_cmp);
    for (size_t i = 0; i < g->n_runs; i++)
        g->runs[i] = it[i].run;
    free(it);
}

/* The runs grouped into combinations, in order. */
static void make_groups(struct loader *L)
{
    struct report *r = L->r;
    struct sort_item *order = xcalloc(r->n_runs + 1, sizeof(*order));
    for (size_t k = 0; k < r->n_runs; k++)
        order[k] = (struct sort_item){L, SIZE_MAX, k, k};
    qsort(order, r->n_runs, sizeof(*order), sort_item_cmp);
    size_t cap = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        size_t k = order[i].run;
        if (!i || combo_cmp_skip(L, order[i - 1].run, k, SIZE_MAX)) {
            if (r->n_groups == cap) {
                cap = cap ? 2 * cap : 16;
                r->groups = xrealloc(r->groups, cap * sizeof(*r->groups));
            }
            struct report_group *g = &r->groups[r->n_groups++];
            memset(g, 0, sizeof(*g));
            g->name = r->runs[k].name;
            g->values = r->runs[k].values;
            g->baseline = -1;
        }
        struct report_group *g = &r->groups[r->n_groups - 1];
        g->runs = xrealloc(g->runs, (g->n_runs + 1) * sizeof(*g->runs));
        g->runs[g->n_runs++] = k;
    }
    free(order);
    for (size_t gi = 0; gi < r->n_groups; gi++)
        sort_group_runs(r, &r->groups[gi]);
}

static void describe_groups(struct report *r)
{
    double *v = NULL;
    size_t cap = 0;
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        struct report_group *g = &r->groups[gi];
        if (g->n_runs > cap) {
            cap = g->n_runs;
            v = xrealloc(v, cap * sizeof(*v));
        }
        g->stats = xcalloc(r->n_all + 1, sizeof(*g->stats));
        for (size_t m = 0; m < r->n_all; m++) {
            for (size_t i = 0; i < g->n_runs; i++)
                v[i] = r->runs[g->runs[i]].m[m];
            stats_describe(v, g->n_runs, &g->stats[m]);
        }
    }
    free(v);
}

/* ---- the baseline ----------------------------------------------------------------- */

/* Checks --baseline and finds each combination's baseline. */
static enum report_status find_baselines(struct loader *L)
{
    struct report *r = L->r;
    long b = name_index((const char *const *)r->by, r->n_by, r->base_path);
    if (b < 0) {
        struct strbuf sb;
        sb_init(&sb);
        for (size_t i = 0; i < r->n_by; i++)
            sb_printf(&sb, "%s%s", i ? ", " : "", r->by[i]);
        snprintf(L->err, L->errlen, "--baseline %s=%s: %s is not one of the parameters that "
                                    "make a combination (%s); add --by %s",
                 r->base_path, r->base_value, r->base_path, sb.len ? sb.buf : "none varies",
                 r->base_path);
        sb_deinit(&sb);
        return REPORT_BAD_INPUT;
    }
    r->base_by = (size_t)b;
    bool found = false;
    for (size_t g = 0; g < r->n_groups && !found; g++)
        found = report_same_value(r->groups[g].values[b], r->base_value, L->kind[b]);
    if (!found) {
        struct strbuf sb;
        sb_init(&sb);
        for (size_t g = 0, n = 0; g < r->n_groups; g++) {
            const char *v = r->groups[g].values[b];
            bool dup = false;
            for (size_t h = 0; h < g && !dup; h++)
                dup = same_text(r->groups[h].values[b], v);
            if (!dup && n++ < 20)
                sb_printf(&sb, "%s%s", sb.len ? ", " : "", v ? v : "(none)");
        }
        snprintf(L->err, L->errlen, "--baseline %s=%s: no run has %s=%s (its values: %s)",
                 r->base_path, r->base_value, r->base_path, r->base_value, sb.buf);
        sb_deinit(&sb);
        return REPORT_BAD_INPUT;
    }
    /* groups sorted by their key without the baseline path: each run of
     * equal keys holds one baseline at most */
    struct sort_item *keys = xcalloc(r->n_groups + 1, sizeof(*keys));
    for (size_t g = 0; g < r->n_groups; g++)
        keys[g] = (struct sort_item){L, r->base_by, g, r->groups[g].runs[0]};
    qsort(keys, r->n_groups, sizeof(*keys), sort_item_cmp);
    for (size_t i = 0; i < r->n_groups;) {
        size_t j = i;
        long base = -1;
        while (j < r->n_groups && !combo_cmp_skip(L, keys[i].run, keys[j].run, r->base_by)) {
            if (report_same_value(r->groups[keys[j].id].values[b], r->base_value, L->kind[b]))
                base = (long)keys[j].id;
            j++;
        }
        for (size_t k = i; k < j; k++)
            r->groups[keys[k].id].baseline = base;
        i = j;
    }
    free(keys);
    return REPORT_OK;
}

/* Whether a params path is one pooled in a combination: not seed, not a
 * --by path (alike within a combination, if perhaps written two ways or
 * left to the stored scenario; the baseline's differs from the
 * combination's by design). */
static bool pooled(const struct report *r, const char *path)
{
    return strcmp(path, "seed") /* compared as the runs' own */
           && name_index((const char *const *)r->by, r->n_by, path) < 0;
}

/* Whether runs a and b have the same pooled params rows (as sets): whether
 * they agree on every parameter pooled in their combinations. */
static bool same_params(const struct loader *L, size_t a, size_t b)
{
    const struct run_extra *x = &L->extra[a], *y = &L->extra[b];
    size_t nx = 0, ny = 0;
    for (size_t j = 0; j < y->n_params; j++)
        ny += pooled(L->r, y->params[j].path);
    /* a run's paths are distinct (read_params): x's within y's, as many */
    for (size_t i = 0; i < x->n_params; i++) {
        if (!pooled(L->r, x->params[i].path))
            continue;
        nx++;
        bool found = false;
        for (size_t j = 0; j < y->n_params && !found; j++)
            found = !strcmp(x->params[i].path, y->params[j].path)
                    && same_text(x->params[i].value, y->params[j].value);
        if (!found)
            return false;
    }
    return nx == ny;
}

/* Whether the run at g->runs[i] repeats an earlier run of g: the same seed
 * and parameters (the same run recorded twice: a database merged twice, a
 * shard run twice, a run with a --set of the value another took from its
 * scenario). g's runs are sorted by seed (sort_group_runs). */
static bool is_repeat(const struct loader *L, const struct report_group *g, size_t i)
{
    const struct report *r = L->r;
    for (size_t a = i; a-- > 0 && r->runs[g->runs[a]].seed == r->runs[g->runs[i]].seed;)
        if (same_params(L, g->runs[a], g->runs[i]))
            return true;
    return false;
}

/* The paired differences of every combination from its baseline: a run is
 * paired with the baseline's run of the same seed and the same pooled
 * parameters (a parameter that varies but is not a --by path: each of its
 * values is paired with itself), repeats left out; each run in one pair at
 * most. In g's order (seed, then metrics), each run takes the first such
 * run of the baseline's, so the pairs never depend on the order the runs
 * were recorded in. */
static void pair_groups(struct loader *L)
{
    struct report *r = L->r;
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        struct report_group *g = &r->groups[gi];
        g->diff = xcalloc(r->n_metrics + 1, sizeof(*g->diff));
        for (size_t m = 0; m < r->n_metrics; m++)
            g->diff[m] = (struct diff_stats){0, NAN, NAN, NAN, NAN};
        if (g->baseline < 0)
            continue;
        const struct report_group *bg = &r->groups[g->baseline];
        size_t *pa = xcalloc(g->n_runs + 1, sizeof(*pa)), *pb = xcalloc(g->n_runs + 1, sizeof(*pb));
        bool *used = xcalloc(bg->n_runs + 1, sizeof(*used)); /* paired, or a repeat */
        for (size_t j = 0; j < bg->n_runs; j++)
            used[j] = is_repeat(L, bg, j);
        size_t np = 0;
        for (size_t i = 0, from = 0; i < g->n_runs; i++) {
            int64_t seed = r->runs[g->runs[i]].seed;
            while (from < bg->n_runs && r->runs[bg->runs[from]].seed < seed)
                from++;
            if (is_repeat(L, g, i))
                continue;
            for (size_t j = from; j < bg->n_runs && r->runs[bg->runs[j]].seed == seed; j++) {
                if (used[j] || !same_params(L, g->runs[i], bg->runs[j]))
                    continue;
                used[j] = true;
                pa[np] = g->runs[i];
                pb[np++] = bg->runs[j];
                break;
            }
        }
        double *x = xcalloc(np + 1, sizeof(*x)), *y = xcalloc(np + 1, sizeof(*y));
        for (size_t m = 0; m < r->n_metrics; m++) {
            for (size_t k = 0; k < np; k++) {
                x[k] = r->runs[pa[k]].m[m];
                y[k] = r->runs[pb[k]].m[m];
            }
            stats_paired(x, y, np, &g->diff[m]);
        }
        free(x);
        free(y);
        free(pa);
        free(pb);
        free(used);
    }
}

/* A note when runs of a combination repeat a seed with the same parameters:
 * the same run recorded twice (a database merged twice, a shard run twice)
 * would count as two independent samples. Runs that differ in a pooled
 * parameter are not repeats. O(runs of a seed squared) per seed of a
 * combination. */
static void note_seed_repeats(struct loader *L)
{
    struct report *r = L->r;
    size_t dups = 0, groups = 0;
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        const struct report_group *g = &r->groups[gi];
        size_t before = dups;
        for (size_t i = 0; i < g->n_runs; i++)
            dups += is_repeat(L, g, i);
        groups += dups > before;
    }
    if (dups)
        diag_add(&r->notes, "%zu run%s repeat%s a seed and the parameters of another run within "
                            "%s combination%s (the same run recorded twice? a database merged "
                            "twice?): each counts in the statistics as a sample of its own%s",
                 dups, dups == 1 ? "" : "s", dups == 1 ? "s" : "",
                 groups == 1 ? "its" : "their", groups == 1 ? "" : "s",
                 r->base_path ? ", and only the first is paired with the baseline" : "");
}

/* ---- the whole -------------------------------------------------------------------- */

static enum report_status take_options(struct loader *L)
{
    const struct report_options *o = L->o;
    struct report *r = L->r;
    size_t n = o->n_metrics ? o->n_metrics : report_n_default_metrics;
    r->metrics = xcalloc(n + report_n_metrics() + 1, sizeof(*r->metrics));
    for (size_t i = 0; i < n; i++) {
        const char *name = o->n_metrics ? o->metrics[i] : report_default_metrics[i];
        struct report_metric m;
        if (report_metric_get(name, &m)) {
            struct strbuf sb;
            sb_init(&sb);
            for (size_t j = 0; j < report_n_metrics(); j++) {
                report_metric_at(j, &m);
                sb_printf(&sb, "%s%s", j ? ", " : "", m.name);
            }
            snprintf(L->err, L->errlen, "--metric %s: not a column of the summary table; the "
                                        "metrics: %s", name, sb.buf);
            sb_deinit(&sb);
            return REPORT_BAD_INPUT;
        }
        bool dup = false;
        for (size_t j = 0; j < r->n_metrics && !dup; j++)
            dup = !strcmp(r->metrics[j].name, m.name);
        if (!dup)
            r->metrics[r->n_metrics++] = m;
    }
    /* the counts not asked for too, for runs_with alone: in how many runs a
     * cascade, an overload, ... happened belongs with any metric */
    r->n_all = r->n_metrics;
    for (size_t j = 0; j < report_n_metrics(); j++) {
        struct report_metric m;
        report_metric_at(j, &m);
        bool asked = false;
        for (size_t i = 0; i < r->n_metrics && !asked; i++)
            asked = !strcmp(r->metrics[i].name, m.name);
        if (m.count_with && !asked)
            r->metrics[r->n_all++] = m;
    }
    if (o->baseline) {
        const char *eq = strchr(o->baseline, '=');
        if (!eq || eq == o->baseline) {
            snprintf(L->err, L->errlen, "--baseline %s: expected PATH=VALUE, e.g. "
                                        "health.cooldown=0s", o->baseline);
            return REPORT_BAD_INPUT;
        }
        char *given = xstrndup(o->baseline, (size_t)(eq - o->baseline));
        r->base_path = override_path_normalize(given);
        free(given);
        r->base_value = xstrdup(eq + 1);
    }
    return REPORT_OK;
}

enum report_status report_load(const struct report_options *o, struct report **out, char *err,
                               size_t errlen)
{
    struct report *r = xcalloc(1, sizeof(*r));
    diag_init(&r->notes);
    r->db_path = xstrdup(o->db);
    struct loader L = {.o = o, .r = r, .err = err, .errlen = errlen};
    *out = NULL;
    enum report_status st = take_options(&L);
    if (st == REPORT_OK)
        st = open_db(&L);
    bool in_read = false;
    if (st == REPORT_OK) {
        if (sqlite3_exec(L.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
            st = sql_failed(&L);
        else
            in_read = true;
    }
    if (st == REPORT_OK)
        st = read_runs(&L);
    if (st == REPORT_OK && !r->n_runs) {
        snprintf(err, errlen, "%s holds no complete run%s%s%s", o->db,
                 r->notes.n ? " (" : "", r->notes.n ? r->notes.msgs[0] : "",
                 r->notes.n ? ")" : "");
        st = REPORT_BAD_INPUT;
    }
    if (st == REPORT_OK)
        st = read_params(&L);
    if (st == REPORT_OK)
        st = choose_by(&L);
    if (st == REPORT_OK) {
        take_values(&L);
        make_groups(&L);
        describe_groups(r);
        note_seed_repeats(&L);
        if (r->base_path) {
            st = find_baselines(&L);
            if (st == REPORT_OK)
                pair_groups(&L);
        }
    }
    if (in_read)
        sqlite3_exec(L.db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(L.db);
    for (size_t k = 0; k < r->n_runs; k++) {
        for (size_t j = 0; j < L.extra[k].n_params; j++) {
            free(L.extra[k].params[j].path);
            free(L.extra[k].params[j].value);
        }
        free(L.extra[k].params);
        ynode_destroy(L.extra[k].yaml);
    }
    free(L.extra);
    if (L.rank)
        for (size_t b = 0; b < r->n_by; b++)
            free(L.rank[b]);
    free(L.rank);
    free(L.kind);
    free(L.name_of);
    /* the scenario names stay with the report: its runs point at them */
    r->names = L.names;
    r->n_names = L.n_names;
    if (st != REPORT_OK) {
        report_destroy(r);
        return st;
    }
    *out = r;
    return REPORT_OK;
}

void report_destroy(struct report *r)
{
    if (!r)
        return;
    for (size_t k = 0; k < r->n_runs; k++) {
        if (r->runs[k].values)
            for (size_t b = 0; b < r->n_by; b++)
                free(r->runs[k].values[b]);
        free(r->runs[k].values);
        free(r->runs[k].m);
    }
    free(r->runs);
    for (size_t g = 0; g < r->n_groups; g++) {
        free(r->groups[g].runs);
        free(r->groups[g].stats);
        free(r->groups[g].diff);
    }
    free(r->groups);
    for (size_t b = 0; b < r->n_by; b++)
        free(r->by[b]);
    free(r->by);
    for (size_t i = 0; i < r->n_fixed; i++) {
        free(r->fixed_paths[i]);
        free(r->fixed_values[i]);
    }
    free(r->fixed_paths);
    free(r->fixed_values);
    for (size_t i = 0; i < r->n_names; i++)
        free(r->names[i]);
    free(r->names);
    free(r->metrics);
    free(r->base_path);
    free(r->base_value);
    free(r->db_path);
    diag_deinit(&r->notes);
    free(r);
}
