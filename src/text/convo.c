/*
 * convo.c - gotchas and error-then-fix episodes (convo.h).
 *
 * Gotchas reuse the decision detector's machinery: sentences.h cuts the
 * text, cues.h matches one table of patterns per language (below, as
 * data). A sentence that ends with '?' or holds a hedge of its language
 * ("maybe", "может быть", "peut-être") is no warning. Confidence is the
 * cue's weight (in hundredths) + 15 when a reason is found, capped at 100.
 *
 * Error then fix reads turns line by line. mn_errfix_line_kind says what a
 * line is from fixed markers (no regular expressions): the first word of
 * the line (Traceback, FAILED, FAIL, error:, fatal:, npm ERR!, a word ending
 * in "Error:" or "Exception:"), compiler and linker forms (": error:",
 * "error[E0308]", "undefined reference to"), runners' summaries ("2 failed",
 * "5 passed", "test result: ok", "Build succeeded", "OK (3 tests)") and exit
 * codes ("exit code 1", "exit status 0"). An error line wins over a pass
 * line. A turn changes something when it holds a diff ("@@ " hunk, "+++ "
 * header), an edit tool call (Edit, Write, MultiEdit, str_replace,
 * apply_patch) or says so ("I fixed", "I've changed", "исправил",
 * "corrigé"). The scan keeps one pending error: a change after it arms it,
 * a pass after the change closes the episode, a newer error replaces it.
 */
#include <pthread.h>

#include "common.h"
#include "text/convo.h"
#include "text/cues.h"
#include "text/sentences.h"

/* ------------------------------------------------------------------ gotchas */

typedef struct {
    const char *pat;
    int weight;
} g_cue;

typedef struct {
    mn_lang lang;
    const g_cue *cues;
    size_t n_cues;
    const char *const *reasons; /* the reason follows these */
    size_t n_reasons;
    const char *const *hedges;
    size_t n_hedges;
} g_lang;

static const g_cue en_g[] = {
    {"turns|turned out", 70},
    {"the catch is|was", 75},
    {"^ gotcha", 75},
    {"watch out", 65},
    {"beware", 65},
    {"be careful", 60},
    {"^ careful :", 60},
    {"caveat", 60},
    {"pitfall*", 60},
    {"don|do t|not|never ~~8 because|otherwise|since|as|or", 60},
    {"^ never|avoid ~~8 because|otherwise|since|as|or", 60},
    {"surprisingly|unexpectedly", 55},
};
static const char *const en_gr[] = {"because", "otherwise", "since", ", as", "or else", "or"};
static const char *const en_gh[] = {"maybe", "perhaps", "might", "could", "would", "if"};

static const g_cue ru_g[] = {
    {"оказалось|оказывается", 70},
    {"осторожно", 65},
    {"имейте|имей в виду", 60},
    {"^ внимание", 60},
    {"подвох*", 70},
    {"^ не ~~6 потому|иначе|так|т.к", 60},
    {"нельзя ~~8 потому|иначе|так|т.к", 65},
    {"неожиданно", 55},
};
static const char *const ru_gr[] = {"потому что", "иначе", "так как", "т.к", "поскольку"};
static const char *const ru_gh[] = {"может быть", "возможно", "наверное", "если", "бы"};

static const g_cue fr_g[] = {
    {"s avere|avere|averait", 70},
    {"il se trouve que", 60},
    {"^ attention", 65},
    {"attention a|au|aux", 65},
    {"piege*", 70},
    {"mefiez-vous|mefiez", 65},
    {"ne|n ~6 pas|jamais ~~8 car|sinon|parce", 60},
    {"etonnamment|bizarrement", 55},
};
static const char *const fr_gr[] = {"car", "sinon", "parce qu|que", "puisque|puisqu"};
static const char *const fr_gh[] = {"peut-etre", "pourrait", "si"};

#define GLANG(code, c, r, h)                                                \
    {                                                                       \
        code, c, MN_ARRAY_SIZE(c), r, MN_ARRAY_SIZE(r), h, MN_ARRAY_SIZE(h) \
    }

