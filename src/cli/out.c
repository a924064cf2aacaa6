/*
 * out.c - the one place through which the CLI writes text.
 *
 * Titles, paths, symbols, config values and error messages come from
 * outside (a memory saved by an agent, a file name in a repository, a
 * message that quotes its input), and a terminal acts on some bytes instead
 * of showing them: an ESC sequence can recolour, move the cursor, retitle
 * the window or rewrite what was printed before. So every human-readable
 * line goes through these functions, which write each %s argument through
 * mn_text_escape (src/util/text.c): one-line values with \n, \t and \r
 * escaped too, so a title cannot forge a second row of a list. A text that
 * is multi-line by nature (context's Markdown, show's YAML) goes through
 * cli_put_text, which keeps its newlines and tabs. The format strings are
 * ours and are written as they are. JSON (--json) and exported files are
 * data, written unchanged by cli_put_data: JSON escapes control characters
 * itself.
 *
 * cli.h turns printf, fprintf, puts, fputs, putchar, fputc and fwrite into
 * compile errors in every other file of src/cli/, so no output can bypass
 * this file.
 *
 * The formatter understands the conversions the CLI uses: flags, width and
 * precision (also '*'), the length modifiers hh h l ll z j t L, and
 * d i u o x X c s f F e E g G a A p %. A precision on %s cuts the argument
 * (on a UTF-8 boundary) before it is escaped; a width pads the escaped
 * text, counting code points.
 */
#define CLI_OUT_IMPL
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/buf.h"
#include "util/util.h"

/* %s after escaping: the precision cut first, then the width pad */
static void put_string(mn_buf *out, const char *s, bool left, int width, int prec)
{
    mn_buf e = MN_BUF_INIT;
    size_t len;
    if (!s)
        s = "(null)";
    len = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
    if (prec >= 0)
        len = mn_utf8_floor(s, strlen(s), len);
    mn_text_escape(&e, s, len, false);
    size_t cols = mn_utf8_len(e.ptr, e.len);
    size_t pad = width > 0 && (size_t)width > cols ? (size_t)width - cols : 0;
    for (size_t i = 0; !left && i < pad; i++)
        mn_buf_putc(out, ' ');
    mn_buf_put(out, e.ptr, e.len);
    for (size_t i = 0; left && i < pad; i++)
        mn_buf_putc(out, ' ');
    mn_buf_release(&e);
}

