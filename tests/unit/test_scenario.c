/* Unit tests: the scenario loader (sim/scenario*.c) — defaults, units, every
 * class of error with its exact position, --set, events, round trips of the
 * effective YAML, and the schema reference in scenarios/README.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include <cmocka.h>

#include "sim/scenario.h"

/* ---- helpers ------------------------------------------------------------- */

/* Loads text as file "x.yaml" with --set arguments (NULL-terminated). */
static struct scenario *load_sets(const char *text, struct diag *d, const char *const *sets)
{
    struct override o[16];
    size_t n = 0;
    diag_init(d);
    for (; sets && sets[n]; n++)
        assert_int_equal(override_parse(sets[n], &o[n], d), 0);
    struct scenario *s = scenario_load_string("x.yaml", text, strlen(text), o, n, d);
    for (size_t i = 0; i < n; i++)
        override_deinit(&o[i]);
    return s;
}

static struct scenario *load_ok_sets(const char *text, const char *const *sets)
{
    struct diag d;
    struct scenario *s = load_sets(text, &d, sets);
    if (!s)
        diag_print(&d, stderr);
    assert_non_null(s);
    assert_int_equal(d.n, 0);
    diag_deinit(&d);
    return s;
}

static struct scenario *load_ok(const char *text)
{
    return load_ok_sets(text, NULL);
}

static bool has_msg(const struct diag *d, const char *want)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->msgs[i], want))
            return true;
    return false;
}

/* The load fails and one of its messages is exactly `want`. */
static void expect_error_sets(const char *text, const char *const *sets, const char *want)
{
    struct diag d;
    struct scenario *s = load_sets(text, &d, sets);
    bool found = has_msg(&d, want);
    if (!found || s) {
        fprintf(stderr, "wanted: %s\ngot %zu message(s):\n", want, d.n);
        diag_print(&d, stderr);
    }
    scenario_destroy(s);
    diag_deinit(&d);
    assert_null(s);
    assert_true(found);
}

static void expect_error(const char *text, const char *want)
{
    expect_error_sets(text, NULL, want);
}

/* The load fails with exactly these messages, in this order. */
static void expect_errors(const char *text, const char *const *want)
{
    struct diag d;
    size_t n = 0;
    struct scenario *s = load_sets(text, &d, NULL);
    while (want[n])
        n++;
    bool same = d.n == n;
    for (size_t i = 0; same && i < n; i++)
        same = !strcmp(d.msgs[i], want[i]);
    if (!same) {
        fprintf(stderr, "got %zu message(s):\n", d.n);
        diag_print(&d, stderr);
    }
    scenario_destroy(s);
    diag_deinit(&d);
    assert_null(s);
    assert_true(same);
}

#define NODES "nodes: [{id: A}, {id: B}, {id: C}]\n"

/* ---- defaults ------------------------------------------------------------ */

static void test_defaults(void **state)
{
    (void)state;
    struct scenario *s = load_ok("nodes:\n  - id: A\n");
    assert_string_equal(s->name, "x");
    assert_string_equal(s->path, "<string>");
    assert_string_equal(s->description, "");
    assert_int_equal(s->seed, 1);
    assert_int_equal(s->duration_ns, 60 * NS_PER_S);
    assert_int_equal(s->tick_ns, NS_PER_S);
    assert_int_equal(s->warmup_ns, 0);

    assert_int_equal(s->workload.keys, 100000);
    assert_string_equal(s->workload.key_format, "key-%06d");
    assert_int_equal(s->workload.popularity, POP_UNIFORM);
    assert_true(s->workload.zipf_s == 0.99);
    assert_true(s->workload.qps == 10000);
    assert_true(s->workload.write_ratio == 0);
    assert_int_equal(s->workload.value_bytes, 1024);
    assert_int_equal(s->workload.ttl_ns, 0);
    assert_int_equal(s->workload.n_hot_keys, 0);
    assert_null(s->workload.hot_keys);

    assert_int_equal(s->routing.algorithm, PLACE_RING);
    assert_int_equal(s->routing.hash, HASH_SHA256);
    assert_int_equal(s->routing.vnodes, 160);
    assert_string_equal(s->routing.point_format, "%s#%d");
    assert_false(s->routing.node_key_address);
    assert_true(s->routing.load_factor == 1.25);
    assert_int_equal(s->routing.table_size, 65537);

    assert_int_equal(s->cache.capacity_bytes, 1ULL << 30);
    assert_int_equal(s->cache.capacity_items, 0);
    assert_int_equal(s->cache.service_ns, 20 * NS_PER_US);
    assert_int_equal(s->cache.service_dist, DIST_EXP);
    assert_int_equal(s->cache.workers, 1);
    assert_int_equal(s->cache.max_queue, 10000);
    assert_int_equal(s->cache.rtt_ns, 200 * NS_PER_US);
    assert_true(s->cache.prewarm);

    assert_int_equal(s->database.workers, 16);
    assert_int_equal(s->database.service_ns, 2 * NS_PER_MS);
    assert_int_equal(s->database.service_dist, DIST_EXP);
    assert_int_equal(s->database.max_queue, 2000);

    assert_int_equal(s->clients.instances, 4);
    assert_int_equal(s->clients.timeout_ns, 100 * NS_PER_MS);
    assert_int_equal(s->clients.on_timeout, ON_TIMEOUT_DB);
    assert_int_equal(s->clients.fill, FILL_SET);
    assert_int_equal(s->clients.write, WRITE_INVALIDATE);
    assert_false(s->clients.coalesce);
    assert_true(s->clients.backfill_qps == 0);
    assert_false(s->clients.fallback_to_previous_owner);

    assert_int_equal(s->health.mode, HEALTH_CLIENT);
    assert_int_equal(s->health.failure_limit, 3);
    assert_int_equal(s->health.retry_after_ns, 30 * NS_PER_S);
    assert_int_equal(s->health.cooldown_ns, 0);
    assert_true(s->health.max_ejected == 1.0);
    assert_int_equal(s->health.probe_interval_ns, NS_PER_S);
    assert_int_equal(s->health.propagation_delay_ns, 0);
    assert_int_equal(s->health.on_eject, EJECT_REHASH);
    assert_int_equal(s->health.gutter_nodes, 0);
    assert_int_equal(s->health.gutter_ttl_ns, 10 * NS_PER_S);

    assert_int_equal(s->n_nodes, 1);
    assert_string_equal(s->nodes[0].id, "A");
    assert_string_equal(s->nodes[0].address, "A");
    assert_true(s->nodes[0].weight == 1);
    assert_memory_equal(&s->nodes[0].cache, &s->cache, sizeof(s->cache));
    assert_int_equal(s->nodes[0].pos.line, 2);
    assert_int_equal(s->nodes[0].pos.col, 5);
    assert_int_equal(s->n_events, 0);
    assert_null(s->events);
    assert_int_equal(s->n_overrides, 0);
    assert_non_null(s->effective_yaml);
    scenario_destroy(s);
}

static void test_name_from_file(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d);
    struct scenario *s = scenario_load("tests/data/minimal.yaml", NULL, 0, &d);
    assert_non_null(s);
    assert_string_equal(s->name, "minimal");
    assert_string_equal(s->path, "tests/data/minimal.yaml");
    /* written out explicitly, so a replay from the database keeps it */
    assert_non_null(strstr(s->effective_yaml, "name: minimal\n"));
    scenario_destroy(s);

    const char *text = "nodes: [{id: A}]\n";
    s = scenario_load_string("dir/other.yml", text, strlen(text), NULL, 0, &d);
    assert_non_null(s);
    assert_string_equal(s->name, "other");
    scenario_destroy(s);
    s = scenario_load_string("noext", text, strlen(text), NULL, 0, &d);
    assert_string_equal(s->name, "noext");
    scenario_destroy(s);
    assert_int_equal(d.n, 0);
    diag_deinit(&d);
}

static void test_full_example(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d);
    struct scenario *s = scenario_load("tests/data/full.yaml", NULL, 0, &d);
    if (!s)
        diag_print(&d, stderr);
    assert_non_null(s);
    assert_string_equal(s->name, "scale-out-3-to-4");
    assert_int_equal(s->duration_ns, 300 * NS_PER_S);
    assert_int_equal(s->workload.n_hot_keys, 1);
    assert_string_equal(s->workload.hot_keys[0].key, "key-000042");
    assert_true(s->workload.hot_keys[0].share == 0.2);
    assert_int_equal(s->routing.vnodes, 512);
    assert_int_equal(s->n_nodes, 3);
    assert_string_equal(s->nodes[1].address, "10.0.0.2:11211");
    assert_true(s->nodes[1].weight == 2);
    /* node C: its own capacity (in items) replaces the default entirely */
    assert_int_equal(s->nodes[2].cache.capacity_items, 50000);
    assert_int_equal(s->nodes[2].cache.capacity_bytes, 0);
    assert_int_equal(s->nodes[2].cache.workers, 2);
    assert_int_equal(s->nodes[2].cache.rtt_ns, 200 * NS_PER_US);
    assert_int_equal(s->nodes[0].cache.capacity_bytes, 1ULL << 30);

    assert_int_equal(s->n_events, 9);
    static const enum event_kind kinds[] = {EV_ADD_NODE, EV_SLOW_NODE, EV_CRASH_NODE,
                                            EV_RESTART_NODE, EV_REMOVE_NODE, EV_SPLIT_BRAIN,
                                            EV_SET_QPS, EV_SET_ADDRESS, EV_HOT_KEY};
    for (size_t i = 0; i < 9; i++)
        assert_int_equal(s->events[i].kind, kinds[i]);
    const struct event_cfg *e = s->events;
    assert_int_equal(e[0].at_ns, 60 * NS_PER_S);
    assert_string_equal(e[0].node, "D");
    assert_string_equal(e[0].address, "10.0.0.4:11211");
    assert_true(e[0].weight == 1);
    assert_memory_equal(&e[0].cache, &s->cache, sizeof(s->cache));
    assert_string_equal(e[1].node, "B");
    assert_true(e[1].factor == 20);
    assert_int_equal(e[1].latency_ns, 0);
    assert_int_equal(e[1].for_ns, 30 * NS_PER_S);
    assert_int_equal(e[5].n_instances, 2);
    assert_int_equal(e[5].instances[0], 0);
    assert_int_equal(e[5].instances[1], 1);
    assert_int_equal(e[5].for_ns, 30 * NS_PER_S);
    assert_true(e[6].qps == 20000);
    assert_string_equal(e[7].address, "10.0.0.9:11211");
    assert_string_equal(e[8].key, "key-000007");
    assert_true(e[8].share == 0.3);
    assert_int_equal(e[8].for_ns, 60 * NS_PER_S);
    assert_int_equal(e[0].pos.line, 71);
    assert_int_equal(e[0].pos.col, 5);
    scenario_destroy(s);
    diag_deinit(&d);
}

static void test_place_params_and_names(void **state)
{
    (void)state;
    struct scenario *s = load_ok("routing: {algorithm: maglev, hash: fnv1a, vnodes: 7, "
                                 "node_key: address, load_factor: 2, table_size: 13, "
                                 "point_format: \"%s-%d\"}\n" NODES);
    struct place_params p;
    scenario_place_params(s, &p);
    assert_int_equal(p.algo, PLACE_MAGLEV);
    assert_int_equal(p.hash, HASH_FNV1A);
    assert_int_equal(p.vnodes, 7);
    assert_string_equal(p.point_format, "%s-%d");
    assert_true(p.node_key_address);
    assert_true(p.load_factor == 2);
    assert_int_equal(p.maglev_size, 13);
    scenario_destroy(s);

    assert_string_equal(event_kind_name(EV_ADD_NODE), "add_node");
    assert_string_equal(event_kind_name(EV_SET_QPS), "set_qps");
    assert_string_equal(event_kind_name(EV_HOT_KEY), "hot_key");
    assert_string_equal(event_kind_name(EV_KIND_COUNT), "?");
}

/* ---- values and units ---------------------------------------------------- */

static void test_units(void **state)
{
    (void)state;
    struct scenario *s = load_ok(
        "duration: 1.5h\ntick: 250ms\nwarmup: 90s\nseed: 1234567890123456789\n"
        "workload: {keys: 1_000_000, qps: 1.5e3, value_bytes: 1.5KiB, ttl: 0, "
        "write_ratio: .25}\n"
        "cache: {capacity: 64MB, service_time: 1500ns, rtt: 0.5ms}\n"
        "database: {workers: 2e2, service_time: 0.000001s}\n" NODES);
    assert_int_equal(s->duration_ns, 5400 * NS_PER_S);
    assert_int_equal(s->tick_ns, 250 * NS_PER_MS);
    assert_int_equal(s->warmup_ns, 90 * NS_PER_S);
    assert_true(s->seed == 1234567890123456789ULL);
    assert_int_equal(s->workload.keys, 1000000);
    assert_true(s->workload.qps == 1500);
    assert_int_equal(s->workload.value_bytes, 1536);
    assert_int_equal(s->workload.ttl_ns, 0);
    assert_true(s->workload.write_ratio == 0.25);
    assert_int_equal(s->cache.capacity_bytes, 64000000);
    assert_int_equal(s->cache.service_ns, 1500);
    assert_int_equal(s->cache.rtt_ns, 500 * NS_PER_US);
    assert_int_equal(s->database.workers, 200);
    assert_int_equal(s->database.service_ns, 1000);
    scenario_destroy(s);

    s = load_ok("workload: {value_bytes: 100}\ncache: {capacity: 2GiB}\n" NODES);
    assert_int_equal(s->workload.value_bytes, 100);
    assert_int_equal(s->cache.capacity_bytes, 2ULL << 30);
    scenario_destroy(s);
}

static void test_strings_and_enums(void **state)
{
    (void)state;
    /* strings take plain or quoted scalars; enums too; id: 1 is the string "1" */
    struct scenario *s = load_ok(
        "name: 'my run'\ndescription: |\n  two\n  lines\n"
        "routing: {algorithm: \"jump\", hash: 'md5'}\n"
        "clients: {fill: versioned, write: write_through, on_timeout: error}\n"
        "health: {mode: central, on_eject: rehash}\n"
        "cache: {service_dist: fixed}\nworkload: {popularity: zipf}\n"
        "nodes: [{id: 1}, {id: \"2\", address: ''}]\n");
    assert_string_equal(s->name, "my run");
    assert_string_equal(s->description, "two\nlines\n");
    assert_int_equal(s->routing.algorithm, PLACE_JUMP);
    assert_int_equal(s->routing.hash, HASH_MD5);
    assert_int_equal(s->clients.fill, FILL_VERSIONED);
    assert_int_equal(s->clients.write, WRITE_THROUGH);
    assert_int_equal(s->clients.on_timeout, ON_TIMEOUT_ERROR);
    assert_int_equal(s->health.mode, HEALTH_CENTRAL);
    assert_int_equal(s->cache.service_dist, DIST_FIXED);
    assert_int_equal(s->workload.popularity, POP_ZIPF);
    assert_string_equal(s->nodes[0].id, "1");
    assert_string_equal(s->nodes[1].id, "2");
    assert_string_equal(s->nodes[1].address, "");
    scenario_destroy(s);
}

