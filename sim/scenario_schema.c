/*
 * scenario_schema.c — the scenario schema: one table per section (struct
 * section, an array of struct key: {name, type, offsetof(field), default,
 * range, doc}), the enum names, the single-field checks and the
 * per-mapping hooks (capacity or capacity_items, one event per entry).
 *
 * These tables are the single description of the schema. The same tables
 * drive
 *   - defaults     (each default is YAML text, parsed by the key's setter),
 *   - binding      (types, units, ranges, unknown and duplicate keys:
 *                   scenario_bind.c),
 *   - emitting     (the effective YAML is written from the struct by table:
 *                   scenario_emit.c),
 *   - the docs     (scenario_schema_markdown, quoted in scenarios/README.md:
 *                   scenario_doc.c).
 *
 * Invariants: every enum name table lists the names in the order of the
 * enum (asserted below); event_keys holds `at` first and then one key per
 * event kind in the order of EVENT_CODEC (event_kind_key relies on it); a
 * check function returns NULL or what was expected, never a message with a
 * position.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/ring_analysis.h"
#include "sim/scenario_internal.h"

/* ---- enum names ---------------------------------------------------------- */

static const char *const dist_names[] = {"exp", "fixed", NULL};
static const char *const popularity_names[] = {"uniform", "zipf", NULL};
static const char *const fill_names[] = {"set", "add", "versioned", "lease", "none", NULL};
static const char *const write_names[] = {"invalidate", "write_through", NULL};
static const char *const on_timeout_names[] = {"db", "error", NULL};
static const char *const health_mode_names[] = {"off", "client", "central", NULL};
static const char *const on_eject_names[] = {"rehash", "gutter", NULL};
static const char *const node_key_names[] = {"id", "address", NULL};
static const char *const fencing_names[] = {"none", "reject", "forward", NULL};
static const char *const backfill_mode_names[] = {"fail", "wait", NULL};
static const char *const warm_source_names[] = {"owners", "db", NULL};
static const char *const read_from_names[] = {"primary", "random", "least_loaded", NULL};
static const char *const trace_format_names[] = {"oracle_general", "csv", NULL};
#define NAME_OF2(e, name) name,
static const char *const bounded_rule_names[] = {PLACE_BOUNDED_RULES(NAME_OF2) NULL};
#define NAME_OF3(e, name, x) name,
static const char *const algo_names[] = {PLACE_CODEC(NAME_OF3) NULL};
static const char *const hash_kind_names[] = {HASH_CODEC(NAME_OF3) NULL};
static const char *const event_names[] = {EVENT_CODEC(NAME_OF2) NULL};

_Static_assert(DIST_EXP == 0 && DIST_FIXED == 1, "dist_names order");
_Static_assert(POP_UNIFORM == 0 && POP_ZIPF == 1, "popularity_names order");
_Static_assert(FILL_SET == 0 && FILL_ADD == 1 && FILL_VERSIONED == 2 && FILL_LEASE == 3 &&
               FILL_NONE == 4, "fill_names order");
_Static_assert(WRITE_INVALIDATE == 0 && WRITE_THROUGH == 1, "write_names order");
_Static_assert(ON_TIMEOUT_DB == 0 && ON_TIMEOUT_ERROR == 1, "on_timeout_names order");
_Static_assert(HEALTH_OFF == 0 && HEALTH_CLIENT == 1 && HEALTH_CENTRAL == 2, "health order");
_Static_assert(EJECT_REHASH == 0 && EJECT_GUTTER == 1, "on_eject_names order");
_Static_assert(FENCE_NONE == 0 && FENCE_REJECT == 1 && FENCE_FORWARD == 2, "fencing_names order");
_Static_assert(BACKFILL_FAIL == 0 && BACKFILL_WAIT == 1, "backfill_mode_names order");
_Static_assert(WARM_OWNERS == 0 && WARM_DB == 1, "warm_source_names order");
_Static_assert(READ_PRIMARY == 0 && READ_RANDOM == 1 && READ_LEAST_LOADED == 2,
               "read_from_names order");
_Static_assert(TRACE_ORACLE_GENERAL == 0 && TRACE_CSV == 1, "trace_format_names order");

static const char *check_key_format(const void *field, char *buf, size_t n);
static const char *check_point_format(const void *field, char *buf, size_t n);
static const char *check_table_size(const void *field, char *buf, size_t n);
static const char *check_name(const void *field, char *buf, size_t n);
static const char *check_seed(const void *field, char *buf, size_t n);
static void cache_post(struct loader *L, const struct ynode *map, void *obj);
static void node_post(struct loader *L, const struct ynode *map, void *obj);
static void add_node_post(struct loader *L, const struct ynode *map, void *obj);
static void slow_node_post(struct loader *L, const struct ynode *map, void *obj);
static void gradual_post(struct loader *L, const struct ynode *map, void *obj);
static void set_routing_post(struct loader *L, const struct ynode *map, void *obj);
static void event_post(struct loader *L, const struct ynode *map, void *obj);
static void event_init(void *obj);

/* -- cache: the defaults of every node; a node entry may override any key -- */
#define CC struct cache_cfg
static const struct key cache_keys[] = {
    {"capacity", KT_SIZE, F(CC, capacity_bytes), .def = "1GiB", AT_LEAST(1),
     .flags = K_OMIT_ZERO,
     .doc = "Memory for items; an item counts its key and value bytes. "
            "Give `capacity` or `capacity_items`, not both."},
    {"capacity_items", KT_UINT, F(CC, capacity_items), .def_doc = "unset", AT_LEAST(1),
     .flags = K_OMIT_ZERO,
     .doc = "Capacity as a number of items instead of bytes; replaces `capacity`."},
    {"service_time", KT_DURATION, F(CC, service_ns), .def = "20us", AT_LEAST(0),
     .doc = "Mean time one worker spends on one request; `0` serves every request the moment "
            "it arrives (no queueing)."},
    {"service_dist", KT_ENUM, F(CC, service_dist), .def = "exp", .names = dist_names,
     .doc = "Service time distribution: exponential with that mean, or fixed."},
    {"workers", KT_UINT, F(CC, workers), .def = "1", BETWEEN(1, 1024),
     .doc = "Requests served at once (servers of the node's FIFO queue)."},
    {"max_queue", KT_UINT, F(CC, max_queue), .def = "10000", BETWEEN(1, 10000000),
     .doc = "Requests arriving while this many wait are rejected (an error reply)."},
    {"rtt", KT_DURATION, F(CC, rtt_ns), .def = "200us", AT_LEAST(0),
     .doc = "Network round trip between a client and the node (half each way)."},
    {"prewarm", KT_BOOL, F(CC, prewarm), .def = "true",
     .doc = "Nodes present at time 0 start as after a long run of the workload: holding what "
            "their LRU would hold then (the most recently requested keys they own that fit, "
            "writes and TTLs included; with a trace, its most requested keys; with "
            "`clients.fill: none`, only what write-throughs leave), so the hit "
            "rate starts at its steady state (a node "
            "added by an event always joins empty)."},
};
#undef CC
const struct section cache_section = {
    SECTION("cache", cache_keys, struct cache_cfg), .post = cache_post,
    .doc = "Defaults for every cache node. A node entry (and an `add_node` event, but for "
           "`prewarm`) may set any of these keys for itself; setting `capacity` or "
           "`capacity_items` there replaces the default capacity entirely."};

