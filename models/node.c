/*
 * node.c — a cache node: its store (models/store.c), its service queue
 * (models/fifo.c: `workers` servers, FIFO, `max_queue` waiting), its faults,
 * its per-tick counters and its count of GETs in flight.
 *
 * A request that reaches the node at t is admitted at t: its service time
 * (exponential or fixed, mean service_time × the node's slow factor at
 * that moment) is drawn from the node's own random stream and its start and
 * end follow from the queue. A node that is not up (crashed, removed, not
 * yet added) never answers. A crash drops everything queued and the whole
 * store; the incarnation number tells late events their work was lost, and
 * its history when (node_incarnation_end_ns: a reply the node sent before
 * its crash still arrives).
 *
 * Node indices are fixed for the whole run: the file's nodes in order,
 * then each new id an add_node event brings, in event order (a node removed
 * and added again keeps its index), then the gutter pool. Ids are unique
 * among them all; s->by_id lists the indices in id order, which is the
 * order anything done to every node at one instant takes (probe rounds,
 * the copy lists of staged joins), so that the file's order of the nodes
 * changes no result (only jump and the replicas of mod, jump, maglev and
 * slots follow membership order, by design).
 *
 * In flight: inflight[i] counts GETs sent to node i and not yet served —
 * on their way (admitted when sent, or, with arrival events, counted
 * from their sending to their arrival: node_transit_*), queued or in
 * service — and GETs that reached it while it was down (crashed or
 * removed) until their client's timeout: what a client counts outstanding
 * at a node, which
 * bounded loads cap and read_from: least_loaded compares — a dead node is
 * not the emptiest. A crash, restart, removal or return zeroes it (the
 * incarnation changes, so what was awaited is forgotten). Invariant:
 * inflight_total == the sum of inflight[] (nodes_check).
 *
 * Prewarm: nodes present at time 0 with `prewarm` start in their LRU's
 * steady state under the workload's requests, each key read and written as
 * a Poisson process of its own (the independent reference model): for every
 * key, its state at time 0 (held, live or expired; or deleted by a write)
 * and the time since its last request are drawn from that key's own
 * stationary process (pw_sample), and each node holds the most recent items
 * it owns, the longest run of them that fits, most recent at the MRU end —
 * which is exactly what an LRU holds (without a TTL; with one, the TTL state
 * is drawn as if nothing were evicted, while an evicted key comes back with
 * a fresh TTL: a cache too small for its keys starts with items a little
 * older than it will hold later). With routing.replicas, each key at every
 * replica. So the first tick's hit
 * rate is the steady state's, not that of the `capacity` most popular keys
 * (which an LRU does not hold). With a trace: the keys most requested in
 * the whole trace, up to capacity, most requested at the MRU end, and with
 * a TTL T each with the probability λT/(1+λT) of fill on miss (λ its mean
 * read rate), a remaining life uniform in (0, T].
 */
#include "models/node.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cures.h"
#include "models/workload.h"

/* ---- building --------------------------------------------------------------- */

static int node_init(struct sim *s, struct node *n, uint32_t index, const char *id,
                     const char *address, double weight, const char *zone,
                     const struct cache_cfg *cfg, bool gutter)
{
    memset(n, 0, sizeof(*n));
    n->index = index;
    n->id = xstrdup(id);
    n->address = xstrdup(address ? address : id);
    n->zone = xstrdup(zone ? zone : "");
    n->weight = weight;
    n->cfg = *cfg;
    n->gutter = gutter;
    n->state = NODE_ABSENT;
    n->slow_factor = 1.0;
    n->fault_end_ns = INT64_MIN;
    n->half_rtt_ns = cfg->rtt_ns / 2;
    n->hold_from_ns = INT64_MAX; /* net_create sets it */
    char name[300];
    snprintf(name, sizeof name, "service/%s", id);
    store_init(&n->store, s->pool, index, cfg->capacity_bytes, cfg->capacity_items);
    if (fifo_init(&n->queue, cfg->workers, cfg->max_queue))
        return -1;
    /* drawn ahead when there is something to draw, by the first nodes only
     * (a ring each: memory bounded however many nodes the scenario has) */
    bool ahead = cfg->service_ns && cfg->service_dist != DIST_FIXED
                 && index < AHEAD_MAX_NODE_CHANNELS;
    exp_stream_init(&n->service, s->sc->seed, name, ahead ? s->ahead : NULL);
    busy_init(&n->busy, s->tick_ns, s->sc->duration_ns);
    u64map_init(&n->leases);
    uint32_t ticks = node_adm_ticks(s->sc);
    n->tk.mask = ticks - 1;
    n->tk.later = calloc(ticks + 1, sizeof(*n->tk.later)); /* + 1: after the end */
    return n->tk.later ? 0 : -1;
}