/* A string of n copies of c (caller frees). */
static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* Free text that reaches file names and rows is bounded: name 100 bytes,
 * description 10000, node ids and addresses 255, keys 1024. */
static void test_string_bounds(void **state)
{
    (void)state;
    char *at_limit = repeat('n', 100), *over = repeat('n', 101), *text, want[512];
    text = xasprintf("name: %s\n" NODES, at_limit);
    struct scenario *s = load_ok(text);
    assert_int_equal(strlen(s->name), 100);
    scenario_destroy(s);
    free(text);
    text = xasprintf("name: %s\n" NODES, over);
    snprintf(want, sizeof want, "x.yaml:1:7: name: expected a string of at most 100 bytes (this "
             "one has 101), got \"%.79s...\"", over);
    expect_error(text, want);
    free(text);
    /* the name made from the file's name is bounded too */
    struct diag d;
    diag_init(&d);
    char *file = xasprintf("dir/%s.yaml", over);
    assert_null(scenario_load_string(file, NODES, strlen(NODES), NULL, 0, &d));
    snprintf(want, sizeof want, "%s:1:1: name: the file's name makes a name of 101 bytes, more "
             "than 100; give the scenario a shorter name: (or rename the file)", file);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], want);
    diag_deinit(&d);
    free(file);
    free(at_limit);
    free(over);

    struct {
        const char *yaml_fmt, *path;
        size_t limit;
    } cases[] = {
        {"description: %s\n" NODES, "description", 10000},
        {"nodes: [{id: %s}]\n", "nodes.0.id", 255},
        {"nodes: [{id: A, address: %s}]\n", "nodes.0.address", 255},
        {"workload: {hot_keys: [{key: %s, share: 0.1}]}\n" NODES, "workload.hot_keys.0.key", 1024},
        {"nodes: [{id: A}]\nevents: [{at: 1s, add_node: {id: %s}}]\n",
         "events.0.add_node.id", 255},
        {"nodes: [{id: A}]\nevents: [{at: 1s, set_address: {id: A, address: %s}}]\n",
         "events.0.set_address.address", 255},
        {"nodes: [{id: A}]\nevents: [{at: 1s, hot_key: {key: %s, share: 0.1}}]\n",
         "events.0.hot_key.key", 1024},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char *ok = repeat('k', cases[i].limit), *big = repeat('k', cases[i].limit + 1);
        text = xasprintf(cases[i].yaml_fmt, ok);
        scenario_destroy(load_ok(text));
        free(text);
        text = xasprintf(cases[i].yaml_fmt, big);
        diag_init(&d);
        assert_null(scenario_load_string("x.yaml", text, strlen(text), NULL, 0, &d));
        snprintf(want, sizeof want, ": %s: expected a %s of at most %zu bytes (this one has %zu)",
                 cases[i].path, strstr(cases[i].path, ".id") ? "node id" : "string",
                 cases[i].limit, cases[i].limit + 1);
        if (d.n != 1 || !strstr(d.msgs[0], want)) {
            diag_print(&d, stderr);
            fail_msg("wanted a message with: %s", want);
        }
        diag_deinit(&d);
        free(text);
        free(ok);
        free(big);
    }
}

static void test_null_sections(void **state)
{
    (void)state;
    /* a section with everything commented out is an empty section */
    struct scenario *s = load_ok("cache:\n  # capacity: 1GiB\nevents:\nhealth: ~\n" NODES);
    assert_int_equal(s->cache.capacity_bytes, 1ULL << 30);
    assert_int_equal(s->n_events, 0);
    assert_int_equal(s->health.mode, HEALTH_CLIENT);
    scenario_destroy(s);
}

/* A YAML null given to a string is the empty string, never the text "null":
 * refused where a value must not be empty; a quoted "null" is that text, and
 * the effective scenario keeps it quoted so that it loads back the same. */
static void test_null_strings(void **state)
{
    (void)state;
    expect_error("nodes: [{id: null}]\n",
                 "x.yaml:1:14: nodes.0.id: expected a node id (non-empty, without spaces or "
                 "commas), got null");
    expect_error("name: ~\n" NODES,
                 "x.yaml:1:7: name: expected a non-empty name without '/' or control "
                 "characters, got null (~)");
    expect_error("workload: {hot_keys: [{key: NULL, share: 0.1}]}\n" NODES,
                 "x.yaml:1:29: workload.hot_keys.0.key: expected a non-empty string, got null");
    struct scenario *s = load_ok("description: ~\n" NODES);
    assert_string_equal(s->description, "");
    scenario_destroy(s);
    s = load_ok("name: \"null\"\nworkload: {hot_keys: [{key: \"~\", share: 0.1}]}\n" NODES);
    assert_string_equal(s->name, "null");
    assert_non_null(strstr(s->effective_yaml, "name: 'null'\n"));
    assert_non_null(strstr(s->effective_yaml, "- key: '~'\n"));
    struct scenario *again = load_ok(s->effective_yaml);
    assert_string_equal(again->name, "null");
    assert_string_equal(again->workload.hot_keys[0].key, "~");
    scenario_destroy(again);
    scenario_destroy(s);
}

static void test_key_formats(void **state)
{
    (void)state;
    static const char *const good[] = {"k%d", "%i", "%u-x", "%x", "%X", "%%k-%08d-%%",
                                       "%-5d", "%+d", "% d", "%#x", "%.3u", "%64.64d"};
    /* the placement library's rule (key_format_init), and why each is refused */
    static const char *const bad[] = {"none", "%d-%d", "%s", "%ld", "%f", "%65d", "%",
                                      "k%", "%.65d", "%%", "k%o", "%#d", "%hhu", "%*d"};
    static const char *const why[] = {
        "has no integer conversion", "has more than one conversion",
        "has a %s or %c conversion, not an integer one", "has a length modifier (h, l, ...)",
        "has a conversion that is not an integer one", "has a width over 64",
        "ends with a lone %", "ends with a lone %", "has a precision over 64",
        "has no integer conversion", "has a conversion that is not an integer one",
        "has the # flag on %d, %i or %u (it is for %x and %X only)",
        "has a length modifier (h, l, ...)", "has a * width or precision (give a number)"};
    _Static_assert(sizeof bad / sizeof *bad == sizeof why / sizeof *why, "one reason each");
    char text[160];
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        snprintf(text, sizeof text, "workload: {key_format: \"%s\"}\n" NODES, good[i]);
        struct scenario *s = load_ok(text);
        assert_string_equal(s->workload.key_format, good[i]);
        scenario_destroy(s);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[300];
        snprintf(text, sizeof text, "workload: {key_format: \"%s\"}\n" NODES, bad[i]);
        snprintf(want, sizeof want,
                 "x.yaml:1:24: workload.key_format: expected a printf format with exactly one "
                 "integer conversion (%%d, %%i, %%u, %%x or %%X), such as key-%%06d (%s), got "
                 "\"%s\"", why[i], bad[i]);
        expect_error(text, want);
    }
}

/* ---- errors: values ------------------------------------------------------ */

static void test_error_type_and_range(void **state)
{
    (void)state;
    /* the error example of scenarios/README.md ("Errors"), at its line and column */
    expect_error("name: x\n"
                 "routing:\n"
                 "  hash: md5\n"
                 "  vnodes:   many\n" NODES,
                 "x.yaml:4:13: routing.vnodes: expected a positive integer, got \"many\"");
    expect_error("routing: {vnodes: 0}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: expected an integer from 1 to 1000000, got \"0\"");
    expect_error("routing: {vnodes: 1000001}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: expected an integer from 1 to 1000000, "
                 "got \"1000001\"");
    expect_error("routing: {vnodes: -5}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: expected a positive integer, got \"-5\"");
    expect_error("routing: {vnodes: 1.5}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: expected a positive integer, got \"1.5\"");
    expect_error("seed: x\n" NODES,
                 "x.yaml:1:7: seed: expected a non-negative integer, got \"x\"");
    expect_error("workload: {qps: 0}\n" NODES,
                 "x.yaml:1:17: workload.qps: expected a number > 0, got \"0\"");
    expect_error("workload: {qps: fast}\n" NODES,
                 "x.yaml:1:17: workload.qps: expected a number > 0, got \"fast\"");
    expect_error("workload: {write_ratio: 1.01}\n" NODES,
                 "x.yaml:1:25: workload.write_ratio: expected a number from 0 to 1, got \"1.01\"");
    expect_error("workload: {zipf_s: 11}\n" NODES,
                 "x.yaml:1:20: workload.zipf_s: expected a number > 0 and <= 10, got \"11\"");
    expect_error("routing: {load_factor: 1}\n" NODES,
                 "x.yaml:1:24: routing.load_factor: expected a number > 1 and <= 1000, got \"1\"");
    expect_error("routing: {load_factor: 5000}\n" NODES,
                 "x.yaml:1:24: routing.load_factor: expected a number > 1 and <= 1000, got "
                 "\"5000\"");
    expect_error("routing: {table_size: 16777259}\n" NODES,
                 "x.yaml:1:23: routing.table_size: expected an integer from 2 to 16777213, got "
                 "\"16777259\"");
    expect_error("clients: {instances: 4097}\n" NODES,
                 "x.yaml:1:22: clients.instances: expected an integer from 1 to 4096, "
                 "got \"4097\"");
    expect_error("cache: {workers: 0}\n" NODES,
                 "x.yaml:1:18: cache.workers: expected an integer from 1 to 1024, got \"0\"");
    expect_error("health: {max_ejected: -0.5}\n" NODES,
                 "x.yaml:1:23: health.max_ejected: expected a number from 0 to 1, got \"-0.5\"");
    expect_error("nodes: [{id: A, weight: 0}]\n",
                 "x.yaml:1:25: nodes.0.weight: expected a number > 0 and <= 1000000, got \"0\"");
    expect_error("workload: {value_bytes: 0}\n" NODES,
                 "x.yaml:1:25: workload.value_bytes: expected a size from 1 to 1GiB, got \"0\"");
}

static void test_error_units(void **state)
{
    (void)state;
    expect_error("tick: 5\n" NODES,
                 "x.yaml:1:7: tick: expected a duration such as 20us, 1.5s or 2m, got \"5\"");
    expect_error("duration: 0s\n" NODES,
                 "x.yaml:1:11: duration: expected a duration > 0 and <= 300000h, got \"0s\"");
    expect_error("cache: {service_time: 10 ms}\n" NODES,
                 "x.yaml:1:23: cache.service_time: expected a duration such as 20us, 1.5s or "
                 "2m, got \"10 ms\"");
    expect_error("cache: {capacity: 1Gb}\n" NODES,
                 "x.yaml:1:19: cache.capacity: expected a size such as 1024, 64KiB or 1GB, "
                 "got \"1Gb\"");
    expect_error("cache: {capacity: 0B}\n" NODES,
                 "x.yaml:1:19: cache.capacity: expected a size >= 1, got \"0B\"");
    expect_error("cache: {prewarm: yes}\n" NODES,
                 "x.yaml:1:18: cache.prewarm: expected true or false, got \"yes\"");
    expect_error("cache: {prewarm: True}\n" NODES,
                 "x.yaml:1:18: cache.prewarm: expected true or false, got \"True\"");
    expect_error("cache: {service_dist: normal}\n" NODES,
                 "x.yaml:1:23: cache.service_dist: expected one of: exp, fixed, got \"normal\"");
    expect_error("routing: {hash: SHA256}\n" NODES,
                 "x.yaml:1:17: routing.hash: expected one of: sha256, md5, crc32, xxh64, "
                 "murmur3, fnv1a, got \"SHA256\"");
}

/* Every duration is at most 300000h, whatever the key; exactly 300000h is
 * accepted (one nanosecond more is not: the bound is compared exactly). */
static void test_duration_bound(void **state)
{
    (void)state;
    static const char *const keys[] = {
        "duration", "tick", "warmup", "workload.ttl", "cache.service_time", "cache.rtt",
        "database.service_time", "clients.timeout", "clients.fallback_window",
        "health.retry_after", "health.cooldown", "health.probe_interval",
        "health.propagation_delay", "health.gutter_ttl", "nodes.0.service_time", "nodes.0.rtt",
        "events.0.at", "events.0.slow_node.latency", "events.0.slow_node.for"};
    const char *text = NODES "events: [{at: 1s, slow_node: {id: A, factor: 2, for: 1s}}]\n";
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        char set[128], want[256];
        snprintf(set, sizeof set, "%s=1080000000000000001ns", keys[i]);
        bool positive = strstr(keys[i], "for") ||
                        strstr(keys[i], "timeout") || strstr(keys[i], "retry") ||
                        strstr(keys[i], "probe") || strstr(keys[i], "gutter") ||
                        !strcmp(keys[i], "duration") || !strcmp(keys[i], "tick");
        snprintf(want, sizeof want, "--set %s: %s: expected a duration %s 300000h, got "
                 "\"1080000000000000001ns\"", set, keys[i],
                 positive ? "> 0 and <=" : "from 0 to");
        expect_error_sets(text, (const char *const[]){set, NULL}, want);
    }
    struct scenario *s = load_ok_sets(text, (const char *const[]){"health.retry_after=300000h",
                                                                  NULL});
    assert_true(s->health.retry_after_ns == 300000LL * 3600 * 1000000000LL);
    scenario_destroy(s);
}

static void test_error_quoted_numbers(void **state)
{
    (void)state;
    /* a quoted scalar is a string, never a number */
    expect_error("routing: {vnodes: \"512\"}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: expected a positive integer without quotes, "
                 "got \"512\"");
    expect_error("workload: {qps: '100'}\n" NODES,
                 "x.yaml:1:17: workload.qps: expected a number > 0 without quotes, got \"100\"");
    expect_error("cache: {prewarm: \"true\"}\n" NODES,
                 "x.yaml:1:18: cache.prewarm: expected true or false without quotes, "
                 "got \"true\"");
    /* durations and sizes carry a unit, so quotes are fine */
    struct scenario *s = load_ok("tick: \"2s\"\ncache: {capacity: '1MiB'}\n" NODES);
    assert_int_equal(s->tick_ns, 2 * NS_PER_S);
    assert_int_equal(s->cache.capacity_bytes, 1 << 20);
    scenario_destroy(s);
}

