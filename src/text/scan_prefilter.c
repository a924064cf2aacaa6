/*
 * scan_prefilter.c - the one pass over a text that decides which rules run
 * and where: an Aho-Corasick automaton over every rule's keywords and
 * prefixes, and a scan for runs of digits (numbers, possibly grouped by
 * spaces, dashes, dots, slashes or parentheses, as card, phone and id
 * numbers are written).
 *
 * The automaton is a full DFA over ASCII-case-folded bytes. Bytes that no
 * keyword holds share one symbol class, so the table is states x classes
 * (a few hundred KB at most, and the states a text visits are few and hot).
 * Entries hold the next state already multiplied by the class count, and
 * states with an output are numbered last, so the loop per byte is one load
 * and one compare. A prefix (exact case) is found case-insensitively and
 * then compared as written.
 *
 * Anchors of one rule that are close (their windows would overlap, on the
 * same line unless the rule is multiline) are merged as they are found, so
 * a text full of one keyword yields few anchors and few regex runs.
 */
#include "common.h"

#include "text/scan_internal.h"

static uint8_t fold(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c - 'A' + 'a') : c;
}

/*
 * Building the automaton (once per process when a project's file adds
 * keywords: the built-in one is generated data) costs about one pass over
 * the states x classes table: the trie's nodes are allocated at once (at
 * most one per keyword byte), each node keeps its children as a list, the
 * states are renumbered before the table is written, and in breadth-first
 * order a state's row is its fail state's row (one copy) with its own
 * children written over it. A state's outputs are its own keywords, then
 * those of its fail state (a suffix link to the nearest state with
 * keywords of its own).
 */
