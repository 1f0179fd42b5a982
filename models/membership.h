/*
 * membership.h — the authoritative membership, the ring epochs published
 * from it, and the routing views client instances hold. Owned by
 * membership.c.
 */
#ifndef RINGSIM_MEMBERSHIP_H
#define RINGSIM_MEMBERSHIP_H

#include <stdbool.h>
#include <stdint.h>

#include "models/placement/placement.h"
#include "sim/sim.h"

struct view {
    struct placement *pl;
    uint32_t epoch;
    uint8_t *excluded;       /* per node, 1 = ejected locally (NULL: none) */
    uint32_t refs;
    struct view *next;       /* the run's list of live views */
};

struct epoch {
    uint32_t id;
    uint8_t *member;         /* per node: in the ring */
    uint8_t *ejected;        /* per node: ejected centrally */
    uint32_t n_ejected;      /* how many are */
    uint32_t holders;        /* client instances that have adopted it and no later one */
    struct view *base;       /* members minus central ejections (rehash); NULL once trimmed */
};

struct membership {
    struct epoch *epochs;    /* published epochs, in order; epochs[i].id == i + 1 */
    uint32_t n_epochs, cap_epochs;
    struct view *views;      /* live views */
    uint32_t n_views;
    uint8_t *member;         /* the authoritative membership now */
    uint8_t *ejected;        /* central ejections now */
    struct strbuf pending_why; /* changes waiting for the publication (EVK_PUBLISH) */
    bool publish_pending;
    struct placement *gutter;  /* the gutter pool's placement, or NULL */
    int64_t keys_moved;      /* summed over publications */
};

/* Epoch 1 from the nodes present at time 0, and the gutter's placement. */
int membership_create(struct sim *s, char *err, size_t errlen);
void membership_destroy(struct sim *s);

struct epoch *membership_epoch(struct sim *s, uint32_t id);
struct epoch *membership_latest(struct sim *s);

/* The authoritative membership and central ejections, now. */
static inline bool membership_is_member(const struct sim *s, uint32_t node);
void membership_set_member(struct sim *s, uint32_t node, bool member);
static inline bool membership_is_ejected(const struct sim *s, uint32_t node);
void membership_set_ejected(struct sim *s, uint32_t node, bool ejected);
/* Members now (central ejections included). */
uint32_t membership_count(const struct sim *s);

/* Asks for a new epoch from the membership as it will be at the end of this
 * instant: every change made at one instant (two add_node events, two
 * central ejections) becomes one epoch. `why` is appended to its reason. */
void membership_change(struct sim *s, const char *why);
/* EVK_PUBLISH: publishes the epoch; returns its id, or 0 if it failed. */
uint32_t membership_publish(struct sim *s);

/* Instances adopting and leaving epochs (for trimming old epochs). */
void membership_hold(struct sim *s, uint32_t epoch);
void membership_drop(struct sim *s, uint32_t epoch);
/* Frees the base views of epochs no instance holds any more (never the
 * latest two), so long runs with many epochs keep memory flat. */
void membership_trim(struct sim *s);

/* The view for an epoch minus a local exclusion set (NULL: none); a
 * reference the caller releases with view_release. NULL on failure. */
struct view *view_get(struct sim *s, uint32_t epoch, const uint8_t *excluded);
void view_release(struct sim *s, struct view *v);

static inline const struct placement *membership_gutter(const struct sim *s)
{
    return s->mb->gutter;
}

/* Mirrored counts agree: epoch ejection counts, holders (tests). */
const char *membership_check(const struct sim *s);

static inline bool membership_is_member(const struct sim *s, uint32_t node)
{
    return s->mb->member[node] != 0;
}

static inline bool membership_is_ejected(const struct sim *s, uint32_t node)
{
    return s->mb->ejected[node] != 0;
}

#endif
