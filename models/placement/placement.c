/*
 * placement.c — the registry of placement algorithms and what every
 * algorithm shares: parameter defaults and checks, member validation and
 * copying, key positions, preference order, and the bounded-load helpers.
 *
 * Each algorithm lives in place_<name>.c behind one `const struct place_ops`;
 * the tables below are generated from PLACE_CODEC, so adding an algorithm is
 * one line there and one file.
 *
 * The checks here are the one validator of parameters and memberships
 * (placement.h): placement_create() builds only what they accept, the
 * builds count points with the same functions (place_ring_points,
 * place_ketama_points), so a check that passes means the build fits.
 *
 * Invariants of a placement returned by placement_create():
 *   - members are copies (strings owned), ids distinct and non-empty, weights
 *     finite and > 0, node indexes distinct and != PLACE_NONE;
 *   - params.point_format is owned and valid (place_check_point_format);
 *   - pl->lookup == pl->ops->lookup, and the placement never changes again.
 */
#include "models/placement/placement.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/place_internal.h"
#include "sim/util.h"

/* ---- registry ------------------------------------------------------------ */

#define PLACE_OPS_ENTRY(e, name, ops) [e] = &ops,
static const struct place_ops *const place_ops_table[PLACE_COUNT] = {
    PLACE_CODEC(PLACE_OPS_ENTRY)};
#undef PLACE_OPS_ENTRY

#define PLACE_NAME_ENTRY(e, name, ops) [e] = name,
static const char *const place_name_table[PLACE_COUNT] = {PLACE_CODEC(PLACE_NAME_ENTRY)};
#undef PLACE_NAME_ENTRY

#define PLACE_JOIN(e, name, ops) "|" name
static const char place_names_joined[] = PLACE_CODEC(PLACE_JOIN);
#undef PLACE_JOIN

const char *place_algo_name(place_algo a)
{
    return (unsigned)a < PLACE_COUNT ? place_name_table[a] : "?";
}

int place_algo_from_name(const char *name, place_algo *a)
{
    int i = name_index(place_name_table, PLACE_COUNT, name);
    if (i < 0)
        return -1;
    *a = (place_algo)i;
    return 0;
}

const char *place_algo_names(void)
{
    return place_names_joined + 1;
}

void place_params_default(struct place_params *p, place_algo a)
{
    memset(p, 0, sizeof *p);
    p->algo = a;
    p->hash = HASH_SHA256;
    p->vnodes = PLACE_DEFAULT_VNODES;
    p->point_format = PLACE_DEFAULT_POINT_FORMAT;
    p->node_key_address = false;
    p->load_factor = PLACE_DEFAULT_LOAD_FACTOR;
    p->maglev_size = PLACE_DEFAULT_MAGLEV_SIZE;
}

/* ---- shared helpers (place_internal.h) ------------------------------------ */

void place_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

struct id_ref {
    const char *id;
    uint32_t m;
};

static int id_ref_cmp(const void *a, const void *b)
{
    const struct id_ref *x = a, *y = b;
    return strcmp(x->id, y->id);
}

