/*
 * run.c — one run: building the models, the event loop, scenario events,
 * tick rows and the summary.
 *
 * The loop takes, at each step, the earlier of the next arrival (the
 * workload keeps it; arrivals never sit in the queue) and the earliest
 * queued event; on a tie the queued event goes first. Before handling
 * anything at time t it closes every tick that ends at or before t, so a
 * tick row holds exactly what happened in [start, start + tick). The run
 * ends at `duration`; work still in flight then is not counted.
 *
 * Node indices are fixed for the whole run: the file's nodes in order,
 * then each new id an add_node event brings, in event order (a node removed
 * and added again keeps its index), then the gutter pool.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

/* ---- small services for the models ------------------------------------------------ */

void sim_fail(struct sim *s, const char *fmt, ...)
{
    if (s->status == RUN_FAILED)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    s->status = RUN_FAILED;
}

int sim_schedule(struct sim *s, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b)
{
    if (UNLIKELY(eventq_push(&s->q, t_ns, kind, a, b))) {
        sim_fail(s, "more than %u events pending: the model has run away", EVENTQ_MAX);
        return -1;
    }
    return 0;
}

void sim_event(struct sim *s, const char *kind, const struct node *n, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (s->sink.event && s->sink.event(s->sink.ctx, (double)s->now_ns / 1e9, kind,
                                       n ? n->id : NULL, detail))
        sim_fail(s, "cannot record an event");
}

#define REQ_MAX (1u << 26)

uint32_t req_alloc(struct sim *s)
{
    struct req_pool *p = &s->reqs;
    if (p->free_head != UINT32_MAX) {
        uint32_t r = p->free_head;
        p->free_head = p->r[r].next_free;
        return r;
    }
    if (p->n == p->cap) {
        if (p->cap >= REQ_MAX) {
            /* cannot happen before the event queue's own bound; keep going safely */
            sim_fail(s, "more than %u requests in flight", REQ_MAX);
            return p->n - 1;
        }
        p->cap = p->cap ? p->cap * 2 : 1024;
        p->r = xrealloc(p->r, p->cap * sizeof(*p->r));
    }
    return p->n++;
}

void req_free(struct sim *s, uint32_t r)
{
    s->reqs.r[r].next_free = s->reqs.free_head;
    s->reqs.free_head = r;
}

/* ---- building a run -------------------------------------------------------------------- */

static int find_node(const struct sim *s, const char *id, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(s->nodes[i].id, id))
            return (int)i;
    return -1;
}

static int build_nodes(struct sim *s, char *err, size_t errlen)
{
    const struct scenario *sc = s->sc;
    uint32_t cap = (uint32_t)(sc->n_nodes + sc->n_events + sc->health.gutter_nodes + 1);
    s->nodes = xcalloc(cap, sizeof(*s->nodes));
    uint32_t n = 0;
    for (size_t i = 0; i < sc->n_nodes; i++, n++) {
        const struct node_cfg *c = &sc->nodes[i];
        if (node_init(s, &s->nodes[n], n, c->id, c->address, c->weight, &c->cache, false))
            goto oom;
        s->nodes[n].state = NODE_UP;
        s->nodes[n].ever_present = true;
    }
    for (size_t i = 0; i < sc->n_events; i++) {
        const struct event_cfg *e = &sc->events[i];
        if (e->kind != EV_ADD_NODE || find_node(s, e->node, n) >= 0)
            continue;
        if (node_init(s, &s->nodes[n], n, e->node, e->address, e->weight, &e->cache, false))
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
            if (find_node(s, id, n) >= 0) {
                snprintf(err, errlen, "a node is named %s, which the gutter pool needs", id);
                return -1;
            }
            if (node_init(s, &s->nodes[n], n, id, id, 1.0, &sc->cache, true))
                goto oom;
            s->nodes[n].state = NODE_UP;
            s->nodes[n].ever_present = true;
            n++;
        }
    }
    s->n_nodes = n;
    if (n >= UINT16_MAX) { /* the store keeps node numbers in 16 bits */
        snprintf(err, errlen, "at most %u nodes (with the gutter pool) are supported",
                 UINT16_MAX - 1);
        return -1;
    }
    return 0;
