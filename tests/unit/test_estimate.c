/* Unit tests: the run cost estimate (sim/estimate.c) — the library's
 * scenarios pass; absurd sizes are refused with the key to change; what is
 * merely slow passes with --force; times past the clock's range never do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>
#include <unistd.h>

#include "sim/estimate.h"

#define GIB (1024.0 * 1024 * 1024)

static struct scenario *load(const char *yaml, const char *set)
{
    struct diag d;
    diag_init(&d);
    struct override o;
    size_t n = 0;
    if (set) {
        assert_int_equal(override_parse(set, &o, &d), 0);
        n = 1;
    }
    struct scenario *sc = scenario_load_string("t.yaml", yaml, strlen(yaml), &o, n, &d);
    diag_print(&d, stderr);
    assert_non_null(sc);
    if (n)
        override_deinit(&o);
    diag_deinit(&d);
    return sc;
}

/* The verdict for yaml (+ one --set) on a 24 GiB machine with 50 GB free. */
static enum run_cost_verdict judge(const char *yaml, const char *set, bool force, char *msg,
                                   size_t n, struct run_cost *out)
{
    struct scenario *sc = load(yaml, set);
    struct run_cost c;
    run_cost_estimate(sc, &c);
    struct strbuf sb;
    sb_init(&sb);
    enum run_cost_verdict v = run_cost_judge(&c, force, 24 * GIB, 50e9, &sb);
    snprintf(msg, n, "%s", sb.buf);
    sb_deinit(&sb);
    if (out)
        *out = c;
    scenario_destroy(sc);
    return v;
}

static const char *small = "name: s\nnodes: [{id: A}, {id: B}, {id: C}]\n";

static void test_library_scenarios_pass(void **state)
{
    (void)state;
    const char *files[] = {"scenarios/bench.yaml", "scenarios/demo.yaml",
                           "scenarios/incidents/slow_node_cascade.yaml"};
    for (size_t i = 0; i < ARRAY_LEN(files); i++) {
        struct diag d;
        diag_init(&d);
        struct scenario *sc = scenario_load(files[i], NULL, 0, &d);
        assert_non_null(sc);
        struct run_cost c;
        run_cost_estimate(sc, &c);
        struct strbuf sb;
        sb_init(&sb);
        if (run_cost_judge(&c, false, 24 * GIB, 50e9, &sb) != COST_OK)
            fail_msg("%s refused: %s", files[i], sb.buf);
        /* bench: 60 M requests, within 1 GiB (measured: 35 MiB) */
        if (i == 0) {
            assert_true(c.requests > 59e6 && c.requests < 61e6);
            assert_true(c.memory_bytes < 1 * GIB);
        }
        sb_deinit(&sb);
        scenario_destroy(sc);
        diag_deinit(&d);
    }
}

static void test_absurd_sizes_refused(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    /* a billion keys: tens of gigabytes of key records */
    assert_int_equal(judge(small, "workload.keys=1000000000", false, msg, sizeof msg, &c),
                     COST_TOO_BIG);
    assert_non_null(strstr(msg, "workload.keys"));
    assert_non_null(strstr(msg, "or pass --force to run it anyway (it may run out of memory)"));
    assert_true(c.key_bytes > 24e9);
    /* 10^15 requests a second: requests in flight alone exceed memory */
    assert_int_equal(judge(small, "workload.qps=1e15", false, msg, sizeof msg, NULL),
                     COST_TOO_BIG);
    assert_non_null(strstr(msg, "workload.qps"));
}

/* The memory estimate is not exact: --force runs past it, with a warning
 * (it refused with or without --force, so a run that would have fit could
 * not be made at all). The clock's range stays out of reach. */
static void test_force_past_memory(void **state)
{
    (void)state;
    char msg[1024];
    assert_int_equal(judge(small, "workload.keys=1000000000", true, msg, sizeof msg, NULL),
                     COST_OK);
    assert_non_null(strstr(msg, "warning: the run may run out of memory: it would need about "));
    assert_non_null(strstr(msg, "more than this machine's 26 GB (lower workload.keys"));
    assert_null(strstr(msg, "cannot"));
    /* past memory and past the clock: still impossible */
    assert_int_equal(judge("name: o\ncache: {service_time: 100000h, max_queue: 1000}\n"
                           "workload: {keys: 1000000000}\nnodes: [{id: A}]\n", NULL, true, msg,
                           sizeof msg, NULL),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "simulated time could reach"));
    /* within memory: no warning */
    assert_int_equal(judge(small, NULL, true, msg, sizeof msg, NULL), COST_OK);
    assert_string_equal(msg, "");
}

