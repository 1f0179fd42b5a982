/*
 * floor.c — the second yardstick of `make bench`: the least a discrete-event
 * simulation of scenarios/bench.yaml's cluster must do per request, written
 * for speed and nothing else, so that the simulator's speed can be quoted
 * against the work the model itself takes on the same machine:
 *
 *   floor [REQUESTS [SEED]]
 *
 * Default 60,000,000 requests, as bench.yaml. The cluster is bench.yaml's
 * with its defaults: 100,000 requests a second (Poisson), 5% writes, keys
 * Zipf 0.99 over 1,000,000 (Vose's alias table); 10 nodes of 10,000 items
 * (an exact LRU each) on a ring of 160 points a node (random positions,
 * looked up through an owner table); each node one FIFO worker with
 * exponential service of 20 us, 200 us round trips; a database of 128
 * workers with exponential service of 2 ms; a miss reads the database and
 * fills its node (set), a write commits at the database and invalidates its
 * node; a hit compares its item's version with the key's (a stale read).
 * Events in a 4-ary heap ordered by (time, sequence): a hit takes
 * one (its service's end), a miss four (service's end, reply, database,
 * fill), a write two. Per tick of 1 s: requests, hits, database reads, and
 * a latency histogram. The key draw runs two stages ahead, fetching the
 * alias line and then the key's record before they are needed, as the
 * simulator does.
 *
 * What it leaves out, which the simulator has: clients and their instances
 * and ring views, health, timeouts, queue bounds, TTLs, versions beyond a
 * counter, item sizes, node statistics, every other model and event, and
 * the drawing of the keys' and points' names and hashes. Its hit rate is
 * the simulator's on bench.yaml within a point or two (its prewarm fills
 * each node with its most popular keys; the simulator's holds what a
 * steady state would): tests/cli/bench_floor.sh checks it. Only the run is
 * timed, not the setup. Not a benchmark of the simulator (run.sh runs it in
 * its sim section, not as bench_*).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_zipf.h"
#include "sim/rng.h"

#define NIL UINT32_MAX
#define N_KEYS 1000000u
#define N_NODES 10u
#define POINTS_PER_NODE 160u
#define N_POINTS (N_NODES * POINTS_PER_NODE)
#define CAPACITY_ITEMS 10000u
#define DB_WORKERS 128u
#define QPS 100000.0
#define WRITE_SHARE 0.05
#define NODE_SERVICE_NS 20000.0
#define DB_SERVICE_NS 2000000.0
#define HALF_RTT_NS 100000
#define TICK_NS 1000000000
#define OWNER_BITS 13 /* 8,192 slices: 5 a point */
#define AHEAD 16      /* key draws in flight: 8 fetching the alias line, 8 the record */
#define REQ_BITS 16   /* requests in flight: at most 2^REQ_BITS; an event's sequence gets
                         64 - REQ_BITS - 3 bits, enough for 2^36 requests */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *alloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "floor: out of memory\n");
        exit(1);
    }
    return p;
}

/* A stream of the simulator's generator (sim/rng.h: GSL's taus2), seeded
 * from bench_zipf.h's splitmix64, with GSL's lower bounds on the state. */
static struct rng rng_seeded(void)
{
    struct rng s = {(uint32_t)next64() | 2, (uint32_t)next64() | 8, (uint32_t)next64() | 16};
    for (int i = 0; i < 6; i++)
        rng_next(&s);
    return s;
}

static inline int64_t rng_exp_ns(struct rng *s, double mean_ns)
{
    return (int64_t)rng_exp(s, mean_ns);
}

/* An event: its time, then (sequence, kind, request) in one word. */
struct ev {
    int64_t t_ns;
    uint64_t b;
};

enum kind { GET_DONE, GET_REPLY, READ_DONE, SET_DONE, WRITE_DONE, DELETE_DONE };

struct key_rec {
    uint64_t pos;
    uint32_t item, version;
};

struct item {
    uint32_t key, prev, next, version;
};

struct node {
    int64_t free_ns; /* its worker's */
    uint32_t head, tail, n;
};

struct req {
    int64_t t0_ns;
    uint32_t key, node;
};

