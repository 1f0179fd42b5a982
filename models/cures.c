/*
 * cures.c — replicas, replica reads of hot keys, and local caches (see
 * cures.h).
 *
 * Replicas: a key's R owners are placement_replicas() of the view's
 * placement — the owner, then the next distinct nodes in the algorithm's
 * preference order, distinct zones first. A read asks one (read_from:
 * the owner, a random one, or the one with the fewest GETs in flight);
 * after a timeout or an error reply it asks the next one it has not
 * asked, and goes to the database only when none is left. A write reaches
 * every owner. A miss fills the owner asked.
 *
 * Hot keys with `replicas: K` are read from max(K, routing.replicas)
 * owners (at most the members), at random unless read_from says
 * least_loaded, even when K is routing.replicas: the replica reads of the
 * hot-key cures, for that key alone. A cure never takes copies away: with
 * K below routing.replicas, reads and writes still use every replica.
 *
 * Key splitting: a hot key with `split: K` is stored as K copies, NAME#0
 * ... NAME#K-1, keys of their own (their ids were made with the keyspace,
 * so each has its own position and, usually, its own node). A read asks
 * one copy at random; a write goes to the database once and then to every
 * copy (K cache operations). In the database the copies are the key: each
 * write of the key sets every copy's version to the key's, split at that
 * moment or not, so a copy is read from the database at the key's version
 * and a cached copy is stale when it is older than the key.
 *
 * Detection (clients.hot_key_detection): the clients count reads per key
 * over windows of `window`; at a window's end, a key with at least
 * `threshold` of the window's reads gets replica reads from `replicas`
 * owners (the cure a client can turn on for any key, with no copies to
 * name in advance), and loses them after a window below threshold / 2.
 * Keys a hot_key entry gives a cure of their own keep that one.
 *
 * Local caches: each instance keeps an LRU of capacity_items items with a
 * TTL, in front of the ring, filled when a value reaches the instance (a
 * hit's reply: EVK_LOCAL_PUT at its arrival; the database's answer). It
 * holds the keys the application asks for: the value of a split key is
 * kept under the key whichever copy it was read from, and answers every
 * later read of it, whichever copy that read drew. A value kept lives
 * the TTL from its arrival; the same version arriving again (reads sent
 * while the first was on its way) is a fresh copy and starts the TTL
 * again. An instance's own write drops its copy; other
 * instances' writes do not reach it, so within the TTL a copy may be stale.
 */
#include "models/cures.h"

#include <stdlib.h>
#include <string.h>

#include "models/health.h"
#include "models/membership.h"
#include "models/node.h"
#include "models/workload.h"

int cures_create(struct sim *s)
{
    struct cures *c = s->cures = xcalloc(1, sizeof(*s->cures));
    if (rng_init(&c->replica, s->sc->seed, "replica") || rng_init(&c->split, s->sc->seed, "split"))
        return -1;
    const struct hot_key_detection_cfg *d = &s->sc->clients.hot_key_detection;
    if (d->threshold > 0) {
        uint32_t n = s->wl->ks.n_total;
        c->det_count = calloc(n ? n : 1, sizeof(*c->det_count));
        if (!c->det_count)
            return -1;
    }
    const struct local_cache_cfg *lc = &s->sc->clients.local_cache;
    if (lc->capacity_items) {
        uint32_t n = s->wl->ks.n_total;
        c->local_keys = calloc(n ? n : 1, sizeof(*c->local_keys));
        if (!c->local_keys || item_pool_init(&c->local_pool, c->local_keys, n))
            return -1;
        c->local = xcalloc(s->sc->clients.instances, sizeof(*c->local));
        for (uint32_t j = 0; j < s->sc->clients.instances; j++)
            store_init(&c->local[j], &c->local_pool, (uint16_t)(j % UINT16_MAX), 0,
                       lc->capacity_items);
        c->local_ttl_ns = lc->ttl_ns;
    }
    cures_hot_changed(s);
    return 0;
}

void cures_destroy(struct sim *s)
{
    struct cures *c = s->cures;
    if (!c)
        return;
    rng_deinit(&c->replica);
    rng_deinit(&c->split);
    free(c->hot_key);
    free(c->hot_replicas);
    free(c->split_key);
    free(c->split_first);
    free(c->split_n);
    free(c->det_count);
    free(c->det_key);
    free(c->det_seen);
    if (c->local) {
        item_pool_deinit(&c->local_pool);
        free(c->local);
    }
    free(c->local_keys);
    free(c->asked);
    free(c);
    s->cures = NULL;
}