static void test_slow_needs_force(void **state)
{
    (void)state;
    char msg[1024];
    /* probing every nanosecond: 3.6e11 events for 60 s */
    const char *central = "name: p\nhealth: {mode: central, probe_interval: 1ns}\n"
                          "nodes: [{id: A}, {id: B}, {id: C}]\n";
    assert_int_equal(judge(central, NULL, false, msg, sizeof msg, NULL), COST_TOO_BIG);
    assert_non_null(strstr(msg, "probe_interval"));
    assert_non_null(strstr(msg, "--force"));
    assert_int_equal(judge(central, NULL, true, msg, sizeof msg, NULL), COST_OK);
    /* 10^7 s of 1 s ticks for 100 nodes: a billion rows */
    struct strbuf y;
    sb_init(&y);
    sb_puts(&y, "name: sparse\nduration: 10000000s\nworkload: {qps: 1e-9}\nnodes:\n");
    for (int i = 0; i < 100; i++)
        sb_printf(&y, "  - {id: n%d}\n", i);
    assert_int_equal(judge(y.buf, NULL, false, msg, sizeof msg, NULL), COST_TOO_BIG);
    assert_non_null(strstr(msg, "tick"));
    assert_int_equal(judge(y.buf, NULL, true, msg, sizeof msg, NULL), COST_OK);
    sb_deinit(&y);
}

static void test_clock_overflow_impossible(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    /* a queue of 1000 requests of 100000 h each (exponential tail): past 2^62 ns */
    assert_int_equal(judge("name: o\ncache: {service_time: 100000h, max_queue: 1000}\n"
                           "nodes: [{id: A}]\n", NULL, true, msg, sizeof msg, &c),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "cache.service_time"));
    assert_int_equal(judge("name: o\ndatabase: {workers: 1, service_time: 1000h}\n"
                           "nodes: [{id: A}]\n", NULL, true, msg, sizeof msg, NULL),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "database.service_time"));
    /* a slow_node factor multiplies the service time */
    assert_int_equal(judge("name: o\ncache: {service_time: 1h}\nnodes: [{id: A}]\n"
                           "events: [{at: 1s, slow_node: {id: A, factor: 1000000}}]\n",
                           NULL, true, msg, sizeof msg, NULL),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "slow_node.factor"));
    /* the last step of a gradual change: 999 x 300000 h (it overflowed the clock) */
    assert_int_equal(judge("name: o\nnodes: [{id: A}, {id: B}]\n"
                           "events: [{at: 1s, set_weight: {id: A, weight: 2, steps: 1000, "
                           "every: 300000h}}]\n", NULL, true, msg, sizeof msg, NULL),
                     COST_IMPOSSIBLE);
    assert_non_null(strstr(msg, "`every` × `steps`"));
    assert_int_equal(judge("name: o\nnodes: [{id: A}, {id: B}]\n"
                           "events: [{at: 1s, set_vnodes: {id: A, vnodes: 8, steps: 1000, "
                           "every: 300000h}}]\n", NULL, true, msg, sizeof msg, NULL),
                     COST_IMPOSSIBLE);
    /* the defaults are far from it */
    assert_int_equal(judge(small, NULL, false, msg, sizeof msg, &c), COST_OK);
    assert_true(c.max_time_ns < 1e12);
}

/* ---- shapes and traces ----------------------------------------------------------- */

static void test_ramps_and_cycles(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    /* 1000/s for 10 s, a ramp to 3000/s over 20 s (40000), then 3000/s for 30 s */
    judge("name: r\nworkload: {qps: 1000}\nnodes: [{id: A}]\n"
          "events: [{at: 10s, set_qps: {qps: 3000, over: 20s}}]\n", NULL, false, msg,
          sizeof msg, &c);
    assert_true(fabs(c.requests - (10000 + 40000 + 90000)) < 1);
    /* a ramp cut by a step: 1000/s to 20 s, halfway to 3000 by 20 s (2000/s), then 500/s */
    judge("name: r\nworkload: {qps: 1000}\nnodes: [{id: A}]\n"
          "events: [{at: 10s, set_qps: {qps: 3000, over: 20s}}, {at: 20s, set_qps: 500}]\n",
          NULL, false, msg, sizeof msg, &c);
    assert_true(fabs(c.requests - (10000 + 15000 + 20000)) < 1);
    /* a cycle: its mean, plus at most amplitude x qps x period / pi */
    judge("name: d\nworkload: {qps: 1000, diurnal: {amplitude: 0.5, period: 10s}}\n"
          "nodes: [{id: A}]\n", NULL, false, msg, sizeof msg, &c);
    assert_true(c.requests >= 60000 && c.requests <= 60000 + 0.5 * 1000 * 10 / M_PI + 1);
}

