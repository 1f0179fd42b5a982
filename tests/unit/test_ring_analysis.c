/* Unit tests: the static analysis behind `ringsim ring` and the key-name
 * pattern (models/placement/ring_analysis.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <openssl/sha.h>

#include "models/placement/ring_analysis.h"
#include "sim/util.h"

static void render(const char *fmt, uint64_t i, const char *want)
{
    struct key_format kf;
    const char *why = key_format_init(&kf, fmt);
    if (why)
        fail_msg("\"%s\" rejected: %s", fmt, why);
    char *buf = xmalloc(kf.max_len + 1);
    size_t n = key_format_render(&kf, i, buf, kf.max_len + 1);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
    assert_true(n <= kf.max_len);
    free(buf);
    key_format_deinit(&kf);
}

static void test_key_format_render(void **state)
{
    (void)state;
    render("key-%06d", 42, "key-000042");
    render("key-%d", 1234567, "key-1234567");
    render("%u", 0, "0");
    render("user:%x", 50255, "user:c44f");
    render("U%X!", 255, "UFF!");
    render("%#x", 255, "0xff");
    render("100%% %i%%", 7, "100% 7%");
    render("%-5d|", 3, "3    |");
    render("%+d", 3, "+3");
    render("%.3d", 5, "005");
}

static void test_key_format_render_lengths(void **state)
{
    (void)state;
    /* the number is printed whole, whatever its size */
    render("k%d", 5000000000ULL, "k5000000000");
    render("k%u", 300, "k300");
    render("%64d", 1, "                                                               1");
    /* a length modifier is refused: the workload prints ids with the pattern as given */
    const char *bad[] = {"k%ld", "k%hhu", "k%zu", "k%lld", "k%jd", "k%td", "k%hd"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        struct key_format kf;
        const char *why = key_format_init(&kf, bad[i]);
        if (!why || !strstr(why, "length modifier"))
            fail_msg("\"%s\": %s", bad[i], why ? why : "accepted");
    }
}

static void test_key_format_errors(void **state)
{
    (void)state;
    const char *bad[] = {"",       "key",        "key-%s",  "%d-%d",   "%c",    "%f",
                         "%n",     "%*d",        "%.*d",    "%1$d",    "%65d",  "%.65d",
                         "key-%",  "%#d",        "%p",      "%ll",     "%%d",
                         "k%o",    "%#u"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        struct key_format kf;
        const char *why = key_format_init(&kf, bad[i]);
        if (!why)
            fail_msg("\"%s\" was accepted", bad[i]);
    }
    struct key_format kf;
    assert_non_null(key_format_init(&kf, NULL));
    assert_non_null(strstr(key_format_init(&kf, "key-%s"), "integer"));
    assert_non_null(strstr(key_format_init(&kf, "key"), "no integer conversion"));
    /* at most KEY_FORMAT_MAX_LEN (200) characters, as a scenario's workload.key_format */
    char long_fmt[KEY_FORMAT_MAX_LEN + 8];
    memset(long_fmt, 'x', KEY_FORMAT_MAX_LEN - 2);
    strcpy(long_fmt + KEY_FORMAT_MAX_LEN - 2, "%d"); /* 200 characters */
    assert_null(key_format_init(&kf, long_fmt));
    key_format_deinit(&kf);
    strcpy(long_fmt + KEY_FORMAT_MAX_LEN - 2, "x%d"); /* 201 */
    assert_non_null(strstr(key_format_init(&kf, long_fmt), "longer than 200"));
}

static struct ring_input input(place_algo a, const struct place_member *b, size_t nb,
                               const struct place_member *af, size_t na)
{
    struct ring_input in = {.before = b, .n_before = nb, .after = af, .n_after = na,
                            .key_format = "key-%06d", .key_start = 0, .key_count = 100000};
    place_params_default(&in.params, a);
    return in;
}

static const struct place_member ABC[] = {{"A", NULL, 1, 0}, {"B", NULL, 1, 0}, {"C", NULL, 1, 0}};
static const struct place_member ABCD[] = {
    {"A", NULL, 1, 0}, {"B", NULL, 1, 0}, {"C", NULL, 1, 0}, {"D", NULL, 1, 0}};

