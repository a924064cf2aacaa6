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

/**
 * Read the lengths of every row of an FTS5 table from its docsize table
 * (docsize: its name, a constant) into *out, the array malloc'd in *ntok
 * (the caller frees it). A row of more than 65,535 tokens is left 0, for
 * mnemo_bm25 to read there. *ntok NULL: the table is empty, or its row ids
 * span max_span or more. Returns SQLITE_OK or SQLite's error code.
 */
int mn_fts_read_doc_sizes(sqlite3 *db, const char *docsize, uint64_t max_span, uint16_t **ntok,
                          mn_fts_doc_sizes *out);

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
