/*
 * placement.h — one interface for every placement algorithm.
 *
 * A placement is built from a membership (ids, addresses, weights, and the
 * caller's node index for each member) and parameters, and is immutable
 * afterwards: many client views may share one. Looking up a key takes the
 * key's *position*, computed once per key with placement_key_position()
 * (it depends only on the algorithm and the hash, never on the membership),
 * so the per-request cost is the lookup alone.
 *
 *   params + members --placement_create--> placement --lookup(pos)--> node index
 *
 * Each algorithm lives in its own file (place_<name>.c) and exports one
 * `const struct place_ops`; the registry in placement.c maps names to them
 * (PLACE_CODEC below is the single list).
 *
 * Conventions: models/placement/README.md ("Algorithms"); placement never
 * depends on a seed or an RNG, and, except for jump (membership order) and
 * slots (history), never on the order in which members are listed.
 *
 * What may be built is decided in one place: placement_check_params() for a
 * parameter set and placement_check_membership() for a membership, within
 * the PLACE_MAX_* limits below. placement_create() runs both; the scenario
 * loader runs them on every membership a scenario will have, and
 * `ringsim ring` goes through the loader, so a parameter set or membership
 * is accepted by all three or by none.
 */
#ifndef RINGSIM_PLACEMENT_H
#define RINGSIM_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/placement/hash.h"

/*      enum              name          ops */
#define PLACE_CODEC(X)                                  \
    X(PLACE_MOD,        "mod",        place_mod_ops)    \
    X(PLACE_RING,       "ring",       place_ring_ops)   \
    X(PLACE_KETAMA,     "ketama",     place_ketama_ops) \
    X(PLACE_JUMP,       "jump",       place_jump_ops)   \
    X(PLACE_RENDEZVOUS, "rendezvous", place_rendezvous_ops) \
    X(PLACE_MAGLEV,     "maglev",     place_maglev_ops) \
    X(PLACE_BOUNDED,    "bounded",    place_bounded_ops) \
    X(PLACE_SLOTS,      "slots",      place_slots_ops)

#define PLACE_ENUM(e, name, ops) e,
typedef enum { PLACE_CODEC(PLACE_ENUM) PLACE_COUNT } place_algo;
#undef PLACE_ENUM

/* "No node": the lookup result of an empty membership. */
#define PLACE_NONE UINT32_MAX

#define PLACE_DEFAULT_VNODES       160
#define PLACE_DEFAULT_POINT_FORMAT "%s#%d"
#define PLACE_DEFAULT_LOAD_FACTOR  1.25
#define PLACE_DEFAULT_MAGLEV_SIZE  65537
#define PLACE_SLOT_COUNT           16384
#define PLACE_KETAMA_POINTS        160

/* Limits, so that a mistyped parameter fails at once instead of exhausting
 * memory or time (a run may hold a few placements at a time). */
#define PLACE_MAX_MEMBERS      (1u << 20)
#define PLACE_MAX_VNODES       1000000u
#define PLACE_MAX_POINTS       10000000u  /* points on one continuum: 20 bytes each */
#define PLACE_MAX_MAGLEV_SIZE  16777213u  /* the largest prime below 2^24: 64 MiB of table */
#define PLACE_MIN_LOAD_FACTOR  1.0        /* exclusive: c = 1 + eps with eps > 0 */
#define PLACE_MAX_LOAD_FACTOR  1000.0
#define PLACE_MAX_WEIGHT       1000000.0
#define PLACE_MAX_POINT_FORMAT 256        /* characters */

struct place_params {
    place_algo algo;
    hash_kind hash;
    uint32_t vnodes;          /* ring, bounded: points per unit of weight */
    const char *point_format; /* ring, bounded: printf format with %s then %d */
    bool node_key_address;    /* hash the node's address instead of its id */
    double load_factor;       /* bounded: c > 1 */
    uint32_t maglev_size;     /* maglev: prime table size M, M >= members */
};

/* Fills p with the defaults above for algorithm a. */
void place_params_default(struct place_params *p, place_algo a);

struct place_member {
    const char *id;      /* unique, non-empty */
    const char *address; /* may be NULL unless node_key_address */
    double weight;       /* > 0 and <= PLACE_MAX_WEIGHT; 1 = the default share */
    uint32_t node;       /* the caller's index; what lookup returns */
};

/* What a failed check is about: the parameter to change, or the membership. */
enum place_fault {
    PLACE_OK = 0,
    PLACE_FAULT_ALGO,         /* not an algorithm */
    PLACE_FAULT_HASH,         /* not a hash */
    PLACE_FAULT_VNODES,       /* vnodes out of 1..PLACE_MAX_VNODES (ring, bounded) */
    PLACE_FAULT_POINT_FORMAT, /* see place_check_point_format (ring, bounded) */
    PLACE_FAULT_LOAD_FACTOR,  /* not in (1, PLACE_MAX_LOAD_FACTOR] (bounded) */
    PLACE_FAULT_MAGLEV_SIZE,  /* not a prime <= PLACE_MAX_MAGLEV_SIZE, or fewer entries
                                 than members (maglev) */
    PLACE_FAULT_MEMBER,       /* one member: empty id, weight, missing address with
                                 node_key_address, reserved or repeated node index, or an
                                 id (address) that appears twice */
    PLACE_FAULT_MEMBERS,      /* more members than the algorithm takes */
    PLACE_FAULT_POINTS,       /* more than PLACE_MAX_POINTS points (ring, bounded, ketama) */
};

