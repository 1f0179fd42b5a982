/*
 * engine.h — the engine core: the clock, the event queue, scheduling, the
 * request records and the run's status. Every model calls it; it calls no
 * model (the run loop, sim/run.c, pops the events and dispatches them).
 *
 *     models ──engine_schedule──► event queue ──(run loop pops)──► handlers
 *            ──req_alloc / req_put──► request records
 *            ──engine_event──► the sink's `events` rows
 *            ──engine_fail──► status FAILED, the loop stops
 *
 * Time is an integer count of nanoseconds; events are ordered by (time,
 * sequence number), so an event scheduled while another is handled runs
 * after every event already queued for that time (sim/eventq.h).
 *
 * Request records: one per client operation (and per extra cache operation
 * a write sends), referred to by the events about it; `pending` counts
 * those references and the record returns to the free list when the last
 * is done with (req_put). Records are reused, so an index is only valid
 * while the caller holds a reference.
 */
#ifndef RINGSIM_ENGINE_H
#define RINGSIM_ENGINE_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim/eventq.h"
#include "sim/sink.h"
#include "sim/util.h"

enum run_status { RUN_COMPLETE, RUN_INTERRUPTED, RUN_FAILED };

/* What a request record is doing. */
enum req_kind {
    RQ_READ, RQ_WRITE, RQ_DELETE /* a trace's delete: a write that always invalidates */,
    RQ_FILL, RQ_INVALIDATE, RQ_WRITE_THROUGH,
    /* from here on: copies between nodes, which are never fenced */
    RQ_COPY,       /* a transfer's copy landing at the key's destination */
    RQ_COPY_READ,  /* a transfer reading the key at its source (through its queue) */
    RQ_MIGRATE_READ, /* a slot migration reading the key at the slot's source */
    RQ_MIGRATE     /* a slot migration's key landing at the slot's target */
};

/* req.asking: whether a message carries ASKING (after an ASK reply, the
 * client asks a slot's importing node, which serves it whatever it owns). */
enum { ASKING_NO, ASKING_YES, ASKING_NEXT /* the next message sent carries it */ };

enum {
    RQF_LATE = 1,       /* the reply will miss the timeout: the client times out first */
    RQF_GUTTER = 2,     /* went to a gutter node (fills take gutter_ttl) */
    RQF_FILL = 4,       /* a read that fills fill_node after the database answers */
    RQF_FALLBACK = 8,   /* a GET to the key's previous owner after a miss at the new one */
    RQF_WAITER = 16,    /* waiting for another request's database read (coalesce) */
    RQF_OUTCOME = 32,   /* a read: its hit or miss has been counted */
    RQF_SAMPLED = 64,   /* recorded in the request trace */
    RQF_FAILED = 128    /* a read: its last GET timed out or got an error reply */
};

struct req {
    int64_t t0_ns;       /* the operation's start at the client */
    int64_t t_resp_ns;   /* when the node's reply reaches the client */
    int64_t t_db_ns;     /* when it reached the database */
    int64_t t_get_ns;    /* when its current GET was sent */
    uint32_t key;
    uint32_t node;       /* node asked, PLACE_NONE if none */
    uint32_t version;    /* version read or to install */
    uint32_t incarnation;/* of the node when the request was admitted */
    uint32_t inst;
    uint32_t fill_node;  /* node a read fills, PLACE_NONE if none */
    uint32_t lease;      /* lease token granted by fill_node, 0 if none */
    uint32_t next_waiter;/* coalesce: next request waiting on the same read */
    uint32_t epoch;      /* the ring epoch its current message was routed with (fencing) */
    uint32_t redirect;   /* MOVED, ASK: the node named; a copy: the transfer */
    uint32_t redirect_epoch; /* MOVED: the node's epoch */
    uint8_t attempt;     /* the current GET (replies about older ones are ignored) */
    uint8_t rejected;    /* RQF_FAILED: the last failure was an error reply, not a timeout */
    uint16_t tried;      /* replicas: how many nodes the read has asked */
    uint8_t kind;        /* enum req_kind */
    uint8_t flags;       /* RQF_* */
    uint8_t pending;     /* references: the handler holding it, events about it */
    uint8_t asking;      /* ASKING_*: set by net.c at every send */
    uint32_t next_free;
};

