/*
 * cmd_merge.c — `ringsim merge OUT.db IN.db...`: copies every run of each
 * input into OUT.db (created if missing) with new run ids, inputs in the
 * order given and runs in their run_id order, in one transaction (all or
 * nothing). Every input is opened read-only and checked (ringsim's tables,
 * not damaged) before anything is copied; an input that is the output file,
 * or another input, under another name (same device and inode) is refused.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/results.h"
#include "sim/cli/cli.h"
#include "sim/cli/cmdline.h"
#include "sim/util.h"

static const char merge_usage[] =
    "usage: ringsim merge OUT.db IN.db...\n"
    "\n"
    "Copies every run (runs, params, ticks, node_ticks, views, events, summary,\n"
    "requests) of each IN.db into OUT.db with new run ids; OUT.db (and its folder) is\n"
    "created if missing, and what it already holds is not changed. Use it to join the\n"
    "shards of a sweep run on several machines. The inputs are only read, all of them\n"
    "are checked before anything is copied, and the copy is one transaction: every run\n"
    "of every input is merged, or none (a full disk leaves OUT.db as it was, and a\n"
    "retry copies nothing twice). The same file given twice is refused. A run whose\n"
    "status is still 'running' (being recorded, or its process was killed) is copied\n"
    "as it is, with a warning naming the input and the run. Ctrl-C (or SIGTERM,\n"
    "SIGHUP) stops the check or the copy and rolls it back: nothing is merged.\n"
    "Exit: 0 merged; 1 OUT.db cannot be written (a full disk, a locked or read-only\n"
    "file, a folder or another program's file in its place), an input cannot be read\n"
    "for an I/O error or a lock another process holds (past a 10 s wait), or the\n"
    "merge was interrupted (nothing is merged in any of these), or stdout cannot be\n"
    "written (the merge is done); 2 bad usage, or an input that does not exist,\n"
    "cannot be read (a folder, no permission, a name too long), is not a ringsim\n"
    "database or is damaged, is OUT.db, or is given twice.\n"
    "\n"
    "Options: -h, --help (this text); -- ends the options, so that a file whose name\n"
    "starts with - can follow (ringsim merge -- -all.db a.db). OUT.db - (standard\n"
    "output) is refused, as run -o - and sweep -o - are.\n"
    "\n"
    "example:\n"
    "  ringsim merge results/all.db results/shard0.db results/shard1.db\n";

/* A run copied while its status is 'running': being recorded as the input
 * was read, or its process died; it is copied as it is. */
/* A run still 'running' in an input: noted, and warned of once the merge
 * has committed (a merge that fails copies nothing). */
static void warn_running(void *ctx, const char *src_path, int64_t run_id, const char *name)
{
    sb_printf(ctx, "ringsim merge: warning: %s: run %lld (%s) is still 'running' (being "
                   "recorded, or its process died): copied as it is\n",
              src_path, (long long)run_id, name ? name : "?");
}

/* The files (argv[1] OUT.db, then the inputs) after the options, a "--"
 * ending them: returns a new argv of argv[0] and the files, and its argc
 * in *n; NULL after a message on bad usage (exit 2), *n 0 after --help. */
static char **merge_files(int argc, char **argv, int *n)
{
    char **files = xcalloc((size_t)argc + 1, sizeof(*files));
    bool options_ended = false;
    files[0] = argv[0];
    *n = 1;
    for (int i = 1; i < argc; i++) {
        if (options_ended) {
            files[(*n)++] = argv[i];
            continue;
        }
        if (!strcmp(argv[i], "--")) {
            options_ended = true;
            continue;
        }
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(merge_usage, stdout);
            *n = 0;
            return files;
        }
        const char *v;
        if (long_option_value(argv[i], (const char *const[]){"--help", NULL}, &v)) {
            fprintf(stderr, "ringsim merge: --help takes no value, got %s; write --help alone\n",
                    argv[i]);
            free(files);
            return NULL;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "ringsim merge: unknown option %s\n%s", argv[i], merge_usage);
            free(files);
            return NULL;
        }
        files[(*n)++] = argv[i];
    }
    return files;
}

static volatile sig_atomic_t stop_merge;

static void on_signal(int sig)
{
    (void)sig;
    stop_merge = 1;
}

/* What an interrupted merge says: nothing was merged, and what became of
 * OUT.db. Returns the exit code. */
static int interrupted(const char *out, bool out_existed)
{
    fprintf(stderr, "ringsim merge: interrupted; nothing was merged (%s %s)\n", out,
            out_existed ? "is as it was"
            : access(out, F_OK) == 0 ? "was created and holds no runs" : "was not created");
    return EXIT_RUN_FAILED;
}

/* The copy itself, once the command line is judged (argv[1] OUT.db, then
 * the inputs), Ctrl-C, SIGTERM and SIGHUP caught: a signal stops the
 * check of the inputs or the copy and rolls it back; one after the commit
 * changes nothing (every run was merged). */
