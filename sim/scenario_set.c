/*
 * scenario_set.c — `--set PATH=VALUE`: parsing one argument, and applying
 * it to the YAML tree before binding, so an override is checked exactly as
 * the file is.
 *
 * Invariants: an override's value is valid UTF-8 (as a YAML file is); a
 * node made or replaced by an override is marked with its argument (set), so
 * its errors name the argument instead of a file position; applying creates
 * mapping keys the file does not have but never sequence entries; whether
 * the path names a key of the schema is left to binding.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario_internal.h"

/* ---- --set ------------------------------------------------------------- */

static bool valid_utf8(const unsigned char *s)
{
    for (size_t n; *s; s += n)
        if (!(n = utf8_char_len(s)))
            return false;
    return true;
}

int override_parse(const char *arg, struct override *o, struct diag *d)
{
    return override_parse_as("--set", arg, o, d);
}

int override_parse_as(const char *flag, const char *arg, struct override *o, struct diag *d)
{
    memset(o, 0, sizeof(*o));
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        diag_add(d, "%s %s: expected PATH=VALUE, such as routing.vnodes=160", flag, arg);
        return -1;
    }
    bool ok = arg[0] != '.' && eq[-1] != '.';
    for (const char *p = arg; p < eq && ok; p++)
        ok = isalnum((unsigned char)*p) || *p == '_' || *p == '-' || (*p == '.' && p[1] != '.');
    if (!ok) {
        diag_add(d, "%s %s: expected a dotted path of keys and indices, such as "
                    "nodes.1.weight, before '='", flag, arg);
        return -1;
    }
    if (!valid_utf8((const unsigned char *)eq + 1)) {
        diag_add(d, "%s %s: the value is not valid UTF-8", flag, arg);
        return -1;
    }
    o->path = xstrndup(arg, (size_t)(eq - arg));
    o->value = xstrdup(eq + 1);
    o->arg = xstrdup(arg);
    o->flag = flag;
    return 0;
}

/* Mirrors apply_override: a part of digits only is a sequence index, read
 * as a number, so its leading zeros are dropped (one zero stays). */
char *override_path_normalize(const char *path)
{
    struct strbuf sb;
    sb_init(&sb);
    for (const char *p = path;;) {
        size_t n = strcspn(p, ".");
        size_t digits = 0;
        while (digits < n && isdigit((unsigned char)p[digits]))
            digits++;
        size_t skip = 0;
        if (n && digits == n)
            while (skip + 1 < n && p[skip] == '0')
                skip++;
        sb_printf(&sb, "%.*s", (int)(n - skip), p + skip);
        if (!p[n])
            break;
        sb_putc(&sb, '.');
        p += n + 1;
    }
    return sb_steal(&sb);
}

void override_deinit(struct override *o)
{
    free(o->path);
    free(o->value);
    free(o->arg);
    memset(o, 0, sizeof(*o));
}

/* Applies one --set to the tree: walks the path, creating mapping keys that
 * the file does not have (never sequence entries), and replaces the scalar
 * at its end. Whether the path names a key of the schema is left to binding,
 * which reports it against the --set argument. */
void apply_override(struct loader *L, const struct override *o)
{
    struct ynode *cur = L->root;
    struct strbuf at;
    const char *p = o->path;
    char part[256];
    sb_init(&at);
    while (*p) {
        size_t n = strcspn(p, ".");
        bool last = !p[n];
        snprintf(part, sizeof part, "%.*s", (int)MIN(n, sizeof part - 1), p);
        p += n + !last;
        if (at.len)
            sb_putc(&at, '.');
        sb_puts(&at, part);
        if (ynode_is_null(cur) && cur != L->root) {
            if (isdigit((unsigned char)part[0])) {
                struct ynode tmp = {.set = o->arg};
                report(L, &tmp, at.buf, "no such entry (the sequence is empty)");
                goto out;
            }
            ynode_make_map(cur);
        }
        if (cur->type == YNODE_SEQ) {
            char *end;
            errno = 0;
            unsigned long i = strtoul(part, &end, 10);
            if (!isdigit((unsigned char)part[0]) || *end || errno || i >= cur->n) {
                struct ynode tmp = {.set = o->arg};
                char range[64];
                if (cur->n)
                    snprintf(range, sizeof range, "entries are numbered 0 to %zu", cur->n - 1);
                else
                    snprintf(range, sizeof range, "the sequence is empty");
                report(L, &tmp, at.buf, "no such entry (%s)", range);
                goto out;
            }
            cur = cur->kids[i];
        } else if (cur->type == YNODE_MAP) {
            struct ynode *v = ynode_map_get(cur, part);
            if (!v) {
                bool index_next = !last && isdigit((unsigned char)*p);
                if (index_next) {
                    struct ynode tmp = {.set = o->arg};
                    sb_printf(&at, ".%.*s", (int)strcspn(p, "."), p);
                    report(L, &tmp, at.buf, "no such entry (%s has no entries)", part);
                    goto out;
                }
                struct ynode *k = ynode_create_scalar(part, strlen(part), true, 0, 0);
                k->set = o->arg;
                v = last ? ynode_create_scalar("", 0, true, 0, 0) : ynode_create(YNODE_MAP, 0, 0);
                v->set = o->arg;
                ynode_append(cur, k);
                ynode_append(cur, v);
            }
            cur = v;
        } else {
            struct ynode tmp = {.set = o->arg};
            char got[128];
            describe(cur, got, sizeof got);
            at.len -= strlen(part) + 1;
            at.buf[at.len] = '\0';
            report(L, &tmp, at.buf, "has a single value (%s), so it has no key %s", got, part);
            goto out;
        }
    }
    if (cur->type != YNODE_SCALAR) {
        struct ynode tmp = {.set = o->arg};
        if (cur->type == YNODE_MAP)
            report(L, &tmp, at.buf, "--set changes single values, but this is a mapping; set "
                                    "one of its keys instead (such as %s.KEY=VALUE)", at.buf);
        else
            report(L, &tmp, at.buf, "--set changes single values, but this is a sequence; set "
                                    "one entry instead (such as %s.0=VALUE or %s.0.KEY=VALUE)",
                   at.buf, at.buf);
        goto out;
    }
    ynode_set_text(cur, o->value, true);
    cur->set = o->arg;
out:
    sb_deinit(&at);
}
