/*
 * run_internal.h — what the run's files (run.c, run_events.c, run_ticks.c)
 * share and no model needs.
 */
#ifndef RINGSIM_RUN_INTERNAL_H
#define RINGSIM_RUN_INTERNAL_H

#include <stdint.h>

#include "sim/sim.h"

/* EVK_SCENARIO / EVK_SCENARIO_END: applies scenario event idx, or ends it. */
void run_scenario_event(struct sim *s, uint32_t idx);
void run_scenario_event_end(struct sim *s, uint32_t idx);
/* EVK_SCENARIO_STEP: step `step` (from 2) of a gradual change. */
void run_scenario_step(struct sim *s, uint32_t idx, uint32_t step);

/* EVK_TRACE_END: the trace has no more requests (an `events` row). */
void run_trace_end(struct sim *s);

/* Records the tick being accumulated and starts the next. */
void run_close_tick(struct sim *s);

#endif
