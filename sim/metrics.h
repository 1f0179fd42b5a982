/*
 * metrics.h — every recorded metric, declared once.
 *
 * Each X-macro list below generates the row struct the run fills, the
 * SQLite columns (output/results.c) and the metric reference in
 * output/README.md (`ringsim run --metrics` prints it). Types:
 *   I  an integer count or gauge      (SQLite INTEGER)
 *   R  a real number; NaN is NULL     (SQLite REAL)
 *   T  text                           (SQLite TEXT)
 * Counts are per tick unless said otherwise; times in the tick row refer to
 * the tick [t_s, t_s + tick).
 */
#ifndef RINGSIM_METRICS_H
#define RINGSIM_METRICS_H

#include <stdint.h>

/* Recovery (summary.recovery_s): the hit rate is back when it stays within
 * RECOVERY_TOLERANCE of the baseline for RECOVERY_TICKS ticks in a row. */
#define RECOVERY_TICKS 10
#define RECOVERY_TOLERANCE 0.01
#define METRIC_STR_(x) #x
#define METRIC_STR(x) METRIC_STR_(x)

/*       name              type  meaning */
#define TICK_FIELDS(X) \
    X(requests,         I, "client operations (reads and writes) started in the tick") \
    X(hits,             I, "reads answered from cache (counted when the node serves them)") \
    X(misses,           I, "reads that finished without a hit: cache misses, timeouts, error replies (cache_errors), reads with no node to ask") \
    X(hit_rate,         R, "hits / (hits + misses); NULL when no read finished") \
    X(db_reads,         I, "database reads completed") \
    X(db_writes,        I, "database writes committed") \
    X(backend_qps,      R, "(db_reads + db_writes) per second of the tick") \
    X(db_util,          R, "share of database worker time busy in the tick (0..1)") \
    X(db_mean_ms,       R, "mean database latency (queue + service) of operations completed in the tick") \
    X(db_p99_ms,        R, "99th percentile of the same") \
    X(client_p99_ms,    R, "99th percentile latency of client operations finished in the tick (failed ones, errors, left out)") \
    X(timeouts,         I, "cache requests that timed out at the client") \
    X(errors,           I, "client operations that failed, each counted once: reads that got no value (on_timeout: error after a timeout or an error reply; the database refused; no backfill token) and writes the database refused") \
    X(stale_reads,      I, "hits that returned a version older than the database's") \
    X(stale_overwrites, I, "cache sets that installed a version older than the database's") \
    X(ejected,          I, "nodes ejected at the tick's end (by at least one client instance, or centrally)") \
    X(epoch_min,        I, "oldest ring epoch held by a client instance at the tick's end") \
    X(epoch_max,        I, "newest ring epoch held by a client instance at the tick's end") \
    X(reads,            I, "reads started in the tick") \
    X(writes,           I, "writes started in the tick") \
    X(clobbers,         I, "stale overwrites that replaced a newer cached version") \
    X(db_demand,        R, "offered database load: service time of the operations that arrived, over worker time (>1: past capacity)") \
    X(db_rejects,       I, "database operations refused because its queue was full") \
    X(views,            I, "distinct ring views held by client instances at the tick's end") \
    X(client_mean_ms,   R, "mean latency of client operations finished in the tick (failed ones, errors, left out)") \
    X(cache_errors,     I, "GETs answered with an error reply because the node's queue was full (the read then goes on per on_timeout)") \
    X(fallback_reads,   I, "reads answered by the key's previous owner after a miss at its new one (clients.fallback_to_previous_owner)") \
    X(redirects,        I, "operations a node answered MOVED or passed on to the key's owner (routing.fencing; and the MOVED for a slot the node handed over by migrate_slots)") \
    X(warm_copies,      I, "keys copied to their next owner by a staged join or drain (add_node warm, remove_node drain)") \
    X(warm_db_reads,    I, "database reads made by a staged join warming from the database (warm.source: db)") \
    X(ask_redirects,    I, "operations a slot's source answered ASK (migrate_slots: the key is not there, the slot is being migrated); the client asks the target with ASKING, one more round trip") \
    X(moved_redirects,  I, "operations a node answered MOVED: a key of a slot it handed over by migrate_slots (the client adopts the newer epoch), or routing.fencing: reject") \
    X(migrated_keys,    I, "keys moved from a slot's source to its target by migrate_slots") \
    X(local_hits,       I, "reads answered by the client instance's own local cache (clients.local_cache; also in hits)") \
    X(local_stale_reads, I, "of those, reads that returned a version older than the database's (also in stale_reads)") \
    X(bounded_reroutes, I, "GETs a bounded-load ring sent past the key's owner because the owner was full (routing.algorithm: bounded, per routing.bounded_rule)") \
    X(cache_write_ops,  I, "cache operations the writes sent (invalidations or write-throughs, per clients.write): one per write, plus one per further replica, split copy or previous owner; cache_write_ops / writes is the write amplification")

