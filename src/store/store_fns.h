/*
 * store_fns.h - the one list of store functions a back end implements.
 *
 * Each X(name, params, args) is one function of store.h and store_*.h,
 * `int mn_store_<name> params`, a 0-or-negative-code function whose first
 * parameter is the store. The list generates, from this one place:
 * - the members of mn_store_backend (store_backend.h), one pointer each;
 * - the public wrappers (store.c), which dispatch s->backend-><name>(args)
 *   and, when a back end leaves it NULL, fail with MN_EUNSUPPORTED naming
 *   the back end and the function;
 * - the declarations of a back end's implementations
 *   (MN_STORE_BACKEND_DECLARE in store_backend.h).
 * The compiler holds this list and the documented prototypes in the headers
 * to one signature: a wrapper whose parameters differ from its header's
 * prototype does not compile. Adding a store function is one prototype in
 * its header, one line here, and its implementation in each back end that
 * has it (a back end without it leaves the slot NULL).
 *
 * Not in the list: opening, closing and rolling back (mandatory members of
 * mn_store_backend), what the common head answers (mn_store_path,
 * mn_store_read_only_reason, mn_store_read_only, mn_store_schema_version),
 * and the functions that take no store (mn_store_schema_latest,
 * mn_store_content_hash, mn_store_fts_query...), which stay plain.
 * Macro arguments keep their commas inside parentheses, so a parameter that
 * is a function pointer needs nothing special.
 */
#ifndef MN_STORE_FNS_H
#define MN_STORE_FNS_H