static void node_deinit(struct node *n)
{
    free(n->id);
    free(n->address);
    free(n->zone);
    free(n->incarnation_ns);
    fifo_deinit(&n->queue);
    busy_deinit(&n->busy);
    free(n->tk.later);
    if (n->leases.slots)
        u64map_deinit(&n->leases);
}

static int find_among(const struct sim *s, const char *id, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(s->nodes[i].id, id))
            return (int)i;
    return -1;
}

int node_find(const struct sim *s, const char *id)
{
    return find_among(s, id, s->gutter_first);
}

struct id_index {
    const char *id;
    uint32_t i;
};

static int cmp_id(const void *a, const void *b)
{
    return strcmp(((const struct id_index *)a)->id, ((const struct id_index *)b)->id);
}

/* s->by_id: every index, sorted by id (unique: no ties; O(n log n), once). */
static void order_by_id(struct sim *s)
{
    struct id_index *v = xcalloc(s->n_nodes + 1, sizeof(*v));
    for (uint32_t i = 0; i < s->n_nodes; i++)
        v[i] = (struct id_index){s->nodes[i].id, i};
    qsort(v, s->n_nodes, sizeof(*v), cmp_id);
    s->by_id = xcalloc(s->n_nodes + 1, sizeof(*s->by_id));
    for (uint32_t k = 0; k < s->n_nodes; k++)
        s->by_id[k] = v[k].i;
    free(v);
}

static void node_present(struct node *n)
{
    n->state = NODE_UP;
    n->ever_present = true;
}

/* Zone ids: one per distinct name (in order of first appearance); a node
 * without a zone gets one of its own. Only equality of ids is ever used,
 * so numbering them again (a node back with another zone) changes nothing
 * else. */
static void number_zones(struct sim *s)
{
    for (uint32_t i = 0, next = 0; i < s->n_nodes; i++) {
        uint32_t j = s->nodes[i].zone[0] ? 0 : i; /* O(nodes) per named zone */
        while (j < i && strcmp(s->nodes[j].zone, s->nodes[i].zone))
            j++;
        s->zones[i] = j < i ? s->zones[j] : next++;
    }
}

int nodes_create(struct sim *s, char *err, size_t errlen)
{
    const struct scenario *sc = s->sc;
    s->pool = xcalloc(1, sizeof(*s->pool));
    if (item_pool_init(s->pool, s->wl->ks.rec, s->wl->ks.n_total)) {
        snprintf(err, errlen, "out of memory for %u keys", s->wl->ks.n_total);
        return -1;
    }
    uint32_t cap = (uint32_t)(sc->n_nodes + sc->n_events + sc->health.gutter_nodes + 1);
    s->nodes = xcalloc(cap, sizeof(*s->nodes));
    uint32_t n = 0;
    for (size_t i = 0; i < sc->n_nodes; i++, n++) {
        const struct node_cfg *c = &sc->nodes[i];
        if (node_init(s, &s->nodes[n], n, c->id, c->address, c->weight, c->zone, &c->cache,
                      false))
            goto oom;
        node_present(&s->nodes[n]);
    }
    for (size_t i = 0; i < sc->n_events; i++) {
        const struct event_cfg *e = &sc->events[i];
        if (e->kind != EV_ADD_NODE || find_among(s, e->node, n) >= 0)
            continue;
        if (node_init(s, &s->nodes[n], n, e->node, e->address, e->weight, e->zone, &e->cache,
                      false))
            goto oom;
        n++;
    }
    s->n_nodes = n;
    s->gutter_first = n;
    if (sc->health.on_eject == EJECT_GUTTER) {
        s->n_gutter = sc->health.gutter_nodes;
        for (uint32_t g = 0; g < s->n_gutter; g++) {
            char id[32];
            snprintf(id, sizeof id, "gutter-%u", g);
            if (find_among(s, id, n) >= 0) {
                snprintf(err, errlen, "a node is named %s, which the gutter pool needs", id);
                return -1;
            }
            if (node_init(s, &s->nodes[n], n, id, id, 1.0, NULL, &sc->cache, true))
                goto oom;
            node_present(&s->nodes[n]);
            n++;
        }
    }
    s->n_nodes = n;
    if (n >= UINT16_MAX) { /* the store keeps node numbers in 16 bits */
        snprintf(err, errlen, "at most %u nodes (with the gutter pool) are supported",
                 UINT16_MAX - 1);
        return -1;
    }
    s->inflight = xcalloc(s->n_nodes + 1, sizeof(*s->inflight));
    s->zones = xcalloc(s->n_nodes + 1, sizeof(*s->zones));
    number_zones(s);
    order_by_id(s);
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        s->nodes[i].tk.evictions0 = s->nodes[i].store.evictions;
        s->nodes[i].tk.expirations0 = s->nodes[i].store.expirations;
    }
    return 0;
