/*
 * client.c — client instances: routing, the read path and the write path.
 *
 * Read:  route the key with the instance's view -> GET to the node (rtt/2
 *        each way, through its queue) -> a hit returns; a miss reply reaches
 *        the client, which reads the database and then fills the node it
 *        asked, per clients.fill (set | add | versioned | lease | none).
 *        A reply later than clients.timeout is a timeout (counted for
 *        health); a full node queue is an error reply; either way the
 *        client then reads the database (on_timeout: db, no fill) or fails
 *        the read (on_timeout: error).
 * Write: commit at the database (version + 1), then invalidate or write
 *        through at the owner in the writer's view at that moment; the
 *        write completes at the commit, the cache operation follows it.
 *
 * Metrics are counted when the outcome is known: a hit when the node
 * serves it, a miss when the miss reply reaches the client, a timeout at
 * the timeout. Client latency is from the operation's start to its answer.
 *
 * A request record can be referred to by two events at once (a late GET
 * still being served while the client has timed out); `pending` counts
 * them and the record is freed when the last one is handled.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#define STALE_LOG_MAX 100 /* stale overwrites recorded one by one in events */

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
        in->view = view_get(s, 1, NULL);
        if (!in->view)
            return -1;
    }
    return 0;
}

void clients_deinit(struct sim *s)
{
    for (uint32_t j = 0; j < s->n_inst; j++) {
        free(s->inst[j].fails);
        free(s->inst[j].ejected);
        free(s->inst[j].held);
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
    if (epoch <= in->epoch)
        return; /* epochs only move forward */
    in->epoch = epoch;
    client_refresh_view(s, in);
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

/* The handling of one event about r is over. */
static void req_put(struct sim *s, uint32_t r)
{
    if (--R(s, r)->pending == 0)
        req_free(s, r);
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
    if (!take_token(s, &s->inst[q->inst])) {
        client_failed(s);
        return;
    }
    int64_t done;
    if (db_submit(s, &done)) {
        client_failed(s);
        return;
    }
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

/* ---- cache operations that follow the database -------------------------------------- */

static void send_node_op(struct sim *s, uint32_t r, enum req_kind kind, uint32_t version)
{
    struct req *q = R(s, r);
    struct node *n = &s->nodes[q->node];
    int64_t done;
    if (node_submit(s, n, s->now_ns + n->half_rtt_ns, &done))
        return; /* lost or refused: nothing changes at the node */
    if (kind != RQ_INVALIDATE)
        n->tk.sets++;
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
    if (res->replaced)
        sim_event(s, "stale_overwrite", n, "key %s: set v%u over cached v%u; database has v%u%s",
                  name, q->version, res->old_version, dbv,
                  res->old_version > q->version ? " (clobber)" : "");
    else
        sim_event(s, "stale_overwrite", n, "key %s: set v%u; database has v%u", name,
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
        return;
    }
    enum store_mode mode = STORE_SET;
    if (q->kind == RQ_FILL) {
        if (s->sc->clients.fill == FILL_ADD)
            mode = STORE_ADD;
        else if (s->sc->clients.fill == FILL_VERSIONED)
            mode = STORE_NEWER;
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
        q->node = n;
        q->flags = flags;
        send_node_op(s, r, s->sc->clients.write == WRITE_INVALIDATE ? RQ_INVALIDATE
                                                                     : RQ_WRITE_THROUGH, v);
        return;
    }
    d->reads++;
    s->tot.db_reads++;
    if ((q->flags & RQF_FILL) && s->sc->clients.fill != FILL_NONE && q->node != PLACE_NONE)
        send_node_op(s, r, RQ_FILL, s->wl.ks.rec[q->key].version);
}

/* ---- the read path ------------------------------------------------------------------- */

static void send_get(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    struct instance *in = &s->inst[q->inst];
    uint8_t flags = 0;
    uint32_t nid = route(s, in, q->key, &flags);
    q->node = nid;
    q->flags |= flags;
    if (nid == PLACE_NONE) {
        /* no node to ask: straight to the database, nothing to fill */
        s->tk.misses++;
        read_db(s, r);
        return;
    }
    struct node *n = &s->nodes[nid];
    int64_t t_arrive = s->now_ns + n->half_rtt_ns, done;
    int rc = node_submit(s, n, t_arrive, &done);
    if (rc == 1) { /* down: never answers */
        req_schedule(s, r, q->t0_ns + s->sc->clients.timeout_ns, EVK_TIMEOUT);
        return;
    }
    n->tk.requests++;
    n->gets_total++;
    s->gets_total++;
    if (rc < 0) {
        req_schedule(s, r, t_arrive + n->half_rtt_ns, EVK_REJECTED);
        return;
    }
    lhist_add(&n->tk.lat, done + n->slow_latency_ns - t_arrive);
    s->inflight[nid]++;
    s->inflight_total++;
    q->incarnation = n->incarnation;
    q->t_resp_ns = done + n->slow_latency_ns + n->half_rtt_ns;
    req_schedule(s, r, done, EVK_GET_DONE);
    if (q->t_resp_ns - q->t0_ns > s->sc->clients.timeout_ns) {
        q->flags |= RQF_LATE;
        req_schedule(s, r, q->t0_ns + s->sc->clients.timeout_ns, EVK_TIMEOUT);
    }
}

static void get_done(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    struct node *n = &s->nodes[q->node];
    if (n->incarnation != q->incarnation) {
        /* the node crashed or left while the GET was queued: no reply */
        if (!(q->flags & RQF_LATE))
            req_schedule(s, r, MAX(s->now_ns, q->t0_ns + s->sc->clients.timeout_ns), EVK_TIMEOUT);
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
        return;
    }
    req_schedule(s, r, q->t_resp_ns, EVK_GET_RESP);
}

static void get_resp(struct sim *s, uint32_t r)
{
    struct req *q = R(s, r);
    s->tk.misses++;
    health_success(s, &s->inst[q->inst], q->node);
    q->flags |= RQF_FILL;
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
    q->node = PLACE_NONE;
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
