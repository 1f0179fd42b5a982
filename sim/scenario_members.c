/*
 * scenario_members.c — the membership timeline and the placement checks.
 *
 * Plays the events in time order over the membership: every event's target
 * must make sense at its moment (add_node of a node not in the cluster,
 * remove_node of one that is and not the last, crash of a running node,
 * restart of a crashed one, unique addresses with node_key: address). Then
 * runs the placement library's one validator on what the run will build:
 * placement_check_params on the routing section, and
 * placement_check_membership on every membership the run builds a placement
 * for: the nodes at time 0, the cluster after each add_node, remove_node and
 * set_address, and the gutter pool.
 *
 * The library's limits only grow with the membership, so a membership that
 * is a subset of one that passes passes too. The walk therefore checks the
 * largest membership of each run of growth (the adds since the last
 * remove_node or set_address) once, and only when it fails looks for the
 * first membership of the run that fails (a binary search over the run), to
 * report the event that made it:
 *
 *   nodes ─add─► M1 ─add─► M2 ─remove─► M3 ─add─► M4 ─set_address─► M5 ...
 *   └────── run 1: check M2 ─┘          └─ run 2: check M4 ─┘  └─ run 3 ...
 *
 * Invariant of a scenario that passes: placement_create accepts every
 * membership the run builds (health ejections and client exclusions only
 * take members away; ketama, whose exact count is not monotone, stays far
 * below the point limit at the most nodes a scenario can have, asserted
 * below), so a run never fails to build a ring mid-run.
 *
 * Slot migrations (migrate_slots, routing.algorithm slots): the walk also
 * keeps the slot table as the run builds it — one table per instant with
 * membership changes, each from the previous one (placement history, kept
 * across a set_routing that stays slots, as the run keeps it), a
 * node added with take_slots: false holding none — and checks each
 * migration, once the membership changes of its instant are made, against
 * it: its source and target in the cluster, its slots the source's; then
 * hands its slots over at once. At run time migrations take a while and
 * run one at a time, and central ejections and staged joins change tables
 * the walk cannot foresee: a slot its source does not own at its turn is
 * then skipped (models/migrate.c).
 *
 * Cost: O(R × N) for R runs over N nodes (a check is O(N) expected), plus
 * O(N log E) when one fails; the timeline finds a member by its id in O(1)
 * expected (and, with node_key: address, checks addresses in O(N) per
 * add_node or set_address). With migrations, O(16384 + N) per instant with
 * membership changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario_internal.h"

/* The membership as events change it. */
struct member {
    const char *id, *address, *zone;
    double weight;
    uint32_t vnodes;        /* its own (set_vnodes), 0: the routing's */
    bool live, crashed;
    int64_t drain_until_ns; /* removed with a drain: it may still be draining before this */
};

struct members {
    struct member *v;       /* every node ever in the cluster, in order of first join */
    size_t n, cap;
    size_t live;
    uint32_t *index;        /* open addressing on the id's hash: v indexes, UINT32_MAX empty */
    size_t index_cap;       /* a power of two, more than 2 n */
};

/* The walk: the membership, and the current run of growth. */
struct timeline {
    struct loader *L;
    struct members m;
    struct place_params p;
    bool check_placement;   /* routing is valid and nothing about nodes was reported */
    bool algo_known;        /* p.algo is the scenario's: no value of it was rejected */
    size_t errs_before;     /* L->n_errs when the walk started */
    struct place_member *buf; /* the live members, for the library */
    /* the run: its start (an event index, or SIZE_MAX for the nodes at time 0,
     * whose membership is unchecked; NO_BASE when it is a subset of one that
     * passed), and its adds in order (member and event indexes) */
    size_t base_event;
    size_t *added_member, *added_event;
    size_t n_added;
    bool *later;            /* scratch of run_prefix, by member index */
    size_t joined;          /* the member index of the last add_node */
    bool pending;           /* the run has a membership not checked yet */
    /* slots, with migrate_slots events: the table as the run builds it */
    bool track_slots;
    struct placement *slots; /* after the last instant; NULL: not known */
    bool slots_dirty;       /* the membership changed at this instant */
    bool *join_empty;       /* by member index: joins without slots at this instant */
    int64_t instant;        /* the time of the events being walked */
    size_t *migrations;     /* migrate_slots events of this instant, in order */
    size_t n_migrations;
};

