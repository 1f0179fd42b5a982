/*
 * client.c — client instances: routing, the read and write paths of every
 * operation, and the tick's client-side counts (their ring views and
 * epochs: client_views.c). Sampled operations are reported to
 * models/trace.c.
 *
 * Outcomes are counted when known: a hit when the node serves it, a miss
 * when the miss reply reaches the client, a timeout at the timeout. Every
 * read has exactly one outcome, hit or miss (RQF_OUTCOME marks it;
 * clients_check verifies it). `errors` counts client operations that failed
 * — a read that got no value, a write the database refused — each once;
 * error replies from a node's full queue are `cache_errors`, whatever
 * follows them.
 */
#include "models/client.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cures.h"
#include "models/db.h"
#include "models/health.h"
#include "models/membership.h"
#include "models/migrate.h"
#include "models/net.h"
#include "models/node.h"
#include "models/trace.h"
#include "models/transfer.h"
#include "models/workload.h"

#define NO_WAITER UINT32_MAX

static inline struct req *R(struct sim *s, uint32_t r)
{
    return req_at(&s->eng, r);
}

static inline struct tick_acc *TK(struct sim *s)
{
    return &s->cl->tk;
}

int clients_create(struct sim *s)
{
    s->cl = xcalloc(1, sizeof(*s->cl));
    if (rng_init(&s->cl->propagation, s->sc->seed, "propagation")) {
        sim_fail(s, "cannot allocate random streams");
        return -1;
    }
    s->n_inst = s->sc->clients.instances;
    s->inst = xcalloc(s->n_inst, sizeof(*s->inst));
    for (uint32_t j = 0; j < s->n_inst; j++) {
        struct instance *in = &s->inst[j];
        in->index = j;
        in->epoch = 1;
        in->tokens = MAX(1.0, s->sc->clients.backfill_qps);
        u64map_init(&in->db_reads);
        membership_hold(s, 1);
        in->view = view_get(s, 1, NULL);
        if (!in->view)
            return -1;
    }
    return 0;
}

void clients_destroy(struct sim *s)
{
    for (uint32_t j = 0; j < s->n_inst; j++) {
        struct instance *in = &s->inst[j];
        view_release(s, in->view);
        view_release(s, in->prev_view);
        u64map_deinit(&in->db_reads);
    }
    free(s->inst);
    s->inst = NULL;
    s->n_inst = 0;
    if (s->cl)
        rng_deinit(&s->cl->propagation);
    free(s->cl);
    s->cl = NULL;
}

/* ---- health reports ------------------------------------------------------------------ */

static void client_report_success(struct sim *s, const struct instance *in, uint32_t node)
{
    health_success(s, in->index, node);
}

static void client_report_failure(struct sim *s, struct instance *in, uint32_t node,
                                  int64_t sent_ns, const char *what)
{
    if (health_failure(s, in->index, in->epoch, node, sent_ns, what))
        client_refresh_view(s, in);
}

/* ---- routing ---------------------------------------------------------------------- */

/* The node the instance sends key to; get: routing a GET (only those count
 * in bounded_reroutes — a write's cache operation is routed the same way,
 * past a full owner too, but is not a GET). */
static uint32_t client_route(struct sim *s, struct instance *in, uint32_t key, bool get,
                             uint8_t *flags)
{
    const struct view *v = in->view;
    uint64_t pos = view_position(s, v, key);
    const struct placement *pl = v->pl;
    uint32_t n;
    if (pl->params.algo == PLACE_BOUNDED && pl->n_members) {
        n = placement_lookup_bounded_by(pl, pos, s->inflight, (uint64_t)s->inflight_total,
                                        s->sc->routing.bounded_rule);
        if (get && n != placement_lookup(pl, pos))
            TK(s)->bounded_reroutes++;
    } else {
        n = placement_lookup(pl, pos);
    }
    if (n != PLACE_NONE && s->n_gutter) {
        const struct epoch *e = membership_epoch(s, in->epoch);
        if (health_inst_ejected(s, in->index, n) || e->ejected[n]) {
            n = placement_lookup(membership_gutter(s), s->wl->ks.rec[key].pos);
            *flags |= RQF_GUTTER;
        }
    }
    return n;
}

/* Whether the instance is within fallback_window of adopting its epoch. */
static bool in_fallback_window(const struct sim *s, const struct instance *in)
{
    return in->prev_view && s->eng.now_ns - in->adopted_ns < s->sc->clients.fallback_window_ns;
}

