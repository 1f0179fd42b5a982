/*
 * plot_text.c — the pure text helpers of `ringsim plot` (see plot.h):
 * escaping for gnuplot data files and HTML, UTF-8 counting and cutting,
 * number and id-list formatting, --run parsing, label staggering and the
 * short labels of scenario events.
 *
 * Invariant of the escapers: their output is valid UTF-8 with no control
 * characters (and, for tsv_field, no tab, line break or double quote), so
 * one call always yields exactly one field or one piece of HTML text.
 *
 * How gnuplot reads a text field (datafile.c, gnuplot 5): a double quote
 * ends the field wherever it is, with no escape for it; then the field's
 * backslash escapes are expanded (parse_esc: \\ \n \t \" \ooo ...). So a
 * double quote travels as the octal escape \042 and a backslash as \\;
 * tests/cli/plot.sh checks that both come out of gnuplot as they went in.
 */
#include "plots/plot.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if it is not one.
 * Rejects overlong forms, surrogates and code points above U+10FFFF. */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = c & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void tsv_field(struct strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t n = utf8_seq(p);
        if (n == 0) {
            sb_putc(sb, '?');
            p++;
        } else if (n > 1) {
            sb_add(sb, (const char *)p, n);
            p += n;
        } else {
            unsigned char c = *p++;
            if (c < 0x20 || c == 0x7f)
                sb_putc(sb, ' ');
            else if (c == '"')
                sb_puts(sb, "\\042");
            else if (c == '\\')
                sb_puts(sb, "\\\\");
            else
                sb_putc(sb, (char)c);
        }
    }
}

void html_text(struct strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t n = utf8_seq(p);
        if (n == 0) {
            sb_puts(sb, "\xef\xbf\xbd"); /* U+FFFD */
            p++;
            continue;
        }
        if (n > 1) {
            sb_add(sb, (const char *)p, n);
            p += n;
            continue;
        }
        unsigned char c = *p++;
        switch (c) {
        case '&': sb_puts(sb, "&amp;"); break;
        case '<': sb_puts(sb, "&lt;"); break;
        case '>': sb_puts(sb, "&gt;"); break;
        case '"': sb_puts(sb, "&quot;"); break;
        case '\'': sb_puts(sb, "&#39;"); break;
        default:
            sb_putc(sb, (c < 0x20 || c == 0x7f) ? ' ' : (char)c);
        }
    }
}

size_t utf8_chars(const char *s)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t k = utf8_seq(p);
        p += k ? k : 1;
        n++;
    }
    return n;
}

void utf8_truncate(char *s, size_t max)
{
    if (utf8_chars(s) <= max)
        return;
    if (max == 0) {
        s[0] = '\0';
        return;
    }
    /* keep max - 1 characters and put the ellipsis (3 bytes) after them; at
     * least two characters are cut, but when both are single bytes that is
     * one byte short of room, so keep one character fewer */
    unsigned char *p = (unsigned char *)s, *prev = p;
    for (size_t i = 0; i + 1 < max; i++) {
        size_t k = utf8_seq(p);
        prev = p;
        p += k ? k : 1;
    }
    if (strlen((char *)p) < 3)
        p = prev;
    if (strlen((char *)p) < 3) { /* max 1 and two one-byte characters: no room */
        *p = '\0';
        return;
    }
    memcpy(p, "\xe2\x80\xa6", 4);
}

void format_count(char *buf, size_t n, int64_t v)
{
    char digits[32];
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    int len = snprintf(digits, sizeof digits, "%llu", u);
    char out[48];
    size_t o = 0;
    if (v < 0)
        out[o++] = '-';
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    snprintf(buf, n, "%s", out);
}

static int parse_id(const char *s, const char *end, int64_t *v)
{
    if (s == end || end - s > 18)
        return -1;
    int64_t x = 0;
    for (const char *p = s; p < end; p++) {
        if (!isdigit((unsigned char)*p))
            return -1;
        x = x * 10 + (*p - '0');
    }
    *v = x;
    return 0;
}

static void add_id(int64_t **ids, size_t *n, int64_t v)
{
    for (size_t i = 0; i < *n; i++)
        if ((*ids)[i] == v)
            return;
    *ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
    (*ids)[(*n)++] = v;
}

int parse_run_list(const char *arg, int64_t **ids, size_t *n, char *err, size_t errlen)
{
    const char *p = arg;
    if (!*p) {
        snprintf(err, errlen, "--run needs run ids, e.g. --run 1,3 or --run 2-5");
        return -1;
    }
    for (;;) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *dash = memchr(p, '-', (size_t)(end - p));
        int64_t a, b;
        if (dash ? parse_id(p, dash, &a) || parse_id(dash + 1, end, &b) : parse_id(p, end, &a)) {
            snprintf(err, errlen, "--run %s: expected run ids such as 3, 1,4 or 2-5, got \"%.*s\"",
                     arg, (int)(end - p), p);
            return -1;
        }
        if (!dash)
            b = a;
        if (b < a) {
            snprintf(err, errlen, "--run %s: the range %.*s runs backwards", arg, (int)(end - p), p);
            return -1;
        }
        if (b - a >= 100000) {
            snprintf(err, errlen, "--run %s: the range %.*s is too long", arg, (int)(end - p), p);
            return -1;
        }
        for (int64_t v = a; v <= b; v++)
            add_id(ids, n, v);
        if (!*end)
            return 0;
        p = end + 1;
    }
}

