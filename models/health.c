/*
 * health.c — ejecting unhealthy nodes, and putting them back.
 *
 * client mode (twemproxy's auto_eject_hosts): each instance counts
 *   consecutive failures (timeouts, error replies) per node; any success
 *   resets the count. At failure_limit the instance ejects the node from
 *   its own view for retry_after, then puts it back with a clean count.
 *   Instances eject at different moments and so disagree meanwhile.
 * central mode: a coordinator probes every member every probe_interval (a
 *   probe is a request through the node's queue, timed out like a client
 *   request); failure_limit consecutive failed probes eject it; after
 *   retry_after, the next passing probe readmits it. Each change publishes
 *   a ring epoch that instances adopt after propagation_delay.
 * Guards, in the scope that ejects (an instance, or the coordinator):
 *   cooldown — least time between two ejections; max_ejected — the share of
 *   members that may be ejected at once (past it, fail open: no more are
 *   ejected). A held-back ejection is recorded once, and retried at the
 *   next failure.
 *
 * Node-level episodes: a node is "ejected" while at least one instance (or
 * the coordinator) has it ejected. An episode's start is an ejection in the
 * summary; if at that moment the node has no injected fault (not slow, not
 * crashed) it is a cascade removal: a healthy node pushed over by load.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

int health_init(struct sim *s)
{
    struct coordinator *c = &s->coord;
    memset(c, 0, sizeof(*c));
    c->fails = xcalloc(s->n_nodes + 1, sizeof(*c->fails));
    c->ejected_at = xmalloc((s->n_nodes + 1) * sizeof(*c->ejected_at));
    c->held = xcalloc(s->n_nodes + 1, 1);
    for (uint32_t i = 0; i <= s->n_nodes; i++)
        c->ejected_at[i] = -1;
    c->last_eject_ns = INT64_MIN;
    if (s->sc->health.mode == HEALTH_CENTRAL)
        return sim_schedule(s, s->sc->health.probe_interval_ns, EVK_PROBE_ROUND, 0, 0);
    return 0;
}

void health_deinit(struct sim *s)
{
    free(s->coord.fails);
    free(s->coord.ejected_at);
    free(s->coord.held);
}

void health_node_ejected(struct sim *s, struct node *n, const char *by)
{
    if (n->ejectors++)
        return;
    bool cascade = !node_has_fault(n);
    s->tot.ejections++;
    if (cascade)
        s->tot.cascade_removals++;
    s->nodes_ejected_now++;
    if ((int64_t)s->nodes_ejected_now > s->tot.max_ejected)
        s->tot.max_ejected = s->nodes_ejected_now;
    if (cascade)
        sim_event(s, "cascade_removal", n, "%s ejected a node with no injected fault", by);
}

void health_node_readmitted(struct sim *s, struct node *n)
{
    if (n->ejectors && --n->ejectors == 0)
        s->nodes_ejected_now--;
}

/* Members of the ring the scope sees (for max_ejected). */
static uint32_t members_of(const struct sim *s, const uint8_t *member)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        m += member[i] != 0;
    return m;
}

/* Whether a guard holds an ejection back; logs the first hold. */
static bool guard_holds(struct sim *s, const char *scope, struct node *n, int64_t last_ns,
                        uint32_t n_ejected, uint32_t members, uint8_t *held)
{
    const struct health_cfg *h = &s->sc->health;
    const char *why = NULL;
    char detail[160];
    if (h->cooldown_ns && last_ns != INT64_MIN && s->now_ns - last_ns < h->cooldown_ns) {
        why = "cooldown";
        char d[32];
        format_duration(h->cooldown_ns, d, sizeof d);
        snprintf(detail, sizeof detail, "%s: held back by cooldown %s", scope, d);
    } else {
        uint32_t cap = (uint32_t)floor(h->max_ejected * (double)members + 1e-9);
        if (n_ejected + 1 > cap) {
            why = "max_ejected";
            snprintf(detail, sizeof detail, "%s: held back by max_ejected %g (%u of %u out)", scope,
                     h->max_ejected, n_ejected, members);
        }
    }
    if (!why)
        return false;
    if (!*held) {
        *held = 1;
        sim_event(s, "eject_held", n, "%s", detail);
    }
    return true;
}

/* ---- client mode ------------------------------------------------------------------ */

void health_success(struct sim *s, struct instance *in, uint32_t node)
{
    if (s->sc->health.mode != HEALTH_CLIENT)
        return;
    in->fails[node] = 0;
    in->held[node] = 0;
}

