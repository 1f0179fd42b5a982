/*
 * migrate.c — Redis Cluster slot migration, as redis-cli --cluster reshard
 * does it: migrate_slots moves slots from a source node to a target node
 * one slot at a time, with the keys the source holds.
 *
 * One slot:
 *
 *   source A: slot MIGRATING to B          target B: slot IMPORTING from A
 *   the keys of the slot cached at A, hottest first, one at a time at `rate`:
 *     read at A (A's queue) ──► set at B (B's queue) ──► the key is moved:
 *     stored at B with the version A holds at that moment, deleted from A
 *   when every key is moved: the slot is B's (a new epoch: membership_move_slots)
 *
 * A key moves when its copy lands at B, with the version A holds then (A's
 * current item, deleted from A at the same instant): as Redis's MIGRATE,
 * which blocks the source until the target has the key, nothing sees the
 * key at neither node or at both. A key A no longer holds then (a write
 * invalidated it) is not moved. A copy refused by a full queue is tried
 * again later; a migration whose source or target is down (crashed,
 * removed), whose target is not in the ring, or whose routing is no longer
 * slots, stops (migrate_cancel) and leaves the slot with its source.
 *
 * Meanwhile (migrate_get, migrate_op, where the node serves the message):
 *   ASK    A, for a key of its migrating slot that it does not hold: the
 *          client asks B with ASKING (one more round trip); B serves it.
 *          (Not while B is down: the migration stops at its next step.)
 *          Reads of keys already moved hit at B; reads of keys A never
 *          held miss at B and fill B; writes' invalidations and
 *          write-throughs of moved keys reach B.
 *   MOVED  a node that handed a slot over by a migration, for a key of
 *          that slot, whenever the latest epoch gives the slot to another
 *          node and not to it as a replica (routing.replicas): the client
 *          adopts the latest epoch (unless frozen by a
 *          split brain) and asks the owner. Nodes know the slots they gave
 *          away at once, whatever routing.fencing says; slots moved by
 *          joins and leaves are fenced only with routing.fencing.
 *
 * Migrations run one at a time in event order; each starts after the
 * publications of the instant it starts at. Slots `slots: N` are the first
 * N the source owns then (ascending, as reshard takes them); a slot its
 * source does not own at its turn, or no longer owns when its keys are
 * moved, is skipped (never handed over). Between a slot's handover
 * and the publication of its epoch (the same instant) the slot still
 * counts as migrating (handing[]).
 *
 * Costs: a slot's key list O(keys of the slot) from the membership's slot
 * index; each key four events (read, land, and the steps); the ASK and
 * MOVED checks O(1) on the request path while a scenario has migrations
 * (O(replicas) for a key of a slot the node handed over, with replicas).
 */
#include "models/migrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cures.h"
#include "models/membership.h"
#include "models/net.h"
#include "models/node.h"
#include "models/workload.h"

#define SLOT_BYTES (PLACE_SLOT_COUNT / 8)

struct migration {
    uint32_t event;          /* the scenario event */
    uint32_t seq;            /* which migration of the run (1, 2, ...): tags its records */
    uint32_t from, to;       /* node indexes */
    double rate;             /* keys a second */
    uint32_t *slots;         /* the slots to move, in order */
    uint32_t n_slots, next_slot;
    int64_t start_ns;
    int64_t attempts;        /* copies started (with retries): the rate's schedule */
    int64_t keys_moved;
    uint32_t slots_moved, slots_skipped;
    uint32_t slot;           /* the slot being migrated, or PLACE_NONE */
    uint32_t *keys;          /* its keys still to copy (retries appended) */
    uint32_t n_keys, next_key, cap_keys;
    uint32_t in_flight;      /* its copies under way */
};

