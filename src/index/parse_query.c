/*
 * parse_query.c - a language's query, compiled once, and the predicates of
 * its patterns (part of parse.c; parse_internal.h).
 *
 * The grammar's tags.scm and our queries/<language>.scm are cut into their
 * top-level patterns; only those with a capture the parser uses are kept,
 * and a pattern the grammar rejects is dropped and the rest compiled again
 * (parse.c's opening comment says why). Each capture gets its role; each
 * pattern its predicates, which the tree-sitter C runtime does not apply:
 * predicates_hold applies them to a match.
 */
#include "index/parse_internal.h"

/* ---- query compilation ---- */

typedef struct {
    uint32_t start, len;
} form;

typedef MN_VEC(form) form_vec;

/*
 * Cut query text into its top-level patterns: each runs from an opening
 * '(' or '[' at depth 0 to the next one (so trailing captures and
 * quantifiers stay with their pattern). Strings and ';' comments are skipped.
 */
static void split_forms(const char *q, size_t n, form_vec *out)
{
    int depth = 0;
    long cur = -1;
    for (size_t i = 0; i < n; i++) {
        char ch = q[i];
        if (ch == ';') {
            while (i < n && q[i] != '\n')
                i++;
        } else if (ch == '"') {
            for (i++; i < n && q[i] != '"'; i++)
                if (q[i] == '\\')
                    i++;
        } else if (ch == '(' || ch == '[') {
            if (depth == 0) {
                if (cur >= 0) {
                    form f = {(uint32_t)cur, (uint32_t)(i - (size_t)cur)};
                    mn_vec_push(out, f);
                }
                cur = (long)i;
            }
            depth++;
        } else if (ch == ')' || ch == ']') {
            if (depth > 0)
                depth--;
        }
    }
    if (cur >= 0) {
        form f = {(uint32_t)cur, (uint32_t)(n - (size_t)cur)};
        mn_vec_push(out, f);
    }
}

static bool form_is_useful(const char *q, form f)
{
    static const char *const wanted[] = {"@definition.", "@reference.call", "@reference.send",
                                         "@import", "@inherit"};
    for (size_t w = 0; w < MN_ARRAY_SIZE(wanted); w++) {
        size_t wl = strlen(wanted[w]);
        for (uint32_t i = 0; i + wl <= f.len; i++)
            if (q[f.start + i] == '@' && memcmp(q + f.start + i, wanted[w], wl) == 0)
                return true;
    }
    return false;
}

static uint8_t role_of(const char *name, uint32_t len, const char **kind)
{
    *kind = NULL;
#define IS(lit) (len == sizeof(lit) - 1 && memcmp(name, lit, len) == 0)
    if (IS("name"))
        return ROLE_NAME;
    if (len > 11 && memcmp(name, "definition.", 11) == 0) {
        *kind = name + 11;
        return ROLE_DEF;
    }
    if (IS("reference.call") || IS("reference.send"))
        return ROLE_CALL;
    if (IS("import"))
        return ROLE_IMPORT;
    if (IS("import.keep"))
        return ROLE_IMPORT_KEEP;
    if (IS("import.relative"))
        return ROLE_IMPORT_RELATIVE;
    if (IS("import.from"))
        return ROLE_IMPORT_FROM;
    if (IS("import.rust"))
        return ROLE_IMPORT_RUST;
    if (IS("import.decl"))
        return ROLE_IMPORT_DECL;
    if (IS("import.php"))
        return ROLE_IMPORT_PHP;
    if (IS("inherit"))
        return ROLE_INHERIT;
    if (IS("inherit.owner"))
        return ROLE_INHERIT_OWNER;
#undef IS
    return ROLE_NONE;
}

