/*
 * results_internal.h — what results.c (the writer, the schema, the column
 * lists) shares with results_merge.c (checking, merging and reading other
 * databases). Not for use outside output/results*.c.
 */
#ifndef RINGSIM_RESULTS_INTERNAL_H
#define RINGSIM_RESULTS_INTERNAL_H

#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sim/metrics.h"
#include "sim/util.h"

/* PRAGMA user_version of a ringsim results database. */
#define RESULTS_SCHEMA_VERSION 1
/* How long a statement waits for another process's write lock. */
#define BUSY_TIMEOUT_MS 10000

/* A column of a table generated from the lists in sim/metrics.h. */
struct column {
    const char *name;
    char type; /* I, R, T */
    size_t off; /* of the field in the row struct */
    const char *doc;
};

#define RESULTS_COUNT_COL(n, t, d) +1
extern const struct column results_tick_cols[0 TICK_FIELDS(RESULTS_COUNT_COL)];
extern const struct column results_node_cols[0 NODE_TICK_FIELDS(RESULTS_COUNT_COL)];
extern const struct column results_sum_cols[0 SUMMARY_FIELDS(RESULTS_COUNT_COL)];
extern const struct column results_view_cols[0 VIEW_TICK_FIELDS(RESULTS_COUNT_COL)];
extern const struct column results_req_cols[0 REQUEST_FIELDS(RESULTS_COUNT_COL)];

/* A column of `runs` besides run_id. */
struct run_column {
    const char *name, *type, *doc;
};
#define RESULTS_RUN_COLS 13
/* (a definition with another count does not compile) */
extern const struct run_column results_run_cols[RESULTS_RUN_COLS];

struct results {
    sqlite3 *db;
    char *path;
    int64_t run_id;
    sqlite3_stmt *ins_tick, *ins_node, *ins_event, *ins_view, *ins_req; /* into temp.buf_* */
    struct timespec last_flush;
    bool in_buffer;      /* the transaction on the temp buffers is open */
    int busy_flushes;    /* checkpoints in a row that found the file locked */
    int reserve_fd;      /* an unlinked file of RESERVE_BYTES, or -1 */
    const volatile sig_atomic_t *stop; /* results_stop_on's flag, or NULL */
    char error[MSG_MAX]; /* why the last write failed; "" if none has */
};

/* Records why the last statement on r failed in r->error and, when given,
 * err. Returns -1. */
int results_sql_failed(struct results *r, const char *msg, char *err, size_t errlen);
/* sqlite3_exec on r: 0, or -1 through results_sql_failed. */
int results_exec(struct results *r, const char *sql, char *err, size_t errlen);
/* ", name" for each of the n columns c. */
void results_col_list(struct strbuf *sb, const struct column *c, size_t n);
/* Whether table.col exists in schema ("main", ...) of db. */
bool results_has_column(sqlite3 *db, const char *schema, const char *table, const char *col);
/* 0 if db (opened from path) is a ringsim results database, else -1 with
 * a message naming path; one without tables is when allow_empty. */
int results_check_ringsim(sqlite3 *db, const char *path, bool allow_empty, char *err,
                          size_t errlen);
/* A path SQLite reads as a plain file name even with URI names on (free it). */
char *results_plain_name(const char *path);
/* Makes the statements on db fail as interrupted (SQLITE_INTERRUPT) soon
 * after *stop turns nonzero; stop NULL removes the watch. */
void results_watch_stop(sqlite3 *db, const volatile sig_atomic_t *stop);
/* Writes the rows r holds buffered, waiting a while for another writer:
 * 0, or -1 with r->error (and err when given) saying why. */
int results_flush_waiting(struct results *r, char *err, size_t errlen);

#endif