/* -- nodes -- */
#define NC struct node_cfg
static const struct key node_keys[] = {
    {"id", KT_ID, F(NC, id), .flags = K_REQUIRED, MAX_BYTES(MAX_ID_BYTES),
     .doc = "Unique name of the node; no whitespace or commas. Placement hashes it "
            "(unless `routing.node_key` is `address`)."},
    {"address", KT_STRING, F(NC, address), .def_doc = "the id", MAX_BYTES(MAX_ID_BYTES),
     .doc = "Address such as `10.0.0.1:11211`; hashed instead of the id with "
            "`node_key: address` (then addresses must be unique)."},
    {"weight", KT_NUMBER, F(NC, weight), .def = "1", ABOVE_UPTO(0, PLACE_MAX_WEIGHT),
     .doc = "Relative share of the keys (ring, ketama and bounded points, rendezvous and maglev weight); `mod`, `jump` and `slots` ignore it."},
    {"zone", KT_STRING, F(NC, zone), .def = "", MAX_BYTES(MAX_ID_BYTES),
     .doc = "Failure domain (rack, zone): replicas go to distinct zones first; `crash_zone` "
            "crashes a zone's nodes. Empty: a zone of its own."},
};
#undef NC
static const struct section node_section = {
    SECTION("nodes.N", node_keys, struct node_cfg), .also = &cache_section,
    .also_offset = offsetof(struct node_cfg, cache), .post = node_post,
    .doc = "The membership at time 0, in any order. Besides these keys an entry may set any "
           "key of `cache` for this node alone."};

/* -- workload -- */
#define HC struct hot_key_cfg
static const struct key hot_key_keys[] = {
    {"key", KT_STRING, F(HC, key), .flags = K_REQUIRED | K_NONEMPTY, MAX_BYTES(KEY_MAX_BYTES),
     .doc = "The key, as the workload names keys (such as `key-000042`)."},
    {"share", KT_NUMBER, F(HC, share), .flags = K_REQUIRED, ABOVE_UPTO(0, 1),
     .doc = "Fraction of all requests drawn for this key; the other requests follow "
            "`popularity` over every key, this one included, so the key's whole share is "
            "`share` + (1 - the hot shares) x its popularity share (a hair above `share` but "
            "for a few keys, or a key at the top of a steep Zipf)."},
    {"split", KT_UINT, F(HC, split), .def = "1", BETWEEN(1, PLACE_MAX_REPLICAS),
     .flags = K_OMIT_ONE,
     .doc = "Key splitting: store it as this many suffixed copies (`KEY#0` ...), which "
            "usually land on as many nodes; a read picks one at random, a write updates all."},
    {"replicas", KT_UINT, F(HC, replicas), .def = "1", BETWEEN(1, PLACE_MAX_REPLICAS),
     .flags = K_OMIT_ONE,
     .doc = "Replica reads for this key alone: it is read from (and written to) this many "
            "owners, per `routing.read_from` (`random` when that is `primary`, even when this "
            "equals `routing.replicas`); never fewer than `routing.replicas` (a cure takes no "
            "copy away), at most the nodes in the ring. Ended (an event's `for`), the extra "
            "owners keep their copies, which later writes no longer reach: stale if the key "
            "gets replica reads again while they are still cached."},
};
#undef HC
static const struct section hot_key_section = {
    SECTION("workload.hot_keys.N", hot_key_keys, struct hot_key_cfg),
    .doc = "Keys that receive a fixed share of all requests for the whole run, on top of "
           "what `popularity` gives them of the rest. The shares must sum to at most 1."};

#define TC struct trace_cfg
static const struct key trace_keys[] = {
    {"path", KT_STRING, F(TC, path), .flags = K_REQUIRED | K_NONEMPTY, MAX_BYTES(4096),
     .doc = "The trace file; a relative path is taken from the scenario file's folder. The "
            "effective scenario holds its absolute path."},
    {"format", KT_ENUM, F(TC, format), .def = "oracle_general", .names = trace_format_names,
     .doc = "`oracle_general`: libCacheSim's binary records (24 bytes: time in seconds, object "
            "id, size, next access; all reads); `csv`: lines `time,key,op[,size[,ttl]]` "
            "(both described under *Replaying a trace*)."},
    {"time_scale", KT_NUMBER, F(TC, time_scale), .def = "1", ABOVE_UPTO(0, 1000000),
     .doc = "Simulated time is the trace's time times this: `0.5` replays the trace twice as "
            "fast (twice the load), `2` at half the load."},
};
#undef TC
static const struct section trace_section = {
    SECTION("workload.trace", trace_keys, struct trace_cfg),
    .doc = "Requests replayed from a trace instead of generated: each request's time, key and "
           "operation come from the file (its instance is still drawn). Time starts at the "
           "first request's second; the requests of one second are spread evenly over it. The "
           "run goes on to `duration` after the trace ends (a `trace_end` event says when). "
           "Not with the synthetic keys (`keys`, `popularity`, `zipf_s`, `qps`, `write_ratio`, "
           "`hot_keys`, `diurnal`) or the events `set_qps`, `hot_key`, `shift_popularity`."};

#define DI struct diurnal_cfg
static const struct key diurnal_keys[] = {
    {"amplitude", KT_NUMBER, F(DI, amplitude), .flags = K_REQUIRED, FROM_BELOW(0, 1),
     .doc = "How far the rate swings around `qps`: from qps x (1 - amplitude) to qps x (1 + "
            "amplitude); `0` is a constant rate."},
    {"period", KT_DURATION, F(DI, period_ns), .def = "24h", ABOVE(0),
     .doc = "Length of one cycle."},
    {"peak_at", KT_DURATION, F(DI, peak_at_ns), .def = "0s", AT_LEAST(0),
     .doc = "When the rate peaks (and again every `period`), from the start of the run."},
};
#undef DI
static const struct section diurnal_section = {
    SECTION("workload.diurnal", diurnal_keys, struct diurnal_cfg),
    .doc = "A cycle of the request rate (daily by default): rate(t) = qps x (1 + amplitude x "
           "cos(2 pi (t - peak_at) / period)), arrivals a Poisson process of that rate. `qps` "
           "(and `set_qps`) set the cycle's mean."};

#define WC struct workload_cfg
static const struct key workload_keys[] = {
    {"keys", KT_UINT, F(WC, keys), .def = "100000", BETWEEN(1, 1000000000), .flags = K_SYNTHETIC,
     .doc = "Number of distinct keys; key i (from 0) is named by `key_format`."},
    {"key_format", KT_STRING, F(WC, key_format), .def = "key-%06d", .check = check_key_format,
     .flags = K_NOT_CSV, .range_doc = "one integer conversion, at most 200 characters",
     .doc = "printf format with exactly one integer conversion (`%d %i %u %x %X`; flags, "
            "width and precision allowed, width and precision at most 64, `#` only with "
            "`%x %X`, no length modifier) and `%%`. With an `oracle_general` trace it names "
            "the object ids (all 64 bits of them)."},
    {"popularity", KT_ENUM, F(WC, popularity), .def = "uniform", .names = popularity_names,
     .flags = K_SYNTHETIC,
     .doc = "How keys are chosen: all equally likely, or Zipf with exponent `zipf_s`."},
    {"zipf_s", KT_NUMBER, F(WC, zipf_s), .def = "0.99", ABOVE_UPTO(0, 10), .flags = K_SYNTHETIC,
     .doc = "Zipf exponent (used with `popularity: zipf`)."},
    {"qps", KT_NUMBER, F(WC, qps), .def = "10000", ABOVE(0), .flags = K_SYNTHETIC,
     .doc = "Requests per second of all clients together; Poisson arrivals."},
    {"write_ratio", KT_NUMBER, F(WC, write_ratio), .def = "0", BETWEEN(0, 1), .flags = K_SYNTHETIC,
     .doc = "Fraction of requests that are writes."},
    {"value_bytes", KT_SIZE, F(WC, value_bytes), .def = "1024", BETWEEN(1, 1 << 30),
     .doc = "Size of every value; a bare integer is bytes. With a trace, the size of the "
            "objects the trace gives no size for."},
    {"ttl", KT_DURATION, F(WC, ttl_ns), .def = "0s", AT_LEAST(0),
     .doc = "Time to live of cached items; `0s` never expires. With a csv trace, of the keys "
            "the trace gives no ttl for."},
    {"hot_keys", KT_LIST, F(WC, hot_keys), .count_offset = offsetof(WC, n_hot_keys),
     .sub = &hot_key_section, .def_doc = "`[]`", BETWEEN(0, 1000), .flags = K_SYNTHETIC,
     .doc = "Keys with a fixed share of requests (table below)."},
    {"trace", KT_MAP, F(WC, trace), .sub = &trace_section, .flags = K_OMIT_ZERO,
     .def_doc = "none: synthetic requests", .doc = "Replay a request trace (table below)."},
    {"diurnal", KT_MAP, F(WC, diurnal), .sub = &diurnal_section,
     .flags = K_OMIT_ZERO | K_SYNTHETIC, .def_doc = "none: a constant rate",
     .doc = "A cycle of the rate, daily or any period (table below)."},
};
#undef WC
static const struct section workload_section = {
    SECTION("workload", workload_keys, struct workload_cfg),
    .doc = "What the clients ask for: synthetic requests, or a trace replayed (`trace`). The "
           "keys marked \"not with `trace`\" describe the synthetic requests and are refused "
           "with a trace."};

