/*
 * scenario_doc.c — the schema reference in Markdown (`ringsim check
 * --schema`): one table per section, each key with its type, default,
 * range and meaning, written from the schema tables.
 *
 * Invariant: scenarios/README.md quotes this output verbatim between its
 * schema markers (tests/cli/check.sh compares them), so the docs cannot
 * drift from the loader.
 */
#include <stdio.h>
#include <string.h>

#include "sim/scenario_internal.h"

/* ---- the schema reference ----------------------------------------------- */

static void md_type(FILE *f, const struct key *k)
{
    struct strbuf sb;
    switch (k->type) {
    case KT_STRING: fputs("string", f); break;
    case KT_ID: fputs("node id", f); break;
    case KT_UINT: fputs("integer", f); break;
    case KT_NUMBER: fputs("number", f); break;
    case KT_DURATION: fputs("duration", f); break;
    case KT_SIZE: fputs("size", f); break;
    case KT_BOOL: fputs("boolean", f); break;
    case KT_MAP:
        if (k->flags & K_SCALAR_FORM) {
            fputs(k->sub->keys[0].type == KT_NUMBER ? "number" : "value", f);
            fputs(", or mapping", f);
        } else {
            fputs("mapping", f);
        }
        break;
    case KT_LIST:
        fputs(k->sub ? "sequence of mappings" : "sequence of integers", f);
        break;
    case KT_SLOTS: fputs("integer, or `[first, last]`", f); break;
    case KT_ENUM:
        sb_init(&sb);
        names_list(k->names, ", ", "`", &sb);
        fprintf(f, "one of %s", sb.buf);
        sb_deinit(&sb);
        break;
    }
}

static void md_range(FILE *f, const struct key *k)
{
    char r[96];
    if (k->range_doc) {
        fputs(k->range_doc, f);
        return;
    }
    switch (k->type) {
    case KT_UINT:
    case KT_NUMBER:
    case KT_DURATION:
    case KT_SIZE:
        range_text(k, true, r, sizeof r);
        fputs(r, f);
        break;
    case KT_LIST:
        if (k->lo >= 1 && k->has_hi)
            fprintf(f, "%.0f to %.0f entries", k->lo, k->hi);
        else if (k->has_hi)
            fprintf(f, "at most %.0f entries", k->hi);
        break;
    case KT_STRING:
        if (k->flags & K_NONEMPTY)
            fputs("non-empty", f);
        if (k->has_hi)
            fprintf(f, "%sat most %.0f bytes", k->flags & K_NONEMPTY ? ", " : "", k->hi);
        break;
    case KT_ID:
        fputs("no whitespace or commas", f);
        if (k->has_hi)
            fprintf(f, ", at most %.0f bytes", k->hi);
        break;
    default:
        break;
    }
}

static void md_section(FILE *f, const struct section *sec, const char *path)
{
    fprintf(f, "### %s%s%s\n\n%s\n\n", path[0] ? "`" : "", path[0] ? path : sec->title,
            path[0] ? "`" : "", sec->doc);
    if (!sec->n_keys && !sec->also) {
        fputs("It takes no keys.\n\n", f);
        return;
    }
    fputs("| key | type | default | range | meaning |\n|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        fprintf(f, "| `%s` | ", k->name);
        md_type(f, k);
        fputs(" | ", f);
        if (k->def)
            fprintf(f, "`%s`", k->def[0] ? k->def : "\"\"");
        else if (k->flags & K_REQUIRED)
            fputs("required", f);
        else if (k->flags & K_OPTIONAL)
            fputs(k->def_doc ? k->def_doc : "unchanged", f);
        else if (k->def_doc)
            fputs(k->def_doc, f);
        else if (k->type == KT_MAP)
            fputs("see below", f);
        else
            fputs("—", f);
        fputs(" | ", f);
        md_range(f, k);
        fprintf(f, " | %s%s |\n", k->doc,
                k->flags & K_SYNTHETIC ? " Not with `trace`."
                : k->flags & K_NOT_CSV ? " Not with a `csv` trace." : "");
    }
    if (sec->also && sec->also_not)
        fprintf(f, "| any key of `%s` but `%s` | | the `%s` value | | this node's own value |\n",
                sec->also->title, sec->also_not, sec->also->title);
    else if (sec->also)
        fprintf(f, "| any key of `%s` | | the `%s` value | | this node's own value |\n",
                sec->also->title, sec->also->title);
    fputs("\n", f);
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        char sub[128];
        if (!k->sub)
            continue;
        snprintf(sub, sizeof sub, "%s%s%s%s", path, path[0] ? "." : "", k->name,
                 k->type == KT_LIST ? ".N" : "");
        md_section(f, k->sub, sub);
    }
}

void scenario_schema_markdown(FILE *f)
{
    md_section(f, &top_section, "");
}
