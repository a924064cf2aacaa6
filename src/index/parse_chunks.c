/*
 * parse_chunks.c - a file cut into chunks along its symbols (part of
 * parse.c; parse_internal.h): a symbol small enough is one chunk (its
 * leading comment included), a container is cut at its children, the lines
 * between symbols are chunks of their own, and a file without symbols (or
 * without a grammar) is cut by blank lines and size.
 */
#include "index/parse_internal.h"

static const char *const containers[] = {"class", "interface", "struct", "enum",
                                         "trait", "module",    NULL};
static const char *const not_chunked[] = {"constant", "variable", NULL};

/* ---- chunks ---- */

static void add_chunk(ctx *c, int symbol, int64_t l0, int64_t l1, uint32_t a, uint32_t e)
{
    if (e < a)
        e = a;
    mn_chunk_rec ch = {0};
    ch.symbol = symbol;
    ch.start_line = l0;
    ch.end_line = l1 < l0 ? l0 : l1;
    ch.text = mn_parse__emit(&c->out->arena, c->src + a, e - a, MN_PARSE_CHUNK_TEXT_MAX);
    mn_parse__hash_hex(c->src + a, e - a, ch.hash);
    mn_vec_push(&c->out->chunks, ch);
}

/*
 * Whether text is worth a chunk: something beyond punctuation and the words
 * that close blocks ("end", "fi", "done", "esac"; the preprocessor's "#endif"
 * and "#else" lines, with the guard's name in a comment after them).
 */
