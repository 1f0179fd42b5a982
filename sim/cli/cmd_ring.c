/*
 * cmd_ring.c — `ringsim ring`: the static placement analysis from the
 * command line. Parses and validates the flags (every error names its flag
 * and exits 2), runs ring_analyze() (models/placement/ring_analysis.c) and prints an
 * aligned table or one JSON object.
 *
 * Without --to the "after" membership is the "before" one: the table shows
 * one column, and the JSON still has "after" (equal to "before"), "moved": 0
 * and "to": null, so scripts can read the same keys either way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/placement.h"
#include "models/placement/ring_analysis.h"
#include "sim/cli/cli.h"
#include "sim/util.h"

#define RING_MAX_COUNT 1000000000ULL
#define RING_MAX_NODES 100000

static const char usage_text[] =
    "usage: ringsim ring [--algo A] [--hash H] [--vnodes N] [--nodes A,B,C] [--to A,B,C,D]\n"
    "                    [--keys FORMAT] [--start N] [--count N] [--weights A=2,...]\n"
    "                    [--load-factor C] [--point-format F] [--node-key id|address]\n"
    "                    [--table-size M] [--json]\n"
    "\n"
    "Static placement analysis: places --count keys named by the printf pattern --keys\n"
    "on the membership --nodes and, with --to, on a second membership, then prints keys\n"
    "per node before and after, keys moved (to new nodes, from removed nodes, and between\n"
    "old nodes), max/avg and max/min load, the exact balance of the hash space, and the\n"
    "theoretical spread of a node's share. Placement never depends on a seed.\n"
    "\n"
    "  --algo A          mod|ring|ketama|jump|rendezvous|maglev|bounded|slots (default ring)\n"
    "  --hash H          sha256|md5|crc32|xxh64|murmur3|fnv1a (default sha256); the key hash\n"
    "                    (ketama cuts it to 32 bits; slots always uses CRC16 of the key)\n"
    "  --vnodes N        ring, bounded: points per unit of weight, 1..1000000 (default 160)\n"
    "  --nodes LIST      the membership, comma-separated ids (default A,B,C); an entry\n"
    "                    ID@ADDRESS also gives the address hashed with --node-key address\n"
    "  --to LIST         the membership after the change (default: no change)\n"
    "  --keys FORMAT     key names, printf with exactly one integer conversion\n"
    "                    (%d %i %u %x %X %o, flags and width allowed; default key-%06d)\n"
    "  --start N         first key number (default 0)\n"
    "  --count N         number of keys, 1..1000000000 (default 100000)\n"
    "  --weights LIST    ID=W,... weights > 0 for nodes of --nodes or --to (default 1);\n"
    "                    ring and bounded give llround(vnodes x W) points (at least 1);\n"
    "                    mod, jump and slots ignore weights\n"
    "  --load-factor C   bounded: cap per node ceil(C x count / N), 1 <= C <= 1000 (default 1.25)\n"
    "  --point-format F  ring, bounded: name of point i, one %s then one %d (default %s#%d)\n"
    "  --node-key K      id|address: what names a node's points (default id; address\n"
    "                    defaults to the id when an entry has no @ADDRESS)\n"
    "  --table-size M    maglev: prime table size (default 65537)\n"
    "  --json            print one JSON object instead of the table\n"
    "\n"
    "JSON keys: algo, hash, vnodes (null where unused), point_format, node_key, keys,\n"
    "start, count, nodes, to (null without --to), weights, before, after (= before without\n"
    "--to), moved, moved_between_old, moved_to_new, moved_from_removed, moved_fraction,\n"
    "moved_ideal_fraction, max_over_avg_before/after, max_over_min_before/after (null if a\n"
    "node has no key), max_over_fair_before/after, space_before/after, space_max_over_avg_\n"
    "before/after, theory {before, after}.\n"
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
    "\n"
    "Exit codes: 0 success, 2 bad usage (the message names the flag).\n"
    "Conventions of every algorithm and hash: models/README.md.\n";

struct ring_opts {
    struct place_params params;
    struct place_member *before, *after;
    size_t n_before, n_after;
    bool has_to, json;
    const char *keys;
    uint64_t start, count;
    /* which flags were given, for notes about flags an algorithm ignores */
    bool set_hash, set_vnodes, set_weights, set_load_factor, set_point_format, set_table_size;
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