/* Read the predicates of every pattern; disable the patterns we cannot evaluate. */
static void load_predicates(lang_state *L)
{
    TSQuery *q = L->query;
    uint32_t npat = ts_query_pattern_count(q);
    L->pats = mn_calloc(npat ? npat : 1, sizeof(*L->pats));
    for (uint32_t pi = 0; pi < npat; pi++) {
        uint32_t nsteps;
        const TSQueryPredicateStep *st = ts_query_predicates_for_pattern(q, pi, &nsteps);
        L->pats[pi].first = (uint32_t)L->preds.len;
        bool disable = false;
        uint32_t i = 0;
        while (i < nsteps) {
            uint32_t j = i;
            while (j < nsteps && st[j].type != TSQueryPredicateStepTypeDone)
                j++;
            /* steps i..j-1: name, args */
            if (j > i && st[i].type == TSQueryPredicateStepTypeString) {
                uint32_t nl;
                const char *name = ts_query_string_value_for_id(q, st[i].value_id, &nl);
                /* [any-][not-]eq?, [any-][not-]match?, [not-]any-of? */
                const char *op = name;
                size_t ol = nl;
                bool negate = false;
                if (ol > 4 && memcmp(op, "any-", 4) == 0 &&
                    !(ol == 7 && !memcmp(op, "any-of?", 7))) {
                    op += 4; /* any-: tested on the first node, like the rest */
                    ol -= 4;
                }
                if (ol > 4 && memcmp(op, "not-", 4) == 0) {
                    negate = true;
                    op += 4;
                    ol -= 4;
                }
                uint32_t nargs = j - i - 1;
                const TSQueryPredicateStep *args = st + i + 1;
                predicate pr = {0};
                pr.negate = negate;
                pr.cap2 = UINT32_MAX;
                if (name[nl - 1] == '!') {
                    /* a directive (#set!, #strip!...): nothing to check */
                } else if (ol == 3 && memcmp(op, "eq?", 3) == 0) {
                    if (nargs != 2 || args[0].type != TSQueryPredicateStepTypeCapture) {
                        disable = true;
                    } else {
                        pr.op = P_EQ;
                        pr.cap = args[0].value_id;
                        if (args[1].type == TSQueryPredicateStepTypeCapture)
                            pr.cap2 = args[1].value_id;
                        else
                            pr.str = ts_query_string_value_for_id(q, args[1].value_id, &pr.len);
                        mn_vec_push(&L->preds, pr);
                    }
                } else if (ol == 6 && memcmp(op, "match?", 6) == 0) {
                    if (nargs != 2 || args[0].type != TSQueryPredicateStepTypeCapture ||
                        args[1].type != TSQueryPredicateStepTypeString) {
                        disable = true;
                    } else {
                        pr.op = P_MATCH;
                        pr.cap = args[0].value_id;
                        uint32_t rl;
                        const char *rx = ts_query_string_value_for_id(q, args[1].value_id, &rl);
                        char *z = mn_strndup(rx, rl);
                        pr.re = mn_malloc(sizeof(*pr.re));
                        if (regcomp(pr.re, z, REG_EXTENDED | REG_NOSUB) != 0) {
                            free(pr.re);
                            pr.re = NULL; /* treated as satisfied */
                        }
                        free(z);
                        mn_vec_push(&L->preds, pr);
                    }
                } else if (ol == 7 && memcmp(op, "any-of?", 7) == 0) {
                    if (nargs < 1 || args[0].type != TSQueryPredicateStepTypeCapture) {
                        disable = true;
                    } else {
                        pr.op = P_ANY_OF;
                        pr.cap = args[0].value_id;
                        pr.first = (uint32_t)L->strs.len;
                        for (uint32_t k = 1; k < nargs; k++) {
                            if (args[k].type != TSQueryPredicateStepTypeString) {
                                disable = true;
                                break;
                            }
                            str_ref s;
                            s.ptr = ts_query_string_value_for_id(q, args[k].value_id, &s.len);
                            mn_vec_push(&L->strs, s);
                        }
                        pr.n = (uint32_t)L->strs.len - pr.first;
                        mn_vec_push(&L->preds, pr);
                    }
                } else {
                    disable = true; /* #is?, #is-not? ...: cannot evaluate */
                }
            }
            i = j + 1;
        }
        L->pats[pi].n = (uint32_t)L->preds.len - L->pats[pi].first;
        if (disable) {
            ts_query_disable_pattern(q, pi);
            L->info.disabled++;
        }
    }
}

