/*
 * grammars.h - the tree-sitter grammars compiled into mnemo.
 *
 * The list comes from one place, the mn_add_grammar() lines of
 * cmake/treesitter.cmake (pinned in deps/npm.lock); the table itself is
 * generated at configure time (generated/grammars_table.c, library
 * mnemo_grammars). A grammar's name is that of its exported function without
 * tree_sitter_: "python", "tsx", "cpp", "c_sharp", "markdown"...
 *
 * tags_query is the grammar's queries/tags.scm text, embedded in the binary
 * (typescript's and tsx's are followed by javascript's, as upstream
 * intends), or NULL when the grammar ships none (bash, markdown). Its
 * captures follow tree-sitter's tagging convention: @name with
 * @definition.<kind> or @reference.<kind>, plus @doc. The tree-sitter C
 * runtime does not evaluate predicates (#eq?, #match?, #not-match?,
 * #strip!, #select-adjacent!...): ts_query_new accepts them, and a caller
 * that cares applies them through ts_query_predicates_for_pattern.
 */
#ifndef MN_INDEX_GRAMMARS_H
#define MN_INDEX_GRAMMARS_H

#include <stddef.h>

#include <tree_sitter/api.h>

typedef struct {
    const char *name;
    const TSLanguage *(*language)(void);
    const char *tags_query; /* NULL if none */
} mn_grammar;

/* The grammar called `name`, or NULL if mnemo has none by that name. */
const mn_grammar *mn_grammar_find(const char *name);

/* All grammars, in the order cmake/treesitter.cmake adds them; *count is set
 * to their number. The array is static: never freed. */
const mn_grammar *mn_grammars(size_t *count);

#endif
