/*
 * sink.h — where a run's records go. The run calls these as it goes (a tick
 * row as soon as the tick ends), so nothing grows with the run's length and
 * an interrupted run keeps every tick it finished. output/results.c is the
 * real sink; tests use an in-memory one (tests/support/support_sink.c).
 * Each callback returns 0, or -1 to stop the run as failed.
 */
#ifndef RINGSIM_SINK_H
#define RINGSIM_SINK_H

#include "sim/metrics.h"

struct sink {
    void *ctx;
    int (*tick)(void *ctx, const struct tick_row *r);
    int (*node_tick)(void *ctx, const struct node_tick_row *r);
    /* one row per distinct routing view held by client instances, each tick */
    int (*view_tick)(void *ctx, const struct view_tick_row *r);
    /* kind: add_node, eject, readmit, epoch, stale_overwrite, ...; node may be NULL */
    int (*event)(void *ctx, double t_s, const char *kind, const char *node, const char *detail);
    /* Called about once a simulated second of wall time: commit what is recorded. */
    int (*checkpoint)(void *ctx);
    /* one sampled client operation (output.sample_requests); may be NULL */
    int (*request)(void *ctx, const struct request_row *r);
};

#endif