static const g_lang g_langs[] = {
    GLANG(MN_LANG_EN, en_g, en_gr, en_gh),
    GLANG(MN_LANG_RU, ru_g, ru_gr, ru_gh),
    GLANG(MN_LANG_FR, fr_g, fr_gr, fr_gh),
};

typedef struct {
    mn_cue_pat **cues, **reasons, **hedges;
} g_compiled;

static g_compiled gc[MN_ARRAY_SIZE(g_langs)];
static pthread_once_t gc_once = PTHREAD_ONCE_INIT;

static void g_compile(void)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(g_langs); i++) {
        const g_lang *L = &g_langs[i];
        const char **srcs = mn_calloc(L->n_cues, sizeof(char *));
        for (size_t k = 0; k < L->n_cues; k++)
            srcs[k] = L->cues[k].pat;
        gc[i].cues = mn_cue_pats_compile(srcs, L->n_cues);
        free(srcs);
        gc[i].reasons = mn_cue_pats_compile(L->reasons, L->n_reasons);
        gc[i].hedges = mn_cue_pats_compile(L->hedges, L->n_hedges);
    }
}

static bool any_of(mn_cue_pat **p, size_t n, const mn_cue_words *w, const bool *cs, size_t from,
                   mn_cue_match *m)
{
    for (size_t i = 0; i < n; i++)
        if (mn_cue_pat_find(p[i], w, from, w->n, cs, m))
            return true;
    return false;
}

static bool has_cyrillic(const mn_cue_words *w)
{
    size_t cyr = 0, lat = 0;
    for (size_t i = 0; i < w->n; i++) {
        if (w->toks[i].flags & MN_TOKF_IDENT)
            continue;
        cyr += (w->toks[i].flags & MN_TOKF_CYR) != 0;
        lat += (w->toks[i].flags & MN_TOKF_LATIN) != 0;
    }
    return cyr > 0 && cyr >= lat;
}

