/*
 * plot_gnuplot.c — finding gnuplot and the chart scripts, and running one
 * script as a child process.
 *
 * gnuplot runs without a shell: fork, then in the child only
 * async-signal-safe calls (dup2, chdir, execv, write, _exit). Its argument
 * vector is fixed: the program, "-e", a string of assignments made by the
 * caller from numbers and file names it generated, and the script's path.
 * stdin is /dev/null (a script can never wait for input); stdout and
 * stderr go to a pipe the parent reads, keeping the last few KiB for the
 * error message. The wait is bounded: a script still running after
 * GNUPLOT_TIMEOUT_S is killed and reported.
 */
#include "plots/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GNUPLOT_TIMEOUT_S 300
#define KEEP_OUTPUT_BYTES 4096

/* Every file a chart needs: the shared parts and one script per chart. */
static const char *const script_files[] = {"common.gp", "terminal.gp", "strip.gp",
                                           "hit_rate.gp", "backend_qps.gp", "database.gp",
                                           "nodes.gp", "sweep_common.gp", "sweep_lines.gp",
                                           "sweep_heatmap.gp"};

static bool is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *gnuplot_find(char *err, size_t errlen)
{
    const char *env = getenv("RINGSIM_GNUPLOT");
    const char *prog = env && *env ? env : "gnuplot";
    if (strchr(prog, '/')) {
        if (is_executable(prog))
            return xstrdup(prog);
        snprintf(err, errlen, "RINGSIM_GNUPLOT=%s: not an executable file", prog);
        return NULL;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *cand = len ? xasprintf("%.*s/%s", (int)len, p, prog) : xasprintf("./%s", prog);
        if (is_executable(cand))
            return cand;
        free(cand);
        if (!end)
            break;
        p = end + 1;
    }
    snprintf(err, errlen,
             "%s not found in PATH; ringsim plot draws with gnuplot: install it "
             "(Debian/Ubuntu: apt-get install gnuplot-nox) or set RINGSIM_GNUPLOT to its path",
             prog);
    return NULL;
}

/* The directory of dir/name when dir holds every script, else NULL. */
static char *scripts_in(const char *dir)
{
    for (size_t i = 0; i < ARRAY_LEN(script_files); i++) {
        char *p = xasprintf("%s/%s", dir, script_files[i]);
        bool ok = access(p, R_OK) == 0;
        free(p);
        if (!ok)
            return NULL;
    }
    char *real = realpath(dir, NULL);
    return real;
}

