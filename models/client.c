/*
 * client.c — client instances: routing, the read path and the write path.
 *
 * Read:  route the key with the instance's view -> GET to the node (rtt/2
 *        each way, through its queue) -> a hit returns; a miss reply reaches
 *        the client, which reads the database and then fills the node it
 *        asked, per clients.fill:
 *          set        overwrite whatever is there
 *          add        only if the key is absent (memcached add)
 *          versioned  only if absent or older than the version read (CAS-like)
 *          lease      memcache leases: the node grants a token with the first
 *                     miss of a key; only the token's holder fills, and a
 *                     delete or set of the key in between voids the token
 *          none       never fill
 *        A reply later than clients.timeout is a timeout (counted for
 *        health); a full node queue is an error reply; either way the client
 *        then reads the database (on_timeout: db, no fill) or fails the read
 *        (on_timeout: error).
 * Write: commit at the database (version + 1), then invalidate or write
 *        through at the owner in the writer's view at that moment; the
 *        write completes at the commit, the cache operation follows it.
 * Options on the read path:
 *   coalesce         one database read per key per instance at a time: later
 *                    misses wait for it and only the first fills
 *   backfill_qps     a token bucket per instance on database reads after a
 *                    miss; a read without a token fails (an error)
 *   fallback_to_previous_owner
 *                    after a miss at the owner, ask the key's owner in the
 *                    instance's previous ring epoch; a hit there answers the
 *                    read and fills the new owner with that copy (which may
 *                    be stale: it missed the invalidations sent to the new
 *                    owner since the move)
 *
 * Metrics are counted when the outcome is known: a hit when the node
 * serves it, a miss when the miss reply reaches the client, a timeout at
 * the timeout. Client latency is from the operation's start to its answer.
 *
 * A request record can be referred to by several events at once (a late GET
 * still being served while the client has timed out; a coalesced read
 * waiting on another); `pending` counts them and the record is freed when
 * the last one is done.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#define STALE_LOG_MAX 100          /* stale overwrites recorded one by one in events */
#define LEASE_TTL_MS 10000         /* a lease not used within 10 s lapses (memcache's) */
#define NO_WAITER UINT32_MAX

int clients_init(struct sim *s)
{
    s->n_inst = s->sc->clients.instances;
    s->inst = xcalloc(s->n_inst, sizeof(*s->inst));
    for (uint32_t j = 0; j < s->n_inst; j++) {
        struct instance *in = &s->inst[j];
        in->index = j;
        in->epoch = 1;
        in->fails = xcalloc(s->n_nodes + 1, sizeof(*in->fails));
        in->ejected = xcalloc(s->n_nodes + 1, 1);
        in->held = xcalloc(s->n_nodes + 1, 1);
        in->last_eject_ns = INT64_MIN;
        in->tokens = MAX(1.0, s->sc->clients.backfill_qps);
        u64map_init(&in->db_reads);
        in->view = view_get(s, 1, NULL);
        if (!in->view)
            return -1;
    }
    return 0;
}

void clients_deinit(struct sim *s)
{
    for (uint32_t j = 0; j < s->n_inst; j++) {
        struct instance *in = &s->inst[j];
        view_release(s, in->view);
        view_release(s, in->prev_view);
        free(in->fails);
        free(in->ejected);
        free(in->held);
        u64map_deinit(&in->db_reads);
    }
    free(s->inst);
    s->inst = NULL;
}

static bool rehash_mode(const struct sim *s)
{
    return s->sc->health.on_eject == EJECT_REHASH;
}

int client_refresh_view(struct sim *s, struct instance *in)
{
    const uint8_t *excl = rehash_mode(s) && in->n_ejected ? in->ejected : NULL;
    struct view *v = view_get(s, in->epoch, excl);
    if (!v)
        return -1;
    view_release(s, in->view);
    in->view = v;
    return 0;
}

void client_adopt(struct sim *s, struct instance *in, uint32_t epoch)
{
    if (epoch <= in->epoch || in->frozen)
        return; /* epochs only move forward; a frozen instance keeps its own */
    struct view *old = in->view;
    old->refs++; /* kept as the previous view */
    in->epoch = epoch;
    client_refresh_view(s, in);
    view_release(s, in->prev_view);
    in->prev_view = old;
    if (s->sc->health.mode == HEALTH_CENTRAL && s->sc->health.propagation_delay_ns)
        sim_event(s, "adopt", NULL, "instance %u adopts epoch %u", in->index, epoch);
}

