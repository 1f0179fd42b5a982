/*
 * cmd_run.c — `ringsim run`: load a scenario, run it, record it, print the
 * summary. The wall clock is read here (progress, wall_s, started_at) and
 * never in the model.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "output/results.h"
#include "sim/cli/cli.h"
#include "sim/cli/cmdline.h"
#include "sim/estimate.h"
#include "sim/sim.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static const char run_usage[] =
    "usage: ringsim run SCENARIO.yaml [-o OUT.db] [--seed N] [--set PATH=VALUE]... [--quiet]\n"
    "                   [--no-progress] [--force] [--threads N]\n"
    "       ringsim run --metrics\n"
    "\n"
    "Runs a scenario and records every tick into a SQLite database.\n"
    "\n"
    "  -o OUT.db          where to write (default results/<scenario name>.db); a database\n"
    "                     that already holds runs gets a new run_id, nothing else changes\n"
    "  --seed N           the seed (overrides the scenario's `seed`)\n"
    "  --set PATH=VALUE   override one scalar by its dotted path, checked like the file:\n"
    "                     --set routing.vnodes=32 --set health.cooldown=60s --set nodes.1.weight=2\n"
    "  --quiet            print nothing but errors (no progress bar, no summary)\n"
    "  --no-progress      no progress bar even on a terminal\n"
    "  --force            run even what the cost estimate calls slow or large (hours of\n"
    "                     simulation, tens of gigabytes of results) or larger than the\n"
    "                     machine's memory (with a warning: it may run out of memory);\n"
    "                     never what cannot be simulated (time past the clock's range)\n"
    "  --threads N        1: everything on one thread; 2: a helper thread draws the\n"
    "                     request stream and the service times ahead (default: 2 when\n"
    "                     two processors are available); the results are the same\n"
    "  --metrics          print the results database reference (output/README.md) and exit\n"
    "  --                 the end of the options: what follows is the scenario file, even\n"
    "                     a name that starts with - (ringsim run -o x.db -- -a.yaml)\n"
    "\n"
    "Prints the summary (the `summary` table's numbers) on stdout and a progress bar on\n"
    "stderr when stderr is a terminal, then on stderr the wall time, the peak memory and\n"
    "the cost estimate's memory beside it. While the run is recorded its status is\n"
    "'running'.\n"
    "Ctrl-C (or SIGTERM, SIGHUP) stops it: what was recorded is kept, with status\n"
    "'interrupted'. Exit: 0 complete; 1 failed or interrupted, OUT.db cannot be\n"
    "written, or the summary cannot be (a full stdout; the run is recorded); 2 bad\n"
    "usage, a scenario or trace that does not exist or cannot be read, an invalid\n"
    "scenario or trace (a bad trace line or record, found before anything is simulated;\n"
    "the run's status is then 'failed'), or one the cost estimate refuses (the refusal\n"
    "prints the estimate, and `ringsim check` refuses the same).\n"
    "\n"
    "examples:\n"
    "  ringsim run scenarios/scale_out_3_to_4.yaml\n"
    "  ringsim run scenarios/scale_out_3_to_4.yaml --set routing.algorithm=mod -o results/cmp.db\n"
    "  sqlite3 results/cmp.db 'SELECT t_s, hit_rate, backend_qps FROM ticks WHERE run_id=1'\n";

struct progress {
    bool on;
    struct timespec t0, last;
};

static double since(const struct timespec *a)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - a->tv_sec) + (double)(t.tv_nsec - a->tv_nsec) / 1e9;
}

static void show_progress(void *ctx, int64_t now_ns, int64_t duration_ns, int64_t requests)
{
    struct progress *p = ctx;
    if (!p->on)
        return;
    if (since(&p->last) < 0.1 && now_ns < duration_ns)
        return;
    clock_gettime(CLOCK_MONOTONIC, &p->last);
    double frac = duration_ns ? (double)now_ns / (double)duration_ns : 1;
    int width = 30, full = (int)(frac * width);
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < full ? '#' : '-';
    bar[width] = '\0';
    double wall = since(&p->t0);
    fprintf(stderr, "\r[%s] %3.0f%%  t=%.0f/%.0fs  %.2f M req/s ", bar, 100 * frac,
            (double)now_ns / 1e9, (double)duration_ns / 1e9,
            wall > 0 ? (double)requests / wall / 1e6 : 0.0);
    fflush(stderr);
}

/* results/<name>.db with the name made safe for a file name. Caller frees. */
static char *default_output(const char *name)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "results/");
    for (const char *p = name; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                  || c == '-' || c == '_' || c == '.';
        sb_putc(&sb, ok ? c : '_');
    }
    sb_puts(&sb, ".db");
    return sb_steal(&sb);
}

