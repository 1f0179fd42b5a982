/*
 * estimate.c — the cost of a run, from the scenario alone (see estimate.h).
 *
 * Each figure is an estimate meant to be within a small factor, erring
 * high: it exists to turn away `keys: 1000000000` or `qps: 1e15` before they
 * spend minutes and gigabytes, not to predict a run to the byte.
 *
 *   memory  = keys × (position, chain, version, name, size)
 *           + items the caches can hold × an item (with the pool's doubling),
 *             at most what prewarm and the requests can store and a copy
 *             of each key at each node it can live on (cached_items);
 *             prewarm's sorting room for the items it gives
 *           + the clients' local caches (per key, and their items)
 *           + nodes × (queues, meters, histograms: a node's per tick to come)
 *           + placements (views) × their size: points and their bucket
 *             and owner tables (ring, ketama, bounded), a maglev table of
 *             4-byte entries, slots' table; 1 view, or 3 when epochs follow
 *             the first, plus under client health (rehash) one the
 *             instances' ejections share and, with later epochs and
 *             fallback_to_previous_owner, one they keep of the previous
 *             (at most: one each per instance); and a ring build's
 *             sorting room once
 *           + requests in flight × (a record and its events): the rate
 *             times the client's waits (a timeout per GET it may send),
 *             plus the room of the queues that will likely fill: every
 *             node's whose share of the highest rate is 80% of what it
 *             serves or more, the largest other node's (one node slowed,
 *             or a hot key's), the database's. A queue grows, by doubling,
 *             only with a backlog; every queue full at once, and a view
 *             of its own for every instance, is the worst case
 *             (memory_worst_bytes), said beside a refusal
 *           + ticks × a tick point (the summary keeps one per tick)
 *           + the rows waiting to be written (a wall second's worth)
 *   requests = ∫ qps dt over the run (set_qps steps and ramps included; a
 *              daily cycle adds at most amplitude × qps × period / π); with
 *              a trace, the trace's requests (file size / 24 for
 *              oracle_general, lines counted in the first 8 MiB and scaled
 *              by the size for csv), the share of them before `duration`
 *   keys     = workload.keys; with a trace, its distinct keys counted over
 *              its first 2 GiB (csv: 512 MiB) and carried past by Heaps'
 *              law (models/trace_estimate.c), and about 100 bytes each while the
 *              trace is read (its table, counts, ids, the sort)
 *   events   ≈ 4 per request (a miss: served, reply, database, fill)
 *            + central probes: 2 per member per probe_interval
 *   rows     = ticks × (2 + nodes + min(instances, 8)) + sampled requests:
 *              a tick row, a node_ticks row per node, a views row per
 *              distinct view (at most the instances; counted as at most 8),
 *              and one more for the events and the rest
 *   time     = duration + the longest a value can reach past it: a full
 *              node queue of the slowest service (an exponential draw is
 *              below 40 × its mean), a full database queue, timeouts,
 *              retry_after, propagation, TTLs, `for`s.
 */
#include "sim/estimate.h"

#include <math.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "models/node.h"
#include "models/placement/placement.h"
#include "models/trace_reader.h"

#define EXP_TAIL 40.0            /* an exponential draw stays below 40 × its mean */
#define BYTES_PER_KEY 28.0       /* key_rec 16 + name 4 + size 4 + slack */
#define BYTES_PER_ITEM 80.0      /* struct item 40, ×2 for the pool's doubling */
#define BYTES_PER_NODE 16384.0   /* node, lhist, busy meter, rng, maps */
#define BYTES_PER_POINT 24.0     /* a point of rendezvous, slots: member records */
#define BYTES_PER_CPOINT 20.0    /* continuum: pos 8, node 4, member 4, next_other 4 */
#define BYTES_PER_POINT_BUILD 32.0 /* a continuum's build, beside it: the points to sort
                                      (24) and their positions (8) */
