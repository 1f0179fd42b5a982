/*
 * results_merge.c — reading result databases made by other runs: whether
 * an input can be read and whose fault it is when not (results_input_readable,
 * results_input_at_fault: the file's is bad input, exit 2; the system's, as an
 * I/O error or a lock held too long, exit 1), checking one
 * (results_check_file), copying its runs into another (results_merge),
 * settling the runs a dead process left 'running', reading a run's
 * summary. The writer's side and the column lists are in results.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/results.h"
#include "output/results_internal.h"
#include "sim/util.h"

int results_input_readable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int fd = -1;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s: not a file", path);
            return -1;
        }
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(e));
        /* the system's fault, not the name's: the same name may work later */
        return e == EIO || e == ENOMEM || e == EMFILE || e == ENFILE || e == EINTR ? -2 : -1;
    }
    close(fd);
    return 0;
}

bool results_input_at_fault(int sqlite_code)
{
    switch (sqlite_code & 0xff) {
    case SQLITE_OK:       /* the check ran and said no (no tables, another schema) */
    case SQLITE_ERROR:    /* a table or column missing: not ringsim's */
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
    case SQLITE_SCHEMA:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
        return true;
    default:              /* IOERR, NOMEM, BUSY, LOCKED, INTERRUPT, CANTOPEN, ... */
        return false;
    }
}

int results_check_file(const char *path, const volatile sig_atomic_t *stop, char *err,
                       size_t errlen)
{
    sqlite3 *db = NULL;
    int rc = results_input_readable(path, err, errlen);
    if (rc)
        return rc;
    rc = -2;
    char *name = results_plain_name(path);
    int orc = sqlite3_open_v2(name, &db, SQLITE_OPEN_READONLY, NULL);
    free(name);
    if (orc == SQLITE_OK)
        results_watch_stop(db, stop);
    if (orc != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
    } else if (results_check_ringsim(db, path, false, err, errlen)) {
        rc = results_input_at_fault(sqlite3_errcode(db)) ? -1 : -2;
    } else {
        sqlite3_stmt *q = NULL;
        const char *verdict = NULL;
        if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &q, NULL) == SQLITE_OK
            && sqlite3_step(q) == SQLITE_ROW)
            verdict = (const char *)sqlite3_column_text(q, 0);
        rc = 0;
        if (!verdict || strcmp(verdict, "ok")) {
            /* SQLite's verdict may span lines ("*** in database main ***\n
             * Page 3: ..."): one line here, as every message */
            snprintf(err, errlen, "%s: damaged (%s)", path, verdict ? verdict : sqlite3_errmsg(db));
            for (char *p = err; *p; p++)
                if (*p == '\n' || *p == '\r')
                    *p = ' ';
            rc = verdict || results_input_at_fault(sqlite3_errcode(db)) ? -1 : -2;
        }
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
    return rc;
}

/* Why writing the runs of src_path into r failed (an error on r's own
 * connection: a source's errors are reported where they are read), naming
 * the file at fault: the output when it is damaged or full, else both. */
static void merge_failed(struct results *r, const char *src_path, char *err, size_t errlen)
{
    int code = sqlite3_extended_errcode(r->db) & 0xff;
    const char *msg = sqlite3_errmsg(r->db);
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
        snprintf(err, errlen, "%s: %s: the database merged into is damaged (copying the runs "
                              "of %s)", r->path, msg, src_path);
    else if (code == SQLITE_FULL || sqlite3_system_errno(r->db) == ENOSPC)
        snprintf(err, errlen, "copying the runs of %s: the disk is full (%s: %s)", src_path,
                 r->path, msg);
    else
        snprintf(err, errlen, "copying the runs of %s into %s: %s", src_path, r->path, msg);
}

/* One table's copy of a run: SELECT of the source's rows of a run (NULL
 * for a column the source lacks) and the INSERT of them under a new id. */
struct table_copy {
    sqlite3_stmt *get, *put;
    int n;               /* columns copied besides run_id */
};

