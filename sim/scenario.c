/*
 * scenario.c — the scenario loader: YAML text to a validated struct
 * scenario, the --set overrides, the effective YAML and the schema docs.
 *
 * One table per section (struct section, an array of struct key:
 * {name, type, offsetof(field), default, range, doc}) is the single
 * description of the schema. The same tables drive
 *   - defaults     (each default is YAML text, parsed by the key's setter),
 *   - binding      (types, units, ranges, unknown and duplicate keys),
 *   - emitting     (the effective YAML is written from the struct by table),
 *   - the docs     (scenario_schema_markdown, quoted in scenarios/README.md).
 *
 * Loading:
 *   text --ytree_parse--> tree --apply_override (each --set)--> tree
 *        --bind_map (tables; setters return NULL or what was expected)-->
 *        struct scenario --finish (cross-checks, event order)--> emit YAML
 *
 * Errors are collected, never fatal on the first: each one is
 * "FILE:LINE:COL: PATH: message" (or "--set ARG: PATH: message") and they
 * are reported sorted by position. A field whose value was rejected is
 * remembered ("bad"), and cross-checks that depend on it are skipped, so one
 * mistake gives one message rather than a cascade.
 *
 * Invariants of a loaded scenario: every key has a value in range; node ids
 * are unique; exactly one of capacity_bytes and capacity_items is non-zero in
 * every cache_cfg; events are sorted by time (stable) and every event's
 * target exists in the membership at that moment; hot key shares never sum
 * above 1. Nothing here keeps state between calls.
 */
#include "sim/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/yamltree.h"

#define MAX_FILE_BYTES  (16u << 20)
#define MAX_ERRORS      100        /* reported; the rest are counted */
#define MAX_TICKS       10000000   /* duration / tick */
#define MAX_RING_POINTS 10000000   /* vnodes x total weight, ring and bounded */
#define SHARE_EPS       1e-9       /* slack when summing hot key shares */
#define KEY_FORMAT_MAX  200        /* so a key stays well under 512 bytes */

/* ---- the loader's context ----------------------------------------------- */

struct err {
    int line, col; /* --set errors: line 0, col = the override's index */
    size_t seq;
    char *msg;
};

struct loader {
    const char *file;    /* for messages */
    struct scenario *s;
    struct ynode *root;
    struct strbuf path;  /* dotted path of what is being bound */
    struct err *errs;
    size_t n_errs, cap_errs;
    const void **bad;    /* fields whose value was rejected or is missing */
    size_t n_bad, cap_bad;
};

static int set_index(const struct loader *L, const char *arg)
{
    for (size_t i = 0; i < L->s->n_overrides; i++)
        if (L->s->overrides[i].arg == arg)
            return (int)i;
    return 0;
}

static void add_err(struct loader *L, int line, int col, char *msg)
{
    if (L->n_errs == L->cap_errs) {
        L->cap_errs = L->cap_errs ? 2 * L->cap_errs : 16;
        L->errs = xrealloc(L->errs, L->cap_errs * sizeof(*L->errs));
    }
    L->errs[L->n_errs] = (struct err){line, col, L->n_errs, msg};
    L->n_errs++;
}

/* An error about node `at` (its position, or its --set argument). */
static void report(struct loader *L, const struct ynode *at, const char *path, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
static void report(struct loader *L, const struct ynode *at, const char *path, const char *fmt, ...)
{
    struct strbuf sb;
    va_list ap;
    int line, col;
    sb_init(&sb);
    if (at && at->set) {
        sb_printf(&sb, "--set %s: ", at->set);
        line = 0;
        col = set_index(L, at->set);
    } else {
        line = at && at->line > 0 ? at->line : 1;
        col = at && at->line > 0 ? at->col : 1;
        sb_printf(&sb, "%s:%d:%d: ", L->file, line, col);
    }
    if (path && *path)
        sb_printf(&sb, "%s: ", path);
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    add_err(L, line, col, sb_steal(&sb));
}

static void mark_bad(struct loader *L, const void *field)
{
    if (L->n_bad == L->cap_bad) {
        L->cap_bad = L->cap_bad ? 2 * L->cap_bad : 16;
        L->bad = xrealloc(L->bad, L->cap_bad * sizeof(*L->bad));
    }
    L->bad[L->n_bad++] = field;
}

static bool good(const struct loader *L, const void *field)
{
    for (size_t i = 0; i < L->n_bad; i++)
        if (L->bad[i] == field)
            return false;
    return true;
}

static size_t path_push(struct loader *L, const char *key)
{
    size_t old = L->path.len;
    if (old)
        sb_putc(&L->path, '.');
    sb_puts(&L->path, key);
    return old;
}

static size_t path_push_index(struct loader *L, size_t i)
{
    size_t old = L->path.len;
    sb_printf(&L->path, "%s%zu", old ? "." : "", i);
    return old;
}

static void path_pop(struct loader *L, size_t old)
{
    L->path.len = old;
    L->path.buf[old] = '\0';
}

/* What a value was, for "got ...": a scalar quoted and escaped (at most
 * about 80 bytes of it, cut between characters), or the kind of collection. */
static void describe(const struct ynode *v, char *buf, size_t n)
{
    struct strbuf sb;
    size_t i;
    if (!v) {
        snprintf(buf, n, "nothing");
        return;
    }
    if (v->type != YNODE_SCALAR) {
        snprintf(buf, n, "%s", v->type == YNODE_MAP ? "a mapping"
                               : v->n ? "a sequence" : "an empty sequence");
        return;
    }
    sb_init(&sb);
    sb_putc(&sb, '"');
    for (i = 0; i < v->len && (sb.len < 80 || ((unsigned char)v->text[i] & 0xc0) == 0x80); i++) {
        unsigned char c = (unsigned char)v->text[i];
        if (c == '"' || c == '\\')
            sb_printf(&sb, "\\%c", c);
        else if (c == '\n')
            sb_puts(&sb, "\\n");
        else if (c == '\t')
            sb_puts(&sb, "\\t");
        else if (c < 0x20 || c == 0x7f)
            sb_printf(&sb, "\\x%02x", c);
        else
            sb_putc(&sb, (char)c);
    }
    sb_puts(&sb, i < v->len ? "...\"" : "\"");
    snprintf(buf, n, "%s", sb.buf);
    sb_deinit(&sb);
}

/* The node at a dotted path of the tree ("events.3.add_node.id"), or NULL. */
static struct ynode *tree_at(const struct ynode *root, const char *path)
{
    const struct ynode *cur = root;
    char part[64];
    const char *p = path;
    while (cur && *p) {
        size_t n = strcspn(p, ".");
        if (n >= sizeof part)
            return NULL;
        memcpy(part, p, n);
        part[n] = '\0';
        p += n + (p[n] == '.');
        if (cur->type == YNODE_MAP) {
            cur = ynode_map_get(cur, part);
        } else if (cur->type == YNODE_SEQ) {
            char *end;
            unsigned long i = strtoul(part, &end, 10);
            cur = (*end || i >= cur->n) ? NULL : cur->kids[i];
        } else {
            return NULL;
        }
    }
    return (struct ynode *)cur;
}

/* ---- schema tables ------------------------------------------------------- */

enum ktype { KT_STRING, KT_ID, KT_UINT, KT_NUMBER, KT_DURATION, KT_SIZE, KT_BOOL, KT_ENUM,
             KT_MAP, KT_LIST };

#define K_REQUIRED  0x01u  /* no default: must be given */
#define K_NONEMPTY  0x02u  /* strings: not "" */
#define K_OMIT_ZERO 0x04u  /* emitted only when not zero (0 means "absent") */

struct section;

struct key {
    const char *name;
    enum ktype type;
    size_t offset, size;        /* of the field in the section's struct */
    size_t count_offset;        /* KT_LIST: the size_t that holds the count */
    const char *def;            /* the default as YAML text; NULL if none */
    const char *def_doc;        /* the default as the docs show it when def is NULL */
    double lo, hi;              /* range; lists: number of entries */
    bool lo_open, hi_open, has_hi;
    unsigned flags;
    const char *const *names;   /* KT_ENUM: the names, by enum value, NULL-terminated */
    const struct section *sub;  /* KT_MAP, and KT_LIST of mappings */
    const struct key *item;     /* KT_LIST of scalars */
    /* Extra validation after the setter: NULL or what was expected. */
    const char *(*check)(const void *field, char *buf, size_t n);
    const char *range_doc;      /* the range column of the docs, when not generated */
    const char *doc;
};

typedef void (*post_fn)(struct loader *L, const struct ynode *map, void *obj);

struct section {
    const char *title;           /* for the docs */
    const struct key *keys;
    size_t n_keys;
    size_t size;                 /* of the struct (list elements) */
    void (*init)(void *obj);     /* a fresh list element, before defaults */
    const struct section *also;  /* a second table whose keys are allowed too */
    size_t also_offset;          /*   ... binding into obj + also_offset */
    post_fn post;                /* after binding one mapping */
    const char *doc;
};

#define F(st, m) .offset = offsetof(st, m), .size = sizeof(((st *)0)->m)
#define AT_LEAST(x)        .lo = (x)
#define ABOVE(x)           .lo = (x), .lo_open = true
#define BETWEEN(a, b)      .lo = (a), .hi = (b), .has_hi = true
#define ABOVE_UPTO(a, b)   .lo = (a), .lo_open = true, .hi = (b), .has_hi = true
#define SECTION(t, keys_, st) .title = (t), .keys = (keys_), .n_keys = ARRAY_LEN(keys_), \
                              .size = sizeof(st)

static const char *const dist_names[] = {"exp", "fixed", NULL};
static const char *const popularity_names[] = {"uniform", "zipf", NULL};
static const char *const fill_names[] = {"set", "add", "versioned", "lease", "none", NULL};
static const char *const write_names[] = {"invalidate", "write_through", NULL};
static const char *const on_timeout_names[] = {"db", "error", NULL};
static const char *const health_mode_names[] = {"off", "client", "central", NULL};
static const char *const on_eject_names[] = {"rehash", "gutter", NULL};
static const char *const node_key_names[] = {"id", "address", NULL};
#define NAME_OF2(e, name) name,
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

static const char *check_key_format(const void *field, char *buf, size_t n);
static const char *check_point_format(const void *field, char *buf, size_t n);
static const char *check_prime(const void *field, char *buf, size_t n);
static const char *check_name(const void *field, char *buf, size_t n);
static const char *check_seed(const void *field, char *buf, size_t n);
static void cache_post(struct loader *L, const struct ynode *map, void *obj);
static void node_post(struct loader *L, const struct ynode *map, void *obj);
static void add_node_post(struct loader *L, const struct ynode *map, void *obj);
static void slow_node_post(struct loader *L, const struct ynode *map, void *obj);
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
    {"service_time", KT_DURATION, F(CC, service_ns), .def = "20us", ABOVE(0),
     .doc = "Mean time one worker spends on one request."},
    {"service_dist", KT_ENUM, F(CC, service_dist), .def = "exp", .names = dist_names,
     .doc = "Service time distribution: exponential with that mean, or fixed."},
    {"workers", KT_UINT, F(CC, workers), .def = "1", BETWEEN(1, 1024),
     .doc = "Requests served at once (servers of the node's FIFO queue)."},
    {"max_queue", KT_UINT, F(CC, max_queue), .def = "10000", BETWEEN(1, 10000000),
     .doc = "Requests arriving while this many wait are rejected (an error reply)."},
    {"rtt", KT_DURATION, F(CC, rtt_ns), .def = "200us", AT_LEAST(0),
     .doc = "Network round trip between a client and the node (half each way)."},
    {"prewarm", KT_BOOL, F(CC, prewarm), .def = "true",
     .doc = "Nodes present at time 0 start holding the keys they own, as if warmed up."},
};
#undef CC
static const struct section cache_section = {
    SECTION("cache", cache_keys, struct cache_cfg), .post = cache_post,
    .doc = "Defaults for every cache node. A node entry (and an `add_node` event) may set any of "
           "these keys for itself; setting `capacity` or `capacity_items` there replaces the "
           "default capacity entirely."};

