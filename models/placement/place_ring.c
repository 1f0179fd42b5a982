/*
 * place_ring.c — the consistent-hash ring with virtual nodes, and the
 * bounded-load ring built on it.
 *
 * ring: member m gets max(1, llround(vnodes × weight)) points; point i
 * (0-based) sits at hash(printf(point_format, name, i)) where name is the
 * member's id (or address with node_key_address). A key at position p is
 * owned by the first point at or after p, wrapping to the first point
 * (place_continuum.c). Points are sorted by (position, member id, i), so the
 * listing order of members never matters.
 *
 * bounded: the same continuum; lookup() is the plain ring owner (what the
 * key would get with no load), and the caps are applied by
 * placement_lookup_bounded()/placement_assign_bounded() (placement.c), which
 * walk the ring from the owner to the first node whose load is below the cap.
 *
 * Cost: build O(P log P) for P points (one hash per point); lookup
 * O(log(points per bucket)), about 1–2 probes; successors O(walk).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/place_internal.h"

/* Point i of member m at hash(printf(point_format, name, i)). */
static void ring_points(const struct placement *pl, size_t m, uint32_t count, uint64_t *pos,
                        struct strbuf *sb)
{
    const char *name = place_member_name(pl, m);
    for (uint32_t i = 0; i < count; i++) {
        sb_reset(sb);
        /* point_format was validated: one %s, then one %d */
        sb_printf(sb, pl->params.point_format, name, (int)i);
        pos[i] = hash_position(pl->params.hash, sb->buf, sb->len);
    }
}

static int ring_build(struct placement *pl, const struct placement *prev, char *err,
                      size_t errlen)
{
    (void)prev;
    size_t n = pl->n_members;
    uint32_t *count = xmalloc((n ? n : 1) * sizeof *count);
    for (size_t m = 0; m < n; m++) /* <= PLACE_MAX_POINTS: placement_check_membership */
        count[m] = (uint32_t)place_ring_points(pl->params.vnodes, pl->members[m].weight);
    int rc = continuum_attach(pl, count, ring_points, "ring", err, errlen);
    free(count);
    return rc;
}

const struct place_ops place_ring_ops = {
    .name = "ring",
    .build = ring_build,           /* vnodes × weight points per member */
    .lookup = continuum_op_lookup,         /* lower bound on the continuum, wrapping */
    .successors = continuum_op_successors, /* distinct owners clockwise from the key */
    .destroy = continuum_op_destroy,
};

const struct place_ops place_bounded_ops = {
    .name = "bounded",
    .build = ring_build,           /* the ring's continuum */
    .lookup = continuum_op_lookup,         /* the uncapped owner; caps: placement_lookup_bounded */
    .successors = continuum_op_successors, /* the order a capped key walks */
    .destroy = continuum_op_destroy,
};
