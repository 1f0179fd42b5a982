/*
 * report_print.c — a report as a human table, CSV or JSON (report.h;
 * the formats are described in output/README.md, "Reports").
 *
 * The human table is one table per metric, one row per combination, so a
 * column reads down the combinations. Values are scaled for reading (shares
 * as %); CSV and JSON keep the database's units. A NULL metric value
 * (recovery_s of a run that never recovered) is never averaged: it is
 * counted ("never 2/4"), and mean, CI, min and max are over the other runs.
 */
#include "output/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W_RUNS 5
#define W_NUM 10
#define W_CI 24
#define W_NOTE 9
#define W_PAIRS 6

/* ---- numbers ---------------------------------------------------------------------- */

void json_number(struct strbuf *sb, double v)
{
    if (!isfinite(v)) {
        sb_puts(sb, "null");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15) { /* an integer: without an exponent */
        sb_printf(sb, "%.0f", v == 0 ? 0.0 : v);
        return;
    }
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    sb_puts(sb, buf);
}

/* v scaled and rounded for the human table; "-" for NaN. Past 10^4 in
 * absolute value the decimals are dropped (a mean of millions of errors). */
void report_format_value(char *buf, size_t n, double v, const struct report_metric *m, int decimals)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.*f", fabs(v * m->scale) >= 1e4 ? 0 : decimals, v * m->scale);
}

void report_format_ci(char *buf, size_t n, double lo, double hi, const struct report_metric *m)
{
    if (isnan(lo) || isnan(hi)) {
        snprintf(buf, n, "-");
        return;
    }
    char a[40], b[40];
    report_format_value(a, sizeof a, lo, m, m->decimals);
    report_format_value(b, sizeof b, hi, m, m->decimals);
    snprintf(buf, n, "[%s, %s]", a, b);
}

/* ---- the human table -------------------------------------------------------------- */

bool report_needs_note(const struct report_metric *m, bool any_null)
{
    return m->count_with || any_null;
}

void report_table_head(const struct report_table *t, const char *diff_head)
{
    const struct report_metric *m = t->m;
    fprintf(t->f, "\n%s%s%s%s: %s\n", m->name, *m->unit ? " (" : "", m->unit, *m->unit ? ")" : "",
            m->doc);
    fputs(" ", t->f);
    for (size_t c = 0; c < t->n_cols; c++)
        fprintf(t->f, " %-*s", (int)t->w[c], t->cols[c]);
    fprintf(t->f, " %*s %*s  %-*s %*s %*s", W_RUNS, "runs", W_NUM, "mean", W_CI, "95% CI", W_NUM,
            "min", W_NUM, "max");
    if (t->note)
        fprintf(t->f, " %*s", W_NOTE, m->count_with ? "happened" : m->null_word);
    if (t->diff)
        fprintf(t->f, " %*s  %-*s %*s", W_NUM, diff_head ? diff_head : "diff", W_CI,
                "diff 95% CI", W_PAIRS, "pairs");
    fputc('\n', t->f);
}

void report_table_row(const struct report_table *t, const char *const *labels,
                      const struct metric_stats *s, const struct diff_stats *d, bool baseline)
{
    const struct report_metric *m = t->m;
    int mm = m->integer ? 0 : m->decimals;
    char mean[40], ci[96], lo[40], hi[40];
    report_format_value(mean, sizeof mean, s->mean, m, m->decimals);
    report_format_ci(ci, sizeof ci, s->ci_lo, s->ci_hi, m);
    report_format_value(lo, sizeof lo, s->min, m, mm);
    report_format_value(hi, sizeof hi, s->max, m, mm);
    fputs(" ", t->f);
    for (size_t c = 0; c < t->n_cols; c++)
        fprintf(t->f, " %-*s", (int)t->w[c], labels[c]);
    fprintf(t->f, " %*zu %*s  %-*s %*s %*s", W_RUNS, s->runs, W_NUM, mean, W_CI, ci, W_NUM, lo,
            W_NUM, hi);
    if (t->note) {
        char note[48];
        if (m->count_with)
            snprintf(note, sizeof note, "%zu/%zu", s->with, s->runs);
        else
            snprintf(note, sizeof note, "%zu/%zu", s->runs - s->n, s->runs);
        fprintf(t->f, " %*s", W_NOTE, note);
    }
    if (t->diff) {
        char dm[40], dci[96], pairs[24];
        if (baseline) {
            snprintf(dm, sizeof dm, "baseline");
            dci[0] = '\0';
        } else if (!d) {
            snprintf(dm, sizeof dm, "-");
            snprintf(dci, sizeof dci, "(no baseline)");
        } else {
            report_format_value(dm, sizeof dm, d->mean, m, m->decimals);
            report_format_ci(dci, sizeof dci, d->ci_lo, d->ci_hi, m);
        }
        if (d)
            snprintf(pairs, sizeof pairs, "%zu", d->pairs);
        else
            snprintf(pairs, sizeof pairs, "-");
        fprintf(t->f, " %*s  %-*s %*s", W_NUM, dm, W_CI, dci, W_PAIRS, pairs);
    }
    fputc('\n', t->f);
}

