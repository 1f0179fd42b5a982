/*
 * rng.h — named random streams.
 *
 * Each purpose (arrivals, key choice, service times of node B, ...) has its
 * own GSL generator (taus2), seeded from the scenario seed and the
 * stream's name only. So two runs that differ in a placement or health
 * parameter draw exactly the same arrivals, instances, operations and keys
 * (common random numbers): the differences between them are the
 * parameter's, not the noise's.
 */
#ifndef RINGSIM_RNG_H
#define RINGSIM_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

struct rng {
    gsl_rng *r;
};

/* The seed a stream gets: a 64-bit mix of the run seed and the name. */
uint64_t rng_stream_seed(uint64_t seed, const char *name);
/* Returns 0, or -1 if GSL could not allocate. deinit frees. */
int rng_init(struct rng *s, uint64_t seed, const char *name);
void rng_deinit(struct rng *s);

/* Uniform in [0, 1). */
static inline double rng_uniform(struct rng *s)
{
    return gsl_rng_uniform(s->r);
}
/* Uniform in (0, 1). */
static inline double rng_uniform_pos(struct rng *s)
{
    return gsl_rng_uniform_pos(s->r);
}
/* Uniform integer in [0, n), n >= 1. */
static inline uint32_t rng_below(struct rng *s, uint32_t n)
{
    return (uint32_t)gsl_rng_uniform_int(s->r, n);
}
/* Exponential with the given mean. */
double rng_exp(struct rng *s, double mean);

#endif
