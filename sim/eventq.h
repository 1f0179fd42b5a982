/*
 * eventq.h — the event queue: a 4-ary min-heap ordered by (time, sequence).
 *
 * Every event gets a rising sequence number when it is scheduled, so events
 * at the same simulated time run in the order they were scheduled. An event
 * scheduled while another is being handled — even for the current time —
 * gets a larger sequence number and so runs after every event already
 * queued for that time: handling never reorders what is already waiting.
 *
 * The heap holds 16-byte keys — (time, sequence, payload slot) as one
 * 128-bit number, so comparing two is one branch-free compare — and each
 * event's kind and payload sit in a slot of their own, read once when the
 * event is popped (eventq.c).
 *
 * The queue is bounded (EVENTQ_MAX); eventq_push fails past the bound and
 * the run stops as failed rather than growing without limit.
 */
#ifndef RINGSIM_EVENTQ_H
#define RINGSIM_EVENTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EVENTQ_SLOT_BITS 26
#define EVENTQ_MAX (1u << EVENTQ_SLOT_BITS) /* 64 M pending events, 1.8 GiB: far past any sane run */
/* Sequence numbers have 64 - EVENTQ_SLOT_BITS bits; when they run out, the
 * pending events are renumbered in their order (eventq.c). */
#define EVENTQ_SEQ_LIMIT (1ull << (64 - EVENTQ_SLOT_BITS))

/* An event as pushed and popped. */
struct event {
    int64_t t_ns;
    uint64_t seq_kind; /* sequence << 8 | kind: orders ties by sequence */
    uint32_t a, b;     /* payload: request index, node, instance ... */
};

static inline unsigned event_kind(const struct event *e)
{
    return (unsigned)(e->seq_kind & 0xff);
}

__extension__ typedef unsigned __int128 eventq_key; /* t_ns << 64 | seq << SLOT_BITS | slot */

struct eventq_slot {
    uint32_t a, b;
    uint32_t kind;     /* also the free list's link while free */
};

struct eventq {
    eventq_key *heap;  /* heap[1..4] share one cache line, as every group of siblings */
    struct eventq_slot *slot;
    void *mem;         /* what heap points into */
    size_t n, cap;
    uint32_t free_slot, n_slots;
    uint64_t next_seq;
};

void eventq_init(struct eventq *q);
void eventq_deinit(struct eventq *q);
/* Schedules an event (t_ns >= 0); returns 0, or -1 if the queue is at its bound. O(log n). */
int eventq_push(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b);
/* Removes the earliest event into *e; returns false when empty. O(log n). */
bool eventq_pop(struct eventq *q, struct event *e);
/* The earliest event, left in place, into *e; false when empty. */
bool eventq_peek(const struct eventq *q, struct event *e);

/* The time of the earliest event, INT64_MAX when empty. */
static inline int64_t eventq_next_time(const struct eventq *q)
{
    return q->n ? (int64_t)(q->heap[0] >> 64) : INT64_MAX;
}

#endif
