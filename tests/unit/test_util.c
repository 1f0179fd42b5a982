/* Unit tests: unit parsers and small helpers (sim/util.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/util.h"

static void test_duration_units(void **state)
{
    (void)state;
    int64_t ns;
    assert_int_equal(parse_duration("0", &ns), 0);
    assert_int_equal(ns, 0);
    assert_int_equal(parse_duration("20us", &ns), 0);
    assert_int_equal(ns, 20000);
    assert_int_equal(parse_duration("1.5s", &ns), 0);
    assert_int_equal(ns, 1500000000LL);
    assert_int_equal(parse_duration("2m", &ns), 0);
    assert_int_equal(ns, 120 * NS_PER_S);
    assert_int_equal(parse_duration("1h", &ns), 0);
    assert_int_equal(ns, 3600 * NS_PER_S);
    assert_int_equal(parse_duration("0.000001s", &ns), 0);
    assert_int_equal(ns, 1000);
    assert_int_equal(parse_duration("7ns", &ns), 0);
    assert_int_equal(ns, 7);
}

static void test_duration_errors(void **state)
{
    (void)state;
    int64_t ns;
    const char *bad[] = {"", "5", "s", "1.5", "-1s", "10 s", "1x", "1e3s", "0.5.5s",
                         "99999999999999999999999999999999x"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_int_equal(parse_duration(bad[i], &ns), PARSE_BAD);
    /* the form is right, the value is not: told apart, for the messages */
    const char *large[] = {"99999999999999999999h", "2562048h", "9223372036854775808ns",
                           "99999999999999999999999999999999999s"};
    for (size_t i = 0; i < ARRAY_LEN(large); i++)
        assert_int_equal(parse_duration(large[i], &ns), PARSE_TOO_LARGE);
    assert_int_equal(parse_duration("9223372036854775807ns", &ns), 0);
    assert_int_equal(ns, INT64_MAX);
    assert_int_equal(parse_duration("1.5ns", &ns), PARSE_NOT_WHOLE);
    /* the products of these wrapped past 2^128 and were once taken as small values */
    assert_int_equal(parse_duration("1267650600228229401496.703205376h", &ns), PARSE_TOO_LARGE);
    assert_int_equal(parse_duration("0.0000000001s", &ns), PARSE_NOT_WHOLE);
}

static void test_sizes(void **state)
{
    (void)state;
    uint64_t b;
    assert_int_equal(parse_size("1GiB", &b), 0);
    assert_int_equal(b, 1ULL << 30);
    assert_int_equal(parse_size("1GB", &b), 0);
    assert_int_equal(b, 1000000000ULL);
    assert_int_equal(parse_size("1.5KiB", &b), 0);
    assert_int_equal(b, 1536);
    assert_int_equal(parse_size("1024", &b), 0);
    assert_int_equal(b, 1024);
    assert_int_equal(parse_size("10B", &b), 0);
    assert_int_equal(b, 10);
    assert_int_equal(parse_size("1.5B", &b), PARSE_NOT_WHOLE);
    assert_int_equal(parse_size("1 GiB", &b), PARSE_BAD);
    assert_int_equal(parse_size("1gib", &b), PARSE_BAD);
    assert_int_equal(parse_size("GiB", &b), PARSE_BAD);
    assert_int_equal(parse_size("8388608TiB", &b), PARSE_TOO_LARGE);
    /* (2^88 + 5^9) x 2^40 wraps past 2^128 to 5^9 x 2^40, a whole number of
     * bytes: once read as 2GiB; likewise (2^98 + 5^9) GiB */
    assert_int_equal(parse_size("309485009821345068.726734181TiB", &b), PARSE_TOO_LARGE);
    assert_int_equal(parse_size("316912650057057350374.177754469GiB", &b), PARSE_TOO_LARGE);
    assert_int_equal(parse_size("8388607TiB", &b), 0);
    assert_int_equal(b, 8388607ULL << 40);
}

static void test_integers(void **state)
{
    (void)state;
    uint64_t v;
    int64_t s;
    assert_int_equal(parse_u64("100000", &v), 0);
    assert_int_equal(v, 100000);
    assert_int_equal(parse_u64("1_000_000", &v), 0);
    assert_int_equal(v, 1000000);
    assert_int_equal(parse_u64("1e6", &v), 0);
    assert_int_equal(v, 1000000);
    assert_int_equal(parse_u64("2.5e3", &v), 0);
    assert_int_equal(v, 2500);
    assert_int_equal(parse_u64("2.5e0", &v), PARSE_NOT_WHOLE);
    assert_int_equal(parse_u64("many", &v), PARSE_BAD);
    assert_int_equal(parse_u64("-1", &v), PARSE_BAD);
    assert_int_equal(parse_u64("1.0", &v), PARSE_BAD);
    assert_int_equal(parse_u64("1e", &v), PARSE_BAD);
    assert_int_equal(parse_u64("99999999999999999999", &v), PARSE_TOO_LARGE);
    assert_int_equal(parse_u64("18446744073709551616", &v), PARSE_TOO_LARGE);
    assert_int_equal(parse_u64("1e20", &v), PARSE_TOO_LARGE);
    /* m x 10^19 wrapped past 2^128 to a multiple of 10^9: once read as 9859827712 */
    assert_int_equal(parse_u64("66461399789245793.645190354e19", &v), PARSE_TOO_LARGE);
    assert_int_equal(parse_u64("18446744073709551615", &v), 0); /* every digit counts */
    assert_int_equal(v, UINT64_MAX);
    assert_int_equal(parse_u64("18_446_744_073_709_551_610", &v), 0);
    assert_int_equal(v, UINT64_MAX - 5);
    assert_int_equal(parse_i64("-42", &s), 0);
    assert_int_equal(s, -42);
}

