/*
 * health.c — ejecting unhealthy nodes, and putting them back.
 *
 * client mode (twemproxy's auto_eject_hosts): each instance counts
 *   consecutive failures (timeouts, error replies) per node; any success
 *   resets the count, when the instance learns of it: a hit is served
 *   before its reply is back, so its success waits for the reply
 *   (EVK_HIT_REPLY) unless no failure can reach the instance sooner
 *   (health_hit). At failure_limit the instance ejects the node from
 *   its own view for retry_after, then puts it back with a clean count.
 *   Instances eject at different moments and so disagree meanwhile. The
 *   instance's routing view is the client's: these functions say, by their
 *   return value, when it must be re-derived.
 * central mode: a coordinator probes every member every probe_interval (a
 *   probe is a request through the node's queue, timed out like a client
 *   request: a failure is known at the timeout, or at an error reply if
 *   sooner; a probe that cannot arrive within the timeout fails at it).
 *   As for a GET, the node sends its reply when it has served the probe,
 *   and a reply sent arrives whatever becomes of the node: a crash before
 *   the service's end (on the probe's way, queued, in service, or at that
 *   very instant — the crash comes first) loses the probe, which fails at
 *   the timeout; a crash after it does not, and the reply passes (it may
 *   readmit the node). The result, due when the reply arrives, is judged
 *   by the service's end (kept in `served`) against the end of the
 *   incarnation that queued it (node_incarnation_end_ns). failure_limit
 *   consecutive failed probes eject it; after retry_after, the next passing
 *   probe readmits it. Each change asks the membership for a new ring epoch
 *   (one per instant), which instances adopt after propagation_delay.
 * Guards, in the scope that ejects (an instance, or the coordinator):
 *   cooldown — least time between two ejections; max_ejected — the share of
 *   members that may be ejected at once (past it, fail open: no more are
 *   ejected). A held-back ejection is recorded once per streak of failures
 *   (a success ends the streak), and retried at the next failure.
 * A node that leaves the membership takes every ejection of it along
 *   (health_node_left, again when it comes back): a readmission scheduled
 *   before carries the count of its leaves then and is void. Failures of
 *   GETs and probes sent before it left (or came back) are not counted; an
 *   instance frozen on an older epoch may still eject it (its GETs sent
 *   after), and forgets that when it adopts an epoch without the node
 *   (health_inst_adopted).
 *
 * Node-level episodes: a node is "ejected" while at least one instance (or
 * the coordinator) has it ejected (ejectors > 0). An episode's start is an
 * ejection in the summary; if at that moment the node has no injected fault
 * (not slow, not crashed, not removed), nor had one within clients.timeout
 * before (the failures that eject it are of requests sent in that window:
 * a crash and restart a moment before, or a slowness just ended, caused
 * them; a slowness lasts until the work queued meanwhile is served), it is
 * a cascade removal: a healthy node pushed over by load.
 *
 * Invariants (health_check): ejectors[i] == the instances with node i
 * ejected + (the coordinator has it ejected); nodes_ejected_now == the
 * nodes with ejectors > 0; each n_ejected counts its ejected[] set.
 */
#include "models/health.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/membership.h"
#include "models/net.h"
#include "models/node.h"

int health_create(struct sim *s)
{
    struct health *h = s->hl = xcalloc(1, sizeof(*s->hl));
    uint32_t n = s->n_nodes + 1;
    h->n_inst = s->sc->clients.instances;
    h->inst = xcalloc(h->n_inst, sizeof(*h->inst));
    for (uint32_t j = 0; j < h->n_inst; j++) {
        h->inst[j].fails = xcalloc(n, sizeof(*h->inst[j].fails));
        h->inst[j].ejected = xcalloc(n, 1);
        h->inst[j].held = xcalloc(n, 1);
        h->inst[j].last_eject_ns = INT64_MIN;
    }
    h->fails = xcalloc(n, sizeof(*h->fails));
    h->ejected_at = xmalloc(n * sizeof(*h->ejected_at));
    h->held = xcalloc(n, 1);
    h->ejectors = xcalloc(n, sizeof(*h->ejectors));
    h->left = xcalloc(n, sizeof(*h->left));
    h->left_ns = xmalloc(n * sizeof(*h->left_ns));
    for (uint32_t i = 0; i < n; i++) {
        h->ejected_at[i] = -1;
        h->left_ns[i] = INT64_MIN;
    }
    h->last_eject_ns = INT64_MIN;
    u64map_init(&h->served);
    if (s->sc->health.mode == HEALTH_CENTRAL) /* rounds at k × probe_interval, k >= 1 */
        return sim_schedule(s, s->sc->health.probe_interval_ns, EVK_PROBE_ROUND, 0, 0);
    return 0;
}

