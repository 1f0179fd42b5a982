/* Unit tests: the statistics of a report (output/report_stats.c) against
 * values computed by hand, the ordering of parameter values, and whole
 * reports (output/report.c, report_print.c) of a results database whose
 * summaries are written here with known values: combinations, the default
 * --by, NULLs, the runs in which something happened, paired differences,
 * the effective value of a parameter a run did not override, the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "output/report.h"
#include "output/results.h"

/* Student t quantiles t(0.975, df), from the tables */
#define T975_1 12.706204736174707
#define T975_3 3.182446305284263
#define T975_30 2.042272456301238

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-9 * (1 + fabs(want))))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static void test_t_quantiles(void **state)
{
    (void)state;
    near(stats_t975(1), T975_1, "t(0.975, 1)");
    near(stats_t975(3), T975_3, "t(0.975, 3)");
    near(stats_t975(30), T975_30, "t(0.975, 30)");
}

static void test_describe(void **state)
{
    (void)state;
    struct metric_stats s;
    /* 1 2 3 4: mean 2.5, sd sqrt(5/3), half-width t(3) sd / 2 */
    const double a[] = {3, 1, 4, 2};
    stats_describe(a, 4, &s);
    assert_int_equal(s.runs, 4);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.with, 4);
    near(s.mean, 2.5, "mean");
    near(s.sd, sqrt(5.0 / 3.0), "sd");
    near(s.ci_lo, 2.5 - T975_3 * sqrt(5.0 / 3.0) / 2, "ci_lo");
    near(s.ci_hi, 2.5 + T975_3 * sqrt(5.0 / 3.0) / 2, "ci_hi");
    near(s.ci_lo, 0.445739743239121, "ci_lo (by hand)");
    near(s.ci_hi, 4.5542602567608785, "ci_hi (by hand)");
    near(s.min, 1, "min");
    near(s.max, 4, "max");

    /* NULLs are counted, not averaged: 5 and 7 of four runs */
    const double b[] = {NAN, 5, NAN, 7};
    stats_describe(b, 4, &s);
    assert_int_equal(s.runs, 4);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.with, 2);
    near(s.mean, 6, "mean of two");
    near(s.ci_lo, 6 - T975_1, "ci_lo of two"); /* sd sqrt(2), / sqrt(2) */
    near(s.ci_hi, 6 + T975_1, "ci_hi of two");
    near(s.min, 5, "min of two");
    near(s.max, 7, "max of two");

    /* cascades in 2 of 4 runs */
    const double c[] = {0, 0, 29, 28};
    stats_describe(c, 4, &s);
    assert_int_equal(s.with, 2);
    near(s.mean, 14.25, "mean cascades");

    /* one value: no interval; none: nothing */
    const double d[] = {NAN, 3};
    stats_describe(d, 2, &s);
    assert_int_equal(s.n, 1);
    near(s.mean, 3, "mean of one");
    assert_true(isnan(s.ci_lo) && isnan(s.ci_hi) && isnan(s.sd));
    const double e[] = {NAN, NAN};
    stats_describe(e, 2, &s);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.with, 0);
    assert_true(isnan(s.mean) && isnan(s.min) && isnan(s.max) && isnan(s.ci_lo));

    /* all alike: a zero-width interval */
    const double f[] = {39, 39, 39, 39};
    stats_describe(f, 4, &s);
    near(s.ci_lo, 39, "ci of equal values");
    near(s.ci_hi, 39, "ci of equal values");
}

