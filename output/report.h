/*
 * report.h — reading a results database back as statistics: the runs of
 * each combination of parameters, and per summary metric the mean with its
 * 95% confidence interval, the minimum, the maximum, the runs in which
 * something happened, and paired differences from a baseline combination
 * (`ringsim report`, the table at the end of `ringsim sweep`;
 * output/README.md, "Reports").
 *
 *   results.db --report_load()--> struct report (runs, grouped)
 *              --report_print_table / _csv / _json--> text
 *
 * Three parts:
 *   report_stats.c  the statistics (pure): describe a sample, pair two,
 *                   Student t quantiles (GSL); the metrics and how they read
 *   report.c        the database read-only: runs, params, summaries;
 *                   combinations, their order, the baseline of each
 *   report_print.c  the human table, CSV and JSON
 */
#ifndef RINGSIM_REPORT_H
#define RINGSIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/util.h"

struct ynode;

/* ---- metrics and statistics (report_stats.c) ------------------------------ */

/* A summary column as a report shows it. */
struct report_metric {
    const char *name;      /* the `summary` column */
    const char *doc;       /* its meaning (sim/metrics.h) */
    bool integer;          /* an INTEGER column: min and max print without decimals */
    double scale;          /* the human table shows value x scale (100: a share as %) */
    const char *unit;      /* of the scaled value: "%", "s", "requests/s" or "" */
    int decimals;          /* of the scaled mean, CI, min and max in the human table */
    int better;            /* +1 higher is better, -1 lower is better, 0 neither */
    bool count_with;       /* the runs in which it happened (value > 0) are counted */
    const char *null_word; /* what a NULL means: "never" (recovery_s) or "no value" */
};

/* The metric named name (a column of `summary`) into *m: 0, or -1 when
 * there is no such column. */
int report_metric_get(const char *name, struct report_metric *m);
/* The i-th column of `summary` (0 <= i < report_n_metrics()), as above. */
int report_metric_at(size_t i, struct report_metric *m);
size_t report_n_metrics(void);
/* A name in report_stats.c's display table that is no column of `summary`
 * (a metric renamed in sim/metrics.h and not here), or NULL. */
const char *report_metric_stray_display(void);
/* The metrics shown when none is chosen. */
extern const char *const report_default_metrics[];
extern const size_t report_n_default_metrics;

/* One metric over the runs of one combination. Values that are NULL (NaN
 * here) are counted, not averaged: mean, sd, CI, min and max are over the n
 * runs with a value. */
struct metric_stats {
    size_t runs;           /* runs in the combination */
    size_t n;              /* of them with a value */
    size_t with;           /* of them with a value > 0 */
    double mean, sd;       /* NaN when n == 0; sd (n - 1 in the denominator) NaN when n < 2 */
    double ci_lo, ci_hi;   /* mean -/+ t(0.975, n - 1) sd / sqrt(n); NaN when n < 2 */
    double min, max;       /* NaN when n == 0 */
};

/* The differences of a metric from the baseline combination, run by run
 * paired by seed and pooled parameters. */
struct diff_stats {
    size_t pairs;          /* pairs of runs (seed and pooled parameters alike) with a
                            * value in both */
    double mean, sd, ci_lo, ci_hi;   /* as in metric_stats, over the pairs */
};

/* The 0.975 quantile of Student's t with df degrees of freedom (df >= 1):
 * gsl_cdf_tdist_Pinv(0.975, df). */
double stats_t975(size_t df);
/* Describes v[0..runs) (NaN: NULL). */
void stats_describe(const double *v, size_t runs, struct metric_stats *out);
/* Describes a[i] - b[i] over the i where both are values. */
void stats_paired(const double *a, const double *b, size_t n, struct diff_stats *out);

/* ---- a database as a report (report.c) --------------------------------------- */

struct report_options {
    const char *db;                  /* the results database */
    const char *const *by;           /* the params that make a combination; */
    size_t n_by;                     /*   NULL/0: every param that varies but seed */
    const char *const *metrics;      /* NULL/0: report_default_metrics */
    size_t n_metrics;
    const char *baseline;            /* "PATH=VALUE" or NULL */
};

enum report_status {
    REPORT_OK = 0,
    REPORT_FAILED = 1,      /* reading failed for the system's sake (an I/O error, no
                             * memory, the file locked too long) */
    REPORT_BAD_INPUT = 2,   /* no such file, one that cannot be read (a folder, no
                             * permission, a name too long), not a ringsim database or
                             * damaged, no complete run, an unknown metric, --by or
                             * --baseline */
};

/* One run taken into the report (complete, with a summary). */
struct report_run {
    int64_t run_id, seed;
    const char *name;      /* the scenario's (owned by the report) */
    char **values;         /* per --by path: the param's value, else the stored
                            * scenario's (NULL if neither has it) */
    double *m;             /* per metric; NaN for NULL */
};

