/*
 * net.c — delivering messages to cache nodes (see net.h).
 */
#include "models/net.h"

#include <assert.h>
#include <stdlib.h>

#include "models/cures.h"
#include "models/health.h"
#include "models/membership.h"
#include "models/node.h"
#include "models/trace.h"

/* ---- changes of a node's state (direct mode: see net.h) ---------------------------- */

/* A message waiting for a change of its node's state (direct mode). */
struct held {
    int64_t t_arrive;
    uint32_t a;              /* the request (a GET, an operation), or the round of a probe */
    uint32_t b;              /* a GET's tag (net_get_tag) */
    unsigned what;           /* NET_HELD_* */
};

struct net_changes {
    int64_t *t;              /* the times, in order */
    uint32_t n, cap, head;   /* head: the first still to come */
    struct held *held;       /* what waits for the next, in arrival order */
    uint32_t n_held, cap_held;
};

static void change_add(struct net_changes *c, int64_t t)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4;
        c->t = xrealloc(c->t, c->cap * sizeof(*c->t));
    }
    c->t[c->n++] = t;
}

static int cmp_time(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The nodes [*lo, *hi) whose state scenario event e changes (its start or
 * its end): the node it names, every node for a zone's crash (which nodes
 * the zone holds then is not known before), none for the other events. */
static void changed_nodes(const struct sim *s, const struct event_cfg *e, uint32_t *lo,
                          uint32_t *hi)
{
    *lo = *hi = 0;
    switch (e->kind) {
    case EV_CRASH_NODE:
    case EV_RESTART_NODE:
    case EV_SLOW_NODE:
    case EV_ADD_NODE:
    case EV_REMOVE_NODE: {
        int k = node_find(s, e->node);
        if (k >= 0) {
            *lo = (uint32_t)k;
            *hi = (uint32_t)k + 1;
        }
        break;
    }
    case EV_CRASH_ZONE:
        *hi = s->gutter_first; /* gutter nodes have no events */
        break;
    default:
        break;
    }
}

static void set_hold_from(struct sim *s, uint32_t k)
{
    const struct net_changes *c = &s->net->changes[k];
    s->nodes[k].hold_from_ns = c->head < c->n ? c->t[c->head] : INT64_MAX;
}

static void changes_create(struct sim *s)
{
    struct net *nt = s->net;
    uint32_t nodes = s->gutter_first; /* gutter nodes have no events */
    nt->changes = xcalloc(nodes + 1, sizeof(*nt->changes));
    for (size_t i = 0; i < s->sc->n_events; i++) {
        const struct event_cfg *e = &s->sc->events[i];
        uint32_t lo, hi;
        changed_nodes(s, e, &lo, &hi);
        for (uint32_t j = lo; j < hi; j++) {
            change_add(&nt->changes[j], e->at_ns);
            if (e->kind == EV_SLOW_NODE && e->for_ns) /* its end, scheduled at its start */
                change_add(&nt->changes[j], e->at_ns + e->for_ns);
        }
    }
    for (uint32_t k = 0; k < nodes; k++) {
        if (nt->changes[k].n > 1)
            qsort(nt->changes[k].t, nt->changes[k].n, sizeof(int64_t), cmp_time);
        set_hold_from(s, k);
    }
}

/* When the client gives up r's current GET (clients.timeout after sending it). */
static inline int64_t get_deadline(const struct sim *s, const struct req *q)
{
    return q->t_get_ns + s->sc->clients.timeout_ns;
}

/* Appends m to node's held messages; a held GET whose client gives up
 * before the change it now waits for, so before it arrives, has its
 * timeout scheduled now — once: a later hold finds the deadline past — as
 * when a direct GET will be late; it arrives timed (release_held). */
