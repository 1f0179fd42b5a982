/*
 * engine.c — the engine core (see engine.h): failing a run, scheduling,
 * recording events, request records. Calls nothing above it.
 */
#include "sim/engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void engine_init(struct engine *e, const struct sink *sink)
{
    memset(e, 0, sizeof(*e));
    eventq_init(&e->q);
    e->reqs.free_head = UINT32_MAX;
    e->sink = sink;
    e->status = RUN_COMPLETE;
}

void engine_deinit(struct engine *e)
{
    eventq_deinit(&e->q);
    free(e->reqs.r);
    e->reqs.r = NULL;
}

void engine_fail(struct engine *e, const char *fmt, ...)
{
    if (e->status == RUN_FAILED)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->error, sizeof e->error, fmt, ap);
    va_end(ap);
    e->status = RUN_FAILED;
}

int engine_schedule_failed_(struct engine *e)
{
    engine_fail(e, "more than %u events pending: the model has run away", EVENTQ_MAX);
    return -1;
}

void engine_event(struct engine *e, const char *kind, const char *node, const char *fmt, ...)
{
    if (!e->sink || !e->sink->event)
        return;
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (e->sink->event(e->sink->ctx, (double)e->now_ns / 1e9, kind, node, detail))
        engine_fail(e, "cannot record an event");
}

uint32_t req_alloc(struct engine *e)
{
    struct req_pool *p = &e->reqs;
    uint32_t r;
    if (p->free_head != UINT32_MAX) {
        r = p->free_head;
        p->free_head = p->r[r].next_free;
    } else {
        if (p->n == p->cap) {
            if (p->cap >= REQ_MAX) {
                /* cannot happen before the event queue's own bound; stay safe */
                engine_fail(e, "more than %u requests in flight", REQ_MAX);
                r = p->n - 1;
                p->live++;
                p->r[r].pending = 1;
                return r;
            }
            uint32_t old = p->cap;
            p->cap = p->cap ? p->cap * 2 : 1024;
            p->r = xrealloc(p->r, p->cap * sizeof(*p->r));
            /* a record's first user finds it zeroed, as recycled records
             * are left by their last (req.asking: ASKING_NO): never heap
             * leftovers, which would make a run depend on them */
            memset(p->r + old, 0, (size_t)(p->cap - old) * sizeof(*p->r));
        }
        r = p->n++;
    }
    p->live++;
    p->r[r].pending = 1;
    return r;
}
