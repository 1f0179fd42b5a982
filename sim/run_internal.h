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

/* Records the tick being accumulated and starts the next. */
void run_close_tick(struct sim *s);

#endif
