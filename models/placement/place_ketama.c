/*
 * place_ketama.c — ketama, compatible with twemproxy (nc_ketama.c) and
 * libketama.
 *
 * With N members of total weight W, member m gets (place_ketama_points)
 *     points = 4 × floorf((float)(pct × 160 / 4 × (float)N + 1e-10)),
 *     pct = (float)weight / (float)W,
 * evaluated in single precision exactly as twemproxy does (160 for equal
 * weights; a very light member may get 0). Its points come four at a time:
 * for i = 0 .. points/4 − 1 the MD5 digest of "<name>-<i>" (i in decimal)
 * gives four points, digest bytes [4j .. 4j+3] read little-endian for
 * j = 0..3. Positions are 32-bit; a key's position is its hash cut to 32
 * bits (md5: the first four digest bytes little-endian), computed by
 * placement_key_position(). The owner is the first point at or after the
 * key, wrapping (as twemproxy's ketama_dispatch). Ties between equal points,
 * which twemproxy leaves to qsort, are broken by (member id, point number).
 *
 * Cost: build O(P log P), P = 160 N points, one MD5 per four points; lookup
 * as the ring.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/place_internal.h"

/* Four points per MD5 digest of "<name>-<i>", bytes [4j .. 4j+3] little-endian. */
static void ketama_points_of(const struct placement *pl, size_t m, uint32_t count,
                             uint64_t *pos, struct strbuf *sb)
{
    const char *name = place_member_name(pl, m);
    for (uint32_t i = 0; i < count / 4; i++) {
        uint8_t d[16];
        sb_reset(sb);
        sb_printf(sb, "%s-%u", name, i);
        md5_digest(sb->buf, sb->len, d);
        for (uint32_t j = 0; j < 4; j++) {
            const uint8_t *b = d + 4 * j;
            pos[4 * i + j] = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
                             (uint64_t)b[3] << 24;
        }
    }
}

static int ketama_build(struct placement *pl, const struct placement *prev, char *err,
                        size_t errlen)
{
    (void)prev;
    size_t n = pl->n_members;
    double total_weight = 0;
    for (size_t m = 0; m < n; m++)
        total_weight += pl->members[m].weight;
    uint32_t *count = xmalloc((n ? n : 1) * sizeof *count);
    for (size_t m = 0; m < n; m++)
        count[m] = place_ketama_points(pl->members[m].weight, total_weight, n);
    int rc = continuum_attach(pl, count, ketama_points_of, "ketama", err, errlen);
    free(count);
    return rc;
}

const struct place_ops place_ketama_ops = {
    .name = "ketama",
    .build = ketama_build,           /* 160 points per member scaled by weight, MD5 */
    .lookup = continuum_op_lookup,         /* lower bound on the 32-bit continuum */
    .successors = continuum_op_successors, /* distinct owners clockwise */
    .destroy = continuum_op_destroy,
};
