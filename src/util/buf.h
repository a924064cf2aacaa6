/*
 * buf.h - a growable byte buffer and a non-owning slice.
 *
 * Invariants of mn_buf (as git's strbuf):
 *  - ptr is never NULL; an empty buffer points at a shared "" and has
 *    asize == 0, so it can be read as a C string without allocating;
 *  - ptr[len] == '\0' always, so the content is a C string when it holds
 *    no NUL byte of its own;
 *  - asize > len when the buffer owns memory.
 * mn_buf_release frees and returns the buffer to the empty state;
 * mn_buf_detach hands the memory to the caller (free() it).
 */
#ifndef MN_BUF_H
#define MN_BUF_H

#include <stdarg.h>
#include <stddef.h>

extern char mn_buf__empty[];

typedef struct {
    char *ptr;
    size_t len;
    size_t asize;
} mn_buf;

#define MN_BUF_INIT         \
    {                       \
        mn_buf__empty, 0, 0 \
    }

typedef struct {
    const char *ptr;
    size_t len;
} mn_slice;

void mn_buf_init(mn_buf *b);
void mn_buf_release(mn_buf *b);
void mn_buf_grow(mn_buf *b, size_t extra);
void mn_buf_clear(mn_buf *b);
void mn_buf_truncate(mn_buf *b, size_t len);
void mn_buf_put(mn_buf *b, const void *data, size_t len);
void mn_buf_puts(mn_buf *b, const char *s);
void mn_buf_putc(mn_buf *b, char c);
void mn_buf_printf(mn_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mn_buf_vprintf(mn_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/** Take ownership of the content (a malloc'd C string; never NULL). */
char *mn_buf_detach(mn_buf *b);

static inline mn_slice mn_slice_of(const char *s, size_t len)
{
    mn_slice sl = {s, len};
    return sl;
}

#endif