/* One hot key's override, if it has replicas of its own (later ones win). */
static void hot_override(struct cures *c, uint32_t key, uint32_t replicas)
{
    for (uint32_t i = 0; i < c->n_hot; i++)
        if (c->hot_key[i] == key) {
            c->hot_replicas[i] = replicas > 1 ? replicas : 0;
            return;
        }
    if (replicas <= 1)
        return;
    c->hot_key = xrealloc(c->hot_key, (c->n_hot + 1) * sizeof(*c->hot_key));
    c->hot_replicas = xrealloc(c->hot_replicas, (c->n_hot + 1) * sizeof(*c->hot_replicas));
    c->hot_key[c->n_hot] = key;
    c->hot_replicas[c->n_hot++] = replicas;
}

/* One hot key's split (later entries win; 1 resets). */
static void split_override(struct sim *s, uint32_t key, uint32_t split)
{
    struct cures *c = s->cures;
    uint32_t first = UINT32_MAX, n = split > 1 ? workload_split_copies(s->wl, key, &first) : 1;
    if (n > split)
        n = split; /* the first `split` of the copies made for its largest split */
    for (uint32_t i = 0; i < c->n_split; i++)
        if (c->split_key[i] == key) {
            c->split_first[i] = first;
            c->split_n[i] = n;
            return;
        }
    if (n <= 1)
        return;
    c->split_key = xrealloc(c->split_key, (c->n_split + 1) * sizeof(*c->split_key));
    c->split_first = xrealloc(c->split_first, (c->n_split + 1) * sizeof(*c->split_first));
    c->split_n = xrealloc(c->split_n, (c->n_split + 1) * sizeof(*c->split_n));
    c->split_key[c->n_split] = key;
    c->split_first[c->n_split] = first;
    c->split_n[c->n_split++] = n;
}

void cures_hot_changed(struct sim *s)
{
    struct cures *c = s->cures;
    const struct scenario *sc = s->sc;
    int64_t now = s->eng.now_ns;
    c->n_hot = c->n_split = 0;
    for (size_t i = 0; i < sc->workload.n_hot_keys; i++) {
        const struct hot_key_cfg *h = &sc->workload.hot_keys[i];
        uint32_t key = workload_key_id(s->wl, h->key);
        if (h->replicas > 1)
            hot_override(c, key, h->replicas);
        if (h->split > 1)
            split_override(s, key, h->split);
    }
    for (size_t i = 0; i < sc->n_events; i++) { /* the events active now, in order */
        const struct event_cfg *e = &sc->events[i];
        if (e->kind != EV_HOT_KEY || e->at_ns > now || (e->for_ns && e->at_ns + e->for_ns <= now))
            continue;
        uint32_t key = workload_key_id(s->wl, e->key);
        hot_override(c, key, e->replicas);
        split_override(s, key, e->split);
    }
    uint32_t k = 0; /* drop the keys an event reset to none */
    for (uint32_t i = 0; i < c->n_hot; i++)
        if (c->hot_replicas[i]) {
            c->hot_key[k] = c->hot_key[i];
            c->hot_replicas[k++] = c->hot_replicas[i];
        }
    c->n_hot = k;
    k = 0;
    for (uint32_t i = 0; i < c->n_split; i++)
        if (c->split_n[i] > 1) {
            c->split_key[k] = c->split_key[i];
            c->split_first[k] = c->split_first[i];
            c->split_n[k++] = c->split_n[i];
        }
    c->n_split = k;
    /* detected keys: replica reads, unless a hot_key entry gives them a cure */
    uint32_t r = sc->clients.hot_key_detection.replicas;
    for (uint32_t i = 0; i < c->n_det; i++) {
        uint32_t key = c->det_key[i], first;
        if (!cures_hot_reads(s, key) && cures_split(s, key, &first) <= 1)
            hot_override(c, key, r);
    }
}

uint32_t cures_split_pick(struct sim *s, uint32_t first, uint32_t n)
{
    return first + rng_below(&s->cures->split, n);
}