bool workload_key_applies(const struct workload_cfg *w, const struct key *k)
{
    if (!w->trace.path)
        return true;
    if (k->flags & K_SYNTHETIC)
        return false;
    return !((k->flags & K_NOT_CSV) && w->trace.format == TRACE_CSV);
}

const char *trace_refusal(const struct workload_cfg *w, const struct key *k)
{
    (void)w;
    if (k && (k->flags & K_NOT_CSV))
        return "a csv trace names its keys itself (its key column); remove it";
    return "the trace gives the requests (their times, keys and operations); remove it, or "
           "remove workload.trace";
}

/* -- routing -- */
#define RC struct routing_cfg
static const struct key routing_keys[] = {
    {"algorithm", KT_ENUM, F(RC, algorithm), .def = "ring", .names = algo_names,
     .doc = "Placement algorithm (models/placement/README.md says how each places keys)."},
    {"hash", KT_ENUM, F(RC, hash), .def = "sha256", .names = hash_kind_names,
     .doc = "Hash function for keys and points; `slots` ignores it (CRC16 of the key)."},
    {"vnodes", KT_UINT, F(RC, vnodes), .def = "160", BETWEEN(1, PLACE_MAX_VNODES),
     .doc = "Ring points per unit of weight (`ring`, `bounded`)."},
    {"point_format", KT_STRING, F(RC, point_format), .def = "%s#%d",
     .check = check_point_format, .range_doc = "`%s` then `%d`",
     .doc = "`ring`, `bounded`: how a point is named, printf of the node (`%s`) and the point number (`%d`); `ketama` ignores it."},
    {"node_key", KT_ENUM, F(RC, node_key_address), .def = "id", .names = node_key_names,
     .doc = "What placement hashes for a node: its id or its address; `mod`, `jump` and "
            "`slots` ignore it (they order nodes by id, or as listed for `jump`)."},
    {"load_factor", KT_NUMBER, F(RC, load_factor), .def = "1.25",
     ABOVE_UPTO(PLACE_MIN_LOAD_FACTOR, PLACE_MAX_LOAD_FACTOR),
     .doc = "`bounded`: each node holds at most ceil(load_factor x keys / nodes) in the static "
            "analysis (`ringsim ring`); in the simulation the load is GETs in flight, capped "
            "per `bounded_rule`."},
    {"bounded_rule", KT_ENUM, F(RC, bounded_rule), .def = "paper", .names = bounded_rule_names,
     .doc = "`bounded`, in the simulation (the load is requests in flight): when a node is "
            "full. `paper`: at ceil(load_factor x (in flight + 1) / nodes), weights aside, "
            "the next node in ring order. `haproxy` (hash-balance-factor): "
            "ceil((in flight + 1) x load_factor) slots shared by weight, at least 1 each, "
            "full at its slots, ring order. `envoy` (hash_balance_factor): full above "
            "max(1, ceil(slots x weight share)), one request more than HAProxy, then the "
            "others in an order drawn from the key. Other algorithms ignore it."},
    {"table_size", KT_UINT, F(RC, table_size), .def = "65537",
     BETWEEN(2, PLACE_MAX_MAGLEV_SIZE), .check = check_table_size,
     .range_doc = "prime, ≤ 16777213; `maglev`: ≥ the most nodes at once",
     .doc = "`maglev`: size of the lookup table."},
    {"fencing", KT_ENUM, F(RC, fencing), .def = "none", .names = fencing_names,
     .doc = "Epoch fencing at the nodes: a request routed with an older ring epoch, for a key "
            "the node does not own in the epoch it knows, is answered MOVED naming the owner "
            "(`reject`: the client retries there and adopts the newer epoch) or passed on to "
            "the owner (`forward`); an invalidation so answered also deletes the node's own "
            "copy. Not with `bounded` (a node cannot know the owner)."},
    {"fence_delay", KT_DURATION, F(RC, fence_delay_ns), .def = "0s", AT_LEAST(0),
     .doc = "With `fencing`: a node learns a published ring epoch this long after it is published; `fencing: none` ignores it."},
    {"replicas", KT_UINT, F(RC, replicas), .def = "1", BETWEEN(1, PLACE_MAX_REPLICAS),
     .range_doc = "1 to 16, ≤ the nodes in the ring at every moment; 1 with `bounded`",
     .doc = "Owners of each key, on distinct nodes (in distinct zones first): the owner and the "
            "next ones in the algorithm's preference order (ring and ketama clockwise, "
            "rendezvous by score; mod, jump, maglev and slots: the members after the owner). "
            "Writes reach every replica."},
    {"read_from", KT_ENUM, F(RC, read_from), .def = "primary", .names = read_from_names,
     .doc = "Which replica a read asks: the owner, one at random, or the one with the fewest "
            "GETs in flight (sent and not yet served: on their way, queued or in service; a GET "
            "sent to a down node counts until its timeout; a tie goes to the earlier owner, so "
            "at light load mostly the primary). A read that times out or gets an error reply "
            "tries the next replica before the database."},
};
#undef RC
static const struct section routing_section = {
    SECTION("routing", routing_keys, struct routing_cfg),
    .doc = "How clients map keys to nodes."};

/* -- database -- */
#define DC struct db_cfg
static const struct key db_keys[] = {
    {"workers", KT_UINT, F(DC, workers), .def = "16", BETWEEN(1, 1000000),
     .doc = "Requests served at once; capacity = workers / service_time."},
    {"service_time", KT_DURATION, F(DC, service_ns), .def = "2ms", AT_LEAST(0),
     .doc = "Mean time of one read or write; `0` answers at once (a database that is never "
            "the bottleneck)."},
    {"service_dist", KT_ENUM, F(DC, service_dist), .def = "exp", .names = dist_names,
     .doc = "Service time distribution: exponential with that mean, or fixed."},
    {"max_queue", KT_UINT, F(DC, max_queue), .def = "2000", BETWEEN(1, 10000000),
     .doc = "Requests arriving while this many wait are rejected (the read or write fails: an "
            "error); one admitted is waited for however long it queues (no timeout)."},
};
#undef DC
static const struct section db_section = {
    SECTION("database", db_keys, struct db_cfg),
    .doc = "The backing store behind the caches."};

