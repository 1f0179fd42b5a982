/*
 * transfer.c — staged joins and drains: copying keys to where they will be
 * owned before a membership change is published.
 *
 * Join (add_node warm): the node is up but not in the ring. The copier
 * lists the keys it will own (under the placement the cluster will have
 * once it joins) that are cached at their current owners, most recently
 * used first (the owners' LRU lists, merged in turns), and copies them at
 * `rate` keys a second: from the owner's cache (a read through the owner's
 * queue, then a set through the new node's; a key the owner no longer holds
 * is skipped) or from the database (`source: db`: a database read, which
 * costs the database's capacity like any other; a read the full database
 * refuses is tried again at the next step). The node enters the ring
 * (a new epoch) when the keys it holds carry `until_hit_rate` of the
 * request probability of the keys it will own — the share of its future
 * GETs that would hit — or when the list is done and every copy started
 * has landed (or was lost), or at `max_wait`.
 * With routing.replicas above 1, "own" means hold as any of the key's
 * replicas: a join copies every key the node will hold (from the key's
 * first owner now), a drain each key it holds to the node the change makes
 * an owner in its place.
 * Drain (remove_node drain): the leaving node's items, most recently used
 * first, go to their next owners the same way (from the leaving node's
 * cache); it leaves when every copy has landed, or at `max_wait`. A copy
 * takes a read through the source's queue and a set through the
 * destination's, so at a high rate the last copies land well after the
 * last one started: the node stays a member, serving, until they have.
 *
 * A transfer plans for the change as it would be published: the members
 * then are today's, with its node in (join) or out (drain), and without
 * every node being drained (they are leaving too: a drain copies nothing
 * to another node being drained) — but for a drain of the ring's last
 * node, which copies to the nodes warming to join. Whenever an epoch is
 * published meanwhile (another node joins or leaves, a weight, vnodes, an
 * address or the routing changes, a central ejection; not a slot
 * migration's steps) — or a warming node's own weight, vnodes or address
 * change, or another drain starts — every transfer under way plans again:
 * the placement, the key positions, the share to reach and the list, from
 * which the keys already at their destination (at the source's version or
 * newer) are left out. The rate holds across plans: each copy started and
 * each attempt the full database refused takes its turn, from the first
 * plan's start; an entry with nothing to copy (the source no longer holds
 * the key, or it no longer moves) is passed over without one.
 *
 * A write committed meanwhile to a key being moved also invalidates it at
 * the key's destination (transfers_on_write), so a copy made before the
 * write does not outlive it — except one still in flight, which lands
 * stale and is counted as a stale overwrite, as in a real copier.
 * Copies land with `versioned` semantics: never over a newer version.
 */
#include "models/transfer.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/db.h"
#include "models/health.h"
#include "models/membership.h"
#include "models/net.h"
#include "models/node.h"
#include "models/workload.h"

#define CHECK_GAP_MAX 64    /* landings between two exact counts, at most, under churn */

int transfers_create(struct sim *s)
{
    s->tr = xcalloc(1, sizeof(*s->tr));
    return 0;
}

static void transfer_free(struct transfer *t)
{
    if (t->future)
        placement_destroy(t->future);
    free(t->keys);
    free(t->from);
    t->future = NULL;
    t->keys = t->from = NULL;
}

void transfers_destroy(struct sim *s)
{
    if (!s->tr)
        return;
    for (uint32_t i = 0; i < s->tr->n; i++)
        transfer_free(&s->tr->t[i]);
    free(s->tr->t);
    free(s->tr);
    s->tr = NULL;
}

static uint64_t pos_of(const struct sim *s, const struct transfer *t, uint32_t key)
{
    return t->pos ? t->pos[key] : s->wl->ks.rec[key].pos;
}

/* The key's owners once the change is published: routing.replicas of them
 * (the owner first). Returns how many. */
static uint32_t future_owners(struct sim *s, const struct transfer *t, uint32_t key,
                              uint32_t out[PLACE_MAX_REPLICAS])
{
    uint32_t r = s->sc->routing.replicas;
    uint64_t pos = pos_of(s, t, key);
    if (r <= 1) {
        out[0] = placement_lookup(t->future, pos);
        return out[0] != PLACE_NONE;
    }
    return (uint32_t)placement_replicas(t->future, pos, s->zones, out, r);
}

