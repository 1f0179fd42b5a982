/*
 * results.c — the SQLite results database (see results.h).
 *
 * Column lists come from the X-macros in sim/metrics.h: each table's
 * columns are an array of {name, type, offset, doc}, from which this file
 * builds the CREATE TABLE text, the INSERT statement, the binding of a row
 * and the Markdown reference. Adding a metric is one line in metrics.h.
 *
 * Writes go through prepared statements inside a transaction that the
 * sink's checkpoint commits about once a second of wall time (the output
 * layer may read the wall clock; the model never does).
 */
#include "output/results.h"

#include <math.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/util.h"

#define RESULTS_SCHEMA_VERSION 1

struct column {
    const char *name;
    char type; /* I, R, T */
    size_t off;
    const char *doc;
};

#define COL_TICK(n, t, d) {#n, #t[0], offsetof(struct tick_row, n), d},
#define COL_NODE(n, t, d) {#n, #t[0], offsetof(struct node_tick_row, n), d},
#define COL_SUM(n, t, d) {#n, #t[0], offsetof(struct summary_row, n), d},
static const struct column tick_cols[] = {TICK_FIELDS(COL_TICK)};
static const struct column node_cols[] = {NODE_TICK_FIELDS(COL_NODE)};
static const struct column sum_cols[] = {SUMMARY_FIELDS(COL_SUM)};
#define COL_VIEW(n, t, d) {#n, #t[0], offsetof(struct view_tick_row, n), d},
static const struct column view_cols[] = {VIEW_TICK_FIELDS(COL_VIEW)};

/* run columns besides run_id: name, type, doc */
static const struct {
    const char *name, *type, *doc;
} run_cols[] = {
    {"name", "TEXT", "the scenario's name"},
    {"seed", "INTEGER", "the seed the run used"},
    {"scenario_yaml", "TEXT", "the effective scenario after --set: `ringsim run` can replay it"},
    {"overrides", "TEXT", "the --set arguments, as a JSON array of \"path=value\" strings"},
    {"version", "TEXT", "the ringsim version that ran it"},
    {"started_at", "TEXT", "wall-clock start, UTC, ISO 8601"},
    {"wall_s", "REAL", "wall-clock seconds the run took"},
    {"status", "TEXT", "complete, interrupted or failed (interrupted until it finishes)"},
    {"error", "TEXT", "why a failed run failed"},
    {"description", "TEXT", "the scenario's description"},
    {"duration_s", "REAL", "simulated duration"},
    {"tick_s", "REAL", "the metric bucket"},
    {"scenario_path", "TEXT", "the scenario file as given"},
};

struct results {
    sqlite3 *db;
    char *path;
    int64_t run_id;
    sqlite3_stmt *ins_tick, *ins_node, *ins_event, *ins_view;
    struct timespec last_commit;
    int in_txn;
};