static void iso_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *status_name(enum run_status st)
{
    return st == RUN_COMPLETE ? "complete" : st == RUN_INTERRUPTED ? "interrupted" : "failed";
}

/* Why a failed run failed: the model's reason, followed by the results
 * database's when a write failed ("cannot record a tick: the disk is full
 * (...)"). Caller frees. */
static char *failure_text(const struct sim *s, const struct results *res)
{
    const char *db = results_error(res);
    return db ? xasprintf("%s: %s", sim_error(s), db) : xstrdup(sim_error(s));
}

/* What the user reads at the end: the summary (unless --quiet), and why
 * the run did not complete. */
static void report(const struct scenario *sc, const struct sim *s, enum run_status st,
                   const struct summary_row *sum, const char *path, int64_t run_id,
                   double wall, const char *why, const struct run_cli *cli)
{
    if (!cli->quiet) {
        fflush(stderr);
        /* the ticks recorded: all of them, or those closed before a stop */
        int64_t covered = MIN((int64_t)s->n_series * sc->tick_ns, sc->duration_ns);
        summary_print(stdout, sc->name, sc->seed, sum, (double)covered / 1e9,
                      (double)sc->duration_ns / 1e9);
        printf("  %-22s %s (run %lld)\n", "recorded in", path, (long long)run_id);
        fflush(stdout);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr, "ringsim: %lld requests in %.2f s wall (%.2f M simulated requests/s), "
                        "peak memory %.0f MiB",
                (long long)sum->requests, wall, wall > 0 ? (double)sum->requests / wall / 1e6 : 0,
                (double)ru.ru_maxrss / 1024.0);
        if (cli->estimate_bytes > 0) /* what the run was let through with (it errs high) */
            fprintf(stderr, " (estimated %.0f MiB)", cli->estimate_bytes / (1024.0 * 1024));
        fputc('\n', stderr);
    }
    /* a sweep's run writes a part file that is merged into the sweep's
     * database and deleted: name that database, where the run will be */
    char where[MSG_MAX];
    if (cli->merged_into)
        snprintf(where, sizeof where, "%s", cli->merged_into);
    else
        snprintf(where, sizeof where, "%s, run %lld", path, (long long)run_id);
    /* where the stop found the simulated clock: the last event's time, or
     * the end of the last tick closed when that is later (a sparse run
     * closes ticks with no event in them) */
    int64_t reached = MAX(s->eng.now_ns, MIN((int64_t)s->n_series * sc->tick_ns,
                                             sc->duration_ns));
    if (st == RUN_INTERRUPTED)
        fprintf(stderr, "ringsim run: interrupted at t=%.3f s; the %zu ticks recorded are kept "
                        "in %s (status interrupted)\n",
                (double)reached / 1e9, s->n_series, where);
    else if (st == RUN_FAILED)
        fprintf(stderr, "ringsim run: the run failed: %s (what was recorded is kept in %s)\n",
                why, where);
}

/* Simulates sc into the run begun in res, Ctrl-C, SIGTERM and SIGHUP
 * interrupting it (run_scenario catches them), and records how it ended.
 * Returns the exit code. */
