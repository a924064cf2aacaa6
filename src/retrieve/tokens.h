/*
 * tokens.h - what a text costs a model, in tokens.
 *
 * `context` promises never to exceed its budget (max_tokens) and to use
 * it. It counts exactly, with the byte-pair encoding the reader's model
 * uses (text/bpe.h: o200k_base, the default of config context.tokenizer,
 * or cl100k_base), through a counter. When the encoding's table is not
 * installed, the counter falls back on an upper bound computed from the
 * shape of the text (mn_tokens_estimate; the rules are in tokens.c), which
 * keeps the promise not to exceed at the price of filling only about half
 * of the budget, and the caller says so in its notes.
 * tests/integration/token_bound.sh checks both against js-tiktoken.
 */
#ifndef MN_RETRIEVE_TOKENS_H
#define MN_RETRIEVE_TOKENS_H

#include <stddef.h>

#include "text/bpe.h"

/** A token counter: an exact encoding, or the estimate. */
typedef struct {
    const mn_bpe *bpe; /* NULL: the estimate */
    const char *name;  /* the encoding asked for */
} mn_token_counter;

#define MN_TOKENIZER_DEFAULT "o200k_base"

/**
 * The counter for encoding name (NULL: MN_TOKENIZER_DEFAULT). MN_EINVAL for
 * a name that is not an encoding. When its table is not installed or is
 * damaged, *out counts with the estimate and *note (malloc'd; NULL
 * otherwise) says why, for the answer's notes.
 */
int mn_tokens_counter(mn_token_counter *out, const char *name, char **note);

/** The tokens of text[0..len) as c counts them. */
size_t mn_tokens_count(const mn_token_counter *c, const char *text, size_t len);

/** An upper bound on the tokens of text[0..len) (NUL bytes included). */
size_t mn_tokens_estimate(const char *text, size_t len);

/**
 * The longest prefix of text[0..len) whose estimate is at most max_tokens,
 * cut at a UTF-8 character boundary (and at a line or word end when one is
 * near). Returns its length in bytes.
 */
size_t mn_tokens_fit(const char *text, size_t len, size_t max_tokens);

#endif