void health_destroy(struct sim *s)
{
    struct health *h = s->hl;
    if (!h)
        return;
    for (uint32_t j = 0; j < h->n_inst; j++) {
        free(h->inst[j].fails);
        free(h->inst[j].ejected);
        free(h->inst[j].held);
    }
    free(h->inst);
    free(h->fails);
    free(h->ejected_at);
    free(h->held);
    free(h->ejectors);
    free(h->left);
    free(h->left_ns);
    u64map_deinit(&h->served);
    free(h);
    s->hl = NULL;
}

/* ---- node-level episodes ------------------------------------------------------- */

static void node_ejected(struct sim *s, uint32_t node, const char *by)
{
    struct health *h = s->hl;
    if (h->ejectors[node]++)
        return;
    const struct node *n = &s->nodes[node];
    /* the failures that eject it concern requests (or probes) sent within
     * clients.timeout: a fault that ended in that window may have caused them */
    bool cascade = !node_fault_since(n, s->eng.now_ns - s->sc->clients.timeout_ns);
    h->ejections++;
    if (cascade)
        h->cascade_removals++;
    h->nodes_ejected_now++;
    if ((int64_t)h->nodes_ejected_now > h->max_ejected)
        h->max_ejected = h->nodes_ejected_now;
    if (cascade)
        sim_event(s, "cascade_removal", n->id, "%s ejected a node with no injected fault", by);
}

static void node_readmitted(struct sim *s, uint32_t node)
{
    struct health *h = s->hl;
    assert(h->ejectors[node] > 0);
    if (--h->ejectors[node] == 0) {
        assert(h->nodes_ejected_now > 0);
        h->nodes_ejected_now--;
    }
}

/* Whether a guard holds an ejection back; logs the first hold. */
static bool guard_holds(struct sim *s, const char *scope, uint32_t node, int64_t last_ns,
                        uint32_t n_ejected, uint32_t members, uint8_t *held)
{
    const struct health_cfg *h = &s->sc->health;
    const char *why = NULL;
    char detail[160];
    if (h->cooldown_ns && last_ns != INT64_MIN && s->eng.now_ns - last_ns < h->cooldown_ns) {
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
        sim_event(s, "eject_held", s->nodes[node].id, "%s", detail);
    }
    return true;
}

/* ---- client mode ------------------------------------------------------------------ */

void health_success(struct sim *s, uint32_t inst, uint32_t node)
{
    if (s->sc->health.mode != HEALTH_CLIENT)
        return;
    struct inst_health *ih = &s->hl->inst[inst];
    ih->fails[node] = 0;
    ih->held[node] = 0;
}

void health_hit(struct sim *s, uint32_t inst, uint32_t node, int64_t reply_ns)
{
    if (s->sc->health.mode != HEALTH_CLIENT)
        return;
    if (!net_failure_before(s, node, reply_ns))
        health_success(s, inst, node);
    else /* the node's leaves: a reply from before it left is not the new node's */
        sim_schedule(s, reply_ns, EVK_HIT_REPLY, inst, node | (uint32_t)s->hl->left[node] << 16);
}

void health_hit_reply(struct sim *s, uint32_t inst, uint32_t b)
{
    if ((b >> 16) == s->hl->left[b & 0xffff])
        health_success(s, inst, b & 0xffff);
}