/* clang-format off */
#define MN_STORE_FUNCTIONS(X) \
    /* store.h */ \
    X(begin, (mn_store *s), (s)) \
    X(begin_read, (mn_store *s), (s)) \
    X(begin_log, (mn_store *s), (s)) \
    X(commit, (mn_store *s), (s)) \
    X(check, (mn_store *s), (s)) \
    X(map_set, (mn_store *s, bool on), (s, on)) \
    X(memory_insert, (mn_store *s, const json_t *mem), (s, mem)) \
    X(memory_replace, (mn_store *s, const json_t *mem), (s, mem)) \
    X(memory_get, (mn_store *s, json_t **out, const char *id), (s, out, id)) \
    X(memory_resolve, (mn_store *s, char out[MN_ID_LEN + 1], const char *prefix), (s, out, prefix)) \
    X(memory_find_hash, (mn_store *s, char out[MN_ID_LEN + 1], const char *hash), (s, out, hash)) \
    X(memory_neighbours, (mn_store *s, const mn_fingerprint *fp, size_t limit, int (*cb)(void *payload, const mn_memory_neighbour *n), void *payload), (s, fp, limit, cb, payload)) \
    X(memory_list, (mn_store *s, const mn_memory_filter *f, int (*cb)(void *payload, json_t *mem), void *payload), (s, f, cb, payload)) \
    X(memory_count, (mn_store *s, const mn_memory_filter *f, int64_t *out), (s, f, out)) \
    X(memory_set_deleted, (mn_store *s, const char *id, int64_t ms), (s, id, ms)) \
    X(memory_purge, (mn_store *s, const char *id), (s, id)) \
    X(memory_backlinks, (mn_store *s, json_t **out, const char *id), (s, out, id)) \
    X(link_add, (mn_store *s, const char *from, const char *kind, const char *to, const char *note, int64_t created_at), (s, from, kind, to, note, created_at)) \
    X(link_remove, (mn_store *s, const char *from, const char *kind, const char *to), (s, from, kind, to)) \
    X(config_get, (mn_store *s, char **out, const char *key), (s, out, key)) \
    X(config_set, (mn_store *s, const char *key, const char *value), (s, key, value)) \
    X(config_all, (mn_store *s, json_t **out), (s, out)) \
    X(audit, (mn_store *s, const char *actor, const char *action, const char *target, const json_t *detail), (s, actor, action, target, detail)) \
    X(audit_list, (mn_store *s, const mn_audit_filter *f, json_t **rows, int64_t *total), (s, f, rows, total)) \
    X(audit_prune_reads, (mn_store *s, int64_t now_ms, int64_t max_age_ms, int64_t max_rows, int64_t added), (s, now_ms, max_age_ms, max_rows, added)) \
    /* store_migrate.h */ \
    X(projects_each, (mn_store *s, int (*cb)(void *payload, const mn_project_row *p), void *payload), (s, cb, payload)) \
    X(audit_put, (mn_store *s, int64_t ts, const char *actor, const char *action, const char *target, const json_t *detail), (s, ts, actor, action, target, detail)) \
    X(stream, (mn_store *s), (s)) \
    /* store_index.h */ \
    X(file_lookup, (mn_store *s, int64_t *id, char hash[MN_HASH_HEX], const char *path), (s, id, hash, path)) \
    X(file_replace, (mn_store *s, mn_file_rec *f, const mn_file_content *c), (s, f, c)) \
    X(file_touch, (mn_store *s, int64_t id, int64_t size, int64_t mtime_ms), (s, id, size, mtime_ms)) \
    X(file_remove, (mn_store *s, const char *path), (s, path)) \
    X(files_each, (mn_store *s, const char *glob, int (*cb)(void *payload, const mn_file_rec *f), void *payload), (s, glob, cb, payload)) \
    X(declared_named, (mn_store *s, const char *const *names, size_t n, int (*cb)(void *payload, size_t which, const mn_declared_def *d), void *payload), (s, names, n, cb, payload)) \
    X(index_counts, (mn_store *s, mn_index_counts *out), (s, out)) \
    X(edges_unresolved_each, (mn_store *s, int (*cb)(void *payload, const mn_edge_rec *e), void *payload), (s, cb, payload)) \
    X(edges_each, (mn_store *s, const mn_edge_query *q, int (*cb)(void *payload, const mn_edge_rec *e), void *payload), (s, q, cb, payload)) \
    X(edge_resolve, (mn_store *s, int64_t edge_id, int64_t dst_id), (s, edge_id, dst_id)) \
    X(symbols_named_each, (mn_store *s, const char *name, int (*cb)(void *payload, int64_t id, int64_t file_id), void *payload), (s, name, cb, payload)) \
    X(file_symbol_names_each, (mn_store *s, int64_t file_id, int (*cb)(void *payload, const char *name, const char *qualified_name), void *payload), (s, file_id, cb, payload)) \
    X(file_incoming_each, (mn_store *s, int64_t file_id, int (*cb)(void *payload, int64_t edge_id, const char *qualified_name), void *payload), (s, file_id, cb, payload)) \
    X(symbols_each, (mn_store *s, const char *name, int (*cb)(void *payload, const mn_symbol_row *y), void *payload), (s, name, cb, payload)) \
    X(graph_each, (mn_store *s, const char *level, int (*cb)(void *payload, int64_t src, int64_t dst, double weight), void *payload), (s, level, cb, payload)) \
    X(node_ids_each, (mn_store *s, const char *level, int (*cb)(void *payload, int64_t id), void *payload), (s, level, cb, payload)) \
    X(neighbours_each, (mn_store *s, const char *level, int64_t id, bool incoming, int (*cb)(void *payload, const mn_neighbour *n), void *payload), (s, level, id, incoming, cb, payload)) \
    X(set_rank, (mn_store *s, const char *kind, int64_t id, double rank), (s, kind, id, rank)) \
    X(code_fts_optimize, (mn_store *s), (s)) \
    X(history_head, (mn_store *s, char **out), (s, out)) \
    X(history_add, (mn_store *s, const mn_commit_rec *c), (s, c)) \
    X(history_finish, (mn_store *s, const char *head, size_t keep), (s, head, keep)) \
    X(history_clear, (mn_store *s), (s)) \
    X(history_rename, (mn_store *s, const char *from, const char *to), (s, from, to)) \
    /* store_ingest.h */ \
    X(git_commit_claim, (mn_store *s, const char *sha, int64_t stale_ms, bool *claimed), (s, sha, stale_ms, claimed)) \
    X(git_commit_unclaim, (mn_store *s, const char *sha), (s, sha)) \
    X(git_commit_finish, (mn_store *s, const mn_git_commit_rec *c), (s, c)) \
    X(git_commits_done_each, (mn_store *s, int (*cb)(void *payload, const char *sha), void *payload), (s, cb, payload)) \
    X(git_commit_counts, (mn_store *s, int64_t *done, int64_t *claimed, char **newest), (s, done, claimed, newest)) \
    X(git_commit_get, (mn_store *s, const char *sha, json_t **out), (s, sha, out)) \
    X(git_commits_for_path, (mn_store *s, const char *path, size_t limit, int (*cb)(void *payload, const char *sha, int64_t time_ms), void *payload), (s, path, limit, cb, payload)) \
    X(ingest_key_get, (mn_store *s, const char *key, char uid[27], char **hash), (s, key, uid, hash)) \
    X(ingest_key_set, (mn_store *s, const char *key, const char *uid, const char *hash), (s, key, uid, hash)) \
    X(ingest_key_del, (mn_store *s, const char *key), (s, key)) \
    X(ingest_keys_each, (mn_store *s, const char *prefix, int (*cb)(void *payload, const char *key, const char *uid), void *payload), (s, prefix, cb, payload)) \
    X(task_upsert, (mn_store *s, const mn_task_rec *t, bool *changed), (s, t, changed)) \
    X(task_get, (mn_store *s, const char *external_id, json_t **out), (s, external_id, out)) \
    X(task_link, (mn_store *s, const char *task_key, const char *ref, const char *kind), (s, task_key, ref, kind)) \
    X(task_links, (mn_store *s, const char *task_key, json_t **out), (s, task_key, out)) \
    X(task_links_of, (mn_store *s, const char *ref, json_t **out), (s, ref, out)) \
    X(doc_upsert, (mn_store *s, const mn_doc_rec *d), (s, d)) \
    X(doc_find, (mn_store *s, const char *path, const char *url, const char *title, json_t **out), (s, path, url, title, out)) \
    X(ancestry_get, (mn_store *s, const char *head, const char *const *shas, size_t n, int (*cb)(void *payload, const char *sha, bool merged), void *payload), (s, head, shas, n, cb, payload)) \
    X(ancestry_put, (mn_store *s, const char *head, const char *sha, bool merged), (s, head, sha, merged)) \
    X(ancestry_heads, (mn_store *s, size_t max, int (*cb)(void *payload, const char *head), void *payload), (s, max, cb, payload)) \
    X(ancestry_inherit, (mn_store *s, const char *from, const char *to), (s, from, to)) \
    X(ancestry_prune, (mn_store *s, size_t keep), (s, keep)) \
    X(memories_origin, (mn_store *s, const int64_t *rowids, size_t n, int (*cb)(void *payload, int64_t rowid, const char *branch, const char *commit), void *payload), (s, rowids, n, cb, payload)) \
    X(memory_commits_each, (mn_store *s, int (*cb)(void *payload, const char *sha), void *payload), (s, cb, payload)) \
    X(blame_get, (mn_store *s, const char *path, const char *blob, int64_t first, int64_t last, char **hunks_json), (s, path, blob, first, last, hunks_json)) \
    X(blame_put, (mn_store *s, const char *path, const char *blob, int64_t first, int64_t last, const char *hunks_json), (s, path, blob, first, last, hunks_json)) \
    X(memories_linked_to, (mn_store *s, const char *ref, size_t limit, int (*cb)(void *payload, const char *uid), void *payload), (s, ref, limit, cb, payload)) \
    /* store_life.h */ \
    X(cite_dirty_any, (mn_store *s, bool *out), (s, out)) \
    X(cite_dirty_each, (mn_store *s, size_t limit, mn_cite_cb cb, void *payload), (s, limit, cb, payload)) \
    X(cite_of_memory, (mn_store *s, const char *memory_id, mn_cite_cb cb, void *payload), (s, memory_id, cb, payload)) \
    X(cite_set, (mn_store *s, const mn_cite_rec *c), (s, c)) \
    X(cite_delete, (mn_store *s, int64_t id), (s, id)) \
    X(cite_stale_memories, (mn_store *s, size_t limit, size_t offset, int (*cb)(void *payload, const char *memory_id), void *payload, int64_t *total), (s, limit, offset, cb, payload, total)) \
    X(cite_symbols, (mn_store *s, const char *name, const char *path, const char *hash, mn_cite_symbol_cb cb, void *payload), (s, name, path, hash, cb, payload)) \
    X(cite_symbols_since, (mn_store *s, int64_t since_ms, const char *kind, int64_t lines, size_t limit, mn_cite_symbol_cb cb, void *payload), (s, since_ms, kind, lines, limit, cb, payload)) \
    X(cite_chunks, (mn_store *s, int64_t file_id, int64_t start, int64_t end, int (*cb)(void *payload, int64_t start_line, const char *text, size_t len), void *payload), (s, file_id, start, end, cb, payload)) \
    X(cite_files_with_hash, (mn_store *s, const char *hash, int (*cb)(void *payload, const char *path), void *payload), (s, hash, cb, payload)) \
    X(memory_set_status, (mn_store *s, const char *id, const char *status, int64_t ms), (s, id, status, ms)) \
    X(life_each, (mn_store *s, mn_life_set set, const mn_expiry *e, int64_t before, int (*cb)(void *payload, const mn_life_row *r), void *payload), (s, set, e, before, cb, payload)) \
    /* store_review.h */ \
    X(fingerprints_each, (mn_store *s, const mn_fingerprint_filter *f, int (*cb)(void *payload, const char *uid, const mn_fingerprint *fp), void *payload), (s, f, cb, payload)) \
    /* store_scan.h */ \
    X(texts_each, (mn_store *s, int (*cb)(void *payload, const mn_text_cell *c, const char *text, size_t len, char **replace), void *payload), (s, cb, payload)) \
    X(purge_freed, (mn_store *s), (s)) \
    /* store_search.h */ \
    X(fts_count, (mn_store *s, mn_fts_table table, const char *match, int64_t *count, int64_t *ndocs), (s, table, match, count, ndocs)) \
    X(fts_tidy, (mn_store *s, mn_fts_table table, bool *rebuilt), (s, table, rebuilt)) \
    X(memory_sizes_prepare, (mn_store *s), (s)) \
    X(search_memories, (mn_store *s, const mn_memory_query *q, mn_memory_hit_cb cb, void *payload), (s, q, cb, payload)) \
    X(conversation_counts, (mn_store *s, const mn_memory_query *q, int (*cb)(void *payload, const char *conversation, int64_t n), void *payload), (s, q, cb, payload)) \
    X(memories_at_paths, (mn_store *s, const mn_memory_query *q, const char *const *paths, size_t npaths, mn_memory_hit_cb cb, void *payload), (s, q, paths, npaths, cb, payload)) \
    X(memories_created, (mn_store *s, const mn_memory_query *q, int64_t from_ms, int64_t to_ms, mn_memory_hit_cb cb, void *payload), (s, q, from_ms, to_ms, cb, payload)) \
    X(memories_by_rowid, (mn_store *s, const mn_memory_query *q, const int64_t *rowids, size_t n, mn_memory_hit_cb cb, void *payload), (s, q, rowids, n, cb, payload)) \
    X(episode_neighbours, (mn_store *s, const mn_memory_query *q, int64_t rowid, int span, mn_memory_hit_cb cb, void *payload), (s, q, rowid, span, cb, payload)) \
    X(memories_by_uid, (mn_store *s, const char *const *uids, size_t n, mn_memory_hit_cb cb, void *payload), (s, uids, n, cb, payload)) \
    X(search_chunks, (mn_store *s, const mn_chunk_query *q, mn_chunk_hit_cb cb, void *payload), (s, q, cb, payload)) \
    X(chunk_df, (mn_store *s, const char *const *terms, size_t n, int64_t *df, int64_t *ndocs), (s, terms, n, df, ndocs)) \
    X(term_files, (mn_store *s, const char *match, size_t limit, int (*cb)(void *payload, int64_t file_id, int64_t count), void *payload), (s, match, limit, cb, payload)) \
    X(search_files, (mn_store *s, const char *match, size_t limit, int (*cb)(void *payload, const mn_file_hit *h), void *payload), (s, match, limit, cb, payload)) \
    X(history_files, (mn_store *s, const char *match, size_t limit, int (*cb)(void *payload, const mn_file_hit *h), void *payload), (s, match, limit, cb, payload)) \
    X(decl_only_files, (mn_store *s, int (*cb)(void *payload, int64_t file_id), void *payload), (s, cb, payload)) \
    X(chunks_by_id, (mn_store *s, const int64_t *ids, size_t n, mn_chunk_hit_cb cb, void *payload), (s, ids, n, cb, payload)) \
    X(memory_body, (mn_store *s, char **out, int64_t rowid), (s, out, rowid)) \
    X(chunk_text, (mn_store *s, char **out, int64_t chunk_id), (s, out, chunk_id)) \
    X(symbols_named, (mn_store *s, const char *const *names, size_t n, int (*cb)(void *payload, size_t which, const mn_symbol_def *d), void *payload), (s, names, n, cb, payload)) \
    X(file_neighbours, (mn_store *s, const int64_t *files, size_t n, size_t limit, int (*cb)(void *payload, int64_t seed, int64_t other, double weight, bool outgoing), void *payload), (s, files, n, limit, cb, payload)) \
    X(index_stamp, (mn_store *s, mn_index_stamp *out), (s, out)) \
    X(token_add, (mn_store *s, const mn_token *t, const char *hash_hex, int64_t *id), (s, t, hash_hex, id)) \
    X(token_find, (mn_store *s, const char *hash_hex, mn_token *out, char stored_hash[65]), (s, hash_hex, out, stored_hash)) \
    X(token_list, (mn_store *s, mn_token **out, size_t *n), (s, out, n)) \
    X(token_revoke, (mn_store *s, const char *which, int64_t now_ms, mn_token *out), (s, which, now_ms, out)) \
    X(token_touch, (mn_store *s, int64_t id, int64_t now_ms), (s, id, now_ms)) \
    X(files_by_id, (mn_store *s, const int64_t *ids, size_t n, int (*cb)(void *payload, const mn_file_rec *f), void *payload), (s, ids, n, cb, payload)) \
    X(file_imports, (mn_store *s, const char *path, int (*cb)(void *payload, int64_t file_id), void *payload), (s, path, cb, payload)) \
    X(served_add, (mn_store *s, int64_t *out, const char *op, const char *query, const json_t *items), (s, out, op, query, items)) \
    X(served_prune, (mn_store *s, int64_t now_ms, int64_t max_age_ms, int64_t max_rows, int64_t added), (s, now_ms, max_age_ms, max_rows, added)) \
    X(served_get, (mn_store *s, json_t **out, int64_t id), (s, out, id)) \
    X(served_set_session, (mn_store *s, int64_t id, const char *session), (s, id, session)) \
    X(served_session_seen, (mn_store *s, const char *session, const char *op, bool *out), (s, session, op, out)) \
    X(served_open, (mn_store *s, const char *session, int (*cb)(void *payload, json_t *a), void *payload), (s, session, cb, payload)) \
    X(served_recent, (mn_store *s, size_t limit, int (*cb)(void *payload, json_t *a), void *payload), (s, limit, cb, payload)) \
    X(served_settle, (mn_store *s, int64_t id, int64_t now_ms), (s, id, now_ms)) \
    X(feedback_has, (mn_store *s, int64_t served_id, const char *item_kind, const char *item_id, bool *out), (s, served_id, item_kind, item_id, out)) \
    X(feedback_add, (mn_store *s, int64_t served_id, const char *actor, const char *item_kind, const char *item_id, const char *signal, const char *note, const char *session, const char *query), (s, served_id, actor, item_kind, item_id, signal, note, session, query)) \
    X(memories_touch, (mn_store *s, const int64_t *rowids, size_t n, int64_t now_ms), (s, rowids, n, now_ms)) \
    /* store_terms.h */ \
    X(chunk_count, (mn_store *s, int64_t *out), (s, out)) \
    X(chunk_term_df, (mn_store *s, const char *term, size_t len, int64_t *out), (s, term, len, out)) \
    /* store_vector.h */ \
    X(embed_model_put, (mn_store *s, const mn_embed_model_rec *m), (s, m)) \
    X(embed_model_get, (mn_store *s, const char *model, mn_embed_model_rec *out), (s, model, out)) \
    X(embed_models_each, (mn_store *s, const char *prefix, int (*cb)(void *payload, const mn_embed_model_rec *m), void *payload), (s, prefix, cb, payload)) \
    X(embed_models_drop, (mn_store *s, const char *keep, int64_t *vectors), (s, keep, vectors)) \
    X(embed_model_synced, (mn_store *s, const char *model, int64_t epoch), (s, model, epoch)) \
    X(embed_corpus_epoch, (mn_store *s, int64_t *out), (s, out)) \
    X(embed_chunks_current, (mn_store *s, const char *model, bool *current), (s, model, current)) \
    X(vector_put, (mn_store *s, const char *owner_kind, int64_t owner_id, const char *model, const int8_t *q, size_t dim, float scale), (s, owner_kind, owner_id, model, q, dim, scale)) \
    X(vector_get, (mn_store *s, const char *owner_kind, int64_t owner_id, const char *model, int8_t **out, size_t *dim, float *scale), (s, owner_kind, owner_id, model, out, dim, scale)) \
    X(vectors_load, (mn_store *s, const char *model, const char *owner_kind, const mn_vector_set **out), (s, model, owner_kind, out)) \
    X(vector_search, (mn_store *s, const char **out), (s, out)) \
    X(vectors_count, (mn_store *s, const char *model, const char *owner_kind, int64_t *have, int64_t *missing), (s, model, owner_kind, have, missing)) \
    X(vectors_missing, (mn_store *s, const char *model, const char *owner_kind, size_t limit, int (*cb)(void *payload, int64_t owner_id, const char *text, size_t len), void *payload), (s, model, owner_kind, limit, cb, payload)) \
    X(vectors_gc, (mn_store *s, int64_t *removed), (s, removed)) \
    X(vectors_keep, (mn_store *s, const char *model), (s, model)) \
    X(embed_corpus_count, (mn_store *s, int64_t *out), (s, out)) \
    X(embed_corpus_each, (mn_store *s, int (*cb)(void *payload, const mn_embed_doc *d), void *payload), (s, cb, payload)) \
    X(embed_term_put, (mn_store *s, const char *model, const char *term, size_t len, double idf, const int8_t *q, size_t dim, float scale), (s, model, term, len, idf, q, dim, scale)) \
    X(embed_terms_get, (mn_store *s, const char *model, const char *const *terms, size_t n, int (*cb)(void *payload, size_t which, double idf, const int8_t *q, size_t qlen, float scale), void *payload), (s, model, terms, n, cb, payload)) \
    X(embed_terms_each, (mn_store *s, const char *model, int (*cb)(void *payload, const char *term, size_t len, double idf, const int8_t *q, size_t qlen, float scale), void *payload), (s, model, cb, payload))
/* clang-format on */

#endif
