/*
 * place_slots.c — Redis Cluster style slots: 16384 slots, a key's slot is
 * CRC16-XMODEM(key, or its {hash tag}) & 16383 (placement_key_position),
 * and each slot is owned by one member.
 *
 * First membership (prev == NULL, or prev empty): contiguous ranges in id
 * order, computed as redis-cli --cluster create does, in single precision:
 *     per = 16384 / (float)N, cursor = 0, first = 0
 *     for each member i in id order:
 *         last = lround(cursor + per − 1); the last member (or last > 16384) gets 16383;
 *         last = max(last, first); it owns slots first..last;
 *         first = last + 1; cursor += per
 * (3 members: 0–5460, 5461–10922, 10923–16383).
 *
 * With prev (a slots placement): members keep the slots they held, matched
 * by id, and only these slots move:
 *   1. slots of members that left go, one at a time in slot order, to the
 *      member holding the fewest slots (ties: the smaller id);
 *   2. then each member that joined (in id order) takes slots, one at a time,
 *      from the member holding the most (ties: the smaller id; the donor
 *      gives its lowest-numbered slot) until it holds ⌊16384/N⌋ — but a
 *      member marked join_empty (placement_create_joining), which takes
 *      none: a node that meets the cluster and gets slots by resharding.
 * So a join moves exactly the joiner's share, a leave exactly the leaver's
 * slots, and the cluster stays balanced within one slot when it was before.
 * Weights are ignored.
 *
 * placement_slots_move: the same members and table, with given slots handed
 * to given members (one resharding step, CLUSTER SETSLOT slot NODE id).
 *
 * Cost: build O(16384 × N) worst case (a min/max scan per moved slot);
 * lookup one table read; a move O(16384 + N + moves).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/place_internal.h"

#define SLOTS PLACE_SLOT_COUNT

struct slots_impl {
    uint32_t node[SLOTS];   /* node index per slot; PLACE_NONE when empty */
    uint32_t member[SLOTS]; /* member index per slot (for the next change) */
};

static void assign_fresh(struct slots_impl *im, const uint32_t *by_id, size_t n)
{
    float per = SLOTS / (float)n;
    float cursor = 0.0f;
    long first = 0;
    for (size_t i = 0; i < n; i++) {
        long last = lround(cursor + per - 1);
        if (last > SLOTS || i == n - 1)
            last = SLOTS - 1;
        if (last < first)
            last = first;
        for (long s = first; s <= last && s < SLOTS; s++)
            im->member[s] = by_id[i];
        first = last + 1;
        cursor += per;
    }
}

/* The member (by rank in id order) holding the fewest (or most) slots. O(n). */
static size_t pick(const uint32_t *held_by_rank, size_t n, bool most)
{
    size_t best = 0;
    for (size_t r = 1; r < n; r++)
        if (most ? held_by_rank[r] > held_by_rank[best] : held_by_rank[r] < held_by_rank[best])
            best = r;
    return best;
}

/* prev's member index -> pl's member index, by id (PLACE_NONE: it left).
 * by_id: pl's members in id order. Caller frees. O(n' log n). */
