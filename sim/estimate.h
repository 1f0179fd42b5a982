/*
 * estimate.h — what a run will cost, estimated from the scenario alone
 * before anything is built: memory, requests and events, tick rows and the
 * results database's size, and the latest simulated time any value can
 * reach. `ringsim check`, `run` and `sweep` refuse, with the estimate and
 * the key to change, what cannot be simulated (time past the clock's
 * range) and — unless --force — what would need more memory than the
 * machine has, take too long or write too much (forced past its memory, a
 * run is warned that it may run out of it).
 */
#ifndef RINGSIM_ESTIMATE_H
#define RINGSIM_ESTIMATE_H

#include <stdbool.h>

#include "sim/scenario.h"
#include "sim/util.h"

/* The largest simulated time a run may reach (ns): 2^62, about 146 years,
 * half the clock's range, so a sum of two in-range times cannot overflow. */
#define RUN_TIME_LIMIT_NS 4611686018427387904.0

/* Past these a run is refused unless forced: a few hours of simulation,
 * a results database of tens of gigabytes. */
#define RUN_EVENTS_LIMIT 2e10
#define RUN_ROWS_LIMIT 2e8

struct run_cost {
    double memory_bytes;     /* peak, approximately, of the run's own data: what it will
                              * likely need (the memory judged) */
    double memory_worst_bytes; /* the same should every queue fill at once and every
                                * client instance route with a view of its own */
    double key_bytes, item_bytes, node_bytes, view_bytes, inflight_bytes, client_bytes;
    double views;            /* placements alive at once, at most (view_bytes: their bytes) */
    double view_each_bytes;  /* the largest placement the run builds */
    double series_bytes;     /* tick points, and the rows waiting to be written */
    double requests;         /* client operations over the run */
    double events;           /* events handled, approximately */
    double probe_events;     /* of which central health probes */
    double ticks, rows;      /* tick rows, and rows of every table */
    double sampled_rows;     /* of rows, sampled client operations (`requests`) */
    double db_bytes;         /* the results database's growth */
    double max_time_ns;      /* the latest time a value can take */
    const char *time_key;    /* the scenario key that dominates max_time_ns */
    char rate_key[64];       /* the key of the highest request rate: workload.qps,
                              * a set_qps (events.N.set_qps, N its place in the
                              * file) or the trace */
};

void run_cost_estimate(const struct scenario *sc, struct run_cost *c);

enum run_cost_verdict {
    COST_OK,
    COST_TOO_BIG,            /* slow, large or past memory: refused unless forced */
    COST_IMPOSSIBLE          /* cannot be simulated at all */
};

/* Judges an estimate against the limits: memory_limit (bytes; the
 * machine's memory) and disk_limit (bytes free for the results; <= 0: not
 * known). Appends one message per problem to msg, each with the estimate
 * and the key to change. force: past the memory and the slow/large limits
 * is allowed; past memory, msg then holds a line starting "warning: " and
 * the verdict is COST_OK. */
enum run_cost_verdict run_cost_judge(const struct run_cost *c, bool force, double memory_limit,
                                     double disk_limit, struct strbuf *msg);

/* The machine's physical memory in bytes (0 if unknown). */
double machine_memory_bytes(void);

/* "1.2 GB", "340 MB", "12 kB": a size for messages. */
void format_bytes(double bytes, char *buf, size_t n);

#endif