static void test_error_collections(void **state)
{
    (void)state;
    expect_error("cache: 5\n" NODES, "x.yaml:1:8: cache: expected a mapping, got \"5\"");
    expect_error("routing: [ring]\n" NODES,
                 "x.yaml:1:10: routing: expected a mapping, got a sequence");
    expect_error("nodes: {id: A}\n", "x.yaml:1:8: nodes: expected a sequence, got a mapping");
    expect_error("nodes: []\n",
                 "x.yaml:1:8: nodes: expected a sequence of at least 1 entry, got an empty "
                 "sequence");
    expect_error("nodes:\n", "x.yaml:1:7: nodes: expected a sequence of at least 1 entry, got "
                             "an empty sequence");
    expect_error("routing: {vnodes: {a: 1}}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: expected a positive integer, got a mapping");
    expect_error("description: [a]\n" NODES,
                 "x.yaml:1:14: description: expected a string, got a sequence");
    expect_error("nodes: [5]\n", "x.yaml:1:9: nodes.0: expected a mapping, got \"5\"");
}

static void test_error_keys(void **state)
{
    (void)state;
    expect_error("routing:\n  vnode: 5\n" NODES,
                 "x.yaml:2:3: routing.vnode: unknown key (expected one of: algorithm, hash, "
                 "vnodes, point_format, node_key, load_factor, bounded_rule, table_size, fencing, fence_delay, replicas, read_from); "
                 "did you mean vnodes?");
    expect_error("routing:\n  zzz: 5\n" NODES,
                 "x.yaml:2:3: routing.zzz: unknown key (expected one of: algorithm, hash, "
                 "vnodes, point_format, node_key, load_factor, bounded_rule, table_size, fencing, fence_delay, replicas, read_from)");
    expect_error("vnodes: 5\n" NODES,
                 "x.yaml:1:1: vnodes: unknown key (expected one of: name, description, seed, "
                 "duration, tick, warmup, workload, routing, nodes, cache, database, clients, "
                 "health, network, output, events); did you mean routing.vnodes (it belongs in "
                 "routing:)?");
    expect_error("nodes: [{id: A, capacty: 1GiB}]\n",
                 "x.yaml:1:17: nodes.0.capacty: unknown key (expected one of: id, address, "
                 "weight, zone, capacity, capacity_items, service_time, service_dist, workers, "
                 "max_queue, rtt, prewarm); did you mean capacity?");
    expect_error("routing:\n  vnodes: 5\n  hash: md5\n  vnodes: 6\n" NODES,
                 "x.yaml:4:3: routing.vnodes: duplicate key (first at line 2)");
    expect_error("seed: 1\nseed: 2\n" NODES, "x.yaml:2:1: seed: duplicate key (first at line 1)");
    expect_error("name: x\n", "x.yaml:1:1: nodes: required key is missing");
    expect_error("nodes:\n  - address: x\n", "x.yaml:2:5: nodes.0.id: required key is missing");
    expect_error("nodes: [{id: A}]\nworkload: {hot_keys: [{key: k}]}\n",
                 "x.yaml:2:23: workload.hot_keys.0.share: required key is missing");
}

/* A value of the right form but too large for its type is out of range,
 * not of the wrong form; one finer than its unit says so. (Such values once
 * also wrapped past 2^128 and could be taken as small ones.) */
static void test_error_too_large(void **state)
{
    (void)state;
    expect_error("routing: {vnodes: 99999999999999999999}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: expected an integer from 1 to 1000000, got "
                 "\"99999999999999999999\"");
    expect_error("routing: {vnodes: 640089741370226238596.828289878e19}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: expected an integer from 1 to 1000000, got "
                 "\"640089741370226238596.828289878e19\"");
    expect_error("seed: 18446744073709551616\n" NODES,
                 "x.yaml:1:7: seed: expected an integer from 0 to 9223372036854775807, got "
                 "\"18446744073709551616\"");
    expect_error("duration: 99999999999999h\n" NODES,
                 "x.yaml:1:11: duration: expected a duration > 0 and <= 300000h, got "
                 "\"99999999999999h\"");
    expect_error("cache: {capacity: 316912650057057350374.177754469GiB}\n" NODES,
                 "x.yaml:1:19: cache.capacity: expected a size >= 1 and below 8388608TiB "
                 "(2^63 bytes), got \"316912650057057350374.177754469GiB\"");
    expect_error("cache: {capacity: 1.5B}\n" NODES,
                 "x.yaml:1:19: cache.capacity: expected a whole number of bytes (such as "
                 "1.5KiB, not 1.5B), got \"1.5B\"");
    expect_error("cache: {rtt: 0.5ns}\n" NODES,
                 "x.yaml:1:14: cache.rtt: expected a whole number of nanoseconds (such as "
                 "1.5us, not 1.5ns), got \"0.5ns\"");
    expect_error("duration: 10 s\n" NODES,
                 "x.yaml:1:11: duration: expected a duration such as 20us, 1.5s or 2m, got "
                 "\"10 s\"");
}

static void test_error_yaml(void **state)
{
    (void)state;
    expect_error("nodes: [{id: A}\n",
                 "x.yaml:2:1: YAML syntax error: did not find expected ',' or ']' (while "
                 "parsing a flow sequence at line 1, column 8)");
    expect_error("a: b: c\n",
                 "x.yaml:1:5: YAML syntax error: mapping values are not allowed in this context");
    /* a tab where indentation goes: libyaml's words do not say so, the message does */
    expect_error(NODES "routing:\n\tvnodes: 5\n",
                 "x.yaml:3:1: YAML syntax error: found character that cannot start any token "
                 "(while scanning for the next token at line 3, column 1); it is a tab: YAML "
                 "indents with spaces only");
    expect_error("", "x.yaml:1:1: the scenario is empty (expected a mapping with at least "
                     "nodes:)");
    expect_error("# only a comment\n\n", "x.yaml:1:1: the scenario is empty (expected a "
                                         "mapping with at least nodes:)");
    expect_error("---\n", "x.yaml:2:1: the scenario is empty (expected a mapping with at "
                          "least nodes:)");
    expect_error(NODES "---\n" NODES,
                 "x.yaml:2:1: more than one YAML document (a scenario is exactly one document)");
    expect_error("- a\n- b\n",
                 "x.yaml:1:1: expected a mapping of scenario keys at the top level, got a "
                 "sequence");
    expect_error("hello\n", "x.yaml:1:1: expected a mapping of scenario keys at the top level, "
                            "got \"hello\"");
    expect_error("nodes: &n [{id: A}]\n",
                 "x.yaml:1:8: anchors and aliases are not supported (write the value out)");
    expect_error("cache: &c {workers: 2}\nnodes: [{id: A}]\n",
                 "x.yaml:1:8: anchors and aliases are not supported (write the value out)");
    expect_error("x: &a 1\ny: *a\n",
                 "x.yaml:1:4: anchors and aliases are not supported (write the value out)");
    expect_error("seed: !!int 5\n" NODES,
                 "x.yaml:1:7: tags are not supported (found tag:yaml.org,2002:int)");
    expect_error("? [a]\n: 1\n" NODES,
                 "x.yaml:1:3: mapping keys must be plain words, not collections");
    /* ... also after 8 keys, when the mapping has an index (found by fuzzing) */
    expect_error("a: 1\nb: 1\nc: 1\nd: 1\ne: 1\nf: 1\ng: 1\nh: 1\n? [a]\n: 1\n" NODES,
                 "x.yaml:9:3: mapping keys must be plain words, not collections");
    expect_error("workload: {a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1, h: 1, {x: 1}: 1}\n" NODES,
                 "x.yaml:1:60: mapping keys must be plain words, not collections");
    expect_error("name: \"a\\0b\"\n" NODES,
                 "x.yaml:1:7: NUL characters are not allowed in values");
    expect_error("name: \"\xff\"\n" NODES, "x.yaml:1:8: YAML syntax error: invalid leading "
                                          "UTF-8 octet");

    char deep[400] = "nodes: [{id: A}]\nx: ";
    for (int i = 0; i < 40; i++)
        strcat(deep, "[");
    expect_error(deep, "x.yaml:2:35: nesting deeper than 32 levels");
}

static void test_all_errors_sorted(void **state)
{
    (void)state;
    static const char *const want[] = {
        "x.yaml:1:7: seed: expected a non-negative integer, got \"-1\"",
        "x.yaml:2:19: routing.vnodes: expected a positive integer, got \"x\"",
        "x.yaml:3:3: routing.hashh: unknown key (expected one of: algorithm, hash, vnodes, "
        "point_format, node_key, load_factor, bounded_rule, table_size, fencing, fence_delay, replicas, read_from); did you mean hash?",
        "x.yaml:4:14: nodes.0.id: expected a node id (non-empty, without spaces or commas), "
        "got \"a,b\"",
        "x.yaml:5:36: events.0.crash_node.id: node \"Q\" is not in the cluster at 1s",
        NULL};
    expect_errors("seed: -1\nrouting: {vnodes: x,\n  hashh: md5}\nnodes: [{id: \"a,b\"}, {id: B}]\n"
                  "events: [{at: 1s, crash_node: {id: Q}}]\n",
                  want);
}

static void test_error_limit(void **state)
{
    (void)state;
    struct strbuf sb;
    struct diag d;
    sb_init(&sb);
    sb_puts(&sb, "nodes:\n");
    for (int i = 0; i < 150; i++)
        sb_printf(&sb, "  - {id: A, weight: 0}\n");
    struct scenario *s = scenario_load_string("x.yaml", sb.buf, sb.len, NULL, 0, (diag_init(&d), &d));
    assert_null(s);
    assert_int_equal(d.n, 101);
    assert_string_equal(d.msgs[100], "x.yaml: 199 more errors not shown");
    diag_deinit(&d);
    sb_deinit(&sb);
}

/* Seconds (monotonic clock) to load a mapping of n unknown keys: the load
 * fails with the first MAX_ERRORS messages and a count of the rest. */
static double load_keys_seconds(size_t n)
{
    struct strbuf sb;
    struct diag d;
    struct timespec t0, t1;
    char want[64];
    sb_init(&sb);
    sb_puts(&sb, "nodes: [{id: A}]\nworkload:\n");
    for (size_t i = 0; i < n; i++)
        sb_printf(&sb, "  k%zu: 1\n", i);
    diag_init(&d);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    struct scenario *s = scenario_load_string("x.yaml", sb.buf, sb.len, NULL, 0, &d);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    assert_null(s);
    assert_int_equal(d.n, 101);
    assert_non_null(strstr(d.msgs[0], "x.yaml:3:3: workload.k0: unknown key"));
    snprintf(want, sizeof want, "x.yaml: %zu more errors not shown", n - 100);
    assert_string_equal(d.msgs[100], want);
    diag_deinit(&d);
    sb_deinit(&sb);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* Loading is linear in the keys of a mapping: ten times the keys take
 * about ten times as long (a duplicate-key check by linear search made it
 * quadratic: 16 s for 50,000 keys). Processor time, not wall time, and the
 * least of a few tries of each, so a loaded machine (other tests beside
 * it) does not count; the bound leaves room for a slow build, and the
 * quadratic loader is a hundred times over. */
static void test_many_keys_linear(void **state)
{
    (void)state;
    double small = 1e9, big = 1e9;
    for (int i = 0; i < 3; i++)
        small = fmin(small, load_keys_seconds(20000));
    for (int i = 0; i < 2 && big > 1.0; i++)
        big = fmin(big, load_keys_seconds(200000));
    if (big > 1.0 && big > 30 * small)
        fail_msg("200000 keys took %.2f s, 20000 keys %.3f s: not linear", big, small);
}

/* Mappings large enough to be indexed: duplicates are found against the
 * first entry, and --set replaces an existing key or adds a new one. */
static void test_indexed_mappings(void **state)
{
    (void)state;
    struct strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, NODES "workload:\n");
    for (int i = 0; i < 40; i++)
        sb_printf(&sb, "  k%d: 1\n", i);
    sb_puts(&sb, "  k3: 2\n  k39: 2\n");
    struct diag d;
    struct scenario *s = load_sets(sb.buf, &d, NULL);
    assert_null(s);
    assert_true(has_msg(&d, "x.yaml:43:3: workload.k3: duplicate key (first at line 6)"));
    assert_true(has_msg(&d, "x.yaml:44:3: workload.k39: duplicate key (first at line 42)"));
    assert_int_equal(d.n, 42); /* 40 unknown keys, 2 duplicates */
    diag_deinit(&d);
    sb_deinit(&sb);

    const char *all = NODES "workload: {keys: 10, key_format: \"k%d\", popularity: zipf, "
                      "zipf_s: 1, qps: 100, write_ratio: 0, value_bytes: 10, ttl: 0s, "
                      "hot_keys: []}\n";
    s = load_ok_sets(all, (const char *const[]){"workload.qps=5", "workload.keys=7", NULL});
    assert_true(s->workload.qps == 5);
    assert_int_equal(s->workload.keys, 7);
    scenario_destroy(s);
    expect_error_sets(all, (const char *const[]){"workload.keyz=1", NULL},
                      "--set workload.keyz=1: workload.keyz: unknown key (expected one of: keys, "
                      "key_format, popularity, zipf_s, qps, write_ratio, value_bytes, ttl, "
                      "hot_keys, trace, diurnal); did you mean keys?");
}

static void test_error_files(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d);
    assert_null(scenario_load("tests/data/no-such-file.yaml", NULL, 0, &d));
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], "tests/data/no-such-file.yaml: cannot read: No such file or "
                                   "directory");
    diag_deinit(&d);
    assert_null(scenario_load("tests/data", NULL, 0, &d));
    assert_string_equal(d.msgs[0], "tests/data: cannot read: not a regular file (a directory)");
    diag_deinit(&d);
}

/* ---- errors: whole-scenario checks ------------------------------------------ */

