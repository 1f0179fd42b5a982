/*
 * migrate.h — Redis Cluster slot migration (migrate_slots events): moving
 * slots, with the keys their source holds, from one node to another, one
 * slot at a time, and the ASK and MOVED replies nodes give meanwhile and
 * after. Owned by migrate.c; the run loop and the client call it.
 */
#ifndef RINGSIM_MIGRATE_H
#define RINGSIM_MIGRATE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/metrics.h"
#include "sim/sim.h"

/* s->mg: built when the scenario has a migrate_slots event, else left NULL
 * (every hook below is then skipped by its caller). Returns 0 or -1. */
int migrate_create(struct sim *s);
void migrate_destroy(struct sim *s);

/* The migrate_slots event `event` happens: it runs after the migrations
 * before it (one at a time, as one redis-cli reshard), starting once this
 * instant's membership changes are published. */
void migrate_enqueue(struct sim *s, uint32_t event);

/* EVK_MIGRATE_STEP, EVK_MIGRATE_READ, EVK_MIGRATE_LAND. */
void migrate_step(struct sim *s);
void migrate_read(struct sim *s, uint32_t r);
void migrate_land(struct sim *s, uint32_t r);

/* Where a node serves a client's GET (before it looks the key up) and
 * where a fill, invalidation or write-through takes effect: whether the
 * node answers ASK (its slot is being migrated and the key is not there)
 * or MOVED (it handed the slot over by a migration and neither owns it nor
 * is one of its replicas in the latest epoch) instead — then the reply is on its way (net_redirect)
 * and the caller stops. A message carrying ASKING is always served. */
bool migrate_get(struct sim *s, uint32_t r);
bool migrate_op(struct sim *s, uint32_t r);

/* The tick's migrated keys into the row; the count starts afresh. */
void migrate_tick_close(struct sim *s, struct tick_row *row);

#endif
