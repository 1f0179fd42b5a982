/*
 * trace_reader.h — requests replayed from a trace file (workload.trace):
 * libCacheSim's oracle_general binary records or CSV lines. Owned by the
 * workload (models/workload.c), which builds its keyspace from what the
 * first pass found and takes each request from trace_reader_next.
 *
 * Not to be confused with models/trace.c, which records the requests of a
 * run (output.sample_requests).
 *
 * A trace may be larger than memory; only its distinct keys must fit. The
 * first pass (trace_reader_open) reads the file once, gives every distinct
 * key a dense id and writes a compact temporary file: per second that has
 * requests, a header (seconds since the previous such second, its number of
 * requests), then one 32-bit word per request (the key's first-pass id << 2
 * | the operation). The run streams that file (trace_reader_next): no hash
 * lookup and no parsing on the per-request path, memory independent of the
 * trace's length. Key ids are then renumbered by request count (id 0 the
 * most requested), like the synthetic keyspace's popularity ranks; the
 * stream renumbers each block of words as it reads it.
 */
#ifndef RINGSIM_TRACE_READER_H
#define RINGSIM_TRACE_READER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/scenario.h"

enum trace_op { TRACE_GET, TRACE_SET, TRACE_DELETE };

#define TRACE_ORACLE_RECORD_BYTES 24
#define TRACE_MAX_KEYS 1000000000u     /* distinct keys (ids fit 30 bits) */
#define TRACE_KEY_MAX_BYTES 250        /* a csv key, as memcached's */
#define TRACE_LINE_MAX_BYTES 4096      /* a csv line */

struct trace_reader {
    /* What the first pass found; read-only afterwards. Arrays by key id. */
    uint32_t n_keys;          /* distinct keys, ids by request count (most first) */
    uint64_t n_requests;      /* every request of the file */
    uint64_t n_reads;         /* of which gets */
    uint64_t span_s;          /* the last request's second - the first's + 1 */
    uint64_t *ids;            /* oracle_general: the object id of each key; NULL for csv */
    char *names;              /* csv: every key's name, NUL-terminated; NULL for oracle */
    uint64_t *name_at;        /* csv: where each key's name starts in names */
    uint64_t *count;          /* requests of each key */
    uint32_t *size;           /* the first non-zero size given for each key (0: none);
                                 the workload may take it (and set it NULL) */
    int64_t *ttl_ns;          /* csv: the first non-zero ttl given for each key, times
                                 time_scale (0: none); NULL when no line gives one */

    /* The stream (trace_reader_next). */
    FILE *compact;            /* the temporary file, unlinked: it goes when closed */
    uint32_t *rank_of;        /* first-pass id -> key id */
    uint32_t *buf;            /* words read ahead, requests renumbered to key ids */
    size_t buf_n, buf_i;
    uint32_t map_hdr;         /* header words before the next request word (2, 1, 0) */
    uint32_t map_left;        /* request words left in the current second */
    uint64_t sec_rel;         /* the current second, counted from the first */
    uint32_t sec_n, sec_i;    /* its requests, and how many were handed out */
    double sec_ns, step_ns;   /* its start (ns), and the time between its requests */
    double scale_ns;          /* ns of simulated time per second of the trace */
    char *file;               /* the trace's path, for messages */
    char error[600];          /* why the stream failed */
};

/* Reads the whole trace once (the first pass). Returns NULL with the reason
 * in err: the trace file and the record or line at fault, out of memory or
 * disk, or interrupted (stop); *malformed (when not NULL) then says whether
 * the fault is the file's content (a bad line or record, no request), as
 * opposed to reading, memory or disk. Caller destroys. */
struct trace_reader *trace_reader_open(const struct trace_cfg *cfg,
                                       const volatile sig_atomic_t *stop, bool *malformed,
                                       char *err, size_t errlen);
void trace_reader_destroy(struct trace_reader *t);

/* The next request: its time (ns from the start, exact), key id and
 * operation. Returns 1, 0 at the end of the trace, or -1 when the temporary
 * file cannot be read (the reason in t->error). */
int trace_reader_next(struct trace_reader *t, double *t_ns, uint32_t *key, enum trace_op *op);

/* What a run of the trace will hold, estimated from a sample of the file,
 * its distinct keys from a pass over its first gigabytes (see
 * trace_estimate.c); the whole file when it is small. */
struct trace_estimate {
    double requests;          /* in the whole trace */
    double keys;              /* distinct keys */
    double span_s;            /* seconds from the first request to the last, plus one */
    double bytes;             /* the file's size */
};
/* Returns 0, or -1 when the file cannot be read (then e holds what a size
 * alone suggests, if that much is known). */
int trace_reader_estimate(const struct trace_cfg *cfg, struct trace_estimate *e);

#endif
