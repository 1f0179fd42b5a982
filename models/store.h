/*
 * store.h — one cache node's contents: an LRU of items bounded by bytes
 * and/or item count, with lazy TTL expiry and a version per item.
 *
 * Keys are dense integer ids (the workload's keyspace), so the store needs
 * no strings: an open-addressing index maps key -> item slot, and the items
 * form a doubly linked LRU list through slot numbers.
 *
 *      index (linear probing, key+slot)        items[]
 *      [k7|3] [ -- ] [k2|0] ...    --->   0:k2  1:free  2:..  3:k7
 *                                  MRU head -> 3 <-> 0 <-> ... <- tail LRU
 *
 * All operations are O(1) expected (eviction O(1) per evicted item).
 * Invariants (store_check): the index and the list hold the same items;
 * bytes and n_items match the list.
 */
#ifndef RINGSIM_STORE_H
#define RINGSIM_STORE_H

#include <stdbool.h>
#include <stdint.h>

#define STORE_NIL UINT32_MAX

struct item {
    uint32_t key;
    uint32_t version;
    uint32_t prev, next;   /* LRU neighbours (slot numbers), STORE_NIL at the ends */
    int64_t expire_ns;     /* 0: never */
    uint32_t bytes;
    uint32_t lease;        /* lease token when filled under a lease, else 0 */
};

struct store_slot {
    uint32_t key;
    uint32_t item;         /* STORE_NIL: empty */
};

struct store {
    struct item *items;
    uint32_t items_cap;    /* allocated item slots */
    uint32_t n_items;
    uint32_t free_head;    /* free list through item.next */
    uint32_t high_water;   /* slots ever used */
    struct store_slot *index;
    uint32_t index_mask;   /* index size - 1 (a power of two) */
    uint32_t head, tail;   /* MRU, LRU */
    uint64_t bytes;
    uint64_t capacity_bytes; /* 0: unbounded by bytes */
    uint64_t capacity_items; /* 0: unbounded by count */
    uint64_t evictions, expirations; /* since creation */
};

/* What a set did, for staleness accounting. */
struct store_set_result {
    bool stored;            /* false: refused (add on present, versioned on newer, too big) */
    bool replaced;          /* an item was present (and live) */
    uint32_t old_version;   /* its version when replaced */
};

int store_init(struct store *s, uint64_t capacity_bytes, uint64_t capacity_items);
void store_deinit(struct store *s);
void store_clear(struct store *s);

/* Looks a key up; an expired item is removed (counted in expirations) and
 * reported absent. A hit moves the item to the MRU end unless touch is false. */
struct item *store_get(struct store *s, uint32_t key, int64_t now_ns, bool touch);

enum store_mode { STORE_SET, STORE_ADD, STORE_NEWER };
/* Stores key at version: SET always; ADD only if absent; NEWER only if
 * absent or the present version is older. Evicts from the LRU end until the
 * item fits. An item larger than the whole capacity is refused. */
struct store_set_result store_set(struct store *s, uint32_t key, uint32_t version,
                                  uint32_t bytes, int64_t expire_ns, int64_t now_ns,
                                  enum store_mode mode);
/* Removes a key; returns whether it was present. */
bool store_delete(struct store *s, uint32_t key);
/* Prewarm: appends at the LRU end if it fits without evicting; returns
 * false when full (nothing changed). */
bool store_append_cold(struct store *s, uint32_t key, uint32_t version, uint32_t bytes,
                       int64_t expire_ns);
/* Whether another item of `bytes` would fit without evicting. */
bool store_has_room(const struct store *s, uint32_t bytes);

/* Verifies the invariants; returns NULL or what is broken (debug/tests). */
const char *store_check(const struct store *s);

#endif
