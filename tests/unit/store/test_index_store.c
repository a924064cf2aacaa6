/*
 * test_index_store.c - files, symbols, edges and chunks through
 * store_index.h: replace keeps exactly the new content, edges into a
 * replaced or removed file are unresolved (never dangling), counts, the
 * path glob, which files a word's chunks are in (term_files, read through
 * the in-memory chunk -> file map) as the index changes, and chunk ranking
 * with the chunks' lengths held in memory giving FTS5's scores.
 */
#include "common.h"
#include <math.h>
#include <sqlite3.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_index.h"
#include "store/store_search.h"
#include "mnemo/format.h"
#include "util/util.h"
#include <xxhash.h>
#include "test.h"
#include "test_fs.h"
#include "test_store.h"

static char dir[64];
static char *loc; /* the store's location: a file in dir, or a database (test_store.h) */

static mn_store *open_store(void)
{
    mn_store *s = NULL;
    snprintf(dir, sizeof(dir), "/tmp/mnemo-idx-XXXXXX");
    if (!mkdtemp(dir))
        return NULL;
    free(loc);
    loc = test_store_new(dir);
    if (!loc || mn_store_open(&s, loc, NULL) != 0)
        s = NULL;
    return s;
}

static void close_store(mn_store *s)
{
    mn_store_free(s);
    rm_rf(dir);
    test_store_drop_all();
}

/* One query's single integer answer, straight from the back end's own client. */
static int64_t scalar(mn_store *s, const char *sql)
{
    MN_UNUSED(s);
    return test_store_sql_int(loc, sql);
}

/* Statements run straight on the store (the resolver's work done by hand). */
static int exec_sql(const char *sql)
{
    return test_store_sql_exec(loc, sql);
}

static int put(mn_store *s, const char *path, const char *hash, int nsym, const char *import)
{
    mn_file_rec f = {0};
    f.path = path;
    f.language = "python";
    f.role = "source";
    snprintf(f.hash, sizeof(f.hash), "%s", hash);
    f.size = 100;
    f.lines = 10;
    mn_symbol_rec syms[4] = {{0}};
    const char *names[] = {"alpha", "beta", "gamma", "delta"};
    for (int i = 0; i < nsym; i++) {
        syms[i].name = names[i];
        syms[i].kind = "function";
        syms[i].start_line = 1 + i;
        syms[i].end_line = 2 + i;
    }
    mn_ref_rec refs[2] = {{-1, "import", import, 0}, {0, "call", "beta", 0}};
    mn_chunk_rec chunks[1] = {{0, 1, 2, "def alpha(): beta()", ""}};
    mn_file_content c = {syms, (size_t)nsym, refs, nsym ? 2u : 1u, chunks, nsym ? 1u : 0u, NULL, 0};
    int rc = mn_store_begin(s);
    if (rc == 0)
        rc = mn_store_file_replace(s, &f, &c);
    if (rc == 0)
        rc = mn_store_commit(s);
    else
        mn_store_rollback(s);
    return rc;
}

static int count_files(void *payload, const mn_file_rec *f)
{
    MN_UNUSED(f);
    (*(int *)payload)++;
    return 0;
}

static void test_replace_and_counts(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    REQUIRE_OK(put(s, "pkg/a.py", "aaaa", 2, "pkg.b"));
    REQUIRE_OK(put(s, "pkg/b.py", "bbbb", 1, "os"));
    mn_index_counts n;
    REQUIRE_OK(mn_store_index_counts(s, &n));
    CHECK(n.files == 2 && n.symbols == 3 && n.edges == 4 && n.resolved == 0 && n.chunks == 2);

    int64_t id;
    char hash[MN_HASH_HEX];
    REQUIRE_OK(mn_store_file_lookup(s, &id, hash, "pkg/a.py"));
    CHECK_STR(hash, "aaaa");
    CHECK(mn_store_file_lookup(s, &id, hash, "nope.py") == MN_ENOTFOUND);

    /* replacing a file keeps its id and exactly the new content */
    int64_t before = id;
    REQUIRE_OK(put(s, "pkg/a.py", "a2a2", 1, "pkg.c"));
    REQUIRE_OK(mn_store_file_lookup(s, &id, hash, "pkg/a.py"));
    CHECK(id == before);
    CHECK_STR(hash, "a2a2");
    REQUIRE_OK(mn_store_index_counts(s, &n));
    CHECK(n.files == 2 && n.symbols == 2 && n.edges == 4 && n.chunks == 2);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_name = 'pkg.b'") == 0);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_name = 'pkg.c'") == 1);

    int files = 0;
    REQUIRE_OK(mn_store_files_each(s, "pkg/*.py", count_files, &files));
    CHECK(files == 2);
    files = 0;
    REQUIRE_OK(mn_store_files_each(s, "pkg/b*", count_files, &files));
    CHECK(files == 1);
    close_store(s);
}

static void test_edges_into_a_removed_file_are_unresolved(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    REQUIRE_OK(put(s, "a.py", "aaaa", 2, "b"));
    REQUIRE_OK(put(s, "b.py", "bbbb", 1, "os"));
    /* resolve a.py's import to b.py by hand, as the resolver will */
    int64_t b;
    char hash[MN_HASH_HEX];
    REQUIRE_OK(mn_store_file_lookup(s, &b, hash, "b.py"));
    mn_buf sql = MN_BUF_INIT;
    mn_buf_printf(&sql, "UPDATE edges SET dst_id = %lld WHERE dst_name = 'b'", (long long)b);
    CHECK(exec_sql(sql.ptr) == 0);
    mn_buf_release(&sql);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_id IS NOT NULL") == 1);

    mn_store_begin(s);
    CHECK_OK(mn_store_file_remove(s, "b.py"));
    CHECK_OK(mn_store_commit(s));
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_id IS NOT NULL") == 0);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_name = 'b'") == 1);
    CHECK(scalar(s, "SELECT count(*) FROM symbols") == 2);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_name = 'os'") == 0);

    mn_store_begin(s);
    CHECK(mn_store_file_remove(s, "b.py") == MN_ENOTFOUND);
    mn_store_rollback(s);
    CHECK_OK(mn_store_check(s));
    close_store(s);
}

