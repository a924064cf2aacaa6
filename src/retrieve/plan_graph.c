/*
 * plan_graph.c - the graph candidates of a plan: tiers A, B and C, the
 * noise filter and the cap (docs/internals/plan.md, "Graph candidates").
 *
 * Tier A is what the task's text names directly, in any language: the
 * evidence is tokens, identifiers and paths, never an intent classifier.
 * Four signals, each in [0, 1]:
 *   lexical  the search's file ranking (lexical BM25 over the code, names,
 *            paths, history: search.c) for the task, score / the best's
 *   symbols  the file defines a name the task mentions (query.c's
 *            mentions of strength >= 0.6: code-shaped, in backticks, a
 *            dotted name, a capitalised word), min(1, strength) / the
 *            number of files defining it, combined over names as a
 *            noisy-OR: 1 - prod(1 - c)
 *   path     the task's terms in the path: sum over terms of weight x
 *            idf_path in the file name, half that in the directories,
 *            over the two best such products of the task (two strong
 *            terms in the file name: 1); idf_path = ln(1 + N/df) / ln(1 + N)
 *            over the N paths, so a word every path has counts nothing
 *   mention  the task names the file's path (or its tail, or a module
 *            path a/b/c): min(1, strength / 2), a traceback frame 1,
 *            divided by the number of files the mention matches (a bare
 *            __init__.py names none of them)
 *   graph_A = 1 - (1 - lexical)(1 - 0.3 symbols)(1 - 0.3 path)(1 - 0.5 mention)
 * (the search's own score already holds names and path words, so symbols
 * and path count little more; 0.8/0.7/0.6 cost 4 tasks at Acc@1 on the
 * SWE-bench dev set; a file the task names is often not the one to change
 * (a traceback's frame, an example config): mention at 0.95 put 6 such
 * files above the search's best, 2 tasks fewer at Acc@3 and @5 than any
 * weight from 0 to 0.7, which all agree: docs/internals/plan.md, "Ablations")
 * A file is in tier A when lexical, symbols or mention is above 0 or path
 * is at least 0.34 (one strong term in its file name).
 *
 * Tier B is one hop from the best TIER_B_SEEDS tier-A files over imports
 * and calls lifted to files (mn_store_file_neighbours). A tier-A file
 * that is a neighbour of other seeds rises: support = 1 - prod over those
 * seeds (1 - 0.5 graph_seed), graph = 1 - (1 - graph)(1 - 0.3 support).
 * Another file enters as tier B with graph = 0.5 x 0.5 x its best seed's
 * graph (at most 0.25): the best seed only, since a hub every seed
 * imports (common.h, util.py) is linked to all of them and says nothing
 * of this task; a tier-B file rises above tier A by semantic evidence.
 *
 * Tier C is a bounded pool for recall (TIER_C_MAX): the files beside the
 * best three seeds (same directory, by PageRank) and the weaker path
 * matches, graph = 0.1 + 0.3 path. They need semantic evidence to reach
 * the final set (the minimum final score).
 *
 * The noise filter runs before the semantic stage: lock files are out;
 * tiny marker files (at most 5 lines, no symbol, no import) are out
 * unless the task names them (a mention of at least NAMED: that file
 * alone); tests, docs and config that share nothing
 * with the task (no path term, no symbol named, not named) go to tier C
 * at half their graph score, unless the task is about tests or docs.
 * Then the candidates are sorted by graph and cut to the cap.
 *
 * The file table (every file's path, role, lines, rank and path
 * components) and the neighbours of the seeds come from the index cache
 * (index_cache.c), read from the store once per index state; what depends
 * on the task (the terms in each distinct path component) is computed
 * here, once per plan.
 */
#include "common.h"
#include <math.h>
#include <time.h>

#include "retrieve/index_cache.h"
#include "retrieve/plan_internal.h"
#include "store/store_index.h"
#include "text/tokenize.h"
#include "util/util.h"