oom:
    s->n_nodes = n + 1; /* so destroy frees the partly built one */
    snprintf(err, errlen, "out of memory building the nodes");
    return -1;
}

void nodes_destroy(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_nodes; i++)
        node_deinit(&s->nodes[i]);
    free(s->nodes);
    s->nodes = NULL;
    s->n_nodes = 0;
    free(s->inflight);
    s->inflight = NULL;
    free(s->zones);
    s->zones = NULL;
    free(s->by_id);
    s->by_id = NULL;
    if (s->pool)
        item_pool_deinit(s->pool);
    free(s->pool);
    s->pool = NULL;
}

/* ---- requests ------------------------------------------------------------------ */

int64_t nodes_longest_rtt_ns(const struct scenario *sc)
{
    int64_t rtt = sc->cache.rtt_ns; /* the gutter pool's */
    for (size_t i = 0; i < sc->n_nodes; i++)
        rtt = MAX(rtt, sc->nodes[i].cache.rtt_ns);
    for (size_t i = 0; i < sc->n_events; i++)
        if (sc->events[i].kind == EV_ADD_NODE)
            rtt = MAX(rtt, sc->events[i].cache.rtt_ns);
    return rtt;
}

uint32_t node_adm_ticks(const struct scenario *sc)
{
    int64_t rtt = nodes_longest_rtt_ns(sc);
    /* sent in tick i at the latest at its end, it arrives at most rtt/2 later */
    int64_t ahead = sc->tick_ns > 0 ? rtt / 2 / sc->tick_ns + 1 : 1;
    uint32_t ticks = 2;
    while (ticks <= (uint64_t)ahead && ticks < (1u << 30))
        ticks *= 2;
    return ticks;
}

/* The counts of a later tick's arrivals; past the ring, those of what
 * arrives after the run's end, never read: such a message is not counted,
 * as it would not be had it travelled as an event. */
static inline struct node_adm *adm_later(struct sim *s, struct node *n,
                                                              int64_t t_ns)
{
    if (t_ns >= s->sc->duration_ns)
        return &n->tk.later[n->tk.mask + 1];
    int64_t tick = t_ns / s->tick_ns;
    assert(tick > s->tick_index && tick - s->tick_index <= (int64_t)n->tk.mask);
    return &n->tk.later[tick & n->tk.mask];
}

/* The counts of the tick a message arriving at t_ns arrives in. */
static inline struct node_adm *adm_at(struct sim *s, struct node *n, int64_t t_ns)
{
    if (LIKELY(t_ns < s->tick_end_ns))
        return &n->tk.now;
    return adm_later(s, n, t_ns);
}

static int64_t draw_service(struct node *n)
{
    if (UNLIKELY(!n->cfg.service_ns))
        return 0; /* service_time 0: no service time, no draw */
    double mean = (double)n->cfg.service_ns * n->slow_factor;
    double v = n->cfg.service_dist == DIST_FIXED ? mean : exp_stream_draw(&n->service, mean);
    int64_t ns = (int64_t)(v + 0.5); /* v >= 0: rounds to nearest */
    return ns > 0 ? ns : 1;
}

int node_submit(struct sim *s, struct node *n, int64_t t_ns, int64_t *done_ns)
{
    if (n->state != NODE_UP)
        return 1;
    int64_t start;
    if (fifo_admit(&n->queue, t_ns, draw_service(n), &start, done_ns)) {
        adm_at(s, n, t_ns)->rejects++;
        return -1;
    }
    busy_add(&n->busy, start, *done_ns);
    return 0;
}

int node_get(struct sim *s, struct node *n, int64_t t_ns, int64_t *done_ns, int64_t *reply_ns)
{
    int rc = node_submit(s, n, t_ns, done_ns);
    if (rc == 1)
        return 1; /* down: never answers */
    struct node_adm *a = adm_at(s, n, t_ns);
    a->requests++;
    if (rc < 0)
        return -1;
    *reply_ns = *done_ns + n->slow_latency_ns;
    lhist_add(&a->lat, *reply_ns - t_ns);
    s->inflight[n->index]++;
    s->inflight_total++;
    return 0;
}

int node_set_submit(struct sim *s, struct node *n, int64_t t_ns, uint32_t bytes, int64_t *done_ns)
{
    int rc = node_submit(s, n, t_ns, done_ns);
    if (rc)
        return rc;
    adm_at(s, n, t_ns)->sets++;
    /* a fill into a full node evicts its LRU item when it lands, about a
     * round trip from now: fetch that item meanwhile */
    if (n->store.tail != STORE_NIL && !store_has_room(&n->store, bytes))
        __builtin_prefetch(&s->pool->items[n->store.tail], 1);
    return 0;
}

struct item *node_serve_get(struct sim *s, struct node *n, uint32_t key)
{
    assert(s->inflight[n->index] > 0 && s->inflight_total > 0);
    s->inflight[n->index]--;
    s->inflight_total--;
    struct item *it = store_get(&n->store, key, s->eng.now_ns, true);
    if (it)
        n->tk.hits++;
    return it;
}