#define TIME_ZERO SIZE_MAX
#define NO_BASE   (SIZE_MAX - 1)

/* A scenario has at most MAX_NODES + MAX_EVENTS nodes at once; ketama's
 * points (160 per node, give or take the rounding of the shares) stay far
 * below the library's limit there, so its subsets pass too. */
_Static_assert((uint64_t)(MAX_NODES + MAX_EVENTS) * (PLACE_KETAMA_POINTS + 4) < PLACE_MAX_POINTS,
               "ketama memberships of a scenario cannot reach the point limit");

/* The slot of id in the index: where it is, or the empty slot it would take. */
static size_t member_slot(const struct members *m, const char *id)
{
    size_t h = (size_t)fnv1a_64(id, strlen(id)) & (m->index_cap - 1);
    while (m->index[h] != UINT32_MAX && strcmp(m->v[m->index[h]].id, id))
        h = (h + 1) & (m->index_cap - 1);
    return h;
}

/* O(1) expected. */
static struct member *member_find(struct members *m, const char *id)
{
    if (!m->index_cap)
        return NULL;
    uint32_t i = m->index[member_slot(m, id)];
    return i == UINT32_MAX ? NULL : &m->v[i];
}

static struct member *member_by_address(struct members *m, const char *addr, const char *not_id)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].live && strcmp(m->v[i].id, not_id) && !strcmp(m->v[i].address, addr))
            return &m->v[i];
    return NULL;
}

static void member_index_grow(struct members *m)
{
    free(m->index);
    m->index_cap = m->index_cap ? 2 * m->index_cap : 64;
    m->index = xmalloc(m->index_cap * sizeof *m->index);
    memset(m->index, 0xff, m->index_cap * sizeof *m->index);
    for (size_t i = 0; i < m->n; i++)
        m->index[member_slot(m, m->v[i].id)] = (uint32_t)i;
}

/* The node joins (again, if it was a member before). Returns its index. */
static size_t member_join(struct members *m, const char *id, const char *addr, double weight,
                          const char *zone)
{
    struct member *x = member_find(m, id);
    if (!x) {
        if (m->n == m->cap) {
            m->cap = m->cap ? 2 * m->cap : 16;
            m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
        }
        x = &m->v[m->n++];
        x->id = id;
        if (2 * m->n >= m->index_cap)
            member_index_grow(m);
        else
            m->index[member_slot(m, id)] = (uint32_t)(m->n - 1);
    }
    x->address = addr;
    x->weight = weight;
    x->zone = zone;
    x->vnodes = 0;
    x->live = true;
    x->crashed = false;
    x->drain_until_ns = INT64_MIN;
    m->live++;
    return (size_t)(x - m->v);
}

void scenario_place_params(const struct scenario *s, struct place_params *p)
{
    memset(p, 0, sizeof(*p));
    p->algo = s->routing.algorithm;
    p->hash = s->routing.hash;
    p->vnodes = s->routing.vnodes;
    p->point_format = s->routing.point_format;
    p->node_key_address = s->routing.node_key_address;
    p->load_factor = s->routing.load_factor;
    p->maglev_size = s->routing.table_size;
}

/* ---- the placement library's checks ----------------------------------------- */

/* The routing key a fault is about, or NULL when it is about the membership. */
static const char *fault_path(enum place_fault f, place_algo a)
{
    switch (f) {
    case PLACE_FAULT_ALGO: return "routing.algorithm";
    case PLACE_FAULT_HASH: return "routing.hash";
    case PLACE_FAULT_VNODES: return "routing.vnodes";
    case PLACE_FAULT_POINT_FORMAT: return "routing.point_format";
    case PLACE_FAULT_LOAD_FACTOR: return "routing.load_factor";
    case PLACE_FAULT_MAGLEV_SIZE: return "routing.table_size";
    case PLACE_FAULT_POINTS: return a == PLACE_KETAMA ? NULL : "routing.vnodes";
    default: return NULL;
    }
}

