/*
 * transfer.h — staged membership changes: warming a joining node before it
 * enters the ring (add_node warm), draining a leaving node before it leaves
 * (remove_node drain). Owned by transfer.c.
 */
#ifndef RINGSIM_TRANSFER_H
#define RINGSIM_TRANSFER_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/sim.h"

struct placement;

struct transfer {
    uint32_t node;           /* joining or leaving */
    uint32_t event;          /* the scenario event */
    bool join;               /* warm (join) or drain (leave) */
    bool active;
    double rate;             /* keys per second */
    enum warm_source source;
    double until_hit_rate;   /* join: enter at this share of future GETs that would hit */
    int64_t start_ns;
    struct placement *future;  /* the placement once the change is published */
    const uint64_t *pos;       /* key positions under the current routing (NULL: key_rec) */
    uint32_t *keys, *from;   /* what to copy, most recently used first, and where it is */
    uint32_t n, next;
    uint32_t in_flight;      /* copies started and not yet landed or lost */
    bool listed;             /* every key of the list started: done when in_flight is 0 */
    double future_mass;      /* join: request probability of the keys it will own */
    double held_bound;       /* join: at least the probability of those it holds (the last
                                exact count plus every copy landed since) */
    uint32_t check_wait, check_gap; /* landings until the next exact count may be made,
                                and that gap after a count that fell short (doubling) */
    uint32_t plan;           /* plans made so far (a step of an earlier one is dropped) */
    int64_t turns;           /* copies started and refused attempts, over every plan */
    int64_t copies, db_reads;
    int64_t lost;            /* copies a full queue refused or a node going down lost */
};

struct transfers {
    struct transfer *t;
    uint32_t n, cap;
    int64_t copies_tick, db_reads_tick;
};

int transfers_create(struct sim *s);
void transfers_destroy(struct sim *s);

/* add_node with warm: the node (up, not yet a member) is filled with the
 * keys it will own, then enters the ring. remove_node with drain: the
 * node's items go to their next owners, then it leaves. */
void transfer_start_join(struct sim *s, uint32_t node, uint32_t event);
void transfer_start_drain(struct sim *s, uint32_t node, uint32_t event);
/* The node left or crashed some other way: its transfer ends, unfinished. */
void transfer_cancel(struct sim *s, uint32_t node);
/* Whether a transfer is under way for the node. */
bool transfer_active(const struct sim *s, uint32_t node);

/* The ring changed under the transfers: an epoch was published (but one
 * of slot moves only), or a warming node's weight, vnodes or address
 * changed. Every transfer under way plans its copies again for the change
 * as it would be published now (a drain starting does so for the others
 * itself). */
void transfers_replan(struct sim *s);

/* EVK_TRANSFER_STEP (b: the plan it belongs to), EVK_TRANSFER_END, EVK_COPY_READ. */
void transfer_step(struct sim *s, uint32_t id, uint32_t plan);
void transfer_end(struct sim *s, uint32_t id);
void transfer_copy_read(struct sim *s, uint32_t r);
/* A copy landed at its destination (stored or not). */
void transfer_landed(struct sim *s, uint32_t r, bool stored);
/* A copy (RQ_COPY_READ or RQ_COPY) was lost on the way: a queue refused
 * it, or the node it was at crashed or left. Every copy started ends in
 * exactly one of transfer_landed, transfer_copy_lost or transfer_copy_read
 * finding nothing to copy; the transfer waits for the last one. */
void transfer_copy_lost(struct sim *s, uint32_t r);

/* A write of key committed: each transfer moving the key invalidates it at
 * the key's destination too. */
void transfers_on_write(struct sim *s, uint32_t key);

void transfers_tick_close(struct sim *s, struct tick_row *row);

#endif
