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

typedef struct {
    int32_t *go; /* nclasses per node; -1: none */
    uint32_t *fail;
    uint32_t *nout; /* outputs per node, own and inherited */
    uint32_t **out;
    size_t n, cap;
    uint32_t nc;
} trie;

static uint8_t fold(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c - 'A' + 'a') : c;
}

static uint32_t trie_node(trie *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->go = mn_realloc(t->go, t->cap * t->nc * sizeof(*t->go));
        t->fail = mn_realloc(t->fail, t->cap * sizeof(*t->fail));
        t->nout = mn_realloc(t->nout, t->cap * sizeof(*t->nout));
        t->out = mn_realloc(t->out, t->cap * sizeof(*t->out));
    }
    for (uint32_t c = 0; c < t->nc; c++)
        t->go[t->n * t->nc + c] = -1;
    t->fail[t->n] = 0;
    t->nout[t->n] = 0;
    t->out[t->n] = NULL;
    return (uint32_t)t->n++;
}

static void add_out(trie *t, uint32_t node, uint32_t kw)
{
    t->out[node] = mn_realloc(t->out[node], (t->nout[node] + 1) * sizeof(uint32_t));
    t->out[node][t->nout[node]++] = kw;
}

int mn_scan__ac_build(mn_scan__ac *ac, mn_scan__keyword *kw, size_t nkw)
{
    memset(ac, 0, sizeof(*ac));
    ac->kw = kw;
    ac->nkw = nkw;
    /* Symbol classes: one per folded byte some keyword holds, 0 for the rest. */
    uint32_t nc = 1;
    for (size_t i = 0; i < nkw; i++)
        for (size_t k = 0; k < kw[i].len; k++) {
            uint8_t c = fold((uint8_t)kw[i].text[k]);
            if (!ac->cls[c]) {
                ac->cls[c] = (uint8_t)nc;
                nc++;
            }
        }
    for (int c = 'A'; c <= 'Z'; c++)
        ac->cls[c] = ac->cls[c - 'A' + 'a'];
    ac->nclasses = nc;

    trie t = {0};
    t.nc = nc;
    trie_node(&t);
    for (size_t i = 0; i < nkw; i++) {
        uint32_t node = 0;
        for (size_t k = 0; k < kw[i].len; k++) {
            uint32_t c = ac->cls[(uint8_t)kw[i].text[k]];
            int32_t next = t.go[node * nc + c];
            if (next < 0) {
                next = (int32_t)trie_node(&t);
                t.go[node * nc + c] = next;
            }
            node = (uint32_t)next;
        }
        add_out(&t, node, (uint32_t)i);
    }
    /* Breadth first: fail links, inherited outputs, and the full DFA (a
     * missing edge goes where the fail state's edge goes). */
    size_t n = t.n;
    uint32_t *queue = mn_malloc(n * sizeof(*queue));
    uint32_t *delta = mn_malloc(n * nc * sizeof(*delta));
    size_t qh = 0, qt = 0;
    for (uint32_t c = 0; c < nc; c++) {
        int32_t next = t.go[c];
        delta[c] = next < 0 ? 0 : (uint32_t)next;
        if (next > 0) {
            t.fail[next] = 0;
            queue[qt++] = (uint32_t)next;
        }
    }
    while (qh < qt) {
        uint32_t u = queue[qh++];
        for (uint32_t k = 0; k < t.nout[t.fail[u]]; k++)
            add_out(&t, u, t.out[t.fail[u]][k]);
        for (uint32_t c = 0; c < nc; c++) {
            int32_t next = t.go[u * nc + c];
            if (next < 0) {
                delta[u * nc + c] = delta[t.fail[u] * nc + c];
            } else {
                t.fail[next] = delta[t.fail[u] * nc + c];
                delta[u * nc + c] = (uint32_t)next;
                queue[qt++] = (uint32_t)next;
            }
        }
    }
    /* Renumber: states without output first (the root stays 0), then the rest. */
    uint32_t *renum = mn_malloc(n * sizeof(*renum));
    uint32_t next_id = 0;
    for (size_t i = 0; i < n; i++)
        if (!t.nout[i])
            renum[i] = next_id++;
    ac->first_out = next_id;
    size_t total_out = 0;
    for (size_t i = 0; i < n; i++)
        if (t.nout[i]) {
            renum[i] = next_id++;
            total_out += t.nout[i];
        }
    ac->nstates = (uint32_t)n;
    ac->delta = mn_malloc(n * nc * sizeof(*ac->delta));
    for (size_t i = 0; i < n; i++)
        for (uint32_t c = 0; c < nc; c++)
            ac->delta[(size_t)renum[i] * nc + c] = renum[delta[i * nc + c]] * nc;
    size_t nout_states = n - ac->first_out;
    ac->out_start = mn_calloc(nout_states ? nout_states : 1, sizeof(uint32_t));
    ac->out_count = mn_calloc(nout_states ? nout_states : 1, sizeof(uint32_t));
    ac->out_kw = mn_calloc(total_out ? total_out : 1, sizeof(uint32_t));
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (!t.nout[i])
            continue;
        uint32_t r = renum[i] - ac->first_out;
        ac->out_start[r] = (uint32_t)pos;
        ac->out_count[r] = t.nout[i];
        memcpy(&ac->out_kw[pos], t.out[i], t.nout[i] * sizeof(uint32_t));
        pos += t.nout[i];
    }
    for (size_t i = 0; i < n; i++)
        free(t.out[i]);
    free(t.out);
    free(t.nout);
    free(t.fail);
    free(t.go);
    free(queue);
    free(delta);
    free(renum);
    return 0;
}