struct migrations {
    uint32_t *queue;         /* events waiting, in order */
    uint32_t n_queue, head;
    bool active;
    struct migration cur;
    uint32_t seq;
    int64_t step_at;         /* the earliest EVK_MIGRATE_STEP queued (INT64_MAX: none);
                                steps are idempotent, so a later one may be queued too */
    uint8_t handing[SLOT_BYTES]; /* slots handed over this instant, not yet published */
    uint8_t **gave;          /* per node: the slots it handed over (NULL: none yet) */
    int64_t moved_tick;
};

static inline bool bit(const uint8_t *b, uint32_t slot)
{
    return b && (b[slot / 8] >> (slot % 8) & 1);
}

static inline void set_bit(uint8_t *b, uint32_t slot, bool on)
{
    if (on)
        b[slot / 8] |= (uint8_t)(1u << (slot % 8));
    else
        b[slot / 8] &= (uint8_t)~(1u << (slot % 8));
}

static bool moved_instead(struct sim *s, uint32_t r, uint32_t node, bool get, uint32_t *to);

int migrate_create(struct sim *s)
{
    bool any = false;
    for (size_t i = 0; i < s->sc->n_events && !any; i++)
        any = s->sc->events[i].kind == EV_MIGRATE_SLOTS;
    if (!any)
        return 0;
    struct migrations *mg = s->mg = xcalloc(1, sizeof(*s->mg));
    mg->queue = xcalloc(s->sc->n_events, sizeof(*mg->queue));
    mg->gave = xcalloc(s->n_nodes + 1, sizeof(*mg->gave));
    mg->step_at = INT64_MAX;
    if (s->sc->routing.fencing == FENCE_FORWARD)
        s->net->moved_instead = moved_instead; /* net.c knows nothing of migrations */
    return 0;
}

static void migration_free(struct migration *m)
{
    free(m->slots);
    free(m->keys);
    m->slots = m->keys = NULL;
}

void migrate_destroy(struct sim *s)
{
    struct migrations *mg = s->mg;
    if (!mg)
        return;
    migration_free(&mg->cur);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        free(mg->gave[i]);
    free(mg->gave);
    free(mg->queue);
    free(mg);
    s->mg = NULL;
}

static void ask_step(struct sim *s, int64_t at)
{
    struct migrations *mg = s->mg;
    at = MAX(at, s->eng.now_ns);
    if (mg->step_at <= at)
        return;
    mg->step_at = at;
    sim_schedule(s, at, EVK_MIGRATE_STEP, 0, 0);
}

void migrate_enqueue(struct sim *s, uint32_t event)
{
    struct migrations *mg = s->mg;
    mg->queue[mg->n_queue++] = event;
    /* after the publications this instant asked for (they are queued first) */
    ask_step(s, s->eng.now_ns);
}

/* ---- slots and their owners ---------------------------------------------------- */

static bool slots_routing(const struct sim *s)
{
    return membership_routing(s)->algo == PLACE_SLOTS;
}

static inline uint32_t key_slot(const struct sim *s, uint32_t key)
{
    const uint64_t *pos = membership_current_positions(s);
    return (uint32_t)((pos ? pos[key] : s->wl->ks.rec[key].pos) & (PLACE_SLOT_COUNT - 1));
}

/* The slots of the event, as they are now: the first N the source owns, or
 * the range given. */
static void resolve_slots(struct sim *s, struct migration *m, const struct event_cfg *e)
{
    const struct slot_sel *sel = &e->migrate.slots;
    uint32_t n = sel->count ? sel->count : sel->last - sel->first + 1;
    m->slots = xmalloc(n * sizeof(*m->slots));
    if (!sel->count) {
        for (uint32_t i = 0; i < n; i++)
            m->slots[i] = sel->first + i;
        m->n_slots = n;
        return;
    }
    for (uint32_t slot = 0; slot < PLACE_SLOT_COUNT && m->n_slots < n; slot++)
        if (membership_slot_owner(s, slot) == m->from)
            m->slots[m->n_slots++] = slot;
}

/* ---- starting, stopping ----------------------------------------------------------- */

