/*
 * run_events.c — applying the scenario's events to the models, and ending
 * those with a `for`. The loader (sim/scenario*.c) has checked every event
 * against the membership at its moment, so nothing here can be invalid.
 *
 * Membership events (add, remove, an address change under node_key:
 * address — not one to the address the node has) change the authoritative
 * membership and ask for a publication; every change at one instant
 * becomes one ring epoch (models/membership.c). So do set_weight and
 * set_vnodes steps and set_routing. An event that leaves its value as it
 * is (the same address, weight, vnodes or routing) is recorded with
 * "unchanged: no new epoch" and publishes nothing.
 * migrate_slots queues a slot migration (models/migrate.c).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cures.h"
#include "models/client.h"
#include "models/health.h"
#include "models/membership.h"
#include "models/migrate.h"
#include "models/node.h"
#include "models/trace_reader.h"
#include "models/transfer.h"
#include "models/workload.h"
#include "sim/run_internal.h"

static struct node *event_node(struct sim *s, const struct event_cfg *e)
{
    int i = node_find(s, e->node);
    assert(i >= 0); /* the loader checked every id */
    return &s->nodes[i];
}

static void membership_changed(struct sim *s, const char *what, const struct node *n)
{
    char why[300];
    snprintf(why, sizeof why, "%s %s", what, n->id);
    membership_change(s, why);
}

/* A node back after leaving is a fresh node: an instance frozen on an
 * epoch that still held it may have ejected it after it left (its requests
 * there were never answered); that ejection goes, and the instance's view
 * is re-derived at once (on its own epoch; the one the return publishes
 * follows as usual). */
static void node_returns(struct sim *s, uint32_t node)
{
    uint8_t *had = xcalloc(s->n_inst + 1, 1);
    for (uint32_t j = 0; j < s->n_inst; j++)
        had[j] = health_inst_ejected(s, j, node);
    health_node_left(s, node);
    for (uint32_t j = 0; j < s->n_inst; j++)
        if (had[j] && client_refresh_view(s, &s->inst[j]))
            break; /* out of memory: the run fails */
    free(had);
}

/* The gradual change a node's weight (vnodes: its vnodes) follows: the
 * latest set_weight (set_vnodes) of it; 0, none. */
static uint32_t *gradual_of(struct sim *s, uint32_t node, bool vnodes)
{
    if (!s->gradual)
        s->gradual = xcalloc(2 * (size_t)s->n_nodes + 1, sizeof(*s->gradual));
    return &s->gradual[2 * (size_t)node + vnodes];
}

static void add_node(struct sim *s, const struct event_cfg *e, uint32_t idx)
{
    struct node *n = event_node(s, e);
    bool stays = n->state == NODE_UP; /* removed with a drain still running: it stays */
    if (stays)
        transfer_cancel(s, n->index);
    else
        node_returns(s, n->index);
    /* the weight is this event's from now: steps left of a set_weight are
     * dropped; a node that comes back new has the routing's vnodes too */
    *gradual_of(s, n->index, false) = 0;
    if (!stays) {
        *gradual_of(s, n->index, true) = 0;
        membership_set_vnodes(s, n->index, 0);
    }
    if (node_join(s, n, e->address, e->weight, e->zone, &e->cache)) {
        sim_fail(s, "out of memory for the queue of node %s", n->id);
        return;
    }
    bool empty = e->has_take_slots && !e->take_slots;
    sim_event(s, event_kind_name(e->kind), n->id, "address %s, weight %g%s", n->address,
              n->weight, e->warm.rate > 0 ? "; warming before it enters the ring"
                         : empty          ? "; holding no slot" : "");
    if (e->warm.rate > 0) { /* a staged join: the transfer makes it a member */
        transfer_start_join(s, n->index, idx);
        return;
    }
    if (empty) /* slots: it meets the cluster; migrations give it slots */
        membership_add_without_slots(s, n->index);
    else
        membership_set_member(s, n->index, true);
    membership_changed(s, empty ? "add_node (no slots)" : "add_node", n);
}

static void remove_node(struct sim *s, const struct event_cfg *e, uint32_t idx)
{
    struct node *n = event_node(s, e);
    transfer_cancel(s, n->index); /* a join still warming ends here */
    bool member = membership_is_member(s, n->index);
    if (e->drain.rate > 0 && member) {
        sim_event(s, event_kind_name(e->kind), n->id, "draining before it leaves");
        transfer_start_drain(s, n->index, idx);
        return;
    }
    node_leave(s, n);
    membership_set_member(s, n->index, false);
    health_node_left(s, n->index);
    sim_event(s, event_kind_name(e->kind), n->id, "%s",
              member ? "" : "it was warming, not yet in the ring: no epoch");
    if (member) /* one still warming was never in the ring: nothing to publish */
        membership_changed(s, "remove_node", n);
}

