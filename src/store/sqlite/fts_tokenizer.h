/*
 * fts_tokenizer.h - the mnemo tokenizer (src/text/tokenize.h) inside SQLite FTS5.
 *
 * After mn_sqlite_fts_register(db), a table declared
 *     CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize = 'mnemo');
 * indexes with mn_tokenize: code-aware splitting, the whole identifier as a
 * colocated token, Snowball stems, stop words dropped. Arguments after the
 * name: `nostem` (no stemming), `stopwords` (keep stop words), `lang <code>`
 * (en, ru, fr, de, es: fix the language instead of detecting it per value).
 * Queries are tokenized the same way (FTS5_TOKENIZE_QUERY -> MN_TOK_QUERY)
 * except that wholes are not emitted: a bareword of several pieces
 * (parseHttpHeader) is the phrase of its pieces, which every spelling of that
 * identifier matches, while a lower-case run (parsehttpheader) meets the
 * indexed whole.
 */
#ifndef MN_SQLITE_FTS_TOKENIZER_H
#define MN_SQLITE_FTS_TOKENIZER_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/**
 * Register the FTS5 tokenizer "mnemo" on db (once per connection, before any
 * table using it is read or written). Returns 0, or MN_ERROR when the SQLite
 * library has no FTS5.
 */
int mn_sqlite_fts_register(sqlite3 *db);

/*
 * The lengths in tokens (all columns) of a table's rows first .. first+n-1,
 * 0 where unknown, for mnemo_bm25's optional last argument: bound with
 * sqlite3_bind_pointer(st, i, sizes, MN_FTS_DOC_SIZES, NULL), it replaces
 * FTS5's read of the docsize table for each row ranked (a B-tree seek per
 * row: a quarter of ranking 12,000 chunks).
 */
#define MN_FTS_DOC_SIZES "mnemo_doc_sizes"
typedef struct {
    int64_t first;
    size_t n;
    const uint16_t *ntok;
} mn_fts_doc_sizes;

/** The tokens of a row, all columns: the sum of its docsize record (one SQLite varint each). */
uint64_t mn_fts_docsize_total(const unsigned char *p, int len);

/* Flags of mn_sqlite_fts_query. */
/** Join terms with AND instead of OR. */
#define MN_FTS_QUERY_AND 0x1u

/**
 * Append to out an FTS5 MATCH expression for free text (a question, a
 * problem statement): one quoted term per word of the text, in the order met,
 * stop words and repeats left out, joined by OR (or AND). A word of several
 * pieces (parse_http_header, parseHttpHeader) becomes
 * ("parse_http_header" OR "parsehttpheader"): the phrase of its pieces or the
 * indexed whole. Terms are the surface forms, re-tokenized by FTS5, so the
 * stems are computed once, by the tokenizer. At most max_terms terms
 * (0: no limit). Returns the number of terms appended (0: nothing to search
 * for; out is then unchanged).
 */
size_t mn_sqlite_fts_query(mn_buf *out, const char *text, size_t len, unsigned flags,
                           size_t max_terms);

#endif
