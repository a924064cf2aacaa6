/*
 * search_store.c - the SQLite side of store_search.h: FTS5 candidates for
 * memories and chunks, snippets, the memories attached to files, and the
 * served / feedback records.
 *
 * Bounding the work. FTS5 computes bm25() for every row that matches before
 * it can sort, so the cost of a query is the number of matches, whatever the
 * LIMIT. The candidate query therefore asks FTS5 alone for its best
 * `inner` rows (no join per match), then joins those to their tables and
 * applies the filters. When the filters leave fewer than `limit` rows and
 * FTS5 had more to give (it returned `inner` rows), the query runs again
 * with the filters inside the full-text scan, which is exact but pays a
 * row lookup per match. inner = 1.5 * limit + 50, at most
 * MN_SEARCH_MAX_CANDIDATES.
 *
 * Scores: FTS5's bm25() is negative, lower is better; hits carry -bm25.
 * Column weights default to MEMORY_WEIGHTS / CHUNK_WEIGHTS below (a BM25F
 * in FTS5's sense: weighted term counts summed over columns before the
 * saturation). Statements whose text depends on the number of filter values
 * are still cached: the same shape gives the same text.
 */
#include "common.h"
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>

#include "store/store_search.h"
#include "util/vec.h"
#include "store/store_terms.h"
#include "store/sqlite/chunk_cache.h"
#include "store/sqlite/memory_sizes.h"
#include "store/sqlite/fts_tokenizer.h"
#include "store/sqlite/sqlite_internal.h"

/*
 * Field weights. Memories: the title and the trigger keywords are written
 * to be found (a term there says more than one in the body); the context
 * (situation, solution, errors, files) weighs a little more than the body,
 * whose length already dilutes it. Chunks: a symbol's name matching a query
 * word is the strongest evidence, then its signature and the file's path,
 * then the docstring and the code.
 */
static const double MEMORY_WEIGHTS[4] = {4.0, 3.0, 1.0, 1.5};

static const double CHUNK_WEIGHTS[5] = {2.0, 4.0, 2.0, 1.5, 1.0};

/*
 * A memory saved without a title takes the first line of its body as its
 * title, and without keywords the words of its own text (memory.c): then
 * the title and the keywords repeat the body, and MEMORY_WEIGHTS would
 * count those words again, up to 8 times (a one-line chat turn weighs every
 * word of it so; a longer turn only the words of its first line: a bias to
 * short turns and to where in a turn a word stands). A memory whose title
 * is the start of its body is ranked by its body and context alone. Both
 * scores come from the full-text pass; the choice is made on the rows kept.
 */
static const double DERIVED_WEIGHTS[4] = {0, 0, 1.0, 1.5};
#define DERIVED_TITLE "substr(ltrim(m.body, ' #' || char(9, 10, 13)), 1, length(m.title)) = m.title"

size_t mn_store_fts_query(mn_buf *out, const char *const *terms, size_t nterms)
{
    size_t n = 0;
    for (size_t i = 0; i < nterms && n < MN_SEARCH_MAX_TERMS; i++) {
        const char *t = terms[i];
        size_t len = t ? strlen(t) : 0;
        if (len == 0 || len > MN_SEARCH_TERM_MAX)
            continue;
        if (n)
            mn_buf_puts(out, " OR ");
        mn_buf_putc(out, '"');
        for (const char *p = t; *p; p++) {
            if (*p == '"')
                mn_buf_putc(out, '"');
            mn_buf_putc(out, *p);
        }
        mn_buf_putc(out, '"');
        n++;
    }
    return n;
}

size_t mn_store_fts_text_query(mn_buf *out, const char *text, size_t len, size_t max_terms)
{
    if (max_terms == 0 || max_terms > MN_SEARCH_MAX_TERMS)
        max_terms = MN_SEARCH_MAX_TERMS;
    return mn_sqlite_fts_query(out, text, len, 0, max_terms);
}

/*
 * Counts of matches per (table, query), cached: a common word is counted
 * once, not in every search (counting it reads its whole posting list).
 * A count is an estimate for choosing which words to rank, so it may be a
 * little stale: an entry holds while its table's highest row id is within
 * 1/32 of what it was when counted (SELECT max(rowid) is one index seek).
 * Entries are keyed by connection and path too, so another store opened at
 * the same address never reads them. Fixed size, one slot per hash (a
 * collision replaces), guarded by a mutex: stores may live on any thread.
 *
 * Counting starts with the newest rows (by row id): the newest 32nd, then
 * the rest of the newest eighth, each only when it holds at least 2 x
 * COUNT_SAMPLE rows (a word in half of them reaches the sample). Once
 * COUNT_SAMPLE or more of the rows counted so far match, the word is
 * common and its count is theirs times the table over them; otherwise
 * the older rows are counted too and the count is exact. The first count
 * of a word in 45,000 of 100,000 memories read its whole posting list
 * (~1.4 ms), and the newest eighth alone still 0.24-0.64 ms a word (40 ns
 * an entry): with questions of new words that was a third of a memory
 * question's full-text stage. A sample of 1,024 estimates within ~3%
 * (one standard deviation), and only counts of about 8,000 or more are
 * estimated (in a table of fewer than 16 x 1,024 rows, none).
 */
#define COUNT_CACHE_SLOTS 1024
#define COUNT_KEY_MAX     192
#define COUNT_SAMPLE      1024

/* the slices counted, newest first: 1/32 of the rows, 1/8, all */
static const int64_t count_slices[] = {32, 8, 1};

typedef struct {
    const sqlite3 *db;
    uint64_t path_hash;
    int table;
    int64_t count, top; /* top: max rowid of the table when counted */
    char key[COUNT_KEY_MAX];
} count_slot;

static count_slot count_cache[COUNT_CACHE_SLOTS];

typedef struct {
    const sqlite3 *db;
    uint64_t path_hash;
    int64_t top, ndocs;
    /* count_sliced's slices: the lowest row id of the newest ndocs / 32 and / 8 (0: not yet) */
    int64_t cut[2];
} size_slot;

static size_slot size_cache[3]; /* per mn_fts_table */
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv1a(const char *p, uint64_t h)
{
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

/* What the process-wide caches key a store file by. */
static uint64_t store_hash(const mn_store *s)
{
    return fnv1a(s->path ? s->path : "", 1469598103934665603ULL);
}

static int fts_step_int(mn_store *s, const char *sql, const char *match, int64_t *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql);
    if (!st)
        return mn_error_last_code();
    if (match)
        sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    *out = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot count full-text matches");
}

/* The matches of match among the rows [from, to). */
static int count_from(mn_store *s, const char *sql, const char *match, int64_t from, int64_t to,
                      int64_t *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, from);
    sqlite3_bind_int64(st, 3, to);
    int step = sqlite3_step(st);
    *out = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot count full-text matches");
}