static void test_known_answers(void **state)
{
    (void)state;
    struct ring_input in = input(PLACE_RING, ABC, 3, ABCD, 4);
    in.params.vnodes = 512;
    struct ring_result r;
    char err[256];
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_int_equal(r.n_nodes, 4);
    assert_string_equal(r.nodes[3].id, "D");
    assert_false(r.nodes[3].in_before);
    assert_int_equal(r.nodes[0].keys_before, 33873);
    assert_int_equal(r.nodes[1].keys_before, 33307);
    assert_int_equal(r.nodes[2].keys_before, 32820);
    assert_int_equal(r.nodes[0].keys_after, 25451);
    assert_int_equal(r.nodes[1].keys_after, 25627);
    assert_int_equal(r.nodes[2].keys_after, 24193);
    assert_int_equal(r.nodes[3].keys_after, 24729);
    assert_int_equal(r.moved, 24729);
    assert_int_equal(r.moved_between_old, 0);
    assert_int_equal(r.moved_to_new, 24729);
    assert_int_equal(r.moved_from_removed, 0);
    assert_true(fabs(r.moved_ideal - 0.25) < 1e-12);
    assert_true(fabs(r.before.max_over_avg - 33873 / (100000 / 3.0)) < 1e-9);
    assert_true(fabs(r.before.max_over_min - 33873.0 / 32820) < 1e-9);
    assert_true(fabs(r.after.max_over_avg - 25627 / 25000.0) < 1e-9);
    assert_true(fabs(r.before.share_rel_std - 1 / sqrt(512.0)) < 1e-12);
    assert_true(fabs(r.before.share_std - 1 / (3 * sqrt(512.0))) < 1e-12);
    double sum = 0;
    for (size_t i = 0; i < 4; i++)
        sum += r.nodes[i].space_after;
    assert_true(fabs(sum - 1) < 1e-9);
    ring_result_deinit(&r);

    in = input(PLACE_MOD, ABC, 3, ABCD, 4);
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_int_equal(r.moved, 75273);
    assert_true(r.before.space_max_over_avg == 1.0);
    ring_result_deinit(&r);
}

/* ---- keys looked up by name: against a ring built here from the convention
 * alone (sha256, "%s#%d", first 8 digest bytes big-endian, points sorted by
 * (position, id), a key's owner the first point at or after it) ---------- */

struct ref_point {
    uint64_t pos;
    const char *id;
};

static uint64_t sha256_pos(const void *data, size_t len)
{
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256(data, len, d);
    uint64_t p = 0;
    for (int i = 0; i < 8; i++)
        p = p << 8 | d[i];
    return p;
}

static int ref_point_cmp(const void *a, const void *b)
{
    const struct ref_point *x = a, *y = b;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* The 512-vnode sha256 ring of ids[0..n), sorted; caller frees. */
static struct ref_point *ref_ring(const char *const *ids, size_t n)
{
    struct ref_point *r = calloc(n * 512, sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < n; i++)
        for (int v = 0; v < 512; v++) {
            char name[32];
            int len = snprintf(name, sizeof name, "%s#%d", ids[i], v);
            r[i * 512 + (size_t)v] = (struct ref_point){sha256_pos(name, (size_t)len), ids[i]};
        }
    qsort(r, n * 512, sizeof *r, ref_point_cmp);
    return r;
}

static const char *ref_owner(const struct ref_point *r, size_t n, uint64_t pos)
{
    for (size_t i = 0; i < n; i++) /* a linear scan: plainly the first point at or after */
        if (r[i].pos >= pos)
            return r[i].id;
    return r[0].id;
}

static void test_lookups_known_answers(void **state)
{
    (void)state;
    static const char *const abc[] = {"A", "B", "C"}, *const abcd[] = {"A", "B", "C", "D"};
    struct ref_point *rb = ref_ring(abc, 3), *ra = ref_ring(abcd, 4);
    /* keys of every kind: the known-answer pattern, a user key, the empty key,
     * a NUL inside, bytes that are not UTF-8, a long key */
    static char longkey[KEY_MAX_BYTES];
    memset(longkey, 'x', sizeof longkey);
    struct ring_key keys[64] = {{"user:42", 7}, {"", 0}, {"a\0b", 3}, {"\xff\xfe", 2},
                                {longkey, sizeof longkey}};
    char names[64][16];
    size_t n = 5;
    for (; n < ARRAY_LEN(keys); n++) {
        snprintf(names[n], sizeof names[n], "key-%06zu", n * 1000);
        keys[n] = (struct ring_key){names[n], strlen(names[n])};
    }
    struct ring_input in = input(PLACE_RING, ABC, 3, ABCD, 4);
    in.params.vnodes = 512;
    in.key_count = 1000;
    in.lookup = keys;
    in.n_lookup = n;
    struct ring_result r;
    char err[256];
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_int_equal(r.n_lookups, n);
    size_t moved = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ring_lookup *l = &r.lookups[i];
        uint64_t pos = sha256_pos(keys[i].bytes, keys[i].len);
        assert_true(l->position == pos);
        assert_string_equal(r.nodes[l->owner_before].id, ref_owner(rb, 3 * 512, pos));
        assert_string_equal(r.nodes[l->owner_after].id, ref_owner(ra, 4 * 512, pos));
        /* a join moves keys only to the new node */
        if (l->owner_before != l->owner_after) {
            assert_string_equal(r.nodes[l->owner_after].id, "D");
            moved++;
        }
    }
    assert_true(moved > 0 && moved < n); /* a quarter, about: some move, not all */
    /* user:42, computed by hand from the convention above */
    assert_string_equal(r.nodes[r.lookups[0].owner_before].id, ref_owner(rb, 3 * 512,
                                                                         sha256_pos("user:42", 7)));
    ring_result_deinit(&r);
    free(rb);
    free(ra);
}

