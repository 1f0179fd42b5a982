/*
 * gen_trace.c — writes a synthetic request trace in libCacheSim's
 * oracleGeneral format, for the trace benchmark of `make bench`
 * (tests/bench/run.sh) and for trying traces by hand:
 *
 *   gen_trace OUT REQUESTS OBJECTS ZIPF_S PER_SECOND [SEED]
 *
 * REQUESTS records over OBJECTS objects with Zipf(ZIPF_S) popularity (Vose's
 * alias method: O(1) a request), PER_SECOND of them in each second from
 * second 0. Object ids are 64-bit hashes of the ranks (most wider than 32
 * bits), sizes 100 to 1099 bytes, next access -1. Not a benchmark itself
 * (run.sh runs only bench_*).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_zipf.h"

static void put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: gen_trace OUT REQUESTS OBJECTS ZIPF_S PER_SECOND [SEED]\n");
        return 2;
    }
    unsigned long long n = strtoull(argv[2], NULL, 10);
    uint32_t m = (uint32_t)strtoul(argv[3], NULL, 10);
    double s = strtod(argv[4], NULL);
    unsigned long long per_s = strtoull(argv[5], NULL, 10);
    state = argc > 6 ? strtoull(argv[6], NULL, 10) : 1;
    if (!n || !m || !per_s || !(s > 0)) {
        fprintf(stderr, "gen_trace: REQUESTS, OBJECTS, ZIPF_S and PER_SECOND must be > 0\n");
        return 2;
    }
    /* Vose's alias table for P(k) ~ (k+1)^-s */
    double *p = malloc(m * sizeof(double));
    uint32_t *alias = malloc(m * sizeof(uint32_t));
    if (!p || !alias || zipf_alias_build(m, s, p, alias)) {
        fprintf(stderr, "gen_trace: out of memory\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static unsigned char buf[24 * 4096];
    size_t in_buf = 0;
    for (unsigned long long i = 0; i < n; i++) {
        uint64_t id = zipf_object(m, p, alias);
        unsigned char *r = buf + in_buf * 24;
        put(r, i / per_s, 4);
        put(r + 4, id, 8);
        put(r + 12, 100 + id % 1000, 4);
        put(r + 16, UINT64_MAX, 8);
        if (++in_buf == 4096) {
            if (fwrite(buf, 24, in_buf, f) != in_buf) {
                perror(argv[1]);
                return 1;
            }
            in_buf = 0;
        }
    }
    if (fwrite(buf, 24, in_buf, f) != in_buf || fclose(f)) {
        perror(argv[1]);
        return 1;
    }
    free(p);
    free(alias);
    return 0;
}