static void test_paired(void **state)
{
    (void)state;
    struct diff_stats d;
    /* differences 1 2 1 2: mean 1.5, sd sqrt(1/3) */
    const double a[] = {10, 12, 14, 20}, b[] = {9, 10, 13, 18};
    stats_paired(a, b, 4, &d);
    assert_int_equal(d.pairs, 4);
    near(d.mean, 1.5, "paired mean");
    near(d.ci_lo, 0.5813068844813005, "paired ci_lo");
    near(d.ci_hi, 2.4186931155186997, "paired ci_hi");
    /* a pair with a NULL on either side is left out */
    const double c[] = {10, NAN, 14, 20, 7}, e[] = {9, 10, 13, 18, NAN};
    stats_paired(c, e, 5, &d);
    assert_int_equal(d.pairs, 3);
    near(d.mean, (1 + 1 + 2) / 3.0, "paired mean without NULLs");
}

static void test_rank_values(void **state)
{
    (void)state;
    size_t r[5];
    char *dur[] = {"10s", "2s", "500ms", "1m", "0s"};
    report_rank_values(dur, 5, r);
    size_t want_dur[] = {3, 2, 1, 4, 0};
    for (int i = 0; i < 5; i++)
        assert_int_equal(r[i], want_dur[i]);
    char *num[] = {"160", "8", "1000", "32"};
    report_rank_values(num, 4, r);
    size_t want_num[] = {2, 0, 3, 1};
    for (int i = 0; i < 4; i++)
        assert_int_equal(r[i], want_num[i]);
    char *size[] = {"1GiB", "512MiB", "2GB"};
    report_rank_values(size, 3, r);
    size_t want_size[] = {1, 0, 2};
    for (int i = 0; i < 3; i++)
        assert_int_equal(r[i], want_size[i]);
    /* words in strcmp order, whatever order they come in; a missing value
     * goes last */
    char *word[] = {"ring", NULL, "mod", "ketama"};
    report_rank_values(word, 4, r);
    size_t want_word[] = {2, 3, 1, 0};
    for (int i = 0; i < 4; i++)
        assert_int_equal(r[i], want_word[i]);
}

static void test_class_values(void **state)
{
    (void)state;
    size_t r[6], c[6];
    /* one duration written several ways is one value, shown the way that
     * comes first in strcmp order, whatever the order given */
    char *dur[] = {"5s", "0s", "5000ms", "0", "1m", NULL};
    assert_int_equal(report_class_values(dur, 6, r, c), 1);
    size_t want_r[] = {1, 0, 1, 0, 2, 3}, want_c[] = {2, 3, 2, 3, 4, 5};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(r[i], want_r[i]);
        assert_int_equal(c[i], want_c[i]);
    }
    char *num[] = {"100", "8", "1e2"};
    assert_int_equal(report_class_values(num, 3, r, c), 0);
    assert_int_equal(r[0], r[2]);
    assert_int_equal(c[0], 0);
    assert_int_equal(c[2], 0);
    assert_true(r[1] < r[0]);
    char *size[] = {"1KiB", "1024", "1KB"};
    assert_int_equal(report_class_values(size, 3, r, c), 2);
    assert_int_equal(r[0], r[1]);
    assert_int_not_equal(r[0], r[2]);
    /* text is one value only byte for byte */
    char *word[] = {"ring", "Ring", "ring"};
    assert_int_equal(report_class_values(word, 3, r, c), 3);
    assert_int_equal(r[0], r[2]);
    assert_int_not_equal(r[0], r[1]);
    assert_true(report_same_value("0", "0s", 1));
    assert_true(report_same_value("5s", "5000ms", 1));
    assert_false(report_same_value("5s", "5", 3));
    assert_false(report_same_value("5s", NULL, 1));
}

static void test_metrics(void **state)
{
    (void)state;
    assert_null(report_metric_stray_display());
    struct report_metric m;
    for (size_t i = 0; i < report_n_default_metrics; i++)
        assert_int_equal(report_metric_get(report_default_metrics[i], &m), 0);
    assert_int_equal(report_metric_get("cascade_removals", &m), 0);
    assert_true(m.count_with && m.integer);
    assert_int_equal(report_metric_get("recovery_s", &m), 0);
    assert_string_equal(m.null_word, "never");
    assert_false(m.integer);
    assert_int_equal(report_metric_get("min_hit_rate", &m), 0);
    near(m.scale, 100, "a share is shown as %");
    assert_int_equal(report_metric_get("no_such", &m), -1);
    assert_true(report_n_metrics() >= 22);
}