uint32_t *place_members_by_id(const struct placement *pl)
{
    size_t n = pl->n_members;
    struct id_ref *refs = xmalloc((n ? n : 1) * sizeof *refs);
    uint32_t *order = xmalloc((n ? n : 1) * sizeof *order);
    for (size_t i = 0; i < n; i++)
        refs[i] = (struct id_ref){pl->members[i].id, (uint32_t)i};
    qsort(refs, n, sizeof *refs, id_ref_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = refs[i].m;
    free(refs);
    return order;
}

unsigned place_position_bits(const struct place_params *p)
{
    if (p->algo == PLACE_SLOTS)
        return 14;
    if (p->algo == PLACE_KETAMA || p->hash == HASH_CRC32)
        return 32;
    return 64;
}

/* ---- point format --------------------------------------------------------- */

const char *place_check_point_format(const char *fmt)
{
    int n_s = 0, n_d = 0;
    if (!fmt || !*fmt)
        return "is empty";
    if (strlen(fmt) > PLACE_MAX_POINT_FORMAT)
        return "is longer than 256 characters";
    for (const char *p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        if (*p == 's') {
            if (n_s || n_d)
                return n_s ? "has more than one %s" : "has %d before %s (the name comes first)";
            n_s++;
            continue;
        }
        /* %[-+ 0]*[width]d */
        while (*p && strchr("-+ 0", *p))
            p++;
        int width_digits = 0;
        while (*p >= '0' && *p <= '9') {
            p++;
            width_digits++;
        }
        if (*p != 'd')
            return "has a conversion other than %s, %d and %% (flags and a width are "
                   "allowed on %d only)";
        if (width_digits > 2)
            return "has a %d width over 99";
        if (!n_s)
            return "has %d before %s (the name comes first)";
        if (n_d)
            return "has more than one %d";
        n_d++;
    }
    if (!n_s)
        return "needs one %s (the node's name)";
    if (!n_d)
        return "needs one %d after the %s (the point number)";
    return NULL;
}

/* ---- checks: the one validator ------------------------------------------- */

static bool is_prime(uint32_t m)
{
    if (m < 2)
        return false;
    if (m % 2 == 0)
        return m == 2;
    for (uint32_t d = 3; (uint64_t)d * d <= m; d += 2) /* O(sqrt m) */
        if (m % d == 0)
            return false;
    return true;
}

static bool uses_vnodes(place_algo a)
{
    return a == PLACE_RING || a == PLACE_BOUNDED;
}

enum place_fault placement_check_params(const struct place_params *p, char *err, size_t errlen)
{
    if ((unsigned)p->algo >= PLACE_COUNT) {
        place_err(err, errlen, "unknown placement algorithm %d", (int)p->algo);
        return PLACE_FAULT_ALGO;
    }
    if ((unsigned)p->hash >= HASH_COUNT) {
        place_err(err, errlen, "unknown hash %d", (int)p->hash);
        return PLACE_FAULT_HASH;
    }
    if (uses_vnodes(p->algo)) {
        if (p->vnodes < 1 || p->vnodes > PLACE_MAX_VNODES) {
            place_err(err, errlen, "vnodes must be between 1 and %u, got %u", PLACE_MAX_VNODES,
                      p->vnodes);
            return PLACE_FAULT_VNODES;
        }
        const char *why = place_check_point_format(p->point_format);
        if (p->point_format && why) {
            place_err(err, errlen, "point_format \"%s\" %s", p->point_format, why);
            return PLACE_FAULT_POINT_FORMAT;
        }
    }
    if (p->algo == PLACE_BOUNDED &&
        !(p->load_factor > PLACE_MIN_LOAD_FACTOR && p->load_factor <= PLACE_MAX_LOAD_FACTOR)) {
        place_err(err, errlen, "load_factor must be above %g and at most %g, got %g",
                  PLACE_MIN_LOAD_FACTOR, PLACE_MAX_LOAD_FACTOR, p->load_factor);
        return PLACE_FAULT_LOAD_FACTOR;
    }
    if (p->algo == PLACE_MAGLEV &&
        (p->maglev_size > PLACE_MAX_MAGLEV_SIZE || !is_prime(p->maglev_size))) {
        place_err(err, errlen, "maglev table size must be a prime up to %u, got %u",
                  PLACE_MAX_MAGLEV_SIZE, p->maglev_size);
        return PLACE_FAULT_MAGLEV_SIZE;
    }
    return PLACE_OK;
}

uint64_t place_ring_points(uint32_t vnodes, double weight)
{
    double want = (double)vnodes * weight;
    if (!(want <= PLACE_MAX_POINTS)) /* also NaN: saturate, the check reports it */
        return (uint64_t)PLACE_MAX_POINTS + 1;
    long long rounded = llround(want); /* half away from zero */
    return rounded < 1 ? 1 : (uint64_t)rounded;
}

uint32_t place_ketama_points(double weight, double total_weight, size_t n)
{
    float pct = (float)weight / (float)total_weight;
    float quarter = (float)(pct * PLACE_KETAMA_POINTS / 4 * (float)n + 0.0000000001);
    return (uint32_t)floorf(quarter) * 4;
}

uint64_t placement_points(const struct place_params *p, const struct place_member *m, size_t n)
{
    uint64_t total = 0;
    if (uses_vnodes(p->algo)) {
        for (size_t i = 0; i < n; i++)
            total += place_ring_points(p->vnodes, m[i].weight);
    } else if (p->algo == PLACE_KETAMA) {
        double total_weight = 0;
        for (size_t i = 0; i < n; i++)
            total_weight += m[i].weight;
        for (size_t i = 0; i < n; i++)
            total += place_ketama_points(m[i].weight, total_weight, n);
    }
    return total;
}

/* Each member alone: id, weight, node index, address. */
static enum place_fault check_each_member(const struct place_params *p,
                                          const struct place_member *m, size_t n, char *err,
                                          size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (!m[i].id || !*m[i].id) {
            place_err(err, errlen, "node %zu has an empty id", i + 1);
            return PLACE_FAULT_MEMBER;
        }
        if (!(m[i].weight > 0 && m[i].weight <= PLACE_MAX_WEIGHT)) {
            place_err(err, errlen, "node %s: weight must be a number above 0 and at most %g, "
                      "got %g", m[i].id, PLACE_MAX_WEIGHT, m[i].weight);
            return PLACE_FAULT_MEMBER;
        }
        if (m[i].node == PLACE_NONE) {
            place_err(err, errlen, "node %s: node index %u is reserved", m[i].id, PLACE_NONE);
            return PLACE_FAULT_MEMBER;
        }
        if (p->node_key_address && (!m[i].address || !*m[i].address)) {
            place_err(err, errlen, "node %s has no address (node_key is address)", m[i].id);
            return PLACE_FAULT_MEMBER;
        }
    }
    return PLACE_OK;
}

