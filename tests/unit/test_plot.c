/* Unit tests: the pure helpers of `ringsim plot` (plots/plot_text.c):
 * escaping for gnuplot data files and HTML, UTF-8 cutting, number and id
 * formatting, --run parsing, label staggering, event labels; and of its
 * sweeps (plots/plot_sweep.c): when a database is one, where values go on
 * an axis, what a point or cell says, the layout of a grid and its data
 * file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "output/report.h"
#include "plots/plot.h"

static char *tsv(const char *s)
{
    struct strbuf sb;
    sb_init(&sb);
    tsv_field(&sb, s);
    return sb_steal(&sb);
}

static char *html(const char *s)
{
    struct strbuf sb;
    sb_init(&sb);
    html_text(&sb, s);
    return sb_steal(&sb);
}

#define ASSERT_TSV(in, want)                 \
    do {                                     \
        char *got_ = tsv(in);                \
        assert_string_equal(got_, want);     \
        free(got_);                          \
    } while (0)

#define ASSERT_HTML(in, want)                \
    do {                                     \
        char *got_ = html(in);               \
        assert_string_equal(got_, want);     \
        free(got_);                          \
    } while (0)

static void test_tsv_field(void **state)
{
    (void)state;
    ASSERT_TSV("plain", "plain");
    ASSERT_TSV("", "");
    ASSERT_TSV(NULL, "");
    /* one field, one line, whatever the input */
    ASSERT_TSV("a\tb\nc\rd", "a b c d");
    ASSERT_TSV("\x01\x1f\x7f", "   ");
    /* a double quote would end gnuplot's field: it travels as \042, and a
     * backslash (gnuplot expands escapes in text fields) as \\ */
    ASSERT_TSV("x'\"; system(\"touch pwned\"); print \"",
               "x'\\042; system(\\042touch pwned\\042); print \\042");
    ASSERT_TSV("say \"hi\"", "say \\042hi\\042");
    ASSERT_TSV("a\\nb \\042 \\", "a\\\\nb \\\\042 \\\\");
    /* everything else is data and kept */
    ASSERT_TSV("`touch x` $(y) @m #c ;", "`touch x` $(y) @m #c ;");
    ASSERT_TSV("caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93");
    /* invalid UTF-8: stray continuation, truncated sequence, overlong, surrogate */
    ASSERT_TSV("a\x80z", "a?z");
    ASSERT_TSV("a\xe2\x9c", "a??");
    ASSERT_TSV("\xc0\xaf", "??");
    ASSERT_TSV("\xed\xa0\x80", "???");
    ASSERT_TSV("\xf4\x90\x80\x80", "????");
}

