/*
 * report_stats.c — the statistics of a report (report.h): a sample of one
 * metric over the runs of a combination, and the paired differences of two
 * combinations, each with a 95% confidence interval of the mean:
 *
 *     mean -/+ t(0.975, n - 1) * sd / sqrt(n)
 *
 * sd the sample standard deviation (n - 1 in the denominator), t Student's
 * quantile from GSL. A NULL value (NaN here: a run that never recovered)
 * is counted apart, never averaged. The sums run in the order given, so
 * the same runs give the same digits. Also the metrics a report knows, with
 * how the human table writes them.
 */
#include "output/report.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/metrics.h"

/* How the human table writes the metrics that are not plain counts. A
 * column missing here is a count: no scale, two decimals for its mean,
 * lower is better. */
static const struct {
    const char *name;
    double scale;
    const char *unit;
    int decimals;
    int better;
    bool count_with;
    const char *null_word;
} display[] = {
    {"requests", 1, "", 0, 0, false, NULL},
    {"hit_rate", 100, "%", 2, +1, false, NULL},
    {"baseline_hit_rate", 100, "%", 2, +1, false, NULL},
    {"min_hit_rate", 100, "%", 2, +1, false, NULL},
    {"recovery_s", 1, "s", 1, -1, false, "never"},
    {"peak_backend_qps", 1, "requests/s", 0, -1, false, NULL},
    {"peak_db_util", 100, "%", 1, -1, false, NULL},
    {"db_overload_s", 1, "s", 1, -1, true, NULL},
    {"cascade_removals", 1, "", 2, -1, true, NULL},
    {"keys_moved", 1, "", 0, 0, false, NULL},
    {"max_node_share", 100, "%", 2, -1, false, NULL},
    {"db_reads", 1, "", 0, 0, false, NULL},
    {"db_writes", 1, "", 0, 0, false, NULL},
};

#define REPORT_METRIC(n, t, d) {#n, d, #t[0] == 'I'},
static const struct {
    const char *name, *doc;
    bool integer;
} columns[] = {SUMMARY_FIELDS(REPORT_METRIC)};
#undef REPORT_METRIC

const char *const report_default_metrics[] = {
    "hit_rate", "min_hit_rate", "recovery_s", "peak_backend_qps", "peak_db_util",
    "db_overload_s", "cascade_removals", "stale_reads", "stale_overwrites", "errors",
};
const size_t report_n_default_metrics = ARRAY_LEN(report_default_metrics);

size_t report_n_metrics(void)
{
    return ARRAY_LEN(columns);
}

int report_metric_at(size_t i, struct report_metric *m)
{
    if (i >= ARRAY_LEN(columns))
        return -1;
    *m = (struct report_metric){columns[i].name, columns[i].doc, columns[i].integer, 1, "", 2,
                                -1, false, "no value"};
    for (size_t j = 0; j < ARRAY_LEN(display); j++)
        if (!strcmp(columns[i].name, display[j].name)) {
            m->scale = display[j].scale;
            m->unit = display[j].unit;
            m->decimals = display[j].decimals;
            m->better = display[j].better;
            m->count_with = display[j].count_with;
            if (display[j].null_word)
                m->null_word = display[j].null_word;
        }
    return 0;
}

int report_metric_get(const char *name, struct report_metric *m)
{
    for (size_t i = 0; i < ARRAY_LEN(columns); i++)
        if (!strcmp(columns[i].name, name))
            return report_metric_at(i, m);
    return -1;
}

const char *report_metric_stray_display(void)
{
    for (size_t j = 0; j < ARRAY_LEN(display); j++) {
        struct report_metric m;
        if (report_metric_get(display[j].name, &m))
            return display[j].name;
    }
    return NULL;
}

double stats_t975(size_t df)
{
    return gsl_cdf_tdist_Pinv(0.975, (double)df);
}

/* Mean, sd and CI of the n values x[] (no NaN), into the out fields. */
static void describe_values(const double *x, size_t n, double *mean, double *sd, double *lo,
                            double *hi)
{
    *mean = *sd = *lo = *hi = NAN;
    if (!n)
        return;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    *mean = sum / (double)n;
    if (n < 2)
        return;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *sd = sqrt(ss / (double)(n - 1));
    double half = stats_t975(n - 1) * *sd / sqrt((double)n);
    *lo = *mean - half;
    *hi = *mean + half;
}

void stats_describe(const double *v, size_t runs, struct metric_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->runs = runs;
    out->min = out->max = NAN;
    double *x = xcalloc(runs + 1, sizeof(*x));
    for (size_t i = 0; i < runs; i++) {
        if (isnan(v[i]))
            continue;
        x[out->n++] = v[i];
        out->with += v[i] > 0;
        if (out->n == 1 || v[i] < out->min)
            out->min = v[i];
        if (out->n == 1 || v[i] > out->max)
            out->max = v[i];
    }
    describe_values(x, out->n, &out->mean, &out->sd, &out->ci_lo, &out->ci_hi);
    free(x);
}

void stats_paired(const double *a, const double *b, size_t n, struct diff_stats *out)
{
    memset(out, 0, sizeof(*out));
    double *d = xcalloc(n + 1, sizeof(*d));
    for (size_t i = 0; i < n; i++)
        if (!isnan(a[i]) && !isnan(b[i]))
            d[out->pairs++] = a[i] - b[i];
    describe_values(d, out->pairs, &out->mean, &out->sd, &out->ci_lo, &out->ci_hi);
    free(d);
}