oom:
    s->n_nodes = n + 1; /* so destroy frees the partly built one */
    snprintf(err, errlen, "out of memory building the nodes");
    return -1;
}

static int build_gutter(struct sim *s, char *err, size_t errlen)
{
    if (!s->n_gutter)
        return 0;
    struct place_member *m = xcalloc(s->n_gutter, sizeof(*m));
    for (uint32_t g = 0; g < s->n_gutter; g++) {
        struct node *n = &s->nodes[s->gutter_first + g];
        m[g].id = n->id;
        m[g].address = n->address;
        m[g].weight = 1.0;
        m[g].node = n->index;
    }
    s->gutter_pl = placement_create(&s->pp, m, s->n_gutter, NULL, err, errlen);
    free(m);
    return s->gutter_pl ? 0 : -1;
}

struct sim *sim_create(const struct scenario *sc, const struct sink *sink,
                       const struct run_options *opt, char *err, size_t errlen)
{
    struct sim *s = xcalloc(1, sizeof(*s));
    s->sc = sc;
    scenario_place_params(sc, &s->pp);
    if (opt)
        s->opt = *opt;
    if (sink)
        s->sink = *sink;
    s->tick_ns = sc->tick_ns;
    s->tick_end_ns = MIN(sc->tick_ns, sc->duration_ns);
    s->first_event_ns = sc->n_events ? sc->events[0].at_ns : -1;
    s->reqs.free_head = UINT32_MAX;
    sb_init(&s->pending_why);
    eventq_init(&s->q);
    if (workload_init(s, err, errlen))
        goto fail;
    if (item_pool_init(&s->pool, s->wl.ks.rec, s->wl.ks.n_total)) {
        snprintf(err, errlen, "out of memory for %u keys", s->wl.ks.n_total);
        goto fail;
    }
    if (build_nodes(s, err, errlen))
        goto fail;
    if (db_init(s)) {
        snprintf(err, errlen, "out of memory for the database model");
        goto fail;
    }
    s->inflight = xcalloc(s->n_nodes + 1, sizeof(*s->inflight));
    s->cur_member = xcalloc(s->n_nodes + 1, 1);
    s->cur_ejected = xcalloc(s->n_nodes + 1, 1);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        s->cur_member[i] = s->nodes[i].state == NODE_UP && !s->nodes[i].gutter;
    if (rng_init(&s->propagation, sc->seed, "propagation")
        || rng_init(&s->prewarm_rng, sc->seed, "prewarm")) {
        snprintf(err, errlen, "cannot allocate random streams");
        goto fail;
    }
    if (membership_init(s, err, errlen) || build_gutter(s, err, errlen))
        goto fail;
    if (clients_init(s) || health_init(s)) {
        snprintf(err, errlen, "%s", s->error[0] ? s->error : "cannot set up the clients");
        goto fail;
    }
    node_prewarm(s);
    for (size_t i = 0; i < sc->n_events; i++)
        sim_schedule(s, sc->events[i].at_ns, EVK_SCENARIO, (uint32_t)i, 0);
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        s->nodes[i].tk.evictions0 = s->nodes[i].store.evictions;
        s->nodes[i].tk.expirations0 = s->nodes[i].store.expirations;
    }
    if (s->status == RUN_FAILED) {
        snprintf(err, errlen, "%s", s->error);
        goto fail;
    }
    return s;
fail:
    sim_destroy(s);
    return NULL;
}

