/*
 * node.c — a cache node: its store (models/store.c), its service queue
 * (models/fifo.c: `workers` servers, FIFO, `max_queue` waiting), its faults
 * and its per-tick counters.
 *
 * A request that reaches the node at t is admitted at t: its service time
 * (exponential or fixed, mean service_time × the node's slow factor at
 * that moment) is drawn from the node's own random stream and its start and
 * end follow from the queue. A node that is not up (crashed, removed, not
 * yet added) never answers. A crash drops everything queued and the whole
 * store; the incarnation number tells late events their work was lost.
 *
 * Prewarm: nodes present at time 0 with `prewarm` start holding what an LRU
 * holds in steady state, approximated by the most popular keys they own
 * (hot keys first, then by popularity rank) up to capacity, most popular
 * at the MRU end. With a TTL T and fill on miss, a key read λ times a
 * second is cached a share λT/(1+λT) of the time (each miss starts T of
 * presence, then 1/λ of absence on average): each key is put in with that
 * probability, with a remaining life uniform in (0, T] — the steady state
 * of that renewal process. (Writes, which also empty a key, are not
 * counted: with writes the first TTL of a run holds slightly more.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

int node_init(struct sim *s, struct node *n, uint32_t index, const char *id,
              const char *address, double weight, const struct cache_cfg *cfg, bool gutter)
{
    memset(n, 0, sizeof(*n));
    n->index = index;
    n->id = xstrdup(id);
    n->address = xstrdup(address ? address : id);
    n->weight = weight;
    n->cfg = *cfg;
    n->gutter = gutter;
    n->state = NODE_ABSENT;
    n->slow_factor = 1.0;
    n->half_rtt_ns = cfg->rtt_ns / 2;
    char name[300];
    snprintf(name, sizeof name, "service/%s", id);
    store_init(&n->store, &s->pool, index, cfg->capacity_bytes, cfg->capacity_items);
    if (fifo_init(&n->queue, cfg->workers, cfg->max_queue)
        || rng_init(&n->service, s->sc->seed, name))
        return -1;
    busy_init(&n->busy, s->tick_ns);
    u64map_init(&n->leases);
    return 0;
}

void node_deinit(struct node *n)
{
    free(n->id);
    free(n->address);
    fifo_deinit(&n->queue);
    rng_deinit(&n->service);
    if (n->leases.slots)
        u64map_deinit(&n->leases);
}

static int64_t draw_service(struct node *n)
{
    double mean = (double)n->cfg.service_ns * n->slow_factor;
    double v = n->cfg.service_dist == DIST_FIXED ? mean : rng_exp(&n->service, mean);
    int64_t ns = (int64_t)(v + 0.5); /* v >= 0: rounds to nearest */
    return ns > 0 ? ns : 1;
}

int node_submit(struct sim *s, struct node *n, int64_t t_ns, int64_t *done_ns)
{
    (void)s;
    if (n->state != NODE_UP)
        return 1;
    int64_t start;
    if (fifo_admit(&n->queue, t_ns, draw_service(n), &start, done_ns)) {
        n->tk.rejects++;
        return -1;
    }
    busy_add(&n->busy, start, *done_ns);
    return 0;
}

void node_crash(struct sim *s, struct node *n)
{
    n->state = NODE_CRASHED;
    n->incarnation++;
    s->inflight_total -= s->inflight[n->index];
    s->inflight[n->index] = 0;
    fifo_reset(&n->queue, s->now_ns);
    store_clear(&n->store);
    u64map_clear(&n->leases);
}

void node_restart(struct sim *s, struct node *n)
{
    (void)s;
    n->state = NODE_UP;
    n->incarnation++;
}

bool node_has_fault(const struct node *n)
{
    return n->state != NODE_UP || n->slow_factor != 1.0 || n->slow_latency_ns != 0;
}

const char *node_state_name(const struct sim *s, const struct node *n)
{
    (void)s;
    switch (n->state) {
    case NODE_ABSENT: return "absent";
    case NODE_REMOVED: return "removed";
    case NODE_CRASHED: return "crashed";
    case NODE_UP: break;
    }
    if (n->ejectors)
        return "ejected";
    if (n->slow_factor != 1.0 || n->slow_latency_ns)
        return "slow";
    return n->gutter ? "gutter" : "up";
}

/* Adds key to its owner's store if the owner prewarms and has room; returns
 * 1 if that node just became full. */
static int prewarm_key(struct sim *s, const struct placement *pl, uint32_t key, uint8_t *full)
{
    uint32_t owner = placement_lookup(pl, s->wl.ks.rec[key].pos);
    if (owner == PLACE_NONE || full[owner])
        return 0;
    struct node *n = &s->nodes[owner];
    int64_t ttl = s->sc->workload.ttl_ns, expire = 0;
    if (ttl) {
        double reads_per_s = s->sc->workload.qps * (1 - s->sc->workload.write_ratio) *
                             workload_key_prob(&s->wl, key);
        double lt = reads_per_s * (double)ttl / 1e9;
        if (rng_uniform(&s->prewarm_rng) >= lt / (1 + lt))
            return 0; /* absent in this key's steady state */
        expire = 1 + (int64_t)floor(rng_uniform(&s->prewarm_rng) * (double)ttl);
    }
    if (!store_append_cold(&n->store, key, s->wl.ks.rec[key].version,
                           keyspace_item_bytes(&s->wl.ks, key),
                           expire)) {
        full[owner] = 1;
        return 1;
    }
    return 0;
}

void node_prewarm(struct sim *s)
{
    struct epoch *e = membership_latest(s);
    const struct placement *pl = e->base->pl;
    uint8_t *full = xcalloc(s->n_nodes, 1);
    uint32_t open = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct node *n = &s->nodes[i];
        if (n->state == NODE_UP && !n->gutter && n->cfg.prewarm)
            open++;
        else
            full[i] = 1;
    }
    struct workload *w = &s->wl;
    /* hot keys first, most requested first (a sorted copy: the workload's
     * order is part of its random stream and must not change) */
    struct hot_entry *hot = xcalloc(w->n_hot + 1, sizeof(*hot));
    memcpy(hot, w->hot, w->n_hot * sizeof(*hot));
    for (size_t i = 0; i < w->n_hot; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < w->n_hot; j++)
            if (hot[j].share > hot[best].share)
                best = j;
        struct hot_entry t = hot[i];
        hot[i] = hot[best];
        hot[best] = t;
        if (open)
            open -= (uint32_t)prewarm_key(s, pl, hot[i].key, full);
    }
    free(hot);
    for (uint32_t r = 0; r < w->ks.n_keys && open; r++)
        open -= (uint32_t)prewarm_key(s, pl, r, full); /* ids are popularity ranks */
    free(full);
}