static void test_ranks_and_touch(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    REQUIRE_OK(put(s, "a.py", "aaaa", 1, "b"));
    int64_t id;
    char hash[MN_HASH_HEX];
    REQUIRE_OK(mn_store_file_lookup(s, &id, hash, "a.py"));
    REQUIRE_OK(mn_store_begin(s));
    CHECK_OK(mn_store_set_rank(s, "file", id, 0.25));
    CHECK_OK(mn_store_file_touch(s, id, 4242, 77));
    REQUIRE_OK(mn_store_commit(s));
    CHECK(scalar(s, "SELECT rank * 100 FROM files") == 25);
    CHECK(scalar(s, "SELECT size FROM files") == 4242);
    CHECK(scalar(s, "SELECT mtime FROM files") == 77);
    close_store(s);
}

/* chunks.symbol_id cascades from symbols: without an index every symbol
 * deleted scanned the whole chunks table (2 s to replace one sympy file) */
static void test_chunks_symbol_index(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    if (test_store_pg())
        CHECK(scalar(s, "SELECT count(*) FROM pg_indexes WHERE indexname = 'chunks_symbol' AND "
                        "indexdef LIKE '%(symbol_id)'") == 1);
    else
        CHECK(scalar(s, "SELECT count(*) FROM pragma_index_info('chunks_symbol') "
                        "WHERE name = 'symbol_id'") == 1);
    close_store(s);
}

static int64_t id_of(mn_store *s, const char *path)
{
    int64_t id = 0;
    char hash[MN_HASH_HEX];
    return mn_store_file_lookup(s, &id, hash, path) == 0 ? id : 0;
}

typedef struct {
    int64_t src[8], dst[8];
    double w[8];
    int n;
} pairs;

static int collect_pair(void *payload, int64_t src, int64_t dst, double weight)
{
    pairs *p = payload;
    if (p->n < 8) {
        p->src[p->n] = src;
        p->dst[p->n] = dst;
        p->w[p->n] = weight;
    }
    p->n++;
    return 0;
}

typedef struct {
    int64_t src_file[8];
    char name[8][16];
    int n;
} unresolved;

static int collect_unresolved(void *payload, const mn_edge_rec *e)
{
    unresolved *u = payload;
    if (u->n < 8) {
        u->src_file[u->n] = e->src_file;
        snprintf(u->name[u->n], sizeof(u->name[0]), "%s", e->name);
    }
    u->n++;
    return 0;
}

/*
 * The graph as rank reads it: file level = imports plus calls lifted to
 * their files, weights summed, self-pairs left out; symbol level = calls
 * between symbols. Unresolved edges carry the file they come from, also
 * when their source is a symbol.
 */
static void test_graph_and_unresolved(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    REQUIRE_OK(put(s, "a.py", "aaaa", 2, "b"));  /* alpha calls beta; imports b */
    REQUIRE_OK(put(s, "b.py", "bbbb", 2, "os")); /* alpha calls beta; imports os */
    REQUIRE_OK(put(s, "c.py", "cccc", 2, "os")); /* left unresolved */
    int64_t a = id_of(s, "a.py"), b = id_of(s, "b.py"), c = id_of(s, "c.py");
    REQUIRE(a && b && c);
    mn_buf sql = MN_BUF_INIT;
    /* a imports b; both alphas call a's beta; b's alpha twice (weight 2) */
    mn_buf_printf(&sql,
                  "UPDATE edges SET dst_id = %lld WHERE dst_name = 'b';"
                  "UPDATE edges SET dst_id = (SELECT id FROM symbols WHERE file_id = %lld AND "
                  "name = 'beta'), weight = CASE WHEN src_id IN (SELECT id FROM symbols WHERE "
                  "file_id = %lld) THEN 2 ELSE 1 END WHERE kind = 'call' AND src_id IN "
                  "(SELECT id FROM symbols WHERE file_id IN (%lld, %lld))",
                  (long long)b, (long long)a, (long long)b, (long long)a, (long long)b);
    CHECK(exec_sql(sql.ptr) == 0);
    mn_buf_release(&sql);

    pairs p = {0};
    REQUIRE_OK(mn_store_graph_each(s, "file", collect_pair, &p));
    /* a -> b (import), b -> a (call, lifted); a's own call stays inside a */
    REQUIRE(p.n == 2);
    int ab = p.src[0] == a ? 0 : 1, ba = 1 - ab;
    CHECK(p.src[ab] == a && p.dst[ab] == b && p.w[ab] == 1.0);
    CHECK(p.src[ba] == b && p.dst[ba] == a && p.w[ba] == 2.0);

    pairs q = {0};
    REQUIRE_OK(mn_store_graph_each(s, "symbol", collect_pair, &q));
    CHECK(q.n == 2);
    CHECK(q.w[0] + q.w[1] == 3.0);
    CHECK(q.src[0] < q.src[1]); /* in (src, dst) order */

    unresolved u = {0};
    REQUIRE_OK(mn_store_edges_unresolved_each(s, collect_unresolved, &u));
    REQUIRE(u.n == 3); /* in id order: b's import, c's import, c's call */
    CHECK_STR(u.name[0], "os");
    CHECK(u.src_file[0] == b);
    CHECK_STR(u.name[1], "os");
    CHECK(u.src_file[1] == c);
    CHECK_STR(u.name[2], "beta");
    CHECK(u.src_file[2] == c);
    close_store(s);
}