#define LEXICAL_K      30   /* files asked of the search's file ranking */
#define SYMBOL_MIN     0.6  /* mentions at least this strong are looked up as names */
#define MAX_NAMES      64   /* names looked up */
#define TIER_A_PATH    0.34 /* path score that alone puts a file in tier A */
#define TIER_B_SEEDS   12   /* tier-A files whose neighbours form tier B */
#define TIER_B_SHARE   0.5  /* a tier-B file's graph score: this x 0.5 x its best seed's */
#define TIER_A_LINKED  0.3  /* how much links to other seeds raise a tier-A file */
#define TIER_C_MAX     15   /* files of tier C at most */
#define TIER_C_PER_DIR 5    /* files beside one seed */
#define MARKER_LINES   5    /* a marker file has at most this many lines */
#define NAMED          0.5  /* a mention this strong names the file itself: a marker may stay */

/* tier A's noisy-OR: lexical, symbols, path, mention */
static const double w_default[4] = {1.0, 0.3, 0.3, 0.5};

typedef struct {
    int64_t id;
    const char *path, *role; /* the index cache's: copied into the arena for a candidate */
    int64_t lines;
    double rank;
    uint64_t base, dir; /* the task's terms in the file name, in the directories */
    int cand;           /* index + 1 into p->files, 0: not a candidate */
} pfile;

typedef struct {
    plan_run *p;
    mn_index_cache *cache; /* the file table (in all's order) and the neighbours, held */
    MN_VEC(pfile) all;
    double df[PLAN_MAX_TERMS];
} graph_run;

/*
 * The file table, from the index cache: each distinct path component (at
 * most 255 bytes) tokenized once per plan when the prefilter passes it, the
 * task's terms in a file's name (base) and in its directories (dir).
 */
static int file_table(graph_run *g)
{
    plan_run *p = g->p;
    size_t ncomps = mn_index_cache_ncomps(g->cache), nfiles = mn_index_cache_nfiles(g->cache);
    const mn_icache_file *files = mn_index_cache_files(g->cache);
    uint64_t *bits = mn_calloc(ncomps ? ncomps : 1, sizeof(*bits));
    int rc = 0;
    for (uint32_t k = 0; k < ncomps && rc == 0; k++) {
        const char *comp = mn_index_cache_comp(g->cache, k);
        size_t n = strlen(comp);
        void *a[2] = {p, &bits[k]};
        if (!plan_maybe_terms(p, comp, n))
            continue;
        /* the component's terms kept for the process (plan_scan.c): the same bits */
        const char *terms = plan_scan_text_terms(comp, n);
        if (terms)
            bits[k] = plan_terms_bits(p, terms);
        else
            rc = mn_tokenize(comp, n, MN_LANG_EN, 0, plan_term_bits_token, a);
    }
    if (rc)
        goto out;
    mn_vec_reserve(&g->all, nfiles);
    for (size_t i = 0; i < nfiles; i++) {
        const mn_icache_file *f = &files[i];
        pfile x = {0};
        x.id = f->id;
        x.path = f->path;
        x.role = f->role;
        x.lines = f->lines;
        x.rank = f->rank;
        for (uint32_t k = 0; k < f->ncomp; k++) {
            uint64_t b = bits[mn_index_cache_file_comp(g->cache, f->comp0 + k)];
            if (k + 1 < f->ncomp)
                x.dir |= b;
            else
                x.base |= b;
        }
        for (uint64_t m = x.base | x.dir; m; m &= m - 1)
            g->df[__builtin_ctzll(m)] += 1;
        mn_vec_push(&g->all, x);
    }
out:
    free(bits);
    return rc;
}

static pfile *file_by_id(graph_run *g, int64_t id)
{
    ptrdiff_t i = mn_index_cache_find(g->cache, id);
    return i >= 0 ? &g->all.items[i] : NULL;
}

/* The candidate of a file, made on first use (tier set by the caller). */
static mn_plan_file *cand_of(graph_run *g, pfile *f)
{
    plan_run *p = g->p;
    if (!f->cand) {
        mn_plan_file c = {0};
        c.id = f->id;
        c.path = mn_arena_strdup(p->arena, f->path); /* the answer outlives the cache */
        c.role = mn_arena_strdup(p->arena, f->role);
        c.lines = f->lines;
        mn_vec_push(&p->files, c);
        f->cand = (int)p->files.len;
    }
    return &p->files.items[f->cand - 1];
}

