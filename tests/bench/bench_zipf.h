/*
 * bench_zipf.h — what the benchmark's trace generators (gen_trace.c,
 * lru_ref.c) share: a seeded uniform stream (splitmix64; set `state` to the
 * seed) and Vose's alias table for Zipf(s) over m objects, P(k) ~ (k+1)^-s.
 * Draw: u = uniform() * m, k = floor(u); if u - k >= p[k], k = alias[k]
 * (zipf_object, which returns the object's id).
 */
#ifndef RINGSIM_BENCH_ZIPF_H
#define RINGSIM_BENCH_ZIPF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t state;

static inline uint64_t next64(void) /* splitmix64 */
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline double uniform(void)
{
    return (double)(next64() >> 11) * (1.0 / 9007199254740992.0);
}

/* Fills p[m] and alias[m]; 0, or -1 when out of memory. */
static inline int zipf_alias_build(uint32_t m, double s, double *p, uint32_t *alias)
{
    uint32_t *small = malloc((m ? m : 1) * sizeof(uint32_t));
    uint32_t *large = malloc((m ? m : 1) * sizeof(uint32_t)), ns = 0, nl = 0;
    double sum = 0;
    if (!small || !large) {
        free(small);
        free(large);
        return -1;
    }
    for (uint32_t k = 0; k < m; k++)
        sum += p[k] = pow(k + 1.0, -s);
    for (uint32_t k = 0; k < m; k++) {
        alias[k] = k;
        p[k] *= m / sum;
        if (p[k] < 1)
            small[ns++] = k;
        else
            large[nl++] = k;
    }
    while (ns && nl) {
        uint32_t a = small[--ns], b = large[nl - 1];
        alias[a] = b;
        p[b] -= 1 - p[a];
        if (p[b] < 1) {
            nl--;
            small[ns++] = b;
        }
    }
    while (nl)
        p[large[--nl]] = 1;
    while (ns)
        p[small[--ns]] = 1;
    free(small);
    free(large);
    return 0;
}

/* One request of the trace: an object drawn from the table, as its 64-bit id
 * (a hash of the rank, so that ids say nothing of popularity). */
static inline uint64_t zipf_object(uint32_t m, const double *p, const uint32_t *alias)
{
    double u = uniform() * m;
    uint32_t k = (uint32_t)u;
    if (k >= m)
        k = m - 1;
    if (u - k >= p[k])
        k = alias[k];
    return (uint64_t)k * 0x9e3779b97f4a7c15ULL ^ 0x5bd1e9955bd1e995ULL;
}

#endif
