/*
 * workload.c — the keyspace and the request stream.
 *
 * Keyspace: a key's id is its popularity rank (0 = the most requested),
 * and its name is key_format(name_of[id]), where name_of is a seeded
 * permutation — so the hottest keys are not simply the first names, while
 * the hot keys' per-key data (position, size, version) sits together at
 * the front of every per-key array and stays in the CPU caches. Hot keys
 * named outside the format's range get ids after the rest. Every key's
 * placement position and item size are computed once here, so a request
 * never formats or hashes a string.
 *
 * Requests: one Poisson stream at `qps` for all client instances together;
 * each arrival draws, from its own stream, the instance (uniform), the
 * operation (write with probability write_ratio) and the key. Key choice:
 * with probability (sum of hot shares) a hot key, in proportion to the
 * shares; otherwise a popularity rank — uniform, or Zipf(s) by Hörmann &
 * Derflinger's rejection-inversion for the tail, an exact table for the
 * first ZIPF_HEAD ranks (O(1) each, below) — which is the key id.
 * No draw depends on the model's state: the same scenario and seed give the
 * same requests whatever the routing or health settings.
 *
 * Draws are made WORKLOAD_AHEAD arrivals ahead and the key's record is
 * prefetched then: by the time the request is handled its per-key state is
 * in the CPU cache (a run is bound by memory latency on the cold keys).
 * Each purpose has its own stream, so drawing early changes no value; a
 * change of the hot keys, or of the popularity permutation, discards the
 * draws made under the old ones.
 *
 * An arrival's instance, operation and key pick (a rank, or a hot key's
 * index) are one packed value of draw_request, computed from struct
 * request_draw and the three streams — inline, or ahead on the helper
 * thread (sim/ahead.h), which holds the streams from the first draw until
 * the hot keys change (the draw reads them) and then hands them back
 * exactly where the run had got to. The rank becomes a key id only when
 * taken (rank_key may have been shuffled since). The arrival gaps are an
 * exp_stream, drawn ahead the same way while the rate is constant.
 *
 * Shapes: a set_qps ramp (linear from the rate at that moment to the new
 * one) and workload.diurnal make the rate a function of time. Arrivals stay
 * an exact non-homogeneous Poisson process, by thinning: over a piece of
 * time (a 32nd of a ramp; no end without one) candidates come at a bound of
 * the piece's rate (its highest base times 1 + amplitude) and each is kept
 * with probability rate(t) / that bound; a candidate past the piece's end
 * is dropped and the next piece starts there (memorylessness makes that
 * exact). A constant rate uses no thinning: its draws are exactly those of
 * a scenario without shapes.
 *
 * shift_popularity: popularity rank r names key rank_key[r], a seeded
 * permutation that each shift shuffles again (its own stream, `shift`); key
 * ids stay what they were (names, positions, cached items), only which of
 * them are hot changes.
 *
 * A trace (workload.trace): the keyspace is the trace's distinct keys,
 * numbered by request count (so ids are popularity ranks here too), named by
 * key_format (oracle_general object ids, all 64 bits) or by the trace (csv);
 * each request's time, key and operation come from the trace
 * (models/trace_reader.c), its instance from `instances`. Items take the
 * size the trace first gives a key (else value_bytes + the name's length)
 * and a csv trace's ttl.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload.h"

#include "models/trace_reader.h"

/* ---- keyspace ------------------------------------------------------------- */

/* The conversion character of a validated key format (d, i, u, x or X). */
static char format_conversion(const char *fmt)
{
    for (const char *p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        while (*p && strchr("-+ #0123456789.", *p))
            p++;
        return *p;
    }
    return 0;
}

static int format_key(const struct keyspace *ks, uint32_t id, char *buf, size_t n)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (ks->conv == 'd' || ks->conv == 'i')
        return snprintf(buf, n, ks->key_format, (int)id);
    return snprintf(buf, n, ks->key_format, (unsigned)id);
#pragma GCC diagnostic pop
}

/* An object id of a trace by key_format, every one of its 64 bits: with an
 * `ll` length; %d and %i print ids above INT64_MAX as unsigned (dropping a
 * `+` or space flag, the only difference). */
static int format_key64(const struct keyspace *ks, uint64_t v, char *buf, size_t n)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if ((ks->conv == 'd' || ks->conv == 'i') && v <= INT64_MAX)
        return snprintf(buf, n, ks->fmt64, (long long)v);
    return snprintf(buf, n, ks->fmt64u, (unsigned long long)v);
#pragma GCC diagnostic pop
}

/* fmt with `ll` before its conversion, and the conversion replaced by u
 * when it is d or i (for fmt64u). Caller frees. */