void node_serve_redirect(struct sim *s, struct node *n)
{
    assert(s->inflight[n->index] > 0 && s->inflight_total > 0);
    s->inflight[n->index]--;
    s->inflight_total--;
}

void node_await_down(struct sim *s, struct node *n, int64_t until_ns)
{
    s->inflight[n->index]++;
    s->inflight_total++;
    sim_schedule(s, MAX(until_ns, s->eng.now_ns), EVK_DOWN_RELEASE, n->index, n->incarnation);
}

void node_down_release(struct sim *s, uint32_t node, uint32_t incarnation)
{
    if (s->nodes[node].incarnation != incarnation)
        return; /* zeroed since, by a restart, a removal or a return */
    assert(s->inflight[node] > 0 && s->inflight_total > 0);
    s->inflight[node]--;
    s->inflight_total--;
}

void node_transit_start(struct sim *s, const struct node *n)
{
    s->inflight[n->index]++;
    s->inflight_total++;
}

void node_transit_end(struct sim *s, const struct node *n, bool same_incarnation)
{
    if (!same_incarnation)
        return; /* zeroed since, by a crash, a restart, a removal or a return */
    assert(s->inflight[n->index] > 0 && s->inflight_total > 0);
    s->inflight[n->index]--;
    s->inflight_total--;
}

/* ---- membership and faults ------------------------------------------------------- */

static void forget_inflight(struct sim *s, struct node *n)
{
    assert(s->inflight_total >= s->inflight[n->index]);
    s->inflight_total -= s->inflight[n->index];
    s->inflight[n->index] = 0;
}

/* The node's next incarnation begins now (its history: node_incarnation_end_ns). */
static void next_incarnation(struct sim *s, struct node *n)
{
    uint32_t v = ++n->incarnation;
    if (v >= n->incarnation_cap) {
        n->incarnation_cap = MAX(8u, 2 * n->incarnation_cap);
        n->incarnation_ns = xrealloc(n->incarnation_ns,
                                     n->incarnation_cap * sizeof(*n->incarnation_ns));
    }
    n->incarnation_ns[v] = s->eng.now_ns;
}

int64_t node_incarnation_end_ns(const struct node *n, uint32_t v)
{
    assert(v <= n->incarnation);
    return v < n->incarnation ? n->incarnation_ns[v + 1] : INT64_MAX;
}

void node_crash(struct sim *s, struct node *n)
{
    n->state = NODE_CRASHED;
    next_incarnation(s, n);
    forget_inflight(s, n);
    /* the work it had queued is not done: its busy time goes from now */
    busy_cancel(&n->busy, fifo_busy_between(&n->queue, s->eng.now_ns, busy_tick_end(&n->busy)));
    fifo_reset(&n->queue, s->eng.now_ns);
    store_clear(&n->store);
    u64map_clear(&n->leases);
}

void node_restart(struct sim *s, struct node *n)
{
    if (n->ever_present)
        n->fault_end_ns = s->eng.now_ns; /* its absence (removed) was a fault */
    n->state = NODE_UP;
    next_incarnation(s, n);
    forget_inflight(s, n);
}

/* A node back after its removal is a new node: the add_node event's
 * address, weight, zone and cache settings (the file's `cache` defaults
 * and the event's own keys), nothing of the old one's but its index and
 * its random stream. It is empty (node_leave emptied it). Returns -1 when
 * a longer queue cannot be had. */
static int node_renew(struct sim *s, struct node *n, const char *address, double weight,
                      const char *zone, const struct cache_cfg *cfg)
{
    node_set_address(n, address);
    n->weight = weight;
    free(n->zone);
    n->zone = xstrdup(zone ? zone : "");
    number_zones(s);
    assert(!n->store.n_items);
    n->store.capacity_bytes = cfg->capacity_bytes;
    n->store.capacity_items = cfg->capacity_items;
    n->half_rtt_ns = cfg->rtt_ns / 2;
    if (cfg->workers != n->cfg.workers || cfg->max_queue != n->cfg.max_queue) {
        struct fifo q;
        if (fifo_init(&q, cfg->workers, cfg->max_queue))
            return -1;
        fifo_deinit(&n->queue);
        n->queue = q;
    }
    fifo_reset(&n->queue, s->eng.now_ns);
    n->cfg = *cfg; /* the service stream draws exponentials of mean 1, scaled at each use */
    n->slow_factor = 1.0; /* the old node's slowness left with it */
    n->slow_latency_ns = 0;
    return 0;
}

