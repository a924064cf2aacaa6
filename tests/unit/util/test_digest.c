/*
 * test_digest.c - SHA-256 and HMAC-SHA-256 against the published test
 * vectors (FIPS 180-2 appendix B, RFC 4231 cases 1, 2 and 6), and the
 * constant-time comparison on equal and different inputs.
 */
#include "common.h"
#include "util/digest.h"
#include "test.h"

static void test_sha256(void)
{
    char hex[MN_SHA256_HEX];
    mn_sha256_hex(hex, "abc", 3);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    mn_sha256_hex(hex, "", 0);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    mn_sha256_hex(hex, two, strlen(two));
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_hmac(void)
{
    uint8_t mac[MN_SHA256_LEN], key[131];
    char hex[MN_SHA256_HEX];
    memset(key, 0x0b, 20);
    mn_hmac_sha256(mac, key, 20, "Hi There", 8);
    mn_hex(hex, mac, sizeof(mac));
    CHECK_STR(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    mn_hmac_sha256(mac, "Jefe", 4, "what do ya want for nothing?", 28);
    mn_hex(hex, mac, sizeof(mac));
    CHECK_STR(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    /* a key longer than the block is hashed first */
    memset(key, 0xaa, sizeof(key));
    const char *msg = "Test Using Larger Than Block-Size Key - Hash Key First";
    mn_hmac_sha256(mac, key, sizeof(key), msg, strlen(msg));
    mn_hex(hex, mac, sizeof(mac));
    CHECK_STR(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static void test_equal(void)
{
    uint8_t a[32], b[32];
    CHECK(mn_random_bytes(a, sizeof(a)) == 0);
    memcpy(b, a, sizeof(a));
    CHECK(mn_equal_const_time(a, b, sizeof(a)));
    b[31] ^= 1;
    CHECK(!mn_equal_const_time(a, b, sizeof(a)));
    b[31] ^= 1;
    b[0] ^= 0x80;
    CHECK(!mn_equal_const_time(a, b, sizeof(a)));
    CHECK(mn_equal_const_time(a, b, 0));
    /* two draws of 32 random bytes differ */
    CHECK(mn_random_bytes(b, sizeof(b)) == 0);
    CHECK(!mn_equal_const_time(a, b, sizeof(a)));
}

MN_TEST_MAIN(MN_TEST(test_sha256), MN_TEST(test_hmac), MN_TEST(test_equal))
