/*
 * ahead.h — random draws made ahead of time on a helper thread.
 *
 * Some streams' draws never depend on the model's state: the k-th key of
 * the request stream, the k-th service time of node B (before its mean is
 * applied) are fixed by the seed alone. A channel computes such a stream's
 * values on the helper thread, in the order the stream would, into a ring
 * the run's thread reads; the run takes them in order, exactly as if it had
 * drawn them itself, so results are byte-identical with or without it.
 *
 *     run thread                         helper thread
 *     ahead_take(ch) ──► ring of values ◄── draw(ctx, state, &value) x batch
 *                    ──► taken count    ──► (frees room)
 *
 * A channel is attached with the stream's state (ahead_attach) and from
 * then on owns it; ahead_detach hands back the exact state after the
 * values taken (the helper may have drawn further: those are dropped), so
 * the owner can go on drawing inline — when a draw's parameters change
 * (hot keys, shaped arrivals), or for good. While attached, the draw's
 * context (ctx) is read by the helper and must not change.
 *
 * The run thread's ahead_take never locks: the ring's counts are atomics
 * (acquire/release); it blocks only when the helper has fallen behind and
 * the ring is empty. The helper sleeps when every ring is full enough and
 * is woken when one falls to half. Without a helper (ahead_create returned
 * NULL, or no channel), the owners draw inline: the same function, the
 * same values.
 */
#ifndef RINGSIM_AHEAD_H
#define RINGSIM_AHEAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/rng.h"
#include "sim/util.h"

#define AHEAD_CAP 8192u   /* values in a channel's ring (64 KiB) */
#define AHEAD_BATCH 256u  /* values the helper draws at a time; also how often the run
                             thread tells it what it has taken */
#define AHEAD_PREFETCH 512u /* values ahead of the one taken whose line is fetched.
                               Bounds: at least a line (8 values), so that even a
                               stream taken at every request has its next line on the
                               way a few requests before it is read; below AHEAD_LOW,
                               so the line is one the helper has written (it keeps at
                               least that many ready); few enough lines (64 here) that
                               a stream taken at a tenth of the requests still finds
                               them in this core's L2. Within those bounds the time is
                               flat: 64 and 512 measured within 1% of each other */
#define AHEAD_LOW (AHEAD_CAP / 2) /* a ring this empty wakes the sleeping helper */
_Static_assert(AHEAD_PREFETCH < AHEAD_LOW, "prefetch within the values kept ready");
#define AHEAD_MAX_NODE_CHANNELS 64 /* nodes whose service times are drawn ahead (the
                                      first ones; the others' inline): at most 4 MiB */

/* Draws one value from *state (advancing it) with the parameters in ctx. */
typedef uint64_t (*ahead_draw_fn)(const void *ctx, void *state);

struct ahead;

struct ahead_chan {
    /* the run thread's side */
    uint64_t taken;           /* values taken since attached */
    uint64_t seen;            /* values produced, as last read */
    uint64_t *vals;           /* the ring (allocated at the first attach) */
    struct ahead *owner;
    bool attached;
    /* shared */
    _Alignas(64) _Atomic uint64_t produced; /* a multiple of AHEAD_BATCH */
    _Atomic uint64_t released;              /* taken, as published every batch */
    _Atomic bool active;
    /* the helper's side, under mu */
    _Alignas(64) void *mu;    /* pthread_mutex_t (kept out of this header) */
    ahead_draw_fn draw;
    const void *ctx;
    size_t state_size;
    unsigned char *state;     /* the helper's copy of the stream */
    unsigned char *batch_state; /* per batch in the ring: the state it started from */
    struct ahead_chan *next;  /* the helper's list */
};

/* Starts the helper thread; NULL when it cannot be had (the owners then
 * draw inline). */
struct ahead *ahead_create(void);
/* Stops and joins the helper, then frees every channel. Call before
 * freeing anything a channel's ctx points to. NULL is fine. */
void ahead_destroy(struct ahead *a);
/* A new channel for draws of draw over a state of state_size bytes; NULL
 * without a helper. Not attached yet. */
struct ahead_chan *ahead_chan_create(struct ahead *a, ahead_draw_fn draw, size_t state_size);
/* The channel takes over the stream: *state as it is now, ctx read by the
 * helper until detached. Returns -1 (and stays detached) without memory. */
int ahead_attach(struct ahead_chan *c, const void *state, const void *ctx);
/* Hands the stream back: *state becomes exactly what drawing the values
 * taken inline would have left. Nothing happens when c is NULL or not
 * attached (*state is then the stream already). */
void ahead_detach(struct ahead_chan *c, void *state);

/* Whether the channel *cp holds the stream, handing it *state and ctx if
 * it does not yet; a channel that cannot (no memory for its ring) is
 * dropped (*cp = NULL) and the owner draws inline from then on. */
static inline bool ahead_hold(struct ahead_chan **cp, const void *state, const void *ctx)
{
    if (!*cp)
        return false;
    if (UNLIKELY(!(*cp)->attached) && ahead_attach(*cp, state, ctx)) {
        *cp = NULL;
        return false;
    }
    return true;
}

void ahead_refill_(struct ahead_chan *c);
void ahead_release_(struct ahead_chan *c);

/* The next value (the channel must be attached). O(1); blocks only while
 * the helper catches up. */
static inline uint64_t ahead_take(struct ahead_chan *c)
{
    if (UNLIKELY(c->taken == c->seen))
        ahead_refill_(c);
    uint64_t v = c->vals[c->taken & (AHEAD_CAP - 1)];
    __builtin_prefetch(&c->vals[(c->taken + AHEAD_PREFETCH) & (AHEAD_CAP - 1)]);
    if (UNLIKELY((++c->taken & (AHEAD_BATCH - 1)) == 0))
        ahead_release_(c);
    return v;
}

static inline double ahead_bits_double(uint64_t v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

static inline uint64_t ahead_double_bits(double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

/* ---- exponential streams ---------------------------------------------------------

 * A stream of exponential draws (service times, arrival gaps, jitter): the
 * helper draws -log(U) ahead, the owner multiplies by the mean. That is
 * rng_exp bit for bit: rng_exp computes (-mean) * log(U), and IEEE
 * multiplication rounds x * (-y) and (-x) * y to the same number. */
struct exp_stream {
    struct rng rng;           /* the stream, while no channel holds it */
    struct ahead_chan *ch;    /* NULL: drawn inline */
};

/* Sets up a stream named name (seeded as rng_init does); with a helper, it
 * gets a channel. */
void exp_stream_init(struct exp_stream *e, uint64_t seed, const char *name, struct ahead *a);
/* The stream itself, for draws of other kinds (taken back from the
 * helper if it holds it; the next exp_stream_draw hands it over again). */
static inline struct rng *exp_stream_rng(struct exp_stream *e)
{
    ahead_detach(e->ch, &e->rng);
    return &e->rng;
}

/* An exponential with the given mean (>= 0). */
static inline double exp_stream_draw(struct exp_stream *e, double mean)
{
    if (ahead_hold(&e->ch, &e->rng, NULL))
        return mean * ahead_bits_double(ahead_take(e->ch));
    return rng_exp(&e->rng, mean);
}

#endif
