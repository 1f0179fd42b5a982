/* Unit tests: the results database (output/results.c) — schema, recording
 * a run through the sink, statuses, reading back, merging, refusing files
 * that are not ringsim's, and output/README.md kept in step with the code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "output/results.h"
#include "sim/sim.h"

static char dir[] = "/tmp/ringsim-results-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

static long long query(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    long long v = -1;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static const char *yaml = "name: rec\nduration: 5s\ntick: 1s\nworkload: {keys: 1000, qps: 2000}\n"
                          "nodes: [{id: A}, {id: B}]\nevents: [{at: 2s, add_node: {id: C}}]\n";

/* Records one run of yaml into path with the given status. */
static void record(const char *path, const char *status, int64_t *run_id)
{
    char err[256];
    struct diag d;
    diag_init(&d);
    struct override ov;
    assert_int_equal(override_parse("routing.vnodes=40", &ov, &d), 0);
    struct scenario *sc = scenario_load_string("rec.yaml", yaml, strlen(yaml), &ov, 1, &d);
    assert_non_null(sc);
    struct results *r = results_open(path, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    assert_int_equal(results_begin_run(r, sc, "2026-01-01T00:00:00Z", run_id, err, sizeof err), 0);
    /* until it ends, the run reads as running */
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT status = 'running' FROM runs WHERE run_id = %lld",
             (long long)*run_id);
    assert_int_equal(query(path, sql), 1);
    struct sink sink = results_sink(r);
    struct sim *s = sim_create(sc, &sink, NULL, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(sim_run(s), RUN_COMPLETE);
    struct summary_row sum;
    sim_summary(s, &sum);
    assert_int_equal(results_finish_run(r, &sum, status, 0.5, NULL, err, sizeof err), 0);
    sim_destroy(s);
    results_close(r);
    scenario_destroy(sc);
    override_deinit(&ov);
    diag_deinit(&d);
}

static void test_record_and_read_back(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/a.db", dir);
    int64_t id1, id2;
    record(path, "complete", &id1);
    record(path, "interrupted", &id2);
    assert_int_equal(id1, 1);
    assert_int_equal(id2, 2);
    assert_int_equal(query(path, "SELECT count(*) FROM ticks WHERE run_id = 1"), 5);
    assert_int_equal(query(path, "SELECT count(*) FROM node_ticks WHERE run_id = 1 AND t_s = 4"), 3);
    assert_int_equal(query(path, "SELECT count(*) FROM node_ticks WHERE run_id = 1 AND t_s = 0"), 2);
    assert_int_equal(query(path, "SELECT count(*) FROM events WHERE run_id = 2 AND kind = 'add_node'"), 1);
    assert_int_equal(query(path, "SELECT count(*) FROM params WHERE run_id = 1 AND path = "
                                 "'routing.vnodes' AND value = '40'"), 1);
    assert_int_equal(query(path, "SELECT instr(scenario_yaml, 'vnodes: 40') > 0 FROM runs WHERE run_id = 1"), 1);
    assert_int_equal(query(path, "SELECT status = 'interrupted' FROM runs WHERE run_id = 2"), 1);
    assert_int_equal(query(path, "SELECT status = 'complete' FROM runs WHERE run_id = 1"), 1);
    assert_int_equal(query(path, "SELECT count(*) FROM summary"), 2);
    /* a tick's hit rate is NULL only when no read finished; here every tick had reads */
    assert_int_equal(query(path, "SELECT count(*) FROM ticks WHERE hit_rate IS NULL"), 0);
    struct summary_row sum;
    assert_int_equal(results_read_summary(path, 1, &sum), 0);
    assert_true(sum.requests > 9000);
    assert_true(sum.keys_moved > 0);
    assert_int_equal(results_read_summary(path, 99, &sum), -1);
}

static void test_merge(void **state)
{
    (void)state;
    char a[256], b[256], err[256];
    snprintf(a, sizeof a, "%s/m1.db", dir);
    snprintf(b, sizeof b, "%s/m2.db", dir);
    int64_t id;
    record(a, "complete", &id);
    record(a, "complete", &id);
    record(b, "complete", &id);
    struct results *r = results_open(b, err, sizeof err);
    assert_non_null(r);
    assert_int_equal(results_merge_from(r, a, err, sizeof err), 2);
    results_close(r);
    assert_int_equal(query(b, "SELECT count(*) FROM runs"), 3);
    assert_int_equal(query(b, "SELECT count(*) FROM ticks WHERE run_id = 3"), 5);
    assert_int_equal(query(b, "SELECT count(*) FROM ticks"), 15);
    assert_int_equal(query(b, "SELECT count(*) FROM summary WHERE run_id = 3"), 1);
    assert_int_equal(query(b, "SELECT count(*) FROM params WHERE run_id = 2"), 1);
    /* the source is unchanged */
    assert_int_equal(query(a, "SELECT count(*) FROM runs"), 2);
}

static void test_refuses_foreign_files(void **state)
{
    (void)state;
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/other.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_null(results_open(path, err, sizeof err));
    assert_non_null(strstr(err, "not a ringsim results database"));

    snprintf(path, sizeof path, "%s/text.db", dir);
    FILE *f = fopen(path, "w");
    fputs("this is not a database at all, just some text that is long enough to matter\n", f);
    fclose(f);
    assert_null(results_open(path, err, sizeof err));
    assert_non_null(strstr(err, path));

    snprintf(path, sizeof path, "%s/missing-dir/x.db", dir);
    assert_null(results_open(path, err, sizeof err));

    /* another program's file that claims ringsim's schema version */
    snprintf(path, sizeof path, "%s/claims.db", dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE runs(x); PRAGMA user_version = 1", NULL, NULL,
                                  NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_null(results_open(path, err, sizeof err));
    assert_non_null(strstr(err, "not a ringsim results database (no such"));
    assert_int_equal(results_check_file(path, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a ringsim results database"));

    /* a file checked as an input is only read: a 0-byte one stays 0 bytes */
    snprintf(path, sizeof path, "%s/zero.db", dir);
    f = fopen(path, "w");
    fclose(f);
    assert_int_equal(results_check_file(path, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a ringsim results database"));
    f = fopen(path, "r");
    fseek(f, 0, SEEK_END);
    assert_int_equal(ftell(f), 0);
    fclose(f);
}

/* Two handles on one new file, as two processes creating it at once: both
 * open, both record, nothing is lost; and a reader in the middle of a
 * transaction does not stop the writer. */
static void test_shared_file(void **state)
{
    (void)state;
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/shared.db", dir);
    struct results *a = results_open(path, err, sizeof err);
    assert_non_null(a);
    struct results *b = results_open(path, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    sqlite3 *reader;
    assert_int_equal(sqlite3_open_v2(path, &reader, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(reader, "BEGIN; SELECT count(*) FROM runs", NULL, NULL, NULL),
                     SQLITE_OK);
    results_close(a);
    results_close(b);
    int64_t id;
    record(path, "complete", &id); /* writes while the reader holds its snapshot */
    assert_int_equal(sqlite3_exec(reader, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(reader);
    assert_int_equal(query(path, "SELECT count(*) FROM ticks"), 5);
    assert_null(results_error(a = results_open(path, err, sizeof err)));
    results_close(a);
}

static void test_readme_has_reference(void **state)
{
    (void)state;
    static const char begin[] = "<!-- metrics:begin -->\n", end[] = "<!-- metrics:end -->";
    char *gen = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&gen, &len);
    results_schema_markdown(f);
    fclose(f);
    f = fopen("output/README.md", "r");
    assert_non_null(f);
    char *doc = calloc(1, 1 << 20);
    size_t n = fread(doc, 1, (1 << 20) - 1, f);
    fclose(f);
    doc[n] = '\0';
    char *b = strstr(doc, begin), *e = strstr(doc, end);
    assert_non_null(b);
    assert_non_null(e);
    b += strlen(begin);
    if ((size_t)(e - b) != len || memcmp(b, gen, len))
        fail_msg("output/README.md is out of date: regenerate the part between the metrics "
                 "markers: run make docs");
    free(doc);
    free(gen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_and_read_back),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_refuses_foreign_files),
        cmocka_unit_test(test_shared_file),
        cmocka_unit_test(test_readme_has_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