#define BYTES_PER_MAGLEV_ENTRY 4.0 /* a maglev table entry: a node index (uint32_t) */
#define BYTES_PER_MEMBER 64.0    /* a placement's member record and a build's per-member
                                    arrays (maglev: offset, skip, next, credit, share) */
#define BYTES_PER_INFLIGHT 160.0 /* request record 72 + its events, ×2 for doubling */
#define BUSY_LOAD 0.8            /* a node offered this share of what it serves builds a queue */
#define BYTES_PER_TICK_POINT 128.0 /* 64, ×2 for the array's doubling */
#define BYTES_PER_ROW 90.0       /* SQLite, with indexes */
#define EVENTS_PER_REQUEST 4.0
#define FIXED_BYTES (16.0 * 1024 * 1024)
#define BYTES_PER_TRACE_KEY 100.0 /* key_rec, sizes, ids, counts, rank map, the first pass's
                                     table (32) and sort (16), a csv key's name */
#define TRACE_PEAK_FACTOR 4.0    /* a trace's busiest moments over its mean rate */
#define BYTES_PER_PREWARM 48.0   /* prewarm's candidates (16, up to 1.5 times a node's items)
                                    and the room it sorts them in */
#define BYTES_PER_LOCAL_KEY 16.0 /* the local caches' per-key chain heads */
#define ROWS_PER_WALL_SECOND 1e6 /* rows a second of wall time records, at most */

/* Bytes of a continuum of n points (models/placement/place_continuum.c):
 * the points, a bucket per point and 4 to 8 owner slices of 16 bytes a
 * point, rounded to powers of two, each table at most 2^20 entries. */
static double continuum_cost(double n)
{
    double nbucket = 2, nowner;
    while (nbucket < n && nbucket < 1 << 20)
        nbucket *= 2;
    nowner = fmin(4 * nbucket, 1 << 20);
    return n * BYTES_PER_CPOINT + nbucket * 4 + nowner * 16;
}

/* Bytes of one placement under algo (vnodes: the ring's), at most; *build:
 * what building one needs beside it for a while (a continuum's points to
 * sort). */
static double view_cost(const struct scenario *sc, place_algo algo, double vnodes,
                        double n_nodes, double total_weight, double *build)
{
    double points = 0;
    *build = 0;
    switch (algo) {
    case PLACE_RING:
    case PLACE_BOUNDED:
        points = vnodes * total_weight + n_nodes;
        *build = points * BYTES_PER_POINT_BUILD;
        return continuum_cost(points) + n_nodes * BYTES_PER_MEMBER;
    case PLACE_KETAMA:
        points = PLACE_KETAMA_POINTS * total_weight + n_nodes;
        *build = points * BYTES_PER_POINT_BUILD;
        return continuum_cost(points) + n_nodes * BYTES_PER_MEMBER;
    case PLACE_MAGLEV: /* the table, whatever the nodes */
        return (double)sc->routing.table_size * BYTES_PER_MAGLEV_ENTRY
               + n_nodes * BYTES_PER_MEMBER;
    case PLACE_SLOTS:
        return (PLACE_SLOT_COUNT / 4.0 + n_nodes) * BYTES_PER_POINT;
    default:
        return n_nodes * BYTES_PER_POINT;
    }
}

/* The largest placement the run builds: under the routing, and under each
 * set_routing's (its algorithm or vnodes may make larger ones); *build:
 * the most a build needs beside it. */
static double view_cost_max(const struct scenario *sc, double n_nodes, double total_weight,
                            double *build)
{
    place_algo algo = sc->routing.algorithm;
    double vnodes = sc->routing.vnodes, b;
    double most = view_cost(sc, algo, vnodes, n_nodes, total_weight, build);
    for (size_t i = 0; i < sc->n_events; i++) {
        const struct routing_change *r = &sc->events[i].routing;
        if (sc->events[i].kind != EV_SET_ROUTING)
            continue;
        algo = r->has_algorithm ? r->algorithm : algo;
        vnodes = r->has_vnodes ? r->vnodes : vnodes;
        most = fmax(most, view_cost(sc, algo, vnodes, n_nodes, total_weight, &b));
        *build = fmax(*build, b);
    }
    return most;
}

