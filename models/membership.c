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
 * view is compared with the previous base view's (O(keys) lookups) — but
 * for an epoch made of slot moves only (a migration step), where only the
 * moved slots' keys can change owner: O(moves) with the slot index.
 *
 * Slots (routing.algorithm slots): each epoch's table is built from the
 * previous epoch's (placement history), also across a set_routing that
 * keeps slots; a node added with take_slots: false joins holding none, and
 * migrations hand slots over with membership_move_slots, applied on top of
 * the publication's other changes (placement_slots_move). A central
 * ejection (rehash) gives the node's slots to the others, as a leave does,
 * and remembers them (ejected_slots); its readmission joins the node
 * holding none and gives it back the slots it held, less those a
 * migration moved meanwhile — so a node that held none regains none.
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

/* Builds the placement of an epoch's members minus exclusions, from the
 * epoch's own snapshot (weights, addresses, routing generation). */
static struct placement *build_placement(struct sim *s, const struct epoch *e,
                                         const uint8_t *excluded, const struct placement *prev)
{
    struct place_member *m = xcalloc(s->n_nodes + 1, sizeof(*m));
    bool *empty = e->join_empty ? xcalloc(s->n_nodes + 1, sizeof(*empty)) : NULL;
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
        m[n].address = e->address[i];
        m[n].weight = e->weight[i];
        m[n].node = i;
        if (empty)
            empty[n] = e->join_empty[i];
        n++;
    }
    char err[256];
    struct placement *pl =
        placement_create_joining(&s->mb->gens[e->gen].pp, m, n, prev, empty, err, sizeof err);
    free(m);
    free(empty);
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
    v->pos = m->gens[membership_epoch(s, epoch)->gen].pos;
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

/* An address the epochs can point to for the rest of the run. */
static const char *keep_string(struct membership *m, const char *prev, const char *now)
{
    if (prev && !strcmp(prev, now))
        return prev;
    if (m->n_strings == m->cap_strings) {
        m->cap_strings = m->cap_strings ? m->cap_strings * 2 : 64;
        m->strings = xrealloc(m->strings, m->cap_strings * sizeof(*m->strings));
    }
    return m->strings[m->n_strings++] = xstrdup(now);
}

/* A node's placement weight under a generation: its weight, and for ring
 * and bounded its own vnodes over the generation's (set_vnodes). */
static double placement_weight(const struct sim *s, const struct routing_gen *g, uint32_t i)
{
    double w = s->nodes[i].weight, v = s->mb->vnodes[i];
    if (v > 0 && (g->pp.algo == PLACE_RING || g->pp.algo == PLACE_BOUNDED))
        w *= v / (double)g->pp.vnodes;
    return w;
}

static struct epoch *new_epoch(struct sim *s)
{
    struct membership *m = s->mb;
    if (m->n_epochs == m->cap_epochs) {
        m->cap_epochs = m->cap_epochs ? m->cap_epochs * 2 : 16;
        m->epochs = xrealloc(m->epochs, m->cap_epochs * sizeof(*m->epochs));
    }
    const struct epoch *prev = m->n_epochs ? &m->epochs[m->n_epochs - 1] : NULL;
    struct epoch *e = &m->epochs[m->n_epochs++];
    memset(e, 0, sizeof(*e));
    e->id = m->n_epochs;
    e->gen = m->n_gens - 1;
    e->published_ns = s->eng.now_ns;
    e->member = xmalloc(s->n_nodes + 1);
    e->ejected = xmalloc(s->n_nodes + 1);
    e->weight = xcalloc(s->n_nodes + 1, sizeof(*e->weight));
    e->address = xcalloc(s->n_nodes + 1, sizeof(*e->address));
    memcpy(e->member, m->member, s->n_nodes);
    memcpy(e->ejected, m->ejected, s->n_nodes);
    if (m->any_join_empty) {
        e->join_empty = xmalloc(s->n_nodes + 1);
        memcpy(e->join_empty, m->join_empty, s->n_nodes);
    }
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        e->n_ejected += m->ejected[i] != 0;
        e->weight[i] = placement_weight(s, &m->gens[e->gen], i);
        e->address[i] = keep_string(m, prev ? prev->address[i] : NULL, s->nodes[i].address);
    }
    return e;
}

