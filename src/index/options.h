/*
 * options.h - the names a program declares for its users: command-line
 * options ("--tb", "-x"), environment variables it reads ("PYTEST_ADDOPTS")
 * and configuration keys it declares ("testpaths"). People write these in
 * issues; the index keeps where each is declared (store table
 * declared_names, schema v14) so that a query naming one finds the files
 * that declare it (retrieve/graph.c). options.c says what is recognised in
 * each language.
 */
#ifndef MN_INDEX_OPTIONS_H
#define MN_INDEX_OPTIONS_H

#include <stddef.h>

#include "store/store_index.h"
#include "util/arena.h"
#include "util/vec.h"

typedef MN_VEC(mn_decl_rec) mn_decl_vec;

/* At most this many declarations are kept per file (a generated table of
 * thousands of flags says no more than its first ones). */
#define MN_OPTIONS_MAX_PER_FILE 512

/**
 * The declarations of one file's source, appended to out in source order
 * (a name declared twice in the file is kept once, at its first line);
 * strings live in arena, kinds are the static "option", "env", "config".
 * language: a name mn_classify gives; a language with no rules adds
 * nothing. src need not be NUL-terminated.
 */
void mn_options_extract(const char *language, const char *src, size_t len, mn_arena *arena,
                        mn_decl_vec *out);

#endif