struct slice { /* positions up to pos go to le, after it to gt; le NIL: search */
    uint64_t pos;
    uint32_t le, gt;
};

struct alias_entry {
    double p;
    uint32_t alias, pad;
};

struct floor_sim {
    struct ev *heap;
    uint32_t n_ev, cap_ev;
    uint64_t seq;
    struct req *reqs;
    uint32_t *free_reqs, n_free;
    struct key_rec *keys;
    struct item *items;
    struct node nodes[N_NODES];
    uint64_t points[N_POINTS];
    uint32_t point_node[N_POINTS];
    struct slice owner[1u << OWNER_BITS];
    int64_t db_free_ns[DB_WORKERS + 3]; /* padded: the last parents' missing children */
    struct alias_entry *zipf;
    double ahead_u[AHEAD];
    uint32_t ahead_key[AHEAD], ahead_i;
    struct rng arrivals, keys_rng, ops, service;
    uint64_t *tick_requests, *tick_hits, *tick_db;
    uint64_t lat[64 * 32];
    uint64_t gets, hits, stale_reads, done;
};

static inline int ev_less(const struct ev *a, const struct ev *b)
{
    return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->b < b->b);
}

static void push(struct floor_sim *f, int64_t t_ns, enum kind k, uint32_t r)
{
    if (f->n_ev + 5 >= f->cap_ev) {
        f->cap_ev = f->cap_ev ? 2 * f->cap_ev : 1024;
        f->heap = realloc(f->heap, f->cap_ev * sizeof *f->heap);
        if (!f->heap) {
            fprintf(stderr, "floor: out of memory\n");
            exit(1);
        }
    }
    struct ev e = {t_ns, (f->seq++ << (REQ_BITS + 3)) | ((uint64_t)k << REQ_BITS) | r};
    uint32_t i = f->n_ev++;
    while (i && ev_less(&e, &f->heap[(i - 1) / 4])) {
        f->heap[i] = f->heap[(i - 1) / 4];
        i = (i - 1) / 4;
    }
    f->heap[i] = e;
}