/* The routing section as place_params, checked by the library; false (and
 * reported, unless binding already did) when placements cannot be checked. */
static bool routing_params(struct loader *L, struct place_params *p)
{
    const struct routing_cfg *r = &L->s->routing;
    const void *fields[] = {&r->algorithm, &r->hash, &r->vnodes, &r->point_format,
                            &r->node_key_address, &r->load_factor, &r->table_size};
    scenario_place_params(L->s, p); /* the good ones hold for the later checks */
    for (size_t i = 0; i < ARRAY_LEN(fields); i++)
        if (!good(L, fields[i]))
            return false;
    char msg[256];
    enum place_fault f = placement_check_params(p, msg, sizeof msg);
    if (f != PLACE_OK)
        report_path(L, fault_path(f, p->algo) ? fault_path(f, p->algo) : "routing", "%s", msg);
    return f == PLACE_OK;
}

/* A member's placement weight: with its own vnodes (ring, bounded) the
 * weight scaled by them over the routing's, as the run builds it. */
static double member_weight(const struct timeline *tl, const struct member *x)
{
    if (x->vnodes && (tl->p.algo == PLACE_RING || tl->p.algo == PLACE_BOUNDED))
        return x->weight * (double)x->vnodes / (double)tl->p.vnodes;
    return x->weight;
}

/* The live members but the run's adds from the k-th on: the membership
 * after the run's first k adds. Returns how many were written to tl->buf.
 * O(members). */
static size_t run_prefix(struct timeline *tl, size_t k)
{
    size_t n = 0;
    for (size_t j = k; j < tl->n_added; j++)
        tl->later[tl->added_member[j]] = true;
    for (size_t i = 0; i < tl->m.n; i++) {
        const struct member *x = &tl->m.v[i];
        if (x->live && !tl->later[i])
            tl->buf[n++] = (struct place_member){x->id, x->address, member_weight(tl, x),
                                                 (uint32_t)i};
    }
    for (size_t j = k; j < tl->n_added; j++)
        tl->later[tl->added_member[j]] = false;
    return n;
}

/* The library's verdict on the membership after the run's first k adds. */
static enum place_fault run_check(struct timeline *tl, size_t k, char *msg, size_t len)
{
    size_t n = run_prefix(tl, k);
    return placement_check_membership(&tl->p, tl->buf, n, msg, len);
}

/* Reports a fault of the membership made by event i (TIME_ZERO: the nodes
 * at time 0) at its routing key, or else at the event (the nodes). */
static void report_fault(struct timeline *tl, enum place_fault f, const char *msg, size_t i)
{
    const struct scenario *s = tl->L->s;
    char where[96], context[160] = "", t[32];
    const char *path = fault_path(f, tl->p.algo);
    if (i == TIME_ZERO) {
        snprintf(where, sizeof where, "nodes");
    } else {
        const struct event_cfg *ev = &s->events[i];
        const char *kind = event_kind_name(ev->kind);
        format_duration(ev->at_ns, t, sizeof t);
        if (ev->node)
            snprintf(where, sizeof where, "events.%zu.%s.id", i, kind);
        else
            snprintf(where, sizeof where, "events.%zu.%s", i, kind);
        snprintf(context, sizeof context, " (the cluster at %s, after events.%zu: %s%s%s)", t, i,
                 kind, ev->node ? " " : "", ev->node ? ev->node : "");
    }
    report_path(tl->L, path ? path : where, "%s%s", msg, context);
}

/* Checks the run's largest membership; when it fails, finds the first
 * membership of the run that fails (the failing ones are a suffix of the
 * run) and reports it. Only the first fault of a scenario is reported: the
 * memberships after it would repeat it. */
