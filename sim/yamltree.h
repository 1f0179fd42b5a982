/*
 * yamltree.h — one YAML document as a small tree of nodes that remember
 * where they came from, and a block-style emitter; both over libyaml.
 *
 * The loader reads a scenario into this tree, applies --set overrides to
 * it (creating or replacing nodes, marked with the argument that made
 * them), then binds the tree to the schema. Keeping positions on every node
 * is what lets every error name file:line:col.
 *
 *   text --ytree_parse--> ynode tree --(overrides, bind)--> struct scenario
 *   struct scenario --yemit_*--> YAML text
 *
 * Only what a scenario needs is supported: scalars, sequences and mappings
 * with scalar keys; anchors, aliases, tags and multiple documents are
 * rejected with an error. Nesting is bounded (YTREE_MAX_DEPTH).
 */
#ifndef RINGSIM_YAMLTREE_H
#define RINGSIM_YAMLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "sim/util.h"

#define YTREE_MAX_DEPTH 32

enum ynode_type { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
    enum ynode_type type;
    int line, col;        /* 1-based start of the node in the text; 0 if made by --set */
    const char *set;      /* the --set argument that made or replaced it, or NULL */
    char *text;           /* scalar: the value, NUL-terminated (never holds a NUL) */
    size_t len;
    bool plain;           /* scalar: written without quotes or block indicators */
    struct ynode **kids;  /* sequence: items; mapping: key, value, key, value, ... */
    size_t n, cap;
    /* mapping of YNODE_INDEX_MIN entries or more: the first entry of each
     * key text, by hash (open addressing, linear probing; entry + 1, 0 is
     * empty; index_cap a power of two, more than twice the entries) */
    uint32_t *index;
    size_t index_cap;
};

/* Mappings with fewer entries are searched linearly. */
#define YNODE_INDEX_MIN 8

struct ynode *ynode_create(enum ynode_type type, int line, int col);
struct ynode *ynode_create_scalar(const char *text, size_t len, bool plain, int line, int col);
void ynode_destroy(struct ynode *n);   /* the node and everything under it; NULL is fine */
/* Appends an item to a sequence, or a key then its value to a mapping (a
 * mapping's key must be a scalar, whose text is not changed afterwards: the
 * mapping's index holds it). O(1) amortized. */
void ynode_append(struct ynode *coll, struct ynode *kid);
/* Replaces a scalar's text. */
void ynode_set_text(struct ynode *n, const char *text, bool plain);
/* Turns a scalar (a YAML null) into an empty mapping in place. */
void ynode_make_map(struct ynode *n);

/* A YAML null: a plain scalar that is empty, "~" or "null". */
bool ynode_is_null(const struct ynode *n);
static inline size_t ynode_map_len(const struct ynode *m) { return m->n / 2; }
static inline struct ynode *ynode_map_key(const struct ynode *m, size_t i) { return m->kids[2 * i]; }
static inline struct ynode *ynode_map_value(const struct ynode *m, size_t i) { return m->kids[2 * i + 1]; }
/* The index of the first entry with this key, or SIZE_MAX (also when m is
 * NULL or not a mapping). O(1) expected, whatever the mapping's size. */
size_t ynode_map_find(const struct ynode *m, const char *key);
/* The value of the first entry with this key, or NULL (also when m is NULL or not a mapping). */
struct ynode *ynode_map_get(const struct ynode *m, const char *key);
/* The key node of the first entry with this key, or NULL. */
struct ynode *ynode_map_get_key(const struct ynode *m, const char *key);

/* What went wrong while parsing; line/col are 1-based. */
struct ytree_error {
    int line, col;
    char msg[320];
};

/* Parses text (len bytes; need not be NUL-terminated) as one YAML document.
 * Returns 0 and sets *root (NULL for a stream with no document, such as an
 * empty file or only comments), or -1 and fills err. Caller destroys *root. */
int ytree_parse(const char *text, size_t len, struct ynode **root, struct ytree_error *err);

/* A block-style emitter writing into a strbuf. Calls after a failure are
 * ignored; yemit_end reports it. */
struct yemitter {
    yaml_emitter_t e;
    struct strbuf *out;
    bool failed;
    char problem[128];
};
void yemit_begin(struct yemitter *y, struct strbuf *out);
void yemit_map_begin(struct yemitter *y);
void yemit_map_end(struct yemitter *y);
void yemit_seq_begin(struct yemitter *y, bool flow);
void yemit_seq_end(struct yemitter *y);
/* plain: written as a plain scalar (numbers, booleans, units, keys); else the
 * emitter picks a style that reads back as the same string. */
void yemit_scalar(struct yemitter *y, const char *s, bool plain);
/* Finishes the document; returns 0, or -1 with y->problem set. Frees the emitter. */
int yemit_end(struct yemitter *y);

#endif