static void held_append(struct sim *s, uint32_t node, const struct held *m)
{
    struct net_changes *c = &s->net->changes[node];
    if (c->n_held == c->cap_held) {
        c->cap_held = c->cap_held ? 2 * c->cap_held : 16;
        c->held = xrealloc(c->held, c->cap_held * sizeof(*c->held));
    }
    c->held[c->n_held++] = *m;
    if (m->what != NET_HELD_GET || (uint8_t)m->b != req_at(&s->eng, m->a)->attempt)
        return;
    int64_t deadline = get_deadline(s, req_at(&s->eng, m->a));
    if (deadline >= s->eng.now_ns && deadline < s->nodes[node].hold_from_ns)
        net_schedule_timeout(s, m->a, node, deadline);
}

void net_hold(struct sim *s, uint32_t node, unsigned what, uint32_t a, uint32_t b,
              int64_t t_arrive)
{
    if (what != NET_HELD_PROBE)
        req_at(&s->eng, a)->pending++; /* as an event about it would; released by release_held */
    held_append(s, node, &(struct held){.t_arrive = t_arrive, .a = a, .b = b, .what = what});
}

static void get_arrive_at(struct sim *s, uint32_t r, uint32_t b, int64_t t_arrive, bool timed);
static void op_arrives(struct sim *s, uint32_t r, uint32_t node, int64_t t_arrive);

/* The change node k waited for has happened: what waited for it arrives
 * now, in the order it came, or waits again, reference kept, when it
 * arrives after the next change. */
static void release_held(struct sim *s, uint32_t k)
{
    struct net_changes *c = &s->net->changes[k];
    struct held *list = c->held;
    uint32_t n = c->n_held;
    c->held = NULL;
    c->n_held = c->cap_held = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct held *m = &list[i];
        if (net_hold_until(s, &s->nodes[k], m->t_arrive) >= 0) {
            held_append(s, k, m);
            continue;
        }
        switch (m->what) {
        case NET_HELD_GET: /* timed: its timeout was scheduled when it was held past it */
            get_arrive_at(s, m->a, m->b, m->t_arrive,
                          get_deadline(s, req_at(&s->eng, m->a)) < s->eng.now_ns);
            req_put(&s->eng, m->a);
            break;
        case NET_HELD_OP:
            op_arrives(s, m->a, k, m->t_arrive);
            req_put(&s->eng, m->a);
            break;
        case NET_HELD_PROBE:
            health_probe_held(s, k, m->a, m->t_arrive);
            break;
        default:
            assert(0);
        }
    }
    free(list);
}

void net_event_done(struct sim *s, const struct event_cfg *e)
{
    uint32_t lo, hi;
    changed_nodes(s, e, &lo, &hi);
    int64_t now = s->eng.now_ns;
    for (uint32_t j = lo; j < hi; j++) {
        struct net_changes *c = &s->net->changes[j];
        while (c->head < c->n && c->t[c->head] < now)
            c->head++; /* (none: each change is passed at its own event) */
        if (c->head < c->n && c->t[c->head] == now)
            c->head++; /* this one: another event at this instant passes its own */
        set_hold_from(s, j);
        if (c->n_held)
            release_held(s, j);
    }
}

int64_t net_hold_until(const struct sim *s, const struct node *n, int64_t t_arrive)
{
    int64_t h = n->hold_from_ns;
    return t_arrive < h || h < s->eng.now_ns ? -1 : h;
}

/* ---- the network ---------------------------------------------------------------- */

/* Direct delivery decides fencing when a message is sent, with the epochs
 * published by then; the node decides with those it knows when the message
 * arrives, published at least fence_delay before. The two agree when every
 * epoch the node knows at the arrival was published before the sending:
 * fence_delay longer than the message's rtt/2. Otherwise (reject with a
 * shorter fence_delay: the default 0 among them) messages are delivered by
 * arrival events, as forward always is. */
static bool needs_arrival_events(const struct sim *s)
{
    const struct scenario *sc = s->sc;
    if (sc->network.jitter_ns > 0 || sc->routing.fencing == FENCE_FORWARD)
        return true;
    return sc->routing.fencing == FENCE_REJECT
           && sc->routing.fence_delay_ns <= nodes_longest_rtt_ns(sc) / 2;
}

