/*
 * Traffic from traces and realistic shapes, each against its expectation:
 *  - a trace replayed through one node with a capacity in items and no
 *    latency misses exactly as often as an exact LRU (a hash map and a
 *    doubly linked list written here) on the same trace, for an
 *    oracle_general and a csv trace of Zipf requests and several
 *    capacities; a csv trace's sets and deletes invalidate, as the LRU's
 *    removals;
 *  - a trace's requests are spread evenly over their second, time_scale
 *    stretches them, the run goes on after the trace ends (trace_end);
 *  - object ids print whole (64 bits), items take the trace's first size,
 *    a csv ttl expires items, prewarm holds the most requested keys
 *    (nothing under `fill: none`);
 *  - a bad trace is an error naming the trace file and its record or line;
 *  - arrivals per window follow the integrated rate (within Poisson noise)
 *    for a ramp and a daily cycle; a constant rate draws as it always did;
 *  - shift_popularity: the hit rate dips and recovers, and the requests per
 *    key follow the permuted ranks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "models/store.h"
#include "models/trace_reader.h"
#include "models/workload.h"
#include "support_sink.h"

#define NOISE(x) (4 * sqrt((double)(x)) + 2)

/* ---- a Zipf trace, and where the tests write their files ------------------------------- */

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s", "/tmp/ringsim-traffic-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int i;
    char *p = buf[i++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
    return p;
}

/* A small generator of its own (splitmix64), independent of the model's. */
static uint64_t rnd_state = 12345;
static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct trace {
    size_t n;
    uint32_t *sec;     /* time of each request */
    uint32_t *obj;     /* its object, 0..objects-1 */
    uint64_t *id;      /* each object's id (64-bit, random) */
    uint8_t *op;       /* enum trace_op */
};

/* n requests over `objects` objects with Zipf(s) popularity, `per_s` a
 * second from second 1000; a share `writes` of sets and deletes. */
static void make_trace(struct trace *t, size_t n, uint32_t objects, double s, uint32_t per_s,
                       double writes)
{
    double *cdf = malloc(objects * sizeof(double)), z = 0;
    for (uint32_t k = 0; k < objects; k++)
        cdf[k] = z += pow(k + 1.0, -s);
    t->n = n;
    t->sec = malloc(n * sizeof(*t->sec));
    t->obj = malloc(n * sizeof(*t->obj));
    t->op = malloc(n);
    t->id = malloc(objects * sizeof(*t->id));
    for (uint32_t k = 0; k < objects; k++)
        t->id[k] = rnd();
    for (size_t i = 0; i < n; i++) {
        double u = (double)(rnd() >> 11) / 9007199254740992.0 * z;
        uint32_t lo = 0, hi = objects - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        t->obj[i] = lo;
        t->sec[i] = 1000 + (uint32_t)(i / per_s);
        double v = (double)(rnd() >> 11) / 9007199254740992.0;
        t->op[i] = v < writes / 2 ? TRACE_SET : v < writes ? TRACE_DELETE : TRACE_GET;
    }
    free(cdf);
}

static void free_trace(struct trace *t)
{
    free(t->sec);
    free(t->obj);
    free(t->id);
    free(t->op);
}

static void put32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    fwrite(b, 1, 4, f);
}

static void put64(FILE *f, uint64_t v)
{
    put32(f, (uint32_t)v);
    put32(f, (uint32_t)(v >> 32));
}

/* libCacheSim's oracleGeneral: uint32 time, uint64 id, uint32 size, int64 next access. */
static void write_oracle(const struct trace *t, const char *path)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < t->n; i++) {
        put32(f, t->sec[i]);
        put64(f, t->id[t->obj[i]]);
        put32(f, 100 + t->obj[i] % 900);
        put64(f, UINT64_MAX); /* -1: no next access */
    }
    fclose(f);
}

static void write_csv(const struct trace *t, const char *path)
{
    static const char *const ops[] = {"get", "set", "delete"};
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "time,key,op,size\n");
    for (size_t i = 0; i < t->n; i++)
        fprintf(f, "%u,user:%llu,%s,%u\n", t->sec[i], (unsigned long long)t->id[t->obj[i]],
                ops[t->op[i]], 100 + t->obj[i] % 900);
    fclose(f);
}

/* ---- the reference: an exact LRU of `cap` objects ---------------------------------------- */

/* Misses of the gets of t under LRU (a get that misses is inserted at the
 * head, evicting the tail when full; sets and deletes remove the object,
 * as the model's invalidation does). Objects are small integers here, so
 * the map is an array; the list is doubly linked by object. */