static uint32_t client_previous_owner(struct sim *s, const struct instance *in, uint32_t key,
                               uint32_t current)
{
    if (!in_fallback_window(s, in))
        return PLACE_NONE;
    const struct view *pv = in->prev_view;
    uint32_t p = placement_lookup(pv->pl, view_position(s, pv, key));
    if (p == current || p == PLACE_NONE || s->nodes[p].gutter)
        return PLACE_NONE;
    const struct epoch *e = membership_epoch(s, in->epoch);
    if (!e->member[p])
        return PLACE_NONE; /* it left the cluster (the epoch adopted says so): nothing there */
    if (health_inst_ejected(s, in->index, p) || e->ejected[p])
        return PLACE_NONE;
    return p;
}

static void client_send_get(struct sim *s, uint32_t r, uint32_t nid)
{
    struct req *q = R(s, r);
    q->epoch = s->inst[q->inst].epoch;
    if (q->flags & RQF_SAMPLED)
        trace_asked(s, r, nid);
    net_send_get(s, r, nid);
}

static void client_send_op(struct sim *s, uint32_t r, uint32_t node, enum req_kind kind,
                    uint32_t version)
{
    struct req *q = R(s, r);
    q->kind = (uint8_t)kind;
    q->version = version;
    q->epoch = s->inst[q->inst].epoch;
    net_send_op(s, r, node);
}

/* ---- the read and write paths ----------------------------------------------------

 * The read path and the write path of a client operation.
 *
 * Read:  route the key with the instance's view -> GET to the node (through
 *        models/net.c: rtt/2 each way, the node's queue, fencing) -> a hit
 *        returns; a miss reply reaches the client, which reads the database
 *        and then fills the node it asked, per clients.fill:
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
 *        (on_timeout: error). A MOVED reply (fencing) sends the GET to the
 *        owner it names.
 * Write: commit at the database (version + 1), then invalidate or write
 *        through at the owner in the writer's view at that moment; the
 *        write completes at the commit, the cache operation follows it.
 * Options on the read path:
 *   coalesce         one database read per key per instance at a time: later
 *                    misses wait for it and one read of the group fills (the
 *                    first, else the first waiter that would: a lease token)
 *   backfill_qps     a token bucket per instance on database reads after a
 *                    miss; without a token the read fails (backfill_mode:
 *                    fail) or waits up to backfill_wait for one (wait)
 *   fallback_to_previous_owner
 *                    for fallback_window after the instance adopts an epoch,
 *                    a miss at a key's new owner asks the key's owner in the
 *                    previous epoch; a hit there answers the read and fills
 *                    the new owner with that copy (stale if it missed an
 *                    invalidation). In that window a write also invalidates
 *                    the key at its previous owner (invalidate_previous_owner),
 *                    so the copies fallback reads find stay fresh. After the
 *                    window the previous owners are never asked again: the
 *                    transition is bounded, as a warm-up route is.
 *
 * Replies carry the attempt (GET) they answer; one about an attempt the
 * client has already closed (a timeout after the reply, a reply after the
 * timeout) is ignored.
 */

#define STALE_LOG_MAX 100          /* stale overwrites recorded one by one in events */
#define LEASE_TTL_MS 10000         /* a lease not used within 10 s lapses (memcache's) */

/* ---- outcomes ---------------------------------------------------------------------- */

static void outcome(struct sim *s, struct req *q, bool hit)
{
    assert(q->kind == RQ_READ && !(q->flags & RQF_OUTCOME));
    q->flags |= RQF_OUTCOME;
    if (hit)
        TK(s)->hits++;
    else
        TK(s)->misses++;
}

/* A client operation failed (counted once per operation). In the request
 * trace a read whose last GET timed out is a timeout, from no source. */
static void failed(struct sim *s, uint32_t r)
{
    TK(s)->errors++;
    const struct req *q = R(s, r);
    if (q->flags & RQF_SAMPLED)
        trace_answer(s, r, SRC_NONE,
                     (q->flags & RQF_FAILED) && !q->rejected ? OUT_TIMEOUT : OUT_ERROR,
                     UINT32_MAX, s->eng.now_ns - q->t0_ns);
}

/* The read is answered by the database with version v. */
static void answered_by_db(struct sim *s, uint32_t r, uint32_t v)
{
    struct req *q = R(s, r);
    lhist_add(&TK(s)->client_lat, s->eng.now_ns - q->t0_ns);
    if (UNLIKELY(cures_local_on(s)))
        cures_local_arrive(s, r, v);
    if (q->flags & RQF_SAMPLED)
        trace_answer(s, r, SRC_DB,
                     !(q->flags & RQF_FAILED) ? OUT_MISS : q->rejected ? OUT_ERROR : OUT_TIMEOUT,
                     v, s->eng.now_ns - q->t0_ns);
}

/* ---- leases (fill: lease) -------------------------------------------------------- */

static bool lease_mode(const struct sim *s)
{
    return s->sc->clients.fill == FILL_LEASE;
}