/* Whether the joining node will hold key (as its owner or one of its
 * replicas). */
static bool will_own(struct sim *s, const struct transfer *t, uint32_t key)
{
    uint32_t fut[PLACE_MAX_REPLICAS];
    return placement_among(fut, future_owners(s, t, key, fut), t->node);
}

/* The key's destination, or PLACE_NONE if this transfer does not move it.
 * Join: the node, for a key it will hold. Drain: for a key the node holds
 * now and will not, the node the change makes an owner in its place (with
 * replicas, the first of the key's future owners that is not one now). */
static uint32_t destination(struct sim *s, const struct transfer *t, uint32_t key)
{
    if (t->join)
        return will_own(s, t, key) ? t->node : PLACE_NONE;
    uint32_t r = s->sc->routing.replicas, epoch = membership_latest(s)->id;
    uint32_t fut[PLACE_MAX_REPLICAS], nf = future_owners(s, t, key, fut);
    if (r <= 1) {
        uint32_t now = membership_owner(s, epoch, key);
        return now == t->node && nf && fut[0] != t->node ? fut[0] : PLACE_NONE;
    }
    uint32_t now[PLACE_MAX_REPLICAS], nn = membership_owners(s, epoch, key, r, now);
    if (!placement_among(now, nn, t->node) || placement_among(fut, nf, t->node))
        return PLACE_NONE;
    for (uint32_t i = 0; i < nf; i++)
        if (!placement_among(now, nn, fut[i]))
            return fut[i];
    return PLACE_NONE;
}

static struct transfer *new_transfer(struct sim *s, uint32_t node, uint32_t event, bool join)
{
    struct transfers *tr = s->tr;
    if (tr->n == tr->cap) {
        tr->cap = tr->cap ? tr->cap * 2 : 4;
        tr->t = xrealloc(tr->t, tr->cap * sizeof(*tr->t));
    }
    struct transfer *t = &tr->t[tr->n++];
    memset(t, 0, sizeof(*t));
    t->node = node;
    t->event = event;
    t->join = join;
    t->start_ns = s->eng.now_ns;
    t->pos = membership_current_positions(s);
    return t;
}

/* Appends the keys on node src that this transfer moves, MRU first: for a
 * join, those src holds as their owner now (not a former owner's leftover
 * copy, which may be stale); never those the destination already holds at
 * the version a copy would bring, or newer (a drain's destinations may
 * still hold the keys the leaving node took over from them, a rejoining
 * node what it held before). */
struct key_list {
    uint32_t *keys, n, cap;
};

static void collect(struct sim *s, const struct transfer *t, uint32_t src, struct key_list *l)
{
    const struct item *items = s->pool->items;
    uint32_t epoch = membership_latest(s)->id;
    bool db = t->join && t->source == WARM_DB;
    int64_t now = s->eng.now_ns;
    for (uint32_t it = s->nodes[src].store.head; it != STORE_NIL; it = items[it].next) {
        uint32_t k = items[it].key;
        uint32_t dest = destination(s, t, k);
        if (dest == PLACE_NONE)
            continue;
        if (t->join && membership_owner(s, epoch, k) != src)
            continue;
        const struct item *there = store_get(&s->nodes[dest].store, k, now, false);
        if (there && there->version >= (db ? db_version(s->db, k) : items[it].version))
            continue;
        if (l->n == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 256;
            l->keys = xrealloc(l->keys, l->cap * sizeof(*l->keys));
        }
        l->keys[l->n++] = k;
    }
}

/* The copy list: each source's keys MRU first, merged one from each in turn
 * (the sources in id order, whatever the file's order of the nodes). */
static void build_list(struct sim *s, struct transfer *t)
{
    struct key_list *per = xcalloc(s->n_nodes + 1, sizeof(*per));
    size_t total = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        bool source = t->join ? i != t->node && membership_is_member(s, i) : i == t->node;
        if (source && s->nodes[i].state == NODE_UP && !s->nodes[i].gutter) {
            collect(s, t, i, &per[i]);
            total += per[i].n;
        }
    }
    t->keys = xmalloc((total + 1) * sizeof(*t->keys));
    t->from = xmalloc((total + 1) * sizeof(*t->from));
    for (uint32_t depth = 0; t->n < total; depth++)
        for (uint32_t k = 0; k < s->n_nodes; k++) {
            uint32_t i = s->by_id[k];
            if (depth < per[i].n) {
                t->keys[t->n] = per[i].keys[depth];
                t->from[t->n++] = i;
            }
        }
    for (uint32_t i = 0; i < s->n_nodes; i++)
        free(per[i].keys);
    free(per);
}

