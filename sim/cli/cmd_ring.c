/*
 * cmd_ring.c — `ringsim ring`: the static placement analysis from the
 * command line. Reads the flags, checks them by loading the scenario they
 * describe, runs ring_analyze() (models/placement/ring_analysis.c) and
 * prints an aligned table or one JSON object (ring_print.c).
 *
 *   flags --ring_scenario--> "--nodes" scenario (and "--to" scenario)
 *         --scenario_load_string (the loader `ringsim check` uses)--> params,
 *         members --ring_analyze--> result --ring_print_table | ring_print_json
 *                                              (sim/cli/ring_print.c)
 *
 * Every flag that is also a scenario key (FLAGS below: --algo, --hash,
 * --vnodes, --point-format, --node-key, --load-factor, --table-size, --keys,
 * and the nodes, addresses and weights of --nodes, --to and --weights)
 * becomes a --set of that key on a scenario whose nodes are the membership,
 * so ring refuses exactly what `ringsim run` cannot do, with the loader's
 * messages; each message names the flag it came from instead of the --set.
 * The memberships before and after are two scenarios (each must be one a run
 * could start with). Only the flag syntax (lists of ids, ID=WEIGHT, --start,
 * --count) is checked here.
 *
 * Without --to the "after" membership is the "before" one: the table shows
 * one column, and the JSON still has "after" (equal to "before"), "moved": 0
 * and "to": null, so scripts can read the same keys either way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/placement.h"
#include "models/placement/ring_analysis.h"
#include "sim/cli/cli.h"
#include "sim/cli/cmdline.h"
#include "sim/cli/ring_print.h"
#include "sim/scenario.h"
#include "sim/util.h"

#define RING_MAX_COUNT 1000000000ULL
#define RING_MAX_LOOKUPS 1000000   /* keys looked up by name, all sources together */