static int exec(struct results *r, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(r->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        if (err)
            snprintf(err, errlen, "%s: %s", r->path, msg ? msg : sqlite3_errmsg(r->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static const char *sql_type(char t)
{
    return t == 'I' ? "INTEGER" : t == 'R' ? "REAL" : "TEXT";
}

static void add_cols(struct strbuf *sb, const struct column *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sb_printf(sb, ", %s %s", c[i].name, sql_type(c[i].type));
}

static int create_schema(struct results *r, char *err, size_t errlen)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "BEGIN;\nCREATE TABLE runs(run_id INTEGER PRIMARY KEY AUTOINCREMENT");
    for (size_t i = 0; i < ARRAY_LEN(run_cols); i++)
        sb_printf(&sb, ", %s %s", run_cols[i].name, run_cols[i].type);
    sb_puts(&sb, ");\nCREATE TABLE params(run_id INTEGER NOT NULL, path TEXT NOT NULL, value TEXT);\n");
    sb_puts(&sb, "CREATE TABLE ticks(run_id INTEGER NOT NULL, t_s REAL NOT NULL");
    add_cols(&sb, tick_cols, ARRAY_LEN(tick_cols));
    sb_puts(&sb, ");\nCREATE TABLE node_ticks(run_id INTEGER NOT NULL, t_s REAL NOT NULL, node TEXT NOT NULL");
    add_cols(&sb, node_cols, ARRAY_LEN(node_cols));
    sb_puts(&sb, ");\nCREATE TABLE views(run_id INTEGER NOT NULL, t_s REAL NOT NULL");
    add_cols(&sb, view_cols, ARRAY_LEN(view_cols));
    sb_puts(&sb, ");\nCREATE TABLE events(run_id INTEGER NOT NULL, t_s REAL NOT NULL, kind TEXT NOT NULL, "
                 "node TEXT, detail TEXT);\n");
    sb_puts(&sb, "CREATE TABLE summary(run_id INTEGER PRIMARY KEY");
    add_cols(&sb, sum_cols, ARRAY_LEN(sum_cols));
    sb_puts(&sb, ");\n"
                 "CREATE INDEX params_run ON params(run_id);\n"
                 "CREATE INDEX ticks_run ON ticks(run_id, t_s);\n"
                 "CREATE INDEX node_ticks_run ON node_ticks(run_id, node, t_s);\n"
                 "CREATE INDEX events_run ON events(run_id, t_s);\n"
                 "CREATE INDEX views_run ON views(run_id, t_s);\n");
    sb_printf(&sb, "PRAGMA user_version = %d;\nCOMMIT;\n", RESULTS_SCHEMA_VERSION);
    int rc = exec(r, sb.buf, err, errlen);
    sb_deinit(&sb);
    return rc;
}

static int query_int(struct results *r, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

static sqlite3_stmt *prepare_insert(struct results *r, const char *table, const char *lead,
                                    int n_lead, const struct column *c, size_t n)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "INSERT INTO %s(%s", table, lead);
    for (size_t i = 0; i < n; i++)
        sb_printf(&sb, ", %s", c[i].name);
    sb_puts(&sb, ") VALUES(");
    for (size_t i = 0; i < n + (size_t)n_lead; i++)
        sb_puts(&sb, i ? ", ?" : "?");
    sb_puts(&sb, ")");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(r->db, sb.buf, -1, &st, NULL) != SQLITE_OK)
        st = NULL;
    sb_deinit(&sb);
    return st;
}

struct results *results_open(const char *path, char *err, size_t errlen)
{
    struct results *r = xcalloc(1, sizeof(*r));
    r->path = xstrdup(path);
    if (sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL)
        != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open: %s", path,
                 r->db ? sqlite3_errmsg(r->db) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(r->db, 10000);
    int64_t tables = 0, version = 0;
    if (query_int(r, "SELECT count(*) FROM sqlite_master WHERE type='table'", &tables)) {
        snprintf(err, errlen, "%s: not a SQLite database (%s)", path, sqlite3_errmsg(r->db));
        goto fail;
    }
    query_int(r, "PRAGMA user_version", &version);
    if (tables == 0) {
        if (create_schema(r, err, errlen))
            goto fail;
    } else if (version != RESULTS_SCHEMA_VERSION) {
        snprintf(err, errlen,
                 "%s: not a ringsim results database (schema %lld, expected %d); "
                 "choose another file with -o",
                 path, (long long)version, RESULTS_SCHEMA_VERSION);
        goto fail;
    }
    r->ins_tick = prepare_insert(r, "ticks", "run_id, t_s", 2, tick_cols, ARRAY_LEN(tick_cols));
    r->ins_node = prepare_insert(r, "node_ticks", "run_id, t_s, node", 3, node_cols,
                                 ARRAY_LEN(node_cols));
    r->ins_view = prepare_insert(r, "views", "run_id, t_s", 2, view_cols, ARRAY_LEN(view_cols));
    if (sqlite3_prepare_v2(r->db,
                           "INSERT INTO events(run_id, t_s, kind, node, detail) VALUES(?,?,?,?,?)",
                           -1, &r->ins_event, NULL) != SQLITE_OK)
        r->ins_event = NULL;
    if (!r->ins_tick || !r->ins_node || !r->ins_event || !r->ins_view) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(r->db));
        goto fail;
    }
    return r;
fail:
    results_close(r);
    return NULL;
}

void results_close(struct results *r)
{
    if (!r)
        return;
    if (r->in_txn)
        exec(r, "COMMIT", NULL, 0);
    sqlite3_finalize(r->ins_tick);
    sqlite3_finalize(r->ins_node);
    sqlite3_finalize(r->ins_event);
    sqlite3_finalize(r->ins_view);
    sqlite3_close(r->db);
    free(r->path);
    free(r);
}