/* Request probability of the keys the joining node will own. O(keys). */
static double future_mass(struct sim *s, const struct transfer *t)
{
    double m = 0;
    for (uint32_t k = 0; k < s->wl->ks.n_total; k++)
        if (will_own(s, t, k))
            m += workload_key_prob(s->wl, k);
    return m;
}

/* The share of the joining node's future GETs that would hit now. Until a
 * new plan every item it holds is a copy of a key it will own; after one,
 * only those it will own under the new plan count. */
static double hit_share(struct sim *s, const struct transfer *t)
{
    if (t->future_mass <= 0)
        return 1;
    const struct item *items = s->pool->items;
    double held = 0;
    int64_t now = s->eng.now_ns;
    for (uint32_t it = s->nodes[t->node].store.head; it != STORE_NIL; it = items[it].next) {
        uint32_t k = items[it].key;
        if (items[it].expire_ns && items[it].expire_ns <= now)
            continue;
        if (t->plan && !will_own(s, t, k))
            continue;
        held += workload_key_prob(s->wl, k);
    }
    return held / t->future_mass;
}

/* Whether the joining node holds until_hit_rate of its future GETs now.
 * The share only grows when a copy lands, so it is looked at then, first
 * against held_bound (O(1)): only when the bound reaches the target are
 * the held items counted (O(items)), so the node enters at the landing
 * that takes it there. A count that falls short (items evicted, expired or
 * invalidated since) resets the bound and waits 1, 2, 4 ... up to
 * CHECK_GAP_MAX landings before the next, so churn cannot make every
 * landing count the whole store. */
static bool reached(struct sim *s, struct transfer *t)
{
    if (t->future_mass <= 0)
        return true;
    if (t->held_bound < t->until_hit_rate * t->future_mass * (1 - 1e-12) || t->check_wait)
        return false;
    double share = hit_share(s, t);
    if (share >= t->until_hit_rate)
        return true;
    t->held_bound = share * t->future_mass;
    t->check_gap = t->check_gap ? MIN(2 * t->check_gap, CHECK_GAP_MAX) : 1;
    t->check_wait = t->check_gap;
    return false;
}

/* Plans the transfer for the change as it would be published now: the
 * placement (today's members, the node in for a join and out for a drain,
 * every node being drained out), the key positions, the share to reach,
 * the list (the first plan, or a new one of a transfer under way).
 * Returns 0, or -1 if the placement cannot be built (the run has failed). */
static int plan(struct sim *s, struct transfer *t)
{
    uint8_t *member = xmalloc(s->n_nodes + 1);
    memcpy(member, s->mb->member, s->n_nodes);
    for (uint32_t i = 0; i < s->tr->n; i++)
        if (s->tr->t[i].active && !s->tr->t[i].join)
            member[s->tr->t[i].node] = 0;
    member[t->node] = t->join;
    bool none = true;
    for (uint32_t i = 0; i < s->n_nodes && none; i++)
        none = !member[i] || s->nodes[i].gutter;
    if (none) /* a drain of the ring's last node: to the nodes warming to join it */
        for (uint32_t i = 0; i < s->tr->n; i++)
            if (s->tr->t[i].active && s->tr->t[i].join)
                member[s->tr->t[i].node] = 1;
    t->future = membership_future(s, member);
    free(member);
    if (!t->future)
        return -1;
    t->pos = membership_current_positions(s);
    build_list(s, t);
    if (t->join) {
        t->future_mass = future_mass(s, t);
        t->held_bound = hit_share(s, t) * t->future_mass;
        t->check_wait = t->check_gap = 0;
    }
    return 0;
}

