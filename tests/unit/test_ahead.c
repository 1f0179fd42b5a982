/* Unit tests: streams drawn ahead on the helper thread (sim/ahead.c).
 *
 * What must hold: a channel's values are exactly the stream's own draws,
 * in order, however fast the run thread takes them; detaching hands back
 * exactly the state drawing inline would have left, wherever it happens
 * (in a batch, at its edge, before anything was taken, long after the
 * helper ran ahead); and attaching again goes on from there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/ahead.h"

static uint64_t bits(double d)
{
    return ahead_double_bits(d);
}

/* A draw that uses a varying number of outputs (as the Zipf tail's
 * rejection loop does): the first uniform below 0.3, with the count of
 * tries in the top bits. */
static uint64_t draw_rejecting(const void *ctx, void *state)
{
    const double *limit = ctx;
    uint64_t tries = 0;
    double u;
    do {
        u = rng_uniform(state);
        tries++;
    } while (u >= *limit);
    return tries << 40 | (uint64_t)(u * (double)(1ull << 40));
}

/* An exponential stream (drawn ahead when a is a helper) and the same
 * stream drawn inline, for reference. */
static void exp_pair(struct exp_stream *e, struct rng *ref, uint64_t seed, const char *name,
                     struct ahead *a)
{
    exp_stream_init(e, seed, name, a);
    rng_init(ref, seed, name);
    if (a)
        assert_non_null(e->ch);
    else
        assert_null(e->ch);
}

static void test_exp_matches_inline(void **state)
{
    (void)state;
    struct ahead *a = ahead_create();
    assert_non_null(a);
    struct exp_stream e;
    struct rng ref;
    exp_pair(&e, &ref, 7, "service/n1", a);
    /* means that change from draw to draw, as a slow node's do */
    for (int i = 0; i < 300000; i++) {
        double mean = 20000.0 * (1 + i % 7);
        double got = exp_stream_draw(&e, mean), want = rng_exp(&ref, mean);
        if (bits(got) != bits(want))
            fail_msg("draw %d: %.17g, inline %.17g", i, got, want);
    }
    ahead_destroy(a);
}

/* Detached after n values taken, the stream goes on as if drawn inline. */
static void check_detach_at(struct ahead_chan *c, uint64_t n)
{
    double limit = 0.3;
    struct rng ref, st;
    rng_init(&ref, 11, "keys");
    st = ref;
    assert_int_equal(ahead_attach(c, &st, &limit), 0);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t got = ahead_take(c), want = draw_rejecting(&limit, &ref);
        if (got != want)
            fail_msg("detach at %llu: value %llu differs", (unsigned long long)n,
                     (unsigned long long)i);
    }
    ahead_detach(c, &st);
    assert_false(c->attached);
    ahead_detach(c, &st); /* detached already: nothing happens */
    for (int i = 0; i < 1000; i++)
        if (rng_next(&st) != rng_next(&ref))
            fail_msg("detach at %llu: the state handed back differs", (unsigned long long)n);
}

static void test_detach_anywhere(void **state)
{
    (void)state;
    struct ahead *a = ahead_create();
    assert_non_null(a);
    struct ahead_chan *c = ahead_chan_create(a, draw_rejecting, sizeof(struct rng));
    assert_non_null(c);
    const uint64_t at[] = {0, 1, 2, AHEAD_BATCH - 1, AHEAD_BATCH, AHEAD_BATCH + 1,
                           AHEAD_CAP / 2, AHEAD_CAP - 1, AHEAD_CAP, AHEAD_CAP + 3,
                           3 * AHEAD_CAP + AHEAD_BATCH / 2, 100000};
    for (size_t i = 0; i < ARRAY_LEN(at); i++)
        check_detach_at(c, at[i]);
    ahead_destroy(a);
}

