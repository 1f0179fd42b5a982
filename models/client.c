/*
 * client.c — client instances: their ring views and epochs, routing, the
 * start of every operation, and the tick's client-side counts. The read
 * and write paths are client_read.c's; sampled traces client_trace.c's.
 *
 * An instance routes with its view: the placement of the epoch it has
 * adopted, minus the nodes it has ejected itself (client-mode health,
 * rehash). It adopts each published epoch at once, after
 * propagation_delay (central mode), or — frozen by a split brain — not
 * until the split ends; a MOVED reply (fencing) also makes it adopt the
 * node's epoch unless it is frozen. It keeps the view it held before its
 * last adoption (prev_view) for the fallback to previous owners, which
 * lasts clients.fallback_window after the adoption.
 *
 * Outcomes are counted when known: a hit when the node serves it, a miss
 * when the miss reply reaches the client, a timeout at the timeout. Every
 * read has exactly one outcome, hit or miss (RQF_OUTCOME marks it;
 * clients_check verifies it). `errors` counts client operations that failed
 * — a read that got no value, a write the database refused — each once;
 * error replies from a node's full queue are `cache_errors`, whatever
 * follows them.
 */
#include "models/client_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int clients_create(struct sim *s)
{
    s->cl = xcalloc(1, sizeof(*s->cl));
    if (rng_init(&s->cl->propagation, s->sc->seed, "propagation") || traces_create(s)) {
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
    if (s->cl) {
        rng_deinit(&s->cl->propagation);
        traces_destroy(s);
    }
    free(s->cl);
    s->cl = NULL;
}

/* ---- views and epochs ------------------------------------------------------------ */

static bool rehash_mode(const struct sim *s)
{
    return s->sc->health.on_eject == EJECT_REHASH;
}

/* Re-derives an instance's routing view after its epoch or ejections changed. */
static int refresh_view(struct sim *s, struct instance *in)
{
    const uint8_t *excl = rehash_mode(s) ? health_inst_excluded(s, in->index) : NULL;
    struct view *v = view_get(s, in->epoch, excl);
    if (!v)
        return -1;
    view_release(s, in->view);
    in->view = v;
    return 0;
}

void client_adopt(struct sim *s, uint32_t inst, uint32_t epoch)
{
    struct instance *in = &s->inst[inst];
    if (epoch <= in->epoch || in->frozen)
        return; /* epochs only move forward; a frozen instance keeps its own */
    struct view *old = in->view;
    old->refs++; /* kept as the previous view */
    membership_drop(s, in->epoch);
    membership_hold(s, epoch);
    in->epoch = epoch;
    in->adopted_ns = s->eng.now_ns;
    refresh_view(s, in);
    view_release(s, in->prev_view);
    in->prev_view = old;
    if (s->sc->health.mode == HEALTH_CENTRAL && s->sc->health.propagation_delay_ns)
        sim_event(s, "adopt", NULL, "instance %u adopts epoch %u", in->index, epoch);
}

void clients_epoch_published(struct sim *s, uint32_t epoch)
{
    const struct health_cfg *h = &s->sc->health;
    bool delayed = h->mode == HEALTH_CENTRAL && h->propagation_delay_ns;
    for (uint32_t j = 0; j < s->n_inst; j++) {
        if (s->inst[j].frozen)
            continue;
        if (!delayed) {
            client_adopt(s, j, epoch);
        } else {
            /* each instance's delay: propagation_delay × U[0.5, 1.5) */
            double f = 0.5 + rng_uniform(&s->cl->propagation);
            int64_t d = (int64_t)((double)h->propagation_delay_ns * f);
            if (sim_schedule(s, s->eng.now_ns + d, EVK_ADOPT, j, epoch))
                return;
        }
    }
}

void client_freeze(struct sim *s, uint32_t inst, uint32_t by_event)
{
    s->inst[inst].frozen = true;
    s->inst[inst].frozen_by = by_event;
}

void client_unfreeze(struct sim *s, uint32_t inst, uint32_t by_event)
{
    struct instance *in = &s->inst[inst];
    if (!in->frozen || in->frozen_by != by_event)
        return;
    in->frozen = false;
    client_adopt(s, inst, membership_latest(s)->id);
}

void client_readmit(struct sim *s, uint32_t inst, uint32_t node)
{
    if (health_readmit(s, inst, node))
        refresh_view(s, &s->inst[inst]);
}

/* ---- health reports ------------------------------------------------------------------ */

void client_report_success(struct sim *s, const struct instance *in, uint32_t node)
{
    health_success(s, in->index, node);
}

void client_report_failure(struct sim *s, struct instance *in, uint32_t node, const char *what)
{
    if (health_failure(s, in->index, in->epoch, node, what))
        refresh_view(s, in);
}

/* ---- routing ---------------------------------------------------------------------- */

uint32_t client_route(struct sim *s, struct instance *in, uint32_t key, uint8_t *flags)
{
    const struct view *v = in->view;
    uint64_t pos = view_position(s, v, key);
    const struct placement *pl = v->pl;
    uint32_t n;
    if (pl->params.algo == PLACE_BOUNDED && pl->n_members) {
        uint64_t total = (uint64_t)s->inflight_total + 1;
        uint32_t cap = (uint32_t)ceil(pl->params.load_factor * (double)total
                                      / (double)pl->n_members);
        n = placement_lookup_bounded(pl, pos, s->inflight, cap);
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

uint32_t client_previous_owner(struct sim *s, const struct instance *in, uint32_t key,
                               uint32_t current)
{
    if (!in_fallback_window(s, in))
        return PLACE_NONE;
    const struct view *pv = in->prev_view;
    uint32_t p = placement_lookup(pv->pl, view_position(s, pv, key));
    if (p == current || p == PLACE_NONE || s->nodes[p].gutter)
        return PLACE_NONE;
    if (health_inst_ejected(s, in->index, p) || membership_epoch(s, in->epoch)->ejected[p])
        return PLACE_NONE;
    return p;
}

void client_send_get(struct sim *s, uint32_t r, uint32_t nid)
{
    struct req *q = R(s, r);
    q->epoch = s->inst[q->inst].epoch;
    if (q->flags & RQF_SAMPLED)
        trace_asked(s, r, nid);
    net_send_get(s, r, nid);
}

void client_send_op(struct sim *s, uint32_t r, uint32_t node, enum req_kind kind,
                    uint32_t version)
{
    struct req *q = R(s, r);
    q->kind = (uint8_t)kind;
    q->version = version;
    q->epoch = s->inst[q->inst].epoch;
    net_send_op(s, r, node);
}

/* ---- entry point ------------------------------------------------------------------------ */

void client_arrival(struct sim *s, int64_t t_ns, uint32_t inst, bool is_write, uint32_t key)
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
    trace_arrival(s, r, is_write);
    if (is_write)
        client_start_write(s, r);
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