/* ---- routing ------------------------------------------------------------------ */

static uint32_t route(struct sim *s, struct instance *in, uint32_t key, uint8_t *flags)
{
    uint64_t pos = s->wl.ks.rec[key].pos;
    const struct placement *pl = in->view->pl;
    uint32_t n;
    if (s->pp.algo == PLACE_BOUNDED && pl->n_members) {
        uint64_t total = (uint64_t)s->inflight_total + 1;
        uint32_t cap = (uint32_t)ceil(s->pp.load_factor * (double)total / (double)pl->n_members);
        n = placement_lookup_bounded(pl, pos, s->inflight, cap);
    } else {
        n = placement_lookup(pl, pos);
    }
    if (n != PLACE_NONE && s->n_gutter) {
        const struct epoch *e = membership_epoch(s, in->epoch);
        if (in->ejected[n] || e->ejected[n]) {
            n = placement_lookup(s->gutter_pl, pos);
            *flags |= RQF_GUTTER;
        }
    }
    return n;
}

/* ---- request records ---------------------------------------------------------- */

static inline struct req *R(struct sim *s, uint32_t r)
{
    return &s->reqs.r[r];
}

/* Schedules an event about request r (counts it in r's pending). */
static void req_schedule(struct sim *s, uint32_t r, int64_t t_ns, unsigned kind)
{
    R(s, r)->pending++;
    sim_schedule(s, t_ns, kind, r, 0);
}

/* One reference to r is done with. */
static void req_put(struct sim *s, uint32_t r)
{
    if (--R(s, r)->pending == 0)
        req_free(s, r);
}

/* ---- leases (fill: lease) -------------------------------------------------------- */

static bool lease_mode(const struct sim *s)
{
    return s->sc->clients.fill == FILL_LEASE;
}

/* At a miss: the node grants a token unless a live one is out for the key. */
static uint32_t lease_grant(struct sim *s, struct node *n, uint32_t key)
{
    uint64_t now_ms = (uint64_t)(s->now_ns / NS_PER_MS);
    uint64_t *v = u64map_get(&n->leases, key);
    if (v && now_ms - (*v >> 32) < LEASE_TTL_MS)
        return 0; /* someone else is filling it */
    uint32_t token = ++s->next_lease;
    u64map_put(&n->leases, key, now_ms << 32 | token);
    return token;
}

/* A fill under a lease: allowed only with the key's current token. */
static bool lease_redeem(struct node *n, uint32_t key, uint32_t token)
{
    uint64_t *v = u64map_get(&n->leases, key);
    if (!v || (uint32_t)*v != token)
        return false;
    u64map_del(&n->leases, key);
    return true;
}

/* ---- the database leg ------------------------------------------------------------ */

static void client_failed(struct sim *s)
{
    s->tk.errors++;
    s->tot.errors++;
}

/* Backfill limit: a token bucket per instance, one second of burst. */
static bool take_token(struct sim *s, struct instance *in)
{
    double rate = s->sc->clients.backfill_qps;
    if (rate <= 0)
        return true;
    in->tokens += (double)(s->now_ns - in->tokens_ns) * rate / 1e9;
    in->tokens_ns = s->now_ns;
    if (in->tokens > MAX(1.0, rate))
        in->tokens = MAX(1.0, rate);
    if (in->tokens < 1.0)
        return false;
    in->tokens -= 1.0;
    return true;
}

static void read_db(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    struct instance *in = &s->inst[q->inst];
    q->next_waiter = NO_WAITER;
    if (s->sc->clients.coalesce) {
        uint64_t *leader = u64map_get(&in->db_reads, q->key);
        if (leader) { /* join the read in flight; the leader fills */
            struct req *l = R(s, (uint32_t)*leader);
            q->flags |= RQF_WAITER;
            q->next_waiter = l->next_waiter;
            l->next_waiter = r;
            q->pending++;
            return;
        }
    }
    int64_t done;
    if (!take_token(s, in) || db_submit(s, &done)) {
        client_failed(s);
        return;
    }
    if (s->sc->clients.coalesce)
        u64map_put(&in->db_reads, q->key, r);
    q->t_db_ns = s->now_ns;
    req_schedule(s, r, done, EVK_DB_DONE);
}

