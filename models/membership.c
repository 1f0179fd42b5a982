/*
 * membership.c — ring epochs and the routing views client instances hold.
 *
 * The authoritative membership (member[], ejected[]) is what the cluster
 * is now: which nodes are members, and which of them the central
 * coordinator has ejected. Scenario events and the coordinator change it
 * through membership_set_member/_ejected and then ask for a publication
 * (membership_change); the publication itself is one event, EVK_PUBLISH,
 * at the same instant, handled after every event already queued for that
 * instant — so all the changes of one instant make one epoch. That is the
 * only way an epoch is made.
 *
 * An epoch is one published version of that configuration. Epoch ids rise
 * from 1 (the membership at time 0). Instances adopt epochs (client.c) at
 * once, after propagation_delay (central mode), or not at all while frozen
 * by a split brain; `holders` counts, per epoch, the instances on it.
 *
 * A view is a placement for (epoch, local exclusions): the epoch's members,
 * minus central ejections (rehash mode), minus the nodes an instance has
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
#include "models/membership.h"

#include <stdlib.h>
#include <string.h>

#include "models/node.h"
#include "models/workload.h"

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
    struct membership *m = s->mb;
    return id >= 1 && id <= m->n_epochs ? &m->epochs[id - 1] : NULL;
}

struct epoch *membership_latest(struct sim *s)
{
    return &s->mb->epochs[s->mb->n_epochs - 1];
}

void membership_set_member(struct sim *s, uint32_t node, bool member)
{
    s->mb->member[node] = member;
}

void membership_set_ejected(struct sim *s, uint32_t node, bool ejected)
{
    s->mb->ejected[node] = ejected;
}

uint32_t membership_count(const struct sim *s)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        m += s->mb->member[i] != 0;
    return m;
}

/* ---- placements and views ---------------------------------------------------- */

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

static struct view *view_new(struct sim *s, struct placement *pl, uint32_t epoch)
{
    struct membership *m = s->mb;
    struct view *v = xcalloc(1, sizeof(*v));
    v->pl = pl;
    v->epoch = epoch;
    v->refs = 1;
    v->next = m->views;
    m->views = v;
    m->n_views++;
    return v;
}

