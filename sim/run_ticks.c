/*
 * run_ticks.c — closing a tick: each owner fills its part of the tick row
 * (clients, database, nodes), the run adds what spans owners (the views
 * instances hold, how many instances route around each node), the rows go
 * to the sink, and the run totals the summary needs are summed from the
 * rows (nothing is counted twice). Then the summary.
 *
 * With run_options.check_invariants (tests) every tick also verifies the
 * mirrored counts each owner keeps and that every read has had at most one
 * outcome: reads started == hits + misses + reads still open; the stores'
 * lists and chains, item by item, as often as the requests pay for it.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/client.h"
#include "models/db.h"
#include "models/health.h"
#include "models/membership.h"
#include "models/migrate.h"
#include "models/net.h"
#include "models/node.h"
#include "models/transfer.h"
#include "sim/run_internal.h"

/* ---- views held by instances ------------------------------------------------------ */

/* The routing views client instances hold at a tick's end: instances
 * grouped by (epoch, the nodes they route around — their own ejections and
 * the epoch's central ones). O(instances log instances); the label is built
 * only for instances that route around something. */
struct inst_sig {
    uint32_t epoch, index;
    const char *label;
};

struct view_group {
    uint32_t first, count; /* first instance holding it, how many do */
};

struct tick_views {
    struct strbuf *labels;
    struct inst_sig *sig;
    struct view_group *group;
    uint32_t n_groups;
};

static int cmp_sig(const void *a, const void *b)
{
    const struct inst_sig *x = a, *y = b;
    if (x->epoch != y->epoch)
        return x->epoch < y->epoch ? -1 : 1;
    int c = strcmp(x->label, y->label);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_group(const void *a, const void *b)
{
    const struct view_group *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static void views_build(struct sim *s, struct tick_views *tv)
{
    uint32_t n = s->n_inst;
    tv->labels = xcalloc(n, sizeof(*tv->labels));
    tv->sig = xcalloc(n, sizeof(*tv->sig));
    tv->group = xcalloc(n, sizeof(*tv->group));
    for (uint32_t j = 0; j < n; j++) {
        const struct instance *in = &s->inst[j];
        const struct epoch *e = membership_epoch(s, in->epoch);
        struct strbuf *l = &tv->labels[j];
        sb_init(l);
        if (health_inst_n_ejected(s, j) || e->n_ejected)
            for (uint32_t i = 0; i < s->n_nodes; i++)
                if (health_inst_ejected(s, j, i) || e->ejected[i])
                    sb_printf(l, "%s%s", l->len ? "," : "", s->nodes[i].id);
        tv->sig[j] = (struct inst_sig){in->epoch, j, l->buf};
    }
    qsort(tv->sig, n, sizeof(*tv->sig), cmp_sig);
    tv->n_groups = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (j && tv->sig[j].epoch == tv->sig[j - 1].epoch
            && !strcmp(tv->sig[j].label, tv->sig[j - 1].label)) {
            tv->group[tv->n_groups - 1].count++;
            continue;
        }
        tv->group[tv->n_groups++] = (struct view_group){tv->sig[j].index, 1};
    }
    qsort(tv->group, tv->n_groups, sizeof(*tv->group), cmp_group);
}

static void views_free(const struct sim *s, struct tick_views *tv)
{
    for (uint32_t j = 0; j < s->n_inst; j++)
        sb_deinit(&tv->labels[j]);
    free(tv->labels);
    free(tv->sig);
    free(tv->group);
}

/* One views row per distinct view, in order of the first instance holding it. */
static void record_views(struct sim *s, const struct tick_views *tv, double t_s)
{
    if (!s->sink.view_tick)
        return;
    for (uint32_t k = 0; k < tv->n_groups; k++) {
        const struct instance *in = &s->inst[tv->group[k].first];
        const struct strbuf *label = &tv->labels[tv->group[k].first];
        char *view = label->len ? xasprintf("epoch %u without %s", in->epoch, label->buf)
                                : xasprintf("epoch %u", in->epoch);
        struct view_tick_row r = {t_s, view, in->epoch, label->buf, tv->group[k].count};
        if (s->sink.view_tick(s->sink.ctx, &r))
            sim_fail(s, "cannot record a view");
        free(view);
    }
}

/* Per node, the client instances that route around it: in client mode the
 * instances that ejected it; in central mode those whose epoch has it
 * ejected (counted per distinct epoch held: a handful). */
static void ejected_by(struct sim *s, uint32_t *by)
{
    memset(by, 0, s->n_nodes * sizeof(*by));
    if (s->sc->health.mode == HEALTH_CLIENT) {
        for (uint32_t i = 0; i < s->n_nodes; i++)
            by[i] = health_ejectors(s, i);
        return;
    }
    uint32_t *epoch = xcalloc(s->n_inst, sizeof(*epoch)), *count = xcalloc(s->n_inst, sizeof(*count));
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->n_inst; j++) {
        uint32_t k = 0;
        while (k < n && epoch[k] != s->inst[j].epoch)
            k++;
        if (k == n)
            epoch[n++] = s->inst[j].epoch;
        count[k]++;
    }
    for (uint32_t k = 0; k < n; k++) {
        const struct epoch *e = membership_epoch(s, epoch[k]);
        if (e->n_ejected)
            for (uint32_t i = 0; i < s->n_nodes; i++)
                by[i] += e->ejected[i] ? count[k] : 0;
    }
    free(epoch);
    free(count);
}

