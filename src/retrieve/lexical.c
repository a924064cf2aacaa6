/*
 * lexical.c - the lexical signals: BM25F candidates from the full-text
 * indexes (store_search.h) for memories and code chunks, and what they say
 * about files.
 *
 * The store returns FTS5's bm25() with field weights (memories: title 4,
 * keywords 3, body 1, context 1.5; chunks: path 2, names 4, signature 2,
 * docstring 1.5, body 1), best first, bounded by `limit`. Filters on
 * memories (kind, level, status, tags, paths) run in the store, before the
 * limit, so a filter never empties a list that had matches.
 *
 * A file's lexical evidence is the decayed sum of its chunks' scores, best
 * first: lex(f) = sum_i bm25_i * 0.25^i. One strong chunk counts most; more
 * matching chunks add less and less, so a long file does not win by
 * volume (0.25 beat 0, 0.5 and 0.7 on the SWE-bench dev set). The first
 * line of an issue (a title above more text) is searched on its own too
 * (title(f), same sum), the query's words against the file paths
 * (path_lex), and for file ranking the ownership of the query's 24
 * weightiest words (mn_lexical_ownership).
 */
#include "common.h"
#include <inttypes.h>
#include <math.h>

#include "retrieve/retrieve_internal.h"

#define FILE_CHUNK_DECAY 0.25

/*
 * The files met so far, by id: open addressing (linear probing, the table
 * at most half full), the id mixed by a multiplication (Fibonacci hashing).
 * Ownership alone meets every file holding one of 24 words (thousands on
 * sympy): a decimal key and a string map per meeting were 5% of a plan.
 */
struct mn_file_slot {
    int64_t id;
    size_t at; /* index + 1 into files; 0: empty */
};

