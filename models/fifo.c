/*
 * fifo.c — analytic FIFO multi-server queue (see fifo.h).
 *
 * free_ns is a 4-ary min-heap of server free times: the root is the server
 * the next job takes. wait_start is a ring buffer holding, in order, the
 * start times of jobs that were still waiting when they were admitted;
 * entries whose start has passed are dropped lazily. It grows by doubling
 * up to max_queue entries, so a node that never queues much never holds
 * memory for a long queue.
 */
#include "models/fifo.h"

#include <assert.h>
#include <stdlib.h>

#include "sim/util.h"

int fifo_init(struct fifo *q, uint32_t workers, uint32_t max_queue)
{
    q->workers = workers ? workers : 1;
    q->max_queue = max_queue ? max_queue : 1;
    q->cap = MIN(q->max_queue, FIFO_INITIAL_CAP);
    /* FIFO_PAD more than the servers: INT64_MAX, the last parents' missing children */
    q->free_ns = malloc(((size_t)q->workers + FIFO_PAD) * sizeof(*q->free_ns));
    for (uint32_t i = 0; q->free_ns && i < q->workers + FIFO_PAD; i++)
        q->free_ns[i] = i < q->workers ? 0 : INT64_MAX;
    q->wait_start = calloc(q->cap, sizeof(*q->wait_start));
    q->head = q->count = 0;
    q->last_arrival = INT64_MIN;
    if (!q->free_ns || !q->wait_start) {
        fifo_deinit(q);
        return -1;
    }
    return 0;
}

void fifo_deinit(struct fifo *q)
{
    free(q->free_ns);
    free(q->wait_start);
    q->free_ns = NULL;
    q->wait_start = NULL;
}

/* Drops waiting entries that have started by t. O(1) amortized. */
static inline void drain(struct fifo *q, int64_t t_ns)
{
    while (q->count && q->wait_start[q->head] <= t_ns) {
        q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
        q->count--;
    }
}

uint32_t fifo_waiting(struct fifo *q, int64_t t_ns)
{
    drain(q, t_ns);
    return q->count;
}

/* Replaces the heap root with v and restores the heap. O(log4 workers).
 * Bottom-up (Floyd): the hole at the root goes down along the smallest
 * children to a leaf — the child is picked by conditional moves, and the
 * loop runs to the bottom whatever the values, so no branch depends on the
 * times — then v moves up from there; v is a job's end, usually later than
 * the other servers' ends, so that loop mostly stops at once. Which
 * server holds which time changes nothing outside: only the smallest is
 * ever read. The children of the last parents are padded with INT64_MAX
 * (fifo_init), so a parent with one child compares four. */
static void replace_root(struct fifo *q, int64_t v)
{
    int64_t *h = q->free_ns;
    uint32_t n = q->workers, i = 0;
    for (;;) {
        uint32_t c = 4 * i + 1;
        if (c >= n)
            break;
        /* arithmetic, not ?:, which the compiler may turn into branches */
        uint32_t b1 = c + (uint32_t)(h[c + 1] < h[c]);
        uint32_t b2 = c + 2 + (uint32_t)(h[c + 3] < h[c + 2]);
        uint32_t best = b1 ^ ((b1 ^ b2) & -(uint32_t)(h[b2] < h[b1]));
        h[i] = h[best];
        i = best;
    }
    while (i > 0) {
        uint32_t up = (i - 1) / 4;
        if (v >= h[up])
            break;
        h[i] = h[up];
        i = up;
    }
    h[i] = v;
}

/* Doubles the ring buffer (at most to max_queue), unwrapping it. Returns -1
 * when memory cannot be had. */
static int grow(struct fifo *q)
{
    uint32_t cap = q->cap > q->max_queue / 2 ? q->max_queue : q->cap * 2;
    int64_t *w = malloc((size_t)cap * sizeof(*w));
    if (!w)
        return -1;
    for (uint32_t i = 0; i < q->count; i++) {
        uint32_t k = q->head + i;
        w[i] = q->wait_start[k >= q->cap ? k - q->cap : k];
    }
    free(q->wait_start);
    q->wait_start = w;
    q->cap = cap;
    q->head = 0;
    return 0;
}

int fifo_admit(struct fifo *q, int64_t t_ns, int64_t service_ns, int64_t *start_ns,
               int64_t *done_ns)
{
    assert(t_ns >= q->last_arrival);
    q->last_arrival = t_ns;
    drain(q, t_ns);
    int64_t start = MAX(t_ns, q->free_ns[0]);
    if (start > t_ns) {
        if (q->count >= q->max_queue)
            return -1;
        if (UNLIKELY(q->count == q->cap) && grow(q))
            return -1; /* no memory for a longer queue: refused like a full one */
        uint32_t tail = q->head + q->count;
        if (tail >= q->cap)
            tail -= q->cap;
        assert(!q->count || q->wait_start[tail ? tail - 1 : q->cap - 1] <= start);
        q->wait_start[tail] = start;
        q->count++;
    }
    assert(service_ns >= 0 && start <= INT64_MAX - service_ns); /* the loader bounds times */
    int64_t done = start + service_ns;
    replace_root(q, done);
    *start_ns = start;
    *done_ns = done;
    return 0;
}

int64_t fifo_busy_between(const struct fifo *q, int64_t from_ns, int64_t to_ns)
{
    int64_t busy = 0;
    for (uint32_t i = 0; i < q->workers; i++)
        busy += MAX(0, MIN(q->free_ns[i], to_ns) - from_ns);
    return busy;
}

void fifo_reset(struct fifo *q, int64_t t_ns)
{
    for (uint32_t i = 0; i < q->workers; i++)
        q->free_ns[i] = t_ns;
    q->head = q->count = 0;
}

int64_t fifo_idle_ns(const struct fifo *q)
{
    int64_t t = INT64_MIN;
    for (uint32_t i = 0; i < q->workers; i++)
        t = MAX(t, q->free_ns[i]);
    return t;
}