void cures_split_versions(struct sim *s, uint32_t key, uint32_t version)
{
    uint32_t first, n = workload_split_copies(s->wl, key, &first);
    for (uint32_t i = 0; n > 1 && i < n; i++)
        s->wl->ks.rec[first + i].version = version;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The end of a detection window: keys at threshold or above are hot from
 * now, detected keys below half of it are not. */
static void detect_close(struct sim *s)
{
    struct cures *c = s->cures;
    const struct hot_key_detection_cfg *d = &s->sc->clients.hot_key_detection;
    bool changed = false;
    char buf[512];
    if (c->det_reads) {
        double total = (double)c->det_reads;
        uint32_t k = 0; /* the detected keys that stay hot */
        for (uint32_t i = 0; i < c->n_det; i++) {
            uint32_t key = c->det_key[i];
            double share = c->det_count[key] / total;
            if (share >= d->threshold / 2) {
                c->det_key[k++] = key;
                continue;
            }
            sim_event(s, "hot_key_cooled", NULL, "%s: %.1f%% of the reads of the last %g s",
                      keyspace_name(&s->wl->ks, key, buf, sizeof buf), 100 * share,
                      (double)d->window_ns / 1e9);
            changed = true;
        }
        c->n_det = k;
        /* the keys read, in key order (as a scan of every key would find them) */
        qsort(c->det_seen, c->n_seen, sizeof(*c->det_seen), cmp_u32);
        for (size_t si = 0; si < c->n_seen; si++) {
            uint32_t key = c->det_seen[si];
            if (c->det_count[key] < d->threshold * total)
                continue;
            uint32_t j = 0;
            while (j < c->n_det && c->det_key[j] != key)
                j++;
            if (j < c->n_det)
                continue; /* already hot */
            if (c->n_det == c->det_cap) {
                c->det_cap = c->det_cap ? 2 * c->det_cap : 4;
                c->det_key = xrealloc(c->det_key, c->det_cap * sizeof(*c->det_key));
            }
            c->det_key[c->n_det++] = key;
            /* what the cure is: listed now, before detection's own keys
             * are added again, a key has a hot_key cure of its own */
            uint32_t first, owners = MIN(MAX(d->replicas, s->sc->routing.replicas),
                                         membership_count(s));
            char cure[96];
            if (cures_hot_reads(s, key) || cures_split(s, key, &first) > 1)
                snprintf(cure, sizeof cure, "it keeps its hot_key cure");
            else
                snprintf(cure, sizeof cure, "replica reads from %u owners", owners);
            sim_event(s, "hot_key_detected", NULL, "%s: %.1f%% of the reads of the last %g s; %s",
                      keyspace_name(&s->wl->ks, key, buf, sizeof buf),
                      100 * c->det_count[key] / total, (double)d->window_ns / 1e9, cure);
            changed = true;
        }
        for (size_t si = 0; si < c->n_seen; si++)
            c->det_count[c->det_seen[si]] = 0;
        c->n_seen = 0;
        c->det_reads = 0;
    }
    if (changed)
        cures_hot_changed(s);
}

void cures_detect_window(struct sim *s)
{
    detect_close(s);
}

/* Windows are [k w, (k + 1) w). The end of one is an event only when it
 * holds a read (scheduled at its first): a window without reads changes
 * nothing, so a window of a nanosecond costs no more than the reads. A
 * read at a window's end itself comes after that end's event (scheduled
 * earlier), in the next window. The keys read are listed once each, so
 * a window's end looks at them only, not at every key: O(reads). */
void cures_detect_read(struct sim *s, uint32_t key)
{
    struct cures *c = s->cures;
    if (!c->det_reads) {
        int64_t w = s->sc->clients.hot_key_detection.window_ns;
        sim_schedule(s, (s->eng.now_ns / w + 1) * w, EVK_DETECT_WINDOW, 0, 0);
    }
    if (!c->det_count[key]++) {
        if (c->n_seen == c->seen_cap) {
            c->seen_cap = c->seen_cap ? 2 * c->seen_cap : 64;
            c->det_seen = xrealloc(c->det_seen, c->seen_cap * sizeof(*c->det_seen));
        }
        c->det_seen[c->n_seen++] = key;
    }
    c->det_reads++;
}

uint32_t cures_owners(struct sim *s, const struct view *v, uint32_t inst, uint32_t key,
                      uint32_t r, uint32_t *out)
{
    uint32_t n = (uint32_t)placement_replicas(v->pl, view_position(s, v, key), s->zones, out, r);
    if (!s->n_gutter)
        return n;
    const struct epoch *e = membership_epoch(s, v->epoch);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!health_inst_ejected(s, inst, out[i]) && !e->ejected[out[i]])
            out[k++] = out[i];
    return k;
}

