/*
 * main.c — ringsim's command line: finds the subcommand and hands over.
 * Everything else lives in the library (libringsim.a) that tests link too.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli/cli.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"run", cmd_run, "run a scenario and record it into SQLite"},
    {"check", cmd_check, "load and validate a scenario"},
    {"sweep", cmd_sweep, "run a scenario over combinations of parameters and seeds"},
    {"merge", cmd_merge, "copy the runs of result databases into one"},
    {"report", cmd_report, "statistics per combination of parameters: mean, 95% CI, min, max"},
    {"ring", cmd_ring, "static placement analysis: keys per node, keys moved"},
    {"plot", cmd_plot, "charts and an HTML index of the runs in a results database"},
};

/* argv[0], set once before a command runs. */
static const char *program = "ringsim";

const char *cli_program(void)
{
    return program;
}

static void usage(FILE *f)
{
    fprintf(f,
            "ringsim %s — deterministic simulator of sharded cache clusters\n\n"
            "usage: ringsim COMMAND [ARGS]   (ringsim COMMAND --help for each)\n\n"
            "commands:\n",
            RINGSIM_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-7s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nExit codes: 0 success; 1 a run failed or was interrupted, or results could not\n"
               "be written; 2 bad usage or invalid input (a scenario, a trace, an input file that\n"
               "is missing, unreadable or not a ringsim database). Each command's --help has its\n"
               "own.\nDocumentation: README.md, scenarios/README.md, models/README.md.\n");
}

/* A command that succeeded but whose output could not all be written (a
 * full disk, a closed pipe, /dev/full) failed to write its results: 1,
 * saying so, as ring, report and sweep --list do themselves. */
static int stdout_written(int rc, const char *cmd)
{
    if (rc != EXIT_OK)
        return rc;
    bool flush_failed = fflush(stdout) != 0;
    int e = errno; /* an earlier write's errno is gone: ferror() alone says it failed */
    if (flush_failed || ferror(stdout)) {
        fprintf(stderr, "ringsim%s%s: stdout: %s\n", cmd ? " " : "", cmd ? cmd : "",
                flush_failed ? strerror(e) : "a write failed");
        return EXIT_RUN_FAILED;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 0 && argv[0] && *argv[0])
        program = argv[0];
    /* At the file size limit (ulimit -f) a write fails with EFBIG, which the
     * results writer reports like a full disk (the run exits 1 saying so),
     * instead of SIGXFSZ ending the process before it can say anything. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return stdout_written(EXIT_OK, NULL);
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("ringsim %s\n", RINGSIM_VERSION);
        return stdout_written(EXIT_OK, NULL);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return stdout_written(commands[i].fn(argc - 1, argv + 1), commands[i].name);
    fprintf(stderr, "ringsim: unknown command '%s'; try 'ringsim --help'\n", argv[1]);
    return EXIT_USAGE;
}
