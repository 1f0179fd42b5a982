/*
 * ring_analysis.c — the static placement analysis (`ringsim ring`) and the
 * key-name pattern.
 *
 * Keys are generated, positioned and looked up one at a time, on both
 * memberships at once, so memory does not grow with the key count. Members of
 * both memberships share one node numbering (before's members first, then
 * after's new ones), so "same owner" is an integer comparison.
 *
 * For bounded, keys are assigned in key order, each membership with its own
 * cap ceil(load_factor × count / n) (placement_lookup_bounded).
 *
 * For slots the after membership is built from the before one (prev), as a
 * cluster rebalance would do.
 *
 * Shares of the hash space (no sampling noise) are exact: arcs of the
 * continuum for ring-like algorithms, table entries for maglev and slots,
 * weight shares for rendezvous, 1/n for mod and jump.
 *
 * ring_analyze runs six steps: check_input, build_placements (one
 * numbering, two placements), place_keys, fill_figures, least_movement, and
 * look_up (keys asked for by name, each positioned and looked up on both
 * placements as place_keys does).
 */
#include "models/placement/ring_analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/place_internal.h"
#include "sim/util.h"

/* ---- key format ----------------------------------------------------------- */

/* Appends fmt[from, to) to sb with "%%" turned into "%". */
static void add_literal(struct strbuf *sb, const char *from, const char *to)
{
    for (const char *p = from; p < to; p++) {
        sb_putc(sb, *p);
        if (*p == '%')
            p++; /* the second % of "%%" */
    }
}

/* One conversion of a key pattern, between its '%' and its end. */
struct key_conv {
    char flags[8];  /* distinct flags in order of appearance, NUL-terminated */
    unsigned width, prec;
    bool has_prec;
    char conv;
};

/* Parses the conversion that starts at p (just after a '%' that is not
 * "%%"); *end is set past it. Returns NULL or what is wrong. */
static const char *parse_conversion(const char *p, struct key_conv *c, const char **end)
{
    size_t nf = 0;
    memset(c, 0, sizeof *c);
    if (!*p)
        return "ends with a lone %";
    while (*p && strchr("-+ #0", *p)) {
        if (!strchr(c->flags, *p)) {
            if (nf + 1 >= sizeof c->flags)
                return "has too many flags";
            c->flags[nf++] = *p;
        }
        p++;
    }
    if (*p == '*')
        return "has a * width or precision (give a number)";
    while (*p >= '0' && *p <= '9') {
        c->width = c->width * 10 + (unsigned)(*p++ - '0');
        if (c->width > KEY_FORMAT_MAX_WIDTH)
            return "has a width over 64";
    }
    if (*p == '$')
        return "has a positional argument ($)";
    if (*p == '.') {
        p++;
        c->has_prec = true;
        if (*p == '*')
            return "has a * width or precision (give a number)";
        while (*p >= '0' && *p <= '9') {
            c->prec = c->prec * 10 + (unsigned)(*p++ - '0');
            if (c->prec > KEY_FORMAT_MAX_WIDTH)
                return "has a precision over 64";
        }
    }
    if (*p && strchr("hljzqLt", *p))
        return "has a length modifier (h, l, ...)";
    if (!*p)
        return "ends inside a conversion";
    if (!strchr("diuxX", *p)) {
        if (*p == 's' || *p == 'c')
            return "has a %s or %c conversion, not an integer one";
        return "has a conversion that is not an integer one";
    }
    if (strchr(c->flags, '#') && *p != 'x' && *p != 'X')
        return "has the # flag on %d, %i or %u (it is for %x and %X only)";
    c->conv = *p;
    *end = p + 1;
    return NULL;
}

