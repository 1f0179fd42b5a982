/*
 * ahead.c — the helper thread that draws streams ahead (see ahead.h).
 *
 * Each channel's ring holds the values [released, produced) not yet
 * overwritten; the run thread reads [taken, produced) and publishes taken
 * as released every AHEAD_BATCH values. The helper draws a batch only when
 * the whole batch fits behind released, and before each batch keeps the
 * state it starts from (batch_state, one slot per batch in the ring), so a
 * detach can rebuild the exact state after any value taken by redrawing at
 * most AHEAD_BATCH - 1 values.
 *
 * Locks: a->mu guards the helper's sleep, the run thread's wait and the
 * channel list; each channel's mu guards its helper-side fields, held by
 * the helper while it fills the ring and by attach and detach. The order
 * is a channel's mu, then a->mu; nothing takes a channel's mu while
 * holding a->mu. Who sleeps announces it (sleeping, waiting) before
 * checking the counts one last time, and who moves a count checks the
 * announcement after (sequentially consistent atomics), so no wake-up is
 * lost.
 */
#include "sim/ahead.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#define AHEAD_MASK (AHEAD_CAP - 1)
#define AHEAD_NBATCH (AHEAD_CAP / AHEAD_BATCH)
#define AHEAD_SPIN 4000 /* polls of an empty ring before the run thread sleeps */

_Static_assert((AHEAD_CAP & AHEAD_MASK) == 0 && AHEAD_CAP % AHEAD_BATCH == 0
                   && (AHEAD_BATCH & (AHEAD_BATCH - 1)) == 0,
               "ring and batch sizes are powers of two, the batch dividing the ring");

struct ahead {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work;          /* the helper waits here for room in a ring */
    pthread_cond_t ready;         /* the run thread waits here for values */
    struct ahead_chan *chans;     /* every channel, newest first */
    _Atomic bool sleeping;        /* the helper waits on work */
    _Atomic int waiting;          /* the run thread waits on ready */
    bool quit;
};

static pthread_mutex_t *chan_mu(struct ahead_chan *c)
{
    return c->mu;
}

/* Wakes the helper (it may be about to sleep: a->mu orders the two). */
static void wake_helper(struct ahead *a)
{
    pthread_mutex_lock(&a->mu);
    pthread_cond_signal(&a->work);
    pthread_mutex_unlock(&a->mu);
}

/* Draws batches into c until its ring is full or it is detached. */
static bool fill(struct ahead *a, struct ahead_chan *c)
{
    bool did = false;
    pthread_mutex_lock(chan_mu(c));
    while (atomic_load_explicit(&c->active, memory_order_relaxed)) {
        uint64_t p = atomic_load_explicit(&c->produced, memory_order_relaxed);
        uint64_t r = atomic_load_explicit(&c->released, memory_order_acquire);
        if (p - r + AHEAD_BATCH > AHEAD_CAP)
            break;
        memcpy(c->batch_state + (p / AHEAD_BATCH % AHEAD_NBATCH) * c->state_size, c->state,
               c->state_size);
        for (uint64_t i = 0; i < AHEAD_BATCH; i++)
            c->vals[(p + i) & AHEAD_MASK] = c->draw(c->ctx, c->state);
        atomic_store(&c->produced, p + AHEAD_BATCH);
        did = true;
        if (atomic_load(&a->waiting)) {
            pthread_mutex_lock(&a->mu);
            pthread_cond_broadcast(&a->ready);
            pthread_mutex_unlock(&a->mu);
        }
    }
    pthread_mutex_unlock(chan_mu(c));
    return did;
}

/* Whether a channel has fallen to AHEAD_LOW (the helper then works). */
static bool low(struct ahead_chan *c)
{
    return atomic_load(&c->active)
           && atomic_load(&c->produced) - atomic_load(&c->released) <= AHEAD_LOW;
}