static void start(struct sim *s, struct transfer *t, const char *what, int64_t max_wait_ns)
{
    uint32_t id = (uint32_t)(t - s->tr->t);
    t->active = true;
    char wait[32];
    format_duration(max_wait_ns, wait, sizeof wait);
    sim_event(s, what, s->nodes[t->node].id, "%u keys to copy %s at %g a second; at most %s",
              t->n, t->join && t->source == WARM_DB ? "from the database" : "from the caches",
              t->rate, wait);
    sim_schedule(s, s->eng.now_ns, EVK_TRANSFER_STEP, id, t->plan);
    sim_schedule(s, s->eng.now_ns + max_wait_ns, EVK_TRANSFER_END, id, 0);
}

static int replan(struct sim *s, uint32_t i);
static void finish(struct sim *s, struct transfer *t, const char *why);

void transfer_start_join(struct sim *s, uint32_t node, uint32_t event)
{
    const struct warm_cfg *w = &s->sc->events[event].warm;
    struct transfer *t = new_transfer(s, node, event, true);
    t->rate = w->rate;
    t->source = w->source;
    t->until_hit_rate = w->until_hit_rate;
    if (plan(s, t))
        return;
    start(s, t, "warm_start", w->max_wait_ns);
}

void transfer_start_drain(struct sim *s, uint32_t node, uint32_t event)
{
    const struct drain_cfg *d = &s->sc->events[event].drain;
    struct transfer *t = new_transfer(s, node, event, false);
    t->rate = d->rate;
    t->source = WARM_OWNERS;
    if (plan(s, t))
        return;
    start(s, t, "drain_start", d->max_wait_ns);
    /* the other transfers send nothing to a node leaving now */
    uint32_t id = (uint32_t)(t - s->tr->t);
    for (uint32_t i = 0; i < s->tr->n; i++)
        if (i != id && s->tr->t[i].active && replan(s, i))
            return; /* the run has failed */
}

/* When the k-th turn of the transfer's list (from its first plan) is due;
 * with a rate so small that it is due past 2^62 ns (a time no run reaches),
 * then (the time must fit an int64_t). */
static int64_t turn_at(const struct sim *s, const struct transfer *t)
{
    int64_t k = t->turns;
    double after = fmin(ceil((double)k * 1e9 / t->rate), 0x1p62);
    return MAX(t->start_ns + (int64_t)after, s->eng.now_ns);
}

/* Plans transfer i again; -1 if the run has failed. */
static int replan(struct sim *s, uint32_t i)
{
    struct transfer *t = &s->tr->t[i];
    placement_destroy(t->future);
    free(t->keys);
    free(t->from);
    t->future = NULL;
    t->keys = t->from = NULL;
    t->n = t->next = 0;
    t->listed = false; /* the copies of the earlier plans still land; they finish nothing */
    t->plan++;
    if (plan(s, t)) {
        t->active = false;
        return -1;
    }
    if (t->join && reached(s, t)) { /* say, its weight fell */
        finish(s, t, "reached until_hit_rate");
        return 0;
    }
    /* the earlier plan's next step is dropped: this one takes the turn */
    sim_schedule(s, turn_at(s, t), EVK_TRANSFER_STEP, i, t->plan);
    return 0;
}

void transfers_replan(struct sim *s)
{
    for (uint32_t i = 0; i < s->tr->n; i++)
        if (s->tr->t[i].active && replan(s, i))
            return; /* the run has failed */
}

bool transfer_active(const struct sim *s, uint32_t node)
{
    for (uint32_t i = 0; i < s->tr->n; i++)
        if (s->tr->t[i].active && s->tr->t[i].node == node)
            return true;
    return false;
}