int mn_gotchas_find(mn_gotcha **out, size_t *n, const char *text, size_t len, unsigned flags)
{
    *out = NULL;
    *n = 0;
    if (!text && len > 0)
        return mn_error_set(MN_EINVAL,
                            "no text given to the gotcha detector: pass the text and its length");
    if (len > MN_DECISION_MAX_INPUT)
        return mn_error_set(MN_ETOOBIG,
                            "text of %zu bytes is over the gotcha detector's limit of %u bytes: "
                            "pass it in parts",
                            len, (unsigned)MN_DECISION_MAX_INPUT);
    if (len == 0)
        return 0;
    pthread_once(&gc_once, g_compile);
    unsigned sflags = 0;
    if (flags & MN_DECISION_COMMIT)
        sflags |= MN_SENT_COMMIT;
    if (flags & MN_DECISION_MARKDOWN)
        sflags |= MN_SENT_MARKDOWN;
    mn_sentence *ss = NULL;
    size_t ns = 0;
    mn_sentences_split(&ss, &ns, text, len, sflags);
    mn_cue_words w = MN_CUE_WORDS_INIT;
    bool *cs = NULL;
    size_t cs_cap = 0;
    mn_gotcha *res = NULL;
    size_t nres = 0, cap = 0;
    for (size_t i = 0; i < ns && nres < MN_DECISION_MAX_OUT; i++) {
        mn_cue_words_scan(&w, text, ss[i].start, ss[i].end);
        if (w.n == 0)
            continue;
        if (w.toks[w.n - 1].kind == MN_TOK_PUNCT && w.toks[w.n - 1].punct == '?')
            continue;
        if (cs_cap < w.n + 1) {
            cs_cap = w.n + 1;
            cs = mn_realloc(cs, cs_cap * sizeof(bool));
        }
        memset(cs, 0, (w.n + 1) * sizeof(bool));
        cs[0] = true;
        for (size_t k = 0; k + 1 < w.n; k++)
            if (mn_cue_is_boundary(&w.toks[k]) && w.toks[k].punct != ')')
                cs[k + 1] = true;
        bool cyr = has_cyrillic(&w);
        mn_gotcha best;
        memset(&best, 0, sizeof(best));
        int best_score = -1;
        for (size_t l = 0; l < MN_ARRAY_SIZE(g_langs); l++) {
            const g_lang *L = &g_langs[l];
            if ((L->lang == MN_LANG_RU) != cyr)
                continue;
            mn_cue_match m;
            if (any_of(gc[l].hedges, L->n_hedges, &w, cs, 0, &m))
                continue;
            for (size_t c = 0; c < L->n_cues; c++) {
                if (!mn_cue_pat_find(gc[l].cues[c], &w, 0, w.n, cs, &m))
                    continue;
                int score = L->cues[c].weight;
                mn_gotcha g;
                memset(&g, 0, sizeof(g));
                g.statement.start = ss[i].start;
                g.statement.end = ss[i].end;
                mn_cue_match r;
                if (any_of(gc[l].reasons, L->n_reasons, &w, cs, m.first, &r) && r.last + 1 < w.n) {
                    g.reason.start = w.toks[r.last + 1].start;
                    size_t e = w.n;
                    while (e > r.last + 1 && w.toks[e - 1].kind == MN_TOK_PUNCT)
                        e--;
                    g.reason.end = e > r.last + 1 ? w.toks[e - 1].end : g.reason.start;
                    if (g.reason.end > g.reason.start)
                        score += 15;
                    else
                        g.reason.start = g.reason.end = 0;
                }
                if (score > 100)
                    score = 100;
                g.confidence = score / 100.0;
                g.lang = L->lang;
                g.cue = L->cues[c].pat;
                if (score > best_score) {
                    best_score = score;
                    best = g;
                }
            }
        }
        if (best_score < 0)
            continue;
        if (nres == cap) {
            cap = cap ? cap * 2 : 8;
            res = mn_realloc(res, cap * sizeof(*res));
        }
        res[nres++] = best;
    }
    mn_cue_words_release(&w);
    free(cs);
    free(ss);
    *out = res;
    *n = nres;
    return 0;
}

void mn_gotchas_free(mn_gotcha *g)
{
    free(g);
}

/* ------------------------------------------------------------ error then fix */

static bool ci_prefix(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && strncasecmp(s, lit, k) == 0;
}

static const char *ci_find(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    if (k == 0 || n < k)
        return NULL;
    for (size_t i = 0; i + k <= n; i++)
        if (strncasecmp(s + i, lit, k) == 0)
            return s + i;
    return NULL;
}