#define NODE_TICK_FIELDS(X) \
    X(state,            T, "up, slow, crashed, ejected, removed or gutter, at the tick's end; when several hold, the first of removed, crashed, ejected, slow") \
    X(requests,         I, "GETs the node received in the tick") \
    X(hits,             I, "GETs it answered with a hit") \
    X(items,            I, "items held at the tick's end") \
    X(bytes,            I, "bytes held at the tick's end") \
    X(util,             R, "share of its worker time busy in the tick (0..1)") \
    X(p99_ms,           R, "99th percentile time from a GET's arrival at the node to its reply leaving it (queue + service + a slow_node latency), of the GETs that arrived in the tick") \
    X(evictions,        I, "items evicted by LRU in the tick") \
    X(expirations,      I, "items found expired in the tick") \
    X(sets,             I, "sets the node admitted: fills, write-throughs, and the copies of staged joins, drains and slot migrations") \
    X(rejects,          I, "requests refused because its queue was full") \
    X(ejected_by,       I, "client instances that route around it: that ejected it (client mode), or whose ring epoch has it ejected (central mode)")

#define VIEW_TICK_FIELDS(X) \
    X(view,             T, "the view: its ring epoch and the nodes it routes around, e.g. \"epoch 2 without n3\"") \
    X(epoch,            I, "its ring epoch") \
    X(ejected,          T, "the nodes ejected in it (by the instance or centrally), comma-separated") \
    X(instances,        I, "client instances holding it at the tick's end")

/* One sampled client operation (output.sample_requests): the `requests`
 * table. Text fields may be NULL (SQL NULL); so are the integers given as
 * REQUEST_NULL. */
#define REQUEST_FIELDS(X) \
    X(t_ns,             I, "when the operation started, in simulated nanoseconds") \
    X(instance,         I, "the client instance") \
    X(key,              T, "the key asked (a split key's own name, whichever copy a read asks)") \
    X(op,               T, "get, set (a write) or delete (a trace's delete)") \
    X(epoch,            I, "the ring epoch the instance held when it started") \
    X(owner,            T, "the key's owner in the instance's view then (the node it routes to, unless a gutter node, a bounded-load cap, replica reads or key splitting (a read asks a copy, which has an owner of its own) send it elsewhere: `node` says where)") \
    X(previous_owner,   T, "the key's owner in the instance's previous epoch, when it differs; NULL otherwise") \
    X(node,             T, "the nodes actually asked, in order, comma-separated (redirects, fallback and forwarding add to it); NULL if none") \
    X(source,           T, "where the answer came from: node, previous_owner, local (the instance's local cache), db, or none (the operation failed)") \
    X(version_seen,     I, "the version the client got (a read) or wrote (a write); NULL if none") \
    X(db_version,       I, "the database's version of the key when the answer came") \
    X(outcome,          T, "hit, miss, timeout, error or write: a read's timeout or error (an error reply from a full queue) is its last GET's, answered by the database after it (source db) or failed (source none: on_timeout: error, or the database refused); error from none also for reads that failed with no GET failing (no backfill token, the database refused)") \
    X(latency_us,       R, "from the start to the answer, in microseconds")
#define REQUEST_NULL INT64_MIN

#define SUMMARY_FIELDS(X) \
    X(requests,          I, "client operations started over the run") \
    X(hit_rate,          R, "hits / reads over the run after warmup") \
    X(baseline_hit_rate, R, "hit rate from warmup to the first event") \
    X(min_hit_rate,      R, "lowest tick hit rate from the first event on") \
    X(recovery_s,        R, "seconds from the first event until the hit rate stays within " METRIC_STR(RECOVERY_TOLERANCE) " of the baseline for " METRIC_STR(RECOVERY_TICKS) " ticks; NULL if never") \
    X(peak_backend_qps,  R, "highest tick backend_qps after warmup") \
    X(peak_db_util,      R, "highest tick db_util after warmup") \
    X(db_overload_s,     R, "seconds of ticks after warmup whose offered database load exceeded its capacity (db_demand > 1)") \
    X(ejections,         I, "times a node went from ejected nowhere to ejected somewhere") \
    X(cascade_removals,  I, "those ejections of a node with no injected fault (not slow, crashed or removed) then, nor within clients.timeout before") \
    X(max_ejected,       I, "most nodes ejected at once") \
    X(stale_reads,       I, "stale reads over the run") \
    X(stale_overwrites,  I, "stale overwrites over the run") \
    X(clobbers,          I, "clobbers over the run") \
    X(keys_moved,        I, "keys whose owner changed, summed over membership changes (under bounded, owners by the ring alone: the cap depends on the load of the moment)") \
    X(max_node_share,    R, "the busiest node's share of all GETs over the run") \
    X(instance_ejections, I, "ejections by single client instances (client mode) or the coordinator") \
    X(readmissions,      I, "nodes put back after retry_after, by an instance or the coordinator") \
    X(timeouts,          I, "cache requests that timed out over the run") \
    X(errors,            I, "errors over the run") \
    X(db_reads,          I, "database reads over the run") \
    X(db_writes,         I, "database writes over the run")

#define METRIC_I int64_t
#define METRIC_R double
#define METRIC_T const char *
#define METRIC_FIELD(name, type, doc) METRIC_##type name;

struct tick_row {
    double t_s;
    TICK_FIELDS(METRIC_FIELD)
};

struct node_tick_row {
    double t_s;
    const char *node;
    NODE_TICK_FIELDS(METRIC_FIELD)
};

struct view_tick_row {
    double t_s;
    VIEW_TICK_FIELDS(METRIC_FIELD)
};

struct request_row {
    REQUEST_FIELDS(METRIC_FIELD)
};

struct summary_row {
    SUMMARY_FIELDS(METRIC_FIELD)
};

#undef METRIC_FIELD

#endif