static struct ev pop(struct floor_sim *f)
{
    struct ev *h = f->heap, top = h[0], last = h[--f->n_ev];
    uint32_t n = f->n_ev, i = 0;
    h[n] = h[n + 1] = h[n + 2] = h[n + 3] = (struct ev){INT64_MAX, UINT64_MAX};
    for (;;) {
        uint32_t c = 4 * i + 1;
        if (c >= n)
            break;
        uint32_t b1 = ev_less(&h[c + 1], &h[c]) ? c + 1 : c;
        uint32_t b2 = ev_less(&h[c + 3], &h[c + 2]) ? c + 3 : c + 2;
        uint32_t best = ev_less(&h[b2], &h[b1]) ? b2 : b1;
        if (!ev_less(&h[best], &last))
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = last;
    return top;
}

static void lru_unlink(struct floor_sim *f, struct node *n, uint32_t i)
{
    struct item *x = &f->items[i];
    if (x->prev != NIL)
        f->items[x->prev].next = x->next;
    else
        n->head = x->next;
    if (x->next != NIL)
        f->items[x->next].prev = x->prev;
    else
        n->tail = x->prev;
}

static void lru_front(struct floor_sim *f, struct node *n, uint32_t i)
{
    struct item *x = &f->items[i];
    x->prev = NIL;
    x->next = n->head;
    if (n->head != NIL)
        f->items[n->head].prev = i;
    else
        n->tail = i;
    n->head = i;
}

/* Sets key at node nid (each key has one owner: its record names its item). */
static void store_set(struct floor_sim *f, uint32_t nid, uint32_t key, uint32_t version)
{
    struct node *n = &f->nodes[nid];
    uint32_t it = f->keys[key].item;
    if (it != NIL) {
        lru_unlink(f, n, it);
    } else if (n->n == CAPACITY_ITEMS) {
        it = n->tail; /* the least recently used goes */
        lru_unlink(f, n, it);
        f->keys[f->items[it].key].item = NIL;
    } else {
        it = nid * CAPACITY_ITEMS + n->n++;
    }
    f->items[it].key = key;
    f->items[it].version = version;
    f->keys[key].item = it;
    lru_front(f, n, it);
}

/* Deletes key's item at node nid: the node's last item moves into its place. */
static void store_delete(struct floor_sim *f, uint32_t nid, uint32_t key)
{
    struct node *n = &f->nodes[nid];
    uint32_t it = f->keys[key].item;
    if (it == NIL)
        return;
    uint32_t last = nid * CAPACITY_ITEMS + n->n - 1;
    lru_unlink(f, n, it);
    f->keys[key].item = NIL;
    if (it != last) {
        struct item *x = &f->items[it];
        *x = f->items[last];
        if (x->prev != NIL)
            f->items[x->prev].next = it;
        else
            n->head = it;
        if (x->next != NIL)
            f->items[x->next].prev = it;
        else
            n->tail = it;
        f->keys[x->key].item = it;
    }
    n->n--;
}

static uint32_t ring_search(const struct floor_sim *f, uint64_t p)
{
    uint32_t lo = 0, hi = N_POINTS;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (f->points[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return f->point_node[lo == N_POINTS ? 0 : lo];
}

static inline uint32_t ring_lookup(const struct floor_sim *f, uint64_t p)
{
    const struct slice *s = &f->owner[p >> (64 - OWNER_BITS)];
    uint32_t r = p <= s->pos ? s->le : s->gt;
    return r != NIL ? r : ring_search(f, p);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void ring_build(struct floor_sim *f)
{
    for (uint32_t i = 0; i < N_POINTS; i++)
        f->points[i] = next64();
    qsort(f->points, N_POINTS, sizeof f->points[0], cmp_u64);
    for (uint32_t i = 0; i < N_POINTS; i++)
        f->point_node[i] = (uint32_t)(next64() % N_NODES);
    uint64_t width = (uint64_t)1 << (64 - OWNER_BITS);
    uint32_t i = 0;
    for (uint32_t b = 0; b < (1u << OWNER_BITS); b++) {
        uint64_t lo = (uint64_t)b * width, hi = lo + (width - 1);
        uint32_t first = i;
        while (i < N_POINTS && f->points[i] <= hi)
            i++;
        if (i - first == 0)
            f->owner[b] = (struct slice){hi, ring_search(f, lo), ring_search(f, lo)};
        else if (i - first == 1)
            f->owner[b] = (struct slice){f->points[first], f->point_node[first],
                                         ring_search(f, f->points[first] + 1)};
        else
            f->owner[b] = (struct slice){0, NIL, NIL};
    }
}

/* The database: its workers' free times in a 4-ary heap; the root is the
 * worker the next operation takes. Returns the operation's end. */
static int64_t db_admit(struct floor_sim *f, int64_t t_ns, int64_t service_ns)
{
    int64_t *h = f->db_free_ns;
    int64_t done = (h[0] > t_ns ? h[0] : t_ns) + service_ns;
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 4 * i + 1;
        if (c >= DB_WORKERS)
            break;
        uint32_t b1 = h[c + 1] < h[c] ? c + 1 : c, b2 = h[c + 3] < h[c + 2] ? c + 3 : c + 2;
        uint32_t best = h[b2] < h[b1] ? b2 : b1;
        if (h[best] >= done)
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = done;
    return done;
}

/* A message reaching node nid at t_ns: the end of its service. */
static inline int64_t node_admit(struct floor_sim *f, uint32_t nid, int64_t t_ns)
{
    struct node *n = &f->nodes[nid];
    n->free_ns = (n->free_ns > t_ns ? n->free_ns : t_ns) + rng_exp_ns(&f->service, NODE_SERVICE_NS);
    return n->free_ns;
}

static inline void latency(struct floor_sim *f, int64_t ns)
{
    uint64_t v = (uint64_t)ns | 1;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);
    f->lat[e * 32 + (e >= 5 ? (unsigned)(v >> (e - 5)) & 31u : 0)]++;
}

/* The next arrival's key (drawn AHEAD arrivals ago); draws the one after. */
static inline uint32_t next_key(struct floor_sim *f)
{
    uint32_t i = f->ahead_i, key = f->ahead_key[i & (AHEAD - 1)];
    /* the draw AHEAD/2 on: its alias line has come, so its key; fetch its record */
    uint32_t j = (i + AHEAD / 2) & (AHEAD - 1);
    double u = f->ahead_u[j];
    uint32_t k = (uint32_t)u;
    if (u - k >= f->zipf[k].p)
        k = f->zipf[k].alias;
    f->ahead_key[j] = k;
    __builtin_prefetch(&f->keys[k], 1);
    /* a new draw in this slot: fetch its alias line */
    u = (rng_next(&f->keys_rng) / 4294967296.0) * N_KEYS;
    f->ahead_u[i & (AHEAD - 1)] = u;
    __builtin_prefetch(&f->zipf[(uint32_t)u]);
    f->ahead_i = ++i;
    /* and the next arrival's item */
    uint32_t it = f->keys[f->ahead_key[i & (AHEAD - 1)]].item;
    if (it != NIL)
        __builtin_prefetch(&f->items[it], 1);
    return key;
}

static void setup(struct floor_sim *f, uint64_t requests)
{
    double *p = alloc(N_KEYS * sizeof *p);
    uint32_t *alias = alloc(N_KEYS * sizeof *alias);
    if (zipf_alias_build(N_KEYS, 0.99, p, alias)) {
        fprintf(stderr, "floor: out of memory\n");
        exit(1);
    }
    f->zipf = alloc(N_KEYS * sizeof *f->zipf);
    for (uint32_t k = 0; k < N_KEYS; k++)
        f->zipf[k] = (struct alias_entry){p[k], alias[k], 0};
    free(p);
    free(alias);
    f->keys = alloc(N_KEYS * sizeof *f->keys);
    f->items = alloc(N_NODES * CAPACITY_ITEMS * sizeof *f->items);
    for (uint32_t k = 0; k < N_KEYS; k++) {
        f->keys[k].pos = next64();
        f->keys[k].item = NIL;
    }
    ring_build(f);
    for (uint32_t n = 0; n < N_NODES; n++)
        f->nodes[n] = (struct node){0, NIL, NIL, 0};
    for (uint32_t w = 0; w < DB_WORKERS + 3; w++)
        f->db_free_ns[w] = w < DB_WORKERS ? 0 : INT64_MAX;
    uint32_t n_reqs = 1u << REQ_BITS;
    f->reqs = alloc(n_reqs * sizeof *f->reqs);
    f->free_reqs = alloc(n_reqs * sizeof *f->free_reqs);
    for (uint32_t r = 0; r < n_reqs; r++)
        f->free_reqs[f->n_free++] = n_reqs - 1 - r;
    f->arrivals = rng_seeded();
    f->keys_rng = rng_seeded();
    f->ops = rng_seeded();
    f->service = rng_seeded();
    for (uint32_t i = 0; i < AHEAD; i++) {
        double u = (rng_next(&f->keys_rng) / 4294967296.0) * N_KEYS;
        uint32_t k = (uint32_t)u;
        f->ahead_u[i] = u;
        f->ahead_key[i] = u - k >= f->zipf[k].p ? f->zipf[k].alias : k;
    }
    /* prewarm: each node holds its most popular keys (rank = key here) */
    for (uint32_t k = 0; k < N_KEYS; k++) {
        uint32_t nid = ring_lookup(f, f->keys[k].pos);
        if (f->nodes[nid].n < CAPACITY_ITEMS)
            store_set(f, nid, k, 0);
    }
    size_t ticks = (size_t)((double)requests / QPS * 1.5) + 16;
    f->tick_requests = alloc(ticks * sizeof(uint64_t));
    f->tick_hits = alloc(ticks * sizeof(uint64_t));
    f->tick_db = alloc(ticks * sizeof(uint64_t));
}

static void handle(struct floor_sim *f, struct ev e)
{
    int64_t t = e.t_ns;
    uint32_t r = (uint32_t)(e.b & ((1u << REQ_BITS) - 1));
    struct req *q = &f->reqs[r];
    struct key_rec *kr = &f->keys[q->key];
    switch ((enum kind)((e.b >> REQ_BITS) & 7)) {
    case GET_DONE:
        if (kr->item != NIL) { /* a hit: the item moves to the front */
            struct node *n = &f->nodes[q->node];
            lru_unlink(f, n, kr->item);
            lru_front(f, n, kr->item);
            f->hits++;
            f->stale_reads += f->items[kr->item].version < kr->version;
            f->tick_hits[t / TICK_NS]++;
            latency(f, t + HALF_RTT_NS - q->t0_ns);
            f->free_reqs[f->n_free++] = r;
            f->done++;
        } else {
            push(f, t + HALF_RTT_NS, GET_REPLY, r);
        }
        break;
    case GET_REPLY: /* the miss reaches the client: it reads the database */
        push(f, db_admit(f, t, rng_exp_ns(&f->service, DB_SERVICE_NS)), READ_DONE, r);
        f->tick_db[t / TICK_NS]++;
        break;
    case READ_DONE: { /* the client fills the node */
        const struct node *n = &f->nodes[q->node];
        __builtin_prefetch(kr, 1);
        if (n->tail != NIL) /* the item a set evicts, and its key's record */
            __builtin_prefetch(&f->keys[f->items[n->tail].key], 1);
        latency(f, t - q->t0_ns);
        push(f, node_admit(f, q->node, t + HALF_RTT_NS), SET_DONE, r);
        break;
    }
    case SET_DONE:
        store_set(f, q->node, q->key, kr->version);
        f->free_reqs[f->n_free++] = r;
        f->done++;
        break;
    case WRITE_DONE: /* committed: the client invalidates the node */
        kr->version++;
        latency(f, t - q->t0_ns);
        push(f, node_admit(f, q->node, t + HALF_RTT_NS), DELETE_DONE, r);
        break;
    case DELETE_DONE:
        store_delete(f, q->node, q->key);
        f->free_reqs[f->n_free++] = r;
        f->done++;
        break;
    }
}

int main(int argc, char **argv)
{
    uint64_t requests = argc > 1 ? strtoull(argv[1], NULL, 10) : 60000000;
    state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    if (!requests || requests > ((uint64_t)1 << 36)) {
        fprintf(stderr, "usage: floor [REQUESTS [SEED]] (REQUESTS from 1 to 2^36)\n");
        return 2;
    }
    struct floor_sim *f = alloc(sizeof *f);
    setup(f, requests);
    double t0 = now_s(), next_arrival_ns = 0;
    uint64_t arrived = 0;
    while (arrived < requests || f->n_ev) {
        int64_t ta = arrived < requests ? (int64_t)next_arrival_ns : INT64_MAX;
        if (f->n_ev && f->heap[0].t_ns <= ta) {
            handle(f, pop(f));
            continue;
        }
        arrived++;
        next_arrival_ns += (double)rng_exp_ns(&f->arrivals, 1e9 / QPS);
        if (!f->n_free) {
            fprintf(stderr, "floor: more than %u requests in flight\n", 1u << REQ_BITS);
            return 1;
        }
        uint32_t r = f->free_reqs[--f->n_free];
        struct req *q = &f->reqs[r];
        q->t0_ns = ta;
        q->key = next_key(f);
        q->node = ring_lookup(f, f->keys[q->key].pos);
        f->tick_requests[ta / TICK_NS]++;
        if (rng_next(&f->ops) < (uint32_t)(WRITE_SHARE * 4294967296.0)) {
            push(f, db_admit(f, ta, rng_exp_ns(&f->service, DB_SERVICE_NS)), WRITE_DONE, r);
        } else {
            f->gets++;
            push(f, node_admit(f, q->node, ta + HALF_RTT_NS), GET_DONE, r);
        }
    }
    double wall = now_s() - t0;
    if (f->done != requests) {
        fprintf(stderr, "floor: %llu of %llu requests finished\n", (unsigned long long)f->done,
                (unsigned long long)requests);
        return 1;
    }
    printf("minimal model: %llu requests, hit rate %.4f\n", (unsigned long long)requests,
           (double)f->hits / (double)f->gets);
    printf("minimal model requests per second: %.2f M (%.2f s)\n",
           (double)requests / wall / 1e6, wall);
    return 0;
}
