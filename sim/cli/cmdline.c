/*
 * cmdline.c — parsing the options `run` and `sweep` share (see cmdline.h).
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "sim/cli/cmdline.h"

#include <sched.h>

#include "sim/estimate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/statvfs.h>

#include "sim/cli/cli.h"
#include "sim/estimate.h"

static int add_set(struct run_cli *c, const char *arg, struct diag *d)
{
    struct override o;
    if (override_parse(arg, &o, d))
        return -1;
    c->sets = xrealloc(c->sets, (c->n_sets + 1) * sizeof(*c->sets));
    c->sets[c->n_sets++] = o;
    return 0;
}

static int parse_uint(const char *flag, const char *v, unsigned lo, unsigned hi, unsigned *out)
{
    uint64_t x;
    if (parse_u64(v, &x) || x < lo || x > hi) {
        fprintf(stderr, "ringsim: %s: expected an integer from %u to %u, got \"%s\"\n", flag, lo,
                hi, v);
        return -1;
    }
    *out = (unsigned)x;
    return 0;
}

/* The options only `sweep` takes, each with a value: --vary, --seeds, -j
 * (--jobs), --shard, --metric. Returns 1 when a was one of them (its value
 * taken), 0 when not, -1 after a message on a bad or missing value. */
static int sweep_option(struct run_cli *c, const char *cmd, const char *a, const char *next,
                        const char *usage)
{
    bool known = !strcmp(a, "--vary") || !strcmp(a, "--seeds") || !strcmp(a, "-j")
                 || !strcmp(a, "--jobs") || !strcmp(a, "--shard") || !strcmp(a, "--metric");
    if (!known)
        return 0;
    if (!next || !*next) {
        fprintf(stderr, "ringsim %s: %s needs a value%s\n%s", cmd, a, next ? ", got \"\"" : "",
                usage);
        return -1;
    }
    if (!strcmp(a, "--vary")) {
        c->vary = xrealloc(c->vary, (c->n_vary + 1) * sizeof(*c->vary));
        c->vary[c->n_vary++] = next;
        return 1;
    }
    if (!strcmp(a, "--metric")) {
        c->metrics = xrealloc(c->metrics, (c->n_metrics + 1) * sizeof(*c->metrics));
        c->metrics[c->n_metrics++] = next;
        return 1;
    }
    if (!strcmp(a, "--seeds"))
        return parse_uint(a, next, 1, 100000, &c->seeds) ? -1 : 1;
    if (strcmp(a, "--shard")) /* -j, --jobs */
        return parse_uint(a, next, 1, 256, &c->jobs) ? -1 : 1;
    const char *slash = strchr(next, '/');
    char ibuf[32];
    if (!slash || (size_t)(slash - next) >= sizeof ibuf) {
        fprintf(stderr, "ringsim %s: --shard: expected I/N (e.g. 0/4), got \"%s\"\n", cmd, next);
        return -1;
    }
    memcpy(ibuf, next, (size_t)(slash - next));
    ibuf[slash - next] = '\0';
    uint64_t n;
    if (parse_u64(slash + 1, &n) || n < 1 || n > 1000000) {
        fprintf(stderr, "ringsim %s: --shard %s: expected N from 1 to 1000000, got \"%s\"\n",
                cmd, next, slash + 1);
        return -1;
    }
    /* I counts from 0 (0/N .. N-1/N) or from 1 (1/N .. N/N): N/N is the
     * shard of 0/N (I modulo N), so either numbering covers every run once */
    uint64_t i;
    if (parse_u64(ibuf, &i) || i > n) {
        fprintf(stderr, "ringsim %s: --shard %s: expected I from 0 to %u (shards counted "
                        "from 0 or from 1; %u/%u is the shard 0/%u), got \"%s\"\n",
                cmd, next, (unsigned)n, (unsigned)n, (unsigned)n, (unsigned)n, ibuf);
        return -1;
    }
    /* a sweep runs one shard: a second --shard naming another is a mistake
     * (taking the last would run one shard twice and lose another's runs) */
    if (c->shard_n && (c->shard_n != n || c->shard_i != i % n)) {
        fprintf(stderr, "ringsim %s: --shard given twice (%s, then %s): a sweep runs one "
                        "shard; give --shard once\n",
                cmd, c->shard_arg, next);
        return -1;
    }
    c->shard_n = (unsigned)n;
    c->shard_i = (unsigned)(i % c->shard_n);
    c->shard_arg = next;
    return 1;
}

