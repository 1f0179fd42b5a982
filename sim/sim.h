/*
 * sim.h — one simulation run: the context every model works in.
 *
 * A run owns everything it touches (no globals): the clock, the event
 * queue, the random streams, the keyspace and workload, the nodes, the
 * database, the client instances, the ring views and epochs, the health
 * coordinator, the requests in flight and the metric accumulators. Two
 * runs in one process never see each other.
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

#include "models/fifo.h"
#include "models/placement/placement.h"
#include "models/store.h"
#include "sim/eventq.h"
#include "sim/metrics.h"
#include "sim/rng.h"
#include "sim/scenario.h"
#include "sim/sink.h"
#include "sim/stats.h"
#include "sim/u64map.h"

/* ---- event kinds -------------------------------------------------------- */
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
    EVK_PROBE_RESULT,   /* a: node, b: ok bit | the node's incarnation << 1 */
    EVK_ADOPT,          /* a: instance, b: epoch */
    EVK_PUBLISH,        /* publish the membership changes made at this instant */
    EVK_COUNT
};

/* ---- keyspace and workload (models/workload.c) --------------------------- */
struct keyspace {
    uint32_t n_keys;      /* ids 0..n_keys-1 (popularity ranks) are key_format(name_of[id]) */
    uint32_t *name_of;    /* seeded permutation: the name number of each id */
    uint32_t n_total;     /* plus hot keys outside that range */
    struct key_rec *rec;  /* per key: position, cached items, version */
    uint32_t *item_bytes; /* value_bytes + name length; NULL when all are bytes_fixed */
    uint32_t bytes_fixed;
    char **extra_names;   /* names of ids >= n_keys */
    char *key_format;
    char conv;            /* the format's conversion: d i u x X */
};

struct hot_entry {
    uint32_t key;
    double share;
};

struct hot_name {
    const char *name;        /* points into the scenario */
    uint32_t id;
};

/* One arrival's draws, made ahead of time (see workload.c). */
struct arrival_draw {
    uint32_t key, inst;
    bool write;
};
#define WORKLOAD_AHEAD 8

struct workload {
    struct keyspace ks;
    struct arrival_draw ahead[WORKLOAD_AHEAD]; /* ring of draws not yet used */
    uint32_t ahead_head, ahead_n;
    uint32_t n_inst;
    enum popularity kind;
    double zipf_s;           /* rejection-inversion constants below */
    double z_hn, z_sc;
    uint32_t z_head;         /* ranks 1..z_head are drawn from a table */
    double z_phead;          /* their total probability */
    double z_hm;             /* H(z_head + 0.5): the tail's end in H space */
    double *z_cdf;           /* cumulative probability within the head */
    double z_mass;           /* sum of k^-s over all ranks: the normaliser */
    uint32_t *z_guide;       /* guide table: first rank whose cdf reaches g / z_head */
    double qps;
    double write_ratio;
    double next_arrival_ns;  /* exact, for rounding without drift */
    struct hot_name *hot_names; /* every hot key name of the scenario, sorted, with its id */
    size_t n_hot_names;
    struct hot_entry *hot;   /* active hot keys: the file's, overridden by events */
    size_t n_hot;
    double hot_total;
    struct rng arrivals, instances, ops, keys;
};

/* ---- nodes (models/node.c) ------------------------------------------------ */
enum node_state { NODE_ABSENT, NODE_UP, NODE_CRASHED, NODE_REMOVED };

struct node_tick {
    int64_t requests, hits, sets, rejects;
    uint64_t evictions0, expirations0; /* store counters at the tick's start */
    struct lhist lat;
};

struct node {
    uint32_t index;
    char *id;
    char *address;           /* current */
    double weight;
    struct cache_cfg cfg;
    bool gutter;
    enum node_state state;
    uint32_t incarnation;    /* bumps at crash/remove: work in flight is lost */
    double slow_factor;      /* 1 = healthy */
    int64_t slow_latency_ns; /* added to every reply */
    uint32_t slow_event;     /* scenario event that slowed it (to end the right one) */
    int64_t half_rtt_ns;
    struct store store;
    struct fifo queue;
    struct rng service;
    struct busy_meter busy;
    struct node_tick tk;
    struct u64map leases;    /* fill: lease — key -> issued_ms << 32 | token */
    int64_t gets_total;
    uint32_t ejectors;       /* instances with it ejected (+1 when central) */
    bool ever_present;
};

/* ---- database (models/db.c) ------------------------------------------------ */
struct database {
    struct db_cfg cfg;
    struct fifo queue;
    struct rng service;
    struct busy_meter busy;
    int64_t demand_ns;       /* service time of operations that arrived this tick */
    int64_t reads, writes, rejects; /* this tick */
    struct lhist lat;        /* this tick */
};

/* ---- ring views and epochs (models/membership.c) --------------------------- */
struct view {
    struct placement *pl;
    uint32_t epoch;
    uint8_t *excluded;       /* per node, 1 = ejected locally (NULL: none) */
    uint32_t refs;
    struct view *next;       /* the run's list of live views */
};