static uint32_t *map_previous(const struct placement *pl, const struct placement *prev,
                              const uint32_t *by_id)
{
    size_t n = pl->n_members;
    uint32_t *map = xmalloc(prev->n_members * sizeof *map);
    for (size_t k = 0; k < prev->n_members; k++) {
        map[k] = PLACE_NONE;
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            int c = strcmp(pl->members[by_id[mid]].id, prev->members[k].id);
            if (c == 0) {
                map[k] = by_id[mid];
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    return map;
}

/* 2. each joiner (in id order) takes slots one at a time from the member
 * holding the most (its lowest-numbered slot) until it holds SLOTS / n. */
static void take_for_joiners(struct slots_impl *im, const uint32_t *by_id, size_t n,
                             const bool *joined, uint32_t *held)
{
    uint32_t share = (uint32_t)(SLOTS / n);
    size_t *cursor = xcalloc(n, sizeof *cursor); /* lowest slot not yet scanned, by rank */
    for (size_t j = 0; j < n; j++) {
        if (!joined[j])
            continue;
        while (held[j] < share) {
            size_t d = pick(held, n, true);
            if (d == j)
                break; /* cannot happen: the joiner is below the mean */
            size_t s = cursor[d];
            while (s < SLOTS && im->member[s] != by_id[d])
                s++;
            if (s == SLOTS) { /* defensive: rescan from slot 0 */
                for (s = 0; s < SLOTS && im->member[s] != by_id[d]; s++)
                    ;
            }
            /* held[d] > held[j] >= 0, so the donor holds a slot */
            assert(s < SLOTS);
            im->member[s] = by_id[j];
            cursor[d] = s + 1;
            held[d]--;
            held[j]++;
        }
    }
    free(cursor);
}

/* A change from prev (non-empty): the slots of members that stayed keep
 * their owner, orphaned slots go to the members holding the fewest, then
 * joiners take their share. held (by rank) is filled. */
static void rebalance(struct slots_impl *im, const struct placement *pl,
                      const struct placement *prev, const uint32_t *by_id, const uint32_t *rank,
                      uint32_t *held)
{
    size_t n = pl->n_members;
    const struct slots_impl *old = prev->impl;
    uint32_t *map = map_previous(pl, prev, by_id);
    bool *joined = xcalloc(n, sizeof *joined); /* by rank */
    for (size_t r = 0; r < n; r++)
        joined[r] = !pl->join_empty || !pl->join_empty[by_id[r]];
    for (size_t k = 0; k < prev->n_members; k++)
        if (map[k] != PLACE_NONE)
            joined[rank[map[k]]] = false;
    for (size_t s = 0; s < SLOTS; s++) {
        uint32_t om = old->member[s];
        im->member[s] = om == PLACE_NONE ? PLACE_NONE : map[om];
        if (im->member[s] != PLACE_NONE)
            held[rank[im->member[s]]]++;
    }
    /* 1. orphaned slots to the member holding the fewest */
    for (size_t s = 0; s < SLOTS; s++) {
        if (im->member[s] != PLACE_NONE)
            continue;
        size_t r = pick(held, n, false);
        im->member[s] = by_id[r];
        held[r]++;
    }
    take_for_joiners(im, by_id, n, joined, held);
    free(joined);
    free(map);
}

static int slots_build(struct placement *pl, const struct placement *prev, char *err,
                       size_t errlen)
{
    size_t n = pl->n_members;
    if (prev && prev->ops != &place_slots_ops) {
        place_err(err, errlen, "slots: the previous placement is %s, not slots",
                  prev->ops->name);
        return -1;
    }
    struct slots_impl *im = xmalloc(sizeof *im);
    for (size_t s = 0; s < SLOTS; s++)
        im->member[s] = PLACE_NONE;
    uint32_t *by_id = place_members_by_id(pl);
    uint32_t *rank = xmalloc((n ? n : 1) * sizeof *rank);
    uint32_t *held = xcalloc(n ? n : 1, sizeof *held); /* by rank */
    for (size_t r = 0; r < n; r++)
        rank[by_id[r]] = (uint32_t)r;

    if (n && (!prev || !prev->n_members))
        assign_fresh(im, by_id, n);
    else if (n)
        rebalance(im, pl, prev, by_id, rank, held);
    for (size_t s = 0; s < SLOTS; s++)
        im->node[s] = im->member[s] == PLACE_NONE ? PLACE_NONE : pl->members[im->member[s]].node;
    free(held);
    free(rank);
    free(by_id);
    pl->impl = im;
    return 0;
}

static uint32_t slots_lookup(const struct placement *pl, uint64_t pos)
{
    const struct slots_impl *im = pl->impl;
    return im->node[pos & (SLOTS - 1)];
}

static void slots_destroy(struct placement *pl)
{
    free(pl->impl);
    pl->impl = NULL;
}

struct placement *placement_slots_move(const struct placement *prev,
                                       const struct place_slot_move *moves, size_t n, char *err,
                                       size_t errlen)
{
    if (!prev || prev->ops != &place_slots_ops) {
        place_err(err, errlen, "slot moves need a slots placement, not %s",
                  prev ? prev->ops->name : "none");
        return NULL;
    }
    /* node index -> member index, for the moves' targets */
    uint32_t *member_of = xmalloc((prev->max_node ? prev->max_node : 1) * sizeof *member_of);
    for (uint32_t i = 0; i < prev->max_node; i++)
        member_of[i] = PLACE_NONE;
    for (size_t m = 0; m < prev->n_members; m++)
        member_of[prev->members[m].node] = (uint32_t)m;
    for (size_t i = 0; i < n; i++) {
        if (moves[i].slot >= SLOTS) {
            place_err(err, errlen, "slot %u is out of range (0 to %d)", moves[i].slot, SLOTS - 1);
            free(member_of);
            return NULL;
        }
        if (moves[i].node >= prev->max_node || member_of[moves[i].node] == PLACE_NONE) {
            place_err(err, errlen, "slot %u cannot go to node %u: not a member", moves[i].slot,
                      moves[i].node);
            free(member_of);
            return NULL;
        }
    }
    /* the same members after prev: every slot keeps its owner */
    struct placement *pl =
        placement_create(&prev->params, prev->members, prev->n_members, prev, err, errlen);
    if (pl) {
        struct slots_impl *im = pl->impl;
        for (size_t i = 0; i < n; i++) {
            uint32_t m = member_of[moves[i].node];
            im->member[moves[i].slot] = m;
            im->node[moves[i].slot] = pl->members[m].node;
        }
    }
    free(member_of);
    return pl;
}

const struct place_ops place_slots_ops = {
    .name = "slots",
    .build = slots_build,   /* fresh ranges, or the fewest moves from prev */
    .lookup = slots_lookup, /* slot table */
    .successors = NULL,     /* no preference order */
    .destroy = slots_destroy,
};