/* A file of n oracle_general records, request i for key keys(i), at second i / per_s. */
static char *oracle_file(const char *name, size_t n, uint64_t (*key)(size_t), size_t per_s)
{
    char *path = malloc(128);
    snprintf(path, 128, "/tmp/ringsim-test-estimate-%d-%s", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++) {
        uint32_t t = (uint32_t)(i / per_s), size = 100;
        uint64_t id = key(i), next = 0;
        fwrite(&t, 4, 1, f); /* the test machine is little-endian, as the format */
        fwrite(&id, 8, 1, f);
        fwrite(&size, 4, 1, f);
        fwrite(&next, 8, 1, f);
    }
    fclose(f);
    return path;
}

static uint64_t all_new(size_t i)
{
    return i * 7919;
}

static uint64_t cycle_1000(size_t i)
{
    return i % 1000;
}

/* Skewed: class c (the lowest set bit of a hash of i, so probability 2^-(c+1))
 * holds 4^c keys: a few hot keys and a long tail of rare ones, whose
 * distinct count keeps growing with the trace's length. */
static uint64_t skewed(size_t i)
{
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    unsigned c = (unsigned)__builtin_ctzll(h | (1ULL << 20));
    return ((uint64_t)c << 48) | ((h >> 20) & ((1ULL << (2 * c)) - 1));
}

