/*
 * plot_sweep.c — a sweep drawn: the statistics `ringsim report` computes
 * (output/report.h: the runs grouped into combinations of parameters, per
 * summary metric the mean with its 95% CI, min, max and the runs in which
 * something happened) laid out against one or two parameters, written as
 * the data files of plots/sweep_lines.gp and plots/sweep_heatmap.gp, and
 * the index page (plots/README.md, "Sweeps").
 *
 * Nothing is computed twice: every number comes from the report as
 * report_load() made it, and is written in the database's units with the
 * shortest text that reads back as the same double (json_number), so a
 * data file holds exactly what `ringsim report --csv` prints.
 *
 *   one parameter   sweep-METRIC.tsv: a row per combination, x the
 *                   value's place on the axis (sweep_axis), one series per
 *                   scenario; the chart: mean, 95% CI bars, min-max band
 *   two parameters  sweep-METRIC.tsv: the whole grid, y-major (for each
 *                   y value every x value), a cell without runs NaN; the
 *                   chart: a heat map, each cell labelled
 *
 * Text from the database (parameter paths and values, scenario names)
 * goes only into the data files, through tsv_field(), and into the page,
 * through html_text(). Costs: O(groups x axes values) to lay out,
 * O(metrics x cells) to write.
 */
#include "plots/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/report.h"

/* ---- pure helpers ------------------------------------------------------------------ */

bool plot_looks_like_sweep(size_t n_runs, size_t n_by, size_t n_groups, size_t largest)
{
    return n_by > 0 && n_groups >= 2 && (largest >= 2 || n_runs > PLOT_DEFAULT_RUNS);
}

/* The magnitude of v read as kind k; -1 when it is not one. */
static int magnitude(const char *v, enum sweep_axis_kind k, double *out)
{
    double d;
    int64_t ns;
    uint64_t bytes;
    if (!v)
        return -1;
    if (k == SWEEP_NUMBER && !parse_double(v, &d))
        *out = d;
    else if (k == SWEEP_DURATION && !parse_duration(v, &ns))
        *out = (double)ns / 1e9;
    else if (k == SWEEP_SIZE && !parse_size(v, &bytes))
        *out = (double)bytes;
    else
        return -1;
    return 0;
}

enum sweep_axis_kind sweep_axis(char *const *values, size_t n, double *pos)
{
    for (enum sweep_axis_kind k = SWEEP_NUMBER; k < SWEEP_CATEGORY; k++) {
        bool all = n > 0;
        for (size_t i = 0; i < n && all; i++)
            all = !magnitude(values[i], k, &pos[i]);
        if (all)
            return k;
    }
    size_t *rank = xcalloc(n + 1, sizeof(*rank));
    report_rank_values(values, n, rank);
    for (size_t i = 0; i < n; i++)
        pos[i] = 1.0 + (double)rank[i];
    free(rank);
    return SWEEP_CATEGORY;
}

const char *sweep_axis_kind_name(enum sweep_axis_kind k)
{
    static const char *const names[] = {"number", "duration", "size", "category"};
    return names[k];
}

void sweep_cell(const struct report_metric *m, const struct metric_stats *s, double *cell,
                char *value, size_t value_len, char *note, size_t note_len)
{
    report_format_value(value, value_len, s->mean, m, m->decimals);
    note[0] = '\0';
    if (m->count_with) {
        *cell = s->runs ? 100.0 * (double)s->with / (double)s->runs : NAN;
        snprintf(note, note_len, "%zu/%zu", s->with, s->runs);
    } else {
        *cell = isnan(s->mean) ? NAN : s->mean * m->scale;
        if (s->n < s->runs)
            snprintf(note, note_len, "%s %zu/%zu", m->null_word ? m->null_word : "no value",
                     s->runs - s->n, s->runs);
    }
}

/* ---- the layout -------------------------------------------------------------------- */

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The distinct values of by-path b over the groups, in report order, and
 * each group's index among them. */
