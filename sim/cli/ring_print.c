/*
 * ring_print.c — what `ringsim ring` prints: the aligned table and the one
 * JSON object, from the analysis (struct ring_result) and the parameters it
 * ran with.
 *
 * Invariants: the output depends only on its inputs (no clock, no
 * addresses); the JSON is one line, its strings escaped by sb_json_str (UTF-8
 * kept, control characters as \u00XX, bytes that are not UTF-8 as \ufffd);
 * the keys and their order are fixed (tests/cli/ring.sh checks them). A
 * looked-up key is any bytes: JSON writes it as above, and adds "key_hex"
 * (its exact bytes) when it is not valid UTF-8; the table writes it with
 * \\, \xNN for control characters and bytes that are not UTF-8, and the
 * empty key as "".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/ring_print.h"
#include "output/report.h"
#include "sim/util.h"

/* A number as JSON, to 15 significant digits: a ratio checks against the
 * counts beside it to 1e-15, and a share that is 1/4 up to rounding prints as
 * 0.25 (six digits, as once, were off by up to 5e-6). */
static void json_num(struct strbuf *sb, double x)
{
    if (!isfinite(x))
        sb_puts(sb, "null");
    else
        sb_printf(sb, "%.15g", x);
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

bool ring_uses_vnodes(place_algo a)
{
    return a == PLACE_RING || a == PLACE_BOUNDED;
}

/* "algo" .. "count": the parameters. */
static void json_params(struct strbuf *sb, const struct ring_report *o)
{
    const struct place_params *p = &o->params;
    sb_puts(sb, "{\"algo\":");
    sb_json_str(sb, place_algo_name(p->algo));
    sb_puts(sb, ",\"hash\":");
    sb_json_str(sb, hash_label(p));
    sb_puts(sb, ",\"vnodes\":");
    if (ring_uses_vnodes(p->algo))
        sb_printf(sb, "%u", p->vnodes);
    else if (p->algo == PLACE_KETAMA)
        sb_printf(sb, "%d", PLACE_KETAMA_POINTS);
    else
        sb_puts(sb, "null");
    sb_puts(sb, ",\"point_format\":");
    sb_json_str(sb, p->point_format);
    sb_printf(sb, ",\"node_key\":\"%s\"", p->node_key_address ? "address" : "id");
    if (p->algo == PLACE_BOUNDED) {
        sb_puts(sb, ",\"load_factor\":");
        json_number(sb, p->load_factor); /* exactly: 1.0000000000000002 is not 1 */
    }
    if (p->algo == PLACE_MAGLEV)
        sb_printf(sb, ",\"table_size\":%u", p->maglev_size);
    sb_puts(sb, ",\"keys\":");
    sb_json_str(sb, o->keys);
    sb_printf(sb, ",\"start\":%llu,\"count\":%llu", (unsigned long long)o->start,
              (unsigned long long)o->count);
}

/* "nodes" .. "after": the memberships, weights and keys per node. */
static void json_memberships(struct strbuf *sb, const struct ring_report *o,
                             const struct ring_result *r)
{
    sb_puts(sb, ",\"nodes\":");
    json_names(sb, o->mb, o->n_before);
    sb_puts(sb, ",\"to\":");
    if (o->has_to)
        json_names(sb, o->ma, o->n_after);
    else
        sb_puts(sb, "null");
    sb_puts(sb, ",\"weights\":{");
    for (size_t i = 0; i < r->n_nodes; i++) {
        if (i)
            sb_putc(sb, ',');
        sb_json_str(sb, r->nodes[i].id);
        sb_putc(sb, ':');
        json_num(sb, r->nodes[i].in_after ? r->nodes[i].weight_after
                                          : r->nodes[i].weight_before);
    }
    sb_puts(sb, "},\"before\":");
    json_node_map(sb, r, false, false);
    sb_puts(sb, ",\"after\":");
    json_node_map(sb, r, true, false);
}

/* "moved" .. "theory": movement, balance and the theoretical spread. */
static void json_figures(struct strbuf *sb, const struct ring_result *r)
{
    sb_printf(sb,
              ",\"moved\":%llu,\"moved_between_old\":%llu,\"moved_to_new\":%llu,"
              "\"moved_from_removed\":%llu",
              (unsigned long long)r->moved, (unsigned long long)r->moved_between_old,
              (unsigned long long)r->moved_to_new, (unsigned long long)r->moved_from_removed);
    sb_puts(sb, ",\"moved_fraction\":");
    json_num(sb, (double)r->moved / (double)r->count);
    sb_puts(sb, ",\"moved_ideal_fraction\":");
    json_num(sb, r->moved_ideal);
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
        sb_printf(sb, ",\"%s_before\":", ratios[i].name);
        json_num(sb, ratios[i].before);
        sb_printf(sb, ",\"%s_after\":", ratios[i].name);
        json_num(sb, ratios[i].after);
    }
    sb_puts(sb, ",\"space_before\":");
    json_node_map(sb, r, false, true);
    sb_puts(sb, ",\"space_after\":");
    json_node_map(sb, r, true, true);
    sb_puts(sb, ",\"theory\":{\"before\":");
    json_theory(sb, &r->before);
    sb_puts(sb, ",\"after\":");
    json_theory(sb, &r->after);
    sb_putc(sb, '}');
}