/* Uniform over 200,000 keys: a keyspace a long trace saturates. */
static uint64_t uniform_200k(size_t i)
{
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    return h % 200000;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct keys among the first n of key(). */
static double distinct_of(size_t n, uint64_t (*key)(size_t))
{
    uint64_t *all = malloc(n * sizeof(*all));
    for (size_t i = 0; i < n; i++)
        all[i] = key(i);
    qsort(all, n, sizeof(*all), cmp_u64);
    double distinct = 1;
    for (size_t i = 1; i < n; i++)
        distinct += all[i] != all[i - 1];
    free(all);
    return distinct;
}

static double distinct_keys(size_t n)
{
    return distinct_of(n, skewed);
}

/* A sweep estimates every combination over the same trace: the file's
 * estimate is kept and reused while the file is the same one unchanged
 * (device, inode, size, change times), and made again when it is written
 * over, even at the same size. */
static void test_trace_estimate_reused(void **state)
{
    (void)state;
    char yaml[512], msg[1024];
    struct run_cost a, b;
    const size_t n = 1u << 19; /* past the sample: the keys take a pass over the file */
    char *f = oracle_file("same.bin", n, cycle_1000, 10000);
    snprintf(yaml, sizeof yaml, "name: t\nduration: 20s\nworkload:\n  trace: {path: %s}\n"
             "nodes: [{id: A}]\n", f);
    judge(yaml, NULL, false, msg, sizeof msg, &a);
    judge(yaml, "routing.vnodes=8", false, msg, sizeof msg, &b);
    assert_true(a.key_bytes == b.key_bytes && a.requests == b.requests);
    assert_true(a.key_bytes < 2000 * 100.0); /* 1,000 keys, counted a little high */
    free(oracle_file("same.bin", n, all_new, 10000)); /* written over, as large */
    judge(yaml, NULL, false, msg, sizeof msg, &b);
    assert_true(b.key_bytes > 0.9 * (double)n * 100.0); /* every request a new key */
    unlink(f);
    free(f);
}

static void test_trace_estimate(void **state)
{
    (void)state;
    char yaml[512], msg[1024];
    struct run_cost c;
    /* requests: file size / 24; keys: exact when the sample is the whole file */
    char *small_f = oracle_file("small.bin", 5000, cycle_1000, 100);
    snprintf(yaml, sizeof yaml, "name: t\nduration: 100s\nworkload:\n  trace: {path: %s}\n"
             "nodes: [{id: A}]\n", small_f);
    assert_int_equal(judge(yaml, NULL, false, msg, sizeof msg, &c), COST_OK);
    assert_true(c.requests == 5000);
    assert_true(c.key_bytes == 1000 * 100.0);
    /* the part before duration: 50 s of the trace's 50 s at time_scale 4 (200 s) */
    assert_int_equal(judge(yaml, "workload.trace.time_scale=4", false, msg, sizeof msg, &c),
                     COST_OK);
    assert_true(fabs(c.requests - 2500) < 1);
    /* a trace larger than the sample: every key new extrapolates to every request a key;
     * a skewed one to within a factor of 2 of its distinct keys */
    const size_t n = 1u << 20;
    char *fresh = oracle_file("fresh.bin", n, all_new, 10000);
    snprintf(yaml, sizeof yaml, "name: t\nduration: 200s\nworkload:\n  trace: {path: %s}\n"
             "nodes: [{id: A}]\n", fresh);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    assert_true(c.requests == (double)n);
    assert_true(fabs(c.key_bytes / 100.0 - (double)n) < 1);
    char *skew = oracle_file("skew.bin", n, skewed, 10000);
    snprintf(yaml, sizeof yaml, "name: t\nduration: 200s\nworkload:\n  trace: {path: %s}\n"
             "nodes: [{id: A}]\n", skew);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    double distinct = distinct_keys(n), in_sample = distinct_keys(1u << 18);
    assert_true(distinct > 1.5 * in_sample); /* more than the sample shows */
    double keys = c.key_bytes / 100.0;
    if (keys < distinct || keys > distinct * 1.07)
        fail_msg("%.0f distinct keys estimated as %.0f", distinct, keys);
    /* a keyspace the trace saturates: counted over the file, not carried from the
     * sample's growth (which counted 1.66 times its 198,947 keys) */
    char *sat = oracle_file("sat.bin", n, uniform_200k, 10000);
    snprintf(yaml, sizeof yaml, "name: t\nduration: 200s\nworkload:\n  trace: {path: %s}\n"
             "nodes: [{id: A}]\n", sat);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    distinct = distinct_of(n, uniform_200k);
    keys = c.key_bytes / 100.0;
    if (keys < distinct || keys > distinct * 1.07)
        fail_msg("%.0f distinct keys of a saturated keyspace estimated as %.0f", distinct, keys);
    unlink(sat);
    free(sat);
    /* csv: the lines counted when the file is small */
    char path[128];
    snprintf(path, sizeof path, "/tmp/ringsim-test-estimate-%d-t.csv", (int)getpid());
    FILE *f = fopen(path, "w");
    fprintf(f, "time,key,op\n");
    for (int i = 0; i < 3000; i++)
        fprintf(f, "%d,k%d,get\n", i / 100, i % 700);
    fclose(f);
    snprintf(yaml, sizeof yaml, "name: t\nduration: 100s\nworkload:\n  trace: {path: %s, "
             "format: csv}\nnodes: [{id: A}]\n", path);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    assert_true(c.requests == 3000);
    assert_true(c.key_bytes == 700 * 100.0);
    /* a byte order mark opening the file does not hide its first line (its only
     * one: no request estimated before) */
    f = fopen(path, "w");
    fprintf(f, "\xef\xbb\xbf" "0,k1,get\n");
    fclose(f);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    assert_true(c.requests == 1);
    assert_true(c.key_bytes == 100.0);
    /* a csv larger than the sample ends in a comment and a blank line: its span
     * still comes from its last request (1,000 s; 100 s of it played: a tenth) */
    f = fopen(path, "w");
    fprintf(f, "time,key,op\n");
    const int lines = 1000000; /* some 15 MB, past the 8 MiB sampled */
    for (int i = 0; i < lines; i++)
        fprintf(f, "%d,k%d,get\n", (int)((int64_t)i * 1000 / lines), i % 700);
    fprintf(f, "# the end of the capture\n\n");
    fclose(f);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    if (c.requests < 0.08 * lines || c.requests > 0.12 * lines)
        fail_msg("%.0f requests estimated for a tenth of %d", c.requests, lines);
    /* its keys counted over the whole file (with the cut line and the byte order mark
     * of the first chunk), not the sample's: uniform over 200,000 */
    f = fopen(path, "w");
    fprintf(f, "\xef\xbb\xbf" "0,first,get\n");
    for (int i = 0; i < lines; i++)
        fprintf(f, "%d,k%d,get\n", (int)((int64_t)i * 1000 / lines), (int)uniform_200k((size_t)i));
    fclose(f);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    distinct = distinct_of((size_t)lines, uniform_200k) + 1;
    keys = c.key_bytes / 100.0;
    if (keys < distinct || keys > distinct * 1.07)
        fail_msg("%.0f distinct keys of a csv estimated as %.0f", distinct, keys);
    unlink(small_f);
    unlink(fresh);
    unlink(skew);
    unlink(path);
    free(small_f);
    free(fresh);
    free(skew);
}

/* ---- memory against measured peaks ----------------------------------------------- */

#define MIB (1024.0 * 1024)

/* Fails unless the estimate (bytes) lies within [lo, hi] times a measured
 * peak of peak_mib MiB. */
static void near_peak(const char *what, double est, double peak_mib, double lo, double hi)
{
    if (est < lo * peak_mib * MIB || est > hi * peak_mib * MIB)
        fail_msg("%s: %.0f MiB estimated, %.0f MiB measured", what, est / MIB, peak_mib);
}

static double estimate_file(const char *path)
{
    struct diag d;
    diag_init(&d);
    struct scenario *sc = scenario_load(path, NULL, 0, &d);
    diag_print(&d, stderr);
    assert_non_null(sc);
    struct run_cost c;
    run_cost_estimate(sc, &c);
    scenario_destroy(sc);
    diag_deinit(&d);
    return c.memory_bytes;
}

/* Requests in flight are bounded by the client's timeout and the queues' room,
 * not by a full queue's drain time multiplied by the arrival rate. The slow
 * node cascade (80,000/s, queues of 10,000 at 20 times 80 us) peaked at 36 MiB
 * and 6,180 request records; the estimate was 2.3 GB (14.4 M records in
 * flight), enough to refuse the library's scenario on a 2 GiB machine. */
static void test_inflight_bounded(void **state)
{
    (void)state;
    double est = estimate_file("scenarios/incidents/slow_node_cascade.yaml");
    near_peak("slow_node_cascade", est, 36, 1, 256.0 / 36);
    /* every library scenario stays at or above its measured peak (ringsim run's
     * "peak memory", release build): zipf_steady 293 MiB (5 M keys, 16 nodes
     * prewarmed with 1.6 M items: prewarm sorts its candidates beside them),
     * bench 44 MiB (41 MiB on another machine: huge pages round the peak) */
    est = estimate_file("scenarios/zipf_steady.yaml");
    near_peak("zipf_steady", est, 293, 1, 4);
    est = estimate_file("scenarios/bench.yaml");
    near_peak("bench", est, 44, 1, 4);
}

/* Each client instance's local cache holds items of its own: 8 instances of
 * 2 M items over 2 M keys, 8 M requests, peaked at 567 MiB (57 MiB without
 * the local caches); the estimate ignored them (75 MiB). */
static void test_local_cache_counted(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    const char *yaml = "name: l\nduration: 20s\n"
                       "workload: {keys: 2000000, qps: 400000}\n"
                       "cache: {capacity_items: 10, max_queue: 10, workers: 64}\n"
                       "database: {max_queue: 10, workers: 1000}\n"
                       "clients: {instances: 8, timeout: 1ms,\n"
                       "          local_cache: {capacity_items: 2000000}}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}]\n";
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    near_peak("local caches", c.memory_bytes, 567, 1, 4);
    /* 1000 instances for 2,000 s: up to 2e9 local items, far past the machine */
    assert_int_equal(judge("name: l\nduration: 2000s\nworkload: {keys: 2000000, qps: 400000}\n"
                           "clients: {instances: 1000, local_cache: {capacity_items: 2000000}}\n"
                           "nodes: [{id: A}]\n", NULL, false, msg, sizeof msg, &c),
                     COST_TOO_BIG);
    assert_non_null(strstr(msg, "clients.local_cache"));
}

/* yaml for n nodes (caller frees) after head. */
static char *many_nodes(const char *head, int n)
{
    struct strbuf y;
    sb_init(&y);
    sb_printf(&y, "%snodes:\n", head);
    for (int i = 0; i < n; i++)
        sb_printf(&y, "  - {id: n%d}\n", i);
    return y.buf;
}

/* A queue grows only with a backlog: its room is counted for the nodes offered
 * 80% of what they serve and the largest other, every queue full at once being
 * the worst case. Counting them all, 1000 ketama nodes (queues of 10,000)
 * peaked at 58 MiB and were estimated 1711 MiB; 50 rendezvous nodes 24 MiB
 * for 139 MiB. 20 nodes serving 1,000/s offered 200,000/s with health off
 * fill every queue (100,000 each): 307 MiB, counted in full. Client instances
 * that eject the same node share a view: 64 of them were counted 64 views. */
static void test_queue_room_likely(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    const double slot = 160; /* bytes of a request in a queue */
    char *y = many_nodes("name: k\nduration: 20s\nrouting: {algorithm: ketama}\n", 1000);
    judge(y, NULL, false, msg, sizeof msg, &c);
    near_peak("1000 nodes", c.memory_bytes, 58, 1, 3);
    assert_true(c.memory_worst_bytes > c.memory_bytes + 999 * 10000 * slot);
    free(y);
    y = many_nodes("name: r\nduration: 20s\nrouting: {algorithm: rendezvous}\n", 50);
    judge(y, NULL, false, msg, sizeof msg, &c);
    near_peak("50 nodes", c.memory_bytes, 24, 1, 3);
    free(y);
    y = many_nodes("name: o\nduration: 20s\nworkload: {qps: 200000}\nhealth: {mode: off}\n"
                   "cache: {service_time: 1ms, workers: 1, max_queue: 100000}\n", 20);
    judge(y, NULL, false, msg, sizeof msg, &c);
    assert_true(c.inflight_bytes >= 20 * 100000 * slot);
    near_peak("overloaded", c.memory_bytes, 307, 1, 2);
    free(y);
    /* a slowed node's queue fills: counted beside the largest other */
    y = many_nodes("name: s\nworkload: {qps: 20000}\ncache: {max_queue: 100000}\n"
                   "events: [{at: 5s, slow_node: {id: n3, factor: 1000}}]\n", 20);
    judge(y, NULL, false, msg, sizeof msg, &c);
    assert_true(c.inflight_bytes >= 2 * 100000 * slot && c.inflight_bytes < 4 * 100000 * slot);
    free(y);
    /* 64 instances: one view they share, 64 at worst */
    y = many_nodes("name: i\nduration: 20s\nclients: {instances: 64}\n", 10);
    judge(y, NULL, false, msg, sizeof msg, &c);
    assert_true(c.views == 2);
    assert_true(c.memory_worst_bytes >= c.memory_bytes + 63 * c.view_each_bytes);
    near_peak("64 instances", c.memory_bytes, 23, 1, 3);
    free(y);
    /* a refusal says the worst case beside the likely need */
    y = many_nodes("name: w\nworkload: {keys: 1000000000}\ncache: {max_queue: 10000000}\n", 100);
    assert_int_equal(judge(y, NULL, false, msg, sizeof msg, &c), COST_TOO_BIG);
    assert_non_null(strstr(msg, " at worst) of memory, more than this machine's"));
    free(y);
}

/* Caches larger than the keyspace hold at most what prewarm and the requests
 * put in them: 3 nodes of 10 GB over 3 M one-byte values, 20,000 requests,
 * peaked at 351 MiB; the estimate counted 3 M items on each node (786 MiB). */
static void test_items_bounded_by_copies(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    judge("name: b\nduration: 20s\n"
          "workload: {keys: 3000000, qps: 1000, value_bytes: 1}\n"
          "cache: {capacity: 10GB}\nnodes: [{id: A}, {id: B}, {id: C}]\n",
          NULL, false, msg, sizeof msg, &c);
    near_peak("large caches", c.memory_bytes, 351, 1, 2);
}

/* A node holds a key once: the items are no more than a copy of each key
 * at each node it can live on (replicas, an ejection's rehash, one more, one
 * per event that may move it). Counting a copy per request, 50 nodes over
 * the default 100,000 keys for 20 s (200,000 requests; at most 100,000 items
 * held, 24 MiB at the peak) were counted 560,000 items (65 MiB in all). */
static void test_items_bounded_by_homes(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    char *y = many_nodes("name: r\nduration: 20s\nrouting: {algorithm: rendezvous}\n", 50);
    judge(y, NULL, false, msg, sizeof msg, &c);
    double per_item = 80, keys = 100000 + 0 + 0; /* workload.keys, no hot key, no event */
    assert_true(c.item_bytes >= keys * per_item && c.item_bytes <= keys * 3 * per_item + keys * 48);
    near_peak("50 nodes", c.memory_bytes, 24, 1, 2.1);
    free(y);
    /* each step of a gradual change may move a key once more */
    y = many_nodes("name: r\nduration: 20s\nworkload: {qps: 100000}\n"
                   "events: [{at: 1s, set_weight: {id: n1, weight: 3, steps: 4, every: 1s}}]\n", 50);
    judge(y, NULL, false, msg, sizeof msg, &c);
    keys = 100001; /* and the event's */
    assert_true(c.item_bytes >= keys * 7 * per_item && c.item_bytes <= keys * 7 * per_item + keys * 48);
    free(y);
    /* never more homes than nodes */
    y = many_nodes("name: r\nduration: 20s\n", 2);
    judge(y, NULL, false, msg, sizeof msg, &c);
    assert_true(c.item_bytes <= 100000 * 2 * per_item + 100000 * 48);
    free(y);
}

/* Sampled client operations are rows of `requests`: 100,000/s for an hour,
 * all sampled, is 3.6e8 rows (some 30 GB); the estimate counted tick rows only
 * (2e4) and accepted it. A second of 2 M sampled rows peaked at 100 MiB
 * (they wait in memory until the next write to the file). */
static void test_sampled_requests_counted(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    const char *yaml = "name: s\nduration: 1h\nworkload: {qps: 100000}\n"
                       "output: {sample_requests: 1}\nnodes: [{id: A}, {id: B}, {id: C}]\n";
    assert_int_equal(judge(yaml, NULL, false, msg, sizeof msg, &c), COST_TOO_BIG);
    assert_true(c.rows >= 3.6e8);
    assert_non_null(strstr(msg, "output.sample_requests"));
    assert_int_equal(judge(yaml, NULL, true, msg, sizeof msg, &c), COST_OK);
    judge("name: s\nduration: 10s\nworkload: {qps: 200000, keys: 100}\n"
          "output: {sample_requests: 1}\nnodes: [{id: A}, {id: B}, {id: C}]\n",
          NULL, false, msg, sizeof msg, &c);
    if (c.memory_bytes < 100 * MIB)
        fail_msg("sampled requests: %.0f MiB estimated, 100 MiB measured", c.memory_bytes / MIB);
}

/* A maglev placement is its table of 4-byte node indexes
 * (models/placement/place_maglev.c): table_size 16777213 is 64 MiB a view.
 * The estimate counted 6 bytes an entry (a quarter of the table's entries
 * as 24-byte ring points), 1.5 times the table; a set_routing to maglev was
 * not counted at all (the ring's points were). Measured: 11 nodes in
 * central mode with an add, a remove and a set_weight (3 views alive at
 * once, as counted) peaked at 204 MiB (325 MiB estimated, now 229). */
static void test_maglev_table_counted(void **state)
{
    (void)state;
    char msg[1024];
    struct run_cost c;
    const double M = 16777213, table = M * sizeof(uint32_t);
    const char *ten = "nodes: [{id: n0}, {id: n1}, {id: n2}, {id: n3}, {id: n4}, {id: n5}, "
                      "{id: n6}, {id: n7}, {id: n8}, {id: n9}]\n";
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "name: m\nduration: 20s\nworkload: {keys: 100000, qps: 2000}\n"
             "routing: {algorithm: maglev, table_size: 16777213}\nhealth: {mode: central}\n"
             "cache: {capacity_items: 1000}\n%s"
             "events:\n  - {at: 5s, add_node: {id: n10}}\n  - {at: 10s, remove_node: {id: n0}}\n"
             "  - {at: 15s, set_weight: {id: n1, weight: 2}}\n", ten);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    assert_true(c.view_each_bytes >= table && c.view_each_bytes < table * 1.001);
    assert_true(c.views == 3);
    assert_true(c.view_bytes < 3 * table * 1.001);
    near_peak("maglev", c.memory_bytes, 204, 1, 2);
    /* the same table by a set_routing from a ring of 160 points a node */
    snprintf(yaml, sizeof yaml,
             "name: m\nrouting: {table_size: 16777213}\n%s"
             "events: [{at: 5s, set_routing: {algorithm: maglev}}]\n", ten);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    assert_true(c.view_each_bytes >= table && c.view_each_bytes < table * 1.001);
    /* the default table: 256 KiB */
    snprintf(yaml, sizeof yaml, "name: m\nrouting: {algorithm: maglev}\n%s", ten);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    assert_true(c.view_each_bytes >= 65537 * 4.0 && c.view_each_bytes < 65537 * 4.0 + 4096);
}