static const char usage_text[] =
    "usage: ringsim ring [--algo A] [--hash H] [--vnodes N] [--nodes A,B,C] [--to A,B,C,D]\n"
    "                    [--keys FORMAT] [--start N] [--count N] [--weights A=2,...]\n"
    "                    [--load-factor C] [--point-format F] [--node-key id|address]\n"
    "                    [--table-size M] [--key K]... [--keys-file FILE|-] [--json]\n"
    "\n"
    "Static placement analysis: places --count keys named by the printf pattern --keys\n"
    "on the membership --nodes and, with --to, on a second membership, then prints keys\n"
    "per node before and after, keys moved (to new nodes, from removed nodes, and between\n"
    "old nodes), max/avg and max/min load, the exact balance of the hash space, the\n"
    "theoretical spread of a node's share, and the points (table entries, slots) each node\n"
    "gets. With --key or --keys-file it also says where each of those keys lives: its\n"
    "position, its owner, and with --to its owner after the change. Placement never depends\n"
    "on a seed.\n"
    "\n"
    "  --algo A          mod|ring|ketama|jump|rendezvous|maglev|bounded|slots (default ring)\n"
    "  --hash H          sha256|md5|crc32|xxh64|murmur3|fnv1a (default sha256); the key hash\n"
    "                    (ketama cuts it to 32 bits; slots always uses CRC16 of the key)\n"
    "  --vnodes N        ring, bounded: points per unit of weight, 1..1000000 (default 160)\n"
    "  --nodes LIST      the membership, comma-separated ids (default A,B,C), at most 10000;\n"
    "                    an entry ID@ADDRESS also gives the address hashed with --node-key\n"
    "                    address\n"
    "  --to LIST         the membership after the change (default: no change); an\n"
    "                    entry without @ADDRESS keeps its address from --nodes\n"
    "  --keys FORMAT     key names, printf with exactly one integer conversion (%d %i %u\n"
    "                    %x %X; flags, width and precision up to 64 allowed, # only on %x\n"
    "                    %X, no length modifier; at most 200 characters; default key-%06d)\n"
    "  --start N         first key number (default 0)\n"
    "  --count N         number of keys, 1..1000000000 (default 100000)\n"
    "  --weights LIST    ID=W,... weights > 0 and <= 1000000 for nodes of --nodes or --to\n"
    "                    (default 1); ring and bounded give llround(vnodes x W) points (at\n"
    "                    least 1); mod, jump and slots ignore weights\n"
    "  --load-factor C   bounded: cap per node ceil(C x count / N), 1 < C <= 1000 (default\n"
    "                    1.25)\n"
    "  --point-format F  ring, bounded: name of point i, one %s then one %d (default %s#%d)\n"
    "  --node-key K      id|address: what names a node's points (default id; a node\n"
    "                    given no @ADDRESS has its id as address)\n"
    "  --table-size M    maglev: prime table size, at most 16777213 and at least the nodes\n"
    "                    (default 65537)\n"
    "  --key K           look up key K (repeatable): its position (slot, for slots), its\n"
    "                    owner, and with --to its owner after; K is taken as given, at most\n"
    "                    1024 bytes\n"
    "  --keys-file FILE  look up every line of FILE (- for standard input) as a key: any\n"
    "                    bytes but a newline (a carriage return is part of the key, an empty\n"
    "                    line is the empty key), at most 1024 bytes a line; with --key, at\n"
    "                    most 1000000 keys in all, in the order given; bounded: the owner is\n"
    "                    the key's ring owner before any cap\n"
    "  --json            print one JSON object instead of the table\n"
    "\n"
    "The flags are checked as a scenario is (`ringsim check`): each membership is the\n"
    "nodes of a scenario whose routing keys, workload.key_format and node weights are set\n"
    "from the flags, so ring accepts exactly what `ringsim run` can do (at most 10^7 ring\n"
    "points, a maglev table at least the nodes, at most 16384 nodes for slots, ...), and\n"
    "each message names its flag. Ids, addresses and patterns are UTF-8 text.\n"
    "\n"
    "JSON keys: algo, hash (\"crc16\" for slots, whatever --hash), vnodes (--vnodes for ring\n"
    "and bounded, 160 for ketama: its points per node; null for the others), point_format,\n"
    "node_key, keys, start, count, nodes, to (null without --to), weights, before, after\n"
    "(equal to before without --to), moved, moved_between_old, moved_to_new,\n"
    "moved_from_removed, moved_fraction, moved_ideal_fraction, max_over_avg_before/after,\n"
    "max_over_min_before/after (null if a node has no key), max_over_fair_before/after,\n"
    "space_before/after, space_max_over_avg_before/after, theory {before, after}; with\n"
    "--key or --keys-file, lookups: one {\"key\", \"position\", \"owner\", \"slot\" (null but for\n"
    "slots), \"owner_after\" (null without --to)} per key, in the order given. Counts and\n"
    "positions are exact integers; ratios and shares have 15 significant digits. Strings\n"
    "are UTF-8: non-ASCII text is written as it is, control characters as \\u00XX, and a\n"
    "byte that is not valid UTF-8 (which only a key looked up can hold) as \\ufffd, U+FFFD;\n"
    "such a key also has \"key_hex\", its exact bytes in hexadecimal. The table writes a\n"
    "key's control characters and bytes that are not UTF-8 as \\xNN, a backslash as \\\\, and\n"
    "the empty key as \"\".\n"
    "\n"
    "Examples:\n"
    "  ringsim ring --vnodes 512 --nodes A,B,C --to A,B,C,D\n"
    "      keys moved when a fourth node joins a 512-vnode sha256 ring (24729 of 100000)\n"
    "  ringsim ring --algo mod --nodes A,B,C --to A,B,C,D --json\n"
    "      the same change under hash % N, as JSON (75273 keys move)\n"
    "  ringsim ring --algo ketama --hash md5 --nodes s1,s2,s3 --to s1,s2\n"
    "      twemproxy-compatible ketama: only s3's keys move when it leaves\n"
    "  ringsim ring --vnodes 1000 --hash xxh64 --count 1000000 \\\n"
    "      --nodes n1,n2,n3,n4,n5,n6,n7,n8,n9,n10 --to n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11\n"
    "      a million keys on a 10-node ring growing to 11\n"
    "  ringsim ring --algo bounded --load-factor 1.1 --vnodes 64 --nodes A,B,C,D\n"
    "      bounded loads: no node above ceil(1.1 x count / 4) keys\n"
    "  ringsim ring --weights C=2 --nodes A,B,C --keys 'user:%x' --count 50000\n"
    "      a double-weight node, keys user:0 .. user:c34f\n"
    "  ringsim ring --vnodes 512 --nodes A,B,C --to A,B,C,D --key user:42 --key user:43\n"
    "      where user:42 and user:43 live, and where they go when D joins\n"
    "  grep -o 'user:[0-9]*' slow.log | sort -u | ringsim ring --algo slots \\\n"
    "      --nodes A,B,C --keys-file - --json\n"
    "      the slot and owner of every key in a log, as JSON\n"
    "\n"
    "Exit codes: 0 success; 1 stdout cannot be written; 2 bad usage (the message names\n"
    "the flag), or a --keys-file that does not exist or cannot be read.\n"
    "Conventions of every algorithm and hash: models/placement/README.md.\n";

/* The flags that take a value; `key` is the scenario key a flag sets, NULL
 * for the flags of ring alone. */
enum ring_flag { F_ALGO, F_HASH, F_VNODES, F_POINT_FORMAT, F_NODE_KEY, F_LOAD_FACTOR,
                 F_TABLE_SIZE, F_KEYS, F_NODES, F_TO, F_WEIGHTS, F_START, F_COUNT, F_KEY,
                 F_KEYS_FILE, F_N };