/* -- nodes -- */
#define NC struct node_cfg
static const struct key node_keys[] = {
    {"id", KT_ID, F(NC, id), .flags = K_REQUIRED,
     .doc = "Unique name of the node; no whitespace or commas. Placement hashes it "
            "(unless `routing.node_key` is `address`)."},
    {"address", KT_STRING, F(NC, address), .def_doc = "the id",
     .doc = "Address such as `10.0.0.1:11211`; hashed instead of the id with "
            "`node_key: address` (then addresses must be unique)."},
    {"weight", KT_NUMBER, F(NC, weight), .def = "1", ABOVE_UPTO(0, 1000000),
     .doc = "Relative share of the keys (ring points, rendezvous and maglev weight)."},
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
    {"key", KT_STRING, F(HC, key), .flags = K_REQUIRED | K_NONEMPTY,
     .doc = "The key, as the workload names keys (such as `key-000042`)."},
    {"share", KT_NUMBER, F(HC, share), .flags = K_REQUIRED, ABOVE_UPTO(0, 1),
     .doc = "Fraction of all requests that go to this key."},
};
#undef HC
static const struct section hot_key_section = {
    SECTION("workload.hot_keys.N", hot_key_keys, struct hot_key_cfg),
    .doc = "Keys that receive a fixed share of all requests for the whole run; the rest "
           "follow `popularity`. The shares must sum to at most 1."};

#define WC struct workload_cfg
static const struct key workload_keys[] = {
    {"keys", KT_UINT, F(WC, keys), .def = "100000", BETWEEN(1, 1000000000),
     .doc = "Number of distinct keys; key i (from 0) is named by `key_format`."},
    {"key_format", KT_STRING, F(WC, key_format), .def = "key-%06d", .check = check_key_format,
     .range_doc = "one integer conversion, at most 200 characters",
     .doc = "printf format with exactly one integer conversion (`%d %i %u %x %X`, flags, "
            "width and precision allowed, width and precision at most 64) and `%%`."},
    {"popularity", KT_ENUM, F(WC, popularity), .def = "uniform", .names = popularity_names,
     .doc = "How keys are chosen: all equally likely, or Zipf with exponent `zipf_s`."},
    {"zipf_s", KT_NUMBER, F(WC, zipf_s), .def = "0.99", ABOVE_UPTO(0, 10),
     .doc = "Zipf exponent (used with `popularity: zipf`)."},
    {"qps", KT_NUMBER, F(WC, qps), .def = "10000", ABOVE(0),
     .doc = "Requests per second of all clients together; Poisson arrivals."},
    {"write_ratio", KT_NUMBER, F(WC, write_ratio), .def = "0", BETWEEN(0, 1),
     .doc = "Fraction of requests that are writes."},
    {"value_bytes", KT_SIZE, F(WC, value_bytes), .def = "1024", BETWEEN(1, 1 << 30),
     .doc = "Size of every value; a bare integer is bytes."},
    {"ttl", KT_DURATION, F(WC, ttl_ns), .def = "0s", AT_LEAST(0),
     .doc = "Time to live of cached items; `0s` never expires."},
    {"hot_keys", KT_LIST, F(WC, hot_keys), .count_offset = offsetof(WC, n_hot_keys),
     .sub = &hot_key_section, .def_doc = "`[]`", BETWEEN(0, 1000),
     .doc = "Keys with a fixed share of requests (table below)."},
};
#undef WC
static const struct section workload_section = {
    SECTION("workload", workload_keys, struct workload_cfg),
    .doc = "What the clients ask for."};

/* -- routing -- */
#define RC struct routing_cfg
static const struct key routing_keys[] = {
    {"algorithm", KT_ENUM, F(RC, algorithm), .def = "ring", .names = algo_names,
     .doc = "Placement algorithm (see SPEC.md, \"Placement conventions\")."},
    {"hash", KT_ENUM, F(RC, hash), .def = "sha256", .names = hash_kind_names,
     .doc = "Hash function for keys and points."},
    {"vnodes", KT_UINT, F(RC, vnodes), .def = "160", BETWEEN(1, 1000000),
     .doc = "Ring points per unit of weight (`ring`, `bounded`)."},
    {"point_format", KT_STRING, F(RC, point_format), .def = "%s#%d",
     .check = check_point_format, .range_doc = "`%s` then `%d`",
     .doc = "How a point is named: printf of the node (`%s`) and the point number (`%d`)."},
    {"node_key", KT_ENUM, F(RC, node_key_address), .def = "id", .names = node_key_names,
     .doc = "What placement hashes for a node: its id or its address."},
    {"load_factor", KT_NUMBER, F(RC, load_factor), .def = "1.25", ABOVE(1),
     .doc = "`bounded`: each node holds at most ceil(load_factor x keys / nodes)."},
    {"table_size", KT_UINT, F(RC, table_size), .def = "65537", BETWEEN(2, 16777213),
     .check = check_prime, .range_doc = "prime, ≤ 16777213, ≥ the most nodes at once",
     .doc = "`maglev`: size of the lookup table."},
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
    {"service_time", KT_DURATION, F(DC, service_ns), .def = "2ms", ABOVE(0),
     .doc = "Mean time of one read or write."},
    {"service_dist", KT_ENUM, F(DC, service_dist), .def = "exp", .names = dist_names,
     .doc = "Service time distribution: exponential with that mean, or fixed."},
    {"max_queue", KT_UINT, F(DC, max_queue), .def = "2000", BETWEEN(1, 10000000),
     .doc = "Requests arriving while this many wait are rejected."},
};
#undef DC
static const struct section db_section = {
    SECTION("database", db_keys, struct db_cfg),
    .doc = "The backing store behind the caches."};

/* -- clients -- */
#define LC struct client_cfg
static const struct key client_keys[] = {
    {"instances", KT_UINT, F(LC, instances), .def = "4", BETWEEN(1, 4096),
     .doc = "Client instances (numbered from 0); each has its own ring view and health state."},
    {"timeout", KT_DURATION, F(LC, timeout_ns), .def = "100ms", ABOVE(0),
     .doc = "A cache response later than this is a timeout."},
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
     .doc = "Consecutive timeouts before a node is ejected."},
    {"retry_after", KT_DURATION, F(HE, retry_after_ns), .def = "30s", ABOVE(0),
     .doc = "An ejected node is tried again after this."},
    {"cooldown", KT_DURATION, F(HE, cooldown_ns), .def = "0s", AT_LEAST(0),
     .doc = "Least time between two ejections."},
    {"max_ejected", KT_NUMBER, F(HE, max_ejected), .def = "1.0", BETWEEN(0, 1),
     .doc = "Fraction of the nodes that may be ejected at once."},
    {"probe_interval", KT_DURATION, F(HE, probe_interval_ns), .def = "1s", ABOVE(0),
     .doc = "`central`: time between probes of each node."},
    {"propagation_delay", KT_DURATION, F(HE, propagation_delay_ns), .def = "0s", AT_LEAST(0),
     .doc = "`central`: delay before a client adopts a newly published ring epoch."},
    {"on_eject", KT_ENUM, F(HE, on_eject), .def = "rehash", .names = on_eject_names,
     .doc = "Where an ejected node's keys go: to the rest of the ring, or to a gutter pool."},
    {"gutter_nodes", KT_UINT, F(HE, gutter_nodes), .def = "0", BETWEEN(0, 1024),
     .range_doc = "0 to 1024; ≥ 1 with `on_eject: gutter`",
     .doc = "Size of the gutter pool."},
    {"gutter_ttl", KT_DURATION, F(HE, gutter_ttl_ns), .def = "10s", ABOVE(0),
     .doc = "TTL of items filled into the gutter."},
};
#undef HE
static const struct section health_section = {
    SECTION("health", health_keys, struct health_cfg),
    .doc = "Failure detection and ejection."};

/* -- events: each entry is {at, <one event key>}; the kinds bind into the same event_cfg -- */
#define EC struct event_cfg
static const struct key add_node_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED,
     .doc = "The new node; must not be in the cluster at that time (a removed id may return)."},
    {"address", KT_STRING, F(EC, address), .def_doc = "the id", .doc = "Its address."},
    {"weight", KT_NUMBER, F(EC, weight), .def = "1", ABOVE_UPTO(0, 1000000),
     .doc = "Its weight."},
};
static const struct key node_id_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, .doc = "A node in the cluster at that time."},
};
static const struct key slow_node_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, .doc = "A node in the cluster at that time."},
    {"factor", KT_NUMBER, F(EC, factor), .def = "1", BETWEEN(1, 1000000),
     .doc = "Service time multiplier."},
    {"latency", KT_DURATION, F(EC, latency_ns), .def = "0s", AT_LEAST(0),
     .doc = "Added to every response of the node."},
    {"for", KT_DURATION, F(EC, for_ns), .def_doc = "to the end", ABOVE(0), .flags = K_OMIT_ZERO,
     .doc = "How long the slowness lasts."},
};
static const struct key instance_item = {
    "instance", KT_UINT, .offset = 0, .size = sizeof(uint32_t), BETWEEN(0, 4095),
    .doc = "A client instance number."};
