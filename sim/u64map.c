/*
 * u64map.c — open addressing with linear probing (see u64map.h).
 */
#include "sim/u64map.h"

#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

static inline uint32_t home(const struct u64map *m, uint64_t key)
{
    return (uint32_t)mix64(key) & m->mask;
}

static void alloc_slots(struct u64map *m, uint32_t size)
{
    m->slots = xmalloc((size_t)size * sizeof(*m->slots));
    for (uint32_t i = 0; i < size; i++)
        m->slots[i].key = U64MAP_EMPTY;
    m->mask = size - 1;
}

void u64map_init(struct u64map *m)
{
    m->n = 0;
    alloc_slots(m, 16);
}

void u64map_deinit(struct u64map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->n = 0;
}

void u64map_clear(struct u64map *m)
{
    for (uint32_t i = 0; i <= m->mask; i++)
        m->slots[i].key = U64MAP_EMPTY;
    m->n = 0;
}

static inline uint32_t find(const struct u64map *m, uint64_t key)
{
    uint32_t i = home(m, key);
    while (m->slots[i].key != U64MAP_EMPTY && m->slots[i].key != key)
        i = (i + 1) & m->mask;
    return i;
}

uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
    uint32_t i = find(m, key);
    return m->slots[i].key == key ? &m->slots[i].value : NULL;
}

void u64map_put(struct u64map *m, uint64_t key, uint64_t value)
{
    if ((m->n + 1) * 2 > m->mask + 1) {
        struct u64map_slot *old = m->slots;
        uint32_t old_size = m->mask + 1;
        alloc_slots(m, old_size * 2);
        for (uint32_t i = 0; i < old_size; i++)
            if (old[i].key != U64MAP_EMPTY)
                m->slots[find(m, old[i].key)] = old[i];
        free(old);
    }
    uint32_t i = find(m, key);
    if (m->slots[i].key == U64MAP_EMPTY)
        m->n++;
    m->slots[i].key = key;
    m->slots[i].value = value;
}

bool u64map_del(struct u64map *m, uint64_t key)
{
    uint32_t i = find(m, key);
    if (m->slots[i].key != key)
        return false;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (m->slots[j].key == U64MAP_EMPTY)
            break;
        uint32_t h = home(m, m->slots[j].key);
        bool in_range = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (!in_range) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].key = U64MAP_EMPTY;
    m->n--;
    return true;
}
