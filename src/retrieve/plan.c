/*
 * plan.c - `plan`: the graph-first file plan for a task (plan.h), and
 * the plain lexical plan it falls back to.
 *
 * The run: the task's terms (query.c's analysis: its best words with
 * their weights, each cut into the index's terms) -> graph candidates
 * (plan_graph.c) -> semantic scores of the first semantic_cap of them
 * (plan_semantic.c) -> fusion and the final set, here:
 *
 *   final = (1 - w) graph + w semantic   with semantic evidence
 *         = graph                         without
 *   w = plan.semantic_weight, 0 by default: the 0.35 put plan 5
 *   of the 64 SWE-bench dev tasks below context's file ranking at Acc@1
 *   (0.484 against 0.562) and any share from 0.1 up cost as much; with 0
 *   plan equals it at Acc@1 and @5 and is one task below at @3
 *   (docs/internals/plan.md). The semantic stage still gives each file
 *   its evidence and matched terms, and keeps weak candidates in.
 *   a candidate without semantic evidence and final < min_final_score
 *   (0.12) is dropped; the final set takes the best k (10) by final, and
 *   tests, docs and config at most 20% of it (floor(0.2 k), at least 1)
 *   unless the task asks for tests or docs.
 *
 * The text has three sections, Graph Seeds (the best tier-A files and
 * why), Semantic Hits (the best semantic scores and the terms matched)
 * and Final Context Files (the final set with its evidence lines), and
 * never more tokens than the budget: the header and the final files come
 * first, in order, each whole or not at all (the first that does not fit
 * ends the list); seeds and hits (SECTION_LINES each) fill what is left.
 * Every decision (a tier's size, the filter, a drop, a cut) is a line of
 * the trace.
 *
 * The legacy plan (legacy_v0) is the search's file ranking for the task
 * (kinds file), its best k, cut to the same budget.
 */
#include "common.h"
#include <math.h>
#include <stdarg.h>
#include <time.h>

#include "retrieve/plan_internal.h"
#include "text/tokenize.h"
#include "util/util.h"

#define DEFAULT_CAP       60
#define DEFAULT_SEM_CAP   30
#define DEFAULT_MIN_FINAL 0.12
#define DEFAULT_BUDGET    1800
#define DEFAULT_K         10
#define W_SEMANTIC        0.0
#define AUX_SHARE         0.2 /* tests, docs and config in the final set at most */
#define SECTION_LINES     5   /* seeds and semantic hits shown */

void plan_trace(plan_run *p, const char *fmt, ...)
{
    mn_buf b = MN_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    const char *line = mn_arena_strdup(p->arena, b.ptr);
    mn_vec_push(&p->trace, line);
    mn_buf_release(&b);
}

int plan_term_of(plan_run *p, const char *tok, size_t len)
{
    char key[64];
    if (len == 0 || len >= sizeof(key))
        return -1;
    memcpy(key, tok, len);
    key[len] = '\0';
    uintptr_t i = (uintptr_t)mn_map_get(&p->term_index, key);
    return i ? (int)i - 1 : -1;
}

int plan_term_bits_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                         int colocated)
{
    void **a = payload; /* plan_run, uint64_t bits */
    (void)start;
    (void)end;
    if (colocated == MN_TOK_COLOC_WHOLE)
        return 0;
    int i = plan_term_of(a[0], tok, len);
    if (i >= 0)
        *(uint64_t *)a[1] |= 1ull << i;
    return 0;
}

static inline unsigned lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + 32u : c;
}

bool plan_maybe_terms(const plan_run *p, const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned pair = lower((unsigned char)s[i]) << 8 | lower((unsigned char)s[i + 1]);
        if (!(p->pairs[pair >> 6] >> (pair & 63) & 1))
            continue;
        /* only the terms that start with this pair (a chain through pair_next) */
        for (unsigned t1 = p->pair_head[pair]; t1; t1 = p->pair_next[t1 - 1]) {
            const char *w = p->terms[t1 - 1].term;
            size_t k = 0;
            while (k < PLAN_PREFIX && w[k] && i + k < n &&
                   lower((unsigned char)s[i + k]) == (unsigned char)w[k])
                k++;
            if (k == PLAN_PREFIX || !w[k])
                return true;
        }
    }
    return false;
}

bool plan_role_is_aux(const char *role)
{
    return role && (!strcmp(role, "test") || !strcmp(role, "doc") || !strcmp(role, "config"));
}

typedef struct {
    plan_run *p;
    const char *surface;
    double weight;
} term_add;

