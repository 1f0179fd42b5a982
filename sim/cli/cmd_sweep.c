/*
 * cmd_sweep.c — `ringsim sweep`: one scenario over the cartesian product of
 * --vary values times --seeds seeds.
 *
 * The runs are numbered: run i is combination i / seeds (the last --vary
 * changes fastest) with seed seed0 + i % seeds (seed0: the combination's
 * seed after its --vary values, so a varied seed is its own; else the
 * scenario's, or --seed). A run's overrides, label and scenario are made from its
 * number when needed, so memory does not grow with the number of runs; only
 * the runs in flight are held. The steps:
 *
 *   sweep_parse_axes  (sweep_plan.c) the --vary arguments (a path varied
 *                 twice, compared normalized, or a value given twice is
 *                 refused)
 *   sweep_validate    (sweep_plan.c) every combination is loaded and
 *                 checked before anything runs, with its last seed and its
 *                 cost; two values of one --vary that leave the same
 *                 scenario, or seed ranges of a varied seed that overlap,
 *                 are refused
 *   run_all       up to -j child processes, each running one run into its own
 *                 part file OUT.db.part-<pid>-<i>; as runs finish they are
 *                 folded in run order: merged into OUT.db (so run ids and rows
 *                 are the same whatever -j is), summarised for the table; a
 *                 child that died leaving its run 'running' has it settled
 *                 as failed (or interrupted) first
 *   print_table   per metric, one row per combination: runs, mean with its
 *                 95% confidence interval, min, max, the runs in which it
 *                 happened (output/report.h prints the rows): as a
 *                 combination's last run is folded its statistics go to a
 *                 temporary file, which is read once per metric at the end
 *
 * --shard I/N runs only the runs whose number is I modulo N (runs, not
 * combinations: with fewer combinations than shards every shard still gets
 * work); I is 0..N, so shards counted from 0 or from 1 both work (N/N is
 * 0/N); `ringsim merge` joins the shard files afterwards. --list prints,
 * instead of running anything, one line per run: its number and the
 * command that runs just it (--shard i/N with N the number of runs) into a
 * part file of its own, for GNU parallel or a job array (examples/).
 *
 * The children end with the sweep: Ctrl-C reaches them with it, a SIGTERM
 * to the sweep is passed on, and each child asks the kernel for a SIGTERM
 * when the sweep dies (PR_SET_PDEATHSIG), so a sweep killed outright leaves
 * no orphan running. A child interrupted so records its run as interrupted.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/report.h"
#include "output/results.h"
#include "sim/cli/cli.h"
#include "sim/cli/cmdline.h"
#include "sim/cli/sweep.h"
#include "sim/sim.h"

static const char sweep_usage[] =
    "usage: ringsim sweep SCENARIO.yaml --vary PATH=V1,V2,... [--vary ...] [--seeds N]\n"
    "                     [-j JOBS] [--threads N] [--shard I/N] [--set PATH=VALUE]...\n"
    "                     [--metric NAME]... [--list] -o OUT.db\n"
    "\n"
    "Runs a scenario over every combination of the --vary values (times --seeds seeds:\n"
    "the combination's seed, seed+1, ...) and records every run in OUT.db, with the\n"
    "varied values in its params rows. Every combination is validated before anything\n"
    "runs, its last seed and its cost estimate too; each distinct error is printed once.\n"
    "\n"
    "  --vary PATH=V1,V2  a scalar path and its values (as --set takes them); a path\n"
    "                     varied twice (nodes.0.weight, nodes.00.weight: one path) or a\n"
    "                     value given twice (32,32; 1e2,100 for an integer) is refused\n"
    "  --seeds N          N seeds per combination (default 1): its own seed (after its\n"
    "                     --vary values: --vary seed=1,5 --seeds 2 runs 1,2 and 5,6),\n"
    "                     seed+1, ...; all of them must be valid seeds, and the\n"
    "                     seeds of a varied seed N apart at least\n"
    "  -j JOBS            run JOBS at once (default 1); results do not depend on it;\n"
    "                     JOBS runs of the largest combination must fit in memory\n"
    "  --threads N        threads a run takes, 1 or 2 (the second draws random streams\n"
    "                     ahead; default: 2 when 2 processors per job are available);\n"
    "                     results do not depend on it\n"
    "  --shard I/N        run only the runs whose number is I modulo N (runs I, I+N,\n"
    "                     I+2N, ...) in the list of (combination, seed) runs, numbered\n"
    "                     from 0, combinations in order and the seeds of each\n"
    "                     together. Shards may be counted from 0 (0/N .. N-1/N) or\n"
    "                     from 1 (1/N .. N/N, N/N being the shard 0/N): either way\n"
    "                     the N shards run every run once; I past N is refused.\n"
    "                     The shards share the work even when there are fewer\n"
    "                     combinations than shards (a shard past the last run says\n"
    "                     so in one line and writes an empty OUT.db)\n"
    "  --set PATH=VALUE   a fixed override for every run\n"
    "  --force            run combinations the cost estimate calls slow or large, or\n"
    "                     larger than the machine's memory, alone or -j at once (with\n"
    "                     a warning); never those past the clock's range\n"
    "  --metric NAME      a summary column for the closing table (repeatable; default\n"
    "                     as ringsim report: hit_rate, min_hit_rate, recovery_s,\n"
    "                     peak_backend_qps, peak_db_util, db_overload_s,\n"
    "                     cascade_removals, stale_reads, stale_overwrites, errors)\n"
    "  --list             run nothing: print one line per run, \"I COMMAND\", where\n"
    "                     COMMAND is this sweep without --list, -o and -j, with\n"
    "                     --shard I/N (N = the number of runs) and -o its own part\n"
    "                     file OUT.db.part-I (I zero-padded); run the lines anywhere\n"
    "                     (GNU parallel, a job array), then ringsim merge OUT.db\n"
    "                     OUT.db.part-*; -o - is refused\n"
    "  --                 the end of the options: what follows is the scenario file,\n"
    "                     even a name that starts with -\n"
    "\n"
    "Prints one line per run and, at the end, one table per metric with a row per\n"
    "combination, in ringsim report's order: its complete runs, the mean with its\n"
    "95% confidence interval (Student t), the minimum and the maximum, and for\n"
    "cascade_removals and db_overload_s the runs in which they happened (\"2/4\"),\n"
    "for recovery_s those that never recovered; ringsim report prints the same from\n"
    "any database, also as CSV or JSON.\n"
    "\n"
    "Exit: 0 every run complete (or listed); 1 any run did not complete, naming it,\n"
    "OUT.db cannot be written, or stdout (--list) cannot be; 2 bad usage, a scenario\n"
    "that does not exist, cannot be read or is invalid in any combination, or one the\n"
    "cost estimate refuses (then nothing runs), or a trace whose content is malformed\n"
    "(found as each run starts: 2 when every run that did not complete failed for\n"
    "invalid input, as ringsim run exits 2 for it). A run's part file (OUT.db.part-*) is\n"
    "kept when it cannot be merged. A run whose process is killed outright is\n"
    "recorded as failed (\"killed by signal 9\"). Interrupting the sweep (Ctrl-C,\n"
    "SIGTERM) interrupts its runs; killing it outright ends them too.\n"
    "\n"
    "examples:\n"
    "  ringsim sweep scenarios/incidents/slow_node_cascade.yaml \\\n"
    "      --vary health.cooldown=0s,5s,10s,20s,40s --seeds 5 -j 2 -o results/cooldown.db\n"
    "  ringsim sweep scenarios/scale_out_3_to_4.yaml --vary routing.vnodes=8,32,160,512 \\\n"
    "      --vary routing.algorithm=ring,ketama --metric min_hit_rate -o results/vnodes.db\n"
    "  # on two machines, then join:\n"
    "  ringsim sweep S.yaml --vary ... --shard 1/2 -o a.db;  ringsim sweep S.yaml --vary ... --shard 2/2 -o b.db\n"
    "  ringsim merge all.db a.db b.db\n"
    "  # one job per run, with GNU parallel (examples/sweep_parallel.sh does all of it):\n"
    "  ringsim sweep S.yaml --vary ... --seeds 4 -o x.db --list | cut -d' ' -f2- | parallel\n"
    "  ringsim merge x.db x.db.part-*\n";

static volatile sig_atomic_t stop_sweep;

static void on_signal(int sig)
{
    (void)sig;
    stop_sweep = 1;
}

static char *part_path(const struct sweep *sw, size_t i)
{
    return xasprintf("%s.part-%ld-%zu", sw->cli.out, (long)sw->pid, i);
}

/* Runs run i into path in a child process; returns its pid (-1: fork
 * failed). The child ends with the sweep, even one killed outright. */