/* The slot moves waiting for the publication that can be made on pl: those
 * whose node is in it (in order), compacted in place; their count. */
static uint32_t applicable_moves(struct sim *s, const struct placement *pl)
{
    struct membership *m = s->mb;
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->n_moves; i++) {
        uint32_t node = m->moves[i].node;
        bool in = false;
        for (size_t j = 0; j < pl->n_members && !in; j++)
            in = pl->members[j].node == node;
        if (in)
            m->moves[k++] = m->moves[i];
    }
    return k;
}

/* ---- slots held before a central ejection ---------------------------------------------- */

#define SLOT_BYTES (PLACE_SLOT_COUNT / 8)

static inline bool slot_bit(const uint8_t *b, uint32_t slot)
{
    return b[slot / 8] >> (slot % 8) & 1;
}

static void forget_ejected_slots(struct membership *m, uint32_t node)
{
    if (m->ejected_slots && m->ejected_slots[node]) {
        free(m->ejected_slots[node]);
        m->ejected_slots[node] = NULL;
        m->n_ejected_slots--;
    }
}

/* The migration moves about to be applied: their slots are no longer
 * an ejected node's to regain. O(moves x nodes), only while some ejected
 * node's slots are remembered. */
static void forget_migrated(struct sim *s)
{
    struct membership *m = s->mb;
    if (!m->n_ejected_slots)
        return;
    for (uint32_t i = 0; i < m->n_moves; i++) {
        uint32_t slot = m->moves[i].slot;
        for (uint32_t k = 0; k < s->n_nodes; k++)
            if (m->ejected_slots[k])
                m->ejected_slots[k][slot / 8] &= (uint8_t)~(1u << (slot % 8));
    }
}

/* Central ejections and readmissions of epoch e (slots, rehash mode), whose
 * table is built from prev, the latest epoch old's: a node ejected now has
 * its slots in prev remembered (but those it holds only while another
 * ejected node is out: that node's); a node readmitted now joins holding
 * none (join_empty) and its remembered slots are queued in m->restore,
 * applied before the publication's migration moves. A node that leaves
 * forgets. O(16384 + nodes) per ejection or readmission. */
static void eject_slots(struct sim *s, const struct epoch *old, struct epoch *e,
                        const struct placement *prev)
{
    struct membership *m = s->mb;
    /* ejections first, readmissions after: a node ejected now must see the
     * slots it holds for one readmitted at the same instant as lent,
     * whatever the two nodes' order */
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        if (!e->member[i]) {
            forget_ejected_slots(m, i);
        } else if (e->ejected[i] && !old->ejected[i] && old->member[i]) {
            if (!m->ejected_slots)
                m->ejected_slots = xcalloc(s->n_nodes + 1, sizeof(*m->ejected_slots));
            forget_ejected_slots(m, i);
            uint8_t *held = m->ejected_slots[i] = xcalloc(SLOT_BYTES, 1);
            m->n_ejected_slots++;
            for (uint32_t slot = 0; slot < PLACE_SLOT_COUNT; slot++) {
                if (placement_lookup(prev, slot) != i)
                    continue;
                bool lent = false;
                for (uint32_t k = 0; k < s->n_nodes && !lent; k++)
                    lent = k != i && m->ejected_slots[k] && slot_bit(m->ejected_slots[k], slot);
                if (!lent)
                    held[slot / 8] |= (uint8_t)(1u << (slot % 8));
            }
        }
    }
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        if (e->member[i] && !e->ejected[i] && m->ejected_slots && m->ejected_slots[i]) {
            if (!e->join_empty)
                e->join_empty = xcalloc(s->n_nodes + 1, 1);
            e->join_empty[i] = 1;
            uint32_t n = 0;
            for (uint32_t slot = 0; slot < PLACE_SLOT_COUNT; slot++) {
                if (!slot_bit(m->ejected_slots[i], slot))
                    continue;
                m->restore = xrealloc(m->restore, (m->n_restore + 1) * sizeof(*m->restore));
                m->restore[m->n_restore++] = (struct place_slot_move){slot, i};
                n++;
            }
            forget_ejected_slots(m, i);
            if (n)
                sb_printf(&m->pending_why, "%s%u slot%s back to %s",
                          m->pending_why.len ? ", " : "", n, n == 1 ? "" : "s", s->nodes[i].id);
        }
    }
}