/* The row id of the k-th newest row (0: the newest) of a full-text table: *out 0 when none. */
static int rank_cut(mn_store *s, mn_fts_table table, int64_t k, int64_t *out)
{
    static const char *const rank_sql[] = {
        "SELECT id FROM memories_fts_docsize ORDER BY id DESC LIMIT 1 OFFSET ?1",
        "SELECT id FROM chunks_fts_docsize ORDER BY id DESC LIMIT 1 OFFSET ?1",
        "SELECT id FROM files_fts_docsize ORDER BY id DESC LIMIT 1 OFFSET ?1",
    };
    *out = 0;
    sqlite3_stmt *st = mn_sqlite__stmt(s, rank_sql[table]);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, k);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return step == SQLITE_ROW || step == SQLITE_DONE
               ? 0
               : mn_sqlite__fail(s, "cannot read the full-text index");
}

/*
 * The lowest row id of slice i (the newest size rows) while the table's highest row id is top:
 * kept with the table's size (an OFFSET of thousands of rows, for every word counted).
 */
static int slice_cut(mn_store *s, mn_fts_table table, int64_t top, size_t i, int64_t size,
                     int64_t *cut)
{
    uint64_t ph = store_hash(s);
    size_slot *z = &size_cache[table];
    pthread_mutex_lock(&count_lock);
    bool mine = z->db == sq(s)->db && z->path_hash == ph && z->top == top &&
                z->ndocs / count_slices[i] == size;
    *cut = mine ? z->cut[i] : 0;
    pthread_mutex_unlock(&count_lock);
    if (*cut)
        return 0;
    int rc = rank_cut(s, table, size - 1, cut);
    if (rc == 0 && mine) {
        pthread_mutex_lock(&count_lock);
        if (z->db == sq(s)->db && z->path_hash == ph && z->top == top)
            z->cut[i] = *cut;
        pthread_mutex_unlock(&count_lock);
    }
    return rc;
}

/*
 * The matches of match among the table's `rows` rows: exact, or estimated from the newest
 * slices (see the cache's comment). A slice is the newest rows / 32 (then / 8) by rank, as
 * on PostgreSQL (pg_search.c mn_pg__fts_count).
 */
static int count_sliced(mn_store *s, mn_fts_table table, const char *sql, const char *match,
                        int64_t top, int64_t rows, int64_t *out)
{
    int64_t end = INT64_MAX, matched = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(count_slices); i++) {
        int64_t part = 0, size = rows / count_slices[i], cut = INT64_MIN;
        bool last = i + 1 == MN_ARRAY_SIZE(count_slices);
        /* a slice where a word in half the rows would not reach the sample is skipped */
        if (!last && size < 2 * COUNT_SAMPLE)
            continue;
        int rc = last ? 0 : slice_cut(s, table, top, i, size, &cut);
        if (rc == 0)
            rc = count_from(s, sql, match, cut, end, &part);
        if (rc)
            return rc;
        matched += part;
        end = cut;
        if (!last && matched >= COUNT_SAMPLE) {
            *out = (int64_t)((double)matched * (double)rows / (double)size);
            return 0;
        }
    }
    *out = matched;
    return 0;
}

/*
 * A full-text table's highest row id and (ndocs not NULL) its number of
 * rows: count(*) reads every page of its docsize table, so the number is
 * cached while the highest row id stays where it was.
 */
static int table_size(mn_store *s, mn_fts_table table, uint64_t ph, int64_t *top, int64_t *ndocs)
{
    static const char *const size_sql[] = {
        "SELECT count(*) FROM memories_fts_docsize",
        "SELECT count(*) FROM chunks_fts_docsize",
        "SELECT count(*) FROM files_fts_docsize",
    };
    static const char *const top_sql[] = {
        "SELECT max(id) FROM memories_fts_docsize",
        "SELECT max(id) FROM chunks_fts_docsize",
        "SELECT max(id) FROM files_fts_docsize",
    };
    int rc = fts_step_int(s, top_sql[table], NULL, top);
    if (rc || !ndocs)
        return rc;
    size_slot *z = &size_cache[table];
    pthread_mutex_lock(&count_lock);
    bool hit = z->db == sq(s)->db && z->path_hash == ph && z->top == *top;
    if (hit)
        *ndocs = z->ndocs;
    pthread_mutex_unlock(&count_lock);
    if (hit || (rc = fts_step_int(s, size_sql[table], NULL, ndocs)) != 0)
        return rc;
    pthread_mutex_lock(&count_lock);
    z->db = sq(s)->db;
    z->path_hash = ph;
    z->top = *top;
    z->ndocs = *ndocs;
    z->cut[0] = z->cut[1] = 0;
    pthread_mutex_unlock(&count_lock);
    return 0;
}

int mn_sqlite__fts_count(mn_store *s, mn_fts_table table, const char *match, int64_t *count,
                         int64_t *ndocs)
{
    static const char *const slice_sql[] = {
        ("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?1 AND rowid >= ?2 AND "
         "rowid < ?3"),
        "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?1 AND rowid >= ?2 AND rowid < ?3",
        "SELECT count(*) FROM files_fts WHERE files_fts MATCH ?1 AND rowid >= ?2 AND rowid < ?3",
    };
    int64_t top = 0, rows = 0;
    uint64_t ph = store_hash(s);
    int rc = table_size(s, table, ph, &top, &rows);
    if (rc)
        return rc;
    if (ndocs)
        *ndocs = rows;
    size_t len = strlen(match);
    count_slot *slot = &count_cache[(fnv1a(match, ph ^ (uint64_t)table) ^ (uintptr_t)sq(s)->db) %
                                    COUNT_CACHE_SLOTS];
    bool cacheable = len < COUNT_KEY_MAX;
    if (cacheable) {
        pthread_mutex_lock(&count_lock);
        bool hit = slot->db == sq(s)->db && slot->path_hash == ph && slot->table == (int)table &&
                   strcmp(slot->key, match) == 0 && top >= slot->top &&
                   top - slot->top <= slot->top / 32;
        if (hit)
            *count = slot->count;
        pthread_mutex_unlock(&count_lock);
        if (hit)
            return 0;
    }
    if ((rc = count_sliced(s, table, slice_sql[table], match, top, rows, count)) != 0)
        return rc;
    if (cacheable) {
        pthread_mutex_lock(&count_lock);
        slot->db = sq(s)->db;
        slot->path_hash = ph;
        slot->table = (int)table;
        slot->count = *count;
        slot->top = top;
        memcpy(slot->key, match, len + 1);
        pthread_mutex_unlock(&count_lock);
    }
    return 0;
}

static size_t inner_limit(size_t limit)
{
    size_t inner = limit + limit / 2 + 50;
    return inner > MN_SEARCH_MAX_CANDIDATES ? MN_SEARCH_MAX_CANDIDATES : inner;
}

static size_t clamp_limit(size_t limit)
{
    if (limit == 0)
        return 50;
    return limit > MN_SEARCH_MAX_CANDIDATES ? MN_SEARCH_MAX_CANDIDATES : limit;
}

/*
 * Rows already reported (at most `limit`), so that the exact pass after a
 * short first pass repeats none: appended unchecked during the first pass
 * (FTS5 gives each row once), sorted before the exact pass, which looks
 * rows up by binary search and appends past the sorted part.
 */
typedef struct {
    int64_t *ids;
    size_t len, cap, sorted;
} id_set;

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static bool id_set_add(id_set *set, int64_t id)
{
    if (set->sorted && bsearch(&id, set->ids, set->sorted, sizeof(int64_t), cmp_id))
        return false;
    if (set->len == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 64;
        set->ids = mn_realloc(set->ids, set->cap * sizeof(int64_t));
    }
    set->ids[set->len++] = id;
    return true;
}

