/*
 * sim.h — one simulation run: the context every model works in.
 *
 * A run owns everything it touches (no globals): the engine (clock, event
 * queue, request records), the keyspace and workload, the nodes, the
 * database, the ring epochs and views, the health state, the client
 * instances and the tick accumulators. Two runs in one process never see
 * each other.
 *
 * Layers — each file calls only the layers below it; what a lower layer
 * must report goes up as a return value or an event:
 *
 *     command line (sim/cli/)
 *        └► run loop, scenario events, ticks, summary (sim/run*.c)
 *             └► client (models/client.c)
 *                  └► health (models/health.c)
 *                       └► membership: ring epochs and views (models/membership.c)
 *                            └► node, database, workload (models/node.c, db.c, workload.c)
 *                                 └► placement, store, fifo (models/placement/, store.c, fifo.c)
 *                                      └► engine (sim/engine.c), rng, stats, util
 *
 * Every field below has one owning file, named beside it; other files read
 * it or call the owner's functions, never write it.
 *
 *   arrival ─► client: route(view, key) ─► node queue ─► GET_DONE ─► hit
 *                                                          └─ miss ─► GET_RESP ─► db ─► DB_DONE ─► fill ─► NODE_OP_DONE
 *   write ─► db ─► DB_DONE (version++) ─► invalidate / write-through ─► NODE_OP_DONE
 *
 * Queues are analytic (models/fifo.h): a request's service start and end
 * are known when it arrives, so a hit costs one event and a miss four.
 */
#ifndef RINGSIM_SIM_H
#define RINGSIM_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "models/placement/placement.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/sink.h"

/* ---- event kinds (the run loop's dispatch table maps each to its handler) ---- */
enum {
    EVK_GET_DONE = 1,   /* a: request — the node serves a GET */
    EVK_GET_RESP,       /* a: request — a miss reply reaches the client */
    EVK_TIMEOUT,        /* a: request — the client gives up on the node */
    EVK_REJECTED,       /* a: request — an error reply (queue full) reaches the client */
    EVK_DB_DONE,        /* a: request — a database read or write completes */
    EVK_NODE_OP_DONE,   /* a: request — a fill, invalidate or write-through reaches the store */
    EVK_SCENARIO,       /* a: scenario event index */
    EVK_SCENARIO_END,   /* a: scenario event index — its `for` has run out */
    EVK_READMIT,        /* a: instance, b: node — client-mode retry_after has passed */
    EVK_PROBE_ROUND,    /* central mode: probe every node */
    EVK_PROBE_RESULT,   /* a: node | ok bit | its incarnation (models/health.c), b: round */
    EVK_ADOPT,          /* a: instance, b: epoch */
    EVK_PUBLISH,        /* publish the membership changes made at this instant */
    EVK_GET_ARRIVE,     /* a: request, b: attempt — a GET reaches its node (arrival mode) */
    EVK_OP_ARRIVE,      /* a: request — a fill, invalidate, write-through or copy reaches its node */
    EVK_MOVED,          /* a: request, b: attempt — a MOVED reply reaches the client (fencing) */
    EVK_BACKFILL,       /* a: request — a miss read's backfill token is due (backfill_mode: wait) */
    EVK_COPY_READ,      /* a: request — a transfer's copy was read at its source */
    EVK_TRANSFER_STEP,  /* a: transfer — copy the next key */
    EVK_TRANSFER_END,   /* a: transfer — max_wait has passed */
    EVK_SCENARIO_STEP,  /* a: scenario event index, b: step — a gradual change's next epoch */
    EVK_PROBE_ARRIVE,   /* a: node — a central probe reaches it (arrival mode) */
    EVK_ASK,            /* a: request, b: attempt — an ASK reply reaches the client (migration) */
    EVK_MIGRATE_STEP,   /* the slot migration's next step */
    EVK_MIGRATE_READ,   /* a: request — a migration's read at the slot's source is served */
    EVK_MIGRATE_LAND,   /* a: request — a migrated key lands at the slot's target */
    EVK_TRACE_END,      /* the replayed trace has no more requests */
    EVK_DOWN_RELEASE,   /* a: node, b: its incarnation — a GET sent to it while it was
                           down is no longer awaited (the client's timeout) */
    EVK_LOCAL_PUT,      /* a: request, b: version — a hit's value reaches the client,
                           which keeps it in its local cache (clients.local_cache) */
    EVK_DETECT_WINDOW,  /* a hot-key detection window ends (clients.hot_key_detection) */
    EVK_HIT_REPLY,      /* a: instance, b: node (and its leaves) — a hit's reply reaches the
                           client, a success for client-mode health (health_hit) */
    EVK_COUNT
};

struct run_options {
    const volatile sig_atomic_t *stop; /* set (e.g. by SIGINT) to interrupt */
    /* called at every tick end; now/duration in ns */
    void (*progress)(void *ctx, int64_t now_ns, int64_t duration_ns, int64_t requests);
    void *progress_ctx;
    bool check_invariants; /* verify the mirrored counts after every tick, and the stores
                              item by item as often as the requests pay for it (tests) */
    bool helper_thread;    /* draw the request stream and the service times ahead on a
                              second thread (sim/ahead.h); the results are the same */
    bool *invalid_input;   /* when not NULL, set by sim_create failing on invalid input:
                              a trace whose content is malformed (a bad line or record) */
};