static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* "1-4", "1, 3, 5-9": the distinct seeds of the runs, compactly. */
static void seeds_text(const struct report *r, struct strbuf *sb)
{
    int64_t *s = xcalloc(r->n_runs + 1, sizeof(*s));
    for (size_t i = 0; i < r->n_runs; i++)
        s[i] = r->runs[i].seed;
    qsort(s, r->n_runs, sizeof(*s), i64_cmp);
    size_t n = 0;
    for (size_t i = 0; i < r->n_runs; i++)
        if (!n || s[n - 1] != s[i])
            s[n++] = s[i];
    size_t shown = 0;
    for (size_t i = 0; i < n; shown++) {
        size_t j = i;
        while (j + 1 < n && s[j + 1] == s[j] + 1)
            j++;
        if (shown == 12) {
            sb_printf(sb, ", ... (%zu seeds)", n);
            break;
        }
        sb_printf(sb, "%s%lld", i ? ", " : "", (long long)s[i]);
        if (j > i)
            sb_printf(sb, "%s%lld", j > i + 1 ? "-" : ", ", (long long)s[j]);
        i = j + 1;
    }
    free(s);
}

/* The label columns of the human table: scenario (when runs differ by
 * it), then each --by path; or one column for a report without any. */
struct labels {
    size_t n;
    const char **cols;
    size_t *w;
    const char **row;
};

static const char *group_label(const struct report *r, const struct report_group *g, size_t c)
{
    if (r->names_differ && c == 0)
        return g->name;
    if (!r->n_by)
        return "(all runs)";
    const char *v = g->values[c - (r->names_differ ? 1 : 0)];
    return v ? v : "(none)";
}

static void labels_init(struct labels *L, const struct report *r)
{
    L->n = (r->names_differ ? 1 : 0) + (r->n_by ? r->n_by : 1);
    L->cols = xcalloc(L->n, sizeof(*L->cols));
    L->w = xcalloc(L->n, sizeof(*L->w));
    L->row = xcalloc(L->n, sizeof(*L->row));
    size_t c = 0;
    if (r->names_differ)
        L->cols[c++] = "scenario";
    if (!r->n_by)
        L->cols[c++] = "combination";
    for (size_t b = 0; b < r->n_by; b++)
        L->cols[c++] = r->by[b];
    for (c = 0; c < L->n; c++) {
        L->w[c] = strlen(L->cols[c]);
        for (size_t g = 0; g < r->n_groups; g++)
            L->w[c] = MAX(L->w[c], strlen(group_label(r, &r->groups[g], c)));
    }
}

static void labels_deinit(struct labels *L)
{
    free(L->cols);
    free(L->w);
    free(L->row);
}