static const struct key split_brain_keys[] = {
    {"instances", KT_LIST, F(EC, instances), .count_offset = offsetof(EC, n_instances),
     .item = &instance_item, .flags = K_REQUIRED, BETWEEN(1, 4096),
     .range_doc = "distinct, each < `clients.instances`",
     .doc = "Client instances frozen on their current ring epoch, such as `[0, 1]`."},
    {"for", KT_DURATION, F(EC, for_ns), .flags = K_REQUIRED, ABOVE(0),
     .doc = "How long they stay frozen."},
};
static const struct key set_address_keys[] = {
    {"id", KT_ID, F(EC, node), .flags = K_REQUIRED, .doc = "A node in the cluster at that time."},
    {"address", KT_STRING, F(EC, address), .flags = K_REQUIRED, .doc = "Its new address."},
};
static const struct key hot_key_event_keys[] = {
    {"key", KT_STRING, F(EC, key), .flags = K_REQUIRED | K_NONEMPTY, .doc = "The key."},
    {"share", KT_NUMBER, F(EC, share), .flags = K_REQUIRED, ABOVE_UPTO(0, 1),
     .doc = "Fraction of all requests; replaces the key's share in `workload.hot_keys` "
            "while the event lasts."},
    {"for", KT_DURATION, F(EC, for_ns), .def_doc = "to the end", ABOVE(0), .flags = K_OMIT_ZERO,
     .doc = "How long the key stays hot."},
};

static const struct section add_node_section = {
    SECTION("events.N.add_node", add_node_keys, struct event_cfg), .also = &cache_section,
    .also_offset = offsetof(struct event_cfg, cache), .post = add_node_post,
    .doc = "A node joins. Besides these keys it may set any key of `cache` for itself."};
static const struct section remove_node_section = {
    SECTION("events.N.remove_node", node_id_keys, struct event_cfg),
    .doc = "A node leaves the membership for good (its id may be added again later). The "
           "cluster may not become empty."};
static const struct section slow_node_section = {
    SECTION("events.N.slow_node", slow_node_keys, struct event_cfg), .post = slow_node_post,
    .doc = "A node becomes slow: give `factor`, `latency` or both."};
static const struct section crash_node_section = {
    SECTION("events.N.crash_node", node_id_keys, struct event_cfg),
    .doc = "A node stops answering (it stays in the membership); it must not be crashed "
           "already."};
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

static const struct key event_keys[] = {
    {"at", KT_DURATION, F(EC, at_ns), .flags = K_REQUIRED, AT_LEAST(0),
     .range_doc = "0 to `duration`", .doc = "When it happens, from the start of the run."},
    {"add_node", KT_MAP, .offset = 0, .sub = &add_node_section, .doc = "A node joins."},
    {"remove_node", KT_MAP, .offset = 0, .sub = &remove_node_section, .doc = "A node leaves."},
    {"slow_node", KT_MAP, .offset = 0, .sub = &slow_node_section, .doc = "A node slows down."},
    {"crash_node", KT_MAP, .offset = 0, .sub = &crash_node_section, .doc = "A node crashes."},
    {"restart_node", KT_MAP, .offset = 0, .sub = &restart_node_section,
     .doc = "A crashed node restarts."},
    {"split_brain", KT_MAP, .offset = 0, .sub = &split_brain_section,
     .doc = "Client instances freeze their ring view."},
    {"set_qps", KT_NUMBER, F(EC, qps), ABOVE(0),
     .doc = "The total request rate changes to this number (a scalar: `set_qps: 20000`)."},
    {"set_address", KT_MAP, .offset = 0, .sub = &set_address_section,
     .doc = "A node's address changes."},
    {"hot_key", KT_MAP, .offset = 0, .sub = &hot_key_event_section, .doc = "A key becomes hot."},
};
#undef EC
static const struct section event_section = {
    SECTION("events.N", event_keys, struct event_cfg), .init = event_init, .post = event_post,
    .doc = "Each entry has `at` and exactly one event key. Events are applied in time order "
           "(entries with equal `at` keep their file order); an entry must make sense at its "
           "moment: `remove_node` of a node that is not in the cluster, or `restart_node` of a "
           "node that is not crashed, is an error."};

/* The event_keys entry of each kind (the order of EVENT_CODEC). */
static const struct key *event_kind_key(enum event_kind k)
{
    return &event_keys[1 + (size_t)k];
}

/* -- top level -- */
#define SC struct scenario
static const struct key top_keys[] = {
    {"name", KT_STRING, F(SC, name), .def_doc = "file name without `.yaml`", .check = check_name,
     .range_doc = "non-empty, no `/`",
     .doc = "Names the results (`results/<name>.db`)."},
    {"description", KT_STRING, F(SC, description), .def = "", .doc = "Free text."},
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
     .doc = "Excluded from the summary's baseline."},
    {"workload", KT_MAP, F(SC, workload), .sub = &workload_section, .doc = "What clients ask for."},
    {"routing", KT_MAP, F(SC, routing), .sub = &routing_section, .doc = "Placement."},
    {"nodes", KT_LIST, F(SC, nodes), .count_offset = offsetof(SC, n_nodes),
     .sub = &node_section, .flags = K_REQUIRED, BETWEEN(1, 10000),
     .doc = "The cache nodes at time 0."},
    {"cache", KT_MAP, F(SC, cache), .sub = &cache_section, .doc = "Defaults of every node."},
    {"database", KT_MAP, F(SC, database), .sub = &db_section, .doc = "The database."},
    {"clients", KT_MAP, F(SC, clients), .sub = &client_section, .doc = "Client instances."},
    {"health", KT_MAP, F(SC, health), .sub = &health_section, .doc = "Ejection of failing nodes."},
    {"events", KT_LIST, F(SC, events), .count_offset = offsetof(SC, n_events),
     .sub = &event_section, .def_doc = "`[]`", BETWEEN(0, 10000),
     .doc = "What happens during the run."},
};
#undef SC
static const struct section top_section = {
    SECTION("Top level", top_keys, struct scenario),
    .doc = "Only `nodes` is required."};

const char *event_kind_name(enum event_kind k)
{
    return (unsigned)k < EV_KIND_COUNT ? event_names[k] : "?";
}

/* ---- field access and formatting --------------------------------------- */

static uint64_t get_uint(const struct key *k, const void *f)
{
    switch (k->size) {
    case 1: return *(const uint8_t *)f;
    case 2: return *(const uint16_t *)f;
    case 4: return *(const uint32_t *)f;
    default: return *(const uint64_t *)f;
    }
}

static void put_uint(const struct key *k, void *f, uint64_t v)
{
    switch (k->size) {
    case 1: *(uint8_t *)f = (uint8_t)v; break;
    case 2: *(uint16_t *)f = (uint16_t)v; break;
    case 4: *(uint32_t *)f = (uint32_t)v; break;
    default: *(uint64_t *)f = v; break;
    }
}

/* Shortest text that reads back as exactly v; plain decimals when short. */
static void format_number(double v, char *buf, size_t n)
{
    char g[40], fx[400];
    if (v == 0)
        v = 0; /* no "-0" */
    for (int p = 1; p <= 17; p++) {
        snprintf(g, sizeof g, "%.*g", p, v);
        if (strtod(g, NULL) == v)
            break;
    }
    for (int d = 0; d <= 17; d++) {
        snprintf(fx, sizeof fx, "%.*f", d, v);
        if (strtod(fx, NULL) == v) {
            if (strlen(fx) <= 20) {
                snprintf(buf, n, "%s", fx);
                return;
            }
            break;
        }
    }
    snprintf(buf, n, "%s", g);
}

/* Sizes with the largest unit that divides them exactly; bytes otherwise. */
static void format_size(uint64_t v, char *buf, size_t n)
{
    static const struct {
        const char *unit;
        uint64_t scale;
    } units[] = {{"TiB", 1ULL << 40}, {"TB", 1000000000000ULL}, {"GiB", 1ULL << 30},
                 {"GB", 1000000000ULL}, {"MiB", 1ULL << 20}, {"MB", 1000000ULL},
                 {"KiB", 1ULL << 10}, {"KB", 1000ULL}};
    for (size_t i = 0; i < ARRAY_LEN(units); i++) {
        if (v && v % units[i].scale == 0) {
            snprintf(buf, n, "%llu%s", (unsigned long long)(v / units[i].scale), units[i].unit);
            return;
        }
    }
    snprintf(buf, n, "%llu", (unsigned long long)v);
}

/* The text of a scalar field, as the effective YAML writes it. */
static void format_field(const struct key *k, const void *f, char *buf, size_t n)
{
    switch (k->type) {
    case KT_STRING:
    case KT_ID:
        snprintf(buf, n, "%s", *(char *const *)f ? *(char *const *)f : "");
        break;
    case KT_UINT: snprintf(buf, n, "%llu", (unsigned long long)get_uint(k, f)); break;
    case KT_NUMBER: format_number(*(const double *)f, buf, n); break;
    case KT_DURATION: format_duration(*(const int64_t *)f, buf, n); break;
    case KT_SIZE: format_size(*(const uint64_t *)f, buf, n); break;
    case KT_BOOL: snprintf(buf, n, "%s", *(const bool *)f ? "true" : "false"); break;
    case KT_ENUM: snprintf(buf, n, "%s", k->names[get_uint(k, f)]); break;
    default: snprintf(buf, n, "?"); break;
    }
}

static bool field_is_zero(const struct key *k, const void *f)
{
    switch (k->type) {
    case KT_NUMBER: return *(const double *)f == 0;
    case KT_DURATION: return *(const int64_t *)f == 0;
    case KT_SIZE: return *(const uint64_t *)f == 0;
    case KT_UINT: return get_uint(k, f) == 0;
    default: return false;
    }
}

/* ---- ranges and "what was expected" ------------------------------------ */

static void format_bound(const struct key *k, double b, char *buf, size_t n)
{
    if (b == 0)
        snprintf(buf, n, "0");
    else if (k->type == KT_DURATION)
        format_duration((int64_t)b, buf, n);
    else if (k->type == KT_SIZE)
        format_size((uint64_t)b, buf, n);
    else
        snprintf(buf, n, "%.15g", b);
}

/* "> 0", ">= 1", "1 to 1024", "> 0 and <= 10"; doc: with ≥ and ≤. */
static void range_text(const struct key *k, bool doc, char *buf, size_t n)
{
    char lo[32], hi[32];
    const char *ge = doc ? "≥" : ">=", *le = doc ? "≤" : "<=";
    format_bound(k, k->lo, lo, sizeof lo);
    format_bound(k, k->hi, hi, sizeof hi);
    if (!k->has_hi)
        snprintf(buf, n, "%s %s", k->lo_open ? ">" : ge, lo);
    else if (!k->lo_open && !k->hi_open)
        snprintf(buf, n, "%s to %s", lo, hi);
    else
        snprintf(buf, n, "%s %s and %s %s", k->lo_open ? ">" : ge, lo, k->hi_open ? "<" : le, hi);
}

