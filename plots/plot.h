/*
 * plot.h — the plot library: charts and an HTML index from a results
 * database (plots/README.md describes the charts and the data files).
 * plot_draw() does it all; `ringsim plot` (sim/cli/cmd_plot.c) is its
 * command line.
 *
 *   results.db --(read-only SQL)--> struct plot_set
 *              --> DIR/data/NAME.tsv --(gnuplot, plots/NAME.gp)--> DIR/NAME.png or .svg
 *              --> DIR/index.html
 *
 * Text from a scenario (names, overrides, event details) reaches gnuplot
 * only inside the data files, where the scripts read it with strcol();
 * the command line passes gnuplot nothing but numbers and file names made
 * here. The helpers below are pure and unit-tested (tests/unit/test_plot.c).
 */
#ifndef RINGSIM_PLOT_H
#define RINGSIM_PLOT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/util.h"

struct sqlite3;
struct report;
struct report_metric;
struct metric_stats;

/* ---- drawing (plot_draw.c) ------------------------------------------------- */

struct plot_options {
    const char *db;          /* the results database */
    const int64_t *runs;     /* the runs to draw, in order; NULL/0: every run, or */
    size_t n_runs;           /* the last PLOT_DEFAULT_RUNS when there are more */
    const char *dir;         /* where to write; NULL: results/plots/<db name without .db> */
    bool svg;                /* SVG, else PNG */
    /* A sweep: the summaries of the runs against one or two parameters
     * (plot_sweep.c), rather than the runs over time. Drawn when sweep is
     * set, when by or metrics are given, or (runs not given) when the
     * database looks like a sweep (plot_looks_like_sweep). */
    bool sweep;
    const char *const *by;   /* the parameters (at most two); NULL/0: those that vary */
    size_t n_by;
    const char *const *metrics; /* summary columns; NULL/0: report_default_metrics */
    size_t n_metrics;
    /* Once *stop turns nonzero (a signal handler sets it), drawing stops:
     * the reads, the gnuplot running, and the charts and index.html not
     * yet written. NULL: never. */
    const volatile sig_atomic_t *stop;
};

enum plot_status {
    PLOT_DRAWN = 0,
    PLOT_FAILED = 1,         /* gnuplot or its scripts missing or failing, DIR not writable,
                              * an I/O error reading the database */
    PLOT_BAD_INPUT = 2,      /* not a ringsim database, no runs or none with a tick, an
                              * unknown run id */
};

/* What plot_draw() did: init by plot_draw(), deinit by the caller. */
struct plot_result {
    char *dir;               /* the folder written (index.html, images, data/) */
    int64_t *ids;            /* the runs drawn */
    size_t n_ids;
    struct diag notes;       /* what the user should know: runs left out, warnings */
    bool sweep;              /* drawn as a sweep: then n_ids is every run counted, */
    size_t n_groups;         /*   in n_groups combinations of the parameters by[], */
    char **by;               /*   n_by of them, */
    size_t n_by;
    char **charts;           /*   and the images written ("sweep-hit_rate.png") */
    size_t n_charts;
};

/* Draws the runs of o->db into a folder: the data files, one image per
 * chart (plot_charts) and index.html. PLOT_DRAWN, or the failure with a
 * message in err. res is filled either way (notes may hold messages). */
enum plot_status plot_draw(const struct plot_options *o, struct plot_result *res, char *err,
                           size_t errlen);
void plot_result_deinit(struct plot_result *res);
/* Writes len bytes of text to dir/name. 0, or -1 with a message. */
int plot_write_file(const char *dir, const char *name, const char *text, size_t len, char *err,
                    size_t errlen);

/* Runs drawn when --run is not given and the database holds more. */
#define PLOT_DEFAULT_RUNS 8
/* The most runs one chart may hold (8 colours, then the same dashed). */
#define PLOT_MAX_RUNS 16
/* Label lanes in the events strip above each chart. */
#define PLOT_MAX_LEVELS 5
/* Run labels, event labels and node names (in the charts' margins) are cut
 * to this many characters, with an ellipsis. */
