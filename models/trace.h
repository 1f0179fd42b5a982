/*
 * trace.h — sampled request traces: a seeded fraction of client operations
 * recorded one by one (output.sample_requests, the `requests` table).
 * Owned by trace.c; the client reports to it what each sampled operation
 * does.
 */
#ifndef RINGSIM_TRACE_H
#define RINGSIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"

struct view;

enum trace_source { SRC_NODE, SRC_PREVIOUS, SRC_DB, SRC_NONE, SRC_LOCAL };
enum trace_outcome { OUT_HIT, OUT_MISS, OUT_TIMEOUT, OUT_ERROR, OUT_WRITE };

int traces_create(struct sim *s);
void traces_destroy(struct sim *s);
/* Decides (from its own stream, for every arrival) whether the operation
 * starting as request r is sampled; if so opens its record (RQF_SAMPLED),
 * with the instance's epoch and views. */
void trace_arrival(struct sim *s, uint32_t r, unsigned op, uint32_t epoch,
                   const struct view *view, const struct view *prev_view);
/* A GET of r went to node. */
void trace_asked(struct sim *s, uint32_t r, uint32_t node);
/* r's answer: where it came from and what it carried (version UINT32_MAX:
 * none); one row goes to the sink. */
void trace_answer(struct sim *s, uint32_t r, enum trace_source src, enum trace_outcome out,
                  uint32_t version, int64_t latency_ns);

#endif
