/*
 * scenario_check.c — the cross-checks that run after binding, on the whole
 * scenario: times against duration, node ids and addresses, the events
 * (times, instances), the membership they walk through and the placements
 * it needs (scenario_members.c), hot key shares over time, the gutter pool
 * and health; then the events are put in time order.
 *
 * Invariants of a scenario that passes (with binding): node ids are unique;
 * exactly one of capacity_bytes and capacity_items is non-zero in every
 * cache_cfg; events are sorted by time (stable) and every event's target
 * exists in the membership at that moment; hot key shares never sum above
 * 1. A check skips fields marked bad by binding (good()), so one mistake
 * gives one message. Nothing here keeps state between calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/scenario_internal.h"

/* ---- whole-scenario checks ------------------------------------------------ */

/* capacity and capacity_items: one or the other. When the file gives one
 * and --set the other, the --set one wins. */
void check_capacity(struct loader *L, const struct ynode *map, struct cache_cfg *c)
{
    const struct ynode *vb = ynode_map_get(map, "capacity");
    const struct ynode *vi = ynode_map_get(map, "capacity_items");
    if (vb && vi) {
        if (vi->set && !vb->set) {
            c->capacity_bytes = 0;
        } else if (vb->set && !vi->set) {
            c->capacity_items = 0;
        } else {
            /* both from the file, or both from --set: each named where it
             * came from (a --set one by its argument, not by the file's line) */
            size_t old = path_push(L, "capacity_items");
            char where[300];
            if (vb->set)
                snprintf(where, sizeof where, "given by --set %.250s", vb->set);
            else
                snprintf(where, sizeof where, "at line %d", vb->line);
            report(L, vi->set ? vi : ynode_map_get_key(map, "capacity_items"), L->path.buf,
                   "give capacity or capacity_items, not both (capacity is %s)", where);
            path_pop(L, old);
            mark_bad(L, &c->capacity_items);
        }
    } else if (vi) {
        c->capacity_bytes = 0;
    }
}

/* Fills unset cache keys of a node (or add_node) from the defaults. */
static void merge_cache(const struct ynode *map, struct cache_cfg *c, const struct cache_cfg *def)
{
    bool own_capacity = ynode_map_get(map, "capacity") || ynode_map_get(map, "capacity_items");
    for (size_t i = 0; i < cache_section.n_keys; i++) {
        const struct key *k = &cache_section.keys[i];
        bool is_capacity = !strncmp(k->name, "capacity", 8);
        if (is_capacity ? own_capacity : ynode_map_get(map, k->name) != NULL)
            continue;
        memcpy((char *)c + k->offset, (const char *)def + k->offset, k->size);
    }
}

static void check_times(struct loader *L)
{
    struct scenario *s = L->s;
    char d[32], t[32], got[160];
    if (!good(L, &s->duration_ns))
        return;
    format_duration(s->duration_ns, d, sizeof d);
    if (good(L, &s->tick_ns)) {
        format_duration(s->tick_ns, t, sizeof t);
        got_at(L, "tick", t, got, sizeof got);
        if (s->tick_ns > s->duration_ns)
            report(L, value_or(L, "tick", "duration"), "tick",
                   "expected a tick > 0 and <= duration (%s), got %s", d, got);
        else if ((s->duration_ns - 1) / s->tick_ns + 1 > MAX_TICKS)
            report(L, value_or(L, "tick", "duration"), "tick",
                   "expected a tick of at least duration / %d (%s would have more ticks), "
                   "got %s", MAX_TICKS, d, got);
    }
    if (good(L, &s->warmup_ns) && s->warmup_ns >= s->duration_ns) {
        format_duration(s->warmup_ns, t, sizeof t);
        got_at(L, "warmup", t, got, sizeof got);
        report(L, value_or(L, "warmup", "duration"), "warmup",
               "expected a warmup >= 0 and < duration (%s), got %s", d, got);
    }
}

