/*
 * util.c — checked allocation, string buffers, diagnostics, unit parsers
 * and mkdir -p.
 *
 * The unit parsers are exact: they work on the decimal digits, never through
 * a double, so "0.000001s" is exactly 1000 ns and "1.5GiB" exactly
 * 1610612736 bytes. A value that is not a whole number of the base unit, or
 * that overflows 63 bits, is rejected.
 */
#include "sim/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

static void oom(void)
{
    fputs("ringsim: out of memory\n", stderr);
    exit(1);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

#define HUGE_PAGE ((size_t)2 << 20)

void *huge_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    if (bytes < HUGE_PAGE)
        return calloc(n ? n : 1, size ? size : 1);
    size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *p;
    if (posix_memalign(&p, HUGE_PAGE, rounded))
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE); /* before the first touch; only a hint */
#endif
    memset(p, 0, rounded);
    return p;
}

/* bytes rounded up to whole lines, at least one; 0 when that overflows */
static size_t line_bytes(size_t bytes)
{
    return bytes > SIZE_MAX - 64 ? 0 : ((bytes ? bytes : 1) + 63) & ~(size_t)63;
}

void *line_alloc(size_t bytes)
{
    void *p;
    size_t rounded = line_bytes(bytes);
    return rounded && !posix_memalign(&p, 64, rounded) ? p : NULL;
}

void *line_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        oom();
    void *p = line_alloc(n * size);
    if (!p)
        oom();
    memset(p, 0, line_bytes(n * size));
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    struct strbuf sb;
    va_list ap;
    sb_init(&sb);
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    return sb_steal(&sb);
}

/* ---- strbuf ---------------------------------------------------------- */

void sb_init(struct strbuf *sb)
{
    sb->cap = 64;
    sb->len = 0;
    sb->buf = xmalloc(sb->cap);
    sb->buf[0] = '\0';
}

