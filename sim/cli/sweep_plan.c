/*
 * sweep_plan.c — `ringsim sweep`'s plan (see sweep.h and cmd_sweep.c): the
 * --vary axes, combination g's values and first seed, run i's scenario and
 * label (made from its number when needed), and the validation of every
 * combination before anything runs (its scenario, its last seed, its
 * cost; two values of a --vary that make the same scenario; the seed
 * ranges of a varied seed that overlap).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/sweep.h"
#include "sim/estimate.h"
#include "sim/scenario.h"

void sweep_axes_free(struct axis *ax, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ax[i].path);
        free(ax[i].norm);
        for (size_t j = 0; j < ax[i].n; j++)
            free(ax[i].values[j]);
        free(ax[i].values);
    }
    free(ax);
}

/* Splits "PATH=V1,V2,..." into an axis. */
static int parse_vary(const char *arg, struct axis *ax)
{
    const char *eq = strchr(arg, '=');
    memset(ax, 0, sizeof(*ax));
    if (!eq || eq == arg || !eq[1]) {
        fprintf(stderr, "ringsim sweep: --vary %s: expected PATH=V1,V2,...\n", arg);
        return -1;
    }
    ax->path = xstrndup(arg, (size_t)(eq - arg));
    ax->norm = override_path_normalize(ax->path);
    const char *p = eq + 1;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (!len) {
            fprintf(stderr, "ringsim sweep: --vary %s: an empty value\n", arg);
            return -1;
        }
        ax->values = xrealloc(ax->values, (ax->n + 1) * sizeof(char *));
        ax->values[ax->n++] = xstrndup(p, len);
        for (size_t j = 0; j + 1 < ax->n; j++)
            if (!strcmp(ax->values[j], ax->values[ax->n - 1])) {
                fprintf(stderr, "ringsim sweep: --vary %s: %s: the value %s is given twice "
                                "(each combination would run twice)\n",
                        arg, ax->path, ax->values[j]);
                return -1;
            }
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

/* The --vary arguments into axes; at most a million combinations, no path
 * varied twice (compared normalized: nodes.0.weight and nodes.00.weight
 * are the same key), no value given twice in one --vary. */
int sweep_parse_axes(struct sweep *sw)
{
    sw->axes = xcalloc(sw->cli.n_vary + 1, sizeof(*sw->axes));
    sw->n_groups = 1;
    for (size_t i = 0; i < sw->cli.n_vary; i++) {
        sw->n_axes = i + 1;
        if (parse_vary(sw->cli.vary[i], &sw->axes[i]))
            return -1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(sw->axes[j].norm, sw->axes[i].norm)) {
                fprintf(stderr, "ringsim sweep: --vary %s: %s is already varied by --vary %s; "
                                "give all its values in one --vary\n",
                        sw->cli.vary[i], sw->axes[i].path, sw->cli.vary[j]);
                return -1;
            }
        if (!strcmp(sw->axes[i].norm, "seed"))
            sw->seed_varied = true;
        sw->n_groups *= sw->axes[i].n;
        if (sw->n_groups > 1000000) {
            fprintf(stderr, "ringsim sweep: more than a million combinations\n");
            return -1;
        }
    }
    sw->stride = xcalloc(sw->n_axes + 1, sizeof(*sw->stride));
    for (size_t a = sw->n_axes, st = 1; a-- > 0;) {
        sw->stride[a] = st;
        st *= sw->axes[a].n;
    }
    return 0;
}

/* Whether axis a is the seed, which --seeds replaces run by run. */
static bool axis_is_seed(const struct sweep *sw, size_t a)
{
    return !strcmp(sw->axes[a].norm, "seed");
}

/* Combination g's values, "path=v path=v" ("(base)" with no --vary). */
static void combo_label(const struct sweep *sw, size_t g, struct strbuf *sb)
{
    for (size_t a = 0; a < sw->n_axes; a++)
        sb_printf(sb, "%s%s=%s", a ? " " : "", sw->axes[a].path,
                  sw->axes[a].values[combo_pick(sw, g, a)]);
    if (!sw->n_axes)
        sb_puts(sb, "(base)");
}

/* Loads combination g: the --set overrides, then its --vary values, then
 * (with_seed) seed=seed. NULL with the errors in d. Caller destroys. */