static void start_next(struct sim *s)
{
    struct migrations *mg = s->mg;
    const struct event_cfg *e = &s->sc->events[mg->queue[mg->head]];
    struct migration *m = &mg->cur;
    migration_free(m);
    memset(m, 0, sizeof(*m));
    m->event = mg->queue[mg->head++];
    m->seq = ++mg->seq;
    m->from = (uint32_t)node_find(s, e->node);
    m->to = (uint32_t)node_find(s, e->migrate.to);
    m->rate = e->migrate.rate;
    m->start_ns = s->eng.now_ns;
    m->slot = PLACE_NONE;
    mg->active = true;
    if (slots_routing(s))
        resolve_slots(s, m, e);
    uint32_t ranges = m->n_slots ? 1 : 0; /* runs of consecutive slots (ascending) */
    for (uint32_t i = 1; i < m->n_slots; i++)
        ranges += m->slots[i] != m->slots[i - 1] + 1;
    if (ranges == 1)
        sim_event(s, "migrate_start", s->nodes[m->from].id,
                  "%u slot%s (%u..%u) to %s at %g keys a second", m->n_slots,
                  m->n_slots == 1 ? "" : "s", m->slots[0], m->slots[m->n_slots - 1],
                  s->nodes[m->to].id, m->rate);
    else if (ranges)
        sim_event(s, "migrate_start", s->nodes[m->from].id,
                  "%u slots in %u ranges, %u..%u, to %s at %g keys a second", m->n_slots, ranges,
                  m->slots[0], m->slots[m->n_slots - 1], s->nodes[m->to].id, m->rate);
    else
        sim_event(s, "migrate_start", s->nodes[m->from].id, "no slot to move to %s",
                  s->nodes[m->to].id);
}

static void stop(struct sim *s, const char *kind, const char *why)
{
    struct migrations *mg = s->mg;
    struct migration *m = &mg->cur;
    char took[32];
    snprintf(took, sizeof took, "%.3f s", (double)(s->eng.now_ns - m->start_ns) / 1e9);
    sim_event(s, kind, s->nodes[m->from].id,
              "%u of %u slot%s moved to %s with %lld keys, %u skipped, in %s%s%s",
              m->slots_moved, m->n_slots, m->n_slots == 1 ? "" : "s", s->nodes[m->to].id,
              (long long)m->keys_moved,
              m->slots_skipped, took, why ? "; stopped: " : "", why ? why : "");
    mg->active = false;
    m->slot = PLACE_NONE; /* its records in flight are dropped (their seq is old) */
}

/* Why the migration cannot go on now, or NULL. */
static const char *blocked(struct sim *s, const struct migration *m)
{
    if (!slots_routing(s))
        return "the routing is not slots any more";
    if (s->nodes[m->from].state != NODE_UP)
        return "the source is down";
    if (s->nodes[m->to].state != NODE_UP)
        return "the target is down";
    if (!membership_is_member(s, m->to) || membership_is_ejected(s, m->to))
        return "the target is not in the ring";
    return NULL;
}

/* The slot is the target's from the next publication on. */
static void hand_over(struct sim *s, uint32_t slot)
{
    struct migrations *mg = s->mg;
    struct migration *m = &mg->cur;
    membership_move_slots(s, &slot, 1, m->to);
    set_bit(mg->handing, slot, true);
    if (!mg->gave[m->from])
        mg->gave[m->from] = xcalloc(SLOT_BYTES, 1);
    set_bit(mg->gave[m->from], slot, true);
    if (mg->gave[m->to])
        set_bit(mg->gave[m->to], slot, false);
    m->slots_moved++;
}

struct key_heat {
    double p;
    uint32_t at, key;
};