/* Whether the run may publish an epoch after the first: a membership,
 * routing or slot change, or a central ejection. */
static bool publishes(const struct scenario *sc)
{
    if (sc->health.mode == HEALTH_CENTRAL)
        return true;
    for (size_t i = 0; i < sc->n_events; i++)
        switch (sc->events[i].kind) {
        case EV_ADD_NODE:
        case EV_REMOVE_NODE:
        case EV_SET_ADDRESS:
        case EV_SET_WEIGHT:
        case EV_SET_VNODES:
        case EV_SET_ROUTING:
        case EV_MIGRATE_SLOTS:
            return true;
        default:
            break;
        }
    return false;
}

/* The most items a cache can hold. */
static double cache_items(const struct cache_cfg *c, double keys, double item_bytes)
{
    double cap = c->capacity_items ? (double)c->capacity_items
                                   : (double)c->capacity_bytes / fmax(1.0, item_bytes);
    return fmin(cap, keys);
}

/* How far past `duration` a value can be set by one node config. */
static double node_time(const struct cache_cfg *c, double factor, double latency_ns)
{
    double service = (double)c->service_ns * factor * EXP_TAIL;
    return service * ((double)c->max_queue / c->workers + 1) + latency_ns + (double)c->rtt_ns;
}

struct node_acc {
    double n, weight, items, bytes, queue_time;
    double prewarm_items; /* of items, those nodes present at time 0 are given at the start */
    double slots;      /* requests the queues hold at once: max_queue + workers, summed */
    double qps_per_weight; /* the highest rate over the weights (0: not known yet) */
    double busy_slots; /* of slots, those of nodes offered BUSY_LOAD of their service */
    double idle_slots_max; /* the largest of the other nodes' */
    double rtt;        /* the longest round trip */
    const char *time_key;
};

static void add_node_cfg(struct node_acc *a, const struct scenario *sc, const char *id,
                         const struct cache_cfg *c, double weight, double keys, double item_bytes,
                         bool at_start)
{
    double factor = 1, latency = 0;
    for (size_t i = 0; i < sc->n_events; i++) {
        const struct event_cfg *e = &sc->events[i];
        if (e->kind == EV_SLOW_NODE && id && e->node && !strcmp(e->node, id)) {
            factor = fmax(factor, e->factor);
            latency = fmax(latency, (double)e->latency_ns);
        }
    }
    double items = cache_items(c, keys, item_bytes);
    a->n++;
    a->weight += weight;
    a->items += items;
    if (at_start && c->prewarm)
        a->prewarm_items += items;
    /* the arrival counts of the ticks to come (models/node.h); BYTES_PER_NODE has one */
    a->bytes += BYTES_PER_NODE + 8.0 * c->workers
                + (double)node_adm_ticks(sc) * (double)sizeof(struct node_adm);
    double slots = (double)c->max_queue + c->workers;
    double served_qps = c->service_ns > 0 ? c->workers * 1e9 / ((double)c->service_ns * factor)
                                          : INFINITY;
    a->slots += slots;
    if (a->qps_per_weight * weight >= BUSY_LOAD * served_qps)
        a->busy_slots += slots;
    else
        a->idle_slots_max = fmax(a->idle_slots_max, slots);
    a->rtt = fmax(a->rtt, (double)c->rtt_ns);
    double t = node_time(c, factor, latency);
    if (t > a->queue_time) {
        a->queue_time = t;
        a->time_key = factor > 1 ? "cache.service_time × slow_node.factor × cache.max_queue"
                                 : "cache.service_time × cache.max_queue";
    }
}

