/*
 * cues.h - words of a sentence and the phrase patterns that find cues in
 * them ("instead of {A}", "replace* {S} with|by {C}", "решил* @inf").
 *
 * The statement detectors (decision.h, convo.h) keep their cue lists as
 * data: one table of patterns per language. This module gives them the two
 * things every table needs, so that adding a language is adding a table:
 *
 * Words. mn_cue_words_scan cuts a span of text into tokens with byte spans:
 * words (letters, digits, '_', and the '.', '-', '/', ':' and "()" that sit
 * inside identifiers, paths and versions: `Arrays.copyOfRange`, v1.2.3,
 * uglify-js, getChild(i)), `code spans`, URLs, and single punctuation
 * marks. An apostrophe splits a word (d'une -> d, une; let's -> let, s).
 * Each word has a normalised form: lower case, Latin letters without
 * diacritics (décidé -> decide), Cyrillic ё as е; patterns are written in
 * that form. Words between double quotes or guillemets are marked quoted,
 * so that a cue word quoted as a name ("Отказ", «abandon») is not a cue.
 * Invalid UTF-8 bytes separate words.
 *
 * Patterns. A pattern is a list of elements separated by spaces:
 *   word      the word exactly;     word*   any word starting with it;
 *   *ing      any longer word ending with it;
 *   a|b*|c    any of these;         ~N      up to N words (none is fine);
 *   ~~N       up to N words or commas;
 *   @inf      a Russian infinitive (-ть, -ться, -ти, -чь);
 *   ^         the start of the clause (the sentence, after a commit-style
 *             "area:" or "[tag]" prefix, or after , ; : and dashes);
 *   {S} {A} {C}  a slot: one or more tokens up to the next element (the
 *             shortest that lets the rest match), or to the end of the
 *             clause when it is last. S = what the decision supersedes,
 *             A = the alternative set aside, C = what was chosen;
 *   , ; : ( )  that punctuation mark.
 * Words never match inside code spans, URLs or quotes; slots may hold
 * them. A slot never crosses , ; : ( ) — – . ! ? (clause boundaries).
 * Patterns are compiled once per process (thread-safe) and kept.
 */
#ifndef MN_TEXT_CUES_H
#define MN_TEXT_CUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef enum {
    MN_TOK_WORD = 1, /* letters/digits, identifiers, paths, versions */
    MN_TOK_CODE,     /* a `code span` (backticks included) */
    MN_TOK_URL,      /* http(s)://..., www.... */
    MN_TOK_PUNCT     /* one punctuation mark; punct holds it */
} mn_tok_kind;

/* Flags of a token. */
#define MN_TOKF_QUOTED 0x01u /* between double quotes or guillemets */
#define MN_TOKF_IDENT  0x02u /* looks like code: has . _ / :: () inside, camelCase, or a sigil */
#define MN_TOKF_DIGIT  0x04u /* has a digit */
#define MN_TOKF_CAP    0x08u /* starts with a capital letter */
#define MN_TOKF_LATIN  0x10u /* has Latin letters */
#define MN_TOKF_CYR    0x20u /* has Cyrillic letters */
#define MN_TOKF_VERSION                                                              \
    0x40u /* a version: 1.2, v3, 2.x, 24.04, or letters glued to 2+ digits (java11), \
             or a bare number */

typedef struct {
    uint32_t start, end;     /* byte span in the text */
    uint32_t norm, norm_len; /* normalised form: offset and length in mn_cue_words.norm */
    uint8_t kind;            /* mn_tok_kind */
    uint8_t flags;           /* MN_TOKF_* */
    uint16_t punct;          /* for MN_TOK_PUNCT: the code point if < 0x10000 */
} mn_cue_tok;

typedef struct {
    mn_cue_tok *toks;
    size_t n, cap;
    mn_buf norm; /* the normalised forms, back to back */
} mn_cue_words;

#define MN_CUE_WORDS_INIT       \
    {                           \
        NULL, 0, 0, MN_BUF_INIT \
    }

/** Tokens of text[start, end) (offsets stay those of text); replaces w's content. */
void mn_cue_words_scan(mn_cue_words *w, const char *text, size_t start, size_t end);
void mn_cue_words_release(mn_cue_words *w);

/** The normalised form of token i (not NUL-terminated; length in *len). */
const char *mn_cue_norm(const mn_cue_words *w, size_t i, size_t *len);

/** true when token i is a word whose normalised form is lit ('*' at its end = prefix). */
bool mn_cue_is(const mn_cue_words *w, size_t i, const char *lit);

/** true for , ; : ( ) [ ] . ! ? — – and a dash between spaces: ends a clause or a slot. */
bool mn_cue_is_boundary(const mn_cue_tok *t);

/* A compiled pattern (opaque). */
typedef struct mn_cue_pat mn_cue_pat;

/** Compile a pattern; NULL (and an error message) when it does not parse. Free with _free. */
mn_cue_pat *mn_cue_pat_compile(const char *src);
void mn_cue_pat_free(mn_cue_pat *p);

enum { MN_SLOT_S = 0, MN_SLOT_A = 1, MN_SLOT_C = 2, MN_SLOT__COUNT = 3 };

/* Where a pattern matched: token range [first, last] and its slots (token ranges, -1 if unused). */
typedef struct {
    size_t first, last;
    long slot_first[MN_SLOT__COUNT], slot_last[MN_SLOT__COUNT];
} mn_cue_match;

/**
 * Find the first match of p in tokens [from, to) starting at or after from;
 * clause_start[i] (may be NULL) says token i starts a clause (for '^').
 * true when found (*m filled).
 */
bool mn_cue_pat_find(const mn_cue_pat *p, const mn_cue_words *w, size_t from, size_t to,
                     const bool *clause_start, mn_cue_match *m);

/**
 * Compile a NULL-terminated list of patterns once (thread-safe: call it from a
 * pthread_once or with the result cached by the caller); aborts on a pattern that
 * does not parse, since the lists are part of the program.
 */
mn_cue_pat **mn_cue_pats_compile(const char *const *srcs, size_t n);

#endif
