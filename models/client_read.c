/*
 * client_read.c — the read path and the write path of a client operation.
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
 *                    misses wait for it and only the first fills
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
#include "models/client_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A client operation failed (counted once per operation). */
static void failed(struct sim *s, uint32_t r)
{
    TK(s)->errors++;
    if (R(s, r)->flags & RQF_SAMPLED)
        trace_answer(s, r, SRC_NONE, OUT_ERROR, UINT32_MAX, s->eng.now_ns - R(s, r)->t0_ns);
}

/* The read is answered by the database with version v. */
static void answered_by_db(struct sim *s, uint32_t r, uint32_t v)
{
    struct req *q = R(s, r);
    lhist_add(&TK(s)->client_lat, s->eng.now_ns - q->t0_ns);
    if (q->flags & RQF_SAMPLED)
        trace_answer(s, r, SRC_DB, q->flags & RQF_FAILED ? OUT_TIMEOUT : OUT_MISS, v,
                     s->eng.now_ns - q->t0_ns);
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
    int64_t wait = (int64_t)ceil((1.0 - in->tokens) * 1e9 / rate);
    if (wait > c->backfill_wait_ns)
        return -1;
    in->tokens -= 1.0;
    return wait;
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
    if (wait < 0) {
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

void client_backfill(struct sim *s, uint32_t r, uint32_t b)
{
    (void)b;
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
    } else if (q->kind == RQ_COPY) {
        mode = STORE_NEWER; /* a copy never replaces a newer version */
    } else {
        u64map_del(&n->leases, q->key); /* a write-through voids leases too */
    }
    int64_t now = s->eng.now_ns;
    int64_t ttl = (q->flags & RQF_GUTTER) ? s->sc->health.gutter_ttl_ns : s->sc->workload.ttl_ns;
    struct store_set_result res = store_set(&n->store, q->key, q->version,
                                            keyspace_item_bytes(&s->wl->ks, q->key),
                                            ttl ? now + ttl : 0, now, mode);
    if (q->kind == RQ_COPY)
        transfer_landed(s, r, res.stored);
    if (res.stored && q->version < db_version(s->db, q->key)) {
        TK(s)->stale_overwrites++;
        if (res.replaced && res.old_version > q->version)
            TK(s)->clobbers++;
        if (s->cl->stale_logged++ < STALE_LOG_MAX)
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
    client_send_op(s, r, q->fill_node, RQ_FILL, version);
}

/* In the fallback window, a write also invalidates the key at its owner in
 * the writer's previous epoch (a record of its own). */
static void invalidate_previous_owner(struct sim *s, const struct req *w, uint32_t current)
{
    const struct instance *in = &s->inst[w->inst];
    uint32_t p = client_previous_owner(s, in, w->key, current);
    if (p == PLACE_NONE)
        return;
    uint32_t r = req_alloc(&s->eng);
    struct req *q = R(s, r);
    req_clear(q);
    q->key = w->key;
    q->inst = w->inst;
    q->node = q->fill_node = PLACE_NONE;
    q->next_waiter = NO_WAITER;
    q->t0_ns = w->t0_ns;
    client_send_op(s, r, p, RQ_INVALIDATE, 0);
    req_put(&s->eng, r);
}

static void write_committed(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    uint32_t v = db_write_done(s, q->t_db_ns, q->key);
    if (q->flags & RQF_SAMPLED)
        trace_answer(s, r, SRC_DB, OUT_WRITE, v, s->eng.now_ns - q->t0_ns);
    transfers_on_write(s, q->key);
    uint8_t flags = 0;
    struct instance *in = &s->inst[q->inst];
    uint32_t n = client_route(s, in, q->key, &flags);
    if (n == PLACE_NONE)
        return;
    q->flags = (uint8_t)(flags | (q->flags & RQF_SAMPLED));
    client_send_op(s, r, n, s->sc->clients.write == WRITE_INVALIDATE ? RQ_INVALIDATE
                                                                      : RQ_WRITE_THROUGH, v);
    if (s->sc->clients.fallback_to_previous_owner && s->sc->clients.invalidate_previous_owner)
        invalidate_previous_owner(s, R(s, r), n);
}

void client_db_done(struct sim *s, uint32_t r, uint32_t b)
{
    (void)b;
    struct req *q = R(s, r);
    if (q->kind == RQ_WRITE) {
        lhist_add(&TK(s)->client_lat, s->eng.now_ns - q->t0_ns);
        write_committed(s, r);
        return;
    }
    db_read_done(s, q->t_db_ns);
    uint32_t v = db_version(s->db, q->key);
    answered_by_db(s, r, v);
    end_leader(s, r);
    for (uint32_t w = q->next_waiter; w != NO_WAITER;) { /* answer the waiters */
        uint32_t next = R(s, w)->next_waiter;
        answered_by_db(s, w, v);
        req_put(&s->eng, w);
        w = next;
    }
    q->next_waiter = NO_WAITER;
    fill(s, r, v);
}

void client_start_write(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    TK(s)->writes++;
    q->kind = RQ_WRITE;
    int64_t done;
    if (db_submit(s, &done)) {
        failed(s, r);
    } else {
        q->t_db_ns = s->eng.now_ns;
        req_schedule(&s->eng, r, done, EVK_DB_DONE);
    }
}

/* ---- the read path ---------------------------------------------------------------------- */

void client_start_read(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    TK(s)->reads++;
    q->kind = RQ_READ;
    uint8_t flags = 0;
    uint32_t nid = client_route(s, &s->inst[q->inst], q->key, &flags);
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
    struct node *n = &s->nodes[q->node];
    if (n->incarnation != q->incarnation) {
        /* the node crashed or left while the GET was queued: no reply */
        if (!(q->flags & RQF_LATE) && !s->net->arrival_events)
            req_schedule_attempt(&s->eng, r,
                                 MAX(s->eng.now_ns, q->t_get_ns + s->sc->clients.timeout_ns),
                                 EVK_TIMEOUT);
        return;
    }
    struct item *it = node_serve_get(s, n, q->key);
    if ((q->flags & RQF_LATE) || (uint8_t)b != q->attempt)
        return; /* the client has given up (or will, before this reply arrives) */
    if (it) {
        current(q, b);
        outcome(s, q, true);
        if (it->version < db_version(s->db, q->key))
            TK(s)->stale_reads++;
        lhist_add(&TK(s)->client_lat, q->t_resp_ns - q->t0_ns);
        if (q->flags & RQF_SAMPLED)
            trace_answer(s, r, q->flags & RQF_FALLBACK ? SRC_PREVIOUS : SRC_NODE, OUT_HIT,
                         it->version, q->t_resp_ns - q->t0_ns);
        client_report_success(s, &s->inst[q->inst], q->node);
        if (q->flags & RQF_FALLBACK) { /* warm the new owner with the old owner's copy */
            TK(s)->fallback_reads++;
            fill(s, r, it->version);
        }
        return;
    }
    if (lease_mode(s) && !(q->flags & RQF_FALLBACK))
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
    q->flags |= RQF_FILL;
    if (!(q->flags & RQF_FALLBACK)) {
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

/* A timeout, or an error reply from a full queue: the read has missed. */
static void get_failed(struct sim *s, uint32_t r, bool rejected)
{
    struct req *q = R(s, r);
    outcome(s, q, false);
    if (rejected)
        TK(s)->cache_errors++;
    else
        TK(s)->timeouts++;
    client_report_failure(s, &s->inst[q->inst], q->node, rejected ? "queue full" : "timeout");
    after_failure(s, r);
}

void client_timeout(struct sim *s, uint32_t r, uint32_t b)
{
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
    if (q->kind == RQ_READ)
        client_send_get(s, r, q->redirect);
    else
        client_send_op(s, r, q->redirect, (enum req_kind)q->kind, q->version);
}