void report_print_table(const struct report *r, FILE *f)
{
    struct strbuf sb;
    sb_init(&sb);
    seeds_text(r, &sb);
    fprintf(f, "%s: %zu complete run%s", r->db_path, r->n_runs, r->n_runs == 1 ? "" : "s");
    if (!r->names_differ)
        fprintf(f, " of %s", r->runs[0].name);
    fprintf(f, " in %zu combination%s", r->n_groups, r->n_groups == 1 ? "" : "s");
    for (size_t b = 0; b < r->n_by; b++)
        fprintf(f, "%s%s", b ? " x " : " of ", r->by[b]);
    fprintf(f, "; seed%s %s\n", strchr(sb.buf, ',') || strchr(sb.buf, '-') ? "s" : "", sb.buf);
    if (r->n_fixed) {
        fputs("the same in every run:", f);
        for (size_t i = 0; i < r->n_fixed; i++)
            fprintf(f, " %s=%s", r->fixed_paths[i], r->fixed_values[i]);
        fputc('\n', f);
    }
    fputs("per combination: the mean over its runs with its 95% confidence interval (Student t,\n"
          "runs - 1 degrees of freedom), the minimum and the maximum", f);
    if (r->base_path)
        fprintf(f, ";\ndiff: the mean difference from the combination with %s=%s (the other "
                   "parameters alike),\nrun by run paired by seed, with its 95%% confidence "
                   "interval",
                r->base_path, r->base_value);
    fputs("\n", f);
    struct labels L;
    labels_init(&L, r);
    for (size_t m = 0; m < r->n_metrics; m++) {
        bool any_null = false;
        for (size_t g = 0; g < r->n_groups; g++)
            any_null = any_null || r->groups[g].stats[m].n < r->groups[g].stats[m].runs;
        struct report_table t = {f, &r->metrics[m], L.n, L.cols, L.w, r->base_path != NULL,
                                 report_needs_note(&r->metrics[m], any_null)};
        report_table_head(&t, NULL);
        for (size_t gi = 0; gi < r->n_groups; gi++) {
            const struct report_group *g = &r->groups[gi];
            for (size_t c = 0; c < L.n; c++)
                L.row[c] = group_label(r, g, c);
            const struct diff_stats *d = g->diff && g->baseline >= 0 ? &g->diff[m] : NULL;
            report_table_row(&t, L.row, &g->stats[m], d, g->baseline == (long)gi);
        }
    }
    labels_deinit(&L);
    sb_deinit(&sb);
}

/* ---- CSV ---------------------------------------------------------------------------- */

/* One CSV field (RFC 4180): quoted when it holds a comma, a quote, a line
 * break or blanks at either end. */
static void csv_field(FILE *f, const char *s)
{
    size_t n = strlen(s);
    bool quote = strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[n - 1] == ' '));
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
    struct strbuf sb;
    sb_init(&sb);
    if (isfinite(v))
        json_number(&sb, v);
    fprintf(f, ",%s", sb.len ? sb.buf : "");
    sb_deinit(&sb);
}

void report_print_csv(const struct report *r, FILE *f)
{
    fputs("scenario", f);
    for (size_t b = 0; b < r->n_by; b++) {
        fputc(',', f);
        csv_field(f, r->by[b]);
    }
    fputs(",runs,metric,n,nulls,mean,ci95_lo,ci95_hi,min,max,runs_with", f);
    if (r->base_path)
        fputs(",diff_mean,diff_ci95_lo,diff_ci95_hi,pairs", f);
    fputs("\r\n", f);
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        const struct report_group *g = &r->groups[gi];
        for (size_t m = 0; m < r->n_metrics; m++) {
            const struct metric_stats *s = &g->stats[m];
            csv_field(f, g->name);
            for (size_t b = 0; b < r->n_by; b++) {
                fputc(',', f);
                if (g->values[b])
                    csv_field(f, g->values[b]);
            }
            fprintf(f, ",%zu,%s,%zu,%zu", s->runs, r->metrics[m].name, s->n, s->runs - s->n);
            csv_num(f, s->mean);
            csv_num(f, s->ci_lo);
            csv_num(f, s->ci_hi);
            csv_num(f, s->min);
            csv_num(f, s->max);
            if (r->metrics[m].count_with)
                fprintf(f, ",%zu", s->with);
            else
                fputc(',', f);
            if (r->base_path) {
                const struct diff_stats *d = g->baseline >= 0 ? &g->diff[m] : NULL;
                csv_num(f, d ? d->mean : NAN);
                csv_num(f, d ? d->ci_lo : NAN);
                csv_num(f, d ? d->ci_hi : NAN);
                if (d)
                    fprintf(f, ",%zu", d->pairs);
                else
                    fputc(',', f);
            }
            fputs("\r\n", f);
        }
    }
}

