/*
 * trace_estimate.c — what replaying a trace will cost, from a sample of the
 * file (trace_reader_estimate in trace_reader.h): the requests, the distinct
 * keys, the last second.
 *
 * The distinct keys are counted exactly in a trace that fits the sample;
 * in a larger one, by a HyperLogLog (2^14 registers, 0.8% standard error,
 * counted 3% high) over one pass of its first PASS_ORACLE_BYTES (csv:
 * PASS_CSV_BYTES), about a second of reading. Past that, Heaps' law from the
 * pass's halves carries the count to the whole trace: from a sample of the
 * first 2^18 requests alone it could not see a keyspace saturate (60 M Zipf
 * requests over 1 M objects were counted 6.2 M keys). The last file's
 * estimate is kept while the file is unchanged: a sweep judges each
 * combination over the same trace.
 */
#include "models/trace_reader.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "models/trace_format.h"
#include "sim/util.h"

#define SAMPLE_RECORDS (1u << 18)      /* oracle_general records sampled */
#define SAMPLE_BYTES (8u << 20)        /* csv bytes sampled */
#define PASS_ORACLE_BYTES (2048.0 * 1024 * 1024) /* oracle_general bytes the key count reads */
#define PASS_CSV_BYTES (512.0 * 1024 * 1024)     /* csv bytes the key count reads */
#define HLL_BITS 14
#define HLL_MARGIN 1.03                /* the count errs high: about 4 standard errors */

/* A HyperLogLog sketch: the most leading zeros (+1) of the hashes of each
 * of 2^HLL_BITS buckets. */
struct hll {
    uint8_t reg[1u << HLL_BITS];
};

static void hll_add(struct hll *s, uint64_t key)
{
    uint64_t v = mix64(key);
    uint32_t i = (uint32_t)(v >> (64 - HLL_BITS));
    uint64_t w = (v << HLL_BITS) | (1ull << (HLL_BITS - 1)); /* never 0 */
    uint8_t r = (uint8_t)(__builtin_clzll(w) + 1);
    if (r > s->reg[i])
        s->reg[i] = r;
}

/* The distinct keys added, estimated (linear counting while buckets are
 * empty, as the sketch's authors correct small counts). */
static double hll_count(const struct hll *s)
{
    double m = (double)(1u << HLL_BITS), sum = 0, zeros = 0;
    for (size_t i = 0; i < ARRAY_LEN(s->reg); i++) {
        sum += ldexp(1.0, -s->reg[i]);
        zeros += !s->reg[i];
    }
    double e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
    return e <= 2.5 * m && zeros > 0 ? m * log(m / zeros) : e;
}

/* How many distinct values in h[from, to), added to a set of hashes. */
static uint64_t count_distinct(uint64_t *set, uint64_t mask, const uint64_t *h, size_t from,
                               size_t to, uint64_t n)
{
    for (size_t i = from; i < to; i++) {
        uint64_t v = mix64(h[i]); /* a bijection: distinct keys stay distinct */
        v += !v;                  /* 0 marks a free slot (one pair may merge: an estimate) */
        uint64_t j = v & mask;
        for (; set[j] && set[j] != v; j = (j + 1) & mask)
            ;
        if (!set[j]) {
            set[j] = v;
            n++;
        }
    }
    return n;
}

/* Distinct keys in `total` requests from the keys of the first `seen`:
 * Heaps' law V(n) = K n^b, with b from the distinct keys of the sample's
 * first half and of the whole sample (0 <= b <= 1: never more keys than
 * requests, never fewer than the sample shows). */
static double extrapolate_keys(const uint64_t *h, size_t seen, double total)
{
    uint64_t mask = 1;
    while (mask < 2 * (uint64_t)seen + 2)
        mask <<= 1;
    uint64_t *set = calloc(mask, sizeof(*set));
    if (!set)
        return total;
    mask--;
    uint64_t half = count_distinct(set, mask, h, 0, seen / 2, 0);
    uint64_t all = count_distinct(set, mask, h, seen / 2, seen, half);
    free(set);
    if ((double)seen >= total || !half)
        return (double)all;
    double b = fmin(1.0, fmax(0.0, log((double)all / (double)half) / log(2.0)));
    return fmin(total, (double)all * pow(total / (double)seen, b));
}

/* The time of the last complete line of a csv file whose time parses
 * (from its last 4 KiB: a trailing comment or blank line is passed over). */