void health_failure(struct sim *s, struct instance *in, uint32_t node, const char *what)
{
    const struct health_cfg *h = &s->sc->health;
    if (h->mode != HEALTH_CLIENT || node == PLACE_NONE || s->nodes[node].gutter
        || in->ejected[node])
        return;
    if (in->fails[node] < UINT16_MAX)
        in->fails[node]++;
    if (in->fails[node] < h->failure_limit)
        return;
    struct node *n = &s->nodes[node];
    char scope[32];
    snprintf(scope, sizeof scope, "instance %u", in->index);
    const struct epoch *e = membership_epoch(s, in->epoch);
    if (guard_holds(s, scope, n, in->last_eject_ns, in->n_ejected, members_of(s, e->member),
                    &in->held[node]))
        return;
    in->ejected[node] = 1;
    in->n_ejected++;
    in->last_eject_ns = s->now_ns;
    in->fails[node] = 0;
    in->held[node] = 0;
    s->tot.instance_ejections++;
    char d[32];
    format_duration(h->retry_after_ns, d, sizeof d);
    sim_event(s, "eject", n, "instance %u: %u consecutive failures (last: %s); retry after %s",
              in->index, h->failure_limit, what, d);
    health_node_ejected(s, n, scope);
    sim_schedule(s, s->now_ns + h->retry_after_ns, EVK_READMIT, in->index, node);
    client_refresh_view(s, in);
}

static void client_readmit(struct sim *s, uint32_t inst, uint32_t node)
{
    struct instance *in = &s->inst[inst];
    if (!in->ejected[node])
        return;
    in->ejected[node] = 0;
    in->n_ejected--;
    in->fails[node] = 0;
    sim_event(s, "readmit", &s->nodes[node], "instance %u", inst);
    s->tot.readmissions++;
    health_node_readmitted(s, &s->nodes[node]);
    client_refresh_view(s, in);
}

/* ---- central mode ------------------------------------------------------------------ */

static void probe_round(struct sim *s)
{
    const struct health_cfg *h = &s->sc->health;
    int64_t timeout = s->sc->clients.timeout_ns;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct node *n = &s->nodes[i];
        if (!s->cur_member[i] || n->gutter)
            continue;
        int64_t done, t_arrive = s->now_ns + n->half_rtt_ns;
        int rc = node_submit(s, n, t_arrive, &done);
        int64_t at = s->now_ns + timeout;
        uint32_t ok = 0;
        if (rc == 0) {
            int64_t t_resp = done + n->slow_latency_ns + n->half_rtt_ns;
            if (t_resp - s->now_ns <= timeout) {
                at = t_resp;
                ok = 1;
            }
        } else if (rc < 0) {
            at = t_arrive + n->half_rtt_ns; /* an error reply */
        }
        sim_schedule(s, at, EVK_PROBE_RESULT, i, ok | (n->incarnation << 1));
    }
    sim_schedule(s, s->now_ns + h->probe_interval_ns, EVK_PROBE_ROUND, 0, 0);
}

static void probe_result(struct sim *s, uint32_t node, uint32_t b)
{
    const struct health_cfg *h = &s->sc->health;
    struct coordinator *c = &s->coord;
    struct node *n = &s->nodes[node];
    bool ok = (b & 1) && (b >> 1) == (n->incarnation & 0x7fffffff) && n->state == NODE_UP;
    if (!s->cur_member[node])
        return; /* left the cluster meanwhile */
    if (ok) {
        c->fails[node] = 0;
        c->held[node] = 0;
        if (c->ejected_at[node] >= 0 && s->now_ns - c->ejected_at[node] >= h->retry_after_ns) {
            c->ejected_at[node] = -1;
            c->n_ejected--;
            s->cur_ejected[node] = 0;
            sim_event(s, "readmit", n, "coordinator: probe passed after retry_after");
            s->tot.readmissions++;
            health_node_readmitted(s, n);
            membership_publish(s, s->cur_member, s->cur_ejected, "readmit");
        }
        return;
    }
    if (c->ejected_at[node] >= 0)
        return;
    if (c->fails[node] < UINT16_MAX)
        c->fails[node]++;
    if (c->fails[node] < h->failure_limit)
        return;
    if (guard_holds(s, "coordinator", n, c->last_eject_ns, c->n_ejected,
                    members_of(s, s->cur_member), &c->held[node]))
        return;
    c->ejected_at[node] = s->now_ns;
    c->n_ejected++;
    c->last_eject_ns = s->now_ns;
    c->fails[node] = 0;
    s->cur_ejected[node] = 1;
    s->tot.instance_ejections++;
    sim_event(s, "eject", n, "coordinator: %u failed probes", h->failure_limit);
    health_node_ejected(s, n, "coordinator");
    membership_publish(s, s->cur_member, s->cur_ejected, "eject");
}

void health_handle(struct sim *s, const struct event *e)
{
    switch (event_kind(e)) {
    case EVK_READMIT: client_readmit(s, e->a, e->b); break;
    case EVK_PROBE_ROUND: probe_round(s); break;
    case EVK_PROBE_RESULT: probe_result(s, e->a, e->b); break;
    case EVK_ADOPT: client_adopt(s, &s->inst[e->a], e->b); break;
    default: break;
    }
}