/* Builds an epoch's base view (prev: the previous epoch's base, for slots),
 * with the slot moves waiting for the publication. */
static int build_base(struct sim *s, struct epoch *e, const struct placement *prev)
{
    struct membership *m = s->mb;
    struct placement *pl = build_placement(s, e, NULL, prev);
    if (!pl) {
        m->n_restore = 0;
        return -1;
    }
    if (m->n_restore) { /* readmissions first: they are the publication's own changes */
        char err[256];
        struct placement *back = placement_slots_move(pl, m->restore, m->n_restore, err,
                                                      sizeof err);
        m->n_restore = 0;
        placement_destroy(pl);
        if (!back) {
            m->n_moves = 0;
            sim_fail(s, "cannot give slots back in epoch %u: %s", e->id, err);
            return -1;
        }
        pl = back;
    }
    if (m->n_moves && pl->params.algo == PLACE_SLOTS) {
        char err[256];
        uint32_t n = applicable_moves(s, pl);
        struct placement *moved = n ? placement_slots_move(pl, m->moves, n, err, sizeof err) : pl;
        m->n_moves = n;
        forget_migrated(s);
        if (!moved) {
            placement_destroy(pl);
            sim_fail(s, "cannot move slots in epoch %u: %s", e->id, err);
            return -1;
        }
        if (moved != pl)
            placement_destroy(pl);
        pl = moved;
    } else {
        m->n_moves = 0; /* the routing is not slots any more: nothing to move */
    }
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
    s->mb->gutter = placement_create(&s->mb->gens[0].pp, m, s->n_gutter, NULL, err, errlen);
    free(m);
    return s->mb->gutter ? 0 : -1;
}

int membership_create(struct sim *s, char *err, size_t errlen)
{
    struct membership *m = s->mb = xcalloc(1, sizeof(*s->mb));
    sb_init(&m->pending_why);
    m->gens = xcalloc(1, sizeof(*m->gens));
    m->n_gens = 1;
    m->gens[0].pp = s->pp;
    m->gens[0].point_format = xstrdup(s->pp.point_format ? s->pp.point_format : "");
    m->gens[0].pp.point_format = m->gens[0].point_format;
    m->vnodes = xcalloc(s->n_nodes + 1, sizeof(*m->vnodes));
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
        free(m->epochs[i].weight);
        free(m->epochs[i].address);
        free(m->epochs[i].join_empty);
    }
    free(m->epochs);
    free(m->join_empty);
    free(m->moves);
    free(m->restore);
    for (uint32_t i = 0; m->ejected_slots && i < s->n_nodes; i++)
        free(m->ejected_slots[i]);
    free(m->ejected_slots);
    free(m->slot_first);
    free(m->slot_keys);
    for (uint32_t g = 0; g < m->n_gens; g++) {
        free(m->gens[g].point_format);
        if (m->gens[g].pos_owned)
            free(m->gens[g].pos);
    }
    free(m->gens);
    for (size_t i = 0; i < m->n_strings; i++)
        free(m->strings[i]);
    free(m->strings);
    free(m->vnodes);
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
    int64_t fence_delay = s->sc->routing.fence_delay_ns;
    const struct health_cfg *h = &s->sc->health;
    /* central mode: an instance adopts an epoch within 1.5 x propagation_delay */
    int64_t d = h->mode == HEALTH_CENTRAL ? h->propagation_delay_ns : 0;
    int64_t adopt_ns = d ? d + d / 2 + 1 : 0;
    for (uint32_t i = 0; i + 2 < m->n_epochs; i++) {
        struct epoch *e = &m->epochs[i];
        /* with fencing, nodes may still know it until its successor is fence_delay old */
        bool known = s->sc->routing.fencing != FENCE_NONE
                     && m->epochs[i + 1].published_ns + fence_delay > s->eng.now_ns;
        /* slots: a table built from its history, kept while it may be adopted */
        bool adoptable = m->gens[e->gen].pp.algo == PLACE_SLOTS
                         && e->published_ns + adopt_ns > s->eng.now_ns;
        if (e->base && !e->holders && !known && !adoptable) {
            view_release(s, e->base);
            e->base = NULL;
        }
    }
}

/* ---- publication -------------------------------------------------------------------- */

