/*
 * Unit tests: hash functions and positions (models/placement/hash.c), against
 * published vectors:
 *   md5, sha256      RFC 1321 / FIPS 180-2 examples
 *   crc32            the CRC catalogue's check value for "123456789"
 *   CRC16-XMODEM     check value 0x31C3; Redis CLUSTER KEYSLOT values
 *   FNV-1a 64        the FNV reference test suite (offset basis, "a", "foobar")
 *   xxh64            XXH64("", 0) from the xxHash documentation
 *   murmur3 x64_128  smhasher-derived vectors published with PeterScott/murmur3
 *                    (seeds 123, 321) and "Hello world" (seed 0) as printed by
 *                    three independent libraries (Go, JavaScript, Python mmh3)
 *   ketama           twemproxy's test: ketama_hash("server1-8") and hash_md5("apple")
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "models/placement/hash.h"
#include "models/placement/placement.h"
#include "sim/util.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_md5_vectors(void **state)
{
    (void)state;
    uint8_t d[16];
    char h[33];
    md5_digest("", 0, d);
    hex(d, 16, h);
    assert_string_equal(h, "d41d8cd98f00b204e9800998ecf8427e");
    md5_digest("abc", 3, d);
    hex(d, 16, h);
    assert_string_equal(h, "900150983cd24fb0d6963f7d28e17f72");
    md5_digest("message digest", 14, d);
    hex(d, 16, h);
    assert_string_equal(h, "f96b697d7cb7938d525a2f31aaf161d0");
    /* position: first 8 bytes big-endian */
    assert_true(hash_position(HASH_MD5, "", 0) == 0xd41d8cd98f00b204ULL);
}

static void test_sha256_vectors(void **state)
{
    (void)state;
    uint8_t d[32];
    char h[65];
    sha256_digest("abc", 3, d);
    hex(d, 32, h);
    assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha256_digest("", 0, d);
    hex(d, 32, h);
    assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_digest(m, strlen(m), d);
    hex(d, 32, h);
    assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    assert_true(hash_position(HASH_SHA256, "abc", 3) == 0xba7816bf8f01cfeaULL);
}

static void test_digest_reuse(void **state)
{
    (void)state;
    /* the per-thread context is reused: interleaved calls must not interfere */
    for (int i = 0; i < 100; i++) {
        assert_true(hash_position(HASH_SHA256, "abc", 3) == 0xba7816bf8f01cfeaULL);
        assert_true(hash_position(HASH_MD5, "", 0) == 0xd41d8cd98f00b204ULL);
    }
}

static void test_crc32(void **state)
{
    (void)state;
    assert_true(hash_position(HASH_CRC32, "123456789", 9) == 0xCBF43926ULL);
    assert_true(hash_position(HASH_CRC32, "", 0) == 0);
    /* a crc32 position never exceeds 32 bits */
    assert_true(hash_position(HASH_CRC32, "key-000001", 10) <= UINT32_MAX);
}