static int copy_all(int argc, char **argv, bool out_exists)
{
    int n_in = argc - 2;
    char err[MSG_MAX];
    /* every input first: a bad one leaves the output untouched */
    for (int i = 2; i < argc && !stop_merge; i++) {
        int bad = results_check_file(argv[i], &stop_merge, err, sizeof err);
        if (bad && !stop_merge) {
            fprintf(stderr, "ringsim merge: %s; nothing was merged\n", err);
            /* an input that is not a readable ringsim database is bad
             * input, as in report and plot; an I/O error reading it is not */
            return bad == -1 ? EXIT_USAGE : EXIT_RUN_FAILED;
        }
    }
    if (stop_merge)
        return interrupted(argv[1], out_exists);
    /* as run and sweep do: OUT.db's folder is made when missing */
    if (make_parent_dirs(argv[1], "merge"))
        return EXIT_RUN_FAILED;
    struct results *out = results_open(argv[1], err, sizeof err);
    if (!out) {
        fprintf(stderr, "ringsim merge: %s\n", err);
        return EXIT_RUN_FAILED;
    }
    results_stop_on(out, &stop_merge);
    int *each = xcalloc((size_t)n_in + 1, sizeof(*each));
    struct strbuf warnings;
    sb_init(&warnings);
    int total = stop_merge ? -1
                           : results_merge(out, (const char *const *)argv + 2, (size_t)n_in,
                                           each, warn_running, &warnings, err, sizeof err);
    results_close(out);
    if (total < 0) {
        if (stop_merge)
            interrupted(argv[1], out_exists);
        else
            fprintf(stderr, "ringsim merge: %s; nothing was merged\n", err);
        sb_deinit(&warnings);
        free(each);
        return EXIT_RUN_FAILED;
    }
    fputs(warnings.len ? warnings.buf : "", stderr);
    sb_deinit(&warnings);
    for (int i = 0; i < n_in; i++)
        printf("%s: %d run%s\n", argv[i + 2], each[i], each[i] == 1 ? "" : "s");
    printf("%d run%s merged into %s\n", total, total == 1 ? "" : "s", argv[1]);
    free(each);
    return EXIT_OK;
}

/* merge OUT.db IN.db... once the options are read: argv[1] OUT.db, then
 * the inputs. */
static int merge(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "ringsim merge: need OUT.db and at least one IN.db\n%s", merge_usage);
        return EXIT_USAGE;
    }
    if (!*argv[1]) {
        fprintf(stderr, "ringsim merge: OUT.db needs a file name, got \"\"\n");
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-")) { /* as run -o - and sweep -o - */
        fprintf(stderr, "ringsim merge: OUT.db -: a merge writes a results database, not "
                        "standard output; name a file, e.g. results/all.db (./- for a file "
                        "named -)\n");
        return EXIT_USAGE;
    }
    struct stat out_st;
    bool out_exists = stat(argv[1], &out_st) == 0;
    int n_in = argc - 2;
    struct stat *in_st = xcalloc((size_t)n_in + 1, sizeof(*in_st));
    bool *in_ok = xcalloc((size_t)n_in + 1, sizeof(*in_ok));
    int rc = EXIT_OK;
    for (int i = 0; i < n_in && rc == EXIT_OK; i++) {
        const char *in = argv[i + 2];
        in_ok[i] = stat(in, &in_st[i]) == 0;
        if (!in_ok[i] && (errno == ENOENT || errno == ENOTDIR)) {
            /* a name that is not there is bad usage, as in run, report and plot */
            fprintf(stderr, "ringsim merge: %s: cannot read: %s; nothing was merged\n", in,
                    strerror(errno));
            rc = EXIT_USAGE;
            break;
        }
        if (!strcmp(in, argv[1])
            || (out_exists && in_ok[i] && in_st[i].st_dev == out_st.st_dev
                && in_st[i].st_ino == out_st.st_ino)) {
            fprintf(stderr, "ringsim merge: %s is the output file %s: an input cannot be the "
                            "output\n", in, argv[1]);
            rc = EXIT_USAGE;
        }
        /* the same file twice (under one name or two) would copy its runs twice */
        for (int j = 0; j < i && rc == EXIT_OK; j++)
            if (!strcmp(in, argv[j + 2])
                || (in_ok[i] && in_ok[j] && in_st[i].st_dev == in_st[j].st_dev
                    && in_st[i].st_ino == in_st[j].st_ino)) {
                fprintf(stderr, "ringsim merge: %s and %s are the same file: its runs would be "
                                "copied twice; give it once\n", argv[j + 2], in);
                rc = EXIT_USAGE;
            }
    }
    free(in_st);
    free(in_ok);
    if (rc != EXIT_OK)
        return rc;
    struct stop_signals sig;
    stop_signals_catch(&sig, on_signal);
    rc = copy_all(argc, argv, out_exists);
    stop_signals_restore(&sig);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    int n;
    char **files = merge_files(argc, argv, &n);
    if (!files)
        return EXIT_USAGE;
    int rc = n ? merge(n, files) : EXIT_OK;
    free(files);
    return rc;
}
