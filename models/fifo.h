/*
 * fifo.h — a first-come-first-served queue with `workers` servers and a
 * bounded waiting room, computed analytically.
 *
 * With FIFO service the start of a job depends only on the jobs that
 * arrived before it, so it is known the moment the job arrives:
 *     start = max(arrival, earliest time a server is free)
 *     done  = start + service
 * This is exact for any service distribution (the G/G/c FIFO recursion),
 * and costs O(log workers) per job with no events for queueing at all.
 *
 * Arrivals must be admitted in non-decreasing time order (asserted). The
 * waiting room holds the start times of jobs that have not yet started
 * (a ring buffer, sorted because starts are non-decreasing); a job that
 * arrives when max_queue jobs are waiting is rejected.
 */
#ifndef RINGSIM_FIFO_H
#define RINGSIM_FIFO_H

#include <stdint.h>

#define FIFO_INITIAL_CAP 64
/* free_ns holds this many INT64_MAX past the servers: the 4-ary heap's last
 * parent i has 4i + 1 < workers, so its children reach 4i + 4 <= workers + 2 */
#define FIFO_PAD 3

struct fifo {
    uint32_t workers;
    uint32_t max_queue;
    int64_t *free_ns;     /* 4-ary min-heap of the times each server becomes free */
    int64_t *wait_start;  /* ring buffer: start times of waiting jobs */
    uint32_t cap;         /* its size: grows by doubling up to max_queue */
    uint32_t head, count; /* ring buffer window */
    int64_t last_arrival; /* for the ordering assertion */
};

/* Returns 0, or -1 if memory could not be had. */
int fifo_init(struct fifo *q, uint32_t workers, uint32_t max_queue);
void fifo_deinit(struct fifo *q);

/* Admits a job arriving at t_ns needing service_ns. Returns 0 and sets
 * *start_ns and *done_ns, or -1 when the waiting room is full. */
int fifo_admit(struct fifo *q, int64_t t_ns, int64_t service_ns, int64_t *start_ns,
               int64_t *done_ns);
/* Jobs waiting (not yet started) at t_ns; t_ns >= the last arrival. */
uint32_t fifo_waiting(struct fifo *q, int64_t t_ns);
/* The servers' busy time within [from_ns, to_ns) still to come at from_ns:
 * each server is busy from from_ns until it is free. Exact when no job
 * admitted arrives after from_ns; a job admitted ahead of its arrival
 * (sent, not yet there) may leave its server idle a while before it, and
 * that idle time is counted too. */
int64_t fifo_busy_between(const struct fifo *q, int64_t from_ns, int64_t to_ns);
/* Drops every job (a crash): all servers free from t_ns, nothing waiting. */
void fifo_reset(struct fifo *q, int64_t t_ns);

/* When the servers will have finished all the work admitted so far.
 * O(workers). */
int64_t fifo_idle_ns(const struct fifo *q);

#endif