static void id_set_freeze(id_set *set)
{
    if (set->len > 1)
        qsort(set->ids, set->len, sizeof(int64_t), cmp_id);
    set->sorted = set->len;
}

/*
 * "bm25(tbl, w1, w2, ...)" with the given weights or the defaults; with
 * nidf phrase idfs or the rows' lengths (sizes), "mnemo_bm25(tbl, w1, ...,
 * ?a, ..., ?b)" (fts_tokenizer.c: the same score without counting each
 * phrase's rows, or reading each row's length): the idfs numbered from
 * `first`, the lengths after them, bound by bind_rank.
 *
 * Every parameter of these statements is numbered, `first` above the
 * others: SQLite gives a named parameter the number above the highest met
 * before it in the text, so a name in the score, which the exact passes
 * write before ?1, took 1 (or 2, the project's) and its binding replaced
 * the match ("MATCH NULL": 'fts5: syntax error near ""').
 */
static void bm25_expr(mn_buf *b, const char *table, const double *w, const double *defaults,
                      size_t n, size_t nidf, bool sizes, int first)
{
    mn_buf_printf(b, "%s(%s", nidf || sizes ? "mnemo_bm25" : "bm25", table);
    for (size_t i = 0; i < n; i++)
        mn_buf_printf(b, ", %.4g", w[i] > 0 ? w[i] : defaults[i]);
    for (size_t i = 0; i < nidf; i++)
        mn_buf_printf(b, ", ?%d", first + (int)i);
    if (sizes)
        mn_buf_printf(b, ", ?%d", first + (int)nidf);
    mn_buf_putc(b, ')');
}

/* bm25_expr's parameters: the idfs from first (a NAN left NULL: mnemo_bm25 counts it), then
 * the lengths */
static void bind_rank(sqlite3_stmt *st, int first, const double *idf, size_t nidf,
                      const mn_fts_doc_sizes *sizes)
{
    for (size_t i = 0; i < nidf; i++)
        if (!isnan(idf[i]))
            sqlite3_bind_double(st, first + (int)i, idf[i]);
    if (sizes)
        sqlite3_bind_pointer(st, first + (int)nidf, (void *)sizes, MN_FTS_DOC_SIZES, NULL);
}

/*
 * The lowest row id of the newest `share` of a full-text table's rows: the row at rank
 * floor(share x rows) from the newest (the count is table_size's, cached). By rank, as on
 * PostgreSQL (pg_search.c), where projects' row ids interleave; here the two agree with the
 * range from the lowest to the highest id as long as no row was purged in between. 0: every row.
 */
static int newest_cut(mn_store *s, mn_fts_table table, double share, int64_t *cut)
{
    *cut = 0;
    if (!(share > 0 && share < 1))
        return 0;
    int64_t top = 0, rows = 0;
    int rc = table_size(s, table, store_hash(s), &top, &rows);
    return rc ? rc : rank_cut(s, table, (int64_t)(share * (double)rows), cut);
}

/* ---- memories ---- */

/* an episode's conversation: its session, else its situation (mn_memory_hit.conversation);
 * none when it has neither (empty ones would make every such episode one conversation) */
#define CONVERSATION_KEY \
    "coalesce('s:' || nullif(m.session_ref, ''), 'd:' || nullif(m.situation, ''))"

/* discovery's summary of a directory (index/discover.c tags it "discovery:domain:<dir>" or
 * "discovery:package:<dir>", and scopes it to the directory): mn_memory_hit.summary */
#define SUMMARY_TEST                                                       \
    "(m.source = 'discovery' AND (m.tags LIKE '%\"discovery:domain:%' OR " \
    "m.tags LIKE '%\"discovery:package:%'))"

#define MEMORY_COLUMNS                                                               \
    "m.id, m.uid, m.kind, m.status, m.title, m.level, m.created_at, m.updated_at, "  \
    "m.hit_count, m.used_count, m.ignored_count, m.scope_paths, m.scope_symbols, "   \
    "EXISTS (SELECT 1 FROM citations c WHERE c.memory_id = m.id AND c.stale <> 0), " \
    "CASE WHEN m.kind = 'episode' THEN " CONVERSATION_KEY " END, " SUMMARY_TEST ", " \
    "coalesce(m.accessed_at, 0)"
#define MEMORY_NCOLUMNS 17

static void read_memory(sqlite3_stmt *st, mn_memory_hit *h)
{
    h->rowid = sqlite3_column_int64(st, 0);
    h->uid = (const char *)sqlite3_column_text(st, 1);
    h->kind = (const char *)sqlite3_column_text(st, 2);
    h->status = (const char *)sqlite3_column_text(st, 3);
    h->title = (const char *)sqlite3_column_text(st, 4);
    h->level = sqlite3_column_int(st, 5);
    h->created_at = sqlite3_column_int64(st, 6);
    h->updated_at = sqlite3_column_int64(st, 7);
    h->hits = sqlite3_column_int64(st, 8);
    h->used = sqlite3_column_int64(st, 9);
    h->ignored = sqlite3_column_int64(st, 10);
    h->scope_paths = (const char *)sqlite3_column_text(st, 11);
    h->scope_symbols = (const char *)sqlite3_column_text(st, 12);
    h->stale = sqlite3_column_int(st, 13) != 0;
    h->conversation = (const char *)sqlite3_column_text(st, 14);
    h->summary = sqlite3_column_int(st, 15) != 0;
    h->accessed_at = sqlite3_column_int64(st, 16);
    h->bm25 = 0;
}

/*
 * The filter of a memory query as SQL over alias m, its parameters numbered
 * from *next; bind_filter binds them in the same order.
 */
static void filter_sql(mn_buf *b, const mn_memory_query *q, int *next)
{
    mn_buf_printf(b, "m.project_id = ?%d AND m.deleted_at IS NULL", (*next)++);
    struct {
        const char *col;
        size_t n;
    } lists[] = {{"m.kind", q->nkinds}, {"m.level", q->nlevels}, {"m.status", q->nstatuses}};
    for (size_t l = 0; l < MN_ARRAY_SIZE(lists); l++) {
        if (!lists[l].n)
            continue;
        mn_buf_printf(b, " AND %s IN (", lists[l].col);
        for (size_t i = 0; i < lists[l].n; i++)
            mn_buf_printf(b, "%s?%d", i ? ", " : "", (*next)++);
        mn_buf_putc(b, ')');
    }
    if (q->ntags) {
        mn_buf_puts(b, " AND m.id IN (SELECT memory_id FROM memory_tags WHERE tag IN (");
        for (size_t i = 0; i < q->ntags; i++)
            mn_buf_printf(b, "%s?%d", i ? ", " : "", (*next)++);
        mn_buf_puts(b, "))");
    }
    if (q->npaths) {
        mn_buf_puts(b, " AND (");
        if (q->paths_keep_l0)
            mn_buf_puts(b, "m.level = 0 OR ");
        mn_buf_puts(b, "EXISTS (SELECT 1 FROM memory_paths p WHERE p.memory_id = m.id AND (");
        for (size_t i = 0; i < q->npaths; i++)
            mn_buf_printf(b, "%sp.path GLOB ?%d", i ? " OR " : "", (*next)++);
        mn_buf_puts(b, ")))");
    }
    if (q->expiry.at) {
        mn_buf_puts(b, q->expiry.only ? " AND " : " AND NOT ");
        mn_sqlite__expired_sql(b, "m.", &q->expiry, next);
    }
}