void sim_destroy(struct sim *s)
{
    if (!s)
        return;
    clients_deinit(s);
    if (s->coord.fails)
        health_deinit(s);
    if (s->epochs)
        membership_deinit(s);
    if (s->gutter_pl)
        placement_destroy(s->gutter_pl);
    for (uint32_t i = 0; i < s->n_nodes; i++)
        node_deinit(&s->nodes[i]);
    free(s->nodes);
    item_pool_deinit(&s->pool);
    db_deinit(&s->db);
    workload_deinit(&s->wl);
    rng_deinit(&s->propagation);
    rng_deinit(&s->prewarm_rng);
    free(s->inflight);
    free(s->cur_member);
    free(s->cur_ejected);
    free(s->reqs.r);
    free(s->series);
    sb_deinit(&s->pending_why);
    eventq_deinit(&s->q);
    free(s);
}

/* ---- scenario events -------------------------------------------------------------------- */

static struct node *event_node(struct sim *s, const struct event_cfg *e)
{
    int i = find_node(s, e->node, s->gutter_first);
    assert(i >= 0); /* the loader checked every id */
    return &s->nodes[i];
}

/* Membership events at one instant (say two add_node at 60 s) make one
 * epoch: the first schedules the publication for the same time, and since
 * an event scheduled while handling runs after every event already queued
 * for that time, all of them are applied before it. */
static void publish(struct sim *s, const char *why)
{
    sb_printf(&s->pending_why, "%s%s", s->pending_why.len ? ", " : "", why);
    if (!s->publish_pending) {
        s->publish_pending = true;
        sim_schedule(s, s->now_ns, EVK_PUBLISH, 0, 0);
    }
}

static void publish_now(struct sim *s)
{
    s->publish_pending = false;
    if (membership_publish(s, s->cur_member, s->cur_ejected, s->pending_why.buf))
        sim_fail(s, "%s", s->error[0] ? s->error : "cannot publish a ring epoch");
    sb_reset(&s->pending_why);
}

static void node_leaves(struct sim *s, struct node *n)
{
    node_crash(s, n); /* everything it held or was doing is gone */
    n->state = NODE_REMOVED;
    s->cur_member[n->index] = 0;
    if (s->coord.ejected_at[n->index] >= 0) { /* centrally ejected: forget it */
        s->coord.ejected_at[n->index] = -1;
        s->coord.n_ejected--;
        s->cur_ejected[n->index] = 0;
        health_node_readmitted(s, n);
    }
}

