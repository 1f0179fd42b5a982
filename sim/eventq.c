/*
 * eventq.c — a calendar of the near future in front of a 4-ary min-heap of
 * 128-bit keys, the payloads in slots.
 *
 * A key is t_ns << 64 | seq << EVENTQ_SLOT_BITS | slot: ordering keys as
 * numbers orders events by (time, sequence), the slot (unique among pending
 * events) never deciding.
 *
 * The calendar. An event at time t belongs to bucket t >> EVENTQ_CAL_SHIFT
 * (absolute); bucket b sits at ring index b mod EVENTQ_CAL_BUCKETS. Every
 * event in the calendar lies in a bucket from cal_base (the bucket of the
 * last event taken) to cal_base + EVENTQ_CAL_BUCKETS - 1, so no two
 * absolute buckets share a ring index, and the first bucket in use from
 * cal_base on (a bitmap scan) holds the calendar's earliest event. Each
 * bucket keeps its events sorted by key in a list through the slots: the
 * earliest is its head. An event goes to the heap instead when it lies
 * past that window, when its bucket already holds EVENTQ_CAL_PER_BUCKET
 * (so a burst never makes a list long), or when it is earlier than
 * cal_base (never in a run: nothing is scheduled in the past). Taking an
 * event moves cal_base forward to its bucket; what is left is no earlier,
 * so the window still covers it (an event taken from before cal_base, which
 * only the heap holds, leaves cal_base where it is). In a run most events are a few round trips
 * or service times ahead: a push is a bucket's short list, a pop a head and
 * a scan of a word or two of bitmap, where the heap would sift through
 * log4(n) levels both ways.
 *
 * The heap. The four children of a node fill exactly one cache line (the
 * array is placed so that heap[1] starts one), and the smallest of them is
 * found by compares without branches. Pop moves the hole left at the root
 * down along the smaller children to the bottom, then moves the last key up
 * from there into place (Floyd's bottom-up heap).
 *
 * The lane (eventq_push_fifo). A ring of keys pushed in rising order of
 * time — hence of key, the sequence rising too — so its first is its
 * earliest. Only that first one is in the heap as well; when the heap gives
 * it up, the lane's next takes its place there. It holds the GETs' timeouts
 * with arrival delivery, one per GET at clients.timeout after it (beyond
 * the calendar's window), which would otherwise fill the heap with
 * thousands of keys to sift through both ways; the calendar's pop, the hot
 * path, does not know the lane exists.
 *
 * The earliest key of both (top) and where it is are kept, so
 * eventq_next_time is a load and a pop takes it without a search.
 *
 * Slots: a free list, most recently freed first, so the slots in use stay
 * few and hot; an event's kind and payload are read once, when it is popped.
 *
 * Sequence numbers have 38 bits (2.7e11 events). When they run out, every
 * pending key (calendar and heap) is sorted into the heap (a sorted array is
 * a heap) and renumbered 0, 1, ... in that order: the order of what is
 * pending does not change, and nothing else ever sees a sequence number.
 *
 * Invariants: for every i > 0, heap[(i-1)/4] <= heap[i]; every calendar
 * list is sorted and lies in [cal_base, cal_base + EVENTQ_CAL_BUCKETS);
 * cal_used has a bit exactly for the buckets that hold any; the lane's
 * keys rise from its head, which (alone of them) is in the heap; top is the
 * smallest pending key.
 */
#include "sim/eventq.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

#define ARITY 4
#define SLOT_MASK ((1ull << EVENTQ_SLOT_BITS) - 1)
#define NO_SLOT EVENTQ_NO_SLOT
_Static_assert((EVENTQ_MAX & (EVENTQ_MAX - 1)) == 0 && EVENTQ_MAX >= 1024,
               "slots double from 1,024 to EVENTQ_MAX exactly");
#define LINE 64
/* heap[0] sits 3 keys before a cache line: heap[4i+1..4i+4] share one */
#define LEAD (LINE - 3 * sizeof(eventq_key))

static inline uint32_t key_slot(eventq_key k)
{
    return (uint32_t)((uint64_t)k & SLOT_MASK);
}

static void *alloc_heap(size_t cap, eventq_key **heap)
{
    void *mem = aligned_alloc(LINE, (cap * sizeof(eventq_key) + LEAD + LINE - 1) / LINE * LINE);
    *heap = mem ? (eventq_key *)(void *)((char *)mem + LEAD) : NULL;
    return mem;
}

