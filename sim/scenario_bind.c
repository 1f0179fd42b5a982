/*
 * scenario_bind.c — the generic table binder: walks a YAML mapping through
 * a section table (struct section of struct key: name, type, offsetof the
 * field, default, range), sets every field through its type's setter, and
 * reports unknown keys (with a "did you mean"), duplicate keys, missing
 * required keys, wrong types and values out of range. Also the formatting
 * of values that the emitter and the docs share with the messages.
 *
 * Invariants: a setter either stores a valid value in the field and returns
 * NULL, or leaves the field as it was and returns what was expected (the
 * caller writes "expected ..., got ..." and marks the field bad); defaults
 * are YAML text parsed by the same setters, so a default is always in range;
 * nothing here knows a particular section (the tables are in
 * scenario_schema.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario_internal.h"

/* ---- field access and formatting --------------------------------------- */

uint64_t get_uint(const struct key *k, const void *f)
{
    switch (k->size) {
    case 1: return *(const uint8_t *)f;
    case 2: return *(const uint16_t *)f;
    case 4: return *(const uint32_t *)f;
    default: return *(const uint64_t *)f;
    }
}

static void put_uint(const struct key *k, void *f, uint64_t v)
{
    switch (k->size) {
    case 1: *(uint8_t *)f = (uint8_t)v; break;
    case 2: *(uint16_t *)f = (uint16_t)v; break;
    case 4: *(uint32_t *)f = (uint32_t)v; break;
    default: *(uint64_t *)f = v; break;
    }
}

/* Shortest text that reads back as exactly v; plain decimals when short. */
void format_number(double v, char *buf, size_t n)
{
    char g[40], fx[400];
    if (v == 0)
        v = 0; /* no "-0" */
    for (int p = 1; p <= 17; p++) {
        snprintf(g, sizeof g, "%.*g", p, v);
        if (strtod(g, NULL) == v)
            break;
    }
    for (int d = 0; d <= 17; d++) {
        snprintf(fx, sizeof fx, "%.*f", d, v);
        if (strtod(fx, NULL) == v) {
            if (strlen(fx) <= 20) {
                snprintf(buf, n, "%s", fx);
                return;
            }
            break;
        }
    }
    snprintf(buf, n, "%s", g);
}

/* Sizes with the largest unit that divides them exactly; bytes otherwise. */
static void format_size(uint64_t v, char *buf, size_t n)
{
    static const struct {
        const char *unit;
        uint64_t scale;
    } units[] = {{"TiB", 1ULL << 40}, {"TB", 1000000000000ULL}, {"GiB", 1ULL << 30},
                 {"GB", 1000000000ULL}, {"MiB", 1ULL << 20}, {"MB", 1000000ULL},
                 {"KiB", 1ULL << 10}, {"KB", 1000ULL}};
    for (size_t i = 0; i < ARRAY_LEN(units); i++) {
        if (v && v % units[i].scale == 0) {
            snprintf(buf, n, "%llu%s", (unsigned long long)(v / units[i].scale), units[i].unit);
            return;
        }
    }
    snprintf(buf, n, "%llu", (unsigned long long)v);
}

/* The text of a scalar field, as the effective YAML writes it. */
void format_field(const struct key *k, const void *f, char *buf, size_t n)
{
    switch (k->type) {
    case KT_STRING:
    case KT_ID:
        snprintf(buf, n, "%s", *(char *const *)f ? *(char *const *)f : "");
        break;
    case KT_UINT: snprintf(buf, n, "%llu", (unsigned long long)get_uint(k, f)); break;
    case KT_NUMBER: format_number(*(const double *)f, buf, n); break;
    case KT_DURATION: format_duration(*(const int64_t *)f, buf, n); break;
    case KT_SIZE: format_size(*(const uint64_t *)f, buf, n); break;
    case KT_BOOL: snprintf(buf, n, "%s", *(const bool *)f ? "true" : "false"); break;
    case KT_ENUM: snprintf(buf, n, "%s", k->names[get_uint(k, f)]); break;
    case KT_SLOTS: {
        const struct slot_sel *sel = f;
        if (sel->count)
            snprintf(buf, n, "%u", sel->count);
        else
            snprintf(buf, n, "[%u, %u]", sel->first, sel->last);
        break;
    }
    default: snprintf(buf, n, "?"); break;
    }
}