#define PLOT_LABEL_MAX 90
#define PLOT_EVENT_LABEL_MAX 28
#define PLOT_NODE_MAX 10

/* ---- text (plot_text.c) ---------------------------------------------------- */

/* Appends s as one field of a tab-separated data file that gnuplot reads
 * with strcol(): tabs, line breaks and other control characters become
 * spaces, bytes that are not valid UTF-8 become '?'; a double quote (which
 * would end gnuplot's field) is written as the escape \042 and a backslash
 * as \\, which gnuplot turns back into " and \. Everything else,
 * backquotes and semicolons included, is kept: it is data. */
void tsv_field(struct strbuf *sb, const char *s);
/* Appends s escaped for HTML text or a quoted attribute: & < > " ' become
 * entities, invalid UTF-8 becomes U+FFFD, control characters spaces. */
void html_text(struct strbuf *sb, const char *s);
/* The number of characters (UTF-8 code points) in s; invalid bytes count 1. */
size_t utf8_chars(const char *s);
/* Cuts s (in place) to at most max characters, ending it with "…" when cut;
 * never splits a UTF-8 sequence. */
void utf8_truncate(char *s, size_t max);
/* 1234567 -> "1,234,567"; negative numbers keep their sign. */
void format_count(char *buf, size_t n, int64_t v);

/* Parses a --run argument: run ids and ranges separated by commas
 * ("3", "1,4", "2-5,9"), appended to *ids (grown with xrealloc) in the
 * order given, duplicates dropped. Returns 0, or -1 with a message in err. */
int parse_run_list(const char *arg, int64_t **ids, size_t *n, char *err, size_t errlen);
/* Formats a sorted list of ids compactly: "1-3, 7, 9-10". */
void format_id_list(struct strbuf *sb, const int64_t *ids, size_t n);

/* Staggers the labels of the events strip so that no label overlaps
 * another and no leader line (drawn from the bottom of the strip up to its
 * label at x) crosses a label: label i starts at x[i] (sorted ascending) and
 * is width[i] wide, in the same unit. Lane 0 is the lowest. A label takes
 * the highest lane with every lane under it free at x[i], so a burst of
 * events steps down from the top lane. Uses the fewest lanes (up to
 * max_levels) that need no overlap; when even max_levels cannot, a label
 * that finds lane 0 taken goes to the lane that ends first. Writes level[i]
 * and returns the number of lanes (0 when n is 0). */
int stagger_levels(const double *x, const double *width, size_t n, double gap, int max_levels,
                   int *level);

/* ---- one run, as drawn ------------------------------------------------------------ */

struct plot_run {
    int64_t id;
    char *name;
    char *description;
    char *status;
    char *label;          /* for the legend: "run 2: routing.algorithm=mod" */
    int64_t seed;
    double duration_s;
    double tick_s;
    double capacity_rps;  /* database.workers / database.service_time; NaN if unknown */
    int db_workers;       /* 0 if unknown */
    double db_service_ms;
    size_t n_nodes;       /* distinct nodes in node_ticks */
    size_t n_ticks;
    double first_event_s; /* its stored scenario's first event; INFINITY: none; NaN: unknown */
};

/* A scenario event as drawn: merged across runs when every run drawn has
 * it at the same time with the same node and detail. */
struct plot_event {
    double t_s;
    char *kind, *node, *detail; /* node may be NULL */
    char *label;                /* short, for the strip */
    size_t run_no;              /* 0: every run drawn has it; else the run's position, 1-based */
    int level;                  /* lane in the events strip, 0 lowest */
    size_t seq;                 /* order read: runs in turn, each in time order */
};

