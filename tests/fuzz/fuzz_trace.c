/*
 * fuzz_trace.c — libFuzzer harness for the trace reader (models/trace_reader.c)
 * and its cost estimate (models/trace_estimate.c), fed through a temporary
 * file (TMPDIR, else /tmp).
 *
 * Input: a first line "csv" or "oracle_general" naming the format (without
 * one the whole input is a csv trace), then the file's bytes. For every
 * input the reader must return without crashing, hanging or leaking; when
 * it fails, with a message. When it opens the trace, the stream must give
 * exactly the requests the first pass counted: every key id below the
 * number of keys, as many requests of each key as counted, as many gets,
 * times in order and within the trace's span. The estimate must not fail
 * on a file the reader read.
 *
 * `make fuzz` runs it from tests/fuzz/corpus/trace; `make test` replays
 * that corpus and tests/fuzz/regress/trace through tests/fuzz/driver.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/trace_reader.h"
#include "sim/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "fuzz_trace: " __VA_ARGS__);                                    \
            fputc('\n', stderr);                                                            \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

static int prefix(const uint8_t **data, size_t *size, const char *line)
{
    size_t n = strlen(line);
    if (*size < n || memcmp(*data, line, n))
        return 0;
    *data += n;
    *size -= n;
    return 1;
}

static void check_stream(struct trace_reader *t, double time_scale)
{
    uint64_t *seen = calloc(t->n_keys ? t->n_keys : 1, sizeof(*seen));
    uint64_t n = 0, reads = 0;
    double last = 0, scale_ns = 1e9 * time_scale;
    double t_ns;
    uint32_t key;
    enum trace_op op;
    int rc;
    while ((rc = trace_reader_next(t, &t_ns, &key, &op)) == 1) {
        CHECK(key < t->n_keys, "key %u of %u", key, t->n_keys);
        CHECK(op == TRACE_GET || op == TRACE_SET || op == TRACE_DELETE, "op %d", (int)op);
        CHECK(t_ns >= last, "time %.0f ns after %.0f ns", t_ns, last);
        CHECK(t_ns <= (double)t->span_s * scale_ns + 0.5, "time %.0f ns past the span %llu s",
              t_ns, (unsigned long long)t->span_s);
        CHECK(!t->ids || op == TRACE_GET, "a set or delete in an oracle_general trace");
        last = t_ns;
        seen[key]++;
        n++;
        reads += op == TRACE_GET;
    }
    CHECK(rc == 0, "the stream failed: %s", t->error);
    CHECK(n == t->n_requests, "%llu requests streamed, %llu counted", (unsigned long long)n,
          (unsigned long long)t->n_requests);
    CHECK(reads == t->n_reads, "%llu gets streamed, %llu counted", (unsigned long long)reads,
          (unsigned long long)t->n_reads);
    for (uint32_t k = 0; k < t->n_keys; k++) {
        CHECK(seen[k] == t->count[k], "key %u: %llu requests streamed, %llu counted", k,
              (unsigned long long)seen[k], (unsigned long long)t->count[k]);
        CHECK(!k || t->count[k] <= t->count[k - 1], "key %u is more requested than key %u", k,
              k - 1);
        CHECK(seen[k], "key %u has no request", k);
    }
    free(seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct trace_cfg cfg = {NULL, TRACE_CSV, 1.0};
    if (prefix(&data, &size, "oracle_general\n"))
        cfg.format = TRACE_ORACLE_GENERAL;
    else
        prefix(&data, &size, "csv\n");

    const char *dir = getenv("TMPDIR");
    char *path = xasprintf("%s/ringsim-fuzz-trace-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    CHECK(fd >= 0, "cannot create a temporary file");
    CHECK(write(fd, data, size) == (ssize_t)size, "cannot write the temporary file");
    close(fd);
    cfg.path = path;

    char err[1024] = "";
    bool malformed = false;
    struct trace_reader *t = trace_reader_open(&cfg, NULL, &malformed, err, sizeof err);
    if (t) {
        check_stream(t, cfg.time_scale);
        struct trace_estimate e;
        CHECK(trace_reader_estimate(&cfg, &e) == 0, "the estimate failed on a readable trace");
        CHECK(e.requests >= 1 && e.keys >= 1 && e.span_s >= 1,
              "estimate: %g requests, %g keys, %g s", e.requests, e.keys, e.span_s);
        trace_reader_destroy(t);
    } else {
        CHECK(err[0], "the trace was refused without a message");
        CHECK(malformed, "a file the reader could read was refused as unreadable: %s", err);
        CHECK(strstr(err, path), "the message does not name the file: %s", err);
    }
    unlink(path);
    free(path);
    return 0;
}