static char *format_ll(const char *fmt, bool to_unsigned)
{
    struct strbuf sb;
    sb_init(&sb);
    for (const char *p = fmt; *p; p++) {
        sb_putc(&sb, *p);
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            sb_putc(&sb, *++p);
            continue;
        }
        while (p[1] && strchr("-+ #0123456789.", p[1]))
            sb_putc(&sb, *++p);
        char c = *++p;
        sb_puts(&sb, "ll");
        sb_putc(&sb, to_unsigned && (c == 'd' || c == 'i') ? 'u' : c);
    }
    return sb_steal(&sb);
}

const char *keyspace_name(const struct keyspace *ks, uint32_t id, char *buf, size_t n)
{
    if (ks->trace) {
        if (ks->trace->names)
            return ks->trace->names + ks->trace->name_at[id];
        format_key64(ks, ks->trace->ids[id], buf, n);
        return buf;
    }
    if (id >= ks->n_keys)
        return ks->extra_names[id - ks->n_keys];
    format_key(ks, ks->name_of[id], buf, n);
    return buf;
}

static int cmp_hot_name(const void *a, const void *b)
{
    return strcmp(((const struct hot_name *)a)->name, ((const struct hot_name *)b)->name);
}

/* Collects the distinct hot key names of the file and of hot_key events,
 * each with the most copies any of its entries splits it into. */
static size_t collect_hot_names(const struct scenario *sc, struct hot_name **out)
{
    size_t cap = sc->workload.n_hot_keys + sc->n_events, n = 0;
    struct hot_name *v = xcalloc(cap ? cap : 1, sizeof(*v));
    for (size_t i = 0; i < sc->workload.n_hot_keys; i++) {
        v[n].split = sc->workload.hot_keys[i].split;
        v[n++].name = sc->workload.hot_keys[i].key;
    }
    for (size_t i = 0; i < sc->n_events; i++)
        if (sc->events[i].kind == EV_HOT_KEY) {
            v[n].split = sc->events[i].split;
            v[n++].name = sc->events[i].key;
        }
    qsort(v, n, sizeof(*v), cmp_hot_name);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].split < 1)
            v[i].split = 1;
        if (!m || strcmp(v[m - 1].name, v[i].name))
            v[m++] = v[i];
        else
            v[m - 1].split = MAX(v[m - 1].split, v[i].split);
    }
    for (size_t i = 0; i < m; i++)
        v[i].id = v[i].split_first = UINT32_MAX;
    *out = v;
    return m;
}

/* name_of: the permutation (owned by the keyspace from here on). */
static int keyspace_init(struct keyspace *ks, const struct scenario *sc,
                         const struct place_params *pp, uint32_t *name_of,
                         struct hot_name *hot, size_t n_hot,
                         const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    const struct workload_cfg *w = &sc->workload;
    memset(ks, 0, sizeof(*ks));
    ks->name_of = name_of;
    if (w->keys > (uint64_t)UINT32_MAX - 1 - n_hot) {
        snprintf(err, errlen, "workload.keys: at most %u keys are supported",
                 UINT32_MAX - 1 - (unsigned)n_hot);
        return -1;
    }
    ks->n_keys = (uint32_t)w->keys;
    ks->key_format = xstrdup(w->key_format);
    ks->conv = format_conversion(w->key_format);
    size_t n_copies = 0;
    for (size_t h = 0; h < n_hot; h++)
        n_copies += hot[h].split > 1 ? hot[h].split : 0;
    size_t total = (size_t)ks->n_keys + n_hot + n_copies;
    ks->rec = huge_calloc(total, sizeof(*ks->rec));
    ks->item_bytes = malloc(total * sizeof(*ks->item_bytes));
    if (!ks->rec || !ks->item_bytes) {
        snprintf(err, errlen, "out of memory for %zu keys", total);
        return -1;
    }
    char buf[512];
    for (uint32_t i = 0; i < ks->n_keys; i++) {
        if ((i & 0xffff) == 0 && stop && *stop) {
            snprintf(err, errlen, "interrupted while placing the keys (%u of %u done)", i,
                     ks->n_keys);
            return -1;
        }
        int len = format_key(ks, name_of[i], buf, sizeof buf);
        if (len < 0 || (size_t)len >= sizeof buf) {
            snprintf(err, errlen, "workload.key_format: key %u is longer than %zu bytes", i,
                     sizeof buf - 1);
            return -1;
        }
        ks->rec[i].pos = placement_key_position(pp, buf, (size_t)len);
        ks->item_bytes[i] = (uint32_t)(w->value_bytes + (uint64_t)len);
        if (n_hot) {
            struct hot_name probe = {.name = buf}, *hit;
            hit = bsearch(&probe, hot, n_hot, sizeof(*hot), cmp_hot_name);
            if (hit)
                hit->id = i;
        }
    }
    /* hot keys that are not key_format(i) for any i get their own ids */
    ks->extra_names = xcalloc(n_hot + n_copies + 1, sizeof(char *));
    uint32_t next = ks->n_keys;
    for (size_t h = 0; h < n_hot; h++) {
        if (hot[h].id != UINT32_MAX)
            continue;
        size_t len = strlen(hot[h].name);
        ks->extra_names[next - ks->n_keys] = xstrdup(hot[h].name);
        ks->rec[next].pos = placement_key_position(pp, hot[h].name, len);
        ks->item_bytes[next] = (uint32_t)(w->value_bytes + len);
        hot[h].id = next++;
    }
    /* then the copies of split hot keys, NAME#0 ... NAME#K-1 (key splitting) */
    for (size_t h = 0; h < n_hot; h++) {
        if (hot[h].split <= 1)
            continue;
        hot[h].split_first = next;
        for (uint32_t c = 0; c < hot[h].split; c++) {
            char *name = xasprintf("%s#%u", hot[h].name, c);
            size_t len = strlen(name);
            ks->extra_names[next - ks->n_keys] = name;
            ks->rec[next].pos = placement_key_position(pp, name, len);
            ks->item_bytes[next] = (uint32_t)(w->value_bytes + len);
            next++;
        }
    }
    ks->n_total = next;
    /* one size for all (the usual fixed-width names): no per-key array */
    bool same = true;
    for (uint32_t i = 1; i < ks->n_total && same; i++)
        same = ks->item_bytes[i] == ks->item_bytes[0];
    if (same && ks->n_total) {
        ks->bytes_fixed = ks->item_bytes[0];
        free(ks->item_bytes);
        ks->item_bytes = NULL;
    }
    return 0;
}