static const char *type_noun(enum ktype t)
{
    switch (t) {
    case KT_UINT: return "an integer";
    case KT_NUMBER: return "a number";
    case KT_DURATION: return "a duration";
    case KT_SIZE: return "a size";
    default: return "a value";
    }
}

/* What a value out of range should have been: "an integer from 1 to 4096". */
static const char *expect_range(const struct key *k, char *buf, size_t n)
{
    char r[96], lo[32], hi[32];
    if (k->type == KT_UINT && k->lo == 1 && !k->has_hi)
        return "a positive integer";
    if (k->has_hi && !k->lo_open && !k->hi_open) {
        format_bound(k, k->lo, lo, sizeof lo);
        format_bound(k, k->hi, hi, sizeof hi);
        snprintf(buf, n, "%s from %s to %s", type_noun(k->type), lo, hi);
        return buf;
    }
    range_text(k, false, r, sizeof r);
    snprintf(buf, n, "%s %s", type_noun(k->type), r);
    return buf;
}

/* What a value of the wrong form should have been. */
static const char *expect_form(const struct key *k, char *buf, size_t n)
{
    switch (k->type) {
    case KT_UINT: return k->lo >= 1 ? "a positive integer" : "a non-negative integer";
    case KT_DURATION: return "a duration such as 20us, 1.5s or 2m";
    case KT_SIZE: return "a size such as 1024, 64KiB or 1GB";
    default: return expect_range(k, buf, n);
    }
}

static const char *unquoted(const char *what, char *buf, size_t n)
{
    if (what != buf) {
        snprintf(buf, n, "%s without quotes", what);
    } else {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, " without quotes");
    }
    return buf;
}

static bool in_range(const struct key *k, double v)
{
    if (k->lo_open ? !(v > k->lo) : !(v >= k->lo))
        return false;
    if (k->has_hi && (k->hi_open ? !(v < k->hi) : !(v <= k->hi)))
        return false;
    return true;
}

/* ---- setters: NULL, or what was expected --------------------------------- */

typedef const char *(*setter_fn)(const struct key *k, const struct ynode *v, void *field,
                                 char *what, size_t n);

static const char *set_string(const struct key *k, const struct ynode *v, void *field,
                              char *what, size_t n)
{
    (void)what, (void)n;
    if (v->type != YNODE_SCALAR)
        return "a string";
    if ((k->flags & K_NONEMPTY) && !v->len)
        return "a non-empty string";
    char **p = field;
    free(*p);
    *p = xstrdup(v->text);
    return NULL;
}

static const char *set_id(const struct key *k, const struct ynode *v, void *field, char *what,
                          size_t n)
{
    static const char expect[] = "a node id (non-empty, without spaces or commas)";
    if (v->type != YNODE_SCALAR || !v->len)
        return expect;
    for (const unsigned char *p = (const unsigned char *)v->text; *p; p++)
        if (isspace(*p) || *p == ',' || *p < 0x20 || *p == 0x7f)
            return expect;
    return set_string(k, v, field, what, n);
}

static const char *set_uint(const struct key *k, const struct ynode *v, void *field, char *what,
                            size_t n)
{
    uint64_t x;
    if (v->type != YNODE_SCALAR || parse_u64(v->text, &x))
        return expect_form(k, what, n);
    if (!v->plain)
        return unquoted(expect_form(k, what, n), what, n);
    if (!in_range(k, (double)x) || (k->size == 4 && x > UINT32_MAX))
        return expect_range(k, what, n);
    put_uint(k, field, x);
    return NULL;
}

static const char *set_number(const struct key *k, const struct ynode *v, void *field,
                              char *what, size_t n)
{
    double x;
    if (v->type != YNODE_SCALAR || parse_double(v->text, &x))
        return expect_form(k, what, n);
    if (!v->plain)
        return unquoted(expect_form(k, what, n), what, n);
    if (!in_range(k, x))
        return expect_range(k, what, n);
    *(double *)field = x;
    return NULL;
}

static const char *set_duration(const struct key *k, const struct ynode *v, void *field,
                                char *what, size_t n)
{
    int64_t ns;
    if (v->type != YNODE_SCALAR || parse_duration(v->text, &ns))
        return expect_form(k, what, n);
    if (!in_range(k, (double)ns))
        return expect_range(k, what, n);
    *(int64_t *)field = ns;
    return NULL;
}

static const char *set_size(const struct key *k, const struct ynode *v, void *field, char *what,
                            size_t n)
{
    uint64_t b;
    if (v->type != YNODE_SCALAR || parse_size(v->text, &b))
        return expect_form(k, what, n);
    if (!in_range(k, (double)b))
        return expect_range(k, what, n);
    *(uint64_t *)field = b;
    return NULL;
}

static const char *set_bool(const struct key *k, const struct ynode *v, void *field, char *what,
                            size_t n)
{
    (void)k;
    if (v->type != YNODE_SCALAR || (strcmp(v->text, "true") && strcmp(v->text, "false")))
        return "true or false";
    if (!v->plain)
        return unquoted("true or false", what, n);
    *(bool *)field = !strcmp(v->text, "true");
    return NULL;
}

static void names_list(const char *const *names, const char *sep, const char *quote,
                       struct strbuf *sb)
{
    for (size_t i = 0; names[i]; i++)
        sb_printf(sb, "%s%s%s%s", i ? sep : "", quote, names[i], quote);
}

static const char *set_enum(const struct key *k, const struct ynode *v, void *field, char *what,
                            size_t n)
{
    if (v->type == YNODE_SCALAR)
        for (size_t i = 0; k->names[i]; i++)
            if (!strcmp(v->text, k->names[i])) {
                put_uint(k, field, i);
                return NULL;
            }
    struct strbuf sb;
    sb_init(&sb);
    names_list(k->names, ", ", "", &sb);
    snprintf(what, n, "one of: %s", sb.buf);
    sb_deinit(&sb);
    return what;
}

static const setter_fn setters[] = {
    [KT_STRING] = set_string, [KT_ID] = set_id, [KT_UINT] = set_uint,
    [KT_NUMBER] = set_number, [KT_DURATION] = set_duration, [KT_SIZE] = set_size,
    [KT_BOOL] = set_bool, [KT_ENUM] = set_enum,
};

/* ---- extra checks -------------------------------------------------------- */

/* printf with exactly one integer conversion: %[-+ #0]*[width][.prec](d|i|u|x|X),
 * width and precision at most 64; "%%" anywhere; nothing else. */
static const char *check_key_format(const void *field, char *buf, size_t n)
{
    const char *f = *(char *const *)field;
    int convs = 0;
    (void)buf, (void)n;
    if (strlen(f) > KEY_FORMAT_MAX)
        return "a printf format of at most 200 characters";
    for (const char *p = f; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        while (*p && strchr("-+ #0", *p))
            p++;
        unsigned width = 0, prec = 0;
        while (isdigit((unsigned char)*p) && width <= 64)
            width = width * 10 + (unsigned)(*p++ - '0');
        if (*p == '.') {
            p++;
            while (isdigit((unsigned char)*p) && prec <= 64)
                prec = prec * 10 + (unsigned)(*p++ - '0');
        }
        if (width > 64 || prec > 64 || !*p || !strchr("diuxX", *p))
            goto bad;
        convs++;
    }
    if (convs == 1)
        return NULL;
bad:
    return "a printf format with exactly one integer conversion (%d, %i, %u, %x or %X), "
           "such as key-%06d";
}

static const char *check_point_format(const void *field, char *buf, size_t n)
{
    const char *why = place_check_point_format(*(char *const *)field);
    if (!why)
        return NULL;
    snprintf(buf, n, "a point format with %%s then %%d, such as %%s#%%d (%s)", why);
    return buf;
}

static bool is_prime(uint64_t v)
{
    if (v < 2)
        return false;
    for (uint64_t d = 2; d * d <= v; d++)
        if (v % d == 0)
            return false;
    return true;
}

static const char *check_prime(const void *field, char *buf, size_t n)
{
    (void)buf, (void)n;
    return is_prime(*(const uint32_t *)field) ? NULL : "a prime number such as 65537";
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

/* ---- binding ------------------------------------------------------------ */

static void apply_defaults(const struct section *sec, void *obj)
{
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        char *field = (char *)obj + k->offset;
        if (k->def) {
            struct ynode v = {.type = YNODE_SCALAR, .text = (char *)k->def,
                              .len = strlen(k->def), .plain = true};
            char what[160];
            const char *e = setters[k->type](k, &v, field, what, sizeof what);
            (void)e;
        } else if (k->type == KT_MAP) {
            apply_defaults(k->sub, field);
        }
    }
}

/* Optimal string alignment distance, case-insensitive, for "did you mean". */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    size_t d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t v = MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);
            v = MIN(v, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]))
                v = MIN(v, d[i - 2][j - 2] + 1);
            d[i][j] = v;
        }
    return d[la][lb];
}

static void consider(const char *word, const char *cand, const char *prefix, size_t *best,
                     char *out, size_t n)
{
    size_t dist = edit_distance(word, cand);
    size_t limit = strlen(cand) <= 4 ? 1 : 2;
    if (dist <= limit && dist < *best) {
        *best = dist;
        snprintf(out, n, "%s%s", prefix, cand);
    }
}

static void report_unknown(struct loader *L, const struct section *sec, const struct ynode *kn)
{
    struct strbuf sb;
    char best_name[96] = "";
    size_t best = 99;
    sb_init(&sb);
    for (size_t i = 0; i < sec->n_keys; i++) {
        sb_printf(&sb, "%s%s", i ? ", " : "", sec->keys[i].name);
        consider(kn->text, sec->keys[i].name, "", &best, best_name, sizeof best_name);
    }
    if (sec->also)
        for (size_t i = 0; i < sec->also->n_keys; i++) {
            sb_printf(&sb, ", %s", sec->also->keys[i].name);
            consider(kn->text, sec->also->keys[i].name, "", &best, best_name, sizeof best_name);
        }
    /* a key written at the top level that belongs in a section */
    if (sec == &top_section && best)
        for (size_t i = 0; i < sec->n_keys; i++) {
            const struct section *sub = sec->keys[i].sub;
            if (sec->keys[i].type != KT_MAP || !sub)
                continue;
            for (size_t j = 0; j < sub->n_keys; j++)
                if (!strcmp(kn->text, sub->keys[j].name)) {
                    best = 0;
                    snprintf(best_name, sizeof best_name, "%s.%s (it belongs in %s:)",
                             sec->keys[i].name, sub->keys[j].name, sec->keys[i].name);
                }
        }
    size_t old = path_push(L, kn->text);
    if (best_name[0])
        report(L, kn, L->path.buf, "unknown key (expected one of: %s); did you mean %s?", sb.buf,
               best_name);
    else
        report(L, kn, L->path.buf, "unknown key (expected one of: %s)", sb.buf);
    path_pop(L, old);
    sb_deinit(&sb);
}

