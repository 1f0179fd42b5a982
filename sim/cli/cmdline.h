/*
 * cmdline.h — the options `run` and `sweep` share: the scenario path,
 * -o, --seed, --set, --quiet, --no-progress, --help.
 */
#ifndef RINGSIM_CMDLINE_H
#define RINGSIM_CMDLINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/scenario.h"

struct run_cost;

struct run_cli {
    const char *scenario;
    const char *out;
    struct override *sets;
    size_t n_sets;
    bool quiet;
    bool progress;
    bool force;           /* --force: run what is merely slow or large */
    unsigned threads;     /* --threads: 1, or 2 with the helper thread; 0: as the machine allows */
    /* sweep only */
    const char **vary;    /* "PATH=V1,V2,..." as given */
    size_t n_vary;
    unsigned seeds;       /* 0: not given */
    unsigned jobs;
    unsigned shard_i, shard_n; /* --shard I/N: I modulo N (N/N is 0/N); n 0: no --shard */
    const char *shard_arg;     /* --shard's value as given, for messages */
    const char **metrics; /* --metric NAME as given: the table's metrics */
    size_t n_metrics;
    bool list;            /* --list: print one command per run instead of running */
    char **argv;          /* the arguments as given (argv[0] the subcommand) */
    const char *merged_into; /* a sweep's run: the database its part file is merged
                              * into, which its messages name; else NULL */
    int argc;
    double estimate_bytes; /* run: the cost estimate's memory, printed beside the peak */
};

/* Parses argv (argv[0] is the subcommand). Returns -1 to go on, or the exit
 * code to return at once (0 after --help, 2 after bad usage, with the
 * message already printed). sweep: accept --vary/--seeds/-j/--shard/--metric/--list. */
int run_cli_parse(struct run_cli *c, int argc, char **argv, const char *usage, bool is_run,
                  struct diag *d);
void run_cli_deinit(struct run_cli *c);
/* Whether a run draws ahead on a helper thread (sim/ahead.h): --threads 2,
 * or with no --threads when the process may use two processors for each
 * of the sweep's -j runs at once. The results are the same either way. */
bool run_cli_helper_thread(const struct run_cli *c);

/* Ctrl-C, SIGTERM and SIGHUP (the terminal closed) call handler (which
 * sets a flag the run polls) until restored. */
struct stop_signals {
    struct sigaction old_int, old_term, old_hup;
};
void stop_signals_catch(struct stop_signals *st, void (*handler)(int));
void stop_signals_restore(const struct stop_signals *st);

/* Creates the folders leading to path (mkdir -p of its parent), so -o may
 * name a new folder. 0, or -1 after "ringsim CMD: what" on stderr. */
int make_parent_dirs(const char *path, const char *cmd);

/* a given as --NAME=VALUE for one of names (NULL-terminated): returns that
 * entry of names and sets *value to what follows the '='; else NULL. So every
 * option with a value may also be written --NAME=VALUE. */
const char *long_option_value(const char *a, const char *const *names, const char **value);
/* Whether a is one of names (NULL-terminated), exactly: the option written
 * alone, its value (if it takes one) the next argument. */
bool option_in(const char *a, const char *const *names);

/* The run's cost (sim/estimate.h) judged for this machine: memory, and the
 * free space where out_path (NULL: none) goes. 0; else, after one
 * "FILE: cannot run: ..." line per problem on stderr (into d instead, when
 * d is not NULL), 1 when it is slow, large or past the machine's memory
 * (--force would accept it) or 2 when it cannot be run at all (the clock's
 * range). force: accept what is slow, large or past memory (the latter
 * with a "FILE: warning: the run may run out of memory: ..." line on
 * stderr). est: where to put the estimate (may be NULL). */
int judge_run_cost(const char *file, const struct scenario *s, bool force, const char *out_path,
                   struct diag *d, struct run_cost *est);

/* Runs a loaded scenario into out_path (NULL: results/<name>.db). */
int run_scenario(const struct scenario *sc, const char *out_path, const struct run_cli *cli,
                 int64_t *run_id);

#endif