static void lay_axis(struct plot_sweep *sw, size_t b)
{
    const struct report *r = sw->r;
    struct sweep_axis_values *ax = &sw->axis[b];
    char **distinct = xcalloc(r->n_groups + 1, sizeof(*distinct));
    size_t n = 0;
    for (size_t g = 0; g < r->n_groups; g++) {
        size_t d = 0;
        while (d < n && !same_text(distinct[d], r->groups[g].values[b]))
            d++;
        if (d == n)
            distinct[n++] = r->groups[g].values[b];
    }
    size_t *rank = xcalloc(n + 1, sizeof(*rank));
    report_rank_values(distinct, n, rank);
    ax->values = xcalloc(n + 1, sizeof(*ax->values));
    for (size_t d = 0; d < n; d++)
        ax->values[rank[d]] = distinct[d];
    ax->n = n;
    ax->path = r->by[b];
    ax->pos = xcalloc(n + 1, sizeof(*ax->pos));
    ax->kind = sweep_axis(ax->values, n, ax->pos);
    sw->at[b] = xcalloc(r->n_groups + 1, sizeof(size_t));
    for (size_t g = 0; g < r->n_groups; g++) {
        size_t d = 0;
        while (!same_text(ax->values[d], r->groups[g].values[b]))
            d++;
        sw->at[b][g] = d;
    }
    free(rank);
    free(distinct);
}

static void by_list(const struct report *r, struct strbuf *sb)
{
    for (size_t b = 0; b < r->n_by; b++)
        sb_printf(sb, "%s%s", b ? ", " : "", r->by[b]);
}

struct plot_sweep *plot_sweep_create(const struct report *r, char *err, size_t errlen)
{
    if (r->n_by == 0) {
        snprintf(err, errlen, "%s: no parameter varies between its runs (but the seed); a sweep "
                              "chart draws the runs against one or two (--by PATH), or draw the "
                              "runs over time with --run", r->db_path);
        return NULL;
    }
    if (r->n_by > 2) {
        struct strbuf sb;
        sb_init(&sb);
        by_list(r, &sb);
        snprintf(err, errlen, "%s: %zu parameters vary (%s); a sweep chart draws one (error "
                              "bars) or two (a heat map): choose them with --by PATH, the "
                              "others are pooled", r->db_path, r->n_by, sb.buf);
        sb_deinit(&sb);
        return NULL;
    }
    if (r->n_by == 2 && r->names_differ) {
        snprintf(err, errlen, "%s: runs of %zu scenarios (%s, %s%s); a heat map draws one: "
                              "draw them against one parameter (--by PATH), or merge each "
                              "scenario's runs into a database of its own", r->db_path,
                 r->n_names, r->names[0], r->names[1], r->n_names > 2 ? ", ..." : "");
        return NULL;
    }
    struct plot_sweep *sw = xcalloc(1, sizeof(*sw));
    sw->r = r;
    sw->n_axes = r->n_by;
    for (size_t b = 0; b < sw->n_axes; b++)
        lay_axis(sw, b);
    sw->series = xcalloc(r->n_groups + 1, sizeof(*sw->series));
    for (size_t g = 0; g < r->n_groups; g++) {
        int i = name_index((const char *const *)r->names, r->n_names, r->groups[g].name);
        sw->series[g] = i < 0 ? 0 : (size_t)i;
    }
    return sw;
}

void plot_sweep_destroy(struct plot_sweep *sw)
{
    if (!sw)
        return;
    for (size_t b = 0; b < 2; b++) {
        free(sw->axis[b].values);
        free(sw->axis[b].pos);
        free(sw->at[b]);
    }
    free(sw->series);
    free(sw);
}

/* ---- data files -------------------------------------------------------------------- */

/* A statistic in the database's units, as `report --csv` writes it; NaN
 * for none. */
static void tsv_exact(struct strbuf *sb, double v)
{
    if (isfinite(v))
        json_number(sb, v);
    else
        sb_puts(sb, "NaN");
}

static const char *axis_unit(enum sweep_axis_kind k)
{
    return k == SWEEP_DURATION ? "s" : k == SWEEP_SIZE ? "B" : "";
}

