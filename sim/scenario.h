/*
 * scenario.h — a scenario, loaded from YAML, validated and with defaults
 * applied. The schema reference (every key, its type, default and range)
 * is scenarios/README.md; the loader's table of keys is the one source of it.
 *
 * Loading is: parse (libyaml) -> apply --set overrides to the tree ->
 * bind every key through the schema table (types, ranges, units, unknown
 * and duplicate keys) -> cross-check (node ids, event order and targets) ->
 * emit the effective YAML. Every error names file:line:col (or the --set
 * argument) and what was expected. A scenario that loads is consistent: the
 * run never has to validate anything mid-run.
 *
 * All times are integer nanoseconds, all sizes bytes.
 */
#ifndef RINGSIM_SCENARIO_H
#define RINGSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/placement/placement.h"
#include "sim/util.h"

enum dist_kind { DIST_EXP, DIST_FIXED };
enum popularity { POP_UNIFORM, POP_ZIPF };
enum fill_mode { FILL_SET, FILL_ADD, FILL_VERSIONED, FILL_LEASE, FILL_NONE };
enum write_mode { WRITE_INVALIDATE, WRITE_THROUGH };
enum timeout_action { ON_TIMEOUT_DB, ON_TIMEOUT_ERROR };
enum health_mode { HEALTH_OFF, HEALTH_CLIENT, HEALTH_CENTRAL };
enum eject_action { EJECT_REHASH, EJECT_GUTTER };
enum fencing_mode { FENCE_NONE, FENCE_REJECT, FENCE_FORWARD };
enum backfill_mode { BACKFILL_FAIL, BACKFILL_WAIT };
enum warm_source { WARM_OWNERS, WARM_DB };
enum read_from { READ_PRIMARY, READ_RANDOM, READ_LEAST_LOADED };
enum trace_format { TRACE_ORACLE_GENERAL, TRACE_CSV };

/* Where a value came from, for messages: file line/column (1-based), or
 * line 0 for a value from --set (then `set` is the argument). */
struct src_pos {
    int line, col;
    const char *set; /* points into the scenario's overrides, or NULL */
};

struct cache_cfg {
    uint64_t capacity_bytes;  /* exactly one of capacity_bytes and capacity_items is non-zero */
    uint64_t capacity_items;
    int64_t service_ns;
    enum dist_kind service_dist;
    uint32_t workers;
    uint32_t max_queue;
    int64_t rtt_ns;
    bool prewarm;
};

struct node_cfg {
    char *id;
    char *address;            /* defaults to the id */
    double weight;            /* > 0, default 1 */
    char *zone;               /* failure domain; "" (default): a zone of its own */
    struct cache_cfg cache;   /* the cache defaults with this node's overrides */
    struct src_pos pos;
};

struct hot_key_cfg {
    char *key;
    double share;             /* of all requests, 0 < share <= 1 */
    uint32_t split;           /* stored as this many suffixed copies (0, 1: not split) */
    uint32_t replicas;        /* read from this many owners (0, 1: routing.replicas) */
};

/* workload.trace: requests replayed from a file instead of generated. */
struct trace_cfg {
    char *path;               /* the file's absolute path; NULL: no trace (synthetic requests) */
    enum trace_format format;
    double time_scale;        /* simulated time = trace time x time_scale */
};

/* workload.diurnal: rate(t) = qps x (1 + amplitude x cos(2 pi (t - peak_at) / period)). */
struct diurnal_cfg {
    double amplitude;         /* in [0, 1); 0: a constant rate */
    int64_t period_ns;
    int64_t peak_at_ns;
};

struct workload_cfg {
    uint64_t keys;
    char *key_format;         /* printf with exactly one integer conversion */
    enum popularity popularity;
    double zipf_s;
    double qps;
    double write_ratio;
    uint64_t value_bytes;
    int64_t ttl_ns;           /* 0: never expires */
    struct hot_key_cfg *hot_keys;
    size_t n_hot_keys;
    struct trace_cfg trace;
    struct diurnal_cfg diurnal;
};

struct routing_cfg {
    place_algo algorithm;
    hash_kind hash;
    uint32_t vnodes;
    char *point_format;
    bool node_key_address;
    double load_factor;
    enum place_bounded_rule bounded_rule; /* bounded: when a node is full */
    uint32_t table_size;      /* maglev */
    enum fencing_mode fencing;
    int64_t fence_delay_ns;   /* a node learns a published epoch this long after it */
    uint32_t replicas;        /* owners per key, on distinct nodes (distinct zones first) */
    enum read_from read_from; /* which replica a read asks */
};