static void slow_node(struct sim *s, const struct event_cfg *e, uint32_t idx)
{
    struct node *n = event_node(s, e);
    node_slow(s, n, e->factor, e->latency_ns, idx);
    char lat[32], dur[32];
    format_duration(e->latency_ns, lat, sizeof lat);
    if (e->for_ns)
        format_duration(e->for_ns, dur, sizeof dur);
    else
        snprintf(dur, sizeof dur, "the rest of the run");
    sim_event(s, event_kind_name(e->kind), n->id, "service x%g, +%s latency, for %s", e->factor, lat, dur);
}

static void split_brain(struct sim *s, const struct event_cfg *e)
{
    struct strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < e->n_instances; i++) {
        client_freeze(s, e->instances[i], s->eng.now_ns + e->for_ns);
        sb_printf(&sb, "%s%u", i ? "," : "", e->instances[i]);
    }
    char dur[32];
    format_duration(e->for_ns, dur, sizeof dur);
    sim_event(s, event_kind_name(e->kind), NULL, "instances %s frozen on their ring epoch for %s", sb.buf,
              dur);
    sb_deinit(&sb);
}

/* An address change; one to the address the node has is no change: the
 * event is recorded, and nothing moves or is published. */
static void set_address(struct sim *s, const struct event_cfg *e)
{
    struct node *n = event_node(s, e);
    if (!strcmp(n->address, e->address ? e->address : n->id)) {
        sim_event(s, event_kind_name(e->kind), n->id, "%s (unchanged: no new epoch)", n->address);
        return;
    }
    node_set_address(n, e->address);
    sim_event(s, event_kind_name(e->kind), n->id, "%s", n->address);
    if (!membership_routing(s)->node_key_address)
        return;
    if (membership_is_member(s, n->index))
        membership_changed(s, "set_address", n);
    else if (transfer_active(s, n->index))
        transfers_replan(s); /* warming: where it will be in the ring moved */
}

/* ---- gradual and protocol changes ------------------------------------------------- */

/* The node's value before a gradual change, kept by step 1 for the others. */
static double *step_from(struct sim *s, uint32_t idx)
{
    if (!s->step_from)
        s->step_from = xcalloc(s->sc->n_events + 1, sizeof(*s->step_from));
    return &s->step_from[idx];
}

/* Step `step` of steps: the node's weight or vnodes moves that far from
 * where it was to the target, and a new epoch is asked for. A step that
 * leaves the value as it is (a target equal to it, or vnodes rounding to
 * the same count) is no change: recorded, nothing published. */
static void gradual_step(struct sim *s, const struct event_cfg *e, uint32_t idx, uint32_t step)
{
    struct node *n = event_node(s, e);
    double from = *step_from(s, idx), frac = (double)step / e->steps;
    char why[300];
    bool same;
    if (e->kind == EV_SET_WEIGHT) {
        double w = step == e->steps ? e->weight : from + (e->weight - from) * frac;
        same = w == n->weight;
        node_set_weight(n, w);
        snprintf(why, sizeof why, "set_weight %s %g (step %u of %u%s)", n->id, w, step, e->steps,
                 same ? "; unchanged: no new epoch" : "");
    } else {
        uint32_t v = step == e->steps ? e->vnodes
                                      : (uint32_t)llround(from + ((double)e->vnodes - from) * frac);
        v = v ? v : 1;
        same = v == membership_node_vnodes(s, n->index);
        /* set all the same: the node's own count no longer follows the routing's */
        membership_set_vnodes(s, n->index, v);
        snprintf(why, sizeof why, "set_vnodes %s %u (step %u of %u%s)", n->id, v, step, e->steps,
                 same ? "; unchanged: no new epoch" : "");
    }
    sim_event(s, event_kind_name(e->kind), n->id, "%s", why + strlen(event_kind_name(e->kind)) + 1);
    if (same)
        return;
    if (membership_is_member(s, n->index))
        membership_change(s, why);
    else if (transfer_active(s, n->index))
        transfers_replan(s); /* warming: the share it will own changed */
}

/* A set_weight (set_vnodes) replaces the steps left of an earlier one of the
 * same node: from now on the node's weight (vnodes) follows the latest. */
