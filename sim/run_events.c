/*
 * run_events.c — applying the scenario's events to the models, and ending
 * those with a `for`. The loader (sim/scenario*.c) has checked every event
 * against the membership at its moment, so nothing here can be invalid.
 *
 * Membership events (add, remove, an address change under node_key:
 * address) change the authoritative membership and ask for a publication;
 * every change at one instant becomes one ring epoch (models/membership.c).
 */
#include <assert.h>
#include <stdlib.h>

#include "models/client.h"
#include "models/health.h"
#include "models/membership.h"
#include "models/node.h"
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

static void add_node(struct sim *s, const struct event_cfg *e)
{
    struct node *n = event_node(s, e);
    node_join(s, n, e->address, e->weight);
    membership_set_member(s, n->index, true);
    sim_event(s, event_kind_name(e->kind), n->id, "address %s, weight %g", n->address, n->weight);
    membership_changed(s, "add_node", n);
}

static void remove_node(struct sim *s, const struct event_cfg *e)
{
    struct node *n = event_node(s, e);
    node_leave(s, n);
    membership_set_member(s, n->index, false);
    health_node_left(s, n->index);
    sim_event(s, event_kind_name(e->kind), n->id, "%s", "");
    membership_changed(s, "remove_node", n);
}

static void slow_node(struct sim *s, const struct event_cfg *e, uint32_t idx)
{
    struct node *n = event_node(s, e);
    node_slow(n, e->factor, e->latency_ns, idx);
    char lat[32], dur[32];
    format_duration(e->latency_ns, lat, sizeof lat);
    if (e->for_ns)
        format_duration(e->for_ns, dur, sizeof dur);
    else
        snprintf(dur, sizeof dur, "the rest of the run");
    sim_event(s, event_kind_name(e->kind), n->id, "service x%g, +%s latency, for %s", e->factor, lat, dur);
}

static void split_brain(struct sim *s, const struct event_cfg *e, uint32_t idx)
{
    struct strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < e->n_instances; i++) {
        client_freeze(s, e->instances[i], idx);
        sb_printf(&sb, "%s%u", i ? "," : "", e->instances[i]);
    }
    char dur[32];
    format_duration(e->for_ns, dur, sizeof dur);
    sim_event(s, event_kind_name(e->kind), NULL, "instances %s frozen on their ring epoch for %s", sb.buf,
              dur);
    sb_deinit(&sb);
}

static void set_address(struct sim *s, const struct event_cfg *e)
{
    struct node *n = event_node(s, e);
    node_set_address(n, e->address);
    sim_event(s, event_kind_name(e->kind), n->id, "%s", n->address);
    if (s->pp.node_key_address && membership_is_member(s, n->index))
        membership_changed(s, "set_address", n);
}

void run_scenario_event(struct sim *s, uint32_t idx)
{
    const struct event_cfg *e = &s->sc->events[idx];
    struct node *n;
    switch (e->kind) {
    case EV_ADD_NODE:
        add_node(s, e);
        break;
    case EV_REMOVE_NODE:
        remove_node(s, e);
        break;
    case EV_SLOW_NODE:
        slow_node(s, e, idx);
        break;
    case EV_CRASH_NODE:
        n = event_node(s, e);
        node_crash(s, n);
        sim_event(s, event_kind_name(e->kind), n->id, "%s", "");
        break;
    case EV_RESTART_NODE:
        n = event_node(s, e);
        node_restart(s, n);
        sim_event(s, event_kind_name(e->kind), n->id, "back, empty");
        break;
    case EV_SPLIT_BRAIN:
        split_brain(s, e, idx);
        break;
    case EV_SET_QPS:
        workload_set_qps(s->wl, s->eng.now_ns, e->qps);
        sim_event(s, event_kind_name(e->kind), NULL, "%g requests per second", e->qps);
        break;
    case EV_SET_ADDRESS:
        set_address(s, e);
        break;
    case EV_HOT_KEY:
        workload_set_hot(s->wl, s->sc, s->eng.now_ns);
        sim_event(s, event_kind_name(e->kind), NULL, "%s takes %g of requests%s", e->key, e->share,
                  e->for_ns ? "" : " for the rest of the run");
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
        if (node_slow_end(n, idx))
            sim_event(s, "slow_node_end", n->id, "back to normal speed");
        break;
    }
    case EV_SPLIT_BRAIN:
        for (size_t i = 0; i < e->n_instances; i++)
            client_unfreeze(s, e->instances[i], idx);
        sim_event(s, "split_brain_end", NULL, "instances adopt epoch %u",
                  membership_latest(s)->id);
        break;
    case EV_HOT_KEY:
        workload_set_hot(s->wl, s->sc, s->eng.now_ns);
        sim_event(s, "hot_key_end", NULL, "%s back to its usual share", e->key);
        break;
    default:
        break;
    }
}
