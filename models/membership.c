/*
 * membership.c — ring epochs and the routing views client instances hold.
 *
 * An epoch is one published version of the cluster's configuration: which
 * nodes are members, and which of them the central coordinator has
 * ejected. Epoch ids rise from 1 (the membership at time 0); every
 * membership event (add, remove, address change) and every central
 * ejection or readmission publishes the next one. Instances adopt epochs
 * at once, or after propagation_delay (central mode), or not at all while
 * frozen by a split brain.
 *
 * A view is a placement for (epoch, local exclusions): the epoch's members,
 * minus central ejections (rehash mode), minus the nodes this instance has
 * ejected itself (client mode, rehash). Views are shared and reference
 * counted: instances that agree share one placement; building one costs
 * what placement_create costs (hashing the points), paid only when a
 * view is first needed.
 *
 * Node order given to the placement is node index order, i.e. the order in
 * which nodes first appeared (the file's nodes, then add_node events); only
 * jump depends on it.
 *
 * keys_moved: at each publication, every key's owner under the new base
 * view is compared with the previous base view's (O(keys) lookups).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static bool same_set(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    if (!a || !b) {
        const uint8_t *x = a ? a : b;
        if (!x)
            return true;
        for (uint32_t i = 0; i < n; i++)
            if (x[i])
                return false;
        return true;
    }
    return memcmp(a, b, n) == 0;
}

struct epoch *membership_epoch(struct sim *s, uint32_t id)
{
    return id >= 1 && id <= s->n_epochs ? &s->epochs[id - 1] : NULL;
}

struct epoch *membership_latest(struct sim *s)
{
    return &s->epochs[s->n_epochs - 1];
}

/* Builds the placement of an epoch's members minus exclusions. */
static struct placement *build_placement(struct sim *s, const struct epoch *e,
                                         const uint8_t *excluded, const struct placement *prev)
{
    struct place_member *m = xcalloc(s->n_nodes + 1, sizeof(*m));
    size_t n = 0;
    bool gutter_mode = s->sc->health.on_eject == EJECT_GUTTER;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        if (!e->member[i] || s->nodes[i].gutter)
            continue;
        if (!gutter_mode && e->ejected[i])
            continue;
        if (excluded && excluded[i])
            continue;
        m[n].id = s->nodes[i].id;
        m[n].address = s->nodes[i].address;
        m[n].weight = s->nodes[i].weight;
        m[n].node = i;
        n++;
    }
    char err[256];
    struct placement *pl = placement_create(&s->pp, m, n, prev, err, sizeof err);
    free(m);
    if (!pl)
        sim_fail(s, "cannot build the ring for epoch %u: %s", e->id, err);
    return pl;
}

struct view *view_get(struct sim *s, uint32_t epoch, const uint8_t *excluded)
{
    for (struct view *v = s->views; v; v = v->next) {
        if (v->epoch == epoch && same_set(v->excluded, excluded, s->n_nodes)) {
            v->refs++;
            return v;
        }
    }
    struct epoch *e = membership_epoch(s, epoch);
    const struct placement *prev = NULL;
    if (excluded && e->base)
        prev = e->base->pl; /* slots: an exclusion moves only the excluded node's slots */
    struct placement *pl = build_placement(s, e, excluded, prev);
    if (!pl)
        return NULL;
    struct view *v = xcalloc(1, sizeof(*v));
    v->pl = pl;
    v->epoch = epoch;
    if (excluded && !same_set(excluded, NULL, s->n_nodes)) {
        v->excluded = xmalloc(s->n_nodes);
        memcpy(v->excluded, excluded, s->n_nodes);
    }
    v->refs = 1;
    v->next = s->views;
    s->views = v;
    s->n_views++;
    return v;
}

void view_release(struct sim *s, struct view *v)
{
    if (!v || --v->refs)
        return;
    struct view **pp = &s->views;
    while (*pp != v)
        pp = &(*pp)->next;
    *pp = v->next;
    s->n_views--;
    placement_destroy(v->pl);
    free(v->excluded);
    free(v);
}