static pid_t spawn_run(struct sweep *sw, size_t i, const char *path)
{
    /* every stream, the table's file too: the child flushes what it
     * inherits when it ends, which must not write the parent's rows twice */
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != sw->pid) /* the sweep died before prctl took effect */
        _exit(EXIT_RUN_FAILED);
    struct diag d;
    diag_init(&d);
    struct scenario *sc = sweep_load_run(sw, i, &d);
    int rc = EXIT_USAGE;
    if (sc) {
        struct run_cli quiet = sw->cli;
        quiet.quiet = true;
        quiet.progress = false;
        quiet.merged_into = sw->cli.out;
        rc = run_scenario(sc, path, &quiet, NULL);
    } else {
        diag_print(&d, stderr);
    }
    fflush(NULL);
    _exit(rc);
}

/* Starts the next run of the share. */
static void start_next(struct sweep *sw)
{
    if (sw->n_win == sw->cap_win) {
        sw->cap_win = sw->cap_win ? 2 * sw->cap_win : 16;
        sw->win = xrealloc(sw->win, sw->cap_win * sizeof(*sw->win));
    }
    struct slot *s = &sw->win[sw->n_win++];
    memset(s, 0, sizeof(*s));
    s->k = sw->next_k++;
    char *path = part_path(sw, run_index(sw, s->k));
    unlink(path);
    s->pid = spawn_run(sw, run_index(sw, s->k), path);
    free(path);
    if (s->pid < 0) {
        fprintf(stderr, "ringsim sweep: cannot start a run: %s\n", strerror(errno));
        s->code = EXIT_RUN_FAILED;
        s->done = true;
        sw->finished++;
    }
}

