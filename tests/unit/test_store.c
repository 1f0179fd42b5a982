/* Unit tests: the cache node's store — LRU order, capacity by items and by
 * bytes, lazy TTL expiry, set modes, and its invariants under a random
 * workload checked against a plain reference model (models/store.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "models/store.h"

#define KEYS_DEFAULT 4096

/* One node's store over a private pool of `keys` keys. */
static struct item_pool *pool_for(uint32_t keys)
{
    struct item_pool *p = malloc(sizeof(*p));
    struct key_rec *rec = calloc(keys, sizeof(*rec));
    assert_int_equal(item_pool_init(p, rec, keys), 0);
    return p;
}

static void pool_free(struct item_pool *p)
{
    free(p->keys);
    item_pool_deinit(p);
    free(p);
}

static void test_lru_eviction_by_items(void **state)
{
    (void)state;
    struct store s;
    struct item_pool *pool = pool_for(KEYS_DEFAULT);
    store_init(&s, pool, 0, 0, 3);
    for (uint32_t k = 1; k <= 3; k++)
        assert_true(store_set(&s, k, 0, 10, 0, 0, STORE_SET).stored);
    assert_non_null(store_get(&s, 1, 0, true)); /* 1 is now most recent: order 1,3,2 */
    assert_true(store_set(&s, 4, 0, 10, 0, 0, STORE_SET).stored); /* evicts 2 */
    assert_null(store_get(&s, 2, 0, true));
    assert_non_null(store_get(&s, 1, 0, true));
    assert_non_null(store_get(&s, 3, 0, true));
    assert_non_null(store_get(&s, 4, 0, true));
    assert_int_equal(s.evictions, 1);
    assert_int_equal(s.n_items, 3);
    assert_null(store_check(&s));
    pool_free(pool);
}

static void test_capacity_bytes(void **state)
{
    (void)state;
    struct store s;
    struct item_pool *pool = pool_for(KEYS_DEFAULT);
    store_init(&s, pool, 0, 100, 0);
    assert_true(store_set(&s, 1, 0, 40, 0, 0, STORE_SET).stored);
    assert_true(store_set(&s, 2, 0, 40, 0, 0, STORE_SET).stored);
    assert_true(store_set(&s, 3, 0, 40, 0, 0, STORE_SET).stored); /* evicts 1 */
    assert_int_equal(s.bytes, 80);
    assert_null(store_get(&s, 1, 0, false));
    assert_false(store_set(&s, 9, 0, 101, 0, 0, STORE_SET).stored); /* bigger than the node */
    /* growing an item in place evicts from the cold end */
    assert_true(store_set(&s, 3, 1, 90, 0, 0, STORE_SET).stored);
    assert_int_equal(s.bytes, 90);
    assert_null(store_get(&s, 2, 0, false));
    assert_null(store_check(&s));
    pool_free(pool);
}

static void test_ttl(void **state)
{
    (void)state;
    struct store s;
    struct item_pool *pool = pool_for(KEYS_DEFAULT);
    store_init(&s, pool, 0, 0, 10);
    store_set(&s, 1, 0, 1, 100, 0, STORE_SET);
    assert_non_null(store_get(&s, 1, 99, true));
    assert_null(store_get(&s, 1, 100, true)); /* expires at 100 */
    assert_int_equal(s.expirations, 1);
    assert_int_equal(s.n_items, 0);
    /* an expired item does not block ADD */
    store_set(&s, 2, 0, 1, 50, 0, STORE_SET);
    struct store_set_result r = store_set(&s, 2, 3, 1, 0, 60, STORE_ADD);
    assert_true(r.stored);
    assert_false(r.replaced);
    assert_null(store_check(&s));
    pool_free(pool);
}

static void test_modes(void **state)
{
    (void)state;
    struct store s;
    struct item_pool *pool = pool_for(KEYS_DEFAULT);
    store_init(&s, pool, 0, 0, 10);
    store_set(&s, 1, 5, 1, 0, 0, STORE_SET);
    struct store_set_result r = store_set(&s, 1, 6, 1, 0, 0, STORE_ADD);
    assert_false(r.stored);
    r = store_set(&s, 1, 4, 1, 0, 0, STORE_NEWER);
    assert_false(r.stored);
    assert_int_equal(store_get(&s, 1, 0, false)->version, 5);
    r = store_set(&s, 1, 7, 1, 0, 0, STORE_NEWER);
    assert_true(r.stored);
    assert_true(r.replaced);
    assert_int_equal(r.old_version, 5);
    r = store_set(&s, 1, 2, 1, 0, 0, STORE_SET); /* a set may go backwards: a clobber */
    assert_true(r.stored);
    assert_int_equal(r.old_version, 7);
    assert_true(store_delete(&s, 1));
    assert_false(store_delete(&s, 1));
    pool_free(pool);
}

/* FRESH (a local cache's puts): the same version again is a fresh copy, its
 * expiry set anew and at the MRU end; an older one is refused, untouched. */
