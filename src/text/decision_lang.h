/*
 * decision_lang.h - the shape of one language's table for the decision
 * detector (internal to src/text/decision*.c).
 *
 * Everything the detector knows about a language is here, as lists of
 * cues.h patterns written in normalised form (lower case, Latin without
 * diacritics, ё as е, apostrophes splitting words: "let s", "d une"). A
 * language is supported by adding one mn_dec_lang to decision_cues.c.
 */
#ifndef MN_TEXT_DECISION_LANG_H
#define MN_TEXT_DECISION_LANG_H

#include <stddef.h>
#include <stdint.h>

#include "text/decision.h"

/* One cue: a pattern, the kind of decision it states, and its weight in hundredths. */
typedef struct {
    const char *pat;
    mn_decision_kind kind;
    int weight;
} mn_dec_cue;

typedef struct {
    const char *const *pats;
    size_t n;
} mn_dec_list;

#define MN_DEC_LIST(a)                \
    {                                 \
        a, sizeof(a) / sizeof((a)[0]) \
    }

typedef struct {
    mn_lang lang;
    const mn_dec_cue *cues; /* decision cues */
    size_t n_cues;
    mn_dec_list masks;        /* phrases holding a cue word that state no decision */
    mn_dec_list reasons;      /* a reason follows the match ("because", "так как", "car") */
    mn_dec_list reason_masks; /* a reason marker that is not one ("since version 4") */
    mn_dec_list lead_reasons; /* a next sentence that starts so is the reason ("This prevents") */
    mn_dec_list consequence; /* the previous sentence is the reason ("so", "поэтому", "donc") */
    mn_dec_list hedges;      /* not settled: would, maybe, предлагаю, pourrait */
    mn_dec_list hedge_masks; /* a hedge word that hedges nothing: "where possible", "где можно" */
    mn_dec_list questions; /* a sentence that opens so is a question */
    mn_dec_list adopt;     /* verbs of adoption: use, использовать, utiliser */
    mn_dec_list behave;    /* verbs of output and fixes: returns, выдавал, affiche, fix */
    mn_dec_list mistakes; /* the change undoes a mistake: accidentally, по ошибке, par erreur */
    mn_dec_list wording; /* typo and wording words (a subject with one marks the message) */
    mn_dec_list ui;      /* cosmetic UI things: icon, logo, кнопка, bouton */
    mn_dec_list past; /* a mention of an earlier switch: "after moving", "после перехода" */
    mn_dec_list first_person;  /* we, I, мы, nous, on */
    mn_dec_list version_words; /* "version", "версия" */
    mn_dec_list aux; /* auxiliaries trimmed off a passive subject: is, was, было, est */
} mn_dec_lang;

extern const mn_dec_lang mn_dec_langs[];
extern const size_t mn_dec_n_langs;

#endif