const char *key_format_init(struct key_format *kf, const char *fmt)
{
    memset(kf, 0, sizeof *kf);
    if (!fmt || !*fmt)
        return "is empty";
    if (strlen(fmt) > KEY_FORMAT_MAX_LEN)
        return "is longer than 200 characters";
    const char *conv_start = NULL, *conv_end = NULL;
    struct key_conv c = {0};
    for (const char *p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        if (!p[1])
            return "ends with a lone %";
        if (conv_start)
            return "has more than one conversion";
        const char *why = parse_conversion(p + 1, &c, &conv_end);
        if (why)
            return why;
        conv_start = p;
        p = conv_end - 1;
    }
    if (!conv_start)
        return "has no integer conversion";

    struct strbuf sb;
    sb_init(&sb);
    add_literal(&sb, fmt, conv_start);
    kf->prefix_len = sb.len;
    kf->prefix = sb_steal(&sb);
    sb_init(&sb);
    add_literal(&sb, conv_end, fmt + strlen(fmt));
    kf->suffix_len = sb.len;
    kf->suffix = sb_steal(&sb);
    if (c.has_prec)
        snprintf(kf->spec, sizeof kf->spec, "%%%s%u.%ull%c", c.flags, c.width, c.prec, c.conv);
    else if (c.width)
        snprintf(kf->spec, sizeof kf->spec, "%%%s%ull%c", c.flags, c.width, c.conv);
    else
        snprintf(kf->spec, sizeof kf->spec, "%%%sll%c", c.flags, c.conv);
    kf->is_signed = c.conv == 'd' || c.conv == 'i';
    /* 20 digits of 2^64, a sign or "0x", the width/precision padding */
    kf->max_len = kf->prefix_len + kf->suffix_len + 24 + KEY_FORMAT_MAX_WIDTH;
    return NULL;
}

void key_format_deinit(struct key_format *kf)
{
    free(kf->prefix);
    free(kf->suffix);
    memset(kf, 0, sizeof *kf);
}

size_t key_format_render(const struct key_format *kf, uint64_t i, char *buf, size_t n)
{
    size_t len = kf->prefix_len;
    if (n < kf->max_len + 1) {
        if (n)
            buf[0] = '\0';
        return 0;
    }
    memcpy(buf, kf->prefix, kf->prefix_len);
    int w;
    /* spec was built by key_format_init from a validated pattern */
    if (kf->is_signed)
        w = snprintf(buf + len, n - len, kf->spec, (long long)i);
    else
        w = snprintf(buf + len, n - len, kf->spec, (unsigned long long)i);
    len += w > 0 ? (size_t)w : 0;
    memcpy(buf + len, kf->suffix, kf->suffix_len + 1);
    return len + kf->suffix_len;
}

/* ---- analysis ------------------------------------------------------------- */

bool place_algo_uses_weights(place_algo a)
{
    return a == PLACE_RING || a == PLACE_BOUNDED || a == PLACE_KETAMA ||
           a == PLACE_RENDEZVOUS || a == PLACE_MAGLEV;
}

struct id_slot {
    const char *id;
    uint32_t index;
};

static int id_slot_cmp(const void *a, const void *b)
{
    return strcmp(((const struct id_slot *)a)->id, ((const struct id_slot *)b)->id);
}

/* Index of id among the sorted slots, or PLACE_NONE. O(log n). */
static uint32_t find_id(const struct id_slot *s, size_t n, const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s[mid].id, id);
        if (c == 0)
            return s[mid].index;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return PLACE_NONE;
}

/* Exact share of the hash space of each node of pl, into share[node], and
 * what the placement gives each node (points, table entries or slots) into
 * points[node]. */
static void space_shares(const struct placement *pl, double *share, uint64_t *points)
{
    size_t n = pl->n_members;
    for (size_t m = 0; m < n; m++) {
        share[pl->members[m].node] = 0;
        points[pl->members[m].node] = 0;
    }
    if (!n)
        return;
    const struct continuum *c = place_continuum(pl);
    const struct place_params *p = &pl->params;
    if (c) {
        unsigned bits = place_position_bits(p);
        double space = ldexp(1.0, (int)bits);
        for (size_t i = 0; i < c->n; i++)
            points[c->node[i]]++;
        if (c->n == 0)
            return;
        if (c->n == 1 || c->pos[0] == c->pos[c->n - 1]) {
            share[c->node[0]] = 1.0;
            return;
        }
        for (size_t i = 1; i < c->n; i++)
            share[c->node[i]] += (double)(c->pos[i] - c->pos[i - 1]) / space;
        uint64_t wrap = c->pos[0] - c->pos[c->n - 1]; /* mod 2^64 */
        if (bits < 64)
            wrap = (wrap + ((uint64_t)1 << bits)) & (((uint64_t)1 << bits) - 1);
        share[c->node[0]] += (double)wrap / space;
        return;
    }
    if (p->algo == PLACE_MAGLEV || p->algo == PLACE_SLOTS) {
        uint64_t size = p->algo == PLACE_MAGLEV ? p->maglev_size : PLACE_SLOT_COUNT;
        for (uint64_t e = 0; e < size; e++) { /* O(M) lookups */
            uint32_t o = placement_lookup(pl, e);
            if (o != PLACE_NONE) {
                share[o] += 1.0 / (double)size;
                points[o]++;
            }
        }
        return;
    }
    double total = 0;
    for (size_t m = 0; m < n; m++)
        total += p->algo == PLACE_RENDEZVOUS ? pl->members[m].weight : 1.0;
    for (size_t m = 0; m < n; m++)
        share[pl->members[m].node] =
            (p->algo == PLACE_RENDEZVOUS ? pl->members[m].weight : 1.0) / total;
}

