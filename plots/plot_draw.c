/*
 * plot_draw.c — the drawing driver: from a results database to a folder
 * of charts and an index, usable without the command line (plot.h,
 * plot_draw()).
 *
 * Order of work, so that every input error is found before anything is
 * written:
 *
 *   open_db       the database (read-only; PLOT_BAD_INPUT when it is not
 *                 ringsim's or holds no runs)
 *   choose_sweep  whether to draw a sweep (the options say so, or the runs
 *                 look like one: plot_looks_like_sweep): its report
 *                 (output/report.h) and layout (plot_sweep.c); then
 *                 draw_sweep does the rest, in the order below
 *   choose_runs   which runs to draw (PLOT_BAD_INPUT when it lacks a run
 *                 asked for)
 *   load          the runs, their labels and events (PLOT_BAD_INPUT when
 *                 none recorded a tick: nothing to draw, as report finds no
 *                 complete run to count)
 *   find_tools    gnuplot and the chart scripts (PLOT_FAILED when missing)
 *   write_inputs  DIR and DIR/data, the data files and the text of
 *                 index.html: the last reads, after which the read
 *                 transaction ends (a run being recorded into the file is
 *                 not held up while gnuplot draws)
 *   draw_charts   one gnuplot per chart
 *   write index   DIR/index.html, once every chart is drawn
 *
 * The database is never written (plot_data.c and report.c open it with
 * SQLITE_OPEN_READONLY). What gnuplot is given: `-e "svg=N; levels=N;
 * ej=N; out='../NAME.EXT'"` (a sweep: `-e "svg=N; m=N;
 * out='../sweep-METRIC.EXT'"`, METRIC a summary column name), numbers and
 * a file name made here, and the script's path; it runs in DIR/data.
 * Everything from the scenario is in the data files.
 */
#include "plots/plot.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "output/report.h"
#include "output/results.h"

/* One plot_draw() call as it goes. */
struct draw {
    const struct plot_options *o;
    struct plot_result *res;
    struct plot_set *ps;
    int64_t *all;         /* every run id of the database */
    size_t n_all;
    char *gnuplot, *scripts, *datadir, *page;
    const char *ext;      /* ".png" or ".svg" */
    struct report *report;   /* a sweep: its statistics, */
    struct plot_sweep *sweep; /*  laid out; else both NULL */
    bool indexed;         /* DIR/index.html is written */
};

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


/* Whether gnuplot wrote the whole image at path: 0, or -1 with "gnuplot
 * SCRIPT exited but ..." in err, the part of an image removed. An image is
 * whole when it ends as its format does (a PNG with its IEND chunk, an SVG
 * with </svg>): gnuplot exits 0 even when the disk filled up under it. */