/* The scenario file: the one argument that is not an option. 0, or -1 after
 * a message. */
static int take_scenario(struct run_cli *c, const char *cmd, const char *a)
{
    if (c->scenario) {
        fprintf(stderr, "ringsim %s: one scenario at a time (got %s and %s)\n", cmd, c->scenario,
                a);
        return -1;
    }
    c->scenario = a;
    return 0;
}

int run_cli_parse(struct run_cli *c, int argc, char **argv, const char *usage, bool is_run,
                  struct diag *d)
{
    memset(c, 0, sizeof(*c));
    c->progress = true;
    c->jobs = 1;
    c->argc = argc;
    c->argv = argv;
    static const char *const with_value[] = {"--output", "--set",  "--seed",  "--threads",
                                             "--vary",   "--seeds", "--jobs",  "--shard",
                                             "--metric", NULL};
    static const char *const run_flags[] = {"--help",  "--quiet",   "--no-progress",
                                            "--force", "--metrics", NULL};
    static const char *const sweep_flags[] = {"--help",  "--quiet", "--no-progress",
                                              "--force", "--list",  NULL};
    bool options_ended = false; /* after "--": every argument is the scenario */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_ended || !strcmp(a, "--")) {
            if (options_ended && take_scenario(c, argv[0], a))
                goto usage_error;
            options_ended = true;
            continue;
        }
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        const char *inline_value = NULL;
        const char *bare = long_option_value(a, with_value, &inline_value);
        if (bare) {
            a = bare;
            next = inline_value;
        }
        const char *flag = long_option_value(a, is_run ? run_flags : sweep_flags, &inline_value);
        if (flag) {
            fprintf(stderr, "ringsim %s: %s takes no value, got %s; write %s alone\n%s", argv[0],
                    flag, a, flag, usage);
            goto usage_error;
        }
        int took;
#define NEED_VALUE                                                                   \
    do {                                                                             \
        if (!next || !*next) {                                                       \
            fprintf(stderr, "ringsim %s: %s needs a value%s\n%s", argv[0], a,        \
                    next ? ", got \"\"" : "", usage);                                \
            goto usage_error;                                                        \
        }                                                                            \
        if (!inline_value)                                                           \
            i++;                                                                     \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            run_cli_deinit(c);
            return EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            NEED_VALUE;
            /* the last -o wins, but -o - (refused by run and sweep) stays
             * refused whatever follows it */
            if (!c->out || strcmp(c->out, "-"))
                c->out = next;
        } else if (!strcmp(a, "--set")) {
            NEED_VALUE;
            if (add_set(c, next, d))
                goto diag_error;
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE;
            char *arg = xasprintf("seed=%s", next);
            int bad = add_set(c, arg, d);
            free(arg);
            if (bad)
                goto diag_error;
            c->sets[c->n_sets - 1].flag = "--seed"; /* messages name it so */
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            c->quiet = true;
        } else if (!strcmp(a, "--no-progress")) {
            c->progress = false;
        } else if (!strcmp(a, "--force")) {
            c->force = true;
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE;
            if (parse_uint(a, next, 1, 2, &c->threads))
                goto usage_error;
        } else if (!is_run && !strcmp(a, "--list")) {
            c->list = true;
        } else if (!is_run && (took = sweep_option(c, argv[0], a, next, usage)) != 0) {
            if (took < 0)
                goto usage_error;
            if (!inline_value)
                i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ringsim %s: unknown option %s\n%s", argv[0], a, usage);
            goto usage_error;
        } else if (take_scenario(c, argv[0], a)) {
            goto usage_error;
        }