static void scenario_event(struct sim *s, uint32_t idx)
{
    const struct event_cfg *e = &s->sc->events[idx];
    const char *kind = event_kind_name(e->kind);
    struct node *n = NULL;
    char why[300];
    switch (e->kind) {
    case EV_ADD_NODE:
        n = event_node(s, e);
        if (n->ever_present) { /* back after a removal: fresh and empty */
            free(n->address);
            n->address = xstrdup(e->address);
            n->weight = e->weight;
        }
        n->state = NODE_UP;
        n->incarnation++;
        n->ever_present = true;
        s->cur_member[n->index] = 1;
        sim_event(s, kind, n, "address %s, weight %g", n->address, n->weight);
        snprintf(why, sizeof why, "add_node %s", n->id);
        publish(s, why);
        break;
    case EV_REMOVE_NODE:
        n = event_node(s, e);
        node_leaves(s, n);
        sim_event(s, kind, n, "%s", "");
        snprintf(why, sizeof why, "remove_node %s", n->id);
        publish(s, why);
        break;
    case EV_SLOW_NODE: {
        n = event_node(s, e);
        n->slow_factor = e->factor;
        n->slow_latency_ns = e->latency_ns;
        n->slow_event = idx;
        char lat[32], dur[32];
        format_duration(e->latency_ns, lat, sizeof lat);
        if (e->for_ns)
            format_duration(e->for_ns, dur, sizeof dur);
        else
            snprintf(dur, sizeof dur, "the rest of the run");
        sim_event(s, kind, n, "service x%g, +%s latency, for %s", e->factor, lat, dur);
        if (e->for_ns)
            sim_schedule(s, s->now_ns + e->for_ns, EVK_SCENARIO_END, idx, 0);
        break;
    }
    case EV_CRASH_NODE:
        n = event_node(s, e);
        node_crash(s, n);
        sim_event(s, kind, n, "%s", "");
        break;
    case EV_RESTART_NODE:
        n = event_node(s, e);
        node_restart(s, n);
        sim_event(s, kind, n, "back, empty");
        break;
    case EV_SPLIT_BRAIN: {
        struct strbuf sb;
        sb_init(&sb);
        for (size_t i = 0; i < e->n_instances; i++) {
            struct instance *in = &s->inst[e->instances[i]];
            in->frozen = true;
            in->frozen_by = idx;
            sb_printf(&sb, "%s%u", i ? "," : "", in->index);
        }
        char dur[32];
        format_duration(e->for_ns, dur, sizeof dur);
        sim_event(s, kind, NULL, "instances %s frozen on their ring epoch for %s", sb.buf, dur);
        sb_deinit(&sb);
        sim_schedule(s, s->now_ns + e->for_ns, EVK_SCENARIO_END, idx, 0);
        break;
    }
    case EV_SET_QPS:
        workload_set_qps(&s->wl, s->now_ns, e->qps);
        sim_event(s, kind, NULL, "%g requests per second", e->qps);
        break;
    case EV_SET_ADDRESS:
        n = event_node(s, e);
        free(n->address);
        n->address = xstrdup(e->address);
        sim_event(s, kind, n, "%s", n->address);
        if (s->pp.node_key_address && s->cur_member[n->index]) {
            snprintf(why, sizeof why, "set_address %s", n->id);
            publish(s, why);
        }
        break;
    case EV_HOT_KEY:
        workload_set_hot(&s->wl, s->sc, s->now_ns);
        sim_event(s, kind, NULL, "%s takes %g of requests%s", e->key, e->share,
                  e->for_ns ? "" : " for the rest of the run");
        if (e->for_ns)
            sim_schedule(s, s->now_ns + e->for_ns, EVK_SCENARIO_END, idx, 0);
        break;
    case EV_KIND_COUNT:
        break;
    }
}

static void scenario_event_end(struct sim *s, uint32_t idx)
{
    const struct event_cfg *e = &s->sc->events[idx];
    switch (e->kind) {
    case EV_SLOW_NODE: {
        struct node *n = event_node(s, e);
        if (n->slow_event == idx && (n->slow_factor != 1.0 || n->slow_latency_ns)) {
            n->slow_factor = 1.0;
            n->slow_latency_ns = 0;
            sim_event(s, "slow_node_end", n, "back to normal speed");
        }
        break;
    }
    case EV_SPLIT_BRAIN: {
        uint32_t latest = membership_latest(s)->id;
        for (size_t i = 0; i < e->n_instances; i++) {
            struct instance *in = &s->inst[e->instances[i]];
            if (in->frozen && in->frozen_by == idx) {
                in->frozen = false;
                client_adopt(s, in, latest);
            }
        }
        sim_event(s, "split_brain_end", NULL, "instances adopt epoch %u", latest);
        break;
    }
    case EV_HOT_KEY:
        workload_set_hot(&s->wl, s->sc, s->now_ns);
        sim_event(s, "hot_key_end", NULL, "%s back to its usual share", e->key);
        break;
    default:
        break;
    }
}

/* ---- ticks ------------------------------------------------------------------------------- */

static double ms(double ns)
{
    return ns / 1e6;
}

/* The routing views client instances hold at a tick's end: instances
 * grouped by (epoch, the nodes they route around — their own ejections and
 * the epoch's central ones). O(instances log instances); the label is built
 * only for instances that route around something. */
struct inst_sig {
    uint32_t epoch, index;
    const char *label;
};

struct view_group {
    uint32_t first, count; /* first instance holding it, how many do */
};