static void bind_filter(mn_store *s, sqlite3_stmt *st, const mn_memory_query *q, int *next)
{
    sqlite3_bind_int64(st, (*next)++, s->project_id);
    for (size_t i = 0; i < q->nkinds; i++)
        sqlite3_bind_text(st, (*next)++, q->kinds[i], -1, SQLITE_STATIC);
    for (size_t i = 0; i < q->nlevels; i++)
        sqlite3_bind_int(st, (*next)++, q->levels[i]);
    for (size_t i = 0; i < q->nstatuses; i++)
        sqlite3_bind_text(st, (*next)++, q->statuses[i], -1, SQLITE_STATIC);
    for (size_t i = 0; i < q->ntags; i++)
        sqlite3_bind_text(st, (*next)++, q->tags[i], -1, SQLITE_STATIC);
    for (size_t i = 0; i < q->npaths; i++)
        sqlite3_bind_text(st, (*next)++, q->paths[i], -1, SQLITE_STATIC);
    if (q->expiry.at)
        mn_sqlite__expired_bind(st, &q->expiry, next);
}

static bool memory_query_valid(const mn_memory_query *q)
{
    return q->nkinds <= MN_SEARCH_MAX_FILTER && q->nlevels <= 4 &&
           q->nstatuses <= MN_SEARCH_MAX_FILTER && q->ntags <= MN_SEARCH_MAX_FILTER &&
           q->npaths <= MN_SEARCH_MAX_FILTER;
}

/*
 * One pass of a memory search. exact = false: FTS5's best `inner` rows,
 * then the filters (*saturated tells whether FTS5 had that many); exact =
 * true: the filters inside the scan. sizes: the memories' lengths, or NULL.
 */
static int memories_pass(mn_store *s, const mn_memory_query *q, bool exact, size_t limit,
                         int64_t cut, const mn_fts_doc_sizes *sizes, id_set *done, bool *saturated,
                         mn_memory_hit_cb cb, void *payload)
{
    mn_buf sql = MN_BUF_INIT, filter = MN_BUF_INIT, window = MN_BUF_INIT;
    int next = 2, rc = 0, step;
    size_t inner = inner_limit(limit), seen = 0;
    /* the parameters: ?1 the match, the filter's from ?2, the window's, the rank's */
    filter_sql(&filter, q, &next);
    int cut_at = next;
    if (cut > 0)
        mn_buf_printf(&window, " AND memories_fts.rowid >= ?%d", next++);
    int rank_at = next;
    mn_buf_puts(&sql, "SELECT " MEMORY_COLUMNS ", ");
    if (exact) {
        mn_buf_puts(&sql, "-(CASE WHEN " DERIVED_TITLE " THEN ");
        bm25_expr(&sql, "memories_fts", DERIVED_WEIGHTS, DERIVED_WEIGHTS, 4, q->nidf, sizes != NULL,
                  rank_at);
        mn_buf_puts(&sql, " ELSE ");
        bm25_expr(&sql, "memories_fts", q->weights, MEMORY_WEIGHTS, 4, q->nidf, sizes != NULL,
                  rank_at);
        mn_buf_printf(&sql,
                      " END) AS score, 1 FROM memories_fts JOIN memories m ON m.id = "
                      "memories_fts.rowid WHERE memories_fts MATCH ?1%s AND %s ORDER BY score "
                      "DESC LIMIT %zu",
                      window.len ? window.ptr : "", filter.ptr, limit);
    } else {
        mn_buf_printf(&sql,
                      "CASE WHEN " DERIVED_TITLE " THEN h.derived ELSE h.score END AS s, (%s) "
                      "FROM (SELECT rowid AS id, -",
                      filter.ptr);
        bm25_expr(&sql, "memories_fts", q->weights, MEMORY_WEIGHTS, 4, q->nidf, sizes != NULL,
                  rank_at);
        mn_buf_puts(&sql, " AS score, -");
        bm25_expr(&sql, "memories_fts", DERIVED_WEIGHTS, DERIVED_WEIGHTS, 4, q->nidf, sizes != NULL,
                  rank_at);
        mn_buf_printf(&sql,
                      " AS derived FROM memories_fts WHERE memories_fts MATCH ?1%s ORDER BY score "
                      "DESC LIMIT %zu) h JOIN memories m ON m.id = h.id ORDER BY s DESC",
                      window.len ? window.ptr : "", inner);
    }
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql.ptr);
    mn_buf_release(&sql);
    mn_buf_release(&filter);
    mn_buf_release(&window);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, q->match, -1, SQLITE_STATIC);
    next = 2;
    bind_filter(s, st, q, &next);
    if (cut > 0)
        sqlite3_bind_int64(st, cut_at, cut);
    bind_rank(st, rank_at, q->idf, q->nidf, sizes);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        seen++;
        if (!sqlite3_column_int(st, MEMORY_NCOLUMNS + 1) || done->len >= limit ||
            !id_set_add(done, sqlite3_column_int64(st, 0)))
            continue;
        mn_memory_hit h;
        read_memory(st, &h);
        h.bm25 = sqlite3_column_double(st, MEMORY_NCOLUMNS);
        if ((rc = cb(payload, &h)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot search memories");
    sqlite3_reset(st);
    *saturated = !exact && seen >= inner;
    return rc;
}

int mn_sqlite__search_memories(mn_store *s, const mn_memory_query *q, mn_memory_hit_cb cb,
                               void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q) && q->nidf <= MN_SEARCH_MAX_PHRASES, MN_EINTERNAL);
    if (!q->match || !*q->match)
        return 0;
    size_t limit = clamp_limit(q->limit);
    id_set done = {NULL, 0, 0, 0};
    bool saturated = false;
    int64_t cut = 0;
    /* a long-lived process's lengths (memory_sizes.c), checked once for both passes */
    const mn_fts_doc_sizes *sizes = mn_memory_sizes_current(s);
    int rc = newest_cut(s, MN_FTS_MEMORIES, q->newest, &cut);
    if (rc == 0)
        rc = memories_pass(s, q, false, limit, cut, sizes, &done, &saturated, cb, payload);
    /* the filters threw away too many of FTS5's best: ask again, exactly,
     * reporting only rows the first pass did not */
    if (rc == 0 && done.len < limit && saturated) {
        id_set_freeze(&done);
        rc = memories_pass(s, q, true, limit, cut, sizes, &done, &saturated, cb, payload);
    }
    free(done.ids);
    return rc;
}