int node_join(struct sim *s, struct node *n, const char *address, double weight,
              const char *zone, const struct cache_cfg *cfg)
{
    if (n->state == NODE_UP) { /* back while its drain still ran: it never left */
        node_set_address(n, address);
        n->weight = weight;
        return 0;
    }
    if (n->ever_present && node_renew(s, n, address, weight, zone, cfg))
        return -1;
    if (n->ever_present)
        n->fault_end_ns = s->eng.now_ns; /* its absence (removed) was a fault */
    n->state = NODE_UP;
    next_incarnation(s, n);
    forget_inflight(s, n);
    n->ever_present = true;
    return 0;
}

void node_leave(struct sim *s, struct node *n)
{
    node_crash(s, n); /* everything it held or was doing is gone */
    n->state = NODE_REMOVED;
}

void node_set_address(struct node *n, const char *address)
{
    free(n->address);
    n->address = xstrdup(address ? address : n->id);
}

void node_set_weight(struct node *n, double weight)
{
    n->weight = weight;
}

static bool is_slow(const struct node *n)
{
    return n->slow_factor != 1.0 || n->slow_latency_ns != 0;
}

/* A slowness ends; its effects last until the node has served the work
 * queued meanwhile (drawn at the slow pace: GETs sent now wait behind it),
 * so a fault's end is then, for cascade removals (node_fault_since). */
static void slowness_ends(struct sim *s, struct node *n)
{
    n->fault_end_ns = MAX(s->eng.now_ns, fifo_idle_ns(&n->queue));
}

void node_slow(struct sim *s, struct node *n, double factor, int64_t latency_ns, uint32_t event)
{
    if (is_slow(n) && factor == 1.0 && !latency_ns)
        slowness_ends(s, n); /* slowed to normal speed */
    n->slow_factor = factor;
    n->slow_latency_ns = latency_ns;
    n->slow_event = event;
}

bool node_slow_end(struct sim *s, struct node *n, uint32_t event)
{
    if (n->slow_event != event || !is_slow(n))
        return false;
    n->slow_factor = 1.0;
    n->slow_latency_ns = 0;
    slowness_ends(s, n);
    return true;
}

bool node_has_fault(const struct node *n)
{
    return n->state != NODE_UP || is_slow(n);
}

bool node_fault_since(const struct node *n, int64_t t_ns)
{
    return node_has_fault(n) || n->fault_end_ns >= t_ns;
}

const char *node_state_name(const struct node *n)
{
    switch (n->state) {
    case NODE_ABSENT: return "absent";
    case NODE_REMOVED: return "removed";
    case NODE_CRASHED: return "crashed";
    case NODE_UP: break;
    }
    if (is_slow(n))
        return "slow";
    return n->gutter ? "gutter" : "up";
}

/* ---- ticks ------------------------------------------------------------------------ */

static double ms(double ns)
{
    return ns / 1e6;
}

void node_tick_close(struct sim *s, struct node *n, int64_t tick, int64_t len_ns,
                     struct node_tick_row *nr)
{
    (void)s;
    int64_t busy = busy_take(&n->busy, tick);
    nr->node = n->id;
    nr->state = node_state_name(n);
    struct node_adm *a = &n->tk.now;
    nr->requests = a->requests;
    n->gets_total += a->requests;
    nr->hits = n->tk.hits;
    nr->items = n->store.n_items;
    nr->bytes = (int64_t)n->store.bytes;
    nr->util = (double)busy / ((double)n->cfg.workers * (double)len_ns);
    nr->p99_ms = a->lat.n ? ms(lhist_quantile(&a->lat, 0.99)) : NAN;
    nr->evictions = (int64_t)(n->store.evictions - n->tk.evictions0);
    nr->expirations = (int64_t)(n->store.expirations - n->tk.expirations0);
    nr->sets = a->sets;
    nr->rejects = a->rejects;
    /* the next tick's: what has been sent to arrive in it */
    struct node_adm *next = &n->tk.later[(tick + 1) & n->tk.mask];
    a->requests = next->requests;
    a->sets = next->sets;
    a->rejects = next->rejects;
    lhist_reset(&a->lat);
    lhist_merge(&a->lat, &next->lat);
    next->requests = next->sets = next->rejects = 0;
    if (next->lat.n)
        lhist_reset(&next->lat);
    n->tk.hits = 0;
    n->tk.evictions0 = n->store.evictions;
    n->tk.expirations0 = n->store.expirations;
}

const char *nodes_check(const struct sim *s, bool stores)
{
    static const char *const bad_inflight = "in-flight GETs do not add up to their total";
    uint64_t sum = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        const struct node *n = &s->nodes[i];
        sum += s->inflight[i];
        const char *bad = stores ? store_check(&n->store) : NULL;
        if (bad)
            return bad;
    }
    return sum == s->inflight_total ? NULL : bad_inflight;
}

/* ---- prewarm ---------------------------------------------------------------------- */

