/*
 * yamltree.c — libyaml events to a tree of positioned nodes, and a small
 * block-style emitter.
 *
 * The parser pulls libyaml events and builds nodes recursively; the
 * recursion is bounded by YTREE_MAX_DEPTH, so a deeply nested input is an
 * error rather than a deep stack. It stops at the first problem: a libyaml
 * syntax error, an anchor, alias or tag, a non-scalar mapping key, a NUL
 * inside a scalar, or a second document. Every event taken from libyaml is
 * deleted on every path.
 *
 * A mapping keeps its entries in file order as a flat array
 * [key0, value0, key1, value1, ...]; duplicate keys are kept (the loader
 * reports them, with both positions). A mapping of YNODE_INDEX_MIN entries
 * or more also keeps an index from each key text to its first entry, so
 * finding a key (and so telling a duplicate) is O(1) expected and loading
 * a mapping of n keys is O(n), not O(n^2):
 *
 *   kids   [k0 v0 k1 v1 k2 v2 ...]          index  [0 3 0 1 0 0 2 0]
 *                                                     (entry + 1 by hash of
 *                                                      the key; 0 empty)
 *
 * The index is only looked up, never walked, so its order (a hash's) never
 * reaches anything the loader does.
 */
#include "sim/yamltree.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/placement/hash.h"

/* ---- nodes ------------------------------------------------------------- */

struct ynode *ynode_create(enum ynode_type type, int line, int col)
{
    struct ynode *n = xcalloc(1, sizeof(*n));
    n->type = type;
    n->line = line;
    n->col = col;
    return n;
}

struct ynode *ynode_create_scalar(const char *text, size_t len, bool plain, int line, int col)
{
    struct ynode *n = ynode_create(YNODE_SCALAR, line, col);
    n->text = xstrndup(text, len);
    n->len = len;
    n->plain = plain;
    return n;
}

void ynode_destroy(struct ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++)
        ynode_destroy(n->kids[i]);
    free(n->kids);
    free(n->index);
    free(n->text);
    free(n);
}

/* ---- the key index of a mapping -------------------------------------------- */

/* The slot of key in m's index: the one holding its first entry, or the
 * empty slot where that entry goes. */
static size_t index_slot(const struct ynode *m, const char *key)
{
    size_t mask = m->index_cap - 1, h = (size_t)fnv1a_64(key, strlen(key)) & mask;
    while (m->index[h] && strcmp(ynode_map_key(m, m->index[h] - 1)->text, key))
        h = (h + 1) & mask;
    return h;
}

/* Adds entry e (its key is in place); a key already indexed keeps its
 * first entry. */
static void index_add(struct ynode *m, size_t e)
{
    size_t h = index_slot(m, ynode_map_key(m, e)->text);
    if (!m->index[h])
        m->index[h] = (uint32_t)(e + 1);
}

/* (Re)builds the index for entries [0, entries), with room for twice as many. O(entries). */
static void index_build(struct ynode *m, size_t entries)
{
    free(m->index);
    m->index_cap = 4 * YNODE_INDEX_MIN;
    while (m->index_cap < 4 * entries)
        m->index_cap *= 2;
    m->index = xcalloc(m->index_cap, sizeof *m->index);
    for (size_t e = 0; e < entries; e++)
        index_add(m, e);
}

void ynode_append(struct ynode *coll, struct ynode *kid)
{
    if (coll->n == coll->cap) {
        coll->cap = coll->cap ? 2 * coll->cap : 8;
        coll->kids = xrealloc(coll->kids, coll->cap * sizeof(*coll->kids));
    }
    coll->kids[coll->n++] = kid;
    if (coll->type != YNODE_MAP || coll->n % 2 == 0)
        return; /* not a mapping's key */
    assert(kid->type == YNODE_SCALAR && kid->text); /* the parser refuses other keys */
    size_t entries = coll->n / 2 + 1; /* with this one */
    if (coll->n / 2 >= UINT32_MAX - 1)
        return; /* past what the index numbers: searched linearly (a 16 MiB file has fewer) */
    if (coll->index && 2 * entries < coll->index_cap)
        index_add(coll, entries - 1);
    else if (entries >= YNODE_INDEX_MIN)
        index_build(coll, entries);
}

