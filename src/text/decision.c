/*
 * decision.c - decisions stated in text (decision.h), from the cue tables
 * of decision_cues.c.
 *
 * Per sentence (sentences.h), per candidate language table (more Cyrillic
 * than Latin words: Russian; é, à, ç...: French; otherwise the detected
 * language first, then the other Latin table, since a commit subject is
 * often too short to tell English from French; the better result is kept):
 *
 *  1. a question (ends with '?' or opens with a question word) is skipped;
 *  2. every cue pattern is matched; a match that a mask covers is dropped;
 *     the strongest remaining cue (then the earliest) is the decision; the
 *     {S} and {A} slots of all remaining matches are what it supersedes and
 *     the alternatives, the {C} slot of the strongest what was chosen
 *     (after a verb of adoption "in favour of Y" sets Y aside instead);
 *  3. reasons: a reason marker after the cue (the reason runs to the end of
 *     the sentence, a ';', or the ')' closing the marker's parenthesis), or
 *     before it ("Because X, Y": up to the last comma before the cue); else
 *     the previous sentence of the paragraph when the decision says "so",
 *     "поэтому", "donc"; else the next sentence when it opens with "This
 *     prevents", "Это позволяет", "Cela évite";
 *  4. confidence, in hundredths, clamped to [0, 100]:
 *
 *       weight of the cue                        (decision_cues.c: 40..70)
 *     + 10  a verb of adoption before a contrast or preference, or after one
 *           that opens its clause ("use X instead of Y", "использую X вместо
 *           Y", "Instead of Y, create X")
 *     + 15  a reason was found
 *     +  5  something named: `code`, an identifier, a Latin word in a
 *           Russian sentence (quoted words are UI text, not names)
 *     +  5  a first-person subject (we, I, мы, nous, on)
 *     - 40  hedged: would, should, maybe, propose; бы, можно, a sentence
 *           opened by an infinitive (a task); pourrait, il faudrait
 *     - 50  behaviour: a contrast after a verb of output or a fix, with no
 *           verb of adoption ("returns X instead of Y", "fix: show X instead
 *           of Y", "выдаёт X вместо Y", "affiche X au lieu de Y"); any cue
 *           after "accidentally", "по ошибке", "par erreur"
 *     - 40  wording: typo, word, текст, libellé... in the sentence or the
 *           subject; icon, button, кнопка, bouton... after the commit
 *           prefix; both sides quoted text
 *     - 40  version: what is chosen is only a version ("switch to 3.12",
 *           "переход на ImageMagick 7 версии")
 *     - 30  past: the switch is mentioned, not stated ("after moving to X")
 *
 *     A decision comes out when confidence >= min_confidence (0.5 by
 *     default): a bare contrast (45) needs one piece of evidence; an
 *     explicit "decided to" (70) needs none and survives anything but a
 *     hedge or a veto. Measured: docs/internals/decisions.md.
 *
 * Spans are byte offsets of the caller's text. Work is bounded: sentences
 * are at most MN_SENT_MAX_BYTES, slots at most 24 tokens.
 */
#include <pthread.h>

#include "common.h"
#include "text/cues.h"
#include "text/decision.h"
#include "text/decision_lang.h"
#include "text/sentences.h"

/* ------------------------------------------------------------ compiled tables */

typedef struct {
    mn_cue_pat **p;
    size_t n;
} plist;

typedef struct {
    const mn_dec_lang *src;
    mn_cue_pat **cues;
    plist masks, reasons, reason_masks, lead, consequence, hedges, hedge_masks, questions, adopt,
        behave, mistakes, wording, ui, past, first, version, aux;
} clang_t;

static clang_t *compiled;
static pthread_once_t compiled_once = PTHREAD_ONCE_INIT;

static plist compile_list(const mn_dec_list *l)
{
    plist p = {mn_cue_pats_compile(l->pats, l->n), l->n};
    return p;
}

static void compile_all(void)
{
    compiled = mn_calloc(mn_dec_n_langs, sizeof(*compiled));
    for (size_t i = 0; i < mn_dec_n_langs; i++) {
        const mn_dec_lang *L = &mn_dec_langs[i];
        clang_t *c = &compiled[i];
        c->src = L;
        c->cues = mn_calloc(L->n_cues, sizeof(*c->cues));
        for (size_t k = 0; k < L->n_cues; k++) {
            c->cues[k] = mn_cue_pat_compile(L->cues[k].pat);
            if (!c->cues[k]) {
                fprintf(stderr, "mnemo: %s\n", mn_error_last());
                abort();
            }
        }
        c->masks = compile_list(&L->masks);
        c->reasons = compile_list(&L->reasons);
        c->reason_masks = compile_list(&L->reason_masks);
        c->lead = compile_list(&L->lead_reasons);
        c->consequence = compile_list(&L->consequence);
        c->hedges = compile_list(&L->hedges);
        c->hedge_masks = compile_list(&L->hedge_masks);
        c->questions = compile_list(&L->questions);
        c->adopt = compile_list(&L->adopt);
        c->behave = compile_list(&L->behave);
        c->mistakes = compile_list(&L->mistakes);
        c->ui = compile_list(&L->ui);
        c->wording = compile_list(&L->wording);
        c->past = compile_list(&L->past);
        c->first = compile_list(&L->first_person);
        c->version = compile_list(&L->version_words);
        c->aux = compile_list(&L->aux);
    }
}

