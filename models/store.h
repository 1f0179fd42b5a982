/*
 * store.h — the contents of the cache nodes: per node an LRU of items
 * bounded by bytes and/or item count, with lazy TTL expiry and a version
 * per item.
 *
 * Keys are dense integer ids (the workload's keyspace, in popularity
 * order), so no strings and no hash tables are needed. All nodes draw
 * their items from one pool, and a per-key array points at the key's first
 * item; a key held by several nodes (old copies after a move, a gutter
 * copy) chains its items through `kchain`:
 *
 *      keys[k].head ─► item (node 2) ─kchain─► item (node 0) ─► NIL
 *      node 2: MRU head ─► … ◄─► item ◄─► … ◄─ tail (LRU)
 *
 * Because ids are popularity ranks, the heads of the hot keys share a few
 * cache lines: a lookup costs one access to the key's record, one to the item
 * (chains are almost always one long), and the LRU relinking.
 * All operations are O(1) but for the chain walk (O(copies of the key)).
 * Invariants (store_check): every item on a node's LRU list is on its key's
 * chain with that node; bytes and n_items match the list.
 */
#ifndef RINGSIM_STORE_H
#define RINGSIM_STORE_H

#include <stdbool.h>
#include <stdint.h>

#define STORE_NIL UINT32_MAX

/* One record per key, shared by the models that keep per-key state, so that
 * a request finds all of it in one cache line: the key's placement position
 * (workload), its first cached item (this store) and its authoritative
 * version (database). Ids are popularity ranks: the hot keys' records are
 * adjacent. */
struct key_rec {
    uint64_t pos;
    uint32_t head;     /* first item of the key's chain, or STORE_NIL */
    uint32_t version;
};

struct item {
    uint32_t key;
    uint32_t version;
    uint32_t prev, next;   /* LRU neighbours on the node, STORE_NIL at the ends */
    uint32_t kchain;       /* next item of the same key (another node), or NIL */
    uint32_t bytes;
    uint16_t node;
    uint16_t is_head;      /* first on its key's chain: evicting it needs no chain walk */
    int64_t expire_ns;     /* 0: never */
};

struct item_pool {
    struct item *items;
    uint32_t cap, high_water, free_head, live;
    struct key_rec *keys;  /* per key: .head (not owned) */
    uint32_t n_keys;
};

struct store {
    struct item_pool *pool;
    uint32_t node;
    uint32_t head, tail;   /* MRU, LRU */
    uint32_t n_items;
    uint64_t bytes;
    uint64_t capacity_bytes; /* 0: unbounded by bytes */
    uint64_t capacity_items; /* 0: unbounded by count */
    uint64_t evictions, expirations; /* since creation */
};

/* What a set did, for staleness accounting. */
struct store_set_result {
    bool stored;            /* false: refused (add on present, newer on newer, too big) */
    bool replaced;          /* a live item was present */
    uint32_t old_version;   /* its version when replaced */
};

/* keys: the run's per-key records (n_keys of them); heads are set to NIL. */
int item_pool_init(struct item_pool *p, struct key_rec *keys, uint32_t n_keys);
void item_pool_deinit(struct item_pool *p);

void store_init(struct store *s, struct item_pool *pool, uint32_t node,
                uint64_t capacity_bytes, uint64_t capacity_items);
/* Empties the node (a crash, a removal). O(items). */
void store_clear(struct store *s);

/* Looks a key up; an expired item is removed (counted in expirations) and
 * reported absent. A hit moves the item to the MRU end unless touch is false. */
struct item *store_get(struct store *s, uint32_t key, int64_t now_ns, bool touch);

enum store_mode { STORE_SET, STORE_ADD, STORE_NEWER, STORE_FRESH };
/* Stores key at version: SET always; ADD only if absent; NEWER only if
 * absent or the present version is older; FRESH only if absent or the
 * present version is not newer (the same version read again is a fresh
 * copy: its expiry is set anew and it moves to the MRU end, as a stored
 * item does; a local cache's puts). Evicts from the LRU end until the
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