void ynode_set_text(struct ynode *n, const char *text, bool plain)
{
    free(n->text);
    n->text = xstrdup(text);
    n->len = strlen(text);
    n->plain = plain;
}

void ynode_make_map(struct ynode *n)
{
    free(n->text);
    n->text = NULL;
    n->len = 0;
    n->type = YNODE_MAP;
}

bool ynode_is_null(const struct ynode *n)
{
    return n && n->type == YNODE_SCALAR && n->plain &&
           (!n->len || !strcmp(n->text, "~") || !strcmp(n->text, "null") ||
            !strcmp(n->text, "Null") || !strcmp(n->text, "NULL"));
}

size_t ynode_map_find(const struct ynode *m, const char *key)
{
    if (!m || m->type != YNODE_MAP)
        return SIZE_MAX;
    if (m->index && m->n / 2 < UINT32_MAX - 1) {
        uint32_t e = m->index[index_slot(m, key)];
        return e ? e - 1 : SIZE_MAX;
    }
    for (size_t i = 0; i < ynode_map_len(m); i++) /* a small mapping */
        if (!strcmp(ynode_map_key(m, i)->text, key))
            return i;
    return SIZE_MAX;
}

struct ynode *ynode_map_get_key(const struct ynode *m, const char *key)
{
    size_t e = ynode_map_find(m, key);
    return e == SIZE_MAX ? NULL : ynode_map_key(m, e);
}

struct ynode *ynode_map_get(const struct ynode *m, const char *key)
{
    size_t e = ynode_map_find(m, key);
    return e == SIZE_MAX ? NULL : ynode_map_value(m, e);
}

/* ---- parser ------------------------------------------------------------ */

struct yparser {
    yaml_parser_t p;
    const char *text;
    size_t len;
    struct ytree_error *err;
    int depth;
};

static int mark_line(yaml_mark_t m) { return (int)MIN(m.line, (size_t)1 << 30) + 1; }
static int mark_col(yaml_mark_t m) { return (int)MIN(m.column, (size_t)1 << 30) + 1; }

static void fail(struct yparser *P, int line, int col, const char *fmt, const char *arg)
{
    P->err->line = line;
    P->err->col = col;
    snprintf(P->err->msg, sizeof P->err->msg, fmt, arg);
}

static void fail_at(struct yparser *P, yaml_mark_t m, const char *fmt, const char *arg)
{
    fail(P, mark_line(m), mark_col(m), fmt, arg);
}

/* libyaml's own error, with its position. Reader errors (bad UTF-8, control
 * characters) carry a byte offset rather than a mark. */
static void fail_syntax(struct yparser *P)
{
    yaml_parser_t *p = &P->p;
    if (p->error == YAML_MEMORY_ERROR) {
        fail(P, 1, 1, "%s", "out of memory while parsing");
        return;
    }
    const char *problem = p->problem ? p->problem : "cannot parse";
    if (p->error == YAML_READER_ERROR) {
        int line = 1, col = 1;
        for (size_t i = 0; i < p->problem_offset && i < P->len; i++) {
            if (P->text[i] == '\n') {
                line++;
                col = 1;
            } else if (((unsigned char)P->text[i] & 0xc0) != 0x80) {
                col++;
            }
        }
        fail(P, line, col, "YAML syntax error: %s", problem);
        return;
    }
    char msg[240];
    if (p->context)
        snprintf(msg, sizeof msg, "%s (%s at line %d, column %d)", problem, p->context,
                 mark_line(p->context_mark), mark_col(p->context_mark));
    else
        snprintf(msg, sizeof msg, "%s", problem);
    /* libyaml's words for a tab where indentation goes say nothing of tabs */
    size_t at = p->problem_mark.index;
    if (at < P->len && P->text[at] == '\t' && !strstr(problem, "tab")) {
        size_t used = strlen(msg);
        snprintf(msg + used, sizeof msg - used, "; it is a tab: YAML indents with spaces only");
    }
    fail_at(P, p->problem_mark, "YAML syntax error: %s", msg);
}