struct tick_views {
    struct strbuf *labels;
    struct inst_sig *sig;
    struct view_group *group;
    uint32_t n_groups;
};

static int cmp_sig(const void *a, const void *b)
{
    const struct inst_sig *x = a, *y = b;
    if (x->epoch != y->epoch)
        return x->epoch < y->epoch ? -1 : 1;
    int c = strcmp(x->label, y->label);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_group(const void *a, const void *b)
{
    const struct view_group *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static void views_build(const struct sim *s, struct tick_views *tv)
{
    uint32_t n = s->n_inst;
    tv->labels = xcalloc(n, sizeof(*tv->labels));
    tv->sig = xcalloc(n, sizeof(*tv->sig));
    tv->group = xcalloc(n, sizeof(*tv->group));
    for (uint32_t j = 0; j < n; j++) {
        const struct instance *in = &s->inst[j];
        const struct epoch *e = &s->epochs[in->epoch - 1];
        struct strbuf *l = &tv->labels[j];
        sb_init(l);
        if (in->n_ejected || e->n_ejected)
            for (uint32_t i = 0; i < s->n_nodes; i++)
                if (in->ejected[i] || e->ejected[i])
                    sb_printf(l, "%s%s", l->len ? "," : "", s->nodes[i].id);
        tv->sig[j] = (struct inst_sig){in->epoch, j, l->buf};
    }
    qsort(tv->sig, n, sizeof(*tv->sig), cmp_sig);
    tv->n_groups = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (j && tv->sig[j].epoch == tv->sig[j - 1].epoch
            && !strcmp(tv->sig[j].label, tv->sig[j - 1].label)) {
            tv->group[tv->n_groups - 1].count++;
            continue;
        }
        tv->group[tv->n_groups++] = (struct view_group){tv->sig[j].index, 1};
    }
    qsort(tv->group, tv->n_groups, sizeof(*tv->group), cmp_group);
}

static void views_free(const struct sim *s, struct tick_views *tv)
{
    for (uint32_t j = 0; j < s->n_inst; j++)
        sb_deinit(&tv->labels[j]);
    free(tv->labels);
    free(tv->sig);
    free(tv->group);
}

/* One views row per distinct view, in order of the first instance holding it. */
static void record_views(struct sim *s, const struct tick_views *tv, double t_s)
{
    if (!s->sink.view_tick)
        return;
    for (uint32_t k = 0; k < tv->n_groups; k++) {
        const struct instance *in = &s->inst[tv->group[k].first];
        const struct strbuf *label = &tv->labels[tv->group[k].first];
        char *view = label->len ? xasprintf("epoch %u without %s", in->epoch, label->buf)
                                : xasprintf("epoch %u", in->epoch);
        struct view_tick_row r = {t_s, view, in->epoch, label->buf, tv->group[k].count};
        if (s->sink.view_tick(s->sink.ctx, &r))
            sim_fail(s, "cannot record a view");
        free(view);
    }
}

/* Per node, the client instances that route around it: in client mode the
 * instances that ejected it; in central mode those whose epoch has it
 * ejected (counted per distinct epoch held: a handful). */
static void ejected_by(const struct sim *s, uint32_t *by)
{
    memset(by, 0, s->n_nodes * sizeof(*by));
    if (s->sc->health.mode == HEALTH_CLIENT) {
        for (uint32_t i = 0; i < s->n_nodes; i++)
            by[i] = s->nodes[i].ejectors;
        return;
    }
    uint32_t *epoch = xcalloc(s->n_inst, sizeof(*epoch)), *count = xcalloc(s->n_inst, sizeof(*count));
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->n_inst; j++) {
        uint32_t k = 0;
        while (k < n && epoch[k] != s->inst[j].epoch)
            k++;
        if (k == n)
            epoch[n++] = s->inst[j].epoch;
        count[k]++;
    }
    for (uint32_t k = 0; k < n; k++) {
        const struct epoch *e = &s->epochs[epoch[k] - 1];
        if (e->n_ejected)
            for (uint32_t i = 0; i < s->n_nodes; i++)
                by[i] += e->ejected[i] ? count[k] : 0;
    }
    free(epoch);
    free(count);
}

