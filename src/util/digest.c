/*
 * digest.c - SHA-256, HMAC-SHA-256 and constant-time comparison on Nettle
 * (digest.h says what for).
 *
 * mn_equal_const_time ORs the differences of every byte pair and looks at
 * the result once, so no branch depends on where the first difference is.
 */
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <sys/random.h>

#include "common.h"

#include "util/digest.h"

void mn_sha256(uint8_t out[MN_SHA256_LEN], const void *data, size_t len)
{
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, len, data);
    sha256_digest(&c, MN_SHA256_LEN, out);
}

void mn_hex(char *out, const uint8_t *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

void mn_sha256_hex(char out[MN_SHA256_HEX], const void *data, size_t len)
{
    uint8_t d[MN_SHA256_LEN];
    mn_sha256(d, data, len);
    mn_hex(out, d, sizeof(d));
}

void mn_hmac_sha256(uint8_t out[MN_SHA256_LEN], const void *key, size_t key_len, const void *msg,
                    size_t len)
{
    struct hmac_sha256_ctx c;
    hmac_sha256_set_key(&c, key_len, key);
    hmac_sha256_update(&c, len, msg);
    hmac_sha256_digest(&c, MN_SHA256_LEN, out);
}

bool mn_equal_const_time(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = a, *y = b;
    uint8_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (uint8_t)(x[i] ^ y[i]);
    return diff == 0;
}

int mn_random_bytes(void *out, size_t n)
{
    uint8_t *p = out;
    while (n) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return mn_error_set(MN_EIO, "cannot read random bytes: %s", strerror(errno));
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}
