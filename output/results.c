/*
 * results.c — the SQLite results database (see results.h).
 *
 * Column lists come from the X-macros in sim/metrics.h: each table's
 * columns are an array of {name, type, offset, doc}, from which this file
 * builds the CREATE TABLE text, the INSERT statement, the binding of a row
 * and the Markdown reference. Adding a metric is one line in metrics.h.
 *
 * Several processes may share one file (runs and sweeps writing to the
 * same -o, `plot` reading it while a run is recorded):
 *
 *   sink rows --> temp.buf_* (memory, this connection only)
 *             --(about once a second: BEGIN IMMEDIATE; INSERT ... SELECT;
 *                COMMIT)--> main tables
 *
 * - The file is in WAL mode while it is written: readers never block the
 *   writer, nor it them. The last writer to close it puts it back in
 *   rollback-journal mode.
 * - A write transaction is held only for the few milliseconds a flush
 *   takes, so two writers take turns; BEGIN IMMEDIATE waits up to
 *   BUSY_TIMEOUT_MS for the lock, and a checkpoint that still finds the
 *   file locked keeps its rows buffered for the next one (up to
 *   MAX_BUSY_FLUSHES times in a row).
 * - The schema is created idempotently under the write lock, so two
 *   processes creating the same new file at once both succeed.
 * - Whenever a statement fails, r->error keeps SQLite's own message, with
 *   "the disk is full" first when it is (results_error()). While a run is
 *   recorded RESERVE_BYTES are held on the disk (an unlinked file), given
 *   back if the final status finds the disk full.
 * The output layer may read the wall clock; the model never does.
 */
#include "output/results.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output/results_internal.h"
#include "sim/util.h"

#define COL_TICK(n, t, d) {#n, #t[0], offsetof(struct tick_row, n), d},
#define COL_NODE(n, t, d) {#n, #t[0], offsetof(struct node_tick_row, n), d},
#define COL_SUM(n, t, d) {#n, #t[0], offsetof(struct summary_row, n), d},
#define COL_VIEW(n, t, d) {#n, #t[0], offsetof(struct view_tick_row, n), d},
#define COL_REQ(n, t, d) {#n, #t[0], offsetof(struct request_row, n), d},
const struct column results_tick_cols[] = {TICK_FIELDS(COL_TICK)};
const struct column results_node_cols[] = {NODE_TICK_FIELDS(COL_NODE)};
const struct column results_sum_cols[] = {SUMMARY_FIELDS(COL_SUM)};
const struct column results_view_cols[] = {VIEW_TICK_FIELDS(COL_VIEW)};
const struct column results_req_cols[] = {REQUEST_FIELDS(COL_REQ)};

/* run columns besides run_id: name, type, doc */
const struct run_column results_run_cols[] = {
    {"name", "TEXT", "the scenario's name"},
    {"seed", "INTEGER", "the seed the run used"},
    {"scenario_yaml", "TEXT", "the effective scenario after --set: `ringsim run` can replay it"},
    {"overrides", "TEXT", "the --set arguments, as a JSON array of \"path=value\" strings"},
    {"version", "TEXT", "the ringsim version that ran it"},
    {"started_at", "TEXT", "wall-clock start, UTC, ISO 8601"},
    {"wall_s", "REAL", "wall-clock seconds the run took"},
    {"status", "TEXT", "running while it is recorded (and forever if its process was killed outright), then complete, interrupted or failed"},
    {"error", "TEXT", "why a failed run failed"},
    {"description", "TEXT", "the scenario's description"},
    {"duration_s", "REAL", "simulated duration"},
    {"tick_s", "REAL", "the metric bucket"},
    {"scenario_path", "TEXT", "the scenario file as given"},
};

/* The tables whose columns come from the lists in sim/metrics.h: a file
 * made by an earlier ringsim lacks the columns added since, which a writer
 * adds (old rows read NULL there) and a reader takes as NULL. */
static const struct {
    const char *table;
    const struct column *cols;
    size_t n;
} listed[] = {
    {"ticks", results_tick_cols, ARRAY_LEN(results_tick_cols)},
    {"node_ticks", results_node_cols, ARRAY_LEN(results_node_cols)},
    {"views", results_view_cols, ARRAY_LEN(results_view_cols)},
    {"summary", results_sum_cols, ARRAY_LEN(results_sum_cols)},
    {"requests", results_req_cols, ARRAY_LEN(results_req_cols)},
};

/* The tables a run's rows are buffered for (see the file comment). */
static const char *const buffered[] = {"ticks", "node_ticks", "views", "events", "requests"};

/* Checkpoints in a row that may find the file locked by another writer
 * (each waits BUSY_TIMEOUT_MS) before the run gives up. */
