/*
 * fuzz_scenario.c — libFuzzer harness for the scenario loader.
 *
 * Input: optional leading lines "#set PATH=VALUE" (each becomes a --set
 * argument), then the YAML text. For every input the loader must return
 * without crashing, hanging or leaking; when a scenario loads, its
 * effective YAML must load again to the same effective YAML (the round trip
 * `ringsim run` relies on to replay a run from its database).
 *
 * What it exercises: the loader (sim/scenario*.c, sim/yamltree.c with its
 * key index, which hashes with models/placement/hash.c), the set of bad
 * fields (sim/u64map.c), the unit parsers (sim/util.c) and the placement
 * library's checks on every membership (models/placement/). `make fuzz`
 * builds it against libringsim.a with ASan and UBSan and runs it from
 * tests/fuzz/corpus/scenario; `make test` replays that corpus and the crash
 * reproducers of tests/fuzz/regress/scenario through tests/fuzz/driver.c.
 * Inputs that start with "#set " lines exercise the overrides; a corpus
 * entry such as `printf '#set nodes.1.weight=2\n' | cat - tests/data/full.yaml`
 * helps it find them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SETS 8

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

    struct scenario *s = scenario_load_string("fuzz.yaml", text, size, sets, n_sets, &d);
    if (s) {
        struct diag d2;
        diag_init(&d2);
        struct scenario *r = scenario_load_string("replay.yaml", s->effective_yaml,
                                                  strlen(s->effective_yaml), NULL, 0, &d2);
        if (!r || strcmp(r->effective_yaml, s->effective_yaml)) {
            fprintf(stderr, "round trip failed:\n%s\n", s->effective_yaml);
            diag_print(&d2, stderr);
            abort();
        }
        scenario_destroy(r);
        diag_deinit(&d2);
    } else if (!d.n) {
        fprintf(stderr, "load failed without a message\n");
        abort();
    }
    scenario_destroy(s);
    for (size_t i = 0; i < n_sets; i++)
        override_deinit(&sets[i]);
    diag_deinit(&d);
    return 0;
}