static struct scenario *load_combo(const struct sweep *sw, size_t g, bool with_seed,
                                   uint64_t seed, struct diag *d)
{
    struct override *ov = xcalloc(sw->cli.n_sets + sw->n_axes + 2, sizeof(*ov));
    size_t m = 0;
    bool bad = false;
    for (size_t k = 0; k < sw->cli.n_sets; k++)
        if (!override_parse(sw->cli.sets[k].arg, &ov[m], d))
            m++;
    for (size_t a = 0; a < sw->n_axes + (with_seed ? 1 : 0); a++) {
        char *arg = a < sw->n_axes
                        ? xasprintf("%s=%s", sw->axes[a].path,
                                    sw->axes[a].values[combo_pick(sw, g, a)])
                        : xasprintf("seed=%llu", (unsigned long long)seed);
        if (override_parse_as(a < sw->n_axes ? "--vary" : "--seeds", arg, &ov[m], d))
            bad = true;
        else
            m++;
        free(arg);
    }
    struct scenario *sc = bad ? NULL : scenario_load(sw->cli.scenario, ov, m, d);
    for (size_t k = 0; k < m; k++)
        override_deinit(&ov[k]);
    free(ov);
    return sc;
}

/* The first seed of combination g: the seed its --vary values leave (its
 * own, when seed is varied), else that of --set or the scenario. Its runs
 * take it, it + 1, ... */
static uint64_t combo_seed0(struct sweep *sw, size_t g)
{
    if (!sw->seed_varied)
        return sw->seed0;
    if (sw->seed_g != g) {
        struct diag d;
        diag_init(&d);
        struct scenario *sc = load_combo(sw, g, false, 0, &d);
        sw->seed_g0 = sc ? sc->seed : sw->seed0; /* sweep_validate() has loaded every one */
        sw->seed_g = g;
        scenario_destroy(sc);
        diag_deinit(&d);
    }
    return sw->seed_g0;
}

static uint64_t run_seed(struct sweep *sw, size_t i)
{
    return combo_seed0(sw, i / sw->seeds) + i % sw->seeds;
}

/* The label of run i ("path=v path=v seed=N"): with --seeds, the seed the
 * run took in place of a varied seed's value. */
void sweep_run_label(struct sweep *sw, size_t i, struct strbuf *label)
{
    for (size_t a = 0; a < sw->n_axes; a++)
        if (!sw->cli.seeds || !axis_is_seed(sw, a))
            sb_printf(label, "%s%s=%s", label->len ? " " : "", sw->axes[a].path,
                      sw->axes[a].values[run_pick(sw, i, a)]);
    if (sw->cli.seeds)
        sb_printf(label, "%sseed=%llu", label->len ? " " : "",
                  (unsigned long long)run_seed(sw, i));
}

/* Loads run i: combination i / seeds with, under --seeds, its seed. NULL
 * with the errors in d. Caller destroys. */
struct scenario *sweep_load_run(struct sweep *sw, size_t i, struct diag *d)
{
    return load_combo(sw, i / sw->seeds, sw->cli.seeds != 0, run_seed(sw, i), d);
}

/* Adds to d the messages of from that d does not hold yet: an error every
 * combination shares is printed once. */
static void diag_add_new(struct diag *d, const struct diag *from)
{
    for (size_t i = 0; i < from->n; i++) {
        bool seen = false;
        for (size_t j = 0; j < d->n && !seen; j++)
            seen = !strcmp(d->msgs[j], from->msgs[i]);
        if (!seen)
            diag_add(d, "%s", from->msgs[i]);
    }
}

/* Whether the last seed of combination g (seed0 + seeds - 1) is one a
 * scenario takes; adds why not to d. */