static void add_why(plan_run *p, mn_plan_file *c, const char *what)
{
    if (!c->why)
        c->why = mn_arena_strdup(p->arena, what);
    else if (strlen(c->why) < 160) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%s; %s", c->why, what);
        c->why = mn_arena_strdup(p->arena, b.ptr);
        mn_buf_release(&b);
    }
}

/* ---- tier A ---- */

static void path_scores(graph_run *g)
{
    plan_run *p = g->p;
    double n = (double)g->all.len, w[PLAN_MAX_TERMS] = {0}, best1 = 0, best2 = 0;
    for (size_t t = 0; t < p->nterms; t++) {
        if (g->df[t] <= 0)
            continue;
        w[t] = p->terms[t].weight * log(1 + n / g->df[t]) / log(1 + n);
        if (w[t] > best1) {
            best2 = best1;
            best1 = w[t];
        } else if (w[t] > best2) {
            best2 = w[t];
        }
    }
    double norm = best1 + best2;
    if (norm <= 0)
        return;
    for (size_t i = 0; i < g->all.len; i++) {
        pfile *f = &g->all.items[i];
        if (!(f->base | f->dir))
            continue;
        double s = 0;
        for (uint64_t m = f->base; m; m &= m - 1)
            s += w[__builtin_ctzll(m)];
        for (uint64_t m = f->dir & ~f->base; m; m &= m - 1)
            s += 0.5 * w[__builtin_ctzll(m)];
        s = s / norm > 1 ? 1 : s / norm;
        if (s <= 0)
            continue;
        mn_plan_file *c = cand_of(g, f);
        c->path_match = s;
        mn_buf b = MN_BUF_INIT;
        mn_buf_puts(&b, "path:");
        for (uint64_t m = f->base | f->dir; m; m &= m - 1)
            mn_buf_printf(&b, " %s", p->terms[__builtin_ctzll(m)].surface);
        add_why(p, c, b.ptr);
        mn_buf_release(&b);
    }
}

static bool path_named(const char *path, const char *m)
{
    size_t lp = strlen(path), lm = strlen(m);
    if (lm == 0 || lm > lp)
        return false;
    return strcmp(path + lp - lm, m) == 0 && (lp == lm || path[lp - lm - 1] == '/');
}

static bool module_named(const char *path, const char *m)
{
    size_t lm = strlen(m);
    return lm > 0 && strncmp(path, m, lm) == 0 && (path[lm] == '.' || path[lm] == '/');
}

static void mentions(graph_run *g)
{
    plan_run *p = g->p;
    for (size_t k = 0; k < p->q.nmentions; k++) {
        const mn_mention *m = &p->q.mentions[k];
        if (m->kind != MN_MENTION_PATH && m->kind != MN_MENTION_MODULE)
            continue;
        double s = m->frame ? 1.0 : fmin(1.0, m->strength / 2);
        if (m->kind == MN_MENTION_MODULE)
            s *= 0.8;
        /* a name many files share (__init__.py, utils.py) names none of them: 1 / matches */
        size_t nhit = 0;
        for (size_t i = 0; i < g->all.len; i++)
            nhit += m->kind == MN_MENTION_PATH ? path_named(g->all.items[i].path, m->text)
                                               : module_named(g->all.items[i].path, m->text);
        if (!nhit)
            continue;
        s /= (double)nhit;
        for (size_t i = 0; i < g->all.len; i++) {
            pfile *f = &g->all.items[i];
            bool hit = m->kind == MN_MENTION_PATH ? path_named(f->path, m->text)
                                                  : module_named(f->path, m->text);
            if (!hit)
                continue;
            mn_plan_file *c = cand_of(g, f);
            if (s > c->mention) {
                c->mention = s;
                mn_buf b = MN_BUF_INIT;
                mn_buf_printf(&b, "named: %s", m->text);
                add_why(p, c, b.ptr);
                mn_buf_release(&b);
            }
        }
    }
}

typedef struct {
    size_t which;
    int64_t file;
} def_hit;