/* At a miss: the node grants a token unless a live one is out for the key. */
static uint32_t lease_grant(struct sim *s, struct node *n, uint32_t key)
{
    uint64_t now_ms = (uint64_t)(s->eng.now_ns / NS_PER_MS);
    uint64_t *v = u64map_get(&n->leases, key);
    if (v && now_ms - (*v >> 32) < LEASE_TTL_MS)
        return 0; /* someone else is filling it */
    uint32_t token = ++s->cl->next_lease;
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

/* Backfill limit: a token bucket per instance, one second of burst. Returns
 * 0 when a token is taken now, the wait until one is due (it is taken:
 * the bucket goes into debt) under backfill_mode: wait, or -1 to fail. */
static int64_t take_token(struct sim *s, struct instance *in)
{
    const struct client_cfg *c = &s->sc->clients;
    double rate = c->backfill_qps;
    if (rate <= 0)
        return 0;
    in->tokens += (double)(s->eng.now_ns - in->tokens_ns) * rate / 1e9;
    in->tokens_ns = s->eng.now_ns;
    if (in->tokens > MAX(1.0, rate))
        in->tokens = MAX(1.0, rate);
    if (in->tokens >= 1.0) {
        in->tokens -= 1.0;
        return 0;
    }
    if (c->backfill_mode != BACKFILL_WAIT)
        return -1;
    /* a tiny rate makes the wait too long for an int64_t (past any backfill_wait) */
    double wait = ceil((1.0 - in->tokens) * 1e9 / rate);
    if (wait >= 0x1p63 || (int64_t)wait > c->backfill_wait_ns)
        return -1;
    in->tokens -= 1.0;
    return (int64_t)wait;
}

/* The waiters of r's coalesced read fail with it. */
static void fail_waiters(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    for (uint32_t w = q->next_waiter; w != NO_WAITER;) {
        uint32_t next = R(s, w)->next_waiter;
        failed(s, w);
        req_put(&s->eng, w);
        w = next;
    }
    q->next_waiter = NO_WAITER;
}

/* The leader's read ends (answered or failed): it stops being the one others wait on. */
static void end_leader(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    if (!s->sc->clients.coalesce)
        return;
    struct instance *in = &s->inst[q->inst];
    uint64_t *leader = u64map_get(&in->db_reads, q->key);
    if (leader && *leader == r)
        u64map_del(&in->db_reads, q->key);
}

/* Submits r's database read now. */
static void submit_read(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    int64_t done;
    if (db_submit(s, &done)) {
        end_leader(s, r);
        fail_waiters(s, r);
        failed(s, r);
        return;
    }
    q->t_db_ns = s->eng.now_ns;
    req_schedule(&s->eng, r, done, EVK_DB_DONE);
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
    int64_t wait = take_token(s, in);
    if (wait < 0) { /* wait mode: none due within backfill_wait, which the read waits out */
        if (s->sc->clients.backfill_mode == BACKFILL_WAIT && s->sc->clients.backfill_wait_ns > 0)
            req_schedule_b(&s->eng, r, s->eng.now_ns + s->sc->clients.backfill_wait_ns,
                           EVK_BACKFILL, 1);
        else
            failed(s, r);
        return;
    }
    if (s->sc->clients.coalesce)
        u64map_put(&in->db_reads, q->key, r);
    if (wait == 0)
        submit_read(s, r);
    else
        req_schedule(&s->eng, r, s->eng.now_ns + wait, EVK_BACKFILL);
}

/* b: 0 the token is due, 1 the read has waited backfill_wait for none and fails. */
void client_backfill(struct sim *s, uint32_t r, uint32_t b)
{
    if (b)
        failed(s, r);
    else
        submit_read(s, r);
}

/* After a timeout or an error reply: the database, or fail (on_timeout). */
static void after_failure(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    q->flags &= (uint8_t)~RQF_FILL;
    q->flags |= RQF_FAILED;
    if (s->sc->clients.on_timeout == ON_TIMEOUT_DB)
        read_db(s, r);
    else
        failed(s, r);
}

/* ---- cache operations after the database --------------------------------------------- */

static void log_stale(struct sim *s, const struct req *q, const struct node *n,
                      const struct store_set_result *res)
{
    char buf[512];
    const char *name = keyspace_name(&s->wl->ks, q->key, buf, sizeof buf);
    uint32_t dbv = db_version(s->db, q->key);
    const char *how = q->kind == RQ_WRITE_THROUGH ? "write-through"
                      : q->kind == RQ_COPY        ? "copy"
                                                  : "fill";
    if (res->replaced)
        sim_event(s, "stale_overwrite", n->id,
                  "key %s: %s of v%u over cached v%u; database has v%u%s", name, how, q->version,
                  res->old_version, dbv, res->old_version > q->version ? " (clobber)" : "");
    else
        sim_event(s, "stale_overwrite", n->id, "key %s: %s of v%u; database has v%u", name, how,
                  q->version, dbv);
}

void client_node_op_done(struct sim *s, uint32_t r, uint32_t b)
{
    (void)b;
    struct req *q = R(s, r);
    if (UNLIKELY(q->kind == RQ_COPY) && (q->flags & RQF_FAILED)) {
        transfer_copy_lost(s, r); /* refused at its destination (net.c), or it is down */
        return;
    }
    struct node *n = &s->nodes[q->node];
    if (n->incarnation != q->incarnation) {
        if (q->kind == RQ_COPY)
            transfer_copy_lost(s, r);
        return; /* the node crashed or left: the operation was lost */
    }
    if (UNLIKELY(s->mg) && migrate_op(s, r))
        return; /* ASK or MOVED: a slot being migrated, or handed over */
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
    } else if (q->kind == RQ_COPY) {
        mode = STORE_NEWER; /* a copy never replaces a newer version */
    } else {
        u64map_del(&n->leases, q->key); /* a write-through voids leases too */
    }
    int64_t now = s->eng.now_ns;
    int64_t ttl = (q->flags & RQF_GUTTER) ? s->sc->health.gutter_ttl_ns
                                          : workload_ttl_ns(s->wl, q->key);
    struct store_set_result res = store_set(&n->store, q->key, q->version,
                                            keyspace_item_bytes(&s->wl->ks, q->key),
                                            ttl ? now + ttl : 0, now, mode);
    if (res.stored && q->version < db_version(s->db, q->key)) {
        TK(s)->stale_overwrites++;
        if (res.replaced && res.old_version > q->version)
            TK(s)->clobbers++;
        if (s->cl->stale_logged++ < STALE_LOG_MAX)
            log_stale(s, q, n, &res);
    }
    if (q->kind == RQ_COPY) /* last: it may finish the transfer (a new epoch, a node gone) */
        transfer_landed(s, r, res.stored);
}