static int check_image(const char *script, const char *path, char *err, size_t errlen)
{
    static const unsigned char png_end[8] = {'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    struct stat st;
    unsigned char tail[64];
    size_t n = 0;
    FILE *f = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
    if (f) {
        if (st.st_size > (off_t)sizeof tail)
            fseek(f, -(long)sizeof tail, SEEK_END);
        n = fread(tail, 1, sizeof tail, f);
        fclose(f);
    }
    bool png = strlen(path) > 4 && !strcmp(path + strlen(path) - 4, ".png");
    while (!png && n && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        n--;
    bool whole = png ? n >= 8 && !memcmp(tail + n - 8, png_end, 8)
                     : n >= 6 && !memcmp(tail + n - 6, "</svg>", 6);
    if (whole)
        return 0;
    struct statvfs v;
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    bool full = statvfs(slash ? dir : ".", &v) == 0 && v.f_bavail == 0;
    free(dir);
    if (!f || st.st_size == 0)
        snprintf(err, errlen, "gnuplot %s exited but wrote no %s%s", script, path,
                 full ? " (the disk is full)" : "");
    else
        snprintf(err, errlen, "gnuplot %s exited but %s was cut short (%lld bytes, removed)%s",
                 script, path, (long long)st.st_size, full ? ": the disk is full" : "");
    remove(path);
    return -1;
}

static bool stopped(const struct draw *d)
{
    return d->o->stop && *d->o->stop;
}

/* SQLite's progress handler: nonzero interrupts the read running. */
static int stop_requested(void *flag)
{
    return *(const volatile sig_atomic_t *)flag != 0;
}

/* The database, checked, and its run ids. */
static enum plot_status open_db(struct draw *d, char *err, size_t errlen)
{
    const struct plot_options *o = d->o;
    /* a file that is missing, unreadable or not ringsim's is bad input; a
     * lock held too long or an I/O error not */
    bool input_fault;
    d->ps = plot_set_open(o->db, &input_fault, err, errlen);
    if (!d->ps)
        return input_fault ? PLOT_BAD_INPUT : PLOT_FAILED;
    if (o->stop) /* every 1000 virtual machine instructions */
        sqlite3_progress_handler(d->ps->db, 1000, stop_requested, (void *)(uintptr_t)o->stop);
    d->ps->svg = o->svg;
    if (plot_set_run_ids(d->ps, &d->all, &d->n_all, err, errlen))
        return PLOT_FAILED;
    if (d->n_all == 0) {
        snprintf(err, errlen, "%s holds no runs; record one with: ringsim run SCENARIO.yaml -o %s",
                 o->db, o->db);
        return PLOT_BAD_INPUT;
    }
    return PLOT_DRAWN;
}

static bool sweep_asked(const struct plot_options *o)
{
    return o->sweep || o->n_by || o->n_metrics;
}

/* Whether to draw a sweep: when asked (then every error is the user's to
 * see), or, without --run, when the runs look like one (then a database
 * that cannot make a report is drawn over time, as before, and so are runs
 * that repeat no combination when no chart can hold their parameters).
 * Sets d->report and d->sweep when it is one. */
static enum plot_status choose_sweep(struct draw *d, char *err, size_t errlen)
{
    const struct plot_options *o = d->o;
    bool asked = sweep_asked(o);
    if (o->n_runs) {
        if (asked) {
            snprintf(err, errlen, "--run draws runs over time, --sweep, --by and --metric draw "
                                  "a sweep: give one or the other");
            return PLOT_BAD_INPUT;
        }
        return PLOT_DRAWN;
    }
    struct report_options ro = {.db = o->db, .by = o->by, .n_by = o->n_by,
                                .metrics = o->metrics, .n_metrics = o->n_metrics};
    char rerr[MSG_MAX];
    enum report_status rs = report_load(&ro, &d->report, rerr, sizeof rerr);
    if (rs != REPORT_OK) {
        if (!asked)
            return PLOT_DRAWN;
        snprintf(err, errlen, "%s", rerr);
        return rs == REPORT_BAD_INPUT ? PLOT_BAD_INPUT : PLOT_FAILED;
    }
    const struct report *r = d->report;
    size_t largest = 0;
    for (size_t g = 0; g < r->n_groups; g++)
        largest = MAX(largest, r->groups[g].n_runs);
    if (!asked && !plot_looks_like_sweep(r->n_runs, r->n_by, r->n_groups, largest)) {
        report_destroy(d->report);
        d->report = NULL;
        return PLOT_DRAWN;
    }
    d->sweep = plot_sweep_create(r, err, errlen);
    if (!d->sweep && !asked && largest < 2) {
        /* many runs, each its own combination of several parameters: not
         * clearly a sweep, so drawn over time as before, saying why */
        diag_add(&d->res->notes, "%s; drawn over time", err);
        report_destroy(d->report);
        d->report = NULL;
        return PLOT_DRAWN;
    }
    if (!d->sweep)
        return PLOT_BAD_INPUT;
    for (size_t i = 0; i < r->notes.n; i++)
        diag_add(&d->res->notes, "%s", r->notes.msgs[i]);
    if (!asked)
        diag_add(&d->res->notes, "%s: %zu runs in %zu combinations: drawn as a sweep (--run "
                                 "ID,... draws runs over time)", o->db, r->n_runs, r->n_groups);
    return PLOT_DRAWN;
}

/* The ids to draw: those asked for (each must exist; at most
 * PLOT_MAX_RUNS), else every run, or the last PLOT_DEFAULT_RUNS. */
static enum plot_status choose_runs(struct draw *d, char *err, size_t errlen)
{
    const struct plot_options *o = d->o;
    struct plot_result *res = d->res;
    const int64_t *ids = d->all;
    size_t n = d->n_all;
    if (o->n_runs) {
        for (size_t i = 0; i < o->n_runs; i++) {
            bool found = false;
            for (size_t j = 0; j < d->n_all && !found; j++)
                found = d->all[j] == o->runs[i];
            if (!found) {
                struct strbuf sb;
                sb_init(&sb);
                format_id_list(&sb, d->all, d->n_all);
                snprintf(err, errlen, "%s has no run %lld (its runs: %s)", o->db,
                         (long long)o->runs[i], sb.buf);
                sb_deinit(&sb);
                return PLOT_BAD_INPUT;
            }
        }
        if (o->n_runs > PLOT_MAX_RUNS) {
            snprintf(err, errlen, "%zu runs asked for; one chart holds at most %d (choose "
                                  "fewer with --run)", o->n_runs, PLOT_MAX_RUNS);
            return PLOT_BAD_INPUT;
        }
        ids = o->runs;
        n = o->n_runs;
    } else if (d->n_all > PLOT_DEFAULT_RUNS) {
        ids = d->all + (d->n_all - PLOT_DEFAULT_RUNS);
        n = PLOT_DEFAULT_RUNS;
        struct strbuf sb;
        sb_init(&sb);
        format_id_list(&sb, ids, n);
        diag_add(&res->notes, "%s holds %zu runs; drawing the last %d (%s); choose others "
                              "with --run", o->db, d->n_all, PLOT_DEFAULT_RUNS, sb.buf);
        sb_deinit(&sb);
    }
    res->ids = xcalloc(n, sizeof(*res->ids));
    memcpy(res->ids, ids, n * sizeof(*ids));
    res->n_ids = n;
    return PLOT_DRAWN;
}

/* The runs, their labels and events; fails when none recorded a tick. */
static enum plot_status load(struct draw *d, char *err, size_t errlen)
{
    struct diag warn;
    diag_init(&warn);
    int rc = plot_set_load(d->ps, d->res->ids, d->res->n_ids, &warn, err, errlen);
    for (size_t i = 0; i < warn.n; i++)
        diag_add(&d->res->notes, "warning: %s", warn.msgs[i]);
    diag_deinit(&warn);
    if (rc)
        return PLOT_FAILED;
    size_t with_ticks = 0;
    for (size_t k = 0; k < d->ps->n_runs; k++)
        with_ticks += d->ps->runs[k].n_ticks > 0;
    if (!with_ticks) {
        snprintf(err, errlen, "%s: the run%s asked for recorded no ticks; nothing to draw",
                 d->o->db, d->ps->n_runs == 1 ? "" : "s");
        return PLOT_BAD_INPUT;
    }
    return PLOT_DRAWN;
}

static enum plot_status find_tools(struct draw *d, char *err, size_t errlen)
{
    d->gnuplot = gnuplot_find(err, errlen);
    if (!d->gnuplot)
        return PLOT_FAILED;
    d->scripts = plot_scripts_dir(err, errlen);
    return d->scripts ? PLOT_DRAWN : PLOT_FAILED;
}

/* Removes the index.html of an earlier drawing in DIR, before its charts
 * are redrawn: a drawing that stops halfway (a signal, a full disk) leaves
 * no index.html that shows old charts beside new ones. */
static void forget_index(const struct draw *d)
{
    char *index = xasprintf("%s/index.html", d->res->dir);
    remove(index);
    free(index);
}

/* DIR, DIR/data, the data files and the text of index.html; then the
 * read transaction ends. */
static enum plot_status write_inputs(struct draw *d, char *err, size_t errlen)
{
    d->res->dir = d->o->dir ? xstrdup(d->o->dir) : default_dir(d->o->db);
    d->datadir = xasprintf("%s/data", d->res->dir);
    if (make_dirs(d->datadir, err, errlen))
        return PLOT_FAILED;
    forget_index(d);
    if (plot_write_data(d->ps, d->datadir, err, errlen)
        || !(d->page = plot_html(d->ps, d->ext, err, errlen)))
        return PLOT_FAILED;
    plot_set_end_read(d->ps);
    return PLOT_DRAWN;
}

/* One gnuplot per chart; each must write its image. */
static enum plot_status draw_charts(struct draw *d, char *err, size_t errlen)
{
    const struct plot_set *ps = d->ps;
    for (size_t i = 0; i < plot_n_charts && !stopped(d); i++) {
        const char *name = plot_charts[i].name;
        char *script = xasprintf("%s/%s.gp", d->scripts, name);
        char *vars = xasprintf("svg=%d; levels=%d; ej=%d; out='../%s%s'", ps->svg ? 1 : 0,
                               ps->levels, ps->n_ejections + ps->n_cascades ? 1 : 0, name,
                               d->ext);
        char *image = xasprintf("%s/%s%s", d->res->dir, name, d->ext);
        remove(image);
        int bad = gnuplot_run(d->gnuplot, d->datadir, vars, script, d->o->stop, err, errlen);
        if (stopped(d)) {
            remove(image); /* gnuplot stopped while drawing it: a part of an image */
        } else if (!bad) {
            bad = check_image(script, image, err, errlen) != 0;
        }
        free(script);
        free(vars);
        free(image);
        if (bad)
            return PLOT_FAILED;
    }
    return PLOT_DRAWN;
}

/* A sweep, once chosen: the tools, DIR and its data files, one gnuplot
 * per metric (sweep_lines.gp for one parameter, sweep_heatmap.gp for two),
 * then index.html. */
static enum plot_status draw_sweep(struct draw *d, char *err, size_t errlen)
{
    const struct report *r = d->report;
    struct plot_result *res = d->res;
    res->sweep = true;
    res->n_groups = r->n_groups;
    res->ids = xcalloc(r->n_runs + 1, sizeof(*res->ids));
    for (size_t k = 0; k < r->n_runs; k++)
        res->ids[k] = r->runs[k].run_id;
    res->n_ids = r->n_runs;
    res->by = xcalloc(r->n_by + 1, sizeof(*res->by));
    for (size_t b = 0; b < r->n_by; b++)
        res->by[b] = xstrdup(r->by[b]);
    res->n_by = r->n_by;
    plot_set_end_read(d->ps);
    enum plot_status st = find_tools(d, err, errlen);
    if (st != PLOT_DRAWN)
        return st;
    res->dir = d->o->dir ? xstrdup(d->o->dir) : default_dir(d->o->db);
    d->datadir = xasprintf("%s/data", res->dir);
    if (make_dirs(d->datadir, err, errlen))
        return PLOT_FAILED;
    forget_index(d);
    if (plot_sweep_write_data(d->sweep, d->datadir, err, errlen))
        return PLOT_FAILED;
    const char *script_name = d->sweep->n_axes == 1 ? "sweep_lines" : "sweep_heatmap";
    char *script = xasprintf("%s/%s.gp", d->scripts, script_name);
    res->charts = xcalloc(r->n_metrics + 1, sizeof(*res->charts));
    for (size_t m = 0; m < r->n_metrics && st == PLOT_DRAWN && !stopped(d); m++) {
        char *chart = xasprintf("sweep-%s%s", r->metrics[m].name, d->ext);
        res->charts[res->n_charts++] = chart;
        char *vars = xasprintf("svg=%d; m=%zu; out='../%s'", d->o->svg ? 1 : 0, m + 1, chart);
        char *image = xasprintf("%s/%s", res->dir, chart);
        remove(image);
        if (gnuplot_run(d->gnuplot, d->datadir, vars, script, d->o->stop, err, errlen)) {
            st = PLOT_FAILED;
            if (stopped(d))
                remove(image); /* stopped while drawing it: a part of an image */
        } else if (check_image(script, image, err, errlen)) {
            st = PLOT_FAILED;
        }
        free(vars);
        free(image);
    }
    free(script);
    if (st != PLOT_DRAWN || stopped(d))
        return PLOT_FAILED;
    d->page = plot_sweep_html(d->sweep, d->ext);
    if (plot_write_file(res->dir, "index.html", d->page, strlen(d->page), err, errlen))
        return PLOT_FAILED;
    d->indexed = true;
    return PLOT_DRAWN;
}

enum plot_status plot_draw(const struct plot_options *o, struct plot_result *res, char *err,
                           size_t errlen)
{
    memset(res, 0, sizeof(*res));
    diag_init(&res->notes);
    struct draw d = {.o = o, .res = res, .ext = o->svg ? ".svg" : ".png"};
    enum plot_status st = open_db(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = choose_sweep(&d, err, errlen);
    if (st == PLOT_DRAWN && d.sweep) {
        st = draw_sweep(&d, err, errlen);
        goto out;
    }
    if (st == PLOT_DRAWN)
        st = choose_runs(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = load(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = find_tools(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = write_inputs(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = draw_charts(&d, err, errlen);
    if (st == PLOT_DRAWN && !stopped(&d)) {
        if (plot_write_file(res->dir, "index.html", d.page, strlen(d.page), err, errlen))
            st = PLOT_FAILED;
        else
            d.indexed = true;
    }
out:
    /* a read that failed for the file's sake (damaged, not ringsim's) */
    if (st == PLOT_FAILED && d.ps && d.ps->input_fault)
        st = PLOT_BAD_INPUT;
    /* a signal before index.html was written: whatever failed with it (a
     * read cut short, gnuplot stopped) is the interruption */
    if (stopped(&d) && !d.indexed) {
        st = PLOT_FAILED;
        if (res->dir)
            snprintf(err, errlen, "interrupted; %s holds only the charts drawn before, and "
                                  "index.html was not written", res->dir);
        else
            snprintf(err, errlen, "interrupted; nothing was written");
    }
    plot_sweep_destroy(d.sweep);
    report_destroy(d.report);
    plot_set_destroy(d.ps);
    free(d.all);
    free(d.gnuplot);
    free(d.scripts);
    free(d.datadir);
    free(d.page);
    return st;
}

void plot_result_deinit(struct plot_result *res)
{
    free(res->dir);
    free(res->ids);
    diag_deinit(&res->notes);
    for (size_t i = 0; i < res->n_by; i++)
        free(res->by[i]);
    free(res->by);
    for (size_t i = 0; i < res->n_charts; i++)
        free(res->charts[i]);
    free(res->charts);
    memset(res, 0, sizeof(*res));
}
