/*
 * scenario_internal.h — what the files of the scenario loader share, and
 * nothing outside them needs (the public interface is sim/scenario.h).
 *
 * The loader is one pipeline split by job:
 *
 *   scenario_load.c    load entry points: read the file, run the pipeline,
 *                      sort and hand over the errors, destroy
 *   scenario_set.c     --set: parse PATH=VALUE, apply it to the tree
 *   scenario_schema.c  the schema: one table per section (struct section of
 *                      struct key), enum names, single-field checks, and the
 *                      per-mapping hooks (capacity, one event per entry)
 *   scenario_bind.c    the generic table binder: defaults, setters, ranges,
 *                      unknown keys, mappings and lists
 *   scenario_report.c  the error collector: positions, paths, "got ..."
 *   scenario_check.c   the cross-checks after binding (times, nodes, hot keys,
 *                      events, health)
 *   scenario_members.c the membership timeline, and the placement library's
 *                      checks on the routing section and every membership
 *   scenario_emit.c    the effective YAML, written from the struct by table
 *   scenario_doc.c     the schema reference in Markdown, from the same tables
 *
 *   text --ytree_parse--> tree --apply_override--> tree --bind_map--> struct
 *        --finish--> cross-checked, events in time order --emit_scenario--> YAML
 *
 * Invariant shared by every file: an error is recorded with report() (or
 * report_path()), never printed, and loading goes on; a field whose value
 * was rejected is marked with mark_bad() and good() lets later checks skip
 * it, so one mistake gives one message.
 */
#ifndef RINGSIM_SCENARIO_INTERNAL_H
#define RINGSIM_SCENARIO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/scenario.h"
#include "sim/u64map.h"
#include "sim/util.h"
#include "sim/yamltree.h"

#define MAX_TICKS       10000000   /* duration / tick */
#define MAX_NODES       10000      /* entries of nodes */
#define MAX_EVENTS      10000      /* entries of events */
#define MAX_INSTANCES   4096       /* client instances */
#define SHARE_EPS       1e-9       /* slack when summing hot key shares */
#define MAX_ERRORS      100        /* reported (the first by position); the rest are counted */
/* Free text that reaches file names, rows and hashes is bounded (bytes). */
#define MAX_NAME_BYTES  100        /* name: results/<name>.db stays a short file name */
#define MAX_DESCRIPTION_BYTES 10000
#define MAX_ID_BYTES    255        /* node ids and addresses (a DNS name is at most 253) */
/* Every duration is at most 300000h (about 34 years, 1.08e18 ns, below 2^60):
 * a single value is far from the clock's range (2^63 ns), and what values
 * add up to is the run cost estimate's to judge (sim/estimate.h). A key's
 * own upper bound, if lower, applies instead. */
#define MAX_DURATION_NS (300000LL * 3600 * NS_PER_S)

/* ---- the loader's context ----------------------------------------------- */

struct err {
    int line, col; /* --set errors: line 0, col = the override's index */
    size_t seq;
    char *msg;
};

struct loader {
    const char *file;    /* for messages */
    struct scenario *s;
    struct ynode *root;
    struct strbuf path;  /* dotted path of what is being bound */
    size_t n_errs;       /* errors reported so far */
    struct err *errs;    /* the first of them by position: at least the first
                            MAX_ERRORS, at most 2 × MAX_ERRORS kept */
    size_t n_kept;
    struct u64map bad;   /* fields whose value was rejected or is missing (by address) */
};

/* ---- schema tables ------------------------------------------------------- */

enum ktype { KT_STRING, KT_ID, KT_UINT, KT_NUMBER, KT_DURATION, KT_SIZE, KT_BOOL, KT_ENUM,
             KT_MAP, KT_LIST,
             KT_SLOTS /* a struct slot_sel: a number of slots N, or [first, last] */ };