/* After a timeout or an error reply: the database, or fail (on_timeout). */
static void after_failure(struct sim *s, uint32_t r)
{
    R(s, r)->flags &= (uint8_t)~RQF_FILL;
    if (s->sc->clients.on_timeout == ON_TIMEOUT_DB)
        read_db(s, r);
    else
        client_failed(s);
}

/* ---- cache operations after the database --------------------------------------------- */

static void send_node_op(struct sim *s, uint32_t r, uint32_t node, enum req_kind kind,
                         uint32_t version)
{
    struct req *q = R(s, r);
    struct node *n = &s->nodes[node];
    int64_t done;
    if (node_submit(s, n, s->now_ns + n->half_rtt_ns, &done))
        return; /* lost or refused: nothing changes at the node */
    if (kind != RQ_INVALIDATE) {
        n->tk.sets++;
        /* a fill into a full node evicts its LRU item when it lands, about a
         * round trip from now: fetch that item meanwhile */
        if (n->store.tail != STORE_NIL
            && !store_has_room(&n->store, keyspace_item_bytes(&s->wl.ks, q->key)))
            __builtin_prefetch(&s->pool.items[n->store.tail], 1);
    }
    q->node = node;
    q->kind = (uint8_t)kind;
    q->version = version;
    q->incarnation = n->incarnation;
    req_schedule(s, r, done, EVK_NODE_OP_DONE);
}

static void log_stale(struct sim *s, const struct req *q, const struct node *n,
                      const struct store_set_result *res)
{
    char buf[512];
    const char *name = keyspace_name(&s->wl.ks, q->key, buf, sizeof buf);
    uint32_t dbv = s->wl.ks.rec[q->key].version;
    const char *how = q->kind == RQ_WRITE_THROUGH ? "write-through" : "fill";
    if (res->replaced)
        sim_event(s, "stale_overwrite", n, "key %s: %s of v%u over cached v%u; database has v%u%s",
                  name, how, q->version, res->old_version, dbv,
                  res->old_version > q->version ? " (clobber)" : "");
    else
        sim_event(s, "stale_overwrite", n, "key %s: %s of v%u; database has v%u", name, how,
                  q->version, dbv);
}

static void node_op_done(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    struct node *n = &s->nodes[q->node];
    if (n->incarnation != q->incarnation)
        return; /* the node crashed or left: the operation was lost */
    if (q->kind == RQ_INVALIDATE) {
        store_delete(&n->store, q->key);
        u64map_del(&n->leases, q->key); /* voids an outstanding lease */
        return;
    }
    enum store_mode mode = STORE_SET;
    if (q->kind == RQ_FILL) {
        if (s->sc->clients.fill == FILL_ADD)
            mode = STORE_ADD;
        else if (s->sc->clients.fill == FILL_VERSIONED)
            mode = STORE_NEWER;
        else if (lease_mode(s) && !lease_redeem(n, q->key, q->lease))
            return; /* the lease was voided by a delete or set since */
    } else {
        u64map_del(&n->leases, q->key); /* a write-through voids leases too */
    }
    int64_t ttl = (q->flags & RQF_GUTTER) ? s->sc->health.gutter_ttl_ns : s->sc->workload.ttl_ns;
    struct store_set_result res = store_set(&n->store, q->key, q->version,
                                            keyspace_item_bytes(&s->wl.ks, q->key),
                                            ttl ? s->now_ns + ttl : 0, s->now_ns, mode);
    if (res.stored && q->version < s->wl.ks.rec[q->key].version) {
        s->tk.stale_overwrites++;
        s->tot.stale_overwrites++;
        if (res.replaced && res.old_version > q->version) {
            s->tk.clobbers++;
            s->tot.clobbers++;
        }
        if (s->tot.stale_logged++ < STALE_LOG_MAX)
            log_stale(s, q, n, &res);
    }
}

