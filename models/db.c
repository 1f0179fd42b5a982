/*
 * db.c — the database: `workers` servers behind a FIFO queue of at most
 * `max_queue` waiting operations (models/fifo.c), service times exponential
 * or fixed with mean `service_time`, so its capacity is workers /
 * service_time operations per second. Reads and writes cost the same.
 *
 * It holds the authoritative version of every key (key_rec.version in the
 * keyspace's per-key records, written only here): a committed write
 * increments it. Staleness is measured against these versions.
 *
 * Per tick it records operations completed, their latency (queue +
 * service), busy time (utilization) and the offered load: the service time
 * of every operation that arrived, admitted or not, over worker time —
 * above 1 the database is being asked for more than it can do.
 */
#include "models/db.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload.h"

int db_create(struct sim *s)
{
    struct database *d = s->db = xcalloc(1, sizeof(*s->db));
    d->cfg = s->sc->database;
    d->rec = s->wl->ks.rec;
    if (fifo_init(&d->queue, d->cfg.workers, d->cfg.max_queue))
        return -1;
    exp_stream_init(&d->service, s->sc->seed, "service/database",
                    d->cfg.service_ns && d->cfg.service_dist != DIST_FIXED ? s->ahead : NULL);
    busy_init(&d->busy, s->tick_ns, s->sc->duration_ns);
    return 0;
}

void db_destroy(struct database *d)
{
    if (!d)
        return;
    fifo_deinit(&d->queue);
    busy_deinit(&d->busy);
    free(d);
}

int db_submit(struct sim *s, int64_t *done_ns)
{
    struct database *d = s->db;
    double mean = (double)d->cfg.service_ns;
    int64_t service = 0, start; /* service_time 0: no service time, no draw */
    if (LIKELY(d->cfg.service_ns)) {
        double v = d->cfg.service_dist == DIST_FIXED ? mean : exp_stream_draw(&d->service, mean);
        service = (int64_t)(v + 0.5); /* v >= 0: rounds to nearest */
        if (service < 1)
            service = 1;
    }
    d->demand_ns += service;
    if (fifo_admit(&d->queue, s->eng.now_ns, service, &start, done_ns)) {
        d->rejects++;
        return -1;
    }
    busy_add(&d->busy, start, *done_ns);
    return 0;
}

void db_read_done(struct sim *s, int64_t t_db_ns)
{
    struct database *d = s->db;
    lhist_add(&d->lat, s->eng.now_ns - t_db_ns);
    d->reads++;
}

uint32_t db_write_done(struct sim *s, int64_t t_db_ns, uint32_t key)
{
    struct database *d = s->db;
    lhist_add(&d->lat, s->eng.now_ns - t_db_ns);
    d->writes++;
    return ++d->rec[key].version;
}

static double ms(double ns)
{
    return ns / 1e6;
}

void db_tick_close(struct sim *s, int64_t tick, int64_t len_ns, struct tick_row *row)
{
    struct database *d = s->db;
    double worker_ns = (double)d->cfg.workers * (double)len_ns;
    row->db_reads = d->reads;
    row->db_writes = d->writes;
    row->backend_qps = (double)(d->reads + d->writes) / ((double)len_ns / 1e9);
    row->db_util = (double)busy_take(&d->busy, tick) / worker_ns;
    row->db_demand = (double)d->demand_ns / worker_ns;
    row->db_rejects = d->rejects;
    row->db_mean_ms = d->lat.n ? ms(lhist_mean(&d->lat)) : NAN;
    row->db_p99_ms = d->lat.n ? ms(lhist_quantile(&d->lat, 0.99)) : NAN;
    d->reads = d->writes = d->rejects = d->demand_ns = 0;
    lhist_reset(&d->lat);
}
