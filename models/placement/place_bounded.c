/*
 * place_bounded.c — bounded loads over any placement: the dynamic lookup
 * (the first node in the key's preference order below a load cap) and the
 * static assignment `ringsim ring` uses. The continuum algorithms (ring,
 * ketama, bounded) walk their sorted points; the others take their
 * successors' order (placement_successors), or the owner alone.
 */
#include <math.h>
#include <stdbool.h>

#include "models/placement/place_internal.h"

const struct continuum *place_continuum(const struct placement *pl)
{
    if (pl->ops == &place_ring_ops || pl->ops == &place_ketama_ops ||
        pl->ops == &place_bounded_ops)
        return pl->impl;
    return NULL;
}


/* ---- bounded loads --------------------------------------------------------- */

uint32_t placement_lookup_bounded(const struct placement *pl, uint64_t pos,
                                  const uint32_t *load, uint32_t cap)
{
    const struct continuum *c = place_continuum(pl);
    if (c)
        return continuum_lookup_capped(c, pos, load, cap);
    /* algorithms with another preference order (rendezvous: the first 64
     * members by score) or none (the owner) */
    uint32_t order[64];
    size_t k = placement_successors(pl, pos, order, ARRAY_LEN(order));
    for (size_t i = 0; i < k; i++)
        if (load[order[i]] < cap)
            return order[i];
    return k ? order[0] : PLACE_NONE;
}

void placement_assign_bounded(const struct placement *pl, const uint64_t *pos, size_t count,
                              uint32_t *out, uint32_t *load)
{
    size_t n = pl->n_members;
    double c = pl->params.load_factor >= 1.0 ? pl->params.load_factor
                                             : PLACE_DEFAULT_LOAD_FACTOR;
    double capd = n ? ceil(c * (double)count / (double)n) : 0;
    uint32_t cap = capd >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)capd;
    for (size_t i = 0; i < count; i++) {
        uint32_t o = n ? placement_lookup_bounded(pl, pos[i], load, cap) : PLACE_NONE;
        out[i] = o;
        if (o != PLACE_NONE)
            load[o]++;
    }
}

/* The candidates in preference order: the successors, or the owner and the
 * members after it (wrapping) in the order given. At most max. */
static size_t candidates(const struct placement *pl, uint64_t pos, uint32_t *out, size_t max)
{
    if (pl->ops->successors)
        return placement_successors(pl, pos, out, max);
    uint32_t owner = placement_lookup(pl, pos);
    size_t at = 0, n = pl->n_members, got = 0;
    if (owner == PLACE_NONE)
        return 0;
    while (at < n && pl->members[at].node != owner)
        at++;
    for (size_t k = 0; k < n && got < max; k++)
        out[got++] = pl->members[(at + k) % n].node;
    return got;
}

size_t placement_replicas(const struct placement *pl, uint64_t pos, const uint32_t *zone,
                          uint32_t *out, size_t r)
{
    if (r > PLACE_MAX_REPLICAS)
        r = PLACE_MAX_REPLICAS;
    if (!zone || r <= 1)
        return candidates(pl, pos, out, r);
    /* zones first, among the first 4r candidates (the walk stops there) */
    uint32_t cand[4 * PLACE_MAX_REPLICAS];
    size_t want = MIN(4 * r, pl->n_members);
    size_t n = candidates(pl, pos, cand, want), got = 0;
    bool taken[4 * PLACE_MAX_REPLICAS] = {false};
    for (size_t i = 0; i < n && got < r; i++) {
        bool seen = false;
        for (size_t k = 0; k < got && !seen; k++)
            seen = zone[out[k]] == zone[cand[i]];
        if (!seen) {
            out[got++] = cand[i];
            taken[i] = true;
        }
    }
    for (size_t i = 0; i < n && got < r; i++) /* fewer zones than replicas */
        if (!taken[i])
            out[got++] = cand[i];
    return got;
}