static long long lru_misses(const struct trace *t, uint32_t objects, uint32_t cap)
{
    enum { NIL = -1 };
    int *prev = malloc(objects * sizeof(int)), *next = malloc(objects * sizeof(int));
    char *in = calloc(objects, 1);
    int head = NIL, tail = NIL;
    uint32_t size = 0;
    long long misses = 0;
#define UNLINK(x)                                \
    do {                                         \
        if (prev[x] != NIL) next[prev[x]] = next[x]; \
        else head = next[x];                     \
        if (next[x] != NIL) prev[next[x]] = prev[x]; \
        else tail = prev[x];                     \
    } while (0)
#define PUSH(x)                                  \
    do {                                         \
        prev[x] = NIL;                           \
        next[x] = head;                          \
        if (head != NIL) prev[head] = (x);       \
        head = (x);                              \
        if (tail == NIL) tail = (x);             \
    } while (0)
    for (size_t i = 0; i < t->n; i++) {
        int x = (int)t->obj[i];
        if (t->op[i] != TRACE_GET) {
            if (in[x]) {
                UNLINK(x);
                in[x] = 0;
                size--;
            }
            continue;
        }
        if (in[x]) {
            UNLINK(x);
            PUSH(x);
            continue;
        }
        misses++;
        if (size == cap) {
            int v = tail;
            UNLINK(v);
            in[v] = 0;
            size--;
        }
        PUSH(x);
        in[x] = 1;
        size++;
    }
#undef UNLINK
#undef PUSH
    free(prev);
    free(next);
    free(in);
    return misses;
}

/* One node, a capacity in items, no latency anywhere: the model's LRU. */
static void replay(struct mem_run *m, const char *path, const char *format, uint32_t cap,
                   const char *extra)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "name: replay\nduration: 1000s\ntick: 10s\n"
             "workload:\n  trace: {path: %s, format: %s}\n%s"
             "nodes: [{id: A}]\n"
             "cache: {capacity_items: %u, rtt: 0, service_time: 0, prewarm: false}\n"
             "database: {service_time: 0}\nhealth: {mode: off}\n",
             path, format, extra ? extra : "", cap);
    mem_run_yaml(m, yaml, NULL);
}

static void test_lru_parity_oracle(void **state)
{
    (void)state;
    struct trace t;
    const uint32_t objects = 20000;
    make_trace(&t, 200000, objects, 0.9, 1000, 0);
    const char *path = tmp_path("zipf.oracleGeneral.bin");
    write_oracle(&t, path);
    const uint32_t caps[] = {100, 1000, 5000};
    for (size_t c = 0; c < ARRAY_LEN(caps); c++) {
        struct mem_run m;
        replay(&m, path, "oracle_general", caps[c], NULL);
        long long want = lru_misses(&t, objects, caps[c]);
        long long misses = MEM_SUM(&m, misses, 0, 1000), hits = MEM_SUM(&m, hits, 0, 1000);
        if (misses != want)
            fail_msg("capacity %u: %lld misses, the LRU has %lld", caps[c], misses, want);
        assert_int_equal(hits + misses, (long long)t.n);
        assert_int_equal(MEM_SUM(&m, requests, 0, 1000), (long long)t.n);
        mem_run_free(&m);
    }
    free_trace(&t);
}

static void test_lru_parity_csv(void **state)
{
    (void)state;
    struct trace t;
    const uint32_t objects = 10000;
    const uint32_t caps[] = {50, 500, 3000};
    for (int writes = 0; writes < 2; writes++) {
        make_trace(&t, 100000, objects, 1.0, 500, writes ? 0.1 : 0);
        const char *path = tmp_path(writes ? "ops.csv" : "gets.csv");
        write_csv(&t, path);
        for (size_t c = 0; c < ARRAY_LEN(caps); c++) {
            struct mem_run m;
            replay(&m, path, "csv", caps[c], NULL);
            long long want = lru_misses(&t, objects, caps[c]);
            long long misses = MEM_SUM(&m, misses, 0, 1000);
            if (misses != want)
                fail_msg("csv%s, capacity %u: %lld misses, the LRU has %lld",
                         writes ? " with sets and deletes" : "", caps[c], misses, want);
            size_t gets = 0;
            for (size_t i = 0; i < t.n; i++)
                gets += t.op[i] == TRACE_GET;
            assert_int_equal(MEM_SUM(&m, reads, 0, 1000), (long long)gets);
            assert_int_equal(MEM_SUM(&m, writes, 0, 1000), (long long)(t.n - gets));
            mem_run_free(&m);
        }
        free_trace(&t);
    }
}