int mn_sqlite__conversation_counts(mn_store *s, const mn_memory_query *q,
                                   int (*cb)(void *payload, const char *conversation, int64_t n),
                                   void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    if (!q->match || !*q->match)
        return 0;
    mn_buf sql = MN_BUF_INIT;
    int next = 2, rc = 0, step;
    mn_buf_puts(&sql, "SELECT " CONVERSATION_KEY " AS conv, "
                      "count(*) FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
                      "WHERE memories_fts MATCH ?1 AND m.kind = 'episode' AND ");
    filter_sql(&sql, q, &next);
    mn_buf_puts(&sql, " GROUP BY conv");
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql.ptr);
    mn_buf_release(&sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, q->match, -1, SQLITE_STATIC);
    next = 2;
    bind_filter(s, st, q, &next);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *conv = (const char *)sqlite3_column_text(st, 0);
        if (conv && (rc = cb(payload, conv, sqlite3_column_int64(st, 1))) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot count conversations");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__memories_at_paths(mn_store *s, const mn_memory_query *q, const char *const *paths,
                                 size_t npaths, mn_memory_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    if (npaths == 0)
        return 0;
    if (npaths > MN_SEARCH_MAX_FILTER)
        npaths = MN_SEARCH_MAX_FILTER;
    /* scoped to the path itself or a directory above it: each ancestor by
     * equality (an index seek each); to a path below it: one range */
    const char *exact[MN_SEARCH_MAX_FILTER * 16];
    char *owned[MN_SEARCH_MAX_FILTER * 16];
    size_t nexact = 0, nowned = 0;
    for (size_t i = 0; i < npaths; i++) {
        const char *p = paths[i];
        exact[nexact++] = p;
        for (const char *slash = strrchr(p, '/');
             slash && slash > p && nexact < MN_ARRAY_SIZE(exact);
             slash = memrchr(p, '/', (size_t)(slash - p))) {
            owned[nowned] = mn_strndup(p, (size_t)(slash - p));
            exact[nexact++] = owned[nowned++];
        }
    }
    mn_buf sql = MN_BUF_INIT;
    int next = 1, rc = 0, step;
    /* driven by the path and link indexes (a CROSS JOIN keeps that order:
     * the planner would rather scan the memories by status) */
    mn_buf_puts(&sql, "SELECT " MEMORY_COLUMNS " FROM (SELECT memory_id AS id FROM memory_paths "
                      "WHERE path IN (");
    for (size_t i = 0; i < nexact; i++)
        mn_buf_printf(&sql, "%s?%d", i ? ", " : "", next++);
    mn_buf_puts(&sql, ")");
    int range_first = next;
    for (size_t i = 0; i < npaths; i++, next++)
        mn_buf_printf(&sql, " OR (path > ?%d || '/' AND path < ?%d || '0')", next, next);
    mn_buf_puts(&sql, " UNION SELECT src_id FROM links WHERE kind = 'about' AND dst_ref IN (");
    int ref_first = next;
    for (size_t i = 0; i < npaths; i++)
        mn_buf_printf(&sql, "%s'file:' || ?%d", i ? ", " : "", next++);
    mn_buf_puts(&sql, ")) h CROSS JOIN memories m ON m.id = h.id WHERE ");
    int filter_first = next;
    filter_sql(&sql, q, &next);
    mn_buf_printf(&sql, " ORDER BY m.updated_at DESC LIMIT %zu", clamp_limit(q->limit));
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql.ptr);
    mn_buf_release(&sql);
    if (!st) {
        rc = mn_error_last_code();
        goto out;
    }
    for (size_t i = 0; i < nexact; i++)
        sqlite3_bind_text(st, (int)i + 1, exact[i], -1, SQLITE_STATIC);
    for (size_t i = 0; i < npaths; i++) {
        sqlite3_bind_text(st, range_first + (int)i, paths[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, ref_first + (int)i, paths[i], -1, SQLITE_STATIC);
    }
    next = filter_first;
    bind_filter(s, st, q, &next);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_memory_hit h;
        read_memory(st, &h);
        if ((rc = cb(payload, &h)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot read memories by path");
    sqlite3_reset(st);
out:
    for (size_t i = 0; i < nowned; i++)
        free(owned[i]);
    return rc;
}

int mn_sqlite__memories_created(mn_store *s, const mn_memory_query *q, int64_t from_ms,
                                int64_t to_ms, mn_memory_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    mn_buf sql = MN_BUF_INIT;
    int next = 4, rc = 0, step;
    /* memories_created (schema v13) reads the window's rows alone; the
     * bound on updated_at (>= created_at) read every row newer than the
     * window's start: all of them for a window in the past */
    mn_buf_puts(&sql, "SELECT " MEMORY_COLUMNS
                      " FROM memories m INDEXED BY memories_created WHERE m.created_at >= ?1 AND "
                      "m.created_at < ?2 AND ");
    filter_sql(&sql, q, &next);
    mn_buf_puts(&sql, " ORDER BY m.created_at DESC, m.id DESC LIMIT ?3");
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql.ptr);
    mn_buf_release(&sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, from_ms);
    sqlite3_bind_int64(st, 2, to_ms);
    sqlite3_bind_int64(st, 3, q->limit ? (int64_t)clamp_limit(q->limit) : 50);
    next = 4;
    bind_filter(s, st, q, &next);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_memory_hit h;
        read_memory(st, &h);
        rc = cb(payload, &h);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read memories");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__memories_by_rowid(mn_store *s, const mn_memory_query *q, const int64_t *rowids,
                                 size_t n, mn_memory_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    mn_buf sql = MN_BUF_INIT;
    int next = 2, rc = 0;
    mn_buf_puts(&sql, "SELECT " MEMORY_COLUMNS " FROM memories m WHERE m.id = ?1 AND ");
    filter_sql(&sql, q, &next);
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql.ptr);
    mn_buf_release(&sql);
    if (!st)
        return mn_error_last_code();
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, rowids[i]);
        next = 2;
        bind_filter(s, st, q, &next);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            mn_memory_hit h;
            read_memory(st, &h);
            rc = cb(payload, &h);
        } else if (step != SQLITE_DONE) {
            rc = mn_sqlite__fail(s, "cannot read memories");
        }
    }
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__episode_neighbours(mn_store *s, const mn_memory_query *q, int64_t rowid, int span,
                                  mn_memory_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    mn_buf sql = MN_BUF_INIT;
    int next = 3, rc = 0, step;
    mn_buf_puts(&sql, "SELECT " MEMORY_COLUMNS " FROM memories o CROSS JOIN memories m ON m.id "
                      "BETWEEN o.id - ?2 AND o.id + ?2 AND m.id <> o.id WHERE o.id = ?1 AND "
                      "o.kind = 'episode' AND m.kind = 'episode' AND m.session_ref IS "
                      "o.session_ref AND (o.session_ref IS NOT NULL OR m.situation IS o.situation) "
                      "AND ");
    filter_sql(&sql, q, &next);
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql.ptr);
    mn_buf_release(&sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, rowid);
    sqlite3_bind_int(st, 2, span);
    next = 3;
    bind_filter(s, st, q, &next);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_memory_hit h;
        read_memory(st, &h);
        if ((rc = cb(payload, &h)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot read episodes");
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__memories_by_uid(mn_store *s, const char *const *uids, size_t n, mn_memory_hit_cb cb,
                               void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT " MEMORY_COLUMNS " FROM memories m WHERE "
                                          "m.uid = ?1 AND m.project_id = ?2");
    if (!st)
        return mn_error_last_code();
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, uids[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, s->project_id);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            mn_memory_hit h;
            read_memory(st, &h);
            rc = cb(payload, &h);
        } else if (step != SQLITE_DONE) {
            rc = mn_sqlite__fail(s, "cannot read memories");
        }
    }
    sqlite3_reset(st);
    return rc;
}