static void test_error_cross_fields(void **state)
{
    (void)state;
    expect_error("duration: 10s\ntick: 20s\n" NODES,
                 "x.yaml:2:7: tick: expected a tick > 0 and <= duration (10s), got \"20s\"");
    expect_error("duration: 500ms\n" NODES,
                 "x.yaml:1:11: tick: expected a tick > 0 and <= duration (500ms), got \"1s\" "
                 "(the default)");
    expect_error("duration: 1000h\ntick: 1ms\n" NODES,
                 "x.yaml:2:7: tick: expected a tick of at least duration / 10000000 (1000h "
                 "would have more ticks), got \"1ms\"");
    expect_error("warmup: 60s\n" NODES,
                 "x.yaml:1:9: warmup: expected a warmup >= 0 and < duration (1m), got \"60s\"");
    expect_error("health: {on_eject: gutter}\n" NODES,
                 "x.yaml:1:20: health.gutter_nodes: expected at least 1 gutter node when "
                 "on_eject is gutter, got \"0\" (the default)");
    expect_error("health: {on_eject: gutter, gutter_nodes: 0}\n" NODES,
                 "x.yaml:1:42: health.gutter_nodes: expected at least 1 gutter node when "
                 "on_eject is gutter, got \"0\"");
    expect_error("routing: {table_size: 65536}\n" NODES,
                 "x.yaml:1:23: routing.table_size: expected a prime number such as 65537, "
                 "got \"65536\"");
    expect_error("routing: {algorithm: maglev, table_size: 2}\n" NODES,
                 "x.yaml:1:42: routing.table_size: the maglev table size 2 is smaller than the 3 "
                 "nodes; expected a prime of at least 3");
    expect_error("routing: {algorithm: maglev, table_size: 3}\n" NODES
                 "events: [{at: 1s, add_node: {id: D}}]\n",
                 "x.yaml:1:42: routing.table_size: the maglev table size 3 is smaller than the 4 "
                 "nodes; expected a prime of at least 4 (the cluster at 1s, after events.0: "
                 "add_node D)");
    expect_error("routing: {vnodes: 1000000}\nnodes: [{id: A, weight: 11}]\n",
                 "x.yaml:1:19: routing.vnodes: 1 node at 1000000 vnodes makes 11000000 ring "
                 "points (vnodes x weight each), more than 10000000; lower vnodes or the weights");
    expect_error("routing: {point_format: \"%d-%s\"}\n" NODES,
                 "x.yaml:1:25: routing.point_format: expected a point format with %s then %d, "
                 "such as %s#%d (has %d before %s (the name comes first)), got \"%d-%s\"");
    expect_error("name: a/b\n" NODES,
                 "x.yaml:1:7: name: expected a non-empty name without '/' or control "
                 "characters, got \"a/b\"");
    struct scenario *s = load_ok("routing: {table_size: 3}\n" NODES);
    scenario_destroy(s);
    /* the table size only has to hold the nodes when maglev uses it */
    s = load_ok("routing: {table_size: 2}\n" NODES "events: [{at: 1s, add_node: {id: D}}]\n");
    scenario_destroy(s);

    /* the gutter pool's node names are reserved */
    expect_error("health: {on_eject: gutter, gutter_nodes: 2}\nnodes: [{id: gutter-1}]\n",
                 "x.yaml:2:14: nodes.0.id: \"gutter-1\" is the name of a gutter node "
                 "(health.gutter_nodes is 2); choose another id");
    expect_error("health: {on_eject: gutter, gutter_nodes: 1}\n" NODES
                 "events: [{at: 1s, add_node: {id: gutter-0}}]\n",
                 "x.yaml:3:34: events.0.add_node.id: \"gutter-0\" is the name of a gutter node "
                 "(health.gutter_nodes is 1); choose another id");
    s = load_ok("health: {on_eject: gutter, gutter_nodes: 2}\n"
                "nodes: [{id: gutter-2}, {id: gutter-01}, {id: gutter-x}]\n");
    scenario_destroy(s);
    s = load_ok("nodes: [{id: gutter-0}]\n"); /* no gutter pool */
    scenario_destroy(s);

    /* values the engine could not hold are rejected at load time */
    expect_error("workload: {value_bytes: 1.5GiB}\n" NODES,
                 "x.yaml:1:25: workload.value_bytes: expected a size from 1 to 1GiB, got "
                 "\"1.5GiB\"");
    char text[400], want[400], longname[260];
    memset(longname, 'k', 200);
    strcpy(longname + 200, "%d");
    snprintf(text, sizeof text, "workload: {key_format: %s}\n" NODES, longname);
    snprintf(want, sizeof want, "x.yaml:1:24: workload.key_format: expected a printf format of "
             "at most 200 characters, got \"%.79s...\"", longname);
    expect_error(text, want);
}

/* Every membership the run will build a placement for goes through the
 * placement library's check at load time, so no run fails to build a ring
 * mid-run: the nodes at time 0, the cluster after each event, the gutter pool. */
static void test_error_placement_over_time(void **state)
{
    (void)state;
    static const char ring[] = "routing: {vnodes: 1000000}\n"
                               "nodes: [{id: A, weight: 5}]\n"
                               "events:\n"
                               "  - {at: 3s, add_node: {id: D}}\n"
                               "  - {at: 1s, add_node: {id: B, weight: 4}}\n"
                               "  - {at: 2s, add_node: {id: C, weight: 2}}\n";
    expect_error(ring, "x.yaml:1:19: routing.vnodes: 3 nodes at 1000000 vnodes make 11000000 "
                       "ring points (vnodes x weight each), more than 10000000; lower vnodes or "
                       "the weights (the cluster at 2s, after events.2: add_node C)");
    /* a removal in between keeps every membership under the limit */
    struct scenario *s = load_ok("routing: {vnodes: 1000000}\n"
                                 "nodes: [{id: A, weight: 5}]\n"
                                 "events:\n"
                                 "  - {at: 1s, add_node: {id: B, weight: 4}}\n"
                                 "  - {at: 2s, remove_node: {id: A}}\n"
                                 "  - {at: 3s, add_node: {id: C, weight: 2}}\n"
                                 "  - {at: 4s, add_node: {id: A, weight: 4}}\n");
    scenario_destroy(s);
    /* ... and one after it does not */
    expect_error("routing: {vnodes: 1000000}\n"
                 "nodes: [{id: A, weight: 5}]\n"
                 "events:\n"
                 "  - {at: 1s, add_node: {id: B, weight: 4}}\n"
                 "  - {at: 2s, remove_node: {id: A}}\n"
                 "  - {at: 3s, add_node: {id: C, weight: 2}}\n"
                 "  - {at: 4s, add_node: {id: A, weight: 5}}\n",
                 "x.yaml:1:19: routing.vnodes: 3 nodes at 1000000 vnodes make 11000000 ring "
                 "points (vnodes x weight each), more than 10000000; lower vnodes or the weights "
                 "(the cluster at 4s, after events.3: add_node A)");
    /* the gutter pool is a membership too */
    expect_error("routing: {vnodes: 1000000}\nhealth: {on_eject: gutter, gutter_nodes: 11}\n" NODES,
                 "x.yaml:1:19: routing.vnodes: 11 nodes at 1000000 vnodes make 11000000 ring "
                 "points (vnodes x weight each), more than 10000000; lower vnodes or the weights "
                 "(the gutter pool, health.gutter_nodes)");
    expect_error("routing: {algorithm: maglev, table_size: 5}\n"
                 "health: {on_eject: gutter, gutter_nodes: 7}\n" NODES,
                 "x.yaml:1:42: routing.table_size: the maglev table size 5 is smaller than the 7 "
                 "nodes; expected a prime of at least 7 (the gutter pool, health.gutter_nodes)");
    /* node_key: address hashes the address: an empty one cannot be placed */
    expect_error("routing: {node_key: address}\nnodes: [{id: A, address: \"\"}, {id: B}]\n",
                 "x.yaml:2:8: nodes: node A has no address (node_key is address)");
    expect_error("routing: {node_key: address}\n" NODES
                 "events: [{at: 5s, set_address: {id: B, address: \"\"}}]\n",
                 "x.yaml:3:37: events.0.set_address.id: node B has no address (node_key is "
                 "address) (the cluster at 5s, after events.0: set_address B)");
    /* slots: at most 16384 nodes at once, reached by events */
    struct strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "duration: 1h\nrouting: {algorithm: slots}\nnodes:\n");
    for (int i = 0; i < 10000; i++)
        sb_printf(&sb, "  - {id: n%d}\n", i);
    sb_puts(&sb, "events:\n");
    for (int i = 0; i < 6385; i++)
        sb_printf(&sb, "  - {at: %dms, add_node: {id: e%d}}\n", i + 1, i);
    expect_error(sb.buf, "x.yaml:16389:33: events.6384.add_node.id: slots: 16385 nodes is more "
                         "than the 16384 slots (the cluster at 6385ms, after events.6384: "
                         "add_node e6384)");
    sb.len -= strlen("  - {at: 6385ms, add_node: {id: e6384}}\n");
    sb.buf[sb.len] = '\0';
    s = load_ok(sb.buf);
    assert_int_equal(s->n_events, 6384);
    scenario_destroy(s);
    sb_deinit(&sb);
}

static void test_error_long_values(void **state)
{
    (void)state;
    /* a long value is cut in the message, between characters */
    char text[600], want[600], got[200];
    strcpy(text, "name: a/");
    for (int i = 0; i < 45; i++) /* 92 bytes: under the 100 a name may have */
        strcat(text, "\xc3\xa9"); /* é, two bytes */
    strcat(text, "\n" NODES);
    strcpy(got, "a/");
    for (int i = 0; i < 39; i++)
        strcat(got, "\xc3\xa9");
    snprintf(want, sizeof want, "x.yaml:1:7: name: expected a non-empty name without '/' or "
             "control characters, got \"%s...\"", got);
    expect_error(text, want);
    expect_error("name: \"a\\tb\\x01\\\"/\"\n" NODES,
                 "x.yaml:1:7: name: expected a non-empty name without '/' or control "
                 "characters, got \"a\\tb\\x01\\\"/\"");
}

static void test_error_nodes(void **state)
{
    (void)state;
    expect_error("nodes: [{id: A}, {id: B}, {id: A}]\n",
                 "x.yaml:1:32: nodes.2.id: duplicate node id \"A\" (first at line 1)");
    /* a clash a --set makes: each side where it was written */
    expect_error_sets("nodes:\n  - {id: A}\n  - {id: B}\n",
                      (const char *const[]){"nodes.0.id=B", NULL},
                      "x.yaml:3:10: nodes.1.id: duplicate node id \"B\" (first as nodes.0.id, by "
                      "--set nodes.0.id=B)");
    expect_error_sets("nodes:\n  - {id: A}\n  - {id: B}\n",
                      (const char *const[]){"nodes.1.id=A", NULL},
                      "--set nodes.1.id=A: nodes.1.id: duplicate node id \"A\" (first at line 2)");
    expect_error("nodes: [{id: \"\"}]\n", "x.yaml:1:14: nodes.0.id: expected a node id "
                                          "(non-empty, without spaces or commas), got \"\"");
    expect_error("nodes: [{id: \"a b\"}]\n", "x.yaml:1:14: nodes.0.id: expected a node id "
                                             "(non-empty, without spaces or commas), got \"a b\"");
    expect_error("routing: {node_key: address}\nnodes: [{id: A, address: h1}, {id: B, "
                 "address: h1}]\n",
                 "x.yaml:2:48: nodes.1.address: address \"h1\" is also node A's (with "
                 "node_key: address, addresses must be unique)");
    /* the same address is fine when ids are hashed */
    struct scenario *s = load_ok("nodes: [{id: A, address: h1}, {id: B, address: h1}]\n");
    scenario_destroy(s);
    expect_error("cache: {capacity: 1GiB, capacity_items: 10}\n" NODES,
                 "x.yaml:1:25: cache.capacity_items: give capacity or capacity_items, not both "
                 "(capacity is at line 1)");
    expect_error("nodes: [{id: A, capacity: 1MiB, capacity_items: 10}]\n",
                 "x.yaml:1:33: nodes.0.capacity_items: give capacity or capacity_items, not "
                 "both (capacity is at line 1)");
}

static void test_node_cache_overrides(void **state)
{
    (void)state;
    struct scenario *s = load_ok(
        "cache: {capacity_items: 1000, workers: 4, rtt: 1ms}\n"
        "nodes:\n"
        "  - {id: A}\n"
        "  - {id: B, capacity: 1MiB}\n"
        "  - {id: C, capacity_items: 5, rtt: 0s, prewarm: false}\n"
        "events: [{at: 1s, add_node: {id: D, weight: 3, capacity: 2MiB, workers: 2}}]\n");
    assert_int_equal(s->cache.capacity_items, 1000);
    assert_int_equal(s->cache.capacity_bytes, 0);
    assert_int_equal(s->nodes[0].cache.capacity_items, 1000);
    assert_int_equal(s->nodes[0].cache.workers, 4);
    assert_int_equal(s->nodes[1].cache.capacity_bytes, 1 << 20);
    assert_int_equal(s->nodes[1].cache.capacity_items, 0);
    assert_int_equal(s->nodes[1].cache.rtt_ns, NS_PER_MS);
    assert_int_equal(s->nodes[2].cache.capacity_items, 5);
    assert_int_equal(s->nodes[2].cache.rtt_ns, 0);
    assert_false(s->nodes[2].cache.prewarm);
    assert_int_equal(s->nodes[2].cache.workers, 4);
    const struct event_cfg *e = &s->events[0];
    assert_string_equal(e->address, "D");
    assert_true(e->weight == 3);
    assert_int_equal(e->cache.capacity_bytes, 2 << 20);
    assert_int_equal(e->cache.capacity_items, 0);
    assert_int_equal(e->cache.workers, 2);
    assert_int_equal(e->cache.rtt_ns, NS_PER_MS);
    assert_true(e->cache.prewarm);
    scenario_destroy(s);
}

/* An added node joins empty: prewarm there would be silently ignored, so it
 * is refused, in the file and by --set, saying why. */
static void test_add_node_prewarm_refused(void **state)
{
    (void)state;
    static const char why[] = "not allowed here: a node added by an event joins empty; prewarm "
                              "applies only to the nodes present at time 0 (the entries of "
                              "nodes:), so remove it";
    char want[400];
    snprintf(want, sizeof want, "x.yaml:2:37: events.0.add_node.prewarm: %s", why);
    expect_error("nodes: [{id: A}]\n"
                 "events: [{at: 1s, add_node: {id: B, prewarm: true}}]\n", want);
    snprintf(want, sizeof want, "x.yaml:2:37: events.0.add_node.prewarm: %s", why);
    expect_error("nodes: [{id: A}]\n"
                 "events: [{at: 0s, add_node: {id: B, prewarm: false}}]\n", want);
    const char *const sets[] = {"events.0.add_node.prewarm=true", NULL};
    snprintf(want, sizeof want,
             "--set events.0.add_node.prewarm=true: events.0.add_node.prewarm: %s", why);
    expect_error_sets("nodes: [{id: A}]\nevents: [{at: 1s, add_node: {id: B}}]\n", sets, want);
    /* the other cache keys stay allowed, and the unknown-key list does not offer prewarm */
    struct scenario *s = load_ok("nodes: [{id: A, prewarm: false}]\n"
                                 "events: [{at: 1s, add_node: {id: B, workers: 2}}]\n");
    assert_false(s->nodes[0].cache.prewarm);
    assert_int_equal(s->events[0].cache.workers, 2);
    scenario_destroy(s);
    expect_error("nodes: [{id: A}]\nevents: [{at: 1s, add_node: {id: B, prewarn: true}}]\n",
                 "x.yaml:2:37: events.0.add_node.prewarn: unknown key (expected one of: id, "
                 "address, weight, zone, take_slots, warm, capacity, capacity_items, service_time, "
                 "service_dist, "
                 "workers, max_queue, rtt)");
}

