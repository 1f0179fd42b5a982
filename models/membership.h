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

/* A routing generation: the placement parameters a set of epochs uses.
 * Generation 0 is the scenario's routing section; each set_routing event
 * starts another. Key positions depend only on the algorithm and the hash:
 * a generation that changes neither shares its predecessor's positions. */
struct routing_gen {
    struct place_params pp;
    char *point_format;      /* owned (pp.point_format points here) */
    uint64_t *pos;           /* per key; NULL: the keyspace's own (key_rec.pos) */
    bool pos_owned;
};

struct view {
    struct placement *pl;
    const uint64_t *pos;     /* key positions of its generation; NULL: key_rec.pos */
    uint32_t epoch;
    uint8_t *excluded;       /* per node, 1 = ejected locally (NULL: none) */
    uint32_t refs;
    struct view *next;       /* the run's list of live views */
};

struct epoch {
    uint32_t id;
    uint32_t gen;            /* its routing generation */
    int64_t published_ns;
    uint8_t *member;         /* per node: in the ring */
    uint8_t *ejected;        /* per node: ejected centrally */
    double *weight;          /* per node: its placement weight then (vnodes folded in) */
    const char **address;    /* per node: its address then (strings owned by the membership) */
    uint8_t *join_empty;     /* per node: joined in this epoch without slots (NULL: none) */
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
    bool changed;            /* a change other than slot moves waits for the publication */
    bool moves_only;         /* the latest publication was made of slot moves only */
    uint8_t *join_empty;     /* per node: joins at the next publication without slots */
    bool any_join_empty;
    struct place_slot_move *moves; /* slot moves waiting for the publication (migrations) */
    uint32_t n_moves, cap_moves;
    uint8_t **ejected_slots; /* slots, central ejections: per node, a bitmap of the slots it
                                held when ejected, less those migrated away since (NULL:
                                nothing remembered); a slot is in one bitmap at most */
    uint32_t n_ejected_slots; /* bitmaps held */
    struct place_slot_move *restore; /* readmissions' slots, for the publication under way */
    uint32_t n_restore;
    uint32_t *slot_first;    /* keys of slot i: slot_keys[slot_first[i] .. slot_first[i + 1]) */
    uint32_t *slot_keys;     /*   ascending; both NULL until first asked for */
    struct placement *gutter;  /* the gutter pool's placement, or NULL */
    int64_t keys_moved;      /* summed over publications */
    struct routing_gen *gens;  /* routing generations; the last is the current one */
    uint32_t n_gens;
    double *vnodes;          /* per node: its own vnodes (0: the generation's) */
    char **strings;          /* addresses the epochs point to */
    size_t n_strings, cap_strings;
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

/* The current routing (the last generation's parameters). */
static inline const struct place_params *membership_routing(const struct sim *s)
{
    return &s->mb->gens[s->mb->n_gens - 1].pp;
}
/* Starts a routing generation with these parameters (set_routing): key
 * positions are computed anew when the algorithm's kind of position or the
 * hash changes (O(keys)). The next publication uses it. Returns 0 or -1. */
int membership_set_routing(struct sim *s, const struct place_params *pp);
/* Key positions under the current routing (NULL: the keyspace's own). */
static inline const uint64_t *membership_current_positions(const struct sim *s)
{
    return s->mb->gens[s->mb->n_gens - 1].pos;
}
/* A node's own vnodes (set_vnodes; ring and bounded), from the next epoch on. */
void membership_set_vnodes(struct sim *s, uint32_t node, uint32_t vnodes);
/* A node's vnodes now: its own, or the current routing's. */
double membership_node_vnodes(const struct sim *s, uint32_t node);
/* A key's position under a view's routing. */
static inline uint64_t view_position(const struct sim *s, const struct view *v, uint32_t key);

/* The placement a membership (per node: 1 = in the ring) would have if it
 * were published now: today's weights, addresses, central ejections and
 * routing (staged joins and drains). Caller destroys; NULL if it cannot be
 * built (the run has failed). */
struct placement *membership_future(struct sim *s, const uint8_t *member);

/* Fencing: the epoch the nodes know at time t (published at least
 * fence_delay before t), and a key's owner in an epoch (its base view). */
uint32_t membership_known_epoch(struct sim *s, int64_t t_ns);
uint32_t membership_owner(struct sim *s, uint32_t epoch, uint32_t key);
/* Its r owners (routing.replicas; the owner first). Returns how many. */
uint32_t membership_owners(struct sim *s, uint32_t epoch, uint32_t key, uint32_t r,
                           uint32_t *out);

/* add_node take_slots: false (slots): the node becomes a member at the next
 * publication holding no slot, as a node that meets a Redis Cluster does;
 * migrations give it slots. */
void membership_add_without_slots(struct sim *s, uint32_t node);
/* A migration step (slots): the n slots belong to node from the next
 * publication on, applied after the publication's other changes (a slot
 * whose node is then not in the ring stays where it is). Asks for the
 * publication; an epoch made of slot moves only counts as keys_moved the
 * keys of the slots that changed owner (O(moves), not O(keys)). */
void membership_move_slots(struct sim *s, const uint32_t *slots, uint32_t n, uint32_t node);
/* The node owning a slot in the latest epoch, or PLACE_NONE when the
 * current routing is not slots. O(1). */
uint32_t membership_slot_owner(struct sim *s, uint32_t slot);
/* The keys of a slot under slots routing (the low 14 bits of their
 * positions), in ascending id order: the most popular first. *n gets their
 * number. Built on the first call, O(keys), 4 bytes a key; the current
 * routing must be slots then (slots positions never depend on the hash). */
const uint32_t *membership_slot_keys(struct sim *s, uint32_t slot, uint32_t *n);

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
 * latest two), so long runs with many epochs keep memory flat. Under slots
 * an epoch an instance may still adopt (central mode: published less than
 * 1.5 x propagation_delay ago) keeps its base, whose table depends on its
 * history and could not be built again. */
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

#include "models/workload.h"

static inline uint64_t view_position(const struct sim *s, const struct view *v, uint32_t key)
{
    return v->pos ? v->pos[key] : s->wl->ks.rec[key].pos;
}

static inline bool membership_is_member(const struct sim *s, uint32_t node)
{
    return s->mb->member[node] != 0;
}

static inline bool membership_is_ejected(const struct sim *s, uint32_t node)
{
    return s->mb->ejected[node] != 0;
}

#endif