static const struct {
    const char *flag;
    const char *key;
} FLAGS[F_N] = {
    [F_ALGO] = {"--algo", "routing.algorithm"},
    [F_HASH] = {"--hash", "routing.hash"},
    [F_VNODES] = {"--vnodes", "routing.vnodes"},
    [F_POINT_FORMAT] = {"--point-format", "routing.point_format"},
    [F_NODE_KEY] = {"--node-key", "routing.node_key"},
    [F_LOAD_FACTOR] = {"--load-factor", "routing.load_factor"},
    [F_TABLE_SIZE] = {"--table-size", "routing.table_size"},
    [F_KEYS] = {"--keys", "workload.key_format"},
    [F_NODES] = {"--nodes", NULL},
    [F_TO] = {"--to", NULL},
    [F_WEIGHTS] = {"--weights", NULL},
    [F_START] = {"--start", NULL},
    [F_COUNT] = {"--count", NULL},
    [F_KEY] = {"--key", NULL},
    [F_KEYS_FILE] = {"--keys-file", NULL},
};

/* One entry of --nodes or --to: ID, or ID@ADDRESS. */
struct ring_entry {
    char *id;
    char *address;   /* NULL: none given (the scenario's default, the id) */
    const char *weight; /* in the --weights value, up to the next ',' (or NULL) */
};

/* One membership: the flag's entries, the scenario they make, its members. */
struct ring_membership {
    const char *flag;           /* "--nodes" or "--to" */
    struct ring_entry *entries;
    size_t n;
    struct scenario *sc;        /* loaded, or NULL */
    struct place_member *members; /* views of sc's nodes (strings owned by sc) */
};

/* The keys to look up (--key, --keys-file), in the order given: their
 * bytes one after the other in one buffer (each followed by a NUL), so a
 * million keys are one allocation that grows, not a million. */
struct lookup_keys {
    struct strbuf bytes;
    size_t *off, *len;
    size_t n, cap;
    struct ring_key *keys;      /* filled once every key is read */
};

/* One --key or --keys-file, in argument order. */
struct key_source {
    enum ring_flag flag;
    const char *value;
};

struct ring_opts {
    const char *value[F_N];     /* as given; NULL when not given (--key, --keys-file: the last) */
    struct key_source *sources; /* every --key and --keys-file */
    size_t n_sources;
    struct lookup_keys lookup;
    bool json;
    uint64_t start, count;
    struct ring_membership before, after;
    bool has_to;
    /* after the scenarios are loaded: what the analysis and the printers use
     * (strings owned by the scenarios) */
    struct ring_report report;
};

static int usage_error(const char *fmt, ...) PRINTF_LIKE(1, 2);

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("ringsim ring: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(see 'ringsim ring --help')\n", stderr);
    return EXIT_USAGE;
}

/* ---- flag syntax ----------------------------------------------------------- */

static void side_deinit(struct ring_membership *s)
{
    for (size_t i = 0; s->entries && i < s->n; i++) {
        free(s->entries[i].id);
        free(s->entries[i].address);
    }
    free(s->entries);
    free(s->members);
    scenario_destroy(s->sc);
    memset(s, 0, sizeof *s);
}

static int str_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first id that appears twice, or NULL. O(n log n). */
static const char *repeated_id(const struct ring_entry *e, size_t n)
{
    const char **ids = xmalloc((n ? n : 1) * sizeof *ids);
    const char *dup = NULL;
    for (size_t i = 0; i < n; i++)
        ids[i] = e[i].id;
    qsort(ids, n, sizeof *ids, str_ptr_cmp);
    for (size_t i = 1; i < n && !dup; i++)
        if (strcmp(ids[i - 1], ids[i]) == 0)
            dup = ids[i];
    free(ids);
    return dup;
}

/* Splits "A,B@addr,C" into side->entries. Returns 0 or EXIT_USAGE. What an
 * id or address may be is the loader's to say. */
static int parse_nodes(const char *flag, const char *list, struct ring_membership *side)
{
    side->flag = flag;
    if (!*list)
        return usage_error("%s: expected a comma-separated list of node ids, got an empty "
                           "string",
                           flag);
    size_t n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    side->entries = xcalloc(n, sizeof *side->entries);
    const char *p = list;
    for (size_t i = 0; i < n; i++, side->n++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *at = memchr(p, '@', len);
        size_t id_len = at ? (size_t)(at - p) : len;
        if (id_len == 0)
            return usage_error("%s: entry %zu is empty; expected a node id (as in A,B,C)", flag,
                               i + 1);
        if (at && (size_t)(at - p) + 1 == len)
            return usage_error("%s: entry %zu has an empty address after '@'", flag, i + 1);
        side->entries[i].id = xstrndup(p, id_len);
        side->entries[i].address = at ? xstrndup(at + 1, len - id_len - 1) : NULL;
        p = end ? end + 1 : p + len;
    }
    const char *dup = repeated_id(side->entries, side->n);
    if (dup)
        return usage_error("%s: node \"%s\" appears twice", flag, dup);
    return 0;
}

static int entry_id_cmp(const void *a, const void *b)
{
    return strcmp(((const struct ring_entry *const *)a)[0]->id,
                  ((const struct ring_entry *const *)b)[0]->id);
}