/* Fills the read's fill node with version (if the read fills at all). */
static void fill(struct sim *s, uint32_t r, uint32_t version)
{
    struct req *q = R(s, r);
    if (!(q->flags & RQF_FILL) || q->fill_node == PLACE_NONE || s->sc->clients.fill == FILL_NONE)
        return;
    if (lease_mode(s) && !q->lease)
        return; /* no token: another client fills */
    send_node_op(s, r, q->fill_node, RQ_FILL, version);
}

static void db_done(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    struct database *d = &s->db;
    lhist_add(&d->lat, s->now_ns - q->t_db_ns);
    lhist_add(&s->tk.client_lat, s->now_ns - q->t0_ns);
    if (q->kind == RQ_WRITE) {
        d->writes++;
        s->tot.db_writes++;
        uint32_t v = ++s->wl.ks.rec[q->key].version;
        uint8_t flags = 0;
        uint32_t n = route(s, &s->inst[q->inst], q->key, &flags);
        if (n == PLACE_NONE)
            return;
        q->flags = flags;
        send_node_op(s, r, n, s->sc->clients.write == WRITE_INVALIDATE ? RQ_INVALIDATE
                                                                        : RQ_WRITE_THROUGH, v);
        return;
    }
    d->reads++;
    s->tot.db_reads++;
    if (s->sc->clients.coalesce) {
        struct instance *in = &s->inst[q->inst];
        uint64_t *leader = u64map_get(&in->db_reads, q->key);
        if (leader && *leader == r)
            u64map_del(&in->db_reads, q->key);
        for (uint32_t w = q->next_waiter; w != NO_WAITER;) { /* answer the waiters */
            uint32_t next = R(s, w)->next_waiter;
            lhist_add(&s->tk.client_lat, s->now_ns - R(s, w)->t0_ns);
            req_put(s, w);
            w = next;
        }
        q->next_waiter = NO_WAITER;
    }
    fill(s, r, s->wl.ks.rec[q->key].version);
}

/* ---- the read path ---------------------------------------------------------------------- */

/* Sends a GET for r to node nid; flags say why (gutter, fallback). */
static void send_get_to(struct sim *s, uint32_t r, uint32_t nid)
{
    struct req *q = R(s, r);
    struct node *n = &s->nodes[nid];
    q->node = nid;
    q->t_get_ns = s->now_ns;
    int64_t t_arrive = s->now_ns + n->half_rtt_ns, done;
    int rc = node_submit(s, n, t_arrive, &done);
    if (rc == 1) { /* down: never answers */
        req_schedule(s, r, s->now_ns + s->sc->clients.timeout_ns, EVK_TIMEOUT);
        return;
    }
    n->tk.requests++;
    n->gets_total++;
    if (rc < 0) {
        req_schedule(s, r, t_arrive + n->half_rtt_ns, EVK_REJECTED);
        return;
    }
    lhist_add(&n->tk.lat, done + n->slow_latency_ns - t_arrive);
    s->inflight[nid]++;
    s->inflight_total++;
    q->incarnation = n->incarnation;
    q->t_resp_ns = done + n->slow_latency_ns + n->half_rtt_ns;
    q->flags &= (uint8_t)~RQF_LATE;
    req_schedule(s, r, done, EVK_GET_DONE);
    if (q->t_resp_ns - s->now_ns > s->sc->clients.timeout_ns) {
        q->flags |= RQF_LATE;
        req_schedule(s, r, s->now_ns + s->sc->clients.timeout_ns, EVK_TIMEOUT);
    }
}

static void send_get(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    uint8_t flags = 0;
    uint32_t nid = route(s, &s->inst[q->inst], q->key, &flags);
    q->flags |= flags;
    if (nid == PLACE_NONE) {
        /* no node to ask: straight to the database, nothing to fill */
        q->node = PLACE_NONE;
        s->tk.misses++;
        read_db(s, r);
        return;
    }
    send_get_to(s, r, nid);
}