static void *helper(void *arg)
{
    struct ahead *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->quit) {
        struct ahead_chan *list = a->chans;
        pthread_mutex_unlock(&a->mu);
        bool did = false;
        for (struct ahead_chan *c = list; c; c = c->next)
            did |= fill(a, c);
        pthread_mutex_lock(&a->mu);
        if (did)
            continue;
        atomic_store(&a->sleeping, true);
        bool any = false;
        for (struct ahead_chan *c = a->chans; c && !any; c = c->next)
            any = low(c);
        if (!any && !a->quit)
            pthread_cond_wait(&a->work, &a->mu);
        atomic_store(&a->sleeping, false);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* Frees a helper whose thread is not running (or never ran): its channels,
 * then the first `made` of its mutex and two condition variables. */
static void ahead_free(struct ahead *a, int made)
{
    struct ahead_chan *c = a->chans;
    while (c) {
        struct ahead_chan *next = c->next;
        pthread_mutex_destroy(chan_mu(c));
        free(c->mu);
        free(c->vals);
        free(c->state);
        free(c->batch_state);
        free(c);
        c = next;
    }
    if (made >= 3)
        pthread_cond_destroy(&a->ready);
    if (made >= 2)
        pthread_cond_destroy(&a->work);
    if (made >= 1)
        pthread_mutex_destroy(&a->mu);
    free(a);
}

struct ahead *ahead_create(void)
{
    struct ahead *a = line_alloc(sizeof(*a)); /* the helper locks its mutex */
    int made = 0;
    if (!a)
        return NULL;
    memset(a, 0, sizeof(*a));
    if (pthread_mutex_init(&a->mu, NULL))
        goto fail;
    made = 1;
    if (pthread_cond_init(&a->work, NULL))
        goto fail;
    made = 2;
    if (pthread_cond_init(&a->ready, NULL))
        goto fail;
    made = 3;
    /* the helper takes no signal: Ctrl-C stays with the run thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&a->thread, NULL, helper, a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc)
        goto fail;
    return a;
fail:
    ahead_free(a, made);
    return NULL;
}

void ahead_destroy(struct ahead *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->quit = true;
    pthread_cond_signal(&a->work);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    ahead_free(a, 3);
}

struct ahead_chan *ahead_chan_create(struct ahead *a, ahead_draw_fn draw, size_t state_size)
{
    if (!a)
        return NULL;
    struct ahead_chan *c = line_calloc(1, sizeof(*c));
    c->mu = line_alloc(sizeof(pthread_mutex_t));
    if (!c->mu || pthread_mutex_init(chan_mu(c), NULL)) {
        free(c->mu);
        free(c);
        return NULL;
    }
    c->owner = a;
    c->draw = draw;
    c->state_size = state_size;
    atomic_init(&c->produced, 0);
    atomic_init(&c->released, 0);
    atomic_init(&c->active, false);
    pthread_mutex_lock(&a->mu);
    c->next = a->chans;
    a->chans = c;
    pthread_mutex_unlock(&a->mu);
    return c;
}

int ahead_attach(struct ahead_chan *c, const void *state, const void *ctx)
{
    if (!c->vals) {
        /* in lines of their own (false sharing): the helper writes the
         * state at every draw, the rest at every batch */
        c->vals = line_alloc(AHEAD_CAP * sizeof(*c->vals));
        c->state = line_alloc(c->state_size);
        c->batch_state = line_alloc(AHEAD_NBATCH * c->state_size);
        if (!c->vals || !c->state || !c->batch_state) {
            free(c->vals);
            free(c->state);
            free(c->batch_state);
            c->vals = NULL;
            c->state = c->batch_state = NULL;
            return -1;
        }
    }
    pthread_mutex_lock(chan_mu(c));
    memcpy(c->state, state, c->state_size);
    c->ctx = ctx;
    c->taken = c->seen = 0;
    atomic_store(&c->produced, 0);
    atomic_store(&c->released, 0);
    atomic_store(&c->active, true);
    c->attached = true;
    pthread_mutex_unlock(chan_mu(c));
    wake_helper(c->owner);
    return 0;
}

void ahead_detach(struct ahead_chan *c, void *state)
{
    if (!c || !c->attached)
        return;
    pthread_mutex_lock(chan_mu(c)); /* the helper is between batches */
    atomic_store(&c->active, false);
    uint64_t p = atomic_load(&c->produced), t = c->taken;
    if (t == p) {
        memcpy(state, c->state, c->state_size);
    } else {
        /* batch t / AHEAD_BATCH is still in the ring (released <= t) */
        memcpy(state, c->batch_state + (t / AHEAD_BATCH % AHEAD_NBATCH) * c->state_size,
               c->state_size);
        for (uint64_t i = 0; i < t % AHEAD_BATCH; i++)
            (void)c->draw(c->ctx, state);
    }
    c->attached = false;
    pthread_mutex_unlock(chan_mu(c));
}

void ahead_refill_(struct ahead_chan *c)
{
    struct ahead *a = c->owner;
    uint64_t p;
    for (int i = 0; i <= AHEAD_SPIN; i++) {
        p = atomic_load_explicit(&c->produced, memory_order_acquire);
        if (p != c->taken) {
            c->seen = p;
            return;
        }
        if (i == 0) /* empty: say what was taken, so the helper has room */
            ahead_release_(c);
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&a->mu);
    atomic_fetch_add(&a->waiting, 1);
    while ((p = atomic_load(&c->produced)) == c->taken)
        pthread_cond_wait(&a->ready, &a->mu);
    atomic_fetch_sub(&a->waiting, 1);
    pthread_mutex_unlock(&a->mu);
    c->seen = p;
}

void ahead_release_(struct ahead_chan *c)
{
    atomic_store(&c->released, c->taken);
    if (atomic_load(&c->owner->sleeping)
        && atomic_load_explicit(&c->produced, memory_order_relaxed) - c->taken <= AHEAD_LOW)
        wake_helper(c->owner);
}

/* ---- exponential streams ------------------------------------------------------------ */

static uint64_t draw_unit_exp(const void *ctx, void *state)
{
    (void)ctx;
    return ahead_double_bits(-log(rng_uniform_pos(state)));
}

void exp_stream_init(struct exp_stream *e, uint64_t seed, const char *name, struct ahead *a)
{
    rng_init(&e->rng, seed, name);
    e->ch = ahead_chan_create(a, draw_unit_exp, sizeof(e->rng));
}
