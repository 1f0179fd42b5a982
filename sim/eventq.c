/*
 * eventq.c — a 4-ary min-heap of 128-bit keys, the payloads in slots.
 *
 * A key is t_ns << 64 | seq << EVENTQ_SLOT_BITS | slot: ordering keys as
 * numbers orders events by (time, sequence), the slot (unique among pending
 * events) never deciding. Keys are 16 bytes, so the four children of a node
 * fill exactly one cache line (the array is placed so that heap[1] starts
 * one), and the smallest of them is found by compares without branches.
 * The kind and payload of an event stay in its slot (a free list, most
 * recently freed first, so the slots in use stay few and hot) and are read
 * once, when the event is popped.
 *
 * Pop moves the hole left at the root down along the smaller children to
 * the bottom, then moves the last key up from there into place (Floyd's
 * bottom-up heap): the last key almost always belongs near the bottom, so
 * this costs about half the compares of the textbook sift-down, and the
 * ones on the way down have no branch to mispredict.
 *
 * Sequence numbers have 38 bits (2.7e11 events). When they run out, every
 * pending key is sorted (a sorted array is a heap) and renumbered 0, 1, ...
 * in that order: the order of what is pending does not change, and nothing
 * else ever sees a sequence number.
 *
 * Invariant: for every i > 0, heap[(i-1)/4] <= heap[i].
 */
#include "sim/eventq.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

#define ARITY 4
#define SLOT_MASK ((1ull << EVENTQ_SLOT_BITS) - 1)
#define NO_SLOT UINT32_MAX
#define LINE 64
/* heap[0] sits 3 keys before a cache line: heap[4i+1..4i+4] share one */
#define LEAD (LINE - 3 * sizeof(eventq_key))

static inline uint32_t key_slot(eventq_key k)
{
    return (uint32_t)((uint64_t)k & SLOT_MASK);
}

static void *alloc_heap(size_t cap, eventq_key **heap)
{
    void *mem = aligned_alloc(LINE, (cap * sizeof(eventq_key) + LEAD + LINE - 1) / LINE * LINE);
    *heap = mem ? (eventq_key *)(void *)((char *)mem + LEAD) : NULL;
    return mem;
}

void eventq_init(struct eventq *q)
{
    memset(q, 0, sizeof(*q));
    q->cap = 1024;
    q->mem = alloc_heap(q->cap, &q->heap);
    if (!q->mem) { /* as xmalloc: a small allocation that must not fail */
        fputs("ringsim: out of memory\n", stderr);
        exit(1);
    }
    q->n_slots = 1024;
    q->slot = xmalloc(q->n_slots * sizeof(*q->slot));
    for (uint32_t i = 0; i < q->n_slots; i++)
        q->slot[i].kind = i + 1 < q->n_slots ? i + 1 : NO_SLOT;
    q->free_slot = 0;
}

void eventq_deinit(struct eventq *q)
{
    free(q->mem);
    free(q->slot);
    q->mem = NULL;
    q->heap = NULL;
    q->slot = NULL;
    q->n = q->cap = 0;
    q->n_slots = 0;
}

static int cmp_key(const void *x, const void *y)
{
    eventq_key a = *(const eventq_key *)x, b = *(const eventq_key *)y;
    return (a > b) - (a < b);
}

/* The sequence numbers ran out: renumber the pending events in order. */
static void renumber(struct eventq *q)
{
    qsort(q->heap, q->n, sizeof(*q->heap), cmp_key);
    for (size_t i = 0; i < q->n; i++)
        q->heap[i] = (q->heap[i] >> 64 << 64) | ((eventq_key)i << EVENTQ_SLOT_BITS)
                     | key_slot(q->heap[i]);
    q->next_seq = q->n;
}

static int grow(struct eventq *q)
{
    if (q->cap >= EVENTQ_MAX)
        return -1;
    size_t cap = q->cap * 2;
    eventq_key *heap;
    void *mem = alloc_heap(cap, &heap);
    if (!mem)
        return -1;
    memcpy(heap, q->heap, q->n * sizeof(*heap));
    free(q->mem);
    q->mem = mem;
    q->heap = heap;
    q->cap = cap;
    return 0;
}

static int more_slots(struct eventq *q)
{
    uint32_t n = q->n_slots * 2;
    struct eventq_slot *s = realloc(q->slot, n * sizeof(*s));
    if (!s)
        return -1;
    for (uint32_t i = q->n_slots; i < n; i++)
        s[i].kind = i + 1 < n ? i + 1 : NO_SLOT;
    q->slot = s;
    q->free_slot = q->n_slots;
    q->n_slots = n;
    return 0;
}

/* Puts k into the hole at i, moving larger parents down into it. */
static inline void sift_up(eventq_key *h, size_t i, eventq_key k)
{
    while (i > 0) {
        size_t up = (i - 1) / ARITY;
        if (k >= h[up])
            break;
        h[i] = h[up];
        i = up;
    }
    h[i] = k;
}

int eventq_push(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b)
{
    assert(kind < 256 && t_ns >= 0);
    if (UNLIKELY(q->n == q->cap) && grow(q))
        return -1;
    if (UNLIKELY(q->free_slot == NO_SLOT) && more_slots(q))
        return -1;
    if (UNLIKELY(q->next_seq == EVENTQ_SEQ_LIMIT))
        renumber(q);
    uint32_t sl = q->free_slot;
    struct eventq_slot *p = &q->slot[sl];
    q->free_slot = p->kind;
    p->a = a;
    p->b = b;
    p->kind = kind;
    eventq_key k = (eventq_key)(uint64_t)t_ns << 64 | (eventq_key)(q->next_seq++ << EVENTQ_SLOT_BITS)
                   | sl;
    sift_up(q->heap, q->n++, k);
    return 0;
}

static inline void fill_event(const struct eventq *q, eventq_key k, struct event *e)
{
    const struct eventq_slot *p = &q->slot[key_slot(k)];
    e->t_ns = (int64_t)(uint64_t)(k >> 64);
    e->seq_kind = ((uint64_t)k >> EVENTQ_SLOT_BITS) << 8 | p->kind;
    e->a = p->a;
    e->b = p->b;
}

bool eventq_peek(const struct eventq *q, struct event *e)
{
    if (!q->n)
        return false;
    fill_event(q, q->heap[0], e);
    return true;
}

bool eventq_pop(struct eventq *q, struct event *out)
{
    if (!q->n)
        return false;
    eventq_key *h = q->heap;
    eventq_key top = h[0];
    uint32_t sl = key_slot(top);
    fill_event(q, top, out);
    q->slot[sl].kind = q->free_slot;
    q->free_slot = sl;
    size_t n = --q->n;
    if (!n)
        return true;
    eventq_key last = h[n];
    /* the hole goes down to the bottom along the smaller children */
    size_t i = 0;
    for (;;) {
        size_t c = i * ARITY + 1;
        if (c + ARITY <= n) { /* four children: no branch but the loop's */
            size_t b1 = h[c + 1] < h[c] ? c + 1 : c;
            size_t b2 = h[c + 3] < h[c + 2] ? c + 3 : c + 2;
            size_t best = h[b2] < h[b1] ? b2 : b1;
            h[i] = h[best];
            i = best;
            continue;
        }
        if (c >= n)
            break;
        size_t best = c;
        for (size_t j = c + 1; j < n; j++)
            if (h[j] < h[best])
                best = j;
        h[i] = h[best];
        i = best;
    }
    sift_up(h, i, last); /* then the last key up from there */
    return true;
}