/* The placement a new epoch of generation gen is built from (slots: its
 * history): the latest epoch's base under the same generation, or under
 * any generation when both are slots — slots ignore the hash, weights,
 * vnodes, point format and node key, so a set_routing that keeps slots
 * keeps the slot table. NULL: built afresh. */
static const struct placement *history(const struct sim *s, const struct epoch *old,
                                       uint32_t gen)
{
    const struct routing_gen *g = s->mb->gens;
    if (!old->base)
        return NULL;
    if (old->gen == gen || (g[old->gen].pp.algo == PLACE_SLOTS && g[gen].pp.algo == PLACE_SLOTS))
        return old->base->pl;
    return NULL;
}

static int64_t count_moved(const struct sim *s, const struct view *a, const struct view *b)
{
    int64_t moved = 0;
    for (uint32_t k = 0; k < s->wl->ks.n_keys; k++)
        moved += placement_lookup(a->pl, view_position(s, a, k))
                 != placement_lookup(b->pl, view_position(s, b, k));
    return moved;
}

static void ask_publication(struct sim *s)
{
    struct membership *m = s->mb;
    if (!m->publish_pending) {
        m->publish_pending = true;
        sim_schedule(s, s->eng.now_ns, EVK_PUBLISH, 0, 0);
    }
}

void membership_change(struct sim *s, const char *why)
{
    struct membership *m = s->mb;
    sb_printf(&m->pending_why, "%s%s", m->pending_why.len ? ", " : "", why);
    m->changed = true;
    ask_publication(s);
}

void membership_add_without_slots(struct sim *s, uint32_t node)
{
    struct membership *m = s->mb;
    if (!m->join_empty)
        m->join_empty = xcalloc(s->n_nodes + 1, 1);
    m->join_empty[node] = 1;
    m->any_join_empty = true;
    m->member[node] = 1;
}

void membership_move_slots(struct sim *s, const uint32_t *slots, uint32_t n, uint32_t node)
{
    struct membership *m = s->mb;
    for (uint32_t i = 0; i < n; i++) {
        if (m->n_moves == m->cap_moves) {
            m->cap_moves = m->cap_moves ? 2 * m->cap_moves : 64;
            m->moves = xrealloc(m->moves, m->cap_moves * sizeof(*m->moves));
        }
        m->moves[m->n_moves++] = (struct place_slot_move){slots[i], node};
    }
    if (n)
        ask_publication(s);
}

/* Keys of the slot whose id is below n_keys (the keys count_moved counts). */
static int64_t slot_keys_counted(struct sim *s, uint32_t slot)
{
    uint32_t n;
    const uint32_t *k = membership_slot_keys(s, slot, &n);
    int64_t c = 0;
    while (c < n && k[c] < s->wl->ks.n_keys) /* ascending: extra hot keys come last */
        c++;
    return c;
}

/* keys_moved of an epoch made of slot moves only: the keys of the slots
 * whose owner changed. O(moves + their keys). */
static int64_t count_moved_slots(struct sim *s, const struct view *a, const struct view *b)
{
    struct membership *m = s->mb;
    uint8_t *seen = xcalloc(PLACE_SLOT_COUNT / 8, 1);
    int64_t moved = 0;
    for (uint32_t i = 0; i < m->n_moves; i++) {
        uint32_t slot = m->moves[i].slot;
        if (seen[slot / 8] & (1u << (slot % 8)))
            continue;
        seen[slot / 8] |= (uint8_t)(1u << (slot % 8));
        if (placement_lookup(a->pl, slot) != placement_lookup(b->pl, slot))
            moved += slot_keys_counted(s, slot);
    }
    free(seen);
    return moved;
}

/* The publication's slot moves, as its reason: "N slots to D (first..last)"
 * for each run of moves to one node. */
static void describe_moves(struct sim *s)
{
    struct membership *m = s->mb;
    for (uint32_t i = 0; i < m->n_moves;) {
        uint32_t j = i, lo = m->moves[i].slot, hi = lo;
        while (j < m->n_moves && m->moves[j].node == m->moves[i].node) {
            lo = MIN(lo, m->moves[j].slot);
            hi = MAX(hi, m->moves[j].slot);
            j++;
        }
        const char *to = s->nodes[m->moves[i].node].id;
        if (j - i == 1)
            sb_printf(&m->pending_why, "%sslot %u to %s", m->pending_why.len ? ", " : "", lo, to);
        else
            sb_printf(&m->pending_why, "%s%u slots to %s (%u..%u)",
                      m->pending_why.len ? ", " : "", j - i, to, lo, hi);
        i = j;
    }
}