static void check_hot_keys_file(struct loader *L)
{
    const struct workload_cfg *w = &L->s->workload;
    double sum = 0;
    char path[64];
    if (!good(L, &w->hot_keys))
        return;
    for (size_t i = 0; i < w->n_hot_keys; i++) {
        if (!w->hot_keys[i].key)
            continue;
        sum += w->hot_keys[i].share;
        for (size_t j = 0; j < i; j++) {
            if (w->hot_keys[j].key && !strcmp(w->hot_keys[i].key, w->hot_keys[j].key)) {
                snprintf(path, sizeof path, "workload.hot_keys.%zu", j);
                const struct ynode *first = tree_at(L->root, path);
                snprintf(path, sizeof path, "workload.hot_keys.%zu.key", i);
                report_path(L, path, "duplicate hot key \"%s\" (first at line %d)",
                            w->hot_keys[i].key, first ? first->line : 0);
                break;
            }
        }
    }
    if (sum > 1 + SHARE_EPS) {
        char num[40]; /* 12 digits: the sum of decimals, not its binary rounding */
        snprintf(num, sizeof num, "%.12g", sum);
        report_path(L, "workload.hot_keys", "expected shares that sum to at most 1, got %s",
                    num);
    }
}

static void check_nodes(struct loader *L)
{
    struct scenario *s = L->s;
    char path[64];
    for (size_t i = 0; i < s->n_nodes; i++) {
        struct node_cfg *nd = &s->nodes[i];
        snprintf(path, sizeof path, "nodes.%zu", i);
        const struct ynode *map = tree_at(L->root, path);
        if (!map)
            continue;
        nd->pos = (struct src_pos){map->line, map->col, map->set};
        merge_cache(map, &nd->cache, &s->cache);
        if (!nd->id)
            continue;
        if (!nd->address)
            nd->address = xstrdup(nd->id);
        for (size_t j = 0; j < i; j++) {
            if (s->nodes[j].id && !strcmp(s->nodes[j].id, nd->id)) {
                /* the first may be a --set's value, whose place is its argument */
                snprintf(path, sizeof path, "nodes.%zu.id", j);
                const struct ynode *first = tree_at(L->root, path);
                char where[160];
                if (first && first->set)
                    snprintf(where, sizeof where, "first as nodes.%zu.id, by %s %.100s", j,
                             set_flag(L, first->set), first->set);
                else
                    snprintf(where, sizeof where, "first at line %d",
                             first && first->line ? first->line : s->nodes[j].pos.line);
                snprintf(path, sizeof path, "nodes.%zu.id", i);
                report_path(L, path, "duplicate node id \"%s\" (%s)", nd->id, where);
                break;
            }
            if (s->routing.node_key_address && s->nodes[j].address &&
                !strcmp(s->nodes[j].address, nd->address)) {
                snprintf(path, sizeof path, "nodes.%zu.address", i);
                report_path(L, path,
                            "address \"%s\" is also node %s's (with node_key: address, "
                            "addresses must be unique)", nd->address, s->nodes[j].id);
                break;
            }
        }
    }
}