#define K_REQUIRED  0x01u  /* no default: must be given */
#define K_NONEMPTY  0x02u  /* strings: not "" */
#define K_OMIT_ZERO 0x04u  /* emitted only when not zero (0 means "absent"); a mapping:
                              when its first key is zero */
#define K_OMIT_ONE  0x10u  /* an integer emitted only when it is not 1 (its default) */
#define K_OPTIONAL  0x08u  /* no default: given or not (present_offset's bool says which);
                              emitted only when given */
#define K_SCALAR_FORM 0x10u /* a mapping that may be written as a single value: the value of
                               its first key (emitted so when the other keys are zero) */
#define K_SYNTHETIC 0x20u  /* a workload key of the synthetic requests: refused, and not
                              emitted, with workload.trace */
#define K_NOT_CSV   0x40u  /* a workload key refused, and not emitted, with a csv trace */

struct section;

struct key {
    const char *name;
    enum ktype type;
    size_t offset, size;        /* of the field in the section's struct */
    size_t count_offset;        /* KT_LIST: the size_t that holds the count */
    size_t present_offset;      /* K_OPTIONAL: the bool set when the key is given */
    const char *def;            /* the default as YAML text; NULL if none */
    const char *def_doc;        /* the default as the docs show it when def is NULL */
    double lo, hi;              /* range; lists: number of entries; strings: bytes (hi);
                                   durations: hi is at most MAX_DURATION_NS, given or not */
    bool lo_open, hi_open, has_hi;
    unsigned flags;
    const char *const *names;   /* KT_ENUM: the names, by enum value, NULL-terminated */
    const struct section *sub;  /* KT_MAP, and KT_LIST of mappings */
    const struct key *item;     /* KT_LIST of scalars */
    /* Extra validation after the setter: NULL or what was expected. */
    const char *(*check)(const void *field, char *buf, size_t n);
    const char *range_doc;      /* the range column of the docs, when not generated */
    const char *doc;
};

typedef void (*post_fn)(struct loader *L, const struct ynode *map, void *obj);

struct section {
    const char *title;           /* for the docs */
    const struct key *keys;
    size_t n_keys;
    size_t size;                 /* of the struct (list elements) */
    void (*init)(void *obj);     /* a fresh list element, before defaults */
    const struct section *also;  /* a second table whose keys are allowed too */
    size_t also_offset;          /*   ... binding into obj + also_offset */
    const char *also_not;        /*   ... but for this key of it (NULL: none), */
    const char *also_not_why;    /*   ... refused for this reason */
    post_fn post;                /* after binding one mapping */
    const char *doc;
};

#define F(st, m) .offset = offsetof(st, m), .size = sizeof(((st *)0)->m)
#define AT_LEAST(x)        .lo = (x)
#define ABOVE(x)           .lo = (x), .lo_open = true
#define BETWEEN(a, b)      .lo = (a), .hi = (b), .has_hi = true
#define ABOVE_UPTO(a, b)   .lo = (a), .lo_open = true, .hi = (b), .has_hi = true
#define FROM_BELOW(a, b)   .lo = (a), .hi = (b), .has_hi = true, .hi_open = true
#define MAX_BYTES(n)       .hi = (n), .has_hi = true
#define SECTION(t, keys_, st) .title = (t), .keys = (keys_), .n_keys = ARRAY_LEN(keys_), \
                              .size = sizeof(st)

/* scenario_schema.c: the tables */
extern const struct section top_section, cache_section, event_section;
extern const struct key event_keys[]; /* [0] is `at`, then one per event kind */
/* The event_keys entry of each kind (the order of EVENT_CODEC). */
const struct key *event_kind_key(enum event_kind k);
/* Whether key k of the workload section applies to w (K_SYNTHETIC keys do
 * not with a trace, K_NOT_CSV keys not with a csv trace). */
bool workload_key_applies(const struct workload_cfg *w, const struct key *k);
/* Why a key or event that does not apply with a trace is refused (for messages). */
const char *trace_refusal(const struct workload_cfg *w, const struct key *k);

