/*
 * run.c — one run: building the models, the event loop and its dispatch.
 * Scenario events are applied by run_events.c; ticks and the summary are
 * run_ticks.c's.
 *
 * The loop takes, at each step, the earlier of the next arrival (the
 * workload keeps it; arrivals never sit in the queue) and the earliest
 * queued event; on a tie the queued event goes first. Before handling
 * anything at time t it closes every tick that ends at or before t, so a
 * tick row holds exactly what happened in [start, start + tick). The run
 * ends at `duration`; work still in flight then is not counted.
 *
 * The dispatch table below is the one place that maps an event kind to
 * the handler of the layer that owns it. Request events carry a reference
 * to their request record, dropped here once the handler returns.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/client.h"
#include "models/cures.h"
#include "models/db.h"
#include "models/health.h"
#include "models/membership.h"
#include "models/migrate.h"
#include "models/net.h"
#include "models/node.h"
#include "models/trace.h"
#include "models/transfer.h"
#include "models/workload.h"
#include "sim/ahead.h"
#include "sim/run_internal.h"

/* ---- dispatch --------------------------------------------------------------------- */

static void on_publish(struct sim *s, uint32_t a, uint32_t b)
{
    (void)a, (void)b;
    uint32_t epoch = membership_publish(s);
    if (!epoch)
        return; /* the run has failed, with the reason */
    clients_epoch_published(s, epoch);
    /* copies go where the new epoch sends them; a slot migration's steps
     * (an epoch a slot) leave the plans as they are */
    if (UNLIKELY(s->tr->n) && !s->mb->moves_only)
        transfers_replan(s);
    membership_trim(s);
}

static void on_scenario(struct sim *s, uint32_t a, uint32_t b)
{
    (void)b;
    run_scenario_event(s, a);
    net_event_done(s, &s->sc->events[a]);
}

static void on_scenario_end(struct sim *s, uint32_t a, uint32_t b)
{
    (void)b;
    run_scenario_event_end(s, a);
    net_event_done(s, &s->sc->events[a]); /* a slowness's end; the other ends change no node */
}

static void on_readmit(struct sim *s, uint32_t a, uint32_t b)
{
    client_readmit(s, a, b);
}

static void on_probe_round(struct sim *s, uint32_t a, uint32_t b)
{
    (void)a, (void)b;
    health_probe_round(s);
}

static void on_probe_result(struct sim *s, uint32_t a, uint32_t b)
{
    health_probe_result(s, a, b);
}

static void on_probe_arrive(struct sim *s, uint32_t a, uint32_t b)
{
    health_probe_arrive(s, a, b);
}

static void on_adopt(struct sim *s, uint32_t a, uint32_t b)
{
    client_adopt(s, a, b);
}

static void on_scenario_step(struct sim *s, uint32_t a, uint32_t b)
{
    run_scenario_step(s, a, b);
}

static void on_transfer_step(struct sim *s, uint32_t a, uint32_t b)
{
    transfer_step(s, a, b);
}

static void on_transfer_end(struct sim *s, uint32_t a, uint32_t b)
{
    (void)b;
    transfer_end(s, a);
}

static void on_get_arrive(struct sim *s, uint32_t r, uint32_t b)
{
    net_get_arrive(s, r, b);
}

static void on_op_arrive(struct sim *s, uint32_t r, uint32_t b)
{
    (void)b;
    net_op_arrive(s, r);
}

static void on_down_release(struct sim *s, uint32_t a, uint32_t b)
{
    node_down_release(s, a, b);
}

static void on_trace_end(struct sim *s, uint32_t a, uint32_t b)
{
    (void)a, (void)b;
    run_trace_end(s);
}

static void on_detect_window(struct sim *s, uint32_t a, uint32_t b)
{
    (void)a, (void)b;
    cures_detect_window(s);
}

static void on_copy_read(struct sim *s, uint32_t r, uint32_t b)
{
    (void)b;
    transfer_copy_read(s, r);
}

static void on_migrate_step(struct sim *s, uint32_t a, uint32_t b)
{
    (void)a, (void)b;
    migrate_step(s);
}

static void on_migrate_read(struct sim *s, uint32_t r, uint32_t b)
{
    (void)b;
    migrate_read(s, r);
}

static void on_migrate_land(struct sim *s, uint32_t r, uint32_t b)
{
    (void)b;
    migrate_land(s, r);
}

/* Handlers of events about a request record (a: the record, b: the attempt). */
typedef void (*request_fn)(struct sim *s, uint32_t r, uint32_t b);
/* Handlers of the other events. */
typedef void (*event_fn)(struct sim *s, uint32_t a, uint32_t b);