bool field_is_zero(const struct key *k, const void *f)
{
    switch (k->type) {
    case KT_STRING:
    case KT_ID: return *(char *const *)f == NULL;
    case KT_NUMBER: return *(const double *)f == 0;
    case KT_DURATION: return *(const int64_t *)f == 0;
    case KT_SIZE: return *(const uint64_t *)f == 0;
    case KT_UINT: return get_uint(k, f) == 0;
    case KT_MAP: return k->sub && k->sub->n_keys && field_is_zero(&k->sub->keys[0],
                                                                    (const char *)f
                                                                        + k->sub->keys[0].offset);
    default: return false;
    }
}

/* ---- ranges and "what was expected" ------------------------------------ */

static void format_bound(const struct key *k, double b, char *buf, size_t n)
{
    if (b == 0)
        snprintf(buf, n, "0");
    else if (k->type == KT_DURATION)
        format_duration((int64_t)b, buf, n);
    else if (k->type == KT_SIZE)
        format_size((uint64_t)b, buf, n);
    else
        snprintf(buf, n, "%.15g", b);
}

/* k with the bound every duration has (MAX_DURATION_NS) when its own upper
 * bound is higher or absent: tmp, or k itself. */
static const struct key *bounded(const struct key *k, struct key *tmp)
{
    if (k->type != KT_DURATION || (k->has_hi && k->hi <= (double)MAX_DURATION_NS))
        return k;
    *tmp = *k;
    tmp->hi = (double)MAX_DURATION_NS;
    tmp->has_hi = true;
    tmp->hi_open = false;
    return tmp;
}

/* "> 0", ">= 1", "1 to 1024", "> 0 and <= 10"; doc: with ≥ and ≤. */
void range_text(const struct key *k, bool doc, char *buf, size_t n)
{
    struct key tmp;
    k = bounded(k, &tmp);
    char lo[32], hi[32];
    const char *ge = doc ? "≥" : ">=", *le = doc ? "≤" : "<=";
    format_bound(k, k->lo, lo, sizeof lo);
    format_bound(k, k->hi, hi, sizeof hi);
    if (!k->has_hi)
        snprintf(buf, n, "%s %s", k->lo_open ? ">" : ge, lo);
    else if (!k->lo_open && !k->hi_open)
        snprintf(buf, n, "%s to %s", lo, hi);
    else
        snprintf(buf, n, "%s %s and %s %s", k->lo_open ? ">" : ge, lo, k->hi_open ? "<" : le, hi);
}

static const char *type_noun(enum ktype t)
{
    switch (t) {
    case KT_UINT: return "an integer";
    case KT_NUMBER: return "a number";
    case KT_DURATION: return "a duration";
    case KT_SIZE: return "a size";
    default: return "a value";
    }
}

/* What a value out of range should have been: "an integer from 1 to 4096". */
static const char *expect_range(const struct key *k, char *buf, size_t n)
{
    char r[96], lo[32], hi[32];
    if (k->type == KT_UINT && k->lo == 1 && !k->has_hi)
        return "a positive integer";
    if (k->has_hi && !k->lo_open && !k->hi_open) {
        format_bound(k, k->lo, lo, sizeof lo);
        format_bound(k, k->hi, hi, sizeof hi);
        snprintf(buf, n, "%s from %s to %s", type_noun(k->type), lo, hi);
        return buf;
    }
    range_text(k, false, r, sizeof r);
    snprintf(buf, n, "%s %s", type_noun(k->type), r);
    return buf;
}

/* What a value of the wrong form should have been. */
static const char *expect_form(const struct key *k, char *buf, size_t n)
{
    switch (k->type) {
    case KT_UINT: return k->lo >= 1 ? "a positive integer" : "a non-negative integer";
    case KT_DURATION: return "a duration such as 20us, 1.5s or 2m";
    case KT_SIZE: return "a size such as 1024, 64KiB or 1GB";
    default: return expect_range(k, buf, n);
    }
}

