/*
 * scenario_emit.c — the effective YAML: the scenario after --set and
 * defaults, written from the struct by the schema tables, so a run can be
 * replayed from the database alone.
 *
 * Invariants: every key of every section is written (but K_OMIT_ZERO keys
 * that are zero, which mean "absent", and the synthetic workload's keys
 * when a trace replaces them); a node or add_node event writes only
 * the cache keys that differ from the `cache` defaults; events are written
 * in the file's order (events.N is the same entry in both), and loading them
 * sorts them by time as it did the file's; loading the emitted text gives the
 * same scenario (tests/unit/test_scenario.c checks the round trip).
 */
#include <stdio.h>
#include <string.h>

#include "sim/scenario_internal.h"

/* ---- effective YAML ------------------------------------------------------ */

static void emit_section(struct yemitter *y, const struct section *sec, const void *obj,
                         const struct scenario *s);

static void emit_scalar_field(struct yemitter *y, const struct key *k, const void *field)
{
    char buf[512];
    if (k->type == KT_SLOTS && !((const struct slot_sel *)field)->count) { /* [first, last] */
        const struct slot_sel *sel = field;
        yemit_seq_begin(y, true);
        snprintf(buf, sizeof buf, "%u", sel->first);
        yemit_scalar(y, buf, true);
        snprintf(buf, sizeof buf, "%u", sel->last);
        yemit_scalar(y, buf, true);
        yemit_seq_end(y);
        return;
    }
    if (k->type == KT_STRING || k->type == KT_ID) {
        const char *str = *(char *const *)field;
        yemit_scalar(y, str ? str : "", false);
        return;
    }
    format_field(k, field, buf, sizeof buf);
    yemit_scalar(y, buf, true);
}

/* The cache keys of a node (or add_node) that differ from the defaults. */
static void emit_cache_overrides(struct yemitter *y, const struct cache_cfg *c,
                                 const struct cache_cfg *def)
{
    for (size_t i = 0; i < cache_section.n_keys; i++) {
        const struct key *k = &cache_section.keys[i];
        const char *f = (const char *)c + k->offset, *g = (const char *)def + k->offset;
        if (!memcmp(f, g, k->size) || ((k->flags & K_OMIT_ZERO) && field_is_zero(k, f)))
            continue;
        yemit_scalar(y, k->name, true);
        emit_scalar_field(y, k, f);
    }
}

/* A K_SCALAR_FORM mapping is written as its first key's value when every
 * other key is zero (`set_qps: 20000`, as it was before ramps). */
static bool scalar_form(const struct section *sec, const void *obj)
{
    for (size_t i = 1; i < sec->n_keys; i++)
        if (!field_is_zero(&sec->keys[i], (const char *)obj + sec->keys[i].offset))
            return false;
    return true;
}

static void emit_event(struct yemitter *y, const struct event_cfg *ev, const struct scenario *s)
{
    const struct key *kk = event_kind_key(ev->kind);
    yemit_map_begin(y);
    yemit_scalar(y, "at", true);
    emit_scalar_field(y, &event_keys[0], &ev->at_ns);
    yemit_scalar(y, kk->name, true);
    if (kk->type == KT_MAP && (kk->flags & K_SCALAR_FORM) && scalar_form(kk->sub, ev))
        emit_scalar_field(y, &kk->sub->keys[0], (const char *)ev + kk->sub->keys[0].offset);
    else if (kk->type == KT_MAP)
        emit_section(y, kk->sub, ev, s);
    else
        emit_scalar_field(y, kk, (const char *)ev + kk->offset);
    yemit_map_end(y);
}

static int by_file_index(const void *a, const void *b)
{
    const struct event_cfg *ea = *(const struct event_cfg *const *)a;
    const struct event_cfg *eb = *(const struct event_cfg *const *)b;
    if (ea->file_index != eb->file_index)
        return ea->file_index < eb->file_index ? -1 : 1;
    return (ea > eb) - (ea < eb); /* one array: the time order */
}

/* The events in the order the file gave them, so that `events.N` (of
 * --set, params and report --by) names the same entry in the effective YAML
 * as in the file; loading it sorts them by time again, as it did the file.
 * Equal indexes (a scenario built in code, not loaded) keep their time
 * order, so the result never depends on qsort's. */
static void emit_events(struct yemitter *y, const struct event_cfg *ev, size_t n,
                        const struct scenario *s)
{
    const struct event_cfg **in_file = xcalloc(n ? n : 1, sizeof *in_file);
    for (size_t i = 0; i < n; i++)
        in_file[i] = &ev[i];
    qsort(in_file, n, sizeof *in_file, by_file_index);
    for (size_t i = 0; i < n; i++)
        emit_event(y, in_file[i], s);
    free(in_file);
}

static void emit_list(struct yemitter *y, const struct key *k, const void *obj,
                      const struct scenario *s)
{
    const char *arr = *(char *const *)((const char *)obj + k->offset);
    size_t n = *(const size_t *)((const char *)obj + k->count_offset);
    size_t elem = k->sub ? k->sub->size : k->item->size;
    yemit_seq_begin(y, !k->sub);
    if (k->sub == &event_section) {
        emit_events(y, (const struct event_cfg *)(const void *)arr, n, s);
        yemit_seq_end(y);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *e = arr + i * elem;
        if (k->sub)
            emit_section(y, k->sub, e, s);
        else
            emit_scalar_field(y, k->item, e + k->item->offset);
    }
    yemit_seq_end(y);
}

static void emit_section(struct yemitter *y, const struct section *sec, const void *obj,
                         const struct scenario *s)
{
    yemit_map_begin(y);
    for (size_t i = 0; i < sec->n_keys; i++) {
        const struct key *k = &sec->keys[i];
        const char *field = (const char *)obj + k->offset;
        if ((k->flags & K_OMIT_ZERO) && field_is_zero(k, field))
            continue;
        if ((k->flags & K_OPTIONAL) && !*(const bool *)((const char *)obj + k->present_offset))
            continue;
        if ((k->flags & K_OMIT_ONE) && k->type == KT_UINT && get_uint(k, field) == 1)
            continue;
        if ((k->flags & (K_SYNTHETIC | K_NOT_CSV)) && !workload_key_applies(&s->workload, k))
            continue; /* a workload key that a trace replaces */
        yemit_scalar(y, k->name, true);
        if (k->type == KT_MAP)
            emit_section(y, k->sub, field, s);
        else if (k->type == KT_LIST)
            emit_list(y, k, obj, s);
        else
            emit_scalar_field(y, k, field);
    }
    if (sec->also)
        emit_cache_overrides(y, (const struct cache_cfg *)((const char *)obj + sec->also_offset),
                             &s->cache);
    yemit_map_end(y);
}

int emit_scenario(struct scenario *s, char *problem, size_t n)
{
    struct strbuf sb;
    struct yemitter y;
    sb_init(&sb);
    yemit_begin(&y, &sb);
    emit_section(&y, &top_section, s, s);
    if (yemit_end(&y)) {
        snprintf(problem, n, "%s", y.problem);
        sb_deinit(&sb);
        return -1;
    }
    s->effective_yaml = sb_steal(&sb);
    return 0;
}