/* An entry of --to without @ADDRESS keeps the address its id has in --nodes,
 * as a node of a run keeps its address across membership changes (only
 * set_address changes it): `--nodes A@h1,B@h2 --to A,B,C@h3` adds C and
 * moves nothing else. O((n + m) log n). */
static void inherit_addresses(const struct ring_membership *before, struct ring_membership *after)
{
    const struct ring_entry **by_id = xmalloc((before->n ? before->n : 1) * sizeof *by_id);
    for (size_t i = 0; i < before->n; i++)
        by_id[i] = &before->entries[i];
    qsort(by_id, before->n, sizeof *by_id, entry_id_cmp);
    for (size_t i = 0; i < after->n; i++) {
        struct ring_entry *e = &after->entries[i];
        const struct ring_entry *const key = e, **hit;
        if (e->address)
            continue;
        hit = bsearch(&key, by_id, before->n, sizeof *by_id, entry_id_cmp);
        if (hit && (*hit)->address)
            e->address = xstrdup((*hit)->address);
    }
    free(by_id);
}

/* Gives the entries of both memberships their weight text from "A=2,B=0.5"
 * (the number itself is checked by the loader). Returns 0 or EXIT_USAGE. */
static int parse_weights(const char *list, struct ring_opts *o)
{
    if (!*list)
        return usage_error("--weights: expected ID=WEIGHT,... (e.g. A=2,B=0.5), got an empty "
                           "string");
    const char *p = list;
    size_t entries = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (!len) { /* ",," or a trailing comma: nothing to set */
            p++;
            continue;
        }
        const char *eq = NULL; /* the last '=': an id may hold one, a weight never */
        for (size_t k = len; k-- > 0 && !eq;)
            if (p[k] == '=')
                eq = p + k;
        entries++;
        if (!eq || eq == p)
            return usage_error("--weights: entry \"%.*s\" is not ID=WEIGHT (e.g. A=2)",
                               (int)len, p);
        size_t id_len = (size_t)(eq - p);
        bool found = false;
        struct ring_membership *sides[] = {&o->before, &o->after};
        for (size_t s = 0; s < ARRAY_LEN(sides); s++)
            for (size_t i = 0; i < sides[s]->n; i++) {
                struct ring_entry *e = &sides[s]->entries[i];
                if (strlen(e->id) == id_len && !memcmp(e->id, p, id_len)) {
                    if (e->weight)
                        return usage_error("--weights: node \"%.*s\" is given twice",
                                           (int)id_len, p);
                    e->weight = eq + 1; /* up to the next ',' (see ring_scenario) */
                    found = true;
                }
            }
        if (!found)
            return usage_error("--weights: node \"%.*s\" is not in --nodes or --to", (int)id_len,
                               p);
        p += len + (p[len] == ',');
    }
    if (!entries)
        return usage_error("--weights: expected ID=WEIGHT,... (e.g. A=2,B=0.5)");
    return 0;
}

/* ---- the scenario the flags describe ------------------------------------------ */

/* The --set arguments a membership stands for, and the text they apply to:
 * one empty entry per node, which the overrides fill in. */
struct ring_sets {
    struct override *o;
    size_t n, cap;
    struct override failed;     /* the one override_parse refused (path and arg only) */
    struct strbuf text;
};

static int add_set(struct ring_sets *rs, struct diag *d, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int add_set(struct ring_sets *rs, struct diag *d, const char *fmt, ...)
{
    struct strbuf arg;
    va_list ap;
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 16;
        rs->o = xrealloc(rs->o, rs->cap * sizeof *rs->o);
    }
    sb_init(&arg);
    va_start(ap, fmt);
    sb_vprintf(&arg, fmt, ap);
    va_end(ap);
    int rc = override_parse(arg.buf, &rs->o[rs->n], d);
    if (rc == 0) {
        rs->n++;
    } else { /* keep it to name its flag: the path is ours, the value is not UTF-8 */
        rs->failed.path = xstrndup(arg.buf, strcspn(arg.buf, "="));
        rs->failed.arg = sb_steal(&arg);
    }
    sb_deinit(&arg);
    return rc;
}

static void ring_sets_deinit(struct ring_sets *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        override_deinit(&rs->o[i]);
    free(rs->o);
    override_deinit(&rs->failed);
    sb_deinit(&rs->text);
}

/* The scenario of one membership: the flags' routing keys and key format,
 * and the side's nodes with their addresses and weights. Returns 0, or -1
 * with the messages in d (a value that is not UTF-8). */