static void check_last_seed(struct sweep *sw, size_t g, uint64_t seed0, struct diag *d)
{
    uint64_t last = seed0 + (sw->seeds - 1);
    struct diag why;
    diag_init(&why);
    struct scenario *sc = last >= seed0 ? load_combo(sw, g, true, last, &why) : NULL;
    if (!sc) {
        struct strbuf what;
        sb_init(&what);
        if (sw->seed_varied)
            combo_label(sw, g, &what);
        const char *msg = why.n ? why.msgs[0] : "";
        const char *colon = strstr(msg, ": seed: "); /* past "--seeds seed=N" */
        diag_add(d, "ringsim sweep: --seeds %u: %s%s%sthe seeds would run from %llu to "
                    "%llu, past the largest seed (%s); lower the seed or --seeds",
                 sw->seeds, what.len ? "combination " : "", what.len ? what.buf : "",
                 what.len ? ": " : "", (unsigned long long)seed0,
                 (unsigned long long)seed0 + (sw->seeds - 1),
                 colon ? colon + 8 : (last < seed0 ? "past 2^64" : msg));
        sb_deinit(&what);
    }
    scenario_destroy(sc);
    diag_deinit(&why);
}

/* The effective scenarios of the combinations that differ from the first in
 * one value at most: fp[a][v] for value v of axis a (fp[a][0] all the
 * first's). Two values of an axis that leave the same scenario (32 and 32,
 * or 1e2 and 100 for an integer) would make every combination twice. */
struct repeat_check {
    char ***fp;
};

static void repeats_note(const struct sweep *sw, struct repeat_check *rc, size_t g,
                         const struct scenario *sc)
{
    size_t axis = SIZE_MAX, nonzero = 0;
    for (size_t a = 0; a < sw->n_axes; a++)
        if (combo_pick(sw, g, a)) {
            axis = a;
            nonzero++;
        }
    if (nonzero > 1)
        return;
    for (size_t a = 0; a < sw->n_axes; a++)
        if (!nonzero || a == axis)
            rc->fp[a][combo_pick(sw, g, a)] = xstrdup(sc->effective_yaml ? sc->effective_yaml : "");
}

struct fp_item {
    const char *text;
    size_t v;
};

static int fp_cmp(const void *pa, const void *pb)
{
    const struct fp_item *a = pa, *b = pb;
    int c = strcmp(a->text, b->text);
    return c ? c : (a->v < b->v ? -1 : a->v > b->v);
}

/* Adds to d each axis whose values repeat one another. O(n log n) per axis. */
static void repeats_find(const struct sweep *sw, struct repeat_check *rc, struct diag *d)
{
    for (size_t a = 0; a < sw->n_axes; a++) {
        size_t n = sw->axes[a].n;
        struct fp_item *it = xcalloc(n + 1, sizeof(*it));
        for (size_t v = 0; v < n; v++)
            it[v] = (struct fp_item){rc->fp[a][v] ? rc->fp[a][v] : "", v};
        qsort(it, n, sizeof(*it), fp_cmp);
        for (size_t v = 1; v < n; v++)
            if (!strcmp(it[v - 1].text, it[v].text)) {
                diag_add(d, "ringsim sweep: --vary %s: %s and %s are the same value of %s (the "
                            "scenario is the same with either), so each combination would "
                            "run twice; give it once",
                         sw->cli.vary[a], sw->axes[a].values[it[v - 1].v],
                         sw->axes[a].values[it[v].v], sw->axes[a].path);
                break;
            }
        free(it);
    }
}

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* With seed varied and --seeds N, the seeds of two values of the seed axis
 * must lie N apart at least: else a run of one combination would be a run
 * of another (--vary seed=1,2 --seeds 2 runs seed 2 twice). first[v]: the
 * first seed of the seed axis's value v. */
static void seeds_overlap(const struct sweep *sw, size_t a, const uint64_t *first,
                          struct diag *d)
{
    size_t n = sw->axes[a].n;
    uint64_t *sorted = xcalloc(n + 1, sizeof(*sorted));
    memcpy(sorted, first, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), u64_cmp);
    for (size_t v = 1; v < n; v++)
        if (sorted[v] - sorted[v - 1] < sw->seeds) {
            diag_add(d, "ringsim sweep: --vary %s with --seeds %u: the seeds from %llu and "
                        "from %llu overlap (each value runs %u seeds from its own), so some runs "
                        "would be the same run; give seeds at least %u apart",
                     sw->cli.vary[a], sw->seeds, (unsigned long long)sorted[v - 1],
                     (unsigned long long)sorted[v], sw->seeds, sw->seeds);
            break;
        }
    free(sorted);
}