static int next_event(struct yparser *P, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&P->p, ev)) {
        fail_syntax(P);
        return -1;
    }
    return 0;
}

/* Rejects what a scenario never needs: anchors, aliases and tags. */
static int check_plain_node(struct yparser *P, const yaml_event_t *ev)
{
    const yaml_char_t *anchor = NULL, *tag = NULL;
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        fail_at(P, ev->start_mark, "%s", "anchors and aliases are not supported (write the value out)");
        return -1;
    case YAML_SCALAR_EVENT:
        anchor = ev->data.scalar.anchor;
        tag = ev->data.scalar.tag;
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = ev->data.sequence_start.anchor;
        tag = ev->data.sequence_start.tag;
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = ev->data.mapping_start.anchor;
        tag = ev->data.mapping_start.tag;
        break;
    default:
        fail_at(P, ev->start_mark, "%s", "unexpected YAML structure");
        return -1;
    }
    if (anchor) {
        fail_at(P, ev->start_mark, "%s", "anchors and aliases are not supported (write the value out)");
        return -1;
    }
    if (tag) {
        fail_at(P, ev->start_mark, "tags are not supported (found %s)", (const char *)tag);
        return -1;
    }
    return 0;
}

/* Builds the node that starts with *ev (which it deletes); NULL on error. */
static struct ynode *parse_node(struct yparser *P, yaml_event_t *ev)
{
    struct ynode *n;
    yaml_event_type_t end;

    if (check_plain_node(P, ev)) {
        yaml_event_delete(ev);
        return NULL;
    }
    int line = mark_line(ev->start_mark), col = mark_col(ev->start_mark);
    if (ev->type == YAML_SCALAR_EVENT) {
        const char *v = (const char *)ev->data.scalar.value;
        size_t len = ev->data.scalar.length;
        if (memchr(v, '\0', len)) {
            yaml_event_delete(ev);
            fail(P, line, col, "%s", "NUL characters are not allowed in values");
            return NULL;
        }
        n = ynode_create_scalar(v, len, ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE, line, col);
        yaml_event_delete(ev);
        return n;
    }
    bool is_map = ev->type == YAML_MAPPING_START_EVENT;
    yaml_event_delete(ev);
    if (++P->depth > YTREE_MAX_DEPTH) {
        char msg[64];
        snprintf(msg, sizeof msg, "nesting deeper than %d levels", YTREE_MAX_DEPTH);
        fail(P, line, col, "%s", msg);
        return NULL;
    }
    n = ynode_create(is_map ? YNODE_MAP : YNODE_SEQ, line, col);
    end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    for (;;) {
        yaml_event_t kev;
        if (next_event(P, &kev))
            goto err;
        if (kev.type == end) {
            yaml_event_delete(&kev);
            break;
        }
        struct ynode *kid = parse_node(P, &kev);
        if (!kid)
            goto err;
        if (is_map && kid->type != YNODE_SCALAR) { /* before it joins the mapping's index */
            fail(P, kid->line, kid->col, "%s", "mapping keys must be plain words, not collections");
            ynode_destroy(kid);
            goto err;
        }
        ynode_append(n, kid);
        if (!is_map)
            continue;
        yaml_event_t vev;
        if (next_event(P, &vev))
            goto err;
        struct ynode *val = parse_node(P, &vev);
        if (!val)
            goto err;
        ynode_append(n, val);
    }
    P->depth--;
    return n;
err:
    ynode_destroy(n);
    return NULL;
}