static void check_run(struct timeline *tl)
{
    char msg[320];
    bool go = tl->pending && tl->check_placement && tl->L->n_errs == tl->errs_before;
    tl->pending = false;
    if (!go || run_check(tl, tl->n_added, msg, sizeof msg) == PLACE_OK)
        return;
    size_t lo = tl->base_event == NO_BASE ? 1 : 0, hi = tl->n_added;
    while (lo < hi) { /* O(log n_added) checks */
        size_t mid = lo + (hi - lo) / 2;
        if (run_check(tl, mid, msg, sizeof msg) != PLACE_OK)
            hi = mid;
        else
            lo = mid + 1;
    }
    enum place_fault f = run_check(tl, lo, msg, sizeof msg);
    report_fault(tl, f, msg, lo ? tl->added_event[lo - 1] : tl->base_event);
    tl->check_placement = false;
}

/* Starts a run whose first membership is the current one, made by event
 * base (TIME_ZERO, NO_BASE: see struct timeline). */
static void run_start(struct timeline *tl, size_t base)
{
    tl->base_event = base;
    tl->n_added = 0;
    tl->pending = base != NO_BASE;
}

/* The gutter pool (health.on_eject: gutter): gutter-0 .. gutter-(G-1),
 * addressed by their names, weight 1. */
static void check_gutter_pool(struct timeline *tl)
{
    const struct health_cfg *h = &tl->L->s->health;
    if (h->on_eject != EJECT_GUTTER || !h->gutter_nodes || !good(tl->L, &h->gutter_nodes) ||
        !good(tl->L, &h->on_eject) || !tl->check_placement ||
        tl->L->n_errs != tl->errs_before)
        return;
    struct place_member *g = xcalloc(h->gutter_nodes, sizeof *g);
    char (*names)[32] = xcalloc(h->gutter_nodes, sizeof *names);
    for (uint32_t i = 0; i < h->gutter_nodes; i++) {
        snprintf(names[i], sizeof names[i], "gutter-%u", i);
        g[i] = (struct place_member){names[i], names[i], 1.0, i};
    }
    char msg[320];
    enum place_fault f = placement_check_membership(&tl->p, g, h->gutter_nodes, msg, sizeof msg);
    if (f != PLACE_OK) {
        const char *path = fault_path(f, tl->p.algo);
        report_path(tl->L, path ? path : "health.gutter_nodes",
                    "%s (the gutter pool, health.gutter_nodes)", msg);
    }
    free(names);
    free(g);
}

/* ---- slots ------------------------------------------------------------------- */

/* The table after this instant's membership changes, from the previous one. */
static void slots_rebuild(struct timeline *tl)
{
    tl->slots_dirty = false;
    if (!tl->track_slots || tl->p.algo != PLACE_SLOTS) {
        placement_destroy(tl->slots);
        tl->slots = NULL;
        return;
    }
    size_t n = 0;
    bool *empty = xcalloc(tl->m.n + 1, sizeof *empty);
    for (size_t i = 0; i < tl->m.n; i++) {
        const struct member *x = &tl->m.v[i];
        if (!x->live)
            continue;
        empty[n] = tl->join_empty[i];
        tl->buf[n++] = (struct place_member){x->id, x->address, 1.0, (uint32_t)i};
    }
    /* a set_routing that keeps slots keeps the table (slots ignore the hash,
     * vnodes, point format and node key); one away from slots dropped it */
    struct placement *pl = placement_create_joining(&tl->p, tl->buf, n, tl->slots, empty, NULL, 0);
    placement_destroy(tl->slots);
    tl->slots = pl; /* NULL when it cannot be built: reported by the placement checks */
    memset(tl->join_empty, 0, (tl->m.n + 1) * sizeof *tl->join_empty);
    free(empty);
}

/* A node of a migration, in the cluster at time t; NULL (reported) if not. */
static struct member *migration_node(struct timeline *tl, const char *id, size_t i,
                                     const char *key, const char *t)
{
    char path[96];
    struct member *x = member_find(&tl->m, id);
    if (x && x->live)
        return x;
    snprintf(path, sizeof path, "events.%zu.migrate_slots.%s", i, key);
    report_path(tl->L, path, "node \"%s\" is not in the cluster at %s", id, t);
    return NULL;
}