#define MAX_BUSY_FLUSHES 6
/* Space held back, beside the file, while a run is recorded: given back
 * when the disk is full so that the run's final status can still be
 * written (that takes a few pages of the log). */
#define RESERVE_BYTES (64 * 1024)

/* Holds RESERVE_BYTES on the file's file system: a file created beside it
 * and unlinked at once, so it is never seen and its space returns to the
 * disk when it is closed or the process ends, however it ends. */
static void hold_reserve(struct results *r)
{
    if (r->reserve_fd >= 0)
        return;
    char *tmpl = xasprintf("%s.reserve-XXXXXX", r->path);
    int fd = mkstemp(tmpl);
    if (fd >= 0) {
        unlink(tmpl);
        static const char zeros[4096];
        for (size_t n = 0; n < RESERVE_BYTES; n += sizeof zeros)
            if (write(fd, zeros, sizeof zeros) != (ssize_t)sizeof zeros) {
                close(fd);
                fd = -1;
                break;
            }
    }
    r->reserve_fd = fd;
    free(tmpl);
}

/* Gives the reserve back; true if there was one. */
static bool release_reserve(struct results *r)
{
    if (r->reserve_fd < 0)
        return false;
    close(r->reserve_fd);
    r->reserve_fd = -1;
    return true;
}

/* "PATH: what SQLite said", saying so first when the disk or the file size
 * limit is full: a run that fails for it should not read as a bug. */
static void describe_failure(sqlite3 *db, const char *path, const char *msg, char *out,
                             size_t n)
{
    int code = sqlite3_extended_errcode(db) & 0xff;
    int sys = sqlite3_system_errno(db);
    if (!msg)
        msg = sqlite3_errmsg(db);
    if (code == SQLITE_FULL || sys == ENOSPC)
        snprintf(out, n, "the disk is full (%s: %s)", path, msg);
    else if (sys == EFBIG)
        snprintf(out, n, "the file size limit is reached (%s: %s; see ulimit -f)", path, msg);
    else if (code == SQLITE_READONLY) /* opened, but only for reading: say why */
        snprintf(out, n, "%s: %s (%s)", path, msg,
                 access(path, W_OK) ? strerror(errno) : "opened read-only");
    else
        snprintf(out, n, "%s: %s", path, msg);
}

/* Records why the last statement failed in r->error and, when given, err. */
int results_sql_failed(struct results *r, const char *msg, char *err, size_t errlen)
{
    describe_failure(r->db, r->path, msg, r->error, sizeof r->error);
    if (err && err != r->error)
        snprintf(err, errlen, "%s", r->error);
    return -1;
}