/* The keyspace of a trace: its keys, their positions and item sizes. */
static int keyspace_init_trace(struct keyspace *ks, const struct scenario *sc,
                               const struct place_params *pp, struct trace_reader *t,
                               const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    const struct workload_cfg *w = &sc->workload;
    memset(ks, 0, sizeof(*ks));
    ks->trace = t;
    ks->n_keys = ks->n_total = t->n_keys;
    ks->key_format = xstrdup(w->key_format);
    ks->conv = format_conversion(w->key_format);
    ks->fmt64 = format_ll(w->key_format, false);
    ks->fmt64u = format_ll(w->key_format, true);
    ks->extra_names = xcalloc(1, sizeof(char *));
    ks->rec = huge_calloc(ks->n_total, sizeof(*ks->rec));
    ks->item_bytes = t->size; /* the sizes the trace gave, completed below */
    t->size = NULL;
    if (!ks->rec) {
        snprintf(err, errlen, "out of memory for the trace's %u keys", ks->n_total);
        return -1;
    }
    char buf[512];
    bool same = true;
    for (uint32_t i = 0; i < ks->n_keys; i++) {
        if ((i & 0xffff) == 0 && stop && *stop) {
            snprintf(err, errlen, "interrupted while placing the keys (%u of %u done)", i,
                     ks->n_keys);
            return -1;
        }
        const char *name = keyspace_name(ks, i, buf, sizeof buf);
        size_t len = strlen(name);
        if (len >= sizeof buf - 1) {
            snprintf(err, errlen, "workload.key_format: key %u is longer than %zu bytes", i,
                     sizeof buf - 2);
            return -1;
        }
        ks->rec[i].pos = placement_key_position(pp, name, len);
        if (!ks->item_bytes[i])
            ks->item_bytes[i] = (uint32_t)MIN(w->value_bytes + (uint64_t)len, UINT32_MAX);
        same = same && ks->item_bytes[i] == ks->item_bytes[0];
    }
    if (same && ks->n_total) {
        ks->bytes_fixed = ks->item_bytes[0];
        free(ks->item_bytes);
        ks->item_bytes = NULL;
    }
    return 0;
}

static void keyspace_deinit(struct keyspace *ks)
{
    free(ks->fmt64);
    free(ks->fmt64u);
    if (ks->extra_names)
        for (uint32_t i = 0; i < ks->n_total - ks->n_keys; i++)
            free(ks->extra_names[i]);
    free(ks->extra_names);
    free(ks->rec);
    free(ks->item_bytes);
    free(ks->key_format);
    free(ks->name_of);
    memset(ks, 0, sizeof(*ks));
}

/* ---- Zipf: a table for the head, rejection-inversion for the tail ---------------
 * Ranks 1..n with P(k) proportional to k^-s, for any s > 0.
 * The head, ranks 1..M (M = min(n, ZIPF_HEAD)), which carries most of the
 * requests, is drawn from its exact cumulative table through a guide table
 * (one uniform, O(1) expected, 48 KiB that stay in cache). The tail, ranks
 * M+1..n, by W. Hörmann, G. Derflinger, "Rejection-inversion to generate
 * variates from monotone discrete distributions", ACM TOMACS 6(3), 1996,
 * on the range [M+0.5, n+0.5]: O(1) expected with no table. The tail's mass
 * is summed exactly up to 2^22 terms and by Euler–Maclaurin beyond (error
 * far below a double's precision for M = 4096).
 * H is an antiderivative of h(x) = x^-s; helper1/helper2 keep log1p(x)/x
 * and expm1(x)/x accurate near 0.
 */