static int ring_scenario(const struct ring_opts *o, const struct ring_membership *side,
                         struct ring_sets *rs, struct diag *d)
{
    int rc = 0;
    sb_init(&rs->text);
    sb_puts(&rs->text, "name: ring\nnodes:\n");
    for (enum ring_flag f = 0; f < F_N && !rc; f++)
        if (FLAGS[f].key && o->value[f])
            rc = add_set(rs, d, "%s=%s", FLAGS[f].key, o->value[f]);
    for (size_t i = 0; i < side->n && !rc; i++) {
        const struct ring_entry *e = &side->entries[i];
        sb_puts(&rs->text, "  - {}\n");
        rc = add_set(rs, d, "nodes.%zu.id=%s", i, e->id);
        if (!rc && e->address)
            rc = add_set(rs, d, "nodes.%zu.address=%s", i, e->address);
        if (!rc && e->weight)
            rc = add_set(rs, d, "nodes.%zu.weight=%.*s", i, (int)strcspn(e->weight, ","),
                         e->weight);
    }
    return rc;
}

/* ---- the loader's messages, by flag --------------------------------------------- */

/* The flag behind a scenario path, in `label`: a routing key or the key
 * format is its flag (on the --to side, where only the membership can be at
 * fault, --to); a node's weight is "--weights: ID", its address "SIDE: ID",
 * its id "SIDE: entry K"; the rest (the nodes as a whole) is the side's flag. */
static void path_label(const struct ring_membership *side, bool after, const char *path, size_t len,
                       char *label, size_t n)
{
    for (enum ring_flag f = 0; f < F_N; f++) {
        if (FLAGS[f].key && strlen(FLAGS[f].key) == len && !memcmp(FLAGS[f].key, path, len)) {
            snprintf(label, n, "%s", after && f != F_KEYS ? side->flag : FLAGS[f].flag);
            return;
        }
    }
    if (!strncmp(path, "nodes.", 6) && path[6] >= '0' && path[6] <= '9') {
        char *end;
        unsigned long k = strtoul(path + 6, &end, 10);
        size_t rest = len - (size_t)(end - path);
        if (k < side->n && rest == 7 && !memcmp(end, ".weight", 7)) {
            snprintf(label, n, "--weights: %s", side->entries[k].id);
            return;
        }
        if (k < side->n && rest == 8 && !memcmp(end, ".address", 8)) {
            snprintf(label, n, "%s: %s", side->flag, side->entries[k].id);
            return;
        }
        if (k < side->n && rest == 3 && !memcmp(end, ".id", 3)) {
            snprintf(label, n, "%s: entry %lu", side->flag, k + 1);
            return;
        }
    }
    snprintf(label, n, "%s", side->flag);
}

/* Length of the dotted path a message starts with ("routing.vnodes: ..."), or 0. */
static size_t path_prefix(const char *msg)
{
    size_t len = strspn(msg, "abcdefghijklmnopqrstuvwxyz0123456789_.");
    return len && !strncmp(msg + len, ": ", 2) ? len : 0;
}

/* Prints one message of the loader as a ring message: where it came from
 * ("--set ARG: " or "--nodes:LINE:COL: ") and its path are replaced by the
 * flag behind them. */
static void print_loader_message(const char *msg, const struct ring_membership *side, bool after,
                                 const struct ring_sets *rs)
{
    const char *body = msg, *path = NULL;
    size_t plen = 0, flen = strlen(side->flag);
    for (size_t i = 0; i <= rs->n && body == msg; i++) {
        const struct override *o = i < rs->n ? &rs->o[i] : &rs->failed;
        size_t alen = o->arg ? strlen(o->arg) : 0;
        if (o->arg && !strncmp(msg, "--set ", 6) && !strncmp(msg + 6, o->arg, alen) &&
            !strncmp(msg + 6 + alen, ": ", 2)) {
            body = msg + 6 + alen + 2;
            path = o->path; /* for a message without a path of its own */
            plen = strlen(path);
        }
    }
    if (body == msg && !strncmp(msg, side->flag, flen) && msg[flen] == ':') {
        body = msg + flen + 1 + strspn(msg + flen + 1, "0123456789:");
        body += *body == ' ';
    }
    size_t own = path_prefix(body);
    if (own) {
        path = body;
        plen = own;
        body += own + 2;
    }
    char label[160];
    if (path)
        path_label(side, after, path, plen, label, sizeof label);
    else
        snprintf(label, sizeof label, "%s", side->flag);
    fprintf(stderr, "ringsim ring: %s: %s\n", label, body);
}

/* Loads the scenario of one membership. Returns 0, or EXIT_USAGE after
 * printing the loader's messages as ring messages. */
static int load_side(const struct ring_opts *o, struct ring_membership *side, bool after)
{
    struct ring_sets rs = {0};
    struct diag d;
    diag_init(&d);
    if (ring_scenario(o, side, &rs, &d) == 0)
        side->sc = scenario_load_string(side->flag, rs.text.buf, rs.text.len, rs.o, rs.n, &d);
    for (size_t i = 0; !side->sc && i < d.n; i++)
        print_loader_message(d.msgs[i], side, after, &rs);
    if (!side->sc)
        fputs("(see 'ringsim ring --help')\n", stderr);
    diag_deinit(&d);
    ring_sets_deinit(&rs);
    if (!side->sc)
        return EXIT_USAGE;
    const struct scenario *s = side->sc;
    side->members = xcalloc(s->n_nodes, sizeof *side->members);
    for (size_t i = 0; i < s->n_nodes; i++)
        side->members[i] = (struct place_member){s->nodes[i].id, s->nodes[i].address,
                                                 s->nodes[i].weight, (uint32_t)i};
    return 0;
}

