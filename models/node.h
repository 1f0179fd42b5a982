/*
 * node.h — the cache nodes: their store, their service queue, their faults,
 * their per-tick counters and the in-flight GET counts bounded loads read.
 * Owned by node.c; the client calls these functions to use a node.
 */
#ifndef RINGSIM_NODE_H
#define RINGSIM_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "models/fifo.h"
#include "models/store.h"
#include "sim/ahead.h"
#include "sim/metrics.h"
#include "sim/rng.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/u64map.h"

enum node_state { NODE_ABSENT, NODE_UP, NODE_CRASHED, NODE_REMOVED };

/* What a node counts when a message arrives, taken into its queue: GETs
 * (requests, their latency), fills and write-throughs (sets), refusals of
 * a full queue (rejects). With direct delivery (models/net.h) a message is
 * taken in when it is sent, for its arrival rtt/2 later, perhaps in a later
 * tick: it is counted in its arrival's tick — in node_tick.later until that
 * tick begins. */
struct node_adm {
    int64_t requests, sets, rejects;
    struct lhist lat;
};

struct node_tick {
    int64_t hits;                      /* when the node serves them: now */
    uint64_t evictions0, expirations0; /* store counters at the tick's start */
    struct node_adm now;               /* arrivals in the tick being accumulated */
    struct node_adm *later;            /* arrivals in the ticks to come: tick i's at
                                          i & mask; at mask + 1, after the run's end */
    uint32_t mask;
};

struct node {
    uint32_t index;
    char *id;
    char *address;           /* current */
    char *zone;              /* its failure domain as given ("" : none) */
    double weight;
    struct cache_cfg cfg;
    bool gutter;
    enum node_state state;
    uint32_t incarnation;    /* bumps at crash/remove/join: work in flight is lost */
    int64_t *incarnation_ns; /* when each incarnation began ([0]: unused; one entry per
                                crash, restart, removal or join: bounded by the events) */
    uint32_t incarnation_cap;
    double slow_factor;      /* 1 = healthy */
    int64_t slow_latency_ns; /* added to every reply */
    uint32_t slow_event;     /* scenario event that slowed it (to end the right one) */
    int64_t fault_end_ns;    /* when its last fault ended (restart, return, end of slowness:
                                once the work queued while slow is done); INT64_MIN: never
                                (node_fault_since) */
    int64_t half_rtt_ns;
    int64_t hold_from_ns;    /* the next scheduled time its state may change, INT64_MAX:
                                none (net.c: direct delivery holds messages across it) */
    struct store store;
    struct fifo queue;
    struct exp_stream service; /* service times (sim/ahead.h) */
    struct busy_meter busy;
    struct node_tick tk;
    struct u64map leases;    /* fill: lease — key -> issued_ms << 32 | token (client.c's) */
    int64_t gets_total;      /* GETs received in the ticks closed so far (the summary's
                                max_node_share covers the recorded ticks only) */
    bool ever_present;
};

/* Builds every node the run will have: the file's nodes (up), each new id
 * of an add_node event (absent until it joins), then the gutter pool.
 * Returns 0, or -1 with a reason in err. */
int nodes_create(struct sim *s, char *err, size_t errlen);
void nodes_destroy(struct sim *s);
/* The zone id of each node (s->zones): nodes that share a zone name share
 * an id; a node without a zone has one of its own. */

/* The index of node id among the non-gutter nodes, or -1. */
int node_find(const struct sim *s, const char *id);

/* Fills every prewarming node present at time 0 with the keys it owns in pl. */
void nodes_prewarm(struct sim *s, const struct placement *pl);

/* The longest rtt any node of the scenario ever has: its file's nodes',
 * those add_node brings (back) with settings of their own, the gutter
 * pool's. */
int64_t nodes_longest_rtt_ns(const struct scenario *sc);

/* How many ticks a node's arrival counts are kept for (node_adm): a power
 * of two more than the ticks a message can travel across — rtt/2 of the
 * slowest node the scenario has (its file's nodes, those add_node brings,
 * the gutter pool) over the tick, plus the tick it is sent in. */
uint32_t node_adm_ticks(const struct scenario *sc);