/* A run that never publishes a second epoch holds one view (no previous
 * one, none being built): maglev 16777213 over 10 nodes with health off
 * peaked at 76 MiB, estimated 228 MiB (three tables).
 * A ring's build needs its points twice over for a while (sorted copies,
 * 32 bytes a point) and its view holds owner and bucket tables of up to
 * 20 MiB beside its points: 11 nodes of 400,000 vnodes with an add, a
 * remove and a set_weight peaked at 478 MiB and were estimated 339 MiB. */
static void test_views_alive(void **state)
{
    (void)state;
    char msg[1024], yaml[1024];
    struct run_cost c;
    const char *ten = "nodes: [{id: n0}, {id: n1}, {id: n2}, {id: n3}, {id: n4}, {id: n5}, "
                      "{id: n6}, {id: n7}, {id: n8}, {id: n9}]\n";
    snprintf(yaml, sizeof yaml,
             "name: m\nduration: 10s\nworkload: {keys: 100000, qps: 2000}\n"
             "routing: {algorithm: maglev, table_size: 16777213}\nhealth: {mode: off}\n"
             "cache: {capacity_items: 1000}\n%s", ten);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    assert_true(c.views == 1);
    near_peak("maglev alone", c.memory_bytes, 76, 1, 2);
    snprintf(yaml, sizeof yaml,
             "name: m\nduration: 20s\nworkload: {keys: 100000, qps: 2000}\n"
             "routing: {vnodes: 400000}\nhealth: {mode: central}\n"
             "cache: {capacity_items: 1000}\n%s"
             "events:\n  - {at: 5s, add_node: {id: n10}}\n  - {at: 10s, remove_node: {id: n0}}\n"
             "  - {at: 15s, set_weight: {id: n1, weight: 2}}\n", ten);
    judge(yaml, NULL, false, msg, sizeof msg, &c);
    assert_true(c.views == 3);
    /* 468 MiB: counted with one node's queue room, no longer all eleven (whose 16 MiB
     * were never used), it is 2% under the peak: the tables are counted at their size */
    near_peak("ring with events", c.memory_bytes, 478, 0.95, 2);
}