/* ---- time: spread over each second, scaled, and after the end ------------------------------ */

static void test_trace_time(void **state)
{
    (void)state;
    const char *path = tmp_path("time.csv");
    FILE *f = fopen(path, "w");
    /* second 7: three requests; second 9: one; the first second is time 0 */
    fprintf(f, "7,a,get\n7,b,get\n7,c,get\n9,a,get\n");
    fclose(f);
    const double scales[] = {1, 3};
    for (size_t i = 0; i < ARRAY_LEN(scales); i++) {
        char yaml[600];
        snprintf(yaml, sizeof yaml,
                 "name: t\nduration: 20s\ntick: 100ms\n"
                 "workload:\n  trace: {path: %s, format: csv, time_scale: %g}\n"
                 "nodes: [{id: A}]\n", path, scales[i]);
        struct mem_run m;
        mem_run_yaml(&m, yaml, NULL);
        double k = scales[i];
        /* at 0, 1/3, 2/3 and 2 seconds of the trace, times time_scale */
        const double at[] = {0, k / 3, 2 * k / 3, 2 * k};
        for (size_t j = 0; j < ARRAY_LEN(at); j++)
            assert_int_equal(MEM_SUM(&m, requests, at[j] - 0.099, at[j] + 0.001), 1);
        assert_int_equal(MEM_SUM(&m, requests, 0, 20), 4);
        /* the trace ends with its last second; the run goes on to duration */
        assert_int_equal(mem_count_events(&m, "trace_end"), 1);
        for (size_t e = 0; e < m.n_events; e++)
            if (!strcmp(m.events[e].kind, "trace_end"))
                assert_true(fabs(m.events[e].t_s - 3 * k) < 1e-9);
        assert_int_equal((long long)m.n_ticks, 200);
        mem_run_free(&m);
    }
}

/* ---- keys: names, sizes, ttls, prewarm ------------------------------------------------------ */

static struct sim *build(const char *yaml, struct scenario **sc)
{
    struct diag d;
    diag_init(&d);
    *sc = scenario_load_string("t.yaml", yaml, strlen(yaml), NULL, 0, &d);
    diag_print(&d, stderr);
    assert_non_null(*sc);
    diag_deinit(&d);
    char err[600];
    struct sim *s = sim_create(*sc, NULL, NULL, err, sizeof err);
    if (!s)
        fail_msg("sim_create: %s", err);
    return s;
}

static void test_trace_keys(void **state)
{
    (void)state;
    const char *path = tmp_path("keys.bin");
    FILE *f = fopen(path, "wb");
    /* id 2^64 - 1 (twice: the most requested), 2^40 + 5 (size 600), 7 (no size) */
    const uint64_t ids[] = {UINT64_MAX, (1ULL << 40) + 5, UINT64_MAX, 7, (1ULL << 40) + 5};
    const uint32_t sizes[] = {300, 600, 200, 0, 900};
    for (size_t i = 0; i < ARRAY_LEN(ids); i++) {
        put32(f, 1);
        put64(f, ids[i]);
        put32(f, sizes[i]);
        put64(f, 0);
    }
    fclose(f);
    char yaml[600];
    snprintf(yaml, sizeof yaml,
             "name: k\nduration: 10s\nworkload:\n  key_format: \"obj-%%d\"\n  value_bytes: 50\n"
             "  trace: {path: %s}\nnodes: [{id: A}]\ncache: {capacity: 900}\n", path);
    struct scenario *sc;
    struct sim *s = build(yaml, &sc);
    const struct keyspace *ks = &s->wl->ks;
    char buf[512];
    assert_int_equal(ks->n_keys, 3);
    /* ids by request count, ties in order of first appearance */
    assert_string_equal(keyspace_name(ks, 0, buf, sizeof buf), "obj-18446744073709551615");
    assert_string_equal(keyspace_name(ks, 1, buf, sizeof buf), "obj-1099511627781");
    assert_string_equal(keyspace_name(ks, 2, buf, sizeof buf), "obj-7");
    /* the first size given; none: value_bytes + the name's length */
    assert_int_equal(keyspace_item_bytes(ks, 0), 300);
    assert_int_equal(keyspace_item_bytes(ks, 1), 600);
    assert_int_equal(keyspace_item_bytes(ks, 2), 50 + 5);
    /* prewarm: the most requested first, while they fit in 900 bytes */
    assert_true(ks->rec[0].head != STORE_NIL);
    assert_true(ks->rec[1].head != STORE_NIL);
    assert_true(ks->rec[2].head == STORE_NIL);
    sim_destroy(s);
    scenario_destroy(sc);
}