/* A file of n window chunks, each "<word> filler". */
static int put_chunks(mn_store *s, const char *path, const char *hash, int n, const char *word)
{
    mn_file_rec f = {0};
    f.path = path;
    f.language = "python";
    f.role = "source";
    snprintf(f.hash, sizeof(f.hash), "%s", hash);
    mn_chunk_rec chunks[8];
    char text[8][64];
    for (int i = 0; i < n; i++) {
        snprintf(text[i], sizeof(text[i]), "%s filler%d", word, i);
        chunks[i] = (mn_chunk_rec){-1, 1 + i, 1 + i, text[i], ""};
        snprintf(chunks[i].hash, sizeof(chunks[i].hash), "%s%d", hash, i);
    }
    mn_file_content c = {NULL, 0, NULL, 0, chunks, (size_t)n, NULL, 0};
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_file_replace(s, &f, &c)) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

typedef struct {
    int64_t file[8], n[8];
    size_t len;
} per_file;

static int on_term_file(void *payload, int64_t file, int64_t n)
{
    per_file *p = payload;
    if (p->len < 8) {
        p->file[p->len] = file;
        p->n[p->len++] = n;
    }
    return 0;
}

/* The chunks of path matching word, as term_files reports them (0: none). */
static int64_t term_count(mn_store *s, const char *word, const char *path)
{
    int64_t id;
    char hash[MN_HASH_HEX];
    per_file p = {{0}, {0}, 0};
    if (mn_store_file_lookup(s, &id, hash, path) != 0 ||
        mn_store_term_files(s, word, 0, on_term_file, &p) != 0)
        return -1;
    for (size_t i = 0; i < p.len; i++)
        if (p.file[i] == id)
            return p.n[i];
    return 0;
}

static void test_term_files(void)
{
    TEST_SQLITE_ONLY("term_files is full-text search (the pgsearch branch)");
    mn_store *s = open_store();
    REQUIRE(s);
    REQUIRE_OK(put_chunks(s, "a.py", "a1", 2, "widget"));
    REQUIRE_OK(put_chunks(s, "b.py", "b1", 3, "widget"));
    CHECK(term_count(s, "widget", "a.py") == 2);
    CHECK(term_count(s, "widget", "b.py") == 3);
    /* a.py again: its new chunks come after b.py's, so its ids are not b's neighbours */
    REQUIRE_OK(put_chunks(s, "a.py", "a2", 4, "widget"));
    CHECK(term_count(s, "widget", "a.py") == 4);
    CHECK(term_count(s, "widget", "b.py") == 3);
    REQUIRE_OK(put_chunks(s, "c.py", "c1", 1, "gadget"));
    CHECK(term_count(s, "gadget", "c.py") == 1);
    CHECK(term_count(s, "widget", "c.py") == 0);

    /* another project's chunks in the same store are not this project's files */
    mn_buf path = MN_BUF_INIT;
    mn_buf_puts(&path, loc);
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    mn_store *t = NULL;
    REQUIRE_OK(mn_store_open(&t, path.ptr, &o));
    REQUIRE_OK(put_chunks(t, "a.py", "o1", 5, "widget"));
    CHECK(term_count(t, "widget", "a.py") == 5);
    CHECK(term_count(t, "widget", "b.py") == -1); /* not a file of this project */
    CHECK(term_count(s, "widget", "a.py") == 4);
    mn_store_free(t);
    mn_buf_release(&path);
    close_store(s);
}

/* chunk_cache.c's file header: 64 bytes, the payload's xxh3 in its last 8 */
#define CHUNK_FILE_HEADER 64

typedef struct {
    int64_t id[16];
    double bm25[16];
    size_t n;
} ranked;

static int on_chunk_hit(void *payload, const mn_chunk_hit *h)
{
    ranked *r = payload;
    if (r->n < 16) {
        r->id[r->n] = h->id;
        r->bm25[r->n++] = h->bm25;
    }
    return 0;
}

/* A file of one chunk of text. */
static int put_text(mn_store *s, const char *path, const char *hash, const char *text)
{
    mn_chunk_rec chunk = {-1, 1, 1, text, ""};
    snprintf(chunk.hash, sizeof(chunk.hash), "%s", hash);
    mn_file_rec f = {0};
    f.path = path;
    f.language = "python";
    f.role = "source";
    snprintf(f.hash, sizeof(f.hash), "%s", hash);
    mn_file_content c = {NULL, 0, NULL, 0, &chunk, 1, NULL, 0};
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_file_replace(s, &f, &c)) == 0)
        rc = mn_store_commit(s);
    else
        mn_store_rollback(s);
    return rc;
}

/* A file whose chunk is "widget" and n fillers: lengths differ, so bm25 tells them apart. */
static int put_long(mn_store *s, const char *path, const char *hash, int n)
{
    mn_buf text = MN_BUF_INIT;
    mn_buf_puts(&text, "widget");
    for (int i = 0; i < n; i++)
        mn_buf_puts(&text, " filler");
    int rc = put_text(s, path, hash, text.ptr);
    mn_buf_release(&text);
    return rc;
}