/* What a value of the right form but too large for its type (past what
 * the parser holds) should have been: the key's range when it has an upper
 * bound, else the type's limit. */
static const char *too_large(const struct key *k, char *buf, size_t n)
{
    struct key tmp;
    k = bounded(k, &tmp);
    if (k->has_hi)
        return expect_range(k, buf, n);
    char lo[32];
    format_bound(k, k->lo, lo, sizeof lo);
    if (k->type == KT_SIZE)
        snprintf(buf, n, "a size %s %s and below 8388608TiB (2^63 bytes)",
                 k->lo_open ? ">" : ">=", lo);
    else
        snprintf(buf, n, "%s from %s to 18446744073709551615", type_noun(k->type), lo);
    return buf;
}

/* What a value that the parser refused should have been (rc a PARSE_ code). */
static const char *refused(const struct key *k, int rc, char *buf, size_t n)
{
    if (rc == PARSE_TOO_LARGE)
        return too_large(k, buf, n);
    if (rc == PARSE_NOT_WHOLE && k->type == KT_DURATION)
        return "a whole number of nanoseconds (such as 1.5us, not 1.5ns)";
    if (rc == PARSE_NOT_WHOLE && k->type == KT_SIZE)
        return "a whole number of bytes (such as 1.5KiB, not 1.5B)";
    return expect_form(k, buf, n);
}

static const char *unquoted(const char *what, char *buf, size_t n)
{
    if (what != buf) {
        snprintf(buf, n, "%s without quotes", what);
    } else {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, " without quotes");
    }
    return buf;
}

static bool in_range(const struct key *k, double v)
{
    if (k->lo_open ? !(v > k->lo) : !(v >= k->lo))
        return false;
    if (k->has_hi && (k->hi_open ? !(v < k->hi) : !(v <= k->hi)))
        return false;
    return true;
}

/* ---- setters: NULL, or what was expected --------------------------------- */

typedef const char *(*setter_fn)(const struct key *k, const struct ynode *v, void *field,
                                 char *what, size_t n);

/* A YAML null (`~`, `null`, or nothing after the colon) is the empty
 * string, never the text "null": `description: ~` is no description, and
 * `name: null` or `path: ~` are refused as empty, as `name:` is. A quoted
 * "null" is that text (the emitter quotes such strings). */
static const char *set_string(const struct key *k, const struct ynode *v, void *field,
                              char *what, size_t n)
{
    if (v->type != YNODE_SCALAR)
        return "a string";
    bool null = ynode_is_null(v);
    if ((k->flags & K_NONEMPTY) && (!v->len || null))
        return "a non-empty string";
    if (k->has_hi && (double)v->len > k->hi) {
        snprintf(what, n, "a %s of at most %.0f bytes (this one has %zu)",
                 k->type == KT_ID ? "node id" : "string", k->hi, v->len);
        return what;
    }
    char **p = field;
    free(*p);
    *p = xstrdup(null ? "" : v->text);
    return NULL;
}

static const char *set_id(const struct key *k, const struct ynode *v, void *field, char *what,
                          size_t n)
{
    static const char expect[] = "a node id (non-empty, without spaces or commas)";
    if (v->type != YNODE_SCALAR || !v->len || ynode_is_null(v))
        return expect;
    for (const unsigned char *p = (const unsigned char *)v->text; *p; p++)
        if (isspace(*p) || *p == ',' || *p < 0x20 || *p == 0x7f)
            return expect;
    return set_string(k, v, field, what, n);
}