/* -- clients.local_cache -- */
#define LCC struct local_cache_cfg
static const struct key local_cache_keys[] = {
    {"capacity_items", KT_UINT, F(LCC, capacity_items), .def = "0", BETWEEN(0, 100000000),
     .doc = "Keys each instance keeps (LRU; a split key is one, not its copies); `0`: none."},
    {"ttl", KT_DURATION, F(LCC, ttl_ns), .def = "1s", ABOVE(0),
     .doc = "How long a local copy is used, from when its value last reached the instance. Other "
            "instances' writes do not reach it (its own drop it): within the TTL it may be stale."},
};
#undef LCC
static const struct section local_cache_section = {
    SECTION("clients.local_cache", local_cache_keys, struct local_cache_cfg),
    .doc = "A per-instance cache in front of the ring: the first cure for a hot key. A read "
           "it answers never leaves the client (`local_hits`); what it answers may be stale "
           "(`local_stale_reads`)."};

/* -- clients.hot_key_detection -- */
#define HD struct hot_key_detection_cfg
static const struct key hot_key_detection_keys[] = {
    {"threshold", KT_NUMBER, F(HD, threshold), .def = "0", BETWEEN(0, 1),
     .doc = "A key with at least this share of a window's reads (all instances together) is "
            "hot from the window's end; `0`: no detection."},
    {"window", KT_DURATION, F(HD, window_ns), .def = "10s", ABOVE(0),
     .doc = "The counting window. A detected key stays hot until a window in which its share "
            "is below half the threshold."},
    {"replicas", KT_UINT, F(HD, replicas), .def = "3", BETWEEN(2, PLACE_MAX_REPLICAS),
     .doc = "The cure a detected key gets: replica reads from this many owners (as "
            "`hot_key.replicas`: never fewer than `routing.replicas`, at most the nodes in the "
            "ring; the `hot_key_detected` row says how many)."},
};
#undef HD
static const struct section hot_key_detection_section = {
    SECTION("clients.hot_key_detection", hot_key_detection_keys, struct hot_key_detection_cfg),
    .doc = "The clients find hot keys themselves and turn replica reads on for them: the cure "
           "without knowing the key in advance. Each detection and each cooling is a row of "
           "`events` (`hot_key_detected`, `hot_key_cooled`). A key a `hot_key` entry gives "
           "`replicas` or `split` keeps that cure."};

/* -- clients -- */
#define LC struct client_cfg
static const struct key client_keys[] = {
    {"instances", KT_UINT, F(LC, instances), .def = "4", BETWEEN(1, MAX_INSTANCES),
     .doc = "Client instances (numbered from 0); each has its own ring view and health state."},
    {"timeout", KT_DURATION, F(LC, timeout_ns), .def = "100ms", ABOVE(0),
     .doc = "A cache response later than this is a timeout (not the database's)."},
    {"on_timeout", KT_ENUM, F(LC, on_timeout), .def = "db", .names = on_timeout_names,
     .doc = "After a timeout: read the database, or fail the request."},
    {"fill", KT_ENUM, F(LC, fill), .def = "set", .names = fill_names,
     .doc = "How a miss fills the cache: set, add (only if absent), versioned (only if "
            "newer), lease (only the lease holder), or none."},
    {"write", KT_ENUM, F(LC, write), .def = "invalidate", .names = write_names,
     .doc = "After a database write: delete the cached key, or write the new value through."},
    {"coalesce", KT_BOOL, F(LC, coalesce), .def = "false",
     .doc = "At most one database read per key per instance at a time."},
    {"backfill_qps", KT_NUMBER, F(LC, backfill_qps), .def = "0", AT_LEAST(0),
     .doc = "Token bucket per instance for miss reads; `0` is unlimited."},
    {"fallback_to_previous_owner", KT_BOOL, F(LC, fallback_to_previous_owner), .def = "false",
     .doc = "On a miss after a ring change, try the key's previous owner before the database "
            "(for `fallback_window` after the instance adopts the change)."},
    {"fallback_window", KT_DURATION, F(LC, fallback_window_ns), .def = "60s", AT_LEAST(0),
     .doc = "How long after adopting a ring epoch an instance falls back to previous owners; "
            "after it, misses go to the database (a bounded warm-up, as mcrouter's WarmUpRoute)."},
    {"invalidate_previous_owner", KT_BOOL, F(LC, invalidate_previous_owner), .def = "true",
     .doc = "In the fallback window a write also invalidates the key at its previous owner, so "
            "the copies fallback reads find stay fresh."},
    {"backfill_mode", KT_ENUM, F(LC, backfill_mode), .def = "fail", .names = backfill_mode_names,
     .doc = "A miss read without a `backfill_qps` token fails (`fail`), or waits for one up to "
            "`backfill_wait` and fails only then (`wait`)."},
    {"backfill_wait", KT_DURATION, F(LC, backfill_wait_ns), .def = "1s", AT_LEAST(0),
     .doc = "`backfill_mode: wait`: the longest a miss read waits for a token."},
    {"local_cache", KT_MAP, F(LC, local_cache), .sub = &local_cache_section,
     .doc = "A cache in each client instance, in front of the ring (table below)."},
    {"hot_key_detection", KT_MAP, F(LC, hot_key_detection), .sub = &hot_key_detection_section,
     .doc = "Hot keys found by the clients (table below)."},
};
#undef LC
static const struct section client_section = {
    SECTION("clients", client_keys, struct client_cfg),
    .doc = "The client instances that route requests."};

/* -- health -- */
#define HE struct health_cfg
static const struct key health_keys[] = {
    {"mode", KT_ENUM, F(HE, mode), .def = "client", .names = health_mode_names,
     .doc = "Who ejects failing nodes: nobody, each client instance, or a central coordinator."},
    {"failure_limit", KT_UINT, F(HE, failure_limit), .def = "3", BETWEEN(1, 1000000),
     .doc = "Consecutive failures before a node is ejected: timeouts and error replies (`client`), failed probes (`central`)."},
    {"retry_after", KT_DURATION, F(HE, retry_after_ns), .def = "30s", ABOVE(0),
     .doc = "An ejected node is tried again after this."},
    {"cooldown", KT_DURATION, F(HE, cooldown_ns), .def = "0s", AT_LEAST(0),
     .doc = "Least time between two ejections."},
    {"max_ejected", KT_NUMBER, F(HE, max_ejected), .def = "1.0", BETWEEN(0, 1),
     .doc = "Fraction of the nodes that may be ejected at once."},
    {"probe_interval", KT_DURATION, F(HE, probe_interval_ns), .def = "1s", ABOVE(0),
     .doc = "`central`: time between probes of each node."},
    {"propagation_delay", KT_DURATION, F(HE, propagation_delay_ns), .def = "0s", AT_LEAST(0),
     .doc = "`central`: delay before a client instance adopts a newly published ring epoch (each draws its own: this × U[0.5, 1.5))."},
    {"on_eject", KT_ENUM, F(HE, on_eject), .def = "rehash", .names = on_eject_names,
     .doc = "Where an ejected node's keys go: to the rest of the ring, or to a gutter pool."},
    {"gutter_nodes", KT_UINT, F(HE, gutter_nodes), .def = "0", BETWEEN(0, 1024),
     .range_doc = "0 to 1024; ≥ 1 with `on_eject: gutter`",
     .doc = "`on_eject: gutter`: size of the gutter pool; `rehash` ignores it."},
    {"gutter_ttl", KT_DURATION, F(HE, gutter_ttl_ns), .def = "10s", ABOVE(0),
     .doc = "`on_eject: gutter`: TTL of items filled into the gutter; `rehash` ignores it."},
};
#undef HE
static const struct section health_section = {
    SECTION("health", health_keys, struct health_cfg),
    .doc = "Failure detection and ejection."};