/* The change the transfer prepared is published. */
static void finish(struct sim *s, struct transfer *t, const char *why)
{
    t->active = false;
    struct node *n = &s->nodes[t->node];
    char detail[300];
    double share = t->join ? hit_share(s, t) : 0;
    char lost[96] = ""; /* said only when some were */
    if (t->lost)
        snprintf(lost, sizeof lost, " (%lld lost: refused by a full queue or at a node gone down)",
                 (long long)t->lost);
    if (t->lost && !strcmp(why, "every key copied"))
        why = "every key tried";
    if (n->state != NODE_UP) /* a crash: nothing more to copy from or to it */
        why = "the node is down";
    char plans[64] = ""; /* said only when the ring changed meanwhile */
    if (t->plan)
        snprintf(plans, sizeof plans, "; planned again %u time%s as the ring changed", t->plan,
                 t->plan == 1 ? "" : "s");
    if (t->join) {
        snprintf(detail, sizeof detail, "add_node %s (warmed: %lld copies, %.1f%% of its GETs "
                 "would hit; %s)", n->id, (long long)t->copies, 100 * share, why);
        membership_set_member(s, t->node, true);
        sim_event(s, "warm_done", n->id, "%lld copies%s, %.1f%% of its GETs would hit; %s%s",
                  (long long)t->copies, lost, 100 * share, why, plans);
    } else {
        snprintf(detail, sizeof detail, "remove_node %s (drained: %lld copies; %s)", n->id,
                 (long long)t->copies, why);
        node_leave(s, n);
        membership_set_member(s, t->node, false);
        health_node_left(s, t->node);
        sim_event(s, "drain_done", n->id, "%lld copies%s; %s%s", (long long)t->copies, lost, why,
                  plans);
    }
    membership_change(s, detail);
    /* its placement stays until the run ends: copies in flight still land */
    if (!t->join && !membership_count(s))
        /* the ring's last node has left, its keys copied to the nodes warming
         * to join: they join now, in the same epoch (it would have no node) */
        for (uint32_t i = 0; i < s->tr->n; i++)
            if (s->tr->t[i].active && s->tr->t[i].join)
                finish(s, &s->tr->t[i], "the ring's last node has left");
}

void transfer_cancel(struct sim *s, uint32_t node)
{
    for (uint32_t i = 0; i < s->tr->n; i++) {
        struct transfer *t = &s->tr->t[i];
        if (t->active && t->node == node) {
            t->active = false;
            sim_event(s, t->join ? "warm_cancel" : "drain_cancel", s->nodes[node].id,
                      "after %lld copies", (long long)t->copies);
        }
    }
}

enum copy_result { COPY_STARTED, COPY_NOTHING, COPY_REFUSED };

/* Starts copying the key at list entry i: started, nothing to copy (the key
 * is gone or does not move), or refused by a full database (to try again). */
static enum copy_result copy_one(struct sim *s, struct transfer *t, uint32_t i)
{
    uint32_t key = t->keys[i], src = t->from[i];
    uint32_t dest = destination(s, t, key);
    if (dest == PLACE_NONE || s->nodes[dest].state != NODE_UP)
        return COPY_NOTHING;
    bool db = t->join && t->source == WARM_DB;
    int64_t done = 0;
    if (db) {
        if (db_submit(s, &done))
            return COPY_REFUSED; /* the database is full: this key again next step */
    } else {
        struct node *n = &s->nodes[src];
        if (n->state != NODE_UP || !store_get(&n->store, key, s->eng.now_ns, false))
            return COPY_NOTHING; /* no longer there */
    }
    uint32_t r = req_alloc(&s->eng);
    struct req *q = req_at(&s->eng, r);
    req_clear(q);
    q->key = key;
    q->redirect = (uint32_t)(t - s->tr->t);
    q->fill_node = db ? PLACE_NONE : src;
    q->t0_ns = q->t_db_ns = s->eng.now_ns;
    q->epoch = membership_latest(s)->id;
    if (db) {
        q->kind = RQ_COPY;
        q->node = dest;
        req_schedule(&s->eng, r, done, EVK_COPY_READ);
    } else { /* a read through the source's queue; EVK_COPY_READ when served */
        q->kind = RQ_COPY_READ;
        net_send_op(s, r, src);
    }
    req_put(&s->eng, r);
    t->in_flight++;
    return COPY_STARTED;
}

/* A copy of t ended (landed, lost, or nothing to copy). The last one of a
 * finished list finishes the transfer. */
static void copy_over(struct sim *s, struct transfer *t)
{
    assert(t->in_flight > 0);
    t->in_flight--;
    if (t->active && t->listed && !t->in_flight)
        finish(s, t, "every key copied");
}