static const clang_t *table_of(mn_lang lang)
{
    pthread_once(&compiled_once, compile_all);
    for (size_t i = 0; i < mn_dec_n_langs; i++)
        if (compiled[i].src->lang == lang)
            return &compiled[i];
    return NULL;
}

/* ------------------------------------------------------------ one sentence */

#define MAX_HITS 32

typedef struct {
    const mn_dec_cue *cue;
    mn_cue_match m;
} hit_t;

/* A sentence being read: its tokens and where its clauses start. */
typedef struct {
    const char *text;
    size_t start, end;
    mn_cue_words w;
    bool *cs; /* clause starts, w.n + 1 entries */
    size_t cs_cap;
    size_t prefix; /* first token after a commit-style prefix */
} sent_t;

static bool tok_is_punct(const mn_cue_words *w, size_t i, int32_t cp)
{
    return i < w->n && w->toks[i].kind == MN_TOK_PUNCT && w->toks[i].punct == cp;
}

/* First token after "[tag]", "#123", and an "area(scope):" prefix of a commit subject. */
static size_t skip_prefix(const char *text, const mn_cue_words *w)
{
    size_t i = 0;
    if (tok_is_punct(w, 0, '[')) {
        size_t k = 1;
        while (k < w->n && k < 12 && !tok_is_punct(w, k, ']'))
            k++;
        if (k < w->n && k < 12)
            i = k + 1;
    }
    while (i < w->n && w->toks[i].kind == MN_TOK_WORD &&
           (text[w->toks[i].start] == '#' || (uint8_t)text[w->toks[i].start] == 0xE2))
        i++;
    /* "area:", "feat(scope):", "fix!:" within the first words */
    for (size_t k = i; k < w->n && k < i + 7; k++) {
        const mn_cue_tok *t = &w->toks[k];
        if (t->kind == MN_TOK_PUNCT && t->punct == ':') {
            if (k > i && t->start - w->toks[i].start <= 48 && k + 1 < w->n)
                return k + 1;
            break;
        }
        if (t->kind == MN_TOK_PUNCT && t->punct != '(' && t->punct != ')' && t->punct != '!' &&
            t->punct != '/' && t->punct != ',')
            break;
        if (t->kind == MN_TOK_URL)
            break;
    }
    return i;
}

static void sent_scan(sent_t *s, const char *text, size_t start, size_t end)
{
    s->text = text;
    s->start = start;
    s->end = end;
    mn_cue_words_scan(&s->w, text, start, end);
    if (s->cs_cap < s->w.n + 1) {
        s->cs_cap = s->w.n + 1;
        s->cs = mn_realloc(s->cs, s->cs_cap * sizeof(*s->cs));
    }
    memset(s->cs, 0, (s->w.n + 1) * sizeof(*s->cs));
    s->cs[0] = true;
    s->prefix = skip_prefix(text, &s->w);
    s->cs[s->prefix] = true;
    for (size_t i = 0; i + 1 < s->w.n; i++) {
        const mn_cue_tok *t = &s->w.toks[i];
        if (mn_cue_is_boundary(t) && t->punct != ')' && t->punct != ']')
            s->cs[i + 1] = true;
    }
}

static bool any_match(const plist *l, const sent_t *s, size_t from, size_t to, mn_cue_match *m)
{
    for (size_t i = 0; i < l->n; i++)
        if (mn_cue_pat_find(l->p[i], &s->w, from, to, s->cs, m))
            return true;
    return false;
}

static bool is_question(const clang_t *L, const sent_t *s)
{
    /* the last mark, ignoring closing quotes, brackets and emoticons' ")" */
    for (size_t i = s->w.n; i > 0; i--) {
        const mn_cue_tok *t = &s->w.toks[i - 1];
        if (t->kind != MN_TOK_PUNCT)
            break;
        if (t->punct == '?')
            return true;
        if (t->punct == '.' || t->punct == '!')
            break;
    }
    /* "?" followed by more in the same sentence ("?? :)") */
    for (size_t i = 0; i < s->w.n; i++)
        if (tok_is_punct(&s->w, i, '?') && i + 1 < s->w.n &&
            (tok_is_punct(&s->w, i + 1, '?') || tok_is_punct(&s->w, i + 1, ':')))
            return true;
    mn_cue_match m;
    for (size_t i = 0; i < L->questions.n; i++)
        if (mn_cue_pat_find(L->questions.p[i], &s->w, 0, s->w.n, s->cs, &m) &&
            (m.first == 0 || m.first == s->prefix))
            return true;
    return false;
}