static void estimate_nodes(const struct scenario *sc, double keys, double item_bytes,
                           struct node_acc *a)
{
    for (size_t i = 0; i < sc->n_nodes; i++)
        add_node_cfg(a, sc, sc->nodes[i].id, &sc->nodes[i].cache, sc->nodes[i].weight, keys,
                     item_bytes, true);
    for (size_t i = 0; i < sc->n_events; i++)
        if (sc->events[i].kind == EV_ADD_NODE)
            add_node_cfg(a, sc, sc->events[i].node, &sc->events[i].cache, sc->events[i].weight,
                         keys, item_bytes, false);
    if (sc->health.on_eject == EJECT_GUTTER)
        for (uint32_t g = 0; g < sc->health.gutter_nodes; g++)
            add_node_cfg(a, sc, NULL, &sc->cache, 1.0, keys, item_bytes, false);
}

/* A rate that set_qps events change: a step, or a ramp from `from` at t0
 * to `to` at t1 (ns). */
struct rate_piece {
    double from, to, t0, t1;
};

static double piece_at(const struct rate_piece *p, double t)
{
    return t >= p->t1 ? p->to : p->from + (p->to - p->from) * (t - p->t0) / (p->t1 - p->t0);
}

/* ∫ of the rate over [a, b] (requests; times in ns). In seconds before
 * the product, halves before the sum: a rate near DBL_MAX times
 * nanoseconds would overflow where the requests do not. */
static double piece_integral(const struct rate_piece *p, double a, double b)
{
    if (b <= a)
        return 0;
    double mid = fmin(fmax(p->t1, a), b); /* the ramp's part ends here */
    return (piece_at(p, a) / 2 + piece_at(p, mid) / 2) * ((mid - a) / 1e9)
           + p->to * ((b - mid) / 1e9);
}

/* Client operations over the run, and the highest rate; rate_key: the key
 * that sets it (workload.qps, or the set_qps of a higher rate). */
static double total_requests(const struct scenario *sc, double *max_qps, char *rate_key,
                             size_t n)
{
    struct rate_piece p = {sc->workload.qps, sc->workload.qps, 0, 0};
    double t = 0, total = 0, end = (double)sc->duration_ns;
    *max_qps = p.to;
    snprintf(rate_key, n, "workload.qps");
    for (size_t i = 0; i < sc->n_events; i++) {
        const struct event_cfg *e = &sc->events[i];
        if (e->kind != EV_SET_QPS || (double)e->at_ns >= end)
            continue;
        double at = (double)e->at_ns;
        total += piece_integral(&p, t, at);
        p = (struct rate_piece){piece_at(&p, at), e->qps, at, at + (double)e->over_ns};
        t = at;
        if (e->qps > *max_qps)
            snprintf(rate_key, n, "events.%zu.set_qps", e->file_index);
        *max_qps = fmax(*max_qps, e->qps);
    }
    total += piece_integral(&p, t, end);
    const struct diurnal_cfg *d = &sc->workload.diurnal;
    if (d->amplitude > 0) { /* the cycle's excess over its mean, at most */
        total += d->amplitude * *max_qps * (fmin((double)d->period_ns / M_PI, end) / 1e9);
        *max_qps *= 1 + d->amplitude;
    }
    return total;
}

/* The same for a trace, from a sample of it; *keys: its distinct keys. */
static double trace_requests(const struct scenario *sc, double *max_qps, double *keys)
{
    struct trace_estimate te;
    trace_reader_estimate(&sc->workload.trace, &te);
    double span_s = te.span_s * sc->workload.trace.time_scale;
    double played = fmin(1.0, ((double)sc->duration_ns / 1e9) / span_s);
    *keys = fmax(1.0, te.keys);
    *max_qps = te.requests / span_s * TRACE_PEAK_FACTOR;
    return te.requests * played;
}

/* The longest any per-event time (`for`) reaches. */
static double longest_for(const struct scenario *sc)
{
    double m = 0;
    for (size_t i = 0; i < sc->n_events; i++)
        m = fmax(m, (double)sc->events[i].for_ns);
    return m;
}

/* The longest any gradual change (set_weight, set_vnodes) takes: its last
 * step comes (steps - 1) x every after it. */