struct db_cfg {
    uint32_t workers;
    int64_t service_ns;
    enum dist_kind service_dist;
    uint32_t max_queue;
};

struct client_cfg {
    uint32_t instances;
    int64_t timeout_ns;
    enum timeout_action on_timeout;
    enum fill_mode fill;
    enum write_mode write;
    bool coalesce;
    double backfill_qps;      /* per instance; 0 = unlimited */
    bool fallback_to_previous_owner;
    int64_t fallback_window_ns;   /* fallback only this long after adopting an epoch */
    bool invalidate_previous_owner; /* in that window a write also invalidates the previous owner */
    enum backfill_mode backfill_mode;
    int64_t backfill_wait_ns; /* wait: the longest a miss read waits for a token */
    struct local_cache_cfg {
        uint64_t capacity_items; /* per instance, in front of the ring; 0: none */
        int64_t ttl_ns;
    } local_cache;
    struct hot_key_detection_cfg {
        double threshold;     /* share of a window's reads that makes a key hot; 0: off */
        int64_t window_ns;
        uint32_t replicas;    /* the replica reads a detected key gets */
    } hot_key_detection;
};

struct network_cfg {
    int64_t jitter_ns;        /* mean of an exponential extra one-way delay; 0: none */
};

struct output_cfg {
    double sample_requests;   /* fraction of client operations recorded in `requests` */
};

struct health_cfg {
    enum health_mode mode;
    uint32_t failure_limit;
    int64_t retry_after_ns;
    int64_t cooldown_ns;
    double max_ejected;       /* fraction of nodes, 0..1 */
    int64_t probe_interval_ns;
    int64_t propagation_delay_ns;
    enum eject_action on_eject;
    uint32_t gutter_nodes;
    int64_t gutter_ttl_ns;
};

/*      enum               YAML key */
#define EVENT_CODEC(X)                        \
    X(EV_ADD_NODE,      "add_node")           \
    X(EV_REMOVE_NODE,   "remove_node")        \
    X(EV_SLOW_NODE,     "slow_node")          \
    X(EV_CRASH_NODE,    "crash_node")         \
    X(EV_RESTART_NODE,  "restart_node")       \
    X(EV_SPLIT_BRAIN,   "split_brain")        \
    X(EV_SET_QPS,       "set_qps")            \
    X(EV_SET_ADDRESS,   "set_address")        \
    X(EV_HOT_KEY,       "hot_key")            \
    X(EV_SET_WEIGHT,    "set_weight")         \
    X(EV_SET_VNODES,    "set_vnodes")         \
    X(EV_SET_ROUTING,   "set_routing")        \
    X(EV_MIGRATE_SLOTS, "migrate_slots") \
    X(EV_CRASH_ZONE,    "crash_zone")         \
    X(EV_SHIFT_POPULARITY, "shift_popularity")

#define EVENT_ENUM(e, name) e,
enum event_kind { EVENT_CODEC(EVENT_ENUM) EV_KIND_COUNT };
#undef EVENT_ENUM
const char *event_kind_name(enum event_kind k);

/* add_node warm: copy the keys the node will own before it enters the ring. */
struct warm_cfg {
    double rate;              /* keys per second; 0: no warm-up */
    enum warm_source source;  /* the current owners' caches, or the database */
    double until_hit_rate;    /* enter when this share of its future GETs would hit */
    int64_t max_wait_ns;      /* enter at the latest this long after the event */
};

/* remove_node drain: copy the node's items to their next owners, then leave. */
struct drain_cfg {
    double rate;              /* keys per second; 0: no drain */
    int64_t max_wait_ns;      /* leave at the latest this long after the event */
};

/* migrate_slots: which slots (slots routing). */
struct slot_sel {
    uint32_t count;           /* slots: N — the first N slots the source owns then; 0: a range */
    uint32_t first, last;     /* slots: [first, last] (count 0) */
};

/* migrate_slots: the source is event_cfg.node. */
struct migrate_cfg {
    char *to;                 /* the target node's id */
    struct slot_sel slots;
    double rate;              /* keys moved per second */
};

/* set_routing: the routing keys that change (has_*), and their new values. */
struct routing_change {
    bool has_algorithm, has_hash, has_vnodes, has_point_format, has_node_key;
    place_algo algorithm;
    hash_kind hash;
    uint32_t vnodes;
    char *point_format;
    bool node_key_address;
};

