/*
 * trace_format.c — reading and writing whole buffers, and csv fields, for
 * the trace reader and its estimate (see trace_format.h).
 */
#include "models/trace_format.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Reads up to n bytes, fewer only at the end of the file. -1 on an error. */
ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = write(fd, (const char *)buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

/* A field as a message shows it: quoted, at most 60 bytes, escaped. */
void quote(const char *p, size_t len, char *buf, size_t n)
{
    size_t o = 0;
    if (n < 16) {
        snprintf(buf, n, "%s", "");
        return;
    }
    buf[o++] = '"';
    for (size_t i = 0; i < len && o + 8 < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (i == 60) {
            o += (size_t)snprintf(buf + o, n - o, "...");
            break;
        }
        if (c == '"' || c == '\\')
            o += (size_t)snprintf(buf + o, n - o, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
        else
            buf[o++] = (char)c;
    }
    snprintf(buf + o, n - o, "\"");
}

void trim(struct field *f)
{
    while (f->len && (f->p[0] == ' ' || f->p[0] == '\t')) {
        f->p++;
        f->len--;
    }
    while (f->len && (f->p[f->len - 1] == ' ' || f->p[f->len - 1] == '\t'))
        f->len--;
}

/* Whole seconds of "digits[.digits]" (the fraction dropped), at most max. */
bool parse_seconds(const struct field *f, uint64_t max, uint64_t *whole, double *exact)
{
    size_t i = 0;
    uint64_t v = 0;
    if (!f->len || !isdigit((unsigned char)f->p[0]))
        return false;
    for (; i < f->len && isdigit((unsigned char)f->p[i]); i++) {
        v = v * 10 + (uint64_t)(f->p[i] - '0');
        if (v > max)
            return false;
    }
    if (i < f->len && f->p[i] == '.')
        for (i++; i < f->len && isdigit((unsigned char)f->p[i]); i++)
            ;
    if (i != f->len)
        return false;
    *whole = v;
    if (exact) {
        char num[64];
        if (f->len >= sizeof num)
            return false;
        memcpy(num, f->p, f->len);
        num[f->len] = '\0';
        *exact = strtod(num, NULL);
    }
    return true;
}

bool field_is(const struct field *f, const char *word)
{
    return f->len == strlen(word) && !strncasecmp(f->p, word, f->len);
}