/* -- network -- */
static const struct key network_keys[] = {
    {"jitter", KT_DURATION, F(struct network_cfg, jitter_ns), .def = "0s", AT_LEAST(0),
     .doc = "Mean of an exponential extra delay on every message between a client and a node "
            "(each way) or between nodes: messages can overtake each other, so a fill can land "
            "after a later write's invalidation (a stale overwrite), or over a newer version "
            "a later fill or write-through left (a clobber)."},
};
static const struct section network_section = {
    SECTION("network", network_keys, struct network_cfg),
    .doc = "The network between clients and cache nodes."};

/* -- output -- */
static const struct key output_keys[] = {
    {"sample_requests", KT_NUMBER, F(struct output_cfg, sample_requests), .def = "0",
     BETWEEN(0, 1),
     .doc = "Fraction of client operations recorded one by one in the `requests` table "
            "(seeded: the same run records the same operations)."},
};
static const struct section output_section = {
    SECTION("output", output_keys, struct output_cfg),
    .doc = "What the results database records besides the ticks."};

/* -- events: each entry is {at, <one event key>}; the kinds bind into the same event_cfg -- */
#define EC struct event_cfg
#define WM struct warm_cfg
static const struct key warm_keys[] = {
    {"rate", KT_NUMBER, F(WM, rate), .flags = K_REQUIRED, ABOVE_UPTO(0, 1e9),
     .doc = "Keys copied per second. Each copy is a read through the source's queue and a set "
            "through the new node's; one a full queue refuses is lost (counted in `warm_done`), "
            "so a rate above what the queues drain costs copies and the GETs queued behind "
            "them."},
    {"source", KT_ENUM, F(WM, source), .def = "owners", .names = warm_source_names,
     .doc = "Where copies come from: the keys' current owners' caches, or the database (which "
            "costs database reads)."},
    {"until_hit_rate", KT_NUMBER, F(WM, until_hit_rate), .def = "0.95", ABOVE_UPTO(0, 1),
     .doc = "The node enters the ring when the keys it holds would answer this share of its "
            "future GETs."},
    {"max_wait", KT_DURATION, F(WM, max_wait_ns), .def = "120s", ABOVE(0),
     .doc = "It enters at the latest this long after the event; otherwise once every copy "
            "started has landed (or was lost)."},
};
#undef WM
static const struct section warm_section = {
    SECTION("events.N.add_node.warm", warm_keys, struct warm_cfg),
    .doc = "A staged join: before the node enters the ring (a new epoch), a copier loads the "
           "keys it will own, held at their owners, most recently used first, at `rate` keys "
           "a second. Writes meanwhile invalidate the copies too. If the ring changes "
           "meanwhile (another node joins or leaves, a weight, vnodes, an address or the "
           "routing changes, its own weight included), the copier plans again for the ring "
           "it will then join."};
#define DR struct drain_cfg
static const struct key drain_keys[] = {
    {"rate", KT_NUMBER, F(DR, rate), .flags = K_REQUIRED, ABOVE_UPTO(0, 1e9),
     .doc = "Keys copied per second. Each copy is a read through the leaving node's queue and a "
            "set through the next owner's; one a full queue refuses is lost (counted in "
            "`drain_done`): a rate far above what the queues drain loses copies and delays "
            "the GETs queued behind them."},
    {"max_wait", KT_DURATION, F(DR, max_wait_ns), .def = "120s", ABOVE(0),
     .doc = "It leaves at the latest this long after the event; otherwise once every copy "
            "started has landed (or was lost), still serving GETs until then."},
};
#undef DR
static const struct section drain_section = {
    SECTION("events.N.remove_node.drain", drain_keys, struct drain_cfg),
    .doc = "A drain: before the node leaves, its items are copied to their next owners, most "
           "recently used first, at `rate` keys a second; then it leaves (a new epoch). The "
           "next owners are those of the ring without it and without any other node being "
           "drained (when that ring has no node, the nodes warming to join); if the ring "
           "changes meanwhile, the copier plans again."};

static const struct key add_node_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, MAX_BYTES(MAX_ID_BYTES),
     .doc = "The new node; must not be in the cluster at that time (a removed id may return, "
            "as a new, empty node with this event's address, weight, zone and cache keys and "
            "the routing's vnodes; one whose drain still runs never left: its drain is "
            "cancelled, and it keeps its items and settings but for address and weight). "
            "Steps left of an earlier `set_weight` of the id are dropped."},
    {"address", KT_STRING, F(EC, address), .def_doc = "the id", MAX_BYTES(MAX_ID_BYTES),
     .doc = "Its address."},
    {"weight", KT_NUMBER, F(EC, weight), .def = "1", ABOVE_UPTO(0, PLACE_MAX_WEIGHT),
     .doc = "Its weight."},
    {"zone", KT_STRING, F(EC, zone), .def = "", MAX_BYTES(MAX_ID_BYTES),
     .doc = "Its failure domain (as `nodes.N.zone`)."},
    {"take_slots", KT_BOOL, F(EC, take_slots), .flags = K_OPTIONAL,
     .present_offset = offsetof(EC, has_take_slots), .def_doc = "`true`",
     .doc = "`slots` only: `true`, the node takes its share of the slots as it joins (from the "
            "nodes holding the most: a ring change, the keys of those slots miss until refilled); "
            "`false`, it joins holding no slot, as a node that meets a Redis Cluster, and "
            "`migrate_slots` events give it slots with their keys. Not with `warm`."},
    {"warm", KT_MAP, F(EC, warm), .sub = &warm_section, .flags = K_OMIT_ZERO,
     .def_doc = "none: it joins cold", .doc = "Warm it before it enters the ring (table below)."},
};
static const struct key node_id_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, MAX_BYTES(MAX_ID_BYTES),
     .doc = "A node in the cluster at that time."},
};
static const struct key remove_node_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, .doc = "A node in the cluster at that time."},
    {"drain", KT_MAP, F(EC, drain), .sub = &drain_section, .flags = K_OMIT_ZERO,
     .def_doc = "none: it leaves at once", .doc = "Drain it before it leaves (table below)."},
};
static const struct key set_weight_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, .doc = "A node in the cluster at that time."},
    {"weight", KT_NUMBER, F(EC, weight), .flags = K_REQUIRED, ABOVE_UPTO(0, PLACE_MAX_WEIGHT),
     .doc = "Its new weight."},
    {"steps", KT_UINT, F(EC, steps), .def = "1", BETWEEN(1, 1000),
     .doc = "Epochs the change takes: step i of n sets the weight i/n of the way."},
    {"every", KT_DURATION, F(EC, every_ns), .def = "0s", AT_LEAST(0),
     .range_doc = "> 0 when `steps` > 1", .doc = "Time between two steps."},
};
static const struct key set_vnodes_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, .doc = "A node in the cluster at that time."},
    {"vnodes", KT_UINT, F(EC, vnodes), .flags = K_REQUIRED, BETWEEN(1, PLACE_MAX_VNODES),
     .doc = "Its new points per unit of weight (`ring`, `bounded`)."},
    {"steps", KT_UINT, F(EC, steps), .def = "1", BETWEEN(1, 1000),
     .doc = "Epochs the change takes: step i of n moves i/n of the way."},
    {"every", KT_DURATION, F(EC, every_ns), .def = "0s", AT_LEAST(0),
     .range_doc = "> 0 when `steps` > 1", .doc = "Time between two steps."},
};
#define RCH struct routing_change
#define PRESENT(m) .flags = K_OPTIONAL, .present_offset = offsetof(EC, routing) + offsetof(RCH, m)
static const struct key set_routing_keys[] = {
    {"algorithm", KT_ENUM, F(EC, routing.algorithm), .names = algo_names,
     PRESENT(has_algorithm), .doc = "The new placement algorithm."},
    {"hash", KT_ENUM, F(EC, routing.hash), .names = hash_kind_names, PRESENT(has_hash),
     .doc = "The new hash function."},
    {"vnodes", KT_UINT, F(EC, routing.vnodes), BETWEEN(1, PLACE_MAX_VNODES), PRESENT(has_vnodes),
     .doc = "The new points per unit of weight."},
    {"point_format", KT_STRING, F(EC, routing.point_format), .check = check_point_format,
     .range_doc = "`%s` then `%d`", PRESENT(has_point_format), .doc = "The new point format."},
    {"node_key", KT_ENUM, F(EC, routing.node_key_address), .names = node_key_names,
     PRESENT(has_node_key), .doc = "What placement hashes for a node from now on."},
};
#undef PRESENT
#undef RCH
static const struct key migrate_slots_keys[] = {
    {"from", KT_ID, F(EC, node), .flags = K_REQUIRED, MAX_BYTES(MAX_ID_BYTES),
     .doc = "The source: a node in the cluster at that time that owns the slots."},
    {"to", KT_ID, F(EC, migrate.to), .flags = K_REQUIRED, MAX_BYTES(MAX_ID_BYTES),
     .doc = "The target: another node in the cluster at that time (one added with "
            "`take_slots: false`, say)."},
    {"slots", KT_SLOTS, F(EC, migrate.slots), .flags = K_REQUIRED,
     .range_doc = "1 to 16384; or 0 ≤ first ≤ last ≤ 16383",
     .doc = "Which slots: `N`, the first N slots the source owns when the migration starts, in "
            "slot order (as `redis-cli --cluster reshard` takes them from one source); or "
            "`[first, last]`, every slot of the range, all of them the source's."},
    {"rate", KT_NUMBER, F(EC, migrate.rate), .flags = K_REQUIRED, ABOVE_UPTO(0, 1e9),
     .doc = "Keys moved a second (the keys of each slot that the source holds)."},
};
static const struct key slow_node_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, MAX_BYTES(MAX_ID_BYTES),
     .doc = "A node in the cluster at that time."},
    {"factor", KT_NUMBER, F(EC, factor), .def = "1", BETWEEN(1, 1000000),
     .doc = "Service time multiplier."},
    {"latency", KT_DURATION, F(EC, latency_ns), .def = "0s", AT_LEAST(0),
     .doc = "Added to the reply of every request the node serves (a full queue's error reply and a MOVED come after the round trip alone)."},
    {"for", KT_DURATION, F(EC, for_ns), .def_doc = "to the end", ABOVE(0), .flags = K_OMIT_ZERO,
     .doc = "How long the slowness lasts."},
};
static const struct key instance_item = {
    "instance", KT_UINT, .offset = 0, .size = sizeof(uint32_t), BETWEEN(0, MAX_INSTANCES - 1),
    .doc = "A client instance number."};
