/*
 * plot_html.c — DIR/index.html of `ringsim plot`: the runs drawn, their
 * summary (readable names and units; the meaning of each metric from
 * sim/metrics.h as a tooltip), every chart with a note on how to read it,
 * and the scenario events.
 *
 * The page is self-contained: inline CSS, images referenced by relative
 * name, no scripts, nothing fetched from elsewhere. Every piece of text
 * from the database goes through html_text().
 */
#include "plots/plot.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/metrics.h"

const struct plot_chart plot_charts[] = {
    {"hit_rate", "Hit rate",
     "Share of reads answered from cache in each tick, one line per run. Dotted vertical "
     "lines mark the scenario's events, labelled in the strip above the chart; triangles "
     "in the strip's lowest lane are ejections (filled: a cascade removal of a healthy node)."},
    {"backend_qps", "Backend load",
     "Database operations (reads and writes) per second. The dashed horizontal line is the "
     "database's capacity, workers / service time: above it, requests queue and time out."},
    {"database", "Database utilization and latency",
     "Top: share of the database's worker time that was busy. Bottom: 99th percentile "
     "latency of database operations (queue + service); gaps are ticks without any."},
    {"transitions", "Transitions",
     "What a ring change costs and what its cures do, per second. Top: operations a node "
     "answered MOVED or passed on (routing.fencing), and reads answered by a previous owner "
     "(clients.fallback_to_previous_owner, dashed). Middle: keys a staged join or drain "
     "copied (add_node warm, remove_node drain; dashed: read from the database). Bottom: "
     "stale reads and stale overwrites (dashed) — the damage the cures exist to prevent."},
    {"nodes", "Requests per node",
     "GETs each cache node received per second, one panel per run. The strip under each "
     "panel shows every node's state over time: up, slow, crashed, ejected (by at least one "
     "client), removed, or a gutter node."},
};
const size_t plot_n_charts = ARRAY_LEN(plot_charts);

enum fmt { F_COUNT, F_PCT, F_SEC, F_RATE, F_REAL };

static const struct {
    const char *col, *label, *unit;
    enum fmt f;
} metric_fmt[] = {
    {"requests", "Requests", "", F_COUNT},
    {"hit_rate", "Hit rate", "%", F_PCT},
    {"baseline_hit_rate", "Baseline hit rate (before the first event)", "%", F_PCT},
    {"min_hit_rate", "Lowest hit rate (from the first event on)", "%", F_PCT},
    {"recovery_s", "Recovery to baseline", "s", F_SEC},
    {"peak_backend_qps", "Peak backend load", "requests/s", F_RATE},
    {"peak_db_util", "Peak database utilization", "%", F_PCT},
    {"db_overload_s", "Database overloaded", "s", F_SEC},
    {"ejections", "Ejections", "", F_COUNT},
    {"cascade_removals", "Cascade removals (healthy nodes ejected)", "", F_COUNT},
    {"max_ejected", "Most nodes ejected at once", "", F_COUNT},
    {"instance_ejections", "Ejections by single client instances", "", F_COUNT},
    {"readmissions", "Readmissions (nodes put back after retry_after)", "", F_COUNT},
    {"stale_reads", "Stale reads", "", F_COUNT},
    {"stale_overwrites", "Stale overwrites", "", F_COUNT},
    {"clobbers", "Clobbers", "", F_COUNT},
    {"keys_moved", "Keys moved", "", F_COUNT},
    {"max_node_share", "Busiest node's share of GETs", "%", F_PCT},
    {"timeouts", "Timeouts", "", F_COUNT},
    {"errors", "Errors", "", F_COUNT},
    {"db_reads", "Database reads", "", F_COUNT},
    {"db_writes", "Database writes", "", F_COUNT},
};

const char *plot_metric_title(const char *col)
{
    for (size_t i = 0; i < ARRAY_LEN(metric_fmt); i++)
        if (!strcmp(metric_fmt[i].col, col))
            return metric_fmt[i].label;
    return col;
}

#define METRIC_DOC(n, t, d) {#n, d},
static const struct {
    const char *col, *doc;
} metric_docs[] = {SUMMARY_FIELDS(METRIC_DOC)};
#undef METRIC_DOC

#define MAX_EVENT_ROWS 300