/* The first member whose key (its id, address or node index) equals an
 * earlier member's, or SIZE_MAX. Open addressing with linear probing, at
 * most half full: O(n) expected. */
enum member_key { KEY_ID, KEY_ADDRESS, KEY_NODE };

static uint64_t member_key_hash(const struct place_member *x, enum member_key k)
{
    if (k == KEY_NODE)
        return mix64(x->node);
    const char *s = k == KEY_ID ? x->id : x->address;
    return fnv1a_64(s, strlen(s));
}

static bool member_key_equal(const struct place_member *x, const struct place_member *y,
                             enum member_key k)
{
    if (k == KEY_NODE)
        return x->node == y->node;
    return k == KEY_ID ? !strcmp(x->id, y->id) : !strcmp(x->address, y->address);
}

static size_t first_repeat(const struct place_member *m, size_t n, enum member_key k)
{
    struct slot {
        uint64_t hash;
        uint32_t i; /* UINT32_MAX: empty (n <= PLACE_MAX_MEMBERS) */
    } *slot;
    size_t cap = 16, found = SIZE_MAX;
    while (cap < 2 * n)
        cap *= 2;
    slot = xmalloc(cap * sizeof *slot);
    for (size_t h = 0; h < cap; h++)
        slot[h].i = UINT32_MAX;
    for (size_t i = 0; i < n && found == SIZE_MAX; i++) {
        uint64_t hash = member_key_hash(&m[i], k);
        size_t h = (size_t)hash & (cap - 1);
        for (; slot[h].i != UINT32_MAX && found == SIZE_MAX; h = (h + 1) & (cap - 1))
            if (slot[h].hash == hash && member_key_equal(&m[slot[h].i], &m[i], k))
                found = i;
        slot[h] = (struct slot){hash, (uint32_t)i};
    }
    free(slot);
    return found;
}

