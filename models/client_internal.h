/*
 * client_internal.h — what the client's files share (client.c: instances,
 * epochs, routing, arrivals, ticks; client_read.c: the read and write
 * paths; client_trace.c: sampled request traces). Nothing else includes it.
 */
#ifndef RINGSIM_CLIENT_INTERNAL_H
#define RINGSIM_CLIENT_INTERNAL_H

#include "models/client.h"
#include "models/db.h"
#include "models/health.h"
#include "models/membership.h"
#include "models/net.h"
#include "models/node.h"
#include "models/transfer.h"
#include "models/workload.h"

#define NO_WAITER UINT32_MAX

static inline struct req *R(struct sim *s, uint32_t r)
{
    return req_at(&s->eng, r);
}

static inline struct tick_acc *TK(struct sim *s)
{
    return &s->cl->tk;
}

/* client.c */
uint32_t client_route(struct sim *s, struct instance *in, uint32_t key, uint8_t *flags);
/* The previous epoch's owner of the key, if the instance is within its
 * fallback window and that owner differs from `current` and is worth asking. */
uint32_t client_previous_owner(struct sim *s, const struct instance *in, uint32_t key,
                               uint32_t current);
void client_report_success(struct sim *s, const struct instance *in, uint32_t node);
void client_report_failure(struct sim *s, struct instance *in, uint32_t node, const char *what);
/* Sends request r's GET to node nid (now, with the instance's epoch). */
void client_send_get(struct sim *s, uint32_t r, uint32_t nid);
/* Sends request r's cache operation (kind, version) to node. */
void client_send_op(struct sim *s, uint32_t r, uint32_t node, enum req_kind kind,
                    uint32_t version);

/* client_read.c */
void client_start_read(struct sim *s, uint32_t r);
void client_start_write(struct sim *s, uint32_t r);

/* client_trace.c: a sampled operation's record (RQF_SAMPLED requests). */
enum trace_source { SRC_NODE, SRC_PREVIOUS, SRC_DB, SRC_NONE };
enum trace_outcome { OUT_HIT, OUT_MISS, OUT_TIMEOUT, OUT_ERROR, OUT_WRITE };
int traces_create(struct sim *s);
void traces_destroy(struct sim *s);
/* Decides (from its own stream) whether the operation starting as r is
 * sampled; if so opens its record. Called for every arrival. */
void trace_arrival(struct sim *s, uint32_t r, bool is_write);
/* A GET of r went to node. */
void trace_asked(struct sim *s, uint32_t r, uint32_t node);
/* r's answer: where it came from and what it carried (version UINT32_MAX: none). */
void trace_answer(struct sim *s, uint32_t r, enum trace_source src, enum trace_outcome out,
                  uint32_t version, int64_t latency_ns);

#endif