struct view *view_get(struct sim *s, uint32_t epoch, const uint8_t *excluded)
{
    for (struct view *v = s->mb->views; v; v = v->next) {
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
    struct view *v = view_new(s, pl, epoch);
    if (excluded && !same_set(excluded, NULL, s->n_nodes)) {
        v->excluded = xmalloc(s->n_nodes);
        memcpy(v->excluded, excluded, s->n_nodes);
    }
    return v;
}

void view_release(struct sim *s, struct view *v)
{
    if (!v)
        return;
    assert(v->refs > 0);
    if (--v->refs)
        return;
    struct membership *m = s->mb;
    struct view **pp = &m->views;
    while (*pp != v)
        pp = &(*pp)->next;
    *pp = v->next;
    assert(m->n_views > 0);
    m->n_views--;
    placement_destroy(v->pl);
    free(v->excluded);
    free(v);
}

/* ---- epochs ---------------------------------------------------------------------- */

static struct epoch *new_epoch(struct sim *s)
{
    struct membership *m = s->mb;
    if (m->n_epochs == m->cap_epochs) {
        m->cap_epochs = m->cap_epochs ? m->cap_epochs * 2 : 16;
        m->epochs = xrealloc(m->epochs, m->cap_epochs * sizeof(*m->epochs));
    }
    struct epoch *e = &m->epochs[m->n_epochs++];
    memset(e, 0, sizeof(*e));
    e->id = m->n_epochs;
    e->member = xmalloc(s->n_nodes + 1);
    e->ejected = xmalloc(s->n_nodes + 1);
    memcpy(e->member, m->member, s->n_nodes);
    memcpy(e->ejected, m->ejected, s->n_nodes);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        e->n_ejected += m->ejected[i] != 0;
    return e;
}

/* Builds an epoch's base view (prev: the previous epoch's base, for slots). */
static int build_base(struct sim *s, struct epoch *e, const struct placement *prev)
{
    struct placement *pl = build_placement(s, e, NULL, prev);
    if (!pl)
        return -1;
    e->base = view_new(s, pl, e->id); /* the epoch's own reference */
    return 0;
}

static int build_gutter(struct sim *s, char *err, size_t errlen)
{
    if (!s->n_gutter)
        return 0;
    struct place_member *m = xcalloc(s->n_gutter, sizeof(*m));
    for (uint32_t g = 0; g < s->n_gutter; g++) {
        struct node *n = &s->nodes[s->gutter_first + g];
        m[g].id = n->id;
        m[g].address = n->address;
        m[g].weight = 1.0;
        m[g].node = n->index;
    }
    s->mb->gutter = placement_create(&s->pp, m, s->n_gutter, NULL, err, errlen);
    free(m);
    return s->mb->gutter ? 0 : -1;
}

int membership_create(struct sim *s, char *err, size_t errlen)
{
    struct membership *m = s->mb = xcalloc(1, sizeof(*s->mb));
    sb_init(&m->pending_why);
    m->member = xcalloc(s->n_nodes + 1, 1);
    m->ejected = xcalloc(s->n_nodes + 1, 1);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        m->member[i] = s->nodes[i].state == NODE_UP && !s->nodes[i].gutter;
    struct epoch *e = new_epoch(s);
    if (build_base(s, e, NULL)) {
        snprintf(err, errlen, "%s", s->eng.error);
        return -1;
    }
    return build_gutter(s, err, errlen);
}

void membership_destroy(struct sim *s)
{
    struct membership *m = s->mb;
    if (!m)
        return;
    for (uint32_t i = 0; i < m->n_epochs; i++) {
        if (m->epochs[i].base)
            view_release(s, m->epochs[i].base);
        free(m->epochs[i].member);
        free(m->epochs[i].ejected);
    }
    free(m->epochs);
    while (m->views) { /* views still held by instances */
        struct view *v = m->views;
        v->refs = 1;
        view_release(s, v);
    }
    if (m->gutter)
        placement_destroy(m->gutter);
    free(m->member);
    free(m->ejected);
    sb_deinit(&m->pending_why);
    free(m);
    s->mb = NULL;
}

void membership_hold(struct sim *s, uint32_t epoch)
{
    membership_epoch(s, epoch)->holders++;
}

void membership_drop(struct sim *s, uint32_t epoch)
{
    struct epoch *e = membership_epoch(s, epoch);
    assert(e->holders > 0);
    e->holders--;
}

void membership_trim(struct sim *s)
{
    struct membership *m = s->mb;
    for (uint32_t i = 0; i + 2 < m->n_epochs; i++) {
        struct epoch *e = &m->epochs[i];
        if (e->base && !e->holders) {
            view_release(s, e->base);
            e->base = NULL;
        }
    }
}

/* ---- publication -------------------------------------------------------------------- */

static int64_t count_moved(const struct sim *s, const struct placement *a,
                           const struct placement *b)
{
    int64_t moved = 0;
    const struct key_rec *rec = s->wl->ks.rec;
    for (uint32_t k = 0; k < s->wl->ks.n_keys; k++)
        moved += placement_lookup(a, rec[k].pos) != placement_lookup(b, rec[k].pos);
    return moved;
}

void membership_change(struct sim *s, const char *why)
{
    struct membership *m = s->mb;
    sb_printf(&m->pending_why, "%s%s", m->pending_why.len ? ", " : "", why);
    if (!m->publish_pending) {
        m->publish_pending = true;
        sim_schedule(s, s->eng.now_ns, EVK_PUBLISH, 0, 0);
    }
}

uint32_t membership_publish(struct sim *s)
{
    struct membership *m = s->mb;
    m->publish_pending = false;
    uint32_t old_id = membership_latest(s)->id;
    struct epoch *e = new_epoch(s);
    struct epoch *old = membership_epoch(s, old_id); /* the array may have moved */
    if (build_base(s, e, old->base ? old->base->pl : NULL)) {
        sb_reset(&m->pending_why);
        return 0;
    }
    int64_t moved = old->base ? count_moved(s, old->base->pl, e->base->pl) : 0;
    m->keys_moved += moved;
    uint32_t n_members = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        n_members += e->member[i] && !e->ejected[i];
    sim_event(s, "epoch", NULL, "epoch %u: %s; %u nodes in the ring, %lld keys moved", e->id,
              m->pending_why.buf, n_members, (long long)moved);
    sb_reset(&m->pending_why);
    return e->id;
}

const char *membership_check(const struct sim *s)
{
    const struct membership *m = s->mb;
    for (uint32_t k = 0; k < m->n_epochs; k++) {
        const struct epoch *e = &m->epochs[k];
        uint32_t n = 0;
        for (uint32_t i = 0; i < s->n_nodes; i++)
            n += e->ejected[i] != 0;
        if (n != e->n_ejected)
            return "an epoch's count of ejected nodes is wrong";
    }
    uint32_t views = 0;
    for (const struct view *v = m->views; v; v = v->next)
        views++;
    return views == m->n_views ? NULL : "the count of live views is wrong";
}