/* A migrate_slots event, once its instant's membership changes are made:
 * its nodes, its slots against the table; then its slots are the target's. */
static void check_migration(struct timeline *tl, size_t i)
{
    struct loader *L = tl->L;
    const struct event_cfg *ev = &L->s->events[i];
    const struct slot_sel *sel = &ev->migrate.slots;
    char path[96], t[32];
    format_duration(ev->at_ns, t, sizeof t);
    if (!tl->algo_known)
        return; /* a rejected algorithm: reported, nothing to check against */
    if (tl->p.algo != PLACE_SLOTS) {
        snprintf(path, sizeof path, "events.%zu.migrate_slots", i);
        report_path(L, path, "migrate_slots moves the slots of routing.algorithm slots, and the "
                    "routing is %s at %s; use routing.algorithm: slots",
                    place_algo_name(tl->p.algo), t);
        return;
    }
    if (!ev->node || !good(L, &ev->node) || !ev->migrate.to || !good(L, &ev->migrate.to))
        return;
    struct member *from = migration_node(tl, ev->node, i, "from", t);
    struct member *to = migration_node(tl, ev->migrate.to, i, "to", t);
    if (!from || !to)
        return;
    if (from == to) {
        /* at the side a --set wrote, if one did: that is what changed */
        snprintf(path, sizeof path, "events.%zu.migrate_slots.from", i);
        const struct ynode *f = tree_at(L->root, path);
        if (!f || !f->set)
            snprintf(path, sizeof path, "events.%zu.migrate_slots.to", i);
        report_path(L, path, "the target must be another node than the source (%s)", ev->node);
        return;
    }
    if (!tl->slots || !good(L, sel))
        return;
    uint32_t fi = (uint32_t)(from - tl->m.v), ti = (uint32_t)(to - tl->m.v);
    uint32_t n = sel->count ? sel->count : sel->last - sel->first + 1, k = 0;
    struct place_slot_move *moves = xcalloc(n, sizeof *moves);
    snprintf(path, sizeof path, "events.%zu.migrate_slots.slots", i);
    for (uint32_t slot = sel->count ? 0 : sel->first;
         k < n && slot < (sel->count ? PLACE_SLOT_COUNT : sel->last + 1u); slot++) {
        uint32_t owner = placement_lookup(tl->slots, slot);
        if (owner == fi) {
            moves[k++] = (struct place_slot_move){slot, ti};
        } else if (!sel->count) {
            report_path(L, path, "slot %u is node %s's at %s, not %s's: a migration moves slots "
                        "its source owns", slot, tl->m.v[owner].id, t, ev->node);
            free(moves);
            return;
        }
    }
    if (k < n) {
        report_path(L, path, "node %s owns %u slots at %s, fewer than the %u asked for", ev->node,
                    k, t, n);
        free(moves);
        return;
    }
    struct placement *pl = placement_slots_move(tl->slots, moves, n, NULL, 0);
    free(moves);
    placement_destroy(tl->slots);
    tl->slots = pl;
}

/* The end of an instant: its table, then its migrations against it. */
static void end_instant(struct timeline *tl)
{
    if (tl->slots_dirty)
        slots_rebuild(tl);
    for (size_t j = 0; j < tl->n_migrations; j++)
        check_migration(tl, tl->migrations[j]);
    tl->n_migrations = 0;
}

/* ---- the events ----------------------------------------------------------- */

/* With node_key: address, the address an event gives must not be another
 * live node's. */
static void check_address_free(struct timeline *tl, const struct event_cfg *ev, size_t i,
                               const char *t)
{
    struct member *other;
    char path[96];
    if (!tl->L->s->routing.node_key_address || !ev->address ||
        !(other = member_by_address(&tl->m, ev->address, ev->node)))
        return;
    snprintf(path, sizeof path, "events.%zu.%s.address", i, event_kind_name(ev->kind));
    report_path(tl->L, path,
                "address \"%s\" is node %s's at %s (with node_key: address, addresses must be "
                "unique)", ev->address, other->id, t);
}

