/*
 * chunk_files.h - which file a code chunk belongs to, from memory
 * (chunk_files.c): for reading a word's posting list as files.
 */
#ifndef MN_SQLITE_CHUNK_FILES_H
#define MN_SQLITE_CHUNK_FILES_H

#include <stdint.h>

#include "store/store.h"
#include "store/sqlite/sqlite_internal.h"

typedef struct mn_chunk_files mn_chunk_files;

/*
 * The map of the store's project, built or shared; (top, ndocs) the chunk
 * index's highest row id and number of rows now, path_hash the store
 * file's. Release it with mn_chunk_files_release.
 */
int mn_chunk_files_get(mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs,
                       mn_chunk_files **out);
void mn_chunk_files_release(mn_chunk_files *m);

/* The file of a chunk, 0 when it is none of the project's files. */
int64_t mn_chunk_files_file(const mn_chunk_files *m, int64_t chunk);

#endif