typedef struct {
    MN_VEC(def_hit) defs;
} def_run;

static int on_def(void *payload, size_t which, const mn_symbol_def *d)
{
    def_run *r = payload;
    def_hit h = {which, d->file_id};
    mn_vec_push(&r->defs, h);
    return 0;
}

static int symbols(graph_run *g)
{
    plan_run *p = g->p;
    const char *names[MAX_NAMES];
    double strength[MAX_NAMES];
    size_t n = 0;
    for (size_t k = 0; k < p->q.nmentions && n < MAX_NAMES; k++) {
        const mn_mention *m = &p->q.mentions[k];
        if ((m->kind != MN_MENTION_NAME && m->kind != MN_MENTION_QUALIFIED) ||
            m->strength < SYMBOL_MIN)
            continue;
        names[n] = m->text;
        strength[n++] = fmin(1.0, m->strength);
    }
    if (!n)
        return 0;
    def_run r = {MN_VEC_INIT};
    int rc = mn_store_symbols_named(p->store, names, n, on_def, &r);
    if (rc)
        goto out;
    /* files defining each name (a name defined in many files says little of each) */
    size_t nfiles[MAX_NAMES] = {0};
    for (size_t i = 0; i < r.defs.len; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = r.defs.items[j].which == r.defs.items[i].which &&
                   r.defs.items[j].file == r.defs.items[i].file;
        if (!seen)
            nfiles[r.defs.items[i].which]++;
        else
            r.defs.items[i].which = SIZE_MAX; /* counted once */
    }
    for (size_t i = 0; i < r.defs.len; i++) {
        size_t w = r.defs.items[i].which;
        pfile *f = w == SIZE_MAX ? NULL : file_by_id(g, r.defs.items[i].file);
        if (!f)
            continue;
        mn_plan_file *c = cand_of(g, f);
        double contrib = strength[w] / (double)nfiles[w];
        c->symbols = 1 - (1 - c->symbols) * (1 - contrib);
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "defines %s", names[w]);
        add_why(p, c, b.ptr);
        mn_buf_release(&b);
    }
out:
    mn_vec_release(&r.defs);
    return rc;
}

static int lexical(graph_run *g)
{
    plan_run *p = g->p;
    mn_search_request req = {0};
    req.query = p->req->task;
    req.kinds = MN_SEARCH_FILE;
    req.k = LEXICAL_K;
    req.embedder = p->req->search_embedder;
    req.no_snippets = true; /* the ranking alone is used */
    req.index_cache = g->cache;
    mn_search_result res;
    int rc = mn_search_run(p->store, &req, &res);
    if (rc)
        return rc;
    double top = res.n ? res.items[0].score : 0;
    for (size_t i = 0; i < res.n && top > 0; i++) {
        pfile *f = file_by_id(g, res.items[i].rowid);
        if (!f)
            continue;
        mn_plan_file *c = cand_of(g, f);
        c->lexical = res.items[i].score / top;
        char what[48];
        snprintf(what, sizeof(what), "lexical #%zu", i + 1);
        add_why(p, c, what);
    }
    mn_search_result_release(&res);
    return 0;
}

/* ---- the noise filter ---- */

typedef struct {
    bool any;
} any_run;

static int on_any_name(void *payload, const char *name, const char *qualified)
{
    (void)name;
    (void)qualified;
    ((any_run *)payload)->any = true;
    return 1;
}

static int on_any_edge(void *payload, const mn_edge_rec *e)
{
    (void)e;
    ((any_run *)payload)->any = true;
    return 1;
}

/* A tiny file with no symbol and no import: an empty __init__.py, a py.typed, a .keep. */
static int is_marker(plan_run *p, const mn_plan_file *c, bool *out)
{
    *out = false;
    if (!strcmp(c->role, "marker")) {
        *out = true;
        return 0;
    }
    if (c->lines > MARKER_LINES)
        return 0;
    any_run a = {false};
    int rc = mn_store_file_symbol_names_each(p->store, c->id, on_any_name, &a);
    if (rc < 0)
        return rc;
    if (a.any)
        return 0;
    mn_edge_query q = MN_EDGE_QUERY_INIT;
    q.file_imports = c->id;
    if ((rc = mn_store_edges_each(p->store, &q, on_any_edge, &a)) < 0)
        return rc;
    *out = !a.any;
    return 0;
}