static void test_chunk_lengths_cached(void)
{
    TEST_SQLITE_ONLY("the chunk cache and its file beside the store are SQLite's");
    mn_store *s = open_store();
    REQUIRE(s);
    const int lengths[] = {9, 1, 30, 4, 12};
    char path[32], hash[32];
    /* chunks without the words first, so that they weigh (idf) and f4.py's chunk is the last */
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof(path), "other%d.py", i);
        snprintf(hash, sizeof(hash), "o%d", i);
        REQUIRE_OK(put_text(s, path, hash, "gizmo sprocket"));
    }
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof(path), "f%d.py", i);
        snprintf(hash, sizeof(hash), "h%d", i);
        REQUIRE_OK(put_long(s, path, hash, lengths[i]));
    }
    mn_chunk_query q = {0};
    q.match = "\"widget\" OR \"filler\"";
    q.limit = 10;
    ranked before = {{0}, {0}, 0}, after = {{0}, {0}, 0};
    /* FTS5 reads each row's length; then ownership's lookup builds the file map, the next
     * ranking adds the lengths (a process that asks again), and the one after reads them */
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &before));
    CHECK(term_count(s, "widget", "f0.py") == 1);
    ranked second = {{0}, {0}, 0};
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &second));
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &after));
    REQUIRE(before.n == 5 && after.n == 5);
    for (size_t i = 0; i < 5; i++) {
        CHECK(before.id[i] == after.id[i]);
        CHECK(fabs(before.bm25[i] - after.bm25[i]) < 1e-9);
    }
    CHECK(before.bm25[0] > before.bm25[4]); /* lengths matter to the order */

    /* the next process reads both from the file beside the store: here, another store's
     * cache takes the process's place first, so the next ranking finds none in memory */
    mn_buf file = MN_BUF_INIT, other = MN_BUF_INIT;
    mn_buf_printf(&file, "%s-chunks-%lld", loc,
                  (long long)scalar(s, "SELECT project_id FROM files LIMIT 1"));
    CHECK(access(file.ptr, R_OK) == 0);
    char odir[64] = "/tmp/mnemo-idx2-XXXXXX";
    REQUIRE(mkdtemp(odir));
    mn_buf_printf(&other, "%s/o.db", odir);
    mn_store *t = NULL;
    REQUIRE_OK(mn_store_open(&t, other.ptr, NULL));
    REQUIRE_OK(put_long(t, "g.py", "g0", 3));
    CHECK(term_count(t, "widget", "g.py") == 1);
    ranked from_file = {{0}, {0}, 0};
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &from_file));
    REQUIRE(from_file.n == 5);
    FILE *f = NULL;
    for (size_t i = 0; i < 5; i++) {
        CHECK(from_file.id[i] == before.id[i]);
        CHECK(fabs(from_file.bm25[i] - before.bm25[i]) < 1e-9);
    }
    /* it was the file that was read: one length changed in it, with a payload hash to match,
     * changes that chunk's score */
    size_t flen = 0;
    char *bytes = NULL;
    REQUIRE_OK(mn_file_read(&bytes, &flen, file.ptr, 1 << 20));
    uint16_t len16;
    memcpy(&len16, bytes + flen - 2, 2);
    len16 = (uint16_t)(len16 + 40);
    memcpy(bytes + flen - 2, &len16, 2);
    uint64_t sum = XXH3_64bits(bytes + CHUNK_FILE_HEADER, flen - CHUNK_FILE_HEADER);
    memcpy(bytes + CHUNK_FILE_HEADER - 8, &sum, 8);
    f = fopen(file.ptr, "wb");
    REQUIRE(f && fwrite(bytes, 1, flen, f) == flen);
    fclose(f);
    free(bytes);
    CHECK(term_count(t, "gadget", "g.py") == 0);
    ranked edited = {{0}, {0}, 0};
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &edited));
    double was = 0, now = 0;
    int64_t last_chunk = 0; /* f4.py's chunk: the last length of the file */
    for (size_t i = 0; i < 5; i++)
        if (before.id[i] > last_chunk)
            last_chunk = before.id[i];
    for (size_t i = 0; i < 5; i++) {
        if (before.id[i] == last_chunk)
            was = before.bm25[i];
        if (edited.id[i] == last_chunk)
            now = edited.bm25[i];
    }
    CHECK(was > 0 && now > 0 && fabs(was - now) > 1e-6);

    /* a damaged file is not used: the same ranking, from the docsize table */
    f = fopen(file.ptr, "r+b");
    REQUIRE(f);
    fseek(f, -1, SEEK_END);
    int last = fgetc(f);
    fseek(f, -1, SEEK_END);
    fputc(last ^ 0x5a, f);
    fclose(f);
    CHECK(term_count(t, "filler", "g.py") == 1); /* the other store's cache again */
    ranked damaged = {{0}, {0}, 0};
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &damaged));
    REQUIRE(damaged.n == 5);
    for (size_t i = 0; i < 5; i++) {
        CHECK(damaged.id[i] == before.id[i]);
        CHECK(fabs(damaged.bm25[i] - before.bm25[i]) < 1e-9);
    }
    mn_store_free(t);
    rm_rf(odir);
    mn_buf_release(&other);
    mn_buf_release(&file);
    close_store(s);
}

/*
 * The second, exact pass of a chunk search (the filters inside the full-text
 * scan: another project's chunks filled FTS5's best rows) with mnemo_bm25's
 * extra arguments: the phrases' idf given, and the chunks' lengths held in
 * memory. Those arguments were named parameters written before ?1 in the
 * statement, so SQLite numbered the first one 1, the match's number: the
 * match was bound over by an idf or the lengths' pointer, and FTS5 read NULL
 * ('fts5: syntax error near ""', a store's "mnemo search x"). Both passes
 * find this project's two chunks, scored as without the arguments.
 */