static bool valid_utf8(const struct ring_key *k)
{
    const unsigned char *p = (const unsigned char *)k->bytes, *end = p + k->len;
    for (size_t n; p < end; p += n)
        if (!(n = utf8_char_len_n(p, (size_t)(end - p))))
            return false;
    return true;
}

/* ,"lookups":[...]: each key, its position, and its owners. */
static void json_lookups(struct strbuf *sb, const struct ring_report *o,
                         const struct ring_result *r, const struct ring_key *keys)
{
    sb_puts(sb, ",\"lookups\":[");
    for (size_t i = 0; i < r->n_lookups; i++) {
        const struct ring_lookup *l = &r->lookups[i];
        sb_puts(sb, i ? ",{\"key\":" : "{\"key\":");
        sb_json_strn(sb, keys[i].bytes, keys[i].len);
        if (!valid_utf8(&keys[i])) {
            sb_puts(sb, ",\"key_hex\":\"");
            for (size_t b = 0; b < keys[i].len; b++)
                sb_printf(sb, "%02x", (unsigned char)keys[i].bytes[b]);
            sb_putc(sb, '"');
        }
        sb_printf(sb, ",\"position\":%llu,\"owner\":", (unsigned long long)l->position);
        sb_json_str(sb, r->nodes[l->owner_before].id);
        sb_puts(sb, ",\"slot\":");
        if (o->params.algo == PLACE_SLOTS)
            sb_printf(sb, "%llu", (unsigned long long)l->position);
        else
            sb_puts(sb, "null");
        sb_puts(sb, ",\"owner_after\":");
        if (o->has_to)
            sb_json_str(sb, r->nodes[l->owner_after].id);
        else
            sb_puts(sb, "null");
        sb_putc(sb, '}');
    }
    sb_putc(sb, ']');
}

void ring_print_json(const struct ring_report *o, const struct ring_result *r,
                     const struct ring_key *keys)
{
    struct strbuf sb;
    sb_init(&sb);
    json_params(&sb, o);
    json_memberships(&sb, o, r);
    json_figures(&sb, r);
    if (o->lookups)
        json_lookups(&sb, o, r, keys);
    sb_puts(&sb, "}\n");
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

/* The parameters and the first and last key. */
static void print_heading(const struct ring_report *o, const struct ring_result *r)
{
    const struct place_params *p = &o->params;
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
    if (ring_uses_vnodes(p->algo))
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
}

/* What the placement gives a node, as the table's column calls it; NULL
 * for the algorithms that give nothing countable (mod, jump, rendezvous). */
static const char *points_label(place_algo a)
{
    switch (a) {
    case PLACE_RING:
    case PLACE_BOUNDED:
    case PLACE_KETAMA: return "points";
    case PLACE_MAGLEV: return "entries";
    case PLACE_SLOTS: return "slots";
    default: return NULL;
    }
}

/* A node's points (entries, slots): "512", or "5462 -> 4096" when a change
 * changes them. */
static void format_points(const struct ring_node_stat *n, char *buf, size_t len)
{
    if (n->in_before && n->in_after && n->points_before != n->points_after)
        snprintf(buf, len, "%llu -> %llu", (unsigned long long)n->points_before,
                 (unsigned long long)n->points_after);
    else
        snprintf(buf, len, "%llu",
                 (unsigned long long)(n->in_before ? n->points_before : n->points_after));
}

/* One row per node: keys before (and after, and the change), and the points
 * (entries, slots) the placement gives it, as the weights round. */
static void print_counts(const struct ring_report *o, const struct ring_result *r)
{
    bool to = r->has_after;
    const char *plabel = points_label(o->params.algo);
    char pts[48];
    int w = 4, pw = plabel ? (int)strlen(plabel) : 0;
    for (size_t i = 0; i < r->n_nodes; i++) {
        w = MAX(w, (int)strlen(r->nodes[i].id));
        if (plabel) {
            format_points(&r->nodes[i], pts, sizeof pts);
            pw = MAX(pw, (int)strlen(pts));
        }
    }
    w = MIN(w, 40);
    if (to)
        printf("  %-*s %10s %8s %10s %8s %10s", w, "node", "before", "%", "after", "%",
               "change");
    else
        printf("  %-*s %10s %8s", w, "node", "keys", "%");
    if (plabel)
        printf(" %*s", pw + 2, plabel);
    printf("\n");
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
            printf("  %-*.*s %10s %8s %10s %8s %10s", w, w, n->id, b, bp, a, ap, ch);
        else
            printf("  %-*.*s %10s %8s", w, w, n->id, b, bp);
        if (plabel) {
            format_points(n, pts, sizeof pts);
            printf(" %*s", pw + 2, pts);
        }
        printf("\n");
    }
    printf("\n");
}