static void free_members(struct place_member *m, size_t n)
{
    for (size_t i = 0; m && i < n; i++) {
        free((char *)m[i].id);
        free((char *)m[i].address);
    }
    free(m);
}

static int str_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Parses "A,B@addr,C" into members (weight 1). Returns 0 or EXIT_USAGE. */
static int parse_nodes(const char *flag, const char *list, struct place_member **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!*list)
        return usage_error("%s: expected a comma-separated list of node ids, got an empty "
                           "string",
                           flag);
    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    if (cap > RING_MAX_NODES)
        return usage_error("%s: %zu nodes is more than %d", flag, cap, RING_MAX_NODES);
    struct place_member *m = xcalloc(cap, sizeof *m);
    const char *p = list;
    for (size_t i = 0; i < cap; i++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *at = memchr(p, '@', len);
        size_t id_len = at ? (size_t)(at - p) : len;
        if (id_len == 0) {
            free_members(m, i);
            return usage_error("%s: entry %zu is empty; expected a node id (as in A,B,C)", flag,
                               i + 1);
        }
        if (at && (size_t)(at - p) + 1 == len) {
            free_members(m, i);
            return usage_error("%s: entry %zu has an empty address after '@'", flag, i + 1);
        }
        m[i].id = xstrndup(p, id_len);
        m[i].address = at ? xstrndup(at + 1, len - id_len - 1) : xstrdup(m[i].id);
        m[i].weight = 1.0;
        m[i].node = (uint32_t)i;
        p = end ? end + 1 : p + len;
    }
    /* duplicates: sort the ids, compare neighbours. O(n log n) */
    const char **ids = xmalloc(cap * sizeof *ids);
    for (size_t i = 0; i < cap; i++)
        ids[i] = m[i].id;
    qsort(ids, cap, sizeof *ids, str_ptr_cmp);
    for (size_t i = 1; i < cap; i++) {
        if (strcmp(ids[i - 1], ids[i]) == 0) {
            int rc = usage_error("%s: node \"%s\" appears twice", flag, ids[i]);
            free(ids);
            free_members(m, cap);
            return rc;
        }
    }
    free(ids);
    *out = m;
    *n = cap;
    return 0;
}

/* Applies "A=2,B=0.5" to both memberships. */
static int parse_weights(const char *list, struct ring_opts *o)
{
    if (!*list)
        return usage_error("--weights: expected ID=WEIGHT,... (e.g. A=2,B=0.5), got an empty "
                           "string");
    char *copy = xstrdup(list);
    int rc = 0;
    char *save = NULL;
    size_t entry = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        entry++;
        char *eq = strchr(tok, '=');
        double w;
        if (!eq || eq == tok) {
            rc = usage_error("--weights: entry \"%s\" is not ID=WEIGHT (e.g. A=2)", tok);
            break;
        }
        *eq = '\0';
        if (parse_double(eq + 1, &w) != 0 || !(w > 0) || w > 1e6) {
            rc = usage_error("--weights: %s: expected a weight > 0 and <= 1000000, got \"%s\"",
                             tok, eq + 1);
            break;
        }
        bool found = false;
        for (size_t i = 0; i < o->n_before; i++)
            if (strcmp(o->before[i].id, tok) == 0)
                o->before[i].weight = w, found = true;
        for (size_t i = 0; i < o->n_after; i++)
            if (strcmp(o->after[i].id, tok) == 0)
                o->after[i].weight = w, found = true;
        if (!found)
            rc = usage_error("--weights: node \"%s\" is not in --nodes or --to", tok);
    }
    if (!rc && entry == 0)
        rc = usage_error("--weights: expected ID=WEIGHT,... (e.g. A=2,B=0.5)");
    free(copy);
    return rc;
}