void eventq_init(struct eventq *q)
{
    memset(q, 0, sizeof(*q));
    q->cap = 1024;
    q->mem = alloc_heap(q->cap, &q->heap);
    if (!q->mem) { /* as xmalloc: a small allocation that must not fail */
        fputs("ringsim: out of memory\n", stderr);
        exit(1);
    }
    q->n_slots = 1024; /* a power of two up to EVENTQ_MAX: see more_slots */
    q->slot = xmalloc(q->n_slots * sizeof(*q->slot));
    q->cal_head = xmalloc(EVENTQ_CAL_BUCKETS * sizeof(*q->cal_head));
    q->cal_count = xcalloc(EVENTQ_CAL_BUCKETS, sizeof(*q->cal_count));
    for (uint32_t i = 0; i < EVENTQ_CAL_BUCKETS; i++)
        q->cal_head[i] = NO_SLOT;
    for (uint32_t i = 0; i < q->n_slots; i++)
        q->slot[i].kind = i + 1 < q->n_slots ? i + 1 : NO_SLOT;
    q->free_slot = 0;
}

void eventq_deinit(struct eventq *q)
{
    free(q->mem);
    free(q->slot);
    free(q->cal_head);
    free(q->cal_count);
    free(q->lane);
    q->lane = NULL;
    q->lane_cap = q->lane_head = q->lane_n = 0;
    q->mem = NULL;
    q->heap = NULL;
    q->slot = NULL;
    q->cal_head = NULL;
    q->cal_count = NULL;
    q->n = q->hn = q->cap = 0;
    q->cal_n = 0;
    q->n_slots = 0;
}

static int cmp_key(const void *x, const void *y)
{
    eventq_key a = *(const eventq_key *)x, b = *(const eventq_key *)y;
    return (a > b) - (a < b);
}

static int grow(struct eventq *q)
{
    if (q->cap >= EVENTQ_MAX)
        return -1;
    size_t cap = q->cap * 2;
    eventq_key *heap;
    void *mem = alloc_heap(cap, &heap);
    if (!mem)
        return -1;
    memcpy(heap, q->heap, q->hn * sizeof(*heap));
    free(q->mem);
    q->mem = mem;
    q->heap = heap;
    q->cap = cap;
    return 0;
}

/* Called only when every slot is taken and fewer than EVENTQ_MAX events are
 * pending, so slots (1,024 doubled) never outnumber EVENTQ_MAX: a free
 * slot means room (eventq_push's fast path counts on it). */
static int more_slots(struct eventq *q)
{
    uint32_t n = q->n_slots * 2;
    struct eventq_slot *s = realloc(q->slot, n * sizeof(*s));
    if (!s)
        return -1;
    for (uint32_t i = q->n_slots; i < n; i++)
        s[i].kind = i + 1 < n ? i + 1 : NO_SLOT;
    q->slot = s;
    q->free_slot = q->n_slots;
    q->n_slots = n;
    return 0;
}

/* The first bucket in use from cal_base on (cal_n > 0): its ring index. */
static inline uint32_t cal_first(const struct eventq *q)
{
    const uint32_t words = EVENTQ_CAL_BUCKETS / 64;
    uint32_t i = (uint32_t)(q->cal_base & (EVENTQ_CAL_BUCKETS - 1)), w = i / 64;
    uint64_t bits = q->cal_used[w] & (~0ull << (i % 64));
    while (!bits) { /* some bit is set: at worst the low part of word w, wrapped round */
        w = w + 1 == words ? 0 : w + 1;
        bits = q->cal_used[w];
    }
    return w * 64 + (uint32_t)__builtin_ctzll(bits);
}

/* top: the smaller of the heap's root and the calendar's earliest (n > 0). */
static inline void find_top(struct eventq *q)
{
    q->top = q->hn ? q->heap[0] : ~(eventq_key)0;
    q->top_bucket = EVENTQ_IN_HEAP;
    if (q->cal_n) {
        uint32_t b = cal_first(q);
        eventq_key k = q->slot[q->cal_head[b]].key;
        if (k < q->top) {
            q->top = k;
            q->top_bucket = b;
        }
    }
}

/* Puts k into the hole at i, moving larger parents down into it. */
static inline void sift_up(eventq_key *h, size_t i, eventq_key k)
{
    while (i > 0) {
        size_t up = (i - 1) / ARITY;
        if (k >= h[up])
            break;
        h[i] = h[up];
        i = up;
    }
    h[i] = k;
}

/* The sequence numbers ran out: every pending key goes into the heap,
 * sorted, and is renumbered in that order. Returns -1 without memory for
 * the heap (nothing changed). */
