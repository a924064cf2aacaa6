/*
 * diff.c - the line diff of diff.h.
 *
 * Lines are split on '\n' (a final line without one counts the same as
 * with one). The LCS table is (n + 1) x (m + 1) 16-bit cells over the
 * lines left after the common head and tail are taken off, so two
 * versions of a function that differ in one line cost a few cells; at
 * most MN_DIFF_MAX_LINES lines a side enter it (720 KB at worst). The
 * walk back prefers a removal before an addition, as diff(1) prints them.
 */
#include "common.h"

#include "util/diff.h"
#include "util/util.h"

typedef struct {
    const char *p;
    size_t len;
} line;

static line *split(const char *text, size_t *n)
{
    size_t cap = 16;
    line *v = mn_malloc(cap * sizeof(*v));
    *n = 0;
    const char *p = text ? text : "";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (*n == cap) {
            cap *= 2;
            v = mn_realloc(v, cap * sizeof(*v));
        }
        v[(*n)++] = (line){p, len};
        p += len + (nl != NULL);
    }
    return v;
}

static bool same(line a, line b)
{
    return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

static void put(mn_buf *out, char mark, line l)
{
    mn_buf_putc(out, mark);
    mn_buf_put(out, l.p, l.len);
    mn_buf_putc(out, '\n');
}

/* Unchanged lines [from, to) of a: all when few, else the first and last `context`. */
static void put_kept(mn_buf *out, const line *a, size_t from, size_t to, size_t context, bool first,
                     bool last)
{
    size_t n = to - from, head = first ? 0 : context, tail = last ? 0 : context;
    if ((first && last) || n <= head + tail + 1) { /* no change at all: the text itself */
        for (size_t i = from; i < to; i++)
            put(out, ' ', a[i]);
        return;
    }
    for (size_t i = from; i < from + head; i++)
        put(out, ' ', a[i]);
    mn_buf_printf(out, "@@ %zu unchanged lines @@\n", n - head - tail);
    for (size_t i = to - tail; i < to; i++)
        put(out, ' ', a[i]);
}

size_t mn_diff_lines(mn_buf *out, const char *old_text, const char *new_text, size_t context)
{
    size_t na, nb, changed = 0;
    line *a = split(old_text, &na), *b = split(new_text, &nb);
    size_t head = 0, tail = 0;
    while (head < na && head < nb && same(a[head], b[head]))
        head++;
    while (tail < na - head && tail < nb - head && same(a[na - 1 - tail], b[nb - 1 - tail]))
        tail++;
    size_t n = na - head - tail, m = nb - head - tail;
    size_t cn = n > MN_DIFF_MAX_LINES ? MN_DIFF_MAX_LINES : n;
    size_t cm = m > MN_DIFF_MAX_LINES ? MN_DIFF_MAX_LINES : m;
    /* t[i][j]: the LCS of a[head+i..head+cn) and b[head+j..head+cm) */
    uint16_t *t = mn_calloc((cn + 1) * (cm + 1), sizeof(uint16_t));
#define T(i, j) t[(i) * (cm + 1) + (j)]
    for (size_t i = cn; i-- > 0;)
        for (size_t j = cm; j-- > 0;)
            T(i, j) = same(a[head + i], b[head + j])
                          ? (uint16_t)(T(i + 1, j + 1) + 1)
                          : (T(i + 1, j) >= T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
    bool any = head < na || head < nb;
    put_kept(out, a, 0, head, context, true, !any || (n == 0 && m == 0));
    size_t i = 0, j = 0, kept_from = SIZE_MAX;
    while (i < cn || j < cm) {
        if (i < cn && j < cm && same(a[head + i], b[head + j])) {
            if (kept_from == SIZE_MAX)
                kept_from = head + i;
            i++, j++;
            continue;
        }
        if (kept_from != SIZE_MAX) {
            put_kept(out, a, kept_from, head + i, context, false, false);
            kept_from = SIZE_MAX;
        }
        if (i < cn && (j == cm || T(i + 1, j) >= T(i, j + 1))) {
            put(out, '-', a[head + i++]);
        } else {
            put(out, '+', b[head + j++]);
        }
        changed++;
    }
    if (kept_from != SIZE_MAX)
        put_kept(out, a, kept_from, head + i, context, false, false);
#undef T
    /* past the table: the rest of each side, whole */
    for (size_t k = head + cn; k < head + n; k++, changed++)
        put(out, '-', a[k]);
    for (size_t k = head + cm; k < head + m; k++, changed++)
        put(out, '+', b[k]);
    put_kept(out, a, na - tail, na, context, false, true);
    free(t);
    free(a);
    free(b);
    return changed;
}
