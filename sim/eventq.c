/*
 * eventq.c — a 4-ary min-heap of events keyed by (t_ns, seq_kind).
 *
 * A 4-ary heap halves the depth of a binary one and keeps a node's children
 * in one cache line pair; with the few hundred to few thousand events a run
 * keeps pending, push and pop cost tens of nanoseconds.
 *
 * Invariant: for every i > 0, key(heap[(i-1)/4]) <= key(heap[i]).
 */
#include "sim/eventq.h"

#include <assert.h>
#include <stdlib.h>

#include "sim/util.h"

#define ARITY 4

static inline bool before(const struct event *x, const struct event *y)
{
    return x->t_ns < y->t_ns || (x->t_ns == y->t_ns && x->seq_kind < y->seq_kind);
}

void eventq_init(struct eventq *q)
{
    q->n = 0;
    q->cap = 1024;
    q->heap = xmalloc(q->cap * sizeof(*q->heap));
    q->next_seq = 0;
}

void eventq_deinit(struct eventq *q)
{
    free(q->heap);
    q->heap = NULL;
    q->n = q->cap = 0;
}

int eventq_push(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b)
{
    assert(kind < 256);
    if (UNLIKELY(q->n == q->cap)) {
        if (q->cap >= EVENTQ_MAX)
            return -1;
        size_t cap = q->cap * 2;
        struct event *h = realloc(q->heap, cap * sizeof(*h));
        if (!h)
            return -1;
        q->heap = h;
        q->cap = cap;
    }
    struct event e = {t_ns, (q->next_seq++ << 8) | kind, a, b};
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / ARITY;
        if (!before(&e, &q->heap[p]))
            break;
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = e;
    return 0;
}

bool eventq_pop(struct eventq *q, struct event *out)
{
    if (!q->n)
        return false;
    *out = q->heap[0];
    struct event last = q->heap[--q->n];
    size_t n = q->n, i = 0;
    if (!n)
        return true;
    for (;;) {
        size_t c = i * ARITY + 1;
        if (c >= n)
            break;
        size_t best = c, end = MIN(c + ARITY, n);
        for (size_t j = c + 1; j < end; j++)
            if (before(&q->heap[j], &q->heap[best]))
                best = j;
        if (!before(&q->heap[best], &last))
            break;
        q->heap[i] = q->heap[best];
        i = best;
    }
    q->heap[i] = last;
    return true;
}