#undef NEED_VALUE
    }
    if (!c->scenario) {
        fprintf(stderr, "ringsim %s: which scenario? \n%s", argv[0], usage);
        goto usage_error;
    }
    return -1;
diag_error:
    diag_print(d, stderr);
usage_error:
    run_cli_deinit(c);
    return EXIT_USAGE;
}

/* The processors this process may run on (taskset, a container's cpuset),
 * else those online. */
static long usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);
}

bool run_cli_helper_thread(const struct run_cli *c)
{
    if (c->threads)
        return c->threads == 2;
    return usable_cpus() >= 2 * (long)(c->jobs ? c->jobs : 1);
}

void run_cli_deinit(struct run_cli *c)
{
    for (size_t i = 0; i < c->n_sets; i++)
        override_deinit(&c->sets[i]);
    free(c->sets);
    free((void *)c->vary);
    free((void *)c->metrics);
    c->sets = NULL;
    c->vary = NULL;
    c->metrics = NULL;
    c->n_metrics = 0;
    c->n_sets = c->n_vary = 0;
}

void stop_signals_catch(struct stop_signals *st, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &st->old_int);
    sigaction(SIGTERM, &sa, &st->old_term);
    sigaction(SIGHUP, &sa, &st->old_hup);
}

void stop_signals_restore(const struct stop_signals *st)
{
    sigaction(SIGINT, &st->old_int, NULL);
    sigaction(SIGTERM, &st->old_term, NULL);
    sigaction(SIGHUP, &st->old_hup, NULL);
}

const char *long_option_value(const char *a, const char *const *names, const char **value)
{
    for (; *names; names++) {
        size_t n = strlen(*names);
        if (!strncmp(a, *names, n) && a[n] == '=') {
            *value = a + n + 1;
            return *names;
        }
    }
    return NULL;
}

bool option_in(const char *a, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(a, *names))
            return true;
    return false;
}

int make_parent_dirs(const char *path, const char *cmd)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 0;
    char *dir = xstrndup(path, (size_t)(slash - path));
    char err[MSG_MAX];
    int rc = make_dirs(dir, err, sizeof err);
    if (rc)
        fprintf(stderr, "ringsim %s: %s\n", cmd, err);
    free(dir);
    return rc;
}

/* Bytes free on the file system path goes to (0 if unknown): that of its
 * folder, or of the nearest folder above it that exists (-o may name new
 * folders; results/ may not exist yet). */
static double free_bytes(const char *path)
{
    char *dir = xstrdup(path);
    struct statvfs v;
    int rc = -1;
    for (char *slash; rc && (slash = strrchr(dir, '/'));) {
        *(slash == dir ? slash + 1 : slash) = '\0';
        rc = statvfs(dir, &v);
        if (slash == dir)
            break;
    }
    if (rc && dir[0] != '/')
        rc = statvfs(".", &v);
    free(dir);
    return rc ? 0 : (double)v.f_bavail * (double)v.f_frsize;
}

int judge_run_cost(const char *file, const struct scenario *s, bool force, const char *out_path,
                   struct diag *d, struct run_cost *est)
{
    struct run_cost c;
    struct strbuf msg;
    run_cost_estimate(s, &c);
    if (est)
        *est = c;
    sb_init(&msg);
    double disk = out_path ? free_bytes(out_path) : 0;
    enum run_cost_verdict v = run_cost_judge(&c, force, machine_memory_bytes(), disk, &msg);
    for (const char *p = msg.buf; *p;) {
        size_t len = strcspn(p, "\n");
        if (!strncmp(p, "warning: ", 9)) /* forced past the memory: said, not refused */
            fprintf(stderr, "%s: %.*s\n", file, (int)len, p);
        else if (v != COST_OK && d)
            diag_add(d, "%s: cannot run: %.*s", file, (int)len, p);
        else if (v != COST_OK)
            fprintf(stderr, "%s: cannot run: %.*s\n", file, (int)len, p);
        p += len + (p[len] == '\n');
    }
    sb_deinit(&msg);
    return v == COST_OK ? 0 : v == COST_TOO_BIG ? 1 : 2;
}