int mn_scan__ac_build(mn_scan__ac *ac, mn_scan__keyword *kw, size_t nkw)
{
    memset(ac, 0, sizeof(*ac));
    ac->kw = kw;
    ac->nkw = nkw;
    /* Symbol classes: one per folded byte some keyword holds, 0 for the rest. */
    uint32_t nc = 1;
    size_t maxnodes = 1;
    for (size_t i = 0; i < nkw; i++) {
        if (kw[i].len > ac->maxlen)
            ac->maxlen = (uint32_t)kw[i].len;
        maxnodes += kw[i].len;
        for (size_t k = 0; k < kw[i].len; k++) {
            uint8_t c = fold((uint8_t)kw[i].text[k]);
            if (!ac->cls[c]) {
                ac->cls[c] = (uint8_t)nc;
                nc++;
            }
        }
    }
    for (int c = 'A'; c <= 'Z'; c++)
        ac->cls[c] = ac->cls[c - 'A' + 'a'];
    ac->nclasses = nc;

    /* The trie: children as lists (first child, next sibling, symbol). */
    uint32_t *child = mn_calloc(maxnodes, sizeof(uint32_t)); /* 0: none (the root is no child) */
    uint32_t *sibling = mn_calloc(maxnodes, sizeof(uint32_t));
    uint8_t *sym = mn_calloc(maxnodes, 1);
    uint32_t *own = mn_calloc(maxnodes, sizeof(uint32_t)); /* first own keyword + 1; 0: none */
    uint32_t *next_own =
        mn_calloc(nkw ? nkw : 1, sizeof(uint32_t)); /* next keyword + 1 of a node */
    size_t n = 1;
    for (size_t i = 0; i < nkw; i++) {
        uint32_t node = 0;
        for (size_t k = 0; k < kw[i].len; k++) {
            uint8_t c = ac->cls[(uint8_t)kw[i].text[k]];
            uint32_t x = child[node];
            while (x && sym[x] != c)
                x = sibling[x];
            if (!x) {
                x = (uint32_t)n++;
                sym[x] = c;
                sibling[x] = child[node];
                child[node] = x;
            }
            node = x;
        }
        /* keywords in index order: append */
        uint32_t *at = &own[node];
        while (*at)
            at = &next_own[*at - 1];
        *at = (uint32_t)i + 1;
    }
    /* Breadth first: fail links (the longest proper suffix that is a trie
     * node: up the parent's fail chain to a node with the same child),
     * suffix links to the nearest such state with keywords of its own, and
     * the count of each state's outputs. */
    uint32_t *queue = mn_malloc(n * sizeof(*queue));
    uint32_t *fail = mn_calloc(n, sizeof(*fail));
    uint32_t *dict =
        mn_calloc(n, sizeof(*dict)); /* nearest proper suffix state with own keywords + 1 */
    uint32_t *nout = mn_calloc(n, sizeof(*nout));
    uint32_t *root = mn_calloc(nc, sizeof(*root));
    size_t qh = 0, qt = 0, total_out = 0;
    for (uint32_t x = child[0]; x; x = sibling[x]) {
        root[sym[x]] = x;
        queue[qt++] = x;
    }
    while (qh < qt) {
        uint32_t u = queue[qh++];
        uint32_t f = fail[u];
        dict[u] = own[f] ? f + 1 : dict[f];
        for (uint32_t k = own[u]; k; k = next_own[k - 1])
            nout[u]++;
        nout[u] += nout[f];
        total_out += nout[u];
        for (uint32_t x = child[u]; x; x = sibling[x]) {
            uint32_t g = f, y = 0;
            for (; g; g = fail[g]) {
                for (y = child[g]; y && sym[y] != sym[x]; y = sibling[y])
                    ;
                if (y)
                    break;
            }
            fail[x] = g ? y : root[sym[x]]; /* most chains end at the root: its children by class */
            queue[qt++] = x;
        }
    }
    /* Renumber: states without output first (the root stays 0), then the rest. */
    uint32_t *renum = mn_malloc(n * sizeof(*renum));
    uint32_t next_id = 0;
    for (size_t i = 0; i < n; i++)
        if (!nout[i])
            renum[i] = next_id++;
    ac->first_out = next_id;
    for (size_t i = 0; i < n; i++)
        if (nout[i])
            renum[i] = next_id++;
    ac->nstates = (uint32_t)n;
    /* The full DFA in the new numbering, breadth first: a state's row is its
     * fail state's row (complete: the fail state is shallower) with its own
     * children written over it; a missing edge of the root goes to the root.
     * 16-bit state numbers in rows padded to a power of two (next =
     * d[(st << shift) + class]) when they fit, else 32-bit entries that hold
     * the next state times the class count. */
    if (n <= 65535) {
        ac->shift16 = 6; /* at least 64 entries a row: ac_scan's constant shifts */
        while ((1u << ac->shift16) < nc)
            ac->shift16++;
        size_t stride = (size_t)1 << ac->shift16;
        uint16_t *d16 = mn_calloc(n * stride, sizeof(*d16));
        for (uint32_t x = child[0]; x; x = sibling[x])
            d16[sym[x]] = (uint16_t)renum[x];
        for (size_t q = 0; q < qt; q++) {
            uint32_t u = queue[q];
            uint16_t *row = &d16[(size_t)renum[u] * stride];
            memcpy(row, &d16[(size_t)renum[fail[u]] * stride], nc * sizeof(*row));
            for (uint32_t x = child[u]; x; x = sibling[x])
                row[sym[x]] = (uint16_t)renum[x];
        }
        ac->delta16 = d16;
    } else {
        uint32_t *d32 = mn_calloc(n * nc, sizeof(*d32));
        for (uint32_t x = child[0]; x; x = sibling[x])
            d32[sym[x]] = renum[x] * nc;
        for (size_t q = 0; q < qt; q++) {
            uint32_t u = queue[q];
            uint32_t *row = &d32[(size_t)renum[u] * nc];
            memcpy(row, &d32[(size_t)renum[fail[u]] * nc], nc * sizeof(*row));
            for (uint32_t x = child[u]; x; x = sibling[x])
                row[sym[x]] = renum[x] * nc;
        }
        ac->delta = d32;
    }
    /* Each output state's keywords: its own in index order, then its suffix chain's. */
    size_t nout_states = n - ac->first_out;
    uint32_t *out_start = mn_calloc(nout_states ? nout_states : 1, sizeof(uint32_t));
    uint32_t *out_count = mn_calloc(nout_states ? nout_states : 1, sizeof(uint32_t));
    uint32_t *out_kw = mn_calloc(total_out ? total_out : 1, sizeof(uint32_t));
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (!nout[i])
            continue;
        uint32_t r = renum[i] - ac->first_out;
        out_start[r] = (uint32_t)pos;
        out_count[r] = nout[i];
        for (uint32_t st = (uint32_t)i + 1; st; st = dict[st - 1])
            for (uint32_t k = own[st - 1]; k; k = next_own[k - 1])
                out_kw[pos++] = k - 1;
    }
    ac->out_start = out_start;
    ac->out_count = out_count;
    ac->out_kw = out_kw;
    free(child);
    free(sibling);
    free(sym);
    free(own);
    free(next_own);
    free(queue);
    free(fail);
    free(dict);
    free(nout);
    free(root);
    free(renum);
    return 0;
}

