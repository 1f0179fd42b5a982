/*
 * trace_format.h — the pieces of reading a trace file that the reader
 * (trace_reader.c) and the cost estimate (trace_estimate.c) share: little-
 * endian fields, whole reads and writes, csv fields. Internal to models/.
 */
#ifndef RINGSIM_TRACE_FORMAT_H
#define RINGSIM_TRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

static inline uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Reads up to n bytes, fewer only at the end of the file. -1 on an error. */
ssize_t read_full(int fd, void *buf, size_t n);
/* Writes all n bytes; -1 on an error. */
int write_full(int fd, const void *buf, size_t n);
/* A field as a message shows it: quoted, at most 60 bytes, escaped. */
void quote(const char *p, size_t len, char *buf, size_t n);

/* One csv field: a stretch of the line, not NUL-terminated. */
struct field {
    const char *p;
    size_t len;
};

/* Drops the spaces and tabs around the field. */
void trim(struct field *f);
/* Whole seconds of "digits[.digits]" (the fraction dropped), at most max;
 * with exact, the value with its fraction too. */
bool parse_seconds(const struct field *f, uint64_t max, uint64_t *whole, double *exact);
/* Whether the field is word, in any case. */
bool field_is(const struct field *f, const char *word);

#endif