static void bind_map(struct loader *L, const struct section *sec, const struct ynode *map,
                     void *obj);

static void bind_scalar(struct loader *L, const struct key *k, const struct ynode *v, void *field)
{
    char what[256], got[128];
    const char *w = setters[k->type](k, v, field, what, sizeof what);
    if (!w && k->check)
        w = k->check(field, what, sizeof what);
    if (w) {
        describe(v, got, sizeof got);
        report(L, v, L->path.buf, "expected %s, got %s", w, got);
        mark_bad(L, field);
    }
}

static void bind_list(struct loader *L, const struct key *k, const struct ynode *v, void *obj)
{
    char got[128];
    void **arrp = (void **)((char *)obj + k->offset);
    size_t *countp = (size_t *)((char *)obj + k->count_offset);
    size_t n = 0, elem = k->sub ? k->sub->size : k->item->size;

    if (v->type == YNODE_MAP || (v->type == YNODE_SCALAR && !ynode_is_null(v))) {
        describe(v, got, sizeof got);
        report(L, v, L->path.buf, "expected a sequence, got %s", got);
        mark_bad(L, arrp);
        return;
    }
    if (v->type == YNODE_SEQ)
        n = v->n;
    if ((double)n < k->lo) {
        report(L, v, L->path.buf, "expected a sequence of at least %.0f %s, got %s", k->lo,
               k->lo == 1 ? "entry" : "entries", n ? "fewer" : "an empty sequence");
        mark_bad(L, arrp);
    }
    if (k->has_hi && (double)n > k->hi) {
        report(L, v, L->path.buf, "expected at most %.0f entries, got %zu", k->hi, n);
        mark_bad(L, arrp);
        return;
    }
    if (!n)
        return;
    char *arr = xcalloc(n, elem);
    *arrp = arr;
    *countp = n;
    for (size_t i = 0; i < n; i++) {
        char *e = arr + i * elem;
        size_t old = path_push_index(L, i);
        if (k->sub) {
            if (k->sub->init)
                k->sub->init(e);
            apply_defaults(k->sub, e);
            bind_map(L, k->sub, v->kids[i], e);
        } else {
            bind_scalar(L, k->item, v->kids[i], e + k->item->offset);
        }
        path_pop(L, old);
    }
}

static void bind_value(struct loader *L, const struct key *k, const struct ynode *v, void *obj)
{
    switch (k->type) {
    case KT_MAP: bind_map(L, k->sub, v, (char *)obj + k->offset); break;
    case KT_LIST: bind_list(L, k, v, obj); break;
    default: bind_scalar(L, k, v, (char *)obj + k->offset); break;
    }
}

static const struct key *find_key(const struct section *sec, const char *name)
{
    for (size_t i = 0; i < sec->n_keys; i++)
        if (!strcmp(sec->keys[i].name, name))
            return &sec->keys[i];
    return NULL;
}

/* Binds one mapping through a section table. A YAML null stands for an empty
 * mapping (a section written with everything commented out). */
static void bind_map(struct loader *L, const struct section *sec, const struct ynode *map,
                     void *obj)
{
    char got[128];
    if (map->type != YNODE_MAP && !ynode_is_null(map)) {
        describe(map, got, sizeof got);
        report(L, map, L->path.buf, "expected a mapping, got %s", got);
        mark_bad(L, obj);
        return;
    }
    for (size_t i = 0; map->type == YNODE_MAP && i < ynode_map_len(map); i++) {
        const struct ynode *kn = ynode_map_key(map, i), *vn = ynode_map_value(map, i);
        const struct ynode *first = ynode_map_get_key(map, kn->text);
        size_t old;
        if (first != kn) {
            old = path_push(L, kn->text);
            report(L, kn, L->path.buf, "duplicate key (first at line %d)", first->line);
            path_pop(L, old);
            continue;
        }
        const struct key *k = find_key(sec, kn->text);
        void *base = obj;
        if (!k && sec->also) {
            k = find_key(sec->also, kn->text);
            base = (char *)obj + sec->also_offset;
        }
        if (!k) {
            report_unknown(L, sec, kn);
            continue;
        }
        old = path_push(L, kn->text);
        bind_value(L, k, vn, base);
        path_pop(L, old);
    }
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        if ((k->flags & K_REQUIRED) && !ynode_map_get(map, k->name)) {
            size_t old = path_push(L, k->name);
            report(L, map, L->path.buf, "required key is missing");
            path_pop(L, old);
            mark_bad(L, (char *)obj + k->offset);
        }
    }
    if (sec->post)
        sec->post(L, map, obj);
}

/* ---- section checks ----------------------------------------------------- */

/* capacity and capacity_items: one or the other. When the file gives one
 * and --set the other, the --set one wins. */
static void check_capacity(struct loader *L, const struct ynode *map, struct cache_cfg *c)
{
    const struct ynode *vb = ynode_map_get(map, "capacity");
    const struct ynode *vi = ynode_map_get(map, "capacity_items");
    if (vb && vi) {
        if (vi->set && !vb->set) {
            c->capacity_bytes = 0;
        } else if (vb->set && !vi->set) {
            c->capacity_items = 0;
        } else {
            size_t old = path_push(L, "capacity_items");
            report(L, ynode_map_get_key(map, "capacity_items"), L->path.buf,
                   "give capacity or capacity_items, not both (capacity is at line %d)",
                   vb->line);
            path_pop(L, old);
            mark_bad(L, &c->capacity_items);
        }
    } else if (vi) {
        c->capacity_bytes = 0;
    }
}

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

/* ---- whole-scenario checks ------------------------------------------------ */

/* Fills unset cache keys of a node (or add_node) from the defaults. */
static void merge_cache(const struct ynode *map, struct cache_cfg *c, const struct cache_cfg *def)
{
    bool own_capacity = ynode_map_get(map, "capacity") || ynode_map_get(map, "capacity_items");
    for (size_t i = 0; i < cache_section.n_keys; i++) {
        const struct key *k = &cache_section.keys[i];
        bool is_capacity = !strncmp(k->name, "capacity", 8);
        if (is_capacity ? own_capacity : ynode_map_get(map, k->name) != NULL)
            continue;
        memcpy((char *)c + k->offset, (const char *)def + k->offset, k->size);
    }
}

/* Reports at the value of `path` when the file (or --set) gave it, else at
 * the mapping that would hold it. */
static void report_path(struct loader *L, const char *path, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void report_path(struct loader *L, const char *path, const char *fmt, ...)
{
    const struct ynode *at = tree_at(L->root, path);
    char parent[256];
    snprintf(parent, sizeof parent, "%s", path);
    while (!at) {
        char *dot = strrchr(parent, '.');
        if (!dot) {
            at = L->root;
            break;
        }
        *dot = '\0';
        at = tree_at(L->root, parent);
    }
    struct strbuf sb;
    va_list ap;
    sb_init(&sb);
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    report(L, at, path, "%s", sb.buf);
    sb_deinit(&sb);
}

/* `got "..."` for the value at path, or the value in effect when absent. */
static void got_at(const struct loader *L, const char *path, const char *effective, char *buf,
                   size_t n)
{
    const struct ynode *v = tree_at(L->root, path);
    if (v) {
        describe(v, buf, n);
    } else {
        snprintf(buf, n, "\"%s\" (the default)", effective);
    }
}

/* The value at path a if given, else at path b (else the top mapping). */
static const struct ynode *value_or(const struct loader *L, const char *a, const char *b)
{
    const struct ynode *v = tree_at(L->root, a);
    if (!v)
        v = tree_at(L->root, b);
    return v ? v : L->root;
}

static void check_times(struct loader *L)
{
    struct scenario *s = L->s;
    char d[32], t[32], got[160];
    if (!good(L, &s->duration_ns))
        return;
    format_duration(s->duration_ns, d, sizeof d);
    if (good(L, &s->tick_ns)) {
        format_duration(s->tick_ns, t, sizeof t);
        got_at(L, "tick", t, got, sizeof got);
        if (s->tick_ns > s->duration_ns)
            report(L, value_or(L, "tick", "duration"), "tick",
                   "expected a tick > 0 and <= duration (%s), got %s", d, got);
        else if ((s->duration_ns - 1) / s->tick_ns + 1 > MAX_TICKS)
            report(L, value_or(L, "tick", "duration"), "tick",
                   "expected a tick of at least duration / %d (%s would have more ticks), "
                   "got %s", MAX_TICKS, d, got);
    }
    if (good(L, &s->warmup_ns) && s->warmup_ns >= s->duration_ns) {
        format_duration(s->warmup_ns, t, sizeof t);
        got_at(L, "warmup", t, got, sizeof got);
        report(L, value_or(L, "warmup", "duration"), "warmup",
               "expected a warmup >= 0 and < duration (%s), got %s", d, got);
    }
}

static void check_hot_keys_file(struct loader *L)
{
    const struct workload_cfg *w = &L->s->workload;
    double sum = 0;
    char path[64];
    if (!good(L, &w->hot_keys))
        return;
    for (size_t i = 0; i < w->n_hot_keys; i++) {
        if (!w->hot_keys[i].key)
            continue;
        sum += w->hot_keys[i].share;
        for (size_t j = 0; j < i; j++) {
            if (w->hot_keys[j].key && !strcmp(w->hot_keys[i].key, w->hot_keys[j].key)) {
                snprintf(path, sizeof path, "workload.hot_keys.%zu", j);
                const struct ynode *first = tree_at(L->root, path);
                snprintf(path, sizeof path, "workload.hot_keys.%zu.key", i);
                report_path(L, path, "duplicate hot key \"%s\" (first at line %d)",
                            w->hot_keys[i].key, first ? first->line : 0);
                break;
            }
        }
    }
    if (sum > 1 + SHARE_EPS) {
        char num[40];
        format_number(sum, num, sizeof num);
        report_path(L, "workload.hot_keys", "expected shares that sum to at most 1, got %s",
                    num);
    }
}

static void check_nodes(struct loader *L)
{
    struct scenario *s = L->s;
    char path[64];
    for (size_t i = 0; i < s->n_nodes; i++) {
        struct node_cfg *nd = &s->nodes[i];
        snprintf(path, sizeof path, "nodes.%zu", i);
        const struct ynode *map = tree_at(L->root, path);
        if (!map)
            continue;
        nd->pos = (struct src_pos){map->line, map->col, map->set};
        merge_cache(map, &nd->cache, &s->cache);
        if (!nd->id)
            continue;
        if (!nd->address)
            nd->address = xstrdup(nd->id);
        for (size_t j = 0; j < i; j++) {
            if (s->nodes[j].id && !strcmp(s->nodes[j].id, nd->id)) {
                snprintf(path, sizeof path, "nodes.%zu.id", i);
                report_path(L, path, "duplicate node id \"%s\" (first at line %d)", nd->id,
                            s->nodes[j].pos.line);
                break;
            }
            if (s->routing.node_key_address && s->nodes[j].address &&
                !strcmp(s->nodes[j].address, nd->address)) {
                snprintf(path, sizeof path, "nodes.%zu.address", i);
                report_path(L, path,
                            "address \"%s\" is also node %s's (with node_key: address, "
                            "addresses must be unique)", nd->address, s->nodes[j].id);
                break;
            }
        }
    }
}

/* The membership as events change it, for the cross-checks. */
struct member {
    const char *id, *address;
    double weight;
    bool live, crashed;
};

struct members {
    struct member *v;
    size_t n, cap;
    size_t live, max_live;
    double weight, max_weight;
};

static struct member *member_find(struct members *m, const char *id)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->v[i].id, id))
            return &m->v[i];
    return NULL;
}