/* ---- chunks ---- */

#define CHUNK_COLUMNS                                                                       \
    "c.id, c.file_id, coalesce(c.symbol_id, 0), c.start_line, c.end_line, f.path, f.role, " \
    "f.language, y.name, y.qualified_name, y.kind"
#define CHUNK_NCOLUMNS 11

static void read_chunk(sqlite3_stmt *st, mn_chunk_hit *h)
{
    h->id = sqlite3_column_int64(st, 0);
    h->file_id = sqlite3_column_int64(st, 1);
    h->symbol_id = sqlite3_column_int64(st, 2);
    h->start_line = sqlite3_column_int64(st, 3);
    h->end_line = sqlite3_column_int64(st, 4);
    h->path = (const char *)sqlite3_column_text(st, 5);
    h->role = (const char *)sqlite3_column_text(st, 6);
    h->language = (const char *)sqlite3_column_text(st, 7);
    h->symbol = (const char *)sqlite3_column_text(st, 8);
    h->qualified_name = (const char *)sqlite3_column_text(st, 9);
    h->symbol_kind = (const char *)sqlite3_column_text(st, 10);
    h->bm25 = 0;
}

static int chunks_pass(mn_store *s, const mn_chunk_query *q, const mn_fts_doc_sizes *sizes,
                       bool exact, size_t limit, id_set *done, bool *saturated, mn_chunk_hit_cb cb,
                       void *payload)
{
    mn_buf sql = MN_BUF_INIT;
    int rc = 0, step;
    size_t inner = inner_limit(limit), seen = 0;
    enum { RANK_AT = 3 }; /* after ?1 the match and ?2 the project (bm25_expr) */
    mn_buf_puts(&sql, "SELECT " CHUNK_COLUMNS ", ");
    if (exact) {
        mn_buf_puts(&sql, "-");
        bm25_expr(&sql, "chunks_fts", q->weights, CHUNK_WEIGHTS, 5, q->nidf, sizes != NULL,
                  RANK_AT);
        mn_buf_printf(&sql,
                      " AS score, 1 FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                      "JOIN files f ON f.id = c.file_id LEFT JOIN symbols y ON y.id = "
                      "c.symbol_id WHERE chunks_fts MATCH ?1 AND f.project_id = ?2 ORDER BY "
                      "score DESC LIMIT %zu",
                      limit);
    } else {
        mn_buf_puts(&sql, "h.score, f.project_id = ?2 FROM (SELECT rowid AS id, -");
        bm25_expr(&sql, "chunks_fts", q->weights, CHUNK_WEIGHTS, 5, q->nidf, sizes != NULL,
                  RANK_AT);
        mn_buf_printf(&sql,
                      " AS score FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY score DESC "
                      "LIMIT %zu) h JOIN chunks c ON c.id = h.id JOIN files f ON f.id = "
                      "c.file_id LEFT JOIN symbols y ON y.id = c.symbol_id ORDER BY h.score DESC",
                      inner);
    }
    sqlite3_stmt *st = mn_sqlite__stmt(s, sql.ptr);
    mn_buf_release(&sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, q->match, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, s->project_id);
    bind_rank(st, RANK_AT, q->idf, q->nidf, sizes);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        seen++;
        if (!sqlite3_column_int(st, CHUNK_NCOLUMNS + 1) || done->len >= limit ||
            !id_set_add(done, sqlite3_column_int64(st, 0)))
            continue;
        mn_chunk_hit h;
        read_chunk(st, &h);
        h.bm25 = sqlite3_column_double(st, CHUNK_NCOLUMNS);
        if ((rc = cb(payload, &h)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, "cannot search code");
    sqlite3_reset(st);
    *saturated = !exact && seen >= inner;
    return rc;
}

int mn_sqlite__chunks_by_id(mn_store *s, const int64_t *ids, size_t n, mn_chunk_hit_cb cb,
                            void *payload)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT " CHUNK_COLUMNS " FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN "
           "symbols y ON y.id = c.symbol_id WHERE c.id = ?1 AND f.project_id = ?2");
    if (!st)
        return mn_error_last_code();
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, ids[i]);
        sqlite3_bind_int64(st, 2, s->project_id);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            mn_chunk_hit h;
            read_chunk(st, &h);
            rc = cb(payload, &h);
        } else if (step != SQLITE_DONE) {
            rc = mn_sqlite__fail(s, "cannot read chunks");
        }
    }
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__search_chunks(mn_store *s, const mn_chunk_query *q, mn_chunk_hit_cb cb,
                             void *payload)
{
    MN_ASSERT_OR(q->nidf <= MN_SEARCH_MAX_PHRASES, MN_EINTERNAL);
    if (!q->match || !*q->match)
        return 0;
    size_t limit = clamp_limit(q->limit);
    id_set done = {NULL, 0, 0, 0};
    bool saturated = false;
    int64_t top = 0, ndocs = 0;
    /* the chunks' lengths, when a file search of this process has read them (chunk_cache.c) */
    uint64_t ph = store_hash(s);
    int rc = table_size(s, MN_FTS_CHUNKS, ph, &top, &ndocs);
    mn_chunk_cache *cache = rc == 0 ? mn_chunk_cache_peek(s, ph, top, ndocs) : NULL;
    const mn_fts_doc_sizes *sizes = cache ? mn_chunk_cache_sizes(cache) : NULL;
    if (rc == 0)
        rc = chunks_pass(s, q, sizes, false, limit, &done, &saturated, cb, payload);
    if (rc == 0 && done.len < limit && saturated) {
        id_set_freeze(&done);
        rc = chunks_pass(s, q, sizes, true, limit, &done, &saturated, cb, payload);
    }
    if (cache)
        mn_chunk_cache_release(cache);
    free(done.ids);
    return rc;
}

/*
 * A name's chunk count, cached: the vocabulary reads a term's whole posting
 * list to count it (a name in most chunks, ~1 ms), and the number of chunks
 * was a count(*) over every docsize page; together an eighth of a code
 * question's search. An entry holds while the chunk index has the same
 * highest row id and number of rows (table_size's), as term_files' do.
 */
#define DF_CACHE_SLOTS 512

typedef struct {
    const sqlite3 *db;
    uint64_t path_hash;
    int64_t top, ndocs, df;
    char key[COUNT_KEY_MAX];
} df_slot;

static df_slot df_cache[DF_CACHE_SLOTS];