static void test_trace_ttl(void **state)
{
    (void)state;
    const char *path = tmp_path("ttl.csv");
    FILE *f = fopen(path, "w");
    /* a: ttl 2 s; b: none (workload.ttl 0: never expires) */
    fprintf(f, "0,a,get,,2\n0,b,get\n1,a,get\n1,b,get\n4,a,get,,9\n4,b,get\n");
    fclose(f);
    for (int scaled = 0; scaled < 2; scaled++) {
        char yaml[600];
        snprintf(yaml, sizeof yaml,
                 "name: t\nduration: 20s\ntick: 50ms\n"
                 "workload:\n  trace: {path: %s, format: csv%s}\n"
                 "nodes: [{id: A}]\ncache: {prewarm: false}\n", path,
                 scaled ? ", time_scale: 0.25" : "");
        struct mem_run m;
        mem_run_yaml(&m, yaml, NULL);
        /* at 1 s a and b hit; at 4 s a has expired (2 s after its fill), b has not; with
         * time_scale 0.25 everything, the ttl too, is 4 times shorter */
        double k = scaled ? 0.25 : 1;
        assert_int_equal(MEM_SUM(&m, hits, 1 * k, 2 * k), 2);
        assert_int_equal(MEM_SUM(&m, hits, 4 * k, 5 * k), 1);
        assert_int_equal(MEM_SUM(&m, misses, 4 * k, 5 * k), 1);
        mem_run_free(&m);
    }
}

/* Prewarm from a trace holds its most requested keys, but not when reads
 * never fill (`fill: none`): such a cache holds nothing after a trace of
 * reads, so it starts with nothing. */
static void test_trace_prewarm_without_fills(void **state)
{
    (void)state;
    const char *path = tmp_path("nofill.csv");
    FILE *f = fopen(path, "w");
    fprintf(f, "0,a,get\n0,b,get\n1,a,get\n1,b,get\n");
    fclose(f);
    for (int none = 0; none < 2; none++) {
        char yaml[600];
        snprintf(yaml, sizeof yaml,
                 "name: t\nduration: 5s\n"
                 "workload:\n  trace: {path: %s, format: csv}\n"
                 "nodes: [{id: A}]\nclients: {fill: %s}\n", path, none ? "none" : "set");
        struct mem_run m;
        mem_run_yaml(&m, yaml, NULL);
        assert_int_equal(MEM_SUM(&m, hits, 0, 5), none ? 0 : 4);
        assert_int_equal(MEM_SUM(&m, misses, 0, 5), none ? 4 : 0);
        mem_run_free(&m);
    }
}

/* A trace's delete removes the key from the cache whatever clients.write:
 * a write through writes the new value into the cache, a delete has none
 * to write (it was written through once, so the next read hit). Sampled,
 * its op is `delete`. */
static int count_ops(void *ctx, const struct request_row *r)
{
    long long *n = ctx;
    n[0] += !strcmp(r->op, "get");
    n[1] += !strcmp(r->op, "set");
    n[2] += !strcmp(r->op, "delete");
    return 0;
}

static void test_trace_delete_invalidates(void **state)
{
    (void)state;
    const char *path = tmp_path("del.csv");
    FILE *f = fopen(path, "w");
    fprintf(f, "0,a,get\n1,a,set\n2,a,get\n3,a,delete\n4,a,get\n5,a,DELETE\n6,a,get\n");
    fclose(f);
    for (int through = 0; through < 2; through++) {
        char yaml[600];
        snprintf(yaml, sizeof yaml,
                 "name: t\nduration: 8s\ntick: 1s\n"
                 "workload:\n  trace: {path: %s, format: csv}\n"
                 "nodes: [{id: A}]\ncache: {prewarm: false}\n"
                 "clients: {write: %s}\noutput: {sample_requests: 1}\n", path,
                 through ? "write_through" : "invalidate");
        struct mem_run m;
        mem_run_yaml(&m, yaml, NULL);
        /* the set at 1 s: written through, the read at 2 s hits; invalidated, it misses */
        assert_int_equal(MEM_SUM(&m, hits, 2, 3), through ? 1 : 0);
        /* after each delete the read misses, in both modes */
        assert_int_equal(MEM_SUM(&m, hits, 4, 5) + MEM_SUM(&m, hits, 6, 7), 0);
        assert_int_equal(MEM_SUM(&m, misses, 4, 5) + MEM_SUM(&m, misses, 6, 7), 2);
        assert_int_equal(MEM_SUM(&m, db_writes, 0, 8), 3); /* each write commits */
        mem_run_free(&m);

        long long n[3] = {0};
        struct sink sink = {.ctx = n, .request = count_ops};
        assert_int_equal(sink_run_yaml(yaml, NULL, &sink, false, NULL, NULL, 0), RUN_COMPLETE);
        assert_int_equal(n[0], 4);
        assert_int_equal(n[1], 1);
        assert_int_equal(n[2], 2);
    }
}

