/* support_sink.h — for model tests: run a scenario given as YAML text and
 * keep every row in memory. */
#ifndef RINGSIM_SUPPORT_SINK_H
#define RINGSIM_SUPPORT_SINK_H

#include <stddef.h>

#include "sim/metrics.h"
#include "sim/sim.h"

struct mem_event {
    double t_s;
    char kind[32];
    char node[64];
    char detail[512];
};

struct mem_run {
    struct tick_row *ticks;
    size_t n_ticks;
    struct node_tick_row *nodes; /* node and state point into `names` */
    size_t n_nodes;
    struct view_tick_row *views; /* view and ejected point into `names` */
    size_t n_views;
    struct mem_event *events;
    size_t n_events;
    struct summary_row summary;
    enum run_status status;
    char **names;
    size_t n_names;
    char error[256];
};

/* Loads yaml (with optional overrides "path=value", NULL-terminated), runs it
 * into memory. Fails the current test on any load error. */
void mem_run_yaml(struct mem_run *m, const char *yaml, const char *const *sets);
void mem_run_free(struct mem_run *m);
/* Total of a node's GETs (node_ticks.requests) over the run. */
long long mem_node_requests(const struct mem_run *m, const char *node);
/* Number of events of a kind. */
size_t mem_count_events(const struct mem_run *m, const char *kind);

#endif
