/*
 * place_rendezvous.c — rendezvous (highest random weight) hashing.
 *
 * For a key at position p and a member m whose name hashes to
 * h_m = hash_position(hash, name):
 *     score(m, p) = mix64(p XOR h_m)                 (splitmix64 finaliser, sim/util.h)
 *     U(m, p)     = ((score >> 12) + 0.5) / 2^52     (exact in a double, 0 < U < 1)
 *     weighted    = weight_m / −ln U(m, p)
 * and the owner is the member with the largest weighted score; ties go to
 * the smaller id. When every weight is equal the order of weighted scores is
 * the order of (score >> 12), so the lookup compares those integers and
 * skips the logarithm (same owner: −ln is strictly decreasing and, for
 * U on this grid, adjacent values stay distinct after rounding).
 *
 * Adding a member moves keys only to it; removing one moves only its keys;
 * the listing order never matters (members are scanned in id order).
 *
 * Cost: build O(N log N); lookup O(N) (one mix64 per member, plus a log when
 * weights differ); successors O(N · max).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/place_internal.h"

struct rv_member {
    uint64_t name_hash;
    double weight;
    uint32_t node;
};

struct rv_impl {
    size_t n;
    bool equal_weights;
    struct rv_member m[]; /* in id order */
};

static int rv_build(struct placement *pl, const struct placement *prev, char *err,
                    size_t errlen)
{
    (void)prev, (void)err, (void)errlen;
    size_t n = pl->n_members;
    struct rv_impl *im = xmalloc(sizeof *im + (n ? n : 1) * sizeof im->m[0]);
    uint32_t *by_id = place_members_by_id(pl);
    im->n = n;
    im->equal_weights = true;
    for (size_t r = 0; r < n; r++) {
        size_t k = by_id[r];
        const char *name = place_member_name(pl, k);
        im->m[r].name_hash = hash_position(pl->params.hash, name, strlen(name));
        im->m[r].weight = pl->members[k].weight;
        im->m[r].node = pl->members[k].node;
        if (im->m[r].weight != im->m[0].weight)
            im->equal_weights = false;
    }
    free(by_id);
    pl->impl = im;
    return 0;
}

/* The member's weighted score, as a double that orders like the formula. */
static inline double rv_score(const struct rv_impl *im, size_t r, uint64_t pos)
{
    uint64_t s = mix64(pos ^ im->m[r].name_hash) >> 12;
    if (im->equal_weights)
        return (double)s; /* < 2^52: exact */
    double u = ((double)s + 0.5) * 0x1p-52;
    return im->m[r].weight / -log(u);
}

static uint32_t rv_lookup(const struct placement *pl, uint64_t pos)
{
    const struct rv_impl *im = pl->impl;
    if (!im->n)
        return PLACE_NONE;
    size_t best = 0;
    double best_score = rv_score(im, 0, pos);
    for (size_t r = 1; r < im->n; r++) {
        double s = rv_score(im, r, pos);
        if (s > best_score) { /* strict: ties keep the smaller id */
            best_score = s;
            best = r;
        }
    }
    return im->m[best].node;
}

/* Members by descending score: selection by repeated passes, each taking the
 * best that ranks below the previous pick in (score desc, id asc) order. */
static size_t rv_successors(const struct placement *pl, uint64_t pos, uint32_t *out, size_t max)
{
    const struct rv_impl *im = pl->impl;
    double prev_score = INFINITY;
    size_t prev_r = 0, got = 0;
    bool first = true;
    while (got < max && got < im->n) {
        size_t best = SIZE_MAX;
        double best_score = -INFINITY;
        for (size_t r = 0; r < im->n; r++) {
            double s = rv_score(im, r, pos);
            bool after_prev = first || s < prev_score || (s == prev_score && r > prev_r);
            if (after_prev && (best == SIZE_MAX || s > best_score)) {
                best = r;
                best_score = s;
            }
        }
        if (best == SIZE_MAX)
            break;
        out[got++] = im->m[best].node;
        prev_score = best_score;
        prev_r = best;
        first = false;
    }
    return got;
}

static void rv_destroy(struct placement *pl)
{
    free(pl->impl);
    pl->impl = NULL;
}

const struct place_ops place_rendezvous_ops = {
    .name = "rendezvous",
    .build = rv_build,           /* name hashes, in id order */
    .lookup = rv_lookup,         /* highest weight / -ln U */
    .successors = rv_successors, /* members by descending score */
    .destroy = rv_destroy,
};