/* Prepares the copy of table: the lead columns (", t_s"), then cols. */
static int table_copy_init(struct table_copy *t, sqlite3 *src, sqlite3 *dst, const char *table,
                           const char *const *lead, size_t n_lead, const struct column *cols,
                           size_t n_cols)
{
    struct strbuf get, put;
    sb_init(&get);
    sb_init(&put);
    memset(t, 0, sizeof(*t));
    bool present = results_has_column(src, "main", table, "run_id");
    sb_puts(&get, "SELECT ");
    sb_printf(&put, "INSERT INTO main.%s(run_id", table);
    for (size_t i = 0; i < n_lead + n_cols; i++) {
        const char *name = i < n_lead ? lead[i] : cols[i - n_lead].name;
        bool has = i < n_lead || results_has_column(src, "main", table, name);
        sb_printf(&get, "%s%s", i ? ", " : "", has ? name : "NULL");
        sb_printf(&put, ", %s", name);
    }
    t->n = (int)(n_lead + n_cols);
    sb_puts(&put, ") VALUES(?");
    for (int i = 0; i < t->n; i++)
        sb_puts(&put, ", ?");
    sb_putc(&put, ')');
    /* a source made before the table existed (requests) has no rows of it */
    if (present)
        sb_printf(&get, " FROM main.%s WHERE run_id = ? ORDER BY rowid", table);
    else
        sb_puts(&get, " WHERE 0");
    int rc = sqlite3_prepare_v2(src, get.buf, -1, &t->get, NULL) == SQLITE_OK
                     && sqlite3_prepare_v2(dst, put.buf, -1, &t->put, NULL) == SQLITE_OK
                 ? 0
                 : -1;
    sb_deinit(&get);
    sb_deinit(&put);
    return rc;
}

static void table_copy_deinit(struct table_copy *t)
{
    sqlite3_finalize(t->get);
    sqlite3_finalize(t->put);
}

/* Copies run old's rows into run nid. 0; 1 reading the source failed; -1
 * writing failed. */
static int table_copy_run(struct table_copy *t, int64_t old, int64_t nid)
{
    sqlite3_reset(t->get);
    if (sqlite3_bind_parameter_count(t->get))
        sqlite3_bind_int64(t->get, 1, old);
    int rc;
    while ((rc = sqlite3_step(t->get)) == SQLITE_ROW) {
        sqlite3_reset(t->put);
        sqlite3_bind_int64(t->put, 1, nid);
        for (int i = 0; i < t->n; i++)
            sqlite3_bind_value(t->put, i + 2, sqlite3_column_value(t->get, i));
        if (sqlite3_step(t->put) != SQLITE_DONE)
            return -1;
    }
    return rc == SQLITE_DONE ? 0 : 1;
}

/* The tables of a run besides `runs`, in the order they are copied. */
enum { COPY_PARAMS, COPY_TICKS, COPY_NODES, COPY_VIEWS, COPY_EVENTS, COPY_SUMMARY,
       COPY_REQUESTS, N_COPIES };

/* Copies every run of the database src_path into r (in the transaction
 * open on r). Returns the number copied, or -1 with err set. */
