/*
 * eventq.h — the event queue, ordered by (time, sequence).
 *
 * Every event gets a rising sequence number when it is scheduled, so events
 * at the same simulated time run in the order they were scheduled. An event
 * scheduled while another is being handled — even for the current time —
 * gets a larger sequence number and so runs after every event already
 * queued for that time: handling never reorders what is already waiting.
 *
 * Each event has a 16-byte key — (time, sequence, payload slot) as one
 * 128-bit number, so comparing two is one branch-free compare — and its
 * kind and payload sit in a slot of their own. The near future is a
 * calendar: EVENTQ_CAL_BUCKETS buckets of 2^EVENTQ_CAL_SHIFT ns each, a
 * short sorted list per bucket and a bitmap of the buckets in use; what
 * lies beyond it, what an overfull bucket refuses, and any event scheduled
 * before the last one taken go to a 4-ary min-heap of keys. Events whose
 * times come in the order they are scheduled — a GET's timeout, a constant
 * delay after its sending — may go instead to a first-in first-out lane
 * (eventq_push_fifo), only whose first event sits in the heap. The earliest
 * key of the calendar and the heap is kept at hand (eventq.c).
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

/* The calendar in front of the heap: 4,096 buckets of 4,096 ns, 16.8 ms
 * ahead of the last event taken, at most EVENTQ_CAL_PER_BUCKET a bucket. */
#define EVENTQ_CAL_SHIFT 12
#define EVENTQ_CAL_BUCKETS 4096u
#define EVENTQ_CAL_PER_BUCKET 8

struct eventq_slot {
    eventq_key key;    /* while in a calendar bucket */
    uint32_t a, b;
    uint32_t kind;     /* also the free list's link while free */
    uint32_t next;     /* the next slot of its bucket, by key */
};

struct eventq {
    eventq_key *heap;  /* heap[1..4] share one cache line, as every group of siblings */
    struct eventq_slot *slot;
    void *mem;         /* what heap points into */
    size_t n;          /* events pending, calendar and heap */
    size_t hn, cap;    /* in the heap; its capacity */
    eventq_key top;    /* the smallest pending key (n > 0) */
    uint32_t top_bucket; /* where it is: a bucket, or EVENTQ_IN_HEAP */
    uint32_t free_slot, n_slots;
    uint64_t next_seq;
    uint64_t cal_base; /* the bucket (time >> shift) of the last event taken */
    size_t cal_n;      /* events in the calendar */
    uint32_t *cal_head;  /* per bucket: its first slot */
    uint8_t *cal_count;  /* per bucket: how many */
    uint64_t cal_used[EVENTQ_CAL_BUCKETS / 64]; /* a bit per bucket that holds any */
    eventq_key *lane;  /* eventq_push_fifo's ring of keys, rising; NULL until used */
    uint32_t lane_cap, lane_head, lane_n; /* its size (a power of two), first, count */
};
#define EVENTQ_IN_HEAP UINT32_MAX

#define EVENTQ_NO_SLOT UINT32_MAX

void eventq_init(struct eventq *q);
void eventq_deinit(struct eventq *q);

int eventq_push_slow_(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b);

/* The key of an event at t_ns in slot sl, with the next sequence number. */
static inline eventq_key eventq_key_of_(const struct eventq *q, int64_t t_ns, uint32_t sl)
{
    return (eventq_key)(uint64_t)t_ns << 64 | (eventq_key)(q->next_seq << EVENTQ_SLOT_BITS) | sl;
}

/* Links slot sl (key k) into calendar bucket bk, after every smaller key. */
static inline void eventq_cal_insert_(struct eventq *q, uint32_t sl, eventq_key k, uint32_t bk)
{
    uint32_t *link = &q->cal_head[bk];
    while (*link != EVENTQ_NO_SLOT && q->slot[*link].key < k)
        link = &q->slot[*link].next;
    q->slot[sl].next = *link;
    *link = sl;
    q->cal_count[bk]++;
    q->cal_used[bk / 64] |= 1ull << (bk % 64);
    q->cal_n++;
}

/* Takes the free slot p (key k) for the event, now in `where`. */
static inline void eventq_fill_slot_(struct eventq *q, struct eventq_slot *p, eventq_key k,
                                     unsigned kind, uint32_t a, uint32_t b, uint32_t where)
{
    q->free_slot = p->kind;
    p->key = k;
    p->a = a;
    p->b = b;
    p->kind = kind;
    q->next_seq++;
    if (!q->n++ || k < q->top) {
        q->top = k;
        q->top_bucket = where;
    }
}

/* Schedules an event (t_ns >= 0); returns 0, or -1 if the queue is at its
 * bound. O(1) into the calendar (inline here), O(log n) into the heap. A
 * free slot means fewer than EVENTQ_MAX pending: slots never outnumber it. */
static inline int eventq_push(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a,
                              uint32_t b)
{
    uint64_t bucket = (uint64_t)t_ns >> EVENTQ_CAL_SHIFT;
    uint32_t bk = (uint32_t)(bucket & (EVENTQ_CAL_BUCKETS - 1));
    uint32_t sl = q->free_slot;
    if (__builtin_expect(bucket - q->cal_base < EVENTQ_CAL_BUCKETS /* also t_ns >= 0 */
                             && q->cal_count[bk] < EVENTQ_CAL_PER_BUCKET
                             && sl != EVENTQ_NO_SLOT && q->next_seq != EVENTQ_SEQ_LIMIT
                             && kind < 256 /* else the slow path's assertion */,
                         1)) {
        eventq_key k = eventq_key_of_(q, t_ns, sl);
        eventq_cal_insert_(q, sl, k, bk);
        eventq_fill_slot_(q, &q->slot[sl], k, kind, a, b, bk);
        return 0;
    }
    return eventq_push_slow_(q, t_ns, kind, a, b);
}
/* The same for an event whose time is no earlier than that of the last
 * event pushed so: it joins the lane, O(1); an earlier one is pushed as
 * eventq_push does. The order of events is (time, sequence) either way. */
int eventq_push_fifo(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b);
/* Removes the earliest event into *e; returns false when empty. O(log n). */
bool eventq_pop(struct eventq *q, struct event *e);
/* The same, out of line: for callers off the hot path, so that the run
 * loop stays eventq_pop's one caller in the program (and inlines it). */
bool eventq_pop_cold(struct eventq *q, struct event *e);
/* The earliest event, left in place, into *e; false when empty. */
bool eventq_peek(const struct eventq *q, struct event *e);

/* The time of the earliest event, INT64_MAX when empty. */
static inline int64_t eventq_next_time(const struct eventq *q)
{
    return q->n ? (int64_t)(q->top >> 64) : INT64_MAX;
}

#endif
