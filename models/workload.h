/*
 * workload.h — the keyspace (every key's name, placement position, item
 * size and per-key record) and the request stream: synthetic (Poisson
 * arrivals, possibly shaped by ramps and a daily cycle) or replayed from a
 * trace (models/trace_reader.c). Owned by workload.c.
 */
#ifndef RINGSIM_WORKLOAD_H
#define RINGSIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/placement/placement.h"
#include "models/store.h"
#include "sim/ahead.h"
#include "sim/rng.h"
#include "sim/scenario.h"
#include "sim/sim.h"

struct trace_reader;

struct keyspace {
    uint32_t n_keys;      /* ids 0..n_keys-1 (popularity ranks) are key_format(name_of[id]) */
    uint32_t *name_of;    /* seeded permutation: the name number of each id; NULL with a trace */
    const struct trace_reader *trace; /* with a trace: its keys (ids by request count), or NULL */
    char *fmt64, *fmt64u; /* key_format for 64-bit object ids (signed and unsigned) */
    uint32_t n_total;     /* plus hot keys outside that range */
    struct key_rec *rec;  /* per key: position (here), first item (store), version (db) */
    uint32_t *item_bytes; /* value_bytes + name length; NULL when all are bytes_fixed */
    uint32_t bytes_fixed;
    char **extra_names;   /* names of ids >= n_keys: hot keys outside key_format, then
                             the copies NAME#0 ... of split hot keys */
    char *key_format;
    char conv;            /* the format's conversion: d i u x X */
};

struct hot_entry {
    uint32_t key;
    double share;
};

struct hot_name {
    const char *name;        /* points into the scenario */
    uint32_t id;
    uint32_t split;          /* the most copies any hot key entry gives it (1: never split) */
    uint32_t split_first;    /* the id of copy NAME#0 (copies have consecutive ids) */
};

/* What one arrival's draws (instance, operation, key) depend on. Apart
 * from the workload's fields that change with every request, and fixed
 * while the helper thread draws with them (sim/ahead.h): only changed
 * with the channel detached. */
struct request_draw {
    uint32_t n_inst;
    double write_ratio;
    enum popularity kind;
    uint32_t n_keys;         /* ranks 0..n_keys-1 */
    double zipf_s;           /* rejection-inversion constants below */
    double z_hn, z_sc;
    uint32_t z_head;         /* ranks 1..z_head are drawn from a table */
    double z_phead;          /* their total probability */
    double z_hm;             /* H(z_head + 0.5): the tail's end in H space */
    double *z_cdf;           /* cumulative probability within the head */
    double z_mass;           /* sum of k^-s over all ranks: the normaliser */
    uint32_t *z_guide;       /* guide table: first rank whose cdf reaches g / z_head */
    struct hot_entry *hot;   /* active hot keys: the file's, overridden by events */
    size_t n_hot;
    double hot_total;
};

/* The streams of those draws, one per purpose. */
struct request_streams {
    struct rng instances, ops, keys;
};

/* A request's operation: a read, a write (a set), or a trace's delete (a
 * write whose cache operations always invalidate, whatever clients.write). */
enum workload_op { WOP_GET, WOP_SET, WOP_DELETE };

/* One arrival's draws, made ahead of time (see workload.c). */
struct arrival_draw {
    double t_ns;             /* a trace's request: its time (synthetic: next_arrival_ns) */
    uint32_t key, inst;
    uint8_t op;              /* enum workload_op */
};

/* A time after the end of every run (2^62 ns): no more arrivals. */
#define WORKLOAD_NEVER_NS 4611686018427387904.0
#define WORKLOAD_AHEAD 8