static int on_task_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                         int colocated)
{
    term_add *a = payload;
    plan_run *p = a->p;
    (void)start;
    (void)end;
    if (colocated == MN_TOK_COLOC_WHOLE || len < 2 || p->nterms >= PLAN_MAX_TERMS)
        return 0;
    if (plan_term_of(p, tok, len) >= 0 || len >= 64)
        return 0;
    plan_term *t = &p->terms[p->nterms++];
    t->term = mn_arena_strndup(p->arena, tok, len);
    t->surface = a->surface;
    t->weight = a->weight;
    mn_map_set(&p->term_index, t->term, (void *)(uintptr_t)p->nterms);
    return 0;
}

/* Whether a word of the task says docs (language-independent enough: the index's own stems). */
static bool says_docs(plan_run *p)
{
    static const char *const words[] = {"doc", "docs", "document", "documentation", "readme"};
    for (size_t i = 0; i < p->q.nterms; i++)
        for (size_t k = 0; k < MN_ARRAY_SIZE(words); k++)
            if (!strcasecmp(p->q.terms[i].word, words[k]))
                return true;
    return false;
}

static int terms(plan_run *p)
{
    int rc = mn_query_analyse(&p->q, p->req->task, strlen(p->req->task), p->arena);
    if (rc)
        return rc;
    for (size_t i = 0; i < p->q.nterms && p->nterms < PLAN_MAX_TERMS; i++) {
        term_add a = {p, mn_arena_strdup(p->arena, p->q.terms[i].word), p->q.terms[i].weight};
        if ((rc = mn_tokenize(a.surface, strlen(a.surface), MN_LANG_EN, 0, on_task_token, &a)) != 0)
            return rc;
    }
    p->pair_head = mn_arena_alloc(p->arena, 65536);
    memset(p->pair_head, 0, 65536);
    for (size_t t = p->nterms; t-- > 0;) { /* backwards: each chain in the terms' order */
        const unsigned char *w = (const unsigned char *)p->terms[t].term;
        unsigned pair = (unsigned)w[0] << 8 | w[1]; /* terms have 2 bytes or more */
        p->pairs[pair >> 6] |= 1ull << (pair & 63);
        p->pair_next[t] = p->pair_head[pair];
        p->pair_head[pair] = (uint8_t)(t + 1);
    }
    p->about_tests = p->q.about_tests;
    p->about_docs = says_docs(p);
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_final(const void *a, const void *b)
{
    const mn_plan_file *x = a, *y = b;
    if (x->final != y->final)
        return x->final > y->final ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* ---- the text, under the budget ---- */

typedef struct {
    const mn_plan_request *req;
    mn_buf seeds, hits, final;
    size_t used, budget;
} render;

static size_t count(const mn_plan_request *req, const char *s, size_t len)
{
    return req->tokens ? mn_tokens_count(req->tokens, s, len) : mn_tokens_estimate(s, len);
}

/* Append line to b when it fits what is left of the budget. */
static bool put_line(render *r, mn_buf *b, const char *line)
{
    size_t n = count(r->req, line, strlen(line));
    if (r->used + n > r->budget)
        return false;
    mn_buf_puts(b, line);
    r->used += n;
    return true;
}

static void final_line(mn_buf *l, const mn_plan_file *c, size_t rank)
{
    mn_buf_printf(l, "%zu. %s (final %.2f: graph %.2f", rank, c->path, c->final, c->graph);
    if (c->semantic_evidence)
        mn_buf_printf(l, ", semantic %.2f", c->semantic);
    mn_buf_puts(l, ")");
    if (c->evidence && *c->evidence) {
        mn_buf_puts(l, " | ");
        for (const char *s = c->evidence; *s; s++)
            mn_buf_putc(l, *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
    }
    mn_buf_puts(l, "\n");
}

/* Sections into out->text; the final list (out->selected) cut where the budget ends. */
static void render_text(plan_run *p, mn_plan_result *out, size_t *sel, size_t nsel, bool legacy)
{
    render r = {p->req, MN_BUF_INIT, MN_BUF_INIT, MN_BUF_INIT, 0, out->budget};
    mn_buf l = MN_BUF_INIT, text = MN_BUF_INIT;
    const char *h_seeds = "## Graph Seeds\n", *h_hits = "\n## Semantic Hits\n",
               *h_final = legacy ? "## Final Context Files\n" : "\n## Final Context Files\n";
    if (!legacy)
        r.used += count(p->req, h_seeds, strlen(h_seeds)) + count(p->req, h_hits, strlen(h_hits));
    r.used += count(p->req, h_final, strlen(h_final));
    out->nselected = 0;
    for (size_t i = 0; i < nsel; i++) {
        mn_plan_file *c = &out->files[sel[i]];
        mn_buf_clear(&l);
        final_line(&l, c, i + 1);
        if (!put_line(&r, &r.final, l.ptr)) {
            plan_trace(p, "budget: %s and the %zu after it left out (%zu of %zu tokens used)",
                       c->path, nsel - i - 1, r.used, r.budget);
            break;
        }
        c->selected = true;
        out->selected[out->nselected++] = sel[i];
    }
    if (!legacy) {
        size_t shown = 0;
        for (size_t i = 0; i < out->nfiles && shown < SECTION_LINES; i++) {
            const mn_plan_file *c = &out->files[i];
            if (c->tier != 'A')
                continue;
            mn_buf_clear(&l);
            mn_buf_printf(&l, "- %s (graph %.2f: %s)\n", c->path, c->graph, c->why ? c->why : "");
            if (!put_line(&r, &r.seeds, l.ptr))
                break;
            shown++;
        }
        /* the best semantic scores */
        size_t order[SECTION_LINES], n = 0;
        for (size_t i = 0; i < out->nfiles; i++) {
            const mn_plan_file *c = &out->files[i];
            if (!c->semantic_evidence)
                continue;
            size_t at = n < SECTION_LINES ? n++ : SECTION_LINES;
            while (at > 0 && out->files[order[at - 1]].semantic < c->semantic) {
                if (at < SECTION_LINES)
                    order[at] = order[at - 1];
                at--;
            }
            if (at < SECTION_LINES)
                order[at] = i;
        }
        for (size_t k = 0; k < n; k++) {
            const mn_plan_file *c = &out->files[order[k]];
            mn_buf_clear(&l);
            mn_buf_printf(&l, "- %s (semantic %.2f, %s:", c->path, c->semantic, c->backend);
            for (size_t m = 0; m < c->nmatched; m++)
                mn_buf_printf(&l, " %s", c->matched[m]);
            mn_buf_puts(&l, ")\n");
            if (!put_line(&r, &r.hits, l.ptr))
                break;
        }
        mn_buf_puts(&text, h_seeds);
        mn_buf_puts(&text, r.seeds.len ? r.seeds.ptr : "");
        mn_buf_puts(&text, h_hits);
        mn_buf_puts(&text, r.hits.len ? r.hits.ptr : "");
    }
    mn_buf_puts(&text, h_final);
    mn_buf_puts(&text, r.final.len ? r.final.ptr : "");
    out->text = mn_arena_strdup(&out->arena, text.ptr);
    out->tokens = count(p->req, text.ptr, text.len);
    mn_buf_release(&text);
    mn_buf_release(&l);
    mn_buf_release(&r.seeds);
    mn_buf_release(&r.hits);
    mn_buf_release(&r.final);
}

static void finish(plan_run *p, mn_plan_result *out)
{
    out->trace = mn_arena_alloc(&out->arena, (p->trace.len + 1) * sizeof(char *));
    for (size_t i = 0; i < p->trace.len; i++)
        out->trace[i] = p->trace.items[i];
    out->ntrace = p->trace.len;
}

static void init(plan_run *p, mn_store *s, const mn_plan_request *req, mn_plan_result *out)
{
    memset(out, 0, sizeof(*out));
    mn_arena_init(&out->arena);
    memset(p, 0, sizeof(*p));
    p->store = s;
    p->req = req;
    p->arena = &out->arena;
    p->cap = req->candidate_cap ? req->candidate_cap : DEFAULT_CAP;
    p->sem_cap = req->semantic_cap ? req->semantic_cap : DEFAULT_SEM_CAP;
    out->budget = req->budget ? req->budget : DEFAULT_BUDGET;
}

static void done(plan_run *p)
{
    mn_vec_release(&p->files);
    mn_vec_release(&p->trace);
    mn_map_release(&p->term_index);
}

int mn_plan_run(mn_store *s, const mn_plan_request *req, mn_plan_result *out)
{
    plan_run p;
    init(&p, s, req, out);
    size_t k = req->k ? req->k : DEFAULT_K;
    double min_final = req->min_final_score >= 0 ? req->min_final_score : DEFAULT_MIN_FINAL;
    size_t *sel = NULL;
    int rc;
    out->pipeline_version = MN_PLAN_VERSION;
    if ((rc = terms(&p)) != 0)
        goto out;
    if (!p.nterms && !p.q.nmentions) {
        rc = mn_error_set(MN_ENOTFOUND, "the task has no word the index could match");
        goto out;
    }
    /* no read transaction around the stages: the search (tier A) opens its own */
    double t0 = now_ms();
    rc = plan_graph_candidates(&p);
    if (rc == 0 && !p.files.len)
        rc = mn_error_set(MN_ENOTFOUND, "no graph candidate matches the task");
    double t1 = now_ms();
    if (rc == 0)
        rc = plan_semantic(&p);
    if (rc == 0)
        plan_trace(&p, "time: graph candidates %.1f ms, semantic stage %.1f ms", t1 - t0,
                   now_ms() - t1);
    if (rc)
        goto out;
    out->graph_candidate_count = p.files.len;
    out->backend = p.backend;
    /* fusion */
    size_t w = 0, dropped = 0;
    double w_sem = req->weights                ? req->weights[4]
                   : req->semantic_weight >= 0 ? req->semantic_weight
                                               : W_SEMANTIC;
    for (size_t i = 0; i < p.files.len; i++) {
        mn_plan_file *c = &p.files.items[i];
        c->final = c->semantic_evidence ? (1 - w_sem) * c->graph + w_sem * c->semantic : c->graph;
        if (c->semantic_evidence)
            out->semantic_hit_count++;
        if (!c->semantic_evidence && c->final < min_final) {
            dropped++;
            continue;
        }
        p.files.items[w++] = *c;
    }
    p.files.len = w;
    plan_trace(&p,
               "fusion: %.2f graph + %.2f semantic; %zu without semantic evidence under %.2f "
               "dropped",
               1 - w_sem, w_sem, dropped, min_final);
    if (p.files.len > 1)
        qsort(p.files.items, p.files.len, sizeof(*p.files.items), cmp_final);
    out->files = mn_arena_alloc(&out->arena, (p.files.len + 1) * sizeof(*out->files));
    memcpy(out->files, p.files.items, p.files.len * sizeof(*out->files));
    out->nfiles = p.files.len;
    /* the final set: best k, tests/docs/config at most AUX_SHARE of it unless asked for */
    size_t aux_max = (size_t)floor(AUX_SHARE * (double)k), naux = 0, nsel = 0;
    if (aux_max < 1)
        aux_max = 1;
    sel = mn_calloc(k + 1, sizeof(*sel));
    for (size_t i = 0; i < out->nfiles && nsel < k; i++) {
        const mn_plan_file *c = &out->files[i];
        bool asked = (!strcmp(c->role, "test") && p.about_tests) ||
                     (!strcmp(c->role, "doc") && p.about_docs);
        if (plan_role_is_aux(c->role) && !asked) {
            if (naux >= aux_max) {
                plan_trace(&p, "20%% rule: %s (%s) left out", c->path, c->role);
                continue;
            }
            naux++;
        }
        sel[nsel++] = i;
    }
    out->selected = mn_arena_alloc(&out->arena, (nsel + 1) * sizeof(*out->selected));
    render_text(&p, out, sel, nsel, false);
out:
    finish(&p, out);
    free(sel);
    done(&p);
    return rc;
}

int mn_plan_legacy(mn_store *s, const mn_plan_request *req, const char *reason, mn_plan_result *out)
{
    plan_run p;
    init(&p, s, req, out);
    size_t k = req->k ? req->k : DEFAULT_K;
    size_t *sel = NULL;
    out->pipeline_version = MN_PLAN_LEGACY_VERSION;
    out->backend = "none";
    if (reason)
        out->fallback_reason = mn_arena_strdup(&out->arena, reason);
    mn_search_request sr = {0};
    sr.query = req->task;
    sr.kinds = MN_SEARCH_FILE;
    sr.k = k;
    sr.embedder = req->search_embedder;
    mn_search_result res;
    int rc = mn_search_run(s, &sr, &res);
    if (rc)
        goto out;
    out->files = mn_arena_alloc(&out->arena, (res.n + 1) * sizeof(*out->files));
    out->selected = mn_arena_alloc(&out->arena, (res.n + 1) * sizeof(*out->selected));
    sel = mn_calloc(res.n + 1, sizeof(*sel));
    for (size_t i = 0; i < res.n; i++) {
        mn_plan_file *c = &out->files[i];
        memset(c, 0, sizeof(*c));
        c->id = res.items[i].rowid;
        c->path = mn_arena_strdup(&out->arena, res.items[i].path ? res.items[i].path : "");
        c->role = mn_arena_strdup(&out->arena, res.items[i].kind ? res.items[i].kind : "source");
        c->final = c->graph = res.items[i].score;
        c->why = "lexical";
        sel[i] = i;
    }
    out->nfiles = res.n;
    mn_search_result_release(&res);
    plan_trace(&p, "legacy: the search's file ranking, %zu files%s%s", out->nfiles,
               reason ? "; because " : "", reason ? reason : "");
    render_text(&p, out, sel, out->nfiles, true);
out:
    finish(&p, out);
    free(sel);
    done(&p);
    return rc;
}

void mn_plan_result_release(mn_plan_result *r)
{
    if (r)
        mn_arena_release(&r->arena);
}
