/*
 * fusion.c - one score per item from its signals (docs/internals/retrieval.md
 * has the same formulas, the reasons and the measurements behind the
 * constants).
 *
 * Normalised-score fusion: each raw signal is brought to [0, 1]; the
 * signals of evidence (lexical, names, paths, semantic, graph, scope) are
 * summed with weights; the priors (role, recency, usefulness, level,
 * status) multiply. Every item type ends on the same [0, ~1.5] scale, so
 * memories and code interleave by score.
 *
 * BM25 has no absolute scale: lexical scores are divided by the best of
 * their list (the best item has lexN 1). The mention signals have one:
 * sat(x) = 1 - exp(-x), so one strong unique mention gives 0.63 and two
 * 0.86, whatever else matched.
 *
 * Files (kinds ["file"], and the file part of code results):
 *   lexN   = lex / max lex        lex = sum_i bm25_i 0.25^i over its chunks
 *   titleN = title / max title    the same for the first line of an issue
 *   plexN  = bm25 of the query's words over its path / max
 *   ownN   = own / max own        own = sum_t w_t ln(N/df_t) n(f,t)/df_t
 *   nameN  = sat(named)           named = sum strength * spec / F (graph.c)
 *   pathN  = sat(path_hit)        paths and module paths the query names
 *   semN   = best chunk cosine / max
 *   fault  = 1 / M for the M files the deepest traceback frame that names a
 *            file of the project matches, or a link to a line (graph.c)
 *   msg    = min(1, sum over quoted error messages held as a phrase by the
 *            file of 1 / the files holding it; 3 files at most)  (graph.c)
 *   pre    = 0.45 lexN + 0.3 titleN + 0.2 plexN + 0.3 ownN + 0.35 nameN
 *            + 0.35 pathN + 0.15 semN + 0.3 fault + 0.3 msg
 *   graphN = graph / max graph    graph = one-hop spread of pre (graph.c)
 *   gap    = 1 - pre / max pre    (the graph is for the files the words missed)
 *   scope  = 1 when in the request's files (or under a directory of them)
 *   histN  = bm25 of the subjects of the commits that changed it, for the
 *            title's words / the best source file's (history_signal.c;
 *            source files among the candidates only)
 *   file   = (pre + 0.3 graphN gap + 0.3 scope + 0.2 histN) * role
 *   role: source 1, test 0.35 (0.7 when the query talks about tests, 1 when
 *   it names the file's path outside a traceback frame: a test in a trace
 *   is the caller of the code at fault), doc / config / build 0.5, generated /
 *   vendored 0.2, marker / lock 0.1, an issue or pull-request template
 *   (.github/ISSUE_TEMPLATE/...) 0.1 whatever its role; a source file that
 *   only declares error and annotation types (index/decl_only.h) 0.5, as
 *   documentation. No centrality prior: that many modules import a file
 *   says nothing of whether a question is about it (with PageRank as a
 *   prior the hubs passed the specialised module the words chose:
 *   docs/internals/retrieval.md).
 *   Then a C or C++ header and its source (x.h and x.cpp, x-inl.h) each
 *   get at least 0.95 of the other's file score (companion.c).
 *
 * Code chunks:
 *   chunk  = (0.6 bm25/max bm25 + 0.25 sat(named) + 0.3 semN + 0.15 file/max file)
 *            * role
 *
 * Memories:
 *   lexN   = bm25 / max bm25;  semN = cosine / max cosine
 *   graph  = attached to a matched file (its normalised score), or an
 *            episode next to a matched one (graph.c)
 *   scope  = 1 when scoped to a file of the request or a path the query names
 *   rec    = 2^(-age_days / 90)     (age: since updated_at or, when later, the last
 *                                     time it was served, accessed_at, if not after now)
 *   use    = (used + 1) / (used + ignored + 2)       (0.5 without feedback)
 *   level  = 1 for L0, 0.5 for L1, 0 otherwise
 *   conv   = an episode's conversation (same session reference, else same
 *            situation: the turns of one session) as one document, its BM25
 *            from the turns holding each query word / the best
 *            conversation's (conversation.c). A turn that matches in a
 *            session that holds the question's other words beats the same
 *            match alone (BM25 over whole sessions beat the best turn's on
 *            LongMemEval).
 *   speaker = an episode written as a transcript turn ("Melanie: ...") whose
 *            speaker the query names: the share of the label's words in the
 *            query (speaker.c). BM25 cannot tell her turn from the other
 *            speaker's "Wow, Melanie!"; the question about her is answered
 *            by what she said.
 *   when   = 0.5 when created in the time the query names ("last Saturday", "two
 *            weeks ago", "in March", counted from the request's now), + 0.5 when
 *            its own words date what it tells in it ("today", said that day:
 *            when.c)
 *   memory = (0.85 lexN + 0.5 semN + 0.3 graph + 0.2 scope + 0.3 conv + 0.5 speaker
 *             + when)
 *            * (0.85 + 0.15 rec) * (1 + 0.3 (2 use - 1)) * (1 + 0.05 level) * status
 *   status: active 1, pending 0.8, stale (a cited span changed) 0.7.
 */
