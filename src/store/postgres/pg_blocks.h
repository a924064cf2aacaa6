/*
 * pg_blocks.h - the full-text postings of the PostgreSQL back end in
 * compact blocks (fts_blocks, schema_v4.sql), and the tail of postings
 * (fts_postings) folded into them (pg_blocks.c).
 *
 * A block holds the postings of one term for up to MN_PG_BLOCK_DOCS rows:
 * entries in (row id, field) order, each
 *   varint  row id: the first entry's zigzag-encoded, then the difference
 *           from the entry before (0: another field of the same row)
 *   varint  ntok, varint flags   (only on a row's first entry)
 *   varint  field, varint tf
 *   tf varints: the positions, each the difference from the one before
 *           (the first as it is)
 * tf is the count of positions, as in fts_postings.
 */
#ifndef MN_PG_BLOCKS_H
#define MN_PG_BLOCKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "store/store_search.h"
#include "util/buf.h"

#define MN_PG_BLOCK_DOCS 128   /* rows of a block (a fold fills blocks to this) */
#define MN_PG_FOLD_AT    20000 /* tail postings of a project's table that make a writer fold */

/* One posting: a term's (row, field), its positions in a caller's pool [pos, pos + tf). */
typedef struct {
    int64_t rowid;
    int32_t field, tf, ntok, flags;
    uint32_t pos;
} mn_pg_block_ent;

/* Reading a block's entries in order: init, then next until it returns false (bad: the
 * bytes were malformed; what was read before stands). */
typedef struct {
    const unsigned char *p, *end;
    int64_t rowid;
    int32_t ntok, flags, field, tf;
    const unsigned char *pos; /* the entry's positions */
    bool started, bad;
} mn_pg_block_it;

void mn_pg__block_init(mn_pg_block_it *it, const unsigned char *data, size_t n);
bool mn_pg__block_next(mn_pg_block_it *it);
/* The current entry's tf positions into out. */
void mn_pg__block_positions(const mn_pg_block_it *it, int32_t *out);
/* Entries e[0..n) (sorted by row id then field, each pair once; positions in pool) appended
 * to b as a block. */
void mn_pg__block_encode(mn_buf *b, const mn_pg_block_ent *e, size_t n, const int32_t *pool);

/*
 * Fold the tail of this project's table into its blocks, all of it (the
 * writers fold when fts_stats.tail passes MN_PG_FOLD_AT). Needs a write
 * transaction; takes the project's lock.
 */
int mn_pg__blocks_fold(mn_store *s, mn_fts_table table);
/* The postings of rows rowids[0..n) out of the blocks holding them: pairs (terms[i],
 * rows[i]), i < npairs, name which term's blocks hold which row. Needs a write transaction. */
int mn_pg__blocks_del(mn_store *s, mn_fts_table table, char *const *terms, const int64_t *rows,
                      size_t npairs, const int64_t *rowids, size_t n);
/* At a writable open: every project's tail over the bound folded (a store of schema 3
 * keeps all its postings in the tail), each project in a transaction of its own. */
int mn_pg__blocks_check(mn_store *s);

#endif