/* Applies one event to the membership, reporting one that makes no sense at
 * its moment. Returns whether the membership (ids or addresses) changed. */
static bool apply_event(struct timeline *tl, const struct event_cfg *ev, size_t i, const char *t)
{
    struct loader *L = tl->L;
    struct members *m = &tl->m;
    char path[96];
    snprintf(path, sizeof path, "events.%zu.%s.id", i, event_kind_name(ev->kind));
    struct member *x = member_find(m, ev->node);
    bool live = x && x->live;
    if (ev->kind == EV_ADD_NODE) {
        if (live) {
            report_path(L, path, "node \"%s\" is already in the cluster at %s", ev->node, t);
            return false;
        }
        check_address_free(tl, ev, i, t);
        tl->joined = member_join(m, ev->node, ev->address, ev->weight, ev->zone);
        if (ev->has_take_slots && !ev->take_slots && good(L, &ev->take_slots)) {
            snprintf(path, sizeof path, "events.%zu.add_node.take_slots", i);
            if (tl->algo_known && tl->p.algo != PLACE_SLOTS)
                report_path(L, path, "take_slots: false is for routing.algorithm slots (a node "
                            "that joins holding no slot), and the routing is %s at %s; remove it",
                            place_algo_name(tl->p.algo), t);
            else if (ev->warm.rate > 0)
                report_path(L, path, "a node that joins holding no slot has nothing to warm; "
                            "remove warm or take_slots: false");
            tl->join_empty[tl->joined] = true;
        }
        return true;
    }
    if (!live && ev->kind == EV_CRASH_NODE && x && ev->at_ns < x->drain_until_ns) {
        /* removed with a drain that may still run: the node may crash
         * during it (if the drain has ended by then, the run records that
         * the crash found it gone); once crashed, nothing more of it */
        if (x->crashed)
            report_path(L, path, "node \"%s\" is already crashed at %s", ev->node, t);
        x->crashed = true;
        return false;
    }
    if (!live) {
        char why[160] = "";
        if (ev->kind == EV_CRASH_NODE && x && x->drain_until_ns != INT64_MIN) {
            char until[32];
            format_duration(x->drain_until_ns, until, sizeof until);
            snprintf(why, sizeof why, " (a node being drained may crash only before its "
                     "drain's max_wait has passed: before %s)", until);
        }
        report_path(L, path, "node \"%s\" is not in the cluster at %s%s", ev->node, t, why);
        return false;
    }
    switch (ev->kind) {
    case EV_REMOVE_NODE:
        if (m->live == 1) {
            report_path(L, path, "removing node \"%s\" at %s would leave no nodes", ev->node, t);
            return false;
        }
        x->live = false;
        x->drain_until_ns = ev->drain.rate <= 0 ? INT64_MIN
                            : ev->drain.max_wait_ns > INT64_MAX - ev->at_ns
                            ? INT64_MAX
                            : ev->at_ns + ev->drain.max_wait_ns;
        m->live--;
        return true;
    case EV_CRASH_NODE:
        if (x->crashed)
            report_path(L, path, "node \"%s\" is already crashed at %s", ev->node, t);
        x->crashed = true;
        return false;
    case EV_RESTART_NODE:
        if (!x->crashed)
            report_path(L, path, "node \"%s\" is not crashed at %s", ev->node, t);
        x->crashed = false;
        return false;
    case EV_SET_ADDRESS:
        check_address_free(tl, ev, i, t);
        if (ev->address)
            x->address = ev->address;
        return ev->address != NULL;
    case EV_SET_WEIGHT:
        /* the steps go from the weight now to this one: checking both bounds them */
        x->weight = ev->weight;
        return good(L, &ev->weight);
    case EV_SET_VNODES:
        if (tl->algo_known && tl->p.algo != PLACE_RING && tl->p.algo != PLACE_BOUNDED) {
            snprintf(path, sizeof path, "events.%zu.set_vnodes", i);
            report_path(L, path, "a node's own vnodes need routing.algorithm ring or bounded "
                        "(it is %s at %s)", place_algo_name(tl->p.algo), t);
            return false;
        }
        x->vnodes = ev->vnodes;
        return good(L, &ev->vnodes);
    default:
        return false;
    }
}