static void compile_language(lang_state *L)
{
    L->tried = true;
    const char *tags = L->grammar->tags_query;
    const char *own = L->spec ? L->spec->own : NULL;
    mn_buf all = MN_BUF_INIT, joined = MN_BUF_INIT;
    form_vec forms = MN_VEC_INIT;
    MN_VEC(uint32_t) at = MN_VEC_INIT; /* start of each kept form in joined */
    if (tags)
        mn_buf_puts(&all, tags);
    mn_buf_putc(&all, '\n');
    if (own)
        mn_buf_puts(&all, own);
    split_forms(all.ptr, all.len, &forms);
    size_t kept = 0;
    for (size_t i = 0; i < forms.len; i++)
        if (form_is_useful(all.ptr, forms.items[i]))
            forms.items[kept++] = forms.items[i];
    forms.len = kept;

    const TSLanguage *lang = L->grammar->language();
    for (int attempt = 0; attempt < 256 && forms.len; attempt++) {
        mn_buf_clear(&joined);
        at.len = 0;
        for (size_t i = 0; i < forms.len; i++) {
            mn_vec_push(&at, (uint32_t)joined.len);
            mn_buf_put(&joined, all.ptr + forms.items[i].start, forms.items[i].len);
            mn_buf_putc(&joined, '\n');
        }
        uint32_t off = 0;
        TSQueryError err = TSQueryErrorNone;
        L->query = ts_query_new(lang, joined.ptr, (uint32_t)joined.len, &off, &err);
        if (L->query)
            break;
        /* drop the pattern holding the error and try again */
        size_t bad = 0;
        while (bad + 1 < forms.len && at.items[bad + 1] <= off)
            bad++;
        memmove(forms.items + bad, forms.items + bad + 1,
                (forms.len - bad - 1) * sizeof(*forms.items));
        forms.len--;
        L->info.dropped_forms++;
    }
    if (L->query) {
        uint32_t ncap = ts_query_capture_count(L->query);
        L->roles = mn_calloc(ncap ? ncap : 1, 1);
        L->def_kind = mn_calloc(ncap ? ncap : 1, sizeof(*L->def_kind));
        for (uint32_t i = 0; i < ncap; i++) {
            uint32_t nl;
            const char *name = ts_query_capture_name_for_id(L->query, i, &nl);
            L->roles[i] = role_of(name, nl, &L->def_kind[i]);
        }
        load_predicates(L);
        L->info.compiled = true;
        L->info.patterns = ts_query_pattern_count(L->query);
    }
    mn_vec_release(&at);
    mn_vec_release(&forms);
    mn_buf_release(&joined);
    mn_buf_release(&all);
}

lang_state *mn_parse__state_for(mn_parser *p, const char *language, const lang_spec **spec_out)
{
    const lang_spec *spec = mn_parse__spec_of(language);
    const char *gname = spec ? spec->grammar : language;
    *spec_out = spec;
    const mn_grammar *g = mn_grammar_find(gname);
    if (!g)
        return NULL;
    size_t n;
    const mn_grammar *all = mn_grammars(&n);
    size_t ix = (size_t)(g - all);
    if (ix >= p->nstates)
        return NULL;
    lang_state *L = &p->states[ix];
    if (!L->tried) {
        L->spec = spec;
        L->grammar = g;
        L->info.has_grammar = true;
        compile_language(L);
    }
    return L;
}

void mn_parse__free_state(lang_state *L)
{
    for (size_t i = 0; i < L->preds.len; i++) {
        if (L->preds.items[i].re) {
            regfree(L->preds.items[i].re);
            free(L->preds.items[i].re);
        }
    }
    mn_vec_release(&L->preds);
    mn_vec_release(&L->strs);
    free(L->pats);
    free(L->roles);
    free(L->def_kind);
    if (L->query)
        ts_query_delete(L->query);
}

/* ---- predicates ---- */

static bool capture_text(const ctx *c, const TSQueryMatch *m, uint32_t cap, const char **s,
                         uint32_t *n)
{
    for (uint16_t i = 0; i < m->capture_count; i++) {
        if (m->captures[i].index == cap) {
            uint32_t a = ts_node_start_byte(m->captures[i].node);
            uint32_t b = ts_node_end_byte(m->captures[i].node);
            *s = c->src + a;
            *n = b - a;
            return true;
        }
    }
    return false;
}

bool mn_parse__predicates_hold(const ctx *c, const TSQueryMatch *m)
{
    const lang_state *L = c->L;
    const pattern_preds *pp = &L->pats[m->pattern_index];
    for (uint32_t k = 0; k < pp->n; k++) {
        const predicate *pr = &L->preds.items[pp->first + k];
        const char *s;
        uint32_t n;
        if (!capture_text(c, m, pr->cap, &s, &n))
            continue; /* an optional capture that did not match */
        bool ok = true;
        if (pr->op == P_EQ) {
            const char *t = pr->str;
            uint32_t tn = pr->len;
            if (pr->cap2 != UINT32_MAX && !capture_text(c, m, pr->cap2, &t, &tn))
                continue;
            ok = n == tn && memcmp(s, t, n) == 0;
        } else if (pr->op == P_MATCH) {
            if (!pr->re)
                continue;
            char z[NAME_MAX_LEN];
            size_t zl = n < sizeof(z) - 1 ? n : sizeof(z) - 1;
            memcpy(z, s, zl);
            z[zl] = '\0';
            ok = regexec(pr->re, z, 0, NULL, 0) == 0;
        } else {
            ok = false;
            for (uint32_t i = 0; i < pr->n && !ok; i++) {
                const str_ref *r = &L->strs.items[pr->first + i];
                ok = r->len == n && memcmp(r->ptr, s, n) == 0;
            }
        }
        if (ok == pr->negate)
            return false;
    }
    return true;
}