/* Distinct ids (and addresses when they are hashed) and node indexes. O(n)
 * expected. */
static enum place_fault check_distinct(const struct place_params *p,
                                       const struct place_member *m, size_t n, char *err,
                                       size_t errlen)
{
    size_t i;
    if ((i = first_repeat(m, n, KEY_ID)) != SIZE_MAX) {
        place_err(err, errlen, "node \"%s\" appears twice", m[i].id);
        return PLACE_FAULT_MEMBER;
    }
    if (p->node_key_address && (i = first_repeat(m, n, KEY_ADDRESS)) != SIZE_MAX) {
        place_err(err, errlen, "address \"%s\" appears twice", m[i].address);
        return PLACE_FAULT_MEMBER;
    }
    if ((i = first_repeat(m, n, KEY_NODE)) != SIZE_MAX) {
        place_err(err, errlen, "node index %u is used twice", m[i].node);
        return PLACE_FAULT_MEMBER;
    }
    return PLACE_OK;
}

/* What the algorithm can hold: members and points. O(n). */
static enum place_fault check_size(const struct place_params *p, const struct place_member *m,
                                   size_t n, char *err, size_t errlen)
{
    if (n > PLACE_MAX_MEMBERS) {
        place_err(err, errlen, "%zu nodes is more than the limit of %u", n, PLACE_MAX_MEMBERS);
        return PLACE_FAULT_MEMBERS;
    }
    if (p->algo == PLACE_SLOTS && n > PLACE_SLOT_COUNT) {
        place_err(err, errlen, "slots: %zu nodes is more than the %d slots", n,
                  PLACE_SLOT_COUNT);
        return PLACE_FAULT_MEMBERS;
    }
    if (p->algo == PLACE_MAGLEV && p->maglev_size < n) {
        place_err(err, errlen, "the maglev table size %u is smaller than the %zu nodes; "
                  "expected a prime of at least %zu", p->maglev_size, n, n); /* n >= 3 */
        return PLACE_FAULT_MAGLEV_SIZE;
    }
    uint64_t points = placement_points(p, m, n);
    if (points > PLACE_MAX_POINTS) {
        if (uses_vnodes(p->algo)) {
            double exact = 0; /* place_ring_points saturates; the message counts them all */
            for (size_t i = 0; i < n; i++)
                exact += MAX(1.0, round((double)p->vnodes * m[i].weight));
            place_err(err, errlen, "%zu node%s at %u vnodes make%s %.0f ring points (vnodes "
                      "x weight each), more than %u; lower vnodes or the weights", n,
                      n == 1 ? "" : "s", p->vnodes, n == 1 ? "s" : "", exact, PLACE_MAX_POINTS);
        } else
            place_err(err, errlen, "%zu nodes make %llu ketama points (160 each), more than "
                      "%u", n, (unsigned long long)points, PLACE_MAX_POINTS);
        return PLACE_FAULT_POINTS;
    }
    return PLACE_OK;
}

enum place_fault placement_check_membership(const struct place_params *p,
                                            const struct place_member *m, size_t n, char *err,
                                            size_t errlen)
{
    enum place_fault f = check_each_member(p, m, n, err, errlen);
    if (f == PLACE_OK)
        f = check_size(p, m, n, err, errlen);
    if (f == PLACE_OK)
        f = check_distinct(p, m, n, err, errlen);
    return f;
}

/* ---- create / destroy ----------------------------------------------------- */

static void free_members(struct place_member *m, size_t n)
{
    for (size_t i = 0; m && i < n; i++) {
        free((char *)m[i].id);
        free((char *)m[i].address);
    }
    free(m);
}

struct placement *placement_create(const struct place_params *params,
                                   const struct place_member *members, size_t n,
                                   const struct placement *prev, char *err, size_t errlen)
{
    return placement_create_joining(params, members, n, prev, NULL, err, errlen);
}