/* ---- errors found while reading a trace ------------------------------------------------------- */

static void expect_build_error(const char *name, const char *content, size_t len,
                               const char *format, const char *want)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    fwrite(content, 1, len, f);
    fclose(f);
    char yaml[600], err[600], expect[800];
    snprintf(yaml, sizeof yaml, "name: e\nworkload:\n  trace: {path: %s, format: %s}\n"
             "nodes: [{id: A}]\n", path, format);
    struct diag d;
    diag_init(&d);
    struct scenario *sc = scenario_load_string("t.yaml", yaml, strlen(yaml), NULL, 0, &d);
    diag_print(&d, stderr);
    assert_non_null(sc);
    struct sim *s = sim_create(sc, NULL, NULL, err, sizeof err);
    assert_null(s);
    snprintf(expect, sizeof expect, "%s%s", path, want);
    if (strcmp(err, expect))
        fail_msg("got: %s\nwanted: %s", err, expect);
    scenario_destroy(sc);
    diag_deinit(&d);
}

static void test_trace_errors(void **state)
{
    (void)state;
    const char bad_op[] = "time,key,op\n1,a,get\n\n# a comment\n2,b,put\n";
    expect_build_error("op.csv", bad_op, strlen(bad_op), "csv",
                       ":5:5: op: expected get, set or delete, got \"put\"");
    const char back[] = "1,a,get\n3,b,get\n2,c,get\n";
    expect_build_error("back.csv", back, strlen(back), "csv",
                       ":3:1: time 2 s is before the previous request's (3 s); the requests must "
                       "be in time order");
    const char fields[] = "1,a\n";
    expect_build_error("fields.csv", fields, strlen(fields), "csv",
                       ":1:4: expected time,key,op[,size[,ttl]] (3 to 5 fields), got 2 fields");
    /* the column is the field's, after the spaces around it */
    const char *wide = "1, a , get,  12x\n";
    expect_build_error("size.csv", wide, strlen(wide), "csv",
                       ":1:14: size: expected bytes from 0 to 4294967295, got \"12x\"");
    /* a byte order mark is dropped, a header may follow comments (and is
     * only the first other line: a second one is an error) */
    const char bom[] = "\xef\xbb\xbf# made by a tool\n\nTime,Key,Op\n1,a,get\ntime,key,op\n";
    expect_build_error("bom.csv", bom, strlen(bom), "csv",
                       ":5:1: time: expected seconds from 0 to 4294967295 (such as 12 or 12.5), "
                       "got \"time\"");
    /* a header and comments only: refused at load when check reads it all
     * (tests/unit/test_scenario.c); past the 64 KiB check reads, the reader
     * finds it */
    static char header_only[80000];
    size_t n = (size_t)snprintf(header_only, sizeof header_only, "time,key,op\n");
    while (n + 40 < sizeof header_only)
        n += (size_t)snprintf(header_only + n, sizeof header_only - n,
                              "# not a request, only a comment\n");
    expect_build_error("empty.csv", header_only, n, "csv", ": the trace has no requests");
    char rec[48] = {0};
    rec[0] = 5;  /* record 1 at 5 s, record 2 at 4 s */
    rec[24] = 4;
    expect_build_error("back.bin", rec, sizeof rec, "oracle_general",
                       ": record 2 (byte 24): time 4 s is before the previous request's (5 s); "
                       "the requests must be in time order");
}

/* ---- shapes: the arrivals follow the integrated rate ----------------------------------------- */