#include "common.h"
#include <jansson.h>
#include <math.h>

#include "retrieve/retrieve_internal.h"

/* Files. */
#define W_LEX   0.45
#define W_NAME  0.35
#define W_PATH  0.35
#define W_TITLE 0.3
#define W_PLEX  0.2
#define W_OWN   0.3
#define W_SEM   0.15
#define W_FAULT 0.3
#define W_MSG   0.3
#define W_GRAPH 0.3
#define W_SCOPE 0.3
#define W_HIST  0.2

#define ROLE_DECL_ONLY 0.5 /* the factor of doc / config / build (role_factor) */

/* Chunks. */
#define C_LEX  0.6
#define C_NAME 0.25
#define C_SEM  0.3
#define C_FILE 0.15
/* Memories. */
#define M_LEX          0.85
#define M_SEM          0.5
#define M_GRAPH        0.3
#define M_REC          0.15
#define M_USE          0.3
#define M_SCOPE        0.2
#define M_LEVEL        0.05
#define M_CONV         0.3
#define M_SPEAKER      0.5
#define M_WHEN         1.0
#define HALF_LIFE_DAYS 90.0

static double sat(double x)
{
    return x > 0 ? 1.0 - exp(-x) : 0;
}

/*
 * An issue or pull-request template of a code host (.github/ISSUE_TEMPLATE/,
 * .github/PULL_REQUEST_TEMPLATE.md, .gitlab/issue_templates/): every issue
 * filed from it repeats its headings and prompts, so its words match every
 * issue and say nothing about the code to change. Weighted as a marker.
 */
