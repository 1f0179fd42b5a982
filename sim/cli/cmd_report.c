/*
 * cmd_report.c — `ringsim report DB [--by PATH]... [--metric NAME]...
 * [--baseline PATH=VALUE] [--csv|--json]`: the statistics of a results
 * database per combination of parameters. Parses the arguments, hands
 * them to report_load() (output/report.h) and prints the report; notes
 * (runs left out, parameters pooled) go to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/report.h"
#include "sim/cli/cli.h"
#include "sim/cli/cmdline.h"

static const char report_usage[] =
    "usage: ringsim report DB [--by PATH]... [--metric NAME]... [--baseline PATH=VALUE]\n"
    "                         [--csv|--json]\n"
    "\n"
    "The statistics of the runs in a results database (one from run, sweep or merge),\n"
    "per combination of parameters: the number of runs and, for each metric, the mean\n"
    "with its 95% confidence interval (Student t with runs - 1 degrees of freedom), the\n"
    "minimum and the maximum. For cascade_removals and db_overload_s also the runs in\n"
    "which they happened (\"2/4\"); a NULL value (recovery_s of a run that never\n"
    "recovered) is counted (\"never 2/4\"), not averaged. Only complete runs count.\n"
    "\n"
    "  --by PATH             a parameter that makes a combination (repeatable): runs\n"
    "                        with the same values of every --by PATH (their params rows,\n"
    "                        else their stored scenario's) form one; a value written two\n"
    "                        ways (0 and 0s, 5s and 5000ms, 100 and 1e2) is one value.\n"
    "                        Default: every parameter whose value differs between\n"
    "                        runs, except seed\n"
    "  --metric NAME         a column of the summary table (repeatable). Default:\n"
    "                        hit_rate, min_hit_rate, recovery_s, peak_backend_qps,\n"
    "                        peak_db_util, db_overload_s, cascade_removals, stale_reads,\n"
    "                        stale_overwrites, errors\n"
    "  --baseline PATH=VALUE also the difference of each combination from the one with\n"
    "                        PATH=VALUE (written any way) and the same other parameters,\n"
    "                        run by run paired by seed (common random numbers) and by\n"
    "                        the values of a pooled parameter, with its 95% CI\n"
    "  --csv                 one row per combination and metric: scenario, the --by\n"
    "                        paths, runs, metric, n, nulls, mean, ci95_lo, ci95_hi, min,\n"
    "                        max, runs_with (and diff_mean, diff_ci95_lo, diff_ci95_hi,\n"
    "                        pairs with --baseline); the database's units\n"
    "  --json                an array of objects, one per combination:\n"
    "                        {\"scenario\", \"params\":{PATH:VALUE}, \"runs\", \"seeds\",\n"
    "                        \"metrics\":{NAME:{\"mean\",\"ci95\":[lo,hi],\"min\",\"max\",\"n\",\n"
    "                        \"nulls\"[,\"diff\":{\"mean\",\"ci95\",\"pairs\"}]}},\n"
    "                        \"runs_with\":{\"cascade_removals\":k,\"db_overload_s\":k}}\n"
    "  -h, --help            this text\n"
    "  --                    the end of the options: what follows is the database, even a\n"
    "                        name that starts with -\n"
    "\n"
    "The table shows shares as % (hit rates, peak_db_util); CSV and JSON keep the\n"
    "database's units (0..1). A CI needs two runs with a value: with one it is \"-\"\n"
    "(null). Combinations are in order of each parameter's values (numbers, durations\n"
    "and sizes by magnitude, other text in byte order), and the runs of one by seed,\n"
    "then by their values, so shards merged in any order report alike, byte for byte.\n"
    "Runs of one combination that repeat a seed and its parameters (a database\n"
    "merged twice) are counted in a note on stderr; each counts as a sample.\n"
    "\n"
    "examples:\n"
    "  ringsim report results/cooldown.db\n"
    "  ringsim report results/cooldown.db --metric min_hit_rate --metric cascade_removals \\\n"
    "      --baseline health.cooldown=0s\n"
    "  ringsim report results/vnodes.db --by routing.vnodes --json | python3 -m json.tool\n"
    "\n"
    "The database is opened read-only. Exit: 0 printed; 1 an I/O error reading the\n"
    "database, another process holding it locked (past a 10 s wait), or stdout cannot\n"
    "be written; 2 bad usage, no such file, one that cannot be read (a folder, no\n"
    "permission, a name too long), a file that is not a ringsim database or is\n"
    "damaged, no complete run, an unknown metric, or a --by or --baseline no run has.\n"
    "Formats: output/README.md.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("ringsim report: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(ringsim report --help)\n", stderr);
    return EXIT_USAGE;
}

int cmd_report(int argc, char **argv)
{
    struct report_options o = {0};
    const char **by = xcalloc((size_t)argc + 1, sizeof(*by));
    const char **metrics = xcalloc((size_t)argc + 1, sizeof(*metrics));
    enum { TABLE, CSV, JSON } format = TABLE;
    int rc = -1;
    static const char *const with_value[] = {"--by", "--metric", "--baseline", NULL};
    static const char *const flags[] = {"--help", "--csv", "--json", NULL};
    bool options_ended = false; /* after "--": every argument is the database */
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i];
        if (!options_ended && !strcmp(a, "--")) {
            options_ended = true;
            continue;
        }
        if (options_ended) {
            if (o.db)
                rc = usage_error("one database at a time (got a second: %s)", a);
            o.db = a;
            continue;
        }
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        const char *inline_value = NULL;
        const char *bare = long_option_value(a, with_value, &inline_value);
        if (bare) {
            a = bare;
            next = inline_value;
        }
        const char *flag = long_option_value(a, flags, &inline_value);
        if (flag) {
            char *msg = xasprintf("%s takes no value, got %s; write %s alone", flag, a, flag);
            rc = usage_error("%s", msg);
            free(msg);
            break;
        }
        bool takes = option_in(a, with_value);
        if (takes && next && !inline_value)
            i++;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(report_usage, stdout);
            rc = EXIT_OK;
        } else if (takes && !next) {
            rc = usage_error("%s needs a value", a);
        } else if (takes && !*next) {
            rc = usage_error("%s needs a value, got \"\"", a);
        } else if (!strcmp(a, "--by")) {
            by[o.n_by++] = next;
        } else if (!strcmp(a, "--metric")) {
            metrics[o.n_metrics++] = next;
        } else if (!strcmp(a, "--baseline")) {
            if (o.baseline)
                rc = usage_error("one --baseline at a time (got a second: %s)", next);
            o.baseline = next;
        } else if (!strcmp(a, "--csv") || !strcmp(a, "--json")) {
            if (format != TABLE)
                rc = usage_error("--csv or --json, not both (%s)", a);
            format = !strcmp(a, "--csv") ? CSV : JSON;
        } else if (a[0] == '-' && a[1]) {
            rc = usage_error("unknown option %s", a);
        } else if (o.db) {
            rc = usage_error("one database at a time (got a second: %s)", a);
        } else {
            o.db = a;
        }
    }
    if (rc < 0 && !o.db)
        rc = usage_error("which database?%s", " e.g. ringsim report results/cooldown.db");
    if (rc >= 0) {
        free(by);
        free(metrics);
        return rc;
    }
    o.by = by;
    o.metrics = metrics;
    char err[MSG_MAX];
    struct report *r = NULL;
    enum report_status st = report_load(&o, &r, err, sizeof err);
    if (st != REPORT_OK) {
        fprintf(stderr, "ringsim report: %s\n", err);
        rc = st == REPORT_BAD_INPUT ? EXIT_USAGE : EXIT_RUN_FAILED;
    } else {
        for (size_t i = 0; i < r->notes.n; i++)
            fprintf(stderr, "ringsim report: %s\n", r->notes.msgs[i]);
        if (format == CSV)
            report_print_csv(r, stdout);
        else if (format == JSON)
            report_print_json(r, stdout);
        else
            report_print_table(r, stdout);
        rc = EXIT_OK;
        if (fflush(stdout) || ferror(stdout)) {
            perror("ringsim report: stdout");
            rc = EXIT_RUN_FAILED;
        }
    }
    report_destroy(r);
    free(by);
    free(metrics);
    return rc;
}