static int hotter(const void *a, const void *b)
{
    const struct key_heat *x = a, *y = b;
    if (x->p != y->p)
        return x->p > y->p ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The keys of the slot the source holds, hottest first: by their request
 * probability now (popularity after any shift, plus a hot key's share),
 * ties in id order. */
static void list_keys(struct sim *s, struct migration *m, uint32_t slot)
{
    uint32_t n;
    const uint32_t *keys = membership_slot_keys(s, slot, &n);
    struct store *st = &s->nodes[m->from].store;
    m->n_keys = m->next_key = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!store_get(st, keys[i], s->eng.now_ns, false))
            continue;
        if (m->n_keys == m->cap_keys) {
            m->cap_keys = m->cap_keys ? 2 * m->cap_keys : 64;
            m->keys = xrealloc(m->keys, m->cap_keys * sizeof(*m->keys));
        }
        m->keys[m->n_keys++] = keys[i];
    }
    struct key_heat *h = xmalloc((m->n_keys + 1) * sizeof(*h));
    for (uint32_t i = 0; i < m->n_keys; i++)
        h[i] = (struct key_heat){workload_key_prob(s->wl, m->keys[i]), i, m->keys[i]};
    qsort(h, m->n_keys, sizeof(*h), hotter);
    for (uint32_t i = 0; i < m->n_keys; i++)
        m->keys[i] = h[i].key;
    free(h);
}

/* Takes the next slots in turn: those without cached keys at the source
 * are handed over at once; the first with keys becomes the slot being
 * migrated. Returns false when none is left. O(slots taken). */
static bool next_slot(struct sim *s, struct migration *m)
{
    while (m->next_slot < m->n_slots) {
        uint32_t slot = m->slots[m->next_slot++];
        if (membership_slot_owner(s, slot) != m->from) {
            m->slots_skipped++;
            continue;
        }
        list_keys(s, m, slot);
        if (!m->n_keys) {
            hand_over(s, slot);
            continue;
        }
        m->slot = slot;
        return true;
    }
    return false;
}

/* ---- copies ------------------------------------------------------------------------- */

/* When the next copy is due: the k-th starts k / rate after the start (retries
 * count); with a rate so small that it is due past 2^62 ns (a time no run
 * reaches), then (the time must fit an int64_t). */
static int64_t copy_at(const struct migration *m)
{
    return m->start_ns + (int64_t)fmin(ceil((double)m->attempts * 1e9 / m->rate), 0x1p62);
}

/* Starts moving the next key of the slot: a read at the source. */
static void copy_next(struct sim *s, struct migration *m)
{
    uint32_t key = m->keys[m->next_key++];
    uint32_t r = req_alloc(&s->eng);
    struct req *q = req_at(&s->eng, r);
    req_clear(q);
    q->kind = RQ_MIGRATE_READ;
    q->key = key;
    q->redirect = m->seq;
    q->node = q->fill_node = PLACE_NONE;
    q->t0_ns = s->eng.now_ns;
    q->epoch = membership_latest(s)->id;
    m->attempts++;
    m->in_flight++;
    net_send_op(s, r, m->from);
    req_put(&s->eng, r);
}

/* The copy of a record is the current migration's (else: dropped). */
static struct migration *owner_of(struct sim *s, const struct req *q)
{
    struct migrations *mg = s->mg;
    return mg->active && q->redirect == mg->cur.seq ? &mg->cur : NULL;
}

/* A copy ended (moved, or nothing to move): the slot is handed over once
 * every key is done — if the source still owns it: one that changed owner
 * meanwhile (a join took it, an ejection moved it) is skipped, and the keys
 * already moved stay at the target, as after a stopped migration. */
static void copy_done(struct sim *s, struct migration *m)
{
    m->in_flight--;
    if (m->slot != PLACE_NONE && m->next_key == m->n_keys && !m->in_flight) {
        const char *why = blocked(s, m);
        if (why) {
            stop(s, "migrate_cancel", why);
        } else {
            if (membership_slot_owner(s, m->slot) == m->from)
                hand_over(s, m->slot);
            else
                m->slots_skipped++;
            m->slot = PLACE_NONE;
        }
        ask_step(s, s->eng.now_ns); /* the next slot, after the publication */
    }
}