static bool is_prime_u64(uint64_t m)
{
    if (m < 2)
        return false;
    for (uint64_t d = 2; d * d <= m; d++) /* O(sqrt m) */
        if (m % d == 0)
            return false;
    return true;
}

/* ---- output --------------------------------------------------------------- */

static void json_num(struct strbuf *sb, double x)
{
    if (!isfinite(x))
        sb_puts(sb, "null");
    else
        sb_printf(sb, "%.6g", x);
}

/* {"A": value, ...} over the nodes of the membership before or after:
 * key counts, or (space) each node's exact share of the hash space. */
static void json_node_map(struct strbuf *sb, const struct ring_result *r, bool after, bool space)
{
    bool first = true;
    sb_putc(sb, '{');
    for (size_t i = 0; i < r->n_nodes; i++) {
        const struct ring_node_stat *n = &r->nodes[i];
        if (!(after ? n->in_after : n->in_before))
            continue;
        if (!first)
            sb_putc(sb, ',');
        first = false;
        sb_json_str(sb, n->id);
        sb_putc(sb, ':');
        if (space)
            json_num(sb, after ? n->space_after : n->space_before);
        else
            sb_printf(sb, "%llu", (unsigned long long)(after ? n->keys_after : n->keys_before));
    }
    sb_putc(sb, '}');
}

static void json_theory(struct strbuf *sb, const struct ring_side *s)
{
    sb_puts(sb, "{\"nodes\":");
    sb_printf(sb, "%zu", s->n);
    sb_puts(sb, ",\"points\":");
    sb_printf(sb, "%zu", s->points);
    sb_puts(sb, ",\"points_per_node\":");
    json_num(sb, s->points ? s->points_per_node : NAN);
    sb_puts(sb, ",\"share_std\":");
    json_num(sb, s->share_std);
    sb_puts(sb, ",\"share_rel_std\":");
    json_num(sb, s->share_rel_std);
    sb_puts(sb, ",\"sampling_rel_std\":");
    json_num(sb, s->sampling_rel_std);
    sb_puts(sb, ",\"cap\":");
    if (s->cap)
        sb_printf(sb, "%u", s->cap);
    else
        sb_puts(sb, "null");
    sb_puts(sb, ",\"table_size\":");
    if (s->table_size)
        sb_printf(sb, "%llu,\"table_min\":%llu,\"table_max\":%llu",
                  (unsigned long long)s->table_size, (unsigned long long)s->table_min,
                  (unsigned long long)s->table_max);
    else
        sb_puts(sb, "null,\"table_min\":null,\"table_max\":null");
    sb_putc(sb, '}');
}

static void json_names(struct strbuf *sb, const struct place_member *m, size_t n)
{
    sb_putc(sb, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_putc(sb, ',');
        sb_json_str(sb, m[i].id);
    }
    sb_putc(sb, ']');
}

static const char *hash_label(const struct place_params *p)
{
    return p->algo == PLACE_SLOTS ? "crc16" : hash_name(p->hash);
}

static bool uses_vnodes(place_algo a)
{
    return a == PLACE_RING || a == PLACE_BOUNDED;
}

