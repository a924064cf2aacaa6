/*
 * buf.c - see buf.h for the invariants.
 */
#include "common.h"
#include "util/buf.h"

char mn_buf__empty[1];

void mn_buf_init(mn_buf *b)
{
    b->ptr = mn_buf__empty;
    b->len = 0;
    b->asize = 0;
}

void mn_buf_release(mn_buf *b)
{
    if (b->asize)
        free(b->ptr);
    mn_buf_init(b);
}

void mn_buf_grow(mn_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->asize)
        return;
    size_t n = b->asize ? b->asize : 64;
    while (n < need)
        n = n + n / 2 + 64;
    if (b->asize) {
        b->ptr = mn_realloc(b->ptr, n);
    } else {
        char *p = mn_malloc(n);
        memcpy(p, b->ptr, b->len);
        p[b->len] = '\0';
        b->ptr = p;
    }
    b->asize = n;
}

void mn_buf_clear(mn_buf *b)
{
    mn_buf_truncate(b, 0);
}

void mn_buf_truncate(mn_buf *b, size_t len)
{
    if (len < b->len) {
        b->len = len;
        if (b->asize)
            b->ptr[len] = '\0';
    }
}

void mn_buf_put(mn_buf *b, const void *data, size_t len)
{
    if (!len)
        return;
    mn_buf_grow(b, len);
    memmove(b->ptr + b->len, data, len);
    b->len += len;
    b->ptr[b->len] = '\0';
}

void mn_buf_puts(mn_buf *b, const char *s)
{
    mn_buf_put(b, s, strlen(s));
}

void mn_buf_putc(mn_buf *b, char c)
{
    mn_buf_grow(b, 1);
    b->ptr[b->len++] = c;
    b->ptr[b->len] = '\0';
}

void mn_buf_vprintf(mn_buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n <= 0)
        return;
    mn_buf_grow(b, (size_t)n);
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void mn_buf_printf(mn_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *mn_buf_detach(mn_buf *b)
{
    char *p = b->asize ? b->ptr : mn_strdup("");
    mn_buf_init(b);
    return p;
}
