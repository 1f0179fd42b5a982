/*
 * trace.c — sampled request traces (output.sample_requests).
 *
 * Each arrival draws, from a stream of its own ("sample"), whether it is
 * recorded, so sampling changes no other draw. A sampled operation keeps a
 * small record (found by its request index) of what it did — the epoch its
 * instance held, the key's owner and previous owner in that instance's
 * views, the nodes it asked in order — and when it is answered one row goes
 * to the sink's `request` callback. An operation still in flight when the
 * run ends is not recorded.
 */
#include "models/trace.h"

#include "models/db.h"
#include "models/membership.h"
#include "models/node.h"
#include "models/workload.h"
#include "sim/u64map.h"

#include <stdlib.h>
#include <string.h>

#define TRACE_NODES 6       /* nodes listed per operation (more are summarised) */

struct trace {
    int64_t t0_ns;
    uint32_t inst, key, epoch, owner, previous;
    uint32_t nodes[TRACE_NODES];
    uint32_t n_nodes;
    uint8_t op; /* enum workload_op */
};

struct traces {
    struct rng sample;
    double fraction;
    struct trace *t;
    uint32_t n, cap, free_head;
    uint32_t *next_free;
    struct u64map by_req;   /* request index -> trace slot */
};

int traces_create(struct sim *s)
{
    double f = s->sc->output.sample_requests;
    if (f <= 0)
        return 0;
    struct traces *tr = xcalloc(1, sizeof(*tr));
    tr->fraction = f;
    tr->free_head = UINT32_MAX;
    u64map_init(&tr->by_req);
    s->traces = tr;
    return rng_init(&tr->sample, s->sc->seed, "sample");
}

void traces_destroy(struct sim *s)
{
    struct traces *tr = s->traces;
    if (!tr)
        return;
    rng_deinit(&tr->sample);
    u64map_deinit(&tr->by_req);
    free(tr->t);
    free(tr->next_free);
    free(tr);
    s->traces = NULL;
}

static uint32_t slot_alloc(struct traces *tr)
{
    if (tr->free_head != UINT32_MAX) {
        uint32_t i = tr->free_head;
        tr->free_head = tr->next_free[i];
        return i;
    }
    if (tr->n == tr->cap) {
        tr->cap = tr->cap ? tr->cap * 2 : 64;
        tr->t = xrealloc(tr->t, tr->cap * sizeof(*tr->t));
        tr->next_free = xrealloc(tr->next_free, tr->cap * sizeof(*tr->next_free));
    }
    return tr->n++;
}

void trace_arrival(struct sim *s, uint32_t r, unsigned op, uint32_t epoch,
                   const struct view *view, const struct view *prev_view)
{
    struct traces *tr = s->traces;
    if (!tr || rng_uniform(&tr->sample) >= tr->fraction)
        return;
    struct req *q = req_at(&s->eng, r);
    uint32_t i = slot_alloc(tr);
    struct trace *t = &tr->t[i];
    memset(t, 0, sizeof(*t));
    t->t0_ns = q->t0_ns;
    t->inst = q->inst;
    t->key = q->key;
    t->epoch = epoch;
    t->op = (uint8_t)op;
    t->owner = placement_lookup(view->pl, view_position(s, view, q->key));
    t->previous = PLACE_NONE;
    if (prev_view) {
        uint32_t p = placement_lookup(prev_view->pl, view_position(s, prev_view, q->key));
        if (p != t->owner)
            t->previous = p;
    }
    q->flags |= RQF_SAMPLED;
    u64map_put(&tr->by_req, r, i);
}

static struct trace *find(struct sim *s, uint32_t r, uint32_t *slot)
{
    struct traces *tr = s->traces;
    uint64_t *v = tr ? u64map_get(&tr->by_req, r) : NULL;
    if (!v)
        return NULL;
    *slot = (uint32_t)*v;
    return &tr->t[*slot];
}

void trace_asked(struct sim *s, uint32_t r, uint32_t node)
{
    uint32_t slot;
    struct trace *t = find(s, r, &slot);
    if (t && t->n_nodes < TRACE_NODES)
        t->nodes[t->n_nodes++] = node;
    else if (t)
        t->n_nodes++;
}

static const char *node_name(const struct sim *s, uint32_t node)
{
    return node == PLACE_NONE ? NULL : s->nodes[node].id;
}

void trace_answer(struct sim *s, uint32_t r, enum trace_source src, enum trace_outcome out,
                  uint32_t version, int64_t latency_ns)
{
    static const char *const sources[] = {"node", "previous_owner", "db", "none", "local"};
    static const char *const outcomes[] = {"hit", "miss", "timeout", "error", "write"};
    uint32_t slot;
    struct trace *t = find(s, r, &slot);
    if (!t)
        return;
    struct traces *tr = s->traces;
    req_at(&s->eng, r)->flags &= (uint8_t)~RQF_SAMPLED; /* one row per operation */
    if (s->sink.request) {
        char name[512];
        struct strbuf asked;
        sb_init(&asked);
        for (uint32_t i = 0; i < MIN(t->n_nodes, (uint32_t)TRACE_NODES); i++)
            sb_printf(&asked, "%s%s", i ? "," : "", s->nodes[t->nodes[i]].id);
        if (t->n_nodes > TRACE_NODES)
            sb_printf(&asked, ",... (%u in all)", t->n_nodes);
        struct request_row row = {
            .t_ns = t->t0_ns,
            .instance = t->inst,
            .key = keyspace_name(&s->wl->ks, t->key, name, sizeof name),
            .op = t->op == WOP_GET ? "get" : t->op == WOP_SET ? "set" : "delete",
            .epoch = t->epoch,
            .owner = node_name(s, t->owner),
            .previous_owner = node_name(s, t->previous),
            .node = t->n_nodes ? asked.buf : NULL,
            .source = sources[src],
            .version_seen = version == UINT32_MAX ? REQUEST_NULL : (int64_t)version,
            .db_version = db_version(s->db, t->key),
            .outcome = outcomes[out],
            .latency_us = (double)latency_ns / 1e3,
        };
        if (s->sink.request(s->sink.ctx, &row))
            sim_fail(s, "cannot record a sampled request");
        sb_deinit(&asked);
    }
    u64map_del(&tr->by_req, r);
    tr->next_free[slot] = tr->free_head;
    tr->free_head = slot;
}