static void print_json(const struct ring_opts *o, const struct ring_result *r)
{
    struct strbuf sb;
    const struct place_params *p = &o->params;
    sb_init(&sb);
    sb_puts(&sb, "{\"algo\":");
    sb_json_str(&sb, place_algo_name(p->algo));
    sb_puts(&sb, ",\"hash\":");
    sb_json_str(&sb, hash_label(p));
    sb_puts(&sb, ",\"vnodes\":");
    if (uses_vnodes(p->algo))
        sb_printf(&sb, "%u", p->vnodes);
    else if (p->algo == PLACE_KETAMA)
        sb_printf(&sb, "%d", PLACE_KETAMA_POINTS);
    else
        sb_puts(&sb, "null");
    sb_puts(&sb, ",\"point_format\":");
    sb_json_str(&sb, p->point_format);
    sb_printf(&sb, ",\"node_key\":\"%s\"", p->node_key_address ? "address" : "id");
    if (p->algo == PLACE_BOUNDED) {
        sb_puts(&sb, ",\"load_factor\":");
        json_num(&sb, p->load_factor);
    }
    if (p->algo == PLACE_MAGLEV)
        sb_printf(&sb, ",\"table_size\":%u", p->maglev_size);
    sb_puts(&sb, ",\"keys\":");
    sb_json_str(&sb, o->keys);
    sb_printf(&sb, ",\"start\":%llu,\"count\":%llu", (unsigned long long)o->start,
              (unsigned long long)o->count);
    sb_puts(&sb, ",\"nodes\":");
    json_names(&sb, o->before, o->n_before);
    sb_puts(&sb, ",\"to\":");
    if (o->has_to)
        json_names(&sb, o->after, o->n_after);
    else
        sb_puts(&sb, "null");
    sb_puts(&sb, ",\"weights\":{");
    for (size_t i = 0; i < r->n_nodes; i++) {
        if (i)
            sb_putc(&sb, ',');
        sb_json_str(&sb, r->nodes[i].id);
        sb_putc(&sb, ':');
        json_num(&sb, r->nodes[i].in_after ? r->nodes[i].weight_after
                                           : r->nodes[i].weight_before);
    }
    sb_puts(&sb, "},\"before\":");
    json_node_map(&sb, r, false, false);
    sb_puts(&sb, ",\"after\":");
    json_node_map(&sb, r, true, false);
    sb_printf(&sb,
              ",\"moved\":%llu,\"moved_between_old\":%llu,\"moved_to_new\":%llu,"
              "\"moved_from_removed\":%llu",
              (unsigned long long)r->moved, (unsigned long long)r->moved_between_old,
              (unsigned long long)r->moved_to_new, (unsigned long long)r->moved_from_removed);
    sb_puts(&sb, ",\"moved_fraction\":");
    json_num(&sb, (double)r->moved / (double)r->count);
    sb_puts(&sb, ",\"moved_ideal_fraction\":");
    json_num(&sb, r->moved_ideal);
    const struct {
        const char *name;
        double before, after;
    } ratios[] = {
        {"max_over_avg", r->before.max_over_avg, r->after.max_over_avg},
        {"max_over_min", r->before.max_over_min, r->after.max_over_min},
        {"max_over_fair", r->before.max_over_fair, r->after.max_over_fair},
        {"space_max_over_avg", r->before.space_max_over_avg, r->after.space_max_over_avg},
    };
    for (size_t i = 0; i < ARRAY_LEN(ratios); i++) {
        sb_printf(&sb, ",\"%s_before\":", ratios[i].name);
        json_num(&sb, ratios[i].before);
        sb_printf(&sb, ",\"%s_after\":", ratios[i].name);
        json_num(&sb, ratios[i].after);
    }
    sb_puts(&sb, ",\"space_before\":");
    json_node_map(&sb, r, false, true);
    sb_puts(&sb, ",\"space_after\":");
    json_node_map(&sb, r, true, true);
    sb_puts(&sb, ",\"theory\":{\"before\":");
    json_theory(&sb, &r->before);
    sb_puts(&sb, ",\"after\":");
    json_theory(&sb, &r->after);
    sb_puts(&sb, "}}\n");
    fputs(sb.buf, stdout);
    sb_deinit(&sb);
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* "1.0162" or "inf" */
static void fmt_ratio(char *buf, size_t n, double x)
{
    if (isfinite(x))
        snprintf(buf, n, "%.4f", x);
    else
        snprintf(buf, n, "inf");
}

static void print_row2(const char *label, const char *b, const char *a, bool has_after,
                       const char *note)
{
    if (has_after)
        printf("  %-22s %12s %12s%s%s\n", label, b, a, note ? "   " : "", note ? note : "");
    else
        printf("  %-22s %12s%s%s\n", label, b, note ? "   " : "", note ? note : "");
}

static void print_table(const struct ring_opts *o, const struct ring_result *r)
{
    const struct place_params *p = &o->params;
    bool to = r->has_after;
    char kfirst[256], klast[256];
    struct key_format kf;
    if (!key_format_init(&kf, o->keys)) {
        char *buf = xmalloc(kf.max_len + 1);
        key_format_render(&kf, o->start, buf, kf.max_len + 1);
        snprintf(kfirst, sizeof kfirst, "%s", buf);
        key_format_render(&kf, o->start + o->count - 1, buf, kf.max_len + 1);
        snprintf(klast, sizeof klast, "%s", buf);
        free(buf);
        key_format_deinit(&kf);
    } else {
        kfirst[0] = klast[0] = '\0';
    }

    printf("ringsim ring: %s, hash %s", place_algo_name(p->algo), hash_label(p));
    if (uses_vnodes(p->algo))
        printf(", %u vnodes, point format \"%s\"", p->vnodes, p->point_format);
    if (p->algo == PLACE_KETAMA)
        printf(", 160 points per node (x weight share)");
    if (p->algo == PLACE_BOUNDED)
        printf(", load factor %g", p->load_factor);
    if (p->algo == PLACE_MAGLEV)
        printf(", table size %u", p->maglev_size);
    if (p->node_key_address)
        printf(", nodes named by address");
    printf("\nkeys: %s .. %s (%llu)\n\n", kfirst, klast, (unsigned long long)r->count);

    int w = 4;
    for (size_t i = 0; i < r->n_nodes; i++)
        w = MAX(w, (int)strlen(r->nodes[i].id));
    w = MIN(w, 40);
    if (to)
        printf("  %-*s %10s %8s %10s %8s %10s\n", w, "node", "before", "%", "after", "%",
               "change");
    else
        printf("  %-*s %10s %8s\n", w, "node", "keys", "%");
    for (size_t i = 0; i < r->n_nodes; i++) {
        const struct ring_node_stat *n = &r->nodes[i];
        char b[32] = "-", bp[32] = "-", a[32] = "-", ap[32] = "-", ch[32];
        if (n->in_before) {
            snprintf(b, sizeof b, "%llu", (unsigned long long)n->keys_before);
            snprintf(bp, sizeof bp, "%.2f%%", pct(n->keys_before, r->count));
        }
        if (n->in_after) {
            snprintf(a, sizeof a, "%llu", (unsigned long long)n->keys_after);
            snprintf(ap, sizeof ap, "%.2f%%", pct(n->keys_after, r->count));
        }
        long long d = (long long)n->keys_after - (long long)n->keys_before;
        snprintf(ch, sizeof ch, "%+lld", d);
        if (to)
            printf("  %-*.*s %10s %8s %10s %8s %10s\n", w, w, n->id, b, bp, a, ap, ch);
        else
            printf("  %-*.*s %10s %8s\n", w, w, n->id, b, bp);
    }
    printf("\n");
    if (to) {
        printf("  %-22s %12llu %7.2f%%   (least possible for this change: %.2f%%)\n", "moved",
               (unsigned long long)r->moved, pct(r->moved, r->count), 100 * r->moved_ideal);
        printf("  %-22s %12llu %7.2f%%\n", "  to new nodes", (unsigned long long)r->moved_to_new,
               pct(r->moved_to_new, r->count));
        printf("  %-22s %12llu %7.2f%%\n", "  from removed nodes",
               (unsigned long long)r->moved_from_removed, pct(r->moved_from_removed, r->count));
        printf("  %-22s %12llu %7.2f%%\n\n", "  between old nodes",
               (unsigned long long)r->moved_between_old, pct(r->moved_between_old, r->count));
        print_row2("", "before", "after", true, NULL);
    }
    char b[32], a[32];
    fmt_ratio(b, sizeof b, r->before.max_over_avg);
    fmt_ratio(a, sizeof a, r->after.max_over_avg);
    print_row2("max/avg", b, a, to, NULL);
    fmt_ratio(b, sizeof b, r->before.max_over_min);
    fmt_ratio(a, sizeof a, r->after.max_over_min);
    print_row2("max/min", b, a, to, NULL);
    bool weights_differ = false;
    for (size_t i = 0; i < r->n_nodes; i++)
        weights_differ |= (r->nodes[i].in_before && r->nodes[i].weight_before != 1.0) ||
                          (r->nodes[i].in_after && r->nodes[i].weight_after != 1.0);
    if (weights_differ) {
        fmt_ratio(b, sizeof b, r->before.max_over_fair);
        fmt_ratio(a, sizeof a, r->after.max_over_fair);
        print_row2("max/fair share", b, a, to,
                   place_algo_uses_weights(p->algo) ? "(fair share = weight share)"
                                                    : "(weights ignored: fair = 1/N)");
    }
    fmt_ratio(b, sizeof b, r->before.space_max_over_avg);
    fmt_ratio(a, sizeof a, r->after.space_max_over_avg);
    print_row2("hash-space max/avg", b, a, to, "(exact shares of the hash space: no key sampling)");

    printf("\n  theoretical spread of a node's share:\n");
    switch (p->algo) {
    case PLACE_RING:
    case PLACE_BOUNDED:
    case PLACE_KETAMA:
        snprintf(b, sizeof b, "%.1f", r->before.points_per_node);
        snprintf(a, sizeof a, "%.1f", r->after.points_per_node);
        print_row2("K points per node", b, a, to,
                   p->algo == PLACE_KETAMA ? "(160 x weight share each)" : "(vnodes x weight)");
        snprintf(b, sizeof b, "%.5f", r->before.share_std);
        snprintf(a, sizeof a, "%.5f", r->after.share_std);
        print_row2("std of share", b, a, to, "(share ~ Gamma(K)/(N K): std 1/(N sqrt K))");
        snprintf(b, sizeof b, "%.2f%%", 100 * r->before.share_rel_std);
        snprintf(a, sizeof a, "%.2f%%", 100 * r->after.share_rel_std);
        print_row2("relative std", b, a, to, "(1/sqrt K)");
        if (p->algo == PLACE_BOUNDED) {
            snprintf(b, sizeof b, "%u", r->before.cap);
            snprintf(a, sizeof a, "%u", r->after.cap);
            print_row2("cap per node (keys)", b, a, to, "(ceil(load factor x count / N))");
        }
        break;
    case PLACE_MAGLEV:
    case PLACE_SLOTS:
        snprintf(b, sizeof b, "%llu..%llu", (unsigned long long)r->before.table_min,
                 (unsigned long long)r->before.table_max);
        snprintf(a, sizeof a, "%llu..%llu", (unsigned long long)r->after.table_min,
                 (unsigned long long)r->after.table_max);
        print_row2(p->algo == PLACE_MAGLEV ? "table entries per node" : "slots per node", b, a,
                   to,
                   p->algo == PLACE_MAGLEV
                       ? "(of M; equal weights: floor or ceil of M/N)"
                       : "(of 16384; floor or ceil of 16384/N when balanced)");
        break;
    default:
        print_row2("none", "-", "-", to,
                   p->algo == PLACE_RENDEZVOUS
                       ? "(each key is on a node with probability weight/total)"
                       : "(each key is on each node with probability 1/N)");
        break;
    }
    snprintf(b, sizeof b, "%.2f%%", 100 * r->before.sampling_rel_std);
    snprintf(a, sizeof a, "%.2f%%", 100 * r->after.sampling_rel_std);
    print_row2("key sampling noise", b, a, to, "(relative std of a count: sqrt((N-1)/count))");
}

/* ---- arguments ------------------------------------------------------------ */

static void notes(const struct ring_opts *o)
{
    place_algo a = o->params.algo;
    const char *name = place_algo_name(a);
    if (o->set_vnodes && !uses_vnodes(a))
        fprintf(stderr, "ringsim ring: note: --vnodes is ignored by %s\n", name);
    if (o->set_point_format && !uses_vnodes(a))
        fprintf(stderr, "ringsim ring: note: --point-format is ignored by %s\n", name);
    if (o->set_hash && a == PLACE_SLOTS)
        fprintf(stderr, "ringsim ring: note: --hash is ignored by slots (CRC16 of the key)\n");
    if (o->set_weights && !place_algo_uses_weights(a))
        fprintf(stderr, "ringsim ring: note: --weights is ignored by %s\n", name);
    if (o->set_load_factor && a != PLACE_BOUNDED)
        fprintf(stderr, "ringsim ring: note: --load-factor is ignored by %s\n", name);
    if (o->set_table_size && a != PLACE_MAGLEV)
        fprintf(stderr, "ringsim ring: note: --table-size is ignored by %s\n", name);
}

static int parse_args(int argc, char **argv, struct ring_opts *o, bool *help)
{
    const char *nodes = "A,B,C", *to = NULL, *weights = NULL;
    place_params_default(&o->params, PLACE_RING);
    o->keys = "key-%06d";
    o->start = 0;
    o->count = 100000;
    *help = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        char flag[64];
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
        if (flen >= sizeof flag)
            return usage_error("unknown option '%.40s...'", arg);
        memcpy(flag, arg, flen);
        flag[flen] = '\0';
        static const char *const with_value[] = {
            "--algo", "--hash", "--vnodes", "--nodes", "--to", "--keys", "--start", "--count",
            "--weights", "--load-factor", "--point-format", "--node-key", "--table-size"};
        bool known = false;
        for (size_t k = 0; k < ARRAY_LEN(with_value); k++)
            known |= strcmp(flag, with_value[k]) == 0;
        if (!known)
            return usage_error("unknown option '%s'", flag);
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else
            return usage_error("%s needs a value", flag);

        uint64_t u;
        double d;
        if (strcmp(flag, "--algo") == 0) {
            if (place_algo_from_name(val, &o->params.algo) != 0)
                return usage_error("--algo: unknown algorithm \"%s\" (expected %s)", val,
                                   place_algo_names());
        } else if (strcmp(flag, "--hash") == 0) {
            if (hash_from_name(val, &o->params.hash) != 0)
                return usage_error("--hash: unknown hash \"%s\" (expected %s)", val,
                                   hash_names());
            o->set_hash = true;
        } else if (strcmp(flag, "--vnodes") == 0) {
            if (parse_u64(val, &u) != 0 || u < 1 || u > 1000000)
                return usage_error("--vnodes: expected an integer from 1 to 1000000, got \"%s\"",
                                   val);
            o->params.vnodes = (uint32_t)u;
            o->set_vnodes = true;
        } else if (strcmp(flag, "--nodes") == 0) {
            nodes = val;
        } else if (strcmp(flag, "--to") == 0) {
            to = val;
        } else if (strcmp(flag, "--keys") == 0) {
            struct key_format kf;
            const char *why = key_format_init(&kf, val);
            if (why)
                return usage_error("--keys: \"%s\" %s", val, why);
            key_format_deinit(&kf);
            o->keys = val;
        } else if (strcmp(flag, "--start") == 0) {
            if (parse_u64(val, &u) != 0 || u > (uint64_t)INT64_MAX - RING_MAX_COUNT)
                return usage_error("--start: expected a non-negative integer, got \"%s\"", val);
            o->start = u;
        } else if (strcmp(flag, "--count") == 0) {
            if (parse_u64(val, &u) != 0 || u < 1 || u > RING_MAX_COUNT)
                return usage_error("--count: expected an integer from 1 to %llu, got \"%s\"",
                                   RING_MAX_COUNT, val);
            o->count = u;
        } else if (strcmp(flag, "--weights") == 0) {
            weights = val;
            o->set_weights = true;
        } else if (strcmp(flag, "--load-factor") == 0) {
            if (parse_double(val, &d) != 0 || !(d >= 1.0 && d <= 1000.0))
                return usage_error("--load-factor: expected a number from 1 to 1000, got \"%s\"",
                                   val);
            o->params.load_factor = d;
            o->set_load_factor = true;
        } else if (strcmp(flag, "--point-format") == 0) {
            const char *why = place_check_point_format(val);
            if (why)
                return usage_error("--point-format: \"%s\" %s", val, why);
            o->params.point_format = val;
            o->set_point_format = true;
        } else if (strcmp(flag, "--node-key") == 0) {
            if (strcmp(val, "id") == 0)
                o->params.node_key_address = false;
            else if (strcmp(val, "address") == 0)
                o->params.node_key_address = true;
            else
                return usage_error("--node-key: expected id or address, got \"%s\"", val);
        } else if (strcmp(flag, "--table-size") == 0) {
            if (parse_u64(val, &u) != 0 || u > (1u << 26) || !is_prime_u64(u))
                return usage_error("--table-size: expected a prime number up to 67108864 "
                                   "(e.g. 65537), got \"%s\"",
                                   val);
            o->params.maglev_size = (uint32_t)u;
            o->set_table_size = true;
        }
    }
    int rc = parse_nodes("--nodes", nodes, &o->before, &o->n_before);
    if (rc)
        return rc;
    if (to) {
        rc = parse_nodes("--to", to, &o->after, &o->n_after);
        if (rc)
            return rc;
        o->has_to = true;
    }
    if (weights) {
        rc = parse_weights(weights, o);
        if (rc)
            return rc;
    }
    if (o->params.algo == PLACE_MAGLEV &&
        (o->n_before > o->params.maglev_size || o->n_after > o->params.maglev_size))
        return usage_error("--table-size: %u entries is fewer than the nodes",
                           o->params.maglev_size);
    if (o->params.algo == PLACE_SLOTS &&
        (o->n_before > PLACE_SLOT_COUNT || o->n_after > PLACE_SLOT_COUNT))
        return usage_error("--nodes/--to: slots supports at most %d nodes", PLACE_SLOT_COUNT);
    return 0;
}