bool health_failure(struct sim *s, uint32_t inst, uint32_t epoch, uint32_t node,
                    int64_t sent_ns, const char *what)
{
    const struct health_cfg *h = &s->sc->health;
    struct inst_health *ih = &s->hl->inst[inst];
    if (h->mode != HEALTH_CLIENT || node == PLACE_NONE || s->nodes[node].gutter
        || ih->ejected[node])
        return false;
    const struct epoch *e = membership_epoch(s, epoch);
    if (!e->member[node] || sent_ns < s->hl->left_ns[node])
        return false; /* a GET sent before the node left (and maybe came back: a new node) */
    if (ih->fails[node] < UINT32_MAX)
        ih->fails[node]++;
    if (ih->fails[node] < h->failure_limit)
        return false;
    char scope[32];
    snprintf(scope, sizeof scope, "instance %u", inst);
    uint32_t members = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        members += e->member[i] != 0;
    if (guard_holds(s, scope, node, ih->last_eject_ns, ih->n_ejected, members, &ih->held[node]))
        return false;
    ih->ejected[node] = 1;
    ih->n_ejected++;
    ih->last_eject_ns = s->eng.now_ns;
    ih->fails[node] = 0;
    ih->held[node] = 0;
    s->hl->instance_ejections++;
    char d[32];
    format_duration(h->retry_after_ns, d, sizeof d);
    sim_event(s, "eject", s->nodes[node].id,
              "instance %u: %u consecutive failures (last: %s); retry after %s", inst,
              h->failure_limit, what, d);
    node_ejected(s, node, scope);
    sim_schedule(s, s->eng.now_ns + h->retry_after_ns, EVK_READMIT, inst,
                 node | (uint32_t)s->hl->left[node] << 16);
    return true;
}

bool health_readmit(struct sim *s, uint32_t inst, uint32_t b)
{
    uint32_t node = b & 0xffff;
    struct inst_health *ih = &s->hl->inst[inst];
    if (!ih->ejected[node] || (b >> 16) != s->hl->left[node])
        return false; /* readmitted, or the node left since: that ejection is gone */
    ih->ejected[node] = 0;
    assert(ih->n_ejected > 0);
    ih->n_ejected--;
    ih->fails[node] = 0;
    sim_event(s, "readmit", s->nodes[node].id, "instance %u", inst);
    s->hl->readmissions++;
    node_readmitted(s, node);
    return true;
}

bool health_inst_adopted(struct sim *s, uint32_t inst, uint32_t epoch)
{
    struct inst_health *ih = &s->hl->inst[inst];
    if (!ih->n_ejected)
        return false;
    const struct epoch *e = membership_epoch(s, epoch);
    bool forgot = false;
    for (uint32_t i = 0; i < s->n_nodes && ih->n_ejected; i++) {
        if (!ih->ejected[i] || e->member[i])
            continue;
        ih->ejected[i] = 0;
        ih->n_ejected--;
        ih->fails[i] = 0;
        ih->held[i] = 0;
        node_readmitted(s, i);
        forgot = true;
    }
    return forgot;
}

/* ---- central mode ------------------------------------------------------------------ */

/* EVK_PROBE_RESULT's a: the node, an ok bit, and the node's incarnation
 * when the probe was queued (low 15 bits: fewer nodes than 2^16, and far
 * fewer crashes than 2^15 while one probe is out); b: the probe's round.
 * An ok probe's service end is in the coordinator's served map until its
 * result. */
#define PROBE_OK (1u << 16)
static uint32_t probe_tag(const struct node *n, bool ok)
{
    return n->index | (ok ? PROBE_OK : 0) | (n->incarnation & 0x7fffu) << 17;
}

static inline uint64_t probe_key(uint32_t node, uint32_t round)
{
    return (uint64_t)round << 16 | node;
}

/* A probe of node i sent at sent_ns (round `round`) reaches it at
 * t_arrive: through its queue like a request; the coordinator hears the
 * result when the reply arrives, or at the timeout (an error reply too,
 * when it comes later). */
