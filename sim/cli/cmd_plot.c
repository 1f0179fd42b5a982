/*
 * cmd_plot.c — `ringsim plot DB [--run ID[,ID...]] [--sweep] [--by PATH]...
 * [--metric NAME]... [-d DIR] [--format png|svg]`: the command line of the
 * plot library (plots/plot.h). It parses the arguments, hands them to
 * plot_draw() and turns what it returns into messages and the exit code:
 * 0 drawn; 1 gnuplot or its scripts missing or failing, DIR not writable,
 * an I/O error reading the database; 2 bad usage, a file that is missing,
 * unreadable, not a ringsim database or damaged, no runs or none with a
 * tick, an unknown run id, metric or parameter, a sweep of no or more than
 * two parameters.
 */
#include "plots/plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/cli/cmdline.h"

static const char *usage_line =
    "usage: ringsim plot DB [--run ID[,ID...]] [-d DIR] [--format png|svg]\n"
    "       ringsim plot DB [--sweep] [--by PATH]... [--metric NAME]... [-d DIR] [--format F]";

static void usage(FILE *f)
{
    fprintf(f,
            "%s\n"
            "\n"
            "Draws the runs recorded in a results database with gnuplot: hit rate; backend\n"
            "(database) load with the database's capacity; database utilization and p99\n"
            "latency; requests per node with each node's state. Every scenario event is\n"
            "marked. Several runs overlay in each chart, labelled by the parameters they\n"
            "override. Writes one image per chart, the data the charts were drawn from\n"
            "(DIR/data/*.tsv) and DIR/index.html: the summary table and the charts, readable\n"
            "offline.\n"
            "\n"
            "A sweep (a database from ringsim sweep, or any whose runs vary parameters) is\n"
            "drawn as statistics instead, grouped into combinations of parameters as\n"
            "ringsim report groups them: against one parameter, one chart per metric with\n"
            "the mean of each combination's runs, its 95%% confidence interval as error bars,\n"
            "the minimum-maximum range shaded and, for cascade_removals and db_overload_s,\n"
            "the runs in which it happened (\"2/4\") over each point; against two, one heat\n"
            "map per metric over the grid, each cell coloured and labelled with the mean (for\n"
            "cascade_removals and db_overload_s: the share of runs in which it happened,\n"
            "\"2/4\" over the mean). Images DIR/sweep-METRIC.png, data DIR/data/sweep-*.tsv\n"
            "(the numbers of ringsim report --csv), and DIR/index.html with report's table\n"
            "under each chart. A database is drawn as a sweep when --sweep, --by or --metric\n"
            "is given, or, without them and without --run, when its complete runs fall into\n"
            "two or more combinations and one of them holds two runs or more (seeds), or\n"
            "there are more than %d runs; else its runs are drawn over time.\n"
            "\n"
            "  --run ID[,ID...]  the runs to draw over time: ids and ranges (1,3 or 2-5);\n"
            "                    repeatable. Default: every run, or the last %d when there\n"
            "                    are more\n"
            "  --sweep           draw a sweep, even of runs that do not look like one\n"
            "  --by PATH         a parameter of the sweep (repeatable, at most two): the\n"
            "                    x axis, then the y axis of the heat maps; the others are\n"
            "                    pooled. Default: every parameter that varies but seed;\n"
            "                    when more than two do, choose (runs that repeat no\n"
            "                    combination are then drawn over time instead)\n"
            "  --metric NAME     a column of the summary table to draw (repeatable).\n"
            "                    Default: the metrics of ringsim report\n"
            "  -d, --dir DIR     where to write (default: results/plots/<DB name without .db>/)\n"
            "  --format F        png (the default; 1100 px wide) or svg\n"
            "  -h, --help        this text\n"
            "  --                the end of the options: what follows is the database, even\n"
            "                    a name that starts with -\n"
            "\n"
            "examples:\n"
            "  ringsim run scenarios/scale_out_3_to_4.yaml -o results/so.db\n"
            "  ringsim run scenarios/scale_out_3_to_4.yaml -o results/so.db --set routing.algorithm=mod\n"
            "  ringsim plot results/so.db                 # both runs, ring against mod\n"
            "  ringsim plot results/so.db --run 2 -d /tmp/mod --format svg\n"
            "  ringsim sweep scenarios/incidents/slow_node_cascade.yaml --seeds 4 -j 2 \\\n"
            "      --vary health.cooldown=0s,5s,10s,12s,15s,30s -o results/cooldown.db\n"
            "  ringsim plot results/cooldown.db --metric min_hit_rate --metric cascade_removals\n"
            "  ringsim plot results/grid.db --by health.cooldown --by routing.vnodes \\\n"
            "      --metric cascade_removals              # a heat map: the safe region\n"
            "\n"
            "environment:\n"
            "  RINGSIM_GNUPLOT  the gnuplot program (default: gnuplot from PATH;\n"
            "                   Debian/Ubuntu: apt-get install gnuplot-nox)\n"
            "  RINGSIM_PLOTS    the folder of the chart scripts (default: plots/ next to the\n"
            "                   binary, then ../share/ringsim/plots from it)\n"
            "\n"
            "The database is opened read-only. Ctrl-C (or SIGTERM, SIGHUP) stops the drawing\n"
            "and gnuplot; index.html is written last, so a folder without it is incomplete.\n"
            "Exit status: 0 drawn; 1 gnuplot is missing or failed, DIR cannot be written, an\n"
            "I/O error reading the database or a lock another process holds on it (past a\n"
            "10 s wait), the drawing was interrupted, or stdout cannot be written; 2 bad\n"
            "usage, a database that does not exist, cannot be read (a folder, no permission,\n"
            "a name too long), is not a ringsim database or is damaged, a database without\n"
            "runs, runs none of which recorded a tick (nothing to draw), an unknown run id,\n"
            "metric or parameter, or a sweep in which no parameter or more than two vary\n"
            "(choose with --by). The charts and the data files are described in\n"
            "plots/README.md.\n",
            usage_line, PLOT_DEFAULT_RUNS, PLOT_DEFAULT_RUNS);
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "ringsim plot: %s%s%s\n%s  (ringsim plot --help)\n", msg, arg ? " " : "",
            arg ? arg : "", usage_line);
    return EXIT_USAGE;
}