/* ---- whole reports of a database written here -------------------------------- */

static char dir[] = "/tmp/ringsim-report-XXXXXX";
static char db[128];

static void exec_sql(sqlite3 *h, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
}

/* A run with params "path=value;..." (may be empty) and summary values
 * (NAN: NULL). status NULL: complete. */
static void add_run(sqlite3 *h, int id, int seed, const char *status, const char *params,
                    const char *yaml, double cascade, double recovery, double min_hit)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "INSERT INTO runs(run_id, name, seed, scenario_yaml, overrides, version, started_at, "
             "wall_s, status) VALUES(%d, 'cascade', %d, '%s', '[]', 'test', '', 0, '%s')",
             id, seed, yaml ? yaml : "", status ? status : "complete");
    exec_sql(h, sql);
    char *copy = strdup(params), *save = NULL;
    for (char *p = strtok_r(copy, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(p, '=');
        *eq = '\0';
        snprintf(sql, sizeof sql, "INSERT INTO params VALUES(%d, '%s', '%s')", id, p, eq + 1);
        exec_sql(h, sql);
    }
    free(copy);
    char rec[32];
    if (isnan(recovery))
        snprintf(rec, sizeof rec, "NULL");
    else
        snprintf(rec, sizeof rec, "%.17g", recovery);
    snprintf(sql, sizeof sql,
             "INSERT INTO summary(run_id, cascade_removals, recovery_s, min_hit_rate, "
             "db_overload_s) VALUES(%d, %.0f, %s, %.17g, %.17g)",
             id, cascade, rec, min_hit, cascade > 0 ? 12.0 : 0.0);
    exec_sql(h, sql);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(db, sizeof db, "%s/r.db", dir);
    char err[256];
    struct results *r = results_open(db, err, sizeof err); /* the schema */
    if (!r)
        return -1;
    results_close(r);
    sqlite3 *h;
    if (sqlite3_open(db, &h) != SQLITE_OK)
        return -1;
    exec_sql(h, "BEGIN");
    /* 15s before 12s in run order: the report orders by value */
    const double c15[] = {0, 0, 0, 2}, r15[] = {10, 10, 10, 13}, h15[] = {0.8, 0.75, 0.7, 0.15};
    const double c12[] = {0, 0, 29, 28}, r12[] = {10, 12, NAN, NAN}, h12[] = {0.75, 0.7, 0, 0};
    for (int s = 0; s < 4; s++) {
        char p[128];
        snprintf(p, sizeof p, "routing.vnodes=1000;health.cooldown=15s;seed=%d", s + 1);
        add_run(h, 1 + s, s + 1, NULL, p, NULL, c15[s], r15[s], h15[s]);
    }
    for (int s = 0; s < 4; s++) {
        char p[128];
        /* the last run of 12s does not say its cooldown: its stored scenario does */
        if (s < 3)
            snprintf(p, sizeof p, "routing.vnodes=1000;health.cooldown=12s;seed=%d", s + 1);
        else
            snprintf(p, sizeof p, "routing.vnodes=1000;seed=%d", s + 1);
        add_run(h, 5 + s, s + 1, NULL, p, s == 3 ? "health:\n  cooldown: 12s\n" : NULL, c12[s],
                r12[s], h12[s]);
    }
    /* an interrupted run is left out */
    add_run(h, 9, 1, "interrupted", "routing.vnodes=1000;health.cooldown=30s;seed=1", NULL, 5, 1,
            0.5);
    exec_sql(h, "COMMIT");
    sqlite3_close(h);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

static struct report *load(const char *const *metrics, size_t n_metrics, const char *baseline)
{
    struct report_options o = {db, NULL, 0, metrics, n_metrics, baseline};
    struct report *r = NULL;
    char err[1024];
    enum report_status st = report_load(&o, &r, err, sizeof err);
    if (st != REPORT_OK)
        fail_msg("report_load: %s", err);
    return r;
}

static const char *const three[] = {"cascade_removals", "recovery_s", "min_hit_rate"};

static void test_report_groups(void **state)
{
    (void)state;
    struct report *r = load(three, 3, NULL);
    /* seed and the fixed vnodes do not make combinations */
    assert_int_equal(r->n_by, 1);
    assert_string_equal(r->by[0], "health.cooldown");
    assert_int_equal(r->n_fixed, 1);
    assert_string_equal(r->fixed_paths[0], "routing.vnodes");
    assert_string_equal(r->fixed_values[0], "1000");
    assert_int_equal(r->n_runs, 8);
    assert_int_equal(r->notes.n, 1); /* the interrupted run */
    assert_non_null(strstr(r->notes.msgs[0], "1 run left out: not complete (interrupted)"));
    assert_int_equal(r->n_groups, 2);
    assert_string_equal(r->groups[0].values[0], "12s");
    assert_string_equal(r->groups[1].values[0], "15s");
    assert_int_equal(r->groups[0].n_runs, 4); /* with the run that did not say 12s */

    const struct metric_stats *c12 = &r->groups[0].stats[0], *c15 = &r->groups[1].stats[0];
    assert_int_equal(c12->with, 2);
    assert_int_equal(c15->with, 1);
    near(c12->mean, 14.25, "cascades at 12s");
    /* sd of 0 0 29 28: mean 14.25, squares 203.0625 x2 + 217.5625 + 189.0625 */
    double sd = sqrt((2 * 203.0625 + 217.5625 + 189.0625) / 3);
    near(c12->ci_lo, 14.25 - T975_3 * sd / 2, "cascade ci_lo at 12s");
    near(c12->ci_hi, 14.25 + T975_3 * sd / 2, "cascade ci_hi at 12s");
    near(c12->min, 0, "min");
    near(c12->max, 29, "max");

    const struct metric_stats *r12 = &r->groups[0].stats[1], *r15 = &r->groups[1].stats[1];
    assert_int_equal(r12->n, 2); /* never in 2/4 */
    assert_int_equal(r12->runs, 4);
    near(r12->mean, 11, "recovery of the two that recovered");
    near(r12->ci_hi, 11 + T975_1, "its ci_hi"); /* sd sqrt(2) over sqrt(2) */
    assert_int_equal(r15->n, 4);
    near(r15->mean, 10.75, "recovery at 15s");
    report_destroy(r);
}

static void test_report_baseline(void **state)
{
    (void)state;
    struct report *r = load(three, 3, "health.cooldown=12s");
    assert_int_equal(r->groups[0].baseline, 0);
    assert_int_equal(r->groups[1].baseline, 0);
    /* cascades 15s - 12s by seed: 0-0, 0-0, 0-29, 2-28 */
    const struct diff_stats *d = &r->groups[1].diff[0];
    assert_int_equal(d->pairs, 4);
    double dd[] = {0, 0, -29, -26}, m = -55.0 / 4, ss = 0;
    for (int i = 0; i < 4; i++)
        ss += (dd[i] - m) * (dd[i] - m);
    near(d->mean, m, "paired mean");
    near(d->ci_lo, m - T975_3 * sqrt(ss / 3) / 2, "paired ci_lo");
    near(d->ci_hi, m + T975_3 * sqrt(ss / 3) / 2, "paired ci_hi");
    /* recovery: only seeds 1 and 2 recovered at 12s: 10-10, 10-12 */
    const struct diff_stats *dr = &r->groups[1].diff[1];
    assert_int_equal(dr->pairs, 2);
    near(dr->mean, -1, "paired recovery");
    near(r->groups[0].diff[0].mean, 0, "the baseline against itself");
    report_destroy(r);
}

/* A parameter varied but not a --by path is pooled; with --baseline each of
 * its values is paired with itself: (seed, cooldown) with (seed, cooldown).
 * A run recorded twice is a repeat: noted, counted in the statistics, left
 * out of the pairs. */
static void test_report_pooled_baseline(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/pooled.db", dir);
    char err[1024];
    struct results *res = results_open(path, err, sizeof err);
    assert_non_null(res);
    results_close(res);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    exec_sql(h, "BEGIN");
    /* min_hit_rate = vnodes/100 + cooldown/10 + seed/1000 (+ 0.0005 at
     * vnodes 40, cooldown 5s, seed 2): each pair differs by 0.3 but one */
    int id = 1;
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < 2; c++)
            for (int seed = 1; seed <= 2; seed++) {
                int vnodes = v ? 40 : 10, cool = c ? 5 : 0;
                char p[128];
                /* a seed row on one side only (a --set seed=, or the file's) */
                int len = snprintf(p, sizeof p, "routing.vnodes=%d;health.cooldown=%ds", vnodes,
                                   cool);
                if (v)
                    snprintf(p + len, sizeof p - (size_t)len, ";seed=%d", seed);
                double m = vnodes / 100.0 + cool / 10.0 + seed / 1000.0
                           + (v && c && seed == 2 ? 0.0005 : 0);
                add_run(h, id++, seed, NULL, p, NULL, 0, 1, m);
                if (!v && c && seed == 1) /* recorded twice */
                    add_run(h, id++, seed, NULL, p, NULL, 0, 1, m);
            }
    exec_sql(h, "COMMIT");
    sqlite3_close(h);

    const char *by[] = {"routing.vnodes"};
    const char *metric[] = {"min_hit_rate"};
    struct report_options o = {path, by, 1, metric, 1, "routing.vnodes=10"};
    struct report *r = NULL;
    assert_int_equal(report_load(&o, &r, err, sizeof err), REPORT_OK);
    assert_int_equal(r->n_groups, 2);
    assert_int_equal(r->groups[0].n_runs, 5); /* the repeat counts in the statistics */
    assert_int_equal(r->groups[1].n_runs, 4);
    const struct diff_stats *d = &r->groups[1].diff[0];
    assert_int_equal(d->pairs, 4);
    /* differences 0.3, 0.3, 0.3, 0.3005: paired across cooldowns they would
     * differ by 0.5 or 0.1 */
    near(d->mean, 0.3 + 0.0005 / 4, "pooled paired mean");
    double m = 0.3 + 0.0005 / 4, ss = 3 * (0.3 - m) * (0.3 - m) + (0.3005 - m) * (0.3005 - m);
    near(d->ci_hi - d->mean, T975_3 * sqrt(ss / 3) / 2, "pooled paired ci");
    assert_int_equal(r->groups[0].diff[0].pairs, 4);
    bool noted = false;
    for (size_t i = 0; i < r->notes.n; i++)
        noted |= strstr(r->notes.msgs[i], "1 run repeats a seed and the parameters of another")
                 && strstr(r->notes.msgs[i], "only the first is paired");
    assert_true(noted);
    report_destroy(r);
}