int results_exec(struct results *r, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    int rc = sqlite3_exec(r->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        results_sql_failed(r, msg, err, errlen);
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

void results_col_list(struct strbuf *sb, const struct column *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sb_printf(sb, ", %s", c[i].name);
}

/* The schema, every statement idempotent: two processes that create the
 * same new file at once both succeed (the caller holds the write lock). */
static void schema_sql(struct strbuf *sb)
{
    sb_puts(sb, "CREATE TABLE IF NOT EXISTS runs(run_id INTEGER PRIMARY KEY AUTOINCREMENT");
    for (size_t i = 0; i < ARRAY_LEN(results_run_cols); i++)
        sb_printf(sb, ", %s %s", results_run_cols[i].name, results_run_cols[i].type);
    sb_puts(sb, ");\nCREATE TABLE IF NOT EXISTS params(run_id INTEGER NOT NULL, "
                "path TEXT NOT NULL, value TEXT);\n");
    sb_puts(sb, "CREATE TABLE IF NOT EXISTS ticks(run_id INTEGER NOT NULL, t_s REAL NOT NULL");
    add_cols(sb, results_tick_cols, ARRAY_LEN(results_tick_cols));
    sb_puts(sb, ");\nCREATE TABLE IF NOT EXISTS node_ticks(run_id INTEGER NOT NULL, "
                "t_s REAL NOT NULL, node TEXT NOT NULL");
    add_cols(sb, results_node_cols, ARRAY_LEN(results_node_cols));
    sb_puts(sb, ");\nCREATE TABLE IF NOT EXISTS views(run_id INTEGER NOT NULL, t_s REAL NOT NULL");
    add_cols(sb, results_view_cols, ARRAY_LEN(results_view_cols));
    sb_puts(sb, ");\nCREATE TABLE IF NOT EXISTS events(run_id INTEGER NOT NULL, "
                "t_s REAL NOT NULL, kind TEXT NOT NULL, node TEXT, detail TEXT);\n");
    sb_puts(sb, "CREATE TABLE IF NOT EXISTS summary(run_id INTEGER PRIMARY KEY");
    add_cols(sb, results_sum_cols, ARRAY_LEN(results_sum_cols));
    sb_puts(sb, ");\nCREATE TABLE IF NOT EXISTS requests(run_id INTEGER NOT NULL");
    add_cols(sb, results_req_cols, ARRAY_LEN(results_req_cols));
    sb_puts(sb, ");\n"
                "CREATE INDEX IF NOT EXISTS requests_run ON requests(run_id, t_ns);\n"
                "CREATE INDEX IF NOT EXISTS params_run ON params(run_id);\n"
                "CREATE INDEX IF NOT EXISTS ticks_run ON ticks(run_id, t_s);\n"
                "CREATE INDEX IF NOT EXISTS node_ticks_run ON node_ticks(run_id, node, t_s);\n"
                "CREATE INDEX IF NOT EXISTS events_run ON events(run_id, t_s);\n"
                "CREATE INDEX IF NOT EXISTS views_run ON views(run_id, t_s);\n");
    sb_printf(sb, "PRAGMA user_version = %d;\n", RESULTS_SCHEMA_VERSION);
}

static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Whether table.column exists in schema ("main", "src") of db. */
bool results_has_column(sqlite3 *db, const char *schema, const char *table, const char *col)
{
    char *sql = xasprintf("SELECT %s FROM %s.%s LIMIT 0", col, schema, table);
    sqlite3_stmt *st = NULL;
    bool ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    free(sql);
    return ok;
}

/* 0 when schema ("main", "src") of db has ringsim's tables: runs, params
 * and events with every column, and the tables whose columns come from the
 * metric lists (a file made by an earlier ringsim may lack some of their
 * columns, and the requests table: they read as NULL); else -1 with what
 * is missing in why ("no such table: src.events"). */
static int check_tables(sqlite3 *db, const char *schema, char *why, size_t n)
{
    struct strbuf sql;
    sb_init(&sql);
    int rc = 0;
    for (size_t t = 0; t < 3 + ARRAY_LEN(listed) - 1 && !rc; t++) {
        sb_reset(&sql);
        sb_puts(&sql, "SELECT run_id");
        if (t == 0) {
            for (size_t i = 0; i < ARRAY_LEN(results_run_cols); i++)
                sb_printf(&sql, ", %s", results_run_cols[i].name);
            sb_printf(&sql, " FROM %s.runs", schema);
        } else if (t == 1) {
            sb_printf(&sql, ", path, value FROM %s.params", schema);
        } else if (t == 2) {
            sb_printf(&sql, ", t_s, kind, node, detail FROM %s.events", schema);
        } else {
            sb_printf(&sql, " FROM %s.%s", schema, listed[t - 3].table); /* not requests */
        }
        sb_puts(&sql, " LIMIT 0");
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, sql.buf, -1, &st, NULL) != SQLITE_OK) {
            snprintf(why, n, "%s", sqlite3_errmsg(db));
            rc = -1;
        }
        sqlite3_finalize(st);
    }
    sb_deinit(&sql);
    return rc;
}

/* A file made by an earlier ringsim: the columns and tables added since
 * (the caller holds the write lock). */
static int upgrade(struct results *r, char *err, size_t errlen)
{
    struct strbuf sb;
    sb_init(&sb);
    schema_sql(&sb); /* every statement idempotent: creates what is missing */
    if (results_exec(r, sb.buf, err, errlen)) {
        sb_deinit(&sb);
        return -1;
    }
    sb_reset(&sb);
    for (size_t t = 0; t < ARRAY_LEN(listed); t++)
        for (size_t i = 0; i < listed[t].n; i++)
            if (!results_has_column(r->db, "main", listed[t].table, listed[t].cols[i].name))
                sb_printf(&sb, "ALTER TABLE %s ADD COLUMN %s %s;\n", listed[t].table,
                          listed[t].cols[i].name, sql_type(listed[t].cols[i].type));
    int rc = sb.len ? results_exec(r, sb.buf, err, errlen) : 0;
    sb_deinit(&sb);
    return rc;
}

/* Whether the open database db (at path) is ringsim's: 0, or -1 with a
 * message naming path. An empty file is not; one without tables is when
 * allow_empty (results_open then creates them). */