int cmd_ring(int argc, char **argv)
{
    struct ring_opts o;
    bool help;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o, &help);
    if (rc == 0 && help) {
        fputs(usage_text, stdout);
    } else if (rc == 0) {
        notes(&o);
        struct ring_input in = {
            .params = o.params,
            .before = o.before,
            .n_before = o.n_before,
            .after = o.has_to ? o.after : NULL,
            .n_after = o.n_after,
            .key_format = o.keys,
            .key_start = o.start,
            .key_count = o.count,
        };
        struct ring_result r;
        char err[512];
        if (ring_analyze(&in, &r, err, sizeof err) != 0) {
            /* name the flag behind the membership that failed */
            if (strncmp(err, "before: ", 8) == 0)
                rc = usage_error("--nodes: %s", err + 8);
            else if (strncmp(err, "after: ", 7) == 0)
                rc = usage_error("--to: %s", err + 7);
            else
                rc = usage_error("%s", err);
        } else {
            if (o.json)
                print_json(&o, &r);
            else
                print_table(&o, &r);
            ring_result_deinit(&r);
            if (fflush(stdout) != 0) {
                perror("ringsim ring: stdout");
                rc = EXIT_RUN_FAILED;
            }
        }
    }
    free_members(o.before, o.n_before);
    free_members(o.after, o.n_after);
    return rc;
}