static void test_exact_pass_rank_arguments(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    REQUIRE_OK(put_long(s, "mine.py", "m0", 20));
    REQUIRE_OK(put_long(s, "mine2.py", "m1", 30));
    /* chunks without the word: an idf above 0 on PostgreSQL too, which counts a project's */
    REQUIRE_OK(put_text(s, "plain.py", "p0", "gizmo sprocket"));
    REQUIRE_OK(put_text(s, "plain2.py", "p1", "gizmo sprocket"));
    REQUIRE_OK(put_text(s, "plain3.py", "p2", "gizmo sprocket"));
    /* another project: 80 short chunks holding the word rank above ours (limit 10: the first
     * pass reads FTS5's best 65), and 104 without it (an idf above 0) */
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    mn_store *t = NULL;
    REQUIRE_OK(mn_store_open(&t, loc, &o));
    char path[32], hash[32];
    for (int i = 0; i < 10; i++) {
        snprintf(path, sizeof(path), "o%d.py", i);
        snprintf(hash, sizeof(hash), "o%d", i);
        REQUIRE_OK(put_chunks(t, path, hash, 8, "widget"));
    }
    for (int i = 0; i < 13; i++) {
        snprintf(path, sizeof(path), "g%d.py", i);
        snprintf(hash, sizeof(hash), "g%d", i);
        REQUIRE_OK(put_chunks(t, path, hash, 8, "gizmo"));
    }
    mn_chunk_query q = {0};
    q.match = "\"widget\"";
    q.limit = 10;
    ranked plain = {{0}, {0}, 0};
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &plain));
    REQUIRE(plain.n == 2);
    CHECK(plain.bm25[0] > plain.bm25[1]);

    /* the idf given: the same rows, each score scaled by given / counted */
    int64_t n = 0, ndocs = 0;
    REQUIRE_OK(mn_store_fts_count(s, MN_FTS_CHUNKS, q.match, &n, &ndocs));
    const double idf[1] = {2 * log(((double)ndocs - (double)n + 0.5) / ((double)n + 0.5))};
    mn_chunk_query w = q;
    w.idf = idf;
    w.nidf = 1;
    ranked given = {{0}, {0}, 0};
    CHECK_OK(mn_store_search_chunks(s, &w, on_chunk_hit, &given));
    CHECK(given.n == 2);
    for (size_t i = 0; i < given.n && i < 2; i++) {
        CHECK(given.id[i] == plain.id[i]);
        CHECK(fabs(given.bm25[i] - 2 * plain.bm25[i]) < 1e-6 * plain.bm25[i]);
    }

    /* the lengths held in memory (SQLite): ownership's lookup builds the file map, the next
     * ranking adds the lengths, the ones after read them */
    if (!test_store_pg()) {
        CHECK(term_count(s, "widget", "mine.py") == 1);
        for (int k = 0; k < 3; k++) {
            ranked held = {{0}, {0}, 0};
            CHECK_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &held));
            CHECK(held.n == 2);
            for (size_t i = 0; i < held.n && i < 2; i++) {
                CHECK(held.id[i] == plain.id[i]);
                CHECK(fabs(held.bm25[i] - plain.bm25[i]) < 1e-9);
            }
            ranked both = {{0}, {0}, 0};
            CHECK_OK(mn_store_search_chunks(s, &w, on_chunk_hit, &both));
            CHECK(both.n == 2);
        }
    }
    mn_store_free(t);
    close_store(s);
}

/*
 * The code's full-text indexes rebuilt into one segment once commits have
 * left more than 8 (fts_tidy.c; index.c runs it after an index run): the
 * same ranking after, and nothing done below the line.
 */
static void test_fts_tidy(void)
{
    TEST_SQLITE_ONLY("FTS5 segments");
    static const char *const segs = "SELECT count(DISTINCT segid) FROM chunks_fts_idx";
    mn_store *s = open_store();
    REQUIRE(s);
    char path[32], hash[32];
    bool rebuilt = true;
    int n = 0;
    /* a file per commit, as an index run's batches are: 12 segments (FTS5 merges at 16) */
    for (; n < 12; n++) {
        snprintf(path, sizeof(path), "t%d.py", n);
        snprintf(hash, sizeof(hash), "t%d", n);
        REQUIRE_OK(n % 3 ? put_text(s, path, hash, "gizmo sprocket")
                         : put_long(s, path, hash, n % 17));
        if (n == 3) {
            REQUIRE_OK(mn_store_fts_tidy(s, MN_FTS_CHUNKS, &rebuilt));
            CHECK(!rebuilt);
        }
    }
    CHECK(scalar(s, segs) > 8);
    CHECK(scalar(s, "SELECT count(DISTINCT segid) FROM files_fts_idx") > 8);
    mn_chunk_query q = {0};
    q.match = "\"widget\" OR \"filler\"";
    q.limit = 16;
    ranked before = {{0}, {0}, 0}, after = {{0}, {0}, 0};
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &before));
    REQUIRE(before.n >= 4);

    REQUIRE_OK(mn_store_fts_tidy(s, MN_FTS_CHUNKS, &rebuilt));
    CHECK(rebuilt);
    CHECK(scalar(s, segs) == 1);
    REQUIRE_OK(mn_store_fts_tidy(s, MN_FTS_FILES, &rebuilt));
    CHECK(rebuilt);
    CHECK(scalar(s, "SELECT count(DISTINCT segid) FROM files_fts_idx") == 1);
    REQUIRE_OK(mn_store_search_chunks(s, &q, on_chunk_hit, &after));
    REQUIRE(after.n == before.n);
    for (size_t i = 0; i < before.n; i++) {
        CHECK(before.id[i] == after.id[i]);
        CHECK(fabs(before.bm25[i] - after.bm25[i]) < 1e-9);
    }
    REQUIRE_OK(mn_store_fts_tidy(s, MN_FTS_CHUNKS, &rebuilt));
    CHECK(!rebuilt);
    close_store(s);
}