int results_check_ringsim(sqlite3 *db, const char *path, bool allow_empty, char *err,
                         size_t errlen)
{
    int64_t tables = 0, version = 0;
    char why[256];
    if (query_int(db, "SELECT count(*) FROM sqlite_master WHERE type='table'", &tables)) {
        /* a file locked by another process, or an I/O error, is not one
         * that is not a database */
        snprintf(err, errlen, "%s: %s (%s)", path,
                 results_input_at_fault(sqlite3_errcode(db)) ? "not a SQLite database"
                                                             : "cannot read it",
                 sqlite3_errmsg(db));
        return -1;
    }
    if (tables == 0 && allow_empty)
        return 0;
    if (tables == 0) {
        snprintf(err, errlen, "%s: not a ringsim results database (it holds no tables)", path);
        return -1;
    }
    query_int(db, "PRAGMA user_version", &version);
    if (version != RESULTS_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: not a ringsim results database (schema %lld, expected %d)",
                 path, (long long)version, RESULTS_SCHEMA_VERSION);
        return -1;
    }
    if (check_tables(db, "main", why, sizeof why)) {
        snprintf(err, errlen, "%s: not a ringsim results database (%s)", path, why);
        return -1;
    }
    return 0;
}

/* Creates the tables if the file has none, and checks it is ringsim's,
 * under the write lock (BEGIN IMMEDIATE waits for another writer). */
static int open_schema(struct results *r, char *err, size_t errlen)
{
    int64_t tables = 0;
    if (query_int(r->db, "SELECT count(*) FROM sqlite_master WHERE type='table'", &tables)) {
        snprintf(err, errlen, "%s: %s (%s)", r->path,
                 results_input_at_fault(sqlite3_errcode(r->db)) ? "not a SQLite database"
                                                                : "cannot read it",
                 sqlite3_errmsg(r->db));
        return -1;
    }
    /* readers never block the writer, nor the writer readers; where the
     * file system cannot (no shared memory), the rollback journal stays.
     * Every commit is checkpointed into the file and the log restarts
     * empty: it never holds more than one flush, and on a full disk the
     * space a failed flush took in it is there for the run's final status */
    sqlite3_exec(r->db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=1; "
                        "PRAGMA journal_size_limit=0", NULL, NULL, NULL);
    if (results_exec(r, "BEGIN IMMEDIATE", err, errlen))
        return -1;
    if (results_check_ringsim(r->db, r->path, true, err, errlen))
        goto rollback;
    if (query_int(r->db, "SELECT count(*) FROM sqlite_master WHERE type='table'", &tables))
        tables = 0;
    if (upgrade(r, err, errlen)) /* a new file: the whole schema */
        goto rollback;
    if (results_exec(r, "COMMIT", err, errlen))
        goto rollback;
    return 0;
rollback:
    sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
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

/* The buffers: temporary tables (in memory, private to this connection)
 * shaped like the main ones. */
static int open_buffers(struct results *r, char *err, size_t errlen)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "PRAGMA temp_store = MEMORY;\n");
    for (size_t i = 0; i < ARRAY_LEN(buffered); i++)
        sb_printf(&sb, "CREATE TEMP TABLE buf_%s AS SELECT * FROM main.%s WHERE 0;\n",
                  buffered[i], buffered[i]);
    int rc = results_exec(r, sb.buf, err, errlen);
    sb_deinit(&sb);
    if (rc)
        return -1;
    r->ins_tick = prepare_insert(r, "temp.buf_ticks", "run_id, t_s", 2, results_tick_cols,
                                 ARRAY_LEN(results_tick_cols));
    r->ins_node = prepare_insert(r, "temp.buf_node_ticks", "run_id, t_s, node", 3,
                                 results_node_cols, ARRAY_LEN(results_node_cols));
    r->ins_view = prepare_insert(r, "temp.buf_views", "run_id, t_s", 2, results_view_cols,
                                 ARRAY_LEN(results_view_cols));
    r->ins_req = prepare_insert(r, "temp.buf_requests", "run_id", 1, results_req_cols,
                                ARRAY_LEN(results_req_cols));
    if (sqlite3_prepare_v2(r->db, "INSERT INTO temp.buf_events(run_id, t_s, kind, node, detail) "
                                  "VALUES(?,?,?,?,?)",
                           -1, &r->ins_event, NULL) != SQLITE_OK)
        r->ins_event = NULL;
    if (!r->ins_tick || !r->ins_node || !r->ins_event || !r->ins_view || !r->ins_req)
        return results_sql_failed(r, NULL, err, errlen);
    return 0;
}

/* A path SQLite reads as a plain file name even with URI names on. */
char *results_plain_name(const char *path)
{
    return strncmp(path, "file:", 5) ? xstrdup(path) : xasprintf("./%s", path);
}

/* Why name cannot be opened for writing, as " (...)", or "": SQLite says
 * only "unable to open database file" (and the errno it keeps is that of
 * its read-only retry). */
