/* cmd_ring.c — `ringsim ring` (placeholder until the placement engine lands). */
#include <stdio.h>
#include "sim/cli.h"
int cmd_ring(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "ringsim ring: not built yet\n");
    return EXIT_USAGE;
}
