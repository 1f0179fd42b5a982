/*
 * place_mod.c — modulo placement: owner = members_by_id[position % N].
 *
 * Members are ordered by id (strcmp), so the listing order never matters;
 * weights are ignored (every member is one bucket). Nearly every key moves
 * when N changes (a fraction 1 − 1/max(N, N') on a join or leave, for
 * 64-bit positions), which is why it is here: as the baseline.
 *
 * Cost: build O(N log N); lookup one 64-bit division.
 */
#include <stdlib.h>

#include "models/placement/place_internal.h"

struct mod_impl {
    uint64_t n;
    uint32_t node[]; /* node index by id order */
};

static int mod_build(struct placement *pl, const struct placement *prev, char *err,
                     size_t errlen)
{
    (void)prev, (void)err, (void)errlen;
    size_t n = pl->n_members;
    struct mod_impl *im = xmalloc(sizeof *im + (n ? n : 1) * sizeof im->node[0]);
    uint32_t *by_id = place_members_by_id(pl);
    im->n = n;
    for (size_t r = 0; r < n; r++)
        im->node[r] = pl->members[by_id[r]].node;
    free(by_id);
    pl->impl = im;
    return 0;
}

static uint32_t mod_lookup(const struct placement *pl, uint64_t pos)
{
    const struct mod_impl *im = pl->impl;
    return im->n ? im->node[pos % im->n] : PLACE_NONE;
}

static void mod_destroy(struct placement *pl)
{
    free(pl->impl);
    pl->impl = NULL;
}

const struct place_ops place_mod_ops = {
    .name = "mod",
    .build = mod_build,   /* members sorted by id */
    .lookup = mod_lookup, /* position % N */
    .successors = NULL,   /* no preference order: a change reshuffles */
    .destroy = mod_destroy,
};