/* A copy was refused (a full queue) or lost: the key is tried again. */
static void copy_retry(struct sim *s, struct migration *m, uint32_t key)
{
    if (m->n_keys == m->cap_keys) {
        m->cap_keys = 2 * m->cap_keys;
        m->keys = xrealloc(m->keys, m->cap_keys * sizeof(*m->keys));
    }
    m->keys[m->n_keys++] = key;
    m->in_flight--;
    ask_step(s, s->eng.now_ns);
}

/* A copy's message arrived: its migration, or NULL when there is nothing
 * more to do with it (the migration is not current: dropped; the node was
 * down or full: the key is tried again). */
static struct migration *arrived(struct sim *s, const struct req *q)
{
    struct migration *m = owner_of(s, q);
    if (m && (q->flags & RQF_FAILED)) {
        copy_retry(s, m, q->key);
        return NULL;
    }
    return m;
}

void migrate_read(struct sim *s, uint32_t r)
{
    struct req *q = req_at(&s->eng, r);
    struct migration *m = arrived(s, q);
    if (!m)
        return;
    struct node *a = &s->nodes[m->from];
    const struct item *it = a->state == NODE_UP && a->incarnation == q->incarnation
                                ? store_get(&a->store, q->key, s->eng.now_ns, false)
                                : NULL;
    if (!it) { /* gone meanwhile (invalidated, evicted, expired): nothing to move */
        copy_done(s, m);
        return;
    }
    q->kind = RQ_MIGRATE;
    q->version = it->version;
    net_send_op(s, r, m->to);
}

void migrate_land(struct sim *s, uint32_t r)
{
    struct req *q = req_at(&s->eng, r);
    struct migration *m = arrived(s, q);
    if (!m)
        return;
    struct node *a = &s->nodes[m->from], *b = &s->nodes[m->to];
    int64_t now = s->eng.now_ns;
    struct item *it = a->state == NODE_UP ? store_get(&a->store, q->key, now, false) : NULL;
    if (it && b->state == NODE_UP && b->incarnation == q->incarnation) {
        /* the MIGRATE completes: A's item as it is now goes to B, and leaves A */
        uint32_t version = it->version;
        int64_t expire = it->expire_ns;
        store_set(&b->store, q->key, version, keyspace_item_bytes(&s->wl->ks, q->key), expire,
                  now, STORE_NEWER);
        store_delete(&a->store, q->key);
        m->keys_moved++;
        s->mg->moved_tick++;
    }
    copy_done(s, m);
}

/* ---- the steps ----------------------------------------------------------------------- */

void migrate_step(struct sim *s)
{
    struct migrations *mg = s->mg;
    if (s->eng.now_ns >= mg->step_at)
        mg->step_at = INT64_MAX;
    memset(mg->handing, 0, sizeof mg->handing); /* their epoch is published */
    struct migration *m = &mg->cur;
    for (uint32_t guard = 0; guard <= s->sc->n_events; guard++) {
        if (!mg->active) {
            if (mg->head == mg->n_queue)
                return;
            start_next(s);
        }
        const char *why = blocked(s, m);
        if (why) {
            stop(s, "migrate_cancel", why);
            continue;
        }
        if (m->slot == PLACE_NONE && !next_slot(s, m)) {
            stop(s, "migrate_done", NULL);
            continue;
        }
        break;
    }
    if (!mg->active)
        return;
    if (m->next_key == m->n_keys)
        return; /* every key under way: the last copy done hands the slot over */
    int64_t at = copy_at(m);
    if (at <= s->eng.now_ns) {
        copy_next(s, m);
        at = copy_at(m);
    }
    if (m->next_key < m->n_keys)
        ask_step(s, at);
}

/* ---- ASK and MOVED ---------------------------------------------------------------------- */

enum reply { SERVE, ASK, MOVED };