/* The owners of key that prewarm (at most routing.replicas of them). */
static uint32_t prewarm_owners(struct sim *s, const struct placement *pl, uint32_t key,
                               uint32_t owners[PLACE_MAX_REPLICAS])
{
    uint64_t pos = s->wl->ks.rec[key].pos;
    uint32_t r = s->sc->routing.replicas;
    if (r <= 1) {
        owners[0] = placement_lookup(pl, pos);
        return owners[0] != PLACE_NONE;
    }
    return (uint32_t)placement_replicas(pl, pos, s->zones, owners, r); /* every replica */
}

/* ---- a trace's keys: the most requested first --------------------------------------------- */

/* Adds key to its owners' stores while they have room; returns how many
 * of them just became full. With a TTL the key is present with the
 * probability of its read rate's steady state, λT/(1+λT). */
static uint32_t prewarm_counted(struct sim *s, const struct placement *pl, struct rng *rng,
                                uint32_t key, uint8_t *full)
{
    const struct keyspace *ks = &s->wl->ks;
    uint32_t owners[PLACE_MAX_REPLICAS], n_owners = prewarm_owners(s, pl, key, owners);
    uint32_t open = 0;
    for (uint32_t i = 0; i < n_owners; i++)
        open += !full[owners[i]];
    if (!open)
        return 0;
    int64_t ttl = workload_ttl_ns(s->wl, key), expire = 0;
    if (ttl) {
        double lt = workload_read_rate(s->wl, key) * (double)ttl / 1e9;
        if (rng_uniform(rng) >= lt / (1 + lt))
            return 0; /* absent in this key's steady state */
        expire = 1 + (int64_t)floor(rng_uniform(rng) * (double)ttl);
    }
    uint32_t filled = 0;
    for (uint32_t i = 0; i < n_owners; i++) {
        uint32_t owner = owners[i];
        if (full[owner])
            continue;
        if (!store_append_cold(&s->nodes[owner].store, key, ks->rec[key].version,
                               keyspace_item_bytes(ks, key), expire)) {
            full[owner] = 1;
            filled++;
        }
    }
    return filled;
}

static void prewarm_trace(struct sim *s, const struct placement *pl, uint8_t *full,
                          uint32_t open, struct rng *rng)
{
    /* ids are ordered by request count */
    for (uint32_t k = 0; k < s->wl->ks.n_keys && open; k++)
        open -= prewarm_counted(s, pl, rng, k, full);
}

/* ---- synthetic requests: an LRU's steady state ----------------------------------------------- */

/* An item prewarm gives a node: its recency (seconds since it was last read
 * or set: the LRU's order; a float, within 1e-7 of it), its expiry (ns; 0:
 * none; negative: expired). 16 bytes. */
struct pw_item {
    float age;
    uint32_t key;
    int64_t expire;
};

/* The bits of a recency, in the order of the recencies (a float >= 0). */
static inline uint32_t pw_bits(float age)
{
    uint32_t u;
    memcpy(&u, &age, sizeof u);
    return u;
}

/* Room to sort in, shared by the nodes, and the item sizes. */
struct pw_sorter {
    struct pw_item *tmp;
    size_t cap;
    uint32_t *count;       /* 2^16 */
    const struct keyspace *ks;
};

/* Sorts items by age, oldest last: a stable radix sort on the bits of the
 * age, 16 at a time (the items come in a fixed order, so ties keep one). */