static bool overlaps(const mn_plan_file *c)
{
    return c->path_match > 0 || c->symbols > 0 || c->mention > 0;
}

/* ---- tier B and C ---- */

typedef struct {
    graph_run *g;
    double *support; /* per candidate index, seeds' contributions combined */
    MN_VEC(int64_t) others;
    MN_VEC(double) other_support;
    mn_map other_index;
} hop_run;

static int on_neighbour(void *payload, int64_t seed, int64_t other, double weight, bool outgoing)
{
    hop_run *h = payload;
    (void)weight;
    (void)outgoing;
    pfile *s = file_by_id(h->g, seed), *o = file_by_id(h->g, other);
    if (!s || !o || !s->cand)
        return 0;
    double c = 0.5 * h->g->p->files.items[s->cand - 1].graph;
    if (o->cand) {
        h->support[o->cand - 1] = 1 - (1 - h->support[o->cand - 1]) * (1 - c);
        return 0;
    }
    char key[24];
    snprintf(key, sizeof(key), "%lld", (long long)other);
    uintptr_t i = (uintptr_t)mn_map_get(&h->other_index, key);
    if (!i) {
        mn_vec_push(&h->others, other);
        mn_vec_push(&h->other_support, 0.0);
        i = h->others.len;
        mn_map_set(&h->other_index, mn_arena_strdup(h->g->p->arena, key), (void *)i);
    }
    if (c > h->other_support.items[i - 1]) /* the best seed: a hub linked to all is no better */
        h->other_support.items[i - 1] = c;
    return 0;
}

static int cmp_graph(const void *a, const void *b)
{
    const mn_plan_file *x = a, *y = b;
    if (x->graph != y->graph)
        return x->graph > y->graph ? -1 : 1;
    return strcmp(x->path, y->path);
}

static void reindex(graph_run *g)
{
    for (size_t i = 0; i < g->all.len; i++)
        g->all.items[i].cand = 0;
    for (size_t i = 0; i < g->p->files.len; i++) {
        pfile *f = file_by_id(g, g->p->files.items[i].id);
        if (f)
            f->cand = (int)i + 1;
    }
}

static int tier_b(graph_run *g)
{
    plan_run *p = g->p;
    int64_t seeds[TIER_B_SEEDS];
    size_t n = 0;
    for (size_t i = 0; i < p->files.len && n < TIER_B_SEEDS; i++)
        if (p->files.items[i].tier == 'A')
            seeds[n++] = p->files.items[i].id;
    if (!n)
        return 0;
    hop_run h = {g, mn_calloc(p->files.len, sizeof(double)), MN_VEC_INIT, MN_VEC_INIT, MN_MAP_INIT};
    int rc = mn_index_cache_neighbours(g->cache, p->store, seeds, n, 0, on_neighbour, &h);
    if (rc)
        goto out;
    size_t nfiles = p->files.len, rose = 0, added = 0;
    for (size_t i = 0; i < nfiles; i++) {
        mn_plan_file *c = &p->files.items[i];
        if (h.support[i] <= 0)
            continue;
        c->support = h.support[i];
        c->graph = 1 - (1 - c->graph) * (1 - TIER_A_LINKED * h.support[i]);
        add_why(p, c, "linked to other seeds");
        rose++;
    }
    for (size_t i = 0; i < h.others.len; i++) {
        pfile *f = file_by_id(g, h.others.items[i]);
        if (!f)
            continue;
        mn_plan_file *c = cand_of(g, f);
        c->tier = 'B';
        c->support = h.other_support.items[i];
        c->graph = TIER_B_SHARE * c->support;
        add_why(p, c, "imports or calls a seed, or is imported or called by one");
        added++;
    }
    plan_trace(p, "tier B: %zu seeds, %zu neighbours added, %zu tier-A files supported", n, added,
               rose);
out:
    free(h.support);
    mn_vec_release(&h.others);
    mn_vec_release(&h.other_support);
    mn_map_release(&h.other_index);
    return rc;
}