const char plot_html_css[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#222;margin:24px auto;max-width:1160px;padding:0 16px}"
    "h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.25em;margin:32px 0 8px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}"
    ".meta{color:#666;margin:0 0 16px}code{font:13px ui-monospace,'DejaVu Sans Mono',monospace;"
    "background:#f3f3f3;padding:1px 4px;border-radius:3px}"
    "table{border-collapse:collapse;margin:8px 0;font-size:14px}"
    "th,td{border:1px solid #ddd;padding:4px 10px;text-align:left;vertical-align:top}"
    "th{background:#f6f6f6;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}td.u{color:#666;white-space:nowrap}tr[title]{cursor:help}"
    ".sw{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:6px;"
    "vertical-align:-1px}"
    "figure{margin:16px 0 28px}figure img{max-width:100%;height:auto;border:1px solid #eee}"
    "figcaption{color:#555;font-size:14px;margin-top:4px;max-width:1100px}"
    ".note{color:#666;font-size:14px}";

static void td_text(struct strbuf *sb, const char *cls, const char *s)
{
    sb_printf(sb, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    html_text(sb, s);
    sb_puts(sb, "</td>");
}

static void run_head(struct strbuf *sb, const struct plot_set *ps, size_t k)
{
    sb_printf(sb, "<th><span class=\"sw\" style=\"background:%s\"></span>run %lld</th>",
              plot_run_colour(k + 1), (long long)ps->runs[k].id);
}

/* What a NULL recovery_s of run r (summary row st) means: the hit rate
 * never came back, or there was nothing to come back from — no event in
 * the ticks recorded (none in the scenario, or the run stopped before it),
 * or no baseline (the first event before the warmup ended). */
static const char *no_recovery(const struct plot_run *r, sqlite3_stmt *st)
{
    if (r->first_event_s >= (double)r->n_ticks * r->tick_s) /* false when unknown (NaN) */
        return "no event";
    for (int j = 0; j < sqlite3_column_count(st); j++)
        if (!strcmp(sqlite3_column_name(st, j), "baseline_hit_rate")
            && sqlite3_column_type(st, j) == SQLITE_NULL)
            return "no baseline";
    return isnan(r->first_event_s) ? "never (or no event)" : "never";
}

static void format_value(char *buf, size_t n, sqlite3_stmt *st, int col, enum fmt f,
                         const char *colname, const struct plot_run *r)
{
    if (!st || col < 0) {
        snprintf(buf, n, "—");
        return;
    }
    int type = sqlite3_column_type(st, col);
    if (type == SQLITE_NULL) {
        snprintf(buf, n, "%s", !strcmp(colname, "recovery_s") ? no_recovery(r, st) : "—");
        return;
    }
    if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, col));
        return;
    }
    double v = sqlite3_column_double(st, col);
    switch (f) {
    case F_COUNT:
        format_count(buf, n, sqlite3_column_int64(st, col));
        break;
    case F_PCT:
        snprintf(buf, n, "%.2f", 100 * v);
        break;
    case F_SEC:
        snprintf(buf, n, "%.4g", v);
        break;
    case F_RATE:
        format_count(buf, n, (int64_t)llround(v));
        break;
    case F_REAL:
        if (type == SQLITE_INTEGER)
            format_count(buf, n, sqlite3_column_int64(st, col));
        else
            snprintf(buf, n, "%.6g", v);
        break;
    }
}

