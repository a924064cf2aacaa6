/*
 * sentences.h - cuts commit messages, issue and PR text (Markdown) and
 * conversation turns into sentences, as byte spans of the input.
 *
 * What a detector of statements (decisions, gotchas) reads is a sentence,
 * and the text people write around code breaks a naive "split at '. '" in
 * many places: `file.c`, v1.2.3, e.g., т.е., src/a.b/c, URLs, bullet lists
 * without full stops, commit subjects without punctuation. The rules:
 *
 *  - a blank line ends a sentence; so does a line that starts a bullet
 *    ("-", "*", "+", "•", "1.", "1)", a Markdown checkbox) or a heading;
 *  - '.', '!', '?', '…' (and runs of them) end a sentence when whitespace
 *    follows and the next character starts a sentence (a capital letter, a
 *    digit, a quote, a bullet, or the end), unless the word before the
 *    full stop is an abbreviation (a table of them, per language) or a
 *    single capital letter (an initial);
 *  - a full stop inside a word (file.c, 1.2.3, т.к.) never ends anything,
 *    nor does anything inside `code spans` or URLs;
 *  - a line break inside a paragraph ends a sentence only after a line
 *    that ends with terminal punctuation, or when the next line starts with
 *    a capital letter and the previous one is short (< 48 bytes) or ends
 *    with an issue reference or a closing parenthesis (lists of one-line
 *    items written without bullets);
 *  - with MN_SENT_COMMIT the first sentence of the first paragraph is the
 *    subject (git joins a subject wrapped over several lines); trailers (Signed-off-by:,
 * Co-authored-by:, any "Token: value" line of the last paragraph, "(cherry picked from commit
 * ...)") are left out;
 *  - with MN_SENT_MARKDOWN quoted replies ("> ..."), fenced code blocks,
 *    HTML comments and table rows are left out.
 *
 * Invalid UTF-8 never fails: bad bytes are ordinary non-letter bytes.
 * Sentences come out in order, never overlap, never start or end with
 * whitespace and are never empty. A sentence longer than
 * MN_SENT_MAX_BYTES is cut there (on a code point boundary).
 */
#ifndef MN_TEXT_SENTENCES_H
#define MN_TEXT_SENTENCES_H

#include <stddef.h>
#include <stdint.h>

/* Flags of mn_sentences_split. */
/** The text is a commit message: first sentence = subject, trailers dropped. */
#define MN_SENT_COMMIT 0x1u
/** The text is Markdown (issue, PR, conversation): quotes, fences, comments dropped. */
#define MN_SENT_MARKDOWN 0x2u

/* Flags of a sentence. */
#define MN_SENT_SUBJECT 0x1u /* the subject line of a commit message */
#define MN_SENT_BULLET  0x2u /* starts a bullet item (start is after the marker) */
#define MN_SENT_HEADING 0x4u /* a Markdown heading (start is after the '#'s) */

/** A sentence cut longer than this is cut (bounded work per sentence). */
#define MN_SENT_MAX_BYTES 4096

typedef struct {
    size_t start, end;  /* byte span in the input; text[start..end) */
    unsigned flags;     /* MN_SENT_SUBJECT, MN_SENT_BULLET, MN_SENT_HEADING */
    unsigned paragraph; /* index of the paragraph (blank-line separated block) */
} mn_sentence;

/**
 * The sentences of text[0, len). *out is malloc'd (free it), NULL when *n is
 * 0. Returns 0; never fails on any input (allocation failure aborts).
 */
int mn_sentences_split(mn_sentence **out, size_t *n, const char *text, size_t len, unsigned flags);

#endif
