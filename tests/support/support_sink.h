/* support_sink.h — for model tests: run a scenario given as YAML text and
 * keep every row in memory. */
#ifndef RINGSIM_SUPPORT_SINK_H
#define RINGSIM_SUPPORT_SINK_H

#include <math.h>
#include <stddef.h>
#include <stddef.h>
#include <stdio.h>

#include "sim/metrics.h"
#include "sim/sim.h"

struct mem_event {
    double t_s;
    char kind[32];
    char node[64];
    char detail[512];
};

struct mem_run {
    struct tick_row *ticks;
    size_t n_ticks;
    struct node_tick_row *nodes; /* node and state point into `names` */
    size_t n_nodes;
    struct view_tick_row *views; /* view and ejected point into `names` */
    size_t n_views;
    struct mem_event *events;
    size_t n_events;
    struct summary_row summary;
    enum run_status status;
    char **names;
    size_t n_names;
    char error[256];
};

/* Fails the test unless |got - want| <= tol; the rest is a printf message. */
#define CHECK_NEAR(got, want, tol, ...)                                                     \
    do {                                                                                    \
        double g_ = (got), w_ = (want);                                                     \
        if (!(fabs(g_ - w_) <= (tol))) {                                                    \
            char m_[256];                                                                   \
            snprintf(m_, sizeof m_, __VA_ARGS__);                                           \
            fail_msg("%s: got %.5f, expected %.5f ± %.4f", m_, g_, w_, (double)(tol));      \
        }                                                                                   \
    } while (0)

/* Fails the test unless lo <= got <= hi; the rest is a printf message. */
#define CHECK_RANGE(got, lo, hi, ...)                                                       \
    do {                                                                                    \
        double g_ = (got);                                                                  \
        if (!(g_ >= (lo) && g_ <= (hi))) {                                                  \
            char m_[256];                                                                   \
            snprintf(m_, sizeof m_, __VA_ARGS__);                                           \
            fail_msg("%s: got %.5f, expected %.5f to %.5f", m_, g_, (double)(lo),           \
                     (double)(hi));                                                         \
        }                                                                                   \
    } while (0)

/* A whole file (up to 1 MiB) as a string; fails the test if unreadable. Caller frees. */
char *read_file(const char *path);
/* mem_run_yaml on a file's text. */
void mem_run_file(struct mem_run *m, const char *path, const char *const *sets);

/* Loads yaml (with optional overrides "path=value", NULL-terminated), runs it
 * into memory. Fails the current test on any load error. */
void mem_run_yaml(struct mem_run *m, const char *yaml, const char *const *sets);
/* The same, with the helper thread drawing ahead (sim/ahead.h) or not. */
void mem_run_yaml_helper(struct mem_run *m, const char *yaml, const char *const *sets,
                         bool helper);
void mem_run_free(struct mem_run *m);
/* Loads yaml (overrides as for mem_run_yaml) and runs it into the caller's
 * sink, the helper thread drawing ahead or not; the summary into *sum and
 * the run's error text into error (either may be NULL). Returns the run's
 * status; fails the current test on any load error. */
enum run_status sink_run_yaml(const char *yaml, const char *const *sets, const struct sink *sink,
                              bool helper, struct summary_row *sum, char *error, size_t errlen);
/* Loads yaml and expects the loader to refuse it with a message holding
 * needle (every message is printed when none does). */
void expect_load_refused(const char *yaml, const char *needle);
/* Total of a node's GETs (node_ticks.requests) over the run. */
long long mem_node_requests(const struct mem_run *m, const char *node);
/* Sum of an integer tick column over the ticks starting in [from, to) seconds. */
long long mem_sum_ticks(const struct mem_run *m, size_t offset, double from, double to);
#define MEM_SUM(m, field, from, to) \
    mem_sum_ticks(m, offsetof(struct tick_row, field), from, to)
/* The tick starting at t_s; fails the test if there is none. */
const struct tick_row *mem_tick_at(const struct mem_run *m, double t_s);
/* Number of events of a kind. */
size_t mem_count_events(const struct mem_run *m, const char *kind);

#endif