static void test_html_text(void **state)
{
    (void)state;
    ASSERT_HTML("a < b && c > \"d\" 'e'", "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;");
    ASSERT_HTML("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    ASSERT_HTML("&amp;", "&amp;amp;");
    ASSERT_HTML("tab\there\n", "tab here ");
    ASSERT_HTML("x\xffy", "x\xef\xbf\xbdy");
    ASSERT_HTML("\xe2\x86\x92 ok", "\xe2\x86\x92 ok");
    ASSERT_HTML(NULL, "");
}

static void test_utf8(void **state)
{
    (void)state;
    assert_int_equal(utf8_chars(""), 0);
    assert_int_equal(utf8_chars("abc"), 3);
    assert_int_equal(utf8_chars("caf\xc3\xa9"), 4);
    assert_int_equal(utf8_chars("\xe2\x9c\x93\xf0\x9f\x99\x82"), 2);
    assert_int_equal(utf8_chars("a\xff"), 2);

    char s[64];
    strcpy(s, "short");
    utf8_truncate(s, 10);
    assert_string_equal(s, "short");
    strcpy(s, "exactly10!");
    utf8_truncate(s, 10);
    assert_string_equal(s, "exactly10!");
    strcpy(s, "abcdefghijkl");
    utf8_truncate(s, 5);
    assert_string_equal(s, "abcd\xe2\x80\xa6");
    assert_int_equal(utf8_chars(s), 5);
    /* never splits a sequence */
    strcpy(s, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    utf8_truncate(s, 3);
    assert_string_equal(s, "\xc3\xa9\xc3\xa9\xe2\x80\xa6");
    /* two one-byte characters cut leave no room for the ellipsis: one fewer kept */
    strcpy(s, "abcdef");
    utf8_truncate(s, 5);
    assert_string_equal(s, "abc\xe2\x80\xa6");
    assert_true(utf8_chars(s) <= 5);
    strcpy(s, "ab");
    utf8_truncate(s, 1);
    assert_true(utf8_chars(s) <= 1);
    strcpy(s, "abc");
    utf8_truncate(s, 0);
    assert_string_equal(s, "");
}

static void test_format_count(void **state)
{
    (void)state;
    char b[32];
    format_count(b, sizeof b, 0);
    assert_string_equal(b, "0");
    format_count(b, sizeof b, 999);
    assert_string_equal(b, "999");
    format_count(b, sizeof b, 1000);
    assert_string_equal(b, "1,000");
    format_count(b, sizeof b, 24729);
    assert_string_equal(b, "24,729");
    format_count(b, sizeof b, 2997029);
    assert_string_equal(b, "2,997,029");
    format_count(b, sizeof b, -1234567);
    assert_string_equal(b, "-1,234,567");
    format_count(b, sizeof b, INT64_MIN);
    assert_string_equal(b, "-9,223,372,036,854,775,808");
}

static void test_run_list(void **state)
{
    (void)state;
    char err[256];
    int64_t *ids = NULL;
    size_t n = 0;
    assert_int_equal(parse_run_list("3", &ids, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(ids[0], 3);
    assert_int_equal(parse_run_list("5,1-2,3,2", &ids, &n, err, sizeof err), 0);
    assert_int_equal(n, 4); /* 3 5 1 2, duplicates dropped, order kept */
    assert_int_equal(ids[0], 3);
    assert_int_equal(ids[1], 5);
    assert_int_equal(ids[2], 1);
    assert_int_equal(ids[3], 2);
    const char *bad[] = {"", "x", "1,", ",1", "1-", "-1", "3-1", "1,,2", "1 ", "1.5",
                         "99999999999999999999", "1-200000"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        err[0] = '\0';
        assert_int_equal(parse_run_list(bad[i], &ids, &n, err, sizeof err), -1);
        assert_true(strlen(err) > 0);
    }
    free(ids);

    struct strbuf sb;
    sb_init(&sb);
    int64_t list[] = {1, 2, 3, 7, 9, 10};
    format_id_list(&sb, list, ARRAY_LEN(list));
    assert_string_equal(sb.buf, "1-3, 7, 9-10");
    sb_reset(&sb);
    format_id_list(&sb, list + 3, 1);
    assert_string_equal(sb.buf, "7");
    sb_reset(&sb);
    format_id_list(&sb, list, 0);
    assert_string_equal(sb.buf, "");
    sb_deinit(&sb);
}

/* No label overlaps another in its lane, and no leader line (at x[j], from
 * lane 0 up to lane level[j]) passes through a label in a lower lane,
 * except one that starts at the same x. */
static void check_layout(const double *x, const double *w, size_t n, double gap,
                         const int *level)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (level[i] == level[j])
                assert_true(x[i] + w[i] + gap <= x[j]);
            if (level[i] < level[j] && x[i] < x[j])
                assert_true(x[i] + w[i] + gap <= x[j]);
        }
}

static void test_stagger(void **state)
{
    (void)state;
    int level[64];
    /* apart: one lane */
    double x1[] = {0, 10, 20}, w1[] = {5, 5, 5};
    assert_int_equal(stagger_levels(x1, w1, 3, 1, 5, level), 1);
    assert_int_equal(level[0], 0);
    assert_int_equal(level[2], 0);
    /* a burst steps down from the top lane */
    double x2[] = {0, 2, 4}, w2[] = {10, 10, 10};
    assert_int_equal(stagger_levels(x2, w2, 3, 1, 5, level), 3);
    assert_int_equal(level[0], 2);
    assert_int_equal(level[1], 1);
    assert_int_equal(level[2], 0);
    check_layout(x2, w2, 3, 1, level);
    /* events at the same time share a leader line */
    double x3[] = {5, 5, 30}, w3[] = {10, 10, 10};
    assert_int_equal(stagger_levels(x3, w3, 3, 1, 5, level), 2);
    assert_true(level[0] != level[1]);
    check_layout(x3, w3, 3, 1, level);
    /* none */
    assert_int_equal(stagger_levels(NULL, NULL, 0, 1, 5, level), 0);
    /* more than fit: every label still gets a lane within the limit */
    double x4[8], w4[8];
    for (int i = 0; i < 8; i++) {
        x4[i] = i;
        w4[i] = 100;
    }
    assert_int_equal(stagger_levels(x4, w4, 8, 1, 3, level), 3);
    for (int i = 0; i < 8; i++)
        assert_true(level[i] >= 0 && level[i] < 3);

    /* random layouts that fit: the invariant holds */
    uint64_t seed = 42;
    for (int round = 0; round < 500; round++) {
        double x[40], w[40], t = 0;
        size_t n = 1 + (mix64(seed++) % 40);
        for (size_t i = 0; i < n; i++) {
            t += (double)(mix64(seed++) % 20);
            x[i] = t;
            w[i] = 1 + (double)(mix64(seed++) % 30);
        }
        int used = stagger_levels(x, w, n, 0.5, PLOT_MAX_LEVELS, level);
        assert_true(used >= 1 && used <= PLOT_MAX_LEVELS);
        if (used < PLOT_MAX_LEVELS)
            check_layout(x, w, n, 0.5, level);
    }
}

static void test_event_label(void **state)
{
    (void)state;
    struct {
        const char *kind, *node, *detail, *want;
    } cases[] = {
        {"add_node", "D", "address 10.0.0.4:11211, weight 1", "add D"},
        {"warm_done", "D", "23546 copies", "in ring D"},
        {"drain_done", "A", "4282 copies", "out of ring A"},
        {"set_routing", NULL, "hash=xxh64", "routing"},
        {"remove_node", "A", "", "remove A"},
        {"slow_node", "B", "service x20", "slow B"},
        {"slow_node_end", "B", "back to normal speed", "end slow B"},
        {"crash_node", "C", NULL, "crash C"},
        {"restart_node", "C", "back, empty", "restart C"},
        {"split_brain", NULL, "instances 0,1", "split brain"},
        {"split_brain_end", NULL, "", "end split brain"},
        {"set_qps", NULL, "25000 requests per second", "qps 25000"},
        {"set_qps", NULL, "faster", "set qps"},
        {"set_address", "B", "10.0.0.9:11211", "address B"},
        {"hot_key", NULL, "key-000007 takes 30% of requests", "hot key"},
        {"hot_key_end", NULL, "", "end hot key"},
        {"migrate_slots", "A", "1365 slots to D at 2000 keys a second", "migrate A"},
        {"migrate_done", "A", "1365 of 1365 slots moved to D", "migrated A"},
        {"migrate_cancel", "A", "stopped: the target is down", "migration stopped A"},
        {"set_qps", NULL, "20000 requests per second in 5m (a ramp)", "qps 20000"},
        {"shift_popularity", NULL, "popularity ranks move to other keys", "popularity shift"},
        {"trace_end", NULL, "30 requests of 4 keys replayed from t.csv", "trace end"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char *got = event_label(cases[i].kind, cases[i].node, cases[i].detail);
        assert_non_null(got);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
    const char *model[] = {"eject", "readmit", "epoch", "adopt", "cascade_removal",
                           "stale_overwrite", "eject_held", "migrate_start"};
    for (size_t i = 0; i < ARRAY_LEN(model); i++)
        assert_null(event_label(model[i], "A", "x"));
}

static void test_looks_like_sweep(void **state)
{
    (void)state;
    /* ringsim sweep --vary x=a,b --seeds 4: 8 runs, 2 combinations of 4 */
    assert_true(plot_looks_like_sweep(8, 1, 2, 4));
    /* --seeds 1 over 12 values: too many runs to overlay */
    assert_true(plot_looks_like_sweep(12, 1, 12, 1));
    /* two runs, ring and mod (run --set): drawn over time */
    assert_false(plot_looks_like_sweep(2, 1, 2, 1));
    assert_false(plot_looks_like_sweep(PLOT_DEFAULT_RUNS, 1, PLOT_DEFAULT_RUNS, 1));
    assert_true(plot_looks_like_sweep(PLOT_DEFAULT_RUNS + 1, 1, PLOT_DEFAULT_RUNS + 1, 1));
    /* seeds of one setting only, or nothing varies: not a sweep */
    assert_false(plot_looks_like_sweep(4, 1, 1, 4));
    assert_false(plot_looks_like_sweep(8, 0, 2, 4));
}

static void test_sweep_axis(void **state)
{
    (void)state;
    double pos[4];
    char *num[] = {"64", "8", "1e3", "0.5"};
    assert_int_equal(sweep_axis(num, 4, pos), SWEEP_NUMBER);
    assert_true(pos[0] == 64 && pos[1] == 8 && pos[2] == 1000 && pos[3] == 0.5);
    char *dur[] = {"12s", "500ms", "1m", "0s"};
    assert_int_equal(sweep_axis(dur, 4, pos), SWEEP_DURATION);
    assert_true(pos[0] == 12 && pos[1] == 0.5 && pos[2] == 60 && pos[3] == 0);
    char *size[] = {"1KiB", "2MB", "100"};
    /* "100" alone would be a number: the first kind every value has */
    assert_int_equal(sweep_axis(size, 3, pos), SWEEP_SIZE);
    assert_true(pos[0] == 1024 && pos[1] == 2e6 && pos[2] == 100);
    char *cat[] = {"ring", "maglev", "mod"}; /* categories in strcmp order */
    assert_int_equal(sweep_axis(cat, 3, pos), SWEEP_CATEGORY);
    assert_true(pos[0] == 3 && pos[1] == 1 && pos[2] == 2);
    /* a run without the parameter makes categories, it last */
    char *gap[] = {NULL, "8", "64"};
    assert_int_equal(sweep_axis(gap, 3, pos), SWEEP_CATEGORY);
    assert_true(pos[0] == 3 && pos[1] == 1 && pos[2] == 2);
    char *mixed[] = {"10s", "64"};
    assert_int_equal(sweep_axis(mixed, 2, pos), SWEEP_CATEGORY);
    assert_string_equal(sweep_axis_kind_name(SWEEP_DURATION), "duration");
}

static void test_sweep_cell(void **state)
{
    (void)state;
    struct report_metric m;
    char value[48], note[48];
    double cell;
    /* cascade removals: coloured by the share of runs that cascaded */
    assert_int_equal(report_metric_get("cascade_removals", &m), 0);
    double cas[] = {0, 0, 29, 28};
    struct metric_stats s;
    stats_describe(cas, 4, &s);
    sweep_cell(&m, &s, &cell, value, sizeof value, note, sizeof note);
    assert_true(cell == 50);
    assert_string_equal(value, "14.25");
    assert_string_equal(note, "2/4");
    /* a share: the mean as %, no note */
    assert_int_equal(report_metric_get("min_hit_rate", &m), 0);
    double mh[] = {0.75, 0.70};
    stats_describe(mh, 2, &s);
    sweep_cell(&m, &s, &cell, value, sizeof value, note, sizeof note);
    assert_true(fabs(cell - 72.5) < 1e-12);
    assert_string_equal(value, "72.50");
    assert_string_equal(note, "");
    /* runs that never recovered are counted, not averaged */
    assert_int_equal(report_metric_get("recovery_s", &m), 0);
    double rec[] = {10, NAN, 12, NAN};
    stats_describe(rec, 4, &s);
    sweep_cell(&m, &s, &cell, value, sizeof value, note, sizeof note);
    assert_true(cell == 11);
    assert_string_equal(value, "11.0");
    assert_string_equal(note, "never 2/4");
    double none[] = {NAN, NAN};
    stats_describe(none, 2, &s);
    sweep_cell(&m, &s, &cell, value, sizeof value, note, sizeof note);
    assert_true(isnan(cell));
    assert_string_equal(value, "-");
    assert_string_equal(note, "never 2/2");
}

/* A report made by hand: groups of (vnodes, cooldown) in report order,
 * one metric, cascade_removals; the cell (160, 30s) has no runs. */
struct fake_report {
    struct report r;
    struct report_group g[5];
    struct metric_stats st[5];
    char *vals[5][2];
    char *by[2];
    char *names[1];
    struct report_metric m;
};

static void fake_report_init(struct fake_report *f)
{
    memset(f, 0, sizeof(*f));
    static char *const cells[5][2] = {
        {"160", "0s"}, {"160", "12s"}, {"1000", "0s"}, {"1000", "12s"}, {"1000", "30s"}};
    const double with[5] = {4, 3, 4, 2, 0};
    f->by[0] = "routing.vnodes";
    f->by[1] = "health.cooldown";
    f->names[0] = "cascade";
    assert_int_equal(report_metric_get("cascade_removals", &f->m), 0);
    for (size_t g = 0; g < 5; g++) {
        f->vals[g][0] = cells[g][0];
        f->vals[g][1] = cells[g][1];
        double v[4];
        for (size_t i = 0; i < 4; i++)
            v[i] = i < with[g] ? 10.0 + (double)(g + i) : 0;
        stats_describe(v, 4, &f->st[g]);
        f->g[g] = (struct report_group){.name = f->names[0], .values = f->vals[g],
                                        .n_runs = 4, .stats = &f->st[g], .baseline = -1};
    }
    f->r = (struct report){.db_path = "x.db", .by = f->by, .n_by = 2, .metrics = &f->m,
                           .n_metrics = 1, .n_runs = 20, .groups = f->g, .n_groups = 5,
                           .names = f->names, .n_names = 1};
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    struct strbuf sb;
    sb_init(&sb);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&sb, buf, n);
    fclose(f);
    return sb_steal(&sb);
}

static void test_sweep_layout(void **state)
{
    (void)state;
    struct fake_report f;
    fake_report_init(&f);
    char err[512];
    struct plot_sweep *sw = plot_sweep_create(&f.r, err, sizeof err);
    assert_non_null(sw);
    assert_int_equal(sw->n_axes, 2);
    assert_int_equal(sw->axis[0].kind, SWEEP_NUMBER);
    assert_int_equal(sw->axis[0].n, 2);
    assert_string_equal(sw->axis[0].values[1], "1000");
    assert_int_equal(sw->axis[1].kind, SWEEP_DURATION);
    assert_int_equal(sw->axis[1].n, 3);
    assert_string_equal(sw->axis[1].values[0], "0s");
    assert_string_equal(sw->axis[1].values[2], "30s");
    assert_true(sw->axis[1].pos[1] == 12);
    assert_int_equal(sw->at[0][3], 1);
    assert_int_equal(sw->at[1][3], 1);
    assert_int_equal(sw->at[1][4], 2);

    /* the grid, y-major, the cell without runs NaN; the numbers as report --csv */
    char dir[] = "/tmp/ringsim-test-plot-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(plot_sweep_write_data(sw, dir, err, sizeof err), 0);
    char *path = xasprintf("%s/sweep-cascade_removals.tsv", dir);
    char *text = read_text(path);
    const char *head = "series\tx\ty\truns\tn\tnulls\tmean\tci95_lo\tci95_hi\tmin\tmax"
                       "\truns_with\tcell\tvalue\tnote\txvalue\tyvalue\n";
    assert_int_equal(strncmp(text, head, strlen(head)), 0);
    /* rows: (160, 0s) = group 0, (1000, 0s) = group 2, (160, 12s) = group 1, ... */
    const size_t row_group[] = {0, 2, 1, 3};
    const char *line = text + strlen(head);
    for (size_t i = 0; i < ARRAY_LEN(row_group); i++) {
        const struct metric_stats *st = &f.st[row_group[i]];
        char *end;
        double v[13];
        const char *p = line;
        for (size_t c = 0; c < 13; c++) {
            v[c] = strtod(p, &end);
            assert_true(*end == '\t');
            p = end + 1;
        }
        assert_true(v[0] == 1 && v[1] == (double)(i % 2) && v[2] == (double)(i / 2));
        assert_true(v[3] == 4 && v[4] == 4 && v[5] == 0);
        /* read back, the very doubles of the report */
        assert_true(v[6] == st->mean && v[7] == st->ci_lo && v[8] == st->ci_hi);
        assert_true(v[9] == st->min && v[10] == st->max && v[11] == (double)st->with);
        assert_true(v[12] == 25.0 * (double)st->with);
        line = strchr(line, '\n') + 1;
    }
    const char *row1 = "1\t0\t0\t4\t4\t0\t11.5\t";
    assert_int_equal(strncmp(text + strlen(head), row1, strlen(row1)), 0);
    assert_non_null(strstr(text, "\t11.50\t4/4\t160\t0s\n"));
    assert_non_null(strstr(text, "\t6.75\t2/4\t1000\t12s\n"));
    assert_non_null(strstr(text, "\n1\t0\t2\t0\t0\t0\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN"
                                 "\t\t\t160\t30s\n"));
    assert_non_null(strstr(text, "\t0\t0\t0\t0\t0\t0\t0\t0.00\t0/4\t1000\t30s\n"));
    free(text);
    free(path);
    const char *files[] = {"sweep-cascade_removals.tsv", "sweep-metrics.tsv", "sweep-axes.tsv",
                           "sweep-series.tsv"};
    for (size_t i = 0; i < ARRAY_LEN(files); i++) {
        path = xasprintf("%s/%s", dir, files[i]);
        if (i == 2) {
            text = read_text(path);
            assert_string_equal(text, "axis\tkind\tunit\tvalues\tpath\n"
                                      "x\tnumber\t\t2\trouting.vnodes\n"
                                      "y\tduration\ts\t3\thealth.cooldown\n");
            free(text);
        }
        assert_int_equal(unlink(path), 0);
        free(path);
    }
    rmdir(dir);
    plot_sweep_destroy(sw);

    /* more than two parameters, or none: say which to choose */
    char *three[] = {"a", "b", "c"};
    f.r.by = three;
    f.r.n_by = 3;
    assert_null(plot_sweep_create(&f.r, err, sizeof err));
    assert_non_null(strstr(err, "3 parameters vary (a, b, c)"));
    assert_non_null(strstr(err, "--by PATH"));
    f.r.n_by = 0;
    assert_null(plot_sweep_create(&f.r, err, sizeof err));
    assert_non_null(strstr(err, "no parameter varies"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsv_field),    cmocka_unit_test(test_html_text),
        cmocka_unit_test(test_utf8),         cmocka_unit_test(test_format_count),
        cmocka_unit_test(test_run_list),     cmocka_unit_test(test_stagger),
        cmocka_unit_test(test_event_label),  cmocka_unit_test(test_looks_like_sweep),
        cmocka_unit_test(test_sweep_axis),   cmocka_unit_test(test_sweep_cell),
        cmocka_unit_test(test_sweep_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