static bool issue_template(const char *path)
{
    if (!path)
        return false;
    static const char *const dirs[] = {"ISSUE_TEMPLATE/", "issue_templates/",
                                       "merge_request_templates/"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(dirs); i++) {
        const char *d = strstr(path, dirs[i]);
        if (d && (d == path || d[-1] == '/'))
            return true;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncasecmp(base, "pull_request_template", 21) == 0 ||
           strncasecmp(base, "issue_template", 14) == 0;
}

static double role_factor(const mn_search_ctx *c, const char *role, bool path_named,
                          const char *path)
{
    if (issue_template(path))
        return 0.1;
    if (!role || strcmp(role, "source") == 0)
        return 1.0;
    if (strcmp(role, "test") == 0)
        return path_named ? 1.0 : c->q.about_tests ? 0.7 : 0.35;
    if (strcmp(role, "doc") == 0 || strcmp(role, "config") == 0 || strcmp(role, "build") == 0)
        return 0.5;
    if (strcmp(role, "generated") == 0 || strcmp(role, "vendored") == 0)
        return 0.2;
    return 0.1;
}

static bool in_scope(const mn_search_ctx *c, const char *path)
{
    if (!path)
        return false;
    size_t pl = strlen(path);
    for (size_t i = 0; i < c->req->nfiles; i++) {
        const char *s = c->req->files[i];
        size_t sl = strlen(s);
        while (sl && s[sl - 1] == '/')
            sl--;
        if (sl == 0)
            continue;
        /* the file itself or a directory above it */
        if (pl >= sl && memcmp(path, s, sl) == 0 && (pl == sl || path[sl] == '/'))
            return true;
    }
    return false;
}

void mn_fusion_files_pre(mn_search_ctx *c)
{
    double max_lex = 0, max_title = 0, max_plex = 0, max_own = 0, max_sem = 0;
    for (size_t i = 0; i < c->files.len; i++) {
        const mn_file_cand *f = &c->files.items[i];
        max_lex = f->lex > max_lex ? f->lex : max_lex;
        max_title = f->title > max_title ? f->title : max_title;
        max_plex = f->path_lex > max_plex ? f->path_lex : max_plex;
        max_own = f->own > max_own ? f->own : max_own;
        max_sem = f->semantic > max_sem ? f->semantic : max_sem;
    }
    for (size_t i = 0; i < c->files.len; i++) {
        mn_file_cand *f = &c->files.items[i];
        double lexn = max_lex > 0 ? f->lex / max_lex : 0;
        double titlen = max_title > 0 ? f->title / max_title : 0;
        double plexn = max_plex > 0 ? f->path_lex / max_plex : 0;
        double semn = max_sem > 0 ? f->semantic / max_sem : 0;
        double ownn = max_own > 0 ? f->own / max_own : 0;
        double msg = f->message < 1 ? f->message : 1;
        f->sig.lexical = lexn;
        f->sig.semantic = semn;
        f->sig.named_path = sat(f->path_hit);
        f->sig.title = titlen;
        f->sig.path_words = plexn;
        f->sig.share = ownn;
        f->sig.fault = f->fault;
        f->sig.message = msg;
        f->score = W_LEX * lexn + W_NAME * sat(f->named) + W_PATH * sat(f->path_hit) +
                   W_TITLE * titlen + W_PLEX * plexn + W_OWN * ownn + W_SEM * semn +
                   W_FAULT * f->fault + W_MSG * msg;
    }
}

/*
 * The graph finds the files the words missed; it does not reorder the
 * files the words found. Its share shrinks as a file's own evidence nears
 * the best file's: gap = 1 - pre / max pre (0 for the best file). Added in
 * full, it ranked the hub modules every seed imports (dataset.py,
 * dataarray.py: graphN 1.0 in most xarray issues) above the specialised
 * module the words pointed to.
 */
void mn_fusion_files(mn_search_ctx *c)
{
    double max_graph = 0, max_pre = 0;
    for (size_t i = 0; i < c->files.len; i++) {
        if (c->files.items[i].graph > max_graph)
            max_graph = c->files.items[i].graph;
        if (c->files.items[i].score > max_pre)
            max_pre = c->files.items[i].score;
    }
    for (size_t i = 0; i < c->files.len; i++) {
        mn_file_cand *f = &c->files.items[i];
        double graphn = max_graph > 0 ? f->graph / max_graph : 0;
        double gap = max_pre > 0 && f->score < max_pre ? 1 - f->score / max_pre : 0;
        if (max_pre <= 0)
            gap = 1; /* no file has evidence of its own: the graph is all there is */
        f->scope = in_scope(c, f->path) ? 1 : 0;
        /* after pre: the history neither spreads through the graph nor narrows its gap */
        double evidence =
            f->score + W_GRAPH * graphn * gap + W_SCOPE * f->scope + W_HIST * f->history;
        double role = role_factor(c, f->role, f->path_named, f->path);
        /* a source file that only declares error and annotation types weighs as documentation
         * does: its names are the issue's words, the behaviour to fix is in the code that
         * raises or reads them (index/decl_only.h; retrieval.md) */
        if (f->decl_only && role > ROLE_DECL_ONLY)
            role = ROLE_DECL_ONLY;
        f->score = evidence * role;
        f->sig.graph = graphn;
        f->sig.graph_gap = gap;
        f->sig.scope = f->scope;
        f->sig.history = f->history;
        f->sig.names = sat(f->named);
        f->sig.role = role;
        f->sig.has = MN_SIG_LEXICAL | MN_SIG_GRAPH | MN_SIG_SCOPE | MN_SIG_HISTORY | MN_SIG_NAMES |
                     MN_SIG_FILE | (c->req->embedder ? MN_SIG_SEMANTIC : 0);
    }
}

void mn_fusion_chunks(mn_search_ctx *c)
{
    double max_bm25 = 0, max_file = 0, max_sem = 0;
    for (size_t i = 0; i < c->chunks.len; i++) {
        if (c->chunks.items[i].bm25 > max_bm25)
            max_bm25 = c->chunks.items[i].bm25;
        if (c->chunks.items[i].semantic > max_sem)
            max_sem = c->chunks.items[i].semantic;
    }
    for (size_t i = 0; i < c->files.len; i++)
        if (c->files.items[i].score > max_file)
            max_file = c->files.items[i].score;
    for (size_t i = 0; i < c->chunks.len; i++) {
        mn_chunk_cand *k = &c->chunks.items[i];
        mn_file_cand *f = mn_search_file(c, k->file_id, k->path, k->role);
        double lexn = max_bm25 > 0 ? k->bm25 / max_bm25 : 0;
        double filen = max_file > 0 ? f->score / max_file : 0;
        double semn = max_sem > 0 ? k->semantic / max_sem : 0;
        k->sig.lexical = lexn;
        k->sig.semantic = semn;
        k->sig.graph = f->sig.graph;
        k->sig.scope = f->scope;
        k->sig.names = sat(k->named);
        k->sig.has = MN_SIG_LEXICAL | MN_SIG_GRAPH | MN_SIG_SCOPE | MN_SIG_NAMES |
                     (c->req->embedder ? MN_SIG_SEMANTIC : 0);
        k->score = (C_LEX * lexn + C_NAME * sat(k->named) + C_FILE * filen + C_SEM * semn) *
                   role_factor(c, k->role, f->path_named, k->path);
    }
}

bool mn_paths_overlap(const char *a, const char *b)
{
    size_t al = strlen(a), bl = strlen(b);
    while (al && a[al - 1] == '/')
        al--;
    while (bl && b[bl - 1] == '/')
        bl--;
    size_t n = al < bl ? al : bl;
    if (n == 0 || memcmp(a, b, n) != 0)
        return false;
    return al == bl || (al < bl ? b[al] == '/' : a[bl] == '/');
}

double mn_fusion_memory_scope(const mn_search_ctx *c, const char *scope_paths)
{
    if (!scope_paths || !*scope_paths)
        return 0;
    json_t *arr = json_loads(scope_paths, 0, NULL);
    double scope = 0;
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        const char *p = json_string_value(v);
        if (!p)
            continue;
        for (size_t f = 0; f < c->req->nfiles && scope == 0; f++)
            if (mn_paths_overlap(p, c->req->files[f]))
                scope = 1;
        for (size_t m = 0; m < c->q.nmentions && scope == 0; m++) {
            const mn_mention *x = &c->q.mentions[m];
            if (x->kind != MN_MENTION_PATH)
                continue;
            size_t pl = strlen(p), xl = strlen(x->text);
            /* the mention is a tail of a path: the scope path ends with it,
             * or the scope is a directory the mentioned file is under */
            if ((pl >= xl && strcmp(p + pl - xl, x->text) == 0 &&
                 (pl == xl || p[pl - xl - 1] == '/')) ||
                mn_paths_overlap(p, x->text))
                scope = 1;
        }
    }
    json_decref(arr);
    return scope;
}