/* Each window of `win` seconds holds ∫ rate within Poisson noise. */
static void check_windows(const struct mem_run *m, double duration, double win,
                          double (*rate)(double), const char *what)
{
    double total = 0, want_total = 0;
    for (double a = 0; a < duration - 1e-9; a += win) {
        double want = 0;
        for (int i = 0; i < 1000; i++) /* midpoint rule: exact enough for smooth rates */
            want += rate(a + (i + 0.5) * win / 1000) * win / 1000;
        long long got = MEM_SUM(m, requests, a, a + win);
        if (fabs((double)got - want) > NOISE(want))
            fail_msg("%s: [%g, %g) s: %lld arrivals, expected %.0f +- %.0f", what, a, a + win,
                     got, want, NOISE(want));
        total += (double)got;
        want_total += want;
    }
    assert_true(fabs(total - want_total) <= NOISE(want_total));
}

/* 1000/s, then from 50 s a ramp to 21000/s over 100 s, then 21000/s. */
static double ramp_rate(double t)
{
    return t < 50 ? 1000 : t < 150 ? 1000 + 20000 * (t - 50) / 100 : 21000;
}

/* 5000/s x (1 + 0.8 cos(2 pi (t - 30) / 100)). */
static double cycle_rate(double t)
{
    return 5000 * (1 + 0.8 * cos(2 * M_PI * (t - 30) / 100));
}

/* A ramp down inside the cycle, from 4000/s at 20 s to 1000/s at 70 s. */
static double both_rate(double t)
{
    double base = t < 20 ? 4000 : t < 70 ? 4000 - 3000 * (t - 20) / 50 : 1000;
    return base * (1 + 0.5 * cos(2 * M_PI * (t - 10) / 40));
}

static const char *const shapes_base =
    "name: shapes\ntick: 1s\nnodes: [{id: A}]\nhealth: {mode: off}\n";

static void test_ramp(void **state)
{
    (void)state;
    char yaml[800];
    snprintf(yaml, sizeof yaml, "%sduration: 200s\nworkload: {keys: 1000, qps: 1000}\n"
             "events: [{at: 50s, set_qps: {qps: 21000, over: 100s}}]\n", shapes_base);
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    check_windows(&m, 200, 10, ramp_rate, "ramp");
    check_windows(&m, 200, 1, ramp_rate, "ramp, per second");
    mem_run_free(&m);
    /* a ramp shorter than the clock's precision at that time (1 ns at 299 h, where a
     * double counts eighths of a nanosecond) and a short cycle: still pieces that end */
    snprintf(yaml, sizeof yaml, "name: far\nduration: 300h\ntick: 1h\nnodes: [{id: A}]\n"
             "health: {mode: off}\nworkload: {keys: 10, qps: 0.01, "
             "diurnal: {amplitude: 0.5, period: 2ns}}\n"
             "events: [{at: 299h, set_qps: {qps: 1, over: 1ns}}]\n");
    mem_run_yaml(&m, yaml, NULL);
    long long last = MEM_SUM(&m, requests, 299 * 3600.0, 300 * 3600.0);
    assert_true(fabs((double)last - 3600) <= NOISE(3600));
    mem_run_free(&m);
}

static void test_diurnal(void **state)
{
    (void)state;
    char yaml[800];
    snprintf(yaml, sizeof yaml, "%sduration: 200s\nworkload: {keys: 1000, qps: 5000, "
             "diurnal: {amplitude: 0.8, period: 100s, peak_at: 30s}}\n", shapes_base);
    struct mem_run m;
    mem_run_yaml(&m, yaml, NULL);
    check_windows(&m, 200, 5, cycle_rate, "diurnal");
    mem_run_free(&m);
    snprintf(yaml, sizeof yaml, "%sduration: 100s\nworkload: {keys: 1000, qps: 4000, "
             "diurnal: {amplitude: 0.5, period: 40s, peak_at: 10s}}\n"
             "events: [{at: 20s, set_qps: {qps: 1000, over: 50s}}]\n", shapes_base);
    mem_run_yaml(&m, yaml, NULL);
    check_windows(&m, 100, 5, both_rate, "a ramp in a cycle");
    mem_run_free(&m);
}

/* A step written as a mapping, or a cycle of amplitude 0, draws exactly as
 * the plain scenario: the same rows. */
static void test_constant_rate_draws_unchanged(void **state)
{
    (void)state;
    const char *variants[] = {
        "workload: {keys: 5000, qps: 3000, popularity: zipf}\n"
        "events: [{at: 5s, set_qps: 6000}]\n",
        "workload: {keys: 5000, qps: 3000, popularity: zipf, diurnal: {amplitude: 0}}\n"
        "events: [{at: 5s, set_qps: {qps: 6000, over: 0s}}]\n",
    };
    struct mem_run m[2];
    for (int i = 0; i < 2; i++) {
        char yaml[800];
        snprintf(yaml, sizeof yaml, "%sduration: 10s\n%s", shapes_base, variants[i]);
        mem_run_yaml(&m[i], yaml, NULL);
    }
    assert_int_equal(m[0].n_ticks, m[1].n_ticks);
    for (size_t t = 0; t < m[0].n_ticks; t++) {
        assert_int_equal(m[0].ticks[t].requests, m[1].ticks[t].requests);
        assert_int_equal(m[0].ticks[t].hits, m[1].ticks[t].hits);
    }
    mem_run_free(&m[0]);
    mem_run_free(&m[1]);
}

