/*
 * lru_ref.c — the yardstick of `make bench`: an exact, bare LRU cache
 * replaying a generated trace held in memory, so that the simulator's speed
 * can be quoted as a ratio to it (comparable across machines):
 *
 *   lru_ref [REQUESTS [OBJECTS [ZIPF_S [CAPACITY [SEED [REPEAT]]]]]]
 *
 * Defaults: 60,000,000 requests (as scenarios/bench.yaml) over 1,000,000
 * objects, Zipf 0.99, a 100,000-item cache. The trace is drawn first (Vose's
 * alias method, object ids 64-bit hashes of the ranks, as gen_trace); only
 * the replay is timed. The cache: an open-addressing table (linear probing,
 * backward-shift deletion, load at most 1/2) from object id to a slot, and a
 * doubly linked list of slots in recency order; a hit moves the slot to the
 * front, a miss on a full cache evicts the back. Exact LRU, nothing else:
 * no sizes, no TTLs, no statistics but hits. Not a benchmark of the
 * simulator (run.sh runs it in its sim section, not as bench_*).
 *
 * REPEAT (default 1) replays the same trace that many times over, the cache
 * carrying on: the difference between two REPEATs is replay alone, without
 * the drawing of the trace (run.sh's instructions section counts it so).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_zipf.h"

#define NIL UINT32_MAX

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "lru_ref: out of memory\n");
        exit(1);
    }
    return p;
}

/* The trace: n object ids, Zipf(s) over m objects. */
static uint64_t *make_trace(uint64_t n, uint32_t m, double s)
{
    double *p = alloc(m * sizeof(double));
    uint32_t *alias = alloc(m * sizeof(uint32_t));
    if (zipf_alias_build(m, s, p, alias)) {
        fprintf(stderr, "lru_ref: out of memory\n");
        exit(1);
    }
    uint64_t *t = alloc(n * sizeof(uint64_t));
    for (uint64_t i = 0; i < n; i++)
        t[i] = zipf_object(m, p, alias);
    free(p);
    free(alias);
    return t;
}

struct slot {
    uint64_t id;
    uint32_t prev, next;
};

struct lru {
    uint32_t *table; /* slot index, NIL if empty */
    uint64_t mask;
    struct slot *slots;
    uint32_t n, cap, head, tail;
};

static inline uint64_t bucket(const struct lru *c, uint64_t id)
{
    uint64_t h = id * 0x9e3779b97f4a7c15ULL;
    return (h ^ (h >> 32)) & c->mask;
}

static void unlink_slot(struct lru *c, uint32_t i)
{
    struct slot *x = &c->slots[i];
    if (x->prev != NIL)
        c->slots[x->prev].next = x->next;
    else
        c->head = x->next;
    if (x->next != NIL)
        c->slots[x->next].prev = x->prev;
    else
        c->tail = x->prev;
}

static void push_front(struct lru *c, uint32_t i)
{
    struct slot *x = &c->slots[i];
    x->prev = NIL;
    x->next = c->head;
    if (c->head != NIL)
        c->slots[c->head].prev = i;
    else
        c->tail = i;
    c->head = i;
}

/* Removes id's entry from the table (it is there): backward-shift deletion. */
static void table_delete(struct lru *c, uint64_t id)
{
    uint64_t b = bucket(c, id);
    while (c->slots[c->table[b]].id != id)
        b = (b + 1) & c->mask;
    uint64_t hole = b;
    for (uint64_t j = (hole + 1) & c->mask; c->table[j] != NIL; j = (j + 1) & c->mask) {
        uint64_t home = bucket(c, c->slots[c->table[j]].id);
        /* move j's entry into the hole unless its home lies in (hole, j] */
        if (((j - home) & c->mask) >= ((j - hole) & c->mask)) {
            c->table[hole] = c->table[j];
            hole = j;
        }
    }
    c->table[hole] = NIL;
}

/* One request: true on a hit. */
static bool lru_get(struct lru *c, uint64_t id)
{
    uint64_t b = bucket(c, id);
    for (uint32_t i; (i = c->table[b]) != NIL; b = (b + 1) & c->mask) {
        if (c->slots[i].id == id) {
            if (c->head != i) {
                unlink_slot(c, i);
                push_front(c, i);
            }
            return true;
        }
    }
    uint32_t i;
    if (c->n < c->cap) {
        i = c->n++;
    } else {
        i = c->tail;
        unlink_slot(c, i);
        table_delete(c, c->slots[i].id);
        /* the hole may have moved entries: find the empty bucket for id again */
        b = bucket(c, id);
        while (c->table[b] != NIL)
            b = (b + 1) & c->mask;
    }
    c->slots[i].id = id;
    c->table[b] = i;
    push_front(c, i);
    return false;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 60000000;
    uint32_t m = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1000000;
    double s = argc > 3 ? strtod(argv[3], NULL) : 0.99;
    uint32_t cap = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 100000;
    state = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;
    uint64_t repeat = argc > 6 ? strtoull(argv[6], NULL, 10) : 1;
    if (!n || !m || !cap || !(s > 0) || !repeat) {
        fprintf(stderr, "usage: lru_ref [REQUESTS [OBJECTS [ZIPF_S [CAPACITY [SEED [REPEAT]]]]]]"
                        " (all > 0)\n");
        return 2;
    }
    uint64_t *trace = make_trace(n, m, s);
    struct lru c = {0};
    uint64_t buckets = 1;
    while (buckets < 2 * (uint64_t)cap)
        buckets <<= 1;
    c.mask = buckets - 1;
    c.table = alloc(buckets * sizeof(uint32_t));
    for (uint64_t b = 0; b < buckets; b++)
        c.table[b] = NIL;
    c.slots = alloc(cap * sizeof(struct slot));
    c.cap = cap;
    c.head = c.tail = NIL;
    double t0 = now_s();
    uint64_t hits = 0;
    for (uint64_t r = 0; r < repeat; r++)
        for (uint64_t i = 0; i < n; i++)
            hits += lru_get(&c, trace[i]);
    double wall = now_s() - t0;
    n *= repeat;
    printf("bare LRU: %llu requests over %u objects (Zipf %g), %u items: hit rate %.4f\n",
           (unsigned long long)n, m, s, cap, (double)hits / (double)n);
    printf("bare LRU requests per second: %.2f M (%.2f s)\n", (double)n / wall / 1e6, wall);
    free(trace);
    free(c.table);
    free(c.slots);
    return 0;
}