void mn_scan__ac_release(mn_scan__ac *ac)
{
    if (!ac->shared) {
        /* built by mn_scan__ac_build: every table is malloc'd */
        for (size_t i = 0; i < ac->nkw; i++) {
            free((void *)ac->kw[i].text);
            free((void *)ac->kw[i].rules);
        }
        free((void *)ac->kw);
        free((void *)ac->delta);
        free((void *)ac->delta16);
        free((void *)ac->out_start);
        free((void *)ac->out_count);
        free((void *)ac->out_kw);
    }
    memset(ac, 0, sizeof(*ac));
}

/* Per call: the anchors and, per rule, the index of its last anchor (to
 * merge a new one into it). */
typedef struct {
    mn_scan__anchors *out;
    const mn_scanner *s;
    const char *text;
    size_t *last; /* per rule: index + 1 of its last anchor; 0 = none */
} emit_state;

static void emit(emit_state *e, uint32_t rule, size_t start, size_t end)
{
    const mn_scan__rule *r = &e->s->rules[rule];
    if (r->disabled)
        return; /* a project's file disabled it; the shared automaton still names it */
    size_t li = e->last[rule];
    if (li) {
        mn_scan__anchor *a = &e->out->items[li - 1];
        /* Merge when the windows would overlap (and no line break lies
         * between, for a rule bound to lines). */
        size_t gs = start > a->end ? a->end : end, ge = start > a->end ? start : a->start;
        if (ge < gs)
            ge = gs; /* the spans overlap */
        if (ge - gs <= r->before + r->after &&
            (r->multiline || ge == gs || !memchr(e->text + gs, '\n', ge - gs))) {
            if (start < a->start)
                a->start = start;
            if (end > a->end)
                a->end = end;
            return;
        }
    }
    mn_scan__anchors *v = e->out;
    if (v->len == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 64;
        v->items = mn_realloc(v->items, v->cap * sizeof(*v->items));
    }
    v->items[v->len].rule = rule;
    v->items[v->len].start = start;
    v->items[v->len].end = end;
    e->last[rule] = ++v->len;
}

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