static bool in_slot(const mn_cue_match *m, size_t i)
{
    for (int k = 0; k < MN_SLOT__COUNT; k++)
        if (m->slot_first[k] >= 0 && (long)i >= m->slot_first[k] && (long)i <= m->slot_last[k])
            return true;
    return false;
}

/* First token of a match that is not in a slot: where the cue words are. */
static size_t cue_token(const mn_cue_match *m)
{
    for (size_t i = m->first; i <= m->last; i++)
        if (!in_slot(m, i))
            return i;
    return m->first;
}

/* Tokens [from, to) covered by a match of any pattern of l: marks them in out. */
static void mark_matches(const plist *l, const sent_t *s, bool *out)
{
    mn_cue_match m;
    for (size_t i = 0; i < l->n; i++) {
        size_t from = 0;
        while (from < s->w.n && mn_cue_pat_find(l->p[i], &s->w, from, s->w.n, s->cs, &m)) {
            for (size_t k = m.first; k <= m.last && k < s->w.n; k++)
                out[k] = true;
            from = m.first + 1;
        }
    }
}

static bool range_has(const bool *marks, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (marks[i])
            return true;
    return false;
}

static mn_text_span tok_span(const sent_t *s, size_t first, size_t last)
{
    mn_text_span sp = {s->w.toks[first].start, s->w.toks[last].end};
    return sp;
}

static void add_span(mn_text_span *arr, size_t *n, mn_text_span sp)
{
    if (sp.end <= sp.start || *n >= MN_DECISION_MAX_SPANS)
        return;
    for (size_t i = 0; i < *n; i++)
        if (sp.start < arr[i].end && arr[i].start < sp.end)
            return; /* overlaps one we have */
    arr[(*n)++] = sp;
}

/* Is every word of tokens [a, b] quoted (UI text rather than a thing)? */
static bool all_quoted(const sent_t *s, long a, long b)
{
    if (a < 0)
        return false;
    bool any = false;
    for (long i = a; i <= b; i++) {
        const mn_cue_tok *t = &s->w.toks[i];
        if (t->kind == MN_TOK_PUNCT)
            continue;
        if (!(t->flags & MN_TOKF_QUOTED))
            return false;
        any = true;
    }
    return any;
}

static bool has_version(const clang_t *L, const sent_t *s, long a, long b, const bool *verw)
{
    if (a < 0)
        return false;
    for (long i = a; i <= b; i++)
        if ((s->w.toks[i].kind == MN_TOK_WORD && (s->w.toks[i].flags & MN_TOKF_VERSION)) || verw[i])
            return true;
    MN_UNUSED(L);
    return false;
}

/* A named thing: a code span, an identifier, or a Latin word in a Cyrillic sentence (names of
   tools are written in Latin there); quoted words are UI text, not names. */
static bool named_in(const sent_t *s, size_t a, size_t b, bool cyrillic)
{
    for (size_t i = a; i <= b && i < s->w.n; i++) {
        const mn_cue_tok *t = &s->w.toks[i];
        if (t->kind == MN_TOK_CODE)
            return true;
        if (t->kind == MN_TOK_WORD && !(t->flags & MN_TOKF_QUOTED) &&
            ((t->flags & MN_TOKF_IDENT) ||
             (cyrillic && (t->flags & MN_TOKF_LATIN) && !(t->flags & MN_TOKF_CYR))))
            return true;
    }
    return false;
}

/* The clause holding token i: [*a, *b) */
static void clause_of(const sent_t *s, size_t i, size_t *a, size_t *b)
{
    size_t x = i;
    while (x > 0 && !s->cs[x])
        x--;
    size_t y = i + 1;
    while (y < s->w.n && !mn_cue_is_boundary(&s->w.toks[y]))
        y++;
    *a = x;
    *b = y;
}

/* End of a reason that starts at token i: the sentence end, a ';', or the ')' closing a '('. */
static size_t reason_end_tok(const sent_t *s, size_t i)
{
    int depth = 0;
    for (size_t k = 0; k < i; k++) {
        if (tok_is_punct(&s->w, k, '('))
            depth++;
        else if (tok_is_punct(&s->w, k, ')') && depth > 0)
            depth--;
    }
    size_t k = i;
    for (; k < s->w.n; k++) {
        if (tok_is_punct(&s->w, k, ';'))
            break;
        if (tok_is_punct(&s->w, k, ')') && depth > 0)
            break;
    }
    /* trailing marks are not part of the reason */
    while (k > i && s->w.toks[k - 1].kind == MN_TOK_PUNCT && s->w.toks[k - 1].punct != ')' &&
           s->w.toks[k - 1].punct != '"')
        k--;
    return k;
}