/* Detach, draw inline, attach again, repeatedly: one unbroken stream. */
static void test_attach_detach_cycles(void **state)
{
    (void)state;
    struct ahead *a = ahead_create();
    assert_non_null(a);
    struct ahead_chan *c = ahead_chan_create(a, draw_rejecting, sizeof(struct rng));
    double limit = 0.3;
    struct rng ref, st;
    rng_init(&ref, 3, "cycles");
    st = ref;
    uint64_t n = 0;
    for (int round = 0; round < 200; round++) {
        assert_int_equal(ahead_attach(c, &st, &limit), 0);
        int take = (round * 977) % 3000;
        for (int i = 0; i < take; i++, n++)
            assert_true(ahead_take(c) == draw_rejecting(&limit, &ref));
        ahead_detach(c, &st);
        for (int i = 0; i < round % 5; i++, n++) /* some inline draws in between */
            assert_true(draw_rejecting(&limit, &st) == draw_rejecting(&limit, &ref));
    }
    assert_true(n > 100000);
    ahead_destroy(a);
}

/* Many channels taken at very different rates, as nodes' service times
 * are: every one stays exact, and the helper keeps them all going. */
static void test_many_channels(void **state)
{
    (void)state;
    struct ahead *a = ahead_create();
    assert_non_null(a);
    enum { N = 40 };
    struct exp_stream e[N];
    struct rng ref[N];
    char name[32];
    for (int j = 0; j < N; j++) {
        snprintf(name, sizeof name, "service/n%d", j);
        exp_pair(&e[j], &ref[j], 42, name, a);
    }
    struct rng pick;
    rng_init(&pick, 1, "pick");
    for (int i = 0; i < 400000; i++) {
        /* channel j taken with weight about 1 / (j + 1) */
        int j = (int)(rng_below(&pick, N * N) % (rng_below(&pick, N) + 1));
        if (bits(exp_stream_draw(&e[j], 1.0)) != bits(rng_exp(&ref[j], 1.0)))
            fail_msg("channel %d, draw %d differs", j, i);
    }
    ahead_destroy(a);
}

/* exp_stream_rng takes the stream back for draws of another kind; the
 * next exponential hands it over again: the same as all inline. */
static void test_mixed_draws(void **state)
{
    (void)state;
    struct ahead *a = ahead_create();
    assert_non_null(a);
    struct exp_stream e;
    struct rng ref;
    exp_pair(&e, &ref, 5, "arrivals", a);
    for (int i = 0; i < 20000; i++) {
        if (i % 1000 < 3) { /* a stretch of thinning, say */
            assert_true(rng_uniform(exp_stream_rng(&e)) == rng_uniform(&ref));
            assert_true(bits(rng_exp(exp_stream_rng(&e), 3.0)) == bits(rng_exp(&ref, 3.0)));
        } else {
            assert_true(bits(exp_stream_draw(&e, 3.0)) == bits(rng_exp(&ref, 3.0)));
        }
    }
    ahead_destroy(a);
}

/* Without a helper everything is drawn inline: the same values. */
static void test_no_helper(void **state)
{
    (void)state;
    struct exp_stream e;
    struct rng ref;
    exp_pair(&e, &ref, 9, "network", NULL);
    assert_null(ahead_chan_create(NULL, draw_rejecting, 4));
    for (int i = 0; i < 1000; i++)
        assert_true(bits(exp_stream_draw(&e, 2.5)) == bits(rng_exp(&ref, 2.5)));
    ahead_destroy(NULL);
}

/* A helper stopped with channels full, half taken, or never attached. */
static void test_destroy_any_time(void **state)
{
    (void)state;
    for (int k = 0; k < 20; k++) {
        struct ahead *a = ahead_create();
        assert_non_null(a);
        struct exp_stream e[3];
        for (int j = 0; j < 3; j++)
            exp_stream_init(&e[j], (uint64_t)k, "s", a);
        for (int i = 0; i < k * 500; i++)
            (void)exp_stream_draw(&e[i % 2], 1.0);
        ahead_destroy(a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp_matches_inline),
        cmocka_unit_test(test_detach_anywhere),
        cmocka_unit_test(test_attach_detach_cycles),
        cmocka_unit_test(test_many_channels),
        cmocka_unit_test(test_mixed_draws),
        cmocka_unit_test(test_no_helper),
        cmocka_unit_test(test_destroy_any_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