static int chunk_term_df(mn_store *s, uint64_t ph, int64_t top, int64_t ndocs, const char *term,
                         int64_t *df)
{
    size_t len = strlen(term);
    df_slot *slot = &df_cache[(fnv1a(term, ph) ^ (uintptr_t)sq(s)->db) % DF_CACHE_SLOTS];
    bool cacheable = len < COUNT_KEY_MAX, hit = false;
    if (cacheable) {
        pthread_mutex_lock(&count_lock);
        hit = slot->db == sq(s)->db && slot->path_hash == ph && slot->top == top &&
              slot->ndocs == ndocs && strcmp(slot->key, term) == 0;
        if (hit)
            *df = slot->df;
        pthread_mutex_unlock(&count_lock);
    }
    if (hit)
        return 0;
    /* the read lives in terms_store.c (store_terms.h), shared with the save pipeline */
    int rc = mn_store_chunk_term_df(s, term, len, df);
    if (rc == 0 && cacheable) {
        pthread_mutex_lock(&count_lock);
        slot->db = sq(s)->db;
        slot->path_hash = ph;
        slot->top = top;
        slot->ndocs = ndocs;
        slot->df = *df;
        memcpy(slot->key, term, len + 1);
        pthread_mutex_unlock(&count_lock);
    }
    return rc;
}

int mn_sqlite__chunk_df(mn_store *s, const char *const *terms, size_t n, int64_t *df,
                        int64_t *ndocs)
{
    int64_t top = 0;
    uint64_t ph = store_hash(s);
    int rc = table_size(s, MN_FTS_CHUNKS, ph, &top, ndocs);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = chunk_term_df(s, ph, top, *ndocs, terms[i], &df[i]);
    return rc;
}

/*
 * Which files a term's chunks are in, cached: ownership asks it for each of
 * a query's words, a common word's list is thousands of chunks (its posting
 * list, each chunk's file found in chunk_cache.c's map), and it changes
 * only when the index does. An entry holds while the chunk index has the same highest row id
 * and number of rows (a re-index gives a file's chunks new ids; the number
 * is table_size's, cached by that id too, so a removal alone can leave an
 * entry naming a file that is gone: search drops files without a path).
 * Fixed size, one slot per hash, under the count cache's mutex.
 */
#define FILES_CACHE_SLOTS 256

struct term_file {
    int64_t file, n;
};

typedef struct {
    const sqlite3 *db;
    uint64_t path_hash;
    int64_t project, top, ndocs;
    size_t limit, n;
    struct term_file *rows;
    char key[COUNT_KEY_MAX];
} files_slot;

static files_slot files_cache[FILES_CACHE_SLOTS];

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The term's first `limit` chunks from its posting list, counted per file (chunk_cache.c). */
static int term_files_read(mn_store *s, const char *match, size_t limit, const mn_chunk_cache *map,
                           struct term_file **out, size_t *n)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT ?2");
    *out = NULL;
    *n = 0;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, limit ? (sqlite3_int64)limit : -1);
    MN_VEC(int64_t) files = MN_VEC_INIT;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t file = mn_chunk_cache_file(map, sqlite3_column_int64(st, 0));
        if (file)
            mn_vec_push(&files, file);
    }
    sqlite3_reset(st);
    if (step != SQLITE_DONE) {
        mn_vec_release(&files);
        return mn_sqlite__fail(s, "cannot count matches per file");
    }
    if (files.len > 1)
        qsort(files.items, files.len, sizeof(*files.items), cmp_i64);
    if (files.len)
        *out = mn_malloc(files.len * sizeof(**out));
    for (size_t i = 0; i < files.len; i++) {
        if (*n && (*out)[*n - 1].file == files.items[i]) {
            (*out)[*n - 1].n++;
        } else {
            (*out)[*n].file = files.items[i];
            (*out)[(*n)++].n = 1;
        }
    }
    mn_vec_release(&files);
    return 0;
}

int mn_sqlite__term_files(mn_store *s, const char *match, size_t limit,
                          int (*cb)(void *payload, int64_t file_id, int64_t count), void *payload)
{
    int64_t top = 0, ndocs = 0;
    uint64_t ph = store_hash(s);
    int rc = table_size(s, MN_FTS_CHUNKS, ph, &top, &ndocs);
    if (rc)
        return rc;
    size_t len = strlen(match), n = 0;
    files_slot *slot = &files_cache[(fnv1a(match, ph ^ (uint64_t)limit) ^ (uintptr_t)sq(s)->db) %
                                    FILES_CACHE_SLOTS];
    struct term_file *rows = NULL;
    bool hit = false, cacheable = len < COUNT_KEY_MAX;
    if (cacheable) {
        pthread_mutex_lock(&count_lock);
        hit = slot->db == sq(s)->db && slot->path_hash == ph && slot->project == s->project_id &&
              slot->top == top && slot->ndocs == ndocs && slot->limit == limit &&
              strcmp(slot->key, match) == 0;
        if (hit && (n = slot->n) > 0) {
            rows = mn_malloc(n * sizeof(*rows));
            memcpy(rows, slot->rows, n * sizeof(*rows));
        }
        pthread_mutex_unlock(&count_lock);
    }
    if (!hit) {
        mn_chunk_cache *map = NULL;
        if ((rc = mn_chunk_cache_get(s, ph, top, ndocs, &map)) != 0)
            return rc;
        rc = term_files_read(s, match, limit, map, &rows, &n);
        mn_chunk_cache_release(map);
        if (rc)
            return rc;
        if (cacheable) {
            struct term_file *copy = n ? mn_malloc(n * sizeof(*copy)) : NULL;
            if (n)
                memcpy(copy, rows, n * sizeof(*copy));
            pthread_mutex_lock(&count_lock);
            free(slot->rows);
            slot->db = sq(s)->db;
            slot->path_hash = ph;
            slot->project = s->project_id;
            slot->top = top;
            slot->ndocs = ndocs;
            slot->limit = limit;
            slot->rows = copy;
            slot->n = n;
            memcpy(slot->key, match, len + 1);
            pthread_mutex_unlock(&count_lock);
        }
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = cb(payload, rows[i].file, rows[i].n);
    free(rows);
    return rc;
}

/* ---- file paths ---- */

int mn_sqlite__search_files(mn_store *s, const char *match, size_t limit,
                            int (*cb)(void *payload, const mn_file_hit *h), void *payload)
{
    if (!match || !*match)
        return 0;
    /* files are few next to chunks: filter by project inside the scan */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT f.id, f.path, f.role, -bm25(files_fts) AS score FROM files_fts JOIN "
           "files f ON f.id = files_fts.rowid WHERE files_fts MATCH ?1 AND f.project_id = ?2 "
           "ORDER BY score DESC LIMIT ?3");
    if (!st)
        return mn_error_last_code();
    return mn_sqlite__file_hits(s, st, match, clamp_limit(limit), cb, payload,
                                "cannot search file paths");
}

int mn_sqlite__file_hits(mn_store *s, sqlite3_stmt *st, const char *match, size_t limit,
                         int (*cb)(void *payload, const mn_file_hit *h), void *payload,
                         const char *what)
{
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, s->project_id);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)limit);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_file_hit h;
        h.id = sqlite3_column_int64(st, 0);
        h.path = (const char *)sqlite3_column_text(st, 1);
        h.role = (const char *)sqlite3_column_text(st, 2);
        h.bm25 = sqlite3_column_double(st, 3);
        if ((rc = cb(payload, &h)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__fail(s, what);
    sqlite3_reset(st);
    return rc;
}

/* ---- texts ---- */

int mn_sqlite__memory_body(mn_store *s, char **out, int64_t rowid)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT body FROM memories WHERE id = ?1");
    *out = NULL;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, rowid);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        *out = mn_strdup(sqlite3_column_type(st, 0) == SQLITE_NULL
                             ? ""
                             : (const char *)sqlite3_column_text(st, 0));
    sqlite3_reset(st);
    if (step == SQLITE_DONE)
        return mn_error_set(MN_ENOTFOUND, "memory row %lld not found", (long long)rowid);
    return step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot read a memory");
}