int net_create(struct sim *s)
{
    struct net *n = s->net = xcalloc(1, sizeof(*s->net));
    n->jitter_ns = s->sc->network.jitter_ns;
    n->arrival_events = needs_arrival_events(s);
    exp_stream_init(&n->jitter, s->sc->seed, "network", n->jitter_ns > 0 ? s->ahead : NULL);
    n->fail_due_ns = xmalloc((s->n_nodes + 1) * sizeof(*n->fail_due_ns));
    for (uint32_t i = 0; i <= s->n_nodes; i++)
        n->fail_due_ns[i] = INT64_MIN;
    changes_create(s);
    return 0;
}

void net_destroy(struct sim *s)
{
    if (!s->net)
        return;
    free(s->net->fail_due_ns);
    if (s->net->changes)
        for (uint32_t k = 0; k < s->gutter_first; k++) {
            free(s->net->changes[k].t);
            free(s->net->changes[k].held);
        }
    free(s->net->changes);
    free(s->net);
    s->net = NULL;
}

void net_schedule_timeout(struct sim *s, uint32_t r, uint32_t node, int64_t t_ns)
{
    s->net->fail_due_ns[node] = MAX(s->net->fail_due_ns[node], t_ns);
    req_schedule_attempt(&s->eng, r, t_ns, EVK_TIMEOUT);
}

bool net_failure_before(const struct sim *s, uint32_t node, int64_t t_ns)
{
    const struct net *nt = s->net;
    int64_t now = s->eng.now_ns, rtt = 2 * s->nodes[node].half_rtt_ns;
    return nt->arrival_events || nt->fail_due_ns[node] >= now
           || t_ns - now > MIN(rtt, s->sc->clients.timeout_ns);
}

/* One message's delay to or from node n: rtt/2, plus the jitter. */
static int64_t one_way(struct sim *s, const struct node *n)
{
    int64_t d = n->half_rtt_ns;
    if (s->net->jitter_ns)
        d += (int64_t)(exp_stream_draw(&s->net->jitter, (double)s->net->jitter_ns) + 0.5);
    return d;
}

int64_t net_reply_time(struct sim *s, const struct node *n, int64_t leaves_ns)
{
    return leaves_ns + one_way(s, n);
}

/* Fencing at node nid for a message of r arriving at t: the owner to send
 * it to instead, with the node's epoch in *epoch, or PLACE_NONE. A node that
 * is not up (crashed, removed) answers nothing, MOVED included. */
static uint32_t fence_slow(struct sim *s, const struct req *q, uint32_t nid, int64_t t,
                           uint32_t *epoch)
{
    if (s->nodes[nid].gutter || s->nodes[nid].state != NODE_UP || q->kind >= RQ_COPY
        || q->asking == ASKING_YES)
        return PLACE_NONE; /* copies, migrations and ASKING are never fenced */
    uint32_t known = membership_known_epoch(s, t);
    if (known <= q->epoch)
        return PLACE_NONE;
    uint32_t owner;
    uint32_t r = cures_replicas(s, q->key); /* a hot key's own replicas too */
    if (r <= 1) {
        owner = membership_owner(s, known, q->key);
        if (owner == nid || owner == PLACE_NONE)
            return PLACE_NONE;
    } else { /* with replicas a node answers for the keys it holds a replica of */
        uint32_t owners[PLACE_MAX_REPLICAS];
        uint32_t n = membership_owners(s, known, q->key, r, owners);
        for (uint32_t i = 0; i < n; i++)
            if (owners[i] == nid)
                return PLACE_NONE;
        if (!n)
            return PLACE_NONE;
        owner = owners[0];
        if (q->kind != RQ_READ) {
            /* a write's invalidation or write-through (or a fill): the
             * sender's epoch sent one to each of its owners; this one, for
             * its k-th owner that the known epoch dropped, goes to the k-th
             * owner the known epoch added — one its write missed — not to
             * the first, which had its own */
            uint32_t old[PLACE_MAX_REPLICAS], added[PLACE_MAX_REPLICAS], n_added = 0, k = 0;
            uint32_t m = membership_owners(s, q->epoch, q->key, r, old);
            for (uint32_t i = 0; i < n; i++)
                if (!placement_among(old, m, owners[i]))
                    added[n_added++] = owners[i];
            for (uint32_t j = 0; j < m && old[j] != nid; j++)
                k += !placement_among(owners, n, old[j]); /* dropped too */
            if (k < n_added)
                owner = added[k];
        }
    }
    *epoch = known;
    return owner;
}

