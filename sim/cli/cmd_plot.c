/*
 * plot.c — `ringsim plot DB [--run ID[,ID...]] [-d DIR] [--format png|svg]`:
 * charts of the runs in a results database, and an HTML index.
 *
 * Order of work, so that every input error is found before anything is
 * written: arguments -> the database (read-only; exit 2 when it is not
 * ringsim's, holds no runs or lacks a run asked for) -> gnuplot and the
 * chart scripts (exit 1 when missing) -> DIR and DIR/data -> the data
 * files and the text of index.html, the last reads, after which the read
 * transaction ends (a run being recorded into the file is not held up while
 * gnuplot draws) -> one gnuplot per chart -> index.html, written once every
 * chart is. The database is never written (plot_data.c opens it with
 * SQLITE_OPEN_READONLY).
 *
 * What gnuplot is given: `-e "svg=N; levels=N; ej=N; out='../NAME.EXT'"`
 * (numbers and a file name made here) and the script's path; it runs in
 * DIR/data. Everything from the scenario is in the data files.
 */
#include "plots/plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cli/cli.h"

static const char *usage_line = "usage: ringsim plot DB [--run ID[,ID...]] [-d DIR] [--format png|svg]";

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
            "  --run ID[,ID...]  the runs to draw: ids and ranges (1,3 or 2-5); repeatable.\n"
            "                    Default: every run, or the last %d when there are more\n"
            "  -d, --dir DIR     where to write (default: results/plots/<DB name without .db>/)\n"
            "  --format F        png (the default; 1100 px wide) or svg\n"
            "  -h, --help        this text\n"
            "\n"
            "examples:\n"
            "  ringsim run scenarios/scale_out_3_to_4.yaml -o results/so.db\n"
            "  ringsim run scenarios/scale_out_3_to_4.yaml -o results/so.db --set routing.algorithm=mod\n"
            "  ringsim plot results/so.db                 # both runs, ring against mod\n"
            "  ringsim plot results/so.db --run 2 -d /tmp/mod --format svg\n"
            "\n"
            "environment:\n"
            "  RINGSIM_GNUPLOT  the gnuplot program (default: gnuplot from PATH;\n"
            "                   Debian/Ubuntu: apt-get install gnuplot-nox)\n"
            "  RINGSIM_PLOTS    the folder of the chart scripts (default: plots/ next to the\n"
            "                   binary, then ../share/ringsim/plots from it)\n"
            "\n"
            "The database is opened read-only. Exit status: 0 drawn; 1 gnuplot is missing or\n"
            "failed, or DIR cannot be written; 2 bad usage, a file that is not a ringsim\n"
            "database, a database without runs, or an unknown run id. The charts and the\n"
            "data files are described in plots/README.md.\n",
            usage_line, PLOT_DEFAULT_RUNS);
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "ringsim plot: %s%s%s\n%s  (ringsim plot --help)\n", msg, arg ? " " : "",
            arg ? arg : "", usage_line);
    return EXIT_USAGE;
}

/* mkdir -p: creates path and its missing parents. */
static int make_dirs(const char *path, char *err, size_t errlen)
{
    char *p = xstrdup(path);
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat st;
        if (mkdir(p, 0777) && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create: %s", p, strerror(errno));
            rc = -1;
        } else if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: exists and is not a folder", p);
            rc = -1;
        }
        *s = c;
        if (rc || c == '\0')
            break;
    }
    free(p);
    return rc;
}

/* results/plots/<base name of db without .db> */
static char *default_dir(const char *db)
{
    const char *base = strrchr(db, '/');
    base = base ? base + 1 : db;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".db"))
        n -= 3;
    return xasprintf("results/plots/%.*s", (int)n, base);
}

static int write_text(const char *dir, const char *name, const char *text, char *err,
                      size_t errlen)
{
    char *path = xasprintf("%s/%s", dir, name);
    size_t len = strlen(text);
    FILE *f = fopen(path, "w");
    int rc = -1;
    if (!f || fwrite(text, 1, len, f) != len) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        if (f)
            fclose(f);
    } else if (fclose(f)) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    } else {
        rc = 0;
    }
    free(path);
    return rc;
}