/* Records how the child pid ended and prints its line. */
static void reap(struct sweep *sw, pid_t pid, int status)
{
    struct slot *s = NULL;
    for (size_t j = 0; j < sw->n_win && !s; j++)
        if (!sw->win[j].done && sw->win[j].pid == pid)
            s = &sw->win[j];
    if (!s)
        return;
    s->done = true;
    s->code = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_RUN_FAILED;
    s->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    sw->finished++;
    size_t i = run_index(sw, s->k);
    char *path = part_path(sw, i);
    s->have_sum = results_read_summary(path, 0, &s->sum) == 0;
    free(path);
    struct strbuf label;
    sb_init(&label);
    sweep_run_label(sw, i, &label);
    if (s->have_sum)
        fprintf(stderr, "[%zu/%zu] %s: hit %.2f%% (min %.2f%%), peak db %.0f%%, "
                        "%lld cascade removals%s\n",
                sw->finished, sw->n_todo, label.buf, 100 * s->sum.hit_rate,
                100 * s->sum.min_hit_rate, 100 * s->sum.peak_db_util,
                (long long)s->sum.cascade_removals, s->code ? " (not complete)" : "");
    else if (s->signal)
        fprintf(stderr, "[%zu/%zu] %s: failed (killed by signal %d)\n", sw->finished,
                sw->n_todo, label.buf, s->signal);
    else
        fprintf(stderr, "[%zu/%zu] %s: failed (exit %d)\n", sw->finished, sw->n_todo,
                label.buf, s->code);
    sb_deinit(&label);
}

/* Writes the statistics of sw->row's combination, if it has runs. */
static void flush_row(struct sweep *sw)
{
    struct row_acc *a = &sw->row;
    if (!a->runs)
        return;
    uint64_t g = a->group;
    bool ok = fwrite(&g, sizeof g, 1, sw->table) == 1;
    for (size_t m = 0; m < sw->n_metrics && ok; m++) {
        struct metric_stats st;
        stats_describe(a->vals + m * a->cap, a->runs, &st);
        ok = fwrite(&st, sizeof st, 1, sw->table) == 1;
    }
    if (ok)
        sw->table_rows++;
    a->runs = 0;
}

/* Adds a run's summary to the table: runs arrive in order, so a
 * combination's row is complete when the next combination's first run
 * arrives. */