static inline uint32_t fence(struct sim *s, const struct req *q, uint32_t nid, int64_t t,
                             uint32_t *epoch)
{
    if (LIKELY(s->sc->routing.fencing == FENCE_NONE))
        return PLACE_NONE;
    return fence_slow(s, q, nid, t, epoch);
}

void net_redirect(struct sim *s, uint32_t r, uint32_t to, uint32_t epoch, int64_t t_reply,
                  bool ask)
{
    struct req *q = req_at(&s->eng, r);
    q->redirect = to;
    q->redirect_epoch = epoch;
    if (q->kind == RQ_READ)
        q->t_resp_ns = t_reply; /* (net_timeout_yields) */
    if (ask) {
        s->net->asks++;
    } else {
        s->net->redirects++;
        s->net->moved++;
    }
    req_schedule_attempt(&s->eng, r, t_reply, ask ? EVK_ASK : EVK_MOVED);
}

/* The node answers MOVED: the reply reaches the client after one way back. */
static void moved(struct sim *s, uint32_t r, const struct node *n, int64_t t_arrive,
                  uint32_t owner, uint32_t epoch)
{
    net_redirect(s, r, owner, epoch, t_arrive + one_way(s, n), false);
}

/* Every message sent carries ASKING only right after an ASK reply. */
static inline void set_asking(struct req *q)
{
    q->asking = q->asking == ASKING_NEXT ? ASKING_YES : ASKING_NO;
}

/* ---- GETs ------------------------------------------------------------------------ */

/* Arrival mode: the GET of the request's current attempt leaves for node
 * nid at t, an EVK_GET_ARRIVE; in flight at nid from now (node_transit_*),
 * as a GET admitted when sent is, so a node's in-flight count (bounded
 * loads, least_loaded replicas) does not depend on the jitter. */
static void send_get_message(struct sim *s, uint32_t r, uint32_t nid, int64_t t)
{
    const struct node *n = &s->nodes[nid];
    node_transit_start(s, n);
    req_schedule_b(&s->eng, r, t + one_way(s, n), EVK_GET_ARRIVE,
                   net_get_tag(req_at(&s->eng, r)->attempt, nid, n->incarnation));
}

/* Direct mode, unless the GET's timeout is scheduled already (timed): when
 * a reply to r's GET — an error (queue full) or MOVED — is due at t_reply,
 * later than the client's deadline (rtt above clients.timeout), the client
 * gives up first: its timeout, at the deadline, closes the GET, and the
 * reply finds it closed — as the timeout scheduled when the GET left makes
 * it in arrival mode. */
static void timeout_first(struct sim *s, uint32_t r, uint32_t nid, int64_t t_reply, bool timed)
{
    int64_t deadline = get_deadline(s, req_at(&s->eng, r));
    if (!timed && t_reply > deadline)
        net_schedule_timeout(s, r, nid, deadline); /* a failure due: hits wait (fail_due_ns) */
}

/* The GET of attempt `attempt` reaches node nid at t_arrive (now, in
 * arrival mode). stale: the client gave up on this GET before it arrived
 * (and may be asking another replica now): the node still serves it,
 * unfenced, and nothing of the request's current GET changes. timed: its
 * timeout is scheduled already (arrival mode, or a GET held past its
 * deadline: hold_get). (One call of node_get for both: it stays inlined
 * here.) */
