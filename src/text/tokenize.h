/*
 * tokenize.h - the code-aware Unicode tokenizer shared by every lexical index.
 *
 * Text goes in, normalised search terms come out through a callback, in
 * order, each with the byte span of its surface form in the input. The same
 * function tokenizes what is indexed and what is asked, so whatever one side
 * produces the other reproduces; docs/internals/text.md has the rules and
 * examples. In short:
 *
 *  - a word is a run of letters, digits, combining marks and '_'; anything
 *    else (punctuation, spaces, invalid UTF-8 bytes) separates words;
 *  - a word splits into pieces at '_', camelCase and ACRONYMWord boundaries,
 *    letter/digit changes and script changes: parseHTTPHeader_v2 ->
 *    parse, http, header, v, 2;
 *  - a word of several pieces is also emitted whole (pieces joined, no
 *    separators: "parsehttpheaderv2"), colocated with its first piece;
 *  - every term is NFKC-normalised and case-folded (utf8proc); Latin letters
 *    lose their diacritics, Cyrillic ё becomes е;
 *  - letter-only terms are stemmed (Snowball): Cyrillic words with the Russian
 *    stemmer, Latin words with the stemmer of the text's language;
 *  - a word of one piece that is a stop word of its language is dropped;
 *    pieces of identifiers are never dropped;
 *  - terms are at most MN_TOK_MAX_BYTES bytes (cut on a code point boundary);
 *  - Han and kana characters are one term each (no spaces to split on).
 *
 * The module knows nothing of memories or SQLite: libc, utf8proc, libstemmer.
 * Thread safety: mn_tokenize keeps one mn_tokenizer per thread; an
 * mn_tokenizer itself must not be used by two threads at once.
 */
#ifndef MN_TEXT_TOKENIZE_H
#define MN_TEXT_TOKENIZE_H

#include <stddef.h>

/* Languages told apart by mn_lang_detect (stemmer and stop words of Latin-script words). */
typedef enum {
    MN_LANG_UNKNOWN = 0,
    MN_LANG_EN,
    MN_LANG_RU,
    MN_LANG_FR,
    MN_LANG_DE,
    MN_LANG_ES,
    MN_LANG__COUNT
} mn_lang;

/**
 * The version of the rules. Bump it whenever the terms of some text change:
 * FTS5 tables with external content delete rows by tokenizing the old text
 * again, so a store indexed under another version must rebuild its FTS
 * tables ('rebuild') before it writes to them.
 */
#define MN_TOK_VERSION 1

/** Longest term emitted, in bytes; longer ones are cut on a code point boundary. */
#define MN_TOK_MAX_BYTES 64

/* Flags of mn_tokenize. */
/** Tokenizing a query rather than a document (see MN_TOK_COLOC_* for what changes). */
#define MN_TOK_QUERY 0x1u
/** Do not stem (terms are only normalised and case-folded). */
#define MN_TOK_NO_STEM 0x2u
/** Keep stop words. */
#define MN_TOK_KEEP_STOPWORDS 0x4u

/*
 * The `colocated` argument of the callback: 0 for a term that takes the next
 * position, otherwise the term shares the position of the previous one.
 * MN_TOK_COLOC_WHOLE: the whole of a multi-piece word (emitted right after its
 * first piece); an FTS5 query drops it, since a bareword of several pieces is
 * already the phrase of its pieces. MN_TOK_COLOC_ALT: another stem of the
 * same word (the English stem of a word in a French text), a synonym in
 * queries. Callers that only count terms can treat any non-zero as "same
 * position".
 */
#define MN_TOK_COLOC_NONE  0
#define MN_TOK_COLOC_WHOLE 1
#define MN_TOK_COLOC_ALT   2

/**
 * Receives one term. tok is not NUL-terminated and is valid only during the
 * call; [start, end) is the byte span of its surface form in the input.
 * Return 0 to go on; any other value stops tokenizing and is returned by
 * mn_tokenize.
 */
typedef int (*mn_token_cb)(void *payload, const char *tok, size_t len, size_t start, size_t end,
                           int colocated);

typedef struct mn_tokenizer mn_tokenizer;

/** A tokenizer with its own stemmers and scratch space (caller frees with mn_tokenizer_free). */
mn_tokenizer *mn_tokenizer_new(void);
void mn_tokenizer_free(mn_tokenizer *t);

/**
 * Tokenize [text, text+len) with t. lang MN_LANG_UNKNOWN detects the
 * language of the text (mn_lang_detect; English when nothing tells).
 * Returns 0, or the first non-zero value returned by cb. Invalid UTF-8 never
 * fails: bad bytes separate words.
 */
int mn_tokenizer_run(mn_tokenizer *t, const char *text, size_t len, mn_lang lang, unsigned flags,
                     mn_token_cb cb, void *payload);

/** mn_tokenizer_run with this thread's tokenizer (created on first use, freed at thread exit). */
int mn_tokenize(const char *text, size_t len, mn_lang lang, unsigned flags, mn_token_cb cb,
                void *payload);

/**
 * The language of a text, from its script and its stop words; MN_LANG_UNKNOWN
 * when it has too few words to tell. Looks at the first 4 KiB only.
 */
mn_lang mn_lang_detect(const char *text, size_t len);

/** "en", "ru", ... ("" for MN_LANG_UNKNOWN). Static string. */
const char *mn_lang_code(mn_lang lang);
/** The language of a code such as "en" or "fr" (case-insensitive); MN_LANG_UNKNOWN if none. */
mn_lang mn_lang_from_code(const char *code);

/**
 * True when the normalised (case-folded, unstemmed) word is a stop word of
 * lang; Cyrillic words are looked up as Russian whatever lang says.
 */
int mn_lang_is_stopword(mn_lang lang, const char *word, size_t len);

/**
 * A symbol's own name in a qualified one: what follows the last '.' or
 * "::" ("Session.refresh" -> "refresh", "a::b::C" -> "C"); the name itself
 * when it has neither. Points into name.
 */
const char *mn_ident_last_part(const char *name);

#endif