static void pw_sort(struct pw_sorter *so, struct pw_item *v, uint32_t n)
{
    if (n > so->cap) {
        so->cap = MAX((size_t)n, 2 * so->cap);
        free(so->tmp);
        so->tmp = xmalloc(so->cap * sizeof(*so->tmp));
    }
    uint32_t *count = so->count;
    struct pw_item *src = v, *dst = so->tmp;
    for (int shift = 0; shift < 32; shift += 16) {
        memset(count, 0, ((size_t)1 << 16) * sizeof(*count));
        for (uint32_t i = 0; i < n; i++)
            count[(pw_bits(src[i].age) >> shift) & 0xffff]++;
        if (n && count[(pw_bits(src[0].age) >> shift) & 0xffff] == n)
            continue; /* one digit for all: nothing to do */
        uint32_t sum = 0;
        for (uint32_t d = 0; d < (1u << 16); d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            dst[count[(pw_bits(src[i].age) >> shift) & 0xffff]++] = src[i];
        struct pw_item *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, (size_t)n * sizeof(*v));
}

/* A node's candidates: items more recent than `cut`, which every item at
 * least that old misses — the node holds the most recent items, up to the
 * longest run of them that fits (what an LRU holds: it evicts the oldest
 * until the newest fits). Kept unsorted, and cut down to those that fit
 * whenever they are half as many again: a radix sort of O(1) per item, in
 * sequential passes, and at most 1.5 times the node's items at once. */
struct pw_node {
    struct pw_item *v;
    uint32_t n, cap, keep; /* keep: how many fitted at the last cut (0: none yet) */
    float cut;
    uint64_t cap_bytes, cap_items;
    bool on;               /* the node prewarms */
};

/* Sorts the candidates by age and keeps the run that fits. */
static void pw_trim(struct pw_sorter *so, struct pw_node *h)
{
    pw_sort(so, h->v, h->n);
    uint64_t bytes = 0;
    uint32_t k = 0;
    for (; k < h->n; k++) {
        bytes += keyspace_item_bytes(so->ks, h->v[k].key);
        if ((h->cap_items && k + 1 > h->cap_items) || (h->cap_bytes && bytes > h->cap_bytes))
            break;
    }
    if (k < h->n) {
        h->cut = h->v[k].age; /* it does not fit: nor does anything older */
        h->n = k;
    }
    h->keep = MAX(k, 1024);
}

static void pw_offer(struct pw_sorter *so, struct pw_node *h, const struct pw_item *x,
                     uint32_t bytes)
{
    if (x->age >= h->cut || (h->cap_bytes && bytes > h->cap_bytes))
        return; /* too old, or larger than the node: never stored */
    if (!h->keep) /* the first cut: once the node could be full */
        h->keep = (uint32_t)MIN(h->cap_items ? h->cap_items : h->cap_bytes / bytes + 1,
                                UINT32_MAX / 4);
    uint32_t most = h->keep + h->keep / 2 + 1024; /* then cut down to those that fit */
    if (h->n == h->cap) {
        h->cap = MIN(h->cap ? 2 * h->cap : 1024, MAX(most, h->n + 1));
        h->v = xrealloc(h->v, (size_t)h->cap * sizeof(*h->v));
    }
    h->v[h->n++] = *x;
    if (h->n >= most)
        pw_trim(so, h);
}

/* Whether a node holds key's item at time 0, in the steady state of the
 * key's own requests: Poisson reads at r and writes at wr a second (the
 * independent reference model), a read that misses filling, a write
 * deleting the item (through: setting it), an item living ttl_ns (0:
 * forever) and expiring lazily — an expired item stays in its place in the
 * LRU until it is found or reaches the end. Its states, with their shares
 * of time: live, m = (1 − e^(−wr T)) / wr (T while nothing writes); expired
 * and still held, e^(−wr T) / (r + wr) (a life ends by its TTL with
 * probability e^(−wr T), and the expired item waits for the next request);
 * deleted by a write (invalidate only), wr (the two others) / r. Without
 * fills (`fill: none`) only a write-through stores the item: with
 * invalidation nothing is ever held; written through, an item that expired
 * and is then found by a read is dropped and stays out until the next
 * write, e^(−wr T) r / (r + wr) / wr. When held: *age, the time since it
 * was last read or set (what orders an LRU), and *expire, its expiry (0:
 * none; below 0: expired). */
static bool pw_sample(struct rng *g, double r, double wr, bool fills, bool through,
                      int64_t ttl_ns, double *age, int64_t *expire)
{
    *expire = 0;
    if (!fills && (!through || wr <= 0))
        return false; /* nothing ever stores it */
    if (r <= 0 && (!through || wr <= 0))
        return false; /* never filled */
    if (!ttl_ns) { /* the last request: a read (held), or a write (held when through) */
        if (!through && rng_uniform(g) * (r + wr) >= r)
            return false;
        *age = rng_exp(g, 1 / (r + wr));
        return true;
    }
    double T = (double)ttl_ns / 1e9;
    double m = wr > 0 ? -expm1(-wr * T) / wr : T;
    double held = exp(-wr * T) / (r + wr);
    double gone = !through ? wr * (m + held) / r
                  : fills  ? 0
                           : exp(-wr * T) * r / (r + wr) / wr;
    double z = m + held + gone, u = rng_uniform(g) * z;
    if (!(z < INFINITY) || u >= m + held) /* (z: a key read less than once in 1e300 s) */
        return false; /* deleted by a write, not read since */
    double x = r > 0 ? rng_exp(g, 1 / r) : INFINITY; /* back to the last read */
    if (u < m) { /* live, filled or set e ago (no write since, so e is Exp(wr) below T) */
        double v = rng_uniform(g);
        double e = wr > 0 ? -log1p(v * expm1(-wr * T)) / wr : v * T;
        *age = fmin(e, x);
        int64_t left = (int64_t)ceil((T - e) * 1e9);
        *expire = left < 1 ? 1 : left > ttl_ns ? ttl_ns : left;
        return true;
    }
    /* expired d ago, nothing since; before, a whole life of T without writes */
    double d = rng_exp(g, 1 / (r + wr));
    *age = d + fmin(T, x);
    *expire = -1 - (int64_t)fmin(d * 1e9, 1e18);
    return true;
}

static int cmp_hot_key(const void *a, const void *b)
{
    const struct hot_entry *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* One key's reads and writes a second now, each key's item drawn for its
 * owners, kept where it is recent enough. */
static void pw_key(struct sim *s, const struct placement *pl, struct rng *g,
                   struct pw_sorter *so, struct pw_node *cand, uint32_t key, double r, double wr)
{
    double age;
    int64_t expire;
    if (!pw_sample(g, r, wr, s->sc->clients.fill != FILL_NONE,
                   s->sc->clients.write == WRITE_THROUGH, workload_ttl_ns(s->wl, key), &age,
                   &expire))
        return;
    uint32_t owners[PLACE_MAX_REPLICAS], n = prewarm_owners(s, pl, key, owners);
    struct pw_item x = {(float)age, key, expire};
    uint32_t bytes = keyspace_item_bytes(&s->wl->ks, key);
    for (uint32_t i = 0; i < n; i++)
        if (cand[owners[i]].on)
            pw_offer(so, &cand[owners[i]], &x, bytes);
}

static void prewarm_steady(struct sim *s, const struct placement *pl, const uint8_t *full,
                           struct rng *g)
{
    const struct workload *w = s->wl;
    const struct request_draw *d = w->rd;
    struct pw_node *cand = xcalloc(s->n_nodes, sizeof(*cand));
    struct pw_sorter so = {NULL, 0, xmalloc(((size_t)1 << 16) * sizeof(uint32_t)), &w->ks};
    for (uint32_t i = 0; i < s->n_nodes; i++)
        if (!full[i]) {
            cand[i].on = true;
            cand[i].cut = INFINITY;
            cand[i].cap_bytes = s->nodes[i].store.capacity_bytes;
            cand[i].cap_items = s->nodes[i].store.capacity_items;
        }
    /* requests a second now (a cycle's rate at time 0), reads and writes */
    double rate = workload_rate(w, 0);
    double reads = rate * (1 - d->write_ratio), writes = rate * d->write_ratio;
    /* the hot keys by id, to add their shares in one pass */
    struct hot_entry *hot = xcalloc(d->n_hot + 1, sizeof(*hot));
    memcpy(hot, d->hot, d->n_hot * sizeof(*hot));
    qsort(hot, d->n_hot, sizeof(*hot), cmp_hot_key);
    size_t h = 0;
    for (uint32_t k = 0; k < w->ks.n_total; k++) {
        if ((k & 0xffff) == 0 && s->opt.stop && *s->opt.stop)
            break; /* interrupted: the run stops before its first request */
        double p = 0;
        if (k < w->ks.n_keys)
            p = (1 - d->hot_total) * workload_rank_prob(w, w->key_rank ? w->key_rank[k] : k);
        bool split = false;
        for (; h < d->n_hot && hot[h].key <= k; h++)
            if (hot[h].key == k) {
                uint32_t first;
                split = split || cures_split(s, k, &first) > 1;
                p += hot[h].share;
            }
        if (!split) /* a split key's reads go to its copies (below), never to itself */
            pw_key(s, pl, g, &so, cand, k, reads * p, writes * p);
    }
    /* the copies of split hot keys: a read asks one, a write reaches them all */
    for (size_t j = 0; j < d->n_hot; j++) {
        uint32_t first, copies = cures_split(s, hot[j].key, &first);
        if (copies <= 1 || (j && hot[j].key == hot[j - 1].key))
            continue;
        double p = workload_key_prob(w, hot[j].key);
        for (uint32_t c = 0; c < copies; c++)
            pw_key(s, pl, g, &so, cand, first + c, reads * p / copies, writes * p);
    }
    free(hot);
    /* each node's items, most recent first (the MRU end) */
    const struct keyspace *ks = &w->ks;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct pw_node *hp = &cand[i];
        pw_trim(&so, hp);
        for (uint32_t j = 0; j < hp->n; j++)
            if (!store_append_cold(&s->nodes[i].store, hp->v[j].key,
                                   ks->rec[hp->v[j].key].version,
                                   keyspace_item_bytes(ks, hp->v[j].key), hp->v[j].expire))
                break;
        free(hp->v);
        hp->v = NULL;
    }
    free(so.tmp);
    free(so.count);
    free(cand);
}

void nodes_prewarm(struct sim *s, const struct placement *pl)
{
    uint8_t *full = xcalloc(s->n_nodes, 1);
    uint32_t open = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct node *n = &s->nodes[i];
        if (n->state == NODE_UP && !n->gutter && n->cfg.prewarm)
            open++;
        else
            full[i] = 1;
    }
    struct rng rng;
    if (open && !rng_init(&rng, s->sc->seed, "prewarm")) {
        if (!s->wl->trace)
            prewarm_steady(s, pl, full, &rng);
        else if (s->sc->clients.fill != FILL_NONE) /* by read counts: none when reads never fill */
            prewarm_trace(s, pl, full, open, &rng);
        rng_deinit(&rng);
    }
    free(full);
}
