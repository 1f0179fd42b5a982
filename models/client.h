/*
 * client.h — the client instances: routing, the read path, the write path,
 * adopting ring epochs, and the tick's client-side counters. Owned by
 * client.c; the run loop calls these handlers for the request events.
 */
#ifndef RINGSIM_CLIENT_H
#define RINGSIM_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/metrics.h"
#include "sim/rng.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/u64map.h"

struct view;

struct instance {
    uint32_t index;
    uint32_t epoch;          /* adopted epoch id */
    int64_t adopted_ns;      /* when it was adopted (the fallback window runs from here) */
    struct view *view;       /* routing view: epoch minus local ejections */
    struct view *prev_view;  /* the view before the last epoch adopted (fallback) */
    struct u64map db_reads;  /* coalesce: key -> the request reading it from the database */
    bool frozen;             /* split brain: ignores new epochs */
    int64_t frozen_until;    /* ... until the last split brain holding it ends */
    double tokens;           /* backfill token bucket */
    int64_t tokens_ns;
};

/* The client-side counts of the tick being accumulated. */
struct tick_acc {
    int64_t requests, reads, writes, hits, misses, timeouts, errors, cache_errors;
    int64_t stale_reads, stale_overwrites, clobbers, fallback_reads, local_hits,
        local_stale_reads, bounded_reroutes, cache_write_ops;
    struct lhist client_lat;
};

struct clients {
    struct tick_acc tk;
    uint32_t next_lease;     /* lease tokens: 1, 2, ... */
    int64_t stale_logged;    /* stale overwrites recorded one by one in events */
    struct rng propagation;  /* central mode: each instance's adoption delay */
};

int clients_create(struct sim *s);
void clients_destroy(struct sim *s);

/* A new operation from the workload. */
/* A client operation arrives: op is an enum workload_op. */
void client_arrival(struct sim *s, int64_t t_ns, uint32_t inst, unsigned op, uint32_t key);
/* The request events (r: the request record, b: the attempt it is about). */
void client_get_done(struct sim *s, uint32_t r, uint32_t b);
void client_get_resp(struct sim *s, uint32_t r, uint32_t b);
void client_timeout(struct sim *s, uint32_t r, uint32_t b);
void client_rejected(struct sim *s, uint32_t r, uint32_t b);
void client_moved(struct sim *s, uint32_t r, uint32_t b);
void client_db_done(struct sim *s, uint32_t r, uint32_t b);
void client_node_op_done(struct sim *s, uint32_t r, uint32_t b);
void client_backfill(struct sim *s, uint32_t r, uint32_t b);
/* EVK_READMIT: instance inst's retry_after for a node has passed (b as
 * health_readmit takes it). */
void client_readmit(struct sim *s, uint32_t inst, uint32_t b);
/* Re-derives an instance's routing view after its epoch or ejections
 * changed (client_views.c). 0, or -1 when the view cannot be built. */
int client_refresh_view(struct sim *s, struct instance *in);

/* Epochs: a new one was published (each instance adopts it at once, or
 * after propagation_delay in central mode, unless frozen). */
void clients_epoch_published(struct sim *s, uint32_t epoch);
/* EVK_ADOPT, and the end of a split brain: instance adopts epoch if newer. */
void client_adopt(struct sim *s, uint32_t inst, uint32_t epoch);
/* A split brain freezes inst until until_ns; overlapping ones add up: it
 * stays frozen until the last of them ends. */
void client_freeze(struct sim *s, uint32_t inst, int64_t until_ns);
/* The end of a split brain: unless a longer one still holds inst, it
 * thaws and adopts the latest epoch. Whether it is no longer frozen. */
bool client_unfreeze(struct sim *s, uint32_t inst);

/* The clients' part of a tick row, then their tick counters start afresh. */
void clients_tick_close(struct sim *s, struct tick_row *row);

/* EVK_ASK: a node answered ASK (slot migration); the operation goes to
 * the node it names, with ASKING. */
void client_ask(struct sim *s, uint32_t r, uint32_t b);

/* Every read started has had at most one outcome, and reads + writes open
 * (in flight) agree with the counts (tests). open_reads: reads still
 * without an outcome. */
const char *clients_check(const struct sim *s, int64_t *open_reads);

#endif
