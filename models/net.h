/*
 * net.h — messages between clients and cache nodes (and between nodes):
 * their delays, their admission into the node's queue, and epoch fencing.
 * Owned by net.c; the client and the transfers send through it.
 *
 * Two ways to deliver, fixed for a run:
 *   direct   (no jitter, no fencing decided on the way): a message sent at
 *            t reaches node n at t + rtt_n/2, the same delay for every
 *            message to n, so it can be admitted into n's analytic queue
 *            when it is sent;
 *   arrival  (network.jitter > 0, routing.fencing: forward, or reject with
 *            a fence_delay no longer than some node's rtt/2): delays vary,
 *            or the node's fencing decision depends on epochs published
 *            while the message travels, so each message is admitted by an
 *            arrival event (EVK_GET_ARRIVE, EVK_OP_ARRIVE) in arrival order.
 *            A GET's timeout is then scheduled when it is sent, and replies
 *            carry the GET's attempt number so that stale ones are ignored.
 * A node counts what it takes in (node_ticks: requests, sets, rejects, its
 * latency) in the tick the message arrives in, in either mode.
 *
 * Direct mode around a change of a node's state. The node's state is the
 * one it has when a message arrives, in either mode. It changes only at
 * scenario events that name the node (crash_node, restart_node, slow_node
 * and the end of its `for`, add_node, remove_node) or its zone
 * (crash_zone), all scheduled when the run starts; net_create lists their
 * times per node, and node.hold_from_ns is the next one. A message that
 * would reach node n at or after that time waits in a list of the node's,
 * and is admitted right after the change's event has been handled, with
 * its own arrival time, into the queue the change left — a restarted node serves a
 * GET sent while it was down, a slowness applies to what arrives once it
 * has begun. Messages to n sent later reach it later (the same delay), so
 * the queue still takes them in arrival order. A GET whose client gives up
 * before the change (clients.timeout shorter than rtt/2) has its timeout
 * scheduled when it starts waiting, as in arrival mode.
 * A node that leaves at the end of a drain (remove_node with a drain) does
 * so at a time nobody knows in advance: what was sent to it before is
 * admitted, and lost when it leaves, as it would be had it arrived.
 *
 * Fencing (routing.fencing): a node knows the epochs published at least
 * fence_delay before a message arrives. A message routed with an older
 * epoch, about a key the node does not own in the epoch it knows, is
 * answered MOVED naming the owner (reject: one more round trip for the
 * client, which adopts the node's epoch unless frozen) or passed on to the
 * owner (forward); a fenced invalidation also deletes the node's own copy
 * (a previous owner's copy, which fallback reads may still ask for). In
 * direct mode the decision is made when the message is sent, with the
 * epochs published by then: the same, since direct mode fences only with
 * a fence_delay longer than every rtt/2, so that what the node knows at
 * the arrival was published before the sending. Gutter nodes never fence,
 * and a node that is not up (crashed, removed) answers nothing, MOVED
 * included.
 *
 * Slot migrations (models/migrate.c): a message after an ASK reply carries
 * ASKING (req.asking) and is never fenced; the ASK and MOVED replies of a
 * migration are decided where the node serves the message (migrate.c) and
 * sent with net_redirect — but a fenced message about a slot the node
 * handed over is answered MOVED when it arrives, with forward as with
 * reject (a Redis node does not proxy), through net.moved_instead. A
 * migration's own messages (RQ_MIGRATE_READ at the source, RQ_MIGRATE at
 * the target) are never fenced and always give their event, RQF_FAILED
 * set when the node was down or its queue full.
 */
#ifndef RINGSIM_NET_H
#define RINGSIM_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/ahead.h"
#include "sim/metrics.h"
#include "sim/rng.h"
#include "sim/sim.h"

struct net {
    bool arrival_events;     /* deliver by arrival events (see above) */
    int64_t jitter_ns;       /* mean extra one-way delay */
    struct exp_stream jitter;  /* sim/ahead.h */
    int64_t redirects;       /* this tick: MOVED replies and forwards */
    int64_t moved, asks;     /* this tick: MOVED replies (fencing and migrations), ASK replies */
    /* fencing: forward with slot migrations (set by migrate.c, else NULL): whether node
     * answers r's fenced message MOVED, naming *to, instead of forwarding it — a slot it
     * handed over by a migration (get: r's message is a GET, else an operation) */
    bool (*moved_instead)(struct sim *s, uint32_t r, uint32_t node, bool get, uint32_t *to);
    int64_t *fail_due_ns;    /* per node: the latest time a GET's timeout or error reply is
                                due at its client (scheduled; without arrival events) */
    struct net_changes *changes; /* per node: when its state may change (see above) */
};

int net_create(struct sim *s);
void net_destroy(struct sim *s);

/* Schedules the timeout of request r's current GET, to node, at t_ns. */
void net_schedule_timeout(struct sim *s, uint32_t r, uint32_t node, int64_t t_ns);