/* The summary: one row per metric, one column per run. */
static int summary_table(struct plot_set *ps, struct strbuf *sb, char *err, size_t errlen)
{
    sqlite3_stmt **rows = xcalloc(ps->n_runs, sizeof(*rows));
    int rc = -1;
    size_t have = 0;
    for (size_t k = 0; k < ps->n_runs; k++) {
        if (sqlite3_prepare_v2(ps->db, "SELECT * FROM summary WHERE run_id = ?", -1, &rows[k],
                               NULL) != SQLITE_OK) {
            plot_set_sql_err(ps, err, errlen);
            goto out;
        }
        sqlite3_bind_int64(rows[k], 1, ps->runs[k].id);
        int s = sqlite3_step(rows[k]);
        if (s == SQLITE_ROW) {
            have++;
        } else {
            if (s != SQLITE_DONE) {
                plot_set_sql_err(ps, err, errlen);
                goto out;
            }
            sqlite3_finalize(rows[k]);
            rows[k] = NULL;
        }
    }
    if (!have) {
        sb_puts(sb, "<p class=\"note\">No summary: none of these runs finished.</p>\n");
        rc = 0;
        goto out;
    }
    /* the columns, from the first run that has a row */
    sqlite3_stmt *ref = NULL;
    for (size_t k = 0; k < ps->n_runs && !ref; k++)
        ref = rows[k];
    sb_puts(sb, "<table>\n<tr><th>metric</th><th>unit</th>");
    for (size_t k = 0; k < ps->n_runs; k++)
        run_head(sb, ps, k);
    sb_puts(sb, "</tr>\n");
    for (int c = 0; c < sqlite3_column_count(ref); c++) {
        const char *col = sqlite3_column_name(ref, c);
        if (!strcmp(col, "run_id"))
            continue;
        const char *label = col, *unit = "", *doc = NULL;
        enum fmt f = F_REAL;
        for (size_t i = 0; i < ARRAY_LEN(metric_fmt); i++)
            if (!strcmp(metric_fmt[i].col, col)) {
                label = metric_fmt[i].label;
                unit = metric_fmt[i].unit;
                f = metric_fmt[i].f;
            }
        for (size_t i = 0; i < ARRAY_LEN(metric_docs); i++)
            if (!strcmp(metric_docs[i].col, col))
                doc = metric_docs[i].doc;
        sb_puts(sb, "<tr");
        if (doc) {
            sb_puts(sb, " title=\"");
            html_text(sb, col);
            sb_puts(sb, ": ");
            html_text(sb, doc);
            sb_puts(sb, "\"");
        }
        sb_puts(sb, ">");
        td_text(sb, NULL, label);
        td_text(sb, "u", unit);
        for (size_t k = 0; k < ps->n_runs; k++) {
            char buf[64];
            int ci = -1;
            if (rows[k])
                for (int j = 0; j < sqlite3_column_count(rows[k]); j++)
                    if (!strcmp(sqlite3_column_name(rows[k], j), col))
                        ci = j;
            format_value(buf, sizeof buf, rows[k], ci, f, col, &ps->runs[k]);
            td_text(sb, "n", buf);
        }
        sb_puts(sb, "</tr>\n");
    }
    sb_puts(sb, "</table>\n<p class=\"note\">Hover over a row for the metric's definition.");
    if (have < ps->n_runs)
        sb_puts(sb, " A dash: the run has no summary (it failed, or is still being recorded "
                    "or its process was killed).");
    sb_puts(sb, "</p>\n");
    rc = 0;
out:
    for (size_t k = 0; k < ps->n_runs; k++)
        sqlite3_finalize(rows[k]);
    free(rows);
    return rc;
}

static void runs_table(const struct plot_set *ps, struct strbuf *sb)
{
    sb_puts(sb, "<table>\n<tr><th>run</th><th>scenario</th><th>legend label</th><th>seed</th>"
                "<th>status</th><th>simulated</th><th>tick</th><th>database capacity</th></tr>\n");
    for (size_t k = 0; k < ps->n_runs; k++) {
        const struct plot_run *r = &ps->runs[k];
        char buf[128];
        sb_puts(sb, "<tr>");
        run_head(sb, ps, k);
        sb_puts(sb, "<td>");
        html_text(sb, r->name);
        if (r->description && *r->description) {
            sb_puts(sb, "<br><span class=\"note\">");
            html_text(sb, r->description);
            sb_puts(sb, "</span>");
        }
        sb_puts(sb, "</td>");
        td_text(sb, NULL, r->label);
        snprintf(buf, sizeof buf, "%lld", (long long)r->seed);
        td_text(sb, "n", buf);
        td_text(sb, NULL, r->status);
        snprintf(buf, sizeof buf, "%.6g s", r->duration_s);
        td_text(sb, "n", buf);
        snprintf(buf, sizeof buf, "%.6g s", r->tick_s);
        td_text(sb, "n", buf);
        if (isfinite(r->capacity_rps)) {
            char num[40];
            format_count(num, sizeof num, (int64_t)llround(r->capacity_rps));
            snprintf(buf, sizeof buf, "%s requests/s (%d workers, %.6g ms)", num, r->db_workers,
                     r->db_service_ms);
        } else {
            snprintf(buf, sizeof buf, "unknown");
        }
        td_text(sb, "n", buf);
        sb_puts(sb, "</tr>\n");
    }
    sb_puts(sb, "</table>\n");
}