/* The parsed command line; `want`, `by` and `metrics` are owned. */
struct plot_args {
    struct plot_options o;
    int64_t *want;
    const char **by, **metrics;
};

static void plot_args_deinit(struct plot_args *a)
{
    free(a->want);
    free(a->by);
    free(a->metrics);
}

/* Parses argv into a. -1 to go on, or the exit code to return at once
 * (0 after --help, 2 after bad usage, with the message printed). */
static int parse_args(int argc, char **argv, struct plot_args *a)
{
    char err[MSG_MAX];
    size_t n_want = 0;
    memset(a, 0, sizeof(*a));
    a->by = xcalloc((size_t)argc + 1, sizeof(*a->by));
    a->metrics = xcalloc((size_t)argc + 1, sizeof(*a->metrics));
    a->o.by = a->by;
    a->o.metrics = a->metrics;
    static const char *const flags[] = {"--help", "--sweep", NULL};
    static const char *const with_value[] = {"--run", "--dir", "--format", "--by", "--metric",
                                             NULL}; /* and -d, --dir's short form */
    bool options_ended = false; /* after "--": every argument is the database */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        if (!options_ended && !strcmp(arg, "--")) {
            options_ended = true;
            continue;
        }
        if (options_ended) {
            if (a->o.db)
                return usage_error("more than one database:", arg);
            a->o.db = arg;
            continue;
        }
        const char *flag = long_option_value(arg, flags, &val);
        if (flag) {
            fprintf(stderr, "ringsim plot: %s takes no value, got %s; write %s alone\n%s  "
                            "(ringsim plot --help)\n", flag, arg, flag, usage_line);
            return EXIT_USAGE;
        }
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return EXIT_OK;
        }
        if (!strcmp(arg, "--sweep")) {
            a->o.sweep = true;
            continue;
        }
        const char *opt = long_option_value(arg, with_value, &val);
        if (!opt && (!strcmp(arg, "-d") || option_in(arg, with_value))) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ringsim plot: %s needs a value\n%s  (ringsim plot --help)\n", arg,
                        usage_line);
                return EXIT_USAGE;
            }
            opt = arg;
            val = argv[++i];
        }
        if (!opt && arg[0] == '-' && arg[1])
            return usage_error("unknown option", arg);
        if (opt && !*val) {
            fprintf(stderr, "ringsim plot: %s needs a value, got \"\"\n%s  (ringsim plot --help)\n",
                    opt, usage_line);
            return EXIT_USAGE;
        }
        if (!opt) {
            if (a->o.db)
                return usage_error("more than one database:", arg);
            a->o.db = arg;
        } else if (!strcmp(opt, "--run")) {
            if (parse_run_list(val, &a->want, &n_want, err, sizeof err))
                return usage_error(err, NULL);
            a->o.runs = a->want;
            a->o.n_runs = n_want;
        } else if (!strcmp(opt, "--by") || !strcmp(opt, "--metric")) {
            if (!strcmp(opt, "--by"))
                a->by[a->o.n_by++] = val;
            else
                a->metrics[a->o.n_metrics++] = val;
        } else if (!strcmp(opt, "--format")) {
            if (strcmp(val, "png") && strcmp(val, "svg"))
                return usage_error("--format: expected png or svg, got", val);
            a->o.svg = !strcmp(val, "svg");
        } else {
            a->o.dir = val;
        }
    }
    if (!a->o.db)
        return usage_error("which database? e.g. ringsim plot results/scale-out-3-to-4.db", NULL);
    if (a->o.n_runs && (a->o.sweep || a->o.n_by || a->o.n_metrics))
        return usage_error("--run draws runs over time; --sweep, --by and --metric draw a "
                           "sweep: give one or the other", NULL);
    if (a->o.n_by > 2)
        return usage_error("a sweep chart draws one parameter (error bars) or two (a heat "
                           "map): at most two --by", NULL);
    return -1;
}

