/*
 * cmd_check.c — `ringsim check SCENARIO.yaml [--set PATH=VALUE]... [--seed N]
 * [--force]`: loads and validates a scenario, then judges what a run of it
 * would cost (sim/estimate.h), and runs nothing. Prints "ok: NAME" and exits
 * 0, or prints every error (one per line) on stderr and exits 2.
 *
 * The cost is judged against this machine's memory and without a disk
 * limit (check writes nothing): a run that cannot
 * be simulated (time past the clock's range) is refused even with --force;
 * one that would take hours, write tens of gigabytes or need more memory
 * than the machine has is refused unless --force (the last then warned).
 *
 * `--schema` (for developers) prints the schema reference that
 * scenarios/README.md quotes between its schema markers.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/cli/cmdline.h"
#include "sim/estimate.h"
#include "sim/scenario.h"

#define USAGE "usage: ringsim check SCENARIO.yaml [--set PATH=VALUE]... [--seed N] [--force]"

static void usage(FILE *f)
{
    fputs(USAGE "\n"
          "\n"
          "Loads and validates a scenario without running it, then estimates what a run would\n"
          "cost (memory, events, rows, the latest simulated time). Prints \"ok: NAME\" and\n"
          "exits 0, or prints every error as FILE:LINE:COL: PATH: message, or what makes it\n"
          "impossible or too big to run as FILE: cannot run: ... (with the estimate and the\n"
          "key to change), and exits 2. With --force a run past the machine's memory is\n"
          "accepted with FILE: warning: the run may run out of memory: ... on stderr.\n"
          "\n"
          "  --set PATH=VALUE  override one value by its dotted path (repeatable), e.g.\n"
          "                    routing.vnodes=512, health.cooldown=60s, nodes.1.weight=2\n"
          "  --seed N          the same as --set seed=N\n"
          "  --force           accept a run that would be slow or large (more than 2e10\n"
          "                    events, or 2e8 rows) or need more memory than this machine\n"
          "                    has (then with a warning: it may run out of memory); never\n"
          "                    one past the clock's range (2^62 ns, about 146 years)\n"
          "  --schema          print the schema reference (scenarios/README.md) and exit\n"
          "  -h, --help        this text\n"
          "  --                the end of the options: what follows is the scenario file,\n"
          "                    even a name that starts with -\n"
          "\n"
          "examples:\n"
          "  ringsim check scenarios/scale_out_3_to_4.yaml --set routing.vnodes=512\n"
          "      prints ok: scale-out-3-to-4\n"
          "  ringsim check scenarios/scale_out_3_to_4.yaml --set duration=300000h --set tick=1h\n"
          "      refused: about 4e13 events, hours of simulation (--force would accept it)\n"
          "  ringsim check scenarios/scale_out_3_to_4.yaml --set cache.service_time=100000h\n"
          "      refused even with --force: a full node queue would pass the clock's range\n"
          "\n"
          "Exit codes: 0 valid and runnable; 1 stdout cannot be written; 2 bad usage, a\n"
          "scenario that does not exist or cannot be read, an invalid scenario, or a run\n"
          "that cannot (or, without --force, should not) be made.\n"
          "The schema (every key, its default and range) is in scenarios/README.md.\n",
          f);
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "ringsim check: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fputs(USAGE "  (ringsim check --help)\n", stderr);
    return EXIT_USAGE;
}

int cmd_check(int argc, char **argv)
{
    const char *file = NULL;
    struct override *sets = xcalloc((size_t)argc, sizeof(*sets));
    size_t n_sets = 0;
    struct diag d;
    bool force = false;
    int rc = EXIT_USAGE;

    diag_init(&d);
    static const char *const flags[] = {"--help", "--force", "--schema", NULL};
    static const char *const with_value[] = {"--set", "--seed", NULL};
    bool options_ended = false; /* after "--": every argument is the scenario file */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char *seed_arg = NULL;
        if (!options_ended && !strcmp(a, "--")) {
            options_ended = true;
            continue;
        }
        if (options_ended) {
            if (file) {
                rc = usage_error("more than one scenario file:", a);
                goto out;
            }
            file = a;
            continue;
        }
        const char *flag = long_option_value(a, flags, &val);
        if (flag) {
            fprintf(stderr, "ringsim check: %s takes no value, got %s; write %s alone\n", flag,
                    a, flag);
            fputs(USAGE "  (ringsim check --help)\n", stderr);
            goto out;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = EXIT_OK;
            goto out;
        }
        if (!strcmp(a, "--force")) {
            force = true;
            continue;
        }
        if (!strcmp(a, "--schema")) {
            scenario_schema_markdown(stdout);
            rc = EXIT_OK;
            goto out;
        }
        const char *opt = long_option_value(a, with_value, &val);
        if (opt) {
            a = opt;
        } else if (option_in(a, with_value)) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ringsim check: %s needs a value\n", a);
                fputs(USAGE "  (ringsim check --help)\n", stderr);
                goto out;
            }
            val = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            rc = usage_error("unknown option", a);
            goto out;
        } else {
            if (file) {
                rc = usage_error("more than one scenario file:", a);
                goto out;
            }
            file = a;
            continue;
        }
        if (!*val) {
            fprintf(stderr, "ringsim check: %s needs a value, got \"\"\n", a);
            fputs(USAGE "  (ringsim check --help)\n", stderr);
            goto out;
        }
        if (!strcmp(a, "--seed"))
            val = seed_arg = xasprintf("seed=%s", val);
        int bad = override_parse(val, &sets[n_sets], &d);
        if (!bad && seed_arg)
            sets[n_sets].flag = "--seed"; /* messages name it so */
        free(seed_arg);
        if (bad) {
            diag_print(&d, stderr);
            goto out;
        }
        n_sets++;
    }
    if (!file) {
        rc = usage_error("missing the scenario file", NULL);
        goto out;
    }
    struct scenario *s = scenario_load(file, sets, n_sets, &d);
    if (!s) {
        diag_print(&d, stderr);
        goto out;
    }
    if (judge_run_cost(file, s, force, NULL, NULL, NULL) == 0) {
        printf("ok: %s\n", s->name);
        rc = EXIT_OK;
    }
    scenario_destroy(s);
out:
    for (size_t i = 0; i < n_sets; i++)
        override_deinit(&sets[i]);
    free(sets);
    diag_deinit(&d);
    return rc;
}