/* crash_zone: every live, running node of the zone crashes. */
static void crash_zone(struct timeline *tl, const struct event_cfg *ev, size_t i, const char *t)
{
    if (!ev->zone || !good(tl->L, &ev->zone))
        return; /* its own message said what was wrong */
    size_t hit = 0;
    for (size_t k = 0; k < tl->m.n; k++) {
        struct member *x = &tl->m.v[k];
        if (x->live && !x->crashed && x->zone && !strcmp(x->zone, ev->zone)) {
            x->crashed = true;
            hit++;
        }
    }
    if (!hit) {
        char path[96];
        snprintf(path, sizeof path, "events.%zu.crash_zone.zone", i);
        report_path(tl->L, path, "no running node of the cluster is in zone \"%s\" at %s",
                    ev->zone, t);
    }
}

/* Replicas need that many members at every moment, and an algorithm that
 * picks one owner by position (not by load). */
static void check_replicas(struct timeline *tl, const char *path, const char *t)
{
    uint32_t r = tl->L->s->routing.replicas;
    if (r <= 1 || !good(tl->L, &tl->L->s->routing.replicas))
        return;
    if (tl->algo_known && tl->p.algo == PLACE_BOUNDED)
        report_path(tl->L, path, "routing.replicas %u needs an algorithm that places a key by "
                    "its position alone; under bounded loads the owner depends on the load (at %s)",
                    r, t);
    else if (tl->m.live < r)
        report_path(tl->L, path, "routing.replicas is %u but the cluster has %zu node%s at %s",
                    r, tl->m.live, tl->m.live == 1 ? "" : "s", t);
}

/* Fencing needs a node to know a key's owner from the membership alone. */
static void check_fencing(struct timeline *tl, const char *path, const char *t)
{
    const struct routing_cfg *r = &tl->L->s->routing;
    if (r->fencing == FENCE_NONE || !tl->algo_known || tl->p.algo != PLACE_BOUNDED
        || !good(tl->L, &r->fencing))
        return;
    report_path(tl->L, path, "routing.fencing %s needs a node to know a key's owner, and under "
                "bounded loads the owner depends on the load of the moment (%s); use fencing: "
                "none, or another algorithm", r->fencing == FENCE_REJECT ? "reject" : "forward",
                t);
}

/* set_routing: the new routing's parameters, checked by the library. */
static bool apply_routing(struct timeline *tl, const struct event_cfg *ev, size_t i, const char *t)
{
    const struct routing_change *c = &ev->routing;
    struct loader *L = tl->L;
    char path[96], msg[256];
    /* a value binding rejected is reported already: it changes nothing here,
     * and what depends on it is not checked (one mistake, one message) */
    bool ok = true;
    if (c->has_algorithm) {
        tl->algo_known = good(L, &c->algorithm);
        if (tl->algo_known)
            tl->p.algo = c->algorithm;
        ok = ok && tl->algo_known;
    }
#define APPLY(has, field, to)            \
    if (c->has) {                        \
        if (good(L, &c->field))          \
            tl->p.to = c->field;         \
        else                             \
            ok = false;                  \
    }
    APPLY(has_hash, hash, hash)
    APPLY(has_vnodes, vnodes, vnodes)
    APPLY(has_point_format, point_format, point_format)
    APPLY(has_node_key, node_key_address, node_key_address)
#undef APPLY
    snprintf(path, sizeof path, "events.%zu.set_routing", i);
    check_fencing(tl, path, t);
    if (!ok) {
        tl->check_placement = false;
        return false;
    }
    enum place_fault f = placement_check_params(&tl->p, msg, sizeof msg);
    if (f != PLACE_OK) {
        report_path(tl->L, path, "%s (the routing from %s)", msg, t);
        tl->check_placement = false;
        return false;
    }
    return true;
}