static bool is_upper(uint8_t c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_group_sep(uint8_t c)
{
    return c == ' ' || c == '-' || c == '.' || c == '/' || c == '(' || c == ')';
}

/* The keywords ending at byte i in output state st (a state number >= first_out). */
static void __attribute__((noinline)) report(emit_state *e, uint32_t st, size_t i)
{
    const mn_scan__ac *ac = &e->s->ac;
    uint32_t o = st - ac->first_out;
    for (uint32_t k = 0; k < ac->out_count[o]; k++) {
        const mn_scan__keyword *kw = &ac->kw[ac->out_kw[ac->out_start[o] + k]];
        size_t start = i + 1 - kw->len;
        if (kw->exact_case && memcmp(e->text + start, kw->text, kw->len) != 0)
            continue;
        if (kw->marker) {
            mn_scan__anchors *v = e->out;
            if (v->nmarkers == v->cmarkers) {
                v->cmarkers = v->cmarkers ? v->cmarkers * 2 : 8;
                v->markers = mn_realloc(v->markers, v->cmarkers * sizeof(*v->markers));
            }
            v->markers[v->nmarkers++] = start;
        }
        for (size_t r = 0; r < kw->nrules; r++)
            emit(e, kw->rules[r], start, i + 1);
    }
}

/*
 * The automaton over the whole text. One byte costs a load that depends on
 * the previous one, so a single walk is bound by load latency; a long text
 * is cut into 4 segments walked together, one byte of each per step, which
 * the processor overlaps. Each segment's walk starts maxlen bytes early
 * (the state after maxlen bytes does not depend on what came before) and
 * reports only keywords that end inside the segment. The table is read as
 * 16-bit entries when it is small enough (most of the time: half the cache
 * lines), else as 32-bit ones: the same code for both (AC_WALK).
 */
#define AC_WALK(T, table, NEXT, FIRST_OUT, NUM)                                                   \
    do {                                                                                          \
        const T *delta = (const T *)(table);                                                      \
        const uint32_t fo = (FIRST_OUT);                                                          \
        /* four scalars and four pointers: an array would live in memory */                       \
        uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;                                                  \
        const uint8_t *p0 = p + from[0], *p1 = p + from[1], *p2 = p + from[2], *p3 = p + from[3]; \
        for (size_t t = 0; t < common; t++) {                                                     \
            s0 = NEXT(s0, cls[p0[t]]);                                                            \
            s1 = NEXT(s1, cls[p1[t]]);                                                            \
            s2 = NEXT(s2, cls[p2[t]]);                                                            \
            s3 = NEXT(s3, cls[p3[t]]);                                                            \
            if (__builtin_expect((s0 >= fo) | (s1 >= fo) | (s2 >= fo) | (s3 >= fo), 0)) {         \
                if (s0 >= fo && from[0] + t >= rep[0])                                            \
                    pend_push(&pend[0], NUM(s0), from[0] + t);                                    \
                if (s1 >= fo && from[1] + t >= rep[1])                                            \
                    pend_push(&pend[1], NUM(s1), from[1] + t);                                    \
                if (s2 >= fo && from[2] + t >= rep[2])                                            \
                    pend_push(&pend[2], NUM(s2), from[2] + t);                                    \
                if (s3 >= fo && from[3] + t >= rep[3])                                            \
                    pend_push(&pend[3], NUM(s3), from[3] + t);                                    \
            }                                                                                     \
        }                                                                                         \
        st[0] = s0;                                                                               \
        st[1] = s1;                                                                               \
        st[2] = s2;                                                                               \
        st[3] = s3;                                                                               \
        for (int j = 0; j < 4; j++) {                                                             \
            uint32_t x = st[j];                                                                   \
            for (size_t i = from[j] + common; i < to[j]; i++) {                                   \
                x = NEXT(x, cls[p[i]]);                                                           \
                if (x >= fo && i >= rep[j])                                                       \
                    pend_push(&pend[j], NUM(x), i);                                               \
            }                                                                                     \
        }                                                                                         \
    } while (0)

/* Output states seen by one walk, reported once all walks are done so that
 * anchors come out in text order (segment after segment). */
typedef struct {
    struct pend_item {
        uint32_t st;
        size_t pos;
    } * items;
    size_t len, cap;
} pend_list;

static void __attribute__((noinline)) pend_push(pend_list *l, uint32_t st, size_t pos)
{
    if (l->len == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->items = mn_realloc(l->items, l->cap * sizeof(*l->items));
    }
    l->items[l->len].st = st;
    l->items[l->len].pos = pos;
    l->len++;
}

static void ac_scan(emit_state *e, size_t len)
{
    pend_list pend[4] = {{0}};
    const mn_scan__ac *ac = &e->s->ac;
    size_t warm = ac->maxlen;
    size_t from[4], to[4], rep[4], common;
    if (len < 256 || len / 4 <= warm) {
        /* one walk: the other three are empty */
        for (int j = 0; j < 4; j++)
            from[j] = to[j] = rep[j] = len;
        from[0] = rep[0] = 0;
        common = 0;
    } else {
        size_t seg = len / 4;
        for (int j = 0; j < 4; j++) {
            rep[j] = (size_t)j * seg;
            from[j] = rep[j] > warm ? rep[j] - warm : 0;
            to[j] = j == 3 ? len : rep[j] + seg;
        }
        common = to[0] - from[0];
        for (int j = 1; j < 4; j++)
            if (to[j] - from[j] < common)
                common = to[j] - from[j];
    }
    const uint8_t *cls = ac->cls;
    const uint8_t *p = (const uint8_t *)e->text;
    const uint32_t nc = ac->nclasses, shift = ac->shift16;
    uint32_t st[4];
    /* the row shift as a constant where it can be (a shift by a register
     * costs more on x86) */
#define NEXT16(x, c)  delta[((x) << shift) + (c)]
#define NEXT16C(x, c) delta[((x) << SHIFT) + (c)]
#define NEXT32(x, c)  delta[(x) + (c)]
#define NUM16(x)      (x)
#define NUM32(x)      ((x) / nc)
    if (ac->delta16 && shift <= 6) {
#define SHIFT 6
        AC_WALK(uint16_t, ac->delta16, NEXT16C, ac->first_out, NUM16);
#undef SHIFT
    } else if (ac->delta16 && shift == 7) {
#define SHIFT 7
        AC_WALK(uint16_t, ac->delta16, NEXT16C, ac->first_out, NUM16);
#undef SHIFT
    } else if (ac->delta16) {
        AC_WALK(uint16_t, ac->delta16, NEXT16, ac->first_out, NUM16);
    } else {
        AC_WALK(uint32_t, ac->delta, NEXT32, ac->first_out * nc, NUM32);
    }
#undef NEXT16
#undef NEXT16C
#undef NEXT32
#undef NUM16
#undef NUM32
    for (int j = 0; j < 4; j++) {
        for (size_t k = 0; k < pend[j].len; k++)
            report(e, pend[j].items[k].st, pend[j].items[k].pos);
        free(pend[j].items);
    }
}

/* The index of the first digit in p[i, len), or len. Eight bytes at a time
 * with the "has a byte between m and n" word trick (exact for m < n <= 128:
 * lanes with the high bit set never count), then byte by byte in the word
 * that has one. */
static size_t next_digit(const uint8_t *p, size_t i, size_t len)
{
    const uint64_t ones = 0x0101010101010101ull, highs = ones * 0x80, low7 = ones * 0x7f;
    const uint64_t m = '0' - 1, n = '9' + 1;
    while (i + 8 <= len) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t lo = w & low7;
        if (((ones * (127 + n) - lo) & ~w & (lo + ones * (127 - m)) & highs) != 0)
            break;
        i += 8;
    }
    while (i < len && !is_digit(p[i]))
        i++;
    return i;
}