/* The runs of one combination, described. */
struct report_group {
    const char *name;            /* the scenario */
    char *const *values;         /* per --by path (its first run's) */
    size_t *runs;                /* indices into report.runs, by run_id */
    size_t n_runs;
    struct metric_stats *stats;  /* per metric */
    struct diff_stats *diff;     /* per metric, with a baseline; else NULL */
    long baseline;               /* its baseline group, or -1 (none, or no baseline asked) */
};

struct report {
    char *db_path;
    char **by;                   /* the --by paths, given or found */
    size_t n_by;
    struct report_metric *metrics; /* those asked for, then the counted ones not asked for */
    size_t n_metrics;            /* asked for: the ones shown */
    size_t n_all;                /* with the counted ones (runs_with of every count) */
    char *base_path, *base_value; /* --baseline, split; NULL without */
    size_t base_by;              /* index of base_path in by */
    struct report_run *runs;     /* in run_id order */
    size_t n_runs;
    struct report_group *groups; /* in order: scenario, then each --by path's values */
    size_t n_groups;
    char **names;                /* the scenarios' names, in strcmp order */
    size_t n_names;
    bool names_differ;           /* runs of more than one scenario */
    char **fixed_paths, **fixed_values; /* params every run has alike (but seed) */
    size_t n_fixed;
    struct diag notes;           /* what the user should know (runs left out, ...) */
};

/* Reads o->db (read-only) into a report. REPORT_OK and *out (caller
 * destroys), or the failure with a message in err. */
enum report_status report_load(const struct report_options *o, struct report **out, char *err,
                               size_t errlen);
void report_destroy(struct report *r);

/* The scalar at a dotted path ("routing.vnodes", "nodes.1.weight") of a
 * YAML tree, or NULL. */
const char *yaml_scalar_at(const struct ynode *root, const char *path);

/* Sorts the distinct values of one parameter for display: numerically when
 * every one is a number, by length of time when every one is a duration,
 * by size when every one is a size; else by their text (strcmp order). The
 * order never depends on the order of values[], so databases merged in any
 * order sort alike. rank[i] is the place of values[i]; NULLs go last. */
void report_rank_values(char *const *values, size_t n, size_t *rank);
/* The same order, but values of equal magnitude are one value written two
 * ways ("0" and "0s", "5s" and "5000ms", "100" and "1e2") and share a rank:
 * rank[i] is the place of values[i]'s class (0, 1, ...), canon[i] the index
 * of its class's first value in that order (the one with the smallest
 * text), so the value shown never depends on the order of values[].
 * Returns the kind they were read in, for report_same_value: 0 numbers,
 * 1 durations, 2 sizes, 3 text (output/report_values.c). */
int report_class_values(char *const *values, size_t n, size_t *rank, size_t *canon);
/* Whether a and b are one value of that kind: the same text, or (kinds
 * 0-2) both read in the kind with the same magnitude. */
bool report_same_value(const char *a, const char *b, int kind);

/* ---- printing (report_print.c) ----------------------------------------------- */

/* One table per metric, one row per combination: runs, mean, 95% CI, min,
 * max, how many runs it happened in (or had no value), and the difference
 * from the baseline. */
void report_print_table(const struct report *r, FILE *f);
/* One row per combination and metric (output/README.md has the columns). */
void report_print_csv(const struct report *r, FILE *f);
/* An array of objects, one per combination. */
void report_print_json(const struct report *r, FILE *f);

/* v as the human table shows it: x m->scale with decimals (none past 10^4
 * in absolute value); "-" for NaN. */
void report_format_value(char *buf, size_t n, double v, const struct report_metric *m,
                         int decimals);
/* "[lo, hi]" as the human table shows a CI; "-" when either is NaN. */
void report_format_ci(char *buf, size_t n, double lo, double hi, const struct report_metric *m);

/* The parts of the human table, for a caller that streams its rows (the
 * sweep): label columns named cols[0..n_cols) with widths w[]. */
struct report_table {
    FILE *f;
    const struct report_metric *m;
    size_t n_cols;
    const char *const *cols;
    const size_t *w;
    bool diff;                  /* with the difference columns */
    bool note;                  /* with the "happened" / "never" column */
};
/* The metric's title line and the column heads. */
void report_table_head(const struct report_table *t, const char *diff_head);
/* One row: labels[0..n_cols), the statistics, the difference (NULL: none;
 * baseline true: this is the baseline). */
void report_table_row(const struct report_table *t, const char *const *labels,
                      const struct metric_stats *s, const struct diff_stats *d, bool baseline);
/* Whether a metric's table needs its note column, given the stats of every row. */
bool report_needs_note(const struct report_metric *m, bool any_null);

/* A number as JSON: the shortest text that reads back as the same double
 * (an integer below 10^15 without an exponent), or null for NaN and
 * infinities. */
void json_number(struct strbuf *sb, double v);

#endif