static char *print(const struct report *r, void (*fn)(const struct report *, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(r, f);
    fclose(f);
    return buf;
}

static void test_report_print(void **state)
{
    (void)state;
    struct report *r = load(three, 3, "health.cooldown=12s");
    char *json = print(r, report_print_json);
    assert_non_null(strstr(json, "\"params\":{\"health.cooldown\":\"12s\"},\"runs\":4,"
                                 "\"seeds\":[1,2,3,4],\"metrics\":{\"cascade_removals\":"
                                 "{\"mean\":14.25,"));
    assert_non_null(strstr(json, "\"recovery_s\":{\"mean\":11,\"ci95\":["));
    assert_non_null(strstr(json, "\"n\":2,\"nulls\":2"));
    /* both counts, db_overload_s not asked for among the metrics */
    assert_non_null(strstr(json, "\"runs_with\":{\"cascade_removals\":2,\"db_overload_s\":"));
    assert_non_null(strstr(json, "\"runs_with\":{\"cascade_removals\":1,\"db_overload_s\":"));
    assert_non_null(strstr(json, "\"diff\":{\"mean\":-13.75,\"ci95\":["));
    free(json);
    char *csv = print(r, report_print_csv);
    assert_non_null(strstr(csv, "scenario,health.cooldown,runs,metric,n,nulls,mean,ci95_lo,"
                                "ci95_hi,min,max,runs_with,diff_mean,diff_ci95_lo,"
                                "diff_ci95_hi,pairs\r\n"));
    assert_non_null(strstr(csv, "\r\ncascade,12s,4,cascade_removals,4,0,14.25,"));
    assert_non_null(strstr(csv, "\r\ncascade,12s,4,recovery_s,2,2,11,"));
    free(csv);
    char *table = print(r, report_print_table);
    assert_non_null(strstr(table, "happened"));
    assert_non_null(strstr(table, "never"));
    assert_non_null(strstr(table, "2/4"));
    assert_non_null(strstr(table, "baseline"));
    free(table);
    report_destroy(r);
}

static void test_report_errors(void **state)
{
    (void)state;
    char err[1024];
    struct report *r = NULL;
    const char *bad_metric[] = {"hit_rat"};
    struct report_options o = {db, NULL, 0, bad_metric, 1, NULL};
    assert_int_equal(report_load(&o, &r, err, sizeof err), REPORT_BAD_INPUT);
    assert_non_null(strstr(err, "--metric hit_rat: not a column"));
    assert_null(r);
    struct report_options b = {db, NULL, 0, NULL, 0, "health.cooldown=99s"};
    assert_int_equal(report_load(&b, &r, err, sizeof err), REPORT_BAD_INPUT);
    assert_non_null(strstr(err, "its values: 12s, 15s"));
    struct report_options c = {db, NULL, 0, NULL, 0, "routing.vnodes=1000"};
    assert_int_equal(report_load(&c, &r, err, sizeof err), REPORT_BAD_INPUT);
    assert_non_null(strstr(err, "add --by routing.vnodes"));
    const char *by[] = {"no.such.path"};
    struct report_options d = {db, by, 1, NULL, 0, NULL};
    assert_int_equal(report_load(&d, &r, err, sizeof err), REPORT_BAD_INPUT);
    /* a file that does not exist: bad usage (exit 2), as in run, check and plot */
    struct report_options e = {"/nonexistent/x.db", NULL, 0, NULL, 0, NULL};
    assert_int_equal(report_load(&e, &r, err, sizeof err), REPORT_BAD_INPUT);
    assert_non_null(strstr(err, "cannot read"));
    /* --by a fixed parameter: one combination of every run */
    const char *by_v[] = {"routing.vnodes"};
    struct report_options f = {db, by_v, 1, NULL, 0, NULL};
    assert_int_equal(report_load(&f, &r, err, sizeof err), REPORT_OK);
    assert_int_equal(r->n_groups, 1);
    assert_int_equal(r->groups[0].n_runs, 8);
    assert_non_null(strstr(r->notes.msgs[r->notes.n - 1], "health.cooldown also varies"));
    report_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t_quantiles),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_paired),
        cmocka_unit_test(test_rank_values),
        cmocka_unit_test(test_class_values),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_report_groups),
        cmocka_unit_test(test_report_baseline),
        cmocka_unit_test(test_report_pooled_baseline),
        cmocka_unit_test(test_report_print),
        cmocka_unit_test(test_report_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
