/*
 * util.h — small helpers shared by every part of ringsim: checked allocation,
 * a growable string buffer, a list of diagnostics, and the parsers for the
 * scenario's units (durations and sizes).
 *
 * Nothing here keeps global state.
 */
#ifndef RINGSIM_UTIL_H
#define RINGSIM_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NS_PER_US 1000LL
#define NS_PER_MS 1000000LL
#define NS_PER_S  1000000000LL

/* Room for an error message naming two paths of PATH_MAX bytes and what
 * went wrong: a long path must never push the reason out of the buffer. */
#define MSG_MAX 12288

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PRINTF_LIKE(f, a)
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

/* Allocation that cannot return NULL: on exhaustion prints "out of memory"
 * and exits with status 1. Used for small, bounded allocations; large
 * model arrays check for NULL and fail the run instead. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2); /* caller frees */
/* For the large arrays the per-request path reads at random (the per-key
 * records, the item pool): zeroed, NULL on exhaustion, released by free().
 * From 2 MiB up it is aligned to 2 MiB and, on Linux, asks for huge pages
 * (madvise), so that a random access misses no TLB entry of its own. */
void *huge_calloc(size_t n, size_t size);
/* Zeroed, on cache lines of its own (aligned to 64 bytes, rounded up to
 * them): for what one thread reads while another writes next to it.
 * Exits as xcalloc does on exhaustion; released by free(). */
void *line_calloc(size_t n, size_t size);
/* The same, not zeroed, for bytes bytes; NULL on exhaustion. */
void *line_alloc(size_t bytes);

/* Growable, always NUL-terminated string. init/deinit: embedded object. */
struct strbuf {
    char *buf;
    size_t len, cap;
};
void sb_init(struct strbuf *sb);
void sb_deinit(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putc(struct strbuf *sb, char c);
void sb_printf(struct strbuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap);
/* Appends s as a JSON string literal (with quotes and escapes): valid UTF-8
 * is copied as it is, control characters become \uXXXX escapes, and each
 * byte that is not part of valid UTF-8 becomes \ufffd (U+FFFD), so the
 * result is always valid UTF-8 JSON. */
void sb_json_str(struct strbuf *sb, const char *s);
/* The same for len bytes that may hold NUL bytes (written as \u0000). */
void sb_json_strn(struct strbuf *sb, const char *s, size_t len);
/* Length (1 to 4) of the valid UTF-8 character s starts with, or 0 when s
 * starts with a byte that is not one (a stray continuation byte, an overlong
 * form, a surrogate, a code point above U+10FFFF, a truncated sequence).
 * s[0] must not be NUL. */
size_t utf8_char_len(const unsigned char *s);
/* The same for a character that must end within avail bytes (s need not be
 * NUL-terminated); 0 when avail is 0. */
size_t utf8_char_len_n(const unsigned char *s, size_t avail);
char *sb_steal(struct strbuf *sb); /* returns the buffer (caller frees), resets sb */

/* Index of name in names[0..n), or -1. */
int name_index(const char *const *names, size_t n, const char *name);

/* A list of error messages, each already complete ("file:3:7: what"). */
struct diag {
    char **msgs;
    size_t n, cap;
};
void diag_init(struct diag *d);
void diag_deinit(struct diag *d);
void diag_add(struct diag *d, const char *fmt, ...) PRINTF_LIKE(2, 3);
void diag_print(const struct diag *d, FILE *f);

/* mkdir -p: creates path and its missing parents (mode 0777 less the
 * umask). Returns 0, or -1 with "PATH: cannot create: why" or "PATH: exists
 * and is not a folder" in err. */
int make_dirs(const char *path, char *err, size_t errlen);

/* Why a parse_duration, parse_size or parse_u64 failed (any is non-zero):
 * the text is not of the form, or it is but its value is past what the
 * type holds (2^63 - 1 ns or bytes, or as "<mantissa>e<exp>"; 2^64 - 1 for
 * an integer written in digits), or
 * finer than the unit (a fraction of a nanosecond or a byte, "2.5e0"). */
enum { PARSE_BAD = -1, PARSE_TOO_LARGE = -2, PARSE_NOT_WHOLE = -3, PARSE_TOO_SMALL = -4 };

/* Durations: "<number><unit>", unit ns|us|ms|s|m|h; the number may have a
 * fraction ("1.5s") as long as the result is a whole number of nanoseconds;
 * "0" alone is allowed. Returns 0 and sets *ns, or a PARSE_ code. */
int parse_duration(const char *s, int64_t *ns);
/* Sizes: "<number><unit>", unit B|KB|MB|GB|TB (10^3) or KiB|MiB|GiB|TiB
 * (2^10); a bare integer is bytes. Returns 0 and sets *bytes, or a PARSE_
 * code. */
int parse_size(const char *s, uint64_t *bytes);
/* Integers: decimal digits, optional '_' separators, or an exact
 * "<mantissa>e<exp>" such as 1e6. Returns 0 or a PARSE_ code. */
int parse_u64(const char *s, uint64_t *v);
int parse_i64(const char *s, int64_t *v);
/* A finite floating-point number; returns 0, or PARSE_BAD (not a number),
 * PARSE_TOO_LARGE (past a double's range) or PARSE_TOO_SMALL (not 0, yet
 * closer to 0 than a normal double: 1e-400). */
int parse_double(const char *s, double *v);

/* Formats ns as the shortest exact duration ("1500ms" -> "1500ms", 60e9 -> "60s"). */
void format_duration(int64_t ns, char *buf, size_t n);

/* 64-bit mixing (the splitmix64 finalizer): a bijection with good avalanche. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