static void close_tick(struct sim *s)
{

    const struct scenario *sc = s->sc;
    int64_t start = s->tick_index * s->tick_ns;
    int64_t len = MIN(s->tick_ns, sc->duration_ns - start);
    double len_s = (double)len / 1e9;
    struct database *d = &s->db;
    struct tick_row row;
    memset(&row, 0, sizeof row);
    row.t_s = (double)start / 1e9;
    row.requests = s->tk.requests;
    row.reads = s->tk.reads;
    row.writes = s->tk.writes;
    row.hits = s->tk.hits;
    row.misses = s->tk.misses;
    row.hit_rate = row.hits + row.misses ? (double)row.hits / (double)(row.hits + row.misses) : NAN;
    row.db_reads = d->reads;
    row.db_writes = d->writes;
    row.backend_qps = (double)(d->reads + d->writes) / len_s;
    double worker_ns = (double)d->cfg.workers * (double)len;
    row.db_util = (double)busy_take(&d->busy, s->tick_index) / worker_ns;
    row.db_demand = (double)d->demand_ns / worker_ns;
    row.db_rejects = d->rejects;
    row.db_mean_ms = d->lat.n ? ms(lhist_mean(&d->lat)) : NAN;
    row.db_p99_ms = d->lat.n ? ms(lhist_quantile(&d->lat, 0.99)) : NAN;
    row.client_p99_ms = s->tk.client_lat.n ? ms(lhist_quantile(&s->tk.client_lat, 0.99)) : NAN;
    row.client_mean_ms = s->tk.client_lat.n ? ms(lhist_mean(&s->tk.client_lat)) : NAN;
    row.timeouts = s->tk.timeouts;
    row.errors = s->tk.errors;
    row.stale_reads = s->tk.stale_reads;
    row.stale_overwrites = s->tk.stale_overwrites;
    row.clobbers = s->tk.clobbers;

    uint32_t emin = UINT32_MAX, emax = 0;
    for (uint32_t j = 0; j < s->n_inst; j++) {
        emin = MIN(emin, s->inst[j].epoch);
        emax = MAX(emax, s->inst[j].epoch);
    }
    row.epoch_min = emin;
    row.epoch_max = emax;
    struct tick_views tv;
    views_build(s, &tv);
    row.views = tv.n_groups;
    uint32_t *by_inst = xcalloc(s->n_nodes + 1, sizeof(*by_inst));
    ejected_by(s, by_inst);

    int64_t ejected = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct node *n = &s->nodes[i];
        int64_t busy = busy_take(&n->busy, s->tick_index);
        uint32_t by = by_inst[i];
        ejected += by > 0 || s->cur_ejected[i];
        if (n->ever_present && s->sink.node_tick) {
            struct node_tick_row nr;
            nr.t_s = row.t_s;
            nr.node = n->id;
            nr.state = node_state_name(s, n);
            if (n->state == NODE_UP && (by || s->cur_ejected[i]))
                nr.state = "ejected";
            nr.requests = n->tk.requests;
            nr.hits = n->tk.hits;
            nr.items = n->store.n_items;
            nr.bytes = (int64_t)n->store.bytes;
            nr.util = (double)busy / ((double)n->cfg.workers * (double)len);
            nr.p99_ms = n->tk.lat.n ? ms(lhist_quantile(&n->tk.lat, 0.99)) : NAN;
            nr.evictions = (int64_t)(n->store.evictions - n->tk.evictions0);
            nr.expirations = (int64_t)(n->store.expirations - n->tk.expirations0);
            nr.sets = n->tk.sets;
            nr.rejects = n->tk.rejects;
            nr.ejected_by = by;
            if (s->sink.node_tick(s->sink.ctx, &nr))
                sim_fail(s, "cannot record a node tick");
        }
        if (s->opt.check_invariants) {
            const char *bad = store_check(&n->store);
            if (bad)
                sim_fail(s, "node %s: store invariant broken: %s", n->id, bad);
        }
        lhist_reset(&n->tk.lat);
        n->tk.requests = n->tk.hits = n->tk.sets = n->tk.rejects = 0;
        n->tk.evictions0 = n->store.evictions;
        n->tk.expirations0 = n->store.expirations;
    }
    row.ejected = ejected;
    record_views(s, &tv, row.t_s);
    views_free(s, &tv);
    free(by_inst);
    if (s->sink.tick && s->sink.tick(s->sink.ctx, &row))
        sim_fail(s, "cannot record a tick");
    if (s->sink.checkpoint && s->sink.checkpoint(s->sink.ctx))
        sim_fail(s, "cannot commit the recorded ticks");

    if (s->n_series == s->cap_series) {
        s->cap_series = s->cap_series ? s->cap_series * 2 : 256;
        s->series = xrealloc(s->series, s->cap_series * sizeof(*s->series));
    }
    struct tick_point *p = &s->series[s->n_series++];
    p->t_s = row.t_s;
    p->len_s = len_s;
    p->hit_rate = row.hit_rate;
    p->backend_qps = row.backend_qps;
    p->db_util = row.db_util;
    p->db_demand = row.db_demand;
    p->hits = row.hits;
    p->reads_done = row.hits + row.misses;

    memset(&s->tk, 0, sizeof s->tk);
    d->reads = d->writes = d->rejects = d->demand_ns = 0;
    lhist_reset(&d->lat);
    s->tick_index++;
    s->tick_end_ns = MIN((s->tick_index + 1) * s->tick_ns, sc->duration_ns);
    if (s->opt.progress)
        s->opt.progress(s->opt.progress_ctx, MIN(s->tick_index * s->tick_ns, sc->duration_ns),
                        sc->duration_ns, s->tot.requests);
}