static void probe_arrives(struct sim *s, uint32_t i, int64_t sent_ns, uint32_t round,
                          int64_t t_arrive)
{
    struct node *n = &s->nodes[i];
    int64_t timeout = s->sc->clients.timeout_ns, done;
    int rc = node_submit(s, n, t_arrive, &done);
    int64_t at = sent_ns + timeout;
    bool ok = false;
    if (rc == 0) {
        int64_t t_resp = net_reply_time(s, n, done + n->slow_latency_ns);
        if (t_resp - sent_ns <= timeout) {
            at = t_resp;
            ok = true;
        }
    } else if (rc < 0) {
        at = MIN(at, net_reply_time(s, n, t_arrive)); /* an error reply */
    }
    if (t_arrive - sent_ns > timeout)
        return; /* it came after the timeout, which failed it then (health_probe_round) */
    if (ok) /* its reply leaves when the node has served it, unless it crashed before */
        u64map_put(&s->hl->served, probe_key(i, round), (uint64_t)done);
    sim_schedule(s, MAX(at, s->eng.now_ns), EVK_PROBE_RESULT, probe_tag(n, ok), round);
}

/* The send time of the latest round at or before now whose number's low
 * 32 bits are b (a probe is out for less than 2^32 rounds). */
static int64_t round_sent(const struct sim *s, uint32_t b)
{
    int64_t interval = s->sc->health.probe_interval_ns;
    int64_t k_now = s->eng.now_ns / interval;
    return (k_now - (int64_t)(uint32_t)((uint32_t)k_now - b)) * interval;
}

void health_probe_round(struct sim *s)
{
    const struct health_cfg *h = &s->sc->health;
    int64_t now = s->eng.now_ns;
    for (uint32_t k = 0; k < s->n_nodes; k++) { /* in id order: so are the results' ties */
        uint32_t i = s->by_id[k];
        struct node *n = &s->nodes[i];
        if (!membership_is_member(s, i) || n->gutter)
            continue;
        /* the round's number tells the probe's send time when it arrives,
         * and when its result comes: a probe may arrive after the next
         * round's (probe_interval shorter than its delay, or jitter) */
        uint32_t round = (uint32_t)(now / h->probe_interval_ns);
        int64_t timeout = s->sc->clients.timeout_ns, delay;
        if (!s->net->arrival_events) { /* it arrives rtt/2 from now */
            delay = n->half_rtt_ns;
            health_probe_held(s, i, round, now + delay); /* or after a change (net.h) */
        } else {
            delay = net_probe_delay(s, n);
            sim_schedule(s, now + delay, EVK_PROBE_ARRIVE, i, round);
        }
        if (delay > timeout) /* it fails at the timeout; the node still serves it */
            sim_schedule(s, now + timeout, EVK_PROBE_RESULT, probe_tag(n, false), round);
    }
    sim_schedule(s, now + h->probe_interval_ns, EVK_PROBE_ROUND, 0, 0);
}

void health_probe_arrive(struct sim *s, uint32_t node, uint32_t b)
{
    probe_arrives(s, node, round_sent(s, b), b, s->eng.now_ns); /* rounds: k × probe_interval */
}

void health_probe_held(struct sim *s, uint32_t node, uint32_t round, int64_t t_arrive)
{
    if (net_hold_until(s, &s->nodes[node], t_arrive) >= 0)
        net_hold(s, node, NET_HELD_PROBE, round, 0, t_arrive); /* a change comes first */
    else
        probe_arrives(s, node, round_sent(s, round), round, t_arrive);
}

static void coordinator_forget(struct sim *s, uint32_t node)
{
    struct health *c = s->hl;
    c->ejected_at[node] = -1;
    assert(c->n_ejected > 0);
    c->n_ejected--;
    membership_set_ejected(s, node, false);
    node_readmitted(s, node);
}