/* Whether the read fills after its database read: it missed at a node (not
 * a timeout or an error reply) and, under leases, holds a token. */
static bool fills(const struct sim *s, const struct req *q)
{
    if (!(q->flags & RQF_FILL) || q->fill_node == PLACE_NONE || s->sc->clients.fill == FILL_NONE)
        return false;
    return !lease_mode(s) || q->lease; /* no token: another client fills */
}

/* Fills the read's fill node with version (if the read fills at all). */
static void fill(struct sim *s, uint32_t r, uint32_t version)
{
    if (fills(s, R(s, r)))
        client_send_op(s, r, R(s, r)->fill_node, RQ_FILL, version);
}

/* The same cache operation as record w's, for key, to another node (a
 * record of its own; flags: RQF_GUTTER or 0). */
static void send_key_op(struct sim *s, const struct req *w, uint32_t key, uint32_t node,
                        enum req_kind kind, uint32_t version, uint8_t flags)
{
    uint32_t inst = w->inst; /* read before req_alloc, which may move the records */
    int64_t t0 = w->t0_ns;
    uint32_t r = req_alloc(&s->eng);
    struct req *q = R(s, r);
    req_clear(q);
    q->key = key;
    q->inst = inst;
    q->flags = flags;
    q->node = q->fill_node = PLACE_NONE;
    q->next_waiter = NO_WAITER;
    q->t0_ns = t0;
    client_send_op(s, r, node, kind, version);
    req_put(&s->eng, r);
}

/* The nodes a write's cache operation for key goes to in the instance's
 * view: its owner, or every owner with replicas (cures_replicas) — and,
 * with a gutter pool, the key's gutter node where the instance's reads go
 * instead: for the owner when it is ejected (client_route), for replicas
 * when every one is ejected (as client_start_read). *flags: RQF_GUTTER
 * then, else 0. Returns how many (0: no node). */
static uint32_t write_targets(struct sim *s, struct instance *in, uint32_t key, uint32_t *out,
                              uint8_t *flags)
{
    uint32_t replicas = cures_replicas(s, key);
    *flags = 0;
    if (LIKELY(replicas <= 1)) {
        out[0] = client_route(s, in, key, false, flags);
        return out[0] != PLACE_NONE;
    }
    uint32_t n = cures_owners(s, in->view, in->index, key, replicas, out);
    if (!n && s->n_gutter) { /* every replica ejected: the gutter, where its reads go */
        out[0] = placement_lookup(membership_gutter(s), s->wl->ks.rec[key].pos);
        *flags = RQF_GUTTER;
        n = out[0] != PLACE_NONE;
    }
    return n;
}

