/*
 * id.c - memory ids: ULIDs (48-bit ms timestamp + 80 random bits, Crockford
 * base32). They sort by creation time, so exports ordered by id are stable
 * and chronological, and a short unique prefix identifies a memory (as git
 * abbreviates commit ids). Randomness comes from getrandom(); ids made in
 * the same millisecond by one process stay ordered by incrementing the
 * random part.
 */
#include "common.h"
#include <sys/random.h>
#include <unistd.h>
#include <pthread.h>

#include "util/util.h"

static const char crockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
static pthread_mutex_t id_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t last_ms = -1;
static uint8_t last_rand[10];

void mn_id_new(char out[MN_ID_LEN + 1])
{
    uint8_t bytes[16];
    int64_t ms = mn_time_now_ms();

    pthread_mutex_lock(&id_lock);
    if (ms <= last_ms) {
        ms = last_ms;
        for (int i = 9; i >= 0; i--)
            if (++last_rand[i] != 0)
                break;
    } else {
        if (getrandom(last_rand, sizeof(last_rand), 0) != (ssize_t)sizeof(last_rand)) {
            /* getrandom cannot fail for 10 bytes once the pool is ready;
             * fall back to a weak but unique-enough mix. */
            uint64_t x = mn_time_mono_ns() ^ ((uint64_t)getpid() << 32);
            for (int i = 0; i < 10; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                last_rand[i] = (uint8_t)x;
            }
        }
        last_ms = ms;
    }
    for (int i = 0; i < 6; i++)
        bytes[i] = (uint8_t)((uint64_t)ms >> (40 - 8 * i));
    memcpy(bytes + 6, last_rand, 10);
    pthread_mutex_unlock(&id_lock);

    /* 128 bits -> 26 base32 chars; the first char holds the top 3 bits. */
    int bit = -2; /* 26*5 = 130 bits: two leading zero bits */
    for (int c = 0; c < MN_ID_LEN; c++) {
        int v = 0;
        for (int k = 0; k < 5; k++, bit++) {
            v <<= 1;
            if (bit >= 0)
                v |= (bytes[bit / 8] >> (7 - bit % 8)) & 1;
        }
        out[c] = crockford[v];
    }
    out[MN_ID_LEN] = '\0';
}

bool mn_id_is_prefix(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MN_ID_LEN)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 'a' + 'A') : s[i];
        if (!strchr(crockford, c) || c == '\0')
            return false;
    }
    return true;
}
