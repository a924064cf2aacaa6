/*
 * store_scan.h - every text the store holds, for `mnemo scan` (api/op_scan.c):
 * find what a rule would redact today in rows written before the rule
 * existed, rewrite it in place, and leave no copy of the old text in the
 * store's files.
 *
 * Memories are not here: they are read and rewritten whole through
 * mn_store_memory_list / mn_store_memory_replace, so that their content
 * hash and full-text rows follow.
 */
#ifndef MN_STORE_SCAN_H
#define MN_STORE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One stored text: which table and column, and the row. */
typedef struct {
    const char *table, *column;
    int64_t row;
} mn_text_cell;

/*
 * Call cb with every non-empty text of the store outside the memories table:
 * code chunks, symbols' signatures and docstrings, commit subjects and the
 * per-file documents made of them, served queries, audit details, links'
 * notes, tasks, documents and dialogs' summaries (of every project in the
 * file). When cb sets *replace (a malloc'd string; the store frees it), the
 * cell is rewritten after the table's pass. Needs a transaction.
 */
int mn_store_texts_each(mn_store *s,
                        int (*cb)(void *payload, const mn_text_cell *c, const char *text,
                                  size_t len, char **replace),
                        void *payload);

/*
 * After texts were rewritten: every full-text index rebuilt from its
 * content and merged into one segment, the file vacuumed with secure_delete
 * on (freed pages zeroed) and the WAL checkpointed and truncated, so no
 * byte of an old text is left in the store's files. Outside a transaction;
 * takes as long as a VACUUM of the whole file.
 */
int mn_store_purge_freed(mn_store *s);

#endif