static const struct {
    request_fn request;
    event_fn other;
} handlers[EVK_COUNT] = {
    [EVK_GET_DONE] = {client_get_done, NULL},
    [EVK_GET_RESP] = {client_get_resp, NULL},
    [EVK_TIMEOUT] = {client_timeout, NULL},
    [EVK_REJECTED] = {client_rejected, NULL},
    [EVK_DB_DONE] = {client_db_done, NULL},
    [EVK_NODE_OP_DONE] = {client_node_op_done, NULL},
    [EVK_SCENARIO] = {NULL, on_scenario},
    [EVK_SCENARIO_END] = {NULL, on_scenario_end},
    [EVK_READMIT] = {NULL, on_readmit},
    [EVK_PROBE_ROUND] = {NULL, on_probe_round},
    [EVK_PROBE_RESULT] = {NULL, on_probe_result},
    [EVK_ADOPT] = {NULL, on_adopt},
    [EVK_PUBLISH] = {NULL, on_publish},
    [EVK_GET_ARRIVE] = {on_get_arrive, NULL},
    [EVK_OP_ARRIVE] = {on_op_arrive, NULL},
    [EVK_MOVED] = {client_moved, NULL},
    [EVK_BACKFILL] = {client_backfill, NULL},
    [EVK_COPY_READ] = {on_copy_read, NULL},
    [EVK_TRANSFER_STEP] = {NULL, on_transfer_step},
    [EVK_TRANSFER_END] = {NULL, on_transfer_end},
    [EVK_SCENARIO_STEP] = {NULL, on_scenario_step},
    [EVK_PROBE_ARRIVE] = {NULL, on_probe_arrive},
    [EVK_ASK] = {client_ask, NULL},
    [EVK_MIGRATE_STEP] = {NULL, on_migrate_step},
    [EVK_MIGRATE_READ] = {on_migrate_read, NULL},
    [EVK_MIGRATE_LAND] = {on_migrate_land, NULL},
    [EVK_TRACE_END] = {NULL, on_trace_end},
    [EVK_DOWN_RELEASE] = {NULL, on_down_release},
    [EVK_LOCAL_PUT] = {cures_local_arrive, NULL},
    [EVK_DETECT_WINDOW] = {NULL, on_detect_window},
    [EVK_HIT_REPLY] = {NULL, health_hit_reply},
};

static void dispatch(struct sim *s, const struct event *e)
{
    unsigned k = event_kind(e);
    assert(k > 0 && k < EVK_COUNT);
    if (handlers[k].request) {
        handlers[k].request(s, e->a, e->b);
        req_put(&s->eng, e->a);
    } else {
        handlers[k].other(s, e->a, e->b);
    }
}

/* ---- building a run -------------------------------------------------------------------- */

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
    engine_init(&s->eng, &s->sink);
    s->tick_ns = sc->tick_ns;
    s->tick_end_ns = MIN(sc->tick_ns, sc->duration_ns);
    s->first_event_ns = sc->n_events ? sc->events[0].at_ns : -1;
    if (s->opt.helper_thread)
        s->ahead = ahead_create(); /* NULL: every stream is drawn inline */
    if (workload_create(s, err, errlen) || nodes_create(s, err, errlen))
        goto fail;
    if (db_create(s)) {
        snprintf(err, errlen, "out of memory for the database model");
        goto fail;
    }
    if (membership_create(s, err, errlen))
        goto fail;
    if (net_create(s) || transfers_create(s) || migrate_create(s) || traces_create(s) || cures_create(s)
        || clients_create(s) || health_create(s)) {
        snprintf(err, errlen, "%s", s->eng.error[0] ? s->eng.error : "cannot set up the clients");
        goto fail;
    }
    nodes_prewarm(s, membership_latest(s)->base->pl);
    for (size_t i = 0; i < sc->n_events; i++)
        sim_schedule(s, sc->events[i].at_ns, EVK_SCENARIO, (uint32_t)i, 0);
    double trace_end = workload_trace_end_ns(s->wl);
    if (trace_end >= 0 && trace_end < (double)sc->duration_ns)
        sim_schedule(s, (int64_t)trace_end, EVK_TRACE_END, 0, 0);
    if (engine_failed(&s->eng)) {
        snprintf(err, errlen, "%s", s->eng.error);
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
    ahead_destroy(s->ahead); /* first: the helper reads the models' draw parameters */
    s->ahead = NULL;
    if (s->mb)
        clients_destroy(s); /* views go back to the membership */
    health_destroy(s);
    transfers_destroy(s);
    migrate_destroy(s);
    traces_destroy(s);
    cures_destroy(s);
    net_destroy(s);
    membership_destroy(s);
    nodes_destroy(s);
    db_destroy(s->db);
    workload_destroy(s->wl);
    free(s->series);
    free(s->step_from);
    free(s->gradual);
    engine_deinit(&s->eng);
    free(s);
}