/* Far past any sane run; past it the run fails (a model has run away). */
#define REQ_MAX (1u << 26)

struct req_pool {
    struct req *r;
    uint32_t n, cap, free_head;
    uint32_t live;       /* records in use */
};

struct engine {
    int64_t now_ns;      /* the time of the event being handled */
    struct eventq q;
    struct req_pool reqs;
    const struct sink *sink; /* where engine_event records go (may have no `event`) */
    enum run_status status;  /* RUN_COMPLETE while running normally */
    char error[256];         /* why it failed */
};

void engine_init(struct engine *e, const struct sink *sink);
void engine_deinit(struct engine *e);

/* Records the reason and stops the run as failed (the first reason wins). */
void engine_fail(struct engine *e, const char *fmt, ...) PRINTF_LIKE(2, 3);

static inline bool engine_failed(const struct engine *e)
{
    return e->status == RUN_FAILED;
}

int engine_schedule_failed_(struct engine *e);

/* Schedules an event; on the queue's bound the run fails. Returns 0 or -1. */
static inline int engine_schedule(struct engine *e, int64_t t_ns, unsigned kind, uint32_t a,
                                  uint32_t b)
{
    assert(t_ns >= e->now_ns); /* nothing is scheduled in the past */
    if (UNLIKELY(eventq_push(&e->q, t_ns, kind, a, b)))
        return engine_schedule_failed_(e);
    return 0;
}

/* Records an `events` row at the current time (node may be NULL). */
void engine_event(struct engine *e, const char *kind, const char *node, const char *fmt, ...)
    PRINTF_LIKE(4, 5);

/* A fresh request record with one reference (the caller's): a new one is
 * zeroed, a recycled one holds what its last user left (req.asking, read
 * before it is set, is ASKING_NO then). On the bound the run fails and a
 * valid record is still returned. */
uint32_t req_alloc(struct engine *e);

static inline struct req *req_at(struct engine *e, uint32_t r)
{
    return &e->reqs.r[r];
}

/* Zeroes a fresh record's fields but its references and free-list link. */
static inline void req_clear(struct req *q)
{
    uint8_t pending = q->pending;
    memset(q, 0, sizeof(*q));
    q->pending = pending;
}

/* Schedules an event about request r, which holds a reference until handled. */
static inline void req_schedule(struct engine *e, uint32_t r, int64_t t_ns, unsigned kind)
{
    e->reqs.r[r].pending++;
    engine_schedule(e, t_ns, kind, r, 0);
}

/* The same, about the request's GET number `attempt` (its b payload). */
static inline void req_schedule_attempt(struct engine *e, uint32_t r, int64_t t_ns,
                                        unsigned kind)
{
    e->reqs.r[r].pending++;
    engine_schedule(e, t_ns, kind, r, e->reqs.r[r].attempt);
}

/* The same, for an event whose time is no earlier than that of every event
 * scheduled so before it (a constant delay after now): the queue's lane
 * (eventq_push_fifo), in the same order. */
static inline void req_schedule_attempt_fifo(struct engine *e, uint32_t r, int64_t t_ns,
                                             unsigned kind)
{
    assert(t_ns >= e->now_ns);
    e->reqs.r[r].pending++;
    if (UNLIKELY(eventq_push_fifo(&e->q, t_ns, kind, r, e->reqs.r[r].attempt)))
        engine_schedule_failed_(e);
}

/* Schedules an event about r with payload b of the caller's making. */
static inline void req_schedule_b(struct engine *e, uint32_t r, int64_t t_ns, unsigned kind,
                                  uint32_t b)
{
    e->reqs.r[r].pending++;
    engine_schedule(e, t_ns, kind, r, b);
}

/* Drops one reference to r; the last one frees the record. */
static inline void req_put(struct engine *e, uint32_t r)
{
    struct req *q = &e->reqs.r[r];
    assert(q->pending > 0);
    if (--q->pending == 0) {
        q->next_free = e->reqs.free_head;
        e->reqs.free_head = r;
        assert(e->reqs.live > 0);
        e->reqs.live--;
    }
}

#endif
