/*
 * vector_file.h - a model's vectors of one kind, kept in a file beside the
 * store so that another process maps them instead of reading every row
 * (vector_file.c says why and how it stays right).
 */
#ifndef MN_SQLITE_VECTOR_FILE_H
#define MN_SQLITE_VECTOR_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a file must match to be used: the set vector_store.c would load. */
typedef struct {
    const char *db_path;
    int64_t project;
    const char *kind; /* memory, chunk */
    const char *model, *nonce;
    int64_t epoch;
    size_t dim, stride;
} mn_vfile_key;

typedef struct {
    void *map;
    size_t len;
    size_t n;
    const int64_t *ids;
    const float *scales;
    const int8_t *data;
} mn_vfile;

/* Map the file of key; 0 when it is there and matches, else nonzero (no error set). */
int mn_vfile_open(mn_vfile *out, const mn_vfile_key *key);
void mn_vfile_close(mn_vfile *f);

/* Write it (best effort: a failure only costs the next process a read of the rows). */
void mn_vfile_write(const mn_vfile_key *key, size_t n, const int64_t *ids, const float *scales,
                    const int8_t *data);

/*
 * Write a file beside the store (a cache another process reads) through a
 * temporary name and a rename, so a reader sees the old file or the new
 * one, never half of one. false (errno set) when it could not.
 */
bool mn_sidecar_write(const char *path, const void *data, size_t len);

struct stat;
/* A side file read (fd, its fstat) loses group and other access when the user owns it. */
void mn_sidecar_make_private(int fd, const struct stat *st);

#endif