static void test_fresh(void **state)
{
    (void)state;
    struct store s;
    struct item_pool *pool = pool_for(KEYS_DEFAULT);
    store_init(&s, pool, 0, 0, 2);
    assert_true(store_set(&s, 1, 5, 1, 100, 0, STORE_FRESH).stored);
    assert_true(store_set(&s, 2, 5, 1, 100, 0, STORE_FRESH).stored);
    assert_false(store_set(&s, 1, 4, 1, 170, 70, STORE_FRESH).stored); /* older */
    assert_int_equal(store_get(&s, 1, 70, false)->expire_ns, 100);
    assert_true(store_set(&s, 1, 5, 1, 180, 80, STORE_FRESH).stored); /* the same */
    assert_int_equal(store_get(&s, 1, 150, false)->expire_ns, 180);
    assert_true(store_set(&s, 3, 5, 1, 190, 90, STORE_FRESH).stored); /* evicts 2, not 1 */
    assert_null(store_get(&s, 2, 90, false));
    assert_non_null(store_get(&s, 1, 90, false));
    assert_null(store_check(&s));
    pool_free(pool);
}

static void test_append_cold(void **state)
{
    (void)state;
    struct store s;
    struct item_pool *pool = pool_for(KEYS_DEFAULT);
    store_init(&s, pool, 0, 0, 3);
    assert_true(store_append_cold(&s, 10, 0, 1, 0)); /* hottest first */
    assert_true(store_append_cold(&s, 11, 0, 1, 0));
    assert_true(store_append_cold(&s, 12, 0, 1, 0));
    assert_false(store_append_cold(&s, 13, 0, 1, 0)); /* full: no eviction */
    store_set(&s, 14, 0, 1, 0, 0, STORE_SET);          /* evicts the coldest, 12 */
    assert_null(store_get(&s, 12, 0, false));
    assert_non_null(store_get(&s, 10, 0, false));
    assert_null(store_check(&s));
    pool_free(pool);
}

/* Two nodes share the pool: the same key on both, chains kept apart. */
static void test_two_nodes_one_pool(void **state)
{
    (void)state;
    struct item_pool *pool = pool_for(100);
    struct store a, b;
    store_init(&a, pool, 0, 0, 10);
    store_init(&b, pool, 1, 0, 10);
    for (uint32_t k = 0; k < 8; k++) {
        store_set(&a, k, 1, 1, 0, 0, STORE_SET);
        store_set(&b, k, 2, 1, 0, 0, STORE_SET);
    }
    assert_int_equal(store_get(&a, 3, 0, true)->version, 1);
    assert_int_equal(store_get(&b, 3, 0, true)->version, 2);
    assert_true(store_delete(&a, 3));
    assert_null(store_get(&a, 3, 0, true));
    assert_non_null(store_get(&b, 3, 0, true));
    store_clear(&b);
    assert_int_equal(b.n_items, 0);
    assert_int_equal(a.n_items, 7);
    assert_int_equal(pool->live, 7);
    assert_non_null(store_get(&a, 5, 0, true));
    assert_null(store_check(&a));
    assert_null(store_check(&b));
    pool_free(pool);
}

/* Random operations against a reference: a plain array with recency stamps. */
static void test_random_against_reference(void **state)
{
    (void)state;
    enum { KEYS = 3000, CAP = 500, OPS = 300000 };
    struct store s;
    struct item_pool *pool = pool_for(KEYS_DEFAULT);
    store_init(&s, pool, 0, 0, CAP);
    int64_t *stamp = calloc(KEYS, sizeof(int64_t)); /* 0: absent */
    int64_t *expire = calloc(KEYS, sizeof(int64_t));
    uint64_t x = 99;
    int64_t now = 0;
    size_t present = 0;
    for (int op = 0; op < OPS; op++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t key = (uint32_t)((x >> 33) % KEYS);
        unsigned what = (unsigned)(x >> 20) % 10;
        now += 1;
        if (what < 5) {
            bool ref_hit = stamp[key] && !(expire[key] && expire[key] <= now);
            if (stamp[key] && !ref_hit) {
                stamp[key] = 0;
                present--;
            }
            struct item *it = store_get(&s, key, now, true);
            assert_int_equal(it != NULL, ref_hit);
            if (ref_hit)
                stamp[key] = now;
        } else if (what < 9) {
            int64_t exp = (x >> 40) % 4 == 0 ? now + 200 : 0;
            if (!stamp[key]) {
                if (present == CAP) { /* evict least recent */
                    uint32_t victim = 0;
                    int64_t best = INT64_MAX;
                    for (uint32_t k = 0; k < KEYS; k++)
                        if (stamp[k] && stamp[k] < best) {
                            best = stamp[k];
                            victim = k;
                        }
                    stamp[victim] = 0;
                    present--;
                }
                present++;
            }
            stamp[key] = now;
            expire[key] = exp;
            assert_true(store_set(&s, key, 0, 1, exp, now, STORE_SET).stored);
        } else {
            bool had = stamp[key] != 0;
            if (had) {
                stamp[key] = 0;
                present--;
            }
            assert_int_equal(store_delete(&s, key), had);
        }
        if (op % 5000 == 0)
            assert_null(store_check(&s));
        assert_int_equal(s.n_items, present);
    }
    assert_null(store_check(&s));
    free(stamp);
    free(expire);
    pool_free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_eviction_by_items), cmocka_unit_test(test_capacity_bytes),
        cmocka_unit_test(test_ttl),                   cmocka_unit_test(test_modes),
        cmocka_unit_test(test_fresh),
        cmocka_unit_test(test_append_cold),           cmocka_unit_test(test_two_nodes_one_pool),
        cmocka_unit_test(test_random_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