/* Fills side from per-node keys (indexed by node) of the members of pl. */
static void fill_side(struct ring_side *side, const struct placement *pl, const uint64_t *keys,
                      const double *space, uint64_t count, uint32_t cap)
{
    size_t n = pl->n_members;
    const struct place_params *p = &pl->params;
    bool weighted = place_algo_uses_weights(p->algo);
    double total_w = 0;
    for (size_t m = 0; m < n; m++)
        total_w += weighted ? pl->members[m].weight : 1.0;
    memset(side, 0, sizeof *side);
    side->n = n;
    side->min_keys = UINT64_MAX;
    double avg = (double)count / (double)n;
    for (size_t m = 0; m < n; m++) {
        uint32_t node = pl->members[m].node;
        double fair = (weighted ? pl->members[m].weight : 1.0) / total_w;
        side->max_keys = MAX(side->max_keys, keys[node]);
        side->min_keys = MIN(side->min_keys, keys[node]);
        side->max_over_fair = MAX(side->max_over_fair, (double)keys[node] / (fair * count));
        side->space_max_over_avg = MAX(side->space_max_over_avg, space[node] * (double)n);
    }
    side->max_over_avg = (double)side->max_keys / avg;
    side->max_over_min =
        side->min_keys ? (double)side->max_keys / (double)side->min_keys : INFINITY;
    side->points = pl->n_points;
    side->points_per_node = n ? (double)pl->n_points / (double)n : 0;
    if (place_continuum(pl) && side->points_per_node > 0) {
        side->share_std = 1.0 / ((double)n * sqrt(side->points_per_node));
        side->share_rel_std = 1.0 / sqrt(side->points_per_node);
    } else {
        side->share_std = side->share_rel_std = NAN;
    }
    side->sampling_rel_std = sqrt((double)(n - 1) / (double)count);
    side->cap = cap;
    if (p->algo == PLACE_MAGLEV || p->algo == PLACE_SLOTS) {
        side->table_size = p->algo == PLACE_MAGLEV ? p->maglev_size : PLACE_SLOT_COUNT;
        side->table_min = UINT64_MAX;
        for (size_t m = 0; m < n; m++) {
            uint64_t entries = llround(space[pl->members[m].node] * (double)side->table_size);
            side->table_min = MIN(side->table_min, entries);
            side->table_max = MAX(side->table_max, entries);
        }
    }
}

static uint32_t static_cap(const struct place_params *p, uint64_t count, size_t n)
{
    if (p->algo != PLACE_BOUNDED || !n)
        return 0;
    return placement_bounded_cap(p->load_factor, count, n);
}

/* What the steps of one analysis share. */
struct analysis {
    const struct ring_input *in;
    struct ring_result *out;
    struct key_format kf;
    struct placement *pb, *pa;  /* before and after, nodes numbered as out->nodes */
    uint64_t *kb, *ka;          /* keys per node, before and after */
    uint32_t cap_b, cap_a;      /* bounded: the static caps; 0 otherwise */
};

/* Step 1: the key pattern, the key range and the memberships are usable. */
static int check_input(struct analysis *a, char *err, size_t errlen)
{
    const struct ring_input *in = a->in;
    const char *fmt = in->key_format ? in->key_format : "key-%06d";
    const char *why = key_format_init(&a->kf, fmt);
    if (why) {
        place_err(err, errlen, "key format \"%s\" %s", fmt, why);
        return -1;
    }
    if (in->key_count == 0 || in->key_count > (uint64_t)INT64_MAX ||
        in->key_start > (uint64_t)INT64_MAX - in->key_count) {
        place_err(err, errlen, "keys %llu..%llu+%llu are out of range",
                  (unsigned long long)in->key_start, (unsigned long long)in->key_start,
                  (unsigned long long)in->key_count);
        return -1;
    }
    if (in->n_before == 0 || (in->after && in->n_after == 0)) {
        place_err(err, errlen, "%s membership is empty", in->n_before ? "the after" : "the before");
        return -1;
    }
    return 0;
}

