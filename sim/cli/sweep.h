/*
 * sweep.h — `ringsim sweep`'s state, shared by its two files: the plan
 * (sweep_plan.c: the --vary axes, the combinations and their seeds, each
 * run's scenario and label, the validation before anything runs) and the
 * command (cmd_sweep.c: the child processes, folding their part files,
 * the closing table, --list).
 */
#ifndef RINGSIM_CLI_SWEEP_H
#define RINGSIM_CLI_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "output/report.h"
#include "output/results.h"
#include "sim/cli/cmdline.h"
#include "sim/util.h"

/* Failed runs named in the closing message; the rest are counted. */
#define MAX_NAMED_FAILURES 10

struct axis {
    char *path;
    char *norm;             /* path normalized (override_path_normalize) */
    char **values;
    size_t n;
};

/* A run started and not yet folded in. */
struct slot {
    size_t k;               /* position among this shard's runs */
    pid_t pid;
    int code;               /* exit code */
    int signal;             /* the signal that killed it, or 0 */
    bool done;
    bool have_sum;
    struct summary_row sum; /* read back from its part file */
};

/* The runs of the combination being folded: each metric's values, run by
 * run (metric m of run k at vals[m * cap + k]). */
struct row_acc {
    size_t group;
    size_t runs, cap;
    double *vals;
};

struct sweep {
    struct run_cli cli;
    struct axis *axes;
    size_t n_axes;
    size_t *stride;         /* combinations per value of each axis */
    size_t n_groups;        /* combinations of the --vary values */
    unsigned seeds;
    uint64_t seed0;         /* the seed of --set/the scenario, before --vary */
    bool seed_varied;       /* an axis is `seed`: each combination has its own */
    size_t seed_g;          /* the combination whose first seed is seed_g0 */
    uint64_t seed_g0;       /*   (a one-entry cache; seed_g = SIZE_MAX: none) */
    size_t n_runs;          /* n_groups * seeds */
    size_t n_todo;          /* this shard's share */
    pid_t pid;              /* the sweep's, in its part files' names */
    struct results *out;
    /* running */
    struct slot *win;       /* runs [fold_k, next_k), in order: -j running, and
                             * those finished behind a slower earlier run */
    size_t n_win, cap_win, next_k, fold_k, finished;
    /* results */
    FILE *table;            /* per combination: its number, then the stats of each
                             * metric (struct metric_stats), printed at the end */
    size_t table_rows;
    struct row_acc row;
    struct report_metric *metrics; /* the table's */
    size_t n_metrics;
    size_t n_failed;
    size_t n_invalid;       /* of them, runs that exited 2: invalid input (a malformed
                             * trace, found as the run starts) */
    struct strbuf failed;   /* the first MAX_NAMED_FAILURES, named */
};

/* Run k of this shard's share -> its number among all runs. */
static inline size_t run_index(const struct sweep *sw, size_t k)
{
    return sw->cli.shard_n ? sw->cli.shard_i + k * sw->cli.shard_n : k;
}

/* The value index of axis a in combination g: the last axis varies fastest. */
static inline size_t combo_pick(const struct sweep *sw, size_t g, size_t a)
{
    return (g / sw->stride[a]) % sw->axes[a].n;
}

/* The value index of axis a in run i. */
static inline size_t run_pick(const struct sweep *sw, size_t i, size_t a)
{
    return combo_pick(sw, i / sw->seeds, a);
}

void sweep_axes_free(struct axis *ax, size_t n);
/* The --vary arguments into axes; at most a million combinations, no path
 * varied twice (compared normalized), no value given twice in one --vary.
 * 0, or -1 after saying why on stderr. */
int sweep_parse_axes(struct sweep *sw);
/* The label of run i ("path=v path=v seed=N"). */
void sweep_run_label(struct sweep *sw, size_t i, struct strbuf *label);
/* Loads run i; NULL with the errors in d. Caller destroys. */
struct scenario *sweep_load_run(struct sweep *sw, size_t i, struct diag *d);
/* Every combination loads and may run, before anything runs; 0, or -1
 * after printing each distinct error once. */
int sweep_validate(struct sweep *sw);

#endif