#define ZIPF_HEAD 4096
static double helper1(double x)
{
    return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

static double helper2(double x)
{
    return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3.0) * (1 + 0.25 * x));
}

static double zipf_h(double s, double x)
{
    return exp(-s * log(x));
}

static double zipf_H(double s, double x)
{
    double lx = log(x);
    return helper2((1 - s) * lx) * lx;
}

static double zipf_H_inv(double s, double x)
{
    double t = x * (1 - s);
    if (t < -1)
        t = -1; /* rounding guard, as in the paper's reference */
    return exp(helper1(t) * x);
}

/* Sum of k^-s for k = a..b. */
static double zipf_mass(double s, uint64_t a, uint64_t b)
{
    if (a > b)
        return 0;
    if (b - a < (1u << 22)) {
        double z = 0;
        for (uint64_t k = b; k >= a; k--) /* small terms first */
            z += pow((double)k, -s);
        return z;
    }
    /* Euler–Maclaurin: integral + end corrections + first derivative term */
    double fa = pow((double)a, -s), fb = pow((double)b, -s);
    double integral = fabs(s - 1) < 1e-12 ? log((double)b / (double)a)
                                           : (pow((double)b, 1 - s) - pow((double)a, 1 - s)) / (1 - s);
    double da = -s * fa / (double)a, db = -s * fb / (double)b;
    return integral + (fa + fb) / 2 + (db - da) / 12;
}

static void zipf_setup(struct request_draw *d, uint32_t n)
{
    double s = d->zipf_s;
    uint32_t m = n < ZIPF_HEAD ? n : ZIPF_HEAD;
    d->z_head = m;
    d->z_hn = zipf_H(s, n + 0.5);
    d->z_hm = zipf_H(s, m + 0.5);
    d->z_sc = 2.0 - zipf_H_inv(s, zipf_H(s, 2.5) - zipf_h(s, 2.0));
    d->z_cdf = xmalloc(m * sizeof(double));
    d->z_guide = xmalloc(m * sizeof(uint32_t));
    double acc = 0;
    for (uint32_t k = 1; k <= m; k++)
        d->z_cdf[k - 1] = acc += pow((double)k, -s);
    double head = acc, tail = zipf_mass(s, (uint64_t)m + 1, n);
    d->z_phead = head / (head + tail);
    d->z_mass = head + tail;
    for (uint32_t k = 0; k < m; k++)
        d->z_cdf[k] /= head;
    d->z_cdf[m - 1] = 1.0;
    uint32_t k = 0;
    for (uint32_t g = 0; g < m; g++) {
        while (d->z_cdf[k] < (double)g / m)
            k++;
        d->z_guide[g] = k;
    }
}

/* A rank in [0, n). O(1) expected: the guide table leaves about one step of
 * search; the tail's rejection loop runs fewer than 1.1 times on average. */
static uint32_t zipf_rank(const struct request_draw *d, struct rng *keys)
{
    double s = d->zipf_s;
    uint32_t n = d->n_keys;
    double v = rng_uniform(keys);
    if (v < d->z_phead) {
        v /= d->z_phead;
        uint32_t k = d->z_guide[(uint32_t)(v * d->z_head)];
        while (d->z_cdf[k] <= v && k + 1 < d->z_head)
            k++;
        return k;
    }
    for (;;) {
        double u = d->z_hn + rng_uniform(keys) * (d->z_hm - d->z_hn);
        double x = zipf_H_inv(s, u);
        double kd = floor(x + 0.5);
        if (kd <= d->z_head)
            kd = d->z_head + 1;
        else if (kd > n)
            kd = n;
        if (kd - x <= d->z_sc || u >= zipf_H(s, kd + 0.5) - zipf_h(s, kd))
            return (uint32_t)kd - 1;
    }
}

double workload_rank_prob(const struct workload *w, uint32_t rank)
{
    if (rank >= w->ks.n_keys)
        return 0;
    if (w->trace)
        return (double)w->trace->count[rank] / (double)w->trace->n_requests;
    if (w->rd->kind == POP_UNIFORM)
        return 1.0 / w->ks.n_keys;
    return pow(rank + 1.0, -w->rd->zipf_s) / w->rd->z_mass;
}

double workload_key_prob(const struct workload *w, uint32_t key)
{
    uint32_t rank = w->key_rank && key < w->ks.n_keys ? w->key_rank[key] : key;
    const struct request_draw *d = w->rd;
    double p = (1 - d->hot_total) * workload_rank_prob(w, rank);
    for (size_t j = 0; j < d->n_hot; j++)
        if (d->hot[j].key == key)
            p += d->hot[j].share;
    return p;
}

/* ---- the stream ------------------------------------------------------------ */