static const struct key split_brain_keys[] = {
    {"instances", KT_LIST, F(EC, instances), .count_offset = offsetof(EC, n_instances),
     .item = &instance_item, .flags = K_REQUIRED, BETWEEN(1, MAX_INSTANCES),
     .range_doc = "distinct, each < `clients.instances`",
     .doc = "Client instances frozen on their current ring epoch, such as `[0, 1]`."},
    {"for", KT_DURATION, F(EC, for_ns), .flags = K_REQUIRED, ABOVE(0),
     .doc = "How long they stay frozen."},
};
static const struct key set_address_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, MAX_BYTES(MAX_ID_BYTES),
     .doc = "A node in the cluster at that time."},
    {"address", KT_STRING, F(EC, address), .flags = K_REQUIRED, MAX_BYTES(MAX_ID_BYTES),
     .doc = "Its new address."},
};
static const struct key hot_key_event_keys[] = {
    {"key", KT_STRING, F(EC, key), .flags = K_REQUIRED | K_NONEMPTY, MAX_BYTES(KEY_MAX_BYTES),
     .doc = "The key."},
    {"share", KT_NUMBER, F(EC, share), .flags = K_REQUIRED, ABOVE_UPTO(0, 1),
     .doc = "Fraction of all requests drawn for this key (on top of its popularity share of "
            "the rest, as in `workload.hot_keys`); replaces the key's share there while the "
            "event lasts."},
    {"for", KT_DURATION, F(EC, for_ns), .def_doc = "to the end", ABOVE(0), .flags = K_OMIT_ZERO,
     .doc = "How long the key stays hot."},
    {"split", KT_UINT, F(EC, split), .def = "1", BETWEEN(1, PLACE_MAX_REPLICAS),
     .flags = K_OMIT_ONE, .doc = "Key splitting while it is hot (as `workload.hot_keys.N.split`)."},
    {"replicas", KT_UINT, F(EC, replicas), .def = "1", BETWEEN(1, PLACE_MAX_REPLICAS),
     .flags = K_OMIT_ONE,
     .doc = "Replica reads while it is hot (as `workload.hot_keys.N.replicas`)."},
};
static const struct key crash_zone_keys[] = {
    {"zone", KT_STRING, F(EC, zone), .flags = K_REQUIRED | K_NONEMPTY, MAX_BYTES(MAX_ID_BYTES),
     .doc = "A zone with at least one running node (in the cluster, not crashed) at that "
            "time."},
};
static const struct key set_qps_keys[] = {
    {"qps", KT_NUMBER, F(EC, qps), .flags = K_REQUIRED, ABOVE(0),
     .doc = "The new total request rate."},
    {"over", KT_DURATION, F(EC, over_ns), .def = "0s", AT_LEAST(0),
     .doc = "The rate moves linearly from its value at `at` to `qps` over this long; `0s` is "
            "a step."},
};
static const struct section set_qps_section = {
    SECTION("events.N.set_qps", set_qps_keys, struct event_cfg),
    .doc = "The total request rate changes: `set_qps: 20000` is a step, `set_qps: {qps: 20000, "
           "over: 300s}` a linear ramp (arrivals stay a Poisson process of the rate at each "
           "moment). With `workload.diurnal` it sets the cycle's mean."};
static const struct section shift_popularity_section = {
    .title = "events.N.shift_popularity", .keys = NULL, .n_keys = 0,
    .size = sizeof(struct event_cfg),
    .doc = "The popularity moves to other keys: popularity rank r now names a different key "
           "(a new seeded permutation), as after a product launch or a cache-busting deploy. "
           "Hot keys keep their shares. Written `shift_popularity: {}`."};

static const struct section add_node_section = {
    SECTION("events.N.add_node", add_node_keys, struct event_cfg), .also = &cache_section,
    .also_offset = offsetof(struct event_cfg, cache), .post = add_node_post,
    .also_not = "prewarm",
    .also_not_why = "a node added by an event joins empty; prewarm applies only to the nodes "
                    "present at time 0 (the entries of nodes:), so remove it",
    .doc = "A node joins, empty. Besides these keys it may set any key of `cache` for itself "
           "but `prewarm`, which applies only to the nodes present at time 0."};
static const struct section remove_node_section = {
    SECTION("events.N.remove_node", remove_node_keys, struct event_cfg),
    .doc = "A node leaves the membership for good (its id may be added again later). The "
           "cluster may not become empty."};