static struct epoch *new_epoch(struct sim *s, const uint8_t *member, const uint8_t *ejected)
{
    if (s->n_epochs == s->cap_epochs) {
        s->cap_epochs = s->cap_epochs ? s->cap_epochs * 2 : 16;
        s->epochs = xrealloc(s->epochs, s->cap_epochs * sizeof(*s->epochs));
    }
    struct epoch *e = &s->epochs[s->n_epochs++];
    memset(e, 0, sizeof(*e));
    e->id = s->n_epochs;
    e->member = xmalloc(s->n_nodes + 1);
    e->ejected = xmalloc(s->n_nodes + 1);
    memcpy(e->member, member, s->n_nodes);
    memcpy(e->ejected, ejected, s->n_nodes);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        e->n_ejected += ejected[i] != 0;
    return e;
}

/* Builds an epoch's base view (prev: the previous epoch's base, for slots). */
static int build_base(struct sim *s, struct epoch *e, const struct placement *prev)
{
    struct placement *pl = build_placement(s, e, NULL, prev);
    if (!pl)
        return -1;
    struct view *v = xcalloc(1, sizeof(*v));
    v->pl = pl;
    v->epoch = e->id;
    v->refs = 1; /* the epoch's own reference */
    v->next = s->views;
    s->views = v;
    s->n_views++;
    e->base = v;
    return 0;
}

int membership_init(struct sim *s, char *err, size_t errlen)
{
    uint8_t *member = xcalloc(s->n_nodes + 1, 1), *ejected = xcalloc(s->n_nodes + 1, 1);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        member[i] = s->nodes[i].state == NODE_UP && !s->nodes[i].gutter;
    struct epoch *e = new_epoch(s, member, ejected);
    free(member);
    free(ejected);
    if (build_base(s, e, NULL)) {
        snprintf(err, errlen, "%s", s->error);
        return -1;
    }
    return 0;
}

void membership_deinit(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_epochs; i++) {
        if (s->epochs[i].base)
            view_release(s, s->epochs[i].base);
        free(s->epochs[i].member);
        free(s->epochs[i].ejected);
    }
    free(s->epochs);
    s->epochs = NULL;
    s->n_epochs = 0;
    while (s->views) { /* views still held by instances */
        struct view *v = s->views;
        v->refs = 1;
        view_release(s, v);
    }
}

static int64_t count_moved(const struct sim *s, const struct placement *a,
                           const struct placement *b)
{
    int64_t moved = 0;
    const struct key_rec *rec = s->wl.ks.rec;
    for (uint32_t k = 0; k < s->wl.ks.n_keys; k++)
        moved += placement_lookup(a, rec[k].pos) != placement_lookup(b, rec[k].pos);
    return moved;
}

/* Frees the base views of epochs no instance holds any more (never the
 * latest two), so long runs with many epochs keep memory flat. */
static void trim_epochs(struct sim *s)
{
    for (uint32_t i = 0; i + 2 < s->n_epochs; i++) {
        struct epoch *e = &s->epochs[i];
        if (!e->base)
            continue;
        bool held = false;
        for (uint32_t j = 0; j < s->n_inst && !held; j++)
            held = s->inst[j].epoch == e->id;
        if (!held) {
            view_release(s, e->base);
            e->base = NULL;
        }
    }
}

int membership_publish(struct sim *s, const uint8_t *member, const uint8_t *ejected,
                       const char *why)
{
    struct epoch *old = membership_latest(s);
    uint32_t old_id = old->id;
    struct epoch *e = new_epoch(s, member, ejected);
    old = membership_epoch(s, old_id); /* the array may have moved */
    if (build_base(s, e, old->base ? old->base->pl : NULL))
        return -1;
    int64_t moved = old->base ? count_moved(s, old->base->pl, e->base->pl) : 0;
    s->tot.keys_moved += moved;
    uint32_t n_members = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        n_members += member[i] && !ejected[i];
    sim_event(s, "epoch", NULL, "epoch %u: %s; %u nodes in the ring, %lld keys moved", e->id,
              why, n_members, (long long)moved);

    bool delayed = s->sc->health.mode == HEALTH_CENTRAL;
    for (uint32_t j = 0; j < s->n_inst; j++) {
        struct instance *in = &s->inst[j];
        if (in->frozen)
            continue;
        if (!delayed || s->sc->health.propagation_delay_ns == 0) {
            client_adopt(s, in, e->id);
        } else {
            /* each instance's delay: propagation_delay × U[0.5, 1.5) */
            double f = 0.5 + rng_uniform(&s->propagation);
            int64_t d = (int64_t)((double)s->sc->health.propagation_delay_ns * f);
            if (sim_schedule(s, s->now_ns + d, EVK_ADOPT, j, e->id))
                return -1;
        }
    }
    trim_epochs(s);
    return 0;
}