static bool csv_last_time(int fd, double bytes, uint64_t *sec)
{
    char tail[TRACE_LINE_MAX_BYTES + 2];
    off_t from = bytes > (double)sizeof tail ? (off_t)bytes - (off_t)sizeof tail : 0;
    if (lseek(fd, from, SEEK_SET) != from)
        return false;
    ssize_t got = read_full(fd, tail, sizeof tail);
    if (got <= 0)
        return false;
    size_t end = (size_t)got;
    /* the first line of the tail may be cut, unless the tail is the file */
    size_t lowest = 0;
    if (from > 0) {
        const char *nl = memchr(tail, '\n', end);
        lowest = nl ? (size_t)(nl - tail) + 1 : end;
    }
    while (end > lowest) {
        size_t start = end;
        while (start > lowest && tail[start - 1] != '\n')
            start--;
        const char *c = memchr(tail + start, ',', end - start);
        struct field f = {tail + start, c ? (size_t)(c - (tail + start)) : 0};
        trim(&f);
        if (c && parse_seconds(&f, UINT32_MAX, sec, NULL))
            return true;
        end = start ? start - 1 : 0; /* the line before */
    }
    return false;
}

/* The keys and times of the csv lines in buf[0, len) that parse; returns
 * the bytes of the whole lines read. */
static size_t csv_sample(const char *buf, size_t len, bool whole, uint64_t *h, size_t *n,
                         uint64_t *first, uint64_t *last)
{
    size_t at = 0, used = 0;
    *n = 0;
    while (at < len) {
        const char *nl = memchr(buf + at, '\n', len - at);
        if (!nl && !whole)
            break; /* a line cut by the end of the sample */
        size_t ll = nl ? (size_t)(nl - (buf + at)) : len - at;
        const char *c1 = memchr(buf + at, ',', ll);
        const char *c2 = c1 ? memchr(c1 + 1, ',', ll - (size_t)(c1 + 1 - (buf + at))) : NULL;
        uint64_t sec;
        if (c2) {
            struct field tf = {buf + at, (size_t)(c1 - (buf + at))};
            struct field kf = {c1 + 1, (size_t)(c2 - c1 - 1)};
            trim(&tf);
            trim(&kf);
            if (parse_seconds(&tf, UINT32_MAX, &sec, NULL)) {
                if (!*n)
                    *first = sec;
                *last = sec;
                h[(*n)++] = XXH64(kf.p, kf.len, 0);
            }
        }
        at += ll + 1;
        used = MIN(at, len);
    }
    return used;
}

/* Distinct keys of a trace of `requests` requests and `bytes` bytes larger
 * than the sample, from one pass over its first PASS_*_BYTES (see the top);
 * -1 when it cannot be read. */
static double pass_keys(int fd, bool csv, double bytes, double requests)
{
    size_t chunk = csv ? SAMPLE_BYTES : (size_t)SAMPLE_RECORDS * TRACE_ORACLE_RECORD_BYTES;
    double limit = fmin(bytes, csv ? PASS_CSV_BYTES : PASS_ORACLE_BYTES);
    double n = 0, n_half = 0, at = 0, keys = -1;
    char *buf = malloc(chunk);
    uint64_t *h = malloc((csv ? chunk / 2 : SAMPLE_RECORDS) * sizeof(*h));
    struct hll *all = calloc(1, sizeof(*all)), *half = calloc(1, sizeof(*half));
    size_t keep = 0;
    bool end = false;
    if (!buf || !h || !all || !half || lseek(fd, 0, SEEK_SET) != 0)
        goto out;
    while (at < limit && !end) {
        ssize_t got = read_full(fd, buf + keep, chunk - keep);
        if (got < 0)
            goto out;
        size_t len = keep + (size_t)got, k = 0, used = 0;
        end = (size_t)got < chunk - keep;
        if (csv) {
            uint64_t first, last;
            size_t bom = at == 0 && len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
            used = bom + csv_sample(buf + bom, len - bom, end, h, &k, &first, &last);
            if (used == bom && !end) /* no whole line in a chunk: not a trace to count */
                goto out;
        } else {
            k = len / TRACE_ORACLE_RECORD_BYTES;
            used = k * TRACE_ORACLE_RECORD_BYTES;
            for (size_t i = 0; i < k; i++)
                h[i] = le64((const unsigned char *)buf + i * TRACE_ORACLE_RECORD_BYTES + 4);
        }
        for (size_t i = 0; i < k; i++)
            hll_add(all, h[i]);
        n += (double)k;
        at += (double)used;
        if (n_half == 0 && at >= limit / 2) {
            *half = *all;
            n_half = n;
        }
        keep = len - used;
        memmove(buf, buf + used, keep);
    }
    keys = hll_count(all) * HLL_MARGIN;
    if (!end && n_half > 0 && n > n_half && requests > n) { /* Heaps' law past the pass */
        double b = log(keys / (hll_count(half) * HLL_MARGIN)) / log(n / n_half);
        keys *= pow(requests / n, fmin(1.0, fmax(0.0, b)));
    }
    keys = fmin(keys, fmax(requests, n));
out:
    free(buf);
    free(h);
    free(all);
    free(half);
    return keys;
}