struct epoch {
    uint32_t id;
    uint8_t *member;         /* per node: in the ring */
    uint8_t *ejected;        /* per node: ejected centrally */
    uint32_t n_ejected;      /* how many are */
    struct view *base;       /* members minus central ejections (rehash) */
};

/* ---- client instances (models/client.c) ------------------------------------ */
struct instance {
    uint32_t index;
    uint32_t epoch;          /* adopted epoch id */
    struct view *view;       /* routing view: epoch minus local ejections */
    struct view *prev_view;  /* the view before the last epoch adopted (fallback) */
    struct u64map db_reads;  /* coalesce: key -> the request reading it from the database */
    bool frozen;             /* split brain: ignores new epochs */
    uint32_t frozen_by;      /* scenario event that froze it */
    uint16_t *fails;         /* per node: consecutive failures */
    uint8_t *ejected;        /* per node: ejected by this instance */
    uint8_t *held;           /* per node: an ejection is being held back (logged once) */
    uint32_t n_ejected;
    int64_t last_eject_ns;   /* for cooldown; INT64_MIN: never */
    double tokens;           /* backfill token bucket */
    int64_t tokens_ns;
};

/* ---- central coordinator (models/health.c) ---------------------------------- */
struct coordinator {
    uint16_t *fails;         /* per node: consecutive failed probes */
    int64_t *ejected_at;     /* per node: when ejected, or -1 */
    uint8_t *held;
    uint32_t n_ejected;
    int64_t last_eject_ns;
};

/* ---- requests in flight ------------------------------------------------------ */
enum req_kind { RQ_READ, RQ_WRITE, RQ_FILL, RQ_INVALIDATE, RQ_WRITE_THROUGH };
enum {
    RQF_LATE = 1,       /* the reply will miss the timeout: the client times out first */
    RQF_GUTTER = 2,     /* went to a gutter node (fills take gutter_ttl) */
    RQF_FILL = 4,       /* a read that fills fill_node after the database answers */
    RQF_FALLBACK = 8,   /* a GET to the key's previous owner after a miss at the new one */
    RQF_WAITER = 16     /* waiting for another request's database read (coalesce) */
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
    uint8_t kind;
    uint8_t flags;
    uint8_t pending;     /* events still referring to it */
    uint32_t next_free;
};

struct req_pool {
    struct req *r;
    uint32_t n, cap, free_head;
};

/* ---- per-tick and whole-run accumulators ----------------------------------- */
struct tick_acc {
    int64_t requests, reads, writes, hits, misses, timeouts, errors;
    int64_t stale_reads, stale_overwrites, clobbers;
    struct lhist client_lat;
};

/* What the summary needs of every tick (kept in memory: 40 bytes a tick). */
struct tick_point {
    double t_s;
    double hit_rate;        /* NaN when no read finished */
    double backend_qps, db_util, db_demand, len_s;
    int64_t hits, reads_done;
};

struct run_totals {
    int64_t requests, timeouts, errors, db_reads, db_writes;
    int64_t stale_reads, stale_overwrites, clobbers;
    int64_t ejections, cascade_removals, instance_ejections, readmissions, max_ejected;
    int64_t keys_moved;
    int64_t stale_logged;
};

enum run_status { RUN_COMPLETE, RUN_INTERRUPTED, RUN_FAILED };

struct run_options {
    const volatile sig_atomic_t *stop; /* set (e.g. by SIGINT) to interrupt */
    /* called at every tick end; now/duration in ns */
    void (*progress)(void *ctx, int64_t now_ns, int64_t duration_ns, int64_t requests);
    void *progress_ctx;
    bool check_invariants; /* verify store accounting after every tick (tests) */
};

struct sim {
    const struct scenario *sc;
    struct place_params pp;
    struct run_options opt;
    struct sink sink;
    int64_t now_ns;
    int64_t tick_ns;
    int64_t tick_index;      /* the tick being accumulated */
    int64_t tick_end_ns;
    struct eventq q;

    struct workload wl;
    struct item_pool pool;   /* every node's items */
    struct node *nodes;      /* every node the run will ever have, then gutter nodes */
    uint32_t n_nodes, n_gutter, gutter_first;
    struct placement *gutter_pl;
    struct database db;
    struct instance *inst;
    uint32_t n_inst;
    struct coordinator coord;

    struct epoch *epochs;    /* published epochs, in order; epochs[i].id == i + 1 */
    uint32_t n_epochs, cap_epochs;
    struct view *views;      /* live views */
    uint32_t n_views;
    uint32_t *inflight;      /* per node: admitted GETs not yet served (bounded loads) */
    uint32_t inflight_total;
    uint8_t *cur_member;     /* the authoritative membership now */
    uint8_t *cur_ejected;    /* central ejections now */
    struct strbuf pending_why; /* membership changes waiting for EVK_PUBLISH */
    bool publish_pending;

    struct rng propagation, prewarm_rng;
    struct req_pool reqs;
    struct tick_acc tk;
    struct run_totals tot;
    int64_t first_event_ns;  /* -1: no scenario event */
    struct tick_point *series;
    size_t n_series, cap_series;
    uint32_t nodes_ejected_now;
    uint32_t next_lease;     /* lease tokens: 1, 2, ... */
    enum run_status status;
    char error[256];
};