/* Everything one `ringsim plot` draws. */
struct plot_set {
    char *db_path;
    struct sqlite3 *db;         /* opened read-only */
    bool in_read;               /* inside the read transaction */
    struct plot_run *runs;      /* in the order drawn (colour k = position k) */
    size_t n_runs;
    struct plot_event *events;
    size_t n_events;
    size_t n_ejections;         /* `eject` events of the runs drawn */
    size_t n_cascades;          /* `cascade_removal` events */
    int levels;                 /* lanes the event labels need */
    double tmax_s;              /* the longest run */
    bool svg;
    bool input_fault;           /* the read that failed failed for the file's sake
                                 * (damaged, not ringsim's): bad input, not an I/O error */
};

/* The colour of the run at position k (1-based) in the charts and the
 * index; the same list as linetypes 1-8 in plots/common.gp. */
const char *plot_run_colour(size_t k);

/* ---- the database (plot_data.c) --------------------------------------------- */

/* Opens path read-only and checks that it is a ringsim results database.
 * NULL with a message in err, and *input_fault saying whether the file is
 * at fault (exit code 2: missing, unreadable, not SQLite, not ours) or the
 * system (1: locked by another process too long, an I/O error). */
struct plot_set *plot_set_open(const char *path, bool *input_fault, char *err, size_t errlen);
void plot_set_destroy(struct plot_set *ps);
/* A read of ps->db that failed: "DB: SQLite's message" in err, and
 * ps->input_fault set when it is the file's fault. Returns -1. */
int plot_set_sql_err(struct plot_set *ps, char *err, size_t errlen);
/* Every run id in the database, ascending. Caller frees *ids. */
int plot_set_run_ids(struct plot_set *ps, int64_t **ids, size_t *n, char *err, size_t errlen);
/* Reads the runs to draw (ids all exist), their labels and capacities and
 * the events. Warnings (a stored scenario that no longer loads) go to warn. */
int plot_set_load(struct plot_set *ps, const int64_t *ids, size_t n, struct diag *warn,
                  char *err, size_t errlen);
/* Ends the read transaction: call once everything is read, so that a run
 * being recorded into the same file is not held up while gnuplot draws. */
void plot_set_end_read(struct plot_set *ps);
/* Writes runs.tsv, ticks-ID.tsv, nodes-ID.tsv, states-ID.tsv, events.tsv and
 * ejections.tsv into datadir (which exists). */
int plot_write_data(struct plot_set *ps, const char *datadir, char *err, size_t errlen);

/* ---- the index (plot_html.c) ------------------------------------------------- */

struct plot_chart {
    const char *name;      /* script and image base name: "hit_rate" */
    const char *title;
    const char *caption;   /* how to read it (HTML-safe text) */
};
extern const struct plot_chart plot_charts[];
extern const size_t plot_n_charts;

/* The text of index.html: runs, summary, every chart (ext ".png" or
 * ".svg"), events. Caller frees; NULL with a message in err. */
char *plot_html(struct plot_set *ps, const char *ext, char *err, size_t errlen);

/* ---- gnuplot (plot_gnuplot.c) ------------------------------------------------ */

/* The gnuplot program: $RINGSIM_GNUPLOT if set, else "gnuplot" found in
 * PATH. Caller frees; NULL with a message (what to install) in err. */
char *gnuplot_find(char *err, size_t errlen);
/* The folder holding the chart scripts: $RINGSIM_PLOTS if set, else
 * <dir of the binary>/plots, else <dir>/../share/ringsim/plots. Caller
 * frees; NULL with a message listing where it looked. */
char *plot_scripts_dir(char *err, size_t errlen);
/* Runs `gnuplot -e VARS SCRIPT` with cwd as its working directory, no
 * shell, stdin from /dev/null. Returns 0 when it exits 0; else -1 with what
 * it printed (its last lines) in err. Once *stop turns nonzero (stop may be
 * NULL) gnuplot is stopped and -1 returned. */