/* The last file estimated, by identity (device, inode, size, change time)
 * and format: a sweep judges each combination over the same trace, and the
 * key count's pass over it takes about a second. */
static struct {
    pthread_mutex_t lock;
    bool valid;
    bool csv;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    struct trace_estimate e;
} last_file = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool same_file(const struct stat *st, bool csv)
{
    return last_file.valid && last_file.csv == csv && last_file.dev == st->st_dev
           && last_file.ino == st->st_ino && last_file.size == st->st_size
           && last_file.mtime.tv_sec == st->st_mtim.tv_sec
           && last_file.mtime.tv_nsec == st->st_mtim.tv_nsec
           && last_file.ctime.tv_sec == st->st_ctim.tv_sec
           && last_file.ctime.tv_nsec == st->st_ctim.tv_nsec;
}

static bool recall(const struct stat *st, bool csv, struct trace_estimate *e)
{
    pthread_mutex_lock(&last_file.lock);
    bool hit = same_file(st, csv);
    if (hit)
        *e = last_file.e;
    pthread_mutex_unlock(&last_file.lock);
    return hit;
}

static void remember(const struct stat *st, bool csv, const struct trace_estimate *e)
{
    pthread_mutex_lock(&last_file.lock);
    last_file.valid = true;
    last_file.csv = csv;
    last_file.dev = st->st_dev;
    last_file.ino = st->st_ino;
    last_file.size = st->st_size;
    last_file.mtime = st->st_mtim;
    last_file.ctime = st->st_ctim;
    last_file.e = *e;
    pthread_mutex_unlock(&last_file.lock);
}

int trace_reader_estimate(const struct trace_cfg *cfg, struct trace_estimate *e)
{
    memset(e, 0, sizeof(*e));
    struct stat st;
    int fd = open(cfg->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    bool csv = cfg->format == TRACE_CSV;
    size_t want = csv ? SAMPLE_BYTES : (size_t)SAMPLE_RECORDS * TRACE_ORACLE_RECORD_BYTES;
    char *buf = NULL;
    uint64_t *h = NULL, first = 0, last = 0;
    size_t n = 0;
    int rc = -1;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode))
        goto out;
    if (recall(&st, csv, e)) {
        rc = 0;
        goto out;
    }
    e->bytes = (double)st.st_size;
    buf = malloc(want);
    h = malloc((csv ? want / 2 : SAMPLE_RECORDS) * sizeof(*h));
    ssize_t got = buf && h ? read_full(fd, buf, want) : -1;
    if (got < 0)
        goto out;
    if (!csv) {
        n = (size_t)got / TRACE_ORACLE_RECORD_BYTES;
        for (size_t i = 0; i < n; i++)
            h[i] = le64((const unsigned char *)buf + i * TRACE_ORACLE_RECORD_BYTES + 4);
        e->requests = floor(e->bytes / TRACE_ORACLE_RECORD_BYTES);
        if (n) {
            unsigned char r[TRACE_ORACLE_RECORD_BYTES];
            off_t at = (off_t)(e->requests - 1) * TRACE_ORACLE_RECORD_BYTES;
            first = last = le32((const unsigned char *)buf);
            if (lseek(fd, at, SEEK_SET) == at && read_full(fd, r, sizeof r) == (ssize_t)sizeof r)
                last = le32(r);
        }
    } else {
        bool whole = (size_t)got < want;
        /* a UTF-8 byte order mark opening the file is not part of its first line
         * (as the reader drops it) */
        size_t bom = got >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
        size_t used = bom + csv_sample(buf + bom, (size_t)got - bom, whole, h, &n, &first,
                                       &last);
        e->requests = whole || !used ? (double)n : floor((double)n * e->bytes / (double)used);
        if (!whole && !csv_last_time(fd, e->bytes, &last))
            last = first;
    }
    e->keys = extrapolate_keys(h, n, e->requests);
    if ((double)n < e->requests) { /* past the sample: counted over the file */
        double k = pass_keys(fd, csv, e->bytes, e->requests);
        e->keys = k >= 0 ? k : e->keys;
    }
    e->span_s = last >= first ? (double)(last - first) + 1 : 1;
    remember(&st, csv, e);
    rc = 0;
out:
    free(buf);
    free(h);
    close(fd);
    if (rc) /* what the size alone suggests: every request a new key */
        e->requests = e->keys = csv ? e->bytes / 16 : e->bytes / TRACE_ORACLE_RECORD_BYTES;
    return rc;
}