/* ---- lookups, symbol ids kept, history: every back end ---- */

typedef struct {
    size_t which[8];
    int64_t id[8], file[8];
    char path[8][16];
    int n;
} found;

static int on_symbol_def(void *payload, size_t which, const mn_symbol_def *d)
{
    found *f = payload;
    if (f->n < 8) {
        f->which[f->n] = which;
        f->id[f->n] = d->id;
        f->file[f->n] = d->file_id;
        snprintf(f->path[f->n], sizeof(f->path[0]), "%s", d->path);
    }
    f->n++;
    return 0;
}

static int on_declared(void *payload, size_t which, const mn_declared_def *d)
{
    found *f = payload;
    if (f->n < 8) {
        f->which[f->n] = which;
        f->id[f->n] = d->line;
        f->file[f->n] = d->file_id;
        snprintf(f->path[f->n], sizeof(f->path[0]), "%s", d->kind);
    }
    f->n++;
    return 0;
}

static int on_named(void *payload, int64_t id, int64_t file_id)
{
    found *f = payload;
    if (f->n < 8) {
        f->id[f->n] = id;
        f->file[f->n] = file_id;
    }
    f->n++;
    return 0;
}

static int on_file(void *payload, const mn_file_rec *r)
{
    found *f = payload;
    if (f->n < 8) {
        f->id[f->n] = r->id;
        snprintf(f->path[f->n], sizeof(f->path[0]), "%s", r->path);
    }
    f->n++;
    return 0;
}

static int on_neighbour(void *payload, const mn_neighbour *nb)
{
    found *f = payload;
    if (f->n < 8)
        snprintf(f->path[f->n], sizeof(f->path[0]), "%s:%s", nb->edge,
                 nb->path ? nb->path : nb->name);
    f->n++;
    return 0;
}

static int on_file_neighbour(void *payload, int64_t seed, int64_t other, double w, bool out)
{
    found *f = payload;
    if (f->n < 8) {
        f->id[f->n] = other;
        f->file[f->n] = seed;
        f->which[f->n] = out ? 1 : 0;
        CHECK(w > 0);
    }
    f->n++;
    return 0;
}

static int on_chunk(void *payload, const mn_chunk_hit *h)
{
    found *f = payload;
    if (f->n < 8) {
        f->id[f->n] = h->id;
        f->file[f->n] = h->file_id;
        snprintf(f->path[f->n], sizeof(f->path[0]), "%s", h->symbol ? h->symbol : "-");
    }
    f->n++;
    return 0;
}

static int on_id(void *payload, int64_t id)
{
    return on_named(payload, id, 0);
}

static int64_t symbol_id(mn_store *s, const char *path, const char *name)
{
    mn_buf sql = MN_BUF_INIT;
    mn_buf_printf(&sql,
                  "SELECT y.id FROM symbols y JOIN files f ON f.id = y.file_id WHERE "
                  "f.path = '%s' AND y.name = '%s'",
                  path, name);
    int64_t v = scalar(s, sql.ptr);
    mn_buf_release(&sql);
    return v;
}

/*
 * A replaced file keeps the ids of the symbols still there (the edges into
 * them stay resolved) and unresolves the edges into those that went; the
 * lookups by name, id and neighbourhood that retrieval makes.
 */
