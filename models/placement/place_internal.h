/*
 * place_internal.h — what the placement files (placement.c, place_*.c,
 * ring_analysis.c) share and nobody else needs: limits, error helper, the
 * id order of members, and the continuum that ring, ketama and bounded
 * are built on.
 *
 * The continuum is a sorted array of points, each owned by a member:
 *
 *     pos    [ 17 | 90 | 90 | 411 | ... | 2^64-5 ]   ascending; ties by (member id, point i)
 *     node   [  B |  A |  C |  A  | ... |   B    ]   caller's node index of the point's member
 *     bucket [ 0, 0, 3, ... ]                        first point whose pos >> shift >= b
 *
 * A position p belongs to the first point with pos >= p (lower bound), and
 * to point 0 when p is beyond the last point. The bucket index narrows the
 * binary search to the points that share p's top bits (about one point per
 * bucket), so a lookup is one or two probes instead of log2(points).
 *
 * Lookups go first through the owner table: four times as many slices of
 * the positions as points, each one entry of 16 bytes saying who owns the
 * slice's positions up to its only point and who owns those after it (both
 * the same when no point falls in the slice). A slice holding two points
 * or more (about 2% of lookups) sends the lookup to the binary search. So
 * the owner is one cache line's read, where the search reads three arrays.
 */
#ifndef RINGSIM_PLACE_INTERNAL_H
#define RINGSIM_PLACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "models/placement/placement.h"
#include "sim/util.h"

/* snprintf into err (if not NULL). */
void place_err(char *err, size_t errlen, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* The name a member is hashed by: its id, or its address with node_key_address. */
static inline const char *place_member_name(const struct placement *pl, size_t m)
{
    return pl->params.node_key_address ? pl->members[m].address : pl->members[m].id;
}

/* Points of one member: ring and bounded (max(1, llround(vnodes x weight)),
 * saturating above PLACE_MAX_POINTS), and ketama (twemproxy's single
 * precision formula, with the total weight and number of members). The
 * builds and placement_points() use these, so the check counts exactly what
 * is built. */
uint64_t place_ring_points(uint32_t vnodes, double weight);
uint32_t place_ketama_points(double weight, double total_weight, size_t n);

/* Member indexes in id order (strcmp). Caller frees. O(n log n). */
uint32_t *place_members_by_id(const struct placement *pl);

/* Bits a key position can have for these parameters: 14 for slots, 32 for
 * ketama and for crc32, 64 otherwise. */
unsigned place_position_bits(const struct place_params *p);

/* ---- continuum (place_continuum.c) ---------------------------------------- */

struct continuum {
    size_t n;              /* points */
    uint64_t *pos;         /* ascending */
    uint32_t *node;        /* the caller's node index of each point */
    uint32_t *member;      /* the member index of each point */
    uint32_t *next_other;  /* next point (cyclically) of another member; i itself if none */
    uint32_t *bucket;      /* nbucket + 1 entries */
    uint64_t nbucket;      /* a power of two */
    unsigned shift;        /* bucket of p = p >> shift */
    struct cowner *owner;  /* the owner table: nowner entries */
    uint64_t nowner;       /* a power of two */
    unsigned owner_shift;  /* slice of p = p >> owner_shift */
};

/* One slice of the owner table: positions up to pos belong to le, those
 * after it to gt; le == CONTINUUM_SEARCH when the slice holds two points
 * or more. */
struct cowner {
    uint64_t pos;
    uint32_t le, gt;
};
#define CONTINUUM_SEARCH (UINT32_MAX - 1)

/* One point before sorting; rank = the member's place in id order. */
struct cpoint {
    uint64_t pos;
    uint32_t rank;
    uint32_t member;
    uint32_t i;
};

/* Sorts pts by (pos, rank, i) and builds c from them (pts is consumed but
 * not freed). O(n log n). Returns 0, or -1 with a message (out of memory). */
int continuum_build(struct continuum *c, struct cpoint *pts, size_t n,
                    const struct placement *pl, char *err, size_t errlen);
void continuum_deinit(struct continuum *c);

/* Index of the point that owns position p (n > 0). O(log points per bucket). */
static inline size_t continuum_index(const struct continuum *c, uint64_t p)
{
    uint64_t b = p >> c->shift;
    if (UNLIKELY(b >= c->nbucket))
        return 0; /* beyond every point: wraps to the first */
    size_t lo = c->bucket[b], hi = c->bucket[b + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->pos[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == c->n ? 0 : lo;
}

/* The node that owns position p: the owner table, else the search. */
static inline uint32_t continuum_lookup(const struct continuum *c, uint64_t p)
{
    if (UNLIKELY(!c->n))
        return PLACE_NONE;
    uint64_t b = p >> c->owner_shift;
    if (UNLIKELY(b >= c->nowner))
        return c->node[0]; /* beyond every point: wraps to the first */
    const struct cowner *o = &c->owner[b];
    uint32_t r = p <= o->pos ? o->le : o->gt;
    if (LIKELY(r != CONTINUUM_SEARCH))
        return r;
    return c->node[continuum_index(c, p)];
}

/* Distinct nodes in ring order from p's owner. O(points walked · max). */
size_t continuum_successors(const struct continuum *c, uint64_t p, uint32_t *out, size_t max);

/* The first node in ring order from p whose load is below cap; the owner if
 * every node is full. Walks one step per run of same-member points, at most
 * once around the ring: O(1) while the owner has room, O(points) when all
 * are full. */
uint32_t continuum_lookup_capped(const struct continuum *c, uint64_t p, const uint32_t *load,
                                 uint32_t cap);

/* Writes the count positions of member m's points (point i at pos[i]);
 * scratch is a string buffer to format point names in. */
typedef void (*continuum_points_fn)(const struct placement *pl, size_t m, uint32_t count,
                                    uint64_t *pos, struct strbuf *scratch);

/* Builds pl's continuum: count[m] points for member m (at most
 * PLACE_MAX_POINTS in all), positions from gen; sets pl->impl and
 * pl->n_points. what names the points in messages ("ring", "ketama").
 * Returns 0, or -1 with a message. */
int continuum_attach(struct placement *pl, const uint32_t *count, continuum_points_fn gen,
                     const char *what, char *err, size_t errlen);

/* place_ops slots for every placement whose impl is a struct continuum
 * (ring, bounded, ketama). */
uint32_t continuum_op_lookup(const struct placement *pl, uint64_t pos);
size_t continuum_op_successors(const struct placement *pl, uint64_t pos, uint32_t *out,
                               size_t max);
void continuum_op_destroy(struct placement *pl);

/* The continuum of a ring, ketama or bounded placement; NULL for the others. */
const struct continuum *place_continuum(const struct placement *pl);

#endif