/* A seeded permutation of 0..n-1 (Fisher–Yates): the name number of each rank. */
static uint32_t *name_permutation(uint64_t seed, uint32_t n, const volatile sig_atomic_t *stop)
{
    uint32_t *p = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
    struct rng perm;
    if (!p || rng_init(&perm, seed, "popularity")) {
        free(p);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        if ((i & 0xfffff) == 0 && stop && *stop) {
            rng_deinit(&perm);
            free(p);
            return NULL;
        }
        uint32_t j = rng_below(&perm, i);
        uint32_t t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
    rng_deinit(&perm);
    return p;
}

/* ---- shapes: a ramp and a daily cycle ------------------------------------------------ */

/* The rate without the cycle: qps, or on a ramp the straight line to it. */
static double base_rate(const struct workload *w, double t)
{
    if (t < w->ramp_t1_ns)
        return w->ramp_from
               + (w->qps - w->ramp_from) * (t - w->ramp_t0_ns) / (w->ramp_t1_ns - w->ramp_t0_ns);
    return w->qps;
}

/* Where t is in the cycle: ns since the last peak, in [0, period). */
static double since_peak(const struct workload *w, double t)
{
    double x = fmod(t - w->d_peak_ns, w->d_period_ns);
    return x < 0 ? x + w->d_period_ns : x;
}

static double cycle(const struct workload *w, double t)
{
    if (!w->d_amp)
        return 1;
    return 1 + w->d_amp * cos(2 * M_PI * since_peak(w, t) / w->d_period_ns);
}

double workload_rate(const struct workload *w, double t_ns)
{
    return base_rate(w, t_ns) * cycle(w, t_ns);
}

/* A bound of the rate over [a, b]: the base is linear there (b never passes
 * a ramp's end by more than a rounding, and the base is constant past it),
 * and the cycle is at most 1 + amplitude. */
static double rate_bound(const struct workload *w, double a, double b)
{
    return fmax(base_rate(w, a), base_rate(w, b)) * (1 + w->d_amp);
}

/* The end of the thinning piece that starts at t: a 32nd of a ramp (always
 * after t, even when that is below t's precision), or no end. So a cycle
 * keeps about 1 / (1 + amplitude) of its candidates, whatever its period. */
static double piece_end(const struct workload *w, double t)
{
    if (t >= w->ramp_t1_ns)
        return INFINITY;
    double b = fmin(t + (w->ramp_t1_ns - w->ramp_t0_ns) / 32, w->ramp_t1_ns);
    return fmax(b, nextafter(t, INFINITY));
}

/* An arrival time, at most WORKLOAD_NEVER_NS: at a tiny rate a gap passes
 * the run's end and even 2^63 ns, which no integer time can hold (a single
 * minsd on the request path). */
static inline double never_past(double t)
{
    return t < WORKLOAD_NEVER_NS ? t : WORKLOAD_NEVER_NS;
}

/* The next arrival after t under a varying rate (thinning, see above); back
 * to the plain draws once the rate is constant again. O(1) expected draws:
 * at most 2 (1 + amplitude) candidates an arrival, and 32 pieces a ramp. */
static void shaped_next(struct workload *w, double t)
{
    struct rng *arrivals = exp_stream_rng(&w->arrivals); /* thinning draws uniforms too */
    for (;;) {
        if (t >= w->horizon_ns) { /* a rate so low the next arrival is past the run's end */
            w->next_arrival_ns = WORKLOAD_NEVER_NS;
            return;
        }
        if (!w->d_amp && t >= w->ramp_t1_ns) {
            w->shaped = false;
            w->next_arrival_ns = never_past(t + rng_exp(arrivals, 1e9 / w->qps));
            return;
        }
        double b = piece_end(w, t), top = rate_bound(w, t, b);
        double cand = t + rng_exp(arrivals, 1e9 / top);
        if (cand >= b) {
            t = b;
            continue;
        }
        t = cand;
        if (rng_uniform(arrivals) * top <= workload_rate(w, t)) {
            w->next_arrival_ns = never_past(t);
            return;
        }
    }
}

void workload_set_qps(struct workload *w, int64_t now_ns, double qps, int64_t over_ns)
{
    double now = (double)now_ns;
    if (over_ns > 0) {
        w->ramp_from = base_rate(w, now);
        w->ramp_t0_ns = now;
        w->ramp_t1_ns = now + (double)over_ns;
    } else {
        w->ramp_t1_ns = 0; /* a step ends any ramp */
    }
    w->qps = qps;
    w->shaped = over_ns > 0 || w->d_amp > 0;
    /* Poisson arrivals are memoryless: restart the gap from now at the new rate */
    if (w->shaped)
        shaped_next(w, now);
    else
        w->next_arrival_ns = never_past(now + exp_stream_draw(&w->arrivals, 1e9 / qps));
}

/* ---- shift_popularity ------------------------------------------------------------------ */

void workload_shift_popularity(struct workload *w)
{
    uint32_t n = w->ks.n_keys;
    assert(w->rank_key); /* made at the start when the scenario has a shift */
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = rng_below(&w->shift, i);
        uint32_t x = w->rank_key[i - 1];
        w->rank_key[i - 1] = w->rank_key[j];
        w->rank_key[j] = x;
    }
    for (uint32_t r = 0; r < n; r++)
        w->key_rank[w->rank_key[r]] = r;
    w->ahead_n = 0; /* keys drawn ahead under the old ranks are dropped */
}