typedef struct {
    mn_decision d;
    int score;
    bool found;
    /* reason markers inside the sentence, for cutting the statement and the alternatives */
    size_t reason_tok;
} eval_t;

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Evaluate one sentence with one language table. prev/next are the
 * neighbouring sentences of the same paragraph (NULL when none).
 */
static void evaluate(eval_t *ev, const clang_t *L, sent_t *s, const mn_sentence *prev,
                     const mn_sentence *next, bool passage_wording, sent_t *scratch)
{
    memset(ev, 0, sizeof(*ev));
    if (s->w.n == 0 || is_question(L, s))
        return;
    size_t n = s->w.n;
    bool *masked = mn_calloc(13 * (n + 1), sizeof(bool));
    bool *adopt = masked + n + 1, *behave = adopt + n + 1, *hedge = behave + n + 1,
         *wording = hedge + n + 1, *verw = wording + n + 1, *first = verw + n + 1,
         *aux = first + n + 1, *hmask = aux + n + 1, *mistake = hmask + n + 1,
         *ui = mistake + n + 1, *conseq = ui + n + 1;
    mark_matches(&L->masks, s, masked);

    hit_t hits[MAX_HITS];
    size_t nh = 0;
    for (size_t c = 0; c < L->src->n_cues && nh < MAX_HITS; c++) {
        size_t from = 0;
        mn_cue_match m;
        while (nh < MAX_HITS && from < n &&
               mn_cue_pat_find(L->cues[c], &s->w, from, n, s->cs, &m)) {
            size_t ct = cue_token(&m);
            bool cov = false;
            for (size_t k = m.first; k <= m.last; k++)
                if (!in_slot(&m, k) && masked[k])
                    cov = true;
            if (!cov) {
                hits[nh].cue = &L->src->cues[c];
                hits[nh].m = m;
                nh++;
            }
            from = ct + 1;
        }
    }
    if (nh == 0)
        goto out;
    size_t best = 0;
    for (size_t i = 1; i < nh; i++) {
        if (hits[i].cue->weight > hits[best].cue->weight ||
            (hits[i].cue->weight == hits[best].cue->weight &&
             cue_token(&hits[i].m) < cue_token(&hits[best].m)))
            best = i;
    }
    const hit_t *H = &hits[best];
    mn_decision *d = &ev->d;
    d->kind = H->cue->kind;
    d->lang = L->src->lang;
    d->cue = H->cue->pat;
    d->why = MN_DECISION_WHY_CUE;
    int score = H->cue->weight;
    size_t ct = cue_token(&H->m);

    mark_matches(&L->adopt, s, adopt);
    mark_matches(&L->behave, s, behave);
    mark_matches(&L->hedges, s, hedge);
    mark_matches(&L->hedge_masks, s, hmask);
    for (size_t i = 0; i < n; i++)
        if (hmask[i])
            hedge[i] = false;
    mark_matches(&L->wording, s, wording);
    mark_matches(&L->mistakes, s, mistake);
    mark_matches(&L->ui, s, ui);
    mark_matches(&L->consequence, s, conseq);
    mark_matches(&L->version, s, verw);
    mark_matches(&L->first, s, first);
    mark_matches(&L->aux, s, aux);

    /* reasons inside the sentence: markers not covered by a reason mask */
    bool *rmask = mn_calloc(n + 1, sizeof(bool));
    mark_matches(&L->reason_masks, s, rmask);
    size_t reason_tok = n; /* first reason marker after the cue */
    mn_text_span rs[MN_DECISION_MAX_SPANS];
    size_t nrs = 0;
    for (size_t r = 0; r < L->reasons.n; r++) {
        size_t from = 0;
        mn_cue_match m;
        while (from < n && mn_cue_pat_find(L->reasons.p[r], &s->w, from, n, s->cs, &m)) {
            from = m.first + 1;
            size_t mk = m.first;
            if (tok_is_punct(&s->w, mk, ','))
                mk++;
            if (rmask[mk])
                continue;
            if (mk > ct) {
                /* the reason starts after the marker, except that a marker ending in a content
                   word ("for clarity", "to avoid", "pour pouvoir", "для решения") keeps it */
                size_t body = m.last + 1, nl = 0;
                const char *lw = mn_cue_norm(&s->w, m.last, &nl);
                static const char *const glue[] = {"that", "with", "than", "from", "when", "into"};
                bool content = m.last > mk && s->w.toks[m.last].kind == MN_TOK_WORD &&
                               nl >= ((s->w.toks[m.last].flags & MN_TOKF_CYR) ? 8u : 4u);
                for (size_t q = 0; q < MN_ARRAY_SIZE(glue) && content; q++)
                    if (nl == strlen(glue[q]) && memcmp(lw, glue[q], nl) == 0)
                        content = false;
                if (content)
                    body = mk + 1;
                size_t e = reason_end_tok(s, body);
                if (e > body) {
                    mn_text_span sp = tok_span(s, body, e - 1);
                    add_span(rs, &nrs, sp);
                    if (mk < reason_tok)
                        reason_tok = mk;
                }
            } else if (mk < ct) {
                /* "Because X, Y" / "Поскольку X, Y": up to the last comma before the cue */
                size_t e = ct;
                while (e > m.last + 1 && !tok_is_punct(&s->w, e - 1, ','))
                    e--;
                if (e - 1 > m.last + 1 && tok_is_punct(&s->w, e - 1, ',')) {
                    mn_text_span sp = tok_span(s, m.last + 1, e - 2);
                    add_span(rs, &nrs, sp);
                }
            }
        }
    }
    free(rmask);
    mn_cue_match cm;
    size_t clause_end = ct + 1;
    while (clause_end < n && !mn_cue_is_boundary(&s->w.toks[clause_end]))
        clause_end++;
    if (nrs == 0 && prev && any_match(&L->consequence, s, 0, clause_end, &cm)) {
        mn_text_span sp = {prev->start, prev->end};
        add_span(rs, &nrs, sp);
    }
    if (nrs == 0 && next) {
        sent_scan(scratch, s->text, next->start, next->end);
        if (any_match(&L->lead, scratch, 0, scratch->w.n, &cm)) {
            mn_text_span sp = {next->start, next->end};
            add_span(rs, &nrs, sp);
        }
    }
    for (size_t i = 0; i < nrs; i++)
        add_span(d->reasons, &d->n_reasons, rs[i]);
    ev->reason_tok = reason_tok;

    /* slots of every hit: supersedes, alternatives; chosen from the strongest */
    for (size_t h = 0; h < nh; h++) {
        mn_cue_match *m = &hits[h].m;
        if (m->slot_first[MN_SLOT_S] >= 0) {
            size_t a = (size_t)m->slot_first[MN_SLOT_S], b = (size_t)m->slot_last[MN_SLOT_S];
            /* a passive subject: from the clause start, without the trailing auxiliaries */
            while (b > a && aux[b])
                b--;
            while (a < b && (a < s->prefix || conseq[a]))
                a++; /* "On remplace donc cette action": not "donc" */
            add_span(d->supersedes, &d->n_supersedes, tok_span(s, a, b));
        }
        if (m->slot_first[MN_SLOT_C] >= 0 && hits[h].cue->kind == MN_DECISION_CONTRAST &&
            range_has(adopt, s->prefix, m->first)) {
            /* "use int64_t in favour of __int64": after a verb of adoption the phrase names
               what is set aside, as "instead of" would */
            mn_cue_match *mm = &hits[h].m;
            mm->slot_first[MN_SLOT_A] = mm->slot_first[MN_SLOT_C];
            mm->slot_last[MN_SLOT_A] = mm->slot_last[MN_SLOT_C];
            mm->slot_first[MN_SLOT_C] = mm->slot_last[MN_SLOT_C] = -1;
        }
        if (m->slot_first[MN_SLOT_A] >= 0) {
            size_t a = (size_t)m->slot_first[MN_SLOT_A], b = (size_t)m->slot_last[MN_SLOT_A];
            if (reason_tok > a && reason_tok <= b)
                b = reason_tok - 1;
            /* "Вместо Y юзаю X" with no comma: what is set aside ends at the verb of adoption */
            for (size_t k = a + 1; k <= b; k++)
                if (adopt[k]) {
                    b = k - 1;
                    break;
                }
            /* "instead of `self` to allow ...", "au lieu de / dans le SCSS": a named thing
               followed by a preposition is the whole alternative */
            const mn_cue_tok *ta = &s->w.toks[a];
            if (a < b && (ta->kind == MN_TOK_CODE || (ta->flags & MN_TOKF_IDENT) ||
                          (ta->kind == MN_TOK_PUNCT && !mn_cue_is_boundary(ta)))) {
                static const char *const preps[] = {"to",   "in",   "for", "on",  "at",
                                                    "dans", "pour", "en",  "sur", "в",
                                                    "для",  "при",  "на"};
                for (size_t q = 0; q < MN_ARRAY_SIZE(preps); q++)
                    if (mn_cue_is(&s->w, a + 1, preps[q]))
                        b = a;
            }
            while (b > a && s->w.toks[b].kind == MN_TOK_PUNCT)
                b--;
            add_span(d->alternatives, &d->n_alternatives, tok_span(s, a, b));
        }
    }
    long cf = H->m.slot_first[MN_SLOT_C], cl = H->m.slot_last[MN_SLOT_C];
    if (cf >= 0) {
        /* what was chosen ends where its reason starts ("par terser-js pour pouvoir ...") */
        if (reason_tok > (size_t)cf && reason_tok <= (size_t)cl)
            cl = (long)reason_tok - 1;
        while (cl > cf && s->w.toks[cl].kind == MN_TOK_PUNCT)
            cl--;
        d->chosen = tok_span(s, (size_t)cf, (size_t)cl);
    } else if (d->kind == MN_DECISION_CONTRAST && ct > 0) {
        size_t a, b;
        clause_of(s, ct, &a, &b);
        if (a < ct) {
            d->chosen = tok_span(s, a, ct - 1);
            cf = (long)a;
            cl = (long)ct - 1;
        }
    }

    /* evidence: a verb of adoption before the cue (outside what is set aside), or after a
       contrast that opens its clause ("Instead of Y, create X") */
    bool contrast = d->kind == MN_DECISION_CONTRAST || d->kind == MN_DECISION_PREFER;
    long af = H->m.slot_first[MN_SLOT_A], al = H->m.slot_last[MN_SLOT_A];
    size_t ae = ct;
    if (s->cs[ct] || ct == s->prefix) {
        ae = al >= 0 ? (size_t)al + 1 : ct + 1;
        while (ae < n && !mn_cue_is_boundary(&s->w.toks[ae]))
            ae++;
        ae++;
        while (ae < n && !mn_cue_is_boundary(&s->w.toks[ae]))
            ae++;
    }
    bool adopted = false;
    for (size_t i = s->prefix; i < ae && i < n; i++)
        if (adopt[i] && !(af >= 0 && (long)i >= af && (long)i <= al))
            adopted = true;
    if (contrast && adopted) {
        score += 10;
        d->why |= MN_DECISION_WHY_ADOPT;
    }
    if (d->n_reasons > 0) {
        score += 15;
        d->why |= MN_DECISION_WHY_REASON;
    }
    size_t ca, cb;
    clause_of(s, ct, &ca, &cb);
    bool cyr = L->src->lang == MN_LANG_RU;
    bool named = named_in(s, ca, cb > 0 ? cb - 1 : 0, cyr);
    for (size_t h = 0; h < nh && !named; h++)
        for (int k = 0; k < MN_SLOT__COUNT && !named; k++)
            if (hits[h].m.slot_first[k] >= 0)
                named = named_in(s, (size_t)hits[h].m.slot_first[k], (size_t)hits[h].m.slot_last[k],
                                 cyr);
    if (named) {
        score += 5;
        d->why |= MN_DECISION_WHY_NAMED;
    }
    if (range_has(first, 0, n)) {
        score += 5;
        d->why |= MN_DECISION_WHY_FIRST_PERSON;
    }
    if (range_has(hedge, 0, n)) {
        score -= 40;
        d->why |= MN_DECISION_WHY_HEDGED;
    }
    /* behaviour: anywhere before the cue, the commit prefix included ("fix: show X instead") */
    if ((contrast && !adopted && range_has(behave, 0, ct)) || range_has(mistake, 0, ct)) {
        score -= 50;
        d->why |= MN_DECISION_WHY_BEHAVIOUR;
    }
    long sa = -1, sb = -1;
    for (size_t h = 0; h < nh; h++) {
        for (int k = MN_SLOT_S; k <= MN_SLOT_A; k++)
            if (hits[h].m.slot_first[k] >= 0 && sa < 0) {
                sa = hits[h].m.slot_first[k];
                sb = hits[h].m.slot_last[k];
            }
    }
    if (passage_wording || range_has(wording, 0, n) || range_has(ui, s->prefix, n) ||
        (sa >= 0 && cf >= 0 && all_quoted(s, sa, sb) && all_quoted(s, cf, cl))) {
        score -= 40;
        d->why |= MN_DECISION_WHY_WORDING;
    }
    bool version = false;
    if (d->kind == MN_DECISION_TRANSITION || d->kind == MN_DECISION_REPLACE)
        version = has_version(L, s, H->m.slot_first[MN_SLOT_C] >= 0 ? cf : -1, cl, verw);
    else if (d->kind == MN_DECISION_CONTRAST)
        version = has_version(L, s, cf, cl, verw) && has_version(L, s, sa, sb, verw);
    if (version) {
        score -= 40;
        d->why |= MN_DECISION_WHY_VERSION;
    }
    if (any_match(&L->past, s, 0, n, &cm)) {
        score -= 30;
        d->why |= MN_DECISION_WHY_PAST;
    }
    score = clampi(score, 0, 100);
    d->confidence = score / 100.0;

    /* the statement: the sentence up to the end of the clause where the cue ends (a list of
       other changes after a comma is not part of it), without a reason that follows */
    size_t st_end = H->m.last + 1;
    while (st_end < n && !mn_cue_is_boundary(&s->w.toks[st_end]))
        st_end++;
    if (reason_tok < st_end && reason_tok > ct)
        st_end = reason_tok;
    while (st_end > 1 && s->w.toks[st_end - 1].kind == MN_TOK_PUNCT &&
           s->w.toks[st_end - 1].punct != ')' && s->w.toks[st_end - 1].punct != '"')
        st_end--;
    d->statement.start = s->start;
    d->statement.end = st_end > 0 ? s->w.toks[st_end - 1].end : s->end;
    if (d->statement.end <= d->statement.start)
        d->statement.end = s->end;
    ev->score = score;
    ev->found = true;
out:
    free(masked);
}

