/*
 * store.c — LRU + TTL + versions for every cache node (see store.h).
 *
 * Items live in one pool with a free list; the pool doubles when full, so
 * memory follows what the nodes actually hold, not their nominal capacity.
 * A key's items form a short singly linked chain from its record; removing an
 * item walks that chain (almost always one or two long).
 */
#include "models/store.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

int item_pool_init(struct item_pool *p, struct key_rec *keys, uint32_t n_keys)
{
    memset(p, 0, sizeof(*p));
    p->cap = 1024;
    p->items = malloc(p->cap * sizeof(*p->items));
    p->free_head = STORE_NIL;
    p->keys = keys;
    p->n_keys = n_keys;
    if (!p->items)
        return -1;
    for (uint32_t k = 0; k < n_keys; k++)
        keys[k].head = STORE_NIL;
    return 0;
}

void item_pool_deinit(struct item_pool *p)
{
    free(p->items);
    p->items = NULL;
}

static uint32_t item_alloc(struct item_pool *p)
{
    if (p->free_head != STORE_NIL) {
        uint32_t it = p->free_head;
        p->free_head = p->items[it].next;
        p->live++;
        return it;
    }
    if (p->high_water == p->cap) {
        if (p->cap >= UINT32_MAX / 2)
            return STORE_NIL;
        struct item *n = huge_calloc((size_t)p->cap * 2, sizeof(*n));
        if (!n)
            return STORE_NIL;
        memcpy(n, p->items, (size_t)p->cap * sizeof(*n));
        free(p->items);
        p->items = n;
        p->cap *= 2;
    }
    p->live++;
    return p->high_water++;
}

void store_init(struct store *s, struct item_pool *pool, uint32_t node,
                uint64_t capacity_bytes, uint64_t capacity_items)
{
    memset(s, 0, sizeof(*s));
    s->pool = pool;
    s->node = node;
    s->capacity_bytes = capacity_bytes;
    s->capacity_items = capacity_items;
    s->head = s->tail = STORE_NIL;
}

/* The node's item for key, and the chain link pointing at it. */
static inline uint32_t find(const struct store *s, uint32_t key, uint32_t **link)
{
    struct item_pool *p = s->pool;
    uint32_t *l = &p->keys[key].head;
    uint32_t it = *l;
    while (it != STORE_NIL && p->items[it].node != s->node) {
        l = &p->items[it].kchain;
        it = *l;
    }
    if (link)
        *link = l;
    return it;
}

static inline void lru_unlink(struct store *s, uint32_t it)
{
    struct item *items = s->pool->items, *x = &items[it];
    if (x->prev != STORE_NIL)
        items[x->prev].next = x->next;
    else
        s->head = x->next;
    if (x->next != STORE_NIL)
        items[x->next].prev = x->prev;
    else
        s->tail = x->prev;
}

static inline void lru_push_head(struct store *s, uint32_t it)
{
    struct item *items = s->pool->items, *x = &items[it];
    x->prev = STORE_NIL;
    x->next = s->head;
    if (s->head != STORE_NIL)
        items[s->head].prev = it;
    else
        s->tail = it;
    s->head = it;
}

static inline void lru_push_tail(struct store *s, uint32_t it)
{
    struct item *items = s->pool->items, *x = &items[it];
    x->next = STORE_NIL;
    x->prev = s->tail;
    if (s->tail != STORE_NIL)
        items[s->tail].next = it;
    else
        s->head = it;
    s->tail = it;
}

/* Removes item it, whose chain link is *link. */
static void remove_item(struct store *s, uint32_t it, uint32_t *link)
{
    struct item_pool *p = s->pool;
    struct item *x = &p->items[it];
    lru_unlink(s, it);
    *link = x->kchain;
    if (x->is_head && x->kchain != STORE_NIL)
        p->items[x->kchain].is_head = 1;
    s->bytes -= x->bytes;
    s->n_items--;
    x->next = p->free_head;
    p->free_head = it;
    p->live--;
}

void store_clear(struct store *s)
{
    while (s->head != STORE_NIL) {
        uint32_t *link;
        uint32_t it = find(s, s->pool->items[s->head].key, &link);
        assert(it == s->head);
        remove_item(s, it, link);
    }
}

