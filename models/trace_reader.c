/*
 * trace_reader.c — a request trace read from a file (see trace_reader.h).
 *
 * Formats:
 *   oracle_general (libCacheSim's): 24-byte little-endian records
 *       uint32 time (s) | uint64 object id | uint32 size | int64 next access
 *     every request is a get; the next-access field is not used.
 *   csv: one request a line, `time,key,op[,size[,ttl]]`: time in seconds (a
 *     fraction is dropped), key any text of 1 to 250 bytes (without commas,
 *     newlines or NUL), op get, set or delete (any case), size in bytes and
 *     ttl in seconds, each optional (empty or 0: none). Spaces and tabs
 *     around a field are dropped; blank lines, lines starting with `#`, a
 *     UTF-8 byte order mark opening the file and the first other line when
 *     its first field is `time` (a header, any case) are skipped. A message
 *     about a line names it and the column (in bytes, from 1) of the field
 *     at fault: `FILE:LINE:COL: op: expected ...`.
 *   Either way the requests must be in time order.
 *
 * The first pass: each record's key is looked up in an open-addressing
 * table (object id, or a 64-bit hash of the name checked against the name)
 * that gives it a dense first-pass id in order of first appearance; the
 * lookups of a block of records are prefetched a few records ahead, since
 * a large table misses the CPU caches on every probe. The request goes to
 * the compact file as one word (id << 2 | op) after its second's header;
 * the header's count is patched when the second ends (in the write buffer,
 * or with pwrite once flushed).
 *
 * Costs: time O(requests), expected O(1) a request; memory per distinct key
 * about 32 bytes of table (load at most 1/2) while the file is read, 24
 * bytes of per-key arrays (id or name offset, count, size; +8 with a csv
 * ttl) plus a csv key's name, then 16 bytes a key while sorting by count;
 * the temporary file 4 bytes a request and 8 a second that has requests.
 * Memory does not grow with the number of requests.
 */
#include "models/trace_reader.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "models/trace_format.h"
#include "sim/u64map.h"
#include "sim/util.h"

#define READ_BYTES (1u << 20)          /* read from the trace at a time */
#define WRITE_WORDS (1u << 16)         /* compact words buffered before a write */
#define STREAM_WORDS (1u << 16)        /* compact words read ahead by the stream */
#define PREFETCH_AHEAD 16               /* records whose table slot is fetched early */
#define STOP_EVERY (1u << 16)          /* records between two looks at the stop flag */
#define SLOT_EMPTY UINT32_MAX

/* ---- the first pass ------------------------------------------------------------------- */

struct slot {
    uint64_t key;             /* object id, or the name's hash */
    uint32_t id;              /* first-pass id, SLOT_EMPTY when free */
    uint32_t count;           /* the key's requests, modulo 2^32 (wraps: see struct pass) */
};

struct pass {
    struct trace_reader *t;
    const struct trace_cfg *cfg;
    const volatile sig_atomic_t *stop;
    char *err;
    size_t errlen;
    /* distinct keys in order of first appearance */
    uint32_t n;
    size_t cap;
    uint64_t *key;            /* object id, or the name's offset in names */
    uint64_t *count;          /* filled from the table once the file is read */
    struct u64map wraps;      /* id -> times its slot's count wrapped past 2^32 */
    uint32_t *size;
    uint32_t n_sizeless;      /* keys whose size is still 0 (later records may give one) */
    int64_t *ttl;             /* allocated at the first ttl */
    char *names;
    size_t names_len, names_cap;
    struct slot *tab;
    uint64_t mask;            /* table size - 1 */
    /* the compact file */
    int fd;
    uint32_t *wbuf;
    size_t wn;
    uint64_t flushed;         /* words already written */
    uint64_t hdr;             /* word index of the current second's header */
    bool in_sec;
    uint64_t sec, first_sec;
    uint32_t sec_count;
    uint64_t at;              /* the record (from 0) or line (from 1) being read */
    size_t col;               /* csv: the column (from 1, in bytes) of its time field */
    bool before_requests;     /* csv: no line but blank lines and comments read yet (the
                                 next other line may be a header) */
    bool malformed;           /* the error is the file's content, not reading or memory */
};

/* Where the pass is, for messages: "FILE: record N (byte B)", or
 * "FILE:LINE:COL" with the column of the time field. */