struct workload {
    struct keyspace ks;
    struct arrival_draw ahead[WORKLOAD_AHEAD]; /* ring of draws not yet used */
    uint32_t ahead_head, ahead_n;
    struct request_draw *rd; /* its own cache lines */
    struct request_streams rs;  /* while req_ch holds them, stale */
    struct ahead_chan *req_ch;  /* draws rs ahead on the helper thread, or NULL */
    struct exp_stream arrivals; /* the gaps between arrivals */
    double qps;              /* the rate (with a ramp: its target; with a cycle: its mean) */
    double next_arrival_ns;  /* exact, for rounding without drift; may pass the run's end
                                (and 2^63) at a tiny rate: the run clamps it */
    double horizon_ns;       /* the run's end: a shaped rate stops looking past it */
    /* shapes: rate(t) = base(t) x (1 + d_amp cos(2 pi (t - d_peak_ns) / d_period_ns)),
     * base(t) going linearly from ramp_from at ramp_t0_ns to qps at ramp_t1_ns */
    bool shaped;             /* the rate varies now: arrivals by thinning */
    double ramp_from, ramp_t0_ns, ramp_t1_ns;
    double d_amp, d_period_ns, d_peak_ns;
    /* shift_popularity: rank r names key rank_key[r] (NULL: key r) */
    uint32_t *rank_key, *key_rank;
    struct rng shift;
    /* a trace's requests instead of drawn ones */
    struct trace_reader *trace;
    int64_t ttl_ns;          /* workload.ttl */
    double end_ns;           /* the run's duration: the trace is not read past it */
    bool trace_done;
    const char *error;       /* set when the trace cannot be read on: the run fails */
    struct hot_name *hot_names; /* every hot key name of the scenario, sorted, with its id */
    size_t n_hot_names;
};

/* Builds s->wl for s->sc (positions by s->pp). Returns 0, or -1 with a
 * reason in err. */
int workload_create(struct sim *s, char *err, size_t errlen);
void workload_destroy(struct workload *w);
/* The next arrival: its time, instance, operation and key. */
void workload_next(struct workload *w, int64_t *t_ns, uint32_t *inst, uint8_t *op,
                   uint32_t *key);
/* When the next arrival will be (ns, exact). */
static inline double workload_next_time(const struct workload *w)
{
    return w->next_arrival_ns;
}
/* The key of the arrival workload_next will return next. */
static inline uint32_t workload_peek_key(const struct workload *w)
{
    return w->ahead[w->ahead_head].key;
}
uint32_t workload_sample_key(struct workload *w);
/* The rate becomes qps from now (over_ns 0), or moves there linearly over over_ns. */
void workload_set_qps(struct workload *w, int64_t now_ns, double qps, int64_t over_ns);
/* The popularity ranks move to other keys (a new seeded permutation). */
void workload_shift_popularity(struct workload *w);
/* The rate at time t (ns), synthetic requests only. */
double workload_rate(const struct workload *w, double t_ns);
/* When the trace ends (ns; the end of its last second), or -1 without a trace. */
double workload_trace_end_ns(const struct workload *w);
/* Item lifetime of key (0: none): a csv trace's own ttl, else workload.ttl. */
int64_t workload_ttl_ns(const struct workload *w, uint32_t key);
/* Reads of key a second, on average (prewarm's steady state). */
double workload_read_rate(const struct workload *w, uint32_t key);
void workload_set_hot(struct workload *w, const struct scenario *sc, int64_t now_ns);
/* The id of a hot key of the scenario (any name in workload.hot_keys or a
 * hot_key event), UINT32_MAX for another name. O(log hot keys). */
uint32_t workload_key_id(const struct workload *w, const char *name);
/* The share of requests drawn for hot key `name` now (0: not hot now). */
double workload_hot_share(const struct workload *w, const char *name);
/* A hot key's split copies (hot_key split: K): how many there are (1: it is
 * never split) and the first one's id in *first. */
uint32_t workload_split_copies(const struct workload *w, uint32_t key, uint32_t *first);

const char *keyspace_name(const struct keyspace *ks, uint32_t id, char *buf, size_t n);
static inline uint32_t keyspace_item_bytes(const struct keyspace *ks, uint32_t id)
{
    return ks->item_bytes ? ks->item_bytes[id] : ks->bytes_fixed;
}
/* Probability that one request (ignoring hot keys) picks popularity rank r
 * (with a trace: key id r's share of the trace's requests). */
double workload_rank_prob(const struct workload *w, uint32_t rank);
/* Probability that one request picks key id (hot keys included). */
double workload_key_prob(const struct workload *w, uint32_t key);

#endif