/* Absurd rates the loader accepts (any finite qps) are refused with counts a
 * user can read: qps 1e300 for 60 s (6e301 requests, a finite count) gave
 * "about inf events (inf client requests)" (the rate times nanoseconds
 * overflowed); at 1.7e308 the count was nan (inf × 0) and the events check
 * silently passed; with nothing sampled, the rows were nan. A rate from a
 * set_qps names that event, not workload.qps. */
static void test_absurd_rates_readable(void **state)
{
    (void)state;
    char msg[2048];
    struct run_cost c;
    judge(small, "workload.qps=1.7e308", false, msg, sizeof msg, &c);
    assert_null(strstr(msg, "inf"));
    assert_null(strstr(msg, "nan"));
    assert_non_null(strstr(msg, "1e+308 or more events (1e+308 or more client requests)"));
    assert_non_null(strstr(msg, "lower workload.qps or duration"));
    assert_true(isfinite(c.rows) && c.sampled_rows == 0);
    judge(small, "workload.qps=1e300", false, msg, sizeof msg, &c);
    assert_true(isfinite(c.requests));
    assert_true(fabs(c.requests / 6e301 - 1) < 1e-9);
    assert_non_null(strstr(msg, "about 2.4e+302 events (about 6e+301 client requests)"));
    judge("name: s\nworkload: {qps: 1.7e308}\noutput: {sample_requests: 1}\n"
          "nodes: [{id: A}]\n", NULL, false, msg, sizeof msg, &c);
    assert_null(strstr(msg, "inf"));
    assert_non_null(strstr(msg, "(1e+308 or more rows)"));
    judge("name: s\nworkload: {qps: 100}\nnodes: [{id: A}]\nevents:\n"
          "  - {at: 20s, set_qps: {qps: 1e300, over: 10s}}\n  - {at: 10s, set_qps: 200}\n",
          NULL, false, msg, sizeof msg, &c);
    assert_null(strstr(msg, "inf"));
    assert_non_null(strstr(msg, "lower events.0.set_qps or clients.timeout (requests in flight)"));
    assert_non_null(strstr(msg, "lower events.0.set_qps or duration"));
}