static void add_to_table(struct sweep *sw, size_t i, const struct summary_row *sum)
{
    size_t g = i / sw->seeds;
    if (sw->row.runs && sw->row.group != g)
        flush_row(sw);
    struct row_acc *a = &sw->row;
    if (a->runs == a->cap) {
        /* grow each metric's stretch of vals */
        size_t cap = a->cap ? 2 * a->cap : 8;
        double *v = xcalloc(cap * sw->n_metrics + 1, sizeof(*v));
        for (size_t m = 0; m < sw->n_metrics && a->runs; m++)
            memcpy(v + m * cap, a->vals + m * a->cap, a->runs * sizeof(*v));
        free(a->vals);
        a->vals = v;
        a->cap = cap;
    }
    a->group = g;
    for (size_t m = 0; m < sw->n_metrics; m++) {
        double v;
        if (summary_value(sum, sw->metrics[m].name, &v))
            v = NAN;
        a->vals[m * a->cap + a->runs] = v;
    }
    a->runs++;
}

static void note_failure(struct sweep *sw, size_t i, const char *why)
{
    if (sw->n_failed++ >= MAX_NAMED_FAILURES)
        return;
    struct strbuf label;
    sb_init(&label);
    sweep_run_label(sw, i, &label);
    sb_printf(&sw->failed, "\n  %s: %s", label.len ? label.buf : "(base)", why);
    sb_deinit(&label);
}

/* Removes the files SQLite may keep beside a database (a child killed
 * outright leaves its write-ahead log). */
static void remove_sidecars(const char *path)
{
    static const char *const ext[] = {"-wal", "-shm", "-journal"};
    for (size_t i = 0; i < ARRAY_LEN(ext); i++) {
        char *p = xasprintf("%s%s", path, ext[i]);
        unlink(p);
        free(p);
    }
}

/* A child that did not end cleanly may leave its run 'running' in its part
 * file, which no process will ever finish: it becomes 'failed', saying how
 * the child ended, or 'interrupted' when the sweep was interrupted and the
 * child died of that signal. */
static void settle_part(const struct slot *s, const char *path)
{
    char how[128], err[MSG_MAX];
    bool stopped = stop_sweep && (s->signal == SIGINT || s->signal == SIGTERM
                                  || s->signal == SIGHUP);
    if (s->signal)
        snprintf(how, sizeof how, "killed by signal %d (%s)", s->signal, strsignal(s->signal));
    else
        snprintf(how, sizeof how, "its process ended (exit %d) before recording how the run "
                                  "ended", s->code);
    if (results_settle_running(path, stopped ? "interrupted" : "failed", stopped ? NULL : how,
                               err, sizeof err) < 0)
        fprintf(stderr, "ringsim sweep: %s\n", err);
}

/* Folds the first run of the window in: its part file merged into OUT.db
 * (and removed), its summary into the table, its failure noted. */
static void fold(struct sweep *sw)
{
    struct slot *s = &sw->win[0];
    size_t i = run_index(sw, s->k);
    char *path = part_path(sw, i);
    char err[MSG_MAX], why[2 * MSG_MAX];
    why[0] = '\0';
    if (access(path, F_OK) == 0) {
        if (s->signal || s->code)
            settle_part(s, path);
        if (results_merge_from(sw->out, path, err, sizeof err) < 0) {
            snprintf(why, sizeof why, "not merged into %s (its part file %s is kept): %s",
                     sw->cli.out, path, err);
        } else {
            unlink(path);
            remove_sidecars(path);
        }
    }
    if (!why[0] && s->signal)
        snprintf(why, sizeof why, "killed by signal %d", s->signal);
    else if (!why[0] && s->code)
        snprintf(why, sizeof why, "%s (exit %d)",
                 s->have_sum ? "did not complete"
                             : s->code == EXIT_USAGE ? "failed for invalid input, as it said"
                                                     : "failed",
                 s->code);
    else if (!why[0] && !s->have_sum)
        snprintf(why, sizeof why, "exited 0 but recorded no summary");
    if (s->have_sum && !why[0]) /* complete runs only, as ringsim report counts them */
        add_to_table(sw, i, &s->sum);
    if (why[0]) {
        note_failure(sw, i, why);
        if (!s->signal && s->code == EXIT_USAGE)
            sw->n_invalid++;
    }
    free(path);
    memmove(sw->win, sw->win + 1, (sw->n_win - 1) * sizeof(*sw->win));
    sw->n_win--;
    sw->fold_k++;
}