static void open_failure(const char *name, char *why, size_t n)
{
    struct stat st;
    why[0] = '\0';
    if (stat(name, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            snprintf(why, n, " (it is a folder, not a file)");
        else if (access(name, R_OK | W_OK))
            snprintf(why, n, " (%s)", strerror(errno));
        return;
    }
    if (errno != ENOENT) { /* a name too long, a file taken for a folder */
        snprintf(why, n, " (%s)", strerror(errno));
        return;
    }
    const char *slash = strrchr(name, '/');
    char *dir = slash ? xstrndup(name, slash == name ? 1 : (size_t)(slash - name)) : xstrdup(".");
    if (access(dir, W_OK | X_OK))
        snprintf(why, n, " (no file can be made in its folder: %s)", strerror(errno));
    free(dir);
}

struct results *results_open(const char *path, char *err, size_t errlen)
{
    struct results *r = xcalloc(1, sizeof(*r));
    r->path = xstrdup(path);
    r->reserve_fd = -1;
    char *name = NULL;
    bool created = false; /* the file did not exist: this open makes it */
    if (!*path) {
        snprintf(err, errlen, "no file name given for the results database");
        goto fail;
    }
    name = results_plain_name(path);
    struct stat st;
    created = lstat(name, &st) != 0 && errno == ENOENT;
    int rc = sqlite3_open_v2(name, &r->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, NULL);
    if (rc != SQLITE_OK) {
        char why[160];
        open_failure(name, why, sizeof why);
        snprintf(err, errlen, "%s: cannot open: %s%s", path,
                 r->db ? sqlite3_errmsg(r->db) : "out of memory", why);
        goto fail;
    }
    sqlite3_busy_timeout(r->db, BUSY_TIMEOUT_MS);
    if (open_schema(r, err, errlen) || open_buffers(r, err, errlen))
        goto fail;
    free(name);
    return r;
fail:
    results_close(r);
    if (name && created) {
        /* a file this open made, left without its tables (a full disk, a
         * file size limit): gone, rather than a database no tool can read */
        unlink(name);
        char *journal = xasprintf("%s-journal", name);
        unlink(journal);
        free(journal);
    }
    free(name);
    return NULL;
}

/* Moves the buffered rows into the main tables in one short write
 * transaction. 0 done; 1 the file is locked by another writer (the rows
 * stay buffered); -1 failed (r->error says why; the rows are dropped). */
static int flush(struct results *r)
{
    if (r->in_buffer) {
        if (results_exec(r, "COMMIT", NULL, 0))
            return -1;
        r->in_buffer = false;
    }
    int rc = sqlite3_exec(r->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if ((rc & 0xff) == SQLITE_BUSY) {
        results_sql_failed(r, NULL, NULL, 0);
        return 1;
    }
    if (rc != SQLITE_OK)
        return results_sql_failed(r, NULL, NULL, 0);
    struct strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < ARRAY_LEN(buffered); i++)
        sb_printf(&sb, "INSERT INTO main.%s SELECT * FROM temp.buf_%s ORDER BY rowid;\n"
                       "DELETE FROM temp.buf_%s;\n",
                  buffered[i], buffered[i], buffered[i]);
    sb_puts(&sb, "COMMIT;");
    rc = results_exec(r, sb.buf, NULL, 0);
    if (rc) {
        sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
        sb_reset(&sb);
        for (size_t i = 0; i < ARRAY_LEN(buffered); i++)
            sb_printf(&sb, "DELETE FROM temp.buf_%s;\n", buffered[i]);
        sqlite3_exec(r->db, sb.buf, NULL, NULL, NULL);
    }
    sb_deinit(&sb);
    return rc;
}

/* Reopens the transaction the sink's inserts go into (temp tables only). */
static int begin_buffer(struct results *r)
{
    if (!r->in_buffer && results_exec(r, "BEGIN", NULL, 0))
        return -1;
    r->in_buffer = true;
    return 0;
}

/* flush(), waiting for another writer up to MAX_BUSY_FLUSHES times. */
int results_flush_waiting(struct results *r, char *err, size_t errlen)
{
    int rc;
    for (int i = 0; (rc = flush(r)) == 1 && i < MAX_BUSY_FLUSHES; i++)
        ;
    if (rc && err)
        snprintf(err, errlen, "%s", r->error);
    return rc ? -1 : 0;
}

void results_close(struct results *r)
{
    if (!r)
        return;
    if (r->db)
        results_watch_stop(r->db, NULL); /* closing is never cut short */
    if (r->in_buffer)
        results_flush_waiting(r, NULL, 0);
    /* At rest the file goes back to a rollback journal when no other
     * connection has it open (else this fails at once and it stays WAL):
     * read-only readers then leave no -wal or -shm file beside it, and
     * can read it from a read-only folder. */
    if (r->db) {
        sqlite3_busy_timeout(r->db, 0);
        sqlite3_exec(r->db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
    }
    sqlite3_finalize(r->ins_tick);
    sqlite3_finalize(r->ins_node);
    sqlite3_finalize(r->ins_event);
    sqlite3_finalize(r->ins_view);
    sqlite3_finalize(r->ins_req);
    sqlite3_close(r->db);
    release_reserve(r);
    free(r->path);
    free(r);
}

/* SQLite's progress handler: nonzero interrupts the statement running. */
static int stop_requested(void *flag)
{
    return *(const volatile sig_atomic_t *)flag != 0;
}

void results_watch_stop(sqlite3 *db, const volatile sig_atomic_t *stop)
{
    /* every 1000 virtual machine instructions: a row copied is a few dozen */
    if (stop)
        sqlite3_progress_handler(db, 1000, stop_requested, (void *)(uintptr_t)stop);
    else
        sqlite3_progress_handler(db, 0, NULL, NULL);
}

void results_stop_on(struct results *r, const volatile sig_atomic_t *stop)
{
    r->stop = stop;
    results_watch_stop(r->db, stop);
}

const char *results_error(const struct results *r)
{
    return r->error[0] ? r->error : NULL;
}

static void bind_cols(sqlite3_stmt *st, int first, const void *row, const struct column *c,
                      size_t n)
{
    const char *base = row;
    for (size_t i = 0; i < n; i++) {
        int k = first + (int)i;
        const void *p = base + c[i].off;
        if (c[i].type == 'I') {
            int64_t v = *(const int64_t *)p;
            if (v == REQUEST_NULL)
                sqlite3_bind_null(st, k);
            else
                sqlite3_bind_int64(st, k, v);
        } else if (c[i].type == 'R') {
            double v = *(const double *)p;
            if (isnan(v))
                sqlite3_bind_null(st, k);
            else
                sqlite3_bind_double(st, k, v);
        } else {
            const char *s = *(const char *const *)p;
            if (s)
                sqlite3_bind_text(st, k, s, -1, SQLITE_TRANSIENT);
            else
                sqlite3_bind_null(st, k);
        }
    }
}

static int step_reset(struct results *r, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        results_sql_failed(r, NULL, NULL, 0);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int sink_tick(void *ctx, const struct tick_row *row)
{
    struct results *r = ctx;
    sqlite3_bind_int64(r->ins_tick, 1, r->run_id);
    sqlite3_bind_double(r->ins_tick, 2, row->t_s);
    bind_cols(r->ins_tick, 3, row, results_tick_cols, ARRAY_LEN(results_tick_cols));
    return step_reset(r, r->ins_tick);
}

static int sink_node(void *ctx, const struct node_tick_row *row)
{
    struct results *r = ctx;
    sqlite3_bind_int64(r->ins_node, 1, r->run_id);
    sqlite3_bind_double(r->ins_node, 2, row->t_s);
    sqlite3_bind_text(r->ins_node, 3, row->node, -1, SQLITE_TRANSIENT);
    bind_cols(r->ins_node, 4, row, results_node_cols, ARRAY_LEN(results_node_cols));
    return step_reset(r, r->ins_node);
}

static int sink_view(void *ctx, const struct view_tick_row *row)
{
    struct results *r = ctx;
    sqlite3_bind_int64(r->ins_view, 1, r->run_id);
    sqlite3_bind_double(r->ins_view, 2, row->t_s);
    bind_cols(r->ins_view, 3, row, results_view_cols, ARRAY_LEN(results_view_cols));
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

static int sink_request(void *ctx, const struct request_row *row)
{
    struct results *r = ctx;
    sqlite3_bind_int64(r->ins_req, 1, r->run_id);
    bind_cols(r->ins_req, 2, row, results_req_cols, ARRAY_LEN(results_req_cols));
    return step_reset(r, r->ins_req);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* About once a second: the buffered rows go to the file. A file locked by
 * another writer is tried again at the next checkpoint, up to
 * MAX_BUSY_FLUSHES times in a row. */
static int sink_checkpoint(void *ctx)
{
    struct results *r = ctx;
    if (seconds_since(&r->last_flush) < 1.0)
        return 0;
    int rc = flush(r);
    if (rc == 1 && ++r->busy_flushes <= MAX_BUSY_FLUSHES)
        rc = 0;
    else if (rc == 0)
        r->busy_flushes = 0;
    clock_gettime(CLOCK_MONOTONIC, &r->last_flush);
    if (rc || begin_buffer(r))
        return -1;
    return 0;
}

struct sink results_sink(struct results *r)
{
    struct sink s = {r, sink_tick, sink_node, sink_view, sink_event, sink_checkpoint,
                     sink_request};
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
    if (results_flush_waiting(r, err, errlen) || results_exec(r, "BEGIN IMMEDIATE", err, errlen))
        goto fail;
    if (sqlite3_prepare_v2(r->db,
                           "INSERT INTO runs(name, seed, scenario_yaml, overrides, version, "
                           "started_at, wall_s, status, description, duration_s, tick_s, "
                           "scenario_path) VALUES(?,?,?,?,?,?,0,'running',?,?,?,?)",
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
    /* one row per path as a run reads it (nodes.01.weight is
     * nodes.1.weight); a path set twice: the last value is the one that
     * applied. O(overrides²), a handful. */
    char **path = xcalloc(sc->n_overrides + 1, sizeof *path);
    for (size_t i = 0; i < sc->n_overrides; i++)
        path[i] = override_path_normalize(sc->overrides[i].path);
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < sc->n_overrides && rc == SQLITE_DONE; i++) {
        bool later = false;
        for (size_t j = i + 1; j < sc->n_overrides && !later; j++)
            later = !strcmp(path[i], path[j]);
        if (later)
            continue;
        sqlite3_bind_int64(st, 1, r->run_id);
        sqlite3_bind_text(st, 2, path[i], -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, sc->overrides[i].value, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    for (size_t i = 0; i < sc->n_overrides; i++)
        free(path[i]);
    free(path);
    if (rc != SQLITE_DONE)
        goto sqlerr;
    sqlite3_finalize(st);
    st = NULL;
    /* the runs row is committed at once: a run being recorded shows, and
     * one whose process is killed outright stays 'running', never complete */
    if (results_exec(r, "COMMIT", err, errlen) || begin_buffer(r))
        goto fail;
    clock_gettime(CLOCK_MONOTONIC, &r->last_flush);
    r->busy_flushes = 0;
    r->error[0] = '\0';
    hold_reserve(r);
    *run_id = r->run_id;
    sb_deinit(&ov);
    return 0;
sqlerr:
    results_sql_failed(r, NULL, err, errlen);
fail:
    sqlite3_finalize(st);
    sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    sb_deinit(&ov);
    return -1;
}

/* The summary and the final status, in one short write transaction. */
static int write_end_once(struct results *r, const struct summary_row *sum, const char *status,
                     double wall_s, const char *error, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (results_exec(r, "BEGIN IMMEDIATE", err, errlen))
        return -1;
    if (sum) {
        st = prepare_insert(r, "summary", "run_id", 1, results_sum_cols, ARRAY_LEN(results_sum_cols));
        if (!st)
            goto sqlerr;
        sqlite3_bind_int64(st, 1, r->run_id);
        bind_cols(st, 2, sum, results_sum_cols, ARRAY_LEN(results_sum_cols));
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
    return results_exec(r, "COMMIT", err, errlen);
sqlerr:
    results_sql_failed(r, NULL, err, errlen);
    sqlite3_finalize(st);
    sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* write_end_once(), again with the reserve given back if the disk is full. */
static int write_end(struct results *r, const struct summary_row *sum, const char *status,
                     double wall_s, const char *error, char *err, size_t errlen)
{
    int rc = write_end_once(r, sum, status, wall_s, error, err, errlen);
    if (rc && (sqlite3_extended_errcode(r->db) & 0xff) == SQLITE_FULL && release_reserve(r))
        rc = write_end_once(r, sum, status, wall_s, error, err, errlen);
    release_reserve(r);
    return rc;
}

int results_finish_run(struct results *r, const struct summary_row *sum, const char *status,
                       double wall_s, const char *error, char *err, size_t errlen)
{
    /* the last rows; if they cannot be written the run failed, and the
     * status row (a page or two, in space the rollback freed) says why */
    if (results_flush_waiting(r, err, errlen)) {
        char *why = error ? xstrdup(error) : xasprintf("cannot record the last ticks: %s", r->error);
        bool was_failed = !strcmp(status, "failed");
        int rc = write_end(r, sum, "failed", wall_s, why, err, errlen);
        if (!rc && !was_failed) {
            snprintf(err, errlen, "%s", why);
            rc = -1;
        }
        free(why);
        return rc;
    }
    return write_end(r, sum, status, wall_s, error, err, errlen);
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
    for (size_t i = 0; i < ARRAY_LEN(results_run_cols); i++)
        fprintf(f, "| `%s` | %s | %s |\n", results_run_cols[i].name, results_run_cols[i].type,
                results_run_cols[i].doc);
    fprintf(f, "\n### `params`\n\n`(run_id, path, value)`: one row per path set by `--set`, "
               "`--seed` or a sweep — a path given twice holds the value that applied, the "
               "last (`overrides` in `runs` keeps every argument as given).\n\n");
    md_table(f, "ticks", "One row per tick: `(run_id, t_s, ...)`, `t_s` the tick's start in "
                         "simulated seconds.", results_tick_cols, ARRAY_LEN(results_tick_cols));
    md_table(f, "node_ticks", "One row per node per tick: `(run_id, t_s, node, ...)`, for "
                              "every node that has been in the cluster.",
             results_node_cols, ARRAY_LEN(results_node_cols));
    md_table(f, "views", "One row per distinct routing view per tick: `(run_id, t_s, ...)`. "
                         "Client instances that eject nodes on their own (client health mode), "
                         "adopt ring epochs at different moments (central mode) or are frozen "
                         "by a split brain route with different views; this is how many "
                         "hold each.", results_view_cols, ARRAY_LEN(results_view_cols));
    fprintf(f, "### `events`\n\n`(run_id, t_s, kind, node, detail)`: scenario events (their "
               "YAML names, and `slow_node_end`, `split_brain_end`, `hot_key_end`), "
               "`trace_end` (a replayed trace has no more requests), `epoch` "
               "(a ring epoch published), `adopt` (an instance adopts one late), `eject`, "
               "`eject_held` (a guard held an ejection back), `readmit`, "
               "`cascade_removal`, `hot_key_detected` and `hot_key_cooled`, the stages of "
               "staged joins and drains (`warm_start`, `warm_done`, `warm_cancel`, "
               "`drain_start`, `drain_done`, `drain_cancel`) and of slot migrations "
               "(`migrate_start`, `migrate_done`, `migrate_cancel`), and the first 100 "
               "`stale_overwrite`s with key and versions. `t_s` is the event's own "
               "time.\n\n");
    md_table(f, "summary", "One row per finished or interrupted run: `(run_id, ...)`.",
             results_sum_cols, ARRAY_LEN(results_sum_cols));
    md_table(f, "requests", "With `output.sample_requests: F`, one row per recorded client "
                            "operation (a seeded fraction F of them, the same operations for "
                            "the same seed): `(run_id, ...)`, written when the operation is "
                            "answered, so one still in flight when the run ends has no row "
                            "(with F = 1 the rows can be a few fewer than the ticks' "
                            "`requests`). The request trace of a postmortem: README.md has a "
                            "worked example.",
             results_req_cols, ARRAY_LEN(results_req_cols));
}

/* ---- human summary ------------------------------------------------------------------ */

static void pct(FILE *f, const char *label, double v)
{
    if (isnan(v))
        fprintf(f, "  %-22s n/a\n", label);
    else
        fprintf(f, "  %-22s %.2f%%\n", label, 100 * v);
}

/* The summary's numbers as the `summary` table holds them: shares as
 * percentages, and the seconds (recovery, overload) to ten significant
 * digits, never rounded to whole seconds — with a tick of 250 ms a recovery
 * of 3.25 s is printed so, not as 3 s. */
void summary_print(FILE *f, const char *name, uint64_t seed, const struct summary_row *s,
                   double covered_s, double duration_s)
{
    if (covered_s < duration_s)
        fprintf(f, "%s (seed %llu, %.10g of %.10g s simulated)\n", name,
                (unsigned long long)seed, covered_s, duration_s);
    else
        fprintf(f, "%s (seed %llu, %.10g s simulated)\n", name, (unsigned long long)seed,
                duration_s);
    fprintf(f, "  %-22s %lld\n", "requests", (long long)s->requests);
    pct(f, "hit rate", s->hit_rate);
    pct(f, "baseline hit rate", s->baseline_hit_rate);
    pct(f, "min hit rate", s->min_hit_rate);
    if (isnan(s->recovery_s))
        fprintf(f, "  %-22s %s\n", "recovery", "never (or no event)");
    else
        fprintf(f, "  %-22s %.10g s\n", "recovery", s->recovery_s);
    fprintf(f, "  %-22s %.0f\n", "peak backend qps", s->peak_backend_qps);
    fprintf(f, "  %-22s %.1f%%\n", "peak db utilization", 100 * s->peak_db_util);
    fprintf(f, "  %-22s %.10g s\n", "db overloaded", s->db_overload_s);
    fprintf(f, "  %-22s %lld (%lld cascade), at most %lld at once\n", "ejections",
            (long long)s->ejections, (long long)s->cascade_removals, (long long)s->max_ejected);
    fprintf(f, "  %-22s %lld reads, %lld overwrites (%lld clobbers)\n", "stale",
            (long long)s->stale_reads, (long long)s->stale_overwrites, (long long)s->clobbers);
    fprintf(f, "  %-22s %lld\n", "keys moved", (long long)s->keys_moved);
    pct(f, "busiest node's share", s->max_node_share);
    fprintf(f, "  %-22s %lld timeouts, %lld errors\n", "failures", (long long)s->timeouts,
            (long long)s->errors);
}
