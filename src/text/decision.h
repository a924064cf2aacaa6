/*
 * decision.h - finds the decisions stated in a text (a commit message,
 * issue or PR text, a conversation turn) in English, Russian and French,
 * and what each one says: the statement, its reasons, the alternatives set
 * aside, what it supersedes, and a confidence with the reasons for it.
 *
 *   "Use pathlib instead of os.path because it handles Windows drive letters"
 *     statement    "Use pathlib instead of os.path"
 *     alternatives "os.path"
 *     reasons      "it handles Windows drive letters"
 *   "Заменил ТаблицыЗначений на массивы"       supersedes "ТаблицыЗначений"
 *   "Remplace uglify-js par terser-js pour pouvoir utiliser ES6"
 *     supersedes "uglify-js", reasons "pouvoir utiliser ES6"
 *
 * How: the text is cut into sentences (sentences.h: commit trailers and
 * Markdown quotes left out); each sentence is matched against the cue
 * table of its language (decision_cues.c: one table per language, phrase
 * patterns of cues.h with slots for what is chosen, set aside and
 * superseded); the strongest cue that no mask covers makes the decision;
 * its confidence is the cue's weight plus evidence (a verb of adoption, a
 * reason, a named thing, a first-person subject) minus what makes a
 * statement no decision (a hedge or proposal, a description of wrong
 * output such as "returns X instead of Y", a typo or wording change, a
 * mere version bump, a mention of an earlier switch). Questions are never
 * decisions. docs/internals/decisions.md has the rules, the formula and
 * the measured figures (bench/bench_decisions.c on tests/data/decisions/).
 *
 * Precision matters more than recall: what comes out above the default
 * threshold should be a decision; what is doubtful is left out or, with a
 * lower min_confidence, comes out with its doubts in `why`.
 *
 * Spans are byte offsets into the caller's text; nothing is copied. The
 * module knows nothing of memories. Thread-safe (tables are compiled once).
 */
#ifndef MN_TEXT_DECISION_H
#define MN_TEXT_DECISION_H

#include <stddef.h>

#include "text/tokenize.h"
#include "util/buf.h"

/** Longest text read, in bytes; a longer one is refused (MN_ETOOBIG). */
#define MN_DECISION_MAX_INPUT (16u << 20)
/** At most this many decisions are returned for one text. */
#define MN_DECISION_MAX_OUT 1024
/** At most this many reasons, alternatives and superseded things per decision. */
#define MN_DECISION_MAX_SPANS 4

/* Flags of mn_decision_opts: what kind of text it is. */
/** A commit message: the first line is the subject, trailers are ignored. */
#define MN_DECISION_COMMIT 0x1u
/** Markdown (issue, PR, conversation): quoted replies, code fences, comments ignored. */
#define MN_DECISION_MARKDOWN 0x2u

typedef struct {
    unsigned version;      /* MN_DECISION_OPTS_VERSION */
    unsigned flags;        /* MN_DECISION_COMMIT, MN_DECISION_MARKDOWN */
    mn_lang lang;          /* MN_LANG_UNKNOWN: per sentence, from its script and words */
    double min_confidence; /* decisions below are not returned (default 0.5) */
} mn_decision_opts;

#define MN_DECISION_OPTS_VERSION 1
#define MN_DECISION_OPTS_INIT                             \
    {                                                     \
        MN_DECISION_OPTS_VERSION, 0, MN_LANG_UNKNOWN, 0.5 \
    }

typedef enum {
    MN_DECISION_EXPLICIT = 1, /* "we decided", "решили", "nous avons choisi" */
    MN_DECISION_CONTRAST,     /* "X instead of Y", "вместо", "plutôt que", "in favour of" */
    MN_DECISION_REPLACE,    /* "replace A with B", "заменил A на B", "remplace A par B" */
    MN_DECISION_TRANSITION, /* "switch from A to B", "переход на", "passage à" */
    MN_DECISION_DROP,       /* "stop using A", "отказ от A", "abandon de A" */
    MN_DECISION_PREFER      /* "prefer X over Y", "предпочитаем" */
} mn_decision_kind;

/* Why a confidence is what it is: bits of mn_decision.why. */
#define MN_DECISION_WHY_CUE          0x0001u /* a decision cue (always set) */
#define MN_DECISION_WHY_ADOPT        0x0002u /* a verb of adoption with the contrast ("use X instead") */
#define MN_DECISION_WHY_REASON       0x0004u /* a reason was found */
#define MN_DECISION_WHY_NAMED        0x0008u /* what it is about is named: code, identifiers, Names */
#define MN_DECISION_WHY_FIRST_PERSON 0x0010u /* "we", "I", "мы", "nous", "on" */
#define MN_DECISION_WHY_HEDGED       0x0100u /* would, maybe, предлагаю, pourrait: not settled */
#define MN_DECISION_WHY_BEHAVIOUR                                                              \
    0x0200u                             /* describes output or a fix: "returns X instead of Y" \
                                         */
#define MN_DECISION_WHY_WORDING 0x0400u /* a typo or wording change */
#define MN_DECISION_WHY_VERSION 0x0800u /* only a version changes ("switch to 1.2") */
#define MN_DECISION_WHY_PAST    0x1000u /* mentions an earlier switch ("after moving to X") */

typedef struct {
    size_t start, end; /* bytes of the text; start == end when empty */
} mn_text_span;

typedef struct {
    mn_text_span statement; /* the sentence or clause that states the decision */
    mn_text_span chosen;    /* what was chosen, when the cue says (may be empty) */
    mn_text_span reasons[MN_DECISION_MAX_SPANS];
    size_t n_reasons;
    mn_text_span alternatives[MN_DECISION_MAX_SPANS]; /* set aside: "instead of Y" */
    size_t n_alternatives;
    mn_text_span supersedes[MN_DECISION_MAX_SPANS]; /* replaced: "switched from A", "replace A" */
    size_t n_supersedes;
    double confidence;     /* [0, 1]; see decision.c for the formula */
    unsigned why;          /* MN_DECISION_WHY_* */
    mn_decision_kind kind; /* of the strongest cue */
    mn_lang lang;          /* of the sentence */
    const char *cue;       /* the cue pattern that fired (static string) */
} mn_decision;

/**
 * The decisions stated in text[0, len), in text order, at most one per
 * sentence and MN_DECISION_MAX_OUT in all. opts may be NULL (defaults).
 * *out is malloc'd (free with mn_decisions_free), NULL when *n is 0.
 * Returns 0, MN_EINVAL for a NULL text with len > 0 or a bad opts
 * version, MN_ETOOBIG above MN_DECISION_MAX_INPUT. Invalid UTF-8 is read
 * as non-letters, never an error.
 */
int mn_decisions_find(mn_decision **out, size_t *n, const char *text, size_t len,
                      const mn_decision_opts *opts);

/** Free what mn_decisions_find returned (NULL is fine). */
void mn_decisions_free(mn_decision *d);

/** "explicit", "contrast", ... (static string; "" for an unknown kind). */
const char *mn_decision_kind_name(mn_decision_kind kind);

/** Append the names of the bits of why ("cue,reason,named") to out. */
void mn_decision_why_format(mn_buf *out, unsigned why);

#endif
