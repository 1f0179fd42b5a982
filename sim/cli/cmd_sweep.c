/*
 * cmd_sweep.c — `ringsim sweep` (`ringsim merge` is cmd_merge.c).
 *
 * A sweep runs one scenario over the cartesian product of --vary values
 * (the last --vary changes fastest) times --seeds seeds (the scenario's
 * seed, +1, +2, ...). Every combination is loaded and validated before any
 * runs. With -j, combinations run in child processes, each into its own
 * part file next to OUT.db; the parent merges the parts in combination
 * order, so run ids and rows are the same whatever -j is. --shard I/N runs
 * only the combinations whose index is I modulo N, for spreading a sweep
 * over machines; `ringsim merge` joins the shard files afterwards.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/results.h"
#include "sim/cli/cli.h"
#include "sim/cli/cmdline.h"
#include "sim/sim.h"

static const char sweep_usage[] =
    "usage: ringsim sweep SCENARIO.yaml --vary PATH=V1,V2,... [--vary ...] [--seeds N]\n"
    "                     [-j JOBS] [--shard I/N] [--set PATH=VALUE]... -o OUT.db\n"
    "\n"
    "Runs a scenario over every combination of the --vary values (times --seeds seeds:\n"
    "the scenario's seed, seed+1, ...) and records every run in OUT.db, with the varied\n"
    "values in its params rows. Every combination is validated before anything runs.\n"
    "\n"
    "  --vary PATH=V1,V2  a scalar path and its values (as --set takes them)\n"
    "  --seeds N          N seeds per combination (default 1)\n"
    "  -j JOBS            run JOBS at once (default 1); results do not depend on it\n"
    "  --shard I/N        run only combinations I, I+N, I+2N, ... (0 <= I < N)\n"
    "  --set PATH=VALUE   a fixed override for every run\n"
    "\n"
    "Prints one line per run and, at the end, a table of the summary averaged over seeds.\n"
    "\n"
    "examples:\n"
    "  ringsim sweep scenarios/incidents/slow_node_cascade.yaml \\\n"
    "      --vary health.cooldown=0s,5s,10s,20s,40s --seeds 5 -j 2 -o results/cooldown.db\n"
    "  ringsim sweep scenarios/scale_out_3_to_4.yaml --vary routing.vnodes=8,32,160,512 \\\n"
    "      --vary routing.algorithm=ring,ketama -o results/vnodes.db\n"
    "  # on two machines, then join:\n"
    "  ringsim sweep S.yaml --vary ... --shard 0/2 -o a.db;  ringsim sweep S.yaml --vary ... --shard 1/2 -o b.db\n"
    "  ringsim merge all.db a.db b.db\n";

static volatile sig_atomic_t stop_sweep;

static void on_signal(int sig)
{
    (void)sig;
    stop_sweep = 1;
}

struct axis {
    char *path;
    char **values;
    size_t n;
};

struct combo {
    struct scenario *sc;
    struct strbuf label;   /* "path=v path=v seed=N" */
    size_t group;          /* index of the --vary combination (seeds share it) */
    size_t vary_len;       /* the label's length without the seed */
    struct summary_row sum;/* read back from its part file */
    bool have_sum;
};

static void axes_free(struct axis *ax, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ax[i].path);
        for (size_t j = 0; j < ax[i].n; j++)
            free(ax[i].values[j]);
        free(ax[i].values);
    }
    free(ax);
}

/* Splits "PATH=V1,V2,..." into an axis. */
static int parse_vary(const char *arg, struct axis *ax)
{
    const char *eq = strchr(arg, '=');
    memset(ax, 0, sizeof(*ax));
    if (!eq || eq == arg || !eq[1]) {
        fprintf(stderr, "ringsim sweep: --vary %s: expected PATH=V1,V2,...\n", arg);
        return -1;
    }
    ax->path = xstrndup(arg, (size_t)(eq - arg));
    const char *p = eq + 1;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (!len) {
            fprintf(stderr, "ringsim sweep: --vary %s: an empty value\n", arg);
            return -1;
        }
        ax->values = xrealloc(ax->values, (ax->n + 1) * sizeof(char *));
        ax->values[ax->n++] = xstrndup(p, len);
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

static void part_path(char *buf, size_t n, const char *out, size_t i)
{
    snprintf(buf, n, "%s.part-%zu", out, i);
}

/* Runs combination i into path in a child process; returns its pid. */
static pid_t spawn_run(const struct combo *c, const char *path, const struct run_cli *cli)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    struct run_cli quiet = *cli;
    quiet.quiet = true;
    quiet.progress = false;
    int rc = run_scenario(c->sc, path, &quiet, NULL);
    fflush(NULL);
    _exit(rc);
}