/* In the fallback window, a write also invalidates key at its owner in the
 * writer's previous view — the node the instance's fallback reads ask
 * (client_get_resp) — unless the write's own operations already go there
 * (one of the n nodes at). A cache operation of its own (cache_write_ops). */
static void invalidate_previous_owner(struct sim *s, const struct req *w, uint32_t key,
                                      const uint32_t *at, uint32_t n)
{
    if (!s->sc->clients.fallback_to_previous_owner || !s->sc->clients.invalidate_previous_owner)
        return;
    uint32_t p = client_previous_owner(s, &s->inst[w->inst], key, n ? at[0] : PLACE_NONE);
    if (p == PLACE_NONE || (n && placement_among(at + 1, n - 1, p)))
        return;
    TK(s)->cache_write_ops++;
    send_key_op(s, w, key, p, RQ_INVALIDATE, 0, 0);
}

/* A write of a split key (key splitting): every copy, which has the key's
 * new version, gets the write's cache operation at its owner (at each of its
 * owners, with routing.replicas; at its previous owner too, in the fallback
 * window); the record itself carries the last one. */
static void write_split(struct sim *s, uint32_t r, enum req_kind kind, uint32_t v,
                        uint32_t first, uint32_t n)
{
    struct req *q = R(s, r);
    struct instance *in = &s->inst[q->inst];
    q->flags &= RQF_SAMPLED;
    uint32_t last_key = PLACE_NONE, last_node = PLACE_NONE;
    uint8_t last_flags = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t copy = first + i; /* its version is v already (write_committed) */
        if (UNLIKELY(s->tr->n))
            transfers_on_write(s, copy);
        uint32_t owners[PLACE_MAX_REPLICAS];
        uint8_t flags;
        uint32_t m = write_targets(s, in, copy, owners, &flags);
        for (uint32_t j = 0; j < m; j++) {
            TK(s)->cache_write_ops++;
            if (last_node != PLACE_NONE)
                send_key_op(s, R(s, r), last_key, last_node, kind, v, last_flags);
            last_key = copy;
            last_node = owners[j];
            last_flags = flags;
        }
        invalidate_previous_owner(s, R(s, r), copy, owners, m);
    }
    if (last_node == PLACE_NONE)
        return;
    q = R(s, r); /* the records may have moved */
    q->key = last_key;
    q->flags = (uint8_t)(last_flags | (q->flags & RQF_SAMPLED));
    client_send_op(s, r, last_node, kind, v);
}

static void write_committed(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    uint32_t v = db_write_done(s, q->t_db_ns, q->key);
    if (UNLIKELY(s->wl->n_hot_names)) /* a split key's copies, split now or not */
        cures_split_versions(s, q->key, v);
    if (q->flags & RQF_SAMPLED)
        trace_answer(s, r, SRC_DB, OUT_WRITE, v, s->eng.now_ns - q->t0_ns);
    if (UNLIKELY(s->tr->n))
        transfers_on_write(s, q->key);
    struct instance *in = &s->inst[q->inst];
    /* its own local copy (of the key: never of a split copy), not the others' */
    if (UNLIKELY(cures_local_on(s)))
        cures_local_drop(s, q->inst, q->key);
    /* a delete leaves nothing to write through: its operations invalidate */
    enum req_kind kind = s->sc->clients.write == WRITE_INVALIDATE || q->kind == RQ_DELETE
                             ? RQ_INVALIDATE
                             : RQ_WRITE_THROUGH;
    uint32_t first, copies = cures_split(s, q->key, &first);
    if (UNLIKELY(copies > 1)) {
        write_split(s, r, kind, v, first, copies);
        return;
    }
    /* every replica (the record goes to the first), or the owner */
    uint32_t owners[PLACE_MAX_REPLICAS];
    uint8_t flags;
    uint32_t key = q->key, n = write_targets(s, in, key, owners, &flags);
    if (!n)
        return;
    q->flags = (uint8_t)(flags | (q->flags & RQF_SAMPLED));
    for (uint32_t i = 1; i < n; i++) {
        TK(s)->cache_write_ops++;
        send_key_op(s, R(s, r), key, owners[i], kind, v, flags); /* R: the records may move */
    }
    TK(s)->cache_write_ops++;
    client_send_op(s, r, owners[0], kind, v);
    invalidate_previous_owner(s, R(s, r), key, owners, n);
}

