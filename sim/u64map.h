/*
 * u64map.h — a small open-addressing hash map from 64-bit keys to 64-bit
 * values (linear probing, load <= 1/2, backward-shift deletion: no
 * tombstones). Used for per-key state that only a few keys have at a time:
 * database reads in flight per client instance (coalescing) and lease
 * tokens per node. Iteration order is never used, so nothing depends on it.
 * Expected O(1) per operation; growing rehashes, O(n).
 */
#ifndef RINGSIM_U64MAP_H
#define RINGSIM_U64MAP_H

#include <stdbool.h>
#include <stdint.h>

#define U64MAP_EMPTY UINT64_MAX /* not a valid key */

struct u64map_slot {
    uint64_t key;
    uint64_t value;
};

struct u64map {
    struct u64map_slot *slots;
    uint32_t mask, n;
};

void u64map_init(struct u64map *m);
void u64map_deinit(struct u64map *m);
/* Returns a pointer to the value of key, or NULL. Valid until the next put/del. */
uint64_t *u64map_get(const struct u64map *m, uint64_t key);
/* Inserts or replaces. */
void u64map_put(struct u64map *m, uint64_t key, uint64_t value);
/* Removes key; returns whether it was there. */
bool u64map_del(struct u64map *m, uint64_t key);
void u64map_clear(struct u64map *m);

#endif