int cmd_sweep(int argc, char **argv)
{
    struct run_cli cli;
    struct diag d;
    diag_init(&d);
    int rc = run_cli_parse(&cli, argc, argv, sweep_usage, false, &d);
    if (rc >= 0) {
        diag_deinit(&d);
        return rc;
    }
    struct axis *axes = NULL;
    struct combo *combos = NULL;
    size_t n_combos = 0, n_groups = 1;
    rc = EXIT_USAGE;
    if (!cli.out) {
        fprintf(stderr, "ringsim sweep: -o OUT.db is required\n%s", sweep_usage);
        goto out;
    }
    if (!cli.n_vary && !cli.seeds) {
        fprintf(stderr, "ringsim sweep: nothing to sweep: give --vary and/or --seeds\n");
        goto out;
    }
    axes = xcalloc(cli.n_vary + 1, sizeof(*axes));
    for (size_t i = 0; i < cli.n_vary; i++) {
        if (parse_vary(cli.vary[i], &axes[i]))
            goto out;
        n_groups *= axes[i].n;
        if (n_groups > 1000000) {
            fprintf(stderr, "ringsim sweep: more than a million combinations\n");
            goto out;
        }
    }
    unsigned seeds = cli.seeds ? cli.seeds : 1;

    /* the base seed: --seed/--set seed, else the scenario's own */
    struct scenario *base = scenario_load(cli.scenario, cli.sets, cli.n_sets, &d);
    if (!base) {
        diag_print(&d, stderr);
        goto out;
    }
    uint64_t seed0 = base->seed;
    scenario_destroy(base);

    combos = xcalloc(n_groups * seeds, sizeof(*combos));
    bool bad = false;
    for (size_t g = 0; g < n_groups; g++) {
        for (unsigned k = 0; k < seeds; k++) {
            struct combo *c = &combos[n_combos++];
            c->group = g;
            sb_init(&c->label);
            size_t n_ov = cli.n_sets + cli.n_vary + 1;
            struct override *ov = xcalloc(n_ov, sizeof(*ov));
            size_t m = 0;
            for (size_t i = 0; i < cli.n_sets; i++)
                override_parse(cli.sets[i].arg, &ov[m++], &d);
            size_t rest = g;
            /* the last axis varies fastest */
            size_t *pick = xcalloc(cli.n_vary + 1, sizeof(size_t));
            for (size_t i = cli.n_vary; i-- > 0;) {
                pick[i] = rest % axes[i].n;
                rest /= axes[i].n;
            }
            for (size_t i = 0; i < cli.n_vary; i++) {
                char *arg = xasprintf("%s=%s", axes[i].path, axes[i].values[pick[i]]);
                if (override_parse(arg, &ov[m], &d))
                    bad = true;
                else
                    m++;
                sb_printf(&c->label, "%s%s", i ? " " : "", arg);
                free(arg);
            }
            free(pick);
            c->vary_len = c->label.len;
            if (cli.seeds) {
                char *arg = xasprintf("seed=%llu", (unsigned long long)(seed0 + k));
                override_parse(arg, &ov[m++], &d);
                sb_printf(&c->label, "%sseed=%llu", cli.n_vary ? " " : "",
                          (unsigned long long)(seed0 + k));
                free(arg);
            }
            c->sc = scenario_load(cli.scenario, ov, m, &d);
            if (!c->sc)
                bad = true;
            for (size_t i = 0; i < m; i++)
                override_deinit(&ov[i]);
            free(ov);
            if (d.n > 20)
                break;
        }
        if (d.n > 20)
            break;
    }
    if (bad || d.n) {
        diag_print(&d, stderr);
        fprintf(stderr, "ringsim sweep: nothing was run\n");
        goto out;
    }

    /* which combinations this shard runs */
    size_t *todo = xcalloc(n_combos + 1, sizeof(size_t));
    size_t n_todo = 0;
    for (size_t i = 0; i < n_combos; i++)
        if (!cli.shard_n || i % cli.shard_n == cli.shard_i)
            todo[n_todo++] = i;
    fprintf(stderr, "ringsim sweep: %zu runs (%zu combinations x %u seeds%s), %u at a time, into %s\n",
            n_todo, n_groups, seeds, cli.shard_n ? ", this shard's share" : "", cli.jobs, cli.out);

    struct stop_signals sig;
    stop_signals_catch(&sig, on_signal);

    /* run: children write part files; up to cli.jobs at once */
    pid_t *pids = xcalloc(n_todo + 1, sizeof(pid_t));
    int *codes = xcalloc(n_todo + 1, sizeof(int));
    size_t next = 0, running = 0, finished = 0;
    char path[4096];
    while (finished < n_todo) {
        while (running < cli.jobs && next < n_todo && !stop_sweep) {
            part_path(path, sizeof path, cli.out, todo[next]);
            unlink(path);
            pids[next] = spawn_run(&combos[todo[next]], path, &cli);
            if (pids[next] < 0) {
                fprintf(stderr, "ringsim sweep: cannot start a run: %s\n", strerror(errno));
                codes[next] = EXIT_RUN_FAILED;
                finished++;
            } else {
                running++;
            }
            next++;
        }
        if (!running) {
            finished += n_todo - next; /* interrupted before they started */
            for (; next < n_todo; next++)
                codes[next] = -1;
            break;
        }
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (size_t i = 0; i < next; i++) {
            if (pids[i] != pid)
                continue;
            codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_RUN_FAILED;
            running--;
            finished++;
            part_path(path, sizeof path, cli.out, todo[i]);
            struct combo *c = &combos[todo[i]];
            c->have_sum = results_read_summary(path, 0, &c->sum) == 0;
            if (c->have_sum)
                fprintf(stderr, "[%zu/%zu] %s: hit %.2f%% (min %.2f%%), peak db %.0f%%, "
                                "%lld cascade removals%s\n",
                        finished, n_todo, c->label.buf, 100 * c->sum.hit_rate,
                        100 * c->sum.min_hit_rate, 100 * c->sum.peak_db_util,
                        (long long)c->sum.cascade_removals, codes[i] ? " (not complete)" : "");
            else
                fprintf(stderr, "[%zu/%zu] %s: failed (exit %d)\n", finished, n_todo,
                        combos[todo[i]].label.buf, codes[i]);
        }
    }
    stop_signals_restore(&sig);

    /* merge the parts in combination order */
    char err[512];
    struct results *res = results_open(cli.out, err, sizeof err);
    rc = EXIT_OK;
    if (!res) {
        fprintf(stderr, "ringsim sweep: %s\n", err);
        rc = EXIT_RUN_FAILED;
    }
    for (size_t i = 0; i < n_todo; i++) {
        part_path(path, sizeof path, cli.out, todo[i]);
        if (codes[i] != 0)
            rc = EXIT_RUN_FAILED;
        if (res && access(path, F_OK) == 0) {
            int n = results_merge_from(res, path, err, sizeof err);
            if (n < 0) {
                fprintf(stderr, "ringsim sweep: merging %s: %s\n", path, err);
                rc = EXIT_RUN_FAILED;
                continue;
            }
            unlink(path);
        }
    }
    results_close(res);

    /* the table: summary averaged over seeds, per combination */
    printf("%-44s %4s %8s %9s %8s %9s %8s\n", "combination", "runs", "hit %", "min hit %",
           "recov s", "peak db %", "cascade");
    for (size_t g = 0; g < n_groups; g++) {
        double hit = 0, min_hit = 0, db = 0, cascade = 0, recovery = 0;
        int runs = 0, recovered = 0;
        const struct combo *first = NULL;
        for (size_t i = 0; i < n_todo; i++) {
            const struct combo *c = &combos[todo[i]];
            if (c->group != g || !c->have_sum)
                continue;
            first = first ? first : c;
            hit += c->sum.hit_rate;
            min_hit += c->sum.min_hit_rate;
            db += c->sum.peak_db_util;
            cascade += (double)c->sum.cascade_removals;
            if (!isnan(c->sum.recovery_s)) {
                recovery += c->sum.recovery_s;
                recovered++;
            }
            runs++;
        }
        if (!runs)
            continue;
        char rec[32];
        if (recovered == runs)
            snprintf(rec, sizeof rec, "%.1f", recovery / runs);
        else
            snprintf(rec, sizeof rec, "%d/%d", recovered, runs);
        printf("%-44.*s %4d %8.2f %9.2f %8s %9.1f %8.2f\n",
               first->vary_len ? (int)first->vary_len : 6,
               first->vary_len ? first->label.buf : "(base)", runs,
               100 * hit / runs, 100 * min_hit / runs, rec, 100 * db / runs, cascade / runs);
    }
    printf("recorded in %s\n", cli.out);
    if (stop_sweep) {
        fprintf(stderr, "ringsim sweep: interrupted; finished runs are kept in %s\n", cli.out);
        rc = EXIT_RUN_FAILED;
    }
    free(pids);
    free(codes);
    free(todo);
out:
    for (size_t i = 0; i < n_combos; i++) {
        scenario_destroy(combos[i].sc);
        sb_deinit(&combos[i].label);
    }
    free(combos);
    if (axes)
        axes_free(axes, cli.n_vary);
    run_cli_deinit(&cli);
    diag_deinit(&d);
    return rc;
}