static const char *where(const struct pass *p, char *buf, size_t n)
{
    if (p->cfg->format == TRACE_CSV)
        snprintf(buf, n, "%s:%llu:%zu", p->t->file, (unsigned long long)p->at, p->col);
    else
        snprintf(buf, n, "%s: record %llu (byte %llu)", p->t->file,
                 (unsigned long long)p->at + 1,
                 (unsigned long long)p->at * TRACE_ORACLE_RECORD_BYTES);
    return buf;
}

static int fail(struct pass *p, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int fail(struct pass *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* fail() for a fault of the file's content (a bad line or record). */
#define bad(p, ...) ((p)->malformed = true, fail((p), __VA_ARGS__))

static int flush_words(struct pass *p)
{
    if (p->wn && write_full(p->fd, p->wbuf, p->wn * sizeof(uint32_t)))
        return fail(p, "cannot write the trace's temporary file (4 bytes a request; TMPDIR "
                       "names where it goes): %s", strerror(errno));
    p->flushed += p->wn;
    p->wn = 0;
    return 0;
}

static int put_word(struct pass *p, uint32_t w)
{
    if (p->wn == WRITE_WORDS && flush_words(p))
        return -1;
    p->wbuf[p->wn++] = w;
    return 0;
}

/* Ends the current second: its header gets its count. */
static int close_second(struct pass *p)
{
    if (!p->in_sec)
        return 0;
    uint64_t at = p->hdr + 1;
    if (at >= p->flushed) {
        p->wbuf[at - p->flushed] = p->sec_count;
    } else if (pwrite(p->fd, &p->sec_count, sizeof p->sec_count,
                      (off_t)(at * sizeof(uint32_t))) != (ssize_t)sizeof p->sec_count) {
        return fail(p, "cannot write the trace's temporary file: %s", strerror(errno));
    }
    p->in_sec = false;
    return 0;
}

/* One request of second sec. */
static int add_request(struct pass *p, uint64_t sec, uint32_t id, enum trace_op op)
{
    char at[4200];
    if (UNLIKELY(!p->in_sec || sec != p->sec)) {
        if (p->t->n_requests && sec < p->sec)
            return bad(p, "%s: time %llu s is before the previous request's (%llu s); the "
                           "requests must be in time order", where(p, at, sizeof at),
                        (unsigned long long)sec, (unsigned long long)p->sec);
        if (close_second(p))
            return -1;
        if (!p->t->n_requests)
            p->first_sec = p->sec = sec;
        uint64_t delta = sec - p->sec;
        p->hdr = p->flushed + p->wn;
        if (put_word(p, (uint32_t)delta) || put_word(p, 0))
            return -1;
        p->sec = sec;
        p->sec_count = 0;
        p->in_sec = true;
    }
    if (UNLIKELY(p->sec_count == UINT32_MAX))
        return fail(p, "%s: more than %u requests in one second", where(p, at, sizeof at),
                    UINT32_MAX - 1);
    p->sec_count++;
    p->t->n_requests++;
    p->t->n_reads += op == TRACE_GET;
    return put_word(p, id << 2 | (uint32_t)op);
}

static int grow_keys(struct pass *p)
{
    if (p->n == TRACE_MAX_KEYS)
        return fail(p, "more than %u distinct keys", TRACE_MAX_KEYS);
    size_t cap = p->cap ? 2 * p->cap : 4096;
    uint64_t *key = realloc(p->key, cap * sizeof(*key));
    if (key)
        p->key = key;
    uint32_t *size = realloc(p->size, cap * sizeof(*size));
    if (size)
        p->size = size;
    int64_t *ttl = p->ttl ? realloc(p->ttl, cap * sizeof(*ttl)) : NULL;
    if (ttl)
        p->ttl = ttl;
    if (!key || !size || (p->ttl && !ttl))
        return fail(p, "out of memory for the trace's %u distinct keys", p->n);
    p->cap = cap;
    return 0;
}

static int grow_table(struct pass *p)
{
    uint64_t cap = p->tab ? 2 * (p->mask + 1) : 1u << 16;
    struct slot *tab = malloc(cap * sizeof(*tab));
    if (!tab)
        return fail(p, "out of memory for the trace's %u distinct keys", p->n);
    for (uint64_t i = 0; i < cap; i++)
        tab[i].id = SLOT_EMPTY;
    uint64_t mask = cap - 1;
    bool names = p->cfg->format == TRACE_CSV;
    for (uint64_t i = 0; p->tab && i <= p->mask; i++) {
        const struct slot *s = &p->tab[i];
        if (s->id == SLOT_EMPTY)
            continue;
        uint64_t j = (names ? s->key : mix64(s->key)) & mask;
        while (tab[j].id != SLOT_EMPTY)
            j = (j + 1) & mask;
        tab[j] = *s;
    }
    free(p->tab);
    p->tab = tab;
    p->mask = mask;
    return 0;
}

/* A new distinct key, of the given size (0: none yet): its first-pass id. */
static int new_key(struct pass *p, uint64_t key, uint32_t size, uint32_t *id)
{
    if (p->n == p->cap && grow_keys(p))
        return -1;
    *id = p->n++;
    p->key[*id] = key;
    p->size[*id] = size;
    p->n_sizeless += !size;
    if (p->ttl)
        p->ttl[*id] = 0;
    return 0;
}

/* One more request of the key in slot j. */
static void count_request(struct pass *p, struct slot *sl)
{
    if (UNLIKELY(++sl->count == 0)) {
        uint64_t *w = u64map_get(&p->wraps, sl->id);
        u64map_put(&p->wraps, sl->id, w ? *w + 1 : 1);
    }
}

/* A later record gives a size: it counts if the key has none yet. Costs a
 * look at the key's size only while some key has none. */
static void later_size(struct pass *p, uint32_t id, uint32_t size)
{
    if (UNLIKELY(p->n_sizeless && size) && !p->size[id]) {
        p->size[id] = size;
        p->n_sizeless--;
    }
}

/* Counts a request of object id `obj` (hash h = mix64(obj), size): its
 * first-pass id, new or not. */
static int oracle_id(struct pass *p, uint64_t obj, uint64_t h, uint32_t size, uint32_t *id)
{
    uint64_t j = h & p->mask;
    for (; p->tab[j].id != SLOT_EMPTY; j = (j + 1) & p->mask)
        if (p->tab[j].key == obj) {
            *id = p->tab[j].id;
            count_request(p, &p->tab[j]);
            later_size(p, *id, size);
            return 0;
        }
    if (new_key(p, obj, size, id))
        return -1;
    p->tab[j] = (struct slot){obj, *id, 1};
    if ((uint64_t)p->n * 2 > p->mask + 1)
        return grow_table(p);
    return 0;
}

static int read_oracle(struct pass *p, int fd)
{
    enum { REC = TRACE_ORACLE_RECORD_BYTES, PER_READ = READ_BYTES / REC };
    unsigned char *buf = malloc((size_t)PER_READ * REC);
    uint64_t *h = malloc(PER_READ * sizeof(*h));
    uint64_t rec = 0; /* records before this block */
    int rc = -1;
    if (!buf || !h) {
        fail(p, "out of memory reading the trace");
        goto out;
    }
    for (;;) {
        ssize_t got = read_full(fd, buf, (size_t)PER_READ * REC);
        if (got < 0) {
            fail(p, "%s: cannot read: %s", p->t->file, strerror(errno));
            goto out;
        }
        size_t n = (size_t)got / REC;
        for (size_t i = 0; i < n; i++)
            h[i] = mix64(le64(buf + i * REC + 4));
        for (size_t i = 0; i < n; i++) {
            if (i + PREFETCH_AHEAD < n)
                __builtin_prefetch(&p->tab[h[i + PREFETCH_AHEAD] & p->mask]);
            const unsigned char *r = buf + i * REC;
            uint32_t id;
            if (oracle_id(p, le64(r + 4), h[i], le32(r + 12), &id))
                goto out;
            p->at = rec + i;
            if (UNLIKELY((p->at & (STOP_EVERY - 1)) == 0 && p->stop && *p->stop)) {
                fail(p, "interrupted while reading the trace (%llu records read)",
                     (unsigned long long)p->at);
                goto out;
            }
            if (add_request(p, le32(r), id, TRACE_GET))
                goto out;
        }
        rec += n;
        if ((size_t)got % REC) {
            bad(p, "%s: record %llu is truncated (%zu of %d bytes)", p->t->file,
                 (unsigned long long)(rec + 1), (size_t)got % REC, REC);
            goto out;
        }
        if ((size_t)got < (size_t)PER_READ * REC)
            break;
    }
    rc = 0;
out:
    free(buf);
    free(h);
    return rc;
}

/* ---- csv ------------------------------------------------------------------------------ */

/* Counts a request of the key named by f (hash h, size): its first-pass
 * id, new or not. */
static int csv_id(struct pass *p, const struct field *f, uint64_t h, uint32_t size, uint32_t *id)
{
    uint64_t j = h & p->mask;
    for (; p->tab[j].id != SLOT_EMPTY; j = (j + 1) & p->mask) {
        if (p->tab[j].key != h)
            continue;
        const char *name = p->names + p->key[p->tab[j].id];
        if (!strncmp(name, f->p, f->len) && name[f->len] == '\0') {
            *id = p->tab[j].id;
            count_request(p, &p->tab[j]);
            later_size(p, *id, size);
            return 0;
        }
    }
    if (p->names_len + f->len + 1 > p->names_cap) {
        size_t cap = MAX(2 * p->names_cap, p->names_len + f->len + 1 + (1u << 16));
        char *names = realloc(p->names, cap);
        if (!names)
            return fail(p, "out of memory for the trace's key names (%zu bytes)", p->names_len);
        p->names = names;
        p->names_cap = cap;
    }
    if (new_key(p, p->names_len, size, id))
        return -1;
    memcpy(p->names + p->names_len, f->p, f->len);
    p->names[p->names_len + f->len] = '\0';
    p->names_len += f->len + 1;
    p->tab[j] = (struct slot){h, *id, 1};
    if ((uint64_t)p->n * 2 > p->mask + 1)
        return grow_table(p);
    return 0;
}

/* The column (from 1, in bytes) where field f of the line starts. */
static size_t column(const char *line, const struct field *f)
{
    return (size_t)(f->p - line) + 1;
}

/* One line (without its newline). Returns 0, or -1 with the message, which
 * names the line and the column of the field at fault. A UTF-8 byte order
 * mark opening the file is dropped (columns count from after it). */
static int csv_line(struct pass *p, const char *line, size_t len)
{
    char where[4200], got[128];
    snprintf(where, sizeof where, "%s:%llu", p->t->file, (unsigned long long)p->at);
    if (p->at == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) {
        line += 3;
        len -= 3;
    }
    if (len && line[len - 1] == '\r')
        len--;
    struct field f[6];
    size_t nf = 0;
    const char *s = line, *end = line + len;
    for (;;) {
        const char *c = memchr(s, ',', (size_t)(end - s));
        if (nf < ARRAY_LEN(f))
            f[nf] = (struct field){s, (size_t)((c ? c : end) - s)};
        nf++;
        if (!c)
            break;
        s = c + 1;
    }
    for (size_t i = 0; i < MIN(nf, ARRAY_LEN(f)); i++)
        trim(&f[i]);
    if (nf == 1 && !f[0].len)
        return 0; /* a blank line */
    if (f[0].len && f[0].p[0] == '#')
        return 0; /* a comment */
    bool was_first = p->before_requests;
    p->before_requests = false;
    if (was_first && field_is(&f[0], "time"))
        return 0; /* a header: the first line that is not blank or a comment */
    const char *nul = memchr(line, '\0', len);
    if (nul)
        return bad(p, "%s:%zu: a NUL byte in the line (a csv trace is text; is it an "
                       "oracle_general trace?)", where, (size_t)(nul - line) + 1);
    if (nf < 3 || nf > 5)
        return bad(p, "%s:%zu: expected time,key,op[,size[,ttl]] (3 to 5 fields), got %zu "
                       "field%s", where, nf > 5 ? column(line, &f[5]) : len + 1, nf,
                    nf == 1 ? "" : "s");
    uint64_t sec, size = 0, ttl_whole;
    double ttl_s = 0;
    p->col = column(line, &f[0]);
    if (!parse_seconds(&f[0], UINT32_MAX, &sec, NULL)) {
        quote(f[0].p, f[0].len, got, sizeof got);
        return bad(p, "%s:%zu: time: expected seconds from 0 to 4294967295 (such as 12 or "
                       "12.5), got %s", where, p->col, got);
    }
    if (!f[1].len || f[1].len > TRACE_KEY_MAX_BYTES) {
        quote(f[1].p, f[1].len, got, sizeof got);
        return bad(p, "%s:%zu: key: expected 1 to %d bytes, got %s (%zu bytes)", where,
                    column(line, &f[1]), TRACE_KEY_MAX_BYTES, got, f[1].len);
    }
    enum trace_op op;
    if (field_is(&f[2], "get")) {
        op = TRACE_GET;
    } else if (field_is(&f[2], "set")) {
        op = TRACE_SET;
    } else if (field_is(&f[2], "delete")) {
        op = TRACE_DELETE;
    } else {
        quote(f[2].p, f[2].len, got, sizeof got);
        return bad(p, "%s:%zu: op: expected get, set or delete, got %s", where,
                    column(line, &f[2]), got);
    }
    if (nf > 3 && f[3].len) {
        struct field g = f[3];
        bool ok = true;
        for (size_t i = 0; i < g.len && ok; i++)
            ok = isdigit((unsigned char)g.p[i]) && (size = size * 10 + (uint64_t)(g.p[i] - '0'))
                 <= UINT32_MAX;
        if (!ok) {
            quote(g.p, g.len, got, sizeof got);
            return bad(p, "%s:%zu: size: expected bytes from 0 to 4294967295, got %s", where,
                        column(line, &g), got);
        }
    }
    if (nf > 4 && f[4].len
        && !parse_seconds(&f[4], (uint64_t)1080000000, &ttl_whole, &ttl_s)) {
        quote(f[4].p, f[4].len, got, sizeof got);
        return bad(p, "%s:%zu: ttl: expected seconds from 0 to 1080000000 (300000 h), got %s",
                    where, column(line, &f[4]), got);
    }
    uint32_t id;
    if (csv_id(p, &f[1], XXH64(f[1].p, f[1].len, 0), (uint32_t)size, &id))
        return -1;
    if (ttl_s > 0) {
        if (!p->ttl) {
            p->ttl = calloc(p->cap, sizeof(*p->ttl));
            if (!p->ttl)
                return fail(p, "out of memory for the trace's ttls");
        }
        if (!p->ttl[id]) {
            double ns = ttl_s * 1e9 * p->cfg->time_scale;
            p->ttl[id] = ns < 1 ? 1 : (int64_t)llround(fmin(ns, 4e18));
        }
    }
    return add_request(p, sec, id, op);
}

static int read_csv(struct pass *p, int fd)
{
    char *buf = malloc(READ_BYTES);
    size_t have = 0, at = 0;
    uint64_t lineno = 0;
    bool eof = false;
    int rc = -1;
    if (!buf)
        return fail(p, "out of memory reading the trace");
    for (;;) {
        char *nl = memchr(buf + at, '\n', have - at);
        if (!nl && !eof) {
            if (have - at > TRACE_LINE_MAX_BYTES) {
                bad(p, "%s:%llu:%d: a line longer than %d bytes", p->t->file,
                     (unsigned long long)lineno + 1, TRACE_LINE_MAX_BYTES + 1,
                     TRACE_LINE_MAX_BYTES);
                goto out;
            }
            memmove(buf, buf + at, have - at);
            have -= at;
            at = 0;
            ssize_t got = read_full(fd, buf + have, READ_BYTES - have);
            if (got < 0) {
                fail(p, "%s: cannot read: %s", p->t->file, strerror(errno));
                goto out;
            }
            have += (size_t)got;
            eof = have < READ_BYTES;
            continue;
        }
        size_t len = nl ? (size_t)(nl - (buf + at)) : have - at;
        if (!nl && !len)
            break;
        p->at = ++lineno;
        if (len > TRACE_LINE_MAX_BYTES) {
            bad(p, "%s:%llu:%d: a line longer than %d bytes", p->t->file,
                 (unsigned long long)lineno, TRACE_LINE_MAX_BYTES + 1, TRACE_LINE_MAX_BYTES);
            goto out;
        }
        if (csv_line(p, buf + at, len))
            goto out;
        if (UNLIKELY((lineno & (STOP_EVERY - 1)) == 0 && p->stop && *p->stop)) {
            fail(p, "interrupted while reading the trace (%llu lines read)",
                 (unsigned long long)lineno);
            goto out;
        }
        at += len + (nl != NULL);
        if (!nl)
            break;
    }
    rc = 0;
out:
    free(buf);
    return rc;
}

/* ---- after the pass: key ids by request count -------------------------------------------- */

/* Every key's request count, from its slot (and its wraps). */
static int take_counts(struct pass *p)
{
    p->count = malloc((size_t)(p->n ? p->n : 1) * sizeof(*p->count));
    if (!p->count)
        return fail(p, "out of memory for the trace's %u distinct keys", p->n);
    for (uint64_t j = 0; j <= p->mask; j++) {
        const struct slot *sl = &p->tab[j];
        if (sl->id == SLOT_EMPTY)
            continue;
        const uint64_t *w = u64map_get(&p->wraps, sl->id);
        p->count[sl->id] = (uint64_t)sl->count + (w ? *w << 32 : 0);
    }
    return 0;
}

struct by_count {
    uint64_t count;
    uint32_t id;
};

static int cmp_by_count(const void *a, const void *b)
{
    const struct by_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Renumbers the keys by request count, most first (ties: first seen first),
 * moving every per-key array into the new order. */
static int rank_keys(struct pass *p)
{
    struct trace_reader *t = p->t;
    uint32_t n = p->n;
    struct by_count *v = malloc((size_t)n * sizeof(*v));
    t->rank_of = malloc((size_t)n * sizeof(*t->rank_of));
    uint64_t *key = malloc((size_t)n * sizeof(*key));
    t->count = malloc((size_t)n * sizeof(*t->count));
    t->size = malloc((size_t)n * sizeof(*t->size));
    t->ttl_ns = p->ttl ? malloc((size_t)n * sizeof(*t->ttl_ns)) : NULL;
    if (!v || !t->rank_of || !key || !t->count || !t->size || (p->ttl && !t->ttl_ns)) {
        free(v);
        free(key);
        return fail(p, "out of memory for the trace's %u distinct keys", n);
    }
    for (uint32_t i = 0; i < n; i++)
        v[i] = (struct by_count){p->count[i], i};
    qsort(v, n, sizeof(*v), cmp_by_count);
    for (uint32_t r = 0; r < n; r++) {
        uint32_t i = v[r].id;
        t->rank_of[i] = r;
        key[r] = p->key[i];
        t->count[r] = p->count[i];
        t->size[r] = p->size[i];
        if (p->ttl)
            t->ttl_ns[r] = p->ttl[i];
    }
    free(v);
    if (p->cfg->format == TRACE_CSV) {
        t->name_at = key;
        t->names = p->names;
        p->names = NULL;
    } else {
        t->ids = key;
    }
    t->n_keys = n;
    return 0;
}

/* ---- opening, streaming, closing ------------------------------------------------------------ */

static int make_temp(struct pass *p)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char *tmpl = xasprintf("%s/ringsim-trace-XXXXXX", dir);
    p->fd = mkstemp(tmpl);
    if (p->fd < 0) {
        fail(p, "cannot create the trace's temporary file in %s (TMPDIR): %s", dir,
             strerror(errno));
        free(tmpl);
        return -1;
    }
    unlink(tmpl); /* it goes away when closed, whatever happens */
    free(tmpl);
    return 0;
}

struct trace_reader *trace_reader_open(const struct trace_cfg *cfg,
                                       const volatile sig_atomic_t *stop, bool *malformed,
                                       char *err, size_t errlen)
{
    struct trace_reader *t = xcalloc(1, sizeof(*t));
    struct pass p = {.t = t, .cfg = cfg, .stop = stop, .err = err, .errlen = errlen, .fd = -1,
                     .before_requests = true};
    u64map_init(&p.wraps);
    t->file = xstrdup(cfg->path);
    t->scale_ns = 1e9 * cfg->time_scale;
    struct stat st;
    int fd = open(cfg->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st)) {
        fail(&p, "%s: cannot read the trace: %s", cfg->path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) { /* it was one when the scenario was loaded */
        fail(&p, "%s: cannot read the trace: not a regular file", cfg->path);
        goto fail;
    }
    p.wbuf = malloc(WRITE_WORDS * sizeof(*p.wbuf));
    if (!p.wbuf) {
        fail(&p, "out of memory reading the trace");
        goto fail;
    }
    if (make_temp(&p) || grow_table(&p))
        goto fail;
    int rc = cfg->format == TRACE_CSV ? read_csv(&p, fd) : read_oracle(&p, fd);
    close(fd);
    fd = -1;
    if (rc || close_second(&p) || flush_words(&p))
        goto fail;
    if (!t->n_requests) {
        bad(&p, "%s: the trace has no requests", cfg->path);
        goto fail;
    }
    t->span_s = p.sec - p.first_sec + 1;
    if (take_counts(&p))
        goto fail;
    free(p.tab);
    p.tab = NULL;
    if (rank_keys(&p))
        goto fail;
    if (lseek(p.fd, 0, SEEK_SET) != 0 || !(t->compact = fdopen(p.fd, "rb"))) {
        fail(&p, "cannot read the trace's temporary file back: %s", strerror(errno));
        goto fail;
    }
    p.fd = -1;
    t->map_hdr = 2;
    t->buf = malloc(STREAM_WORDS * sizeof(*t->buf));
    if (!t->buf) {
        fail(&p, "out of memory reading the trace");
        goto fail;
    }
    free(p.key);
    free(p.count);
    free(p.size);
    free(p.ttl);
    free(p.wbuf);
    u64map_deinit(&p.wraps);
    return t;
fail:
    if (fd >= 0)
        close(fd);
    if (p.fd >= 0)
        close(p.fd);
    free(p.tab);
    free(p.key);
    free(p.count);
    free(p.size);
    free(p.ttl);
    free(p.names);
    free(p.wbuf);
    u64map_deinit(&p.wraps);
    trace_reader_destroy(t);
    if (malformed)
        *malformed = p.malformed;
    return NULL;
}

void trace_reader_destroy(struct trace_reader *t)
{
    if (!t)
        return;
    if (t->compact)
        fclose(t->compact);
    free(t->ids);
    free(t->names);
    free(t->name_at);
    free(t->count);
    free(t->size);
    free(t->ttl_ns);
    free(t->rank_of);
    free(t->buf);
    free(t->file);
    free(t);
}

/* Renumbers the request words of a block just read from first-pass ids to
 * key ids, all at once: independent lookups the CPU overlaps, where one at a
 * time on the per-request path each would wait for memory. Headers (2 words
 * before each second's requests) pass unchanged; the walk carries over from
 * block to block. */
static void map_block(struct trace_reader *t)
{
    for (size_t i = 0; i < t->buf_n; i++) {
        uint32_t w = t->buf[i];
        if (t->map_hdr == 2) {
            t->map_hdr = 1;
        } else if (t->map_hdr == 1) {
            t->map_left = w;
            t->map_hdr = w ? 0 : 2;
        } else {
            t->buf[i] = t->rank_of[w >> 2] << 2 | (w & 3);
            if (--t->map_left == 0)
                t->map_hdr = 2;
        }
    }
}

/* The next word of the compact file: 1, 0 at its end, -1 on an error. */
static int next_word(struct trace_reader *t, uint32_t *w)
{
    if (UNLIKELY(t->buf_i == t->buf_n)) {
        t->buf_n = fread(t->buf, sizeof(*t->buf), STREAM_WORDS, t->compact);
        t->buf_i = 0;
        map_block(t);
        if (!t->buf_n) {
            if (ferror(t->compact)) {
                snprintf(t->error, sizeof t->error,
                         "cannot read the temporary file of the trace %s: %s", t->file,
                         strerror(errno));
                return -1;
            }
            return 0;
        }
    }
    *w = t->buf[t->buf_i++];
    return 1;
}

int trace_reader_next(struct trace_reader *t, double *t_ns, uint32_t *key, enum trace_op *op)
{
    uint32_t w;
    if (t->sec_i == t->sec_n) {
        uint32_t delta, n;
        int rc = next_word(t, &delta);
        if (rc <= 0)
            return rc;
        if (next_word(t, &n) <= 0 || n == 0)
            goto short_file;
        t->sec_rel += delta;
        t->sec_n = n;
        t->sec_i = 0;
        t->sec_ns = (double)t->sec_rel * t->scale_ns;
        t->step_ns = t->scale_ns / n;
    }
    if (next_word(t, &w) <= 0)
        goto short_file;
    *key = w >> 2; /* renumbered when read (map_block) */
    *op = (enum trace_op)(w & 3);
    /* spread evenly over the second: request i of n at sec + i/n (to the nearest ns) */
    *t_ns = floor(t->sec_ns + t->sec_i * t->step_ns + 0.5);
    t->sec_i++;
    return 1;
short_file:
    if (!t->error[0])
        snprintf(t->error, sizeof t->error, "the temporary file of the trace %s ended early",
                 t->file);
    return -1;
}