/* Whether a GET's failure (timeout or error reply) may reach a client of
 * node at or before t_ns, when a reply from node is due at t_ns: one
 * already scheduled from now on, or one of a GET sent from now on (an
 * error reply comes a round trip after the GET, a timeout clients.timeout
 * after; either is scheduled after the reply would be, so at the same
 * time it comes after it). With arrival events (jitter, fencing),
 * always: messages overtake each other. O(1). */
bool net_failure_before(const struct sim *s, uint32_t node, int64_t t_ns);

/* The payload of EVK_GET_ARRIVE and EVK_GET_DONE: the GET's attempt, the
 * node it went to and (EVK_GET_DONE) the low 8 bits of that node's
 * incarnation when it admitted the GET. A read whose GET timed out may ask
 * another replica while the first GET is still queued, so these events
 * name their own GET's node rather than the request's current one (node
 * indices stay below 2^16: nodes_create checks). */
static inline uint32_t net_get_tag(uint32_t attempt, uint32_t node, uint32_t incarnation)
{
    return (attempt & 0xffu) | (incarnation & 0xffu) << 8 | node << 16;
}
static inline uint32_t net_tag_node(uint32_t b)
{
    return b >> 16;
}
static inline bool net_tag_incarnation_is(uint32_t b, uint32_t incarnation)
{
    return ((b >> 8 ^ incarnation) & 0xffu) == 0;
}

/* A GET for request r (q->key, q->epoch, q->inst set) to node nid, sent
 * now: a new attempt. What comes back, as client events about r:
 * EVK_GET_DONE (the node serves it), EVK_REJECTED (queue full), EVK_MOVED
 * (fencing), EVK_TIMEOUT (no timely reply). q->node is the node that serves
 * it; q->t_resp_ns when its reply reaches the client; RQF_LATE if that is
 * past the timeout. */
void net_send_get(struct sim *s, uint32_t r, uint32_t nid);
/* EVK_GET_ARRIVE. */
void net_get_arrive(struct sim *s, uint32_t r, uint32_t b);
/* When a reply leaving node n now reaches the client. */
int64_t net_reply_time(struct sim *s, const struct node *n, int64_t leaves_ns);

/* A fill, invalidate, write-through or copy (q->kind, q->version, q->key,
 * q->epoch set) to node, sent now; EVK_NODE_OP_DONE when it lands (unless
 * the node is down or its queue is full), or EVK_MOVED to the sender. A
 * copy's read at its source (RQ_COPY_READ) gives EVK_COPY_READ when the
 * source has served it. Copies are never fenced. */
void net_send_op(struct sim *s, uint32_t r, uint32_t node);
/* EVK_OP_ARRIVE. */
void net_op_arrive(struct sim *s, uint32_t r);

/* A node's reply to r naming node `to`: ASK (a slot being migrated; the
 * client asks `to` with ASKING) or MOVED (`to` owns the key in `epoch`,
 * which the client adopts), reaching the client at t_reply (EVK_ASK or
 * EVK_MOVED about r's current attempt). Counted in the tick. */
void net_redirect(struct sim *s, uint32_t r, uint32_t to, uint32_t epoch, int64_t t_reply,
                  bool ask);

/* EVK_TIMEOUT of r's current GET (payload b), arrival mode: whether a reply
 * due at the deadline itself goes first — the timeout is then put after it
 * (see net.c). */
bool net_timeout_yields(struct sim *s, uint32_t r, uint32_t b);

/* Direct mode: the time a message reaching n at t_arrive waits for (a
 * change of n's state scheduled at or before t_arrive), or -1: it is
 * admitted now. */
int64_t net_hold_until(const struct sim *s, const struct node *n, int64_t t_arrive);
/* Direct mode: holds a message reaching node at t_arrive, after its next
 * change (net_hold_until), until the change has happened
 * (net_event_done). what: NET_HELD_GET (a: the request, b: its tag), _OP
 * (a: the request) or _PROBE (a: the round; health_probe_held). */
enum { NET_HELD_GET, NET_HELD_OP, NET_HELD_PROBE };
void net_hold(struct sim *s, uint32_t node, unsigned what, uint32_t a, uint32_t b,
              int64_t t_arrive);
/* Scenario event e has been handled now (its start, or the end of its
 * `for`): the change of node state it stood for has happened, and the
 * nodes it names wait for their next (hold_from_ns moves on). */
struct event_cfg;
void net_event_done(struct sim *s, const struct event_cfg *e);

/* A probe's (or any message's) one-way delay to node n: rtt/2 plus jitter. */
int64_t net_probe_delay(struct sim *s, const struct node *n);

/* The tick's redirects (and MOVED and ASK replies) into the row; the
 * counters start afresh. */
void net_tick_close(struct sim *s, struct tick_row *row);

#endif