/* ---- the loop ---------------------------------------------------------------------------- */

static void dispatch(struct sim *s, const struct event *e)
{
    switch (event_kind(e)) {
    case EVK_SCENARIO: scenario_event(s, e->a); break;
    case EVK_SCENARIO_END: scenario_event_end(s, e->a); break;
    case EVK_PUBLISH: publish_now(s); break;
    case EVK_READMIT:
    case EVK_PROBE_ROUND:
    case EVK_PROBE_RESULT:
    case EVK_ADOPT: health_handle(s, e); break;
    default: client_handle(s, e); break;
    }
}

enum run_status sim_run(struct sim *s)
{
    const int64_t end = s->sc->duration_ns;
    uint32_t steps = 0;
    while (s->status != RUN_FAILED) {
        int64_t ta = (int64_t)s->wl.next_arrival_ns;
        const struct event *top = eventq_peek(&s->q);
        int64_t te = top ? top->t_ns : INT64_MAX;
        int64_t t = MIN(MIN(ta, te), end);
        while (t >= s->tick_end_ns && s->tick_index * s->tick_ns < end)
            close_tick(s);
        if (t >= end)
            break;
        s->now_ns = t;
        if (te <= ta) {
            struct event e;
            eventq_pop(&s->q, &e);
            dispatch(s, &e);
        } else {
            int64_t at;
            uint32_t inst, key;
            bool is_write;
            workload_next(&s->wl, &at, &inst, &is_write, &key);
            /* the next arrival's key record was prefetched when it was drawn;
             * now its first item can be fetched too */
            uint32_t head = s->wl.ks.rec[workload_peek_key(&s->wl)].head;
            if (head != STORE_NIL)
                __builtin_prefetch(&s->pool.items[head], 1);
            client_arrival(s, at, inst, is_write, key);
        }
        if (UNLIKELY(++steps == 4096)) {
            steps = 0;
            if (s->opt.stop && *s->opt.stop) {
                s->status = RUN_INTERRUPTED;
                break;
            }
        }
    }
    if (s->status == RUN_INTERRUPTED && s->opt.progress)
        s->opt.progress(s->opt.progress_ctx, s->now_ns, end, s->tot.requests);
    return s->status;
}