int ytree_parse(const char *text, size_t len, struct ynode **root, struct ytree_error *err)
{
    struct yparser P = {.text = text, .len = len, .err = err};
    struct ynode *doc = NULL;
    yaml_event_t ev;
    int rc = -1;

    *root = NULL;
    memset(err, 0, sizeof(*err));
    if (!yaml_parser_initialize(&P.p)) {
        fail(&P, 1, 1, "%s", "out of memory while parsing");
        return -1;
    }
    yaml_parser_set_input_string(&P.p, (const unsigned char *)text, len);

    if (next_event(&P, &ev)) /* STREAM-START */
        goto out;
    yaml_event_delete(&ev);
    if (next_event(&P, &ev))
        goto out;
    if (ev.type == YAML_STREAM_END_EVENT) { /* no document at all */
        yaml_event_delete(&ev);
        rc = 0;
        goto out;
    }
    yaml_event_delete(&ev); /* DOCUMENT-START */
    if (next_event(&P, &ev))
        goto out;
    doc = parse_node(&P, &ev);
    if (!doc)
        goto out;
    if (next_event(&P, &ev)) /* DOCUMENT-END */
        goto out;
    yaml_event_delete(&ev);
    if (next_event(&P, &ev))
        goto out;
    if (ev.type == YAML_DOCUMENT_START_EVENT) {
        fail_at(&P, ev.start_mark, "%s",
                "more than one YAML document (a scenario is exactly one document)");
        yaml_event_delete(&ev);
        goto out;
    }
    yaml_event_delete(&ev); /* STREAM-END */
    *root = doc;
    doc = NULL;
    rc = 0;
out:
    ynode_destroy(doc);
    yaml_parser_delete(&P.p);
    return rc;
}

/* ---- emitter ----------------------------------------------------------- */

static int write_handler(void *data, unsigned char *buf, size_t size)
{
    sb_add(data, (const char *)buf, size);
    return 1;
}

static void emit(struct yemitter *y, yaml_event_t *ev)
{
    if (y->failed) {
        yaml_event_delete(ev);
        return;
    }
    if (!yaml_emitter_emit(&y->e, ev)) {
        y->failed = true;
        snprintf(y->problem, sizeof y->problem, "%s",
                 y->e.problem ? y->e.problem : "cannot write YAML");
    }
}

void yemit_begin(struct yemitter *y, struct strbuf *out)
{
    yaml_event_t ev;
    memset(y, 0, sizeof(*y));
    y->out = out;
    if (!yaml_emitter_initialize(&y->e)) {
        y->failed = true;
        snprintf(y->problem, sizeof y->problem, "out of memory");
        return;
    }
    yaml_emitter_set_output(&y->e, write_handler, out);
    yaml_emitter_set_unicode(&y->e, 1);
    yaml_emitter_set_width(&y->e, -1);
    yaml_emitter_set_indent(&y->e, 2);
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    emit(y, &ev);
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    emit(y, &ev);
}

void yemit_map_begin(struct yemitter *y)
{
    yaml_event_t ev;
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    emit(y, &ev);
}

void yemit_map_end(struct yemitter *y)
{
    yaml_event_t ev;
    yaml_mapping_end_event_initialize(&ev);
    emit(y, &ev);
}

void yemit_seq_begin(struct yemitter *y, bool flow)
{
    yaml_event_t ev;
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                         flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
    emit(y, &ev);
}

void yemit_seq_end(struct yemitter *y)
{
    yaml_event_t ev;
    yaml_sequence_end_event_initialize(&ev);
    emit(y, &ev);
}

void yemit_scalar(struct yemitter *y, const char *s, bool plain)
{
    yaml_event_t ev;
    yaml_scalar_style_t style = plain ? YAML_PLAIN_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;
    if (!plain)
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
            if (*p < 0x20 || *p == 0x7f)
                style = YAML_DOUBLE_QUOTED_SCALAR_STYLE; /* escapes read back exactly */
    /* a string that plain would read back as a YAML null (ynode_is_null) */
    if (!plain && *s
        && (!strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL")))
        style = YAML_SINGLE_QUOTED_SCALAR_STYLE;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                                      style)) {
        y->failed = true;
        snprintf(y->problem, sizeof y->problem, "out of memory");
        return;
    }
    emit(y, &ev);
}

int yemit_end(struct yemitter *y)
{
    yaml_event_t ev;
    yaml_document_end_event_initialize(&ev, 1);
    emit(y, &ev);
    yaml_stream_end_event_initialize(&ev);
    emit(y, &ev);
    yaml_emitter_delete(&y->e);
    return y->failed ? -1 : 0;
}