/* Keys moved, by kind (with --to). */
static void print_moves(const struct ring_result *r)
{
    printf("  %-22s %12llu %7.2f%%   (ideal for this change: %.2f%%)\n", "moved",
           (unsigned long long)r->moved, pct(r->moved, r->count), 100 * r->moved_ideal);
    printf("  %-22s %12llu %7.2f%%\n", "  to new nodes", (unsigned long long)r->moved_to_new,
           pct(r->moved_to_new, r->count));
    printf("  %-22s %12llu %7.2f%%\n", "  from removed nodes",
           (unsigned long long)r->moved_from_removed, pct(r->moved_from_removed, r->count));
    printf("  %-22s %12llu %7.2f%%\n\n", "  between old nodes",
           (unsigned long long)r->moved_between_old, pct(r->moved_between_old, r->count));
    print_row2("", "before", "after", true, NULL);
}

/* max/avg, max/min, max/fair share (with weights), hash-space max/avg. */
static void print_balance(const struct ring_report *o, const struct ring_result *r)
{
    bool to = r->has_after;
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
                   place_algo_uses_weights(o->params.algo) ? "(fair share = weight share)"
                                                           : "(weights ignored: fair = 1/N)");
    }
    fmt_ratio(b, sizeof b, r->before.space_max_over_avg);
    fmt_ratio(a, sizeof a, r->after.space_max_over_avg);
    print_row2("hash-space max/avg", b, a, to, "(exact shares of the hash space: no key sampling)");
}

/* The theoretical spread of a node's share, by algorithm, and the sampling noise. */
static void print_theory(const struct place_params *p, const struct ring_result *r)
{
    bool to = r->has_after;
    char b[32], a[32];
    printf("\n  theoretical spread of a node's share:\n");
    switch (p->algo) {
    case PLACE_RING:
    case PLACE_BOUNDED:
    case PLACE_KETAMA:
        snprintf(b, sizeof b, "%.1f", r->before.points_per_node);
        snprintf(a, sizeof a, "%.1f", r->after.points_per_node);
        print_row2("K points per node", b, a, to,
                   p->algo == PLACE_KETAMA ? "(160 x weight share, the nodes' mean)"
                                            : "(vnodes x weight, the nodes' mean)");
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

/* A key as the table shows it: valid UTF-8 as it is, a backslash as \\,
 * control characters and bytes that are not UTF-8 as \xNN. Returns its
 * width in characters. */
static size_t escape_key(const struct ring_key *k, struct strbuf *sb)
{
    const unsigned char *p = (const unsigned char *)k->bytes, *end = p + k->len;
    size_t width = 0;
    if (!k->len) {
        sb_puts(sb, "\"\""); /* the empty key, visibly */
        return 2;
    }
    while (p < end) {
        size_t n = utf8_char_len_n(p, (size_t)(end - p));
        if (*p == '\\') {
            sb_puts(sb, "\\\\");
            width += 2;
        } else if (!n || *p < 0x20 || *p == 0x7f) {
            sb_printf(sb, "\\x%02x", *p);
            width += 4;
            n = 1;
        } else {
            sb_add(sb, (const char *)p, n);
            width++;
        }
        p += n;
    }
    return width;
}

/* One row per key looked up: its position (its slot, for slots), its owner,
 * and with --to its owner after the change. */
static void print_lookups(const struct ring_report *o, const struct ring_result *r,
                          const struct ring_key *keys)
{
    bool slots = o->params.algo == PLACE_SLOTS, to = r->has_after;
    size_t kw = 3, ow = 5;
    struct strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < r->n_lookups; i++) {
        sb_reset(&sb);
        kw = MAX(kw, escape_key(&keys[i], &sb));
        ow = MAX(ow, strlen(r->nodes[r->lookups[i].owner_before].id));
    }
    kw = MIN(kw, 40);
    ow = MIN(ow, 24);
    printf("\n  %-*s %*s  %-*s%s\n", (int)kw, "key", slots ? 5 : 20, slots ? "slot" : "position",
           (int)ow, "owner", to ? "  after" : "");
    if (!r->n_lookups)
        printf("  (no keys)\n");
    for (size_t i = 0; i < r->n_lookups; i++) {
        const struct ring_lookup *l = &r->lookups[i];
        sb_reset(&sb);
        size_t width = escape_key(&keys[i], &sb);
        const char *ob = r->nodes[l->owner_before].id, *oa = r->nodes[l->owner_after].id;
        printf("  %s%*s %*llu  ", sb.buf, (int)(kw > width ? kw - width : 0), "", slots ? 5 : 20,
               (unsigned long long)l->position);
        if (to)
            printf("%-*s  %s%s\n", (int)ow, ob, oa, l->owner_before != l->owner_after ? "   (moves)" : "");
        else
            printf("%s\n", ob);
    }
    sb_deinit(&sb);
}

void ring_print_table(const struct ring_report *o, const struct ring_result *r,
                      const struct ring_key *keys)
{
    print_heading(o, r);
    print_counts(o, r);
    if (r->has_after)
        print_moves(r);
    print_balance(o, r);
    print_theory(&o->params, r);
    if (o->lookups)
        print_lookups(o, r, keys);
}