/* ---- events ------------------------------------------------------------- */

static void test_events_sorted_stable(void **state)
{
    (void)state;
    struct scenario *s = load_ok(
        NODES "events:\n"
        "  - {at: 30s, set_qps: 3}\n"
        "  - {at: 10s, set_qps: 1}\n"
        "  - {at: 30s, set_qps: 4}\n"
        "  - {at: 0s, set_qps: 0.5}\n"
        "  - {at: 10s, set_qps: 2}\n"
        "  - {at: 1m, set_qps: 5}\n");
    static const double want[] = {0.5, 1, 2, 3, 4, 5};
    assert_int_equal(s->n_events, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(s->events[i].kind, EV_SET_QPS);
        assert_true(s->events[i].qps == want[i]);
    }
    assert_int_equal(s->events[0].pos.line, 6); /* positions follow their events */
    assert_int_equal(s->events[5].at_ns, 60 * NS_PER_S);
    scenario_destroy(s);
}

static void test_events_membership(void **state)
{
    (void)state;
    /* the order of the file does not matter, the order in time does */
    struct scenario *s = load_ok(
        NODES "events:\n"
        "  - {at: 20s, restart_node: {id: A}}\n"
        "  - {at: 10s, crash_node: {id: A}}\n"
        "  - {at: 30s, remove_node: {id: B}}\n"
        "  - {at: 40s, add_node: {id: B}}\n"
        "  - {at: 40s, slow_node: {id: B, latency: 5ms}}\n"
        "  - {at: 50s, crash_node: {id: A}}\n"
        "  - {at: 60s, set_address: {id: C, address: c2}}\n");
    assert_int_equal(s->events[0].kind, EV_CRASH_NODE);
    assert_int_equal(s->events[1].kind, EV_RESTART_NODE);
    assert_int_equal(s->events[4].kind, EV_SLOW_NODE);
    assert_true(s->events[4].factor == 1);
    assert_int_equal(s->events[4].latency_ns, 5 * NS_PER_MS);
    assert_int_equal(s->events[4].for_ns, 0);
    scenario_destroy(s);

    expect_error(NODES "events:\n  - {at: 5s, remove_node: {id: Z}}\n",
                 "x.yaml:3:32: events.0.remove_node.id: node \"Z\" is not in the cluster at 5s");
    expect_error(NODES "events:\n  - {at: 5s, restart_node: {id: A}}\n",
                 "x.yaml:3:33: events.0.restart_node.id: node \"A\" is not crashed at 5s");
    expect_error(NODES "events:\n  - {at: 5s, crash_node: {id: A}}\n  - {at: 6s, crash_node: "
                 "{id: A}}\n",
                 "x.yaml:4:31: events.1.crash_node.id: node \"A\" is already crashed at 6s");
    expect_error(NODES "events:\n  - {at: 5s, add_node: {id: C}}\n",
                 "x.yaml:3:29: events.0.add_node.id: node \"C\" is already in the cluster at 5s");
    /* the removal comes first in time, so the slow_node is about a node that left */
    expect_error(NODES "events:\n  - {at: 9s, slow_node: {id: B, factor: 2}}\n"
                 "  - {at: 8s, remove_node: {id: B}}\n",
                 "x.yaml:3:30: events.0.slow_node.id: node \"B\" is not in the cluster at 9s");
    expect_error("nodes: [{id: A}]\nevents:\n  - {at: 5s, remove_node: {id: A}}\n",
                 "x.yaml:3:32: events.0.remove_node.id: removing node \"A\" at 5s would leave no "
                 "nodes");
    expect_error(NODES "events:\n  - {at: 5s, set_address: {id: Q, address: q}}\n",
                 "x.yaml:3:32: events.0.set_address.id: node \"Q\" is not in the cluster at 5s");
    expect_error("routing: {node_key: address}\n" NODES
                 "events:\n  - {at: 5s, set_address: {id: A, address: B}}\n",
                 "x.yaml:4:44: events.0.set_address.address: address \"B\" is node B's at 5s "
                 "(with node_key: address, addresses must be unique)");
    expect_error("routing: {node_key: address}\n" NODES
                 "events:\n  - {at: 5s, add_node: {id: D, address: C}}\n",
                 "x.yaml:4:41: events.0.add_node.address: address \"C\" is node C's at 5s "
                 "(with node_key: address, addresses must be unique)");
}

static void test_events_entries(void **state)
{
    (void)state;
    expect_error(NODES "events:\n  - {at: 90s, set_qps: 5}\n",
                 "x.yaml:3:10: events.0.at: expected a time from 0 to duration (1m), got \"90s\"");
    struct scenario *s = load_ok(NODES "events: [{at: 60s, set_qps: 5}]\n");
    scenario_destroy(s);
    expect_error(NODES "events:\n  - {at: 5s}\n",
                 "x.yaml:3:5: events.0: expected an event key (one of: add_node, remove_node, "
                 "slow_node, crash_node, restart_node, split_brain, set_qps, set_address, "
                 "hot_key, set_weight, set_vnodes, set_routing, migrate_slots, crash_zone, shift_popularity), got none");
    expect_error(NODES "events:\n  - {at: 5s, crash_node: {id: A}, set_qps: 5}\n",
                 "x.yaml:3:35: events.0.set_qps: an entry holds exactly one event, and this one "
                 "already has crash_node (line 3)");
    expect_error(NODES "events:\n  - {set_qps: 5}\n",
                 "x.yaml:3:5: events.0.at: required key is missing");
    expect_error(NODES "events:\n  - {at: 5s, set_qps: {over: 5s}}\n",
                 "x.yaml:3:23: events.0.set_qps.qps: required key is missing");
    expect_error(NODES "events:\n  - {at: 5s, set_qps: [5]}\n",
                 "x.yaml:3:23: events.0.set_qps: expected a number, or a mapping {qps, over}, "
                 "got a sequence");
    expect_error(NODES "events:\n  - {at: 5s, slow_node: {id: A}}\n",
                 "x.yaml:3:25: events.0.slow_node: expected factor or latency (or both)");
    expect_error(NODES "events:\n  - {at: 5s, slow_node: {id: A, factor: 0.5}}\n",
                 "x.yaml:3:41: events.0.slow_node.factor: expected a number from 1 to 1000000, "
                 "got \"0.5\"");
    expect_error(NODES "events:\n  - {at: 5s, slow_node: {id: A, factor: 2, for: 0s}}\n",
                 "x.yaml:3:49: events.0.slow_node.for: expected a duration > 0 and <= 300000h, got \"0s\"");
    expect_error(NODES "events:\n  - {at: 5s, crash_node: {id: A, for: 1s}}\n",
                 "x.yaml:3:34: events.0.crash_node.for: unknown key (expected one of: id)");
    expect_error(NODES "events:\n  - {at: 5s, split_brain: {instances: [0]}}\n",
                 "x.yaml:3:27: events.0.split_brain.for: required key is missing");
    expect_error(NODES "events:\n  - {at: 5s, split_brain: {instances: [], for: 1s}}\n",
                 "x.yaml:3:39: events.0.split_brain.instances: expected a sequence of at least "
                 "1 entry, got an empty sequence");
    expect_error(NODES "events:\n  - {at: 5s, split_brain: {instances: [0, 4], for: 1s}}\n",
                 "x.yaml:3:43: events.0.split_brain.instances.1: expected an instance number "
                 "from 0 to 3 (clients.instances is 4), got \"4\"");
    expect_error(NODES "events:\n  - {at: 5s, split_brain: {instances: [1, 1], for: 1s}}\n",
                 "x.yaml:3:43: events.0.split_brain.instances.1: instance 1 is listed twice");
    expect_error(NODES "events:\n  - {at: 5s, split_brain: {instances: [x], for: 1s}}\n",
                 "x.yaml:3:40: events.0.split_brain.instances.0: expected a non-negative "
                 "integer, got \"x\"");
    expect_error(NODES "events:\n  - {at: 5s, hot_key: {key: k}}\n",
                 "x.yaml:3:23: events.0.hot_key.share: required key is missing");
    expect_error(NODES "events: 5\n", "x.yaml:2:9: events: expected a sequence, got \"5\"");
}

static void test_events_hot_keys(void **state)
{
    (void)state;
    /* a hot_key event for a key already hot replaces its share while it lasts */
    struct scenario *s = load_ok(
        "workload: {hot_keys: [{key: a, share: 0.5}, {key: b, share: 0.3}]}\n" NODES
        "events:\n"
        "  - {at: 10s, hot_key: {key: a, share: 0.7, for: 10s}}\n"  /* 0.7 + 0.3 */
        "  - {at: 20s, hot_key: {key: c, share: 0.2}}\n"            /* a back to 0.5 */
        "  - {at: 30s, hot_key: {key: c, share: 0.1, for: 5s}}\n"); /* replaces c */
    assert_int_equal(s->events[0].kind, EV_HOT_KEY);
    assert_int_equal(s->events[2].for_ns, 5 * NS_PER_S);
    scenario_destroy(s);

    expect_error("workload: {hot_keys: [{key: a, share: 0.6}, {key: b, share: 0.5}]}\n" NODES,
                 "x.yaml:1:22: workload.hot_keys: expected shares that sum to at most 1, "
                 "got 1.1");
    expect_error("workload: {hot_keys: [{key: a, share: 0.2}, {key: a, share: 0.1}]}\n" NODES,
                 "x.yaml:1:51: workload.hot_keys.1.key: duplicate hot key \"a\" (first at "
                 "line 1)");
    expect_error("workload: {hot_keys: [{key: a, share: 1.5}]}\n" NODES,
                 "x.yaml:1:39: workload.hot_keys.0.share: expected a number > 0 and <= 1, "
                 "got \"1.5\"");
    /* overlapping events */
    expect_error("workload: {hot_keys: [{key: a, share: 0.5}]}\n" NODES
                 "events:\n"
                 "  - {at: 10s, hot_key: {key: b, share: 0.3, for: 20s}}\n"
                 "  - {at: 20s, hot_key: {key: c, share: 0.3}}\n",
                 "x.yaml:5:40: events.1.hot_key.share: hot key shares (workload.hot_keys and "
                 "active hot_key events) sum to 1.1 at 20s, expected at most 1");
    /* a replacement that ends brings the larger file share back */
    expect_error("workload: {hot_keys: [{key: a, share: 0.8}]}\n" NODES
                 "events:\n"
                 "  - {at: 10s, hot_key: {key: a, share: 0.1, for: 10s}}\n"
                 "  - {at: 15s, hot_key: {key: b, share: 0.5}}\n",
                 "x.yaml:5:40: events.1.hot_key.share: hot key shares (workload.hot_keys and "
                 "active hot_key events) sum to 1.3 at 20s, expected at most 1");
    /* ... and when they do not overlap, it is fine */
    s = load_ok(NODES "events:\n"
                "  - {at: 10s, hot_key: {key: b, share: 0.8, for: 10s}}\n"
                "  - {at: 20s, hot_key: {key: c, share: 0.8}}\n");
    scenario_destroy(s);
}

/* ---- traffic: shapes and traces -------------------------------------------- */

static void check_round_trip(struct scenario *s);

/* set_qps: a bare number is a step, a mapping may ramp; the effective YAML
 * writes the bare number again when there is no ramp. */
static void test_set_qps_ramp(void **state)
{
    (void)state;
    struct scenario *s = load_ok(NODES "events:\n  - {at: 10s, set_qps: 5}\n"
                                 "  - {at: 20s, set_qps: {qps: 7, over: 30s}}\n"
                                 "  - {at: 30s, set_qps: {qps: 9}}\n");
    assert_true(s->events[0].qps == 5);
    assert_int_equal(s->events[0].over_ns, 0);
    assert_true(s->events[1].qps == 7);
    assert_int_equal(s->events[1].over_ns, 30 * NS_PER_S);
    assert_int_equal(s->events[2].over_ns, 0);
    assert_non_null(strstr(s->effective_yaml, "- at: 10s\n  set_qps: 5\n"));
    assert_non_null(strstr(s->effective_yaml, "- at: 20s\n  set_qps:\n    qps: 7\n    over: 30s\n"));
    assert_non_null(strstr(s->effective_yaml, "- at: 30s\n  set_qps: 9\n"));
    check_round_trip(s);
    scenario_destroy(s);
    /* --set reaches either form */
    s = load_ok_sets(NODES "events: [{at: 1s, set_qps: 5}, {at: 2s, set_qps: {qps: 6}}]\n",
                     (const char *const[]){"events.0.set_qps=8", "events.1.set_qps.over=4s",
                                           NULL});
    assert_true(s->events[0].qps == 8);
    assert_int_equal(s->events[1].over_ns, 4 * NS_PER_S);
    scenario_destroy(s);
    expect_error(NODES "events:\n  - {at: 5s, set_qps: {qps: 0, over: 1s}}\n",
                 "x.yaml:3:29: events.0.set_qps.qps: expected a number > 0, got \"0\"");
    expect_error(NODES "events:\n  - {at: 5s, set_qps: {qps: 5, ovr: 1s}}\n",
                 "x.yaml:3:32: events.0.set_qps.ovr: unknown key (expected one of: qps, over); "
                 "did you mean over?");
}