/* ---- keys to look up -------------------------------------------------------- */

static void lookup_keys_deinit(struct lookup_keys *k)
{
    if (k->bytes.buf)
        sb_deinit(&k->bytes);
    free(k->off);
    free(k->len);
    free(k->keys);
    memset(k, 0, sizeof *k);
}

/* Adds one key; EXIT_USAGE past RING_MAX_LOOKUPS (where names the source). */
static int add_key(struct lookup_keys *k, const char *bytes, size_t len, const char *where)
{
    if (k->n == RING_MAX_LOOKUPS)
        return usage_error("%s: more than %d keys to look up (--key and --keys-file together); "
                           "look up at most %d at a time",
                           where, RING_MAX_LOOKUPS, RING_MAX_LOOKUPS);
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 64;
        k->off = xrealloc(k->off, k->cap * sizeof *k->off);
        k->len = xrealloc(k->len, k->cap * sizeof *k->len);
    }
    k->off[k->n] = k->bytes.len;
    k->len[k->n++] = len;
    sb_add(&k->bytes, bytes, len);
    sb_putc(&k->bytes, '\0');
    return 0;
}

/* Reads one key per line from name ("-": standard input): a line is every
 * byte up to a newline, NUL bytes and carriage returns included; a last line
 * without its newline is a key too, an empty line is the empty key. Lines
 * are bounded (KEY_MAX_BYTES), so reading stops on a file with no newlines.
 * Returns 0 or EXIT_USAGE. */
static int read_keys_file(const char *name, struct lookup_keys *k)
{
    bool is_stdin = !strcmp(name, "-");
    FILE *f = is_stdin ? stdin : fopen(name, "rb");
    char where[256], key[KEY_MAX_BYTES];
    size_t len = 0, line = 1;
    bool pending = false;
    int c, rc = 0;
    if (!f)
        return usage_error("--keys-file %s: cannot read: %s", name, strerror(errno));
    while (rc == 0 && (c = getc_unlocked(f)) != EOF) {
        if (c == '\n') {
            snprintf(where, sizeof where, "--keys-file %s:%zu", name, line);
            rc = add_key(k, key, len, where);
            len = 0;
            line++;
            pending = false;
        } else if (len == sizeof key) {
            rc = usage_error("--keys-file %s:%zu: a key of more than %d bytes (one key per "
                             "line, at most %d bytes each)",
                             name, line, KEY_MAX_BYTES, KEY_MAX_BYTES);
        } else {
            key[len++] = (char)c;
            pending = true;
        }
    }
    if (rc == 0 && ferror(f))
        rc = usage_error("--keys-file %s: cannot read: %s", name, strerror(errno));
    if (rc == 0 && pending) {
        snprintf(where, sizeof where, "--keys-file %s:%zu", name, line);
        rc = add_key(k, key, len, where);
    }
    if (!is_stdin)
        fclose(f);
    return rc;
}

/* Every --key and --keys-file, in the order given. Returns 0 or EXIT_USAGE. */
static int read_lookup_keys(struct ring_opts *o)
{
    struct lookup_keys *k = &o->lookup;
    bool stdin_read = false;
    int rc = 0;
    sb_init(&k->bytes);
    for (size_t i = 0; i < o->n_sources && rc == 0; i++) {
        const struct key_source *src = &o->sources[i];
        if (src->flag == F_KEY) {
            size_t len = strlen(src->value);
            if (len > KEY_MAX_BYTES)
                return usage_error("--key: a key of %zu bytes, more than the %d a key may have",
                                   len, KEY_MAX_BYTES);
            rc = add_key(k, src->value, len, "--key");
            continue;
        }
        if (!strcmp(src->value, "-")) {
            if (stdin_read)
                return usage_error("--keys-file -: standard input can be read only once");
            stdin_read = true;
        }
        rc = read_keys_file(src->value, k);
    }
    if (rc == 0 && k->n) {
        k->keys = xcalloc(k->n, sizeof *k->keys);
        for (size_t i = 0; i < k->n; i++)
            k->keys[i] = (struct ring_key){k->bytes.buf + k->off[i], k->len[i]};
    }
    return rc;
}

/* ---- arguments ------------------------------------------------------------ */