static int ev_ref_cmp(const void *a, const void *b)
{
    const struct ev_ref *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool event_ok(const struct loader *L, const struct event_cfg *ev)
{
    return ev->kind != EV_KIND_COUNT && good(L, &ev->at_ns);
}

/* At every moment, the file's hot key shares with the active hot_key events
 * (the latest one for a key replaces its share) sum to at most 1. The sum
 * changes only when an event starts or ends, so those moments are checked:
 * O(H^2) for H hot_key events. */
static void check_hot_timeline(struct loader *L, const struct ev_ref *order, size_t n)
{
    struct scenario *s = L->s;
    const struct workload_cfg *w = &s->workload;
    size_t h = 0;
    double file_sum = 0;
    if (!good(L, &w->hot_keys))
        return;
    for (size_t i = 0; i < w->n_hot_keys; i++)
        if (w->hot_keys[i].key)
            file_sum += w->hot_keys[i].share;
    if (file_sum > 1 + SHARE_EPS)
        return; /* reported already */

    struct hot {
        size_t idx;
        int64_t start, end; /* end: INT64_MAX = to the end */
        size_t key_id;
        double share, file_share;
    } *hv = xcalloc(n ? n : 1, sizeof(*hv));
    for (size_t r = 0; r < n; r++) {
        const struct event_cfg *ev = &s->events[order[r].idx];
        if (ev->kind != EV_HOT_KEY || !ev->key || !good(L, &ev->share) || !good(L, &ev->for_ns))
            continue;
        struct hot *x = &hv[h];
        x->idx = order[r].idx;
        x->start = ev->at_ns;
        x->end = ev->for_ns && ev->for_ns <= INT64_MAX - ev->at_ns ? ev->at_ns + ev->for_ns
                                                                  : INT64_MAX;
        x->share = ev->share;
        x->key_id = h;
        for (size_t j = 0; j < h; j++)
            if (!strcmp(s->events[hv[j].idx].key, ev->key)) {
                x->key_id = hv[j].key_id;
                break;
            }
        for (size_t j = 0; j < w->n_hot_keys; j++)
            if (w->hot_keys[j].key && !strcmp(w->hot_keys[j].key, ev->key))
                x->file_share = w->hot_keys[j].share;
        h++;
    }
    size_t *winner = xcalloc(h ? h : 1, sizeof(*winner));
    for (size_t b = 0; b < 2 * h; b++) {
        int64_t t = b < h ? hv[b].start : hv[b - h].end;
        if (t == INT64_MAX)
            continue;
        for (size_t j = 0; j < h; j++)
            winner[j] = SIZE_MAX;
        size_t last = SIZE_MAX;
        for (size_t j = 0; j < h; j++) /* in time order: a later start replaces */
            if (hv[j].start <= t && t < hv[j].end) {
                winner[hv[j].key_id] = j;
                last = j;
            }
        double sum = file_sum;
        for (size_t j = 0; j < h; j++)
            if (winner[j] != SIZE_MAX)
                sum += hv[winner[j]].share - hv[winner[j]].file_share;
        if (sum > 1 + SHARE_EPS && last != SIZE_MAX) {
            char path[64], tt[32], num[40];
            snprintf(path, sizeof path, "events.%zu.hot_key.share", hv[last].idx);
            format_duration(t, tt, sizeof tt);
            snprintf(num, sizeof num, "%.12g", sum); /* not 1.0999999999999999 */
            report_path(L, path,
                        "hot key shares (workload.hot_keys and active hot_key events) sum to %s "
                        "at %s, expected at most 1", num, tt);
            break;
        }
    }
    free(winner);
    free(hv);
}

static void check_events(struct loader *L, struct ev_ref *order, size_t *n_order)
{
    struct scenario *s = L->s;
    char path[96], d[32], got[160];
    size_t n = 0;

    format_duration(s->duration_ns, d, sizeof d);
    for (size_t i = 0; i < s->n_events; i++) {
        struct event_cfg *ev = &s->events[i];
        snprintf(path, sizeof path, "events.%zu", i);
        const struct ynode *map = tree_at(L->root, path);
        if (ev->kind == EV_ADD_NODE) {
            snprintf(path, sizeof path, "events.%zu.add_node", i);
            merge_cache(tree_at(L->root, path), &ev->cache, &s->cache);
            if (ev->node && !ev->address)
                ev->address = xstrdup(ev->node);
        }
        if (map)
            ev->pos = (struct src_pos){map->line, map->col, map->set};
        if (!event_ok(L, ev))
            continue;
        if (good(L, &s->duration_ns) && ev->at_ns > s->duration_ns) {
            snprintf(path, sizeof path, "events.%zu.at", i);
            got_at(L, path, "", got, sizeof got);
            report_path(L, path, "expected a time from 0 to duration (%s), got %s", d, got);
            continue;
        }
        if (ev->kind == EV_SPLIT_BRAIN && good(L, &ev->instances)) {
            /* O(entries): instance numbers were bound as 0 to MAX_INSTANCES - 1 */
            uint64_t seen[MAX_INSTANCES / 64] = {0};
            for (size_t j = 0; j < ev->n_instances; j++) {
                uint32_t x = ev->instances[j];
                bool out_of_range = good(L, &s->clients.instances) && x >= s->clients.instances;
                bool twice = x < MAX_INSTANCES && (seen[x / 64] >> (x % 64) & 1);
                if (x < MAX_INSTANCES)
                    seen[x / 64] |= (uint64_t)1 << (x % 64);
                if (!out_of_range && !twice)
                    continue;
                snprintf(path, sizeof path, "events.%zu.split_brain.instances.%zu", i, j);
                if (out_of_range) {
                    got_at(L, path, "", got, sizeof got);
                    report_path(L, path,
                                "expected an instance number from 0 to %u (clients.instances "
                                "is %u), got %s", s->clients.instances - 1,
                                s->clients.instances, got);
                }
                if (twice)
                    report_path(L, path, "instance %u is listed twice", x);
            }
        }
        order[n++] = (struct ev_ref){ev->at_ns, i};
    }
    qsort(order, n, sizeof(*order), ev_ref_cmp);
    *n_order = n;
}

/* The gutter pool's nodes are named gutter-0, gutter-1, ...; no node may
 * take one of those names. */
static void check_gutter_names(struct loader *L)
{
    const struct scenario *s = L->s;
    char path[64];
    for (size_t i = 0; i < s->n_nodes + s->n_events; i++) {
        const char *id;
        if (i < s->n_nodes) {
            id = s->nodes[i].id;
            snprintf(path, sizeof path, "nodes.%zu.id", i);
        } else {
            const struct event_cfg *ev = &s->events[i - s->n_nodes];
            id = ev->kind == EV_ADD_NODE ? ev->node : NULL;
            snprintf(path, sizeof path, "events.%zu.add_node.id", i - s->n_nodes);
        }
        uint64_t g;
        char name[40];
        if (!id || strncmp(id, "gutter-", 7) || parse_u64(id + 7, &g))
            continue;
        snprintf(name, sizeof name, "gutter-%llu", (unsigned long long)g);
        if (!strcmp(name, id) && g < s->health.gutter_nodes)
            report_path(L, path, "\"%s\" is the name of a gutter node (health.gutter_nodes is "
                        "%u); choose another id", id, s->health.gutter_nodes);
    }
}

static void check_health(struct loader *L)
{
    const struct health_cfg *h = &L->s->health;
    if (h->on_eject == EJECT_GUTTER)
        check_gutter_names(L);
    if (h->on_eject == EJECT_GUTTER && h->gutter_nodes == 0 && good(L, &h->gutter_nodes) &&
        good(L, &h->on_eject)) {
        char got[160];
        got_at(L, "health.gutter_nodes", "0", got, sizeof got);
        const struct ynode *at = tree_at(L->root, "health.gutter_nodes");
        report(L, at ? at : tree_at(L->root, "health.on_eject"), "health.gutter_nodes",
               "expected at least 1 gutter node when on_eject is gutter, got %s", got);
    }
}

/* ---- workload.trace ---------------------------------------------------------- */

#define ORACLE_RECORD_BYTES 24

/* A trace's path as the run opens it: relative to the folder of the
 * scenario file (as named), absolute as written. Caller frees. */
static char *trace_resolve(const char *scenario_file, const char *path)
{
    const char *slash = strrchr(scenario_file, '/');
    if (path[0] == '/' || !slash)
        return xstrdup(path);
    return xasprintf("%.*s/%s", (int)(slash - scenario_file), scenario_file, path);
}

#define CSV_LOOK_BYTES 65536 /* how much of a csv trace check reads for a request */

/* Whether the first len bytes of a csv trace (all of it when whole) hold a
 * request line: not blank, not a `#` comment, not the header (the first
 * other line, when its first field is `time` in any case), as
 * models/trace_reader.c skips them, after a UTF-8 byte order mark. */
static bool csv_has_request(const char *buf, size_t len, bool whole)
{
    const char *p = buf, *end = buf + len;
    if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
        p += 3;
    for (bool first = true; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl && !whole)
            return true; /* a line cut by the look's end: not judged */
        const char *e = nl ? nl : end;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        const char *f = p; /* the first field, trimmed */
        while (f < e && *f != ',')
            f++;
        const char *fe = f;
        while (fe > p && (fe[-1] == ' ' || fe[-1] == '\t' || fe[-1] == '\r'))
            fe--;
        bool blank = p == e || (fe == p && f == e);
        if (!blank && *p != '#') {
            if (!first || fe - p != 4 || strncasecmp(p, "time", 4))
                return true;
            first = false; /* the header */
        }
        p = e + 1;
    }
    return false;
}