static int renumber(struct eventq *q)
{
    while (q->cap < q->n)
        if (grow(q))
            return -1;
    for (uint32_t b = 0; b < EVENTQ_CAL_BUCKETS; b++) {
        for (uint32_t sl = q->cal_head[b]; sl != NO_SLOT; sl = q->slot[sl].next)
            q->heap[q->hn++] = q->slot[sl].key;
        q->cal_head[b] = NO_SLOT;
        q->cal_count[b] = 0;
    }
    memset(q->cal_used, 0, sizeof(q->cal_used));
    q->cal_n = 0;
    for (uint32_t i = 1; i < q->lane_n; i++) /* its first is in the heap already */
        q->heap[q->hn++] = q->lane[(q->lane_head + i) & (q->lane_cap - 1)];
    q->lane_head = q->lane_n = 0;
    qsort(q->heap, q->hn, sizeof(*q->heap), cmp_key);
    for (size_t i = 0; i < q->hn; i++)
        q->heap[i] = (q->heap[i] >> 64 << 64) | ((eventq_key)i << EVENTQ_SLOT_BITS)
                     | key_slot(q->heap[i]);
    q->next_seq = q->hn;
    if (q->n)
        find_top(q);
    return 0;
}

/* Before a push off the fast path: the bound, a free slot, a sequence
 * number. -1: at the bound, or no memory. */
static int make_room(struct eventq *q, int64_t t_ns, unsigned kind)
{
    assert(kind < 256 && t_ns >= 0);
    (void)kind, (void)t_ns;
    if (UNLIKELY(q->n >= EVENTQ_MAX))
        return -1;
    if (UNLIKELY(q->free_slot == NO_SLOT) && more_slots(q))
        return -1;
    if (UNLIKELY(q->next_seq == EVENTQ_SEQ_LIMIT) && renumber(q))
        return -1;
    return 0;
}

/* Everything but the calendar fast path of eventq_push (eventq.h): the
 * bounds, more slots, renumbering, a full or far bucket, the heap. */
int eventq_push_slow_(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b)
{
    if (make_room(q, t_ns, kind))
        return -1;
    uint32_t sl = q->free_slot;
    struct eventq_slot *p = &q->slot[sl];
    eventq_key k = eventq_key_of_(q, t_ns, sl);
    uint64_t ahead = ((uint64_t)t_ns >> EVENTQ_CAL_SHIFT) - q->cal_base; /* wraps when earlier */
    uint32_t bk = (uint32_t)(((uint64_t)t_ns >> EVENTQ_CAL_SHIFT) & (EVENTQ_CAL_BUCKETS - 1));
    uint32_t where;
    if (ahead < EVENTQ_CAL_BUCKETS && q->cal_count[bk] < EVENTQ_CAL_PER_BUCKET) {
        eventq_cal_insert_(q, sl, k, bk);
        where = bk;
    } else {
        if (UNLIKELY(q->hn == q->cap) && grow(q))
            return -1;
        sift_up(q->heap, q->hn++, k);
        where = EVENTQ_IN_HEAP;
    }
    eventq_fill_slot_(q, p, k, kind, a, b, where);
    return 0;
}

/* Doubles the lane (from 1,024; it holds fewer than EVENTQ_MAX), unwrapping
 * it. -1: no memory. */
static int grow_lane(struct eventq *q)
{
    uint32_t cap = q->lane_cap ? q->lane_cap * 2 : 1024;
    eventq_key *l = malloc((size_t)cap * sizeof(*l));
    if (!l)
        return -1;
    for (uint32_t i = 0; i < q->lane_n; i++)
        l[i] = q->lane[(q->lane_head + i) & (q->lane_cap - 1)];
    free(q->lane);
    q->lane = l;
    q->lane_cap = cap;
    q->lane_head = 0;
    return 0;
}

int eventq_push_fifo(struct eventq *q, int64_t t_ns, unsigned kind, uint32_t a, uint32_t b)
{
    if (q->lane_n
        && t_ns < (int64_t)(q->lane[(q->lane_head + q->lane_n - 1) & (q->lane_cap - 1)] >> 64))
        /* before the lane's last: not the lane's. (Not through eventq_push, which the
         * compiler then stops inlining where events are scheduled: 55 more
         * instructions a request, measured.) */
        return eventq_push_slow_(q, t_ns, kind, a, b);
    if (make_room(q, t_ns, kind))
        return -1;
    if (UNLIKELY(q->lane_n == q->lane_cap) && grow_lane(q))
        return -1;
    if (UNLIKELY(q->hn == q->cap) && grow(q)) /* room for it, or for it to come */
        return -1;
    uint32_t sl = q->free_slot;
    eventq_key k = eventq_key_of_(q, t_ns, sl);
    if (!q->lane_n) /* the lane's first: into the heap too */
        sift_up(q->heap, q->hn++, k);
    q->lane[(q->lane_head + q->lane_n) & (q->lane_cap - 1)] = k;
    q->lane_n++;
    /* only the lane's first can be the earliest, and it is in the heap */
    eventq_fill_slot_(q, &q->slot[sl], k, kind, a, b, EVENTQ_IN_HEAP);
    return 0;
}