static void test_doubles(void **state)
{
    (void)state;
    double d;
    assert_int_equal(parse_double("0.99", &d), 0);
    assert_true(d == 0.99);
    assert_int_equal(parse_double("1e4", &d), 0);
    assert_true(d == 1e4);
    assert_int_equal(parse_double("nan", &d), -1);
    assert_int_equal(parse_double("inf", &d), -1);
    assert_int_equal(parse_double("0x10", &d), -1);
    assert_int_equal(parse_double("1e999", &d), PARSE_TOO_LARGE);
    assert_int_equal(parse_double("-1e999", &d), PARSE_TOO_LARGE);
    assert_int_equal(parse_double("1e-400", &d), PARSE_TOO_SMALL);
    assert_int_equal(parse_double("1e-400x", &d), PARSE_BAD);
    assert_int_equal(parse_double("", &d), -1);
    /* every digit of a long number counts (it was cut at 127 characters:
     * 0.000...05 read as 0, 1000...0 as 1e126) */
    char longer[300] = "0.";
    memset(longer + 2, '0', 200);
    strcpy(longer + 202, "5");
    assert_int_equal(parse_double(longer, &d), 0);
    assert_true(d > 4.9e-201 && d < 5.1e-201);
    memset(longer, '0', 250);
    longer[0] = '1';
    longer[250] = '\0';
    assert_int_equal(parse_double(longer, &d), 0);
    assert_true(d == 1e249);
}

static void test_format_duration(void **state)
{
    (void)state;
    char b[32];
    format_duration(60 * NS_PER_S, b, sizeof b);
    assert_string_equal(b, "1m");
    format_duration(1500 * NS_PER_MS, b, sizeof b);
    assert_string_equal(b, "1500ms");
    format_duration(0, b, sizeof b);
    assert_string_equal(b, "0s");
    int64_t back;
    format_duration(123456789, b, sizeof b);
    assert_int_equal(parse_duration(b, &back), 0);
    assert_int_equal(back, 123456789);
}

static void test_strbuf_json(void **state)
{
    (void)state;
    struct strbuf sb;
    sb_init(&sb);
    sb_json_str(&sb, "a\"b\\c\n\x01");
    assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\n\\u0001\"");
    sb_reset(&sb);
    /* valid UTF-8 stays as it is; each byte that is not UTF-8 becomes U+FFFD */
    sb_json_str(&sb, "cl\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x99\x82");
    assert_string_equal(sb.buf, "\"cl\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x99\x82\"");
    sb_reset(&sb);
    sb_json_str(&sb, "k\xff-\xc3(-\xc0\xaf-\xed\xa0\x80-\xf4\x90\x80\x80-\xe2\x82");
    assert_string_equal(sb.buf, "\"k\\ufffd-\\ufffd(-\\ufffd\\ufffd-\\ufffd\\ufffd\\ufffd-"
                                "\\ufffd\\ufffd\\ufffd\\ufffd-\\ufffd\\ufffd\"");
    sb_reset(&sb);
    const unsigned char ok[] = "\xe2\x82\xac", bad[] = "\x80", over[] = "\xe0\x80\x80";
    assert_int_equal(utf8_char_len(ok), 3);
    assert_int_equal(utf8_char_len(bad), 0);
    assert_int_equal(utf8_char_len(over), 0);
    /* bounded: a character must end within the bytes given */
    assert_int_equal(utf8_char_len_n(ok, 3), 3);
    assert_int_equal(utf8_char_len_n(ok, 2), 0);
    assert_int_equal(utf8_char_len_n(ok, 0), 0);
    assert_int_equal(utf8_char_len_n((const unsigned char *)"a", 1), 1);
    /* with a length: NUL bytes are \u0000, a character cut by the length is not one */
    sb_reset(&sb);
    sb_json_strn(&sb, "a\0b\xe2\x82\xac", 6);
    assert_string_equal(sb.buf, "\"a\\u0000b\xe2\x82\xac\"");
    sb_reset(&sb);
    sb_json_strn(&sb, "x\xe2\x82\xac", 3);
    assert_string_equal(sb.buf, "\"x\\ufffd\\ufffd\"");
    sb_reset(&sb);
    sb_json_strn(&sb, "", 0);
    assert_string_equal(sb.buf, "\"\"");
    sb_reset(&sb);
    for (int i = 0; i < 1000; i++)
        sb_printf(&sb, "%d,", i);
    assert_int_equal(strncmp(sb.buf, "0,1,2,", 6), 0);
    assert_int_equal(sb.len, strlen(sb.buf));
    sb_deinit(&sb);
}