int gnuplot_run(const char *gnuplot, const char *cwd, const char *vars, const char *script,
                const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* ---- sweeps (plot_sweep.c) --------------------------------------------------- */

/* Whether a database is drawn as a sweep when nothing says which: its
 * complete runs (n_runs) fall into n_groups combinations of n_by varied
 * parameters (as `ringsim report` groups them), the largest holding
 * largest runs. A sweep: some parameter varies, there are two combinations
 * or more, and a combination repeats (runs over seeds) or the runs are
 * more than PLOT_DEFAULT_RUNS (too many to overlay). */
bool plot_looks_like_sweep(size_t n_runs, size_t n_by, size_t n_groups, size_t largest);

/* How the values of a parameter lie along a chart's x axis. */
enum sweep_axis_kind {
    SWEEP_NUMBER,   /* every value a number: at its value */
    SWEEP_DURATION, /* every value a duration: at its length in seconds */
    SWEEP_SIZE,     /* every value a size: at its bytes */
    SWEEP_CATEGORY, /* anything else: evenly, in report_rank_values order */
};
/* Where the distinct values[0..n) of a parameter go along an axis: the
 * first kind every value has (a NULL value, a run without the parameter,
 * makes them categories); pos[i] is the number, the seconds, the bytes,
 * or 1 + the rank of values[i]. Returns the kind. */
enum sweep_axis_kind sweep_axis(char *const *values, size_t n, double *pos);
/* "number", "duration", "size", "category". */
const char *sweep_axis_kind_name(enum sweep_axis_kind k);

/* What a point or a heat-map cell says about metric m over the runs s of
 * one combination:
 *   *cell  the heat-map colour: for a metric whose runs are counted
 *          (m->count_with: cascade_removals, db_overload_s) the share of
 *          runs in which it happened, %; else the mean as the report's
 *          table shows it (x m->scale); NaN when there is none
 *   value  the mean as the report's table shows it, "-" when none
 *   note   "2/4" (runs in which it happened, count_with metrics), "never
 *          1/4" (runs without a value: m->null_word), else "" */
void sweep_cell(const struct report_metric *m, const struct metric_stats *s, double *cell,
                char *value, size_t value_len, char *note, size_t note_len);

/* One axis of a sweep: the distinct values of a parameter, in order. */
struct sweep_axis_values {
    const char *path;
    enum sweep_axis_kind kind;
    char **values;        /* borrowed from the report; NULL: runs without it */
    double *pos;          /* per value: its place on the axis (sweep_axis) */
    size_t n;
};

/* A report laid out for the sweep charts: one parameter (one chart per
 * metric, the mean against the parameter with its 95% CI; one line per
 * scenario) or two (one heat map per metric over the grid). */
struct plot_sweep {
    const struct report *r;       /* borrowed */
    size_t n_axes;                /* 1 or 2 */
    struct sweep_axis_values axis[2];
    size_t *at[2];                /* per group: index of its value on each axis */
    size_t *series;               /* per group: its scenario (index into r->names) */
};

/* Lays out r (its by[] paths are the axes). NULL with a message in err when
 * no parameter or more than two vary, or a heat map would mix scenarios. */
struct plot_sweep *plot_sweep_create(const struct report *r, char *err, size_t errlen);
void plot_sweep_destroy(struct plot_sweep *sw);
/* Writes sweep-metrics.tsv, sweep-axes.tsv, sweep-series.tsv and one
 * sweep-METRIC.tsv per metric into datadir (plots/README.md, "Sweeps"). */
int plot_sweep_write_data(const struct plot_sweep *sw, const char *datadir, char *err,
                          size_t errlen);
/* The text of a sweep's index.html: what was swept, and per metric its
 * chart ("sweep-METRIC" + ext) and its table. Caller frees. */
char *plot_sweep_html(const struct plot_sweep *sw, const char *ext);

/* The readable name of a summary column for the charts and the index
 * ("Lowest hit rate (from the first event on)"), or col itself. */
const char *plot_metric_title(const char *col);
/* The style sheet of every index.html. */
extern const char plot_html_css[];

/* ---- events ------------------------------------------------------------------ */

/* The short label of a scenario event for the events strip ("add D",
 * "crash C", "qps 20000"), or NULL when kind is not a scenario event (an
 * ejection, an epoch, ...). Caller frees. */
char *event_label(const char *kind, const char *node, const char *detail);

#endif