static size_t file_slot(const struct mn_file_slot *slots, size_t cap, int64_t id)
{
    size_t mask = cap - 1, k = (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (slots[k].at && slots[k].id != id)
        k = (k + 1) & mask;
    return k;
}

mn_file_cand *mn_search_file_find(const mn_search_ctx *c, int64_t id)
{
    if (!c->file_cap)
        return NULL;
    size_t at = c->file_slots[file_slot(c->file_slots, c->file_cap, id)].at;
    return at ? &c->files.items[at - 1] : NULL;
}

static void file_slots_grow(mn_search_ctx *c)
{
    size_t cap = c->file_cap ? 2 * c->file_cap : 1024;
    struct mn_file_slot *slots = mn_calloc(cap, sizeof(*slots));
    for (size_t i = 0; i < c->file_cap; i++)
        if (c->file_slots[i].at)
            slots[file_slot(slots, cap, c->file_slots[i].id)] = c->file_slots[i];
    free(c->file_slots);
    c->file_slots = slots;
    c->file_cap = cap;
}

mn_file_cand *mn_search_file(mn_search_ctx *c, int64_t id, const char *path, const char *role)
{
    if (2 * (c->file_n + 1) > c->file_cap)
        file_slots_grow(c);
    struct mn_file_slot *slot = &c->file_slots[file_slot(c->file_slots, c->file_cap, id)];
    if (slot->at) {
        mn_file_cand *f = &c->files.items[slot->at - 1];
        if (!f->path && path) {
            f->path = mn_arena_strdup(c->arena, path);
            f->role = role ? mn_arena_strdup(c->arena, role) : NULL;
        }
        return f;
    }
    mn_file_cand f = {0};
    f.id = id;
    f.path = path ? mn_arena_strdup(c->arena, path) : NULL;
    f.role = role ? mn_arena_strdup(c->arena, role) : NULL;
    mn_vec_push(&c->files, f);
    slot->id = id;
    slot->at = c->files.len;
    c->file_n++;
    return &c->files.items[c->files.len - 1];
}

/*
 * Bounding a ranked query. FTS5 ranks every row that matches before it
 * can sort (bm25() reads each row's column sizes: about 1 us a row), so one
 * word found in a third of the store costs more than the rest of a search.
 * Each word's matches are counted (store-cached: a common word is counted
 * once, not per search). While the words' counts add up to at most
 * ROW_BUDGET (an upper bound of the query's matches) the query runs as is.
 * Otherwise it keeps its rarest words, in increasing number of matches,
 * while their counts add up to at most ROW_BUDGET (the rarest word always
 * stays). The words left out are the ones BM25 weighs least (idf =
 * ln(N / df)), so the top rows barely move.
 *
 * When even the rarest word matches more than ROW_BUDGET rows (every word
 * is common: "update the invoice json"), the rarest words are AND-ed
 * instead: t1 AND t2 AND ... in increasing count, until the estimated
 * matches, count_1 * prod_{i>1} count_i / N (independent words), fall to
 * ROW_BUDGET or below, stopping before they would fall under MN_AND_MIN_ROWS (the
 * list must still fill) and, for memories, before reading them would pass
 * MN_AND_POSTING_BUDGET (mn_lexical_and_plan). A row holding all of them scores as it would in
 * the OR query (bm25 sums over the query's words) and among common words
 * the rows holding more of them are the best ones, so the top is the OR
 * query's top, at the cost of a posting-list intersection (no bm25 for the
 * rows left out). When the AND query matches fewer rows than the list
 * wants, the rarest word alone is ranked too: memories check afterwards
 * (the rows the AND query gave are kept, the others added; no count),
 * chunks count the AND query first (an intersection of posting lists, no
 * ranking: on_chunk wants a file's chunks best first, in one pass).
 */
#define ROW_BUDGET      1000
#define ROW_BUDGET_FILE 12000 /* ranking files: quality first */

typedef struct {
    const char *match;
    int64_t count;
} counted;

/*
 * How to rank a rewritten match cheaply (memories): the idf of each of its
 * phrases, from the counts already made (mnemo_bm25 then reads no posting
 * list to count them: for a word in half of the store that was most of a
 * search), and, for an AND of common words, the newest share of the rows
 * to look at (mn_lexical_and_plan). The same for the loose word: the newest
 * budget / count of its rows.
 */
typedef struct {
    MN_VEC(double) idf, loose_idf;
    double newest, loose_newest;
} rank_hint;

/*
 * The AND of common words (even the rarest matches more than the budget):
 * how many of the rarest words, and (newest set: memories) the newest
 * share of the rows to look at.
 *
 * Words are added rarest first while the estimated matches stay above the
 * budget, do not fall under MN_AND_MIN_ROWS (the list must still fill; when it
 * does not, the loose word fills in) and, with newest, while the words'
 * posting lists read over the share that still leaves MN_AND_MIN_ROWS matches
 * stay within MN_AND_POSTING_BUDGET: a further word shrinks the matches and so
 * widens that share, while its own list adds to what is read. Six words
 * each in 30-45% of 100k memories were read over 56% of the rows, 142,000
 * entries, 3.9 ms before one row was ranked; four of them over 19% are
 * 31,000.
 *
 * The share looks at the newest rows only: a question whose every word is
 * found in much of the store cannot tell those rows apart by their words,
 * and fusion prefers recent memories anyway. It keeps the ranked rows (the
 * estimate) within the budget and the entries read within MN_AND_POSTING_BUDGET,
 * never leaving fewer than MN_AND_MIN_ROWS estimated matches. 0: every row.
 */
mn_and_plan mn_lexical_and_plan(const int64_t *counts, size_t n, int64_t ndocs, double budget,
                                bool newest)
{
    mn_and_plan p = {n > 0, n > 0 ? (double)counts[0] : 0, 0};
    double postings = p.est;
    while (p.words < n && p.est > budget && ndocs > 0) {
        double est = p.est * (double)counts[p.words] / (double)ndocs;
        double more = postings + (double)counts[p.words];
        if (est < MN_AND_MIN_ROWS ||
            (newest &&
             (est > MN_AND_MIN_ROWS ? MN_AND_MIN_ROWS / est : 1) * more > MN_AND_POSTING_BUDGET))
            break;
        p.est = est;
        postings = more;
        p.words++;
    }
    if (!newest)
        return p;
    double share = p.est > budget ? budget / p.est : 1;
    if (postings > MN_AND_POSTING_BUDGET && MN_AND_POSTING_BUDGET / postings < share)
        share = MN_AND_POSTING_BUDGET / postings;
    if (share * p.est < MN_AND_MIN_ROWS)
        share = p.est > 0 ? MN_AND_MIN_ROWS / p.est : 1;
    p.share = share < 1 ? share : 0;
    return p;
}

/* FTS5's idf of a phrase in n of N rows (bm25(): at least 1e-6). */
static double idf_of(int64_t n, int64_t ndocs)
{
    double v = log(((double)ndocs - (double)n + 0.5) / ((double)n + 0.5));
    return v > 0 ? v : 1e-6;
}

/*
 * One idf per phrase ("..." string) of a term's match. An OR group of forms
 * ("null_pointer" OR "nullpointer") was counted as a whole: each form gets
 * the group's idf, a little lower than its own (bm25() would count each
 * form: a posting-list read each, the cost this avoids).
 */
static void push_idf(rank_hint *h, bool loose, const counted *t, int64_t ndocs)
{
    size_t phrases = 0;
    bool in = false;
    for (const char *p = t->match; *p; p++) {
        if (*p != '"')
            continue;
        if (in && p[1] == '"') { /* "" inside a phrase */
            p++;
            continue;
        }
        in = !in;
        phrases += in;
    }
    double v = idf_of(t->count, ndocs);
    for (size_t i = 0; i < phrases; i++) {
        if (loose)
            mn_vec_push(&h->loose_idf, v);
        else
            mn_vec_push(&h->idf, v);
    }
}

static int cmp_counted(const void *a, const void *b)
{
    int64_t x = ((const counted *)a)->count, y = ((const counted *)b)->count;
    return x < y ? -1 : x > y;
}

/*
 * The commonest words of a bounded OR query, set apart (MaxScore's
 * non-essential terms). A row's BM25 share from one word is at most
 * idf x (k1 + 1) (the term frequency saturates: tf (k1 + 1) / (tf + norm)
 * < k1 + 1, k1 = 1.2, whatever the column weights), so a row holding only
 * the tail's words scores at most ub = the sum of those bounds. The head
 * (the other, rarer words) is ranked first; when it fills the list and
 * its last row scores ub or more, no row of the tail alone could have
 * entered the list and the tail's rows are never ranked (rows holding a
 * head word are ranked by the head's words alone, as the row budget
 * already ranks by the words it keeps); otherwise the whole query is
 * ranked. The tail is the commonest words while ub stays within the idf
 * of the rarest word (what one occurrence of it scores in a row of mean
 * length), so that the check seldom fails: on sympy one or two words,
 * 1,500-3,000 of a file search's 12,000 rows.
 */
#define BM25_K1 1.2

typedef struct {
    const char *head; /* the match without the tail; NULL: no tail */
    size_t head_idf;  /* the head's phrases among the hint's idfs */
    double ub;        /* the tail's bound */
} tail_cut;

/*
 * *out: the match to rank, match itself when it is small enough; limit: the
 * rows wanted. loose NULL: an AND query is counted and replaced by the
 * rarest word when short; else *loose is that word when *out is an AND
 * query (NULL otherwise), for the caller to rank when the AND comes short.
 */
static int bounded_match(mn_search_ctx *c, mn_fts_table table, const char *match, bool title,
                         size_t limit, const char **out, const char **loose, rank_hint *hint,
                         tail_cut *tail)
{
    if (tail)
        memset(tail, 0, sizeof(*tail));
    int64_t ndocs = 0;
    bool files = (c->req->kinds & MN_SEARCH_FILE) && table != MN_FTS_MEMORIES;
    double budget = !files              ? ROW_BUDGET
                    : c->req->file_rows ? (double)c->req->file_rows
                                        : ROW_BUDGET_FILE;
    *out = match;
    if (loose)
        *loose = NULL;
    if (!match || budget <= 0)
        return 0;
    size_t n = 0;
    double sum = 0, most = 0;
    int rc = 0;
    /* the title's own terms: some of its words are none of the query's terms, and a match
     * of words left uncounted was ranked whole (8,400 of sympy's 45,000 chunks for a title
     * of two words sympy lacks and three common ones) */
    size_t nt = title ? c->q.ntitle_terms : c->q.nterms;
    counted *terms = mn_calloc(nt ? nt : 1, sizeof(counted));
    for (size_t i = 0; i < nt && rc == 0; i++) {
        terms[n].match = title ? c->q.title_terms[i] : c->q.terms[i].match;
        rc = mn_store_fts_count(c->store, table, terms[n].match, &terms[n].count,
                                n == 0 ? &ndocs : NULL);
        sum += (double)terms[n].count;
        if ((double)terms[n].count > most)
            most = (double)terms[n].count;
        if (terms[n].count > 0)
            n++;
    }
    /* ranking files: the union of the words' matches decides, as it is
     * smaller than their sum (one more count; quality first). The union is
     * at least the commonest word's count: when that alone passes the
     * budget the count cannot keep the query whole and is not made (it read
     * every word's posting list: a tenth of a plan's time on sympy) */
    int64_t total = 0;
    if (rc == 0 && n > 0 && sum > budget && files && most <= budget &&
        (rc = mn_store_fts_count(c->store, table, match, &total, NULL)) == 0 &&
        (double)total <= budget)
        sum = (double)total;
    if (rc == 0 && n > 0 && sum > budget) {
        qsort(terms, n, sizeof(*terms), cmp_counted);
        mn_buf b = MN_BUF_INIT;
        if ((double)terms[0].count > budget && n > 1 && ndocs > 0) {
            int64_t counts[MN_SEARCH_MAX_TERMS];
            size_t m = n < MN_ARRAY_SIZE(counts) ? n : MN_ARRAY_SIZE(counts);
            for (size_t i = 0; i < m; i++)
                counts[i] = terms[i].count;
            mn_and_plan plan = mn_lexical_and_plan(counts, m, ndocs, budget, hint != NULL);
            size_t j = plan.words;
            for (size_t i = 0; i < j; i++)
                mn_buf_printf(&b, "%s%s", i ? " AND " : "", terms[i].match);
            if (hint) {
                for (size_t i = 0; i < j; i++)
                    push_idf(hint, false, &terms[i], ndocs);
                push_idf(hint, true, &terms[0], ndocs);
                hint->newest = plan.share;
                hint->loose_newest = budget / (double)terms[0].count;
            }
            int64_t both = 0;
            if (j > 1 && loose) {
                *loose = terms[0].match;
            } else if (j > 1 &&
                       (rc = mn_store_fts_count(c->store, table, b.ptr, &both, NULL)) == 0 &&
                       both < (int64_t)limit) {
                mn_buf_truncate(&b, 0);
                mn_buf_puts(&b, terms[0].match);
                if (hint) { /* its phrases now */
                    hint->idf.len = 0;
                    push_idf(hint, false, &terms[0], ndocs);
                }
            }
        } else {
            double kept = 0;
            size_t m = 0;
            for (; m < n; m++) {
                if (m > 0 && kept + (double)terms[m].count > budget)
                    break;
                kept += (double)terms[m].count;
            }
            /* the tail: the commonest kept words while their bound stays within the rarest's idf */
            size_t head = m;
            double ub = 0;
            while (tail && ndocs > 0 && head > 2 &&
                   ub + (BM25_K1 + 1) * idf_of(terms[head - 1].count, ndocs) <=
                       idf_of(terms[0].count, ndocs)) {
                ub += (BM25_K1 + 1) * idf_of(terms[head - 1].count, ndocs);
                head--;
            }
            for (size_t i = 0; i < m; i++) {
                if (tail && i == head && head < m) {
                    tail->head = mn_arena_strndup(c->arena, b.ptr, b.len);
                    tail->head_idf = hint ? hint->idf.len : 0;
                    tail->ub = ub;
                }
                mn_buf_printf(&b, "%s%s", i ? " OR " : "", terms[i].match);
                if (hint && ndocs > 0)
                    push_idf(hint, false, &terms[i], ndocs);
            }
            /* one word over the budget alone: the newest of its rows */
            if (hint && ndocs > 0 && kept > budget)
                hint->newest = budget / kept;
        }
        *out = mn_arena_strndup(c->arena, b.ptr, b.len);
        mn_buf_release(&b);
    }
    free(terms);
    return rc;
}

static const char *dup(mn_search_ctx *c, const char *s)
{
    return s ? mn_arena_strdup(c->arena, s) : NULL;
}

mn_memory_cand *mn_search_memory(mn_search_ctx *c, const mn_memory_hit *h)
{
    mn_memory_cand m = {0};
    m.rowid = h->rowid;
    m.uid = dup(c, h->uid);
    m.kind = dup(c, h->kind);
    m.status = dup(c, h->status);
    m.title = dup(c, h->title);
    m.level = h->level;
    m.bm25 = h->bm25;
    m.created_at = h->created_at;
    m.updated_at = h->updated_at;
    m.accessed_at = h->accessed_at;
    m.hits = h->hits;
    m.used = h->used;
    m.ignored = h->ignored;
    m.stale = h->stale;
    m.scope = mn_fusion_memory_scope(c, h->scope_paths);
    m.conversation = dup(c, h->conversation);
    m.summary_of = h->summary ? dup(c, h->scope_paths) : NULL;
    mn_vec_push(&c->memories, m);
    return &c->memories.items[c->memories.len - 1];
}

static int on_memory(void *payload, const mn_memory_hit *h)
{
    mn_search_memory(payload, h);
    return 0;
}

int mn_lexical_memories(mn_search_ctx *c, size_t limit)
{
    if (!c->q.match)
        return 0;
    mn_memory_query q = c->req->filter;
    const char *loose = NULL;
    size_t first = c->memories.len;
    rank_hint hint = {MN_VEC_INIT, MN_VEC_INIT, 0, 0};
    int rc =
        bounded_match(c, MN_FTS_MEMORIES, c->q.match, false, limit, &q.match, &loose, &hint, NULL);
    q.limit = limit;
    if (q.match != c->q.match && hint.idf.len <= MN_SEARCH_MAX_PHRASES) {
        q.idf = hint.idf.items;
        q.nidf = hint.idf.len;
        q.newest = hint.newest;
    }
    if (rc == 0)
        rc = mn_store_search_memories(c->store, &q, on_memory, c);
    /* the AND query came short: the rarest word's best, those not found yet */
    if (rc == 0 && loose && c->memories.len - first < limit) {
        size_t had = c->memories.len;
        q.match = loose;
        q.idf = hint.loose_idf.len <= MN_SEARCH_MAX_PHRASES ? hint.loose_idf.items : NULL;
        q.nidf = q.idf ? hint.loose_idf.len : 0;
        q.newest = hint.loose_newest;
        rc = mn_store_search_memories(c->store, &q, on_memory, c);
        size_t keep = had;
        for (size_t i = had; i < c->memories.len; i++) {
            bool seen = false;
            for (size_t j = first; j < had && !seen; j++)
                seen = c->memories.items[j].rowid == c->memories.items[i].rowid;
            if (!seen && keep - first < limit)
                c->memories.items[keep++] = c->memories.items[i];
        }
        c->memories.len = keep;
    }
    mn_vec_release(&hint.idf);
    mn_vec_release(&hint.loose_idf);
    return rc;
}

static int on_chunk(void *payload, const mn_chunk_hit *h)
{
    mn_search_ctx *c = payload;
    mn_chunk_cand k = {0};
    k.id = h->id;
    k.file_id = h->file_id;
    k.symbol_id = h->symbol_id;
    k.start_line = h->start_line;
    k.end_line = h->end_line;
    k.path = dup(c, h->path);
    k.role = dup(c, h->role);
    k.symbol = dup(c, h->symbol);
    k.qualified_name = dup(c, h->qualified_name);
    k.symbol_kind = dup(c, h->symbol_kind);
    k.bm25 = h->bm25;
    mn_vec_push(&c->chunks, k);
    /* hits come best first, so a file's chunks arrive in decreasing order */
    mn_file_cand *f = mn_search_file(c, h->file_id, h->path, h->role);
    if (f->lex_best == 0) {
        f->lex_best = h->bm25;
        f->best_chunk = h->id;
        f->lex = h->bm25;
        f->lex_weight = 1;
    } else {
        f->lex_weight *= FILE_CHUNK_DECAY; /* the i-th chunk of the file: decay^i */
        f->lex += h->bm25 * f->lex_weight;
    }
    f->nchunks++;
    return 0;
}

/* A chunk's hit kept for later (its strings in the search's arena). */
static int on_hit_keep(void *payload, const mn_chunk_hit *h)
{
    void **a = payload;
    mn_search_ctx *c = a[0];
    MN_VEC(mn_chunk_hit) *v = a[1];
    mn_chunk_hit k = *h;
    k.path = dup(c, h->path);
    k.role = dup(c, h->role);
    k.language = dup(c, h->language);
    k.symbol = dup(c, h->symbol);
    k.qualified_name = dup(c, h->qualified_name);
    k.symbol_kind = dup(c, h->symbol_kind);
    mn_vec_push(v, k);
    return 0;
}

/*
 * Rank q (whose match is the bounded query) into cb; with a tail, the head
 * first, the whole only when the head's list does not exclude the tail's
 * rows (tail_cut).
 */
static int rank_chunks(mn_search_ctx *c, mn_chunk_query *q, const tail_cut *tail,
                       mn_chunk_hit_cb cb)
{
    if (!tail->head || q->limit == 0)
        return mn_store_search_chunks(c->store, q, cb, c);
    MN_VEC(mn_chunk_hit) hits = MN_VEC_INIT;
    mn_chunk_query h = *q;
    h.match = tail->head;
    h.nidf = q->idf ? tail->head_idf : 0;
    void *a[2] = {c, &hits};
    int rc = mn_store_search_chunks(c->store, &h, on_hit_keep, a);
    bool enough = hits.len >= q->limit && hits.items[hits.len - 1].bm25 >= tail->ub;
    for (size_t i = 0; rc == 0 && enough && i < hits.len; i++)
        rc = cb(c, &hits.items[i]);
    mn_vec_release(&hits);
    if (rc == 0 && !enough)
        rc = mn_store_search_chunks(c->store, q, cb, c);
    return rc;
}

int mn_lexical_chunks(mn_search_ctx *c, size_t limit)
{
    if (!c->q.match)
        return 0;
    mn_chunk_query q = {0};
    rank_hint hint = {MN_VEC_INIT, MN_VEC_INIT, 0, 0};
    tail_cut tail;
    int rc =
        bounded_match(c, MN_FTS_CHUNKS, c->q.match, false, limit, &q.match, NULL, &hint, &tail);
    q.limit = limit;
    if (q.match != c->q.match && hint.idf.len <= MN_SEARCH_MAX_PHRASES) {
        q.idf = hint.idf.items;
        q.nidf = hint.idf.len;
    }
    if (rc == 0)
        rc = rank_chunks(c, &q, &tail, on_chunk);
    mn_vec_release(&hint.idf);
    mn_vec_release(&hint.loose_idf);
    return rc;
}

static int on_title_chunk(void *payload, const mn_chunk_hit *h)
{
    mn_search_ctx *c = payload;
    mn_file_cand *f = mn_search_file(c, h->file_id, h->path, h->role);
    f->title_weight = f->title_weight > 0 ? f->title_weight * FILE_CHUNK_DECAY : 1;
    f->title += h->bm25 * f->title_weight;
    return 0;
}

int mn_lexical_title(mn_search_ctx *c, size_t limit)
{
    if (!c->q.title_match)
        return 0;
    mn_chunk_query q = {0};
    tail_cut tail;
    int rc =
        bounded_match(c, MN_FTS_CHUNKS, c->q.title_match, true, limit, &q.match, NULL, NULL, &tail);
    q.limit = limit;
    return rc ? rc : rank_chunks(c, &q, &tail, on_title_chunk);
}

static int on_path(void *payload, const mn_file_hit *h)
{
    mn_search_ctx *c = payload;
    mn_file_cand *f = mn_search_file(c, h->id, h->path, h->role);
    f->path_lex = h->bm25;
    return 0;
}

/*
 * *out: match without the words that cannot score a path. bm25() gives a
 * word in half the rows or more an idf of 1e-6 (ln((N - n + 0.5) / (n +
 * 0.5)) <= 0), so it changes no row's rank, yet every path holding it is
 * ranked: "sympy" is in three quarters of sympy's paths, and ranking them
 * was a fifth of a code question's search. A row still found scores as it
 * did; a row that held only such words (a score of about 1e-6) is not
 * found. When every word is one, match stays whole.
 */
int mn_lexical_scoring_match(mn_search_ctx *c, mn_fts_table table, bool title, const char *match,
                             const char **out)
{
    int64_t ndocs = 0, count = 0;
    size_t kept = 0, left = 0;
    mn_buf b = MN_BUF_INIT;
    int rc = 0;
    *out = match;
    for (size_t i = 0; i < c->q.nterms && rc == 0; i++) {
        const mn_query_term *t = &c->q.terms[i];
        if (title && !t->in_title)
            continue;
        if ((rc = mn_store_fts_count(c->store, table, t->match, &count, &ndocs)) != 0)
            break;
        if (count > 0 && 2 * count >= ndocs) {
            left++;
            continue;
        }
        mn_buf_printf(&b, "%s%s", kept++ ? " OR " : "", t->match);
    }
    if (rc == 0 && left > 0 && kept > 0)
        *out = mn_arena_strndup(c->arena, b.ptr, b.len);
    mn_buf_release(&b);
    return rc;
}

int mn_lexical_paths(mn_search_ctx *c, size_t limit)
{
    if (!c->q.match)
        return 0;
    const char *match = NULL;
    bool title = c->q.title_match != NULL;
    int rc = mn_lexical_scoring_match(c, MN_FTS_FILES, title, title ? c->q.title_match : c->q.match,
                                      &match);
    return rc ? rc : mn_store_search_files(c->store, match, limit, on_path, c);
}

/*
 * Ownership: which files hold most of a query term's occurrences.
 *   own(f) = sum_t w_t * ln(N / df_t) * n(f, t) / df_t
 * n(f, t) the chunks of f matching t, df_t all chunks matching it (of this
 * project), N the chunks of the store; w_t the term's weight in the query
 * (query.c). A central file that mentions everything owns no term; the
 * module a term belongs to owns it.
 */
#define OWN_CHUNKS_MAX 5000 /* chunks read per term: a word in more says little anyway */

struct own_row {
    int64_t file, n;
};

typedef struct {
    mn_search_ctx *c;
    MN_VEC(struct own_row) rows;
    int64_t df;
} own_acc;

static int on_term_file(void *payload, int64_t file_id, int64_t count)
{
    own_acc *a = payload;
    struct own_row r = {file_id, count};
    mn_vec_push(&a->rows, r);
    a->df += count;
    return 0;
}

int mn_lexical_ownership(mn_search_ctx *c)
{
    int64_t ndocs = 0, df0;
    const char *none = "";
    int rc = mn_store_chunk_df(c->store, &none, 0, &df0, &ndocs);
    for (size_t i = 0; rc == 0 && i < c->q.nterms && i < MN_QUERY_OWN_TERMS; i++) {
        own_acc a = {c, MN_VEC_INIT, 0};
        rc = mn_store_term_files(c->store, c->q.terms[i].match, OWN_CHUNKS_MAX, on_term_file, &a);
        if (rc == 0 && a.df > 0 && ndocs > a.df) {
            double idf = log((double)ndocs / (double)a.df);
            for (size_t r = 0; r < a.rows.len; r++) {
                mn_file_cand *f = mn_search_file(c, a.rows.items[r].file, NULL, NULL);
                f->own += c->q.terms[i].weight * idf * (double)a.rows.items[r].n / (double)a.df;
            }
        }
        mn_vec_release(&a.rows);
    }
    return rc;
}
