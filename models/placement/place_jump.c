/*
 * place_jump.c — jump consistent hash (Lamping & Veach, "A Fast, Minimal
 * Memory, Consistent Hash Algorithm", 2014) over the members in the order
 * they are listed: bucket b of jump(position, N) is the b-th member.
 *
 * jump() is the paper's reference loop: a 64-bit linear congruential
 * generator (key = key × 2862933555777941757 + 1) drives jumps
 * j = (b + 1) × (2^31 / ((key >> 33) + 1)) until j >= N.
 *
 * Order matters by design: appending a member moves keys only to it, and
 * removing the LAST member moves only its keys; removing any other member
 * renumbers the buckets after it. Weights are ignored.
 *
 * Cost: build O(N); lookup O(ln N) iterations of the loop.
 */
#include <stdlib.h>

#include "models/placement/place_internal.h"

struct jump_impl {
    int32_t n;
    uint32_t node[]; /* node index by bucket (membership order) */
};

static int32_t jump_bucket(uint64_t key, int32_t num_buckets)
{
    int64_t b = -1, j = 0;
    while (j < num_buckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
    }
    return (int32_t)b;
}

static int jump_build(struct placement *pl, const struct placement *prev, char *err,
                      size_t errlen)
{
    (void)prev, (void)err, (void)errlen;
    size_t n = pl->n_members; /* <= PLACE_MAX_MEMBERS < 2^31 */
    struct jump_impl *im = xmalloc(sizeof *im + (n ? n : 1) * sizeof im->node[0]);
    im->n = (int32_t)n;
    for (size_t i = 0; i < n; i++)
        im->node[i] = pl->members[i].node;
    pl->impl = im;
    return 0;
}

static uint32_t jump_lookup(const struct placement *pl, uint64_t pos)
{
    const struct jump_impl *im = pl->impl;
    return im->n ? im->node[jump_bucket(pos, im->n)] : PLACE_NONE;
}

static void jump_destroy(struct placement *pl)
{
    free(pl->impl);
    pl->impl = NULL;
}

const struct place_ops place_jump_ops = {
    .name = "jump",
    .build = jump_build,   /* members in the order given */
    .lookup = jump_lookup, /* the paper's loop */
    .successors = NULL,    /* only the last bucket can leave without renumbering */
    .destroy = jump_destroy,
};