void check_membership(struct loader *L, const struct ev_ref *order, size_t n, bool nodes_ok)
{
    struct scenario *s = L->s;
    struct timeline tl = {.L = L, .errs_before = L->n_errs};
    tl.check_placement = routing_params(L, &tl.p) && nodes_ok;
    tl.algo_known = good(L, &s->routing.algorithm);
    tl.buf = xcalloc(s->n_nodes + s->n_events + 1, sizeof *tl.buf);
    tl.added_member = xcalloc(s->n_events + 1, sizeof *tl.added_member);
    tl.added_event = xcalloc(s->n_events + 1, sizeof *tl.added_event);
    tl.later = xcalloc(s->n_nodes + s->n_events + 1, sizeof *tl.later);
    tl.join_empty = xcalloc(s->n_nodes + s->n_events + 1, sizeof *tl.join_empty);
    tl.migrations = xcalloc(s->n_events + 1, sizeof *tl.migrations);
    for (size_t i = 0; i < s->n_events; i++)
        tl.track_slots = tl.track_slots || s->events[i].kind == EV_MIGRATE_SLOTS;
    tl.track_slots = tl.track_slots && tl.check_placement;
    tl.slots_dirty = true; /* the nodes at time 0 */
    tl.instant = -1;
    for (size_t i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].id && !member_find(&tl.m, s->nodes[i].id))
            member_join(&tl.m, s->nodes[i].id, s->nodes[i].address, s->nodes[i].weight,
                        s->nodes[i].zone);
    run_start(&tl, TIME_ZERO);

    check_fencing(&tl, "routing.fencing", "from the start");
    check_replicas(&tl, "routing.replicas", "time 0");
    for (size_t r = 0; r < n; r++) {
        size_t i = order[r].idx;
        const struct event_cfg *ev = &s->events[i];
        char t[32];
        format_duration(ev->at_ns, t, sizeof t);
        if (ev->at_ns != tl.instant) {
            end_instant(&tl);
            tl.instant = ev->at_ns;
        }
        if (ev->kind == EV_MIGRATE_SLOTS) {
            tl.migrations[tl.n_migrations++] = i;
            continue;
        }
        if (ev->kind == EV_SET_ROUTING) {
            check_run(&tl);
            if (apply_routing(&tl, ev, i, t))
                run_start(&tl, i); /* every member under the new routing */
            tl.slots_dirty = true;
            char path[96];
            snprintf(path, sizeof path, "events.%zu.set_routing", i);
            check_replicas(&tl, path, t);
            continue;
        }
        if (ev->kind == EV_CRASH_ZONE) {
            crash_zone(&tl, ev, i, t);
            continue;
        }
        if (!ev->node || !good(L, &ev->node))
            continue;
        bool shrinks = ev->kind == EV_REMOVE_NODE || ev->kind == EV_SET_ADDRESS
                       || ev->kind == EV_SET_WEIGHT || ev->kind == EV_SET_VNODES;
        if (shrinks)
            check_run(&tl); /* the run ends: its largest membership is the current one */
        if (!apply_event(&tl, ev, i, t))
            continue;
        tl.slots_dirty = true;
        if (ev->kind == EV_ADD_NODE) {
            tl.added_member[tl.n_added] = tl.joined;
            tl.added_event[tl.n_added++] = i;
            tl.pending = true;
        } else if (shrinks) {
            if (ev->kind == EV_REMOVE_NODE) {
                char path[96];
                snprintf(path, sizeof path, "events.%zu.remove_node.id", i);
                check_replicas(&tl, path, t);
            }
            /* after a remove the membership is a subset of one checked; after a
             * set_address, set_weight or set_vnodes it is new */
            run_start(&tl, ev->kind == EV_REMOVE_NODE ? NO_BASE : i);
        }
    }
    end_instant(&tl);
    check_run(&tl);
    check_gutter_pool(&tl);
    placement_destroy(tl.slots);
    free(tl.join_empty);
    free(tl.migrations);
    free(tl.added_member);
    free(tl.added_event);
    free(tl.later);
    free(tl.buf);
    free(tl.m.v);
    free(tl.m.index);
}