static volatile sig_atomic_t stop_plot;

static void on_signal(int sig)
{
    (void)sig;
    stop_plot = 1;
}

int cmd_plot(int argc, char **argv)
{
    struct plot_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        plot_args_deinit(&a);
        return rc;
    }
    char err[MSG_MAX];
    struct plot_result res;
    /* Ctrl-C, SIGTERM, SIGHUP: drawing stops, saying what is left */
    struct stop_signals sig;
    stop_signals_catch(&sig, on_signal);
    a.o.stop = &stop_plot;
    enum plot_status st = plot_draw(&a.o, &res, err, sizeof err);
    stop_signals_restore(&sig);
    for (size_t i = 0; i < res.notes.n; i++)
        fprintf(stderr, "ringsim plot: %s\n", res.notes.msgs[i]);
    if (st != PLOT_DRAWN) {
        fprintf(stderr, "ringsim plot: %s\n", err);
        rc = st == PLOT_BAD_INPUT ? EXIT_USAGE : EXIT_RUN_FAILED;
    } else if (res.sweep) {
        printf("%s/index.html: %zu sweep chart%s of %zu run%s in %zu combination%s of ", res.dir,
               res.n_charts, res.n_charts == 1 ? "" : "s", res.n_ids, res.n_ids == 1 ? "" : "s",
               res.n_groups, res.n_groups == 1 ? "" : "s");
        for (size_t i = 0; i < res.n_by; i++)
            printf("%s%s", i ? " x " : "", res.by[i]);
        printf(" (");
        for (size_t i = 0; i < res.n_charts; i++)
            printf("%s%s", i ? ", " : "", res.charts[i]);
        printf(")\n");
        rc = EXIT_OK;
    } else {
        struct strbuf sb;
        sb_init(&sb);
        format_id_list(&sb, res.ids, res.n_ids);
        const char *ext = a.o.svg ? ".svg" : ".png";
        printf("%s/index.html: %zu chart%s of run%s %s (", res.dir, plot_n_charts,
               plot_n_charts == 1 ? "" : "s", res.n_ids == 1 ? "" : "s", sb.buf);
        for (size_t i = 0; i < plot_n_charts; i++)
            printf("%s%s%s", i ? ", " : "", plot_charts[i].name, ext);
        printf(")\n");
        sb_deinit(&sb);
        rc = EXIT_OK;
    }
    plot_result_deinit(&res);
    plot_args_deinit(&a);
    return rc;
}
