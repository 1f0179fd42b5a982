/*
 * scenario_report.c — the loader's error collector: where an error is (a
 * node's file position, or the --set argument that made the node), the
 * dotted path of what was being bound, and how a bad value is quoted.
 *
 * Invariants: errors are only collected here, never printed (scenario.c
 * sorts them by position and hands them over); each message is
 * "FILE:LINE:COL: PATH: message" or "--set ARG: PATH: message" (--vary
 * ARG for a sweep's --vary value, as the override's flag says); a --set
 * error sorts at line 0 with the argument's index as its column, so --set
 * errors come first, in argument order. L->path is restored by every
 * path_push/path_pop pair.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario_internal.h"

/* ---- collecting errors --------------------------------------------------- */

static int set_index(const struct loader *L, const char *arg)
{
    for (size_t i = 0; i < L->s->n_overrides; i++)
        if (L->s->overrides[i].arg == arg)
            return (int)i;
    return 0;
}

const char *set_flag(const struct loader *L, const char *arg)
{
    for (size_t i = 0; i < L->s->n_overrides; i++)
        if (L->s->overrides[i].arg == arg && L->s->overrides[i].flag)
            return L->s->overrides[i].flag;
    return "--set";
}

int err_cmp(const void *a, const void *b)
{
    const struct err *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Keeps the first MAX_ERRORS errors by position, whatever the count: when
 * 2 × MAX_ERRORS are kept, the later half by position goes (only counted),
 * so memory stays bounded and the cost is O(log MAX_ERRORS) per error. */
static void add_err(struct loader *L, int line, int col, char *msg)
{
    if (!L->errs)
        L->errs = xcalloc(2 * MAX_ERRORS, sizeof(*L->errs));
    if (L->n_kept == 2 * MAX_ERRORS) {
        qsort(L->errs, L->n_kept, sizeof(*L->errs), err_cmp);
        for (size_t i = MAX_ERRORS; i < L->n_kept; i++)
            free(L->errs[i].msg);
        L->n_kept = MAX_ERRORS;
    }
    L->errs[L->n_kept++] = (struct err){line, col, L->n_errs, msg};
    L->n_errs++;
}

/* An error about node `at` (its position, or its --set argument). */
void report(struct loader *L, const struct ynode *at, const char *path, const char *fmt, ...)
{
    struct strbuf sb;
    va_list ap;
    int line, col;
    sb_init(&sb);
    if (at && at->set) {
        col = set_index(L, at->set);
        const char *flag = set_flag(L, at->set);
        if (!strcmp(flag, "--seed") && !strncmp(at->set, "seed=", 5))
            sb_printf(&sb, "--seed %s: ", at->set + 5); /* as the user wrote it */
        else
            sb_printf(&sb, "%s %s: ", flag, at->set);
        line = 0;
    } else {
        line = at && at->line > 0 ? at->line : 1;
        col = at && at->line > 0 ? at->col : 1;
        sb_printf(&sb, "%s:%d:%d: ", L->file, line, col);
    }
    if (path && *path)
        sb_printf(&sb, "%s: ", path);
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    add_err(L, line, col, sb_steal(&sb));
}

/* The set of bad fields is only looked up, never walked: O(1) expected. */
void mark_bad(struct loader *L, const void *field)
{
    u64map_put(&L->bad, (uint64_t)(uintptr_t)field, 1);
}

bool good(const struct loader *L, const void *field)
{
    return !u64map_get(&L->bad, (uint64_t)(uintptr_t)field);
}

size_t path_push(struct loader *L, const char *key)
{
    size_t old = L->path.len;
    if (old)
        sb_putc(&L->path, '.');
    sb_puts(&L->path, key);
    return old;
}

size_t path_push_index(struct loader *L, size_t i)
{
    size_t old = L->path.len;
    sb_printf(&L->path, "%s%zu", old ? "." : "", i);
    return old;
}

void path_pop(struct loader *L, size_t old)
{
    L->path.len = old;
    L->path.buf[old] = '\0';
}

/* What a value was, for "got ...": a scalar quoted and escaped (at most
 * about 80 bytes of it, cut between characters), or the kind of collection. */
void describe(const struct ynode *v, char *buf, size_t n)
{
    struct strbuf sb;
    size_t i;
    if (!v) {
        snprintf(buf, n, "nothing");
        return;
    }
    if (v->type != YNODE_SCALAR) {
        snprintf(buf, n, "%s", v->type == YNODE_MAP ? "a mapping"
                               : v->n ? "a sequence" : "an empty sequence");
        return;
    }
    if (v->len && ynode_is_null(v)) { /* ~ or null, unquoted */
        snprintf(buf, n, "%s", v->text[0] == '~' ? "null (~)" : "null");
        return;
    }
    sb_init(&sb);
    sb_putc(&sb, '"');
    for (i = 0; i < v->len && (sb.len < 80 || ((unsigned char)v->text[i] & 0xc0) == 0x80); i++) {
        unsigned char c = (unsigned char)v->text[i];
        if (c == '"' || c == '\\')
            sb_printf(&sb, "\\%c", c);
        else if (c == '\n')
            sb_puts(&sb, "\\n");
        else if (c == '\t')
            sb_puts(&sb, "\\t");
        else if (c < 0x20 || c == 0x7f)
            sb_printf(&sb, "\\x%02x", c);
        else
            sb_putc(&sb, (char)c);
    }
    sb_puts(&sb, i < v->len ? "...\"" : "\"");
    snprintf(buf, n, "%s", sb.buf);
    sb_deinit(&sb);
}

/* The node at a dotted path of the tree ("events.3.add_node.id"), or NULL. */
struct ynode *tree_at(const struct ynode *root, const char *path)
{
    const struct ynode *cur = root;
    char part[64];
    const char *p = path;
    while (cur && *p) {
        size_t n = strcspn(p, ".");
        if (n >= sizeof part)
            return NULL;
        memcpy(part, p, n);
        part[n] = '\0';
        p += n + (p[n] == '.');
        if (cur->type == YNODE_MAP) {
            cur = ynode_map_get(cur, part);
        } else if (cur->type == YNODE_SEQ) {
            char *end;
            unsigned long i = strtoul(part, &end, 10);
            cur = (*end || i >= cur->n) ? NULL : cur->kids[i];
        } else {
            return NULL;
        }
    }
    return (struct ynode *)cur;
}

/* ---- errors found after binding ------------------------------------------ */

/* Reports at the value of `path` when the file (or --set) gave it, else at
 * the mapping that would hold it. */
void report_path(struct loader *L, const char *path, const char *fmt, ...)
{
    const struct ynode *at = tree_at(L->root, path);
    char parent[256];
    snprintf(parent, sizeof parent, "%s", path);
    while (!at) {
        char *dot = strrchr(parent, '.');
        if (!dot) {
            at = L->root;
            break;
        }
        *dot = '\0';
        at = tree_at(L->root, parent);
    }
    struct strbuf sb;
    va_list ap;
    sb_init(&sb);
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    report(L, at, path, "%s", sb.buf);
    sb_deinit(&sb);
}

/* `got "..."` for the value at path, or the value in effect when absent. */
void got_at(const struct loader *L, const char *path, const char *effective, char *buf,
                   size_t n)
{
    const struct ynode *v = tree_at(L->root, path);
    if (v) {
        describe(v, buf, n);
    } else {
        snprintf(buf, n, "\"%s\" (the default)", effective);
    }
}

/* The value at path a if given, else at path b (else the top mapping). */
const struct ynode *value_or(const struct loader *L, const char *a, const char *b)
{
    const struct ynode *v = tree_at(L->root, a);
    if (!v)
        v = tree_at(L->root, b);
    return v ? v : L->root;
}
