/*
 * digest.h - SHA-256, HMAC-SHA-256 and a comparison that takes the same
 * time whatever the bytes, for what must not be stored or compared in the
 * clear: access tokens (stored as their SHA-256) and the signatures of
 * push webhooks (GitHub's X-Hub-Signature-256 is an HMAC-SHA-256).
 *
 * The hashing itself is Nettle's (Debian's nettle-dev, the library GnuTLS
 * is built on); this file only gives it mnemo's shape: hex strings and
 * fixed-size outputs, no allocation, nothing that can fail.
 */
#ifndef MN_UTIL_DIGEST_H
#define MN_UTIL_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MN_SHA256_LEN 32
#define MN_SHA256_HEX (2 * MN_SHA256_LEN + 1) /* hex digits and the NUL */

/** The SHA-256 of data in out. */
void mn_sha256(uint8_t out[MN_SHA256_LEN], const void *data, size_t len);
/** The SHA-256 of data as 64 lower-case hex digits and a NUL. */
void mn_sha256_hex(char out[MN_SHA256_HEX], const void *data, size_t len);
/** The HMAC-SHA-256 of msg under key (RFC 2104) in out. */
void mn_hmac_sha256(uint8_t out[MN_SHA256_LEN], const void *key, size_t key_len, const void *msg,
                    size_t len);
/** Lower-case hex of n bytes into out (2n + 1 bytes with the NUL). */
void mn_hex(char *out, const uint8_t *bytes, size_t n);
/**
 * True when a and b hold the same n bytes, in a time that depends on n
 * only: a secret compared with memcmp tells, by how fast it fails, how
 * many of its first bytes an attacker guessed right.
 */
bool mn_equal_const_time(const void *a, const void *b, size_t n);
/** n bytes from the kernel's random source (getrandom); 0 or MN_EIO. */
int mn_random_bytes(void *out, size_t n);

#endif