/* ---- scenario_report.c: the error collector ------------------------------ */

/* Orders errors by position (line, column), then as reported. */
int err_cmp(const void *a, const void *b);
/* The option an override's argument came from ("--set", "--vary"), for
 * messages; arg is a node's `set`. */
const char *set_flag(const struct loader *L, const char *arg);
/* An error about node `at` (its position, or its --set argument). */
/* capacity and capacity_items of a cache section (map): one or the other, a
 * --set one replacing the file's (scenario_check.c). */
void check_capacity(struct loader *L, const struct ynode *map, struct cache_cfg *c);
void report(struct loader *L, const struct ynode *at, const char *path, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
/* Reports at the value of `path` when the file (or --set) gave it, else at
 * the mapping that would hold it. */
void report_path(struct loader *L, const char *path, const char *fmt, ...) PRINTF_LIKE(3, 4);
void mark_bad(struct loader *L, const void *field);
bool good(const struct loader *L, const void *field);
/* The dotted path of what is being bound: push returns what pop restores. */
size_t path_push(struct loader *L, const char *key);
size_t path_push_index(struct loader *L, size_t i);
void path_pop(struct loader *L, size_t old);
/* What a value was, for "got ...": a scalar quoted and escaped (at most
 * about 80 bytes of it, cut between characters), or the kind of collection. */
void describe(const struct ynode *v, char *buf, size_t n);
/* The node at a dotted path of the tree ("events.3.add_node.id"), or NULL. */
struct ynode *tree_at(const struct ynode *root, const char *path);
/* `got "..."` for the value at path, or the value in effect when absent. */
void got_at(const struct loader *L, const char *path, const char *effective, char *buf,
            size_t n);
/* The value at path a if given, else at path b (else the top mapping). */
const struct ynode *value_or(const struct loader *L, const char *a, const char *b);

/* ---- scenario_bind.c: the table binder ------------------------------------ */

/* Shortest text that reads back as exactly v; plain decimals when short. */
void format_number(double v, char *buf, size_t n);
/* The text of a scalar field, as the effective YAML writes it. */
void format_field(const struct key *k, const void *f, char *buf, size_t n);
/* An integer field of any width. */
uint64_t get_uint(const struct key *k, const void *f);
bool field_is_zero(const struct key *k, const void *f);
/* "> 0", ">= 1", "1 to 1024", "> 0 and <= 10"; doc: with ≥ and ≤. */
void range_text(const struct key *k, bool doc, char *buf, size_t n);
void names_list(const char *const *names, const char *sep, const char *quote,
                struct strbuf *sb);
/* Every key of sec with a default gets it (mappings recursively). */
void apply_defaults(const struct section *sec, void *obj);
void release_section(const struct section *sec, void *obj);
/* Binds one mapping through a section table. A YAML null stands for an empty
 * mapping (a section written with everything commented out). */
void bind_map(struct loader *L, const struct section *sec, const struct ynode *map, void *obj);

/* ---- the other steps ------------------------------------------------------ */

/* scenario_check.c: cross-checks after binding, then puts the events in time order. */
void finish(struct loader *L);

/* An event in time order: its time and its index in file order. */
struct ev_ref {
    int64_t at;
    size_t idx;
};

/* scenario_members.c: walks the events (in time order) over the membership,
 * checking each event's target at its moment, then runs the placement
 * library's checks on the routing parameters and on every membership the
 * run will build a placement for (only when nodes_ok: no error about the
 * nodes was reported). */
void check_membership(struct loader *L, const struct ev_ref *order, size_t n, bool nodes_ok);
/* scenario_set.c: applies one --set to the tree. */
void apply_override(struct loader *L, const struct override *o);
/* scenario_load.c: what a file that is not a regular file is ("a directory"). */
const char *file_kind(unsigned mode);
/* scenario_emit.c: writes s->effective_yaml. Returns 0, or -1 with the emitter's problem. */
int emit_scenario(struct scenario *s, char *problem, size_t n);

#endif