/* ---- the run (sim/run.c) -------------------------------------------------------- */
/* Builds a run for scenario sc writing to sink. Returns NULL with a reason
 * in err (e.g. out of memory). Caller destroys. */
struct sim *sim_create(const struct scenario *sc, const struct sink *sink,
                       const struct run_options *opt, char *err, size_t errlen);
/* Runs to the end (or until interrupted/failed); returns the status. */
enum run_status sim_run(struct sim *s);
/* The summary of what was recorded (call after sim_run). */
void sim_summary(const struct sim *s, struct summary_row *out);
void sim_destroy(struct sim *s);

/* Failing a run from deep inside a model: records the reason, stops the loop. */
void sim_fail(struct sim *s, const char *fmt, ...) PRINTF_LIKE(2, 3);
int sim_schedule(struct sim *s, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b);
void sim_event(struct sim *s, const char *kind, const struct node *n, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
uint32_t req_alloc(struct sim *s);
void req_free(struct sim *s, uint32_t r);

/* ---- models ------------------------------------------------------------------------ */
/* workload.c */
int workload_init(struct sim *s, char *err, size_t errlen);
void workload_deinit(struct workload *w);
/* The next arrival: its time, instance, operation and key. */
void workload_next(struct workload *w, int64_t *t_ns, uint32_t *inst, bool *is_write,
                   uint32_t *key);
/* The key of the arrival workload_next will return next. */
static inline uint32_t workload_peek_key(const struct workload *w)
{
    return w->ahead[w->ahead_head].key;
}
uint32_t workload_sample_key(struct workload *w);
void workload_set_qps(struct workload *w, int64_t now_ns, double qps);
void workload_set_hot(struct workload *w, const struct scenario *sc, int64_t now_ns);
const char *keyspace_name(const struct keyspace *ks, uint32_t id, char *buf, size_t n);
static inline uint32_t keyspace_item_bytes(const struct keyspace *ks, uint32_t id)
{
    return ks->item_bytes ? ks->item_bytes[id] : ks->bytes_fixed;
}
/* Probability that one request (ignoring hot keys) picks popularity rank r. */
double workload_rank_prob(const struct workload *w, uint32_t rank);
/* Probability that one request picks key id (hot keys included). */
double workload_key_prob(const struct workload *w, uint32_t key);

/* node.c */
int node_init(struct sim *s, struct node *n, uint32_t index, const char *id,
              const char *address, double weight, const struct cache_cfg *cfg, bool gutter);
void node_deinit(struct node *n);
/* Submits a request arriving at the node at t_ns. Returns 0 with *done_ns
 * (service end), 1 when the node is not up (lost), -1 when its queue is full. */
int node_submit(struct sim *s, struct node *n, int64_t t_ns, int64_t *done_ns);
void node_crash(struct sim *s, struct node *n);
void node_restart(struct sim *s, struct node *n);
void node_prewarm(struct sim *s);
bool node_has_fault(const struct node *n);
const char *node_state_name(const struct sim *s, const struct node *n);

/* db.c */
int db_init(struct sim *s);
void db_deinit(struct database *d);
/* Admits an operation at now; returns 0 with *done_ns or -1 when full. */
int db_submit(struct sim *s, int64_t *done_ns);

/* membership.c */
int membership_init(struct sim *s, char *err, size_t errlen);
void membership_deinit(struct sim *s);
/* Publishes a new epoch from the given member/ejected sets; instances adopt
 * it at once or after propagation_delay (central mode). */
int membership_publish(struct sim *s, const uint8_t *member, const uint8_t *ejected,
                       const char *why);
struct epoch *membership_latest(struct sim *s);
struct epoch *membership_epoch(struct sim *s, uint32_t id);
/* The view for an epoch minus a local exclusion set (NULL: none); a
 * reference the caller releases with view_release. NULL on failure. */
struct view *view_get(struct sim *s, uint32_t epoch, const uint8_t *excluded);
void view_release(struct sim *s, struct view *v);

/* client.c */
int clients_init(struct sim *s);
void clients_deinit(struct sim *s);
void client_arrival(struct sim *s, int64_t t_ns, uint32_t inst, bool is_write, uint32_t key);
void client_handle(struct sim *s, const struct event *e);
/* Re-derives an instance's routing view after its epoch or ejections changed. */
int client_refresh_view(struct sim *s, struct instance *in);
void client_adopt(struct sim *s, struct instance *in, uint32_t epoch);

/* health.c */
int health_init(struct sim *s);
void health_deinit(struct sim *s);
void health_success(struct sim *s, struct instance *in, uint32_t node);
void health_failure(struct sim *s, struct instance *in, uint32_t node, const char *what);
void health_handle(struct sim *s, const struct event *e);
/* Node-level bookkeeping of ejection episodes (both modes). */
void health_node_ejected(struct sim *s, struct node *n, const char *by);
void health_node_readmitted(struct sim *s, struct node *n);

#endif