struct item *store_get(struct store *s, uint32_t key, int64_t now_ns, bool touch)
{
    uint32_t *link;
    uint32_t it = find(s, key, &link);
    if (it == STORE_NIL)
        return NULL;
    struct item *x = &s->pool->items[it];
    if (x->expire_ns && x->expire_ns <= now_ns) {
        remove_item(s, it, link);
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

/* Evicts the LRU item. The usual victim heads its key's chain, so its link
 * is the key record's head: written, never read (a store the CPU need not
 * wait for), where walking the chain would stall on a cold record. */
static void evict_one(struct store *s, int64_t now_ns)
{
    uint32_t *link, it = s->tail;
    struct item *x = &s->pool->items[it];
    if (x->expire_ns && x->expire_ns <= now_ns)
        s->expirations++;
    else
        s->evictions++;
    if (x->is_head)
        link = &s->pool->keys[x->key].head;
    else
        find(s, x->key, &link);
    remove_item(s, it, link);
    /* the next victim (the new tail, just written) is evicted some requests
     * from now: its LRU neighbour and its key's record are fetched now */
    if (s->tail != STORE_NIL) {
        const struct item *t = &s->pool->items[s->tail];
        if (t->prev != STORE_NIL)
            __builtin_prefetch(&s->pool->items[t->prev], 1);
        __builtin_prefetch(&s->pool->keys[t->key], 1);
    }
}

/* A new item for key at the head of its chain; STORE_NIL if out of memory. */
static uint32_t new_item(struct store *s, uint32_t key, uint32_t version, uint32_t bytes,
                         int64_t expire_ns)
{
    struct item_pool *p = s->pool;
    uint32_t it = item_alloc(p);
    if (it == STORE_NIL)
        return STORE_NIL;
    struct item *x = &p->items[it];
    x->key = key;
    x->version = version;
    x->bytes = bytes;
    x->node = (uint16_t)s->node;
    x->expire_ns = expire_ns;
    x->kchain = p->keys[key].head;
    x->is_head = 1;
    if (x->kchain != STORE_NIL)
        p->items[x->kchain].is_head = 0;
    p->keys[key].head = it;
    s->bytes += bytes;
    s->n_items++;
    return it;
}

struct store_set_result store_set(struct store *s, uint32_t key, uint32_t version,
                                  uint32_t bytes, int64_t expire_ns, int64_t now_ns,
                                  enum store_mode mode)
{
    struct store_set_result r = {false, false, 0};
    if (s->capacity_bytes && bytes > s->capacity_bytes)
        return r; /* larger than the whole node */
    uint32_t it = find(s, key, NULL);
    if (it != STORE_NIL) {
        struct item *x = &s->pool->items[it];
        bool live = !(x->expire_ns && x->expire_ns <= now_ns);
        if (live) {
            if (mode == STORE_ADD || (mode == STORE_NEWER && x->version >= version)
                || (mode == STORE_FRESH && x->version > version))
                return r;
            r.replaced = true;
            r.old_version = x->version;
        } else {
            s->expirations++;
        }
        s->bytes = s->bytes - x->bytes + bytes;
        x->version = version;
        x->bytes = bytes;
        x->expire_ns = expire_ns;
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
    it = new_item(s, key, version, bytes, expire_ns);
    if (it == STORE_NIL)
        return r;
    lru_push_head(s, it);
    r.stored = true;
    return r;
}

bool store_delete(struct store *s, uint32_t key)
{
    uint32_t *link;
    uint32_t it = find(s, key, &link);
    if (it == STORE_NIL)
        return false;
    remove_item(s, it, link);
    return true;
}

bool store_append_cold(struct store *s, uint32_t key, uint32_t version, uint32_t bytes,
                       int64_t expire_ns)
{
    if (!store_has_room(s, bytes))
        return false;
    if (find(s, key, NULL) != STORE_NIL)
        return true; /* already there */
    uint32_t it = new_item(s, key, version, bytes, expire_ns);
    if (it == STORE_NIL)
        return false;
    lru_push_tail(s, it);
    return true;
}

const char *store_check(const struct store *s)
{
    const struct item_pool *p = s->pool;
    uint64_t bytes = 0;
    uint32_t n = 0, prev = STORE_NIL;
    for (uint32_t it = s->head; it != STORE_NIL; it = p->items[it].next) {
        const struct item *x = &p->items[it];
        if (x->prev != prev)
            return "LRU list back link broken";
        if (x->node != s->node)
            return "an item on the node's list belongs to another node";
        if (x->key >= p->n_keys)
            return "item key out of range";
        if (find(s, x->key, NULL) != it)
            return "item on the LRU list is not on its key's chain";
        if (x->is_head != (p->keys[x->key].head == it))
            return "is_head does not match the key's chain";
        bytes += x->bytes;
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
    if (s->capacity_items && n > s->capacity_items)
        return "more items than capacity_items";
    if (s->capacity_bytes && bytes > s->capacity_bytes)
        return "more bytes than capacity";
    return NULL;
}
