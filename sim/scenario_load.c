/*
 * scenario_load.c — the scenario loader's entry points: read a file (or take text
 * from memory), run the pipeline, hand over the errors, and destroy.
 *
 * Loading (each step in its own file, see sim/scenario_internal.h):
 *   text --ytree_parse--> tree --apply_override (each --set)--> tree
 *        --bind_map (tables; setters return NULL or what was expected)-->
 *        struct scenario --finish (cross-checks, event order)--> emit YAML
 *
 * A scenario file is a regular file of at most 16 MiB (MAX_FILE_BYTES):
 * anything else (a FIFO, a device, a directory) is refused without
 * blocking and without reading it.
 *
 * Errors are collected, never fatal on the first: each one is
 * "FILE:LINE:COL: PATH: message" (or "--set ARG: PATH: message") and they
 * are reported sorted by position (at most MAX_ERRORS, then a count). An
 * override that a later one of the same path replaces is checked too (its
 * own type and range: check_overridden), so a bad value is never silently
 * dropped.
 *
 * Invariants of a loaded scenario: every key has a value in range; node ids
 * are unique; exactly one of capacity_bytes and capacity_items is non-zero in
 * every cache_cfg; events are sorted by time (stable) and every event's
 * target exists in the membership at that moment; hot key shares never sum
 * above 1; effective_yaml is set. Nothing here keeps state between calls.
 */
#include "sim/scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/scenario_internal.h"

#define MAX_FILE_BYTES  (16u << 20) /* a scenario file: 16 MiB, exactly */

/* ---- loading ------------------------------------------------------------- */

static size_t check_overridden(const char *file, const char *stored_path, const char *text,
                               size_t len, const struct override *sets, size_t n_sets,
                               struct diag *d);

/* The pipeline; with replaced, the overrides a later one replaces are
 * checked too (check_overridden). */
static struct scenario *load(const char *file, const char *stored_path, const char *text,
                             size_t len, const struct override *sets, size_t n_sets,
                             struct diag *d, bool replaced)
{
    struct loader L = {.file = file};
    struct scenario *s = xcalloc(1, sizeof(*s));
    struct ytree_error ye;
    char got[128];

    L.s = s;
    sb_init(&L.path);
    u64map_init(&L.bad);
    s->path = xstrdup(stored_path);
    if (n_sets) {
        s->overrides = xcalloc(n_sets, sizeof(*s->overrides));
        for (size_t i = 0; i < n_sets; i++) {
            s->overrides[i].path = xstrdup(sets[i].path);
            s->overrides[i].value = xstrdup(sets[i].value);
            s->overrides[i].arg = xstrdup(sets[i].arg);
            s->overrides[i].flag = sets[i].flag;
        }
        s->n_overrides = n_sets;
    }
    apply_defaults(&top_section, s);

    if (ytree_parse(text, len, &L.root, &ye)) {
        struct ynode at = {.line = ye.line, .col = ye.col};
        report(&L, &at, NULL, "%s", ye.msg);
        goto done;
    }
    if (!L.root || ynode_is_null(L.root)) {
        struct ynode at = {.line = L.root ? L.root->line : 1, .col = L.root ? L.root->col : 1};
        report(&L, &at, NULL, "the scenario is empty (expected a mapping with at least nodes:)");
        goto done;
    }
    if (L.root->type != YNODE_MAP) {
        describe(L.root, got, sizeof got);
        report(&L, L.root, NULL, "expected a mapping of scenario keys at the top level, got %s",
               got);
        goto done;
    }
    for (size_t i = 0; i < s->n_overrides; i++)
        apply_override(&L, &s->overrides[i]);
    bind_map(&L, &top_section, L.root, s);
    finish(&L);
    if (!L.n_errs) {
        char problem[160];
        if (emit_scenario(s, problem, sizeof problem)) {
            struct ynode at = {.line = 1, .col = 1};
            report(&L, &at, NULL, "cannot write the effective scenario: %s", problem);
        }
    }
done:
    if (L.n_kept)
        qsort(L.errs, L.n_kept, sizeof(*L.errs), err_cmp);
    for (size_t i = 0; i < L.n_kept; i++) {
        if (i < MAX_ERRORS)
            diag_add(d, "%s", L.errs[i].msg);
        free(L.errs[i].msg);
    }
    if (L.n_errs > MAX_ERRORS)
        diag_add(d, "%s: %zu more errors not shown", file, L.n_errs - MAX_ERRORS);
    free(L.errs);
    u64map_deinit(&L.bad);
    sb_deinit(&L.path);
    ynode_destroy(L.root);
    if (replaced && check_overridden(file, stored_path, text, len, sets, n_sets, d))
        L.n_errs++;
    if (L.n_errs) {
        scenario_destroy(s);
        return NULL;
    }
    return s;
}

/* Whether d holds msg already (an unknown key is reported against the
 * --set that made it, whichever replaced its value). */
static bool diag_has(const struct diag *d, const char *msg)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->msgs[i], msg))
            return true;
    return false;
}

