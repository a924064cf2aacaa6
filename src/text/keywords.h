/*
 * keywords.h - the words that characterise a text, by TF-IDF against a corpus.
 *
 * Used by the save pipeline when a memory comes without trigger keywords: the
 * terms of the text that are frequent in it and rare in the project's own
 * corpus (its memories, its code) are the ones a later query is likely to use.
 * Candidates are words and whole identifiers as mn_tokenize emits them (stop
 * words and bare numbers left out); the corpus is described by the caller's
 * document frequencies of those same normalised terms - for an FTS5 table
 * with tokenize='mnemo', an fts5vocab 'row' table gives them.
 */
#ifndef MN_TEXT_KEYWORDS_H
#define MN_TEXT_KEYWORDS_H

#include <stddef.h>
#include <stdint.h>

#include "text/tokenize.h"

/** The corpus keywords are weighed against. */
typedef struct {
    /** Documents in the corpus; 0 when there is none (rarity is then guessed from the term). */
    int64_t n_docs;
    /**
     * Documents of the corpus that contain term: a normalised term exactly as
     * mn_tokenize emits it (a stem, or a whole identifier such as
     * "parsehttphead"), not NUL-terminated. 0 when none; a negative value is
     * read as 0. May be NULL when n_docs is 0.
     */
    int64_t (*df)(void *payload, const char *term, size_t len);
    void *payload;
} mn_df_source;

typedef struct {
    char *text;   /* display form: the surface of the term's most frequent spelling in the text,
                     lower-cased unless it is an identifier (parseHttpHeader, max_retries) */
    char *term;   /* the normalised term, as indexed */
    double score; /* tf-idf; see keywords.c for the formula */
    int count;    /* occurrences in the text */
} mn_keyword;

/**
 * The at most max_n best keywords of [text, text+len), best first.
 * lang MN_LANG_UNKNOWN detects it. df may be NULL (no corpus).
 * *out (free with mn_keywords_free) holds *out_n entries; *out is NULL when
 * the text has no candidate. Returns 0 or MN_EINVAL.
 */
int mn_keywords_extract(mn_keyword **out, size_t *out_n, const char *text, size_t len, mn_lang lang,
                        const mn_df_source *df, size_t max_n);

void mn_keywords_free(mn_keyword *kw, size_t n);

#endif