/* Asks the running children to stop (once): they record their runs as
 * interrupted. Ctrl-C reaches them anyway; a SIGTERM to the sweep alone
 * does not. */
static void pass_on_stop(struct sweep *sw, bool *passed)
{
    if (*passed)
        return;
    *passed = true;
    for (size_t j = 0; j < sw->n_win; j++)
        if (!sw->win[j].done && sw->win[j].pid > 0)
            kill(sw->win[j].pid, SIGTERM);
}

/* Runs this shard's share, up to -j at once, folding finished runs in order. */
static void run_all(struct sweep *sw)
{
    struct stop_signals sig;
    stop_signals_catch(&sig, on_signal);
    bool passed = false;
    for (;;) {
        size_t running = 0;
        for (size_t j = 0; j < sw->n_win; j++)
            running += !sw->win[j].done;
        while (running < sw->cli.jobs && sw->next_k < sw->n_todo && !stop_sweep) {
            start_next(sw);
            running += !sw->win[sw->n_win - 1].done;
        }
        while (sw->n_win && sw->win[0].done)
            fold(sw);
        if (stop_sweep)
            pass_on_stop(sw, &passed);
        if (!running) {
            if (sw->next_k >= sw->n_todo || stop_sweep)
                break;
            continue;
        }
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        reap(sw, pid, status);
    }
    for (; sw->next_k < sw->n_todo; sw->next_k++)
        note_failure(sw, run_index(sw, sw->next_k), "not started (the sweep was interrupted)");
    stop_signals_restore(&sig);
}

/* Reads the next combination's record of the table file: 0, or -1 at its end. */
static int read_row(struct sweep *sw, uint64_t *g, struct metric_stats *st)
{
    if (fread(g, sizeof *g, 1, sw->table) != 1)
        return -1;
    return fread(st, sizeof *st, sw->n_metrics, sw->table) == sw->n_metrics ? 0 : -1;
}

/* A row of the table file, with the rank of each of its values. */
struct row_order {
    size_t row;             /* its place in the file */
    const size_t *rank;     /* per axis, shared storage */
    size_t n_axes;
};

static int row_order_cmp(const void *pa, const void *pb)
{
    const struct row_order *a = pa, *b = pb;
    for (size_t i = 0; i < a->n_axes; i++)
        if (a->rank[i] != b->rank[i])
            return a->rank[i] < b->rank[i] ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* The table file's rows in the order ringsim report shows combinations:
 * each axis's values ranked by report_rank_values (numbers, durations and
 * sizes by magnitude, text by strcmp), first axis first. O(rows log rows)
 * time and rows x axes memory. */
static struct row_order *order_rows(struct sweep *sw, size_t **rank_store)
{
    size_t **vrank = xcalloc(sw->n_axes + 1, sizeof(*vrank));
    for (size_t a = 0; a < sw->n_axes; a++) {
        vrank[a] = xcalloc(sw->axes[a].n + 1, sizeof(size_t));
        report_rank_values(sw->axes[a].values, sw->axes[a].n, vrank[a]);
    }
    size_t n = sw->table_rows, na = sw->n_axes;
    struct row_order *o = xcalloc(n + 1, sizeof(*o));
    *rank_store = xcalloc(n * na + 1, sizeof(size_t));
    struct metric_stats *st = xcalloc(sw->n_metrics + 1, sizeof(*st));
    uint64_t g;
    rewind(sw->table);
    for (size_t r = 0; r < n && !read_row(sw, &g, st); r++) {
        size_t *rk = *rank_store + r * na;
        for (size_t a = 0; a < na; a++)
            rk[a] = vrank[a][combo_pick(sw, (size_t)g, a)];
        o[r] = (struct row_order){r, rk, na};
    }
    qsort(o, n, sizeof(*o), row_order_cmp);
    for (size_t a = 0; a < sw->n_axes; a++)
        free(vrank[a]);
    free(vrank);
    free(st);
    return o;
}

