/*
 * ring_analysis.h — the static placement analysis behind `ringsim ring`:
 * place `count` keys named by a printf pattern on a membership and, if given,
 * on a second one, and report keys per node, keys moved (and between which
 * kinds of node), load balance, and the theoretical spread of a node's share.
 *
 * Also the key-name pattern (struct key_format): a printf format with exactly
 * one integer conversion, validated before any use, so a user's pattern never
 * reaches printf unchecked. It is the one rule for key names: the scenario
 * loader checks workload.key_format with key_format_init, and `ringsim ring
 * --keys` goes through the loader.
 *
 *   ring_input --ring_analyze--> ring_result (caller deinits)
 */
#ifndef RINGSIM_RING_ANALYSIS_H
#define RINGSIM_RING_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/placement/placement.h"

/* ---- key names ------------------------------------------------------------ */

#define KEY_FORMAT_MAX_LEN   200 /* characters in the pattern: a key stays well under 512 bytes */
#define KEY_FORMAT_MAX_WIDTH 64  /* field width and precision */
#define KEY_MAX_BYTES        1024 /* a key named by hand: a scenario's hot keys, ring --key */

/* A validated pattern: literal prefix, one integer conversion, literal suffix
 * ("%%" already turned into "%"). The conversion is printed with the "ll"
 * length, so the number is always the integer itself; the pattern has no
 * length modifier (the workload prints ids with the pattern as given, as an
 * int or unsigned). */
struct key_format {
    char *prefix, *suffix;
    size_t prefix_len, suffix_len;
    char spec[32];  /* e.g. "%06lld" */
    bool is_signed; /* d, i */
    size_t max_len; /* bound on a rendered key's length, without the NUL */
};

/* Parses and validates fmt: at most KEY_FORMAT_MAX_LEN characters, exactly
 * one of %d %i %u %x %X, with flags (- + space 0, and # on x X), a width
 * and a precision up to 64, no length modifier, and %% anywhere. Returns
 * NULL, or a short phrase saying what is wrong ("has no integer conversion");
 * then kf needs no deinit. */
const char *key_format_init(struct key_format *kf, const char *fmt);
void key_format_deinit(struct key_format *kf);
/* Writes key number i into buf (n >= kf->max_len + 1); returns its length. */
size_t key_format_render(const struct key_format *kf, uint64_t i, char *buf, size_t n);

/* ---- analysis ------------------------------------------------------------- */

/* Whether the algorithm gives weighted members a weighted share (mod, jump
 * and slots ignore weights). */
bool place_algo_uses_weights(place_algo a);

/* A key looked up by name (ring --key): any bytes, NUL included. */
struct ring_key {
    const char *bytes;
    size_t len;
};

struct ring_input {
    struct place_params params;
    const struct place_member *before; /* node indexes are ignored */
    size_t n_before;
    const struct place_member *after;  /* NULL: no change (after = before) */
    size_t n_after;
    const char *key_format;            /* default "key-%06d" when NULL */
    uint64_t key_start, key_count;     /* keys start .. start+count-1; count >= 1 */
    const struct ring_key *lookup;     /* keys to look up one by one (may be NULL) */
    size_t n_lookup;
};

struct ring_node_stat {
    char *id;                 /* owned by the result */
    bool in_before, in_after;
    double weight_before, weight_after; /* as given; 0 when absent */
    uint64_t keys_before, keys_after;
    double space_before, space_after; /* share of the hash space; 0 when absent */
    /* what the placement gives the node: points on the continuum (ring,
     * bounded: max(1, llround(vnodes x weight)); ketama: 4 per digest),
     * table entries (maglev) or slots (slots); 0 for the others and when
     * absent */
    uint64_t points_before, points_after;
};

/* Where one looked-up key goes: its position (placement_key_position: the
 * slot for slots, 32 bits for ketama), and its owner before and after, as
 * indexes into ring_result.nodes (owner_after = owner_before without an
 * after membership). bounded: the key's owner on the ring before any cap
 * (which node takes it depends on the loads at that moment). */
struct ring_lookup {
    uint64_t position;
    uint32_t owner_before, owner_after;
};

/* Figures for one membership. */
struct ring_side {
    size_t n;                 /* members */
    uint64_t max_keys, min_keys;
    double max_over_avg;      /* max keys / (count / n) */
    double max_over_min;      /* INFINITY when a member has no key */
    double max_over_fair;     /* max of keys / (count × fair share); fair = weight share
                                 for algorithms that use weights, 1/n otherwise */
    double space_max_over_avg; /* the same for the exact shares of the hash space */
    size_t points;            /* ring, ketama, bounded: points on the continuum */
    double points_per_node;   /* K = points / n */
    double share_std;         /* ring-like: 1/(n·sqrt(K)); NAN otherwise */
    double share_rel_std;     /* ring-like: 1/sqrt(K); NAN otherwise */
    double sampling_rel_std;  /* key sampling noise of a count: sqrt((n-1)/count) */
    uint32_t cap;             /* bounded: ceil(load_factor × count / n); 0 otherwise */
    uint64_t table_size;      /* maglev M, slots 16384; 0 otherwise */
    uint64_t table_min, table_max; /* entries (slots) per member */
};

struct ring_result {
    struct ring_node_stat *nodes; /* before's members in order, then after's new ones */
    size_t n_nodes;
    bool has_after;
    uint64_t count;
    /* moved = from_removed + to_new + between_old:
     *   from_removed  the key's old owner is not in after
     *   to_new        old owner kept, new owner not in before
     *   between_old   old owner kept, new owner another member of before */
    uint64_t moved, moved_from_removed, moved_to_new, moved_between_old;
    double moved_ideal;       /* least fraction that must move: sum of fair-share drops */
    struct ring_side before, after;
    struct ring_lookup *lookups; /* one per input.lookup key, in order; owned */
    size_t n_lookups;
};

/* Runs the analysis. Returns 0, or -1 with a message in err ("after: node
 * \"A\" appears twice", "key format ..."). Cost: O((count + n_lookup) ×
 * (hash + lookup)) plus building both placements; memory O(nodes + points
 * + n_lookup), not O(count). */
int ring_analyze(const struct ring_input *in, struct ring_result *out, char *err, size_t errlen);
void ring_result_deinit(struct ring_result *r);

#endif
