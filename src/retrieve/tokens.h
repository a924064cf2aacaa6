/*
 * tokens.h - a conservative count of the tokens a text costs a model.
 *
 * `context` promises never to exceed its budget (max_tokens), and the
 * models it feeds count with their own BPE vocabularies (cl100k_base and
 * its kind), which mnemo does not ship. So it counts an upper bound instead
 * of the exact figure, cheaply, from the shape of the text; see tokens.c
 * for the rules. tests/integration/token_bound.sh checks the bound against
 * cl100k_base (js-tiktoken) over this repository's files and the texts
 * `context` produces.
 */
#ifndef MN_RETRIEVE_TOKENS_H
#define MN_RETRIEVE_TOKENS_H

#include <stddef.h>

/** An upper bound on the tokens of text[0..len) (NUL bytes included). */
size_t mn_tokens_estimate(const char *text, size_t len);

/**
 * The longest prefix of text[0..len) whose estimate is at most max_tokens,
 * cut at a UTF-8 character boundary (and at a line or word end when one is
 * near). Returns its length in bytes.
 */
size_t mn_tokens_fit(const char *text, size_t len, size_t max_tokens);

#endif