static void get_done(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    struct node *n = &s->nodes[q->node];
    if (n->incarnation != q->incarnation) {
        /* the node crashed or left while the GET was queued: no reply */
        if (!(q->flags & RQF_LATE))
            req_schedule(s, r, MAX(s->now_ns, q->t_get_ns + s->sc->clients.timeout_ns),
                         EVK_TIMEOUT);
        return;
    }
    s->inflight[q->node]--;
    s->inflight_total--;
    struct item *it = store_get(&n->store, q->key, s->now_ns, true);
    if (it)
        n->tk.hits++;
    if (q->flags & RQF_LATE)
        return; /* the client has given up (or will, before this reply arrives) */
    if (it) {
        s->tk.hits++;
        if (it->version < s->wl.ks.rec[q->key].version) {
            s->tk.stale_reads++;
            s->tot.stale_reads++;
        }
        lhist_add(&s->tk.client_lat, q->t_resp_ns - q->t0_ns);
        health_success(s, &s->inst[q->inst], q->node);
        if (q->flags & RQF_FALLBACK) /* warm the new owner with the old owner's copy */
            fill(s, r, it->version);
        return;
    }
    if (lease_mode(s) && !(q->flags & RQF_FALLBACK))
        q->lease = lease_grant(s, n, q->key);
    req_schedule(s, r, q->t_resp_ns, EVK_GET_RESP);
}

/* The previous epoch's owner of the key, if the instance has one that differs. */
static uint32_t previous_owner(struct sim *s, const struct instance *in, uint32_t key,
                               uint32_t current)
{
    if (!in->prev_view)
        return PLACE_NONE;
    uint32_t p = placement_lookup(in->prev_view->pl, s->wl.ks.rec[key].pos);
    if (p == current || p == PLACE_NONE || s->nodes[p].gutter)
        return PLACE_NONE;
    if (in->ejected[p] || membership_epoch(s, in->epoch)->ejected[p])
        return PLACE_NONE;
    return p;
}

static void get_resp(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    struct instance *in = &s->inst[q->inst];
    health_success(s, in, q->node);
    q->flags |= RQF_FILL;
    if (!(q->flags & RQF_FALLBACK)) {
        q->fill_node = q->node;
        if (s->sc->clients.fallback_to_previous_owner) {
            uint32_t p = previous_owner(s, in, q->key, q->node);
            if (p != PLACE_NONE) {
                q->flags |= RQF_FALLBACK;
                send_get_to(s, r, p);
                return;
            }
        }
    }
    s->tk.misses++;
    read_db(s, r);
}

static void timed_out(struct sim *s, uint32_t r, bool rejected)
{
    struct req *q = R(s, r);
    s->tk.misses++;
    if (rejected) {
        client_failed(s);
    } else {
        s->tk.timeouts++;
        s->tot.timeouts++;
    }
    health_failure(s, &s->inst[q->inst], q->node, rejected ? "queue full" : "timeout");
    after_failure(s, r);
}

/* ---- entry points ------------------------------------------------------------------------ */

void client_arrival(struct sim *s, int64_t t_ns, uint32_t inst, bool is_write, uint32_t key)
{
    s->tk.requests++;
    s->tot.requests++;
    uint32_t r = req_alloc(s);
    struct req *q = R(s, r);
    q->t0_ns = t_ns;
    q->key = key;
    q->inst = inst;
    q->flags = 0;
    q->pending = 1; /* this handler's own reference */
    q->node = q->fill_node = PLACE_NONE;
    q->lease = 0;
    q->next_waiter = NO_WAITER;
    if (is_write) {
        s->tk.writes++;
        q->kind = RQ_WRITE;
        int64_t done;
        if (db_submit(s, &done)) {
            client_failed(s);
        } else {
            q->t_db_ns = s->now_ns;
            req_schedule(s, r, done, EVK_DB_DONE);
        }
    } else {
        s->tk.reads++;
        q->kind = RQ_READ;
        send_get(s, r);
    }
    req_put(s, r);
}

void client_handle(struct sim *s, const struct event *e)
{
    uint32_t r = e->a;
    switch (event_kind(e)) {
    case EVK_GET_DONE: get_done(s, r); break;
    case EVK_GET_RESP: get_resp(s, r); break;
    case EVK_TIMEOUT: timed_out(s, r, false); break;
    case EVK_REJECTED: timed_out(s, r, true); break;
    case EVK_DB_DONE: db_done(s, r); break;
    case EVK_NODE_OP_DONE: node_op_done(s, r); break;
    default: return;
    }
    req_put(s, r);
}