char *plot_scripts_dir(char *err, size_t errlen)
{
    const char *env = getenv("RINGSIM_PLOTS");
    if (env && *env) {
        char *d = scripts_in(env);
        if (!d)
            snprintf(err, errlen, "RINGSIM_PLOTS=%s: the chart scripts (%s, ...) are not all "
                                  "there; point it at ringsim's plots/ folder", env,
                     script_files[3]);
        return d;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(err, errlen, "cannot find the chart scripts (/proc/self/exe: %s); set "
                              "RINGSIM_PLOTS to ringsim's plots/ folder", strerror(errno));
        return NULL;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    char *a = xasprintf("%s/plots", exe);
    char *b = xasprintf("%s/../share/ringsim/plots", exe);
    char *d = scripts_in(a);
    if (!d)
        d = scripts_in(b);
    if (!d)
        snprintf(err, errlen, "cannot find the chart scripts (%s): looked in %s and %s; "
                              "run make install or set RINGSIM_PLOTS to ringsim's plots/ folder",
                 script_files[3], a, b);
    free(a);
    free(b);
    return d;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Keeps the last KEEP_OUTPUT_BYTES of what the child printed. */
static void keep_tail(struct strbuf *sb, const char *buf, size_t n)
{
    sb_add(sb, buf, n);
    if (sb->len > 2 * KEEP_OUTPUT_BYTES) {
        size_t cut = sb->len - KEEP_OUTPUT_BYTES;
        memmove(sb->buf, sb->buf + cut, sb->len - cut + 1);
        sb->len -= cut;
    }
}

static void child_fail(const char *what)
{
    ssize_t rc = write(2, what, strlen(what));
    (void)rc;
    _exit(127);
}

/* Starts gnuplot: stdin /dev/null, stdout and stderr into a pipe whose
 * reading end goes to *out_fd. Returns its pid, or -1 with a message. */
static pid_t spawn_gnuplot(const char *gnuplot, const char *cwd, const char *vars,
                           const char *script, int *out_fd, char *err, size_t errlen)
{
    int fds[2];
    if (pipe(fds)) {
        snprintf(err, errlen, "cannot start gnuplot: pipe: %s", strerror(errno));
        return -1;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        snprintf(err, errlen, "cannot start gnuplot: /dev/null: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    char *argv[] = {(char *)gnuplot, (char *)"-e", (char *)vars, (char *)script, NULL};
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start gnuplot: fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        close(devnull);
        return -1;
    }
    if (pid == 0) {
        if (dup2(devnull, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0)
            child_fail("ringsim plot: cannot redirect gnuplot's output\n");
        close(fds[0]);
        close(fds[1]);
        if (chdir(cwd))
            child_fail("ringsim plot: cannot enter the data folder\n");
        execv(gnuplot, argv);
        child_fail("ringsim plot: cannot execute gnuplot\n");
    }
    close(fds[1]);
    close(devnull);
    *out_fd = fds[0];
    return pid;
}

/* How gnuplot's output ended. */
enum ended { GNUPLOT_CLOSED, GNUPLOT_TIMED_OUT, GNUPLOT_STOPPED };

/* Reads what gnuplot says until it closes its output, keeping the tail in
 * out; kills it at GNUPLOT_TIMEOUT_S, or once *stop turns nonzero (looked
 * at every 200 ms at least: a signal interrupts the poll). */
static enum ended read_output(int fd, pid_t pid, const volatile sig_atomic_t *stop,
                              struct strbuf *out)
{
    double deadline = now_s() + GNUPLOT_TIMEOUT_S;
    for (;;) {
        double left = deadline - now_s();
        if (stop && *stop) {
            kill(pid, SIGKILL);
            return GNUPLOT_STOPPED;
        }
        if (left <= 0) {
            kill(pid, SIGKILL);
            return GNUPLOT_TIMED_OUT;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)(MIN(left, 0.2) * 1000) + 1);
        if (pr <= 0)
            continue;
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return GNUPLOT_CLOSED;
        keep_tail(out, buf, (size_t)n);
    }
}

/* 0 when gnuplot exited 0; else -1 with the last lines it said in err. */
static int judge(const char *script, int status, enum ended how, struct strbuf *out, char *err,
                 size_t errlen)
{
    const char *tail = out->buf;
    size_t lines = 0;
    for (size_t i = out->len; i > 0; i--)
        if (out->buf[i - 1] == '\n' && i != out->len && ++lines == 6) {
            tail = out->buf + i;
            break;
        }
    while (out->len && out->buf[out->len - 1] == '\n')
        out->buf[--out->len] = '\0';
    if (how == GNUPLOT_STOPPED) {
        snprintf(err, errlen, "interrupted while gnuplot %s ran", script);
        return -1;
    }
    if (how == GNUPLOT_TIMED_OUT) {
        snprintf(err, errlen, "gnuplot %s ran longer than %d s and was stopped", script,
                 GNUPLOT_TIMEOUT_S);
        return -1;
    }
    if (WIFSIGNALED(status)) {
        snprintf(err, errlen, "gnuplot %s was killed by signal %d:\n%s", script, WTERMSIG(status),
                 tail);
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "gnuplot %s failed (exit %d):\n%s", script, WEXITSTATUS(status),
                 tail);
        return -1;
    }
    return 0;
}

int gnuplot_run(const char *gnuplot, const char *cwd, const char *vars, const char *script,
                const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    int fd;
    pid_t pid = spawn_gnuplot(gnuplot, cwd, vars, script, &fd, err, errlen);
    if (pid < 0)
        return -1;
    struct strbuf out;
    sb_init(&out);
    enum ended how = read_output(fd, pid, stop, &out);
    close(fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int rc = judge(script, status, how, &out, err, errlen);
    sb_deinit(&out);
    return rc;
}