static void notes(const struct ring_opts *o)
{
    place_algo a = o->report.params.algo;
    const char *name = place_algo_name(a);
    if (o->value[F_VNODES] && !ring_uses_vnodes(a))
        fprintf(stderr, "ringsim ring: note: --vnodes is ignored by %s\n", name);
    if (o->value[F_POINT_FORMAT] && !ring_uses_vnodes(a))
        fprintf(stderr, "ringsim ring: note: --point-format is ignored by %s\n", name);
    if (o->value[F_HASH] && a == PLACE_SLOTS)
        fprintf(stderr, "ringsim ring: note: --hash is ignored by slots (CRC16 of the key)\n");
    if (o->value[F_WEIGHTS] && !place_algo_uses_weights(a))
        fprintf(stderr, "ringsim ring: note: --weights is ignored by %s\n", name);
    if (o->value[F_LOAD_FACTOR] && a != PLACE_BOUNDED)
        fprintf(stderr, "ringsim ring: note: --load-factor is ignored by %s\n", name);
    if (o->value[F_TABLE_SIZE] && a != PLACE_MAGLEV)
        fprintf(stderr, "ringsim ring: note: --table-size is ignored by %s\n", name);
}

/* --start and --count: the keys analysed (ring's own flags). */
static int parse_key_range(struct ring_opts *o)
{
    uint64_t u;
    const char *v = o->value[F_START];
    if (v && (parse_u64(v, &u) != 0 || u > (uint64_t)INT64_MAX - RING_MAX_COUNT))
        return usage_error("--start: expected an integer from 0 to %llu, got \"%s\"",
                           (unsigned long long)((uint64_t)INT64_MAX - RING_MAX_COUNT), v);
    o->start = v ? u : 0;
    v = o->value[F_COUNT];
    if (v && (parse_u64(v, &u) != 0 || u < 1 || u > RING_MAX_COUNT))
        return usage_error("--count: expected an integer from 1 to %llu, got \"%s\"",
                           RING_MAX_COUNT, v);
    o->count = v ? u : 100000;
    return 0;
}

/* The flag an argument of a well-formed command line starts (F_N for
 * --json, --help, or a value), and whether its value is the next argument. */
static enum ring_flag flag_at(const char *arg, bool *next)
{
    *next = false;
    if (strncmp(arg, "--", 2) != 0 || !strcmp(arg, "--json") || !strcmp(arg, "--help"))
        return F_N;
    const char *eq = strchr(arg, '=');
    size_t flen = eq ? (size_t)(eq - arg) : strlen(arg);
    for (enum ring_flag f = 0; f < F_N; f++)
        if (strlen(FLAGS[f].flag) == flen && !strncmp(arg, FLAGS[f].flag, flen)) {
            *next = !eq;
            return f;
        }
    return F_N;
}

static bool is_option(const char *arg)
{
    bool next;
    return flag_at(arg, &next) != F_N || !strcmp(arg, "--json") || !strcmp(arg, "--help");
}

/* Reads argv into o->value (the last of a repeated flag wins); --help sets
 * *help. Returns 0 or EXIT_USAGE. */
static int read_flags(int argc, char **argv, struct ring_opts *o, bool *help)
{
    *help = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        const char *flag = long_option_value(arg, (const char *const[]){"--help", "--json", NULL}, &v);
        if (flag)
            return usage_error("%s takes no value, got %s; write %s alone", flag, arg, flag);
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = true;
            return 0;
        }
        if (strcmp(arg, "--json") == 0) {
            o->json = true;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0)
            return usage_error("unexpected argument '%s' (all options are --flags)", arg);
        const char *eq = strchr(arg, '=');
        size_t flen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (flen >= 64)
            return usage_error("unknown option '%.40s...'", arg);
        bool next;
        enum ring_flag f = flag_at(arg, &next);
        if (f == F_N)
            return usage_error("unknown option '%.*s'", (int)flen, arg);
        if (eq) {
            o->value[f] = eq + 1;
        } else if (i + 1 < argc) {
            /* a flag where the value should be: the value is missing (a key
             * to look up may be anything, "--json" too) */
            if (f != F_KEY && is_option(argv[i + 1]))
                return usage_error("%s needs a value, got the option %s", FLAGS[f].flag,
                                   argv[i + 1]);
            o->value[f] = argv[++i];
        } else {
            return usage_error("%s needs a value", FLAGS[f].flag);
        }
        if (f == F_KEYS_FILE && !*o->value[f])
            return usage_error("--keys-file needs a value (a file, or - for standard input), "
                               "got \"\"");
        if (f == F_KEY || f == F_KEYS_FILE) {
            if (!o->sources)
                o->sources = xcalloc((size_t)argc, sizeof *o->sources);
            o->sources[o->n_sources++] = (struct key_source){f, o->value[f]};
        }
    }
    return 0;
}

/* The flags' syntax: known flags with values, the lists, the key range. */
static int parse_args(int argc, char **argv, struct ring_opts *o, bool *help)
{
    int rc = read_flags(argc, argv, o, help);
    if (rc || *help)
        return rc;
    if ((rc = parse_key_range(o)) != 0)
        return rc;
    rc = parse_nodes("--nodes", o->value[F_NODES] ? o->value[F_NODES] : "A,B,C", &o->before);
    if (rc)
        return rc;
    o->after.flag = "--to";
    if (o->value[F_TO]) {
        if ((rc = parse_nodes("--to", o->value[F_TO], &o->after)) != 0)
            return rc;
        inherit_addresses(&o->before, &o->after);
        o->has_to = true;
    }
    if (o->value[F_WEIGHTS])
        rc = parse_weights(o->value[F_WEIGHTS], o);
    return rc;
}