static int simulate(const struct scenario *sc, struct results *res, const char *path,
                    int64_t run_id, const struct run_cli *cli)
{
    char err[MSG_MAX];
    struct progress prog = {cli->progress, {0, 0}, {0, 0}};
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    prog.last = prog.t0;
    bool invalid_input = false;
    struct run_options opt = {&interrupted, show_progress, &prog, false,
                              run_cli_helper_thread(cli), &invalid_input};
    struct sink sink = results_sink(res);
    struct sim *s = sim_create(sc, &sink, &opt, err, sizeof err);
    if (!s) {
        const char *st = interrupted ? "interrupted" : "failed";
        fprintf(stderr, "ringsim run: %s: %s%s\n", sc->name, err,
                interrupted ? " (nothing was simulated; the run is recorded as interrupted)" : "");
        results_finish_run(res, NULL, st, since(&prog.t0), interrupted ? NULL : err, err,
                           sizeof err);
        /* A malformed trace is invalid input, as an invalid scenario is: exit 2
         * (nothing was simulated; the run's row says failed, with the reason). */
        return invalid_input && !interrupted ? EXIT_USAGE : EXIT_RUN_FAILED;
    }
    enum run_status st = sim_run(s);
    double wall = since(&prog.t0);
    if (prog.on)
        fputc('\n', stderr);
    struct summary_row sum;
    sim_summary(s, &sum);
    char *why = st == RUN_FAILED ? failure_text(s, res) : NULL;
    int rc = st == RUN_COMPLETE ? EXIT_OK : EXIT_RUN_FAILED;
    if (results_finish_run(res, &sum, status_name(st), wall, why, err, sizeof err)) {
        fprintf(stderr, "ringsim run: %s\n", err);
        rc = EXIT_RUN_FAILED;
    } else {
        report(sc, s, st, &sum, path, run_id, wall, why, cli);
    }
    free(why);
    sim_destroy(s);
    return rc;
}

int run_scenario(const struct scenario *sc, const char *out_path, const struct run_cli *cli,
                 int64_t *run_id_out)
{
    char err[MSG_MAX];
    int rc = EXIT_RUN_FAILED;
    char *path = out_path ? xstrdup(out_path) : default_output(sc->name);
    struct results *res = NULL;
    /* Caught from before the run's row is written until its status is: a
     * signal in between (placing a large keyspace takes a while; a second
     * Ctrl-C while the status is written) stops the run, never the process,
     * so no run is left 'running'. */
    struct stop_signals sig;
    stop_signals_catch(&sig, on_signal);
    if (make_parent_dirs(path, "run"))
        goto out;
    res = results_open(path, err, sizeof err);
    if (!res) {
        fprintf(stderr, "ringsim run: %s\n", err);
        goto out;
    }
    char started[32];
    iso_now(started, sizeof started);
    int64_t run_id = 0;
    if (results_begin_run(res, sc, started, &run_id, err, sizeof err)) {
        fprintf(stderr, "ringsim run: %s\n", err);
        goto out;
    }
    rc = simulate(sc, res, path, run_id, cli);
    if (run_id_out)
        *run_id_out = run_id;
out:
    results_close(res);
    stop_signals_restore(&sig);
    free(path);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--metrics")) {
        results_schema_markdown(stdout);
        return EXIT_OK;
    }
    struct run_cli cli;
    struct diag d;
    diag_init(&d);
    int rc = run_cli_parse(&cli, argc, argv, run_usage, true, &d);
    if (rc >= 0) {
        diag_deinit(&d);
        return rc;
    }
    if (cli.out && !strcmp(cli.out, "-")) {
        fprintf(stderr, "ringsim run: -o -: a run writes a results database, not standard "
                        "output; name a file, e.g. -o results/run.db (the summary goes to "
                        "standard output anyway)\n");
        diag_deinit(&d);
        run_cli_deinit(&cli);
        return EXIT_USAGE;
    }
    struct scenario *sc = scenario_load(cli.scenario, cli.sets, cli.n_sets, &d);
    struct run_cost est;
    char *where = sc && !cli.out ? default_output(sc->name) : NULL;
    if (!sc || judge_run_cost(cli.scenario, sc, cli.force, cli.out ? cli.out : where, NULL, &est)) {
        free(where);
        diag_print(&d, stderr);
        diag_deinit(&d);
        scenario_destroy(sc);
        run_cli_deinit(&cli);
        return EXIT_USAGE;
    }
    free(where);
    cli.estimate_bytes = est.memory_bytes;
    cli.progress = cli.progress && !cli.quiet && isatty(STDERR_FILENO);
    rc = run_scenario(sc, cli.out, &cli, NULL);
    scenario_destroy(sc);
    diag_deinit(&d);
    run_cli_deinit(&cli);
    return rc;
}