static double longest_steps(const struct scenario *sc)
{
    double m = 0;
    for (size_t i = 0; i < sc->n_events; i++) {
        const struct event_cfg *e = &sc->events[i];
        if (e->kind == EV_SET_WEIGHT || e->kind == EV_SET_VNODES)
            m = fmax(m, ((double)e->steps - 1) * (double)e->every_ns);
    }
    return m;
}

/* Keys a staged transfer of the event (warm, drain, migrate) copies a
 * second; 0 for an event without one. */
static double transfer_rate(const struct event_cfg *e)
{
    return e->warm.rate + e->drain.rate + e->migrate.rate;
}

/* The most replicas a read can ask in turn (a key's own cure, detection). */
static double read_replicas(const struct scenario *sc)
{
    double r = sc->routing.replicas;
    for (size_t i = 0; i < sc->workload.n_hot_keys; i++)
        r = fmax(r, sc->workload.hot_keys[i].replicas);
    for (size_t i = 0; i < sc->n_events; i++)
        if (sc->events[i].kind == EV_HOT_KEY)
            r = fmax(r, sc->events[i].replicas);
    if (sc->clients.hot_key_detection.threshold > 0)
        r = fmax(r, sc->clients.hot_key_detection.replicas);
    return fmax(r, 1);
}

/* Request records alive at once, likely; *worst: at most. A client waits
 * for a GET at most `timeout`, and asks at most every replica plus a
 * redirect and a previous owner before the database; the records its
 * messages, fills and invalidations keep alive after that are in a queue
 * (whose room is counted once: the busy nodes' and the largest other's
 * likely, every node's at most) or on the wire (rate × a round trip).
 * Coalesced reads also wait for the database, and backfill_mode: wait for
 * a token. */
static double inflight_requests(const struct scenario *sc, const struct node_acc *nodes,
                                double max_qps, double requests, double *worst)
{
    const struct db_cfg *db = &sc->database;
    const struct client_cfg *cl = &sc->clients;
    double replicas = read_replicas(sc), gets = replicas + 2;
    double wire_ns = 2 * (nodes->rtt + 2 * EXP_TAIL * (double)sc->network.jitter_ns);
    double wait_ns = gets * ((double)cl->timeout_ns + wire_ns) + (replicas + 1) * wire_ns;
    if (cl->coalesce) /* the whole database queue ahead, served at full speed, twice over */
        wait_ns += (double)db->service_ns * (2 * (double)db->max_queue / db->workers + EXP_TAIL);
    if (cl->backfill_qps > 0 && cl->backfill_mode == BACKFILL_WAIT)
        wait_ns += (double)cl->backfill_wait_ns;
    double rate = max_qps;
    for (size_t i = 0; i < sc->n_events; i++) /* a transfer's copies */
        rate += transfer_rate(&sc->events[i]);
    double db_slots = (double)db->max_queue + db->workers;
    double flying = fmin(rate * (wait_ns / 1e9), requests * gets);
    *worst = flying + nodes->slots + db_slots;
    return flying + nodes->busy_slots + nodes->idle_slots_max + db_slots;
}

/* Items held at once, at most: what the caches hold, and no more than the
 * copies the run can make — prewarm gives each key to its owners (at most
 * routing.replicas: `owned` copies in all), each client operation stores at
 * most a copy per replica it reaches, a transfer as many as prewarm — nor
 * than a copy of each key at each node it can live on: its replicas, the
 * node an ejection rehashes it to, one more, a gutter node, and one more
 * for each event (each step of a gradual one) that may move it (a node
 * holds a key once: a request for a key it holds stores nothing new). */
static double cached_items(const struct scenario *sc, const struct node_acc *nodes,
                           double keys, double owned, double requests)
{
    double made = owned + requests * (read_replicas(sc) + 1);
    double homes = read_replicas(sc) + 2 + (sc->health.on_eject == EJECT_GUTTER);
    for (size_t i = 0; i < sc->n_events; i++) {
        const struct event_cfg *e = &sc->events[i];
        if (transfer_rate(e) > 0)
            made += owned;
        homes += e->kind == EV_SET_WEIGHT || e->kind == EV_SET_VNODES ? fmax(e->steps, 1) : 1;
    }
    return fmin(nodes->items, fmin(made, keys * fmin(homes, fmax(nodes->n, 1))));
}