void sb_deinit(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

void sb_reset(struct strbuf *sb)
{
    sb->len = 0;
    sb->buf[0] = '\0';
}

static void sb_grow(struct strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    while (sb->len + extra + 1 > sb->cap)
        sb->cap *= 2;
    sb->buf = xrealloc(sb->buf, sb->cap);
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
    sb_grow(sb, n);
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

void sb_putc(struct strbuf *sb, char c)
{
    sb_add(sb, &c, 1);
}

void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    if ((size_t)n >= sb->cap - sb->len) {
        sb_grow(sb, (size_t)n);
        vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
    }
    sb->len += (size_t)n;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

size_t utf8_char_len(const unsigned char *s)
{
    unsigned c = s[0], need;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        need = 1, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        need = 2, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        need = 3, cp = c & 0x07;
    else
        return 0;
    for (unsigned i = 1; i <= need; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((need == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (need == 3 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return need + 1;
}

size_t utf8_char_len_n(const unsigned char *s, size_t avail)
{
    unsigned char b[5] = {0}; /* NUL after the avail bytes: a cut character is not one */
    if (!avail)
        return 0;
    memcpy(b, s, MIN(avail, 4));
    return utf8_char_len(b);
}

void sb_json_str(struct strbuf *sb, const char *s)
{
    sb_json_strn(sb, s, strlen(s));
}

void sb_json_strn(struct strbuf *sb, const char *s, size_t len)
{
    const unsigned char *end = (const unsigned char *)s + len;
    sb_putc(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; p < end; p++) {
        switch (*p) {
        case '"': sb_puts(sb, "\\\""); break;
        case '\\': sb_puts(sb, "\\\\"); break;
        case '\n': sb_puts(sb, "\\n"); break;
        case '\r': sb_puts(sb, "\\r"); break;
        case '\t': sb_puts(sb, "\\t"); break;
        default:
            if (*p < 0x20) {
                sb_printf(sb, "\\u%04x", *p);
            } else if (*p < 0x80) {
                sb_putc(sb, (char)*p);
            } else {
                size_t n = utf8_char_len_n(p, (size_t)(end - p));
                if (n) {
                    sb_add(sb, (const char *)p, n);
                    p += n - 1;
                } else {
                    sb_puts(sb, "\\ufffd"); /* one byte that is not UTF-8 */
                }
            }
        }
    }
    sb_putc(sb, '"');
}

char *sb_steal(struct strbuf *sb)
{
    char *p = sb->buf;
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return p;
}

int name_index(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return (int)i;
    return -1;
}

/* ---- diag ------------------------------------------------------------ */

void diag_init(struct diag *d)
{
    d->msgs = NULL;
    d->n = d->cap = 0;
}

void diag_deinit(struct diag *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->msgs[i]);
    free(d->msgs);
    diag_init(d);
}

void diag_add(struct diag *d, const char *fmt, ...)
{
    struct strbuf sb;
    va_list ap;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 8;
        d->msgs = xrealloc(d->msgs, d->cap * sizeof(*d->msgs));
    }
    sb_init(&sb);
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    d->msgs[d->n++] = sb_steal(&sb);
}

void diag_print(const struct diag *d, FILE *f)
{
    for (size_t i = 0; i < d->n; i++)
        fprintf(f, "%s\n", d->msgs[i]);
}

/* ---- numbers ----------------------------------------------------------- */

/* The scale of parse_decimal_e18's fixed point: 18 decimals. A value with
 * more significant decimals is never a whole number of nanoseconds or
 * bytes in the units we read (3600 s = 2^14 3^2 5^11 ns: a decimal of an
 * hour that is a whole ns has at most 14), yet 9 were too few: 0.0000000001h
 * is 360 ns, 1.0000000001e10 the integer 10000000001. */
#define DEC_SCALE 1000000000000000000ULL
#define DEC_DIGITS 18

/* Parses "<digits>[.<digits>]" into an exact value scaled by 10^18 (so
 * that fractions survive), stopping at the first other character. Returns
 * the number of characters used, or 0 if there were no digits; *why is 0,
 * or PARSE_TOO_LARGE (an integer part past 2^64: past every limit, and
 * 2^64 x 10^18 < 2^124 cannot wrap) or PARSE_NOT_WHOLE (finer than 1e-18)
 * when the digits are well formed but cannot be held (the count still
 * covers them, so the caller can judge the rest of the text). */
static size_t parse_decimal_e18(const char *s, unsigned __int128 *out, int *why)
{
    unsigned __int128 v = 0;
    size_t i = 0;
    int digits = 0, frac = 0;
    *why = 0;
    /* a '_' only between two digits (100_000), as in an integer */
    while (isdigit((unsigned char)s[i])
           || (s[i] == '_' && i && isdigit((unsigned char)s[i - 1])
               && isdigit((unsigned char)s[i + 1]))) {
        if (s[i] != '_') {
            if (!*why)
                v = v * 10 + (unsigned)(s[i] - '0');
            digits++;
            if (v > ((unsigned __int128)1 << 64))
                *why = PARSE_TOO_LARGE;
        }
        i++;
    }
    if (s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
        i++;
        while (isdigit((unsigned char)s[i])) {
            if (frac < DEC_DIGITS) {
                if (!*why)
                    v = v * 10 + (unsigned)(s[i] - '0');
                frac++;
            } else if (s[i] != '0' && !*why) {
                *why = PARSE_NOT_WHOLE; /* finer than 1e-18 of the unit: not representable */
            }
            digits++;
            i++;
        }
    }
    if (!digits)
        return 0;
    for (; frac < DEC_DIGITS; frac++)
        v *= 10;
    *out = v;
    return i;
}

struct unit {
    const char *name;
    uint64_t scale;
};

static int parse_with_units(const char *s, const struct unit *units, size_t n_units,
                            bool bare_ok, uint64_t *out)
{
    unsigned __int128 v;
    size_t used;
    int why;
    if (!s || !*s)
        return PARSE_BAD;
    used = parse_decimal_e18(s, &v, &why);
    if (!used)
        return PARSE_BAD;
    const char *u = s + used;
    uint64_t scale = 0;
    if (!*u) {
        if (!bare_ok && (v != 0 || why))
            return PARSE_BAD;
        scale = 1;
    } else {
        for (size_t i = 0; i < n_units; i++)
            if (strcmp(u, units[i].name) == 0)
                scale = units[i].scale;
        if (!scale)
            return PARSE_BAD;
    }
    if (why)
        return why; /* the form is right; the number is not */
    if (v > ~(unsigned __int128)0 / scale)
        return PARSE_TOO_LARGE; /* the product would wrap (and might pass the checks below) */
    unsigned __int128 total = v * scale;
    if (total % DEC_SCALE)
        return PARSE_NOT_WHOLE; /* not a whole number of the base unit */
    total /= DEC_SCALE;
    if (total > (unsigned __int128)INT64_MAX)
        return PARSE_TOO_LARGE;
    *out = (uint64_t)total;
    return 0;
}

int parse_duration(const char *s, int64_t *ns)
{
    static const struct unit units[] = {
        {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000ULL},
        {"m", 60000000000ULL}, {"h", 3600000000000ULL},
    };
    uint64_t v;
    int rc = parse_with_units(s, units, ARRAY_LEN(units), false, &v);
    if (rc)
        return rc;
    *ns = (int64_t)v;
    return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
    static const struct unit units[] = {
        {"B", 1}, {"KB", 1000ULL}, {"MB", 1000000ULL}, {"GB", 1000000000ULL},
        {"TB", 1000000000000ULL}, {"KiB", 1ULL << 10}, {"MiB", 1ULL << 20},
        {"GiB", 1ULL << 30}, {"TiB", 1ULL << 40},
    };
    return parse_with_units(s, units, ARRAY_LEN(units), true, bytes);
}

int parse_u64(const char *s, uint64_t *v)
{
    if (!s || !isdigit((unsigned char)*s))
        return PARSE_BAD;
    const char *e = strpbrk(s, "eE");
    if (e) {
        /* exact scientific form: <digits>[.<digits>]e<digits> */
        char mant[64];
        size_t ml = (size_t)(e - s);
        uint64_t ex;
        if (ml == 0 || ml >= sizeof mant)
            return PARSE_BAD;
        memcpy(mant, s, ml);
        mant[ml] = '\0';
        int rc = parse_u64(e + 1, &ex);
        if (rc == PARSE_BAD)
            return PARSE_BAD;
        unsigned __int128 m;
        int why;
        size_t used = parse_decimal_e18(mant, &m, &why);
        if (used != ml)
            return PARSE_BAD;
        if (why)
            return why;
        if (rc || ex > 19)
            return m ? PARSE_TOO_LARGE : PARSE_BAD; /* 0e99 is no integer we read */
        /* past INT64_MAX x 10^18 the result is too large; stopping there
         * also keeps m from wrapping (< 2^127 after one more step) */
        const unsigned __int128 limit = (unsigned __int128)INT64_MAX * DEC_SCALE;
        for (uint64_t i = 0; i < ex; i++)
            if ((m *= 10) > limit)
                return PARSE_TOO_LARGE;
        if (m % DEC_SCALE)
            return PARSE_NOT_WHOLE;
        m /= DEC_SCALE;
        if (m > (unsigned __int128)INT64_MAX)
            return PARSE_TOO_LARGE;
        *v = (uint64_t)m;
        return 0;
    }
    uint64_t acc = 0;
    bool prev_digit = false, over = false;
    for (const char *p = s; *p; p++) {
        if (*p == '_' && prev_digit && isdigit((unsigned char)p[1])) {
            prev_digit = false;
            continue;
        }
        if (!isdigit((unsigned char)*p))
            return PARSE_BAD;
        if (acc > UINT64_MAX / 10
            || (acc == UINT64_MAX / 10 && (uint64_t)(*p - '0') > UINT64_MAX % 10))
            over = true;
        else
            acc = acc * 10 + (uint64_t)(*p - '0');
        prev_digit = true;
    }
    if (over)
        return PARSE_TOO_LARGE;
    *v = acc;
    return 0;
}

int parse_i64(const char *s, int64_t *v)
{
    uint64_t u;
    bool neg = false;
    if (s && (*s == '-' || *s == '+')) {
        neg = *s == '-';
        s++;
    }
    if (parse_u64(s, &u) || u > (uint64_t)INT64_MAX)
        return -1;
    *v = neg ? -(int64_t)u : (int64_t)u;
    return 0;
}

int parse_double(const char *s, double *v)
{
    char *end;
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    /* no hex floats, inf or nan; a '_' only between two digits (1_000.5),
     * as in an integer: "_1", "1_" and "1__0" are no numbers */
    for (const char *p = s; *p; p++) {
        if (!(isdigit((unsigned char)*p) || strchr("+-.eE_", *p)))
            return -1;
        if (*p == '_' && (p == s || !isdigit((unsigned char)p[-1])
                          || !isdigit((unsigned char)p[1])))
            return -1;
    }
    char *buf = xmalloc(strlen(s) + 1); /* every digit: a long number is not cut short */
    size_t j = 0;
    for (const char *p = s; *p; p++)
        if (*p != '_')
            buf[j++] = *p;
    buf[j] = '\0';
    errno = 0;
    double d = strtod(buf, &end);
    int rc = *end ? PARSE_BAD
             : errno == ERANGE || !isfinite(d)
                 ? (fabs(d) > 1 ? PARSE_TOO_LARGE : PARSE_TOO_SMALL)
                 : 0;
    free(buf);
    if (rc)
        return rc;
    *v = d;
    return 0;
}

void format_duration(int64_t ns, char *buf, size_t n)
{
    static const struct {
        const char *unit;
        int64_t scale;
    } units[] = {
        {"h", 3600 * NS_PER_S}, {"m", 60 * NS_PER_S}, {"s", NS_PER_S},
        {"ms", NS_PER_MS}, {"us", NS_PER_US}, {"ns", 1},
    };
    if (ns == 0) {
        snprintf(buf, n, "0s");
        return;
    }
    for (size_t i = 0; i < ARRAY_LEN(units); i++) {
        if (ns % units[i].scale == 0) {
            snprintf(buf, n, "%lld%s", (long long)(ns / units[i].scale), units[i].unit);
            return;
        }
    }
    snprintf(buf, n, "%lldns", (long long)ns);
}

int make_dirs(const char *path, char *err, size_t errlen)
{
    if (!*path)
        return 0;
    char *p = xstrdup(path);
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat st;
        if (mkdir(p, 0777) && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create: %s", p, strerror(errno));
            rc = -1;
        } else if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: exists and is not a folder", p);
            rc = -1;
        }
        *s = c;
        if (rc || c == '\0')
            break;
    }
    free(p);
    return rc;
}
