/*
 * hash.h — the hash functions placement uses, and their "position" convention.
 *
 * A position is the 64-bit number a hash contributes to placement (models/placement/README.md):
 *   sha256, md5       the first 8 digest bytes read big-endian
 *   crc32             the 32-bit IEEE CRC (as zlib's crc32())
 *   xxh64             the 64-bit XXH64 value, seed 0
 *   murmur3           MurmurHash3 x64_128, seed 0, the first 64-bit half (h1)
 *   fnv1a             FNV-1a 64
 * sha256/md5 come from OpenSSL's libcrypto, crc32 from zlib, xxh64 from
 * libxxhash; murmur3, fnv1a and CRC16-XMODEM are written here.
 *
 * The hash table is declared once in HASH_CODEC (name, enum, function) and
 * the enum, the names and the dispatch table are generated from it.
 */
#ifndef RINGSIM_HASH_H
#define RINGSIM_HASH_H

#include <stddef.h>
#include <stdint.h>

/*       enum           name       position function */
#define HASH_CODEC(X)                                   \
    X(HASH_SHA256,  "sha256",  hash_pos_sha256)         \
    X(HASH_MD5,     "md5",     hash_pos_md5)            \
    X(HASH_CRC32,   "crc32",   hash_pos_crc32)          \
    X(HASH_XXH64,   "xxh64",   hash_pos_xxh64)          \
    X(HASH_MURMUR3, "murmur3", hash_pos_murmur3)        \
    X(HASH_FNV1A,   "fnv1a",   hash_pos_fnv1a)

#define HASH_ENUM(e, name, fn) e,
typedef enum { HASH_CODEC(HASH_ENUM) HASH_COUNT } hash_kind;
#undef HASH_ENUM

typedef uint64_t (*hash_fn)(const void *data, size_t len);

#define HASH_DECL(e, name, fn) uint64_t fn(const void *data, size_t len);
HASH_CODEC(HASH_DECL)
#undef HASH_DECL

/* The position of data under hash h (see the table above). */
uint64_t hash_position(hash_kind h, const void *data, size_t len);
hash_fn hash_function(hash_kind h);
const char *hash_name(hash_kind h);
/* Returns 0 and sets *h, or -1 if name is not a hash ringsim knows. */
int hash_from_name(const char *name, hash_kind *h);
/* "sha256|md5|crc32|xxh64|murmur3|fnv1a" — for help text and errors. */
const char *hash_names(void);

/* Full digests and the functions without a standard library. */
void md5_digest(const void *data, size_t len, uint8_t out[16]);
void sha256_digest(const void *data, size_t len, uint8_t out[32]);
void murmur3_x64_128(const void *data, size_t len, uint32_t seed, uint64_t out[2]);
uint64_t fnv1a_64(const void *data, size_t len);
uint16_t crc16_xmodem(const void *data, size_t len);

#endif