/* ---- shift_popularity ----------------------------------------------------------------------- */

/* The same requests with and without a shift at 30 s (common random numbers). */
static void test_shift_hit_rate(void **state)
{
    (void)state;
    /* 4 nodes holding half of 20000 keys, Zipf 0.9: about 85% hits */
    const char *yaml = "name: shift\nduration: 60s\ntick: 1s\nhealth: {mode: off}\n"
                       "workload: {keys: 20000, qps: 5000, popularity: zipf, zipf_s: 0.9}\n"
                       "nodes: [{id: A}, {id: B}, {id: C}, {id: D}]\n"
                       "cache: {capacity_items: 2500}\n"
                       "events: [{at: 30s, shift_popularity: {}}]\n";
    struct mem_run m, base;
    mem_run_yaml(&m, yaml, NULL);
    const char *none[] = {"events.0.at=60s", NULL}; /* at the end: after every tick */
    mem_run_yaml(&base, yaml, none);
    for (size_t t = 0; t < 30; t++)
        assert_int_equal(m.ticks[t].hits, base.ticks[t].hits);
    double before = (double)MEM_SUM(&m, hits, 20, 30) / (double)MEM_SUM(&m, reads, 20, 30);
    assert_true(before > 0.8);
    /* the hot set is now on keys the caches mostly do not hold: the hit rate
     * falls (about 0.12 in the first second, 20 of its standard deviations) */
    assert_true(m.ticks[30].hit_rate < base.ticks[30].hit_rate - 0.08);
    assert_true(m.ticks[31].hit_rate < base.ticks[31].hit_rate - 0.02);
    /* and the new hot keys fill in seconds: back at the steady state */
    double after = (double)MEM_SUM(&m, hits, 45, 60) / (double)MEM_SUM(&m, reads, 45, 60);
    double after_base =
        (double)MEM_SUM(&base, hits, 45, 60) / (double)MEM_SUM(&base, reads, 45, 60);
    assert_true(fabs(after - after_base) < 0.01);
    assert_int_equal(mem_count_events(&m, "shift_popularity"), 1);
    assert_int_equal(mem_count_events(&base, "shift_popularity"), 1); /* recorded, at 60 s */
    for (size_t i = 0; i < base.n_events; i++)
        if (!strcmp(base.events[i].kind, "shift_popularity"))
            assert_true(base.events[i].t_s == 60.0);
    mem_run_free(&m);
    mem_run_free(&base);
}

static void test_shift_follows_permuted_ranks(void **state)
{
    (void)state;
    const char *yaml = "name: z\nduration: 10s\nworkload: {keys: 5000, popularity: zipf, "
                       "zipf_s: 0.9, hot_keys: [{key: key-000000, share: 0.1}]}\n"
                       "nodes: [{id: A}]\nevents: [{at: 5s, shift_popularity: {}}]\n";
    struct scenario *sc;
    struct sim *s = build(yaml, &sc);
    struct workload *w = s->wl;
    const uint32_t n = w->ks.n_keys;
    /* the hot key (by name) is whichever id key-000000 has */
    uint32_t hot_id = w->rd->hot[0].key;
    for (int shift = 0; shift < 2; shift++) {
        if (shift)
            workload_shift_popularity(w);
        /* a permutation, with its inverse */
        char *seen = calloc(n, 1);
        for (uint32_t r = 0; r < n; r++) {
            assert_false(seen[w->rank_key[r]]);
            seen[w->rank_key[r]] = 1;
            assert_int_equal(w->key_rank[w->rank_key[r]], r);
        }
        free(seen);
        long *count = calloc(n, sizeof(long));
        const long draws = 1000000;
        for (long i = 0; i < draws; i++)
            count[workload_sample_key(w)]++;
        /* rank r's key gets rank r's share (and the hot key its own on top) */
        const uint32_t ranks[] = {0, 1, 2, 5, 10, 100, 1000};
        for (size_t i = 0; i < ARRAY_LEN(ranks); i++) {
            uint32_t key = w->rank_key[ranks[i]];
            double p = workload_key_prob(w, key), want = draws * p;
            double want_rank = draws * (0.9 * workload_rank_prob(w, ranks[i])
                                        + (key == hot_id ? 0.1 : 0));
            assert_true(fabs(want - want_rank) < 1e-6 * draws);
            if (fabs((double)count[key] - want) > NOISE(want))
                fail_msg("shift %d: rank %u (key %u): %ld draws, expected %.0f", shift,
                         ranks[i], key, count[key], want);
        }
        /* the hot key keeps its share after a shift */
        double hot_want = draws * workload_key_prob(w, hot_id);
        assert_true(hot_want > 0.1 * draws);
        assert_true(fabs((double)count[hot_id] - hot_want) <= NOISE(hot_want));
        if (shift) /* most top keys are new ones */
            assert_true(w->rank_key[0] != 0 || w->rank_key[1] != 1);
        free(count);
    }
    sim_destroy(s);
    scenario_destroy(sc);
}