/* Runs the analysis on the loaded memberships and prints it. */
static int analyze_and_print(const struct ring_opts *o)
{
    const struct ring_report *rp = &o->report;
    struct ring_input in = {
        .params = rp->params,
        .before = rp->mb,
        .n_before = rp->n_before,
        .after = rp->has_to ? rp->ma : NULL,
        .n_after = rp->n_after,
        .key_format = rp->keys,
        .key_start = rp->start,
        .key_count = rp->count,
        .lookup = o->lookup.keys,
        .n_lookup = o->lookup.n,
    };
    struct ring_result r;
    char err[512];
    if (ring_analyze(&in, &r, err, sizeof err) != 0) {
        /* the loader checked what the analysis needs; name the flag anyway */
        if (strncmp(err, "before: ", 8) == 0)
            return usage_error("--nodes: %s", err + 8);
        if (strncmp(err, "after: ", 7) == 0)
            return usage_error("--to: %s", err + 7);
        return usage_error("%s", err);
    }
    if (o->json)
        ring_print_json(rp, &r, o->lookup.keys);
    else
        ring_print_table(rp, &r, o->lookup.keys);
    ring_result_deinit(&r);
    if (fflush(stdout) != 0) {
        perror("ringsim ring: stdout");
        return EXIT_RUN_FAILED;
    }
    return 0;
}

/* Every value given is checked, as run's and sweep's: a flag given twice
 * keeps its later value, but an earlier bad one is bad usage too. Each
 * replaced value is checked on the command line without the values that
 * replace it (the memberships loaded as for the analysis); its errors are
 * printed as such. Called once the command line as a whole is valid.
 * O(replaced values x a load). */
static int check_replaced(int argc, char **argv)
{
    char **av = xcalloc((size_t)argc + 1, sizeof *av);
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        bool next;
        enum ring_flag f = flag_at(argv[i], &next);
        int first = i;
        if (next)
            i++; /* its value */
        if (f == F_N || f == F_KEY || f == F_KEYS_FILE)
            continue;
        bool replaced = false;
        for (int j = i + 1; j < argc && !replaced; j++) {
            bool nj;
            replaced = flag_at(argv[j], &nj) == f;
            j += nj;
        }
        if (!replaced)
            continue;
        int n = 0;
        av[n++] = argv[0];
        for (int j = 1; j < argc; j++) {
            bool nj;
            enum ring_flag g = flag_at(argv[j], &nj);
            bool drop = g == f && j > first; /* a later value of the flag */
            if (!drop)
                av[n++] = argv[j];
            if (nj && j + 1 < argc) { /* the flag's value goes with it */
                j++;
                if (!drop)
                    av[n++] = argv[j];
            }
        }
        av[n] = NULL;
        struct ring_opts o;
        bool help;
        memset(&o, 0, sizeof o);
        rc = parse_args(n, av, &o, &help);
        if (rc == 0)
            rc = load_side(&o, &o.before, false);
        if (rc == 0 && o.has_to)
            rc = load_side(&o, &o.after, true);
        if (rc)
            fprintf(stderr, "ringsim ring: (the value %s%s%s given above is replaced by a later "
                            "%s, but every value given must be valid)\n",
                    argv[first], next ? " " : "", next ? argv[first + 1] : "", FLAGS[f].flag);
        side_deinit(&o.before);
        side_deinit(&o.after);
        free(o.sources);
    }
    free(av);
    return rc;
}

int cmd_ring(int argc, char **argv)
{
    struct ring_opts o;
    bool help;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o, &help);
    if (rc == 0 && help) {
        fputs(usage_text, stdout);
        goto out;
    }
    if (rc == 0)
        rc = check_replaced(argc, argv);
    if (rc == 0)
        rc = load_side(&o, &o.before, false);
    if (rc == 0 && o.has_to)
        rc = load_side(&o, &o.after, true);
    if (rc == 0)
        rc = read_lookup_keys(&o);
    if (rc == 0) {
        struct ring_report *rp = &o.report;
        scenario_place_params(o.before.sc, &rp->params);
        rp->keys = o.before.sc->workload.key_format;
        rp->start = o.start;
        rp->count = o.count;
        rp->mb = o.before.members;
        rp->n_before = o.before.sc->n_nodes;
        rp->has_to = o.has_to;
        rp->ma = o.has_to ? o.after.members : NULL;
        rp->n_after = o.has_to ? o.after.sc->n_nodes : 0;
        rp->lookups = o.n_sources > 0;
        notes(&o);
        rc = analyze_and_print(&o);
    }
out:
    side_deinit(&o.before);
    side_deinit(&o.after);
    lookup_keys_deinit(&o.lookup);
    free(o.sources);
    return rc;
}