static struct member *member_by_address(struct members *m, const char *addr, const char *not_id)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].live && strcmp(m->v[i].id, not_id) && !strcmp(m->v[i].address, addr))
            return &m->v[i];
    return NULL;
}

static void member_join(struct members *m, const char *id, const char *addr, double weight)
{
    struct member *x = member_find(m, id);
    if (!x) {
        if (m->n == m->cap) {
            m->cap = m->cap ? 2 * m->cap : 16;
            m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
        }
        x = &m->v[m->n++];
        x->id = id;
    }
    x->address = addr;
    x->weight = weight;
    x->live = true;
    x->crashed = false;
    m->live++;
    m->weight += weight;
    m->max_live = MAX(m->max_live, m->live);
    m->max_weight = MAX(m->max_weight, m->weight);
}

struct ev_ref {
    int64_t at;
    size_t idx; /* in file order */
};

static int ev_ref_cmp(const void *a, const void *b)
{
    const struct ev_ref *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool event_ok(const struct loader *L, const struct event_cfg *ev)
{
    return ev->kind != EV_KIND_COUNT && good(L, &ev->at_ns);
}

/* Walks the events in time order over the membership. */
static void check_membership(struct loader *L, const struct ev_ref *order, size_t n,
                             struct members *m)
{
    struct scenario *s = L->s;
    char path[96], t[32];
    for (size_t i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].id && !member_find(m, s->nodes[i].id))
            member_join(m, s->nodes[i].id, s->nodes[i].address, s->nodes[i].weight);

    for (size_t r = 0; r < n; r++) {
        size_t i = order[r].idx;
        struct event_cfg *ev = &s->events[i];
        const char *kname = event_kind_name(ev->kind);
        if (!ev->node || !good(L, &ev->node))
            continue;
        format_duration(ev->at_ns, t, sizeof t);
        snprintf(path, sizeof path, "events.%zu.%s.id", i, kname);
        struct member *x = member_find(m, ev->node);
        bool live = x && x->live;
        if (ev->kind == EV_ADD_NODE) {
            if (live) {
                report_path(L, path, "node \"%s\" is already in the cluster at %s", ev->node, t);
                continue;
            }
            struct member *other;
            if (s->routing.node_key_address && ev->address &&
                (other = member_by_address(m, ev->address, ev->node))) {
                snprintf(path, sizeof path, "events.%zu.add_node.address", i);
                report_path(L, path,
                            "address \"%s\" is node %s's at %s (with node_key: address, "
                            "addresses must be unique)", ev->address, other->id, t);
            }
            member_join(m, ev->node, ev->address, ev->weight);
            continue;
        }
        if (!live) {
            report_path(L, path, "node \"%s\" is not in the cluster at %s", ev->node, t);
            continue;
        }
        switch (ev->kind) {
        case EV_REMOVE_NODE:
            if (m->live == 1) {
                report_path(L, path, "removing node \"%s\" at %s would leave no nodes", ev->node, t);
                break;
            }
            x->live = false;
            m->live--;
            m->weight -= x->weight;
            break;
        case EV_CRASH_NODE:
            if (x->crashed)
                report_path(L, path, "node \"%s\" is already crashed at %s", ev->node, t);
            x->crashed = true;
            break;
        case EV_RESTART_NODE:
            if (!x->crashed)
                report_path(L, path, "node \"%s\" is not crashed at %s", ev->node, t);
            x->crashed = false;
            break;
        case EV_SET_ADDRESS: {
            struct member *other;
            if (s->routing.node_key_address && ev->address &&
                (other = member_by_address(m, ev->address, ev->node))) {
                snprintf(path, sizeof path, "events.%zu.set_address.address", i);
                report_path(L, path,
                            "address \"%s\" is node %s's at %s (with node_key: address, "
                            "addresses must be unique)", ev->address, other->id, t);
            }
            if (ev->address)
                x->address = ev->address;
            break;
        }
        default:
            break;
        }
    }
}

/* At every moment, the file's hot key shares with the active hot_key events
 * (the latest one for a key replaces its share) sum to at most 1. The sum
 * changes only when an event starts or ends, so those moments are checked:
 * O(H^2) for H hot_key events. */
static void check_hot_timeline(struct loader *L, const struct ev_ref *order, size_t n)
{
    struct scenario *s = L->s;
    const struct workload_cfg *w = &s->workload;
    size_t h = 0;
    double file_sum = 0;
    if (!good(L, &w->hot_keys))
        return;
    for (size_t i = 0; i < w->n_hot_keys; i++)
        if (w->hot_keys[i].key)
            file_sum += w->hot_keys[i].share;
    if (file_sum > 1 + SHARE_EPS)
        return; /* reported already */

    struct hot {
        size_t idx;
        int64_t start, end; /* end: INT64_MAX = to the end */
        size_t key_id;
        double share, file_share;
    } *hv = xcalloc(n ? n : 1, sizeof(*hv));
    for (size_t r = 0; r < n; r++) {
        const struct event_cfg *ev = &s->events[order[r].idx];
        if (ev->kind != EV_HOT_KEY || !ev->key || !good(L, &ev->share) || !good(L, &ev->for_ns))
            continue;
        struct hot *x = &hv[h];
        x->idx = order[r].idx;
        x->start = ev->at_ns;
        x->end = ev->for_ns && ev->for_ns <= INT64_MAX - ev->at_ns ? ev->at_ns + ev->for_ns
                                                                  : INT64_MAX;
        x->share = ev->share;
        x->key_id = h;
        for (size_t j = 0; j < h; j++)
            if (!strcmp(s->events[hv[j].idx].key, ev->key)) {
                x->key_id = hv[j].key_id;
                break;
            }
        for (size_t j = 0; j < w->n_hot_keys; j++)
            if (w->hot_keys[j].key && !strcmp(w->hot_keys[j].key, ev->key))
                x->file_share = w->hot_keys[j].share;
        h++;
    }
    size_t *winner = xcalloc(h ? h : 1, sizeof(*winner));
    for (size_t b = 0; b < 2 * h; b++) {
        int64_t t = b < h ? hv[b].start : hv[b - h].end;
        if (t == INT64_MAX)
            continue;
        for (size_t j = 0; j < h; j++)
            winner[j] = SIZE_MAX;
        size_t last = SIZE_MAX;
        for (size_t j = 0; j < h; j++) /* in time order: a later start replaces */
            if (hv[j].start <= t && t < hv[j].end) {
                winner[hv[j].key_id] = j;
                last = j;
            }
        double sum = file_sum;
        for (size_t j = 0; j < h; j++)
            if (winner[j] != SIZE_MAX)
                sum += hv[winner[j]].share - hv[winner[j]].file_share;
        if (sum > 1 + SHARE_EPS && last != SIZE_MAX) {
            char path[64], tt[32], num[40];
            snprintf(path, sizeof path, "events.%zu.hot_key.share", hv[last].idx);
            format_duration(t, tt, sizeof tt);
            format_number(sum, num, sizeof num);
            report_path(L, path,
                        "hot key shares (workload.hot_keys and active hot_key events) sum to %s "
                        "at %s, expected at most 1", num, tt);
            break;
        }
    }
    free(winner);
    free(hv);
}

static void check_events(struct loader *L, struct ev_ref *order, size_t *n_order)
{
    struct scenario *s = L->s;
    char path[96], d[32], got[160];
    size_t n = 0;

    format_duration(s->duration_ns, d, sizeof d);
    for (size_t i = 0; i < s->n_events; i++) {
        struct event_cfg *ev = &s->events[i];
        snprintf(path, sizeof path, "events.%zu", i);
        const struct ynode *map = tree_at(L->root, path);
        if (ev->kind == EV_ADD_NODE) {
            snprintf(path, sizeof path, "events.%zu.add_node", i);
            merge_cache(tree_at(L->root, path), &ev->cache, &s->cache);
            if (ev->node && !ev->address)
                ev->address = xstrdup(ev->node);
        }
        if (map)
            ev->pos = (struct src_pos){map->line, map->col, map->set};
        if (!event_ok(L, ev))
            continue;
        if (good(L, &s->duration_ns) && ev->at_ns > s->duration_ns) {
            snprintf(path, sizeof path, "events.%zu.at", i);
            got_at(L, path, "", got, sizeof got);
            report_path(L, path, "expected a time from 0 to duration (%s), got %s", d, got);
            continue;
        }
        if (ev->kind == EV_SPLIT_BRAIN && good(L, &ev->instances)) {
            for (size_t j = 0; j < ev->n_instances; j++) {
                snprintf(path, sizeof path, "events.%zu.split_brain.instances.%zu", i, j);
                if (good(L, &s->clients.instances) && ev->instances[j] >= s->clients.instances) {
                    got_at(L, path, "", got, sizeof got);
                    report_path(L, path,
                                "expected an instance number from 0 to %u (clients.instances "
                                "is %u), got %s", s->clients.instances - 1,
                                s->clients.instances, got);
                }
                for (size_t k = 0; k < j; k++)
                    if (ev->instances[k] == ev->instances[j]) {
                        report_path(L, path, "instance %u is listed twice", ev->instances[j]);
                        break;
                    }
            }
        }
        order[n++] = (struct ev_ref){ev->at_ns, i};
    }
    qsort(order, n, sizeof(*order), ev_ref_cmp);
    *n_order = n;
}