/* Step 2: one numbering for both memberships (before's members first, then
 * after's new ones, in out->nodes) and a placement of each. O(n log n) plus
 * the builds. */
static int build_placements(struct analysis *a, char *err, size_t errlen)
{
    const struct ring_input *in = a->in;
    struct ring_result *out = a->out;
    const struct place_member *after = in->after ? in->after : in->before;
    size_t n_after = in->after ? in->n_after : in->n_before;
    size_t cap_nodes = in->n_before + n_after, n_nodes = 0;
    struct place_member *mb = xcalloc(in->n_before, sizeof *mb);
    struct place_member *ma = xcalloc(n_after, sizeof *ma);
    struct id_slot *sorted = xcalloc(cap_nodes, sizeof *sorted);
    char perr[256];
    int rc = -1;
    out->nodes = xcalloc(cap_nodes, sizeof *out->nodes);
    for (size_t i = 0; i < in->n_before; i++) {
        mb[i] = in->before[i];
        mb[i].node = (uint32_t)i;
    }
    a->pb = placement_create(&in->params, mb, in->n_before, NULL, perr, sizeof perr);
    if (!a->pb) {
        place_err(err, errlen, "before: %s", perr);
        goto out;
    }
    for (size_t i = 0; i < in->n_before; i++) {
        out->nodes[n_nodes] = (struct ring_node_stat){
            .id = xstrdup(mb[i].id), .in_before = true, .weight_before = mb[i].weight};
        sorted[i] = (struct id_slot){out->nodes[n_nodes].id, (uint32_t)n_nodes};
        n_nodes++;
    }
    qsort(sorted, in->n_before, sizeof *sorted, id_slot_cmp);
    for (size_t i = 0; i < n_after; i++) {
        ma[i] = after[i];
        uint32_t idx = find_id(sorted, in->n_before, after[i].id ? after[i].id : "");
        if (idx == PLACE_NONE) {
            idx = (uint32_t)n_nodes;
            out->nodes[n_nodes++] = (struct ring_node_stat){
                .id = xstrdup(after[i].id ? after[i].id : ""), .weight_after = after[i].weight};
        } else {
            out->nodes[idx].weight_after = after[i].weight;
        }
        /* a duplicate id in after is caught by placement_create */
        ma[i].node = idx;
    }
    out->n_nodes = n_nodes;
    a->pa = placement_create(&in->params, ma, n_after, a->pb, perr, sizeof perr);
    if (!a->pa) {
        place_err(err, errlen, "after: %s", perr);
        goto out;
    }
    for (size_t i = 0; i < n_after; i++)
        out->nodes[ma[i].node].in_after = true;
    rc = 0;
out:
    free(sorted);
    free(mb);
    free(ma);
    return rc;
}

/* Step 3: every key named, positioned and looked up on both placements, one
 * at a time (memory does not grow with the count); bounded keys are capped
 * in key order. Counts keys per node and the keys moved, by kind.
 * O(count × (hash + lookup)). */
static void place_keys(struct analysis *a)
{
    const struct ring_input *in = a->in;
    struct ring_result *out = a->out;
    size_t n_nodes = out->n_nodes;
    uint32_t *lb = xcalloc(n_nodes, sizeof *lb), *la = xcalloc(n_nodes, sizeof *la);
    char *key = xmalloc(a->kf.max_len + 1);
    bool bounded = in->params.algo == PLACE_BOUNDED;
    for (uint64_t k = 0; k < in->key_count; k++) {
        size_t len = key_format_render(&a->kf, in->key_start + k, key, a->kf.max_len + 1);
        uint64_t pos = placement_key_position(&in->params, key, len);
        uint32_t ob, oa;
        if (bounded) {
            ob = placement_lookup_bounded(a->pb, pos, lb, a->cap_b);
            oa = placement_lookup_bounded(a->pa, pos, la, a->cap_a);
            lb[ob]++;
            la[oa]++;
        } else {
            ob = placement_lookup(a->pb, pos);
            oa = placement_lookup(a->pa, pos);
        }
        a->kb[ob]++;
        a->ka[oa]++;
        if (ob != oa) {
            out->moved++;
            if (!out->nodes[ob].in_after)
                out->moved_from_removed++;
            else if (!out->nodes[oa].in_before)
                out->moved_to_new++;
            else
                out->moved_between_old++;
        }
    }
    free(key);
    free(lb);
    free(la);
}

/* Step 4: keys and exact hash-space shares per node, and the figures of
 * each membership. */