static int cmp_rank_desc(const void *a, const void *b)
{
    const pfile *const *x = a, *const *y = b;
    if ((*x)->rank != (*y)->rank)
        return (*x)->rank > (*y)->rank ? -1 : 1;
    return strcmp((*x)->path, (*y)->path);
}

static int cmp_path_desc(const void *a, const void *b)
{
    const mn_plan_file *const *x = a, *const *y = b;
    if ((*x)->path_match != (*y)->path_match)
        return (*x)->path_match > (*y)->path_match ? -1 : 1;
    return strcmp((*x)->path, (*y)->path);
}

static void tier_c(graph_run *g)
{
    plan_run *p = g->p;
    size_t added = 0, nseeds = 0;
    /* beside the best three seeds */
    const char *dirs[3];
    size_t dlen[3];
    for (size_t i = 0; i < p->files.len && nseeds < 3; i++) {
        const mn_plan_file *c = &p->files.items[i];
        const char *slash = strrchr(c->path, '/');
        if (c->tier != 'A')
            continue;
        dirs[nseeds] = c->path;
        dlen[nseeds++] = slash ? (size_t)(slash - c->path) + 1 : 0;
    }
    for (size_t d = 0; d < nseeds && added < TIER_C_MAX; d++) {
        MN_VEC(pfile *) beside = MN_VEC_INIT;
        for (size_t i = 0; i < g->all.len; i++) {
            pfile *f = &g->all.items[i];
            if (f->cand || strncmp(f->path, dirs[d], dlen[d]) != 0 ||
                strchr(f->path + dlen[d], '/'))
                continue;
            mn_vec_push(&beside, f);
        }
        if (beside.len > 1)
            qsort(beside.items, beside.len, sizeof(*beside.items), cmp_rank_desc);
        for (size_t i = 0; i < beside.len && i < TIER_C_PER_DIR && added < TIER_C_MAX; i++) {
            mn_plan_file *c = cand_of(g, beside.items[i]);
            c->tier = 'C';
            c->graph = 0.1;
            add_why(p, c, "beside a seed");
            added++;
        }
        mn_vec_release(&beside);
    }
    /* the weaker path matches (made as candidates by path_scores, no tier yet), best first */
    MN_VEC(mn_plan_file *) weak = MN_VEC_INIT;
    for (size_t i = 0; i < p->files.len; i++)
        if (!p->files.items[i].tier)
            mn_vec_push(&weak, &p->files.items[i]);
    if (weak.len > 1)
        qsort(weak.items, weak.len, sizeof(*weak.items), cmp_path_desc);
    for (size_t i = 0; i < weak.len; i++) {
        mn_plan_file *c = weak.items[i];
        if (added < TIER_C_MAX) {
            c->tier = 'C';
            c->graph = 0.1 + 0.3 * c->path_match;
            added++;
        } else {
            c->tier = 'X'; /* left out: the pool is full */
        }
    }
    mn_vec_release(&weak);
    plan_trace(p, "tier C: %zu files (at most %d)", added, TIER_C_MAX);
}

typedef struct {
    size_t locks, markers, demoted;
} noise_counts;

