/*
 * db.c — the database: `workers` servers behind a FIFO queue of at most
 * `max_queue` waiting operations (models/fifo.c), service times exponential
 * or fixed with mean `service_time`, so its capacity is workers /
 * service_time operations per second. Reads and writes cost the same.
 *
 * It holds the authoritative version of every key (key_rec.version in the
 * keyspace's per-key records): a committed write increments it (client.c,
 * at the write's completion). Staleness is measured against these versions.
 *
 * Per tick it records operations completed, their latency (queue +
 * service), busy time (utilization) and the offered load: the service time
 * of every operation that arrived, admitted or not, over worker time —
 * above 1 the database is being asked for more than it can do.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

int db_init(struct sim *s)
{
    struct database *d = &s->db;
    memset(d, 0, sizeof(*d));
    d->cfg = s->sc->database;
    if (fifo_init(&d->queue, d->cfg.workers, d->cfg.max_queue)
        || rng_init(&d->service, s->sc->seed, "service/database"))
        return -1;
    busy_init(&d->busy, s->tick_ns);
    return 0;
}

void db_deinit(struct database *d)
{
    fifo_deinit(&d->queue);
    rng_deinit(&d->service);
}

int db_submit(struct sim *s, int64_t *done_ns)
{
    struct database *d = &s->db;
    double mean = (double)d->cfg.service_ns;
    double v = d->cfg.service_dist == DIST_FIXED ? mean : rng_exp(&d->service, mean);
    int64_t service = (int64_t)(v + 0.5), start; /* v >= 0: rounds to nearest */
    if (service < 1)
        service = 1;
    d->demand_ns += service;
    if (fifo_admit(&d->queue, s->now_ns, service, &start, done_ns)) {
        d->rejects++;
        return -1;
    }
    busy_add(&d->busy, start, *done_ns);
    return 0;
}
