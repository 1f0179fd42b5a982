/*
 * store.c — LRU + TTL + versions for one cache node (see store.h).
 *
 * Index: linear probing at load <= 1/2, multiplicative hashing of the key
 * id (Fibonacci hashing), deletion by backward shift so no tombstones ever
 * accumulate. Items: a slot array with a free list; it doubles when full, so
 * memory follows what the node actually holds, not its nominal capacity.
 */
#include "models/store.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

static inline uint32_t index_home(const struct store *s, uint32_t key)
{
    return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 32) & s->index_mask;
}

static int index_alloc(struct store *s, uint32_t size)
{
    struct store_slot *ix = malloc((size_t)size * sizeof(*ix));
    if (!ix)
        return -1;
    for (uint32_t i = 0; i < size; i++)
        ix[i].item = STORE_NIL;
    s->index = ix;
    s->index_mask = size - 1;
    return 0;
}

int store_init(struct store *s, uint64_t capacity_bytes, uint64_t capacity_items)
{
    memset(s, 0, sizeof(*s));
    s->capacity_bytes = capacity_bytes;
    s->capacity_items = capacity_items;
    s->items_cap = 64;
    s->items = malloc(s->items_cap * sizeof(*s->items));
    s->free_head = STORE_NIL;
    s->head = s->tail = STORE_NIL;
    if (!s->items || index_alloc(s, 128)) {
        store_deinit(s);
        return -1;
    }
    return 0;
}

void store_deinit(struct store *s)
{
    free(s->items);
    free(s->index);
    s->items = NULL;
    s->index = NULL;
}

void store_clear(struct store *s)
{
    for (uint32_t i = 0; i <= s->index_mask; i++)
        s->index[i].item = STORE_NIL;
    s->n_items = 0;
    s->high_water = 0;
    s->free_head = STORE_NIL;
    s->head = s->tail = STORE_NIL;
    s->bytes = 0;
}

/* Slot of key in the index, or the empty slot where it would go. */
static inline uint32_t index_find(const struct store *s, uint32_t key)
{
    uint32_t i = index_home(s, key);
    while (s->index[i].item != STORE_NIL && s->index[i].key != key)
        i = (i + 1) & s->index_mask;
    return i;
}

static void index_remove_at(struct store *s, uint32_t i)
{
    /* backward-shift deletion: pull later entries of the cluster into the hole */
    uint32_t mask = s->index_mask, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (s->index[j].item == STORE_NIL)
            break;
        uint32_t home = index_home(s, s->index[j].key);
        /* entry j may move to i if its home is not in (i, j] cyclically */
        bool in_range = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            s->index[i] = s->index[j];
            i = j;
        }
    }
    s->index[i].item = STORE_NIL;
}

static int index_grow(struct store *s)
{
    struct store_slot *old = s->index;
    uint32_t old_size = s->index_mask + 1;
    if (index_alloc(s, old_size * 2)) {
        s->index = old;
        return -1;
    }
    for (uint32_t i = 0; i < old_size; i++) {
        if (old[i].item == STORE_NIL)
            continue;
        uint32_t j = index_find(s, old[i].key);
        s->index[j] = old[i];
    }
    free(old);
    return 0;
}

static inline void lru_unlink(struct store *s, uint32_t it)
{
    struct item *x = &s->items[it];
    if (x->prev != STORE_NIL)
        s->items[x->prev].next = x->next;
    else
        s->head = x->next;
    if (x->next != STORE_NIL)
        s->items[x->next].prev = x->prev;
    else
        s->tail = x->prev;
}

static inline void lru_push_head(struct store *s, uint32_t it)
{
    struct item *x = &s->items[it];
    x->prev = STORE_NIL;
    x->next = s->head;
    if (s->head != STORE_NIL)
        s->items[s->head].prev = it;
    else
        s->tail = it;
    s->head = it;
}

static inline void lru_push_tail(struct store *s, uint32_t it)
{
    struct item *x = &s->items[it];
    x->next = STORE_NIL;
    x->prev = s->tail;
    if (s->tail != STORE_NIL)
        s->items[s->tail].next = it;
    else
        s->head = it;
    s->tail = it;
}

/* Removes the item in index slot i. */
static void remove_at(struct store *s, uint32_t i)
{
    uint32_t it = s->index[i].item;
    lru_unlink(s, it);
    s->bytes -= s->items[it].bytes;
    s->n_items--;
    s->items[it].next = s->free_head;
    s->free_head = it;
    index_remove_at(s, i);
}

static uint32_t item_alloc(struct store *s)
{
    if (s->free_head != STORE_NIL) {
        uint32_t it = s->free_head;
        s->free_head = s->items[it].next;
        return it;
    }
    if (s->high_water == s->items_cap) {
        if (s->items_cap >= UINT32_MAX / 2)
            return STORE_NIL;
        struct item *n = realloc(s->items, (size_t)s->items_cap * 2 * sizeof(*n));
        if (!n)
            return STORE_NIL;
        s->items = n;
        s->items_cap *= 2;
    }
    return s->high_water++;
}

