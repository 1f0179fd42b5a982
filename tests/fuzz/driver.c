/*
 * driver.c — replays fuzz inputs without libFuzzer, for `make test`: every
 * file in the folders given (default: the harness's seed corpus and crash
 * reproducers, tests/fuzz/corpus/NAME and tests/fuzz/regress/NAME) goes
 * through the harness once. Prints TAP: one line per input; an input that
 * crashes or aborts stops the binary, which the runner reports as failed.
 *
 *   build/release/tests/unit/test_fuzz_run [DIR...]
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_NAME
#error "FUZZ_NAME (the harness's name, e.g. run) must be defined"
#endif

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t list(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    size_t n = 0, cap = 16;
    char **v = malloc(cap * sizeof(*v));
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            if (n == cap)
                v = realloc(v, (cap *= 2) * sizeof(*v));
            size_t len = strlen(dir) + strlen(e->d_name) + 2;
            v[n] = malloc(len);
            snprintf(v[n++], len, "%s/%s", dir, e->d_name);
        }
        closedir(d);
    }
    qsort(v, n, sizeof(*v), cmp);
    *out = v;
    return n;
}

int main(int argc, char **argv)
{
    const char *defaults[] = {"tests/fuzz/corpus/" FUZZ_NAME, "tests/fuzz/regress/" FUZZ_NAME};
    const char **dirs = argc > 1 ? (const char **)argv + 1 : defaults;
    int n_dirs = argc > 1 ? argc - 1 : 2;
    char **files[16];
    size_t counts[16], total = 0;
    for (int i = 0; i < n_dirs && i < 16; i++)
        total += counts[i] = list(dirs[i], &files[i]);
    printf("1..%zu\n", total ? total : 1);
    if (!total) {
        printf("not ok 1 - no inputs in %s\n", dirs[0]);
        return 1;
    }
    size_t k = 0;
    for (int i = 0; i < n_dirs && i < 16; i++) {
        for (size_t j = 0; j < counts[i]; j++) {
            FILE *f = fopen(files[i][j], "rb");
            if (!f) {
                printf("not ok %zu - %s: cannot read\n", ++k, files[i][j]);
                continue;
            }
            static uint8_t buf[1 << 20];
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            fflush(stdout);
            LLVMFuzzerTestOneInput(buf, n);
            printf("ok %zu - %s\n", ++k, files[i][j]);
            free(files[i][j]);
        }
        free(files[i]);
    }
    return 0;
}