static const char *set_uint(const struct key *k, const struct ynode *v, void *field, char *what,
                            size_t n)
{
    uint64_t x;
    if (v->type != YNODE_SCALAR)
        return expect_form(k, what, n);
    int rc = parse_u64(v->text, &x);
    if (rc == PARSE_TOO_LARGE && k->check && !k->has_hi) { /* its own limit says it best */
        uint64_t big = 0;
        put_uint(k, &big, UINT64_MAX);
        const char *w = k->check(&big, what, n);
        if (w)
            return w;
    }
    if (rc)
        return refused(k, rc, what, n);
    if (!v->plain)
        return unquoted(expect_form(k, what, n), what, n);
    if (!in_range(k, (double)x) || (k->size == 4 && x > UINT32_MAX))
        return expect_range(k, what, n);
    put_uint(k, field, x);
    return NULL;
}

static const char *set_number(const struct key *k, const struct ynode *v, void *field,
                              char *what, size_t n)
{
    double x;
    if (v->type != YNODE_SCALAR)
        return expect_form(k, what, n);
    int rc = parse_double(v->text, &x);
    if (rc == PARSE_TOO_LARGE || rc == PARSE_TOO_SMALL) { /* the form is right: say why not */
        char r[160];
        snprintf(r, sizeof r, "%s", expect_form(k, what, n));
        snprintf(what, n, "%s (this one is %s a double can hold)", r,
                 rc == PARSE_TOO_LARGE ? "larger than" : "closer to 0 than");
        return what;
    }
    if (rc)
        return expect_form(k, what, n);
    if (!v->plain)
        return unquoted(expect_form(k, what, n), what, n);
    if (!in_range(k, x))
        return expect_range(k, what, n);
    *(double *)field = x;
    return NULL;
}

static const char *set_duration(const struct key *k, const struct ynode *v, void *field,
                                char *what, size_t n)
{
    struct key tmp;
    k = bounded(k, &tmp);
    int64_t ns;
    if (v->type != YNODE_SCALAR)
        return expect_form(k, what, n);
    int rc = parse_duration(v->text, &ns);
    if (rc)
        return refused(k, rc, what, n);
    if (ns > MAX_DURATION_NS || !in_range(k, (double)ns)) /* exact at the bound */
        return expect_range(k, what, n);
    *(int64_t *)field = ns;
    return NULL;
}

static const char *set_size(const struct key *k, const struct ynode *v, void *field, char *what,
                            size_t n)
{
    uint64_t b;
    if (v->type != YNODE_SCALAR)
        return expect_form(k, what, n);
    int rc = parse_size(v->text, &b);
    if (rc)
        return refused(k, rc, what, n);
    if (!in_range(k, (double)b))
        return expect_range(k, what, n);
    *(uint64_t *)field = b;
    return NULL;
}

static const char *set_bool(const struct key *k, const struct ynode *v, void *field, char *what,
                            size_t n)
{
    (void)k;
    if (v->type != YNODE_SCALAR || (strcmp(v->text, "true") && strcmp(v->text, "false")))
        return "true or false";
    if (!v->plain)
        return unquoted("true or false", what, n);
    *(bool *)field = !strcmp(v->text, "true");
    return NULL;
}

void names_list(const char *const *names, const char *sep, const char *quote,
                       struct strbuf *sb)
{
    for (size_t i = 0; names[i]; i++)
        sb_printf(sb, "%s%s%s%s", i ? sep : "", quote, names[i], quote);
}

static const char *set_enum(const struct key *k, const struct ynode *v, void *field, char *what,
                            size_t n)
{
    if (v->type == YNODE_SCALAR)
        for (size_t i = 0; k->names[i]; i++)
            if (!strcmp(v->text, k->names[i])) {
                put_uint(k, field, i);
                return NULL;
            }
    struct strbuf sb;
    sb_init(&sb);
    names_list(k->names, ", ", "", &sb);
    snprintf(what, n, "one of: %s", sb.buf);
    sb_deinit(&sb);
    return what;
}

/* A slot number (0 to 16383), given as a plain integer. */
static bool slot_number(const struct ynode *v, uint64_t *x)
{
    return v->type == YNODE_SCALAR && v->plain && !parse_u64(v->text, x)
           && *x < PLACE_SLOT_COUNT;
}