static double ms_between(struct timespec a, struct timespec b)
{
    return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

/*
 * The noise filter over the candidates of one tier, run after each tier is
 * made so that nothing it removes seeds the next: lock files out (in the
 * first pass every candidate's), marker files out unless the task names
 * them (a mention of NAMED), and in tiers A and B the tests, docs and
 * config that share nothing with the task sent to tier C at half their
 * graph score (unless the task asks for tests or docs). The files the
 * pool left out (tier X) go too. Sorted by graph score after.
 */
static int noise_filter(graph_run *g, char tier, noise_counts *k)
{
    plan_run *p = g->p;
    size_t w = 0;
    for (size_t i = 0; i < p->files.len; i++) {
        mn_plan_file c = p->files.items[i];
        bool mine = c.tier == tier, marker = false;
        if (c.tier == 'X')
            continue;
        if ((mine || tier == 'A') && !strcmp(c.role, "lock")) {
            k->locks++;
            continue;
        }
        if (mine && c.mention < NAMED) {
            int rc = is_marker(p, &c, &marker);
            if (rc != 0)
                return rc; /* the plan fails here: op_plan answers with legacy_v0 */
            if (marker) {
                k->markers++;
                continue;
            }
        }
        bool asked = (!strcmp(c.role, "test") && p->about_tests) ||
                     (!strcmp(c.role, "doc") && p->about_docs);
        if (mine && tier != 'C' && plan_role_is_aux(c.role) && !overlaps(&c) && !asked) {
            c.tier = 'C';
            c.graph *= 0.5;
            k->demoted++;
        }
        p->files.items[w++] = c;
    }
    p->files.len = w;
    if (p->files.len > 1)
        qsort(p->files.items, p->files.len, sizeof(*p->files.items), cmp_graph);
    reindex(g);
    return 0;
}

int plan_graph_candidates(plan_run *p)
{
    graph_run g = {p, NULL, MN_VEC_INIT, {0}};
    int rc;
    struct timespec tz;
    clock_gettime(CLOCK_MONOTONIC, &tz);
    if ((rc = mn_index_cache_get(p->store, &g.cache)) != 0 || (rc = file_table(&g)) != 0)
        goto out;
    if (!g.all.len) {
        rc = mn_error_set(MN_ENOTFOUND, "nothing is indexed: run 'mnemo index' first");
        goto out;
    }
    struct timespec tx, ty;
    clock_gettime(CLOCK_MONOTONIC, &tx);
    plan_trace(p, "time: the file table %.1f ms", ms_between(tz, tx));
    path_scores(&g);
    mentions(&g);
    if ((rc = symbols(&g)) != 0)
        goto out;
    clock_gettime(CLOCK_MONOTONIC, &ty);
    plan_trace(p, "time: paths, mentions, symbols %.1f ms", ms_between(tx, ty));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if ((rc = lexical(&g)) != 0)
        goto out;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    plan_trace(p, "time: the search's file ranking %.1f ms", ms_between(t0, t1));
    /* tier A */
    size_t na = 0;
    for (size_t i = 0; i < p->files.len; i++) {
        mn_plan_file *c = &p->files.items[i];
        if (c->lexical > 0 || c->symbols > 0 || c->mention > 0 || c->path_match >= TIER_A_PATH) {
            c->tier = 'A';
            const double *w = p->req->weights ? p->req->weights : w_default;
            c->graph = 1 - (1 - w[0] * c->lexical) * (1 - w[1] * c->symbols) *
                               (1 - w[2] * c->path_match) * (1 - w[3] * c->mention);
            na++;
        }
    }
    plan_trace(p, "tier A: %zu files match the task directly (paths, symbols, lexical)", na);
    /* the noise filter before the hop, so that no lock or marker file seeds tier B */
    noise_counts k = {0};
    if ((rc = noise_filter(&g, 'A', &k)) != 0)
        goto out;
    clock_gettime(CLOCK_MONOTONIC, &tx);
    if ((rc = tier_b(&g)) != 0)
        goto out;
    clock_gettime(CLOCK_MONOTONIC, &ty);
    plan_trace(p, "time: tier B %.1f ms", ms_between(tx, ty));
    /* tier B's newcomers through the same filter */
    if ((rc = noise_filter(&g, 'B', &k)) != 0)
        goto out;
    tier_c(&g);
    /* tier C's newcomers: locks and markers out */
    if ((rc = noise_filter(&g, 'C', &k)) != 0)
        goto out;
    plan_trace(p,
               "noise filter: %zu lock files and %zu marker files out, %zu tests/docs/config "
               "without overlap sent to tier C",
               k.locks, k.markers, k.demoted);
    if (p->files.len > p->cap) {
        plan_trace(p, "cap: %zu candidates cut to %zu", p->files.len, p->cap);
        p->files.len = p->cap;
    }
out:
    mn_vec_release(&g.all);
    mn_index_cache_release(g.cache);
    return rc;
}
