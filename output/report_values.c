/*
 * report_values.c — the values of one parameter over the runs of a report
 * (report.h): their order for display, and which of them are one value.
 *
 * A parameter's values are read in the first kind every one of them has:
 * a number, a duration (ns), a size (bytes); else they are text. They are
 * ordered by that magnitude, equal magnitudes by their text (strcmp), so
 * the order never depends on the order given (databases merged in any order
 * sort alike). Values of equal magnitude are one value written two ways —
 * `0` and `0s`, `5s` and `5000ms`, `100` and `1e2`, `1KiB` and `1024` — and
 * report_class_values gives them one class; text is one value only when
 * byte for byte the same. Costs: O(n log n) for n values.
 */
#include "output/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ranked {
    size_t i;
    double key;
    const char *text;     /* compared when keys tie (NULL last) */
};

static int ranked_cmp(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->text != b->text) {
        if (!a->text || !b->text)
            return a->text ? -1 : 1;
        int c = strcmp(a->text, b->text);
        if (c)
            return c;
    }
    return a->i < b->i ? -1 : a->i > b->i;
}

/* The magnitude of v read as kind 0 a number, 1 a duration (ns), 2 a
 * size (bytes); -1 when it is not one. */
static int magnitude(const char *v, int kind, double *out)
{
    double d = 0;
    int64_t ns = 0;
    uint64_t bytes = 0;
    if (kind == 0 && !parse_double(v, &d))
        *out = d;
    else if (kind == 1 && !parse_duration(v, &ns))
        *out = (double)ns;
    else if (kind == 2 && !parse_size(v, &bytes))
        *out = (double)bytes;
    else
        return -1;
    return 0;
}

/* values sorted into k[] (n entries, caller frees); returns the kind they
 * were read in (3: text). */
static int sort_values(char *const *values, size_t n, struct ranked **out)
{
    struct ranked *k = xcalloc(n + 1, sizeof(*k));
    /* the first reading every value has: a number, a duration, a size;
     * else their text, byte by byte (strcmp): never the order given, which
     * depends on the order runs were recorded or merged. Equal magnitudes
     * ("100", "1e2") go by their text too. A missing value goes last. */
    int kind = 0;
    for (; kind < 3; kind++) {
        bool all = true;
        for (size_t i = 0; i < n && all; i++) {
            double d = INFINITY;
            all = !values[i] || !magnitude(values[i], kind, &d);
            k[i] = (struct ranked){i, d, values[i]};
        }
        if (all)
            break;
    }
    if (kind == 3)
        for (size_t i = 0; i < n; i++)
            k[i] = (struct ranked){i, values[i] ? 0 : INFINITY, values[i]};
    qsort(k, n, sizeof(*k), ranked_cmp);
    *out = k;
    return kind;
}

void report_rank_values(char *const *values, size_t n, size_t *rank)
{
    struct ranked *k;
    sort_values(values, n, &k);
    for (size_t r = 0; r < n; r++)
        rank[k[r].i] = r;
    free(k);
}

bool report_same_value(const char *a, const char *b, int kind)
{
    double x, y;
    if (a == b || (a && b && !strcmp(a, b)))
        return true;
    return a && b && kind < 3 && !magnitude(a, kind, &x) && !magnitude(b, kind, &y) && x == y;
}

int report_class_values(char *const *values, size_t n, size_t *rank, size_t *canon)
{
    struct ranked *k;
    int kind = sort_values(values, n, &k);
    size_t cls = 0, first = 0;
    for (size_t r = 0; r < n; r++) {
        if (r && !report_same_value(k[first].text, k[r].text, kind)) {
            cls++;
            first = r;
        }
        rank[k[r].i] = cls;
        canon[k[r].i] = k[first].i;
    }
    free(k);
    return kind;
}