/* Cache-line blocks: aligned to 64 bytes and the whole last line theirs
 * (writing it all must not touch a neighbour: valgrind and ASan see that);
 * zeroed by line_calloc; an impossible size is NULL, not an abort. */
static void test_line_blocks(void **state)
{
    (void)state;
    size_t sizes[] = {0, 1, 24, 63, 64, 65, 4096 + 8};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t rounded = (sizes[i] + 63) / 64 * 64;
        unsigned char *p = line_alloc(sizes[i]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 64, 0);
        memset(p, 0xa5, rounded ? rounded : 64);
        free(p);
        unsigned char *z = line_calloc(1, sizes[i]);
        assert_int_equal((uintptr_t)z % 64, 0);
        for (size_t j = 0; j < rounded; j++)
            assert_int_equal(z[j], 0);
        memset(z, 0x5a, rounded ? rounded : 64);
        free(z);
    }
    assert_null(line_alloc(SIZE_MAX - 10));
}

/* Decimals past the ninth that still make a whole number of the base unit
 * were refused as "not a whole number": 0.0000000001h is 360 ns,
 * 0.0000000001TB 100 bytes, 1.2345678901e10 the integer 12345678901. */
static void test_long_decimals(void **state)
{
    (void)state;
    int64_t ns;
    uint64_t b, v;
    assert_int_equal(parse_duration("0.0000000001h", &ns), 0);
    assert_int_equal(ns, 360);
    assert_int_equal(parse_duration("1.0000000001h", &ns), 0);
    assert_int_equal(ns, 3600000000360LL);
    assert_int_equal(parse_duration("0.000000000000001h", &ns), PARSE_NOT_WHOLE);
    assert_int_equal(parse_duration("1.0000000000000000001h", &ns), PARSE_NOT_WHOLE);
    assert_int_equal(parse_duration("0.00000000001s", &ns), PARSE_NOT_WHOLE);
    assert_int_equal(parse_size("0.0000000001TB", &b), 0);
    assert_int_equal(b, 100);
    assert_int_equal(parse_u64("1.2345678901e10", &v), 0);
    assert_int_equal(v, 12345678901ULL);
    assert_int_equal(parse_u64("9.223372036854775807e18", &v), 0);
    assert_int_equal(v, (uint64_t)INT64_MAX);
    assert_int_equal(parse_u64("9.223372036854775808e18", &v), PARSE_TOO_LARGE);
    assert_int_equal(parse_u64("1.0000000001e9", &v), PARSE_NOT_WHOLE);
    /* an integer part past 2^64 is too large whatever follows */
    assert_int_equal(parse_duration("18446744073709551617.5ns", &ns), PARSE_TOO_LARGE);
}

/* '_' separates digits in durations, sizes and numbers as in integers
 * (100_000): only between two digits. "1_s", "1__0s", "_1" and "0.5_"
 * were once read as 1s, 10s, 1 and 0.5. */
static void test_digit_separators(void **state)
{
    (void)state;
    int64_t ns;
    uint64_t b;
    double d;
    assert_int_equal(parse_duration("1_000s", &ns), 0);
    assert_int_equal(ns, 1000 * NS_PER_S);
    assert_int_equal(parse_size("10_24KiB", &b), 0);
    assert_int_equal(b, 1024u * 1024u);
    assert_int_equal(parse_double("1_000.5", &d), 0);
    assert_true(d == 1000.5);
    const char *bad_dur[] = {"_1s", "1_s", "1__0s", "1_.5s", "1._5s"};
    for (size_t i = 0; i < ARRAY_LEN(bad_dur); i++)
        assert_int_equal(parse_duration(bad_dur[i], &ns), PARSE_BAD);
    const char *bad_size[] = {"_1B", "1_KB", "1__0B", "1_"};
    for (size_t i = 0; i < ARRAY_LEN(bad_size); i++)
        assert_int_not_equal(parse_size(bad_size[i], &b), 0);
    const char *bad_num[] = {"_1", "1_", "1__0", "0.5_", "1_.5", "1_e1", "-_1"};
    for (size_t i = 0; i < ARRAY_LEN(bad_num); i++)
        assert_int_equal(parse_double(bad_num[i], &d), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration_units),
        cmocka_unit_test(test_digit_separators),
        cmocka_unit_test(test_long_decimals), cmocka_unit_test(test_duration_errors),
        cmocka_unit_test(test_sizes),          cmocka_unit_test(test_integers),
        cmocka_unit_test(test_doubles),        cmocka_unit_test(test_format_duration),
        cmocka_unit_test(test_strbuf_json),    cmocka_unit_test(test_line_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
