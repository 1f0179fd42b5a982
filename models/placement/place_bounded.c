/*
 * place_bounded.c — bounded loads over any placement: the dynamic lookup
 * (the first node in the key's preference order below a load cap) and the
 * static assignment `ringsim ring` uses. The continuum algorithms (ring,
 * ketama, bounded) walk their sorted points; the others take their
 * successors' order (placement_successors), or the owner alone.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "models/placement/place_internal.h"
#include "sim/util.h"

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

uint32_t placement_bounded_cap(double load_factor, uint64_t count, size_t n)
{
    if (!n)
        return 0;
    double x = load_factor * (double)count / (double)n;
    /* The decimal load factor's rounding to binary, the product's and the
     * quotient's err by at most 3.3 parts in 10^16 of x together: an x that
     * close above a whole number is that number. (A load factor of d
     * decimals lands that close without being on it only when
     * load_factor x count passes 10^(15 - d).) */
    double cap = ceil(x - x * (4 * DBL_EPSILON));
    return cap >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
}

/* HAProxy and Envoy: the cluster's slots, ceil((total + 1) * factor% / 100). */
static uint64_t total_slots(const struct placement *pl, uint64_t total)
{
    uint64_t pct = (uint64_t)llround(pl->params.load_factor * 100.0);
    return ((total + 1) * pct + 99) / 100;
}

/* Node's slots under rule (HAPROXY or ENVOY) for tot slots over the
 * cluster. The small allowances keep whole-number weights exact in
 * floating point. */
static double node_slots(const struct placement *pl, enum place_bounded_rule rule,
                         uint32_t node, uint64_t tot)
{
    double cum = pl->bounded_w[2 * (size_t)node], w = pl->bounded_w[2 * (size_t)node + 1];
    double W = pl->total_weight, t = (double)tot, slots;
    if (rule == PLACE_BOUNDED_HAPROXY)
        slots = floor(t * (cum + w) / W + 1e-9) - floor(t * cum / W + 1e-9);
    else
        slots = ceil(t * w / W - 1e-9);
    return slots < 1 ? 1 : slots;
}

static bool node_has_room(const struct placement *pl, enum place_bounded_rule rule,
                          uint32_t node, uint32_t load, uint64_t tot)
{
    double slots = node_slots(pl, rule, node, tot);
    return rule == PLACE_BOUNDED_ENVOY ? (double)load <= slots : (double)load < slots;
}

