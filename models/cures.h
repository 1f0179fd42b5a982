/*
 * cures.h — replicas and the hot-key cures, for the client: which owners a
 * key has in a view (routing.replicas, zones first), which one a read asks
 * (routing.read_from), the per-key overrides of hot keys (replica reads,
 * key splitting), hot-key detection (clients.hot_key_detection) and the
 * per-instance local caches (clients.local_cache). Owned by cures.c.
 */
#ifndef RINGSIM_CURES_H
#define RINGSIM_CURES_H

#include <stdbool.h>
#include <stdint.h>

#include "models/placement/placement.h"
#include "models/store.h"
#include "sim/rng.h"
#include "sim/sim.h"

struct view;

struct cures {
    struct rng replica;      /* read_from: random */
    /* hot keys read from their own number of replicas: key -> replicas */
    uint32_t *hot_key, *hot_replicas;
    uint32_t n_hot;
    /* hot keys split into copies now: key -> its copies' first id, count */
    struct rng split;        /* which copy a read asks */
    uint32_t *split_key, *split_first, *split_n;
    uint32_t n_split;
    /* hot-key detection: reads per key in the current window */
    uint32_t *det_count;     /* NULL: detection off */
    uint64_t det_reads;      /* reads in the window */
    uint32_t *det_key;       /* the keys detected hot now (replica reads on) */
    uint32_t n_det, det_cap;
    uint32_t *det_seen;      /* the keys read in the window, each once */
    size_t n_seen, seen_cap;
    /* local caches: one store per instance over a pool of their own */
    struct item_pool local_pool;
    struct key_rec *local_keys; /* the pool's per-key chains (only .head is used) */
    struct store *local;        /* per instance; NULL: no local cache */
    int64_t local_ttl_ns;
    /* the nodes each read has asked, by request record (R > 1 only):
     * asked[r * PLACE_MAX_REPLICAS + i], i < the request's `tried` */
    uint32_t *asked;
    uint32_t asked_cap;      /* records covered */
};

int cures_create(struct sim *s);
void cures_destroy(struct sim *s);

/* The hot keys and their overrides changed (a hot_key event began or ended). */
void cures_hot_changed(struct sim *s);

/* How many owners reads and writes of key use: routing.replicas, or a hot
 * key's own (configured, or turned on by detection) when it is more — a
 * cure never takes copies away. */
static inline uint32_t cures_replicas(const struct sim *s, uint32_t key);

/* Key splitting: how many copies key is split into now (1: not split),
 * the first copy's id in *first. */
static inline uint32_t cures_split(const struct sim *s, uint32_t key, uint32_t *first);

/* The copy of a split key that a read asks (uniformly at random). */
uint32_t cures_split_pick(struct sim *s, uint32_t first, uint32_t n);
/* A write of key committed version: every copy made of it (the most any
 * hot_key entry splits it into), split now or not, has that version in the
 * database. O(hot key names + copies). */
void cures_split_versions(struct sim *s, uint32_t key, uint32_t version);

/* Hot-key detection: counts one read of key (the key the client asked for,
 * before any split). */
void cures_detect_read(struct sim *s, uint32_t key);
/* EVK_DETECT_WINDOW: a window ends (every `window` from the start): its
 * keys are judged (hot_key_detected, hot_key_cooled), the next one begins. */
void cures_detect_window(struct sim *s);
static inline bool cures_detect_on(const struct sim *s);

/* The key's owners in view v (at most PLACE_MAX_REPLICAS; the owner first),
 * for instance inst; with on_eject: gutter the ones the instance or the
 * view's epoch has ejected are left out. Returns how many. */
uint32_t cures_owners(struct sim *s, const struct view *v, uint32_t inst, uint32_t key,
                      uint32_t r, uint32_t *out);

/* The next node read r asks among the key's `replicas` owners in its
 * instance's view, one it has not asked yet (by node: an ejection between
 * two asks reorders the owners, it does not make a node asked twice or
 * skipped; the node of its last GET counts as asked, wherever that GET was
 * sent from): routing.read_from (random for a hot key with replicas of its
 * own when read_from is primary). Records it as asked; PLACE_NONE when
 * none is left. */
uint32_t cures_next(struct sim *s, uint32_t r, const struct view *v, uint32_t replicas);

/* Local caches, by the key asked (a split key's own id, never a copy's).
 * get: the item, or NULL (a miss or an expired copy). */
static inline bool cures_local_on(const struct sim *s);
struct item *cures_local_get(struct sim *s, uint32_t inst, uint32_t key);
void cures_local_put(struct sim *s, uint32_t inst, uint32_t key, uint32_t version);
/* The value of request r's read, version v, reaches its instance, which
 * keeps it under the key asked (r's key may be a split copy): a hit's reply
 * (EVK_LOCAL_PUT; a copy is the client's only once it has it) or the
 * database's answer. */
void cures_local_arrive(struct sim *s, uint32_t r, uint32_t version);
void cures_local_drop(struct sim *s, uint32_t inst, uint32_t key);

static inline uint32_t cures_replicas(const struct sim *s, uint32_t key)
{
    const struct cures *c = s->cures;
    for (uint32_t i = 0; UNLIKELY(i < c->n_hot); i++)
        if (c->hot_key[i] == key)
            return MAX(c->hot_replicas[i], s->sc->routing.replicas);
    return s->sc->routing.replicas;
}

/* Whether key has replica reads of its own now (a hot key's `replicas`,
 * or detection): its reads then go to a random owner even under
 * read_from: primary. */
static inline bool cures_hot_reads(const struct sim *s, uint32_t key)
{
    const struct cures *c = s->cures;
    for (uint32_t i = 0; UNLIKELY(i < c->n_hot); i++)
        if (c->hot_key[i] == key)
            return true;
    return false;
}

static inline uint32_t cures_split(const struct sim *s, uint32_t key, uint32_t *first)
{
    const struct cures *c = s->cures;
    for (uint32_t i = 0; UNLIKELY(i < c->n_split); i++)
        if (c->split_key[i] == key) {
            *first = c->split_first[i];
            return c->split_n[i];
        }
    return 1;
}

static inline bool cures_detect_on(const struct sim *s)
{
    return s->cures->det_count != NULL;
}

static inline bool cures_local_on(const struct sim *s)
{
    return s->cures->local != NULL;
}

#endif