/* KT_SLOTS: `N` (1 to 16384 slots) or `[first, last]` (0 <= first <= last <= 16383). */
static const char *set_slots(const struct key *k, const struct ynode *v, void *field,
                             char *what, size_t n)
{
    (void)k;
    struct slot_sel *sel = field;
    uint64_t a, b;
    snprintf(what, n, "a number of slots from 1 to %d, or [first, last] with 0 <= first <= "
             "last <= %d", PLACE_SLOT_COUNT, PLACE_SLOT_COUNT - 1);
    if (v->type == YNODE_SCALAR) {
        if (parse_u64(v->text, &a) || a < 1 || a > PLACE_SLOT_COUNT)
            return what;
        if (!v->plain)
            return unquoted(what, what, n);
        *sel = (struct slot_sel){.count = (uint32_t)a};
        return NULL;
    }
    if (v->type != YNODE_SEQ || v->n != 2)
        return what;
    if (!slot_number(v->kids[0], &a) || !slot_number(v->kids[1], &b)) {
        snprintf(what, n, "[first, last] of two slot numbers, integers from 0 to %d",
                 PLACE_SLOT_COUNT - 1);
        return what;
    }
    if (a > b) {
        snprintf(what, n, "[first, last] with first <= last (here %llu > %llu: write "
                 "[%llu, %llu])", (unsigned long long)a, (unsigned long long)b,
                 (unsigned long long)b, (unsigned long long)a);
        return what;
    }
    *sel = (struct slot_sel){.first = (uint32_t)a, .last = (uint32_t)b};
    return NULL;
}

static const setter_fn setters[] = {
    [KT_STRING] = set_string, [KT_ID] = set_id, [KT_UINT] = set_uint,
    [KT_NUMBER] = set_number, [KT_DURATION] = set_duration, [KT_SIZE] = set_size,
    [KT_BOOL] = set_bool, [KT_ENUM] = set_enum, [KT_SLOTS] = set_slots,
};


/* ---- binding ------------------------------------------------------------ */

void apply_defaults(const struct section *sec, void *obj)
{
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        char *field = (char *)obj + k->offset;
        if (k->def) {
            struct ynode v = {.type = YNODE_SCALAR, .text = (char *)k->def,
                              .len = strlen(k->def), .plain = true};
            char what[160];
            const char *e = setters[k->type](k, &v, field, what, sizeof what);
            (void)e;
        } else if (k->type == KT_MAP) {
            apply_defaults(k->sub, field);
        }
    }
}

/* Frees what binding allocated under obj: every string, every list (and what
 * its elements hold), through sub-sections and the `also` table. Fields are
 * cleared as they go, so a field that two sections share is freed once. */
void release_section(const struct section *sec, void *obj)
{
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        char *field = (char *)obj + k->offset;
        switch (k->type) {
        case KT_STRING:
        case KT_ID:
            free(*(char **)field);
            *(char **)field = NULL;
            break;
        case KT_MAP:
            release_section(k->sub, field);
            break;
        case KT_LIST: {
            char **arrp = (char **)field;
            size_t *countp = (size_t *)((char *)obj + k->count_offset);
            size_t elem = k->sub ? k->sub->size : k->item->size;
            for (size_t j = 0; *arrp && j < *countp; j++) {
                char *e = *arrp + j * elem;
                if (k->sub)
                    release_section(k->sub, e);
                else if (k->item->type == KT_STRING || k->item->type == KT_ID)
                    free(*(char **)(e + k->item->offset)), *(char **)(e + k->item->offset) = NULL;
            }
            free(*arrp);
            *arrp = NULL;
            *countp = 0;
            break;
        }
        default:
            break;
        }
    }
    if (sec->also)
        release_section(sec->also, (char *)obj + sec->also_offset);
}

/* Optimal string alignment distance, case-insensitive, for "did you mean". */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    size_t d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t v = MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);
            v = MIN(v, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]))
                v = MIN(v, d[i - 2][j - 2] + 1);
            d[i][j] = v;
        }
    return d[la][lb];
}