static uint16_t crc16_bitwise(const uint8_t *p, size_t n)
{
    uint16_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

static void test_crc16_xmodem(void **state)
{
    (void)state;
    assert_int_equal(crc16_xmodem("123456789", 9), 0x31C3);
    assert_int_equal(crc16_xmodem("", 0), 0);
    /* the table agrees with the bitwise definition for every single byte and a few strings */
    for (int b = 0; b < 256; b++) {
        uint8_t byte = (uint8_t)b;
        assert_int_equal(crc16_xmodem(&byte, 1), crc16_bitwise(&byte, 1));
    }
    const char *s[] = {"foo", "key-000042", "{user1000}.following", "a longer key with spaces"};
    for (size_t i = 0; i < ARRAY_LEN(s); i++)
        assert_int_equal(crc16_xmodem(s[i], strlen(s[i])),
                         crc16_bitwise((const uint8_t *)s[i], strlen(s[i])));
    /* Redis CLUSTER KEYSLOT */
    assert_int_equal(crc16_xmodem("foo", 3) & 16383, 12182);
    assert_int_equal(crc16_xmodem("bar", 3) & 16383, 5061);
    assert_int_equal(crc16_xmodem("hello", 5) & 16383, 866);
    assert_int_equal(crc16_xmodem("somekey", 7) & 16383, 11058);
}

static void test_fnv1a(void **state)
{
    (void)state;
    assert_true(fnv1a_64("", 0) == 0xcbf29ce484222325ULL);
    assert_true(fnv1a_64("a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(fnv1a_64("foobar", 6) == 0x85944171f73967e8ULL);
    assert_true(hash_position(HASH_FNV1A, "a", 1) == 0xaf63dc4c8601ec8cULL);
}

static void test_xxh64(void **state)
{
    (void)state;
    assert_true(hash_position(HASH_XXH64, "", 0) == 0xEF46DB3751D8E999ULL);
}

static void test_murmur3(void **state)
{
    (void)state;
    uint64_t h[2];
    murmur3_x64_128("", 0, 0, h);
    assert_true(h[0] == 0 && h[1] == 0);
    murmur3_x64_128("Hello world", 11, 0, h); /* bytes 09c01ad2296d65bd b32ceb54cdb5b54a */
    assert_true(h[0] == 0xbd656d29d21ac009ULL);
    assert_true(h[1] == 0x4ab5b5cd54eb2cb3ULL);
    murmur3_x64_128("Hello, world!", 13, 123, h);
    assert_true(h[0] == 0x421c8c738743acadULL && h[1] == 0xf19732fdd373c3f5ULL);
    murmur3_x64_128("Hello, world!", 13, 321, h);
    assert_true(h[0] == 0xca47f42bf86d4004ULL && h[1] == 0x79200aeeb9546c79ULL);
    murmur3_x64_128("xxxxxxxxxxxxxxxxxxxxxxxxxxxx", 28, 123, h); /* a block and a 12-byte tail */
    assert_true(h[0] == 0xdbcf7463becf7e04ULL && h[1] == 0xf66e73e07751664eULL);
    murmur3_x64_128("", 0, 123, h);
    assert_true(h[0] == 0x81679d1a4cd95970ULL && h[1] == 0x4bace33dbd92f878ULL);
    /* position = h1 with seed 0 */
    assert_true(hash_position(HASH_MURMUR3, "Hello world", 11) == 0xbd656d29d21ac009ULL);
}

static void test_ketama_vectors(void **state)
{
    (void)state;
    /* twemproxy: ketama_hash("server1-8", 9, 0) and (..., 3) — points of the continuum */
    uint8_t d[16];
    md5_digest("server1-8", 9, d);
    uint32_t p0 = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
    uint32_t p3 = (uint32_t)d[12] | (uint32_t)d[13] << 8 | (uint32_t)d[14] << 16 |
                  (uint32_t)d[15] << 24;
    assert_true(p0 == 3853726576U);
    assert_true(p3 == 2667054752U);
    /* twemproxy's key hashes, as ketama key positions */
    struct place_params p;
    place_params_default(&p, PLACE_KETAMA);
    p.hash = HASH_MD5;
    assert_true(placement_key_position(&p, "apple", 5) == 3195025439U);
    assert_true(placement_key_position(&p, "server1-8", 9) == 3853726576U);
    p.hash = HASH_FNV1A; /* twemproxy's fnv1a_64 is the low 32 bits of FNV-1a 64 */
    assert_true(placement_key_position(&p, "apple", 5) == 1488911807U);
}

static void test_names(void **state)
{
    (void)state;
    hash_kind h;
    for (int i = 0; i < HASH_COUNT; i++) {
        assert_int_equal(hash_from_name(hash_name((hash_kind)i), &h), 0);
        assert_int_equal(h, i);
        assert_non_null(hash_function((hash_kind)i));
        assert_non_null(strstr(hash_names(), hash_name((hash_kind)i)));
    }
    assert_int_equal(hash_from_name("sha1", &h), -1);
    assert_int_equal(hash_from_name("", &h), -1);
    assert_int_equal(hash_from_name(NULL, &h), -1);
    assert_string_equal(hash_names(), "sha256|md5|crc32|xxh64|murmur3|fnv1a");
    assert_true(hash_function(HASH_FNV1A)("a", 1) == 0xaf63dc4c8601ec8cULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md5_vectors),  cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_digest_reuse), cmocka_unit_test(test_crc32),
        cmocka_unit_test(test_crc16_xmodem), cmocka_unit_test(test_fnv1a),
        cmocka_unit_test(test_xxh64),        cmocka_unit_test(test_murmur3),
        cmocka_unit_test(test_ketama_vectors), cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