void mn_scan__ac_release(mn_scan__ac *ac)
{
    for (size_t i = 0; i < ac->nkw; i++) {
        free(ac->kw[i].text);
        free(ac->kw[i].rules);
    }
    free(ac->kw);
    free(ac->delta);
    free(ac->out_start);
    free(ac->out_count);
    free(ac->out_kw);
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

static bool is_group_sep(uint8_t c)
{
    return c == ' ' || c == '-' || c == '.' || c == '/' || c == '(' || c == ')';
}

void mn_scan__prefilter(mn_scan__anchors *out, const mn_scanner *s, const char *text, size_t len)
{
    size_t last_small[256];
    emit_state e = {out, s, text, last_small};
    if (s->nrules > MN_ARRAY_SIZE(last_small))
        e.last = mn_calloc(s->nrules, sizeof(size_t));
    else
        memset(last_small, 0, s->nrules * sizeof(size_t));

    const mn_scan__ac *ac = &s->ac;
    if (ac->nkw) {
        const uint32_t *delta = ac->delta;
        const uint8_t *cls = ac->cls;
        const uint32_t nc = ac->nclasses;
        const uint32_t first_out = ac->first_out * nc;
        const uint8_t *p = (const uint8_t *)text;
        uint32_t st = 0;
        for (size_t i = 0; i < len; i++) {
            st = delta[st + cls[p[i]]];
            if (st < first_out)
                continue;
            uint32_t o = st / nc - ac->first_out;
            for (uint32_t k = 0; k < ac->out_count[o]; k++) {
                const mn_scan__keyword *kw = &ac->kw[ac->out_kw[ac->out_start[o] + k]];
                size_t start = i + 1 - kw->len;
                if (kw->exact_case && memcmp(text + start, kw->text, kw->len) != 0)
                    continue;
                for (size_t r = 0; r < kw->nrules; r++)
                    emit(&e, kw->rules[r], start, i + 1);
            }
        }
    }

    if (s->min_digits) {
        /* the rules that wait for digits */
        uint32_t dr_small[64], *dr = dr_small;
        size_t ndr = 0;
        if (s->nrules > MN_ARRAY_SIZE(dr_small))
            dr = mn_malloc(s->nrules * sizeof(*dr));
        for (size_t r = 0; r < s->nrules; r++)
            if (s->rules[r].digits)
                dr[ndr++] = (uint32_t)r;
        const uint8_t *p = (const uint8_t *)text;
        size_t i = 0;
        while (i < len) {
            if (!is_digit(p[i])) {
                i++;
                continue;
            }
            size_t start = i, end = i;
            unsigned nd = 0;
            for (;;) {
                while (i < len && is_digit(p[i])) {
                    nd++;
                    i++;
                }
                end = i;
                size_t j = i, k = 0;
                while (j < len && k < 2 && is_group_sep(p[j])) {
                    j++;
                    k++;
                }
                if (k == 0 || j >= len || !is_digit(p[j]))
                    break;
                i = j;
            }
            if (nd < s->min_digits)
                continue;
            for (size_t r = 0; r < ndr; r++)
                if (nd >= s->rules[dr[r]].digits)
                    emit(&e, dr[r], start, end);
        }
        if (dr != dr_small)
            free(dr);
    }
    if (e.last != last_small)
        free(e.last);
}
