/*
 * results.h — the SQLite results database (tables and metric meanings:
 * output/README.md; columns generated from sim/metrics.h).
 *
 * One file holds many runs, and several processes may write and read it
 * at once. Opening creates the tables if they are missing and refuses a
 * file whose tables are not ringsim's. A run is recorded as it goes: its
 * `runs` row first (status 'running' until it ends, so a run killed
 * outright never reads as complete), then its ticks, node ticks and events
 * in short transactions about once a second of wall time, then its summary
 * and final status. Nothing already in the file is ever changed except the
 * run's own row.
 */
#ifndef RINGSIM_RESULTS_H
#define RINGSIM_RESULTS_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/sink.h"

struct results;

/* Opens (creating if needed) the database at path. NULL with a message in
 * err when it cannot be opened or is not a ringsim database. */
struct results *results_open(const char *path, char *err, size_t errlen);
/* Writes what is still buffered and closes. */
void results_close(struct results *r);
/* From now on a statement on r, and a merge's reading and checking of its
 * sources, stops soon after *stop turns nonzero (a signal handler sets it):
 * it fails as "interrupted", and a merge rolls back. NULL: never. */
void results_stop_on(struct results *r, const volatile sig_atomic_t *stop);
/* Why the last write failed (SQLite's message, naming the file; "the disk
 * is full (...)" when it is), or NULL. A sink callback that returned -1
 * left its reason here. */
const char *results_error(const struct results *r);
/* Checks, opening it read-only, that path is a ringsim results database
 * and is not damaged (PRAGMA quick_check: reads the whole file): 0; else a
 * message naming path and -1 when the file is at fault (missing, a folder,
 * unreadable, a name too long, not SQLite, not ringsim's, damaged: bad
 * input), -2 when it could not be checked (an I/O error, no memory; or
 * stopped). The check stops, failing, once *stop turns nonzero (stop may
 * be NULL). */
int results_check_file(const char *path, const volatile sig_atomic_t *stop, char *err,
                       size_t errlen);
/* An input file, before SQLite opens it: 0 when path names a regular file
 * this process may read; else "PATH: cannot read: REASON" or "PATH: not a
 * file" in err and -1 when the name is at fault (no such file, a folder, no
 * permission, a name too long: bad input, exit 2), -2 when the system is
 * (an I/O error, no memory, no file descriptors left). */
int results_input_readable(const char *path, char *err, size_t errlen);
/* Whether a failed read of an input database (SQLite's error code, as
 * sqlite3_errcode returns it) is the file's fault: not a database, damaged,
 * not ringsim's tables (bad input), rather than the system's (an I/O error,
 * no memory, locked, interrupted). */
bool results_input_at_fault(int sqlite_code);

/* Starts a run: inserts its runs and params rows. extra_params (may be
 * NULL/0) are recorded in params besides the scenario's overrides (sweeps
 * pass their varied values there). Returns 0 and sets *run_id. */
int results_begin_run(struct results *r, const struct scenario *sc, const char *started_at,
                      int64_t *run_id, char *err, size_t errlen);
/* The sink that records ticks, node ticks and events of the run begun last. */
struct sink results_sink(struct results *r);
/* Ends the run: writes the rows still buffered, then the summary (may be
 * NULL), status ("complete", "interrupted", "failed"), wall seconds and
 * error text (may be NULL). When the buffered rows cannot be written the
 * run is recorded as failed, saying why (error when given), and -1 is
 * returned unless the run was failed already. */
int results_finish_run(struct results *r, const struct summary_row *sum, const char *status,
                       double wall_s, const char *error, char *err, size_t errlen);

/* Called by a merge for each run it copies whose status is 'running' (being
 * recorded, or its process died): the source, the run's id there, its name. */
typedef void (*results_running_fn)(void *ctx, const char *src_path, int64_t run_id,
                                   const char *name);
/* Copies every run of the databases src_paths[0..n) into r with new run
 * ids, sources in order and each one's runs in run_id order, all in one
 * transaction: every run is copied, or nothing (a full disk, a source that
 * cannot be read). The sources are opened read-only and all checked first.
 * copied_each[i] (may be NULL) gets the runs of source i; running (may be
 * NULL) hears of each run copied as 'running' (it is copied as it is).
 * Returns the number copied, or -1 with a message in err. */
int results_merge(struct results *r, const char *const *src_paths, size_t n, int *copied_each,
                  results_running_fn running, void *ctx, char *err, size_t errlen);
/* results_merge of one source. */
int results_merge_from(struct results *r, const char *src_path, char *err, size_t errlen);
/* Ends every run of the database at path still recorded as 'running' (its
 * process died before writing how it ended) with status and error (may be
 * NULL). Opening and closing the file also folds a write-ahead log the
 * dead process left back into it, and removes its -wal and -shm files.
 * Returns the number of runs changed, or -1 with a message in err. */
int results_settle_running(const char *path, const char *status, const char *error, char *err,
                           size_t errlen);

/* Reads the summary of run_id (the last run when run_id <= 0) of the
 * database at path. Returns 0, or -1 if there is none. */
int results_read_summary(const char *path, int64_t run_id, struct summary_row *out);

/* The value of the summary column name in s, as a double (NaN for a
 * NULL REAL). 0, or -1 when there is no such numeric column. */
int summary_value(const struct summary_row *s, const char *name, double *out);

/* The metric reference (Markdown tables) for output/README.md. */
void results_schema_markdown(FILE *f);

/* The summary as a short human table; covered_s is the simulated time its
 * ticks cover, less than duration_s when the run stopped early. */
void summary_print(FILE *f, const char *name, uint64_t seed, const struct summary_row *s,
                   double covered_s, double duration_s);

#endif