/* Checks a parameter set alone: the parameters the algorithm uses are in
 * range (vnodes and point_format for ring and bounded, load_factor for
 * bounded, maglev_size for maglev; the others are not looked at). Returns
 * PLACE_OK, or what is wrong with a message in err (if err is not NULL). */
enum place_fault placement_check_params(const struct place_params *p, char *err, size_t errlen);

/* Checks a membership for valid parameters p: every member (id, weight,
 * address with node_key_address, node index), distinct ids (and addresses
 * with node_key_address), and the size the algorithm can take: at most
 * PLACE_MAX_MEMBERS members (PLACE_SLOT_COUNT for slots, maglev_size for
 * maglev) and at most PLACE_MAX_POINTS points (placement_points). Every
 * limit only grows with the membership, so a subset of a membership that
 * passes passes too; the one exception is ketama's exact point count, which
 * is 160 per member give or take the rounding of the others' shares.
 * Returns PLACE_OK, or what is wrong with a message in err. O(n) expected. */
enum place_fault placement_check_membership(const struct place_params *p,
                                            const struct place_member *m, size_t n, char *err,
                                            size_t errlen);

/* Points the continuum of this membership has: ring and bounded give each
 * member max(1, llround(vnodes x weight)), ketama 4 x floorf(weight share x
 * 40 x n) (160 for equal weights); 0 for the other algorithms. O(n). */
uint64_t placement_points(const struct place_params *p, const struct place_member *m, size_t n);

struct placement;

struct place_ops {
    const char *name;
    /* Builds the algorithm's structure into pl (pl->members etc. are set).
     * prev: the previous placement of the same algorithm, or NULL; only
     * slots uses it. Returns 0, or -1 with a message in err. */
    int (*build)(struct placement *pl, const struct placement *prev, char *err, size_t errlen);
    /* Owner of a position; PLACE_NONE for an empty membership. O(1) or O(log points). */
    uint32_t (*lookup)(const struct placement *pl, uint64_t pos);
    /* Up to max distinct nodes in this key's preference order (the owner
     * first, then who would own it if the owner were gone), or NULL when
     * the algorithm has no such order. Returns how many were written. */
    size_t (*successors)(const struct placement *pl, uint64_t pos, uint32_t *out, size_t max);
    /* Frees what build allocated (not pl itself). */
    void (*destroy)(struct placement *pl);
};

#define PLACE_DECL(e, name, ops) extern const struct place_ops ops;
PLACE_CODEC(PLACE_DECL)
#undef PLACE_DECL

/* The public head of every placement; algorithm data hangs off `impl`. */
struct placement {
    const struct place_ops *ops;
    uint32_t (*lookup)(const struct placement *pl, uint64_t pos); /* == ops->lookup */
    struct place_params params;     /* point_format owned by the placement */
    struct place_member *members;   /* copies (strings owned), in the order given */
    size_t n_members;
    uint32_t max_node;              /* 1 + the largest member.node, 0 if empty */
    size_t n_points;                /* ring-like: points on the continuum; 0 otherwise */
    const bool *join_empty;         /* during build only (slots): per member, joins holding
                                       no slot; NULL: none (placement_create_joining) */
    void *impl;
    /* bounded: by node, the weight of the members before it in member order
     * and its own ([2 node], [2 node + 1]); the members' total weight */
    double *bounded_w;
    double total_weight;
};

/* Builds a placement, after placement_check_params and
 * placement_check_membership (whose message it returns). prev: see
 * place_ops.build. Returns NULL with a message in err (if err is not NULL).
 * Caller destroys. */
struct placement *placement_create(const struct place_params *params,
                                   const struct place_member *members, size_t n,
                                   const struct placement *prev, char *err, size_t errlen);
/* placement_create, where the members with join_empty[i] set take no slots
 * if they join (are not in prev): under slots, a node that meets a Redis
 * Cluster and gets its slots by resharding (placement_slots_move). The
 * other algorithms ignore join_empty (which may be NULL). */
struct placement *placement_create_joining(const struct place_params *params,
                                           const struct place_member *members, size_t n,
                                           const struct placement *prev, const bool *join_empty,
                                           char *err, size_t errlen);
void placement_destroy(struct placement *pl);

static inline uint32_t placement_lookup(const struct placement *pl, uint64_t pos)
{
    return pl->lookup(pl, pos);
}

/* slots: a slot moving to the member whose node index is `node`. */
struct place_slot_move {
    uint32_t slot;       /* 0 .. PLACE_SLOT_COUNT - 1 */
    uint32_t node;
};