static bool has_content(const char *s, size_t n)
{
    static const char *const closers[] = {"end", "fi", "done", "esac", "endif", "<?php", NULL};
    size_t i = 0;
    while (i < n) {
        while (i < n && mn_parse__is_ws((unsigned char)s[i]))
            i++;
        if (mn_parse__starts(s + i, n - i, "#endif") || mn_parse__starts(s + i, n - i, "#else")) {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        size_t j = i;
        while (j < n && !mn_parse__is_ws((unsigned char)s[j]))
            j++;
        if (mn_parse__has_alnum(s + i, j - i)) {
            size_t k = j;
            while (k > i && (s[k - 1] == ';' || s[k - 1] == ',' || s[k - 1] == ')'))
                k--;
            bool closer = false;
            for (const char *const *w = closers; *w && !closer; w++)
                closer = strlen(*w) == k - i && memcmp(s + i, *w, k - i) == 0;
            if (!closer)
                return true;
        }
        i = j;
    }
    return false;
}

bool mn_parse__blank_line(const ctx *c, int64_t l)
{
    uint32_t a = mn_parse__line_start(c, l), e = mn_parse__line_end(c, l);
    for (; a < e; a++)
        if (!mn_parse__is_ws((unsigned char)c->src[a]))
            return false;
    return true;
}

/* Lines [l0, l1] not in any symbol: windows of MN_PARSE_TEXT_WINDOW lines with content. */
void mn_parse__gap_chunks(ctx *c, int symbol, int64_t l0, int64_t l1)
{
    while (l0 <= l1 && mn_parse__blank_line(c, l0))
        l0++;
    for (int64_t w = l0; w <= l1; w += MN_PARSE_TEXT_WINDOW) {
        while (w <= l1 && mn_parse__blank_line(c, w))
            w++;
        if (w > l1)
            break;
        int64_t we = w + MN_PARSE_TEXT_WINDOW - 1;
        if (we > l1)
            we = l1;
        while (we > w && mn_parse__blank_line(c, we))
            we--;
        uint32_t a = mn_parse__line_start(c, w), e = mn_parse__line_end(c, we);
        if (has_content(c->src + a, e - a))
            add_chunk(c, symbol, w, we, a, e);
    }
}

/*
 * The first line of a short comment that is all lines [l0, l1] hold bar
 * blank ones, such as a section heading between two functions (a block
 * comment "---- served answers ----"); 0 when they hold more. Alone, such a
 * line made a chunk of a few words, which BM25's length normalisation put
 * above the functions it heads; it goes with the symbol after it instead.
 */
static int64_t section_comment(const ctx *c, int64_t l0, int64_t l1)
{
    while (l0 <= l1 && mn_parse__blank_line(c, l0))
        l0++;
    while (l1 >= l0 && mn_parse__blank_line(c, l1))
        l1--;
    int64_t top, bottom;
    if (l0 > l1 || l1 - l0 + 1 > SECTION_COMMENT_LINES ||
        !mn_parse__comment_above(c, l1 + 1, &top, &bottom) || top != l0)
        return 0;
    return l0;
}

/* Bytes [a, e) of lines [l0, l1], in windows of MN_PARSE_SYMBOL_WINDOW lines. */
void mn_parse__span_chunks(ctx *c, int symbol, int64_t l0, int64_t l1, uint32_t a, uint32_t e)
{
    if (l1 - l0 + 1 <= MN_PARSE_SYMBOL_WINDOW) {
        add_chunk(c, symbol, l0, l1, a, e);
        return;
    }
    for (int64_t w = l0; w <= l1; w += MN_PARSE_SYMBOL_WINDOW) {
        int64_t we = w + MN_PARSE_SYMBOL_WINDOW - 1;
        if (we > l1)
            we = l1;
        uint32_t wa = w == l0 ? a : mn_parse__line_start(c, w);
        uint32_t wb = we == l1 ? e : mn_parse__line_end(c, we);
        if (wa < wb)
            add_chunk(c, symbol, w, we, wa, wb);
    }
}

/* Whether s gets a chunk per member: it has one below its first line. */
static bool has_chunked_child(const ctx *c, int s)
{
    const mn_symbol_rec *sy = c->out->symbols.items;
    for (int ch = c->p->extra.items[s].first_child; ch >= 0;
         ch = c->p->extra.items[ch].next_sibling)
        if (!mn_parse__kind_is(sy[ch].kind, not_chunked) && sy[ch].start_line > sy[s].start_line)
            return true;
    return false;
}

/*
 * The chunks of a region: lines [l0, l1] of `container` (-1: the file), whose
 * children start at `first`.
 */
static void region_chunks(ctx *c, int container, int first, int64_t l0, int64_t l1, int depth)
{
    const mn_symbol_rec *sy = c->out->symbols.items;
    sym_extra *ex = c->p->extra.items;
    int64_t done_line = l0 - 1; /* lines up to here are chunked */
    uint32_t done_byte = l0 >= 1 ? mn_parse__line_start(c, l0) : 0;
    for (int s = first; s >= 0; s = ex[s].next_sibling) {
        if (mn_parse__kind_is(sy[s].kind, not_chunked) || (uint32_t)sy[s].end_byte <= done_byte)
            continue;
        int64_t cl = ex[s].chunk_line;
        uint32_t cb = ex[s].chunk_byte;
        if (cl <= done_line) { /* shares a line with what came before */
            cl = mn_parse__line_of(c, (uint32_t)sy[s].start_byte);
            cb = (uint32_t)sy[s].start_byte;
            if (cb < done_byte)
                cb = done_byte;
        } else {
            /* whole lines: keep the indentation */
            uint32_t ls = mn_parse__line_start(c, cl);
            bool blank = true;
            for (uint32_t i = ls; i < cb && blank; i++)
                blank = mn_parse__is_ws((unsigned char)c->src[i]);
            if (blank)
                cb = ls;
        }
        if (cl - 1 >= done_line + 1 && done_line >= l0) {
            int64_t head = section_comment(c, done_line + 1, cl - 1);
            if (head) {
                cl = head;
                cb = mn_parse__line_start(c, head);
            }
        }
        if (cl - 1 >= done_line + 1)
            mn_parse__gap_chunks(c, container, done_line + 1, cl - 1);
        int64_t el = sy[s].end_line > l1 ? l1 : sy[s].end_line;
        if (mn_parse__kind_is(sy[s].kind, containers) && depth < CONTAINER_DEPTH_MAX &&
            has_chunked_child(c, s)) {
            region_chunks(c, s, ex[s].first_child, cl > done_line ? cl : done_line + 1, el,
                          depth + 1);
        } else {
            uint32_t eb = (uint32_t)sy[s].end_byte, le = mn_parse__line_end(c, el);
            mn_parse__span_chunks(c, s, cl, el, cb, eb > le ? le : eb);
        }
        if (el > done_line)
            done_line = el;
        done_byte = (uint32_t)sy[s].end_byte;
    }
    if (done_line + 1 <= l1)
        mn_parse__gap_chunks(c, container, done_line + 1, l1);
}

void mn_parse__build_chunks(ctx *c)
{
    if (!c->len)
        return;
    size_t n = c->out->symbols.len;
    sym_extra *ex = c->p->extra.items;
    int top_first = -1, top_last = -1;
    MN_VEC(int) last = MN_VEC_INIT;
    mn_vec_reserve(&last, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        ex[i].first_child = ex[i].next_sibling = -1;
        last.items[i] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        int par = ex[i].parent;
        if (par < 0) {
            if (top_last >= 0)
                ex[top_last].next_sibling = (int)i;
            else
                top_first = (int)i;
            top_last = (int)i;
        } else {
            if (last.items[par] >= 0)
                ex[last.items[par]].next_sibling = (int)i;
            else
                ex[par].first_child = (int)i;
            last.items[par] = (int)i;
        }
    }
    mn_vec_release(&last);
    region_chunks(c, -1, top_first, 1, mn_parse__nlines(c), 0);
}