void client_db_done(struct sim *s, uint32_t r, uint32_t b)
{
    (void)b;
    struct req *q = R(s, r);
    if ((unsigned)q->kind - RQ_WRITE <= RQ_DELETE - RQ_WRITE) { /* a write or a delete */
        lhist_add(&TK(s)->client_lat, s->eng.now_ns - q->t0_ns);
        write_committed(s, r);
        return;
    }
    db_read_done(s, q->t_db_ns);
    uint32_t v = db_version(s->db, q->key);
    answered_by_db(s, r, v);
    end_leader(s, r);
    /* one read of the group fills: the leader, or when it does not (it
     * timed out, or holds no lease token) the first waiter that would —
     * a waiter's token left unused would stop every fill of the key at
     * that node until it lapses */
    bool filled = fills(s, R(s, r));
    for (uint32_t w = R(s, r)->next_waiter; w != NO_WAITER;) { /* answer the waiters */
        uint32_t next = R(s, w)->next_waiter;
        answered_by_db(s, w, v);
        if (!filled && fills(s, R(s, w))) {
            fill(s, w, v);
            filled = true;
        }
        req_put(&s->eng, w);
        w = next;
    }
    R(s, r)->next_waiter = NO_WAITER;
    fill(s, r, v);
}

static void client_start_write(struct sim *s, uint32_t r, bool del)
{
    struct req *q = R(s, r);
    TK(s)->writes++;
    q->kind = del ? RQ_DELETE : RQ_WRITE;
    int64_t done;
    if (db_submit(s, &done)) {
        failed(s, r);
    } else {
        q->t_db_ns = s->eng.now_ns;
        req_schedule(&s->eng, r, done, EVK_DB_DONE);
    }
}

/* ---- the read path ---------------------------------------------------------------------- */

/* A read of key (the key asked, before any split) answered by the
 * instance's local cache (clients.local_cache). */
static void local_hit(struct sim *s, uint32_t r, uint32_t key, const struct item *it)
{
    struct req *q = R(s, r);
    outcome(s, q, true);
    TK(s)->local_hits++;
    if (it->version < db_version(s->db, key)) {
        TK(s)->stale_reads++;
        TK(s)->local_stale_reads++;
    }
    lhist_add(&TK(s)->client_lat, 0);
    if (q->flags & RQF_SAMPLED)
        trace_answer(s, r, SRC_LOCAL, OUT_HIT, it->version, 0);
}

static void client_start_read(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    TK(s)->reads++;
    q->kind = RQ_READ;
    q->tried = 0;
    uint32_t key = q->key; /* the key asked */
    if (UNLIKELY(cures_detect_on(s)))
        cures_detect_read(s, key);
    /* key splitting: one copy, at random — drawn for every read, a local
     * hit too, so that the n-th read asks the same copy with or without a
     * local cache (common random numbers) */
    uint32_t first, copies = cures_split(s, key, &first);
    if (UNLIKELY(copies > 1))
        q->key = cures_split_pick(s, first, copies);
    if (UNLIKELY(cures_local_on(s))) { /* it holds the keys asked, whichever copy was read */
        const struct item *it = cures_local_get(s, q->inst, key);
        if (it) {
            local_hit(s, r, key, it);
            return;
        }
    }
    uint8_t flags = 0;
    uint32_t replicas = cures_replicas(s, q->key), nid;
    if (LIKELY(replicas <= 1)) {
        nid = client_route(s, &s->inst[q->inst], q->key, true, &flags);
    } else {
        nid = cures_next(s, r, s->inst[q->inst].view, replicas);
        if (nid == PLACE_NONE && s->n_gutter) { /* every replica ejected: the gutter */
            nid = placement_lookup(membership_gutter(s), s->wl->ks.rec[q->key].pos);
            flags |= RQF_GUTTER;
        }
    }
    q->flags |= flags;
    if (nid == PLACE_NONE) {
        /* no node to ask: straight to the database, nothing to fill */
        q->node = PLACE_NONE;
        outcome(s, q, false);
        read_db(s, r);
        return;
    }
    client_send_get(s, r, nid);
}

/* Whether an event about attempt b still concerns the request's current GET;
 * if so the GET is answered (closed). */
static bool current(struct req *q, uint32_t b)
{
    if ((uint8_t)b != q->attempt)
        return false;
    q->attempt++;
    return true;
}