/* One row of sweep-METRIC.tsv: group g (NULL: an empty cell of the grid). */
static void data_row(struct strbuf *sb, const struct plot_sweep *sw, size_t mi,
                     const struct report_group *g, size_t series, double x, double y,
                     const char *xv, const char *yv)
{
    const struct report_metric *m = &sw->r->metrics[mi];
    sb_printf(sb, "%zu\t%.17g\t%.17g", series + 1, x, y);
    if (g) {
        const struct metric_stats *s = &g->stats[mi];
        double cell;
        char value[48], note[48];
        sweep_cell(m, s, &cell, value, sizeof value, note, sizeof note);
        sb_printf(sb, "\t%zu\t%zu\t%zu", s->runs, s->n, s->runs - s->n);
        const double v[] = {s->mean, s->ci_lo, s->ci_hi, s->min, s->max,
                            m->count_with ? (double)s->with : NAN, cell};
        for (size_t i = 0; i < ARRAY_LEN(v); i++) {
            sb_putc(sb, '\t');
            tsv_exact(sb, v[i]);
        }
        sb_printf(sb, "\t%s\t%s\t", value, note);
    } else {
        sb_puts(sb, "\t0\t0\t0\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\t\t\t");
    }
    tsv_field(sb, xv ? xv : "(none)");
    sb_putc(sb, '\t');
    if (sw->n_axes > 1)
        tsv_field(sb, yv ? yv : "(none)");
    sb_putc(sb, '\n');
}

static int write_metric(const struct plot_sweep *sw, size_t mi, const char *datadir, char *err,
                        size_t errlen)
{
    const struct report *r = sw->r;
    struct strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "series\tx\ty\truns\tn\tnulls\tmean\tci95_lo\tci95_hi\tmin\tmax\truns_with\tcell"
                 "\tvalue\tnote\txvalue\tyvalue\n");
    const struct sweep_axis_values *ax = &sw->axis[0], *ay = &sw->axis[1];
    if (sw->n_axes == 1) {
        for (size_t g = 0; g < r->n_groups; g++)
            data_row(&sb, sw, mi, &r->groups[g], sw->series[g], ax->pos[sw->at[0][g]], 0,
                     r->groups[g].values[0], NULL);
    } else {
        /* the grid, y-major; each cell its group or none */
        for (size_t j = 0; j < ay->n; j++)
            for (size_t i = 0; i < ax->n; i++) {
                const struct report_group *cell = NULL;
                for (size_t g = 0; g < r->n_groups && !cell; g++)
                    if (sw->at[0][g] == i && sw->at[1][g] == j)
                        cell = &r->groups[g];
                data_row(&sb, sw, mi, cell, 0, (double)i, (double)j, ax->values[i],
                         ay->values[j]);
            }
    }
    char *name = xasprintf("sweep-%s.tsv", r->metrics[mi].name);
    int rc = plot_write_file(datadir, name, sb.buf, sb.len, err, errlen);
    free(name);
    sb_deinit(&sb);
    return rc;
}