static int merge_one(struct results *r, const char *src_path, results_running_fn running,
                     void *ctx, char *err, size_t errlen)
{
    sqlite3 *src = NULL;
    sqlite3_stmt *runs = NULL, *put_run = NULL;
    struct table_copy tc[N_COPIES];
    memset(tc, 0, sizeof tc);
    int copied = -1;
    bool src_failed = false;
    char *name = results_plain_name(src_path);
    int orc = sqlite3_open_v2(name, &src, SQLITE_OPEN_READONLY, NULL);
    free(name);
    if (orc != SQLITE_OK) {
        src_failed = true;
        goto fail;
    }
    sqlite3_busy_timeout(src, BUSY_TIMEOUT_MS);
    results_watch_stop(src, r->stop);
    int status_col = 0; /* of results_run_cols */
    while (strcmp(results_run_cols[status_col].name, "status"))
        status_col++;
    static const char *const params_lead[] = {"path", "value"};
    static const char *const t_lead[] = {"t_s"};
    static const char *const node_lead[] = {"t_s", "node"};
    static const char *const event_lead[] = {"t_s", "kind", "node", "detail"};
    struct strbuf sql;
    sb_init(&sql);
    sb_puts(&sql, "SELECT run_id");
    for (size_t i = 0; i < ARRAY_LEN(results_run_cols); i++)
        sb_printf(&sql, ", %s", results_has_column(src, "main", "runs", results_run_cols[i].name)
                                    ? results_run_cols[i].name : "NULL");
    sb_puts(&sql, " FROM main.runs ORDER BY run_id");
    bool ok = sqlite3_prepare_v2(src, sql.buf, -1, &runs, NULL) == SQLITE_OK;
    src_failed = !ok;
    sb_reset(&sql);
    sb_puts(&sql, "INSERT INTO main.runs(");
    for (size_t i = 0; i < ARRAY_LEN(results_run_cols); i++)
        sb_printf(&sql, "%s%s", i ? ", " : "", results_run_cols[i].name);
    sb_puts(&sql, ") VALUES(");
    for (size_t i = 0; i < ARRAY_LEN(results_run_cols); i++)
        sb_printf(&sql, "%s?", i ? ", " : "");
    sb_putc(&sql, ')');
    ok = ok && sqlite3_prepare_v2(r->db, sql.buf, -1, &put_run, NULL) == SQLITE_OK;
    sb_deinit(&sql);
    ok = ok
         && !table_copy_init(&tc[COPY_PARAMS], src, r->db, "params", params_lead, 2, NULL, 0)
         && !table_copy_init(&tc[COPY_TICKS], src, r->db, "ticks", t_lead, 1, results_tick_cols,
                             ARRAY_LEN(results_tick_cols))
         && !table_copy_init(&tc[COPY_NODES], src, r->db, "node_ticks", node_lead, 2,
                             results_node_cols, ARRAY_LEN(results_node_cols))
         && !table_copy_init(&tc[COPY_VIEWS], src, r->db, "views", t_lead, 1, results_view_cols,
                             ARRAY_LEN(results_view_cols))
         && !table_copy_init(&tc[COPY_EVENTS], src, r->db, "events", event_lead, 4, NULL, 0)
         && !table_copy_init(&tc[COPY_SUMMARY], src, r->db, "summary", NULL, 0,
                             results_sum_cols, ARRAY_LEN(results_sum_cols))
         && !table_copy_init(&tc[COPY_REQUESTS], src, r->db, "requests", NULL, 0, results_req_cols,
                             ARRAY_LEN(results_req_cols));
    if (!ok)
        goto fail;
    /* one read transaction: the source as of one moment */
    if (sqlite3_exec(src, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        src_failed = true;
        goto fail;
    }
    copied = 0;
    int rc;
    while ((rc = sqlite3_step(runs)) == SQLITE_ROW) {
        int64_t old = sqlite3_column_int64(runs, 0);
        sqlite3_reset(put_run);
        for (int i = 0; i < (int)ARRAY_LEN(results_run_cols); i++)
            sqlite3_bind_value(put_run, i + 1, sqlite3_column_value(runs, i + 1));
        if (sqlite3_step(put_run) != SQLITE_DONE) {
            copied = -1;
            goto fail;
        }
        int64_t nid = sqlite3_last_insert_rowid(r->db);
        for (int t = 0; t < N_COPIES; t++) {
            int c = table_copy_run(&tc[t], old, nid);
            if (c) {
                src_failed = c > 0;
                copied = -1;
                goto fail;
            }
        }
        const char *status = (const char *)sqlite3_column_text(runs, 1 + status_col);
        if (running && status && !strcmp(status, "running"))
            running(ctx, src_path, old, (const char *)sqlite3_column_text(runs, 1));
        copied++;
    }
    if (rc != SQLITE_DONE) {
        src_failed = true;
        copied = -1;
    }
fail:
    if (copied < 0) {
        if (src_failed)
            snprintf(err, errlen, "%s: %s (nothing was merged into %s)", src_path,
                     src ? sqlite3_errmsg(src) : "out of memory", r->path);
        else
            merge_failed(r, src_path, err, errlen);
    }
    for (int t = 0; t < N_COPIES; t++)
        table_copy_deinit(&tc[t]);
    sqlite3_finalize(runs);
    sqlite3_finalize(put_run);
    if (src)
        sqlite3_exec(src, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(src);
    return copied;
}

int results_merge(struct results *r, const char *const *src_paths, size_t n, int *copied_each,
                  results_running_fn running, void *ctx, char *err, size_t errlen)
{
    /* every source is checked before anything is copied: one that is
     * missing, not ringsim's or damaged is refused, and they are only ever
     * opened read-only */
    for (size_t i = 0; i < n; i++)
        if (results_check_file(src_paths[i], r->stop, err, errlen))
            return -1;
    if (results_flush_waiting(r, err, errlen))
        return -1;
    if (results_exec(r, "BEGIN IMMEDIATE", NULL, 0)) {
        merge_failed(r, n ? src_paths[0] : r->path, err, errlen);
        return -1;
    }
    int total = 0;
    for (size_t i = 0; i < n; i++) {
        int c = merge_one(r, src_paths[i], running, ctx, err, errlen);
        if (c < 0) {
            sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
        if (copied_each)
            copied_each[i] = c;
        total += c;
    }
    if (results_exec(r, "COMMIT", NULL, 0)) {
        merge_failed(r, n ? src_paths[n - 1] : r->path, err, errlen);
        sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return total;
}

int results_merge_from(struct results *r, const char *src_path, char *err, size_t errlen)
{
    return results_merge(r, &src_path, 1, NULL, NULL, NULL, err, errlen);
}

int results_settle_running(const char *path, const char *status, const char *error, char *err,
                           size_t errlen)
{
    struct results *r = results_open(path, err, errlen);
    if (!r)
        return -1;
    sqlite3_stmt *st = NULL;
    int n = -1;
    if (sqlite3_prepare_v2(r->db, "UPDATE runs SET status = ?, error = ? WHERE status = 'running'",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
        if (error)
            sqlite3_bind_text(st, 2, error, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, 2);
        if (sqlite3_step(st) == SQLITE_DONE)
            n = sqlite3_changes(r->db);
    }
    if (n < 0)
        results_sql_failed(r, NULL, err, errlen);
    sqlite3_finalize(st);
    results_close(r);
    return n;
}

int results_read_summary(const char *path, int64_t run_id, struct summary_row *out)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    char *name = results_plain_name(path);
    int orc = sqlite3_open_v2(name, &db, SQLITE_OPEN_READONLY, NULL);
    free(name);
    if (orc != SQLITE_OK)
        goto out;
    struct strbuf sql;
    sb_init(&sql);
    sb_puts(&sql, "SELECT run_id");
    results_col_list(&sql, results_sum_cols, ARRAY_LEN(results_sum_cols));
    if (run_id > 0)
        sb_printf(&sql, " FROM summary WHERE run_id = %lld", (long long)run_id);
    else
        sb_puts(&sql, " FROM summary ORDER BY run_id DESC LIMIT 1");
    int prc = sqlite3_prepare_v2(db, sql.buf, -1, &st, NULL);
    sb_deinit(&sql);
    if (prc != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
        goto out;
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < ARRAY_LEN(results_sum_cols); i++) {
        char *p = (char *)out + results_sum_cols[i].off;
        int k = (int)i + 1;
        if (results_sum_cols[i].type == 'I')
            *(int64_t *)p = sqlite3_column_int64(st, k);
        else if (results_sum_cols[i].type == 'R')
            *(double *)p = sqlite3_column_type(st, k) == SQLITE_NULL
                               ? NAN : sqlite3_column_double(st, k);
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int summary_value(const struct summary_row *s, const char *name, double *out)
{
    for (size_t i = 0; i < ARRAY_LEN(results_sum_cols); i++) {
        if (strcmp(results_sum_cols[i].name, name))
            continue;
        const char *p = (const char *)s + results_sum_cols[i].off;
        if (results_sum_cols[i].type == 'I')
            *out = (double)*(const int64_t *)p;
        else if (results_sum_cols[i].type == 'R')
            *out = *(const double *)p;
        else
            return -1;
        return 0;
    }
    return -1;
}