/* A rate so low that the next gap passes the run's end — past 2^63 ns at
 * 1e-12 a second — means no more arrivals: the run completes, nothing
 * arrives after the rate fell, and a shaped rate does not search the pieces
 * of a cycle for an arrival past the end (the gap once overflowed the clock:
 * an arrival at a negative time, an assertion). */
static void test_tiny_rates(void **state)
{
    (void)state;
    const char *none = "name: tiny\nduration: 5s\ntick: 1s\nnodes: [{id: A}]\n"
                       "workload: {qps: 1e-12}\n";
    const char *drop = "name: tiny\nduration: 5s\ntick: 1s\nnodes: [{id: A}]\n"
                       "workload: {qps: 1000}\nevents: [{at: 1s, set_qps: 1e-15}]\n";
    const char *ramp = "name: tiny\nduration: 5s\ntick: 1s\nnodes: [{id: A}]\n"
                       "workload: {qps: 1000}\n"
                       "events: [{at: 1s, set_qps: {qps: 1e-15, over: 2s}}]\n";
    const char *cycle = "name: tiny\nduration: 50h\ntick: 1h\nnodes: [{id: A}]\n"
                        "workload: {qps: 1e-12, diurnal: {amplitude: 0.5, period: 1s}}\n";
    const char *seeds[][2] = {{"seed=1", NULL}, {"seed=3", NULL}, {"seed=5", NULL}};
    for (size_t k = 0; k < 3; k++) {
        struct mem_run m;
        mem_run_yaml(&m, none, seeds[k]);
        assert_int_equal(m.status, RUN_COMPLETE);
        assert_int_equal(MEM_SUM(&m, requests, 0, 5), 0);
        mem_run_free(&m);
        mem_run_yaml(&m, drop, seeds[k]);
        assert_int_equal(m.status, RUN_COMPLETE);
        CHECK_NEAR((double)MEM_SUM(&m, requests, 0, 1), 1000, 100, "before the drop");
        assert_int_equal(MEM_SUM(&m, requests, 1, 5), 0);
        mem_run_free(&m);
        mem_run_yaml(&m, ramp, seeds[k]);
        assert_int_equal(m.status, RUN_COMPLETE);
        /* the ramp's mean over [1 s, 3 s) is half of 1000/s, then nothing */
        CHECK_NEAR((double)MEM_SUM(&m, requests, 1, 3), 1000, 120, "on the ramp");
        assert_int_equal(MEM_SUM(&m, requests, 3, 5), 0);
        mem_run_free(&m);
        mem_run_yaml(&m, cycle, seeds[k]);
        assert_int_equal(m.status, RUN_COMPLETE);
        assert_int_equal(MEM_SUM(&m, requests, 0, 50 * 3600), 0);
        mem_run_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_parity_oracle),
        cmocka_unit_test(test_lru_parity_csv),
        cmocka_unit_test(test_trace_prewarm_without_fills),
        cmocka_unit_test(test_trace_delete_invalidates),
        cmocka_unit_test(test_trace_time),
        cmocka_unit_test(test_trace_keys),
        cmocka_unit_test(test_trace_ttl),
        cmocka_unit_test(test_trace_errors),
        cmocka_unit_test(test_ramp),
        cmocka_unit_test(test_diurnal),
        cmocka_unit_test(test_constant_rate_draws_unchanged),
        cmocka_unit_test(test_shift_hit_rate),
        cmocka_unit_test(test_tiny_rates),
        cmocka_unit_test(test_shift_follows_permuted_ranks),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