static void test_symbols_kept_and_lookups(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    REQUIRE_OK(put(s, "a.py", "aaaa", 2, "b")); /* alpha, beta; alpha calls beta */
    REQUIRE_OK(put(s, "b.py", "bbbb", 1, "a")); /* alpha, which calls beta */
    int64_t a = id_of(s, "a.py"), b = id_of(s, "b.py");
    int64_t alpha = symbol_id(s, "a.py", "alpha"), beta = symbol_id(s, "a.py", "beta");
    REQUIRE(a > 0 && b > 0 && alpha > 0 && beta > 0);
    CHECK(alpha < beta); /* ids in the file's order */
    mn_buf sql = MN_BUF_INIT;
    mn_buf_printf(&sql,
                  "UPDATE edges SET dst_id = %lld WHERE kind = 'call';"
                  "UPDATE edges SET dst_id = %lld WHERE dst_name = 'a';"
                  "UPDATE edges SET dst_id = %lld WHERE dst_name = 'b'",
                  (long long)beta, (long long)a, (long long)b);
    CHECK(exec_sql(sql.ptr) == 0);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_id IS NOT NULL") == 4);

    /* the same names again: same ids; the edges into them still resolved, a.py's own
     * (written again) not yet */
    REQUIRE_OK(put(s, "a.py", "a2a2", 2, "b"));
    CHECK(symbol_id(s, "a.py", "alpha") == alpha && symbol_id(s, "a.py", "beta") == beta);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_id IS NOT NULL") == 2);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE dst_id IS NOT NULL AND src_kind = "
                    "'symbol' AND src_id IN (SELECT id FROM symbols WHERE file_id IN "
                    "(SELECT id FROM files WHERE path = 'b.py'))") == 1);
    CHECK(exec_sql(sql.ptr) == 0); /* resolved again, as the resolver would */
    mn_buf_release(&sql);

    /* lookups by name: in the order asked, each name's definitions by id */
    const char *names[] = {"beta", "nope", "alpha"};
    found f = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_symbols_named(s, names, 3, on_symbol_def, &f));
    REQUIRE(f.n == 3);
    CHECK(f.which[0] == 0 && f.id[0] == beta && !strcmp(f.path[0], "a.py"));
    CHECK(f.which[1] == 2 && f.id[1] == alpha);
    CHECK(f.which[2] == 2 && f.file[2] == b);
    found g = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_symbols_named_each(s, "alpha", on_named, &g));
    CHECK(g.n == 2 && g.id[0] == alpha && g.file[1] == b);

    /* neighbours: a.py imports b.py; b.py imports a.py and its alpha calls a.py's beta */
    found out = {{0}, {0}, {0}, {{0}}, 0}, in = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_neighbours_each(s, "file", a, false, on_neighbour, &out));
    CHECK(out.n == 1 && !strcmp(out.path[0], "import:b.py"));
    REQUIRE_OK(mn_store_neighbours_each(s, "file", a, true, on_neighbour, &in));
    CHECK(in.n == 1 && !strcmp(in.path[0], "import:b.py"));
    found callers = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_neighbours_each(s, "symbol", beta, true, on_neighbour, &callers));
    CHECK(callers.n == 2 && !strcmp(callers.path[0], "call:a.py") &&
          !strcmp(callers.path[1], "call:b.py"));
    found nb = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_file_neighbours(s, &a, 1, 0, on_file_neighbour, &nb));
    /* out: the import of b; in: b's import of a, b's call into a's beta (summed by the caller) */
    CHECK(nb.n == 3);
    for (int i = 0; i < nb.n && i < 8; i++)
        CHECK(nb.id[i] == b && nb.file[i] == a);
    found imp = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_file_imports(s, "a.py", on_id, &imp));
    CHECK(imp.n == 1 && imp.id[0] == b);

    /* by id: in the order given, unknown ids skipped */
    int64_t ids[] = {b, 999999, a};
    found byid = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_files_by_id(s, ids, 3, on_file, &byid));
    CHECK(byid.n == 2 && byid.id[0] == b && !strcmp(byid.path[1], "a.py"));
    int64_t chunk = scalar(s, "SELECT min(c.id) FROM chunks c JOIN files f ON f.id = c.file_id "
                              "WHERE f.path = 'b.py'");
    int64_t cids[] = {chunk, 999999};
    found ch = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_chunks_by_id(s, cids, 2, on_chunk, &ch));
    CHECK(ch.n == 1 && ch.file[0] == b && !strcmp(ch.path[0], "alpha"));
    char *text = NULL;
    REQUIRE_OK(mn_store_chunk_text(s, &text, chunk));
    CHECK_STR(text, "def alpha(): beta()");
    free(text);
    CHECK(mn_store_chunk_text(s, &text, 999999) == MN_ENOTFOUND);

    /* beta goes: the edges into it are unresolved, alpha keeps its id */
    mn_index_stamp st0, st1;
    REQUIRE_OK(mn_store_index_stamp(s, &st0));
    CHECK(st0.files == 2 && st0.max_file == (a > b ? a : b));
    REQUIRE_OK(put(s, "a.py", "a3a3", 1, "b"));
    CHECK(symbol_id(s, "a.py", "alpha") == alpha);
    CHECK(scalar(s, "SELECT count(*) FROM symbols WHERE name = 'beta'") == 0);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE kind = 'call' AND dst_id IS NOT NULL") == 0);
    CHECK(scalar(s, "SELECT count(*) FROM edges WHERE kind = 'call' AND dst_name = 'beta'") == 2);
    REQUIRE_OK(mn_store_index_stamp(s, &st1));
    CHECK(st1.store == st0.store && st1.files == 2 && st1.indexed_at >= st0.indexed_at);
    close_store(s);
}

/* The names a file declares: found by name, in the order asked, and replaced with the file. */
static void test_declared_names(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    mn_file_rec f = {0};
    f.path = "cli.py";
    f.role = "source";
    snprintf(f.hash, sizeof(f.hash), "c1");
    mn_decl_rec decls[] = {{12, "option", "--tb"}, {3, "env", "APP_HOME"}, {40, "option", "-x"}};
    mn_file_content c = {NULL, 0, NULL, 0, NULL, 0, decls, 3};
    REQUIRE_OK(mn_store_begin(s));
    REQUIRE_OK(mn_store_file_replace(s, &f, &c));
    REQUIRE_OK(mn_store_commit(s));
    const char *names[] = {"-x", "APP_HOME", "--nope"};
    found d = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_declared_named(s, names, 3, on_declared, &d));
    REQUIRE(d.n == 2);
    CHECK(d.which[0] == 0 && d.id[0] == 40 && !strcmp(d.path[0], "option") && d.file[0] == f.id);
    CHECK(d.which[1] == 1 && d.id[1] == 3 && !strcmp(d.path[1], "env"));
    c.ndecls = 1; /* the file again with only --tb */
    REQUIRE_OK(mn_store_begin(s));
    REQUIRE_OK(mn_store_file_replace(s, &f, &c));
    REQUIRE_OK(mn_store_commit(s));
    found e = {{0}, {0}, {0}, {{0}}, 0};
    REQUIRE_OK(mn_store_declared_named(s, names, 3, on_declared, &e));
    CHECK(e.n == 0);
    CHECK(scalar(s, "SELECT count(*) FROM declared_names") == 1);
    REQUIRE_OK(mn_store_begin(s));
    REQUIRE_OK(mn_store_file_remove(s, "cli.py"));
    REQUIRE_OK(mn_store_commit(s));
    CHECK(scalar(s, "SELECT count(*) FROM declared_names") == 0);
    close_store(s);
}

