/*
 * cli.h — the subcommands behind `ringsim`. Each takes the arguments after
 * its name (argv[0] is the subcommand) and returns the process exit code:
 * 0 success, 1 the run failed or was interrupted, 2 bad usage or invalid input.
 */
#ifndef RINGSIM_CLI_H
#define RINGSIM_CLI_H

#define EXIT_OK 0
#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2

/* The program's name as it was invoked (main's argv[0]), for commands
 * that print command lines (sweep --list). */
const char *cli_program(void);

int cmd_ring(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