static inline void fill_event(const struct eventq *q, eventq_key k, struct event *e)
{
    const struct eventq_slot *p = &q->slot[key_slot(k)];
    e->t_ns = (int64_t)(uint64_t)(k >> 64);
    e->seq_kind = ((uint64_t)k >> EVENTQ_SLOT_BITS) << 8 | p->kind;
    e->a = p->a;
    e->b = p->b;
}

bool eventq_peek(const struct eventq *q, struct event *e)
{
    if (!q->n)
        return false;
    fill_event(q, q->top, e);
    return true;
}

/* Removes the heap's root. */
static void heap_pop(struct eventq *q);

/* The heap gave up top: if it was the lane's first, the lane's next takes
 * its place in the heap (there is room: the heap just gave one up). */
static inline void lane_next(struct eventq *q, eventq_key top)
{
    if (!q->lane_n || q->lane[q->lane_head] != top)
        return;
    q->lane_head = (q->lane_head + 1) & (q->lane_cap - 1);
    if (--q->lane_n) {
        assert(q->hn < q->cap);
        sift_up(q->heap, q->hn++, q->lane[q->lane_head]);
    }
}

static void heap_pop(struct eventq *q)
{
    eventq_key *h = q->heap;
    size_t n = --q->hn;
    if (!n)
        return;
    eventq_key last = h[n];
    /* the hole goes down to the bottom along the smaller children */
    size_t i = 0;
    for (;;) {
        size_t c = i * ARITY + 1;
        if (c + ARITY <= n) { /* four children: no branch but the loop's */
            size_t b1 = h[c + 1] < h[c] ? c + 1 : c;
            size_t b2 = h[c + 3] < h[c + 2] ? c + 3 : c + 2;
            size_t best = h[b2] < h[b1] ? b2 : b1;
            h[i] = h[best];
            i = best;
            continue;
        }
        if (c >= n)
            break;
        size_t best = c;
        for (size_t j = c + 1; j < n; j++)
            if (h[j] < h[best])
                best = j;
        h[i] = h[best];
        i = best;
    }
    sift_up(h, i, last); /* then the last key up from there */
}

/* eventq_pop's body, for its two entries: the hot one (inlined into the run
 * loop, its one caller there) and a cold one for rare callers. */
static inline __attribute__((always_inline)) bool pop_top(struct eventq *q, struct event *out)
{
    if (!q->n)
        return false;
    eventq_key top = q->top;
    uint32_t sl = key_slot(top);
    struct eventq_slot *p = &q->slot[sl];
    fill_event(q, top, out);
    uint32_t next = p->next; /* in a calendar bucket: the bucket's next event */
    p->kind = q->free_slot;
    q->free_slot = sl;
    /* forward only: an event scheduled in the past (from the heap) leaves it */
    uint64_t at = (uint64_t)out->t_ns >> EVENTQ_CAL_SHIFT;
    if (at > q->cal_base)
        q->cal_base = at;
    q->n--;
    if (q->top_bucket == EVENTQ_IN_HEAP) {
        heap_pop(q);
        lane_next(q, top);
    } else {
        uint32_t bk = q->top_bucket;
        assert(q->cal_head[bk] == sl);
        q->cal_head[bk] = next;
        q->cal_n--;
        if (--q->cal_count[bk]) {
            /* the bucket's next event is the calendar's earliest: the others
             * lie in later buckets (cal_base is this one now) */
            eventq_key k = q->slot[next].key;
            if (q->hn && q->heap[0] < k) {
                q->top = q->heap[0];
                q->top_bucket = EVENTQ_IN_HEAP;
            } else {
                q->top = k;
            }
            return true;
        }
        q->cal_used[bk / 64] &= ~(1ull << (bk % 64));
    }
    if (q->n)
        find_top(q);
    return true;
}

bool eventq_pop(struct eventq *q, struct event *out)
{
    return pop_top(q, out);
}

__attribute__((noinline, cold)) bool eventq_pop_cold(struct eventq *q, struct event *out)
{
    return pop_top(q, out);
}