void transfer_step(struct sim *s, uint32_t id, uint32_t plan_no)
{
    struct transfer *t = &s->tr->t[id];
    if (!t->active || plan_no != t->plan)
        return; /* over, or a step of an earlier plan */
    enum copy_result c = COPY_NOTHING;
    while (t->next < t->n && (c = copy_one(s, t, t->next)) == COPY_NOTHING)
        t->next++;
    if (t->next < t->n && c == COPY_STARTED) {
        t->next++;
        t->turns++;
    } else if (c == COPY_REFUSED) {
        t->turns++;
    }
    if (t->join && reached(s, t)) { /* nothing to own (O(1) otherwise: nothing landed) */
        finish(s, t, "reached until_hit_rate");
        return;
    }
    if (t->next >= t->n) { /* the last copies may be in flight: the last to end finishes */
        t->listed = true;
        if (!t->in_flight)
            finish(s, t, "every key copied");
        return;
    }
    /* the k-th attempt starts k / rate after the start (refused ones count) */
    sim_schedule(s, turn_at(s, t), EVK_TRANSFER_STEP, id, t->plan);
}

void transfer_end(struct sim *s, uint32_t id)
{
    struct transfer *t = &s->tr->t[id];
    if (t->active)
        finish(s, t, "max_wait reached");
}

void transfer_copy_read(struct sim *s, uint32_t r)
{
    struct req *q = req_at(&s->eng, r);
    struct transfer *t = &s->tr->t[q->redirect];
    if (q->flags & RQF_FAILED) { /* the source's queue refused the read, or it is down */
        transfer_copy_lost(s, r);
        return;
    }
    if (q->fill_node == PLACE_NONE) { /* from the database: read, whatever comes of it */
        db_read_done(s, q->t_db_ns);
        t->db_reads++;
        s->tr->db_reads_tick++;
    }
    uint32_t dest = destination(s, t, q->key);
    if (dest == PLACE_NONE || s->nodes[dest].state != NODE_UP) {
        copy_over(s, t);
        return; /* it does not move any more */
    }
    if (q->fill_node == PLACE_NONE) { /* fresh */
        q->version = db_version(s->db, q->key);
    } else {
        struct node *n = &s->nodes[q->fill_node];
        const struct item *it =
            n->state == NODE_UP ? store_get(&n->store, q->key, s->eng.now_ns, false) : NULL;
        if (!it) {
            copy_over(s, t);
            return; /* gone meanwhile: nothing to copy */
        }
        q->version = it->version;
    }
    q->kind = RQ_COPY;
    net_send_op(s, r, dest);
}

void transfer_landed(struct sim *s, uint32_t r, bool stored)
{
    struct transfer *t = &s->tr->t[req_at(&s->eng, r)->redirect];
    if (stored) {
        t->copies++;
        s->tr->copies_tick++;
        if (t->join && t->active) { /* the share grows only here */
            uint32_t key = req_at(&s->eng, r)->key;
            if (will_own(s, t, key)) /* not a copy of an earlier plan's key */
                t->held_bound += workload_key_prob(s->wl, key);
            if (t->check_wait)
                t->check_wait--;
            if (reached(s, t))
                finish(s, t, "reached until_hit_rate");
        }
    }
    copy_over(s, t);
}

void transfer_copy_lost(struct sim *s, uint32_t r)
{
    struct transfer *t = &s->tr->t[req_at(&s->eng, r)->redirect];
    t->lost++;
    copy_over(s, t);
}

void transfers_on_write(struct sim *s, uint32_t key)
{
    for (uint32_t i = 0; i < s->tr->n; i++) {
        struct transfer *t = &s->tr->t[i];
        if (!t->active)
            continue;
        uint32_t dest = destination(s, t, key);
        if (dest == PLACE_NONE || s->nodes[dest].state != NODE_UP)
            continue;
        uint32_t r = req_alloc(&s->eng);
        struct req *q = req_at(&s->eng, r);
        req_clear(q);
        q->kind = RQ_INVALIDATE;
        q->key = key;
        q->node = q->fill_node = PLACE_NONE;
        q->t0_ns = s->eng.now_ns;
        q->epoch = membership_latest(s)->id;
        net_send_op(s, r, dest);
        req_put(&s->eng, r);
    }
}

void transfers_tick_close(struct sim *s, struct tick_row *row)
{
    row->warm_copies = s->tr->copies_tick;
    row->warm_db_reads = s->tr->db_reads_tick;
    s->tr->copies_tick = s->tr->db_reads_tick = 0;
}