static const struct section crash_zone_section = {
    SECTION("events.N.crash_zone", crash_zone_keys, struct event_cfg),
    .doc = "Every running node of a zone crashes at once (a rack or zone outage); each can be "
           "restarted with `restart_node`."};
static const struct section set_weight_section = {
    SECTION("events.N.set_weight", set_weight_keys, struct event_cfg), .post = gradual_post,
    .doc = "A node's weight changes, at once or in `steps` epochs `every` apart (halves, say; "
           "a step to the weight it has publishes none). A later `set_weight` or `add_node` of "
           "the node drops the steps left, and so does its leaving (`remove_node`, drain done)."};
static const struct section set_vnodes_section = {
    SECTION("events.N.set_vnodes", set_vnodes_keys, struct event_cfg), .post = gradual_post,
    .doc = "A node's own number of ring points per unit of weight changes (`ring` and "
           "`bounded`), at once or in `steps` epochs `every` apart (none for a step to the "
           "count it has). A later `set_vnodes` of the node drops the steps left, as does its leaving."};
static const struct section set_routing_section = {
    SECTION("events.N.set_routing", set_routing_keys, struct event_cfg),
    .post = set_routing_post,
    .doc = "The routing protocol changes for every node at once: a full migration (with a new "
           "hash almost every key moves). Give at least one key; the others stay as they "
           "are; naming only the values in force publishes no epoch. Under `slots`, a change that keeps the algorithm `slots` moves no key "
           "(slots ignore the hash, vnodes, point format and node key): the slot table stays "
           "as it is, migrated slots included."};
static const struct section migrate_slots_section = {
    SECTION("events.N.migrate_slots", migrate_slots_keys, struct event_cfg),
    .doc = "`routing.algorithm: slots` only. Slots move from one node to another one at a time, "
           "with the keys the source holds, as a Redis Cluster reshard moves them: the slot is "
           "migrating at the source and importing at the target; a key the source no longer "
           "holds is answered ASK (the client asks the target: one more round trip); when its "
           "keys are moved the slot is the target's (a new epoch), and the source answers MOVED "
           "for it from then on. Migrations run one at a time, in event order; the slots must be "
           "the source's at that time (after the earlier migrations)."};
static const struct section slow_node_section = {
    SECTION("events.N.slow_node", slow_node_keys, struct event_cfg), .post = slow_node_post,
    .doc = "A node becomes slow: give `factor`, `latency` or both."};
static const struct section crash_node_section = {
    SECTION("events.N.crash_node", node_id_keys, struct event_cfg),
    .doc = "A node stops answering (it stays in the membership); it must not be crashed "
           "already. A node being drained (`remove_node` with `drain`) may crash until the "
           "drain's `max_wait` has passed: the drain ends there and the node leaves; if the "
           "drain ended sooner, the crash finds the node gone and nothing happens."};
static const struct section restart_node_section = {
    SECTION("events.N.restart_node", node_id_keys, struct event_cfg),
    .doc = "A crashed node comes back, empty."};
static const struct section split_brain_section = {
    SECTION("events.N.split_brain", split_brain_keys, struct event_cfg),
    .doc = "Some client instances stop adopting new ring epochs for a while."};
static const struct section set_address_section = {
    SECTION("events.N.set_address", set_address_keys, struct event_cfg),
    .doc = "A node's address changes (which moves its keys under `node_key: address`)."};
static const struct section hot_key_event_section = {
    SECTION("events.N.hot_key", hot_key_event_keys, struct event_cfg),
    .doc = "A key becomes hot. At every moment the shares of `workload.hot_keys` and of the "
           "active hot_key events must sum to at most 1."};

const struct key event_keys[] = {
    {"at", KT_DURATION, F(EC, at_ns), .flags = K_REQUIRED, AT_LEAST(0),
     .range_doc = "0 to `duration`",
     .doc = "When it happens, from the start of the run. One at `duration` itself comes after "
            "the last tick: it is applied and recorded (events, the epoch it publishes, keys "
            "moved), and what it would start afterwards is not."},
    {"add_node", KT_MAP, .offset = 0, .sub = &add_node_section, .doc = "A node joins."},
    {"remove_node", KT_MAP, .offset = 0, .sub = &remove_node_section, .doc = "A node leaves."},
    {"slow_node", KT_MAP, .offset = 0, .sub = &slow_node_section, .doc = "A node slows down."},
    {"crash_node", KT_MAP, .offset = 0, .sub = &crash_node_section, .doc = "A node crashes."},
    {"restart_node", KT_MAP, .offset = 0, .sub = &restart_node_section,
     .doc = "A crashed node restarts."},
    {"split_brain", KT_MAP, .offset = 0, .sub = &split_brain_section,
     .doc = "Client instances freeze their ring view."},
    {"set_qps", KT_MAP, .offset = 0, .sub = &set_qps_section, .flags = K_SCALAR_FORM,
     .doc = "The total request rate changes, at once (`set_qps: 20000`) or in a ramp."},
    {"set_address", KT_MAP, .offset = 0, .sub = &set_address_section,
     .doc = "A node's address changes."},
    {"hot_key", KT_MAP, .offset = 0, .sub = &hot_key_event_section, .doc = "A key becomes hot."},
    {"set_weight", KT_MAP, .offset = 0, .sub = &set_weight_section,
     .doc = "A node's weight changes."},
    {"set_vnodes", KT_MAP, .offset = 0, .sub = &set_vnodes_section,
     .doc = "A node's ring points change."},
    {"set_routing", KT_MAP, .offset = 0, .sub = &set_routing_section,
     .doc = "The routing protocol changes."},
    {"migrate_slots", KT_MAP, .offset = 0, .sub = &migrate_slots_section,
     .doc = "Slots move to another node with their keys."},
    {"crash_zone", KT_MAP, .offset = 0, .sub = &crash_zone_section,
     .doc = "A zone's nodes crash."},
    {"shift_popularity", KT_MAP, .offset = 0, .sub = &shift_popularity_section,
     .doc = "The hot keys move to other keys."},
};
#undef EC
const struct section event_section = {
    SECTION("events.N", event_keys, struct event_cfg), .init = event_init, .post = event_post,
    .doc = "Each entry has `at` and exactly one event key. Events are applied in time order "
           "(entries with equal `at` keep their file order); an entry must make sense at its "
           "moment: `remove_node` of a node that is not in the cluster, or `restart_node` of a "
           "node that is not crashed, is an error."};

/* The event_keys entry of each kind (the order of EVENT_CODEC). */
const struct key *event_kind_key(enum event_kind k)
{
    return &event_keys[1 + (size_t)k];
}