/* ---- closing a tick ------------------------------------------------------------------ */

/* The node rows; returns how many nodes are ejected (by an instance or the
 * coordinator: health's count, which the summary's ejections and max_ejected
 * follow — not the instances whose epoch still has a node readmitted since
 * out, which its row's state and ejected_by show). */
static int64_t record_nodes(struct sim *s, double t_s, int64_t len)
{
    uint32_t *by = xcalloc(s->n_nodes + 1, sizeof(*by));
    ejected_by(s, by);
    int64_t ejected = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        struct node *n = &s->nodes[i];
        struct node_tick_row nr;
        node_tick_close(s, n, s->tick_index, len, &nr);
        bool out = by[i] > 0 || membership_is_ejected(s, i);
        ejected += health_ejectors(s, i) > 0;
        if (!n->ever_present || !s->sink.node_tick)
            continue;
        nr.t_s = t_s;
        if (n->state == NODE_UP && out)
            nr.state = "ejected";
        nr.ejected_by = by[i];
        if (s->sink.node_tick(s->sink.ctx, &nr))
            sim_fail(s, "cannot record a node tick");
    }
    free(by);
    return ejected;
}

/* The stores are walked item by item, which costs a tick of small requests
 * over a large cache far more than the tick itself: they are walked when
 * the requests since the last walk reach the items held (so the checks cost
 * at most about what the requests do), and at the last tick. */
static bool stores_due(struct sim *s, bool last)
{
    int64_t items = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++)
        items += s->nodes[i].store.n_items;
    if (!last && s->sums.requests - s->stores_checked < items)
        return false;
    s->stores_checked = s->sums.requests;
    return true;
}

static void check_invariants(struct sim *s, bool last)
{
    const char *bad = nodes_check(s, stores_due(s, last));
    if (!bad)
        bad = membership_check(s);
    if (!bad)
        bad = health_check(s);
    int64_t open = 0;
    if (!bad)
        bad = clients_check(s, &open);
    if (!bad && s->sums.reads != s->sums.hits + s->sums.misses + open)
        bad = "reads started differ from hits + misses + reads still open";
    if (bad)
        sim_fail(s, "invariant broken at tick %lld: %s", (long long)s->tick_index, bad);
}

static void keep_point(struct sim *s, const struct tick_row *row, int64_t start_ns,
                       int64_t len_ns)
{
    if (s->n_series == s->cap_series) {
        s->cap_series = s->cap_series ? s->cap_series * 2 : 256;
        s->series = xrealloc(s->series, s->cap_series * sizeof(*s->series));
    }
    struct tick_point *p = &s->series[s->n_series++];
    p->start_ns = start_ns;
    p->len_ns = len_ns;
    p->hit_rate = row->hit_rate;
    p->backend_qps = row->backend_qps;
    p->db_util = row->db_util;
    p->db_demand = row->db_demand;
    p->hits = row->hits;
    p->reads_done = row->hits + row->misses;
#define ADD_SUM(name) s->sums.name += row->name;
    TICK_SUMS(ADD_SUM)
#undef ADD_SUM
}

void run_close_tick(struct sim *s)
{
    const struct scenario *sc = s->sc;
    int64_t start = s->tick_index * s->tick_ns;
    int64_t len = MIN(s->tick_ns, sc->duration_ns - start);
    struct tick_row row;
    memset(&row, 0, sizeof row);
    row.t_s = (double)start / 1e9;
    clients_tick_close(s, &row);
    db_tick_close(s, s->tick_index, len, &row);
    net_tick_close(s, &row);
    transfers_tick_close(s, &row);
    migrate_tick_close(s, &row);

    struct tick_views tv;
    views_build(s, &tv);
    row.views = tv.n_groups;
    row.ejected = record_nodes(s, row.t_s, len);
    record_views(s, &tv, row.t_s);
    views_free(s, &tv);
    if (s->sink.tick && s->sink.tick(s->sink.ctx, &row))
        sim_fail(s, "cannot record a tick");
    if (s->sink.checkpoint && s->sink.checkpoint(s->sink.ctx))
        sim_fail(s, "cannot commit the recorded ticks");
    keep_point(s, &row, start, len);
    if (s->opt.check_invariants)
        check_invariants(s, start + len >= sc->duration_ns);

    s->tick_index++;
    s->tick_end_ns = MIN((s->tick_index + 1) * s->tick_ns, sc->duration_ns);
    if (s->opt.progress)
        s->opt.progress(s->opt.progress_ctx, MIN(s->tick_index * s->tick_ns, sc->duration_ns),
                        sc->duration_ns, s->sums.requests);
}