/* ---- the loop ---------------------------------------------------------------------------- */

static void arrival(struct sim *s)
{
    int64_t at;
    uint32_t inst, key;
    uint8_t op;
    workload_next(s->wl, &at, &inst, &op, &key);
    if (UNLIKELY(s->wl->error)) /* the trace could not be read on: after this request */
        sim_fail(s, "%s", s->wl->error);
    /* the next arrival's key record was prefetched when it was drawn; now
     * its first item can be fetched too. This arrival's item was fetched so
     * one arrival ago: now its LRU neighbours, which a hit relinks when the
     * node serves it (a dozen arrivals from now) */
    const struct item *items = s->pool->items;
    uint32_t head = s->wl->ks.rec[workload_peek_key(s->wl)].head;
    if (head != STORE_NIL)
        __builtin_prefetch(&items[head], 1);
    uint32_t it = s->wl->ks.rec[key].head;
    if (it != STORE_NIL) {
        if (items[it].prev != STORE_NIL)
            __builtin_prefetch(&items[items[it].prev], 1);
        if (items[it].next != STORE_NIL)
            __builtin_prefetch(&items[items[it].next], 1);
    }
    client_arrival(s, at, inst, op, key);
}

static bool stop_requested(const struct sim *s)
{
    return s->opt.stop && *s->opt.stop;
}

/* Checks for a stop request where time advances: at every tick closed and
 * every STOP_CHECK_STEPS events (a volatile load; cheap, but not free on
 * the per-request path). */
#define STOP_CHECK_STEPS 4096

/* Events scripted at the very end (at: duration) come after the last tick:
 * applied all the same, with the epoch they publish — recorded in events,
 * their keys moved counted — and nothing else is (what they start would
 * come later). Out of line and cold, and dispatching through the table
 * itself: the run loop's pop and dispatch stay inlined where they are hot. */
static __attribute__((noinline, cold)) void run_end_events(struct sim *s, int64_t end)
{
    while (!engine_failed(&s->eng) && eventq_next_time(&s->eng.q) == end) {
        struct event e;
        if (!eventq_pop_cold(&s->eng.q, &e))
            break;
        unsigned k = event_kind(&e);
        if (k == EVK_SCENARIO || k == EVK_SCENARIO_STEP || k == EVK_PUBLISH) {
            s->eng.now_ns = end;
            handlers[k].other(s, e.a, e.b); /* none of them is about a request */
        }
    }
}

/* Not inlined into its caller: the run loop is the hot path, and inlined
 * into a larger function it loses the inlining of its own callees (the
 * calendar's pop, the arrival) to the compiler's growth limits — 8% more
 * instructions a request, measured. */
__attribute__((noinline)) enum run_status sim_run(struct sim *s)
{
    const int64_t end = s->sc->duration_ns;
    uint32_t steps = 0;
    while (!engine_failed(&s->eng)) {
        int64_t ta = (int64_t)workload_next_time(s->wl); /* at most WORKLOAD_NEVER_NS */
        int64_t te = eventq_next_time(&s->eng.q);
        int64_t t = MIN(MIN(ta, te), end);
        while (t >= s->tick_end_ns && s->tick_index * s->tick_ns < end
               && !engine_failed(&s->eng)) {
            run_close_tick(s);
            if (stop_requested(s))
                goto interrupted;
        }
        if (t >= end || engine_failed(&s->eng))
            break;
        s->eng.now_ns = t;
        if (te <= ta) {
            struct event e;
            if (!eventq_pop(&s->eng.q, &e))
                __builtin_unreachable(); /* te <= ta: the queue holds one */
            dispatch(s, &e);
        } else {
            arrival(s);
        }
        if (UNLIKELY(++steps == STOP_CHECK_STEPS)) {
            steps = 0;
            if (stop_requested(s))
                goto interrupted;
        }
    }
    run_end_events(s, end);
    return s->eng.status;
interrupted:
    if (!engine_failed(&s->eng))
        s->eng.status = RUN_INTERRUPTED;
    if (s->opt.progress) /* the clock, or the end of the last tick closed if later */
        s->opt.progress(s->opt.progress_ctx,
                        MAX(s->eng.now_ns, MIN(s->tick_index * s->tick_ns, end)), end,
                        s->sums.requests);
    return s->eng.status;
}
