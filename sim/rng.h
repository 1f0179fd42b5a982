/*
 * rng.h — named random streams.
 *
 * Each purpose (arrivals, key choice, service times of node B, ...) has its
 * own generator (L'Ecuyer's taus2), seeded from the scenario seed and the
 * stream's name only. So two runs that differ in a placement or health
 * parameter draw exactly the same arrivals, instances, operations and keys
 * (common random numbers): the differences between them are the
 * parameter's, not the noise's.
 *
 * The generator is GSL's gsl_rng_taus2, written out here so that a draw is
 * a few inlined shifts instead of a call through GSL's function pointers:
 * the same seeding, the same sequence and the same conversions as
 * gsl_rng_uniform, gsl_rng_uniform_pos and gsl_rng_uniform_int, bit for bit
 * (tests/unit/test_engine.c compares them with GSL's).
 */
#ifndef RINGSIM_RNG_H
#define RINGSIM_RNG_H

#include <assert.h>
#include <math.h>
#include <stdint.h>

struct rng {
    uint32_t s1, s2, s3;
};

/* The seed a stream gets: a 64-bit mix of the run seed and the name. */
uint64_t rng_stream_seed(uint64_t seed, const char *name);
/* Returns 0 (kept for callers that checked GSL's allocation). deinit does nothing. */
int rng_init(struct rng *s, uint64_t seed, const char *name);
/* Seeds as gsl_rng_set(taus2, seed) would (seed 0 means 1, as in GSL). */
void rng_set_raw(struct rng *s, uint32_t seed);
void rng_deinit(struct rng *s);

/* The next 32-bit output (gsl_rng_get). */
static inline uint32_t rng_next(struct rng *s)
{
    s->s1 = ((s->s1 & 4294967294u) << 12) ^ (((s->s1 << 13) ^ s->s1) >> 19);
    s->s2 = ((s->s2 & 4294967288u) << 4) ^ (((s->s2 << 2) ^ s->s2) >> 25);
    s->s3 = ((s->s3 & 4294967280u) << 17) ^ (((s->s3 << 3) ^ s->s3) >> 11);
    return s->s1 ^ s->s2 ^ s->s3;
}

/* Uniform in [0, 1). */
static inline double rng_uniform(struct rng *s)
{
    return rng_next(s) / 4294967296.0;
}
/* Uniform in (0, 1). */
static inline double rng_uniform_pos(struct rng *s)
{
    double x;
    do
        x = rng_uniform(s);
    while (x == 0);
    return x;
}
/* Uniform integer in [0, n), n >= 1 (GSL's: scale down, reject the top). */
static inline uint32_t rng_below(struct rng *s, uint32_t n)
{
    assert(n >= 1);
    uint32_t scale = 0xffffffffu / n, k;
    do
        k = rng_next(s) / scale;
    while (k >= n);
    return k;
}
/* Exponential with the given mean (inversion: one uniform, one log). */
static inline double rng_exp(struct rng *s, double mean)
{
    return -mean * log(rng_uniform_pos(s));
}

#endif