/* Admission of a request arriving at the node at t_ns: returns 0 with
 * *done_ns (service end), 1 when the node is not up (lost), -1 when its
 * queue is full (an error reply; counted in rejects). */
int node_submit(struct sim *s, struct node *n, int64_t t_ns, int64_t *done_ns);

/* A GET arriving at t_ns: node_submit plus the GET's accounting (requests,
 * latency, in-flight). Same return values; *reply_ns is done + the slow
 * latency: the reply, sent when the node has served the GET (at done: a
 * crash after that does not stop it), is that late on its way back. */
int node_get(struct sim *s, struct node *n, int64_t t_ns, int64_t *done_ns, int64_t *reply_ns);
/* A fill or write-through arriving at t_ns (counted in sets). */
int node_set_submit(struct sim *s, struct node *n, int64_t t_ns, uint32_t bytes,
                    int64_t *done_ns);
/* The node serves an admitted GET of key now: the item or NULL (a miss). */
struct item *node_serve_get(struct sim *s, struct node *n, uint32_t key);
/* The node answers an admitted GET without looking the key up (an ASK or
 * MOVED reply of a slot migration). */
void node_serve_redirect(struct sim *s, struct node *n);

/* A GET reached n while it was down: counted in flight at n until
 * until_ns (its client's timeout), unless n's incarnation changes first. */
void node_await_down(struct sim *s, struct node *n, int64_t until_ns);
/* EVK_DOWN_RELEASE. */
void node_down_release(struct sim *s, uint32_t node, uint32_t incarnation);
/* A GET on its way to a node as a message of its own (arrival events,
 * models/net.h): counted in flight at the node from its sending, as one
 * admitted when sent is, until it arrives — node_transit_end then, with the
 * node's incarnation at the sending (a crash, removal or restart meanwhile
 * zeroed the count, so there is nothing to take back). */
void node_transit_start(struct sim *s, const struct node *n);
void node_transit_end(struct sim *s, const struct node *n, bool same_incarnation);

/* Membership and faults. */
/* A node enters (add_node). Back after a removal, it is a new, empty node
 * with these settings (zone and cache included); back while its drain
 * still ran (it never left), it keeps its items and settings but for
 * address and weight. -1: out of memory. */
int node_join(struct sim *s, struct node *n, const char *address, double weight,
              const char *zone, const struct cache_cfg *cfg);
void node_leave(struct sim *s, struct node *n);
void node_crash(struct sim *s, struct node *n);
void node_restart(struct sim *s, struct node *n);
void node_set_address(struct node *n, const char *address);
void node_set_weight(struct node *n, double weight);
void node_slow(struct sim *s, struct node *n, double factor, int64_t latency_ns, uint32_t event);
/* Ends the slowness started by scenario event `event`; false if another
 * event has slowed the node since (or it is not slow). */
bool node_slow_end(struct sim *s, struct node *n, uint32_t event);
/* An injected fault now: not up (crashed, removed, absent), or slow. */
bool node_has_fault(const struct node *n);
/* An injected fault now, or at any time since t_ns (a slowness until the work
 * queued while it lasted is done). */
bool node_fault_since(const struct node *n, int64_t t_ns);
/* When incarnation v of n ended — it crashed, left, restarted or joined
 * then — or INT64_MAX while it lasts (v <= n->incarnation). What the node
 * served strictly before that moment was done, and its reply sent; a crash
 * at the very instant a service ends comes first, as it does for a GET
 * (crashes are scenario events, scheduled before any request's). O(1). */
int64_t node_incarnation_end_ns(const struct node *n, uint32_t v);
/* absent, removed, crashed, slow, gutter or up (ejection is health's to say). */
const char *node_state_name(const struct node *n);

/* The node's part of a tick row over len_ns of the tick, then its tick
 * counters start afresh. busy: its busy ns in the tick. */
void node_tick_close(struct sim *s, struct node *n, int64_t tick, int64_t len_ns,
                     struct node_tick_row *row);

/* Sum of inflight equals inflight_total, and no count is negative; stores:
 * also walk every node's store item by item (store_check). NULL, or what is
 * broken (tests). */
const char *nodes_check(const struct sim *s, bool stores);

static inline uint32_t node_count(const struct sim *s)
{
    return s->n_nodes;
}

#endif