/* Every combination loads, and the cost estimate accepts it, before
 * anything runs; its last seed too; and no two values of a --vary make the
 * same scenario, nor two seeds of a varied seed the same runs. Each
 * distinct error is printed once. */
int sweep_validate(struct sweep *sw)
{
    struct diag d;
    diag_init(&d);
    struct repeat_check rep;
    rep.fp = xcalloc(sw->n_axes + 1, sizeof(*rep.fp));
    for (size_t a = 0; a < sw->n_axes; a++)
        rep.fp[a] = xcalloc(sw->axes[a].n + 1, sizeof(char *));
    size_t seed_axis = SIZE_MAX;
    for (size_t a = 0; a < sw->n_axes && sw->seed_varied; a++)
        if (axis_is_seed(sw, a))
            seed_axis = a;
    uint64_t *first_seed =
        seed_axis != SIZE_MAX ? xcalloc(sw->axes[seed_axis].n + 1, sizeof(*first_seed)) : NULL;
    double most = 0; /* the largest memory estimate of a combination */
    for (size_t g = 0; g < sw->n_groups && d.n <= 20; g++) {
        struct diag one;
        diag_init(&one);
        struct strbuf what;
        sb_init(&what);
        combo_label(sw, g, &what);
        struct scenario *sc = load_combo(sw, g, false, 0, &one);
        if (!sc && !one.n)
            diag_add(&one, "%s: combination %zu of %zu (%s) does not load", sw->cli.scenario,
                     g + 1, sw->n_groups, what.buf);
        if (sc) {
            if (!sw->seed_varied) /* the same in every combination */
                sw->seed0 = sc->seed;
            sw->seed_g = g;
            sw->seed_g0 = sc->seed;
            if (sw->seeds > 1 && (sw->seed_varied || g == 0))
                check_last_seed(sw, g, sc->seed, &one);
            struct run_cost est;
            int cost = judge_run_cost(sw->cli.scenario, sc, sw->cli.force, NULL, &one, &est);
            most = cost ? most : fmax(most, est.memory_bytes);
            if (cost)
                diag_add(&one, "%s: combination %zu of %zu (%s) would not run%s",
                         sw->cli.scenario, g + 1, sw->n_groups, what.buf,
                         cost == 1 ? " (--force runs it anyway)" : "");
            repeats_note(sw, &rep, g, sc);
            if (first_seed)
                first_seed[combo_pick(sw, g, seed_axis)] = sc->seed;
        }
        diag_add_new(&d, &one);
        diag_deinit(&one);
        sb_deinit(&what);
        scenario_destroy(sc);
    }
    /* -j runs at once, each as large as the largest: together within memory */
    double at_once = (double)MIN((size_t)sw->cli.jobs, sw->n_todo);
    double machine = machine_memory_bytes();
    if (!d.n && at_once > 1 && machine > 0 && at_once * most > machine) {
        char a[32], b[32];
        format_bytes(at_once * most, a, sizeof a);
        format_bytes(machine, b, sizeof b);
        if (sw->cli.force) /* the estimate is not exact: said, not refused */
            fprintf(stderr, "%s: warning: the runs may run out of memory: %.0f at once (-j) "
                            "could need about %s, more than this machine's %s (lower -j to "
                            "%.0f)\n", sw->cli.scenario, at_once, a, b,
                    fmax(1, floor(machine / most)));
        else
            diag_add(&d, "%s: cannot run: %.0f runs at once (-j) could need about %s of "
                         "memory, more than this machine's %s; lower -j to %.0f, or pass "
                         "--force to run them anyway", sw->cli.scenario, at_once, a, b,
                     fmax(1, floor(machine / most)));
    }
    if (!d.n)
        repeats_find(sw, &rep, &d);
    if (!d.n && first_seed && sw->seeds > 1)
        seeds_overlap(sw, seed_axis, first_seed, &d);
    free(first_seed);
    for (size_t a = 0; a < sw->n_axes; a++) {
        for (size_t v = 0; v < sw->axes[a].n; v++)
            free(rep.fp[a][v]);
        free(rep.fp[a]);
    }
    free(rep.fp);
    int rc = d.n ? -1 : 0;
    if (rc) {
        diag_print(&d, stderr);
        fprintf(stderr, "ringsim sweep: nothing was run\n");
    }
    diag_deinit(&d);
    return rc;
}