static void events_table(const struct plot_set *ps, struct strbuf *sb)
{
    if (!ps->n_events) {
        sb_puts(sb, "<p class=\"note\">The scenario has no events.</p>\n");
        return;
    }
    sb_puts(sb, "<table>\n<tr><th>time</th><th>event</th><th>node</th><th>detail</th>"
                "<th>run</th></tr>\n");
    size_t shown = MIN(ps->n_events, (size_t)MAX_EVENT_ROWS);
    for (size_t i = 0; i < shown; i++) {
        const struct plot_event *e = &ps->events[i];
        char buf[64];
        snprintf(buf, sizeof buf, "%.6g s", e->t_s);
        sb_puts(sb, "<tr>");
        td_text(sb, "n", buf);
        td_text(sb, NULL, e->kind);
        td_text(sb, NULL, e->node ? e->node : "");
        td_text(sb, NULL, e->detail);
        if (e->run_no == 0) {
            td_text(sb, NULL, ps->n_runs > 1 ? "all" : "");
        } else {
            sb_printf(sb, "<td><span class=\"sw\" style=\"background:%s\"></span>%lld</td>",
                      plot_run_colour(e->run_no), (long long)ps->runs[e->run_no - 1].id);
        }
        sb_puts(sb, "</tr>\n");
    }
    sb_puts(sb, "</table>\n");
    if (shown < ps->n_events)
        sb_printf(sb, "<p class=\"note\">… and %zu more (the events table of the database has "
                      "them all).</p>\n",
                  ps->n_events - shown);
}

char *plot_html(struct plot_set *ps, const char *ext, char *err, size_t errlen)
{
    struct strbuf sb;
    sb_init(&sb);
    const char *base = strrchr(ps->db_path, '/');
    base = base ? base + 1 : ps->db_path;
    bool same_name = true;
    for (size_t k = 1; k < ps->n_runs; k++)
        same_name = same_name && !strcmp(ps->runs[k].name, ps->runs[0].name);

    sb_puts(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    html_text(&sb, same_name ? ps->runs[0].name : base);
    sb_puts(&sb, " — ringsim</title>\n<style>");
    sb_puts(&sb, plot_html_css);
    sb_puts(&sb, "</style>\n</head>\n<body>\n<h1>");
    html_text(&sb, same_name ? ps->runs[0].name : base);
    sb_puts(&sb, "</h1>\n<p class=\"meta\">");
    sb_printf(&sb, "%zu run%s from <code>", ps->n_runs, ps->n_runs == 1 ? "" : "s");
    html_text(&sb, ps->db_path);
    sb_puts(&sb, "</code>, drawn by ringsim " RINGSIM_VERSION ". Time is simulated time.</p>\n");

    sb_puts(&sb, "<h2>Runs</h2>\n");
    runs_table(ps, &sb);
    sb_puts(&sb, "<h2>Summary</h2>\n");
    if (summary_table(ps, &sb, err, errlen))
        goto out;
    sb_puts(&sb, "<h2>Charts</h2>\n");
    for (size_t i = 0; i < plot_n_charts; i++) {
        sb_printf(&sb, "<figure id=\"%s\">\n<img src=\"%s%s\" alt=\"", plot_charts[i].name,
                  plot_charts[i].name, ext);
        html_text(&sb, plot_charts[i].title);
        sb_puts(&sb, "\">\n<figcaption><b>");
        html_text(&sb, plot_charts[i].title);
        sb_puts(&sb, ".</b> ");
        html_text(&sb, plot_charts[i].caption);
        sb_puts(&sb, "</figcaption>\n</figure>\n");
    }
    sb_puts(&sb, "<h2>Events</h2>\n");
    events_table(ps, &sb);
    sb_printf(&sb, "<p class=\"note\">%zu ejection%s by single client instances or the "
                   "coordinator (the summary's instance_ejections: a node several instances "
                   "eject is one of its ejections) and %zu cascade removal%s in these runs "
                   "(the triangles in the charts' event strips).</p>\n",
              ps->n_ejections, ps->n_ejections == 1 ? "" : "s", ps->n_cascades,
              ps->n_cascades == 1 ? "" : "s");
    sb_puts(&sb, "<h2>Data</h2>\n<p class=\"note\">The charts were drawn by gnuplot from the "
                 "tab-separated files in <code>data/</code>; plots/README.md in ringsim's "
                 "sources shows how to draw them again by hand.</p>\n</body>\n</html>\n");

    return sb_steal(&sb);
out:
    sb_deinit(&sb);
    return NULL;
}