int plot_sweep_write_data(const struct plot_sweep *sw, const char *datadir, char *err,
                          size_t errlen)
{
    const struct report *r = sw->r;
    struct strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "metric_no\tmetric\tscale\tunit\tcount_with\tbetter\ttitle\n");
    for (size_t m = 0; m < r->n_metrics; m++) {
        const struct report_metric *rm = &r->metrics[m];
        sb_printf(&sb, "%zu\t%s\t%g\t%s\t%d\t%d\t", m + 1, rm->name, rm->scale, rm->unit,
                  rm->count_with ? 1 : 0, rm->better);
        tsv_field(&sb, plot_metric_title(rm->name));
        sb_putc(&sb, '\n');
    }
    int rc = plot_write_file(datadir, "sweep-metrics.tsv", sb.buf, sb.len, err, errlen);
    sb.len = 0;
    sb.buf[0] = '\0';
    sb_puts(&sb, "axis\tkind\tunit\tvalues\tpath\n");
    for (size_t b = 0; b < sw->n_axes; b++) {
        const struct sweep_axis_values *ax = &sw->axis[b];
        sb_printf(&sb, "%s\t%s\t%s\t%zu\t", b ? "y" : "x", sweep_axis_kind_name(ax->kind),
                  axis_unit(ax->kind), ax->n);
        tsv_field(&sb, ax->path);
        sb_putc(&sb, '\n');
    }
    if (!rc)
        rc = plot_write_file(datadir, "sweep-axes.tsv", sb.buf, sb.len, err, errlen);
    sb.len = 0;
    sb.buf[0] = '\0';
    sb_puts(&sb, "series\truns\tscenario\n");
    for (size_t i = 0; i < r->n_names; i++) {
        size_t runs = 0;
        for (size_t g = 0; g < r->n_groups; g++)
            if (sw->series[g] == i)
                runs += r->groups[g].n_runs;
        sb_printf(&sb, "%zu\t%zu\t", i + 1, runs);
        tsv_field(&sb, r->names[i]);
        sb_putc(&sb, '\n');
    }
    if (!rc)
        rc = plot_write_file(datadir, "sweep-series.tsv", sb.buf, sb.len, err, errlen);
    sb_deinit(&sb);
    for (size_t m = 0; m < r->n_metrics && !rc; m++)
        rc = write_metric(sw, m, datadir, err, errlen);
    return rc;
}

/* ---- index.html -------------------------------------------------------------------- */

static void td(struct strbuf *sb, const char *cls, const char *s)
{
    sb_printf(sb, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    html_text(sb, s);
    sb_puts(sb, "</td>");
}

/* The table under a metric's chart: one row per combination, as `ringsim
 * report` prints it. */
static void metric_table(struct strbuf *sb, const struct plot_sweep *sw, size_t mi)
{
    const struct report *r = sw->r;
    const struct report_metric *m = &r->metrics[mi];
    bool any_null = false;
    for (size_t g = 0; g < r->n_groups; g++)
        any_null = any_null || r->groups[g].stats[mi].n < r->groups[g].stats[mi].runs;
    bool note = report_needs_note(m, any_null);
    sb_puts(sb, "<table>\n<tr>");
    if (r->names_differ)
        sb_puts(sb, "<th>scenario</th>");
    for (size_t b = 0; b < r->n_by; b++) {
        sb_puts(sb, "<th>");
        html_text(sb, r->by[b]);
        sb_puts(sb, "</th>");
    }
    sb_printf(sb, "<th>runs</th><th>mean%s%s</th><th>95%% CI</th><th>min</th><th>max</th>",
              *m->unit ? ", " : "", m->unit);
    if (note)
        sb_printf(sb, "<th>%s</th>", m->count_with ? "happened in" : m->null_word);
    sb_puts(sb, "</tr>\n");
    int mm = m->integer ? 0 : m->decimals;
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        const struct report_group *g = &r->groups[gi];
        const struct metric_stats *s = &g->stats[mi];
        char mean[48], ci[112], lo[48], hi[48], runs[24], cnote[48];
        double cell;
        sweep_cell(m, s, &cell, mean, sizeof mean, cnote, sizeof cnote);
        report_format_ci(ci, sizeof ci, s->ci_lo, s->ci_hi, m);
        report_format_value(lo, sizeof lo, s->min, m, mm);
        report_format_value(hi, sizeof hi, s->max, m, mm);
        snprintf(runs, sizeof runs, "%zu", s->runs);
        sb_puts(sb, "<tr>");
        if (r->names_differ)
            td(sb, NULL, g->name);
        for (size_t b = 0; b < r->n_by; b++)
            td(sb, NULL, g->values[b] ? g->values[b] : "(none)");
        td(sb, "n", runs);
        td(sb, "n", mean);
        td(sb, "n", ci);
        td(sb, "n", lo);
        td(sb, "n", hi);
        if (note) { /* as report's table: the runs it happened in, or without a value */
            snprintf(cnote, sizeof cnote, "%zu/%zu", m->count_with ? s->with : s->runs - s->n,
                     s->runs);
            td(sb, "n", cnote);
        }
        sb_puts(sb, "</tr>\n");
    }
    sb_puts(sb, "</table>\n");
}