static void bind_cols(sqlite3_stmt *st, int first, const void *row, const struct column *c,
                      size_t n)
{
    const char *base = row;
    for (size_t i = 0; i < n; i++) {
        int k = first + (int)i;
        const void *p = base + c[i].off;
        if (c[i].type == 'I') {
            sqlite3_bind_int64(st, k, *(const int64_t *)p);
        } else if (c[i].type == 'R') {
            double v = *(const double *)p;
            if (isnan(v))
                sqlite3_bind_null(st, k);
            else
                sqlite3_bind_double(st, k, v);
        } else {
            const char *s = *(const char *const *)p;
            sqlite3_bind_text(st, k, s, -1, SQLITE_TRANSIENT);
        }
    }
}

static int step_reset(struct results *r, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "ringsim: %s: %s\n", r->path, sqlite3_errmsg(r->db));
        return -1;
    }
    return 0;
}

static int sink_tick(void *ctx, const struct tick_row *row)
{
    struct results *r = ctx;
    sqlite3_bind_int64(r->ins_tick, 1, r->run_id);
    sqlite3_bind_double(r->ins_tick, 2, row->t_s);
    bind_cols(r->ins_tick, 3, row, tick_cols, ARRAY_LEN(tick_cols));
    return step_reset(r, r->ins_tick);
}

static int sink_node(void *ctx, const struct node_tick_row *row)
{
    struct results *r = ctx;
    sqlite3_bind_int64(r->ins_node, 1, r->run_id);
    sqlite3_bind_double(r->ins_node, 2, row->t_s);
    sqlite3_bind_text(r->ins_node, 3, row->node, -1, SQLITE_TRANSIENT);
    bind_cols(r->ins_node, 4, row, node_cols, ARRAY_LEN(node_cols));
    return step_reset(r, r->ins_node);
}

static int sink_view(void *ctx, const struct view_tick_row *row)
{
    struct results *r = ctx;
    sqlite3_bind_int64(r->ins_view, 1, r->run_id);
    sqlite3_bind_double(r->ins_view, 2, row->t_s);
    bind_cols(r->ins_view, 3, row, view_cols, ARRAY_LEN(view_cols));
    return step_reset(r, r->ins_view);
}

static int sink_event(void *ctx, double t_s, const char *kind, const char *node,
                      const char *detail)
{
    struct results *r = ctx;
    sqlite3_stmt *st = r->ins_event;
    sqlite3_bind_int64(st, 1, r->run_id);
    sqlite3_bind_double(st, 2, t_s);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
    if (node)
        sqlite3_bind_text(st, 4, node, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 4);
    sqlite3_bind_text(st, 5, detail, -1, SQLITE_TRANSIENT);
    return step_reset(r, st);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int sink_checkpoint(void *ctx)
{
    struct results *r = ctx;
    if (seconds_since(&r->last_commit) < 1.0)
        return 0;
    if (exec(r, "COMMIT; BEGIN", NULL, 0))
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &r->last_commit);
    return 0;
}

struct sink results_sink(struct results *r)
{
    struct sink s = {r, sink_tick, sink_node, sink_view, sink_event, sink_checkpoint};
    return s;
}

static void overrides_json(const struct scenario *sc, struct strbuf *sb)
{
    sb_putc(sb, '[');
    for (size_t i = 0; i < sc->n_overrides; i++) {
        if (i)
            sb_putc(sb, ',');
        sb_json_str(sb, sc->overrides[i].arg);
    }
    sb_putc(sb, ']');
}