/* A step of splitmix64: Envoy's probe order, drawn from the key's position. */
static uint64_t probe_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t envoy_lookup(const struct placement *pl, uint64_t pos, const uint32_t *load,
                             uint64_t tot)
{
    uint32_t owner = placement_lookup(pl, pos);
    if (owner == PLACE_NONE || node_has_room(pl, PLACE_BOUNDED_ENVOY, owner, load[owner], tot))
        return owner;
    size_t n = pl->n_members;
    uint32_t stack_idx[256], *idx = n <= 256 ? stack_idx : xcalloc(n, sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    uint64_t x = pos;
    uint32_t best = owner, found = PLACE_NONE;
    double best_f = (double)load[owner] / node_slots(pl, PLACE_BOUNDED_ENVOY, owner, tot);
    for (size_t i = 0; i < n; i++) {
        size_t j = i + (size_t)(probe_next(&x) % (n - i)); /* Fisher-Yates, lazily */
        uint32_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        uint32_t node = pl->members[idx[i]].node;
        if (node == owner)
            continue;
        double f = (double)load[node] / node_slots(pl, PLACE_BOUNDED_ENVOY, node, tot);
        if (f <= 1.0) {
            found = node;
            break;
        }
        if (f < best_f) {
            best = node;
            best_f = f;
        }
    }
    if (idx != stack_idx)
        free(idx);
    return found != PLACE_NONE ? found : best;
}

uint32_t placement_lookup_bounded_by(const struct placement *pl, uint64_t pos,
                                     const uint32_t *load, uint64_t total,
                                     enum place_bounded_rule rule)
{
    size_t n = pl->n_members;
    if (!n)
        return PLACE_NONE;
    double c = pl->params.load_factor >= 1.0 ? pl->params.load_factor
                                             : PLACE_DEFAULT_LOAD_FACTOR;
    if (rule == PLACE_BOUNDED_PAPER || !pl->bounded_w) {
        return placement_lookup_bounded(pl, pos, load, placement_bounded_cap(c, total + 1, n));
    }
    uint64_t tot = total_slots(pl, total);
    if (rule == PLACE_BOUNDED_ENVOY)
        return envoy_lookup(pl, pos, load, tot);
    /* HAProxy: the ring order from the key's position */
    const struct continuum *cont = place_continuum(pl);
    if (cont) {
        size_t i = continuum_index(cont, pos), walked = 0;
        uint32_t owner = cont->node[i];
        for (;;) {
            uint32_t node = cont->node[i];
            if (node_has_room(pl, PLACE_BOUNDED_HAPROXY, node, load[node], tot))
                return node;
            size_t next = cont->next_other[i];
            walked += next > i ? next - i : cont->n - i + next;
            if (next == i || walked >= cont->n)
                return owner; /* every node is full */
            i = next;
        }
    }
    return placement_lookup(pl, pos); /* not reached: bounded is a continuum */
}

void placement_assign_bounded(const struct placement *pl, const uint64_t *pos, size_t count,
                              uint32_t *out, uint32_t *load)
{
    size_t n = pl->n_members;
    double c = pl->params.load_factor >= 1.0 ? pl->params.load_factor
                                             : PLACE_DEFAULT_LOAD_FACTOR;
    uint32_t cap = placement_bounded_cap(c, count, n);
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

/* Zone-first choice among the candidates cand[0..n): those of a zone not
 * chosen yet, in order, then (fewer zones than replicas) the others in
 * order. Returns how many are in out; *zones: how many distinct zones. */
static size_t zones_first(const uint32_t *cand, size_t n, const uint32_t *zone, uint32_t *out,
                          size_t r, size_t *zones)
{
    size_t got = 0;
    for (size_t i = 0; i < n && got < r; i++) {
        bool seen = false;
        for (size_t k = 0; k < got && !seen; k++)
            seen = zone[out[k]] == zone[cand[i]];
        if (!seen)
            out[got++] = cand[i];
    }
    *zones = got;
    for (size_t i = 0; i < n && got < r; i++) {
        bool taken = false;
        for (size_t k = 0; k < *zones && !taken; k++)
            taken = out[k] == cand[i];
        if (!taken)
            out[got++] = cand[i];
    }
    return got;
}

/* How many distinct zones the members are in, up to r (the walk needs no
 * more). */
static size_t member_zones(const struct placement *pl, const uint32_t *zone, size_t r)
{
    uint32_t seen[PLACE_MAX_REPLICAS];
    size_t n = 0;
    for (size_t i = 0; i < pl->n_members && n < r; i++) {
        uint32_t z = zone[pl->members[i].node];
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = seen[k] == z;
        if (!dup)
            seen[n++] = z;
    }
    return n;
}

size_t placement_replicas(const struct placement *pl, uint64_t pos, const uint32_t *zone,
                          uint32_t *out, size_t r)
{
    if (r > PLACE_MAX_REPLICAS)
        r = PLACE_MAX_REPLICAS;
    if (!zone || r <= 1)
        return candidates(pl, pos, out, r);
    /* zones first: among the first 4r candidates, which almost always hold
     * as many zones as there are (up to r); when they do not, among them all */
    uint32_t cand[4 * PLACE_MAX_REPLICAS];
    size_t want = MIN(4 * r, pl->n_members), zones;
    size_t n = candidates(pl, pos, cand, want);
    size_t got = zones_first(cand, n, zone, out, r, &zones);
    if (zones == r || n < want || want == pl->n_members || zones >= member_zones(pl, zone, r))
        return got;
    uint32_t *all = xcalloc(pl->n_members, sizeof(*all));
    n = candidates(pl, pos, all, pl->n_members);
    got = zones_first(all, n, zone, out, r, &zones);
    free(all);
    return got;
}
