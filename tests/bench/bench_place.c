/*
 * bench_place.c — lookup speed of every placement algorithm: 1,000,000
 * precomputed key positions on 10 nodes (ring and bounded with 1000 vnodes,
 * so 10 × 1000 points; ketama 160 points per node; maglev M = 65537).
 * Prints ns per lookup and lookups per second, best of 5 passes. Also the
 * cost of building each placement and the capped (bounded-load) walk.
 *
 * The wall clock is read here only, never by the simulator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/placement/placement.h"
#include "sim/util.h"

#define KEYS 1000000
#define NODES 10
#define PASSES 5

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    struct place_member m[NODES];
    char ids[NODES][8];
    for (int i = 0; i < NODES; i++) {
        snprintf(ids[i], sizeof ids[i], "n%d", i + 1);
        m[i] = (struct place_member){ids[i], ids[i], 1.0, (uint32_t)i};
    }
    uint64_t *pos = xmalloc(KEYS * sizeof *pos);
    uint32_t *load = xcalloc(NODES, sizeof *load);
    printf("placement lookups: %d precomputed key positions, %d nodes, best of %d passes\n",
           KEYS, NODES, PASSES);
    printf("  %-20s %10s %14s %12s %10s\n", "algorithm", "ns/lookup", "lookups/s", "build ms",
           "points");
    for (int a = 0; a < PLACE_COUNT; a++) {
        struct place_params p;
        char err[256];
        place_params_default(&p, (place_algo)a);
        p.hash = HASH_XXH64;
        p.vnodes = 1000;
        for (int k = 0; k < KEYS; k++) {
            char key[32];
            int n = snprintf(key, sizeof key, "key-%07d", k);
            pos[k] = placement_key_position(&p, key, (size_t)n);
        }
        double t0 = now_s();
        struct placement *pl = placement_create(&p, m, NODES, NULL, err, sizeof err);
        double build_ms = (now_s() - t0) * 1e3;
        if (!pl) {
            fprintf(stderr, "bench_place: %s: %s\n", place_algo_name((place_algo)a), err);
            return 1;
        }
        double best = 1e30;
        uint64_t sink = 0;
        for (int pass = 0; pass < PASSES; pass++) {
            t0 = now_s();
            for (int k = 0; k < KEYS; k++)
                sink += placement_lookup(pl, pos[k]);
            double dt = now_s() - t0;
            best = MIN(best, dt);
        }
        printf("  %-20s %10.1f %14.0f %12.2f %10zu\n", place_algo_name((place_algo)a),
               best * 1e9 / KEYS, KEYS / best, build_ms, pl->n_points);
        if (a == PLACE_BOUNDED) {
            /* the static assignment: capped walk with loads, cap ceil(1.25 × keys / nodes) */
            uint32_t cap = (uint32_t)((KEYS * 5 / 4 + NODES - 1) / NODES);
            best = 1e30;
            for (int pass = 0; pass < PASSES; pass++) {
                memset(load, 0, NODES * sizeof *load);
                t0 = now_s();
                for (int k = 0; k < KEYS; k++) {
                    uint32_t o = placement_lookup_bounded(pl, pos[k], load, cap);
                    load[o]++;
                }
                best = MIN(best, now_s() - t0);
            }
            printf("  %-20s %10.1f %14.0f\n", "bounded (capped)", best * 1e9 / KEYS, KEYS / best);
        }
        if (sink == 42)
            puts("");
        placement_destroy(pl);
    }
    free(pos);
    free(load);
    return 0;
}