/* What the summary needs of every tick (kept in memory: 64 bytes a tick). */
struct tick_point {
    int64_t start_ns, len_ns; /* the tick's span: its times stay exact (the summary's
                                 seconds are differences and sums of them) */
    double hit_rate;          /* NaN when no read finished */
    double backend_qps, db_util, db_demand;
    int64_t hits, reads_done;
};

/* Run totals the summary takes from the tick rows (sim/run_ticks.c sums
 * each row as it is recorded; nothing counts them twice). */
#define TICK_SUMS(X) \
    X(requests) X(reads) X(writes) X(hits) X(misses) X(timeouts) X(errors) X(cache_errors) \
    X(db_reads) X(db_writes) X(stale_reads) X(stale_overwrites) X(clobbers) X(fallback_reads) \
    X(local_hits)

struct tick_sums {
#define TICK_SUM_FIELD(name) int64_t name;
    TICK_SUMS(TICK_SUM_FIELD)
#undef TICK_SUM_FIELD
};

struct workload;
struct item_pool;
struct node;
struct database;
struct membership;
struct health;
struct clients;
struct instance;
struct net;
struct transfers;
struct migrations;
struct traces;
struct cures;
struct ahead;

struct sim {
    struct engine eng;       /* engine.c: clock, events, requests, status */
    const struct scenario *sc;  /* read-only */
    struct place_params pp;  /* read-only: the scenario's routing section */
    struct run_options opt;  /* read-only */
    struct ahead *ahead;     /* ahead.c: the helper thread drawing streams ahead, or NULL */
    struct sink sink;        /* read-only: where rows go */

    struct workload *wl;     /* workload.c: keyspace, per-key records, the request stream */
    struct item_pool *pool;  /* node.c: every node's items */
    struct node *nodes;      /* node.c: every node the run will ever have, then the gutter */
    uint32_t n_nodes, n_gutter, gutter_first; /* node.c, fixed after setup */
    uint32_t *inflight;      /* node.c: per node, admitted GETs not yet served (bounded loads) */
    uint32_t inflight_total; /* node.c: their sum */
    uint32_t *zones;         /* node.c: per node, its zone id (replicas go to distinct ones) */
    uint32_t *by_id;         /* node.c: every node's index in id order: what is done to
                                several nodes at one instant is done in this order, so the
                                order of the file's nodes changes nothing */
    struct database *db;     /* db.c */
    struct membership *mb;   /* membership.c: the authoritative membership, epochs, views */
    struct health *hl;       /* health.c: failure counts, ejections, the coordinator */
    struct net *net;         /* net.c: message delivery, jitter, fencing counts */
    struct transfers *tr;    /* transfer.c: staged joins and drains */
    struct migrations *mg;   /* migrate.c: slot migrations (migrate_slots), or NULL */
    struct clients *cl;      /* client.c: tick accumulators, leases, adoption delays */
    struct traces *traces;   /* trace.c: sampled request traces, or NULL */
    struct cures *cures;     /* cures.c: replica choice, hot-key overrides, local caches */
    struct instance *inst;   /* client.c: the client instances */
    uint32_t n_inst;

    /* run.c and run_ticks.c: the ticks */
    int64_t tick_ns;
    int64_t tick_index;      /* the tick being accumulated */
    int64_t tick_end_ns;
    int64_t first_event_ns;  /* -1: no scenario event */
    struct tick_point *series;
    size_t n_series, cap_series;
    struct tick_sums sums;   /* over the recorded ticks */
    int64_t stores_checked;  /* run_ticks.c: sums.requests at the last walk of the stores */
    double *step_from;       /* run_events.c: per event, the value a gradual change starts from */
    uint32_t *gradual;       /* run_events.c: per node, the set_weight and the set_vnodes whose
                                steps it takes (event + 1; 0: none), [2 node] and [2 node + 1] */
};

/* Shorthands for the models' most common engine calls. */
#define sim_schedule(s, t, kind, a, b) engine_schedule(&(s)->eng, (t), (kind), (a), (b))
#define sim_event(s, kind, node, ...) engine_event(&(s)->eng, (kind), (node), __VA_ARGS__)
#define sim_fail(s, ...) engine_fail(&(s)->eng, __VA_ARGS__)

/* ---- the run (sim/run.c) -------------------------------------------------------- */
/* Builds a run for scenario sc writing to sink. Returns NULL with a reason
 * in err (e.g. out of memory). Caller destroys. */
struct sim *sim_create(const struct scenario *sc, const struct sink *sink,
                       const struct run_options *opt, char *err, size_t errlen);
/* Runs to the end (or until interrupted/failed); returns the status. */
enum run_status sim_run(struct sim *s);
static inline enum run_status sim_status(const struct sim *s)
{
    return s->eng.status;
}
static inline const char *sim_error(const struct sim *s)
{
    return s->eng.error;
}
/* The summary of what was recorded (call after sim_run). */
void sim_summary(const struct sim *s, struct summary_row *out);
void sim_destroy(struct sim *s);

#endif