struct placement *placement_create_joining(const struct place_params *params,
                                           const struct place_member *members, size_t n,
                                           const struct placement *prev, const bool *join_empty,
                                           char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (placement_check_params(params, err, errlen) != PLACE_OK ||
        placement_check_membership(params, members, n, err, errlen) != PLACE_OK)
        return NULL;

    struct placement *pl = xcalloc(1, sizeof *pl);
    pl->ops = place_ops_table[params->algo];
    pl->lookup = pl->ops->lookup;
    pl->params = *params;
    pl->params.point_format =
        xstrdup(params->point_format ? params->point_format : PLACE_DEFAULT_POINT_FORMAT);
    pl->members = xcalloc(n ? n : 1, sizeof *pl->members);
    pl->n_members = n;
    for (size_t i = 0; i < n; i++) {
        pl->members[i] = members[i];
        pl->members[i].id = xstrdup(members[i].id);
        pl->members[i].address = members[i].address ? xstrdup(members[i].address) : NULL;
        pl->max_node = MAX(pl->max_node, members[i].node + 1);
    }
    if (params->algo == PLACE_BOUNDED && pl->max_node) {
        pl->bounded_w = xcalloc(2 * (size_t)pl->max_node, sizeof *pl->bounded_w);
        for (size_t i = 0; i < n; i++) {
            pl->bounded_w[2 * (size_t)members[i].node] = pl->total_weight;
            pl->bounded_w[2 * (size_t)members[i].node + 1] = members[i].weight;
            pl->total_weight += members[i].weight;
        }
    }
    pl->join_empty = join_empty;
    int rc = pl->ops->build(pl, prev, err, errlen);
    pl->join_empty = NULL;
    if (rc != 0) {
        free(pl->bounded_w);
        free_members(pl->members, pl->n_members);
        free((char *)pl->params.point_format);
        free(pl);
        return NULL;
    }
    return pl;
}

void placement_destroy(struct placement *pl)
{
    if (!pl)
        return;
    pl->ops->destroy(pl);
    free(pl->bounded_w);
    free_members(pl->members, pl->n_members);
    free((char *)pl->params.point_format);
    free(pl);
}

/* ---- key positions and preference order ----------------------------------- */

/* Redis Cluster's hash tag: the bytes between the first '{' and the first '}'
 * after it, when there is at least one; otherwise the whole key. */
static uint16_t slot_of_key(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len);
    if (open) {
        size_t from = (size_t)(open - key) + 1;
        const char *close = memchr(open + 1, '}', len - from);
        if (close && close > open + 1)
            return crc16_xmodem(open + 1, (size_t)(close - open - 1)) & (PLACE_SLOT_COUNT - 1);
    }
    return crc16_xmodem(key, len) & (PLACE_SLOT_COUNT - 1);
}

uint64_t placement_key_position(const struct place_params *params, const char *key, size_t len)
{
    switch (params->algo) {
    case PLACE_SLOTS:
        return slot_of_key(key, len);
    case PLACE_KETAMA:
        if (params->hash == HASH_MD5) {
            uint8_t d[16];
            md5_digest(key, len, d);
            return (uint64_t)d[0] | (uint64_t)d[1] << 8 | (uint64_t)d[2] << 16 |
                   (uint64_t)d[3] << 24;
        }
        return (uint32_t)hash_position(params->hash, key, len);
    default:
        return hash_position(params->hash, key, len);
    }
}

size_t placement_successors(const struct placement *pl, uint64_t pos, uint32_t *out, size_t max)
{
    if (!max || !pl->n_members)
        return 0;
    if (pl->ops->successors)
        return pl->ops->successors(pl, pos, out, max);
    out[0] = placement_lookup(pl, pos);
    return out[0] == PLACE_NONE ? 0 : 1;
}

