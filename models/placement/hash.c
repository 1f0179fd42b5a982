/*
 * hash.c — the hash functions placement uses, and their positions.
 *
 * Sources: sha256 and md5 from OpenSSL's libcrypto (EVP), crc32 from zlib,
 * xxh64 from libxxhash; MurmurHash3 x64_128, FNV-1a 64 and CRC16-XMODEM are
 * written here from their published definitions. The position of each hash
 * (the 64-bit number placement sees) is a fixed convention, documented in
 * hash.h and models/placement/README.md ("Hash functions and positions").
 *
 * Invariants
 *   - Every function is pure: the same bytes give the same value on every
 *     host (multi-byte loads are explicit little-endian, digests are read
 *     byte by byte).
 *   - The one piece of process-wide state is a cache of OpenSSL handles,
 *     which does not change any result: the EVP_MD objects are fetched once
 *     (pthread_once) and each thread keeps one reusable EVP_MD_CTX per digest
 *     (pthread key, freed when the thread exits). The EVP one-shot
 *     EVP_Digest(EVP_sha256()) costs ~390 ns per short key here because it
 *     looks the algorithm up and allocates a context on every call; a fetched
 *     digest and a reused context bring sha256 of a 10-byte key to ~85 ns.
 */
#include "models/placement/hash.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>

#include "sim/util.h"

/* ---- tables generated from HASH_CODEC ----------------------------------- */

#define HASH_NAME(e, name, fn) [e] = name,
static const char *const hash_name_table[HASH_COUNT] = {HASH_CODEC(HASH_NAME)};
#undef HASH_NAME

#define HASH_FN(e, name, fn) [e] = fn,
static const hash_fn hash_fn_table[HASH_COUNT] = {HASH_CODEC(HASH_FN)};
#undef HASH_FN

#define HASH_JOIN(e, name, fn) "|" name
static const char hash_names_joined[] = HASH_CODEC(HASH_JOIN);
#undef HASH_JOIN

const char *hash_name(hash_kind h)
{
    return (unsigned)h < HASH_COUNT ? hash_name_table[h] : "?";
}

hash_fn hash_function(hash_kind h)
{
    return (unsigned)h < HASH_COUNT ? hash_fn_table[h] : NULL;
}

int hash_from_name(const char *name, hash_kind *h)
{
    int i = name_index(hash_name_table, HASH_COUNT, name);
    if (i < 0)
        return -1;
    *h = (hash_kind)i;
    return 0;
}

const char *hash_names(void)
{
    return hash_names_joined + 1; /* skip the leading '|' */
}

uint64_t hash_position(hash_kind h, const void *data, size_t len)
{
    return hash_fn_table[h](data, len);
}

/* ---- byte order helpers --------------------------------------------------- */