char *plot_sweep_html(const struct plot_sweep *sw, const char *ext)
{
    const struct report *r = sw->r;
    struct strbuf sb, by;
    sb_init(&sb);
    sb_init(&by);
    for (size_t b = 0; b < r->n_by; b++)
        sb_printf(&by, "%s%s", b ? " × " : "", r->by[b]);
    const char *base = strrchr(r->db_path, '/');
    base = base ? base + 1 : r->db_path;
    const char *title = r->names_differ ? base : r->names[0];

    sb_puts(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    html_text(&sb, title);
    sb_puts(&sb, ": sweep — ringsim</title>\n<style>");
    sb_puts(&sb, plot_html_css);
    sb_puts(&sb, "</style>\n</head>\n<body>\n<h1>");
    html_text(&sb, title);
    sb_puts(&sb, ": sweep of ");
    html_text(&sb, by.buf);
    sb_printf(&sb, "</h1>\n<p class=\"meta\">%zu complete run%s in %zu combination%s from <code>",
              r->n_runs, r->n_runs == 1 ? "" : "s", r->n_groups, r->n_groups == 1 ? "" : "s");
    html_text(&sb, r->db_path);
    sb_puts(&sb, "</code>, drawn by ringsim " RINGSIM_VERSION ".</p>\n");
    if (r->n_fixed) {
        sb_puts(&sb, "<p class=\"note\">The same in every run:");
        for (size_t i = 0; i < r->n_fixed; i++) {
            sb_puts(&sb, " <code>");
            html_text(&sb, r->fixed_paths[i]);
            sb_putc(&sb, '=');
            html_text(&sb, r->fixed_values[i]);
            sb_puts(&sb, "</code>");
        }
        sb_puts(&sb, "</p>\n");
    }
    for (size_t i = 0; i < r->notes.n; i++) {
        sb_puts(&sb, "<p class=\"note\">");
        html_text(&sb, r->notes.msgs[i]);
        sb_puts(&sb, "</p>\n");
    }
    sb_puts(&sb, "<p class=\"note\">Per combination: the mean over its runs with its 95% "
                 "confidence interval (Student t, runs − 1 degrees of freedom), the minimum and "
                 "the maximum: the numbers of <code>ringsim report</code>.");
    if (sw->n_axes == 1)
        sb_puts(&sb, " Each chart draws the mean against the parameter, the CI as error bars "
                     "and the range from minimum to maximum as a shaded band; for cascade "
                     "removals and database overload the label over each point is the number "
                     "of runs in which it happened.</p>\n");
    else
        sb_puts(&sb, " Each chart is a heat map over the grid of both parameters: every "
                     "cell is coloured by the mean and labelled with it — for cascade removals "
                     "and database overload, coloured by the share of runs in which it "
                     "happened, labelled \"k/n\" over the mean; green is the better end. A "
                     "blank cell had no runs.</p>\n");
    for (size_t m = 0; m < r->n_metrics; m++) {
        const struct report_metric *rm = &r->metrics[m];
        sb_printf(&sb, "<h2 id=\"%s\">", rm->name);
        html_text(&sb, plot_metric_title(rm->name));
        sb_printf(&sb, " <code>%s</code></h2>\n<figure>\n<img src=\"sweep-%s%s\" alt=\"", rm->name,
                  rm->name, ext);
        html_text(&sb, plot_metric_title(rm->name));
        sb_puts(&sb, "\">\n<figcaption>");
        html_text(&sb, rm->doc);
        sb_puts(&sb, "</figcaption>\n</figure>\n");
        metric_table(&sb, sw, m);
    }
    sb_puts(&sb, "<h2>Data</h2>\n<p class=\"note\">The charts were drawn by gnuplot from the "
                 "tab-separated files in <code>data/</code> (<code>sweep-METRIC.tsv</code>: "
                 "one row per combination, in the database's units, the same numbers as "
                 "<code>ringsim report --csv</code>); plots/README.md in ringsim's sources "
                 "describes them.</p>\n</body>\n</html>\n");
    sb_deinit(&by);
    return sb_steal(&sb);
}