/* The closing table: per metric, one row per combination that has runs,
 * in the order ringsim report gives them. */
static void print_table(struct sweep *sw)
{
    flush_row(sw);
    fflush(sw->table);
    size_t n_cols = sw->n_axes ? sw->n_axes : 1;
    const char **cols = xcalloc(n_cols, sizeof(*cols));
    const char **labels = xcalloc(n_cols, sizeof(*labels));
    size_t *w = xcalloc(n_cols, sizeof(*w));
    for (size_t a = 0; a < n_cols; a++) {
        cols[a] = sw->n_axes ? sw->axes[a].path : "combination";
        w[a] = MAX(strlen(cols[a]), sw->n_axes ? 0 : strlen("(all runs)"));
        for (size_t v = 0; sw->n_axes && v < sw->axes[a].n; v++)
            w[a] = MAX(w[a], strlen(sw->axes[a].values[v]));
    }
    struct metric_stats *st = xcalloc(sw->n_metrics + 1, sizeof(*st));
    bool *any_null = xcalloc(sw->n_metrics + 1, sizeof(*any_null));
    uint64_t g;
    rewind(sw->table);
    while (!read_row(sw, &g, st))
        for (size_t m = 0; m < sw->n_metrics; m++)
            any_null[m] = any_null[m] || st[m].n < st[m].runs;
    size_t *ranks = NULL;
    struct row_order *order = order_rows(sw, &ranks);
    long row_bytes = (long)(sizeof g + sw->n_metrics * sizeof *st);
    printf("per combination: the mean over its runs with its 95%% confidence interval "
           "(Student t,\nruns - 1 degrees of freedom), the minimum and the maximum\n");
    for (size_t m = 0; m < sw->n_metrics; m++) {
        struct report_table t = {stdout, &sw->metrics[m], n_cols, cols, w, false,
                                 report_needs_note(&sw->metrics[m], any_null[m])};
        report_table_head(&t, NULL);
        for (size_t r = 0; r < sw->table_rows; r++) {
            if (fseek(sw->table, (long)order[r].row * row_bytes, SEEK_SET)
                || read_row(sw, &g, st))
                break;
            for (size_t a = 0; a < n_cols; a++)
                labels[a] = sw->n_axes ? sw->axes[a].values[combo_pick(sw, (size_t)g, a)]
                                       : "(all runs)";
            report_table_row(&t, labels, &st[m], NULL, false);
        }
    }
    if (!sw->table_rows)
        printf("\n(no run finished)\n");
    printf("\nrecorded in %s\n", sw->cli.out);
    free(order);
    free(ranks);
    free(st);
    free(any_null);
    free(cols);
    free(labels);
    free(w);
}

