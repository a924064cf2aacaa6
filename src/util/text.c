/*
 * text.c - strict number parsing and UTF-8 checks.
 *
 * Numbers from the outside are parsed in full (no trailing garbage, no
 * silent overflow), unlike atoi which banned.h forbids.
 */
#include "common.h"
#include <ctype.h>
#include <math.h>

#include "util/util.h"

int mn_parse_int64(int64_t *out, const char *s, int64_t min, int64_t max, const char *what)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || isspace((unsigned char)s[0]) || *end != '\0' || errno == ERANGE || v < min ||
        v > max)
        return mn_error_set(MN_EINVAL, "%s must be a whole number from %lld to %lld (got '%.40s')",
                            what, (long long)min, (long long)max, s);
    *out = v;
    return 0;
}

int mn_parse_double(double *out, const char *s, double min, double max, const char *what)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || isspace((unsigned char)s[0]) || *end != '\0' || errno == ERANGE ||
        !isfinite(v) || v < min || v > max)
        return mn_error_set(MN_EINVAL, "%s must be a number from %g to %g (got '%.40s')", what, min,
                            max, s);
    *out = v;
    return 0;
}

bool mn_utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + len;
    while (s < end) {
        unsigned c = *s;
        if (c == 0)
            return false;
        if (c < 0x80) {
            s++;
            continue;
        }
        int n;
        unsigned cp;
        if (c >= 0xC2 && c <= 0xDF)
            n = 1, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            n = 2, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            n = 3, cp = c & 0x07;
        else
            return false;
        if (end - s <= n)
            return false;
        for (int i = 1; i <= n; i++) {
            if ((s[i] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        s += n + 1;
    }
    return true;
}

size_t mn_utf8_len(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

size_t mn_utf8_floor(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}
