/*
 * gen_memory.h - realistic memories for the benches, generated from a fixed
 * seed: memory i is always the same text (one independent stream per
 * index), so a bench and its baseline get the same input without keeping
 * it all in memory. Titles, 200-600 character bodies made of an engineering
 * vocabulary with identifiers mixed in, situation, solution, 3-6 trigger
 * keywords, 1-3 tags and 1-2 paths.
 */
#ifndef MN_BENCH_GEN_MEMORY_H
#define MN_BENCH_GEN_MEMORY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define GEN_SEED 0x6d6e656d6f2d6231ULL

typedef struct {
    const char *kind;
    mn_buf title, body, situation, solution, session;
    const char *keywords[6];
    size_t nkeywords;
    const char *tags[3];
    size_t ntags;
    mn_buf paths[2];
    size_t npaths;
    mn_buf keywords_json, tags_json, paths_json; /* for the baseline's TEXT columns */
} memory_text;

/** A fresh 64-bit value from the stream *s (splitmix64). */
uint64_t gen_splitmix(uint64_t *s);
/** A value in [0, n). */
size_t gen_pick(uint64_t *s, size_t n);
/** Sentences of the vocabulary until b grew by at least len bytes. */
void gen_put_text(mn_buf *b, uint64_t *s, size_t len);
/** Fill m with memory number index (release what it held). */
void memory_text_make(memory_text *m, size_t index);
void memory_text_release(memory_text *m);
/** The memory as `save` input (new reference). */
json_t *memory_text_json(const memory_text *m);

#endif