/* The number written right before s[at] ("2 failed"), or -1. */
static long number_before(const char *s, size_t at)
{
    size_t e = at;
    while (e > 0 && s[e - 1] == ' ')
        e--;
    size_t b = e;
    while (b > 0 && s[b - 1] >= '0' && s[b - 1] <= '9')
        b--;
    if (b == e || e - b > 9)
        return -1;
    long v = 0;
    for (size_t i = b; i < e; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* The number right after "exit code", "exit status", "exited with code": -1 if none. */
static long exit_code(const char *s, size_t n)
{
    static const char *const keys[] = {"exit code ", "exit status ", "exited with code ",
                                       "exit code: ", "returned non-zero exit status "};
    for (size_t k = 0; k < MN_ARRAY_SIZE(keys); k++) {
        const char *p = ci_find(s, n, keys[k]);
        if (!p)
            continue;
        size_t i = (size_t)(p - s) + strlen(keys[k]);
        if (i < n && s[i] >= '0' && s[i] <= '9') {
            long v = 0;
            while (i < n && s[i] >= '0' && s[i] <= '9' && v < 100000)
                v = v * 10 + (s[i++] - '0');
            return v;
        }
    }
    return -1;
}

mn_line_kind mn_errfix_line_kind(const char *line, size_t len)
{
    if (!line)
        return MN_LINE_OTHER;
    while (len > 0 && (*line == ' ' || *line == '\t')) {
        line++;
        len--;
    }
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\r' || line[len - 1] == '\t'))
        len--;
    if (len == 0)
        return MN_LINE_OTHER;
    /* the first word */
    size_t w = 0;
    while (w < len && line[w] != ' ' && line[w] != '\t')
        w++;
    static const char *const first_err[] = {
        "Traceback", "FAILED", "FAIL",   "FAIL:",  "error:", "Error:",
        "ERROR",     "ERROR:", "fatal:", "FATAL:", "panic:", "E"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(first_err); k++)
        if (w == strlen(first_err[k]) && memcmp(line, first_err[k], w) == 0) {
            if (first_err[k][0] == 'E' && w == 1 && !(len > 2 && strstr(line, "Error")))
                break; /* pytest's "E  ..." lines count only with an Error in them */
            return MN_LINE_ERROR;
        }
    if (w > 6 && line[w - 1] == ':' &&
        ((w >= 6 && memcmp(line + w - 6, "Error:", 6) == 0) ||
         (w >= 10 && memcmp(line + w - 10, "Exception:", 10) == 0)))
        return MN_LINE_ERROR;
    if (ci_prefix(line, len, "--- FAIL") || ci_prefix(line, len, "npm ERR!") ||
        ci_prefix(line, len, "make: ***") || ci_prefix(line, len, "make[") ||
        ci_find(line, len, ": error:") || ci_find(line, len, ": fatal error:") ||
        strstr(line, "error[E") || ci_find(line, len, "undefined reference to") ||
        ci_find(line, len, "segmentation fault") || ci_find(line, len, "panicked at") ||
        ci_find(line, len, "command not found") || ci_find(line, len, "assertion failed")) {
        if (!ci_prefix(line, len, "make[") || ci_find(line, len, "error"))
            return MN_LINE_ERROR;
    }
    const char *f = ci_find(line, len, " failed");
    if (f && number_before(line, (size_t)(f - line)) > 0)
        return MN_LINE_ERROR;
    f = ci_find(line, len, " errors");
    if (f && number_before(line, (size_t)(f - line)) > 0)
        return MN_LINE_ERROR;
    long code = exit_code(line, len);
    if (code > 0)
        return MN_LINE_ERROR;
    /* passing runs */
    if (code == 0)
        return MN_LINE_PASS;
    const char *p = ci_find(line, len, " passed");
    if (p && number_before(line, (size_t)(p - line)) > 0)
        return MN_LINE_PASS;
    if (ci_find(line, len, "all tests passed") || ci_find(line, len, "tests passed") ||
        ci_find(line, len, "test result: ok") || ci_find(line, len, "build succeeded") ||
        ci_find(line, len, "build successful") || ci_find(line, len, "0 failed") ||
        ci_prefix(line, len, "PASS ") || (len == 2 && memcmp(line, "OK", 2) == 0) ||
        ci_prefix(line, len, "OK (") || (ci_prefix(line, len, "ok ") && len > 3))
        return MN_LINE_PASS;
    return MN_LINE_OTHER;
}

/* Does the turn change something: a diff, an edit tool call, or words that say so? */
static bool changes_something(const char *s, size_t n, bool *shown)
{
    static const char *const edits[] = {"\n@@ ",           "\n+++ ",           "\"Edit\"",
                                        "\"Write\"",       "\"MultiEdit\"",    "Edit(",
                                        "Write(",          "str_replace",      "apply_patch",
                                        "*** Update File", "\"name\": \"edit", "\"name\":\"edit"};
    *shown = false;
    if (n >= 3 && memcmp(s, "@@ ", 3) == 0) {
        *shown = true;
        return true;
    }
    for (size_t k = 0; k < MN_ARRAY_SIZE(edits); k++)
        if (memmem(s, n, edits[k], strlen(edits[k]))) {
            *shown = true;
            return true;
        }
    static const char *const says[] = {
        "i fixed",       "i've fixed", "i have fixed", "fixed the",   "i changed",  "i've changed",
        "changed the",   "i updated",  "i've updated", "updated the", "i replaced", "replaced the",
        "i've replaced", "i modified", "modified the", "i added",     "i've added", "i removed",
        "i've removed",  "the fix is", "исправил",     "поправил",    "изменил",    "заменил",
        "добавил",       "убрал",      "исправлено",   "corrigé",     "modifié",    "remplacé",
        "ajouté",        "changé",     "j'ai corrigé", "j'ai modifié"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(says); k++)
        if (ci_find(s, n, says[k]))
            return true;
    return false;
}

static const char *const tools[] = {"pytest", "cargo",  "npm",     "jest",  "go test", "ctest",
                                    "make",   "gradle", "mvn",     "tsc",   "eslint",  "rspec",
                                    "vitest", "mocha",  "phpunit", "dotnet"};

static bool same_tool(const mn_turn *a, const mn_turn *b)
{
    for (size_t k = 0; k < MN_ARRAY_SIZE(tools); k++)
        if (ci_find(a->text, a->len, tools[k]) && ci_find(b->text, b->len, tools[k]))
            return true;
    return false;
}

/* The first line of kind want in the turn (its span in *sp); true when found. Errors win:
   a turn with an error line has no pass line. */
static bool find_line(const mn_turn *t, mn_line_kind want, mn_text_span *sp)
{
    size_t i = 0;
    bool found = false;
    mn_text_span first = {0, 0};
    while (i < t->len) {
        size_t e = i;
        while (e < t->len && t->text[e] != '\n')
            e++;
        mn_line_kind k = mn_errfix_line_kind(t->text + i, e - i);
        if (k == MN_LINE_ERROR && want == MN_LINE_PASS)
            return false;
        if (k == want && !found) {
            found = true;
            first.start = i;
            first.end = e;
            if (want == MN_LINE_ERROR)
                break;
        }
        i = e + 1;
    }
    if (found)
        *sp = first;
    return found;
}

int mn_errfix_find(mn_errfix **out, size_t *n, const mn_turn *turns, size_t nturns)
{
    *out = NULL;
    *n = 0;
    if (!turns && nturns > 0)
        return mn_error_set(
            MN_EINVAL,
            "no turns given to the error-then-fix finder: pass the turns and their count");
    for (size_t i = 0; i < nturns; i++)
        if (!turns[i].text && turns[i].len > 0)
            return mn_error_set(MN_EINVAL, "turn %zu has no text: pass a text or a length of 0", i);
    mn_errfix *res = NULL;
    size_t nres = 0, cap = 0;
    bool pending = false, fixed = false, shown = false;
    mn_errfix cur;
    memset(&cur, 0, sizeof(cur));
    for (size_t i = 0; i < nturns; i++) {
        const mn_turn *t = &turns[i];
        mn_text_span sp;
        if (find_line(t, MN_LINE_ERROR, &sp)) {
            /* a new error (or the old one again): the change so far did not fix it */
            memset(&cur, 0, sizeof(cur));
            cur.error_turn = i;
            cur.error = sp;
            pending = true;
            fixed = false;
            bool sh;
            /* the same turn may already hold the change after the error ("... so I changed X") */
            if (changes_something(t->text + sp.end, t->len - sp.end, &sh) && sh) {
                fixed = true;
                shown = sh;
                cur.fix_turn = i;
            }
            continue;
        }
        if (!pending)
            continue;
        bool sh = false;
        if (!fixed && changes_something(t->text, t->len, &sh)) {
            fixed = true;
            shown = sh;
            cur.fix_turn = i;
        }
        if (fixed && find_line(t, MN_LINE_PASS, &sp)) {
            cur.pass_turn = i;
            cur.pass = sp;
            double c = 0.6;
            if (same_tool(&turns[cur.error_turn], t))
                c += 0.2;
            if (shown)
                c += 0.1;
            cur.confidence = c;
            if (nres == cap) {
                cap = cap ? cap * 2 : 4;
                res = mn_realloc(res, cap * sizeof(*res));
            }
            res[nres++] = cur;
            pending = fixed = false;
        }
    }
    *out = res;
    *n = nres;
    return 0;
}