void mn_scan__prefilter(mn_scan__anchors *out, const mn_scanner *s, const char *text, size_t len)
{
    size_t last_small[256];
    emit_state e = {out, s, text, last_small};
    if (s->nrules > MN_ARRAY_SIZE(last_small))
        e.last = mn_calloc(s->nrules, sizeof(size_t));
    else
        memset(last_small, 0, s->nrules * sizeof(size_t));

    if (s->ac.nkw)
        ac_scan(&e, len);

    if (s->min_digits) {
        /* the rules that wait for digits */
        uint32_t dr_small[64], *dr = dr_small;
        size_t ndr = 0;
        if (s->nrules > MN_ARRAY_SIZE(dr_small))
            dr = mn_malloc(s->nrules * sizeof(*dr));
        for (size_t r = 0; r < s->nrules; r++)
            if (s->rules[r].digits && !s->rules[r].disabled)
                dr[ndr++] = (uint32_t)r;
        const uint8_t *p = (const uint8_t *)text;
        size_t i = 0;
        while ((i = next_digit(p, i, len)) < len) {
            size_t start = i, end = i;
            unsigned nd = 0, groups = 0;
            bool only_dots = true;
            for (;;) {
                while (i < len && is_digit(p[i])) {
                    nd++;
                    i++;
                }
                end = i;
                groups++;
                size_t j = i, k = 0;
                while (j < len && k < 2 && is_group_sep(p[j])) {
                    j++;
                    k++;
                }
                if (k == 0 || j >= len || !is_digit(p[j]))
                    break;
                only_dots &= k == 1 && p[i] == '.';
                i = j;
            }
            if (nd < s->min_digits)
                continue;
            /* the run's surroundings, for the rules that ask (digits: {...}) */
            size_t b = start;
            if (b > 1 && (p[b - 1] == ' ' || p[b - 1] == '-') && is_upper(p[b - 2]))
                b--;
            unsigned upper_before = 0;
            while (b > 0 && upper_before < 8 && is_upper(p[b - 1])) {
                upper_before++;
                b--;
            }
            size_t a = end < len && (p[end] == ' ' || p[end] == '-') ? end + 1 : end;
            bool upper_after = a < len && is_upper(p[a]);
            bool plus_before = start > 0 && p[start - 1] == '+';
            bool dotted = only_dots && groups == 4;
            for (size_t r = 0; r < ndr; r++) {
                const mn_scan__rule *rule = &s->rules[dr[r]];
                if (nd < rule->digits || upper_before < rule->digit_shape.upper_before ||
                    (rule->digit_shape.upper_after && !upper_after) ||
                    (rule->digit_shape.plus_before && !plus_before) ||
                    (rule->digit_shape.dots && !dotted))
                    continue;
                emit(&e, dr[r], start, end);
            }
        }
        if (dr != dr_small)
            free(dr);
    }
    if (e.last != last_small)
        free(e.last);
}
