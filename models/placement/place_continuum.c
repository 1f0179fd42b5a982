/*
 * place_continuum.c — the sorted ring of points shared by ring, ketama and
 * bounded (layout in place_internal.h).
 *
 * Invariants, checked by continuum_check() in debug builds:
 *   - pos is ascending; equal positions are ordered by (member id, point i),
 *     so the order in which members were listed never changes an owner;
 *   - bucket[b] is the first point whose pos >> shift >= b, bucket[0] = 0,
 *     bucket[nbucket] = n, and bucket is non-decreasing;
 *   - next_other[i] is the first point after i (cyclically) whose member
 *     differs from member[i], or i when one member owns every point;
 *   - owner[s] answers for slice s (positions whose p >> owner_shift is s)
 *     exactly as the search does: see owner_table().
 */
#include "models/placement/place_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static int cpoint_cmp(const void *a, const void *b)
{
    const struct cpoint *x = a, *y = b;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

#ifndef NDEBUG
static void continuum_check(const struct continuum *c)
{
    for (size_t i = 1; i < c->n; i++)
        assert(c->pos[i - 1] <= c->pos[i]);
    assert(c->bucket[0] == 0 && c->bucket[c->nbucket] == c->n);
    for (uint64_t b = 0; b < c->nbucket; b++) {
        assert(c->bucket[b] <= c->bucket[b + 1]);
        for (size_t i = c->bucket[b]; i < c->bucket[b + 1]; i++)
            assert((c->pos[i] >> c->shift) == b);
    }
    for (size_t i = 0; i < c->n; i++)
        assert(c->next_other[i] == i || c->member[c->next_other[i]] != c->member[i]);
    /* the owner table against the search, at and around every point */
    for (size_t i = 0; i < c->n; i++)
        for (int d = -1; d <= 1; d++) {
            uint64_t p = c->pos[i] + (uint64_t)(int64_t)d;
            assert(continuum_lookup(c, p) == c->node[continuum_index(c, p)]);
        }
}
#endif

static unsigned bit_length(uint64_t v)
{
    return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
}

/* The owner table: for each slice, the points in it decide. None: every
 * position in it belongs to the next point on (the first point when none
 * is left). One, at q: up to q its own node, after q the next point's.
 * More: the search. O(n + nowner). */
static void owner_table(struct continuum *c)
{
    size_t i = 0;
    for (uint64_t s = 0; s < c->nowner; s++) {
        size_t lo = i;
        while (i < c->n && (c->pos[i] >> c->owner_shift) == s)
            i++;
        struct cowner *o = &c->owner[s];
        if (i == lo) {
            uint32_t next = !c->n ? PLACE_NONE : c->node[lo < c->n ? lo : 0];
            *o = (struct cowner){UINT64_MAX, next, next};
        } else if (i == lo + 1) {
            *o = (struct cowner){c->pos[lo], c->node[lo], c->node[i < c->n ? i : 0]};
        } else {
            *o = (struct cowner){UINT64_MAX, CONTINUUM_SEARCH, CONTINUUM_SEARCH};
        }
    }
}

int continuum_build(struct continuum *c, struct cpoint *pts, size_t n,
                    const struct placement *pl, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (n > PLACE_MAX_POINTS) {
        place_err(err, errlen, "%zu points on the ring is more than the limit %u", n,
                  PLACE_MAX_POINTS);
        return -1;
    }
    qsort(pts, n, sizeof *pts, cpoint_cmp);

    /* ~1 point per bucket, between 2 and 2^20 buckets */
    unsigned bits = bit_length(n > 1 ? (uint64_t)n - 1 : 1);
    bits = MAX(bits, 1u);
    bits = MIN(bits, 20u);
    /* the range the points cover: 32-bit hashes use only the low half */
    unsigned width = n ? bit_length(pts[n - 1].pos) : 64;
    width = MAX(width, bits);
    c->shift = width - bits;
    c->nbucket = (uint64_t)1 << bits;
    c->n = n;
    /* the owner table: 4 slices a point (a slice holds two points or more
     * for about 2% of positions), at most 2^20 slices (16 MiB) */
    unsigned obits = MIN(MIN(bits + 2, width), 20u);
    c->owner_shift = width - obits;
    c->nowner = (uint64_t)1 << obits;

    c->pos = malloc((n ? n : 1) * sizeof *c->pos);
    c->node = malloc((n ? n : 1) * sizeof *c->node);
    c->member = malloc((n ? n : 1) * sizeof *c->member);
    c->next_other = malloc((n ? n : 1) * sizeof *c->next_other);
    c->bucket = malloc((c->nbucket + 1) * sizeof *c->bucket);
    c->owner = malloc(c->nowner * sizeof *c->owner);
    if (!c->pos || !c->node || !c->member || !c->next_other || !c->bucket || !c->owner) {
        continuum_deinit(c);
        place_err(err, errlen, "out of memory for %zu ring points", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        c->pos[i] = pts[i].pos;
        c->member[i] = pts[i].member;
        c->node[i] = pl->members[pts[i].member].node;
        assert(c->node[i] < CONTINUUM_SEARCH);
    }

    /* bucket index: one pass over the sorted points. O(n + nbucket). */
    size_t i = 0;
    for (uint64_t b = 0; b < c->nbucket; b++) {
        while (i < n && (c->pos[i] >> c->shift) < b)
            i++;
        c->bucket[b] = (uint32_t)i;
    }
    c->bucket[c->nbucket] = (uint32_t)n;
    owner_table(c);

    /* next_other: backwards, after seeding the last point by a forward scan. O(n). */
    if (n) {
        size_t j = 0;
        while (j < n && c->member[j] == c->member[n - 1])
            j++;
        if (j == n) {
            for (size_t k = 0; k < n; k++)
                c->next_other[k] = (uint32_t)k;
        } else {
            c->next_other[n - 1] = (uint32_t)j;
            for (size_t k = n - 1; k-- > 0;)
                c->next_other[k] = c->member[k + 1] != c->member[k] ? (uint32_t)(k + 1)
                                                                   : c->next_other[k + 1];
        }
    }
#ifndef NDEBUG
    if (n <= 200000)
        continuum_check(c);
#endif
    return 0;
}

void continuum_deinit(struct continuum *c)
{
    free(c->pos);
    free(c->node);
    free(c->member);
    free(c->next_other);
    free(c->bucket);
    free(c->owner);
    memset(c, 0, sizeof *c);
}

size_t continuum_successors(const struct continuum *c, uint64_t p, uint32_t *out, size_t max)
{
    if (!c->n || !max)
        return 0;
    size_t start = continuum_index(c, p), i = start, got = 0, walked = 0;
    for (;;) {
        uint32_t node = c->node[i];
        bool seen = false;
        for (size_t k = 0; k < got && !seen; k++)
            seen = out[k] == node;
        if (!seen) {
            out[got++] = node;
            if (got == max)
                break;
        }
        size_t next = c->next_other[i];
        if (next == i)
            break; /* one member owns everything */
        walked += next > i ? next - i : c->n - i + next;
        if (walked >= c->n)
            break; /* once around the ring */
        i = next;
    }
    return got;
}

uint32_t continuum_lookup_capped(const struct continuum *c, uint64_t p, const uint32_t *load,
                                 uint32_t cap)
{
    if (!c->n)
        return PLACE_NONE;
    size_t i = continuum_index(c, p), walked = 0;
    uint32_t owner = c->node[i];
    for (;;) {
        if (load[c->node[i]] < cap)
            return c->node[i];
        size_t next = c->next_other[i];
        if (next == i)
            return owner;
        walked += next > i ? next - i : c->n - i + next;
        if (walked >= c->n)
            return owner; /* every node is full */
        i = next;
    }
}

uint32_t continuum_op_lookup(const struct placement *pl, uint64_t pos)
{
    return continuum_lookup(pl->impl, pos);
}

size_t continuum_op_successors(const struct placement *pl, uint64_t pos, uint32_t *out,
                               size_t max)
{
    return continuum_successors(pl->impl, pos, out, max);
}

void continuum_op_destroy(struct placement *pl)
{
    if (pl->impl)
        continuum_deinit(pl->impl);
    free(pl->impl);
    pl->impl = NULL;
}

int continuum_attach(struct placement *pl, const uint32_t *count, continuum_points_fn gen,
                     const char *what, char *err, size_t errlen)
{
    size_t n = pl->n_members;
    uint64_t total = 0;
    for (size_t m = 0; m < n; m++)
        total += count[m];
    if (total > PLACE_MAX_POINTS) {
        place_err(err, errlen, "%llu %s points is more than the limit %u",
                  (unsigned long long)total, what, PLACE_MAX_POINTS);
        return -1;
    }
    struct cpoint *pts = malloc((total ? total : 1) * sizeof *pts);
    uint64_t *pos = malloc((total ? total : 1) * sizeof *pos);
    struct continuum *c = xcalloc(1, sizeof *c);
    uint32_t *by_id = place_members_by_id(pl);
    uint32_t *rank = xmalloc((n ? n : 1) * sizeof *rank);
    struct strbuf sb;
    int rc = -1;
    sb_init(&sb);
    if (!pts || !pos) {
        place_err(err, errlen, "out of memory for %llu %s points", (unsigned long long)total,
                  what);
        goto out;
    }
    for (size_t r = 0; r < n; r++)
        rank[by_id[r]] = (uint32_t)r;
    size_t k = 0;
    for (size_t m = 0; m < n; m++) {
        gen(pl, m, count[m], pos + k, &sb);
        for (uint32_t i = 0; i < count[m]; i++)
            pts[k + i] = (struct cpoint){pos[k + i], rank[m], (uint32_t)m, i};
        k += count[m];
    }
    if (continuum_build(c, pts, total, pl, err, errlen) != 0)
        goto out;
    pl->impl = c;
    pl->n_points = c->n;
    c = NULL;
    rc = 0;
out:
    sb_deinit(&sb);
    free(rank);
    free(by_id);
    free(pts);
    free(pos);
    free(c);
    return rc;
}