static void test_diurnal_and_shift(void **state)
{
    (void)state;
    struct scenario *s = load_ok("workload: {diurnal: {amplitude: 0.5, period: 1h}}\n" NODES
                                 "events: [{at: 5s, shift_popularity: {}}, "
                                 "{at: 6s, shift_popularity: }]\n");
    assert_true(s->workload.diurnal.amplitude == 0.5);
    assert_int_equal(s->workload.diurnal.period_ns, 3600 * NS_PER_S);
    assert_int_equal(s->workload.diurnal.peak_at_ns, 0);
    assert_int_equal(s->events[0].kind, EV_SHIFT_POPULARITY);
    assert_int_equal(s->events[1].kind, EV_SHIFT_POPULARITY);
    assert_non_null(strstr(s->effective_yaml,
                           "  diurnal:\n    amplitude: 0.5\n    period: 1h\n    peak_at: 0s\n"));
    assert_non_null(strstr(s->effective_yaml, "  shift_popularity: {}\n"));
    check_round_trip(s);
    scenario_destroy(s);
    /* absent, or amplitude 0: a constant rate, and nothing written */
    s = load_ok("workload: {diurnal: {amplitude: 0}}\n" NODES);
    assert_null(strstr(s->effective_yaml, "diurnal"));
    scenario_destroy(s);
    expect_error("workload: {diurnal: {amplitude: 1}}\n" NODES,
                 "x.yaml:1:33: workload.diurnal.amplitude: expected a number >= 0 and < 1, "
                 "got \"1\"");
    expect_error("workload: {diurnal: {period: 1h}}\n" NODES,
                 "x.yaml:1:21: workload.diurnal.amplitude: required key is missing");
    expect_error(NODES "events: [{at: 5s, shift_popularity: {keys: 3}}]\n",
                 "x.yaml:2:38: events.0.shift_popularity.keys: unknown key (this mapping takes "
                 "no keys: write {})");
}

/* Zero latencies: what an exact comparison with a cache simulator needs. */
static void test_zero_latencies(void **state)
{
    (void)state;
    struct scenario *s = load_ok("cache: {rtt: 0, service_time: 0}\ndatabase: {service_time: 0}\n"
                                 NODES);
    assert_int_equal(s->cache.rtt_ns, 0);
    assert_int_equal(s->cache.service_ns, 0);
    assert_int_equal(s->database.service_ns, 0);
    check_round_trip(s);
    scenario_destroy(s);
}

/* A file for workload.trace: `bytes` bytes of x. Returns its path (static). */
static const char *trace_file(const char *name, size_t bytes)
{
    static char path[4][128];
    static int i;
    char *p = path[i++ % 4];
    snprintf(p, sizeof path[0], "/tmp/ringsim-test-scenario-%d-%s", (int)getpid(), name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    for (size_t b = 0; b < bytes; b++)
        fputc('x', f);
    fclose(f);
    return p;
}

static void test_trace_keys(void **state)
{
    (void)state;
    const char *bin = trace_file("t.bin", 48), *csv = trace_file("t.csv", 10);
    char text[1024], want[1024];
    snprintf(text, sizeof text, "workload:\n  key_format: \"obj-%%d\"\n  value_bytes: 100\n"
             "  trace: {path: %s, time_scale: 0.5}\n" NODES, bin);
    struct scenario *s = load_ok(text);
    assert_string_equal(s->workload.trace.path, bin);
    assert_int_equal(s->workload.trace.format, TRACE_ORACLE_GENERAL);
    assert_true(s->workload.trace.time_scale == 0.5);
    /* the synthetic workload's keys are not written; key_format names the ids */
    assert_null(strstr(s->effective_yaml, "\n  qps:"));
    assert_null(strstr(s->effective_yaml, "\n  keys:"));
    assert_null(strstr(s->effective_yaml, "hot_keys"));
    assert_non_null(strstr(s->effective_yaml, "key_format: obj-%d\n"));
    check_round_trip(s);
    scenario_destroy(s);
    snprintf(text, sizeof text, "workload:\n  trace: {path: %s, format: csv}\n" NODES, csv);
    s = load_ok(text);
    assert_null(strstr(s->effective_yaml, "key_format"));
    check_round_trip(s);
    scenario_destroy(s);

    /* every key and event that a trace replaces is refused where it is */
    snprintf(text, sizeof text,
             "workload:\n  keys: 10\n  popularity: zipf\n  zipf_s: 1\n  qps: 5\n"
             "  write_ratio: 0.1\n  hot_keys: []\n  diurnal: {amplitude: 0.5}\n"
             "  trace: {path: %s}\n" NODES "events:\n  - {at: 1s, set_qps: 5}\n"
             "  - {at: 2s, hot_key: {key: a, share: 0.1}}\n  - {at: 3s, shift_popularity: {}}\n",
             bin);
    static const char *const refused[] = {"2:3: workload.keys", "3:3: workload.popularity",
                                          "4:3: workload.zipf_s", "5:3: workload.qps",
                                          "6:3: workload.write_ratio", "7:3: workload.hot_keys",
                                          "8:3: workload.diurnal"};
    struct diag d;
    assert_null(load_sets(text, &d, NULL));
    assert_int_equal(d.n, 10);
    for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
        snprintf(want, sizeof want, "x.yaml:%s: does not apply with workload.trace: the trace "
                 "gives the requests (their times, keys and operations); remove it, or remove "
                 "workload.trace", refused[i]);
        assert_true(has_msg(&d, want));
    }
    assert_true(has_msg(&d, "x.yaml:12:14: events.0.set_qps: does not apply with workload.trace: "
                            "the trace gives the request rate (time_scale scales it); remove "
                            "the event"));
    assert_true(has_msg(&d, "x.yaml:13:14: events.1.hot_key: does not apply with workload.trace: "
                            "the trace gives every request's key; remove the event"));
    assert_true(has_msg(&d, "x.yaml:14:14: events.2.shift_popularity: does not apply with "
                            "workload.trace: the trace gives every request's key; remove the "
                            "event"));
    diag_deinit(&d);
    snprintf(text, sizeof text, "workload:\n  key_format: \"k%%d\"\n"
             "  trace: {path: %s, format: csv}\n" NODES, csv);
    expect_error(text, "x.yaml:2:3: workload.key_format: does not apply with workload.trace: a "
                       "csv trace names its keys itself (its key column); remove it");
    /* --set is refused the same way */
    snprintf(text, sizeof text, "workload:\n  trace: {path: %s}\n" NODES, bin);
    expect_error_sets(text, (const char *const[]){"workload.qps=5", NULL},
                      "--set workload.qps=5: workload.qps: does not apply with workload.trace: "
                      "the trace gives the requests (their times, keys and operations); remove "
                      "it, or remove workload.trace");
    unlink(bin);
    unlink(csv);
}

static void test_trace_files(void **state)
{
    (void)state;
    char text[1024], want[1024];
    const char *odd = trace_file("odd.bin", 50), *empty = trace_file("empty.csv", 0);
    snprintf(text, sizeof text, "workload:\n  trace: {path: %s}\n" NODES, odd);
    snprintf(want, sizeof want, "x.yaml:2:17: workload.trace.path: the trace \"%s\" has 50 bytes, "
             "not a whole number of 24-byte oracle_general records: record 3 is truncated (2 of "
             "24 bytes); is it a csv trace (format: csv)?", odd);
    expect_error(text, want);
    snprintf(text, sizeof text, "workload:\n  trace: {path: %s, format: csv}\n" NODES, empty);
    snprintf(want, sizeof want, "x.yaml:2:17: workload.trace.path: the trace \"%s\" is empty "
             "(expected at least one request)", empty);
    expect_error(text, want);
    /* a csv trace of a header, comments and blank lines only: nothing to replay
     * (it once passed check and failed at the run) */
    const char *bare = trace_file("bare.csv", 0);
    FILE *f = fopen(bare, "wb");
    assert_non_null(f);
    fputs("time, key ,op\r\n# nothing yet\r\n\r\n   \n", f);
    fclose(f);
    snprintf(text, sizeof text, "workload:\n  trace: {path: %s, format: csv}\n" NODES, bare);
    snprintf(want, sizeof want, "x.yaml:2:17: workload.trace.path: the trace \"%s\" has no "
             "requests (only blank lines, comments or a header; expected lines "
             "time,key,op[,size[,ttl]])", bare);
    expect_error(text, want);
    /* as the reader skips them: a byte order mark, comments before the header, a
     * header in capitals (it once passed check, then the run found no request) */
    f = fopen(bare, "wb");
    assert_non_null(f);
    fputs("\xef\xbb\xbf# made by a tool\n\n TIME ,Key,Op\n", f);
    fclose(f);
    expect_error(text, want);
    f = fopen(bare, "ab"); /* one request after them: fine */
    assert_non_null(f);
    fputs("1,k1,get\n", f);
    fclose(f);
    struct scenario *ok = load_ok(text);
    scenario_destroy(ok);
    unlink(bare);
    expect_error("workload:\n  trace: {path: /nonexistent/t.bin}\n" NODES,
                 "x.yaml:2:17: workload.trace.path: cannot read the trace \"/nonexistent/t.bin\": "
                 "No such file or directory");
    expect_error("workload:\n  trace: {path: /tmp}\n" NODES,
                 "x.yaml:2:17: workload.trace.path: the trace \"/tmp\" is not a regular file "
                 "(a directory)");
    snprintf(text, sizeof text, "workload:\n  trace: {path: %s, format: binary}\n" NODES, odd);
    snprintf(want, sizeof want, "x.yaml:2:%zu: workload.trace.format: expected one of: "
             "oracle_general, csv, got \"binary\"",
             strlen("  trace: {path: ") + strlen(odd) + strlen(", format: ") + 1);
    expect_error(text, want);
    unlink(odd);
    unlink(empty);
}

/* ---- --set ------------------------------------------------------------- */

static void test_set_scalars(void **state)
{
    (void)state;
    static const char *const sets[] = {"seed=42", "routing.vnodes=512", "health.cooldown=60s",
                                       "nodes.1.weight=2", "workload.hot_keys.0.share=0.5",
                                       "description=hello world", NULL};
    struct scenario *s = load_ok_sets(
        "workload: {hot_keys: [{key: a, share: 0.1}]}\nrouting: {vnodes: 10}\n" NODES, sets);
    assert_int_equal(s->seed, 42);
    assert_int_equal(s->routing.vnodes, 512);
    assert_int_equal(s->health.cooldown_ns, 60 * NS_PER_S);
    assert_true(s->nodes[1].weight == 2);
    assert_true(s->nodes[0].weight == 1);
    assert_true(s->workload.hot_keys[0].share == 0.5);
    assert_string_equal(s->description, "hello world");
    assert_int_equal(s->n_overrides, 6);
    assert_string_equal(s->overrides[1].path, "routing.vnodes");
    assert_string_equal(s->overrides[1].value, "512");
    assert_string_equal(s->overrides[1].arg, "routing.vnodes=512");
    scenario_destroy(s);
}

static void test_set_events(void **state)
{
    (void)state;
    /* moving an event in time re-sorts the events */
    static const char *const sets[] = {"events.0.at=90s", "events.1.slow_node.latency=5ms",
                                       NULL};
    struct scenario *s = load_ok_sets(
        "duration: 2m\n" NODES "events:\n  - {at: 10s, set_qps: 1}\n"
        "  - {at: 20s, slow_node: {id: A, factor: 2}}\n", sets);
    assert_int_equal(s->events[0].kind, EV_SLOW_NODE);
    assert_int_equal(s->events[0].latency_ns, 5 * NS_PER_MS);
    assert_true(s->events[0].factor == 2);
    assert_int_equal(s->events[1].kind, EV_SET_QPS);
    assert_int_equal(s->events[1].at_ns, 90 * NS_PER_S);
    scenario_destroy(s);
}

static void test_set_creates(void **state)
{
    (void)state;
    /* keys and whole sections absent from the file */
    static const char *const sets[] = {"health.cooldown=60s", "cache.workers=8",
                                       "nodes.0.rtt=1ms", "name=renamed", NULL};
    struct scenario *s = load_ok_sets("nodes:\n  - id: A\n", sets);
    assert_int_equal(s->health.cooldown_ns, 60 * NS_PER_S);
    assert_int_equal(s->health.mode, HEALTH_CLIENT);
    assert_int_equal(s->cache.workers, 8);
    assert_int_equal(s->nodes[0].cache.workers, 8);
    assert_int_equal(s->nodes[0].cache.rtt_ns, NS_PER_MS);
    assert_string_equal(s->name, "renamed");
    scenario_destroy(s);

    /* into a section written as null */
    static const char *const sets2[] = {"cache.workers=3", NULL};
    s = load_ok_sets("cache:\n" NODES, sets2);
    assert_int_equal(s->cache.workers, 3);
    scenario_destroy(s);
}

static void test_set_capacity(void **state)
{
    (void)state;
    /* --set of one capacity key replaces the other one given by the file */
    static const char *const items[] = {"cache.capacity_items=1000", NULL};
    struct scenario *s = load_ok_sets("cache: {capacity: 1GiB}\n" NODES, items);
    assert_int_equal(s->cache.capacity_items, 1000);
    assert_int_equal(s->cache.capacity_bytes, 0);
    scenario_destroy(s);
    static const char *const bytes[] = {"nodes.0.capacity=1MiB", NULL};
    s = load_ok_sets("nodes: [{id: A, capacity_items: 5}]\n", bytes);
    assert_int_equal(s->nodes[0].cache.capacity_bytes, 1 << 20);
    assert_int_equal(s->nodes[0].cache.capacity_items, 0);
    scenario_destroy(s);
    /* both from --set: reported against the arguments, never at a line of
     * the file's value they replaced (nor at a "line 0") */
    expect_error_sets(NODES, (const char *const[]){"cache.capacity=1MB", "cache.capacity_items=5", NULL},
                      "--set cache.capacity_items=5: cache.capacity_items: give capacity or "
                      "capacity_items, not both (capacity is given by --set cache.capacity=1MB)");
    expect_error_sets("nodes: [{id: A, capacity_items: 100}]\n",
                      (const char *const[]){"nodes.0.capacity=1MB", "nodes.0.capacity_items=5", NULL},
                      "--set nodes.0.capacity_items=5: nodes.0.capacity_items: give capacity or "
                      "capacity_items, not both (capacity is given by --set nodes.0.capacity=1MB)");
}

static void test_number_out_of_range(void **state)
{
    (void)state;
    /* a number of the right form but past a double: the range it meets is
     * not the reason, so the message says what is */
    expect_error("workload: {qps: 1e999}\n" NODES,
                 "x.yaml:1:17: workload.qps: expected a number > 0 (this one is larger than a "
                 "double can hold), got \"1e999\"");
    expect_error("workload: {write_ratio: 1e-400}\n" NODES,
                 "x.yaml:1:25: workload.write_ratio: expected a number from 0 to 1 (this one is "
                 "closer to 0 than a double can hold), got \"1e-400\"");
}

static void test_set_seed(void **state)
{
    (void)state;
    /* --seed N is the override seed=N (the command line builds it) */
    static const char *const sets[] = {"seed=7", NULL};
    struct scenario *s = load_ok_sets("seed: 3\n" NODES, sets);
    assert_int_equal(s->seed, 7);
    scenario_destroy(s);
}

