/*
 * bench_hash.c — cost of each hash function on short keys ("key-0000000",
 * 11 bytes), the input placement hashes most: ns per key, best of 3 passes
 * over 1,000,000 keys (the key names are built beforehand).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "models/placement/hash.h"
#include "sim/util.h"

#define KEYS 1000000
#define KEY_LEN 12

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    char *keys = xmalloc((size_t)KEYS * KEY_LEN);
    for (int k = 0; k < KEYS; k++)
        snprintf(keys + (size_t)k * KEY_LEN, KEY_LEN, "key-%07d", k);
    printf("hash functions: %d keys of 11 bytes, best of 3 passes\n", KEYS);
    printf("  %-20s %10s %14s\n", "hash", "ns/key", "keys/s");
    for (int h = 0; h < HASH_COUNT; h++) {
        double best = 1e30;
        uint64_t sink = 0;
        for (int pass = 0; pass < 3; pass++) {
            double t0 = now_s();
            for (int k = 0; k < KEYS; k++)
                sink += hash_position((hash_kind)h, keys + (size_t)k * KEY_LEN, 11);
            best = MIN(best, now_s() - t0);
        }
        printf("  %-20s %10.1f %14.0f\n", hash_name((hash_kind)h), best * 1e9 / KEYS,
               KEYS / best);
        if (sink == 42)
            puts("");
    }
    double best = 1e30;
    uint64_t sink = 0;
    for (int pass = 0; pass < 3; pass++) {
        double t0 = now_s();
        for (int k = 0; k < KEYS; k++)
            sink += crc16_xmodem(keys + (size_t)k * KEY_LEN, 11);
        best = MIN(best, now_s() - t0);
    }
    printf("  %-20s %10.1f %14.0f\n", "crc16-xmodem", best * 1e9 / KEYS, KEYS / best);
    free(keys);
    return sink == 42;
}