void format_id_list(struct strbuf *sb, const int64_t *ids, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        sb_printf(sb, "%s%lld", i ? ", " : "", (long long)ids[i]);
        if (j > i)
            sb_printf(sb, "-%lld", (long long)ids[j]);
        i = j + 1;
    }
}

/* One attempt with k lanes; returns false when a label found no lane
 * (then, with force, it goes where the lane ends first and may overlap).
 * A lane is free at x when its last label ends (plus gap) before x; a
 * leader line at x may pass a lane that is free or whose last label starts
 * at x itself (events at the same time: the line is that label's own). */
static bool stagger_try(const double *x, const double *width, size_t n, double gap, int k,
                        bool force, int *level)
{
    double start[PLOT_MAX_LEVELS + 8], end[PLOT_MAX_LEVELS + 8];
    for (int l = 0; l < k; l++)
        start[l] = end[l] = -INFINITY;
    bool clean = true;
    for (size_t i = 0; i < n; i++) {
        /* the highest free lane with every lane under it passable at x[i] */
        int top = -1;
        for (int l = 0; l < k; l++) {
            bool is_free = end[l] + gap <= x[i];
            if (is_free)
                top = l;
            else if (start[l] < x[i])
                break;
        }
        if (top < 0) {
            clean = false;
            if (!force)
                return false;
            top = 0;
            for (int l = 1; l < k; l++)
                if (end[l] < end[top])
                    top = l;
        }
        start[top] = x[i];
        end[top] = x[i] + width[i];
        level[i] = top;
    }
    return clean;
}

int stagger_levels(const double *x, const double *width, size_t n, double gap, int max_levels,
                   int *level)
{
    if (n == 0)
        return 0;
    if (max_levels < 1)
        max_levels = 1;
    if (max_levels > PLOT_MAX_LEVELS + 8)
        max_levels = PLOT_MAX_LEVELS + 8;
    for (int k = 1; k < max_levels; k++)
        if (stagger_try(x, width, n, gap, k, false, level))
            return k;
    stagger_try(x, width, n, gap, max_levels, true, level);
    return max_levels;
}

/* The first whitespace-separated word of s, if it is a number. */
static char *leading_number(const char *s)
{
    if (!s)
        return NULL;
    size_t n = 0;
    while (s[n] && (isdigit((unsigned char)s[n]) || s[n] == '.' || s[n] == 'e' || s[n] == '+'))
        n++;
    if (n == 0 || n > 16 || !isdigit((unsigned char)s[0]) || (s[n] && s[n] != ' '))
        return NULL;
    return xstrndup(s, n);
}

char *event_label(const char *kind, const char *node, const char *detail)
{
    static const struct {
        const char *kind, *word;
        bool with_node;
    } words[] = {
        {"add_node", "add", true},
        {"remove_node", "remove", true},
        {"slow_node", "slow", true},
        {"slow_node_end", "end slow", true},
        {"crash_node", "crash", true},
        {"restart_node", "restart", true},
        {"split_brain", "split brain", false},
        {"split_brain_end", "end split brain", false},
        {"set_qps", "qps", false},
        {"set_address", "address", true},
        {"hot_key", "hot key", false},
        {"hot_key_end", "end hot key", false},
        {"warm_done", "in ring", true},
        {"drain_done", "out of ring", true},
        {"set_weight", "weight", true},
        {"set_vnodes", "vnodes", true},
        {"set_routing", "routing", false},
        {"migrate_slots", "migrate", true},
        {"migrate_done", "migrated", true},
        {"migrate_cancel", "migration stopped", true},
        {"shift_popularity", "popularity shift", false},
        {"trace_end", "trace end", false},
        {"hot_key_detected", "hot key found", false},
        {"hot_key_cooled", "hot key cooled", false},
    };
    for (size_t i = 0; i < ARRAY_LEN(words); i++) {
        if (strcmp(kind, words[i].kind))
            continue;
        if (!strcmp(kind, "set_qps")) {
            char *num = leading_number(detail);
            char *s = num ? xasprintf("qps %s", num) : xstrdup("set qps");
            free(num);
            return s;
        }
        if (words[i].with_node && node && *node)
            return xasprintf("%s %s", words[i].word, node);
        return xstrdup(words[i].word);
    }
    return NULL;
}

int plot_write_file(const char *dir, const char *name, const char *text, size_t len, char *err,
                    size_t errlen)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    int rc = 0;
    if (!f || fwrite(text, 1, len, f) != len) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        rc = -1;
    }
    if (f && fclose(f) && !rc) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc && f)
        remove(path); /* no part of a file (a full disk): none at all */
    free(path);
    return rc;
}