static void gradual_start(struct sim *s, const struct event_cfg *e, uint32_t idx)
{
    struct node *n = event_node(s, e);
    uint32_t *follows = gradual_of(s, n->index, e->kind == EV_SET_VNODES);
    *follows = idx + 1;
    *step_from(s, idx) = e->kind == EV_SET_WEIGHT ? n->weight : membership_node_vnodes(s, n->index);
    gradual_step(s, e, idx, 1);
    for (uint32_t i = 2; i <= e->steps; i++)
        sim_schedule(s, s->eng.now_ns + (int64_t)(i - 1) * e->every_ns, EVK_SCENARIO_STEP, idx, i);
}

void run_scenario_step(struct sim *s, uint32_t idx, uint32_t step)
{
    const struct event_cfg *e = &s->sc->events[idx];
    struct node *n = event_node(s, e);
    uint32_t *follows = gradual_of(s, n->index, e->kind == EV_SET_VNODES);
    if (*follows != idx + 1)
        return; /* a later set_weight (set_vnodes) of the node, or its add_node, replaced it */
    if (n->state == NODE_REMOVED) { /* it left the cluster: the steps left go with it */
        *follows = 0;
        return;
    }
    gradual_step(s, e, idx, step);
}

/* Whether b is the routing a is: every parameter a set_routing may name. */
static bool same_routing(const struct place_params *a, const struct place_params *b)
{
    return a->algo == b->algo && a->hash == b->hash && a->vnodes == b->vnodes
           && !strcmp(a->point_format ? a->point_format : "", b->point_format ? b->point_format : "")
           && a->node_key_address == b->node_key_address && a->load_factor == b->load_factor
           && a->maglev_size == b->maglev_size;
}

/* A change of the routing protocol for every node at once: a new routing
 * generation, published as one epoch (almost every key moves). */
static void set_routing(struct sim *s, const struct event_cfg *e)
{
    const struct routing_change *c = &e->routing;
    struct place_params pp = *membership_routing(s);
    struct strbuf what;
    sb_init(&what);
    if (c->has_algorithm) {
        pp.algo = c->algorithm;
        sb_printf(&what, " algorithm=%s", place_algo_name(pp.algo));
    }
    if (c->has_hash) {
        pp.hash = c->hash;
        sb_printf(&what, " hash=%s", hash_name(pp.hash));
    }
    if (c->has_vnodes) {
        pp.vnodes = c->vnodes;
        sb_printf(&what, " vnodes=%u", pp.vnodes);
    }
    if (c->has_point_format) {
        pp.point_format = c->point_format;
        sb_printf(&what, " point_format=%s", pp.point_format);
    }
    if (c->has_node_key) {
        pp.node_key_address = c->node_key_address;
        sb_printf(&what, " node_key=%s", pp.node_key_address ? "address" : "id");
    }
    if (same_routing(membership_routing(s), &pp)) {
        sim_event(s, event_kind_name(e->kind), NULL, "%s (unchanged: no new epoch)",
                  what.len ? what.buf + 1 : "");
        sb_deinit(&what);
        return;
    }
    sim_event(s, event_kind_name(e->kind), NULL, "%s", what.len ? what.buf + 1 : "(no change)");
    if (!membership_set_routing(s, &pp)) {
        char why[300];
        snprintf(why, sizeof why, "set_routing%s", what.buf);
        membership_change(s, why);
    }
    sb_deinit(&what);
}

/* Every running node of the zone crashes at this instant. */
static void crash_zone(struct sim *s, const struct event_cfg *e)
{
    struct strbuf which;
    sb_init(&which);
    for (uint32_t k = 0; k < s->n_nodes; k++) { /* in id order, as the detail lists them */
        struct node *n = &s->nodes[s->by_id[k]];
        if (n->gutter || n->state != NODE_UP || strcmp(n->zone, e->zone))
            continue;
        node_crash(s, n);
        sb_printf(&which, "%s%s", which.len ? "," : "", n->id);
    }
    sim_event(s, event_kind_name(e->kind), NULL, "zone %s: %s crashed", e->zone,
              which.len ? which.buf : "no running node");
    sb_deinit(&which);
}

