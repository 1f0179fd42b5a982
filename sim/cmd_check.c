/* cmd_check.c — `ringsim check` (placeholder until the scenario loader lands). */
#include <stdio.h>
#include "sim/cli.h"
int cmd_check(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "ringsim check: not built yet\n");
    return EXIT_USAGE;
}
