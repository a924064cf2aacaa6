/*
 * text.c - strict number parsing, UTF-8 checks, and text made safe for a
 * terminal.
 *
 * Numbers from the outside are parsed in full (no trailing garbage, no
 * silent overflow, never NaN or an infinity), unlike atoi which banned.h
 * forbids.
 *
 * mn_text_escape is the one rule for showing untrusted text to a person:
 * every byte that a terminal could act on instead of showing is written as
 * visible characters. C0 controls (U+0000-U+001F) and DEL become \xHH (\n,
 * \t, \r as such; a multi-line text keeps its newlines and tabs), the C1
 * controls U+0080-U+009F (8-bit CSI, OSC... in their UTF-8 form) become
 * \u00HH, and a byte that is not part of well-formed UTF-8 becomes \xHH
 * (some terminals read a lone 0x9B as CSI). ESC is a C0 control, so no
 * escape sequence survives: what follows it is printable text. Everything
 * else, other Unicode included, is copied as is; backslashes are not
 * doubled, so the form is for eyes, not for reading back.
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

/* strtod in full: no space before, nothing after, no overflow, finite ("nan", "inf" and
 * "infinity" read as numbers by strtod are refused here). */
static bool finite_number(double *out, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || isspace((unsigned char)s[0]) || *end != '\0' || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

int mn_parse_double(double *out, const char *s, double min, double max, const char *what)
{
    double v;
    if (!finite_number(&v, s) || v < min || v > max)
        return mn_error_set(MN_EINVAL, "%s must be a number from %g to %g (got '%.40s')", what, min,
                            max, s);
    *out = v;
    return 0;
}

int mn_parse_finite(double *out, const char *s, const char *what)
{
    double v;
    if (!finite_number(&v, s))
        return mn_error_set(MN_EINVAL, "%s must be a finite number such as 0.5 (got '%.40s')", what,
                            s);
    *out = v;
    return 0;
}

/*
 * The length (2..4) of the well-formed multi-byte UTF-8 sequence at s, its
 * code point in *cp; 0 when the bytes at s are not one (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut
 * short by end).
 */
static size_t utf8_seq(const unsigned char *s, const unsigned char *end, unsigned *cp)
{
    unsigned c = *s, v;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF)
        n = 1, v = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 2, v = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 3, v = c & 0x07;
    else
        return 0;
    if ((size_t)(end - s) <= n)
        return 0;
    for (size_t i = 1; i <= n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if ((n == 2 && v < 0x800) || (n == 3 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n + 1;
}

bool mn_utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + len;
    unsigned cp;
    while (s < end) {
        if (*s == 0)
            return false;
        if (*s < 0x80) {
            s++;
            continue;
        }
        size_t n = utf8_seq(s, end, &cp);
        if (!n)
            return false;
        s += n;
    }
    return true;
}

void mn_text_escape(mn_buf *out, const char *str, size_t len, bool multiline)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str, *end = s + len;
    while (s < end) {
        const unsigned char *run = s;
        unsigned cp = 0;
        size_t n;
        /* the printable run first, copied in one piece */
        while (s < end) {
            if (*s >= 0x20 && *s < 0x7F) {
                s++;
            } else if (multiline && (*s == '\n' || *s == '\t')) {
                s++;
            } else if (*s >= 0x80 && (n = utf8_seq(s, end, &cp)) != 0 && cp > 0x9F) {
                s += n;
            } else {
                break;
            }
        }
        mn_buf_put(out, run, (size_t)(s - run));
        if (s == end)
            break;
        unsigned c = *s;
        if (c == '\n' || c == '\t' || c == '\r') {
            mn_buf_putc(out, '\\');
            mn_buf_putc(out, c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
            s++;
        } else if (c >= 0x80 && (n = utf8_seq(s, end, &cp)) != 0) {
            /* a C1 control (U+0080..U+009F, two bytes) */
            mn_buf_puts(out, "\\u00");
            mn_buf_putc(out, hex[cp >> 4]);
            mn_buf_putc(out, hex[cp & 15]);
            s += n;
        } else {
            /* C0, DEL, or a byte outside well-formed UTF-8 */
            mn_buf_puts(out, "\\x");
            mn_buf_putc(out, hex[c >> 4]);
            mn_buf_putc(out, hex[c & 15]);
            s++;
        }
    }
}

bool mn_text_needs_escape(const char *str, size_t len, bool multiline)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + len;
    unsigned cp = 0;
    size_t n;
    while (s < end) {
        if ((*s >= 0x20 && *s < 0x7F) || (multiline && (*s == '\n' || *s == '\t')))
            s++;
        else if (*s >= 0x80 && (n = utf8_seq(s, end, &cp)) != 0 && cp > 0x9F)
            s += n;
        else
            return true;
    }
    return false;
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
