/*
 * eventq.h — the event queue: a 4-ary min-heap ordered by (time, sequence).
 *
 * Every event gets a rising sequence number when it is scheduled, so events
 * at the same simulated time run in the order they were scheduled. An event
 * scheduled while another is being handled — even for the current time —
 * gets a larger sequence number and so runs after every event already
 * queued for that time: handling never reorders what is already waiting.
 *
 * The queue is bounded (EVENTQ_MAX); eventq_push fails past the bound and
 * the run stops as failed rather than growing without limit.
 */
#ifndef RINGSIM_EVENTQ_H
#define RINGSIM_EVENTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EVENTQ_MAX (1u << 26) /* 64 M pending events, 1.5 GiB: far past any sane run */

struct event {
    int64_t t_ns;
    uint64_t seq_kind; /* sequence << 8 | kind: orders ties by sequence */
    uint32_t a, b;     /* payload: request index, node, instance ... */
};

static inline unsigned event_kind(const struct event *e)
{
    return (unsigned)(e->seq_kind & 0xff);
}

struct eventq {
    struct event *heap;
    size_t n, cap;
    uint64_t next_seq;
};

void eventq_init(struct eventq *q);
void eventq_deinit(struct eventq *q);
/* Schedules an event; returns 0, or -1 if the queue is at its bound. O(log n). */
int eventq_push(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b);
/* Removes the earliest event into *e; returns false when empty. O(log n). */
bool eventq_pop(struct eventq *q, struct event *e);

static inline const struct event *eventq_peek(const struct eventq *q)
{
    return q->n ? &q->heap[0] : NULL;
}

#endif