static void test_set_errors(void **state)
{
    (void)state;
    const char *text = "routing: {vnodes: 10}\n" NODES "events: [{at: 1s, set_qps: 5}]\n";
#define SETS(...) ((const char *const[]){__VA_ARGS__, NULL})
    expect_error_sets(text, SETS("routing.vnodes=many"),
                      "--set routing.vnodes=many: routing.vnodes: expected a positive integer, "
                      "got \"many\"");
    expect_error_sets(text, SETS("routing.vnode=1"),
                      "--set routing.vnode=1: routing.vnode: unknown key (expected one of: "
                      "algorithm, hash, vnodes, point_format, node_key, load_factor, bounded_rule, "
                      "table_size, fencing, fence_delay, replicas, read_from); did you mean vnodes?");
    expect_error_sets(text, SETS("routng.vnodes=1"),
                      "--set routng.vnodes=1: routng: unknown key (expected one of: name, "
                      "description, seed, duration, tick, warmup, workload, routing, nodes, "
                      "cache, database, clients, health, network, output, events); did you mean "
                      "routing?");
    expect_error_sets(text, SETS("nodes.3.weight=2"),
                      "--set nodes.3.weight=2: nodes.3: no such entry (entries are numbered 0 "
                      "to 2)");
    expect_error_sets(text, SETS("nodes.x.weight=2"),
                      "--set nodes.x.weight=2: nodes.x: no such entry (entries are numbered 0 "
                      "to 2)");
    expect_error_sets(NODES, SETS("events.0.at=90s"),
                      "--set events.0.at=90s: events.0: no such entry (events has no entries)");
    expect_error_sets(NODES "events: []\n", SETS("events.0.at=90s"),
                      "--set events.0.at=90s: events.0: no such entry (the sequence is empty)");
    expect_error_sets(NODES "events:\n", SETS("events.0.at=90s"),
                      "--set events.0.at=90s: events.0: no such entry (the sequence is empty)");
    expect_error_sets(text, SETS("routing=ring"),
                      "--set routing=ring: routing: --set changes single values, but this is a "
                      "mapping; set one of its keys instead (such as routing.KEY=VALUE)");
    expect_error_sets(text, SETS("nodes=A"),
                      "--set nodes=A: nodes: --set changes single values, but this is a "
                      "sequence; set one entry instead (such as nodes.0=VALUE or "
                      "nodes.0.KEY=VALUE)");
    expect_error_sets(text, SETS("routing.vnodes.x=1"),
                      "--set routing.vnodes.x=1: routing.vnodes: has a single value (\"10\"), so "
                      "it has no key x");
    expect_error_sets(text, SETS("events.0.set_qps=0"),
                      "--set events.0.set_qps=0: events.0.set_qps: expected a number > 0, "
                      "got \"0\"");
    expect_error_sets(text, SETS("duration=500ms"),
                      "--set duration=500ms: tick: expected a tick > 0 and <= duration (500ms), "
                      "got \"1s\" (the default)");
    /* an --set value is checked like the file's, and its errors come first */
    static const char *const want[] = {
        "--set seed=x: seed: expected a non-negative integer, got \"x\"",
        "--set tick=0s: tick: expected a duration > 0 and <= 300000h, got \"0s\"",
        "x.yaml:1:1: nodes: required key is missing", NULL};
    struct diag d;
    struct scenario *s = load_sets("name: a\n", &d, SETS("seed=x", "tick=0s"));
    assert_null(s);
    assert_int_equal(d.n, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(d.msgs[i], want[i]);
    diag_deinit(&d);
#undef SETS
}

static void test_override_parse(void **state)
{
    (void)state;
    struct override o;
    struct diag d;
    diag_init(&d);
    assert_int_equal(override_parse("a.b=c=d", &o, &d), 0);
    assert_string_equal(o.path, "a.b");
    assert_string_equal(o.value, "c=d");
    assert_string_equal(o.arg, "a.b=c=d");
    override_deinit(&o);
    assert_int_equal(override_parse("description=", &o, &d), 0);
    assert_string_equal(o.value, "");
    override_deinit(&o);
    static const char *const bad[] = {"novalue", "=5", ".a=1", "a.=1", "a..b=1", "a b=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(override_parse(bad[i], &o, &d), -1);
    assert_int_equal(override_parse("name=\xc3\x28", &o, &d), -1);
    assert_int_equal(d.n, 7);
    assert_string_equal(d.msgs[0], "--set novalue: expected PATH=VALUE, such as "
                                   "routing.vnodes=160");
    assert_string_equal(d.msgs[2], "--set .a=1: expected a dotted path of keys and indices, "
                                   "such as nodes.1.weight, before '='");
    assert_string_equal(d.msgs[6], "--set name=\xc3\x28: the value is not valid UTF-8");
    diag_deinit(&d);
}

/* ---- effective YAML ------------------------------------------------------- */

static void assert_cache_equal(const struct cache_cfg *a, const struct cache_cfg *b)
{
    assert_int_equal(a->capacity_bytes, b->capacity_bytes);
    assert_int_equal(a->capacity_items, b->capacity_items);
    assert_int_equal(a->service_ns, b->service_ns);
    assert_int_equal(a->service_dist, b->service_dist);
    assert_int_equal(a->workers, b->workers);
    assert_int_equal(a->max_queue, b->max_queue);
    assert_int_equal(a->rtt_ns, b->rtt_ns);
    assert_int_equal(a->prewarm, b->prewarm);
}

static void assert_str_eq_or_null(const char *a, const char *b)
{
    if (!a || !b)
        assert_true(a == b);
    else
        assert_string_equal(a, b);
}

/* Every field a run reads; positions, path and overrides aside. */
static void assert_scenario_equal(const struct scenario *a, const struct scenario *b)
{
    assert_string_equal(a->name, b->name);
    assert_string_equal(a->description, b->description);
    assert_true(a->seed == b->seed);
    assert_int_equal(a->duration_ns, b->duration_ns);
    assert_int_equal(a->tick_ns, b->tick_ns);
    assert_int_equal(a->warmup_ns, b->warmup_ns);
    const struct workload_cfg *w = &a->workload, *x = &b->workload;
    assert_int_equal(w->keys, x->keys);
    assert_string_equal(w->key_format, x->key_format);
    assert_int_equal(w->popularity, x->popularity);
    assert_true(w->zipf_s == x->zipf_s);
    assert_true(w->qps == x->qps);
    assert_true(w->write_ratio == x->write_ratio);
    assert_int_equal(w->value_bytes, x->value_bytes);
    assert_int_equal(w->ttl_ns, x->ttl_ns);
    assert_int_equal(w->n_hot_keys, x->n_hot_keys);
    for (size_t i = 0; i < w->n_hot_keys; i++) {
        assert_string_equal(w->hot_keys[i].key, x->hot_keys[i].key);
        assert_true(w->hot_keys[i].share == x->hot_keys[i].share);
    }
    assert_str_eq_or_null(w->trace.path, x->trace.path);
    assert_int_equal(w->trace.format, x->trace.format);
    assert_true(w->trace.time_scale == x->trace.time_scale);
    assert_true(w->diurnal.amplitude == x->diurnal.amplitude);
    if (w->diurnal.amplitude > 0) {
        assert_int_equal(w->diurnal.period_ns, x->diurnal.period_ns);
        assert_int_equal(w->diurnal.peak_at_ns, x->diurnal.peak_at_ns);
    }
    assert_int_equal(a->routing.algorithm, b->routing.algorithm);
    assert_int_equal(a->routing.hash, b->routing.hash);
    assert_int_equal(a->routing.vnodes, b->routing.vnodes);
    assert_string_equal(a->routing.point_format, b->routing.point_format);
    assert_int_equal(a->routing.node_key_address, b->routing.node_key_address);
    assert_true(a->routing.load_factor == b->routing.load_factor);
    assert_int_equal(a->routing.table_size, b->routing.table_size);
    assert_int_equal(a->n_nodes, b->n_nodes);
    for (size_t i = 0; i < a->n_nodes; i++) {
        assert_string_equal(a->nodes[i].id, b->nodes[i].id);
        assert_string_equal(a->nodes[i].address, b->nodes[i].address);
        assert_true(a->nodes[i].weight == b->nodes[i].weight);
        assert_cache_equal(&a->nodes[i].cache, &b->nodes[i].cache);
    }
    assert_cache_equal(&a->cache, &b->cache);
    assert_memory_equal(&a->database, &b->database, sizeof(a->database));
    assert_memory_equal(&a->clients, &b->clients, sizeof(a->clients));
    assert_memory_equal(&a->health, &b->health, sizeof(a->health));
    assert_int_equal(a->n_events, b->n_events);
    for (size_t i = 0; i < a->n_events; i++) {
        const struct event_cfg *e = &a->events[i], *f = &b->events[i];
        assert_int_equal(e->at_ns, f->at_ns);
        assert_int_equal(e->kind, f->kind);
        assert_str_eq_or_null(e->node, f->node);
        assert_str_eq_or_null(e->address, f->address);
        assert_str_eq_or_null(e->key, f->key);
        assert_true(e->weight == f->weight);
        assert_true(e->factor == f->factor);
        assert_int_equal(e->latency_ns, f->latency_ns);
        assert_int_equal(e->for_ns, f->for_ns);
        assert_true(e->qps == f->qps);
        assert_int_equal(e->over_ns, f->over_ns);
        assert_true(e->share == f->share);
        assert_int_equal(e->n_instances, f->n_instances);
        for (size_t j = 0; j < e->n_instances; j++)
            assert_int_equal(e->instances[j], f->instances[j]);
        if (e->kind == EV_ADD_NODE)
            assert_cache_equal(&e->cache, &f->cache);
        assert_int_equal(e->has_take_slots, f->has_take_slots);
        assert_int_equal(e->take_slots, f->take_slots);
        assert_str_eq_or_null(e->migrate.to, f->migrate.to);
        assert_memory_equal(&e->migrate.slots, &f->migrate.slots, sizeof(e->migrate.slots));
        assert_true(e->migrate.rate == f->migrate.rate);
    }
}

/* load(effective_yaml(s)) is s, and its effective YAML is the same text. */
static void check_round_trip(struct scenario *s)
{
    struct diag d;
    diag_init(&d);
    struct scenario *r = scenario_load_string("replay.yaml", s->effective_yaml,
                                              strlen(s->effective_yaml), NULL, 0, &d);
    if (!r) {
        fprintf(stderr, "%s", s->effective_yaml);
        diag_print(&d, stderr);
    }
    assert_non_null(r);
    assert_scenario_equal(s, r);
    assert_string_equal(s->effective_yaml, r->effective_yaml);
    scenario_destroy(r);
    diag_deinit(&d);
}

static void test_round_trip_files(void **state)
{
    (void)state;
    static const char *const files[] = {"tests/data/minimal.yaml", "tests/data/full.yaml",
                                        "tests/data/events.yaml"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        struct diag d;
        diag_init(&d);
        struct scenario *s = scenario_load(files[i], NULL, 0, &d);
        assert_non_null(s);
        check_round_trip(s);
        scenario_destroy(s);
        diag_deinit(&d);
    }
}

static void test_round_trip_with_sets(void **state)
{
    (void)state;
    static const char *const sets[] = {
        "nodes.1.weight=2.5", "events.0.at=90s", "health.cooldown=1.5s", "seed=99",
        "workload.qps=12345.678", "cache.capacity=1000000", "nodes.2.capacity=3KiB",
        "description=  leading spaces: and # a hash", "workload.key_format=%%k%x", NULL};
    struct diag d;
    diag_init(&d);
    struct override o[16];
    size_t n = 0;
    for (; sets[n]; n++)
        assert_int_equal(override_parse(sets[n], &o[n], &d), 0);
    struct scenario *s = scenario_load("tests/data/full.yaml", o, n, &d);
    if (!s)
        diag_print(&d, stderr);
    assert_non_null(s);
    assert_true(s->nodes[1].weight == 2.5);
    assert_int_equal(s->nodes[2].cache.capacity_bytes, 3072);
    assert_int_equal(s->events[0].kind, EV_ADD_NODE);
    assert_int_equal(s->events[0].at_ns, 90 * NS_PER_S);
    check_round_trip(s);
    scenario_destroy(s);
    for (size_t i = 0; i < n; i++)
        override_deinit(&o[i]);
    diag_deinit(&d);
}

static void test_round_trip_odd_values(void **state)
{
    (void)state;
    struct scenario *s = load_ok(
        "name: \"yes\"\n"
        "description: \"tab\\there, newline\\nthere, quote \\\" and unicode \\u00e9\\u2028\"\n"
        "seed: 1234567890123456789\n"
        "duration: 1h\ntick: 1000001ns\nwarmup: 1ns\n"
        "workload: {qps: 0.1, zipf_s: 1e-9, write_ratio: 0.3333333333333333, "
        "value_bytes: 1000001, hot_keys: [{key: \"~\", share: 1e-3}, {key: \"#x\", share: "
        "0.999}]}\n"
        "routing: {point_format: \"%%%s:%5d\", load_factor: 1.0000001}\n"
        "clients: {backfill_qps: 123456789012}\n"
        "nodes: [{id: \"null\", address: \"\"}, {id: \"1e3\", address: \"- a\"}, {id: '[x]', "
        "address: ': x'}]\n"
        "events:\n"
        "  - {at: 30m, split_brain: {instances: [3, 0, 2], for: 1ns}}\n"
        "  - {at: 30m, hot_key: {key: \"~\", share: 0.001, for: 10m}}\n"
        "  - {at: 1h, add_node: {id: \"x:y\", service_time: 3us, max_queue: 7}}\n");
    assert_string_equal(s->nodes[0].id, "null");
    assert_int_equal(s->events[0].n_instances, 3);
    check_round_trip(s);
    scenario_destroy(s);
}

/* ---- slot migrations ------------------------------------------------------ */

#define SLOTS3 "routing: {algorithm: slots}\nnodes: [{id: A}, {id: B}, {id: C}]\n"

/* migrate_slots and add_node take_slots: what loads, its values, and the
 * effective YAML (take_slots only where given, slots: N or [first, last]). */
static void test_migrate_slots_values(void **state)
{
    (void)state;
    struct scenario *s = load_ok(
        SLOTS3 "events:\n"
        "  - {at: 10s, add_node: {id: D, take_slots: false}}\n"
        "  - {at: 10s, migrate_slots: {from: A, to: D, slots: 1365, rate: 2000}}\n"
        "  - {at: 20s, migrate_slots: {from: B, to: D, slots: [5461, 5470], rate: 1.5}}\n"
        "  - {at: 30s, add_node: {id: E}}\n"
        "  - {at: 40s, add_node: {id: F, take_slots: true}}\n");
    const struct event_cfg *e = s->events;
    assert_true(e[0].has_take_slots && !e[0].take_slots);
    assert_int_equal(e[1].kind, EV_MIGRATE_SLOTS);
    assert_string_equal(e[1].node, "A");
    assert_string_equal(e[1].migrate.to, "D");
    assert_int_equal(e[1].migrate.slots.count, 1365);
    assert_true(e[1].migrate.rate == 2000);
    assert_int_equal(e[2].migrate.slots.count, 0);
    assert_int_equal(e[2].migrate.slots.first, 5461);
    assert_int_equal(e[2].migrate.slots.last, 5470);
    assert_false(e[3].has_take_slots);
    assert_true(e[4].has_take_slots && e[4].take_slots);
    assert_non_null(strstr(s->effective_yaml, "    take_slots: false\n"));
    assert_non_null(strstr(s->effective_yaml, "    slots: 1365\n"));
    assert_non_null(strstr(s->effective_yaml, "    slots: [5461, 5470]\n"));
    assert_non_null(strstr(s->effective_yaml, "    take_slots: true\n"));
    assert_null(strstr(strstr(s->effective_yaml, "id: E"), "take_slots: false"));
    check_round_trip(s);
    scenario_destroy(s);
    /* --set on the count, and on a range's ends */
    const char *const sets[] = {"events.1.migrate_slots.slots=5",
                                "events.2.migrate_slots.slots.1=5461", NULL};
    s = load_ok_sets(SLOTS3 "events:\n"
                     "  - {at: 10s, add_node: {id: D, take_slots: false}}\n"
                     "  - {at: 10s, migrate_slots: {from: A, to: D, slots: 1365, rate: 2000}}\n"
                     "  - {at: 20s, migrate_slots: {from: B, to: D, slots: [5461, 5470], "
                     "rate: 1}}\n",
                     sets);
    assert_int_equal(s->events[1].migrate.slots.count, 5);
    assert_int_equal(s->events[2].migrate.slots.last, 5461);
    scenario_destroy(s);
}

static void test_migrate_slots_errors(void **state)
{
    (void)state;
    const char *mig =
        "events:\n  - {at: 10s, migrate_slots: {from: A, to: B, slots: %s, rate: 10}}\n";
    /* ([5, 3], [0, 16384] and [a, 3] have messages of their own: below) */
    const char *bad[] = {"0", "16385", "-1", "\"12\"", "[1, 2, 3]", "{first: 1}"};
    const char *got[] = {"\"0\"", "\"16385\"", "\"-1\"", "\"12\"", "a sequence", "a mapping"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char text[512], want[512];
        snprintf(text, sizeof text, "%s", SLOTS3);
        snprintf(text + strlen(text), sizeof text - strlen(text), mig, bad[i]);
        snprintf(want, sizeof want, "x.yaml:4:54: events.0.migrate_slots.slots: expected a number "
                 "of slots from 1 to 16384, or [first, last] with 0 <= first <= last <= 16383%s, "
                 "got %s", i == 3 ? " without quotes" : "", got[i]);
        expect_error(text, want);
    }
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: [a, 3], "
                 "rate: 1}}]\n",
                 "x.yaml:3:58: events.0.migrate_slots.slots: expected [first, last] of two slot "
                 "numbers, integers from 0 to 16383, got a sequence");
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: 1}}]\n",
                 "x.yaml:3:34: events.0.migrate_slots.rate: required key is missing");
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: 1, rate: 0}}]\n",
                 "x.yaml:3:67: events.0.migrate_slots.rate: expected a number > 0 and <= "
                 "1000000000, got \"0\"");
    /* the algorithm, at that time */
    expect_error(NODES "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: 1, rate: 1}}]\n",
                 "x.yaml:2:34: events.0.migrate_slots: migrate_slots moves the slots of "
                 "routing.algorithm slots, and the routing is ring at 1s; use routing.algorithm: "
                 "slots");
    expect_error(SLOTS3 "events:\n  - {at: 5s, set_routing: {algorithm: ring}}\n"
                 "  - {at: 6s, migrate_slots: {from: A, to: B, slots: 1, rate: 1}}\n",
                 "x.yaml:5:29: events.1.migrate_slots: migrate_slots moves the slots of "
                 "routing.algorithm slots, and the routing is ring at 6s; use routing.algorithm: "
                 "slots");
    /* a rejected algorithm or routing value: its own message, no other
     * (once a migration was judged against the first algorithm of the list,
     * and a vnodes of 0 was reported twice) */
    {
        const char *bad_algo[] = {
            "x.yaml:4:39: events.0.set_routing.algorithm: expected one of: mod, ring, ketama, "
            "jump, rendezvous, maglev, bounded, slots, got \"magic\"", NULL};
        expect_errors(SLOTS3 "events:\n  - {at: 5s, set_routing: {algorithm: magic}}\n"
                      "  - {at: 6s, migrate_slots: {from: A, to: B, slots: 1, rate: 1}}\n"
                      "  - {at: 7s, set_vnodes: {id: A, vnodes: 5}}\n",
                      bad_algo);
        const char *bad_top[] = {
            "x.yaml:1:22: routing.algorithm: expected one of: mod, ring, ketama, jump, "
            "rendezvous, maglev, bounded, slots, got \"slot\"", NULL};
        expect_errors("routing: {algorithm: slot}\n" NODES
                      "events: [{at: 6s, migrate_slots: {from: A, to: B, slots: 1, rate: 1}}]\n",
                      bad_top);
        const char *bad_vnodes[] = {
            "x.yaml:3:37: events.0.set_routing.vnodes: expected an integer from 1 to 1000000, "
            "got \"0\"", NULL};
        expect_errors(NODES "events:\n  - {at: 10s, set_routing: {vnodes: 0}}\n", bad_vnodes);
    }
    /* a migration to its own source: where it was written; by a --set, there */
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: A, slots: 1, rate: 1}}]\n",
                 "x.yaml:3:48: events.0.migrate_slots.to: the target must be another node than "
                 "the source (A)");
    expect_error_sets(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: 1, "
                      "rate: 1}}]\n",
                      (const char *const[]){"events.0.migrate_slots.from=B", NULL},
                      "--set events.0.migrate_slots.from=B: events.0.migrate_slots.from: the "
                      "target must be another node than the source (B)");
    /* its nodes, at that time (after the membership changes of its instant) */
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: X, to: B, slots: 1, rate: 1}}]\n",
                 "x.yaml:3:41: events.0.migrate_slots.from: node \"X\" is not in the cluster "
                 "at 1s");
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: D, slots: 1, rate: 1}}]\n",
                 "x.yaml:3:48: events.0.migrate_slots.to: node \"D\" is not in the cluster at 1s");
    expect_error(SLOTS3 "events:\n"
                 "  - {at: 1s, migrate_slots: {from: A, to: C, slots: 1, rate: 1}}\n"
                 "  - {at: 1s, remove_node: {id: C}}\n",
                 "x.yaml:4:43: events.0.migrate_slots.to: node \"C\" is not in the cluster at 1s");
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: A, slots: 1, rate: 1}}]\n",
                 "x.yaml:3:48: events.0.migrate_slots.to: the target must be another node than "
                 "the source (A)");
    /* its slots, the source's at that time */
    expect_error(SLOTS3
                 "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: 5462, rate: 1}}]\n",
                 "x.yaml:3:58: events.0.migrate_slots.slots: node A owns 5461 slots at 1s, fewer "
                 "than the 5462 asked for");
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: [5000, 5461], "
                 "rate: 1}}]\n",
                 "x.yaml:3:58: events.0.migrate_slots.slots: slot 5461 is node B's at 1s, not A's: "
                 "a migration moves slots its source owns");
    /* a range written backwards or past the last slot says which */
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: [900, 100], "
                 "rate: 1}}]\n",
                 "x.yaml:3:58: events.0.migrate_slots.slots: expected [first, last] with first "
                 "<= last (here 900 > 100: write [100, 900]), got a sequence");
    expect_error(SLOTS3 "events: [{at: 1s, migrate_slots: {from: A, to: B, slots: [100, 16384], "
                 "rate: 1}}]\n",
                 "x.yaml:3:58: events.0.migrate_slots.slots: expected [first, last] of two slot "
                 "numbers, integers from 0 to 16383, got a sequence");
    /* after an earlier migration: the slots are the target's, not the source's */
    expect_error(SLOTS3 "events:\n"
                 "  - {at: 1s, migrate_slots: {from: A, to: B, slots: 10, rate: 1}}\n"
                 "  - {at: 2s, migrate_slots: {from: A, to: C, slots: [5, 5], rate: 1}}\n",
                 "x.yaml:5:53: events.1.migrate_slots.slots: slot 5 is node B's at 2s, not A's: "
                 "a migration moves slots its source owns");
    struct scenario *s = load_ok(
        SLOTS3 "events:\n  - {at: 1s, migrate_slots: {from: A, to: B, slots: 10, rate: 1}}\n"
        "  - {at: 2s, migrate_slots: {from: B, to: C, slots: [5, 9], rate: 1}}\n");
    scenario_destroy(s);
    /* a node joining with take_slots: false holds none; one joining normally takes its share */
    expect_error(SLOTS3 "events:\n  - {at: 1s, add_node: {id: D, take_slots: false}}\n"
                 "  - {at: 2s, migrate_slots: {from: D, to: A, slots: 1, rate: 1}}\n",
                 "x.yaml:5:53: events.1.migrate_slots.slots: node D owns 0 slots at 2s, fewer "
                 "than the 1 asked for");
    s = load_ok(SLOTS3 "events:\n  - {at: 1s, add_node: {id: D}}\n"
                "  - {at: 2s, migrate_slots: {from: D, to: A, slots: 4096, rate: 1}}\n");
    scenario_destroy(s);
    /* take_slots: false is for slots, and not with warm */
    expect_error(NODES "events: [{at: 1s, add_node: {id: D, take_slots: false}}]\n",
                 "x.yaml:2:49: events.0.add_node.take_slots: take_slots: false is for "
                 "routing.algorithm slots (a node that joins holding no slot), and the routing is "
                 "ring at 1s; remove it");
    expect_error(SLOTS3
                 "events: [{at: 1s, add_node: {id: D, take_slots: false, warm: {rate: 1}}}]\n",
                 "x.yaml:3:49: events.0.add_node.take_slots: a node that joins holding no slot "
                 "has nothing to warm; remove warm or take_slots: false");
    s = load_ok(NODES "events: [{at: 1s, add_node: {id: D, take_slots: true}}]\n");
    scenario_destroy(s);
}