/* Whether override i is replaced by a later one of the same path. */
static bool overridden(size_t n_sets, size_t i, char **norm)
{
    for (size_t j = i + 1; j < n_sets; j++)
        if (!strcmp(norm[j], norm[i]))
            return true;
    return false;
}

/* A --set (--vary, --seed) that a later one of the same path replaces is
 * still checked: a bad value is bad usage wherever it stands on the command
 * line. Each such override is bound again with the later ones of its path
 * left out, and the errors that name it (its own type or range, not the
 * cross-checks of a value that is not used) are added to d. Returns the
 * number added. O(overrides² + a load per replaced override). */
static size_t check_overridden(const char *file, const char *stored_path, const char *text,
                               size_t len, const struct override *sets, size_t n_sets,
                               struct diag *d)
{
    size_t added = 0;
    char **norm = xcalloc(n_sets + 1, sizeof(*norm));
    for (size_t i = 0; i < n_sets; i++)
        norm[i] = override_path_normalize(sets[i].path);
    struct override *kept = xcalloc(n_sets + 1, sizeof(*kept));
    for (size_t i = 0; i < n_sets; i++) {
        if (!overridden(n_sets, i, norm))
            continue;
        size_t m = 0;
        for (size_t j = 0; j < n_sets; j++)
            if (j <= i || strcmp(norm[j], norm[i]))
                kept[m++] = sets[j];
        struct diag why;
        diag_init(&why);
        scenario_destroy(load(file, stored_path, text, len, kept, m, &why, false));
        const char *flag = sets[i].flag ? sets[i].flag : "--set";
        char *prefix = !strcmp(flag, "--seed") && !strncmp(sets[i].arg, "seed=", 5)
                           ? xasprintf("--seed %s: ", sets[i].arg + 5)
                           : xasprintf("%s %s: ", flag, sets[i].arg);
        for (size_t k = 0; k < why.n; k++)
            if (!strncmp(why.msgs[k], prefix, strlen(prefix)) && !diag_has(d, why.msgs[k])) {
                diag_add(d, "%s (a later value of %s replaces it, but every value given must "
                            "be valid)", why.msgs[k], sets[i].path);
                added++;
            }
        free(prefix);
        diag_deinit(&why);
    }
    for (size_t i = 0; i < n_sets; i++)
        free(norm[i]);
    free(norm);
    free(kept);
    return added;
}

struct scenario *scenario_load_string(const char *name, const char *text, size_t len,
                                      const struct override *sets, size_t n_sets,
                                      struct diag *d)
{
    return load(name, "<string>", text, len, sets, n_sets, d, true);
}

/* What a file that is not a regular file is, for the message. */
const char *file_kind(unsigned m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a file";
}

/* Reads a regular file of at most MAX_FILE_BYTES into *buf (caller frees).
 * Opening never blocks (O_NONBLOCK: a FIFO without a writer would block
 * open() forever), anything but a regular file is refused before a byte is
 * read, and a file is read to at most MAX_FILE_BYTES + 1 bytes, whatever
 * it claims its size is. Returns 0, or -1 with a message in d. */
static int read_file(const char *path, char **buf, size_t *len, struct diag *d)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    *buf = NULL;
    *len = 0;
    if (fd < 0) {
        diag_add(d, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        diag_add(d, "%s: cannot read: %s", path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_add(d, "%s: cannot read: not a regular file (%s)", path, file_kind(st.st_mode));
        goto fail;
    }
    size_t cap = MAX_FILE_BYTES + 1; /* one byte past the limit tells a file that is over it */
    if (st.st_size >= 0 && (uint64_t)st.st_size < cap)
        cap = (size_t)st.st_size + 1; /* a file that grows meanwhile is read to the limit */
    *buf = xmalloc(cap);
    for (;;) {
        if (*len == cap) {
            if (cap > MAX_FILE_BYTES)
                break;
            cap = MIN(2 * cap, (size_t)MAX_FILE_BYTES + 1);
            *buf = xrealloc(*buf, cap);
        }
        ssize_t r = read(fd, *buf + *len, cap - *len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            diag_add(d, "%s: cannot read: %s", path, strerror(errno));
            goto fail;
        }
        if (r == 0)
            break;
        *len += (size_t)r;
    }
    if (*len > MAX_FILE_BYTES) {
        diag_add(d, "%s: too large: more than %u MiB (%u bytes), the most a scenario may have",
                 path, MAX_FILE_BYTES >> 20, MAX_FILE_BYTES);
        goto fail;
    }
    close(fd);
    return 0;
fail:
    close(fd);
    free(*buf);
    *buf = NULL;
    return -1;
}

struct scenario *scenario_load(const char *path, const struct override *sets, size_t n_sets,
                               struct diag *d)
{
    char *buf;
    size_t len;
    if (read_file(path, &buf, &len, d))
        return NULL;
    struct scenario *s = load(path, path, buf, len, sets, n_sets, d, true);
    free(buf);
    return s;
}

void scenario_destroy(struct scenario *s)
{
    if (!s)
        return;
    free(s->path);
    release_section(&top_section, s);
    for (size_t i = 0; i < s->n_overrides; i++)
        override_deinit(&s->overrides[i]);
    free(s->overrides);
    free(s->effective_yaml);
    free(s);
}