static void get_arrives(struct sim *s, uint32_t r, uint32_t nid, int64_t t_arrive,
                        uint32_t attempt, bool stale, bool timed)
{
    struct req *q = req_at(&s->eng, r);
    struct node *n = &s->nodes[nid];
    int64_t timeout = s->sc->clients.timeout_ns;
    uint32_t epoch, owner = stale ? PLACE_NONE : fence(s, q, nid, t_arrive, &epoch);
    if (owner != PLACE_NONE) {
        if (s->sc->routing.fencing == FENCE_REJECT) {
            timeout_first(s, r, nid, t_arrive + n->half_rtt_ns, timed);
            moved(s, r, n, t_arrive, owner, epoch);
            return;
        }
        if (UNLIKELY(s->net->moved_instead) && s->net->moved_instead(s, r, nid, true, &owner)) {
            moved(s, r, n, t_arrive, owner, membership_latest(s)->id); /* migrated away */
            return;
        }
        /* forward (arrival mode only): the node passes it on to the owner;
         * a fallback ask so passed on is an ordinary GET to the owner (as
         * after a MOVED: client_moved) */
        s->net->redirects++;
        q->node = owner;
        q->flags &= (uint8_t)~RQF_FALLBACK;
        if (q->flags & RQF_SAMPLED)
            trace_asked(s, r, owner); /* the nodes asked, forwarding included */
        send_get_message(s, r, owner, t_arrive);
        return;
    }
    if (LIKELY(!stale))
        q->node = nid;
    int64_t done, reply;
    int rc = node_get(s, n, t_arrive, &done, &reply);
    if (UNLIKELY(stale)) {
        if (rc == 0)
            req_schedule_b(&s->eng, r, done, EVK_GET_DONE,
                           net_get_tag(attempt, nid, n->incarnation));
        return;
    }
    if (rc == 1) { /* down: never answers; awaited until the client gives up */
        node_await_down(s, n, q->t_get_ns + timeout);
        if (!timed)
            net_schedule_timeout(s, r, nid, q->t_get_ns + timeout);
        return;
    }
    if (rc < 0) {
        int64_t t_reply = net_reply_time(s, n, t_arrive);
        timeout_first(s, r, nid, t_reply, timed);
        q->t_resp_ns = t_reply; /* (net_timeout_yields) */
        s->net->fail_due_ns[nid] = MAX(s->net->fail_due_ns[nid], t_reply);
        req_schedule_attempt(&s->eng, r, t_reply, EVK_REJECTED);
        return;
    }
    q->incarnation = n->incarnation;
    q->t_resp_ns = net_reply_time(s, n, reply);
    q->flags &= (uint8_t)~RQF_LATE;
    /* a reply at the deadline itself is in time (arrival mode: net_timeout_yields) */
    if (q->t_resp_ns - q->t_get_ns > timeout)
        q->flags |= RQF_LATE;
    req_schedule_b(&s->eng, r, done, EVK_GET_DONE, net_get_tag(q->attempt, nid, n->incarnation));
    if ((q->flags & RQF_LATE) && !timed)
        net_schedule_timeout(s, r, nid, q->t_get_ns + timeout);
}

/* Direct mode: r's GET, sent now, reaches nid at t_arrive, after a change
 * of the node's state: it waits for the change (net.h), in flight at nid
 * meanwhile, as in arrival mode; a failure may be due until its deadline.
 * False: it is admitted now. */
static __attribute__((noinline, cold)) bool hold_get(struct sim *s, uint32_t r, uint32_t nid,
                                                     int64_t t_arrive)
{
    struct req *q = req_at(&s->eng, r);
    const struct node *n = &s->nodes[nid];
    if (net_hold_until(s, n, t_arrive) < 0)
        return false;
    node_transit_start(s, n);
    s->net->fail_due_ns[nid] = MAX(s->net->fail_due_ns[nid], get_deadline(s, q));
    net_hold(s, nid, NET_HELD_GET, r, net_get_tag(q->attempt, nid, n->incarnation), t_arrive);
    return true;
}