struct item *store_get(struct store *s, uint32_t key, int64_t now_ns, bool touch)
{
    uint32_t i = index_find(s, key);
    uint32_t it = s->index[i].item;
    if (it == STORE_NIL)
        return NULL;
    struct item *x = &s->items[it];
    if (x->expire_ns && x->expire_ns <= now_ns) {
        remove_at(s, i);
        s->expirations++;
        return NULL;
    }
    if (touch && s->head != it) {
        lru_unlink(s, it);
        lru_push_head(s, it);
    }
    return x;
}

bool store_has_room(const struct store *s, uint32_t bytes)
{
    if (s->capacity_items && s->n_items + 1 > s->capacity_items)
        return false;
    if (s->capacity_bytes && s->bytes + bytes > s->capacity_bytes)
        return false;
    return true;
}

static void evict_one(struct store *s, int64_t now_ns)
{
    uint32_t it = s->tail;
    struct item *x = &s->items[it];
    if (x->expire_ns && x->expire_ns <= now_ns)
        s->expirations++;
    else
        s->evictions++;
    remove_at(s, index_find(s, x->key));
}

struct store_set_result store_set(struct store *s, uint32_t key, uint32_t version,
                                  uint32_t bytes, int64_t expire_ns, int64_t now_ns,
                                  enum store_mode mode)
{
    struct store_set_result r = {false, false, 0};
    if (s->capacity_bytes && bytes > s->capacity_bytes)
        return r; /* larger than the whole node */
    uint32_t i = index_find(s, key);
    uint32_t it = s->index[i].item;
    if (it != STORE_NIL) {
        struct item *x = &s->items[it];
        bool live = !(x->expire_ns && x->expire_ns <= now_ns);
        if (live) {
            if (mode == STORE_ADD || (mode == STORE_NEWER && x->version >= version))
                return r;
            r.replaced = true;
            r.old_version = x->version;
        } else {
            s->expirations++;
        }
        /* update in place */
        s->bytes = s->bytes - x->bytes + bytes;
        x->version = version;
        x->bytes = bytes;
        x->expire_ns = expire_ns;
        x->lease = 0;
        if (s->head != it) {
            lru_unlink(s, it);
            lru_push_head(s, it);
        }
        /* a larger item may push the node over: evict from the cold end */
        while (s->capacity_bytes && s->bytes > s->capacity_bytes && s->tail != it)
            evict_one(s, now_ns);
        r.stored = true;
        return r;
    }
    while (s->n_items && !store_has_room(s, bytes))
        evict_one(s, now_ns);
    if (!store_has_room(s, bytes))
        return r;
    if ((s->n_items + 1) * 2 > s->index_mask + 1) {
        if (index_grow(s))
            return r;
    }
    it = item_alloc(s);
    if (it == STORE_NIL)
        return r;
    i = index_find(s, key);
    s->index[i].key = key;
    s->index[i].item = it;
    struct item *x = &s->items[it];
    x->key = key;
    x->version = version;
    x->bytes = bytes;
    x->expire_ns = expire_ns;
    x->lease = 0;
    lru_push_head(s, it);
    s->bytes += bytes;
    s->n_items++;
    r.stored = true;
    return r;
}

bool store_delete(struct store *s, uint32_t key)
{
    uint32_t i = index_find(s, key);
    if (s->index[i].item == STORE_NIL)
        return false;
    remove_at(s, i);
    return true;
}

bool store_append_cold(struct store *s, uint32_t key, uint32_t version, uint32_t bytes,
                       int64_t expire_ns)
{
    if (!store_has_room(s, bytes))
        return false;
    uint32_t i = index_find(s, key);
    if (s->index[i].item != STORE_NIL)
        return true; /* already there */
    if ((s->n_items + 1) * 2 > s->index_mask + 1) {
        if (index_grow(s))
            return false;
        i = index_find(s, key);
    }
    uint32_t it = item_alloc(s);
    if (it == STORE_NIL)
        return false;
    s->index[i].key = key;
    s->index[i].item = it;
    struct item *x = &s->items[it];
    x->key = key;
    x->version = version;
    x->bytes = bytes;
    x->expire_ns = expire_ns;
    x->lease = 0;
    lru_push_tail(s, it);
    s->bytes += bytes;
    s->n_items++;
    return true;
}

const char *store_check(const struct store *s)
{
    uint64_t bytes = 0;
    uint32_t n = 0, prev = STORE_NIL;
    for (uint32_t it = s->head; it != STORE_NIL; it = s->items[it].next) {
        if (s->items[it].prev != prev)
            return "LRU list back link broken";
        uint32_t i = index_find(s, s->items[it].key);
        if (s->index[i].item != it)
            return "item on the LRU list is not in the index";
        bytes += s->items[it].bytes;
        prev = it;
        if (++n > s->n_items)
            return "LRU list longer than n_items";
    }
    if (prev != s->tail)
        return "tail is not the last item";
    if (n != s->n_items)
        return "n_items does not match the LRU list";
    if (bytes != s->bytes)
        return "byte count does not match the items";
    uint32_t in_index = 0;
    for (uint32_t i = 0; i <= s->index_mask; i++)
        if (s->index[i].item != STORE_NIL)
            in_index++;
    if (in_index != n)
        return "index holds a different number of items";
    if (s->capacity_items && n > s->capacity_items)
        return "more items than capacity_items";
    if (s->capacity_bytes && bytes > s->capacity_bytes)
        return "more bytes than capacity";
    return NULL;
}