static inline uint64_t load_le64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static inline uint64_t load_be64(const uint8_t *p)
{
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
           (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
           (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

/* ---- OpenSSL digests ------------------------------------------------------ */

enum { DIGEST_MD5, DIGEST_SHA256, DIGEST_COUNT };

static const char *const digest_names[DIGEST_COUNT] = {"MD5", "SHA256"};

/* Written once under pthread_once, read-only afterwards. */
static EVP_MD *digest_md[DIGEST_COUNT];
static pthread_key_t digest_ctx_key;
static pthread_once_t digest_once = PTHREAD_ONCE_INIT;

struct digest_ctxs {
    EVP_MD_CTX *ctx[DIGEST_COUNT];
};

static void digest_ctxs_free(void *p)
{
    struct digest_ctxs *c = p;
    for (int i = 0; i < DIGEST_COUNT; i++)
        EVP_MD_CTX_free(c->ctx[i]);
    free(c);
}

static void digest_init_once(void)
{
    for (int i = 0; i < DIGEST_COUNT; i++) {
        digest_md[i] = EVP_MD_fetch(NULL, digest_names[i], NULL);
        if (!digest_md[i]) {
            fprintf(stderr, "ringsim: OpenSSL provides no %s digest\n", digest_names[i]);
            exit(1);
        }
    }
    if (pthread_key_create(&digest_ctx_key, digest_ctxs_free) != 0) {
        fputs("ringsim: cannot create a thread key\n", stderr);
        exit(1);
    }
}

/* Writes the digest of data into out (16 or 32 bytes). Cost: one digest
 * computation; the context is reused, so no allocation after the first call
 * on a thread. */
static void digest(int which, const void *data, size_t len, uint8_t *out)
{
    pthread_once(&digest_once, digest_init_once);
    struct digest_ctxs *c = pthread_getspecific(digest_ctx_key);
    if (UNLIKELY(!c)) {
        c = xcalloc(1, sizeof *c);
        if (pthread_setspecific(digest_ctx_key, c) != 0) {
            fputs("ringsim: cannot set a thread key\n", stderr);
            exit(1);
        }
    }
    if (UNLIKELY(!c->ctx[which])) {
        c->ctx[which] = EVP_MD_CTX_new();
        if (!c->ctx[which]) {
            fputs("ringsim: out of memory\n", stderr);
            exit(1);
        }
    }
    EVP_MD_CTX *ctx = c->ctx[which];
    if (!EVP_DigestInit_ex2(ctx, digest_md[which], NULL) ||
        !EVP_DigestUpdate(ctx, data, len) || !EVP_DigestFinal_ex(ctx, out, NULL)) {
        fprintf(stderr, "ringsim: OpenSSL %s failed\n", digest_names[which]);
        exit(1);
    }
}

void md5_digest(const void *data, size_t len, uint8_t out[16])
{
    digest(DIGEST_MD5, data, len, out);
}

void sha256_digest(const void *data, size_t len, uint8_t out[32])
{
    digest(DIGEST_SHA256, data, len, out);
}

uint64_t hash_pos_sha256(const void *data, size_t len)
{
    uint8_t d[32];
    sha256_digest(data, len, d);
    return load_be64(d);
}

uint64_t hash_pos_md5(const void *data, size_t len)
{
    uint8_t d[16];
    md5_digest(data, len, d);
    return load_be64(d);
}

/* ---- zlib and libxxhash --------------------------------------------------- */

uint64_t hash_pos_crc32(const void *data, size_t len)
{
    return (uint64_t)crc32_z(0L, data, len);
}

uint64_t hash_pos_xxh64(const void *data, size_t len)
{
    return (uint64_t)XXH64(data, len, 0);
}

/* ---- MurmurHash3 x64_128 ---------------------------------------------------
 * Austin Appleby's MurmurHash3_x64_128: 16-byte blocks read little-endian,
 * a tail of up to 15 bytes, and the fmix64 finaliser. out[0] = h1, out[1] = h2
 * (the canonical byte output is h1 then h2, each little-endian). */

static inline uint64_t murmur_fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

void murmur3_x64_128(const void *data, size_t len, uint32_t seed, uint64_t out[2])
{
    const uint8_t *p = data;
    const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
    uint64_t h1 = seed, h2 = seed;
    size_t nblocks = len / 16;

    for (size_t i = 0; i < nblocks; i++, p += 16) {
        uint64_t k1 = load_le64(p), k2 = load_le64(p + 8);
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
        h1 = rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        h2 = rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }

    /* tail: bytes 8..14 go to k2, bytes 0..7 to k1, little-endian */
    size_t rest = len & 15;
    uint64_t k1 = 0, k2 = 0;
    for (size_t i = rest; i > 8; i--)
        k2 ^= (uint64_t)p[i - 1] << (8 * (i - 9));
    if (rest > 8) {
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
    }
    for (size_t i = MIN(rest, (size_t)8); i > 0; i--)
        k1 ^= (uint64_t)p[i - 1] << (8 * (i - 1));
    if (rest > 0) {
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
    }

    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = murmur_fmix64(h1);
    h2 = murmur_fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

uint64_t hash_pos_murmur3(const void *data, size_t len)
{
    uint64_t h[2];
    murmur3_x64_128(data, len, 0, h);
    return h[0];
}

/* ---- FNV-1a 64 ------------------------------------------------------------ */

uint64_t fnv1a_64(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t h = 0xcbf29ce484222325ULL; /* offset basis */
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL; /* FNV prime 2^40 + 2^8 + 0xb3 */
    }
    return h;
}

uint64_t hash_pos_fnv1a(const void *data, size_t len)
{
    return fnv1a_64(data, len);
}

/* ---- CRC16-XMODEM -----------------------------------------------------------
 * Polynomial 0x1021, initial value 0, no reflection, no final xor (the CRC
 * Redis Cluster uses for slots). crc16_table[b] is the CRC of the byte b
 * shifted into the high byte of a zero register; tests/unit/test_hash.c
 * recomputes it bit by bit. */
static const uint16_t crc16_table[256] = {
    0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50a5, 0x60c6, 0x70e7,
    0x8108, 0x9129, 0xa14a, 0xb16b, 0xc18c, 0xd1ad, 0xe1ce, 0xf1ef,
    0x1231, 0x0210, 0x3273, 0x2252, 0x52b5, 0x4294, 0x72f7, 0x62d6,
    0x9339, 0x8318, 0xb37b, 0xa35a, 0xd3bd, 0xc39c, 0xf3ff, 0xe3de,
    0x2462, 0x3443, 0x0420, 0x1401, 0x64e6, 0x74c7, 0x44a4, 0x5485,
    0xa56a, 0xb54b, 0x8528, 0x9509, 0xe5ee, 0xf5cf, 0xc5ac, 0xd58d,
    0x3653, 0x2672, 0x1611, 0x0630, 0x76d7, 0x66f6, 0x5695, 0x46b4,
    0xb75b, 0xa77a, 0x9719, 0x8738, 0xf7df, 0xe7fe, 0xd79d, 0xc7bc,
    0x48c4, 0x58e5, 0x6886, 0x78a7, 0x0840, 0x1861, 0x2802, 0x3823,
    0xc9cc, 0xd9ed, 0xe98e, 0xf9af, 0x8948, 0x9969, 0xa90a, 0xb92b,
    0x5af5, 0x4ad4, 0x7ab7, 0x6a96, 0x1a71, 0x0a50, 0x3a33, 0x2a12,
    0xdbfd, 0xcbdc, 0xfbbf, 0xeb9e, 0x9b79, 0x8b58, 0xbb3b, 0xab1a,
    0x6ca6, 0x7c87, 0x4ce4, 0x5cc5, 0x2c22, 0x3c03, 0x0c60, 0x1c41,
    0xedae, 0xfd8f, 0xcdec, 0xddcd, 0xad2a, 0xbd0b, 0x8d68, 0x9d49,
    0x7e97, 0x6eb6, 0x5ed5, 0x4ef4, 0x3e13, 0x2e32, 0x1e51, 0x0e70,
    0xff9f, 0xefbe, 0xdfdd, 0xcffc, 0xbf1b, 0xaf3a, 0x9f59, 0x8f78,
    0x9188, 0x81a9, 0xb1ca, 0xa1eb, 0xd10c, 0xc12d, 0xf14e, 0xe16f,
    0x1080, 0x00a1, 0x30c2, 0x20e3, 0x5004, 0x4025, 0x7046, 0x6067,
    0x83b9, 0x9398, 0xa3fb, 0xb3da, 0xc33d, 0xd31c, 0xe37f, 0xf35e,
    0x02b1, 0x1290, 0x22f3, 0x32d2, 0x4235, 0x5214, 0x6277, 0x7256,
    0xb5ea, 0xa5cb, 0x95a8, 0x8589, 0xf56e, 0xe54f, 0xd52c, 0xc50d,
    0x34e2, 0x24c3, 0x14a0, 0x0481, 0x7466, 0x6447, 0x5424, 0x4405,
    0xa7db, 0xb7fa, 0x8799, 0x97b8, 0xe75f, 0xf77e, 0xc71d, 0xd73c,
    0x26d3, 0x36f2, 0x0691, 0x16b0, 0x6657, 0x7676, 0x4615, 0x5634,
    0xd94c, 0xc96d, 0xf90e, 0xe92f, 0x99c8, 0x89e9, 0xb98a, 0xa9ab,
    0x5844, 0x4865, 0x7806, 0x6827, 0x18c0, 0x08e1, 0x3882, 0x28a3,
    0xcb7d, 0xdb5c, 0xeb3f, 0xfb1e, 0x8bf9, 0x9bd8, 0xabbb, 0xbb9a,
    0x4a75, 0x5a54, 0x6a37, 0x7a16, 0x0af1, 0x1ad0, 0x2ab3, 0x3a92,
    0xfd2e, 0xed0f, 0xdd6c, 0xcd4d, 0xbdaa, 0xad8b, 0x9de8, 0x8dc9,
    0x7c26, 0x6c07, 0x5c64, 0x4c45, 0x3ca2, 0x2c83, 0x1ce0, 0x0cc1,
    0xef1f, 0xff3e, 0xcf5d, 0xdf7c, 0xaf9b, 0xbfba, 0x8fd9, 0x9ff8,
    0x6e17, 0x7e36, 0x4e55, 0x5e74, 0x2e93, 0x3eb2, 0x0ed1, 0x1ef0
};

uint16_t crc16_xmodem(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++)
        crc = (uint16_t)((crc << 8) ^ crc16_table[((crc >> 8) ^ p[i]) & 0xff]);
    return crc;
}
