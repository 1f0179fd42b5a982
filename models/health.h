/*
 * health.h — failure detection and ejection: per client instance (client
 * mode) and by a central coordinator (central mode), and the node-level
 * ejection episodes the summary counts. Owned by health.c.
 */
#ifndef RINGSIM_HEALTH_H
#define RINGSIM_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"
#include "sim/u64map.h"

/* One client instance's view of node health (client mode). */
struct inst_health {
    uint32_t *fails;         /* per node: consecutive failures (failure_limit reaches 10^6) */
    uint8_t *ejected;        /* per node: ejected by this instance */
    uint8_t *held;           /* per node: an ejection is being held back (logged once) */
    uint32_t n_ejected;
    int64_t last_eject_ns;   /* for cooldown; INT64_MIN: never */
};

struct health {
    struct inst_health *inst;
    uint32_t n_inst;
    /* the central coordinator */
    uint32_t *fails;         /* per node: consecutive failed probes */
    int64_t *ejected_at;     /* per node: when ejected, or -1 */
    uint8_t *held;
    uint32_t n_ejected;
    int64_t last_eject_ns;
    struct u64map served;    /* probes whose reply comes in time, until it does (key:
                                round << 16 | node): when the node serves the probe, which
                                sends its reply */
    /* node-level episodes */
    uint32_t *ejectors;      /* per node: instances with it ejected (+1 when central) */
    uint16_t *left;          /* per node: times it left the membership or came back
                                (unique: fewer than 2^16 remove and add events), to void
                                older readmissions */
    int64_t *left_ns;        /* per node: when it last left or came back (probes sent
                                before were to the node that left) */
    uint32_t nodes_ejected_now;
    /* run totals */
    int64_t ejections, cascade_removals, instance_ejections, readmissions, max_ejected;
};

int health_create(struct sim *s);
void health_destroy(struct sim *s);

/* Client mode: a request of instance inst to node succeeded / failed. On a
 * failure the instance may eject the node: then health_failure returns true
 * (the caller re-derives the instance's view) and schedules EVK_READMIT.
 * epoch: the instance's epoch (whose members bound max_ejected); sent_ns:
 * when the GET was sent (one sent before the node last left, or came back,
 * was to the node that left, and is not counted). */
void health_success(struct sim *s, uint32_t inst, uint32_t node);
bool health_failure(struct sim *s, uint32_t inst, uint32_t epoch, uint32_t node,
                    int64_t sent_ns, const char *what);
/* A hit of instance inst at node, served now, whose reply reaches the
 * instance at reply_ns: a success then. At once when no failure of the
 * node can reach a client first (net_failure_before: the same outcome),
 * else by EVK_HIT_REPLY, whose b health_hit_reply takes. */
void health_hit(struct sim *s, uint32_t inst, uint32_t node, int64_t reply_ns);
void health_hit_reply(struct sim *s, uint32_t inst, uint32_t b);
/* EVK_READMIT: retry_after has passed (b: the node, and how many times it
 * had left when ejected); true if the node was put back (the caller
 * re-derives the instance's view). */
bool health_readmit(struct sim *s, uint32_t inst, uint32_t b);

/* Instance inst adopts epoch: its ejections of nodes that are not members
 * of it are forgotten (made while it was frozen on an older epoch that still
 * held a node since removed: they would count against its max_ejected and,
 * should the id come back, keep the new node out). Failures of requests to
 * a node that is not a member of the instance's epoch are not counted
 * (health_failure). True if anything was forgotten (the caller re-derives
 * the instance's view). */
bool health_inst_adopted(struct sim *s, uint32_t inst, uint32_t epoch);

/* Central mode: EVK_PROBE_ROUND and EVK_PROBE_RESULT (a: the node, an ok
 * bit and its incarnation; b: the round that sent the probe). An ok result
 * passes if the node served the probe before that incarnation ended. */
void health_probe_round(struct sim *s);
void health_probe_result(struct sim *s, uint32_t a, uint32_t b);
/* EVK_PROBE_ARRIVE (messages delivered by arrival events: models/net.h);
 * b: the round that sent it (its number, modulo 2^32). */
void health_probe_arrive(struct sim *s, uint32_t node, uint32_t b);
/* Direct mode: the probe of `round` to node reaches it at t_arrive: it is
 * admitted now (when sent, or when a change of the node's state it waited
 * for has happened), or waits for the next change before t_arrive
 * (net_hold). */
void health_probe_held(struct sim *s, uint32_t node, uint32_t round, int64_t t_arrive);

/* A node left the membership, or comes back after leaving: every ejection
 * of it is forgotten (the coordinator's and the instances'), and its
 * failure counts, so that it counts against no max_ejected and, should its
 * id come back, comes back a fresh node (an instance frozen on an epoch
 * that still held it may have ejected it after it left: that goes when it
 * comes back). The instances' views follow when they adopt the epoch its
 * leaving or return publishes. */
void health_node_left(struct sim *s, uint32_t node);

/* The nodes instance inst has ejected itself (NULL when none). */
static inline const uint8_t *health_inst_excluded(const struct sim *s, uint32_t inst)
{
    const struct inst_health *h = &s->hl->inst[inst];
    return h->n_ejected ? h->ejected : NULL;
}
static inline bool health_inst_ejected(const struct sim *s, uint32_t inst, uint32_t node)
{
    return s->hl->inst[inst].ejected[node] != 0;
}
static inline uint32_t health_inst_n_ejected(const struct sim *s, uint32_t inst)
{
    return s->hl->inst[inst].n_ejected;
}
/* Instances (plus the coordinator) that have the node ejected now. */
static inline uint32_t health_ejectors(const struct sim *s, uint32_t node)
{
    return s->hl->ejectors[node];
}

/* Mirrored counts agree (tests): per-node ejectors, nodes ejected now,
 * each instance's and the coordinator's count of ejections. */
const char *health_check(const struct sim *s);

#endif