static void consider(const char *word, const char *cand, const char *prefix, size_t *best,
                     char *out, size_t n)
{
    size_t dist = edit_distance(word, cand);
    size_t limit = strlen(cand) <= 4 ? 1 : 2;
    if (dist <= limit && dist < *best) {
        *best = dist;
        snprintf(out, n, "%s%s", prefix, cand);
    }
}

static void report_unknown(struct loader *L, const struct section *sec, const struct ynode *kn)
{
    struct strbuf sb;
    char best_name[96] = "";
    size_t best = 99;
    sb_init(&sb);
    for (size_t i = 0; i < sec->n_keys; i++) {
        sb_printf(&sb, "%s%s", i ? ", " : "", sec->keys[i].name);
        consider(kn->text, sec->keys[i].name, "", &best, best_name, sizeof best_name);
    }
    if (sec->also)
        for (size_t i = 0; i < sec->also->n_keys; i++) {
            if (sec->also_not && !strcmp(sec->also->keys[i].name, sec->also_not))
                continue;
            sb_printf(&sb, ", %s", sec->also->keys[i].name);
            consider(kn->text, sec->also->keys[i].name, "", &best, best_name, sizeof best_name);
        }
    /* a key written at the top level that belongs in a section */
    if (sec == &top_section && best)
        for (size_t i = 0; i < sec->n_keys; i++) {
            const struct section *sub = sec->keys[i].sub;
            if (sec->keys[i].type != KT_MAP || !sub)
                continue;
            for (size_t j = 0; j < sub->n_keys; j++)
                if (!strcmp(kn->text, sub->keys[j].name)) {
                    best = 0;
                    snprintf(best_name, sizeof best_name, "%s.%s (it belongs in %s:)",
                             sec->keys[i].name, sub->keys[j].name, sec->keys[i].name);
                }
        }
    size_t old = path_push(L, kn->text);
    if (!sec->n_keys && !sec->also)
        report(L, kn, L->path.buf, "unknown key (this mapping takes no keys: write {})");
    else if (best_name[0])
        report(L, kn, L->path.buf, "unknown key (expected one of: %s); did you mean %s?", sb.buf,
               best_name);
    else
        report(L, kn, L->path.buf, "unknown key (expected one of: %s)", sb.buf);
    path_pop(L, old);
    sb_deinit(&sb);
}


static void bind_scalar(struct loader *L, const struct key *k, const struct ynode *v, void *field)
{
    char what[256], got[128];
    const char *w = setters[k->type](k, v, field, what, sizeof what);
    if (!w && k->check)
        w = k->check(field, what, sizeof what);
    if (w) {
        describe(v, got, sizeof got);
        report(L, v, L->path.buf, "expected %s, got %s", w, got);
        mark_bad(L, field);
    }
}

static void bind_list(struct loader *L, const struct key *k, const struct ynode *v, void *obj)
{
    char got[128];
    void **arrp = (void **)((char *)obj + k->offset);
    size_t *countp = (size_t *)((char *)obj + k->count_offset);
    size_t n = 0, elem = k->sub ? k->sub->size : k->item->size;

    if (v->type == YNODE_MAP || (v->type == YNODE_SCALAR && !ynode_is_null(v))) {
        describe(v, got, sizeof got);
        report(L, v, L->path.buf, "expected a sequence, got %s", got);
        mark_bad(L, arrp);
        return;
    }
    if (v->type == YNODE_SEQ)
        n = v->n;
    if ((double)n < k->lo) {
        report(L, v, L->path.buf, "expected a sequence of at least %.0f %s, got %s", k->lo,
               k->lo == 1 ? "entry" : "entries", n ? "fewer" : "an empty sequence");
        mark_bad(L, arrp);
    }
    if (k->has_hi && (double)n > k->hi) {
        report(L, v, L->path.buf, "expected at most %.0f entries, got %zu", k->hi, n);
        mark_bad(L, arrp);
        return;
    }
    if (!n)
        return;
    char *arr = xcalloc(n, elem);
    *arrp = arr;
    *countp = n;
    for (size_t i = 0; i < n; i++) {
        char *e = arr + i * elem;
        size_t old = path_push_index(L, i);
        if (k->sub) {
            if (k->sub->init)
                k->sub->init(e);
            apply_defaults(k->sub, e);
            bind_map(L, k->sub, v->kids[i], e);
        } else {
            bind_scalar(L, k->item, v->kids[i], e + k->item->offset);
        }
        path_pop(L, old);
    }
}