void net_send_get(struct sim *s, uint32_t r, uint32_t nid)
{
    struct req *q = req_at(&s->eng, r);
    q->attempt++;
    q->node = nid;
    q->t_get_ns = s->eng.now_ns;
    set_asking(q);
    if (!s->net->arrival_events) {
        int64_t t_arrive = s->eng.now_ns + s->nodes[nid].half_rtt_ns;
        if (UNLIKELY(t_arrive >= s->nodes[nid].hold_from_ns) && hold_get(s, r, nid, t_arrive))
            return;
        get_arrives(s, r, nid, t_arrive, q->attempt, false, false);
        return;
    }
    q->t_resp_ns = INT64_MAX; /* no reply due yet (net_timeout_yields) */
    send_get_message(s, r, nid, s->eng.now_ns);
    /* every GET's, clients.timeout after it: their times rise as they are sent */
    req_schedule_attempt_fifo(&s->eng, r, s->eng.now_ns + s->sc->clients.timeout_ns, EVK_TIMEOUT);
}

/* Arrival mode: a GET's timeout, scheduled when the GET left, comes before
 * the events of a reply due at the deadline itself — which is in time: only
 * a reply later than clients.timeout is late. Such a timeout steps aside,
 * after the events queued for now, at most twice (the end of the GET's
 * service, then its reply, may both be due now), and the reply answers the
 * GET; a reply that never comes (the node crashed meanwhile) leaves the
 * timeout to fire after that. b: the timeout's payload (the attempt; bits
 * 8 and up, how often it stepped aside). */
bool net_timeout_yields(struct sim *s, uint32_t r, uint32_t b)
{
    const struct req *q = req_at(&s->eng, r);
    if (!s->net->arrival_events || q->t_resp_ns != s->eng.now_ns || b >> 8 >= 2)
        return false;
    req_schedule_b(&s->eng, r, s->eng.now_ns, EVK_TIMEOUT, b + 0x100);
    return true;
}

/* r's GET (tag b) reaches its node at t_arrive (now, in arrival mode);
 * timed: its timeout is scheduled already. */
static void get_arrive_at(struct sim *s, uint32_t r, uint32_t b, int64_t t_arrive, bool timed)
{
    const struct node *n = &s->nodes[net_tag_node(b)];
    node_transit_end(s, n, net_tag_incarnation_is(b, n->incarnation));
    /* a GET the client has given up on is still served; its reply is dropped */
    get_arrives(s, r, net_tag_node(b), t_arrive, b & 0xffu,
                (uint8_t)b != req_at(&s->eng, r)->attempt, timed);
}

void net_get_arrive(struct sim *s, uint32_t r, uint32_t b)
{
    get_arrive_at(s, r, b, s->eng.now_ns, true); /* timed when sent */
}

/* ---- fills, invalidations, write-throughs, copies --------------------------------- */

/* A fenced invalidation still deletes the node's own copy, through its
 * queue, besides the MOVED reply or the forward: the node no longer owns
 * the key, but it is the key's previous owner, and a fallback read
 * (clients.fallback_to_previous_owner) may still ask it for that copy. A
 * delete is always safe; left in place, the copy would miss every write of
 * the instances still on the old ring, and fallback reads would copy it,
 * stale, into the new owner. */
static void delete_here_too(struct sim *s, const struct req *q, struct node *n,
                            int64_t t_arrive)
{
    int64_t done;
    if (node_submit(s, n, t_arrive, &done))
        return; /* down or its queue full: nothing to delete */
    uint32_t r = req_alloc(&s->eng);
    struct req *d = req_at(&s->eng, r);
    req_clear(d);
    d->kind = RQ_INVALIDATE;
    d->key = q->key;
    d->inst = q->inst;
    d->epoch = q->epoch;
    d->t0_ns = q->t0_ns;
    d->node = n->index;
    d->fill_node = PLACE_NONE;
    d->incarnation = n->incarnation;
    req_schedule(&s->eng, r, done, EVK_NODE_OP_DONE);
    req_put(&s->eng, r);
}