int mn_sqlite__chunk_text(mn_store *s, char **out, int64_t chunk_id)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT text FROM chunks WHERE id = ?1");
    *out = NULL;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, chunk_id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        *out = mn_strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_reset(st);
    if (step == SQLITE_DONE)
        return mn_error_set(MN_ENOTFOUND, "chunk %lld not found", (long long)chunk_id);
    return step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot read a chunk");
}

/* ---- served answers and feedback ---- */

int mn_sqlite__served_add(mn_store *s, int64_t *out, const char *op, const char *query,
                          const json_t *items)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO served(project_id, ts, op, query, items) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, mn_time_now_ms());
    sqlite3_bind_text(st, 3, op, -1, SQLITE_STATIC);
    if (query)
        sqlite3_bind_text(st, 4, query, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, json_dumps(items, JSON_COMPACT), -1, free);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot record what was served");
    *out = sqlite3_last_insert_rowid(sq(s)->db);
    return 0;
}

/*
 * Two deletes (for served, on the served_ts index: project_id, ts; the rowid
 * breaks ties; the audit's reads, audit_action): everything before the cutoff time, a range
 * of the index; then everything before the max_rows-th newest row, which is found by stepping
 * max_rows entries of the index (10,000 entries: 0.8 ms warm, measured with sqlite3's .timer;
 * docs/internals/store.md). That second one runs on one add in max_rows / 256, so its cost per add
 * stays that of ~256 entries and a project keeps at most max_rows + max_rows / 256 rows.
 */
int mn_sqlite__prune(mn_store *s, const char *by_age, const char *by_count, int64_t now_ms,
                     int64_t max_age_ms, int64_t max_rows, int64_t added, const char *what)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int64_t every = max_rows / 256 > 1 ? max_rows / 256 : 1;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0 ? max_age_ms <= 0 : max_rows <= 0 || added % every != 0)
            continue;
        sqlite3_stmt *st = mn_sqlite__stmt(s, pass == 0 ? by_age : by_count);
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, s->project_id);
        sqlite3_bind_int64(st, 2, pass == 0 ? now_ms - max_age_ms : max_rows);
        int step = sqlite3_step(st);
        sqlite3_reset(st);
        if (step != SQLITE_DONE)
            return mn_sqlite__fail(s, what);
    }
    return 0;
}

int mn_sqlite__served_prune(mn_store *s, int64_t now_ms, int64_t max_age_ms, int64_t max_rows,
                            int64_t added)
{
    return mn_sqlite__prune(
        s, "DELETE FROM served WHERE project_id = ?1 AND ts < ?2",
        "DELETE FROM served WHERE project_id = ?1 AND (ts, id) < (SELECT ts, id FROM "
        "served WHERE project_id = ?1 ORDER BY ts DESC, id DESC LIMIT 1 OFFSET ?2 - 1)",
        now_ms, max_age_ms, max_rows, added, "cannot forget old served answers");
}

int mn_sqlite__served_get(mn_store *s, json_t **out, int64_t id)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT op, query, ts, items, session FROM served WHERE id = ?1 AND project_id = ?2");
    *out = NULL;
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, s->project_id);
    int step = sqlite3_step(st), rc = 0;
    if (step == SQLITE_ROW) {
        json_t *items = json_loads((const char *)sqlite3_column_text(st, 3), 0, NULL);
        if (!json_is_array(items)) {
            json_decref(items);
            rc = mn_error_set(MN_ECORRUPT, "database '%s': served answer %lld is damaged", s->path,
                              (long long)id);
        } else {
            char t[32];
            mn_time_format(t, sqlite3_column_int64(st, 2));
            *out = json_pack("{s:I,s:s,s:s?,s:s,s:o,s:s?}", "id", (json_int_t)id, "op",
                             (const char *)sqlite3_column_text(st, 0), "query",
                             (const char *)sqlite3_column_text(st, 1), "ts", t, "items", items,
                             "session", (const char *)sqlite3_column_text(st, 4));
        }
    } else if (step == SQLITE_DONE) {
        rc = mn_error_set(MN_ENOTFOUND, "served answer %lld not found", (long long)id);
    } else {
        rc = mn_sqlite__fail(s, "cannot read what was served");
    }
    sqlite3_reset(st);
    return rc;
}

int mn_sqlite__feedback_add(mn_store *s, int64_t served_id, const char *actor,
                            const char *item_kind, const char *item_id, const char *signal,
                            const char *note, const char *session, const char *query)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int rc = 0;
    if (strcmp(item_kind, "memory") == 0 && strcmp(signal, "refined") != 0) {
        sqlite3_stmt *up = mn_sqlite__stmt(
            s, strcmp(signal, "used") == 0
                   ? "UPDATE memories SET used_count = used_count + 1 WHERE uid = ?1 AND "
                     "project_id = ?2"
                   : "UPDATE memories SET ignored_count = ignored_count + 1 WHERE uid = ?1 AND "
                     "project_id = ?2");
        if (!up)
            return mn_error_last_code();
        sqlite3_bind_text(up, 1, item_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(up, 2, s->project_id);
        int step = sqlite3_step(up);
        sqlite3_reset(up);
        if (step != SQLITE_DONE)
            return mn_sqlite__fail(s, "cannot count feedback");
        if (sqlite3_changes(sq(s)->db) == 0)
            return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", item_id);
    }
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO feedback(served_id, ts, actor, item_kind, item_id, signal, note, session, "
           "query) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    if (!st)
        return mn_error_last_code();
    if (served_id > 0)
        sqlite3_bind_int64(st, 1, served_id);
    sqlite3_bind_int64(st, 2, mn_time_now_ms());
    if (actor)
        sqlite3_bind_text(st, 3, actor, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, item_kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, item_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, signal, -1, SQLITE_STATIC);
    if (note)
        sqlite3_bind_text(st, 7, note, -1, SQLITE_STATIC);
    if (session)
        sqlite3_bind_text(st, 8, session, -1, SQLITE_STATIC);
    if (query)
        sqlite3_bind_text(st, 9, query, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    if (step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot record feedback");
    return rc;
}

int mn_sqlite__memories_touch(mn_store *s, const int64_t *rowids, size_t n, int64_t now_ms)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    /* rows of this project only: a row id from elsewhere changes nothing */
    sqlite3_stmt *st = mn_sqlite__stmt(s, "UPDATE memories SET hit_count = hit_count + 1, "
                                          "accessed_at = ?2 WHERE id = ?1 AND project_id = ?3");
    if (!st)
        return mn_error_last_code();
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, rowids[i]);
        sqlite3_bind_int64(st, 2, now_ms);
        sqlite3_bind_int64(st, 3, s->project_id);
        int step = sqlite3_step(st);
        sqlite3_reset(st);
        if (step != SQLITE_DONE)
            return mn_sqlite__fail(s, "cannot count a hit");
    }
    return 0;
}
