/*
 * cmd_check.c — `ringsim check SCENARIO.yaml [--set PATH=VALUE]... [--seed N]`:
 * loads and validates a scenario, nothing else. Prints "ok: NAME" and exits
 * 0, or prints every error (one per line) on stderr and exits 2.
 *
 * `--schema` (for developers) prints the schema reference that
 * scenarios/README.md quotes between its schema markers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/scenario.h"

static void usage(FILE *f)
{
    fputs("usage: ringsim check SCENARIO.yaml [--set PATH=VALUE]... [--seed N]\n"
          "\n"
          "Loads and validates a scenario without running it. Prints \"ok: NAME\" and exits 0,\n"
          "or prints every error as FILE:LINE:COL: PATH: message and exits 2.\n"
          "\n"
          "  --set PATH=VALUE  override one value by its dotted path (repeatable), e.g.\n"
          "                    routing.vnodes=512, health.cooldown=60s, nodes.1.weight=2\n"
          "  --seed N          the same as --set seed=N\n"
          "  --schema          print the schema reference (scenarios/README.md) and exit\n"
          "  -h, --help        this text\n"
          "\n"
          "example:\n"
          "  ringsim check scenarios/scale-out.yaml --set routing.vnodes=512\n"
          "\n"
          "The schema (every key, its default and range) is in scenarios/README.md.\n",
          f);
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "ringsim check: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fputs("usage: ringsim check SCENARIO.yaml [--set PATH=VALUE]... [--seed N]"
          "  (ringsim check --help)\n", stderr);
    return EXIT_USAGE;
}

int cmd_check(int argc, char **argv)
{
    const char *file = NULL;
    struct override *sets = xcalloc((size_t)argc, sizeof(*sets));
    size_t n_sets = 0;
    struct diag d;
    int rc = EXIT_USAGE;

    diag_init(&d);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char *seed_arg = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = EXIT_OK;
            goto out;
        }
        if (!strcmp(a, "--schema")) {
            scenario_schema_markdown(stdout);
            rc = EXIT_OK;
            goto out;
        }
        if (!strcmp(a, "--set") || !strcmp(a, "--seed")) {
            if (i + 1 >= argc) {
                rc = usage_error("missing value after", a);
                goto out;
            }
            val = argv[++i];
        } else if (!strncmp(a, "--set=", 6) || !strncmp(a, "--seed=", 7)) {
            val = strchr(a, '=') + 1;
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
        if (!strncmp(a, "--seed", 6))
            val = seed_arg = xasprintf("seed=%s", val);
        int bad = override_parse(val, &sets[n_sets], &d);
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
    printf("ok: %s\n", s->name);
    scenario_destroy(s);
    rc = EXIT_OK;
out:
    for (size_t i = 0; i < n_sets; i++)
        override_deinit(&sets[i]);
    free(sets);
    diag_deinit(&d);
    return rc;
}