static void check_routing(struct loader *L, const struct members *m)
{
    struct scenario *s = L->s;
    const struct routing_cfg *r = &s->routing;
    char got[160];
    if (good(L, &r->table_size) && m->max_live > r->table_size) {
        got_at(L, "routing.table_size", "65537", got, sizeof got);
        report_path(L, "routing.table_size",
                    "expected a prime >= the most nodes in the cluster at once (%zu), got %s",
                    m->max_live, got);
    }
    if ((r->algorithm == PLACE_RING || r->algorithm == PLACE_BOUNDED) && good(L, &r->vnodes) &&
        (double)r->vnodes * m->max_weight > MAX_RING_POINTS) {
        report_path(L, "routing.vnodes",
                    "vnodes x total weight gives %.0f ring points, more than %d; lower vnodes "
                    "or the weights", (double)r->vnodes * m->max_weight, MAX_RING_POINTS);
    }
}

/* The gutter pool's nodes are named gutter-0, gutter-1, ...; no node may
 * take one of those names. */
static void check_gutter_names(struct loader *L)
{
    const struct scenario *s = L->s;
    char path[64];
    for (size_t i = 0; i < s->n_nodes + s->n_events; i++) {
        const char *id;
        if (i < s->n_nodes) {
            id = s->nodes[i].id;
            snprintf(path, sizeof path, "nodes.%zu.id", i);
        } else {
            const struct event_cfg *ev = &s->events[i - s->n_nodes];
            id = ev->kind == EV_ADD_NODE ? ev->node : NULL;
            snprintf(path, sizeof path, "events.%zu.add_node.id", i - s->n_nodes);
        }
        uint64_t g;
        char name[40];
        if (!id || strncmp(id, "gutter-", 7) || parse_u64(id + 7, &g))
            continue;
        snprintf(name, sizeof name, "gutter-%llu", (unsigned long long)g);
        if (!strcmp(name, id) && g < s->health.gutter_nodes)
            report_path(L, path, "\"%s\" is the name of a gutter node (health.gutter_nodes is "
                        "%u); choose another id", id, s->health.gutter_nodes);
    }
}

static void check_health(struct loader *L)
{
    const struct health_cfg *h = &L->s->health;
    if (h->on_eject == EJECT_GUTTER)
        check_gutter_names(L);
    if (h->on_eject == EJECT_GUTTER && h->gutter_nodes == 0 && good(L, &h->gutter_nodes) &&
        good(L, &h->on_eject)) {
        char got[160];
        got_at(L, "health.gutter_nodes", "0", got, sizeof got);
        const struct ynode *at = tree_at(L->root, "health.gutter_nodes");
        report(L, at ? at : tree_at(L->root, "health.on_eject"), "health.gutter_nodes",
               "expected at least 1 gutter node when on_eject is gutter, got %s", got);
    }
}

static char *default_name(const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    if (n > 5 && !strcmp(base + n - 5, ".yaml"))
        n -= 5;
    else if (n > 4 && !strcmp(base + n - 4, ".yml"))
        n -= 4;
    if (!n)
        return xstrdup("scenario");
    return xstrndup(base, n);
}

/* Cross-checks after binding, then puts the events in time order. */
static void finish(struct loader *L)
{
    struct scenario *s = L->s;
    struct members m = {0};
    size_t n_order = 0;

    if (!s->name)
        s->name = default_name(L->file);
    check_times(L);
    check_hot_keys_file(L);
    check_nodes(L);
    struct ev_ref *order = xcalloc(s->n_events ? s->n_events : 1, sizeof(*order));
    check_events(L, order, &n_order);
    check_membership(L, order, n_order, &m);
    check_hot_timeline(L, order, n_order);
    check_routing(L, &m);
    check_health(L);
    free(m.v);

    if (!L->n_errs && s->n_events) { /* every event is in `order` */
        struct event_cfg *sorted = xcalloc(s->n_events, sizeof(*sorted));
        for (size_t i = 0; i < n_order; i++)
            sorted[i] = s->events[order[i].idx];
        free(s->events);
        s->events = sorted;
    }
    free(order);
}

/* ---- --set ------------------------------------------------------------- */

static bool valid_utf8(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s, need;
        uint32_t cp;
        if (c < 0x80) {
            s++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            need = 1, cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2, cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3, cp = c & 0x07;
        } else {
            return false;
        }
        for (unsigned i = 1; i <= need; i++) {
            if ((s[i] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i] & 0x3f);
        }
        if ((need == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (need == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        s += need + 1;
    }
    return true;
}

int override_parse(const char *arg, struct override *o, struct diag *d)
{
    memset(o, 0, sizeof(*o));
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        diag_add(d, "--set %s: expected PATH=VALUE, such as routing.vnodes=160", arg);
        return -1;
    }
    bool ok = arg[0] != '.' && eq[-1] != '.';
    for (const char *p = arg; p < eq && ok; p++)
        ok = isalnum((unsigned char)*p) || *p == '_' || *p == '-' || (*p == '.' && p[1] != '.');
    if (!ok) {
        diag_add(d, "--set %s: expected a dotted path of keys and indices, such as "
                    "nodes.1.weight, before '='", arg);
        return -1;
    }
    if (!valid_utf8((const unsigned char *)eq + 1)) {
        diag_add(d, "--set %s: the value is not valid UTF-8", arg);
        return -1;
    }
    o->path = xstrndup(arg, (size_t)(eq - arg));
    o->value = xstrdup(eq + 1);
    o->arg = xstrdup(arg);
    return 0;
}

void override_deinit(struct override *o)
{
    free(o->path);
    free(o->value);
    free(o->arg);
    memset(o, 0, sizeof(*o));
}

/* Applies one --set to the tree: walks the path, creating mapping keys that
 * the file does not have (never sequence entries), and replaces the scalar
 * at its end. Whether the path names a key of the schema is left to binding,
 * which reports it against the --set argument. */
static void apply_override(struct loader *L, const struct override *o)
{
    struct ynode *cur = L->root;
    struct strbuf at;
    const char *p = o->path;
    char part[256];
    sb_init(&at);
    while (*p) {
        size_t n = strcspn(p, ".");
        bool last = !p[n];
        snprintf(part, sizeof part, "%.*s", (int)MIN(n, sizeof part - 1), p);
        p += n + !last;
        if (at.len)
            sb_putc(&at, '.');
        sb_puts(&at, part);
        if (ynode_is_null(cur) && cur != L->root) {
            if (isdigit((unsigned char)part[0])) {
                struct ynode tmp = {.set = o->arg};
                report(L, &tmp, at.buf, "no such entry (the sequence is empty)");
                goto out;
            }
            ynode_make_map(cur);
        }
        if (cur->type == YNODE_SEQ) {
            char *end;
            errno = 0;
            unsigned long i = strtoul(part, &end, 10);
            if (!isdigit((unsigned char)part[0]) || *end || errno || i >= cur->n) {
                struct ynode tmp = {.set = o->arg};
                char range[64];
                if (cur->n)
                    snprintf(range, sizeof range, "entries are numbered 0 to %zu", cur->n - 1);
                else
                    snprintf(range, sizeof range, "the sequence is empty");
                report(L, &tmp, at.buf, "no such entry (%s)", range);
                goto out;
            }
            cur = cur->kids[i];
        } else if (cur->type == YNODE_MAP) {
            struct ynode *v = ynode_map_get(cur, part);
            if (!v) {
                bool index_next = !last && isdigit((unsigned char)*p);
                if (index_next) {
                    struct ynode tmp = {.set = o->arg};
                    sb_printf(&at, ".%.*s", (int)strcspn(p, "."), p);
                    report(L, &tmp, at.buf, "no such entry (%s has no entries)", part);
                    goto out;
                }
                struct ynode *k = ynode_create_scalar(part, strlen(part), true, 0, 0);
                k->set = o->arg;
                v = last ? ynode_create_scalar("", 0, true, 0, 0) : ynode_create(YNODE_MAP, 0, 0);
                v->set = o->arg;
                ynode_append(cur, k);
                ynode_append(cur, v);
            }
            cur = v;
        } else {
            struct ynode tmp = {.set = o->arg};
            char got[128];
            describe(cur, got, sizeof got);
            at.len -= strlen(part) + 1;
            at.buf[at.len] = '\0';
            report(L, &tmp, at.buf, "has a single value (%s), so it has no key %s", got, part);
            goto out;
        }
    }
    if (cur->type != YNODE_SCALAR) {
        struct ynode tmp = {.set = o->arg};
        if (cur->type == YNODE_MAP)
            report(L, &tmp, at.buf, "--set changes single values, but this is a mapping; set "
                                    "one of its keys instead (such as %s.KEY=VALUE)", at.buf);
        else
            report(L, &tmp, at.buf, "--set changes single values, but this is a sequence; set "
                                    "one entry instead (such as %s.0=VALUE or %s.0.KEY=VALUE)",
                   at.buf, at.buf);
        goto out;
    }
    ynode_set_text(cur, o->value, true);
    cur->set = o->arg;
out:
    sb_deinit(&at);
}

/* ---- effective YAML ------------------------------------------------------ */

static void emit_section(struct yemitter *y, const struct section *sec, const void *obj,
                         const struct scenario *s);

static void emit_scalar_field(struct yemitter *y, const struct key *k, const void *field)
{
    char buf[512];
    if (k->type == KT_STRING || k->type == KT_ID) {
        const char *str = *(char *const *)field;
        yemit_scalar(y, str ? str : "", false);
        return;
    }
    format_field(k, field, buf, sizeof buf);
    yemit_scalar(y, buf, true);
}

/* The cache keys of a node (or add_node) that differ from the defaults. */
static void emit_cache_overrides(struct yemitter *y, const struct cache_cfg *c,
                                 const struct cache_cfg *def)
{
    for (size_t i = 0; i < cache_section.n_keys; i++) {
        const struct key *k = &cache_section.keys[i];
        const char *f = (const char *)c + k->offset, *g = (const char *)def + k->offset;
        if (!memcmp(f, g, k->size) || ((k->flags & K_OMIT_ZERO) && field_is_zero(k, f)))
            continue;
        yemit_scalar(y, k->name, true);
        emit_scalar_field(y, k, f);
    }
}

static void emit_event(struct yemitter *y, const struct event_cfg *ev, const struct scenario *s)
{
    const struct key *kk = event_kind_key(ev->kind);
    yemit_map_begin(y);
    yemit_scalar(y, "at", true);
    emit_scalar_field(y, &event_keys[0], &ev->at_ns);
    yemit_scalar(y, kk->name, true);
    if (kk->type == KT_MAP)
        emit_section(y, kk->sub, ev, s);
    else
        emit_scalar_field(y, kk, (const char *)ev + kk->offset);
    yemit_map_end(y);
}

static void emit_list(struct yemitter *y, const struct key *k, const void *obj,
                      const struct scenario *s)
{
    const char *arr = *(char *const *)((const char *)obj + k->offset);
    size_t n = *(const size_t *)((const char *)obj + k->count_offset);
    size_t elem = k->sub ? k->sub->size : k->item->size;
    yemit_seq_begin(y, !k->sub);
    for (size_t i = 0; i < n; i++) {
        const char *e = arr + i * elem;
        if (k->sub == &event_section)
            emit_event(y, (const struct event_cfg *)e, s);
        else if (k->sub)
            emit_section(y, k->sub, e, s);
        else
            emit_scalar_field(y, k->item, e + k->item->offset);
    }
    yemit_seq_end(y);
}

static void emit_section(struct yemitter *y, const struct section *sec, const void *obj,
                         const struct scenario *s)
{
    yemit_map_begin(y);
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        const char *field = (const char *)obj + k->offset;
        if ((k->flags & K_OMIT_ZERO) && field_is_zero(k, field))
            continue;
        yemit_scalar(y, k->name, true);
        if (k->type == KT_MAP)
            emit_section(y, k->sub, field, s);
        else if (k->type == KT_LIST)
            emit_list(y, k, obj, s);
        else
            emit_scalar_field(y, k, field);
    }
    if (sec->also)
        emit_cache_overrides(y, (const struct cache_cfg *)((const char *)obj + sec->also_offset),
                             &s->cache);
    yemit_map_end(y);
}