/*
 * Each conversion is handed to mn_buf_printf as a one-conversion format
 * rebuilt from the caller's: a format the compiler checked (every caller is
 * declared with the format attribute) and the type fetched for it.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void cli_vformat(mn_buf *out, const char *fmt, va_list ap)
{
    va_list args;
    va_copy(args, ap);
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            size_t n = strcspn(p, "%");
            mn_buf_put(out, p, n);
            p += n;
            continue;
        }
        if (p[1] == '%') {
            mn_buf_putc(out, '%');
            p += 2;
            continue;
        }
        /* one conversion: copied into spec with '*' replaced by its value */
        char spec[64];
        size_t at = 0;
        int width = 0, prec = -1;
        bool left = false;
        spec[at++] = *p++;
        while (strchr("-+ #0", *p)) {
            left |= *p == '-';
            spec[at++] = *p++;
        }
        if (*p == '*') {
            width = va_arg(args, int);
            if (width < 0)
                left = true, width = -width;
            at += (size_t)snprintf(spec + at, sizeof(spec) - at, "%d", width);
            p++;
        } else {
            while (*p >= '0' && *p <= '9') {
                width = width * 10 + (*p - '0');
                spec[at++] = *p++;
            }
        }
        if (*p == '.') {
            spec[at++] = *p++;
            prec = 0;
            if (*p == '*') {
                prec = va_arg(args, int);
                at += (size_t)snprintf(spec + at, sizeof(spec) - at, "%d", prec < 0 ? 0 : prec);
                p++;
            } else {
                while (*p >= '0' && *p <= '9') {
                    prec = prec * 10 + (*p - '0');
                    spec[at++] = *p++;
                }
            }
        }
        char len[3] = "";
        if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l')) {
            len[0] = p[0], len[1] = p[1];
            p += 2;
        } else if (strchr("hlzjtL", *p) && *p) {
            len[0] = *p++;
        }
        char conv = *p ? *p++ : '\0';
        if (at + 4 >= sizeof(spec))
            abort(); /* a format of ours longer than any we write */
        memcpy(spec + at, len, strlen(len));
        at += strlen(len);
        spec[at++] = conv;
        spec[at] = '\0';
        switch (conv) {
        case 's':
            put_string(out, va_arg(args, const char *), left, width, prec);
            break;
        case 'c': {
            char c = (char)va_arg(args, int);
            mn_buf e = MN_BUF_INIT;
            mn_text_escape(&e, &c, 1, false);
            mn_buf_put(out, e.ptr, e.len);
            mn_buf_release(&e);
            break;
        }
        case 'd':
        case 'i':
            if (!strcmp(len, "ll"))
                mn_buf_printf(out, spec, va_arg(args, long long));
            else if (!strcmp(len, "l"))
                mn_buf_printf(out, spec, va_arg(args, long));
            else if (!strcmp(len, "z"))
                mn_buf_printf(out, spec, va_arg(args, ptrdiff_t)); /* %zd: signed size_t */
            else if (!strcmp(len, "j"))
                mn_buf_printf(out, spec, va_arg(args, intmax_t));
            else if (!strcmp(len, "t"))
                mn_buf_printf(out, spec, va_arg(args, ptrdiff_t));
            else
                mn_buf_printf(out, spec, va_arg(args, int));
            break;
        case 'u':
        case 'o':
        case 'x':
        case 'X':
            if (!strcmp(len, "ll"))
                mn_buf_printf(out, spec, va_arg(args, unsigned long long));
            else if (!strcmp(len, "l"))
                mn_buf_printf(out, spec, va_arg(args, unsigned long));
            else if (!strcmp(len, "z"))
                mn_buf_printf(out, spec, va_arg(args, size_t));
            else if (!strcmp(len, "j"))
                mn_buf_printf(out, spec, va_arg(args, uintmax_t));
            else if (!strcmp(len, "t"))
                mn_buf_printf(out, spec, va_arg(args, ptrdiff_t));
            else
                mn_buf_printf(out, spec, va_arg(args, unsigned));
            break;
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A':
            if (!strcmp(len, "L"))
                mn_buf_printf(out, spec, va_arg(args, long double));
            else
                mn_buf_printf(out, spec, va_arg(args, double));
            break;
        case 'p':
            mn_buf_printf(out, spec, va_arg(args, void *));
            break;
        default:
            abort(); /* %n or a conversion no format of ours uses */
        }
    }
    va_end(args);
}
#pragma GCC diagnostic pop

static void write_all(FILE *f, const char *p, size_t n)
{
    if (n)
        (fwrite)(p, 1, n, f);
}

void cli_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    mn_buf b = MN_BUF_INIT;
    cli_vformat(&b, fmt, ap);
    write_all(f, b.ptr, b.len);
    mn_buf_release(&b);
}

void cli_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vfprintf(f, fmt, ap);
    va_end(ap);
}

void cli_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vfprintf(stdout, fmt, ap);
    va_end(ap);
}

void cli_eprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void cli_put_text(FILE *f, const char *text)
{
    mn_buf b = MN_BUF_INIT;
    if (!text)
        return;
    mn_text_escape(&b, text, strlen(text), true);
    write_all(f, b.ptr, b.len);
    mn_buf_release(&b);
}

int cli_put_data(FILE *f, const char *data, size_t len)
{
    if (len && (fwrite)(data, 1, len, f) != len)
        return -1;
    return fflush(f) == 0 ? 0 : -1;
}