static bool file_nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

int cmd_plot(int argc, char **argv)
{
    const char *db = NULL, *dir_arg = NULL;
    bool svg = false;
    int64_t *want = NULL, *all = NULL, *ids = NULL;
    size_t n_want = 0, n_all = 0, n_ids = 0;
    char err[4096];
    char *gnuplot = NULL, *scripts = NULL, *dir = NULL, *datadir = NULL, *page = NULL;
    struct plot_set *ps = NULL;
    struct diag warn;
    int rc = EXIT_USAGE;

    diag_init(&warn);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = EXIT_OK;
            goto out;
        }
        const char *opts[] = {"--run", "-d", "--dir", "--format"};
        const char *opt = NULL;
        for (size_t j = 0; j < ARRAY_LEN(opts) && !opt; j++) {
            size_t n = strlen(opts[j]);
            if (!strcmp(a, opts[j])) {
                if (i + 1 >= argc) {
                    rc = usage_error("missing value after", a);
                    goto out;
                }
                opt = opts[j];
                val = argv[++i];
            } else if (!strncmp(a, opts[j], n) && a[n] == '=' && opts[j][1] == '-') {
                opt = opts[j];
                val = a + n + 1;
            }
        }
        if (!opt && a[0] == '-' && a[1]) {
            rc = usage_error("unknown option", a);
            goto out;
        }
        if (!opt) {
            if (db) {
                rc = usage_error("more than one database:", a);
                goto out;
            }
            db = a;
        } else if (!strcmp(opt, "--run")) {
            if (parse_run_list(val, &want, &n_want, err, sizeof err)) {
                rc = usage_error(err, NULL);
                goto out;
            }
        } else if (!strcmp(opt, "--format")) {
            if (strcmp(val, "png") && strcmp(val, "svg")) {
                rc = usage_error("--format: expected png or svg, got", val);
                goto out;
            }
            svg = !strcmp(val, "svg");
        } else {
            if (!*val) {
                rc = usage_error("-d needs a folder", NULL);
                goto out;
            }
            dir_arg = val;
        }
    }
    if (!db) {
        rc = usage_error("which database? e.g. ringsim plot results/scale-out-3-to-4.db", NULL);
        goto out;
    }

    /* the database and the runs */
    ps = plot_set_open(db, err, sizeof err);
    if (!ps) {
        fprintf(stderr, "ringsim plot: %s\n", err);
        goto out;
    }
    ps->svg = svg;
    if (plot_set_run_ids(ps, &all, &n_all, err, sizeof err)) {
        fprintf(stderr, "ringsim plot: %s\n", err);
        rc = EXIT_RUN_FAILED;
        goto out;
    }
    if (n_all == 0) {
        fprintf(stderr, "ringsim plot: %s holds no runs; record one with: ringsim run "
                        "SCENARIO.yaml -o %s\n", db, db);
        goto out;
    }
    if (n_want) {
        for (size_t i = 0; i < n_want; i++) {
            bool found = false;
            for (size_t j = 0; j < n_all && !found; j++)
                found = all[j] == want[i];
            if (!found) {
                struct strbuf sb;
                sb_init(&sb);
                format_id_list(&sb, all, n_all);
                fprintf(stderr, "ringsim plot: %s has no run %lld (its runs: %s)\n", db,
                        (long long)want[i], sb.buf);
                sb_deinit(&sb);
                goto out;
            }
        }
        if (n_want > PLOT_MAX_RUNS) {
            fprintf(stderr, "ringsim plot: %zu runs asked for; one chart holds at most %d "
                            "(choose fewer with --run)\n", n_want, PLOT_MAX_RUNS);
            goto out;
        }
        ids = want;
        n_ids = n_want;
    } else if (n_all > PLOT_DEFAULT_RUNS) {
        ids = all + (n_all - PLOT_DEFAULT_RUNS);
        n_ids = PLOT_DEFAULT_RUNS;
        struct strbuf sb;
        sb_init(&sb);
        format_id_list(&sb, ids, n_ids);
        fprintf(stderr, "ringsim plot: %s holds %zu runs; drawing the last %d (%s); choose "
                        "others with --run\n", db, n_all, PLOT_DEFAULT_RUNS, sb.buf);
        sb_deinit(&sb);
    } else {
        ids = all;
        n_ids = n_all;
    }
    if (plot_set_load(ps, ids, n_ids, &warn, err, sizeof err)) {
        fprintf(stderr, "ringsim plot: %s\n", err);
        rc = EXIT_RUN_FAILED;
        goto out;
    }
    for (size_t i = 0; i < warn.n; i++)
        fprintf(stderr, "ringsim plot: warning: %s\n", warn.msgs[i]);
    size_t with_ticks = 0;
    for (size_t k = 0; k < ps->n_runs; k++)
        with_ticks += ps->runs[k].n_ticks > 0;
    if (!with_ticks) {
        fprintf(stderr, "ringsim plot: %s: the run%s asked for recorded no ticks; nothing to "
                        "draw\n", db, ps->n_runs == 1 ? "" : "s");
        rc = EXIT_RUN_FAILED;
        goto out;
    }

    /* gnuplot and its scripts */
    rc = EXIT_RUN_FAILED;
    gnuplot = gnuplot_find(err, sizeof err);
    if (!gnuplot) {
        fprintf(stderr, "ringsim plot: %s\n", err);
        goto out;
    }
    scripts = plot_scripts_dir(err, sizeof err);
    if (!scripts) {
        fprintf(stderr, "ringsim plot: %s\n", err);
        goto out;
    }

    /* the output */
    const char *ext = svg ? ".svg" : ".png";
    dir = dir_arg ? xstrdup(dir_arg) : default_dir(db);
    datadir = xasprintf("%s/data", dir);
    if (make_dirs(datadir, err, sizeof err) || plot_write_data(ps, datadir, err, sizeof err)
        || !(page = plot_html(ps, ext, err, sizeof err))) {
        fprintf(stderr, "ringsim plot: %s\n", err);
        goto out;
    }
    plot_set_end_read(ps);
    for (size_t i = 0; i < plot_n_charts; i++) {
        const char *name = plot_charts[i].name;
        char *script = xasprintf("%s/%s.gp", scripts, name);
        char *vars = xasprintf("svg=%d; levels=%d; ej=%d; out='../%s%s'", svg ? 1 : 0, ps->levels,
                               ps->n_ejections + ps->n_cascades ? 1 : 0, name, ext);
        char *image = xasprintf("%s/%s%s", dir, name, ext);
        remove(image);
        int bad = gnuplot_run(gnuplot, datadir, vars, script, err, sizeof err);
        if (!bad && !file_nonempty(image)) {
            snprintf(err, sizeof err, "gnuplot %s exited but wrote no %s", script, image);
            bad = 1;
        }
        free(script);
        free(vars);
        free(image);
        if (bad) {
            fprintf(stderr, "ringsim plot: %s\n", err);
            goto out;
        }
    }
    if (write_text(dir, "index.html", page, err, sizeof err)) {
        fprintf(stderr, "ringsim plot: %s\n", err);
        goto out;
    }
    {
        struct strbuf sb;
        sb_init(&sb);
        format_id_list(&sb, ids, n_ids);
        printf("%s/index.html: %zu chart%s of run%s %s (", dir, plot_n_charts,
               plot_n_charts == 1 ? "" : "s", n_ids == 1 ? "" : "s", sb.buf);
        for (size_t i = 0; i < plot_n_charts; i++)
            printf("%s%s%s", i ? ", " : "", plot_charts[i].name, ext);
        printf(")\n");
        sb_deinit(&sb);
    }
    rc = EXIT_OK;
out:
    plot_set_destroy(ps);
    diag_deinit(&warn);
    free(want);
    free(all);
    free(gnuplot);
    free(scripts);
    free(dir);
    free(datadir);
    free(page);
    return rc;
}