static int emit_scenario(struct scenario *s, char *problem, size_t n)
{
    struct strbuf sb;
    struct yemitter y;
    sb_init(&sb);
    yemit_begin(&y, &sb);
    emit_section(&y, &top_section, s, s);
    if (yemit_end(&y)) {
        snprintf(problem, n, "%s", y.problem);
        sb_deinit(&sb);
        return -1;
    }
    s->effective_yaml = sb_steal(&sb);
    return 0;
}

/* ---- loading ------------------------------------------------------------- */

static int err_cmp(const void *a, const void *b)
{
    const struct err *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct scenario *load(const char *file, const char *stored_path, const char *text,
                             size_t len, const struct override *sets, size_t n_sets,
                             struct diag *d)
{
    struct loader L = {.file = file};
    struct scenario *s = xcalloc(1, sizeof(*s));
    struct ytree_error ye;
    char got[128];

    L.s = s;
    sb_init(&L.path);
    s->path = xstrdup(stored_path);
    if (n_sets) {
        s->overrides = xcalloc(n_sets, sizeof(*s->overrides));
        for (size_t i = 0; i < n_sets; i++) {
            s->overrides[i].path = xstrdup(sets[i].path);
            s->overrides[i].value = xstrdup(sets[i].value);
            s->overrides[i].arg = xstrdup(sets[i].arg);
        }
        s->n_overrides = n_sets;
    }
    apply_defaults(&top_section, s);

    if (ytree_parse(text, len, &L.root, &ye)) {
        struct ynode at = {.line = ye.line, .col = ye.col};
        report(&L, &at, NULL, "%s", ye.msg);
        goto done;
    }
    if (!L.root || ynode_is_null(L.root)) {
        struct ynode at = {.line = L.root ? L.root->line : 1, .col = L.root ? L.root->col : 1};
        report(&L, &at, NULL, "the scenario is empty (expected a mapping with at least nodes:)");
        goto done;
    }
    if (L.root->type != YNODE_MAP) {
        describe(L.root, got, sizeof got);
        report(&L, L.root, NULL, "expected a mapping of scenario keys at the top level, got %s",
               got);
        goto done;
    }
    for (size_t i = 0; i < s->n_overrides; i++)
        apply_override(&L, &s->overrides[i]);
    bind_map(&L, &top_section, L.root, s);
    finish(&L);
    if (!L.n_errs) {
        char problem[160];
        if (emit_scenario(s, problem, sizeof problem)) {
            struct ynode at = {.line = 1, .col = 1};
            report(&L, &at, NULL, "cannot write the effective scenario: %s", problem);
        }
    }
done:
    if (L.n_errs)
        qsort(L.errs, L.n_errs, sizeof(*L.errs), err_cmp);
    for (size_t i = 0; i < L.n_errs; i++) {
        if (i < MAX_ERRORS)
            diag_add(d, "%s", L.errs[i].msg);
        free(L.errs[i].msg);
    }
    if (L.n_errs > MAX_ERRORS)
        diag_add(d, "%s: %zu more errors not shown", file, L.n_errs - MAX_ERRORS);
    free(L.errs);
    free(L.bad);
    sb_deinit(&L.path);
    ynode_destroy(L.root);
    if (L.n_errs) {
        scenario_destroy(s);
        return NULL;
    }
    return s;
}

struct scenario *scenario_load_string(const char *name, const char *text, size_t len,
                                      const struct override *sets, size_t n_sets,
                                      struct diag *d)
{
    return load(name, "<string>", text, len, sets, n_sets, d);
}

struct scenario *scenario_load(const char *path, const struct override *sets, size_t n_sets,
                               struct diag *d)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        diag_add(d, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (len == cap) {
            if (cap > MAX_FILE_BYTES) {
                diag_add(d, "%s: too large (a scenario is at most %u MiB)", path,
                         MAX_FILE_BYTES >> 20);
                goto fail;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            diag_add(d, "%s: cannot read: %s", path, strerror(errno));
            goto fail;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    struct scenario *s = load(path, path, buf, len, sets, n_sets, d);
    free(buf);
    return s;
fail:
    close(fd);
    free(buf);
    return NULL;
}

void scenario_destroy(struct scenario *s)
{
    if (!s)
        return;
    free(s->path);
    free(s->name);
    free(s->description);
    free(s->workload.key_format);
    for (size_t i = 0; i < s->workload.n_hot_keys; i++)
        free(s->workload.hot_keys[i].key);
    free(s->workload.hot_keys);
    free(s->routing.point_format);
    for (size_t i = 0; i < s->n_nodes; i++) {
        free(s->nodes[i].id);
        free(s->nodes[i].address);
    }
    free(s->nodes);
    for (size_t i = 0; i < s->n_events; i++) {
        free(s->events[i].node);
        free(s->events[i].address);
        free(s->events[i].instances);
        free(s->events[i].key);
    }
    free(s->events);
    for (size_t i = 0; i < s->n_overrides; i++)
        override_deinit(&s->overrides[i]);
    free(s->overrides);
    free(s->effective_yaml);
    free(s);
}

void scenario_place_params(const struct scenario *s, struct place_params *p)
{
    memset(p, 0, sizeof(*p));
    p->algo = s->routing.algorithm;
    p->hash = s->routing.hash;
    p->vnodes = s->routing.vnodes;
    p->point_format = s->routing.point_format;
    p->node_key_address = s->routing.node_key_address;
    p->load_factor = s->routing.load_factor;
    p->maglev_size = s->routing.table_size;
}

/* ---- the schema reference ----------------------------------------------- */

static void md_type(FILE *f, const struct key *k)
{
    struct strbuf sb;
    switch (k->type) {
    case KT_STRING: fputs("string", f); break;
    case KT_ID: fputs("node id", f); break;
    case KT_UINT: fputs("integer", f); break;
    case KT_NUMBER: fputs("number", f); break;
    case KT_DURATION: fputs("duration", f); break;
    case KT_SIZE: fputs("size", f); break;
    case KT_BOOL: fputs("boolean", f); break;
    case KT_MAP: fputs("mapping", f); break;
    case KT_LIST:
        fputs(k->sub ? "sequence of mappings" : "sequence of integers", f);
        break;
    case KT_ENUM:
        sb_init(&sb);
        names_list(k->names, ", ", "`", &sb);
        fprintf(f, "one of %s", sb.buf);
        sb_deinit(&sb);
        break;
    }
}

static void md_range(FILE *f, const struct key *k)
{
    char r[96];
    if (k->range_doc) {
        fputs(k->range_doc, f);
        return;
    }
    switch (k->type) {
    case KT_UINT:
    case KT_NUMBER:
    case KT_DURATION:
    case KT_SIZE:
        range_text(k, true, r, sizeof r);
        fputs(r, f);
        break;
    case KT_LIST:
        if (k->lo >= 1 && k->has_hi)
            fprintf(f, "%.0f to %.0f entries", k->lo, k->hi);
        else if (k->has_hi)
            fprintf(f, "at most %.0f entries", k->hi);
        break;
    case KT_STRING:
        if (k->flags & K_NONEMPTY)
            fputs("non-empty", f);
        break;
    case KT_ID:
        fputs("no whitespace or commas", f);
        break;
    default:
        break;
    }
}

static void md_section(FILE *f, const struct section *sec, const char *path)
{
    fprintf(f, "### %s%s%s\n\n%s\n\n", path[0] ? "`" : "", path[0] ? path : sec->title,
            path[0] ? "`" : "", sec->doc);
    fputs("| key | type | default | range | meaning |\n|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        fprintf(f, "| `%s` | ", k->name);
        md_type(f, k);
        fputs(" | ", f);
        if (k->def)
            fprintf(f, "`%s`", k->def[0] ? k->def : "\"\"");
        else if (k->flags & K_REQUIRED)
            fputs("required", f);
        else if (k->def_doc)
            fputs(k->def_doc, f);
        else if (k->type == KT_MAP)
            fputs("see below", f);
        else
            fputs("—", f);
        fputs(" | ", f);
        md_range(f, k);
        fprintf(f, " | %s |\n", k->doc);
    }
    if (sec->also)
        fprintf(f, "| any key of `%s` | | the `%s` value | | this node's own value |\n",
                sec->also->title, sec->also->title);
    fputs("\n", f);
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        char sub[128];
        if (!k->sub)
            continue;
        snprintf(sub, sizeof sub, "%s%s%s%s", path, path[0] ? "." : "", k->name,
                 k->type == KT_LIST ? ".N" : "");
        md_section(f, k->sub, sub);
    }
}

void scenario_schema_markdown(FILE *f)
{
    md_section(f, &top_section, "");
}
