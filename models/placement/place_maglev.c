/*
 * place_maglev.c — Maglev hashing (Eisenbud et al., "Maglev: A Fast and
 * Reliable Software Network Load Balancer", NSDI 2016, section 3.4).
 *
 * A lookup table of M entries (M prime, default 65537, parameter
 * maglev_size); a key at position p is owned by table[p mod M].
 *
 * Member m (taken in id order, i = 0..N−1) has a name hash
 * h = hash_position(hash, name) and
 *     offset = h mod M
 *     skip   = (mix64(h) mod (M − 1)) + 1          (mix64: sim/util.h)
 *     permutation[m][j] = (offset + j × skip) mod M
 * which visits every entry since M is prime. The table is filled in turns as
 * in the paper's Pseudocode 1: each member in turn takes the next entry of
 * its permutation that is still empty, until all M are taken.
 *
 * Weights: each turn adds weight / max_weight to the member's credit and the
 * member takes one entry per whole credit (so with equal weights it is the
 * paper's one entry per turn, and every member ends with ⌊M/N⌋ or ⌈M/N⌉
 * entries; with weights, entries are proportional to weight).
 *
 * A membership change moves mostly keys of the changed members, plus a small
 * share between the others (measured in tests/unit/test_placement.c and
 * models/placement/README.md). The listing order never matters.
 *
 * Cost: build O(M log M) expected (permutation probes); lookup one division
 * and one table read (M × 4 bytes: 256 KiB for the default).
 */
#include <stdlib.h>
#include <string.h>

#include "models/placement/place_internal.h"

struct maglev_impl {
    uint64_t m;
    uint32_t table[]; /* node index per entry */
};

static int maglev_build(struct placement *pl, const struct placement *prev, char *err,
                        size_t errlen)
{
    (void)prev;
    size_t n = pl->n_members;
    uint64_t M = pl->params.maglev_size;
    struct maglev_impl *im = malloc(sizeof *im + M * sizeof im->table[0]);
    uint64_t *offset = malloc((n ? n : 1) * sizeof *offset);
    uint64_t *skip = malloc((n ? n : 1) * sizeof *skip);
    uint64_t *next = calloc(n ? n : 1, sizeof *next);
    double *credit = calloc(n ? n : 1, sizeof *credit);
    double *share = malloc((n ? n : 1) * sizeof *share);
    uint32_t *by_id = place_members_by_id(pl);
    int rc = -1;
    if (!im || !offset || !skip || !next || !credit || !share) {
        place_err(err, errlen, "out of memory for a maglev table of %llu entries",
                  (unsigned long long)M);
        goto out;
    }
    im->m = M;
    double wmax = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = by_id[i];
        const char *name = place_member_name(pl, k);
        uint64_t h = hash_position(pl->params.hash, name, strlen(name));
        offset[i] = h % M;
        skip[i] = mix64(h) % (M - 1) + 1;
        wmax = MAX(wmax, pl->members[k].weight);
    }
    for (size_t i = 0; i < n; i++)
        share[i] = pl->members[by_id[i]].weight / wmax; /* in (0, 1] */
    for (uint64_t e = 0; e < M; e++)
        im->table[e] = PLACE_NONE;

    uint64_t filled = 0;
    while (n && filled < M) { /* each round fills >= 1 entry: the max-weight member's */
        for (size_t i = 0; i < n && filled < M; i++) {
            credit[i] += share[i];
            while (credit[i] >= 1.0 && filled < M) {
                credit[i] -= 1.0;
                uint64_t c = (offset[i] + next[i] * skip[i]) % M;
                while (im->table[c] != PLACE_NONE) { /* < M probes: a full cycle */
                    next[i]++;
                    c = (offset[i] + next[i] * skip[i]) % M;
                }
                im->table[c] = pl->members[by_id[i]].node;
                next[i]++;
                filled++;
            }
        }
    }
    pl->impl = im;
    im = NULL;
    rc = 0;
out:
    free(im);
    free(offset);
    free(skip);
    free(next);
    free(credit);
    free(share);
    free(by_id);
    return rc;
}

static uint32_t maglev_lookup(const struct placement *pl, uint64_t pos)
{
    const struct maglev_impl *im = pl->impl;
    return im->table[pos % im->m]; /* PLACE_NONE everywhere when empty */
}

static void maglev_destroy(struct placement *pl)
{
    free(pl->impl);
    pl->impl = NULL;
}

const struct place_ops place_maglev_ops = {
    .name = "maglev",
    .build = maglev_build,   /* permutations filled in turns */
    .lookup = maglev_lookup, /* table[position mod M] */
    .successors = NULL,      /* no preference order */
    .destroy = maglev_destroy,
};