void health_probe_result(struct sim *s, uint32_t a, uint32_t b)
{
    const struct health_cfg *h = &s->sc->health;
    struct health *c = s->hl;
    uint32_t node = a & 0xffffu;
    const struct node *n = &s->nodes[node];
    bool ok = false;
    if (a & PROBE_OK) {
        /* served in time by the incarnation that queued it: the reply was
         * sent, and arrives whatever became of the node since, unless that
         * incarnation ended (a crash) first — at the service's very end too */
        uint64_t *served = u64map_get(&c->served, probe_key(node, b));
        assert(served);
        int64_t done = (int64_t)*served;
        u64map_del(&c->served, probe_key(node, b));
        uint32_t v = n->incarnation - ((n->incarnation - (a >> 17)) & 0x7fffu);
        ok = node_incarnation_end_ns(n, v) > done;
    }
    if (!membership_is_member(s, node) || round_sent(s, b) < c->left_ns[node])
        return; /* left the cluster meanwhile (and maybe came back: a new node) */
    if ((a & PROBE_OK) && !ok) {
        /* the node crashed before it had served the probe (on its way,
         * queued, in service): no answer, which the coordinator knows at
         * the timeout */
        int64_t deadline = round_sent(s, b) + s->sc->clients.timeout_ns;
        if (deadline > s->eng.now_ns) {
            sim_schedule(s, deadline, EVK_PROBE_RESULT, node, b);
            return;
        }
    }
    if (ok) {
        c->fails[node] = 0;
        c->held[node] = 0;
        if (c->ejected_at[node] >= 0 && s->eng.now_ns - c->ejected_at[node] >= h->retry_after_ns) {
            sim_event(s, "readmit", n->id, "coordinator: probe passed after retry_after");
            c->readmissions++;
            coordinator_forget(s, node);
            membership_change(s, "readmit");
        }
        return;
    }
    if (c->ejected_at[node] >= 0)
        return;
    if (c->fails[node] < UINT32_MAX)
        c->fails[node]++;
    if (c->fails[node] < h->failure_limit)
        return;
    if (guard_holds(s, "coordinator", node, c->last_eject_ns, c->n_ejected, membership_count(s),
                    &c->held[node]))
        return;
    c->ejected_at[node] = s->eng.now_ns;
    c->n_ejected++;
    c->last_eject_ns = s->eng.now_ns;
    c->fails[node] = 0;
    membership_set_ejected(s, node, true);
    c->instance_ejections++;
    sim_event(s, "eject", n->id, "coordinator: %u failed probes", h->failure_limit);
    node_ejected(s, node, "coordinator");
    membership_change(s, "eject");
}

void health_node_left(struct sim *s, uint32_t node)
{
    struct health *h = s->hl;
    h->left[node]++;
    h->left_ns[node] = s->eng.now_ns;
    h->fails[node] = 0;
    h->held[node] = 0;
    if (h->ejected_at[node] >= 0) /* centrally ejected: forget it */
        coordinator_forget(s, node);
    for (uint32_t j = 0; j < h->n_inst; j++) {
        struct inst_health *ih = &h->inst[j];
        ih->fails[node] = 0;
        ih->held[node] = 0;
        if (!ih->ejected[node])
            continue;
        ih->ejected[node] = 0;
        assert(ih->n_ejected > 0);
        ih->n_ejected--;
        node_readmitted(s, node);
    }
}

const char *health_check(const struct sim *s)
{
    const struct health *h = s->hl;
    uint32_t now = 0, coord = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        uint32_t by = h->ejected_at[i] >= 0;
        coord += by;
        if (by != membership_is_ejected(s, i))
            return "the coordinator's ejections differ from the membership's";
        for (uint32_t j = 0; j < h->n_inst; j++)
            by += h->inst[j].ejected[i] != 0;
        if (by != h->ejectors[i])
            return "a node's count of ejectors differs from the instances that ejected it";
        now += by > 0;
    }
    if (now != h->nodes_ejected_now)
        return "the count of nodes ejected now is wrong";
    if (coord != h->n_ejected)
        return "the coordinator's count of ejections is wrong";
    for (uint32_t j = 0; j < h->n_inst; j++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < s->n_nodes; i++)
            n += h->inst[j].ejected[i] != 0;
        if (n != h->inst[j].n_ejected)
            return "an instance's count of ejected nodes is wrong";
    }
    return NULL;
}