/* Looking up every analysed key one by one gives the analysis's own counts:
 * 33873/33307/32820 before, 24729 moved (the known answers). */
static void test_lookups_agree_with_counts(void **state)
{
    (void)state;
    size_t n = 100000;
    struct ring_key *keys = calloc(n, sizeof *keys);
    char (*names)[16] = calloc(n, sizeof *names);
    assert_true(keys && names);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "key-%06zu", i);
        keys[i] = (struct ring_key){names[i], 10};
    }
    struct ring_input in = input(PLACE_RING, ABC, 3, ABCD, 4);
    in.params.vnodes = 512;
    in.lookup = keys;
    in.n_lookup = n;
    struct ring_result r;
    char err[256];
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    uint64_t before[4] = {0}, after[4] = {0}, moved = 0;
    for (size_t i = 0; i < n; i++) {
        before[r.lookups[i].owner_before]++;
        after[r.lookups[i].owner_after]++;
        moved += r.lookups[i].owner_before != r.lookups[i].owner_after;
    }
    assert_int_equal(before[0], 33873);
    assert_int_equal(before[1], 33307);
    assert_int_equal(before[2], 32820);
    assert_int_equal(after[3], 24729);
    assert_int_equal(moved, 24729);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(before[i], r.nodes[i].keys_before);
        assert_int_equal(after[i], r.nodes[i].keys_after);
    }
    /* 512 points each, the points that weights round to */
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(r.nodes[i].points_after, 512);
    assert_int_equal(r.nodes[3].points_before, 0);
    ring_result_deinit(&r);

    /* slots: the position is the slot (CRC16-XMODEM & 16383, hash tags honoured) */
    in = input(PLACE_SLOTS, ABC, 3, ABCD, 4);
    struct ring_key tagged[] = {{"{user42}.a", 10}, {"{user42}.b", 10}, {"foo", 3}};
    in.key_count = 100;
    in.lookup = tagged;
    in.n_lookup = 3;
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_true(r.lookups[0].position == r.lookups[1].position);
    assert_true(r.lookups[2].position == 12182); /* Redis: CLUSTER KEYSLOT foo */
    assert_true(r.lookups[0].position < 16384);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(r.nodes[i].points_after, 4096);
    uint64_t slots = 0;
    for (size_t i = 0; i < 3; i++) {
        assert_true(r.nodes[i].points_before == 5461 || r.nodes[i].points_before == 5462);
        slots += r.nodes[i].points_before;
    }
    assert_int_equal(slots, 16384);
    ring_result_deinit(&r);
    free(keys);
    free(names);
}

static void test_no_change(void **state)
{
    (void)state;
    for (int a = 0; a < PLACE_COUNT; a++) {
        struct ring_input in = input((place_algo)a, ABCD, 4, NULL, 0);
        in.key_count = 5000;
        struct ring_result r;
        char err[256];
        assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
        assert_false(r.has_after);
        assert_int_equal(r.moved, 0);
        uint64_t total = 0;
        for (size_t i = 0; i < r.n_nodes; i++) {
            assert_true(r.nodes[i].in_after);
            assert_int_equal(r.nodes[i].keys_before, r.nodes[i].keys_after);
            total += r.nodes[i].keys_before;
        }
        assert_int_equal(total, 5000);
        assert_true(r.after.max_over_avg == r.before.max_over_avg);
        ring_result_deinit(&r);
    }
}