void run_cost_estimate(const struct scenario *sc, struct run_cost *c)
{
    memset(c, 0, sizeof(*c));
    const struct workload_cfg *w = &sc->workload;
    double keys = (double)w->keys + (double)w->n_hot_keys + (double)sc->n_events;
    double item_bytes = (double)w->value_bytes + 1;
    double max_qps;
    if (w->trace.path) {
        c->requests = trace_requests(sc, &max_qps, &keys);
        snprintf(c->rate_key, sizeof c->rate_key, "the trace's rate (raise workload.trace.time_scale)");
        item_bytes = fmin(item_bytes, 64); /* the trace's sizes are not known yet: err high */
        c->key_bytes = keys * BYTES_PER_TRACE_KEY;
    } else {
        c->requests = total_requests(sc, &max_qps, c->rate_key, sizeof c->rate_key);
        c->key_bytes = keys * BYTES_PER_KEY;
    }

    struct node_acc nodes = {0};
    estimate_nodes(sc, keys, item_bytes, &nodes); /* the weights, then the busy queues */
    nodes = (struct node_acc){.qps_per_weight = max_qps / fmax(nodes.weight, 1e-300)};
    estimate_nodes(sc, keys, item_bytes, &nodes);
    double owned = keys * sc->routing.replicas; /* a copy of each key at each of its owners */
    c->item_bytes = cached_items(sc, &nodes, keys, owned, c->requests) * BYTES_PER_ITEM
                    + fmin(nodes.prewarm_items, owned) * BYTES_PER_PREWARM;
    double inst = sc->clients.instances;
    c->node_bytes = nodes.bytes + inst * nodes.n * 8.0;

    /* the views alive at once: the epoch in use, and when later epochs are
     * published the one before it and the one being built. Under client
     * health with on_eject: rehash an instance that has ejected nodes routes
     * with a view of its own, shared by every instance that ejected the
     * same nodes (models/membership.c view_get): likely one more (the
     * instances eject the node that fails), at most one per instance; and
     * with fallback_to_previous_owner, once later epochs come, it keeps
     * its own view of the previous epoch: likely one more, at most one per
     * instance (otherwise the previous view is the epoch's, counted). A
     * build needs more beside the view it makes, once at a time. */
    double build, own = 0, own_worst = 0;
    bool pub = publishes(sc);
    if (sc->health.mode == HEALTH_CLIENT && sc->health.on_eject == EJECT_REHASH) {
        bool prev = pub && sc->clients.fallback_to_previous_owner;
        own = 1 + prev;
        own_worst = inst * (1 + prev);
    }
    c->views = (pub ? 3 : 1) + own;
    c->view_each_bytes = view_cost_max(sc, nodes.n, nodes.weight, &build);
    c->view_bytes = c->views * c->view_each_bytes + build;

    double worst;
    c->inflight_bytes = inflight_requests(sc, &nodes, max_qps, c->requests, &worst)
                        * BYTES_PER_INFLIGHT;

    /* the clients' local caches: a pool of their own, filled one request at a time */
    const struct local_cache_cfg *lc = &sc->clients.local_cache;
    if (lc->capacity_items)
        c->client_bytes = keys * BYTES_PER_LOCAL_KEY
                          + fmin(inst * fmin((double)lc->capacity_items, keys), c->requests)
                                * BYTES_PER_ITEM;
    if (sc->clients.hot_key_detection.threshold > 0)
        c->client_bytes += keys * 4; /* a read count per key */

    c->ticks = ceil((double)sc->duration_ns / (double)sc->tick_ns);
    c->series_bytes = c->ticks * BYTES_PER_TICK_POINT;
    /* the `requests` table (none sampled: none, however many requests) */
    c->sampled_rows = sc->output.sample_requests > 0 ? c->requests * sc->output.sample_requests : 0;
    c->rows = c->ticks * (2 + nodes.n + fmin(inst, 8)) + c->sampled_rows;
    c->db_bytes = c->rows * BYTES_PER_ROW;
    /* rows wait in memory until the next write to the file, about once a second of wall
     * time: at most what a second of simulation produces */
    c->series_bytes += fmin(c->rows, ROWS_PER_WALL_SECOND) * BYTES_PER_ROW;
    double rest = FIXED_BYTES + c->key_bytes + c->item_bytes + c->node_bytes + c->view_bytes
                  + c->client_bytes + c->series_bytes;
    c->memory_bytes = rest + c->inflight_bytes;
    c->memory_worst_bytes = rest + worst * BYTES_PER_INFLIGHT
                            + (own_worst - own) * c->view_each_bytes; /* sums: inf stays inf */

    c->events = c->requests * EVENTS_PER_REQUEST;
    if (sc->health.mode == HEALTH_CENTRAL)
        c->probe_events = 2 * nodes.n * (double)sc->duration_ns
                          / (double)sc->health.probe_interval_ns;
    c->events += c->probe_events + c->ticks;

    /* the latest time: duration plus the longest reach past it */
    const struct db_cfg *db = &sc->database;
    double db_time = (double)db->service_ns * EXP_TAIL * ((double)db->max_queue / db->workers + 1);
    struct { double ns; const char *key; } reach[] = {
        {nodes.queue_time, nodes.time_key},
        {db_time, "database.service_time × database.max_queue"},
        {(double)sc->clients.timeout_ns, "clients.timeout"},
        {(double)sc->health.retry_after_ns, "health.retry_after"},
        {(double)sc->health.propagation_delay_ns * 1.5, "health.propagation_delay"},
        {(double)sc->health.probe_interval_ns, "health.probe_interval"},
        {(double)sc->health.gutter_ttl_ns, "health.gutter_ttl"},
        {(double)w->ttl_ns, "workload.ttl"},
        {longest_for(sc), "an event's `for`"},
        {longest_steps(sc), "a set_weight's or set_vnodes' `every` × `steps`"},
    };
    c->max_time_ns = (double)sc->duration_ns;
    c->time_key = "duration";
    double top = 0;
    for (size_t i = 0; i < ARRAY_LEN(reach); i++) {
        c->max_time_ns += reach[i].ns;
        if (reach[i].ns > top && reach[i].key) {
            top = reach[i].ns;
            if (top > (double)sc->duration_ns)
                c->time_key = reach[i].key;
        }
    }
}

