/*
 * db.h — the database behind the caches: a FIFO queue with `workers`
 * servers, and the authoritative version of every key. Owned by db.c.
 */
#ifndef RINGSIM_DB_H
#define RINGSIM_DB_H

#include <stdint.h>

#include "models/fifo.h"
#include "models/store.h"
#include "sim/ahead.h"
#include "sim/metrics.h"
#include "sim/rng.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/stats.h"

struct database {
    struct db_cfg cfg;
    struct fifo queue;
    struct exp_stream service; /* service times (sim/ahead.h) */
    struct busy_meter busy;
    struct key_rec *rec;     /* the keyspace's records: .version is the database's */
    int64_t demand_ns;       /* service time of operations that arrived this tick */
    int64_t reads, writes, rejects; /* this tick */
    struct lhist lat;        /* this tick */
};

int db_create(struct sim *s);
void db_destroy(struct database *d);
/* Admits an operation at now; returns 0 with *done_ns or -1 when full
 * (counted in rejects). */
int db_submit(struct sim *s, int64_t *done_ns);
/* An operation admitted at t_db_ns completes now: counts it and its latency. */
void db_read_done(struct sim *s, int64_t t_db_ns);
/* A write of key commits now: returns the key's new version. */
uint32_t db_write_done(struct sim *s, int64_t t_db_ns, uint32_t key);
/* The key's current version. */
static inline uint32_t db_version(const struct database *d, uint32_t key)
{
    return d->rec[key].version;
}
/* The database's part of a tick row over len_ns, then its tick counters
 * start afresh. */
void db_tick_close(struct sim *s, int64_t tick, int64_t len_ns, struct tick_row *row);

#endif