void client_get_done(struct sim *s, uint32_t r, uint32_t b)
{
    struct req *q = R(s, r);
    /* b names the GET's own node: an earlier GET the client gave up on may
     * be served at one node while the current one waits at another */
    struct node *n = &s->nodes[net_tag_node(b)];
    bool cur = (uint8_t)b == q->attempt;
    if (cur ? n->incarnation != q->incarnation : !net_tag_incarnation_is(b, n->incarnation)) {
        /* the node crashed or left while the GET was queued: no reply */
        if (cur && !(q->flags & RQF_LATE) && !s->net->arrival_events)
            net_schedule_timeout(s, r, n->index,
                                 MAX(s->eng.now_ns, q->t_get_ns + s->sc->clients.timeout_ns));
        return;
    }
    if (UNLIKELY(s->mg) && !(q->flags & RQF_LATE) && cur && migrate_get(s, r))
        return; /* ASK or MOVED: a slot being migrated, or handed over */
    struct item *it = node_serve_get(s, n, q->key);
    if ((q->flags & RQF_LATE) || !cur)
        return; /* the client has given up (or will, before this reply arrives) */
    if (it) {
        current(q, b);
        outcome(s, q, true);
        if (it->version < db_version(s->db, q->key))
            TK(s)->stale_reads++;
        if (UNLIKELY(cures_local_on(s))) /* kept once the value reaches the client */
            req_schedule_b(&s->eng, r, q->t_resp_ns, EVK_LOCAL_PUT, it->version);
        lhist_add(&TK(s)->client_lat, q->t_resp_ns - q->t0_ns);
        if (q->flags & RQF_SAMPLED)
            trace_answer(s, r, q->flags & RQF_FALLBACK ? SRC_PREVIOUS : SRC_NODE, OUT_HIT,
                         it->version, q->t_resp_ns - q->t0_ns);
        health_hit(s, q->inst, q->node, q->t_resp_ns); /* a success when the reply is back */
        if (q->flags & RQF_FALLBACK) { /* warm the new owner with the old owner's copy */
            TK(s)->fallback_reads++;
            fill(s, r, it->version);
        }
        return;
    }
    if (lease_mode(s) && !(q->flags & RQF_FILL)) /* its first miss (client_get_resp) */
        q->lease = lease_grant(s, n, q->key);
    req_schedule_attempt(&s->eng, r, q->t_resp_ns, EVK_GET_RESP);
}

void client_get_resp(struct sim *s, uint32_t r, uint32_t b)
{
    struct req *q = R(s, r);
    if (!current(q, b))
        return;
    struct instance *in = &s->inst[q->inst];
    client_report_success(s, in, q->node);
    /* the read's first miss reply names the node it fills (and its lease);
     * a later one — its fallback ask's, or that of the GET a fenced
     * fallback ask was sent on to (client_moved, net.c) — does not, and
     * never falls back again */
    bool first_miss = !(q->flags & RQF_FILL);
    q->flags |= RQF_FILL;
    q->flags &= (uint8_t)~RQF_FAILED; /* a replica's timeout before it is not the outcome */
    if (first_miss) {
        q->fill_node = q->node;
        if (s->sc->clients.fallback_to_previous_owner) {
            uint32_t p = client_previous_owner(s, in, q->key, q->node);
            if (p != PLACE_NONE) {
                q->flags |= RQF_FALLBACK;
                client_send_get(s, r, p);
                return;
            }
        }
    }
    outcome(s, q, false);
    read_db(s, r);
}

/* A timeout, or an error reply from a full queue: the read asks the next
 * replica it has not asked, or it has missed. */
static void get_failed(struct sim *s, uint32_t r, bool rejected)
{
    struct req *q = R(s, r);
    q->rejected = rejected; /* its outcome in the request trace, if the database answers */
    if (rejected)
        TK(s)->cache_errors++;
    else
        TK(s)->timeouts++;
    client_report_failure(s, &s->inst[q->inst], q->node, q->t_get_ns,
                          rejected ? "queue full" : "timeout");
    if (q->flags & RQF_FILL) {
        /* the owner answered: a miss. Its previous owner (or the owner a
         * fenced fallback ask was sent on to) did not answer, so the read
         * is the owner's miss — the database, then a fill of the owner
         * (fill_node, set at the miss) — whatever on_timeout */
        outcome(s, q, false);
        read_db(s, r);
        return;
    }
    uint32_t replicas = cures_replicas(s, q->key);
    if (replicas > 1 && !(q->flags & (RQF_FALLBACK | RQF_GUTTER))) {
        uint32_t next = cures_next(s, r, s->inst[q->inst].view, replicas);
        if (next != PLACE_NONE) {
            q->flags |= RQF_FAILED;
            client_send_get(s, r, next);
            return;
        }
    }
    outcome(s, q, false);
    after_failure(s, r);
}

void client_timeout(struct sim *s, uint32_t r, uint32_t b)
{
    if ((uint8_t)b == R(s, r)->attempt && net_timeout_yields(s, r, b))
        return; /* a reply due now is in time: it goes first */
    if (current(R(s, r), b))
        get_failed(s, r, false);
}

void client_rejected(struct sim *s, uint32_t r, uint32_t b)
{
    if (current(R(s, r), b))
        get_failed(s, r, true);
}

/* A node answered MOVED (fencing): the instance adopts the node's epoch
 * unless it is frozen, and the operation goes to the owner named. */