/* ------------------------------------------------------------ the text */

/* Letters only French uses among the supported languages (é è à ç ...): the sentence is French. */
static bool french_letters(const char *text, size_t start, size_t end)
{
    static const char *const fr[] = {"\xc3\xa9", "\xc3\xa8", "\xc3\xa0", "\xc3\xa7", "\xc3\xaa",
                                     "\xc3\xa2", "\xc3\xae", "\xc3\xb4", "\xc3\xbb", "\xc3\xb9",
                                     "\xc3\xab", "\xc3\xaf", "\xc5\x93", "\xc3\x89", "\xc3\x80"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(fr); i++)
        if (memmem(text + start, end - start, fr[i], 2))
            return true;
    return false;
}

static bool cyrillic_sentence(const mn_cue_words *w)
{
    size_t cyr = 0, lat = 0;
    for (size_t i = 0; i < w->n; i++) {
        if (w->toks[i].kind != MN_TOK_WORD || (w->toks[i].flags & MN_TOKF_IDENT))
            continue;
        if (w->toks[i].flags & MN_TOKF_CYR)
            cyr++;
        else if (w->toks[i].flags & MN_TOKF_LATIN)
            lat++;
    }
    return cyr > 0 && cyr >= lat;
}

int mn_decisions_find(mn_decision **out, size_t *n, const char *text, size_t len,
                      const mn_decision_opts *opts)
{
    *out = NULL;
    *n = 0;
    mn_decision_opts def = MN_DECISION_OPTS_INIT;
    if (!opts)
        opts = &def;
    if (opts->version != MN_DECISION_OPTS_VERSION)
        return mn_error_set(MN_EINVAL,
                            "decision options of version %u are not known: use "
                            "MN_DECISION_OPTS_INIT",
                            opts->version);
    if (!text && len > 0)
        return mn_error_set(MN_EINVAL,
                            "no text given to the decision detector: pass the text and its length");
    if (len > MN_DECISION_MAX_INPUT)
        return mn_error_set(MN_ETOOBIG,
                            "text of %zu bytes is over the decision detector's limit of %u "
                            "bytes: pass it in parts",
                            len, (unsigned)MN_DECISION_MAX_INPUT);
    if (len == 0)
        return 0;

    unsigned sflags = 0;
    if (opts->flags & MN_DECISION_COMMIT)
        sflags |= MN_SENT_COMMIT;
    if (opts->flags & MN_DECISION_MARKDOWN)
        sflags |= MN_SENT_MARKDOWN;
    mn_sentence *ss = NULL;
    size_t ns = 0;
    mn_sentences_split(&ss, &ns, text, len, sflags);

    mn_decision *res = NULL;
    size_t nres = 0, cap = 0;
    sent_t s, scratch;
    memset(&s, 0, sizeof(s));
    memset(&scratch, 0, sizeof(scratch));
    mn_buf_init(&s.w.norm); /* an mn_buf is never NULL (buf.h) */
    mn_buf_init(&scratch.w.norm);
    mn_lang text_lang = MN_LANG__COUNT; /* not detected yet */

    /* a subject that says "typo" or "wording" makes the whole message a wording change */
    bool passage_wording = false;
    if (ns > 0 && (ss[0].flags & MN_SENT_SUBJECT)) {
        sent_scan(&s, text, ss[0].start, ss[0].end);
        mn_lang l0 = cyrillic_sentence(&s.w) ? MN_LANG_RU : MN_LANG_EN;
        for (size_t t = 0; t < mn_dec_n_langs; t++) {
            const clang_t *L = table_of(mn_dec_langs[t].lang);
            if ((l0 == MN_LANG_RU) != (mn_dec_langs[t].lang == MN_LANG_RU))
                continue;
            bool *wm = mn_calloc(s.w.n + 1, sizeof(bool));
            mark_matches(&L->wording, &s, wm);
            if (range_has(wm, 0, s.w.n))
                passage_wording = true;
            free(wm);
        }
    }

    for (size_t i = 0; i < ns && nres < MN_DECISION_MAX_OUT; i++) {
        sent_scan(&s, text, ss[i].start, ss[i].end);
        if (s.w.n == 0)
            continue;
        const mn_sentence *prev =
            i > 0 && ss[i - 1].paragraph == ss[i].paragraph && !(ss[i].flags & MN_SENT_BULLET)
                ? &ss[i - 1]
                : NULL;
        const mn_sentence *next =
            i + 1 < ns &&
                    (ss[i + 1].paragraph == ss[i].paragraph || (ss[i].flags & MN_SENT_SUBJECT)) &&
                    !(ss[i + 1].flags & MN_SENT_BULLET)
                ? &ss[i + 1]
                : NULL;
        mn_lang order[3];
        size_t no = 0;
        if (cyrillic_sentence(&s.w)) {
            order[no++] = MN_LANG_RU;
        } else {
            mn_lang l = opts->lang;
            if (l == MN_LANG_UNKNOWN) {
                l = mn_lang_detect(text + ss[i].start, ss[i].end - ss[i].start);
                if (l == MN_LANG_UNKNOWN) {
                    if (text_lang == MN_LANG__COUNT)
                        text_lang = mn_lang_detect(text, len);
                    l = text_lang;
                }
            }
            if (opts->lang == MN_LANG_UNKNOWN && french_letters(text, ss[i].start, ss[i].end)) {
                order[no++] = MN_LANG_FR; /* "à", "é": the English table has nothing to say */
            } else if (l == MN_LANG_FR) {
                order[no++] = MN_LANG_FR;
                if (opts->lang == MN_LANG_UNKNOWN)
                    order[no++] = MN_LANG_EN;
            } else if (l == MN_LANG_EN || l == MN_LANG_UNKNOWN || opts->lang == MN_LANG_UNKNOWN) {
                order[no++] = MN_LANG_EN;
                if (opts->lang == MN_LANG_UNKNOWN)
                    order[no++] = MN_LANG_FR;
            }
        }
        eval_t best;
        memset(&best, 0, sizeof(best));
        for (size_t k = 0; k < no; k++) {
            const clang_t *L = table_of(order[k]);
            if (!L)
                continue;
            eval_t ev;
            evaluate(&ev, L, &s, prev, next, passage_wording, &scratch);
            if (ev.found && (!best.found || ev.score > best.score))
                best = ev;
        }
        if (!best.found || best.d.confidence < opts->min_confidence)
            continue;
        if (nres == cap) {
            cap = cap ? cap * 2 : 8;
            res = mn_realloc(res, cap * sizeof(*res));
        }
        res[nres++] = best.d;
    }
    mn_cue_words_release(&s.w);
    mn_cue_words_release(&scratch.w);
    free(s.cs);
    free(scratch.cs);
    free(ss);
    *out = res;
    *n = nres;
    return 0;
}

