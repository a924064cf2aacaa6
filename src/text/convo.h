/*
 * convo.h - the other cues of a conversation (or any text) worth keeping:
 * gotchas, and an error followed by a change that made it pass.
 *
 * Gotchas: a statement that warns about a surprise or a trap — "turns
 * out", "the catch is", "gotcha:", "watch out", "beware", "don't X,
 * because Y"; "оказалось", "осторожно", "имейте в виду", "не делайте X,
 * иначе Y"; "il s'avère", "attention :", "piège", "ne … pas X, sinon Y".
 * One cue table per language (convo.c), the same pattern language as the
 * decision detector (cues.h); sentences as sentences.h cuts them; questions
 * and hedged sentences ("maybe it turns out") are left out.
 *
 * Error then fix: over a sequence of turns (user and assistant messages,
 * tool output), an error (a traceback, "Error:", "error[E0308]", "FAILED",
 * "npm ERR!", a non-zero exit code...) followed later by a turn that
 * changes something (a diff, an edit tool call, "I fixed / changed ...")
 * and then by a passing run ("5 passed", "test result: ok", "Build
 * succeeded", "exit code 0"). A newer error before the pass replaces the
 * pending one (the change did not fix it).
 *
 * Spans are byte offsets into the caller's text; nothing is copied.
 * Thread-safe.
 */
#ifndef MN_TEXT_CONVO_H
#define MN_TEXT_CONVO_H

#include <stddef.h>

#include "text/decision.h"

typedef struct {
    mn_text_span statement; /* the sentence that warns */
    mn_text_span reason;    /* "because ..." of "don't X because Y" (may be empty) */
    double confidence;      /* [0, 1] */
    mn_lang lang;
    const char *cue; /* the pattern that fired (static) */
} mn_gotcha;

/**
 * The gotchas of text[0, len), in order, at most one per sentence.
 * flags: MN_DECISION_COMMIT or MN_DECISION_MARKDOWN (how to cut
 * sentences). *out is malloc'd (mn_gotchas_free), NULL when *n is 0.
 * Returns 0, MN_EINVAL for a NULL text with len > 0, MN_ETOOBIG above
 * MN_DECISION_MAX_INPUT.
 */
int mn_gotchas_find(mn_gotcha **out, size_t *n, const char *text, size_t len, unsigned flags);
void mn_gotchas_free(mn_gotcha *g);

/** One turn of a conversation: its text (not NUL-terminated). */
typedef struct {
    const char *text;
    size_t len;
} mn_turn;

typedef struct {
    size_t error_turn;  /* index of the turn with the error */
    mn_text_span error; /* the error line in that turn */
    size_t fix_turn;    /* the first later turn that changes something */
    size_t pass_turn;   /* the first turn after the fix that shows a passing run */
    mn_text_span pass;  /* the passing line in that turn */
    double confidence;  /* 0.6, + 0.2 when the pass names the same tool as the error, + 0.1
                           for a change shown as a diff or an edit */
} mn_errfix;

/** Kinds of line, for mn_errfix_line_kind. */
typedef enum { MN_LINE_OTHER = 0, MN_LINE_ERROR, MN_LINE_PASS } mn_line_kind;

/**
 * The error-then-fix episodes of turns[0, nturns), in order. *out is
 * malloc'd (free it), NULL when *n is 0. Returns 0, or MN_EINVAL for a
 * NULL turns with nturns > 0 or a turn with a NULL text and len > 0.
 */
int mn_errfix_find(mn_errfix **out, size_t *n, const mn_turn *turns, size_t nturns);

/** What one line says: an error, a passing run, or neither. */
mn_line_kind mn_errfix_line_kind(const char *line, size_t len);

#endif