static void test_removal_and_replacement(void **state)
{
    (void)state;
    static const struct place_member ABD[] = {{"A", NULL, 1, 0}, {"B", NULL, 1, 0},
                                              {"D", NULL, 1, 0}};
    struct ring_input in = input(PLACE_RING, ABC, 3, ABD, 3);
    struct ring_result r;
    char err[256];
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    /* C's keys leave (to D, A and B), D also takes keys from A and B, and
     * nothing moves between A and B */
    assert_int_equal(r.moved_between_old, 0);
    assert_true(r.moved_to_new > 0); /* keys of A and B that D takes */
    assert_int_equal(r.moved_from_removed, r.nodes[2].keys_before);
    assert_true(r.nodes[3].keys_after > 0);
    assert_true(fabs(r.moved_ideal - 1 / 3.0) < 1e-12);
    ring_result_deinit(&r);
}

static void test_bounded_caps(void **state)
{
    (void)state;
    struct ring_input in = input(PLACE_BOUNDED, ABC, 3, ABCD, 4);
    in.params.vnodes = 20;
    in.params.load_factor = 1.05;
    struct ring_result r;
    char err[256];
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_int_equal(r.before.cap, 35000); /* ceil(1.05 × 100000 / 3) */
    assert_int_equal(r.after.cap, 26250);
    for (size_t i = 0; i < r.n_nodes; i++) {
        assert_true(r.nodes[i].keys_before <= r.before.cap);
        assert_true(r.nodes[i].keys_after <= r.after.cap);
    }
    assert_true(r.before.max_over_avg <= 1.05 + 1e-9);
    ring_result_deinit(&r);
}

static void test_weights_and_tables(void **state)
{
    (void)state;
    static const struct place_member W[] = {{"A", NULL, 1, 0}, {"B", NULL, 3, 0}};
    struct ring_input in = input(PLACE_RENDEZVOUS, W, 2, NULL, 0);
    struct ring_result r;
    char err[256];
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_true(fabs(r.nodes[1].space_before - 0.75) < 1e-12);
    assert_true(fabs((double)r.nodes[1].keys_before / 100000 - 0.75) < 0.01);
    assert_true(r.before.max_over_fair < 1.02);
    assert_true(r.before.max_over_avg > 1.4); /* raw max/avg ignores weights */
    ring_result_deinit(&r);

    in = input(PLACE_MAGLEV, ABC, 3, ABCD, 4);
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_int_equal(r.before.table_size, 65537);
    assert_int_equal(r.before.table_min, 21845);
    assert_int_equal(r.before.table_max, 21846);
    assert_int_equal(r.after.table_min, 16384);
    assert_int_equal(r.after.table_max, 16385);
    ring_result_deinit(&r);

    in = input(PLACE_SLOTS, ABC, 3, ABCD, 4);
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_int_equal(r.before.table_min, 5461);
    assert_int_equal(r.before.table_max, 5462);
    assert_int_equal(r.after.table_min, 4096);
    assert_int_equal(r.after.table_max, 4096);
    assert_int_equal(r.moved_between_old, 0);
    ring_result_deinit(&r);

    in = input(PLACE_KETAMA, ABC, 3, NULL, 0);
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), 0);
    assert_true(r.before.points_per_node == 160);
    ring_result_deinit(&r);
}

static void test_errors(void **state)
{
    (void)state;
    struct ring_result r;
    char err[256];
    struct ring_input in = input(PLACE_RING, ABC, 3, NULL, 0);
    in.key_format = "key-%s";
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "key format"));
    in = input(PLACE_RING, ABC, 3, NULL, 0);
    in.key_count = 0;
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), -1);
    in = input(PLACE_RING, ABC, 0, NULL, 0);
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), -1);
    static const struct place_member DUP[] = {{"A", NULL, 1, 0}, {"A", NULL, 1, 0}};
    in = input(PLACE_RING, ABC, 3, DUP, 2);
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "after: "));
    assert_non_null(strstr(err, "twice"));
    in = input(PLACE_RING, DUP, 2, NULL, 0);
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "before: "));
    in = input(PLACE_RING, ABC, 3, NULL, 0);
    in.params.vnodes = 0;
    assert_int_equal(ring_analyze(&in, &r, err, sizeof err), -1);
    assert_null(r.nodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_format_render_lengths),
        cmocka_unit_test(test_key_format_errors),
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_lookups_known_answers),
        cmocka_unit_test(test_lookups_agree_with_counts),
        cmocka_unit_test(test_no_change),
        cmocka_unit_test(test_removal_and_replacement),
        cmocka_unit_test(test_bounded_caps),
        cmocka_unit_test(test_weights_and_tables),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_key_format_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