/* A size for a message keeps its unit whatever the size: %.0f of 10^100
 * bytes was 31 digits and no unit ("about 4831999...027 of memory"). */
static void test_format_bytes(void **state)
{
    (void)state;
    char buf[32];
    format_bytes(340e6, buf, sizeof buf);
    assert_string_equal(buf, "340 MB");
    format_bytes(1.2e9, buf, sizeof buf);
    assert_string_equal(buf, "1.2 GB");
    format_bytes(4.832e21, buf, sizeof buf);
    assert_string_equal(buf, "4832 EB");
    format_bytes(4.832e101, buf, sizeof buf);
    assert_string_equal(buf, "4.83e+83 EB");
    format_bytes(INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "1e+308 B or more");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_scenarios_pass),
        cmocka_unit_test(test_absurd_sizes_refused),
        cmocka_unit_test(test_slow_needs_force),
        cmocka_unit_test(test_force_past_memory),
        cmocka_unit_test(test_clock_overflow_impossible),
        cmocka_unit_test(test_ramps_and_cycles),
        cmocka_unit_test(test_trace_estimate),
        cmocka_unit_test(test_trace_estimate_reused),
        cmocka_unit_test(test_inflight_bounded),
        cmocka_unit_test(test_local_cache_counted),
        cmocka_unit_test(test_items_bounded_by_copies),
        cmocka_unit_test(test_sampled_requests_counted),
        cmocka_unit_test(test_format_bytes),
        cmocka_unit_test(test_absurd_rates_readable),
        cmocka_unit_test(test_maglev_table_counted),
        cmocka_unit_test(test_views_alive),
        cmocka_unit_test(test_queue_room_likely),
        cmocka_unit_test(test_items_bounded_by_homes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