/* ---- summary ------------------------------------------------------------------------------- */

void sim_summary(const struct sim *s, struct summary_row *o)
{
    const struct scenario *sc = s->sc;
    double warm = (double)sc->warmup_ns / 1e9;
    double ev = s->first_event_ns >= 0 ? (double)s->first_event_ns / 1e9 : -1;
    double tick_s = (double)s->tick_ns / 1e9;
    memset(o, 0, sizeof(*o));
    o->requests = s->tot.requests;
    int64_t hits = 0, reads = 0, bh = 0, br = 0;
    o->peak_backend_qps = 0;
    o->peak_db_util = 0;
    for (size_t i = 0; i < s->n_series; i++) {
        const struct tick_point *p = &s->series[i];
        if (p->t_s + 1e-12 < warm)
            continue;
        hits += p->hits;
        reads += p->reads_done;
        if (ev < 0 || p->t_s + p->len_s <= ev + 1e-12) {
            bh += p->hits;
            br += p->reads_done;
        }
        o->peak_backend_qps = MAX(o->peak_backend_qps, p->backend_qps);
        o->peak_db_util = MAX(o->peak_db_util, p->db_util);
        if (p->db_demand > 1.0)
            o->db_overload_s += p->len_s;
    }
    o->hit_rate = reads ? (double)hits / (double)reads : NAN;
    o->baseline_hit_rate = br ? (double)bh / (double)br : NAN;
    /* from the tick holding the first event (or warmup, without events) on */
    double from = ev >= 0 ? floor(ev / tick_s + 1e-9) * tick_s : warm;
    o->min_hit_rate = NAN;
    o->recovery_s = NAN;
    size_t first = s->n_series;
    for (size_t i = 0; i < s->n_series; i++) {
        const struct tick_point *p = &s->series[i];
        if (p->t_s + 1e-12 < from || p->t_s + 1e-12 < warm)
            continue;
        if (first == s->n_series)
            first = i;
        if (!isnan(p->hit_rate) && (isnan(o->min_hit_rate) || p->hit_rate < o->min_hit_rate))
            o->min_hit_rate = p->hit_rate;
    }
    if (ev >= 0 && !isnan(o->baseline_hit_rate)) {
        const size_t window = 10;
        for (size_t i = first; i + window <= s->n_series; i++) {
            size_t k = 0;
            while (k < window) {
                double h = s->series[i + k].hit_rate;
                if (isnan(h) || fabs(h - o->baseline_hit_rate) > 0.01)
                    break;
                k++;
            }
            if (k == window) {
                o->recovery_s = MAX(0.0, s->series[i].t_s - ev);
                break;
            }
            i += k; /* the window cannot start before the tick that broke it */
        }
    }
    o->ejections = s->tot.ejections;
    o->cascade_removals = s->tot.cascade_removals;
    o->max_ejected = s->tot.max_ejected;
    o->instance_ejections = s->tot.instance_ejections;
    o->readmissions = s->tot.readmissions;
    o->stale_reads = s->tot.stale_reads;
    o->stale_overwrites = s->tot.stale_overwrites;
    o->clobbers = s->tot.clobbers;
    o->keys_moved = s->tot.keys_moved;
    o->timeouts = s->tot.timeouts;
    o->errors = s->tot.errors;
    o->db_reads = s->tot.db_reads;
    o->db_writes = s->tot.db_writes;
    int64_t top = 0, all = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        top = MAX(top, s->nodes[i].gets_total);
        all += s->nodes[i].gets_total;
    }
    o->max_node_share = all ? (double)top / (double)all : NAN;
}