static void op_arrives(struct sim *s, uint32_t r, uint32_t node, int64_t t_arrive)
{
    struct req *q = req_at(&s->eng, r);
    struct node *n = &s->nodes[node];
    uint32_t epoch, owner = fence(s, q, node, t_arrive, &epoch);
    if (owner != PLACE_NONE) {
        if (q->kind == RQ_INVALIDATE)
            delete_here_too(s, q, n, t_arrive);
        if (s->sc->routing.fencing == FENCE_REJECT) {
            moved(s, r, n, t_arrive, owner, epoch);
        } else if (UNLIKELY(s->net->moved_instead)
                   && s->net->moved_instead(s, r, node, false, &owner)) {
            moved(s, r, n, t_arrive, owner, membership_latest(s)->id); /* migrated away */
        } else {
            s->net->redirects++;
            q->node = owner;
            req_schedule(&s->eng, r, t_arrive + one_way(s, &s->nodes[owner]), EVK_OP_ARRIVE);
        }
        return;
    }
    int64_t done;
    int rc = q->kind == RQ_INVALIDATE || q->kind == RQ_COPY_READ || q->kind == RQ_MIGRATE_READ
                 ? node_submit(s, n, t_arrive, &done)
                 : node_set_submit(s, n, t_arrive, keyspace_item_bytes(&s->wl->ks, q->key), &done);
    unsigned kind = q->kind == RQ_COPY_READ      ? EVK_COPY_READ
                    : q->kind == RQ_MIGRATE_READ ? EVK_MIGRATE_READ
                    : q->kind == RQ_MIGRATE      ? EVK_MIGRATE_LAND
                                                 : EVK_NODE_OP_DONE;
    if (rc) {
        if (kind == EVK_MIGRATE_READ || kind == EVK_MIGRATE_LAND || q->kind == RQ_COPY_READ
            || q->kind == RQ_COPY) {
            /* the migration retries; a transfer stops waiting for the copy */
            q->flags |= RQF_FAILED;
            req_schedule(&s->eng, r, t_arrive, kind);
        }
        return; /* lost or refused: nothing changes at the node */
    }
    q->node = node;
    q->incarnation = n->incarnation;
    req_schedule(&s->eng, r, done, kind);
}

/* Direct mode: an operation reaching node at t_arrive, after a change of
 * the node's state, waits for it (net.h). False: it is admitted now. */
static __attribute__((noinline, cold)) bool hold_op(struct sim *s, uint32_t r, uint32_t node,
                                                    int64_t t_arrive)
{
    if (net_hold_until(s, &s->nodes[node], t_arrive) < 0)
        return false;
    req_at(&s->eng, r)->node = node;
    net_hold(s, node, NET_HELD_OP, r, 0, t_arrive);
    return true;
}

void net_send_op(struct sim *s, uint32_t r, uint32_t node)
{
    struct node *n = &s->nodes[node];
    set_asking(req_at(&s->eng, r));
    if (!s->net->arrival_events) {
        int64_t t_arrive = s->eng.now_ns + n->half_rtt_ns;
        if (UNLIKELY(t_arrive >= n->hold_from_ns) && hold_op(s, r, node, t_arrive))
            return;
        op_arrives(s, r, node, t_arrive);
        return;
    }
    req_at(&s->eng, r)->node = node;
    req_schedule(&s->eng, r, s->eng.now_ns + one_way(s, n), EVK_OP_ARRIVE);
}

void net_op_arrive(struct sim *s, uint32_t r)
{
    op_arrives(s, r, req_at(&s->eng, r)->node, s->eng.now_ns);
}

/* ---- probes ------------------------------------------------------------------------ */

int64_t net_probe_delay(struct sim *s, const struct node *n)
{
    return one_way(s, n);
}

void net_tick_close(struct sim *s, struct tick_row *row)
{
    row->redirects = s->net->redirects;
    row->moved_redirects = s->net->moved;
    row->ask_redirects = s->net->asks;
    s->net->redirects = s->net->moved = s->net->asks = 0;
}
