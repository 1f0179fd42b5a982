/*
 * cmd_merge.c — `ringsim merge OUT.db IN.db...`: copies every run of each
 * input into OUT.db (created if missing) with new run ids, inputs in the
 * order given and runs in their run_id order. Every input is opened
 * read-only and checked (ringsim's tables, not damaged) before anything
 * is copied;
 * an input that is the output file under another name (same device and
 * inode) is refused.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "output/results.h"
#include "sim/cli/cli.h"

static const char merge_usage[] =
    "usage: ringsim merge OUT.db IN.db...\n"
    "\n"
    "Copies every run (runs, params, ticks, node_ticks, events, summary) of each IN.db\n"
    "into OUT.db with new run ids; OUT.db is created if missing, and what it already\n"
    "holds is not changed. Use it to join the shards of a sweep run on several machines.\n"
    "The inputs are only read, and all of them are checked before anything is copied.\n"
    "Exit: 0 merged; 1 an input is missing, not a ringsim database or damaged (nothing\n"
    "is merged), or OUT.db cannot be written; 2 bad usage.\n"
    "\n"
    "example:\n"
    "  ringsim merge results/all.db results/shard0.db results/shard1.db\n";

int cmd_merge(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(merge_usage, stdout);
            return EXIT_OK;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "ringsim merge: unknown option %s\n%s", argv[i], merge_usage);
            return EXIT_USAGE;
        }
    }
    if (argc < 3) {
        fprintf(stderr, "ringsim merge: need OUT.db and at least one IN.db\n%s", merge_usage);
        return EXIT_USAGE;
    }
    if (!*argv[1]) {
        fprintf(stderr, "ringsim merge: OUT.db needs a file name, got \"\"\n");
        return EXIT_USAGE;
    }
    struct stat out_st;
    bool out_exists = stat(argv[1], &out_st) == 0;
    for (int i = 2; i < argc; i++) {
        struct stat in_st;
        if (!strcmp(argv[i], argv[1])
            || (out_exists && stat(argv[i], &in_st) == 0 && in_st.st_dev == out_st.st_dev
                && in_st.st_ino == out_st.st_ino)) {
            fprintf(stderr, "ringsim merge: %s is the output file %s: an input cannot be the "
                            "output\n", argv[i], argv[1]);
            return EXIT_USAGE;
        }
    }
    char err[1024];
    /* every input first: a bad one leaves the output untouched */
    for (int i = 2; i < argc; i++) {
        if (results_check_file(argv[i], err, sizeof err)) {
            fprintf(stderr, "ringsim merge: %s; nothing was merged\n", err);
            return EXIT_RUN_FAILED;
        }
    }
    struct results *out = results_open(argv[1], err, sizeof err);
    if (!out) {
        fprintf(stderr, "ringsim merge: %s\n", err);
        return EXIT_RUN_FAILED;
    }
    int total = 0, rc = EXIT_OK;
    for (int i = 2; i < argc; i++) {
        int n = results_merge_from(out, argv[i], err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "ringsim merge: %s\n", err);
            rc = EXIT_RUN_FAILED;
            break;
        }
        total += n;
        printf("%s: %d run%s\n", argv[i], n, n == 1 ? "" : "s");
    }
    results_close(out);
    printf("%d run%s merged into %s\n", total, total == 1 ? "" : "s", argv[1]);
    return rc;
}