/* ---- summary ------------------------------------------------------------------------------- */

/* Times are compared, subtracted and summed in integer nanoseconds and only
 * the results turned into seconds, so they are the nearest doubles to the
 * exact values (with ticks of 0.7 s, 3 ticks of overload are 2.1 s, not
 * 2.0999999999999996 as a sum of the ticks' lengths in seconds would be). */

/* Hit rates and peaks over the ticks after warmup (those that start at or
 * after it); the baseline over those that end by the first event. */
static void summarise_series(const struct sim *s, struct summary_row *o)
{
    const int64_t warm = s->sc->warmup_ns, ev = s->first_event_ns;
    int64_t hits = 0, reads = 0, bh = 0, br = 0, overload_ns = 0;
    o->peak_backend_qps = 0;
    o->peak_db_util = 0;
    for (size_t i = 0; i < s->n_series; i++) {
        const struct tick_point *p = &s->series[i];
        if (p->start_ns < warm)
            continue;
        hits += p->hits;
        reads += p->reads_done;
        if (ev < 0 || p->start_ns + p->len_ns <= ev) {
            bh += p->hits;
            br += p->reads_done;
        }
        o->peak_backend_qps = MAX(o->peak_backend_qps, p->backend_qps);
        o->peak_db_util = MAX(o->peak_db_util, p->db_util);
        if (p->db_demand > 1.0)
            overload_ns += p->len_ns;
    }
    o->db_overload_s = (double)overload_ns / 1e9;
    o->hit_rate = reads ? (double)hits / (double)reads : NAN;
    o->baseline_hit_rate = br ? (double)bh / (double)br : NAN;
}

/* The lowest tick hit rate from the tick holding the first event (or from
 * warmup, without events) on; returns the index of that first tick. Warmup
 * bounds only the baseline: an event inside it still has its dip counted
 * (the ticks from its own on), never hidden behind the warmup. */
static size_t summarise_minimum(const struct sim *s, struct summary_row *o)
{
    const int64_t ev = s->first_event_ns;
    const int64_t from = ev >= 0 ? ev / s->tick_ns * s->tick_ns : s->sc->warmup_ns;
    o->min_hit_rate = NAN;
    size_t first = s->n_series;
    for (size_t i = 0; i < s->n_series; i++) {
        const struct tick_point *p = &s->series[i];
        if (p->start_ns < from)
            continue;
        if (first == s->n_series)
            first = i;
        if (!isnan(p->hit_rate) && (isnan(o->min_hit_rate) || p->hit_rate < o->min_hit_rate))
            o->min_hit_rate = p->hit_rate;
    }
    return first;
}

/* Seconds from the first event until the hit rate stays within
 * RECOVERY_TOLERANCE of the baseline for RECOVERY_TICKS ticks: to the start
 * of the first such run of ticks (0 when it is the tick holding the event). */
static double recovery(const struct sim *s, size_t first, double baseline)
{
    if (s->first_event_ns < 0 || isnan(baseline))
        return NAN;
    const size_t window = RECOVERY_TICKS;
    for (size_t i = first; i + window <= s->n_series; i++) {
        size_t k = 0;
        while (k < window) {
            double h = s->series[i + k].hit_rate;
            if (isnan(h) || fabs(h - baseline) > RECOVERY_TOLERANCE)
                break;
            k++;
        }
        if (k == window)
            return (double)MAX(0, s->series[i].start_ns - s->first_event_ns) / 1e9;
        i += k; /* the window cannot start before the tick that broke it */
    }
    return NAN;
}

void sim_summary(const struct sim *s, struct summary_row *o)
{
    memset(o, 0, sizeof(*o));
    summarise_series(s, o);
    size_t first = summarise_minimum(s, o);
    o->recovery_s = recovery(s, first, o->baseline_hit_rate);
    const struct health *h = s->hl;
    o->ejections = h->ejections;
    o->cascade_removals = h->cascade_removals;
    o->max_ejected = h->max_ejected;
    o->instance_ejections = h->instance_ejections;
    o->readmissions = h->readmissions;
    o->keys_moved = s->mb->keys_moved;
    o->requests = s->sums.requests;
    o->stale_reads = s->sums.stale_reads;
    o->stale_overwrites = s->sums.stale_overwrites;
    o->clobbers = s->sums.clobbers;
    o->timeouts = s->sums.timeouts;
    o->errors = s->sums.errors;
    o->db_reads = s->sums.db_reads;
    o->db_writes = s->sums.db_writes;
    int64_t top = 0, all = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        top = MAX(top, s->nodes[i].gets_total);
        all += s->nodes[i].gets_total;
    }
    o->max_node_share = all ? (double)top / (double)all : NAN;
}
