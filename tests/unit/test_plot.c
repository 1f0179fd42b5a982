/* Unit tests: the pure helpers of `ringsim plot` (plots/plot_text.c):
 * escaping for gnuplot data files and HTML, UTF-8 cutting, number and id
 * formatting, --run parsing, label staggering, event labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

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
        {"hot_key", NULL, "key-000007 takes 0.3 of requests", "hot key"},
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsv_field),    cmocka_unit_test(test_html_text),
        cmocka_unit_test(test_utf8),         cmocka_unit_test(test_format_count),
        cmocka_unit_test(test_run_list),     cmocka_unit_test(test_stagger),
        cmocka_unit_test(test_event_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