double machine_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

void format_bytes(double b, char *buf, size_t n)
{
    const char *unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    size_t u = 0;
    if (!isfinite(b)) { /* a rate near DBL_MAX: no count of bytes says it */
        snprintf(buf, n, "1e+308 B or more");
        return;
    }
    while (b >= 1000 && u + 1 < ARRAY_LEN(unit)) {
        b /= 1000;
        u++;
    }
    /* past 10^6 EB in exponent notation: %.0f of 10^100 would fill buf
     * with digits and cut the unit off */
    snprintf(buf, n, b >= 1e6 ? "%.3g %s" : b < 10 && u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* "about 3.2e+12", or past a double's range "1e+308 or more": a count
 * for messages (never "inf"). */
static void format_count(double x, char *buf, size_t n)
{
    snprintf(buf, n, isfinite(x) ? "about %.3g" : "1e+308 or more", x);
}

/* The largest memory term, to name the key to change. */
static void memory_key(const struct run_cost *c, char *buf, size_t n)
{
    char rate[128];
    snprintf(rate, sizeof rate, "%s or clients.timeout (requests in flight)", c->rate_key);
    struct { double v; const char *key; } t[] = {
        {c->key_bytes, "workload.keys (with a trace: its distinct keys)"},
        {c->item_bytes, "cache.capacity (or capacity_items) and the number of nodes"},
        {c->node_bytes, "the number of nodes and clients.instances"},
        {c->view_bytes, "routing.vnodes (or table_size) and clients.instances"},
        {c->inflight_bytes, rate},
        {c->client_bytes, "clients.local_cache.capacity_items or clients.instances"},
        {c->series_bytes, "tick (fewer, longer ticks) or duration, or output.sample_requests"},
    };
    size_t best = 0;
    for (size_t i = 1; i < ARRAY_LEN(t); i++)
        if (t[i].v > t[best].v)
            best = i;
    snprintf(buf, n, "%s", t[best].key);
}

enum run_cost_verdict run_cost_judge(const struct run_cost *c, bool force, double memory_limit,
                                     double disk_limit, struct strbuf *msg)
{
    enum run_cost_verdict v = COST_OK;
    char a[96], b[32], key[160];
    if (c->max_time_ns >= RUN_TIME_LIMIT_NS) {
        sb_printf(msg, "simulated time could reach %.3g s, past the %.3g s (about 146 years) a "
                       "run can represent; lower %s\n",
                  c->max_time_ns / 1e9, RUN_TIME_LIMIT_NS / 1e9, c->time_key);
        v = COST_IMPOSSIBLE;
    }
    if (memory_limit > 0 && c->memory_bytes > memory_limit) {
        format_bytes(c->memory_bytes, a, sizeof a);
        format_bytes(memory_limit, b, sizeof b);
        memory_key(c, key, sizeof key);
        if (c->memory_worst_bytes > 1.1 * c->memory_bytes) { /* a worst case worth saying */
            char w[32];
            format_bytes(c->memory_worst_bytes, w, sizeof w);
            snprintf(a + strlen(a), sizeof a - strlen(a), " (%s at worst)", w);
        }
        if (force) /* the estimate is not exact: a forced run may still fit */
            sb_printf(msg, "warning: the run may run out of memory: it would need about %s, "
                           "more than this machine's %s (lower %s)\n", a, b, key);
        else
            sb_printf(msg, "the run would need about %s of memory, more than this machine's "
                           "%s; lower %s, or pass --force to run it anyway (it may run out "
                           "of memory)\n", a, b, key);
        v = force ? v : COST_TOO_BIG;
    }
    if (force)
        return v;
    if (c->events > RUN_EVENTS_LIMIT) {
        bool probes = c->probe_events > c->events / 2;
        format_count(c->events, a, sizeof a);
        format_count(c->requests, b, sizeof b);
        if (probes)
            snprintf(key, sizeof key, "the nodes' count or raise health.probe_interval");
        else
            snprintf(key, sizeof key, "%s or duration", c->rate_key);
        sb_printf(msg, "%s events (%s client requests%s): hours of simulation; lower "
                       "%s, or pass --force to run it anyway\n",
                  a, b, probes ? ", most of them health probes" : "", key);
        if (v == COST_OK)
            v = COST_TOO_BIG;
    }
    if (c->rows > RUN_ROWS_LIMIT || (disk_limit > 0 && c->db_bytes > disk_limit)) {
        char rows[32];
        format_bytes(c->db_bytes, a, sizeof a);
        format_count(c->rows, rows, sizeof rows);
        if (disk_limit > 0 && c->db_bytes > disk_limit) {
            format_bytes(disk_limit, b, sizeof b);
            sb_printf(msg, "the results would take about %s (%s rows), more than the %s free "
                           "where they go; ", a, rows, b);
        } else {
            sb_printf(msg, "the results would take about %s (%s rows); ", a, rows);
        }
        sb_printf(msg, "%s, or pass --force to run it anyway\n",
                  c->sampled_rows > c->rows / 2 ? "lower output.sample_requests or shorten duration"
                                                : "raise tick or shorten duration");
        if (v == COST_OK)
            v = COST_TOO_BIG;
    }
    return v;
}