/* A K_SCALAR_FORM mapping written as a single value: its first key's value. */
static void bind_scalar_form(struct loader *L, const struct key *k, const struct ynode *v,
                             void *obj)
{
    const struct key *first = &k->sub->keys[0];
    if (v->type == YNODE_SEQ) {
        char got[128];
        struct strbuf keys;
        sb_init(&keys);
        for (size_t i = 0; i < k->sub->n_keys; i++)
            sb_printf(&keys, "%s%s", i ? ", " : "", k->sub->keys[i].name);
        describe(v, got, sizeof got);
        report(L, v, L->path.buf, "expected %s, or a mapping {%s}, got %s",
               type_noun(first->type), keys.buf, got);
        sb_deinit(&keys);
        mark_bad(L, (char *)obj + k->offset + first->offset);
        return;
    }
    bind_scalar(L, first, v, (char *)obj + k->offset + first->offset);
}

static void bind_value(struct loader *L, const struct key *k, const struct ynode *v, void *obj)
{
    switch (k->type) {
    case KT_MAP:
        if ((k->flags & K_SCALAR_FORM) && v->type != YNODE_MAP && !ynode_is_null(v))
            bind_scalar_form(L, k, v, obj);
        else
            bind_map(L, k->sub, v, (char *)obj + k->offset);
        break;
    case KT_LIST: bind_list(L, k, v, obj); break;
    default: bind_scalar(L, k, v, (char *)obj + k->offset); break;
    }
}

static const struct key *find_key(const struct section *sec, const char *name)
{
    for (size_t i = 0; i < sec->n_keys; i++)
        if (!strcmp(sec->keys[i].name, name))
            return &sec->keys[i];
    return NULL;
}

/* Binds one mapping through a section table. A YAML null stands for an empty
 * mapping (a section written with everything commented out). */
void bind_map(struct loader *L, const struct section *sec, const struct ynode *map,
                     void *obj)
{
    char got[128];
    if (map->type != YNODE_MAP && !ynode_is_null(map)) {
        describe(map, got, sizeof got);
        report(L, map, L->path.buf, "expected a mapping, got %s", got);
        mark_bad(L, obj);
        return;
    }
    for (size_t i = 0; map->type == YNODE_MAP && i < ynode_map_len(map); i++) {
        const struct ynode *kn = ynode_map_key(map, i), *vn = ynode_map_value(map, i);
        const struct ynode *first = ynode_map_get_key(map, kn->text);
        size_t old;
        if (first != kn) {
            old = path_push(L, kn->text);
            report(L, kn, L->path.buf, "duplicate key (first at line %d)", first->line);
            path_pop(L, old);
            continue;
        }
        const struct key *k = find_key(sec, kn->text);
        void *base = obj;
        if (!k && sec->also) {
            k = find_key(sec->also, kn->text);
            base = (char *)obj + sec->also_offset;
            if (k && sec->also_not && !strcmp(kn->text, sec->also_not)) {
                old = path_push(L, kn->text);
                report(L, kn, L->path.buf, "not allowed here: %s", sec->also_not_why);
                path_pop(L, old);
                continue;
            }
        }
        if (!k) {
            report_unknown(L, sec, kn);
            continue;
        }
        old = path_push(L, kn->text);
        bind_value(L, k, vn, base);
        if (k->flags & K_OPTIONAL)
            *(bool *)((char *)base + k->present_offset) = true;
        path_pop(L, old);
    }
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        if ((k->flags & K_REQUIRED) && !ynode_map_get(map, k->name)) {
            size_t old = path_push(L, k->name);
            report(L, map, L->path.buf, "required key is missing");
            path_pop(L, old);
            mark_bad(L, (char *)obj + k->offset);
        }
    }
    if (sec->post)
        sec->post(L, map, obj);
}