uint32_t membership_publish(struct sim *s)
{
    struct membership *m = s->mb;
    m->publish_pending = false;
    bool moves_only = m->moves_only = !m->changed;
    m->changed = false;
    uint32_t old_id = membership_latest(s)->id;
    struct epoch *e = new_epoch(s);
    if (m->any_join_empty) { /* the joiners hold their (no) slots from now on */
        memset(m->join_empty, 0, s->n_nodes);
        m->any_join_empty = false;
    }
    struct epoch *old = membership_epoch(s, old_id); /* the array may have moved */
    const struct placement *prev = history(s, old, e->gen);
    if (prev && m->gens[e->gen].pp.algo == PLACE_SLOTS && s->sc->health.on_eject != EJECT_GUTTER)
        eject_slots(s, old, e, prev);
    else
        for (uint32_t i = 0; m->n_ejected_slots && i < s->n_nodes; i++)
            forget_ejected_slots(m, i); /* the table starts afresh, or is not slots */
    if (build_base(s, e, prev)) {
        sb_reset(&m->pending_why);
        m->n_moves = 0;
        return 0;
    }
    int64_t moved = !old->base ? 0
                    : moves_only && prev ? count_moved_slots(s, old->base, e->base)
                                         : count_moved(s, old->base, e->base);
    describe_moves(s);
    m->n_moves = 0;
    m->keys_moved += moved;
    uint32_t n_members = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        n_members += e->member[i] && !e->ejected[i];
    sim_event(s, "epoch", NULL, "epoch %u: %s; %u nodes in the ring, %lld keys moved", e->id,
              m->pending_why.buf, n_members, (long long)moved);
    sb_reset(&m->pending_why);
    return e->id;
}

/* ---- routing generations ------------------------------------------------------- */

/* What a key's position depends on: the hash, and the algorithm's kind of
 * position (ketama: 32 bits; slots: CRC16; the others: the hash's). */
static bool same_positions(const struct place_params *a, const struct place_params *b)
{
    int ka = a->algo == PLACE_KETAMA ? 1 : a->algo == PLACE_SLOTS ? 2 : 0;
    int kb = b->algo == PLACE_KETAMA ? 1 : b->algo == PLACE_SLOTS ? 2 : 0;
    return ka == kb && (ka == 2 || a->hash == b->hash);
}

int membership_set_routing(struct sim *s, const struct place_params *pp)
{
    struct membership *m = s->mb;
    const struct routing_gen *cur = &m->gens[m->n_gens - 1];
    struct routing_gen g = {*pp, xstrdup(pp->point_format ? pp->point_format : ""), NULL, false};
    g.pp.point_format = g.point_format;
    if (same_positions(&cur->pp, pp)) {
        g.pos = cur->pos; /* shared: owned by the generation that computed it */
    } else {
        const struct keyspace *ks = &s->wl->ks;
        g.pos = malloc((size_t)(ks->n_total ? ks->n_total : 1) * sizeof(*g.pos));
        if (!g.pos) {
            free(g.point_format);
            sim_fail(s, "out of memory for the key positions of a new routing");
            return -1;
        }
        g.pos_owned = true;
        char buf[512];
        for (uint32_t k = 0; k < ks->n_total; k++) {
            const char *name = keyspace_name(ks, k, buf, sizeof buf);
            g.pos[k] = placement_key_position(&g.pp, name, strlen(name));
        }
    }
    m->gens = xrealloc(m->gens, (m->n_gens + 1) * sizeof(*m->gens));
    m->gens[m->n_gens++] = g;
    return 0;
}

void membership_set_vnodes(struct sim *s, uint32_t node, uint32_t vnodes)
{
    s->mb->vnodes[node] = vnodes;
}

double membership_node_vnodes(const struct sim *s, uint32_t node)
{
    double v = s->mb->vnodes[node];
    return v > 0 ? v : membership_routing(s)->vnodes;
}