struct event_cfg {
    int64_t at_ns;
    size_t file_index;        /* the entry's number in the file (events.N); the events
                                 run in time order, the effective YAML keeps this one */
    enum event_kind kind;
    char *node;               /* add/remove/slow/crash/restart/set_address: the node id */
    char *address;            /* add_node (defaults to the id), set_address */
    double weight;            /* add_node, default 1 */
    struct cache_cfg cache;   /* add_node: the cache defaults with its overrides */
    double factor;            /* slow_node: service-time multiplier, default 1 */
    int64_t latency_ns;       /* slow_node: added to every response, default 0 */
    int64_t for_ns;           /* slow_node, split_brain, hot_key: 0 = to the end */
    uint32_t *instances;      /* split_brain: client instance numbers */
    size_t n_instances;
    double qps;               /* set_qps: the new rate */
    int64_t over_ns;          /* set_qps: reached linearly over this long; 0: a step */
    char *key;                /* hot_key */
    double share;             /* hot_key */
    uint32_t split;           /* hot_key: copies (0, 1: none) */
    uint32_t replicas;        /* hot_key: owners read from (0, 1: routing.replicas) */
    char *zone;               /* add_node: its zone; crash_zone: the zone */
    struct warm_cfg warm;     /* add_node: a staged join (rate 0: none, the node joins cold) */
    bool take_slots;          /* add_node (slots): takes its share of slots (when given) */
    bool has_take_slots;      /* add_node: take_slots was given (absent: true) */
    struct drain_cfg drain;   /* remove_node: drain before leaving (rate 0: none) */
    uint32_t steps;           /* set_weight, set_vnodes: epochs the change takes (1: at once) */
    int64_t every_ns;         /* set_weight, set_vnodes: time between those epochs */
    uint32_t vnodes;          /* set_vnodes: the node's new points per unit of weight */
    struct routing_change routing; /* set_routing */
    struct migrate_cfg migrate;    /* migrate_slots (node: the source) */
    struct src_pos pos;       /* of the event's entry */
};

/* One --set PATH=VALUE (also --seed N, stored as seed=N). */
struct override {
    char *path;
    char *value;
    char *arg;                /* "PATH=VALUE" as given, for messages */
    const char *flag;         /* the option that gave it, for messages: "--set"
                               * (also when NULL) or "--vary"; a static string */
};

struct scenario {
    char *path;               /* as given; "<string>" for scenario_load_string */
    char *name;               /* default: the file's base name without .yaml */
    char *description;
    uint64_t seed;
    int64_t duration_ns, tick_ns, warmup_ns;

    struct workload_cfg workload;
    struct routing_cfg routing;
    struct node_cfg *nodes;   /* the membership at time 0, in file order */
    size_t n_nodes;
    struct cache_cfg cache;   /* the defaults */
    struct db_cfg database;
    struct client_cfg clients;
    struct health_cfg health;
    struct network_cfg network;
    struct output_cfg output;
    struct event_cfg *events; /* sorted by time; equal times keep file order */
    size_t n_events;

    struct override *overrides; /* the --set arguments applied, in order */
    size_t n_overrides;
    char *effective_yaml;     /* the scenario after overrides, as YAML text */
};

/* Parses one PATH=VALUE argument into *o. Returns 0, or -1 with a message in d. */
int override_parse(const char *arg, struct override *o, struct diag *d);
/* The same for an argument of the option flag ("--vary"), which its
 * messages name instead of --set. flag must outlive o (a static string). */
int override_parse_as(const char *flag, const char *arg, struct override *o, struct diag *d);
/* path as applying an override reads it: an index written with leading
 * zeros ("nodes.007.weight") is the same entry as without them
 * ("nodes.7.weight"). Two paths name the same scalar when their
 * normalized forms are equal. Caller frees. */
char *override_path_normalize(const char *path);
void override_deinit(struct override *o);

/* Loads and validates. Returns NULL and fills d with every error found
 * (each "file:line:col: path: expected ..., got ..."). Caller destroys. */
struct scenario *scenario_load(const char *path, const struct override *sets, size_t n_sets,
                               struct diag *d);
/* The same from text in memory; `name` stands for the file in messages. */
struct scenario *scenario_load_string(const char *name, const char *text, size_t len,
                                      const struct override *sets, size_t n_sets,
                                      struct diag *d);
void scenario_destroy(struct scenario *s);

/* The place_params a scenario's routing section describes. */
void scenario_place_params(const struct scenario *s, struct place_params *p);

/* Writes the schema reference (Markdown: one table per section, each key
 * with its type, default, range and meaning) — the text of
 * scenarios/README.md's reference part. */
void scenario_schema_markdown(FILE *f);

#endif