/* Appends arg quoted for a POSIX shell when it needs to be. */
static void shell_word(struct strbuf *sb, const char *arg)
{
    bool plain = *arg != '\0';
    for (const char *p = arg; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
                || strchr("_@%+=:,./-", *p);
    if (plain) {
        sb_puts(sb, arg);
        return;
    }
    sb_putc(sb, '\'');
    for (const char *p = arg; *p; p++) {
        if (*p == '\'')
            sb_puts(sb, "'\\''");
        else
            sb_putc(sb, *p);
    }
    sb_putc(sb, '\'');
}

/* --list: one line per run, "I COMMAND", COMMAND running just run I into
 * OUT.db.part-I. */
static int print_list(struct sweep *sw)
{
    if (sw->n_runs > 1000000) {
        fprintf(stderr, "ringsim sweep: --list: %zu runs; at most 1000000 lines (use --shard "
                        "I/N for bigger shards)\n", sw->n_runs);
        return EXIT_USAGE;
    }
    int digits = 1;
    for (size_t n = sw->n_runs - 1; n >= 10; n /= 10)
        digits++;
    /* the command as given, without --list, -o and -j; what follows a "--"
     * (the scenario) goes after the options each line adds, as tail */
    struct strbuf base, line, tail;
    sb_init(&base);
    sb_init(&line);
    sb_init(&tail);
    shell_word(&base, cli_program());
    sb_puts(&base, " sweep");
    static const char *const dropped[] = {"-o", "--output", "-j", "--jobs", NULL};
    for (int i = 1; i < sw->cli.argc; i++) {
        const char *a = sw->cli.argv[i], *v;
        if (!strcmp(a, "--")) {
            for (; i < sw->cli.argc; i++) {
                sb_putc(&tail, ' ');
                shell_word(&tail, sw->cli.argv[i]);
            }
            break;
        }
        if (!strcmp(a, "--list") || long_option_value(a, dropped, &v))
            continue;
        if (option_in(a, dropped)) {
            i++; /* and its value */
            continue;
        }
        sb_putc(&base, ' ');
        shell_word(&base, a);
    }
    for (size_t i = 0; i < sw->n_runs; i++) {
        sb_reset(&line);
        sb_printf(&line, "%zu %s --shard %zu/%zu -o ", i, base.buf, i, sw->n_runs);
        char *part = xasprintf("%s.part-%0*zu", sw->cli.out, digits, i);
        shell_word(&line, part);
        free(part);
        sb_puts(&line, tail.len ? tail.buf : "");
        sb_putc(&line, '\n');
        fwrite(line.buf, 1, line.len, stdout);
    }
    /* a name that starts with '-' would read as an option of merge */
    const char *dot = sw->cli.out[0] == '-' ? "./" : "";
    sb_reset(&line);
    shell_word(&line, cli_program()); /* the binary as invoked, as in the lines above */
    sb_puts(&line, " merge ");
    char *merged = xasprintf("%s%s", dot, sw->cli.out);
    shell_word(&line, merged);
    free(merged);
    sb_putc(&line, ' ');
    char *parts = xasprintf("%s%s.part-", dot, sw->cli.out);
    shell_word(&line, parts);
    free(parts);
    fprintf(stderr, "ringsim sweep: %zu command%s, one run each (%zu combination%s x %u seed%s); "
                    "when all have run: %s*\n",
            sw->n_runs, sw->n_runs == 1 ? "" : "s", sw->n_groups, sw->n_groups == 1 ? "" : "s",
            sw->seeds, sw->seeds == 1 ? "" : "s", line.buf);
    sb_deinit(&base);
    sb_deinit(&line);
    sb_deinit(&tail);
    if (fflush(stdout) || ferror(stdout)) {
        perror("ringsim sweep: stdout");
        return EXIT_RUN_FAILED;
    }
    return EXIT_OK;
}

/* Parses the command line and the axes. -1 to go on, or the exit code. */
static int sweep_init(struct sweep *sw, int argc, char **argv)
{
    struct diag d;
    diag_init(&d);
    int rc = run_cli_parse(&sw->cli, argc, argv, sweep_usage, false, &d);
    if (rc >= 0) {
        diag_deinit(&d);
        return rc;
    }
    rc = EXIT_USAGE;
    if (!sw->cli.out) {
        fprintf(stderr, "ringsim sweep: -o OUT.db is required\n%s", sweep_usage);
        goto out;
    }
    if (!strcmp(sw->cli.out, "-")) {
        fprintf(stderr, "ringsim sweep: -o -: a sweep writes a results database, not standard "
                        "output; name a file, e.g. -o results/sweep.db\n");
        goto out;
    }
    if (!sw->cli.n_vary && !sw->cli.seeds) {
        fprintf(stderr, "ringsim sweep: nothing to sweep: give --vary and/or --seeds\n");
        goto out;
    }
    if (sw->cli.list && sw->cli.shard_n) {
        fprintf(stderr, "ringsim sweep: --list gives each run a shard of its own; leave out "
                        "--shard\n");
        goto out;
    }
    size_t n_metrics = sw->cli.n_metrics ? sw->cli.n_metrics : report_n_default_metrics;
    sw->metrics = xcalloc(n_metrics + 1, sizeof(*sw->metrics));
    for (size_t i = 0; i < n_metrics; i++) {
        const char *name = sw->cli.n_metrics ? sw->cli.metrics[i] : report_default_metrics[i];
        bool dup = false;
        for (size_t j = 0; j < sw->n_metrics && !dup; j++)
            dup = !strcmp(sw->metrics[j].name, name);
        if (dup)
            continue;
        if (report_metric_get(name, &sw->metrics[sw->n_metrics])) {
            fprintf(stderr, "ringsim sweep: --metric %s: not a column of the summary table "
                            "(ringsim report --help lists them)\n", name);
            goto out;
        }
        sw->n_metrics++;
    }
    if (sweep_parse_axes(sw))
        goto out;
    sw->seeds = sw->cli.seeds ? sw->cli.seeds : 1;
    sw->n_runs = sw->n_groups * sw->seeds;
    if (sw->cli.shard_n)
        sw->n_todo = sw->n_runs > sw->cli.shard_i
                         ? (sw->n_runs - sw->cli.shard_i + sw->cli.shard_n - 1) / sw->cli.shard_n
                         : 0;
    else
        sw->n_todo = sw->n_runs;
    /* the base seed (--seed/--set seed, else the scenario's own) is read
     * as the combinations are validated */
    rc = -1;
out:
    diag_deinit(&d);
    return rc;
}

static void sweep_deinit(struct sweep *sw)
{
    results_close(sw->out);
    if (sw->table)
        fclose(sw->table);
    free(sw->win);
    free(sw->stride);
    free(sw->row.vals);
    free(sw->metrics);
    sb_deinit(&sw->failed);
    if (sw->axes)
        sweep_axes_free(sw->axes, sw->n_axes);
    run_cli_deinit(&sw->cli);
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep sw;
    memset(&sw, 0, sizeof sw);
    sb_init(&sw.failed);
    sw.pid = getpid();
    sw.seed_g = SIZE_MAX;
    int rc = sweep_init(&sw, argc, argv);
    if (rc < 0 && sweep_validate(&sw))
        rc = EXIT_USAGE;
    if (rc < 0 && sw.cli.list)
        rc = print_list(&sw);
    if (rc >= 0) {
        sweep_deinit(&sw);
        return rc;
    }
    char err[MSG_MAX];
    if (make_parent_dirs(sw.cli.out, "sweep")) {
        sweep_deinit(&sw);
        return EXIT_RUN_FAILED;
    }
    sw.out = results_open(sw.cli.out, err, sizeof err);
    sw.table = tmpfile();
    if (!sw.out || !sw.table) {
        fprintf(stderr, "ringsim sweep: %s\n", sw.out ? strerror(errno) : err);
        sweep_deinit(&sw);
        return EXIT_RUN_FAILED;
    }
    if (!sw.n_todo) {
        /* a shard past the end of a short sweep: nothing to do, and its
         * (empty) database merges like the others */
        printf("shard %u/%u has no runs: the sweep has %zu run%s, fewer than %u; %s holds none\n",
               sw.cli.shard_i, sw.cli.shard_n, sw.n_runs, sw.n_runs == 1 ? "" : "s",
               sw.cli.shard_i + 1, sw.cli.out);
        sweep_deinit(&sw);
        return EXIT_OK;
    }
    fprintf(stderr, "ringsim sweep: %zu run%s (%zu combination%s x %u seed%s%s), %u at a time, "
                    "into %s\n",
            sw.n_todo, sw.n_todo == 1 ? "" : "s", sw.n_groups, sw.n_groups == 1 ? "" : "s",
            sw.seeds, sw.seeds == 1 ? "" : "s", sw.cli.shard_n ? ", this shard's share" : "",
            sw.cli.jobs, sw.cli.out);
    run_all(&sw);
    print_table(&sw);
    if (stop_sweep)
        fprintf(stderr, "ringsim sweep: interrupted; finished runs are kept in %s\n", sw.cli.out);
    if (sw.n_failed) {
        fprintf(stderr, "ringsim sweep: %zu of %zu runs did not complete:%s%s\n", sw.n_failed,
                sw.n_todo, sw.failed.buf,
                sw.n_failed > MAX_NAMED_FAILURES ? "\n  ..." : "");
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr, "ringsim sweep: peak memory %.0f MiB (the sweep; each run has its own "
                    "process)\n", (double)ru.ru_maxrss / 1024.0);
    /* runs that failed only for invalid input (each exited 2, as ringsim
     * run does) make the sweep's input invalid: 2, as a scenario refused
     * before anything runs; any other failure, or an interruption, 1 */
    if (stop_sweep || sw.n_failed > sw.n_invalid)
        rc = EXIT_RUN_FAILED;
    else
        rc = sw.n_failed ? EXIT_USAGE : EXIT_OK;
    sweep_deinit(&sw);
    return rc;
}