static void trace_ahead(struct workload *w);
static uint64_t draw_request(const void *ctx, void *state);

/* ---- creating ------------------------------------------------------------------------- */

static int workload_create_trace(struct sim *s, struct workload *w, char *err, size_t errlen)
{
    const struct scenario *sc = s->sc;
    bool malformed = false;
    w->trace = trace_reader_open(&sc->workload.trace, s->opt.stop, &malformed, err, errlen);
    if (!w->trace) {
        if (malformed && s->opt.invalid_input)
            *s->opt.invalid_input = true;
        return -1;
    }
    if (keyspace_init_trace(&w->ks, sc, &s->pp, w->trace, s->opt.stop, err, errlen))
        return -1;
    w->end_ns = (double)sc->duration_ns;
    trace_ahead(w); /* the first requests, and when the first arrives */
    if (w->error) {
        snprintf(err, errlen, "%s", w->error);
        return -1;
    }
    return 0;
}

static int workload_create_synthetic(struct sim *s, struct workload *w, char *err,
                                     size_t errlen)
{
    const struct scenario *sc = s->sc;
    struct hot_name *hot;
    if (sc->workload.keys > UINT32_MAX / 2) {
        snprintf(err, errlen, "workload.keys: at most %u keys are supported", UINT32_MAX / 2);
        return -1;
    }
    uint32_t *name_of = name_permutation(sc->seed, (uint32_t)sc->workload.keys, s->opt.stop);
    if (!name_of) {
        if (s->opt.stop && *s->opt.stop)
            snprintf(err, errlen, "interrupted while naming the keys");
        else
            snprintf(err, errlen, "out of memory for %llu keys",
                     (unsigned long long)sc->workload.keys);
        return -1;
    }
    size_t n_hot = collect_hot_names(sc, &hot);
    if (keyspace_init(&w->ks, sc, &s->pp, name_of, hot, n_hot, s->opt.stop, err, errlen)) {
        free(hot);
        return -1;
    }
    w->hot_names = hot; /* sorted by name, ids resolved */
    w->n_hot_names = n_hot;
    w->rd->hot = line_calloc(w->n_hot_names + 1, sizeof(*w->rd->hot));
    w->rd->kind = sc->workload.popularity;
    w->rd->zipf_s = sc->workload.zipf_s;
    w->rd->n_keys = w->ks.n_keys;
    w->qps = sc->workload.qps;
    for (size_t i = 0; i < sc->n_events; i++) {
        if (sc->events[i].kind != EV_SHIFT_POPULARITY || w->rank_key)
            continue;
        w->rank_key = malloc((size_t)(w->ks.n_keys ? w->ks.n_keys : 1) * sizeof(uint32_t));
        w->key_rank = malloc((size_t)(w->ks.n_keys ? w->ks.n_keys : 1) * sizeof(uint32_t));
        if (!w->rank_key || !w->key_rank || rng_init(&w->shift, sc->seed, "shift")) {
            snprintf(err, errlen, "out of memory for the popularity permutation");
            return -1;
        }
        for (uint32_t r = 0; r < w->ks.n_keys; r++)
            w->rank_key[r] = w->key_rank[r] = r;
    }
    return 0;
}

int workload_create(struct sim *s, char *err, size_t errlen)
{
    const struct scenario *sc = s->sc;
    struct workload *w = s->wl = xcalloc(1, sizeof(*s->wl));
    w->rd = line_calloc(1, sizeof(*w->rd));
    w->rd->n_inst = sc->clients.instances;
    assert(w->rd->n_inst < (1u << 31)); /* packed in a channel's value */
    w->rd->write_ratio = sc->workload.write_ratio;
    w->ttl_ns = sc->workload.ttl_ns;
    w->horizon_ns = (double)sc->duration_ns;
    rng_init(&w->rs.instances, sc->seed, "instances");
    rng_init(&w->rs.ops, sc->seed, "operations");
    rng_init(&w->rs.keys, sc->seed, "keys");
    if (sc->workload.trace.path) {
        /* the trace gives times, keys and operations; instances are drawn inline */
        w->rd->hot = line_calloc(1, sizeof(*w->rd->hot));
        exp_stream_init(&w->arrivals, sc->seed, "arrivals", NULL);
        return workload_create_trace(s, w, err, errlen);
    }
    exp_stream_init(&w->arrivals, sc->seed, "arrivals", s->ahead);
    w->req_ch = ahead_chan_create(s->ahead, draw_request, sizeof(w->rs));
    if (workload_create_synthetic(s, w, err, errlen))
        return -1;
    if (w->rd->kind == POP_ZIPF)
        zipf_setup(w->rd, w->ks.n_keys);
    workload_set_hot(w, sc, 0);
    w->d_amp = sc->workload.diurnal.amplitude;
    w->d_period_ns = (double)sc->workload.diurnal.period_ns;
    w->d_peak_ns = (double)sc->workload.diurnal.peak_at_ns;
    w->shaped = w->d_amp > 0;
    if (w->shaped)
        shaped_next(w, 0);
    else
        w->next_arrival_ns = never_past(exp_stream_draw(&w->arrivals, 1e9 / w->qps));
    return 0;
}