/* The trace file: readable, a regular file, not empty (for csv: a request
 * line in its first CSV_LOOK_BYTES, when that is all of it), and for
 * oracle_general a whole number of records; then its absolute path replaces
 * the path as written. Its content is read when a run starts. */
static void check_trace_file(struct loader *L, struct trace_cfg *t)
{
    static const char *const at = "workload.trace.path";
    char *file = trace_resolve(L->file, t->path), shown[4200];
    if (strcmp(file, t->path))
        snprintf(shown, sizeof shown, "\"%s\" (%s)", t->path, file);
    else
        snprintf(shown, sizeof shown, "\"%s\"", t->path);
    struct stat st;
    int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st)) {
        report_path(L, at, "cannot read the trace %s: %s", shown, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        report_path(L, at, "the trace %s is not a regular file (%s)", shown,
                    file_kind((unsigned)st.st_mode));
        goto out;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (size == 0) {
        report_path(L, at, "the trace %s is empty (expected at least one request)", shown);
        goto out;
    }
    if (t->format == TRACE_ORACLE_GENERAL && size % ORACLE_RECORD_BYTES) {
        report_path(L, at,
                    "the trace %s has %llu bytes, not a whole number of %d-byte oracle_general "
                    "records: record %llu is truncated (%llu of %d bytes); is it a csv trace "
                    "(format: csv)?", shown, (unsigned long long)size, ORACLE_RECORD_BYTES,
                    (unsigned long long)(size / ORACLE_RECORD_BYTES + 1),
                    (unsigned long long)(size % ORACLE_RECORD_BYTES), ORACLE_RECORD_BYTES);
        goto out;
    }
    if (t->format == TRACE_CSV) {
        size_t want = size < CSV_LOOK_BYTES ? (size_t)size : CSV_LOOK_BYTES;
        char *buf = xmalloc(want + 1);
        ssize_t got = pread(fd, buf, want, 0);
        bool some = got != (ssize_t)want
                    || csv_has_request(buf, want, (uint64_t)want == size);
        free(buf);
        if (!some) {
            report_path(L, at, "the trace %s has no requests (only blank lines, comments or a "
                        "header; expected lines time,key,op[,size[,ttl]])", shown);
            goto out;
        }
    }
    char *abs = realpath(file, NULL);
    if (abs) {
        free(t->path);
        t->path = xstrdup(abs);
        free(abs);
    }
out:
    if (fd >= 0)
        close(fd);
    free(file);
}

/* With a trace the synthetic workload's keys and the events that change the
 * requests do not apply: each one given is refused where it is. */
static void check_trace(struct loader *L)
{
    struct scenario *s = L->s;
    struct workload_cfg *w = &s->workload;
    if (!w->trace.path || !good(L, &w->trace.path) || !good(L, &w->trace.format))
        return;
    const struct ynode *wmap = tree_at(L->root, "workload");
    const struct section *wsec = NULL;
    for (size_t i = 0; i < top_section.n_keys; i++)
        if (!strcmp(top_section.keys[i].name, "workload"))
            wsec = top_section.keys[i].sub;
    char path[96];
    for (size_t i = 0; wsec && wmap && i < wsec->n_keys; i++) {
        const struct key *k = &wsec->keys[i];
        const struct ynode *kn = ynode_map_get_key(wmap, k->name);
        if (!kn || workload_key_applies(w, k))
            continue;
        snprintf(path, sizeof path, "workload.%s", k->name);
        report(L, kn, path, "does not apply with workload.trace: %s", trace_refusal(w, k));
    }
    for (size_t i = 0; i < s->n_events; i++) {
        const struct event_cfg *ev = &s->events[i];
        const char *why;
        switch (ev->kind) {
        case EV_SET_QPS: why = "the trace gives the request rate (time_scale scales it)"; break;
        case EV_HOT_KEY: why = "the trace gives every request's key"; break;
        case EV_SHIFT_POPULARITY: why = "the trace gives every request's key"; break;
        default: continue;
        }
        snprintf(path, sizeof path, "events.%zu", i);
        const struct ynode *map = tree_at(L->root, path);
        const char *name = event_kind_name(ev->kind);
        snprintf(path, sizeof path, "events.%zu.%s", i, name);
        report(L, map ? ynode_map_get_key(map, name) : L->root, path,
               "does not apply with workload.trace: %s; remove the event", why);
    }
    check_trace_file(L, &w->trace);
}

static char *default_name(const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    if (n > 5 && !strcmp(base + n - 5, ".yaml"))
        n -= 5;
    else if (n > 4 && !strcmp(base + n - 4, ".yml"))
        n -= 4;
    if (!n)
        return xstrdup("scenario");
    return xstrndup(base, n);
}

/* Cross-checks after binding, then puts the events in time order. */
/* Key splitting makes a key several keys at the nodes; a lease is granted
 * per key at one node, so the two do not combine. */
static void check_cures(struct loader *L)
{
    const struct scenario *s = L->s;
    if (s->clients.fill != FILL_LEASE || !good(L, &s->clients.fill))
        return;
    char path[96];
    for (size_t i = 0; i < s->workload.n_hot_keys; i++)
        if (s->workload.hot_keys[i].split > 1) {
            snprintf(path, sizeof path, "workload.hot_keys.%zu.split", i);
            report_path(L, path, "key splitting does not work with clients.fill: lease (a lease "
                        "is one node's, for one key); use another fill mode or no split");
        }
    for (size_t i = 0; i < s->n_events; i++)
        if (s->events[i].kind == EV_HOT_KEY && s->events[i].split > 1) {
            snprintf(path, sizeof path, "events.%zu.hot_key.split", i);
            report_path(L, path, "key splitting does not work with clients.fill: lease (a lease "
                        "is one node's, for one key); use another fill mode or no split");
        }
}

void finish(struct loader *L)
{
    struct scenario *s = L->s;
    size_t n_order = 0;

    if (!s->name) {
        s->name = default_name(L->file);
        if (strlen(s->name) > MAX_NAME_BYTES)
            report(L, L->root, "name",
                   "the file's name makes a name of %zu bytes, more than %d; give the scenario "
                   "a shorter name: (or rename the file)", strlen(s->name), MAX_NAME_BYTES);
    }
    check_times(L);
    check_hot_keys_file(L);
    size_t errs = L->n_errs;
    check_nodes(L);
    bool nodes_ok = L->n_errs == errs;
    struct ev_ref *order = xcalloc(s->n_events ? s->n_events : 1, sizeof(*order));
    check_events(L, order, &n_order);
    check_membership(L, order, n_order, nodes_ok);
    check_hot_timeline(L, order, n_order);
    check_health(L);
    check_cures(L);
    check_trace(L);

    if (!L->n_errs && s->n_events) { /* every event is in `order` */
        struct event_cfg *sorted = xcalloc(s->n_events, sizeof(*sorted));
        for (size_t i = 0; i < n_order; i++) {
            sorted[i] = s->events[order[i].idx];
            sorted[i].file_index = order[i].idx;
        }
        free(s->events);
        s->events = sorted;
    }
    free(order);
}