static void fill_figures(struct analysis *a)
{
    struct ring_result *out = a->out;
    size_t n_nodes = out->n_nodes;
    double *sb_share = xcalloc(n_nodes, sizeof *sb_share);
    double *sa_share = xcalloc(n_nodes, sizeof *sa_share);
    uint64_t *pb = xcalloc(n_nodes, sizeof *pb), *pa = xcalloc(n_nodes, sizeof *pa);
    for (size_t i = 0; i < n_nodes; i++) {
        out->nodes[i].keys_before = a->kb[i];
        out->nodes[i].keys_after = a->ka[i];
    }
    space_shares(a->pb, sb_share, pb);
    space_shares(a->pa, sa_share, pa);
    for (size_t i = 0; i < n_nodes; i++) {
        out->nodes[i].space_before = sb_share[i];
        out->nodes[i].space_after = sa_share[i];
        out->nodes[i].points_before = out->nodes[i].in_before ? pb[i] : 0;
        out->nodes[i].points_after = out->nodes[i].in_after ? pa[i] : 0;
    }
    free(pb);
    free(pa);
    fill_side(&out->before, a->pb, a->kb, sb_share, a->in->key_count, a->cap_b);
    fill_side(&out->after, a->pa, a->ka, sa_share, a->in->key_count, a->cap_a);
    free(sb_share);
    free(sa_share);
}

/* Step 5: the least share of keys any placement must move for this change:
 * the total drop of fair shares (weight shares, or 1/N when weights are
 * ignored). */
static double least_movement(const struct ring_result *out, place_algo algo)
{
    bool weighted = place_algo_uses_weights(algo);
    double wb = 0, wa = 0, ideal = 0;
    for (size_t i = 0; i < out->n_nodes; i++) {
        const struct ring_node_stat *ns = &out->nodes[i];
        wb += ns->in_before ? (weighted ? ns->weight_before : 1.0) : 0;
        wa += ns->in_after ? (weighted ? ns->weight_after : 1.0) : 0;
    }
    for (size_t i = 0; i < out->n_nodes; i++) {
        const struct ring_node_stat *ns = &out->nodes[i];
        double fb = ns->in_before ? (weighted ? ns->weight_before : 1.0) / wb : 0;
        double fa = ns->in_after ? (weighted ? ns->weight_after : 1.0) / wa : 0;
        if (fb > fa)
            ideal += fb - fa;
    }
    return ideal;
}

/* Step 6: the keys asked for by name, positioned and looked up on both
 * placements (bounded: the uncapped owner). O(n_lookup × (hash + lookup)). */
static void look_up(struct analysis *a)
{
    const struct ring_input *in = a->in;
    struct ring_result *out = a->out;
    out->n_lookups = in->n_lookup;
    out->lookups = in->n_lookup ? xcalloc(in->n_lookup, sizeof *out->lookups) : NULL;
    for (size_t i = 0; i < in->n_lookup; i++) {
        struct ring_lookup *l = &out->lookups[i];
        l->position = placement_key_position(&in->params, in->lookup[i].bytes, in->lookup[i].len);
        l->owner_before = placement_lookup(a->pb, l->position);
        l->owner_after = placement_lookup(a->pa, l->position);
    }
}

int ring_analyze(const struct ring_input *in, struct ring_result *out, char *err, size_t errlen)
{
    struct analysis a = {.in = in, .out = out};
    int rc = -1;
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    if (check_input(&a, err, errlen) != 0 || build_placements(&a, err, errlen) != 0)
        goto out;
    out->has_after = in->after != NULL;
    out->count = in->key_count;
    a.kb = xcalloc(out->n_nodes, sizeof *a.kb);
    a.ka = xcalloc(out->n_nodes, sizeof *a.ka);
    a.cap_b = static_cap(&in->params, in->key_count, in->n_before);
    a.cap_a = static_cap(&in->params, in->key_count, in->after ? in->n_after : in->n_before);
    place_keys(&a);
    fill_figures(&a);
    out->moved_ideal = least_movement(out, in->params.algo);
    look_up(&a);
    rc = 0;
out:
    if (rc)
        ring_result_deinit(out);
    placement_destroy(a.pb);
    placement_destroy(a.pa);
    key_format_deinit(&a.kf);
    free(a.kb);
    free(a.ka);
    return rc;
}

void ring_result_deinit(struct ring_result *r)
{
    for (size_t i = 0; r->nodes && i < r->n_nodes; i++)
        free(r->nodes[i].id);
    free(r->nodes);
    free(r->lookups);
    memset(r, 0, sizeof *r);
}