void client_moved(struct sim *s, uint32_t r, uint32_t b)
{
    struct req *q = R(s, r);
    if (q->kind == RQ_READ && !current(q, b))
        return;
    client_adopt(s, q->inst, q->redirect_epoch);
    if (q->kind == RQ_READ) {
        /* to the owner named; a fallback ask the previous owner refused
         * goes there as an ordinary GET (a hit is the owner's, not a
         * fallback read; a miss, the read's miss: client_get_resp) */
        q->flags &= (uint8_t)~RQF_FALLBACK;
        client_send_get(s, r, q->redirect);
    } else {
        client_send_op(s, r, q->redirect, (enum req_kind)q->kind, q->version);
    }
}

/* ---- entry point ------------------------------------------------------------------------ */

void client_arrival(struct sim *s, int64_t t_ns, uint32_t inst, unsigned op, uint32_t key)
{
    TK(s)->requests++;
    uint32_t r = req_alloc(&s->eng);
    struct req *q = R(s, r);
    q->t0_ns = t_ns;
    q->key = key;
    q->inst = inst;
    q->flags = 0;
    q->attempt = 0;
    q->node = q->fill_node = PLACE_NONE;
    q->lease = 0;
    q->next_waiter = NO_WAITER;
    if (UNLIKELY(s->traces)) {
        const struct instance *in = &s->inst[inst];
        trace_arrival(s, r, op, in->epoch, in->view, in->prev_view);
    }
    if (op != WOP_GET)
        client_start_write(s, r, op == WOP_DELETE);
    else
        client_start_read(s, r);
    req_put(&s->eng, r);
}

/* ---- ticks ---------------------------------------------------------------------------- */

static double ms(double ns)
{
    return ns / 1e6;
}

void clients_tick_close(struct sim *s, struct tick_row *row)
{
    struct tick_acc *tk = TK(s);
    row->requests = tk->requests;
    row->reads = tk->reads;
    row->writes = tk->writes;
    row->hits = tk->hits;
    row->misses = tk->misses;
    row->hit_rate = row->hits + row->misses ? (double)row->hits / (double)(row->hits + row->misses)
                                            : NAN;
    row->client_p99_ms = tk->client_lat.n ? ms(lhist_quantile(&tk->client_lat, 0.99)) : NAN;
    row->client_mean_ms = tk->client_lat.n ? ms(lhist_mean(&tk->client_lat)) : NAN;
    row->timeouts = tk->timeouts;
    row->errors = tk->errors;
    row->cache_errors = tk->cache_errors;
    row->stale_reads = tk->stale_reads;
    row->stale_overwrites = tk->stale_overwrites;
    row->clobbers = tk->clobbers;
    row->fallback_reads = tk->fallback_reads;
    row->local_hits = tk->local_hits;
    row->local_stale_reads = tk->local_stale_reads;
    row->bounded_reroutes = tk->bounded_reroutes;
    row->cache_write_ops = tk->cache_write_ops;
    uint32_t emin = UINT32_MAX, emax = 0;
    for (uint32_t j = 0; j < s->n_inst; j++) {
        emin = MIN(emin, s->inst[j].epoch);
        emax = MAX(emax, s->inst[j].epoch);
    }
    row->epoch_min = emin;
    row->epoch_max = emax;
    memset(tk, 0, sizeof(*tk));
}

const char *clients_check(const struct sim *s, int64_t *open_reads)
{
    const struct req_pool *p = &s->eng.reqs;
    int64_t open = 0;
    uint32_t live = 0;
    for (uint32_t r = 0; r < p->n; r++) {
        const struct req *q = &p->r[r];
        if (!q->pending)
            continue;
        live++;
        open += q->kind == RQ_READ && !(q->flags & RQF_OUTCOME);
    }
    *open_reads = open;
    if (live != p->live)
        return "the count of live request records is wrong";
    for (uint32_t j = 0; j < s->n_inst; j++)
        if (membership_epoch((struct sim *)s, s->inst[j].epoch)->holders == 0)
            return "an instance holds an epoch whose holders count is zero";
    return NULL;
}

/* ---- slot migrations -------------------------------------------------------------------- */

/* An ASK reply (a slot being migrated, models/migrate.c): the operation
 * goes to the node named with ASKING, one more round trip; the instance
 * keeps its epoch (the slot is still the source's). */
void client_ask(struct sim *s, uint32_t r, uint32_t b)
{
    struct req *q = R(s, r);
    if (q->kind == RQ_READ && !current(q, b))
        return;
    q->asking = ASKING_NEXT;
    if (q->kind == RQ_READ)
        client_send_get(s, r, q->redirect);
    else
        client_send_op(s, r, q->redirect, (enum req_kind)q->kind, q->version);
}