struct placement *membership_future(struct sim *s, const uint8_t *member)
{
    struct membership *m = s->mb;
    /* a snapshot of that membership as it would be published now */
    struct epoch e;
    memset(&e, 0, sizeof e);
    e.id = m->n_epochs + 1;
    e.gen = m->n_gens - 1;
    e.member = (uint8_t *)member; /* read only */
    e.ejected = m->ejected;
    e.weight = xcalloc(s->n_nodes + 1, sizeof(*e.weight));
    e.address = xcalloc(s->n_nodes + 1, sizeof(*e.address));
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        e.weight[i] = placement_weight(s, &m->gens[e.gen], i);
        e.address[i] = s->nodes[i].address;
    }
    const struct epoch *last = membership_latest(s);
    const struct placement *prev = history(s, last, e.gen);
    struct placement *pl = build_placement(s, &e, NULL, prev); /* slots: moves from now */
    free(e.weight);
    free(e.address);
    return pl;
}

/* ---- slots ------------------------------------------------------------------------ */

uint32_t membership_slot_owner(struct sim *s, uint32_t slot)
{
    const struct epoch *e = membership_latest(s);
    if (s->mb->gens[e->gen].pp.algo != PLACE_SLOTS)
        return PLACE_NONE;
    return placement_lookup(e->base->pl, slot);
}

/* The slot index: a counting sort of the keys by slot. O(keys). */
static void build_slot_index(struct sim *s)
{
    struct membership *m = s->mb;
    const struct keyspace *ks = &s->wl->ks;
    const uint64_t *pos = membership_current_positions(s);
    m->slot_first = xcalloc(PLACE_SLOT_COUNT + 1, sizeof(*m->slot_first));
    m->slot_keys = xmalloc((ks->n_total ? ks->n_total : 1) * sizeof(*m->slot_keys));
    for (uint32_t k = 0; k < ks->n_total; k++)
        m->slot_first[((pos ? pos[k] : ks->rec[k].pos) & (PLACE_SLOT_COUNT - 1)) + 1]++;
    for (uint32_t i = 0; i < PLACE_SLOT_COUNT; i++)
        m->slot_first[i + 1] += m->slot_first[i];
    uint32_t *fill = xmalloc(PLACE_SLOT_COUNT * sizeof(*fill));
    memcpy(fill, m->slot_first, PLACE_SLOT_COUNT * sizeof(*fill));
    for (uint32_t k = 0; k < ks->n_total; k++)
        m->slot_keys[fill[(pos ? pos[k] : ks->rec[k].pos) & (PLACE_SLOT_COUNT - 1)]++] = k;
    free(fill);
}

const uint32_t *membership_slot_keys(struct sim *s, uint32_t slot, uint32_t *n)
{
    struct membership *m = s->mb;
    if (!m->slot_first) {
        assert(membership_routing(s)->algo == PLACE_SLOTS);
        build_slot_index(s);
    }
    *n = m->slot_first[slot + 1] - m->slot_first[slot];
    return m->slot_keys + m->slot_first[slot];
}

/* ---- fencing ---------------------------------------------------------------------- */

uint32_t membership_known_epoch(struct sim *s, int64_t t_ns)
{
    const struct membership *m = s->mb;
    int64_t delay = s->sc->routing.fence_delay_ns;
    uint32_t i = m->n_epochs;
    while (i > 1 && m->epochs[i - 1].published_ns + delay > t_ns)
        i--;
    return i;
}

/* The epoch's base view, built again if it was trimmed (it stays until
 * trimmed again); NULL if it cannot be. */
static struct view *base_of(struct sim *s, uint32_t epoch)
{
    struct epoch *e = membership_epoch(s, epoch);
    if (!e->base) {
        struct view *v = view_get(s, epoch, NULL);
        if (!v)
            return NULL;
        e = membership_epoch(s, epoch);
        e->base = v;
    }
    return e->base;
}

uint32_t membership_owner(struct sim *s, uint32_t epoch, uint32_t key)
{
    struct view *v = base_of(s, epoch);
    return v ? placement_lookup(v->pl, view_position(s, v, key)) : PLACE_NONE;
}

uint32_t membership_owners(struct sim *s, uint32_t epoch, uint32_t key, uint32_t r,
                           uint32_t *out)
{
    struct view *v = base_of(s, epoch);
    return v ? (uint32_t)placement_replicas(v->pl, view_position(s, v, key), s->zones, out, r)
             : 0;
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