int results_begin_run(struct results *r, const struct scenario *sc, const char *started_at,
                      int64_t *run_id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    struct strbuf ov;
    sb_init(&ov);
    overrides_json(sc, &ov);
    if (exec(r, "BEGIN", err, errlen))
        goto fail;
    if (sqlite3_prepare_v2(r->db,
                           "INSERT INTO runs(name, seed, scenario_yaml, overrides, version, "
                           "started_at, wall_s, status, description, duration_s, tick_s, "
                           "scenario_path) VALUES(?,?,?,?,?,?,0,'interrupted',?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        goto sqlerr;
    sqlite3_bind_text(st, 1, sc->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, (int64_t)sc->seed);
    sqlite3_bind_text(st, 3, sc->effective_yaml ? sc->effective_yaml : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, ov.buf, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, RINGSIM_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, started_at, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, sc->description ? sc->description : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 8, (double)sc->duration_ns / 1e9);
    sqlite3_bind_double(st, 9, (double)sc->tick_ns / 1e9);
    sqlite3_bind_text(st, 10, sc->path ? sc->path : "", -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto sqlerr;
    sqlite3_finalize(st);
    st = NULL;
    r->run_id = sqlite3_last_insert_rowid(r->db);
    if (sqlite3_prepare_v2(r->db, "INSERT INTO params(run_id, path, value) VALUES(?,?,?)", -1,
                           &st, NULL) != SQLITE_OK)
        goto sqlerr;
    for (size_t i = 0; i < sc->n_overrides; i++) {
        sqlite3_bind_int64(st, 1, r->run_id);
        sqlite3_bind_text(st, 2, sc->overrides[i].path, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, sc->overrides[i].value, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) != SQLITE_DONE)
            goto sqlerr;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    /* the runs row is committed at once: a run killed outright still shows */
    if (exec(r, "COMMIT; BEGIN", err, errlen))
        goto fail;
    r->in_txn = 1;
    clock_gettime(CLOCK_MONOTONIC, &r->last_commit);
    *run_id = r->run_id;
    sb_deinit(&ov);
    return 0;
sqlerr:
    snprintf(err, errlen, "%s: %s", r->path, sqlite3_errmsg(r->db));
fail:
    sqlite3_finalize(st);
    exec(r, "ROLLBACK", NULL, 0);
    sb_deinit(&ov);
    return -1;
}

int results_finish_run(struct results *r, const struct summary_row *sum, const char *status,
                       double wall_s, const char *error, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (!r->in_txn && exec(r, "BEGIN", err, errlen))
        return -1;
    r->in_txn = 1;
    if (sum) {
        st = prepare_insert(r, "summary", "run_id", 1, sum_cols, ARRAY_LEN(sum_cols));
        if (!st)
            goto sqlerr;
        sqlite3_bind_int64(st, 1, r->run_id);
        bind_cols(st, 2, sum, sum_cols, ARRAY_LEN(sum_cols));
        if (sqlite3_step(st) != SQLITE_DONE)
            goto sqlerr;
        sqlite3_finalize(st);
        st = NULL;
    }
    if (sqlite3_prepare_v2(r->db, "UPDATE runs SET status=?, wall_s=?, error=? WHERE run_id=?",
                           -1, &st, NULL) != SQLITE_OK)
        goto sqlerr;
    sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 2, wall_s);
    if (error)
        sqlite3_bind_text(st, 3, error, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 3);
    sqlite3_bind_int64(st, 4, r->run_id);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto sqlerr;
    sqlite3_finalize(st);
    r->in_txn = 0;
    return exec(r, "COMMIT", err, errlen);
sqlerr:
    snprintf(err, errlen, "%s: %s", r->path, sqlite3_errmsg(r->db));
    sqlite3_finalize(st);
    return -1;
}

/* ---- merge ---------------------------------------------------------------------- */

static void col_list(struct strbuf *sb, const struct column *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sb_printf(sb, ", %s", c[i].name);
}

int results_merge_from(struct results *r, const char *src_path, char *err, size_t errlen)
{
    int copied = -1;
    sqlite3_stmt *ids = NULL, *att = NULL;
    struct strbuf sql;
    sb_init(&sql);
    if (r->in_txn) {
        exec(r, "COMMIT", NULL, 0);
        r->in_txn = 0;
    }
    {
        /* a source that is missing or not ringsim's is refused before attaching */
        struct results *probe = NULL;
        FILE *f = fopen(src_path, "rb");
        if (!f) {
            snprintf(err, errlen, "%s: cannot read", src_path);
            goto out;
        }
        fclose(f);
        probe = results_open(src_path, err, errlen);
        if (!probe)
            goto out;
        results_close(probe);
    }
    if (sqlite3_prepare_v2(r->db, "ATTACH DATABASE ? AS src", -1, &att, NULL) != SQLITE_OK)
        goto sqlerr;
    sqlite3_bind_text(att, 1, src_path, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(att) != SQLITE_DONE)
        goto sqlerr;
    if (exec(r, "BEGIN", err, errlen))
        goto detach;
    if (sqlite3_prepare_v2(r->db, "SELECT run_id FROM src.runs ORDER BY run_id", -1, &ids, NULL)
        != SQLITE_OK)
        goto sqlerr_rollback;
    copied = 0;
    while (sqlite3_step(ids) == SQLITE_ROW) {
        int64_t old = sqlite3_column_int64(ids, 0);
        sb_reset(&sql);
        sb_puts(&sql, "INSERT INTO runs(");
        for (size_t i = 0; i < ARRAY_LEN(run_cols); i++)
            sb_printf(&sql, "%s%s", i ? ", " : "", run_cols[i].name);
        sb_puts(&sql, ") SELECT ");
        for (size_t i = 0; i < ARRAY_LEN(run_cols); i++)
            sb_printf(&sql, "%s%s", i ? ", " : "", run_cols[i].name);
        sb_printf(&sql, " FROM src.runs WHERE run_id = %lld", (long long)old);
        if (exec(r, sql.buf, err, errlen))
            goto rollback;
        long long nid = (long long)sqlite3_last_insert_rowid(r->db);
        sb_reset(&sql);
        sb_printf(&sql, "INSERT INTO params SELECT %lld, path, value FROM src.params WHERE run_id=%lld;\n",
                  nid, (long long)old);
        sb_printf(&sql, "INSERT INTO ticks(run_id, t_s");
        col_list(&sql, tick_cols, ARRAY_LEN(tick_cols));
        sb_printf(&sql, ") SELECT %lld, t_s", nid);
        col_list(&sql, tick_cols, ARRAY_LEN(tick_cols));
        sb_printf(&sql, " FROM src.ticks WHERE run_id=%lld ORDER BY rowid;\n", (long long)old);
        sb_printf(&sql, "INSERT INTO node_ticks(run_id, t_s, node");
        col_list(&sql, node_cols, ARRAY_LEN(node_cols));
        sb_printf(&sql, ") SELECT %lld, t_s, node", nid);
        col_list(&sql, node_cols, ARRAY_LEN(node_cols));
        sb_printf(&sql, " FROM src.node_ticks WHERE run_id=%lld ORDER BY rowid;\n", (long long)old);
        sb_printf(&sql, "INSERT INTO views(run_id, t_s");
        col_list(&sql, view_cols, ARRAY_LEN(view_cols));
        sb_printf(&sql, ") SELECT %lld, t_s", nid);
        col_list(&sql, view_cols, ARRAY_LEN(view_cols));
        sb_printf(&sql, " FROM src.views WHERE run_id=%lld ORDER BY rowid;\n", (long long)old);
        sb_printf(&sql, "INSERT INTO events SELECT %lld, t_s, kind, node, detail FROM src.events "
                        "WHERE run_id=%lld ORDER BY rowid;\n", nid, (long long)old);
        sb_printf(&sql, "INSERT INTO summary(run_id");
        col_list(&sql, sum_cols, ARRAY_LEN(sum_cols));
        sb_printf(&sql, ") SELECT %lld", nid);
        col_list(&sql, sum_cols, ARRAY_LEN(sum_cols));
        sb_printf(&sql, " FROM src.summary WHERE run_id=%lld;\n", (long long)old);
        if (exec(r, sql.buf, err, errlen))
            goto rollback;
        copied++;
    }
    sqlite3_finalize(ids);
    ids = NULL;
    if (exec(r, "COMMIT", err, errlen))
        copied = -1;
    goto detach;
sqlerr_rollback:
    snprintf(err, errlen, "%s: %s", src_path, sqlite3_errmsg(r->db));
rollback:
    sqlite3_finalize(ids);
    ids = NULL;
    exec(r, "ROLLBACK", NULL, 0);
    copied = -1;
detach:
    sqlite3_finalize(att);
    att = NULL;
    exec(r, "DETACH DATABASE src", NULL, 0);
    goto out;
sqlerr:
    snprintf(err, errlen, "%s: %s", src_path, sqlite3_errmsg(r->db));
out:
    sqlite3_finalize(att);
    sqlite3_finalize(ids);
    sb_deinit(&sql);
    return copied;
}

int results_read_summary(const char *path, int64_t run_id, struct summary_row *out)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        goto out;
    struct strbuf sql;
    sb_init(&sql);
    sb_puts(&sql, "SELECT run_id");
    col_list(&sql, sum_cols, ARRAY_LEN(sum_cols));
    if (run_id > 0)
        sb_printf(&sql, " FROM summary WHERE run_id = %lld", (long long)run_id);
    else
        sb_puts(&sql, " FROM summary ORDER BY run_id DESC LIMIT 1");
    int prc = sqlite3_prepare_v2(db, sql.buf, -1, &st, NULL);
    sb_deinit(&sql);
    if (prc != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
        goto out;
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < ARRAY_LEN(sum_cols); i++) {
        char *p = (char *)out + sum_cols[i].off;
        int k = (int)i + 1;
        if (sum_cols[i].type == 'I')
            *(int64_t *)p = sqlite3_column_int64(st, k);
        else if (sum_cols[i].type == 'R')
            *(double *)p = sqlite3_column_type(st, k) == SQLITE_NULL
                               ? NAN : sqlite3_column_double(st, k);
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

/* ---- documentation ---------------------------------------------------------------- */

static void md_table(FILE *f, const char *title, const char *lead, const struct column *c,
                     size_t n)
{
    fprintf(f, "### `%s`\n\n%s\n\n| column | type | meaning |\n|---|---|---|\n", title, lead);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "| `%s` | %s | %s |\n", c[i].name, sql_type(c[i].type), c[i].doc);
    fputc('\n', f);
}

void results_schema_markdown(FILE *f)
{
    fprintf(f, "### `runs`\n\nOne row per run; `run_id INTEGER PRIMARY KEY`.\n\n"
               "| column | type | meaning |\n|---|---|---|\n");
    for (size_t i = 0; i < ARRAY_LEN(run_cols); i++)
        fprintf(f, "| `%s` | %s | %s |\n", run_cols[i].name, run_cols[i].type, run_cols[i].doc);
    fprintf(f, "\n### `params`\n\n`(run_id, path, value)`: one row per `--set`, `--seed` or "
               "swept value of the run.\n\n");
    md_table(f, "ticks", "One row per tick: `(run_id, t_s, ...)`, `t_s` the tick's start in "
                         "simulated seconds.", tick_cols, ARRAY_LEN(tick_cols));
    md_table(f, "node_ticks", "One row per node per tick: `(run_id, t_s, node, ...)`, for "
                              "every node that has been in the cluster.",
             node_cols, ARRAY_LEN(node_cols));
    md_table(f, "views", "One row per distinct routing view per tick: `(run_id, t_s, ...)`. "
                         "Client instances that eject nodes on their own (client health mode), "
                         "adopt ring epochs at different moments (central mode) or are frozen "
                         "by a split brain route with different views; this is how many "
                         "hold each.", view_cols, ARRAY_LEN(view_cols));
    fprintf(f, "### `events`\n\n`(run_id, t_s, kind, node, detail)`: scenario events (their "
               "YAML names, and `slow_node_end`, `split_brain_end`, `hot_key_end`), `epoch` "
               "(a ring epoch published), `adopt` (an instance adopts one late), `eject`, "
               "`eject_held` (a guard held an ejection back), `readmit`, "
               "`cascade_removal`, and the first 100 `stale_overwrite`s with key and "
               "versions. `t_s` is the event's own time.\n\n");
    md_table(f, "summary", "One row per finished or interrupted run: `(run_id, ...)`.", sum_cols,
             ARRAY_LEN(sum_cols));
}

/* ---- human summary ------------------------------------------------------------------ */

static void pct(FILE *f, const char *label, double v)
{
    if (isnan(v))
        fprintf(f, "  %-22s n/a\n", label);
    else
        fprintf(f, "  %-22s %.2f%%\n", label, 100 * v);
}

void summary_print(FILE *f, const char *name, uint64_t seed, const struct summary_row *s,
                   double duration_s)
{
    fprintf(f, "%s (seed %llu, %.0f s simulated)\n", name, (unsigned long long)seed, duration_s);
    fprintf(f, "  %-22s %lld\n", "requests", (long long)s->requests);
    pct(f, "hit rate", s->hit_rate);
    pct(f, "baseline hit rate", s->baseline_hit_rate);
    pct(f, "min hit rate", s->min_hit_rate);
    if (isnan(s->recovery_s))
        fprintf(f, "  %-22s %s\n", "recovery", "never (or no event)");
    else
        fprintf(f, "  %-22s %.0f s\n", "recovery", s->recovery_s);
    fprintf(f, "  %-22s %.0f\n", "peak backend qps", s->peak_backend_qps);
    fprintf(f, "  %-22s %.1f%%\n", "peak db utilization", 100 * s->peak_db_util);
    fprintf(f, "  %-22s %.0f s\n", "db overloaded", s->db_overload_s);
    fprintf(f, "  %-22s %lld (%lld cascade), at most %lld at once\n", "ejections",
            (long long)s->ejections, (long long)s->cascade_removals, (long long)s->max_ejected);
    fprintf(f, "  %-22s %lld reads, %lld overwrites (%lld clobbers)\n", "stale",
            (long long)s->stale_reads, (long long)s->stale_overwrites, (long long)s->clobbers);
    fprintf(f, "  %-22s %lld\n", "keys moved", (long long)s->keys_moved);
    pct(f, "busiest node's share", s->max_node_share);
    fprintf(f, "  %-22s %lld timeouts, %lld errors\n", "failures", (long long)s->timeouts,
            (long long)s->errors);
}
