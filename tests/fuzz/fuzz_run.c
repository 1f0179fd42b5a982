/*
 * fuzz_run.c — libFuzzer harness for whole simulations: a fuzzed scenario
 * that loads and whose estimated cost is small (a fraction of a second of
 * simulation) is run to the end with every invariant checked at every tick.
 * It must complete: a run that fails (an invariant broken, a placement that
 * cannot be built, a model that runs away) or crashes is a bug — a
 * scenario the loader accepts must be one the engine can run.
 *
 * Input: as fuzz_scenario.c (optional "#set PATH=VALUE" lines, then YAML).
 * `make fuzz` builds and runs it; tests/fuzz/driver.c replays the corpus
 * and the crash reproducers in `make test`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/estimate.h"
#include "sim/scenario.h"
#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SETS 8
#define MAX_EVENTS 200000.0        /* about a tenth of a second of simulation */
#define MAX_MEMORY (256.0 * 1024 * 1024)
#define MAX_KEYS 100000

static int small_enough(const struct scenario *sc)
{
    /* a trace is a file's content, not the input's (tests/model/test_traffic.c
     * runs traces): a fuzzed path may name any file */
    if (sc->workload.trace.path)
        return 0;
    struct run_cost c;
    run_cost_estimate(sc, &c);
    struct strbuf sb;
    sb_init(&sb);
    enum run_cost_verdict v = run_cost_judge(&c, false, MAX_MEMORY, 0, &sb);
    sb_deinit(&sb);
    return v == COST_OK && c.events <= MAX_EVENTS && c.ticks <= 10000
           && sc->workload.keys <= MAX_KEYS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct override sets[MAX_SETS];
    size_t n_sets = 0;
    struct diag d;

    diag_init(&d);
    while (size > 5 && !memcmp(text, "#set ", 5) && n_sets < MAX_SETS) {
        const char *nl = memchr(text, '\n', size);
        if (!nl)
            break;
        char *arg = xstrndup(text + 5, (size_t)(nl - text - 5));
        if (strlen(arg) == (size_t)(nl - text - 5) && !override_parse(arg, &sets[n_sets], &d))
            n_sets++;
        free(arg);
        size -= (size_t)(nl - text) + 1;
        text = nl + 1;
    }
    struct scenario *sc = scenario_load_string("fuzz.yaml", text, size, sets, n_sets, &d);
    if (sc && small_enough(sc)) {
        struct run_options opt = {NULL, NULL, NULL, true, false, NULL};
        char err[256];
        struct sim *s = sim_create(sc, NULL, &opt, err, sizeof err);
        if (!s) {
            fprintf(stderr, "a scenario that loads could not be built: %s\n%s\n", err,
                    sc->effective_yaml);
            abort();
        }
        if (sim_run(s) != RUN_COMPLETE) {
            fprintf(stderr, "a scenario that loads failed to run: %s\n%s\n", sim_error(s),
                    sc->effective_yaml);
            abort();
        }
        struct summary_row sum;
        sim_summary(s, &sum);
        sim_destroy(s);
    }
    scenario_destroy(sc);
    for (size_t i = 0; i < n_sets; i++)
        override_deinit(&sets[i]);
    diag_deinit(&d);
    return 0;
}