static int on_decl_only(void *payload, int64_t file_id)
{
    int64_t *got = payload;
    if (got[0] < 4)
        got[1 + got[0]] = file_id;
    got[0]++;
    return 0;
}

static int put_decl_only(mn_store *s, mn_file_rec *f, bool decl_only)
{
    mn_file_content c = {NULL, 0, NULL, 0, NULL, 0, NULL, 0};
    f->decl_only = decl_only;
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_file_replace(s, f, &c)) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

/* The files that only declare error and annotation types: written with the file, replaced
 * with it, and listed by id (schema v18). */
static void test_decl_only_files(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    mn_file_rec errs = {0}, code = {0};
    errs.path = "net/errors.py";
    code.path = "net/proxy.py";
    errs.role = code.role = "source";
    snprintf(errs.hash, sizeof(errs.hash), "e1");
    snprintf(code.hash, sizeof(code.hash), "p1");
    REQUIRE_OK(put_decl_only(s, &errs, true));
    REQUIRE_OK(put_decl_only(s, &code, false));
    int64_t got[5] = {0};
    REQUIRE_OK(mn_store_decl_only_files(s, on_decl_only, got));
    CHECK(got[0] == 1 && got[1] == errs.id);
    /* the file again, now with behaviour; the other one now without */
    REQUIRE_OK(put_decl_only(s, &errs, false));
    REQUIRE_OK(put_decl_only(s, &code, true));
    int64_t again[5] = {0};
    REQUIRE_OK(mn_store_decl_only_files(s, on_decl_only, again));
    CHECK(again[0] == 1 && again[1] == code.id);
    REQUIRE_OK(mn_store_begin(s));
    REQUIRE_OK(mn_store_file_remove(s, "net/proxy.py"));
    REQUIRE_OK(mn_store_commit(s));
    int64_t none[5] = {0};
    REQUIRE_OK(mn_store_decl_only_files(s, on_decl_only, none));
    CHECK(none[0] == 0);
    close_store(s);
}

static int add_commit(mn_store *s, const char *hash, int64_t time, const char *subject,
                      const char *const *paths, size_t n)
{
    mn_commit_rec c = {hash, time, subject, paths, n};
    return mn_store_history_add(s, &c);
}

/* The history: commits once each, documents newest first, the oldest pruned, a rename. */
static void test_history(void)
{
    mn_store *s = open_store();
    REQUIRE(s);
    char *head = NULL;
    CHECK(mn_store_history_head(s, &head) == MN_ENOTFOUND);
    const char *ab[] = {"a.py", "b.py"}, *a[] = {"a.py"}, *old[] = {"old.py"};
    REQUIRE_OK(mn_store_begin(s));
    CHECK_OK(add_commit(s, "1111", 100, "first change", ab, 2));
    CHECK_OK(add_commit(s, "2222", 200, "second change", a, 1));
    CHECK_OK(add_commit(s, "1111", 100, "first change again", old, 1)); /* stored: left */
    CHECK_OK(add_commit(s, "0000", 50, "oldest change", old, 1));
    CHECK_OK(mn_store_history_finish(s, "2222", 2)); /* the oldest goes */
    REQUIRE_OK(mn_store_commit(s));
    REQUIRE_OK(mn_store_history_head(s, &head));
    CHECK_STR(head, "2222");
    free(head);
    CHECK(scalar(s, "SELECT count(*) FROM history_commits") == 2);
    CHECK(scalar(s, "SELECT count(*) FROM history_docs") == 2);
    char *doc = test_store_sql_text(loc, "SELECT subjects FROM history_docs WHERE path = 'a.py'");
    CHECK_STR(doc, "second change\nfirst change");
    free(doc);
    REQUIRE_OK(mn_store_begin(s));
    CHECK_OK(mn_store_history_rename(s, "b.py", "a.py")); /* 1111 has both: keeps its a.py */
    CHECK_OK(mn_store_history_rename(s, "a.py", "c.py"));
    CHECK_OK(mn_store_history_finish(s, "2222", 10));
    REQUIRE_OK(mn_store_commit(s));
    CHECK(scalar(s, "SELECT count(*) FROM history_files WHERE path = 'c.py'") == 2);
    CHECK(scalar(s, "SELECT count(*) FROM history_files WHERE path = 'b.py'") == 1);
    REQUIRE_OK(mn_store_history_clear(s));
    CHECK(mn_store_history_head(s, &head) == MN_ENOTFOUND);
    CHECK(scalar(s, "SELECT count(*) FROM history_files") == 0);
    CHECK(scalar(s, "SELECT count(*) FROM history_docs") == 0);
    close_store(s);
}

MN_TEST_MAIN(MN_TEST(test_replace_and_counts), MN_TEST(test_term_files),
             MN_TEST(test_chunk_lengths_cached), MN_TEST(test_exact_pass_rank_arguments),
             MN_TEST(test_fts_tidy), MN_TEST(test_edges_into_a_removed_file_are_unresolved),
             MN_TEST(test_ranks_and_touch), MN_TEST(test_chunks_symbol_index),
             MN_TEST(test_graph_and_unresolved), MN_TEST(test_symbols_kept_and_lookups),
             MN_TEST(test_declared_names), MN_TEST(test_decl_only_files), MN_TEST(test_history))
