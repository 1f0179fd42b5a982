/*
 * ring_print.h — the output of `ringsim ring` (ring_print.c): the table and
 * the JSON object, and what they need besides the analysis.
 */
#ifndef RINGSIM_RING_PRINT_H
#define RINGSIM_RING_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/placement/placement.h"
#include "models/placement/ring_analysis.h"

/* The parameters an analysis ran with, as the output shows them. */
struct ring_report {
    struct place_params params;
    const char *keys;             /* the key pattern */
    uint64_t start, count;
    const struct place_member *mb, *ma; /* before and after, in the order given */
    size_t n_before, n_after;
    bool has_to;                  /* false: after is before, "to" is null */
    bool lookups;                 /* --key or --keys-file given: print the lookups */
};

/* The aligned table on stdout. keys: the keys looked up (r->n_lookups of them). */
void ring_print_table(const struct ring_report *o, const struct ring_result *r,
                      const struct ring_key *keys);
/* One JSON object on one line on stdout (the keys are listed in the usage text). */
void ring_print_json(const struct ring_report *o, const struct ring_result *r,
                     const struct ring_key *keys);

/* Whether the algorithm places points per vnode (ring, bounded). */
bool ring_uses_vnodes(place_algo a);

#endif