/* ---- the schema reference ------------------------------------------------ */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct strbuf sb;
    char buf[4096];
    size_t n;
    sb_init(&sb);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&sb, buf, n);
    fclose(f);
    return sb_steal(&sb);
}

static void test_readme_has_schema(void **state)
{
    (void)state;
    static const char begin[] = "<!-- schema:begin -->\n", end[] = "<!-- schema:end -->";
    char *gen = NULL;
    size_t gen_len = 0;
    FILE *f = open_memstream(&gen, &gen_len);
    assert_non_null(f);
    scenario_schema_markdown(f);
    fclose(f);

    char *readme = read_all("scenarios/README.md");
    assert_non_null(readme);
    char *b = strstr(readme, begin), *e = b ? strstr(b, end) : NULL;
    assert_non_null(b);
    assert_non_null(e);
    b += strlen(begin);
    bool same = (size_t)(e - b) == gen_len && !memcmp(b, gen, gen_len);
    if (!same)
        fprintf(stderr, "scenarios/README.md is out of date: regenerate the part between the "
                        "schema markers: run make docs\n");
    assert_true(same);
    /* every key of the schema is documented */
    static const char *const keys[] = {"`capacity_items`", "`table_size`", "`gutter_ttl`",
                                       "`fallback_to_previous_owner`", "`set_qps`",
                                       "`events.N.split_brain`", "`workload.hot_keys.N`"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        assert_non_null(strstr(gen, keys[i]));
    free(readme);
    free(gen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_set_qps_ramp),
        cmocka_unit_test(test_diurnal_and_shift),
        cmocka_unit_test(test_zero_latencies),
        cmocka_unit_test(test_trace_keys),
        cmocka_unit_test(test_trace_files),
        cmocka_unit_test(test_name_from_file),
        cmocka_unit_test(test_full_example),
        cmocka_unit_test(test_place_params_and_names),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_strings_and_enums),
        cmocka_unit_test(test_string_bounds),
        cmocka_unit_test(test_null_sections),
        cmocka_unit_test(test_null_strings),
        cmocka_unit_test(test_key_formats),
        cmocka_unit_test(test_error_type_and_range),
        cmocka_unit_test(test_error_units),
        cmocka_unit_test(test_duration_bound),
        cmocka_unit_test(test_error_quoted_numbers),
        cmocka_unit_test(test_error_collections),
        cmocka_unit_test(test_error_keys),
        cmocka_unit_test(test_error_too_large),
        cmocka_unit_test(test_error_yaml),
        cmocka_unit_test(test_all_errors_sorted),
        cmocka_unit_test(test_error_limit),
        cmocka_unit_test(test_many_keys_linear),
        cmocka_unit_test(test_indexed_mappings),
        cmocka_unit_test(test_error_files),
        cmocka_unit_test(test_error_cross_fields),
        cmocka_unit_test(test_error_placement_over_time),
        cmocka_unit_test(test_error_long_values),
        cmocka_unit_test(test_error_nodes),
        cmocka_unit_test(test_node_cache_overrides),
        cmocka_unit_test(test_add_node_prewarm_refused),
        cmocka_unit_test(test_events_sorted_stable),
        cmocka_unit_test(test_events_membership),
        cmocka_unit_test(test_events_entries),
        cmocka_unit_test(test_events_hot_keys),
        cmocka_unit_test(test_set_scalars),
        cmocka_unit_test(test_set_events),
        cmocka_unit_test(test_set_creates),
        cmocka_unit_test(test_set_capacity),
        cmocka_unit_test(test_number_out_of_range),
        cmocka_unit_test(test_set_seed),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_override_parse),
        cmocka_unit_test(test_round_trip_files),
        cmocka_unit_test(test_round_trip_with_sets),
        cmocka_unit_test(test_round_trip_odd_values),
        cmocka_unit_test(test_migrate_slots_values),
        cmocka_unit_test(test_migrate_slots_errors),
        cmocka_unit_test(test_readme_has_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