/* With more than one owner for the key (routing.replicas, or a hot key's
 * own): whether node is one of the key's replicas in the latest epoch (it
 * serves the slot, though another node owns it). O(replicas); asked only
 * of a node that handed the key's slot over. */
static bool replica_of(struct sim *s, uint32_t node, uint32_t key)
{
    uint32_t r = cures_replicas(s, key);
    if (r <= 1)
        return false;
    uint32_t owners[PLACE_MAX_REPLICAS];
    uint32_t n = membership_owners(s, membership_latest(s)->id, key, r, owners);
    for (uint32_t i = 0; i < n; i++)
        if (owners[i] == node)
            return true;
    return false;
}

/* What node answers about key: SERVE, or ASK / MOVED naming *to. */
static enum reply judge(struct sim *s, uint32_t node, uint32_t key, uint32_t *to)
{
    struct migrations *mg = s->mg;
    if (!slots_routing(s))
        return SERVE;
    uint32_t slot = key_slot(s, key);
    uint32_t owner = membership_slot_owner(s, slot);
    if (bit(mg->gave[node], slot) && owner != node && owner != PLACE_NONE
        && !replica_of(s, node, key)) {
        *to = owner;
        return MOVED;
    }
    const struct migration *m = &mg->cur;
    if (mg->active && m->from == node && owner == node
        && (m->slot == slot || bit(mg->handing, slot)) && s->nodes[m->to].state == NODE_UP
        && !store_get(&s->nodes[node].store, key, s->eng.now_ns, false)) {
        *to = m->to;
        return ASK;
    }
    return SERVE;
}

/* net.moved_instead, with fencing: forward: a fenced message about a slot
 * the node handed over is answered MOVED, naming the owner, rather than
 * forwarded (Redis nodes do not proxy) — the messages migrate_get and
 * migrate_op judge. O(1) unless the node handed the key's slot over. */
static bool moved_instead(struct sim *s, uint32_t r, uint32_t node, bool get, uint32_t *to)
{
    const struct req *q = req_at(&s->eng, r);
    if (get ? (q->flags & (RQF_FALLBACK | RQF_GUTTER)) != 0
            : (q->flags & RQF_GUTTER)
                  || (q->kind != RQ_FILL && q->kind != RQ_INVALIDATE
                      && q->kind != RQ_WRITE_THROUGH))
        return false;
    if (!slots_routing(s) || !bit(s->mg->gave[node], key_slot(s, q->key)))
        return false;
    return judge(s, node, q->key, to) == MOVED;
}

bool migrate_get(struct sim *s, uint32_t r)
{
    struct req *q = req_at(&s->eng, r);
    if (q->asking == ASKING_YES || (q->flags & (RQF_FALLBACK | RQF_GUTTER)))
        return false;
    uint32_t to;
    enum reply v = judge(s, q->node, q->key, &to);
    if (v == SERVE)
        return false;
    node_serve_redirect(s, &s->nodes[q->node]);
    net_redirect(s, r, to, membership_latest(s)->id, q->t_resp_ns, v == ASK);
    return true;
}

bool migrate_op(struct sim *s, uint32_t r)
{
    struct req *q = req_at(&s->eng, r);
    if (q->asking == ASKING_YES || (q->flags & RQF_GUTTER)
        || (q->kind != RQ_FILL && q->kind != RQ_INVALIDATE && q->kind != RQ_WRITE_THROUGH))
        return false;
    uint32_t to;
    enum reply v = judge(s, q->node, q->key, &to);
    if (v == SERVE)
        return false;
    const struct node *n = &s->nodes[q->node];
    net_redirect(s, r, to, membership_latest(s)->id, net_reply_time(s, n, s->eng.now_ns),
                 v == ASK);
    return true;
}

void migrate_tick_close(struct sim *s, struct tick_row *row)
{
    if (!s->mg)
        return;
    row->migrated_keys = s->mg->moved_tick;
    s->mg->moved_tick = 0;
}