void workload_destroy(struct workload *w)
{
    if (!w)
        return;
    keyspace_deinit(&w->ks);
    trace_reader_destroy(w->trace);
    free(w->hot_names);
    if (w->rd) {
        free(w->rd->hot);
        free(w->rd->z_cdf);
        free(w->rd->z_guide);
        free(w->rd);
    }
    free(w->rank_key);
    free(w->key_rank);
    rng_deinit(&w->shift);
    free(w);
}

/* The id of a hot key by name (resolved when the keyspace was built). */
uint32_t workload_key_id(const struct workload *w, const char *name)
{
    struct hot_name probe = {.name = name};
    const struct hot_name *hit =
        bsearch(&probe, w->hot_names, w->n_hot_names, sizeof(*w->hot_names), cmp_hot_name);
    return hit ? hit->id : UINT32_MAX;
}

double workload_hot_share(const struct workload *w, const char *name)
{
    uint32_t id = workload_key_id(w, name);
    for (size_t j = 0; j < w->rd->n_hot; j++)
        if (w->rd->hot[j].key == id)
            return w->rd->hot[j].share;
    return 0;
}

uint32_t workload_split_copies(const struct workload *w, uint32_t key, uint32_t *first)
{
    for (size_t i = 0; i < w->n_hot_names; i++)
        if (w->hot_names[i].id == key && w->hot_names[i].split > 1) {
            *first = w->hot_names[i].split_first;
            return w->hot_names[i].split;
        }
    *first = UINT32_MAX;
    return 1;
}

void workload_set_hot(struct workload *w, const struct scenario *sc, int64_t now_ns)
{
    struct request_draw *d = w->rd;
    ahead_detach(w->req_ch, &w->rs); /* the helper reads d: take the streams back */
    /* the file's hot keys, then active hot_key events override by key */
    d->n_hot = 0;
    for (size_t i = 0; i < sc->workload.n_hot_keys; i++) {
        uint32_t id = workload_key_id(w, sc->workload.hot_keys[i].key);
        assert(id != UINT32_MAX);
        d->hot[d->n_hot].key = id;
        d->hot[d->n_hot].share = sc->workload.hot_keys[i].share;
        d->n_hot++;
    }
    for (size_t i = 0; i < sc->n_events; i++) {
        const struct event_cfg *e = &sc->events[i];
        if (e->kind != EV_HOT_KEY || e->at_ns > now_ns)
            continue;
        if (e->for_ns && e->at_ns + e->for_ns <= now_ns)
            continue;
        uint32_t id = workload_key_id(w, e->key);
        assert(id != UINT32_MAX);
        size_t j;
        for (j = 0; j < d->n_hot; j++)
            if (d->hot[j].key == id)
                break;
        if (j == d->n_hot)
            d->n_hot++;
        d->hot[j].key = id;
        d->hot[j].share = e->share;
    }
    d->hot_total = 0;
    for (size_t j = 0; j < d->n_hot; j++)
        d->hot_total += d->hot[j].share;
    w->ahead_n = 0; /* keys drawn ahead under the old hot keys are dropped */
}

/* A key pick: a popularity rank, or PICK_HOT | j for hot key j. */
#define PICK_HOT 0x80000000u

static uint32_t pick_key(const struct request_draw *d, struct rng *keys)
{
    if (d->n_hot) {
        double u = rng_uniform(keys);
        if (u < d->hot_total) {
            for (size_t j = 0; j < d->n_hot; j++) {
                if (u < d->hot[j].share)
                    return PICK_HOT | (uint32_t)j;
                u -= d->hot[j].share;
            }
            return PICK_HOT | (uint32_t)(d->n_hot - 1);
        }
    }
    return d->kind == POP_UNIFORM ? rng_below(keys, d->n_keys) : zipf_rank(d, keys);
}

static uint32_t pick_to_key(const struct workload *w, uint32_t pick)
{
    if (pick & PICK_HOT)
        return w->rd->hot[pick & ~PICK_HOT].key;
    return w->rank_key ? w->rank_key[pick] : pick;
}

uint32_t workload_sample_key(struct workload *w)
{
    ahead_detach(w->req_ch, &w->rs); /* drawn inline, in the stream's order */
    return pick_to_key(w, pick_key(w->rd, &w->rs.keys));
}