void mn_decisions_free(mn_decision *d)
{
    free(d);
}

const char *mn_decision_kind_name(mn_decision_kind kind)
{
    switch (kind) {
    case MN_DECISION_EXPLICIT:
        return "explicit";
    case MN_DECISION_CONTRAST:
        return "contrast";
    case MN_DECISION_REPLACE:
        return "replace";
    case MN_DECISION_TRANSITION:
        return "transition";
    case MN_DECISION_DROP:
        return "drop";
    case MN_DECISION_PREFER:
        return "prefer";
    }
    return "";
}

void mn_decision_why_format(mn_buf *out, unsigned why)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        {MN_DECISION_WHY_CUE, "cue"},
        {MN_DECISION_WHY_ADOPT, "adopt"},
        {MN_DECISION_WHY_REASON, "reason"},
        {MN_DECISION_WHY_NAMED, "named"},
        {MN_DECISION_WHY_FIRST_PERSON, "first_person"},
        {MN_DECISION_WHY_HEDGED, "hedged"},
        {MN_DECISION_WHY_BEHAVIOUR, "behaviour"},
        {MN_DECISION_WHY_WORDING, "wording"},
        {MN_DECISION_WHY_VERSION, "version"},
        {MN_DECISION_WHY_PAST, "past"},
    };
    bool firstname = true;
    for (size_t i = 0; i < MN_ARRAY_SIZE(names); i++) {
        if (!(why & names[i].bit))
            continue;
        if (!firstname)
            mn_buf_putc(out, ',');
        mn_buf_puts(out, names[i].name);
        firstname = false;
    }
}