/* ---- JSON --------------------------------------------------------------------------- */

static void json_ci(struct strbuf *sb, double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        sb_puts(sb, "null");
        return;
    }
    sb_putc(sb, '[');
    json_number(sb, lo);
    sb_putc(sb, ',');
    json_number(sb, hi);
    sb_putc(sb, ']');
}

void report_print_json(const struct report *r, FILE *f)
{
    struct strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "[");
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        const struct report_group *g = &r->groups[gi];
        sb_puts(&sb, gi ? ",\n  {" : "\n  {");
        sb_puts(&sb, "\"scenario\":");
        sb_json_str(&sb, g->name);
        sb_puts(&sb, ",\"params\":{");
        for (size_t b = 0; b < r->n_by; b++) {
            sb_puts(&sb, b ? "," : "");
            sb_json_str(&sb, r->by[b]);
            sb_putc(&sb, ':');
            if (g->values[b])
                sb_json_str(&sb, g->values[b]);
            else
                sb_puts(&sb, "null");
        }
        sb_printf(&sb, "},\"runs\":%zu,\"seeds\":[", g->n_runs);
        for (size_t i = 0; i < g->n_runs; i++)
            sb_printf(&sb, "%s%lld", i ? "," : "", (long long)r->runs[g->runs[i]].seed);
        sb_puts(&sb, "],\"metrics\":{");
        for (size_t m = 0; m < r->n_metrics; m++) {
            const struct metric_stats *s = &g->stats[m];
            sb_puts(&sb, m ? "," : "");
            sb_json_str(&sb, r->metrics[m].name);
            sb_puts(&sb, ":{\"mean\":");
            json_number(&sb, s->mean);
            sb_puts(&sb, ",\"ci95\":");
            json_ci(&sb, s->ci_lo, s->ci_hi);
            sb_puts(&sb, ",\"min\":");
            json_number(&sb, s->min);
            sb_puts(&sb, ",\"max\":");
            json_number(&sb, s->max);
            sb_printf(&sb, ",\"n\":%zu,\"nulls\":%zu", s->n, s->runs - s->n);
            if (r->base_path) {
                const struct diff_stats *d = g->baseline >= 0 ? &g->diff[m] : NULL;
                sb_puts(&sb, ",\"diff\":");
                if (!d) {
                    sb_puts(&sb, "null");
                } else {
                    sb_puts(&sb, "{\"mean\":");
                    json_number(&sb, d->mean);
                    sb_puts(&sb, ",\"ci95\":");
                    json_ci(&sb, d->ci_lo, d->ci_hi);
                    sb_printf(&sb, ",\"pairs\":%zu}", d->pairs);
                }
            }
            sb_putc(&sb, '}');
        }
        sb_puts(&sb, "},\"runs_with\":{");
        bool first = true;
        /* by name (cascade_removals, db_overload_s), whichever --metric was
         * asked for: the same text for the same runs */
        const char *done = "";
        for (;;) {
            size_t next = r->n_all;
            for (size_t m = 0; m < r->n_all; m++)
                if (r->metrics[m].count_with && strcmp(r->metrics[m].name, done) > 0
                    && (next == r->n_all || strcmp(r->metrics[m].name, r->metrics[next].name) < 0))
                    next = m;
            if (next == r->n_all)
                break;
            sb_puts(&sb, first ? "" : ",");
            first = false;
            sb_json_str(&sb, r->metrics[next].name);
            sb_printf(&sb, ":%zu", g->stats[next].with);
            done = r->metrics[next].name;
        }
        sb_puts(&sb, "}}");
        if (sb.len > 1 << 16) {
            fwrite(sb.buf, 1, sb.len, f);
            sb_reset(&sb);
        }
    }
    sb_puts(&sb, "\n]\n");
    fwrite(sb.buf, 1, sb.len, f);
    sb_deinit(&sb);
}