/* slots: a placement like prev (a slots placement: the same members and
 * parameters, every slot with the same owner) but for the n moves, each
 * slot going to its member, in order (a later move of the same slot wins).
 * A resharding step of Redis Cluster (CLUSTER SETSLOT slot NODE id). Returns
 * NULL with a message in err when prev is not slots, a slot is out of range
 * or a node is not a member. Caller destroys. O(16384 + members + n). */
struct placement *placement_slots_move(const struct placement *prev,
                                       const struct place_slot_move *moves, size_t n, char *err,
                                       size_t errlen);

/* Preference order (see place_ops.successors); for algorithms without one,
 * writes just the owner. */
size_t placement_successors(const struct placement *pl, uint64_t pos, uint32_t *out, size_t max);

/* The position of a key for this algorithm and hash: hash_position() for most;
 * ketama cuts it to 32 bits (md5: first 4 digest bytes little-endian); slots
 * uses CRC16-XMODEM of the key, or of its {hash tag}, & 16383. */
uint64_t placement_key_position(const struct place_params *params, const char *key, size_t len);

/* Replicas: up to r distinct owners of a key, the owner first, in the
 * algorithm's preference order (placement_successors: ring and ketama
 * clockwise, rendezvous by score); for the algorithms without one (mod,
 * jump, maglev, slots) the owner, then the members after it in the order
 * given to placement_create. With zone (indexed by node; NULL: none),
 * owners in zones not yet used come first, among the first 4r candidates:
 * a zone gets a second replica only when those hold no unused zone.
 * Returns how many were written. O(walk to 4r distinct nodes). */
#define PLACE_MAX_REPLICAS 16
size_t placement_replicas(const struct placement *pl, uint64_t pos, const uint32_t *zone,
                          uint32_t *out, size_t r);

/* Whether node is one of nodes[0, n) (a list of owners: a few entries). */
static inline bool placement_among(const uint32_t *nodes, size_t n, uint32_t node)
{
    for (size_t i = 0; i < n; i++)
        if (nodes[i] == node)
            return true;
    return false;
}

/* Bounded loads, dynamic form: the first node in the key's ring order whose
 * load is below cap (cap = ceil(c * total / n) computed by the caller);
 * the owner when every node is full. load is indexed by node index. */
uint32_t placement_lookup_bounded(const struct placement *pl, uint64_t pos,
                                  const uint32_t *load, uint32_t cap);

/* ceil(load_factor * count / n) as the decimals mean it: a product that
 * floating point puts a hair above a whole number (1.1 x 100000 / 4 =
 * 27500.000000000004) rounds to that number, not the next. At most
 * UINT32_MAX; 0 when n is 0. */
uint32_t placement_bounded_cap(double load_factor, uint64_t count, size_t n);

/* Which rule decides, in the dynamic form, that a node is full (the load
 * is requests in flight; total: in flight over the cluster before this one):
 *  - PAPER (Mirrokni, Thorup, Zadimoghaddam): every node's cap is
 *    ceil(c * (total + 1) / n); a node is full at load >= cap; the walk
 *    follows the key's ring order. Weights do not change the cap.
 *  - HAPROXY (hash-balance-factor): ceil((total + 1) * c) slots are shared
 *    in proportion to weight, the remainder by cumulative weight in member
 *    order, at least 1 each; full at load >= slots; ring order.
 *  - ENVOY (hash_balance_factor): slots = max(1, ceil(ceil((total + 1) * c)
 *    * weight / total weight)); full at load > slots (one request more than
 *    HAProxy lets in); after the owner, the others in an order drawn at
 *    random from the key's position (no cascade along the ring); when all
 *    are full, the least loaded relative to its slots.
 * The factor is c as a whole percentage for HAProxy and Envoy (1.25: 125). */
#define PLACE_BOUNDED_RULES(X) X(PLACE_BOUNDED_PAPER, "paper") \
    X(PLACE_BOUNDED_HAPROXY, "haproxy") X(PLACE_BOUNDED_ENVOY, "envoy")
#define PLACE_ENUM2(e, name) e,
enum place_bounded_rule { PLACE_BOUNDED_RULES(PLACE_ENUM2) };

/* The dynamic form under a rule (above). load is indexed by node. */
uint32_t placement_lookup_bounded_by(const struct placement *pl, uint64_t pos,
                                     const uint32_t *load, uint64_t total,
                                     enum place_bounded_rule rule);

/* Bounded loads, static form: assigns count keys (positions in key order),
 * each capped at ceil(load_factor * count / n). out[i] = node of key i.
 * load (indexed by node, max_node entries, zeroed by the caller) is updated. */
void placement_assign_bounded(const struct placement *pl, const uint64_t *pos, size_t count,
                              uint32_t *out, uint32_t *load);

const char *place_algo_name(place_algo a);
int place_algo_from_name(const char *name, place_algo *a);
const char *place_algo_names(void); /* "mod|ring|..." */

/* Validates a point format: exactly one %s followed later by one %d (flags
 * and width allowed on %d), %% anywhere, at most PLACE_MAX_POINT_FORMAT
 * characters. Returns NULL or a short phrase. */
const char *place_check_point_format(const char *fmt);

#endif