/* One arrival's draws, packed: the key pick, then instance << 1 | write.
 * Made here or on the helper thread (the channel's draw function). */
static uint64_t draw_request(const void *ctx, void *state)
{
    const struct request_draw *d = ctx;
    struct request_streams *st = state;
    uint32_t inst = d->n_inst > 1 ? rng_below(&st->instances, d->n_inst) : 0;
    bool write = d->write_ratio > 0 && rng_uniform(&st->ops) < d->write_ratio;
    uint32_t pick = pick_key(d, &st->keys);
    return (uint64_t)pick | (uint64_t)(inst << 1 | (uint32_t)write) << 32;
}

/* The next arrival's draws: from the helper when it has the streams (it
 * takes them back over at the first draw after a change), else inline. */
static uint64_t next_request(struct workload *w)
{
    if (ahead_hold(&w->req_ch, &w->rs, w->rd))
        return ahead_take(w->req_ch);
    return draw_request(w->rd, &w->rs);
}

static void draw_ahead(struct workload *w)
{
    while (w->ahead_n < WORKLOAD_AHEAD) {
        struct arrival_draw *d = &w->ahead[(w->ahead_head + w->ahead_n) % WORKLOAD_AHEAD];
        uint64_t v = next_request(w);
        d->inst = (uint32_t)(v >> 33);
        d->op = (uint8_t)((v >> 32) & 1); /* WOP_GET or WOP_SET */
        d->key = pick_to_key(w, (uint32_t)v);
        __builtin_prefetch(&w->ks.rec[d->key], 1);
        w->ahead_n++;
    }
}

/* A trace's requests, read ahead the same way (up to the run's end). */
static void trace_ahead(struct workload *w)
{
    while (w->ahead_n < WORKLOAD_AHEAD && !w->trace_done) {
        struct arrival_draw *d = &w->ahead[(w->ahead_head + w->ahead_n) % WORKLOAD_AHEAD];
        enum trace_op op;
        int rc = trace_reader_next(w->trace, &d->t_ns, &d->key, &op);
        if (rc <= 0 || d->t_ns >= w->end_ns) {
            w->trace_done = true;
            if (rc < 0)
                w->error = w->trace->error;
            break;
        }
        d->inst = w->rd->n_inst > 1 ? rng_below(&w->rs.instances, w->rd->n_inst) : 0;
        d->op = op == TRACE_GET ? WOP_GET : op == TRACE_SET ? WOP_SET : WOP_DELETE;
        __builtin_prefetch(&w->ks.rec[d->key], 1);
        w->ahead_n++;
    }
    w->next_arrival_ns = w->ahead_n ? w->ahead[w->ahead_head].t_ns : WORKLOAD_NEVER_NS;
}

void workload_next(struct workload *w, int64_t *t_ns, uint32_t *inst, uint8_t *op,
                   uint32_t *key)
{
    if (w->trace) {
        const struct arrival_draw *d = &w->ahead[w->ahead_head];
        assert(w->ahead_n > 0);
        *t_ns = (int64_t)d->t_ns;
        *inst = d->inst;
        *op = d->op;
        *key = d->key;
        w->ahead_head = (w->ahead_head + 1) % WORKLOAD_AHEAD;
        w->ahead_n--;
        trace_ahead(w);
        return;
    }
    draw_ahead(w);
    const struct arrival_draw *d = &w->ahead[w->ahead_head];
    *t_ns = (int64_t)w->next_arrival_ns;
    *inst = d->inst;
    *op = d->op;
    *key = d->key;
    w->ahead_head = (w->ahead_head + 1) % WORKLOAD_AHEAD;
    w->ahead_n--;
    draw_ahead(w);
    if (UNLIKELY(w->shaped))
        shaped_next(w, w->next_arrival_ns);
    else
        w->next_arrival_ns = never_past(w->next_arrival_ns
                                        + exp_stream_draw(&w->arrivals, 1e9 / w->qps));
}

/* ---- what other models ask ----------------------------------------------------------- */

double workload_trace_end_ns(const struct workload *w)
{
    return w->trace ? (double)w->trace->span_s * w->trace->scale_ns : -1;
}

int64_t workload_ttl_ns(const struct workload *w, uint32_t key)
{
    if (w->trace && w->trace->ttl_ns && key < w->ks.n_keys && w->trace->ttl_ns[key])
        return w->trace->ttl_ns[key];
    return w->ttl_ns;
}

double workload_read_rate(const struct workload *w, uint32_t key)
{
    if (w->trace) {
        const struct trace_reader *t = w->trace;
        if (key >= w->ks.n_keys)
            return 0;
        double reads = (double)t->count[key] * (double)t->n_reads / (double)t->n_requests;
        return reads / ((double)t->span_s * t->scale_ns / 1e9);
    }
    return w->qps * (1 - w->rd->write_ratio) * workload_key_prob(w, key);
}