void mn_fusion_memories(mn_search_ctx *c)
{
    size_t n = c->memories.len;
    double max_bm25 = 0, max_sem = 0;
    for (size_t i = 0; i < n; i++) {
        if (c->memories.items[i].bm25 > max_bm25)
            max_bm25 = c->memories.items[i].bm25;
        if (c->memories.items[i].semantic > max_sem)
            max_sem = c->memories.items[i].semantic;
    }
    for (size_t i = 0; i < n; i++) {
        mn_memory_cand *m = &c->memories.items[i];
        /* recency counts from the last change or the last time it was served (a hit
         * keeps a memory in use recent); a hit after the question's moment (as_of in
         * the past) did not happen yet for it */
        int64_t last = m->updated_at;
        if (m->accessed_at > last && m->accessed_at <= c->now_ms)
            last = m->accessed_at;
        double age_days = (double)(c->now_ms - last) / 86400000.0;
        double rec = age_days > 0 ? exp2(-age_days / HALF_LIFE_DAYS) : 1.0;
        double use = ((double)m->used + 1.0) / ((double)m->used + (double)m->ignored + 2.0);
        double level = m->level == 0 ? 1.0 : m->level == 1 ? 0.5 : 0;
        double status = m->stale ? 0.7 : strcmp(m->status, "pending") == 0 ? 0.8 : 1.0;
        double lexn = max_bm25 > 0 ? m->bm25 / max_bm25 : 0;
        double semn = max_sem > 0 ? m->semantic / max_sem : 0;
        m->sig.lexical = lexn;
        m->sig.semantic = semn;
        m->sig.graph = m->graph;
        m->sig.recency = rec;
        m->sig.usefulness = use;
        m->sig.scope = m->scope;
        m->sig.level = level;
        m->sig.conversation = m->conv_doc;
        m->sig.speaker = m->speaker;
        m->sig.when = m->when;
        m->sig.has = MN_SIG_LEXICAL | MN_SIG_GRAPH | MN_SIG_RECENCY | MN_SIG_USEFULNESS |
                     MN_SIG_SCOPE | MN_SIG_LEVEL | (c->req->embedder ? MN_SIG_SEMANTIC : 0) |
                     (m->conversation ? MN_SIG_CONVERSATION : 0) |
                     (m->labelled ? MN_SIG_SPEAKER : 0) | (c->when ? MN_SIG_WHEN : 0);
        m->score = (M_LEX * lexn + M_SEM * semn + M_GRAPH * m->graph + M_SCOPE * m->scope +
                    M_CONV * m->conv_doc + M_SPEAKER * m->speaker + M_WHEN * m->when) *
                   (1 - M_REC + M_REC * rec) * (1 + M_USE * (2 * use - 1)) * (1 + M_LEVEL * level) *
                   status;
    }
}