void run_scenario_event(struct sim *s, uint32_t idx)
{
    const struct event_cfg *e = &s->sc->events[idx];
    struct node *n;
    switch (e->kind) {
    case EV_ADD_NODE:
        add_node(s, e, idx);
        break;
    case EV_REMOVE_NODE:
        remove_node(s, e, idx);
        break;
    case EV_SLOW_NODE:
        slow_node(s, e, idx);
        break;
    case EV_CRASH_NODE:
        n = event_node(s, e);
        if (n->state != NODE_UP) { /* a drained node's drain has ended, or a zone's crash took it */
            sim_event(s, event_kind_name(e->kind), n->id, "nothing happens: the node is %s",
                      n->state == NODE_CRASHED ? "down already" : "no longer in the cluster");
            break;
        }
        node_crash(s, n);
        sim_event(s, event_kind_name(e->kind), n->id, "%s", "");
        break;
    case EV_RESTART_NODE:
        n = event_node(s, e);
        node_restart(s, n);
        sim_event(s, event_kind_name(e->kind), n->id, "back, empty");
        break;
    case EV_SPLIT_BRAIN:
        split_brain(s, e);
        break;
    case EV_SET_QPS:
        workload_set_qps(s->wl, s->eng.now_ns, e->qps, e->over_ns);
        if (e->over_ns) {
            char over[32];
            format_duration(e->over_ns, over, sizeof over);
            sim_event(s, event_kind_name(e->kind), NULL, "%g requests per second in %s (a ramp)",
                      e->qps, over);
        } else {
            sim_event(s, event_kind_name(e->kind), NULL, "%g requests per second", e->qps);
        }
        break;
    case EV_SHIFT_POPULARITY:
        workload_shift_popularity(s->wl);
        sim_event(s, event_kind_name(e->kind), NULL,
                  "popularity ranks move to other keys (a new permutation)");
        break;
    case EV_SET_ADDRESS:
        set_address(s, e);
        break;
    case EV_HOT_KEY:
        workload_set_hot(s->wl, s->sc, s->eng.now_ns);
        cures_hot_changed(s); /* its replica reads or split, if it has them */
        sim_event(s, event_kind_name(e->kind), NULL, "%s takes %g%% of requests%s%s%s", e->key,
                  100 * e->share, e->for_ns ? "" : " for the rest of the run",
                  e->split > 1 ? "; split" : e->replicas > 1 ? "; replica reads" : "",
                  e->split > 1 || e->replicas > 1 ? " on" : "");
        break;
    case EV_SET_WEIGHT:
    case EV_SET_VNODES:
        gradual_start(s, e, idx);
        break;
    case EV_SET_ROUTING:
        set_routing(s, e);
        break;
    case EV_MIGRATE_SLOTS: {
        char sl[64];
        if (e->migrate.slots.count)
            snprintf(sl, sizeof sl, "%u slot%s", e->migrate.slots.count,
                     e->migrate.slots.count == 1 ? "" : "s");
        else
            snprintf(sl, sizeof sl, "slots %u..%u", e->migrate.slots.first,
                     e->migrate.slots.last);
        sim_event(s, event_kind_name(e->kind), e->node, "%s to %s at %g keys a second", sl,
                  e->migrate.to, e->migrate.rate);
        migrate_enqueue(s, idx);
        break;
    }
    case EV_CRASH_ZONE:
        crash_zone(s, e);
        break;
    case EV_KIND_COUNT:
        break;
    }
    if (e->for_ns && (e->kind == EV_SLOW_NODE || e->kind == EV_SPLIT_BRAIN
                      || e->kind == EV_HOT_KEY))
        sim_schedule(s, s->eng.now_ns + e->for_ns, EVK_SCENARIO_END, idx, 0);
}

void run_scenario_event_end(struct sim *s, uint32_t idx)
{
    const struct event_cfg *e = &s->sc->events[idx];
    switch (e->kind) {
    case EV_SLOW_NODE: {
        struct node *n = event_node(s, e);
        if (node_slow_end(s, n, idx))
            sim_event(s, "slow_node_end", n->id, "back to normal speed");
        break;
    }
    case EV_SPLIT_BRAIN: {
        struct strbuf held;
        sb_init(&held);
        for (size_t i = 0; i < e->n_instances; i++)
            if (!client_unfreeze(s, e->instances[i]))
                sb_printf(&held, "%s%u", held.len ? "," : "", e->instances[i]);
        if (held.len)
            sim_event(s, "split_brain_end", NULL,
                      "instances adopt epoch %u but %s (frozen by a longer split_brain)",
                      membership_latest(s)->id, held.buf);
        else
            sim_event(s, "split_brain_end", NULL, "instances adopt epoch %u",
                      membership_latest(s)->id);
        sb_deinit(&held);
        break;
    }
    case EV_HOT_KEY:
        workload_set_hot(s->wl, s->sc, s->eng.now_ns);
        cures_hot_changed(s);
        sim_event(s, "hot_key_end", NULL, "%s: this hot_key's share ends (the key's is now "
                  "%g%%)", e->key, 100 * workload_hot_share(s->wl, e->key));
        break;
    default:
        break;
    }
}

void run_trace_end(struct sim *s)
{
    const struct trace_reader *t = s->wl->trace;
    sim_event(s, "trace_end", NULL,
              "%llu requests of %u keys replayed from %s; no more requests to the end of the run",
              (unsigned long long)t->n_requests, t->n_keys, t->file);
}
