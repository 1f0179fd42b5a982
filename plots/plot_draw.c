/*
 * plot_draw.c — the drawing driver: from a results database to a folder
 * of charts and an index, usable without the command line (plot.h,
 * plot_draw()).
 *
 * Order of work, so that every input error is found before anything is
 * written:
 *
 *   choose_runs   the database (read-only; PLOT_BAD_INPUT when it is not
 *                 ringsim's, holds no runs or lacks a run asked for) and
 *                 which runs to draw
 *   load          the runs, their labels and events (PLOT_FAILED when none
 *                 recorded a tick)
 *   find_tools    gnuplot and the chart scripts (PLOT_FAILED when missing)
 *   write_inputs  DIR and DIR/data, the data files and the text of
 *                 index.html: the last reads, after which the read
 *                 transaction ends (a run being recorded into the file is
 *                 not held up while gnuplot draws)
 *   draw_charts   one gnuplot per chart
 *   write index   DIR/index.html, once every chart is drawn
 *
 * The database is never written (plot_data.c opens it with
 * SQLITE_OPEN_READONLY). What gnuplot is given: `-e "svg=N; levels=N;
 * ej=N; out='../NAME.EXT'"` (numbers and a file name made here) and the
 * script's path; it runs in DIR/data. Everything from the scenario is in
 * the data files.
 */
#include "plots/plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One plot_draw() call as it goes. */
struct draw {
    const struct plot_options *o;
    struct plot_result *res;
    struct plot_set *ps;
    int64_t *all;         /* every run id of the database */
    size_t n_all;
    char *gnuplot, *scripts, *datadir, *page;
    const char *ext;      /* ".png" or ".svg" */
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


static bool file_nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* The ids to draw: those asked for (each must exist; at most
 * PLOT_MAX_RUNS), else every run, or the last PLOT_DEFAULT_RUNS. */
static enum plot_status choose_runs(struct draw *d, char *err, size_t errlen)
{
    const struct plot_options *o = d->o;
    struct plot_result *res = d->res;
    d->ps = plot_set_open(o->db, err, errlen);
    if (!d->ps)
        return PLOT_BAD_INPUT;
    d->ps->svg = o->svg;
    if (plot_set_run_ids(d->ps, &d->all, &d->n_all, err, errlen))
        return PLOT_FAILED;
    if (d->n_all == 0) {
        snprintf(err, errlen, "%s holds no runs; record one with: ringsim run SCENARIO.yaml -o %s",
                 o->db, o->db);
        return PLOT_BAD_INPUT;
    }
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
        return PLOT_FAILED;
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

/* DIR, DIR/data, the data files and the text of index.html; then the
 * read transaction ends. */
static enum plot_status write_inputs(struct draw *d, char *err, size_t errlen)
{
    d->res->dir = d->o->dir ? xstrdup(d->o->dir) : default_dir(d->o->db);
    d->datadir = xasprintf("%s/data", d->res->dir);
    if (make_dirs(d->datadir, err, errlen) || plot_write_data(d->ps, d->datadir, err, errlen)
        || !(d->page = plot_html(d->ps, d->ext, err, errlen)))
        return PLOT_FAILED;
    plot_set_end_read(d->ps);
    return PLOT_DRAWN;
}

/* One gnuplot per chart; each must write its image. */
static enum plot_status draw_charts(struct draw *d, char *err, size_t errlen)
{
    const struct plot_set *ps = d->ps;
    for (size_t i = 0; i < plot_n_charts; i++) {
        const char *name = plot_charts[i].name;
        char *script = xasprintf("%s/%s.gp", d->scripts, name);
        char *vars = xasprintf("svg=%d; levels=%d; ej=%d; out='../%s%s'", ps->svg ? 1 : 0,
                               ps->levels, ps->n_ejections + ps->n_cascades ? 1 : 0, name,
                               d->ext);
        char *image = xasprintf("%s/%s%s", d->res->dir, name, d->ext);
        remove(image);
        int bad = gnuplot_run(d->gnuplot, d->datadir, vars, script, err, errlen);
        if (!bad && !file_nonempty(image)) {
            snprintf(err, errlen, "gnuplot %s exited but wrote no %s", script, image);
            bad = 1;
        }
        free(script);
        free(vars);
        free(image);
        if (bad)
            return PLOT_FAILED;
    }
    return PLOT_DRAWN;
}

enum plot_status plot_draw(const struct plot_options *o, struct plot_result *res, char *err,
                           size_t errlen)
{
    memset(res, 0, sizeof(*res));
    diag_init(&res->notes);
    struct draw d = {.o = o, .res = res, .ext = o->svg ? ".svg" : ".png"};
    enum plot_status st = choose_runs(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = load(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = find_tools(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = write_inputs(&d, err, errlen);
    if (st == PLOT_DRAWN)
        st = draw_charts(&d, err, errlen);
    if (st == PLOT_DRAWN
        && plot_write_file(res->dir, "index.html", d.page, strlen(d.page), err, errlen))
        st = PLOT_FAILED;
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
    memset(res, 0, sizeof(*res));
}