/* -- top level -- */
#define SC struct scenario
static const struct key top_keys[] = {
    {"name", KT_STRING, F(SC, name), .def_doc = "file name without `.yaml`", .check = check_name,
     MAX_BYTES(MAX_NAME_BYTES), .range_doc = "non-empty, no `/`, at most 100 bytes",
     .doc = "Names the results (`results/<name>.db`)."},
    {"description", KT_STRING, F(SC, description), .def = "",
     MAX_BYTES(MAX_DESCRIPTION_BYTES), .doc = "Free text."},
    {"seed", KT_UINT, F(SC, seed), .def = "1", AT_LEAST(0), .check = check_seed,
     .range_doc = "0 to 2^63 − 1",
     .doc = "Seed of every random stream; `--seed N` overrides it."},
    {"duration", KT_DURATION, F(SC, duration_ns), .def = "60s", ABOVE(0),
     .doc = "Simulated time."},
    {"tick", KT_DURATION, F(SC, tick_ns), .def = "1s", ABOVE(0),
     .range_doc = "> 0, ≤ `duration`, at most 10^7 ticks",
     .doc = "Metric bucket: one row of `ticks` per tick."},
    {"warmup", KT_DURATION, F(SC, warmup_ns), .def = "0s", AT_LEAST(0),
     .range_doc = "≥ 0, < `duration`",
     .doc = "Ticks that start in it are left out of the summary's hit rate, baseline, peaks and `db_overload_s`; `min_hit_rate` counts from the first event's tick, even one in it."},
    {"workload", KT_MAP, F(SC, workload), .sub = &workload_section, .doc = "What clients ask for."},
    {"routing", KT_MAP, F(SC, routing), .sub = &routing_section, .doc = "Placement."},
    {"nodes", KT_LIST, F(SC, nodes), .count_offset = offsetof(SC, n_nodes),
     .sub = &node_section, .flags = K_REQUIRED, BETWEEN(1, MAX_NODES),
     .doc = "The cache nodes at time 0."},
    {"cache", KT_MAP, F(SC, cache), .sub = &cache_section, .doc = "Defaults of every node."},
    {"database", KT_MAP, F(SC, database), .sub = &db_section, .doc = "The database."},
    {"clients", KT_MAP, F(SC, clients), .sub = &client_section, .doc = "Client instances."},
    {"health", KT_MAP, F(SC, health), .sub = &health_section, .doc = "Ejection of failing nodes."},
    {"network", KT_MAP, F(SC, network), .sub = &network_section, .doc = "The network."},
    {"output", KT_MAP, F(SC, output), .sub = &output_section, .doc = "What is recorded."},
    {"events", KT_LIST, F(SC, events), .count_offset = offsetof(SC, n_events),
     .sub = &event_section, .def_doc = "`[]`", BETWEEN(0, MAX_EVENTS),
     .doc = "What happens during the run."},
};
#undef SC
const struct section top_section = {
    SECTION("Top level", top_keys, struct scenario),
    .doc = "Only `nodes` is required."};

const char *event_kind_name(enum event_kind k)
{
    return (unsigned)k < EV_KIND_COUNT ? event_names[k] : "?";
}

/* ---- extra checks -------------------------------------------------------- */

/* The key pattern rule of the placement library (key_format_init): exactly
 * one integer conversion, at most KEY_FORMAT_MAX_LEN characters. */
_Static_assert(KEY_FORMAT_MAX_LEN == 200, "the key_format docs say 200 characters");
_Static_assert(MAX_NAME_BYTES == 100, "the name docs say 100 bytes");
static const char *check_key_format(const void *field, char *buf, size_t n)
{
    const char *f = *(char *const *)field;
    if (strlen(f) > KEY_FORMAT_MAX_LEN)
        return "a printf format of at most 200 characters";
    struct key_format kf;
    const char *why = key_format_init(&kf, f);
    if (!why) {
        key_format_deinit(&kf);
        return NULL;
    }
    snprintf(buf, n, "a printf format with exactly one integer conversion (%%d, %%i, %%u, %%x "
             "or %%X), such as key-%%06d (%s)", why);
    return buf;
}

static const char *check_point_format(const void *field, char *buf, size_t n)
{
    const char *why = place_check_point_format(*(char *const *)field);
    if (!why)
        return NULL;
    snprintf(buf, n, "a point format with %%s then %%d, such as %%s#%%d (%s)", why);
    return buf;
}

/* A maglev table size the placement library accepts (a prime up to
 * PLACE_MAX_MAGLEV_SIZE); that it holds every node is checked on each
 * membership (scenario_members.c). */
_Static_assert(PLACE_MAX_MAGLEV_SIZE == 16777213u, "the table_size docs say 16777213");
static const char *check_table_size(const void *field, char *buf, size_t n)
{
    struct place_params p;
    (void)buf, (void)n;
    place_params_default(&p, PLACE_MAGLEV);
    p.maglev_size = *(const uint32_t *)field;
    return placement_check_params(&p, NULL, 0) == PLACE_OK ? NULL : "a prime number such as 65537";
}

/* Seeds are stored as SQLite integers: signed 64 bits. */
static const char *check_seed(const void *field, char *buf, size_t n)
{
    (void)buf, (void)n;
    return *(const uint64_t *)field > (uint64_t)INT64_MAX
               ? "an integer from 0 to 9223372036854775807"
               : NULL;
}

static const char *check_name(const void *field, char *buf, size_t n)
{
    const unsigned char *s = *(const unsigned char *const *)field;
    (void)buf, (void)n;
    if (!*s)
        goto bad;
    for (; *s; s++)
        if (*s == '/' || *s < 0x20 || *s == 0x7f)
            goto bad;
    return NULL;
bad:
    return "a non-empty name without '/' or control characters";
}

/* ---- section checks ----------------------------------------------------- */

static void cache_post(struct loader *L, const struct ynode *map, void *obj)
{
    check_capacity(L, map, obj);
}

static void node_post(struct loader *L, const struct ynode *map, void *obj)
{
    check_capacity(L, map, &((struct node_cfg *)obj)->cache);
}

static void add_node_post(struct loader *L, const struct ynode *map, void *obj)
{
    check_capacity(L, map, &((struct event_cfg *)obj)->cache);
}

static void slow_node_post(struct loader *L, const struct ynode *map, void *obj)
{
    (void)obj;
    if (!ynode_map_get(map, "factor") && !ynode_map_get(map, "latency"))
        report(L, map, L->path.buf, "expected factor or latency (or both)");
}

/* set_weight, set_vnodes: more than one step needs a time between them. */
static void gradual_post(struct loader *L, const struct ynode *map, void *obj)
{
    const struct event_cfg *ev = obj;
    if (good(L, &ev->steps) && good(L, &ev->every_ns) && ev->steps > 1 && ev->every_ns == 0) {
        size_t old = path_push(L, "every");
        report(L, map, L->path.buf, "expected a time > 0 between the %u steps", ev->steps);
        path_pop(L, old);
    }
}

static void set_routing_post(struct loader *L, const struct ynode *map, void *obj)
{
    const struct routing_change *c = &((const struct event_cfg *)obj)->routing;
    if (!c->has_algorithm && !c->has_hash && !c->has_vnodes && !c->has_point_format
        && !c->has_node_key)
        report(L, map, L->path.buf,
               "expected at least one of algorithm, hash, vnodes, point_format, node_key");
}

static void event_init(void *obj)
{
    ((struct event_cfg *)obj)->kind = EV_KIND_COUNT; /* none yet */
}

/* An entry holds `at` and exactly one event key. */
static void event_post(struct loader *L, const struct ynode *map, void *obj)
{
    struct event_cfg *ev = obj;
    const struct ynode *first = NULL;
    for (size_t i = 0; map->type == YNODE_MAP && i < ynode_map_len(map); i++) {
        const struct ynode *kn = ynode_map_key(map, i);
        for (size_t k = 0; k < EV_KIND_COUNT; k++) {
            if (strcmp(kn->text, event_names[k]))
                continue;
            if (ynode_map_get_key(map, kn->text) != kn) {
                /* a duplicate key: reported already */
            } else if (!first) {
                first = kn;
                ev->kind = (enum event_kind)k;
            } else {
                size_t old = path_push(L, kn->text);
                report(L, kn, L->path.buf,
                       "an entry holds exactly one event, and this one already has %s "
                       "(line %d)", first->text, first->line);
                path_pop(L, old);
                ev->kind = EV_KIND_COUNT;
            }
        }
    }
    if (!first) {
        struct strbuf sb;
        sb_init(&sb);
        names_list(event_names, ", ", "", &sb);
        report(L, map, L->path.buf, "expected an event key (one of: %s), got none", sb.buf);
        sb_deinit(&sb);
    }
    ev->pos = (struct src_pos){map->line, map->col, map->set};
}