/* Which of the n owners a read asks, among those it has not asked. n if
 * none is left. */
static uint32_t pick(struct sim *s, uint32_t key, const uint32_t *owners, uint32_t n,
                     const uint32_t *asked, uint32_t n_asked)
{
    uint32_t left[PLACE_MAX_REPLICAS], m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!placement_among(asked, n_asked, owners[i]))
            left[m++] = i;
    if (!m)
        return n;
    enum read_from how = s->sc->routing.read_from;
    if (how == READ_PRIMARY && cures_hot_reads(s, key))
        how = READ_RANDOM; /* a hot key's own replica reads */
    switch (how) {
    case READ_RANDOM:
        return left[m > 1 ? rng_below(&s->cures->replica, m) : 0];
    case READ_LEAST_LOADED: {
        uint32_t best = left[0];
        for (uint32_t i = 1; i < m; i++)
            if (s->inflight[owners[left[i]]] < s->inflight[owners[best]])
                best = left[i];
        return best;
    }
    default:
        return left[0];
    }
}

uint32_t cures_next(struct sim *s, uint32_t r, const struct view *v, uint32_t replicas)
{
    struct cures *c = s->cures;
    struct req *q = &s->eng.reqs.r[r];
    if (r >= c->asked_cap) {
        uint32_t cap = c->asked_cap ? c->asked_cap : 1024;
        while (cap <= r)
            cap *= 2;
        c->asked = xrealloc(c->asked, (size_t)cap * PLACE_MAX_REPLICAS * sizeof(*c->asked));
        c->asked_cap = cap;
    }
    uint32_t *asked = &c->asked[(size_t)r * PLACE_MAX_REPLICAS];
    if (q->node != PLACE_NONE) {
        /* the node of its last GET, asked whatever sent it there (routing
         * with one owner before a hot key's replicas began, a MOVED, an
         * ASK, a node passing it on) */
        if (!placement_among(asked, q->tried, q->node) && q->tried < PLACE_MAX_REPLICAS)
            asked[q->tried++] = q->node;
    }
    uint32_t owners[PLACE_MAX_REPLICAS];
    uint32_t n = cures_owners(s, v, q->inst, q->key, replicas, owners);
    uint32_t i = pick(s, q->key, owners, n, asked, q->tried);
    if (i >= n || q->tried >= PLACE_MAX_REPLICAS)
        return PLACE_NONE;
    asked[q->tried++] = owners[i];
    return owners[i];
}

struct item *cures_local_get(struct sim *s, uint32_t inst, uint32_t key)
{
    return store_get(&s->cures->local[inst], key, s->eng.now_ns, true);
}

void cures_local_put(struct sim *s, uint32_t inst, uint32_t key, uint32_t version)
{
    struct cures *c = s->cures;
    /* a value read again is a fresh copy: its TTL starts again (an older
     * one never replaces a newer) */
    store_set(&c->local[inst], key, version, 1, s->eng.now_ns + c->local_ttl_ns, s->eng.now_ns,
              STORE_FRESH);
}

/* The key a split copy is a copy of (key itself when it is none): the
 * copies of each hot key have consecutive ids. O(hot key names). */
static uint32_t split_base(const struct workload *w, uint32_t key)
{
    if (key < w->ks.n_keys)
        return key; /* copies come after the key_format keys */
    for (size_t i = 0; i < w->n_hot_names; i++) {
        const struct hot_name *h = &w->hot_names[i];
        if (h->split > 1 && key - h->split_first < h->split)
            return h->id;
    }
    return key;
}

void cures_local_arrive(struct sim *s, uint32_t r, uint32_t version)
{
    const struct req *q = req_at(&s->eng, r);
    cures_local_put(s, q->inst, split_base(s->wl, q->key), version);
}

void cures_local_drop(struct sim *s, uint32_t inst, uint32_t key)
{
    store_delete(&s->cures->local[inst], key);
}
