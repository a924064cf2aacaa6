/*
 * scan_internal.h - what the parts of the scanner share (scan.c, scan_rules.c,
 * scan_prefilter.c, scan_checks.c); nothing outside src/text/scan*.c includes it.
 *
 * A scanner is a table of compiled rules plus one prefilter built from the
 * rules' triggers: an Aho-Corasick automaton over their keywords and
 * prefixes, and the shortest digit run any rule waits for. A scan first runs
 * the prefilter once over the text, which yields anchors (rule, span); each
 * rule's regex then runs only in windows around its anchors. Everything here
 * is immutable once mn_scanner_new returns, so threads share it freely.
 */
#ifndef MN_TEXT_SCAN_INTERNAL_H
#define MN_TEXT_SCAN_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/scan.h"

/* The named checks a rule may ask for (scan_checks.c); MN_SCAN__CHECK_COUNT
 * is the number of them. Each takes the secret part of a match. */
typedef enum {
    MN_SCAN__CHECK_LUHN,
    MN_SCAN__CHECK_CARD,
    MN_SCAN__CHECK_IBAN,
    MN_SCAN__CHECK_US_SSN,
    MN_SCAN__CHECK_US_ITIN,
    MN_SCAN__CHECK_US_ABA,
    MN_SCAN__CHECK_CA_SIN,
    MN_SCAN__CHECK_FR_NIR,
    MN_SCAN__CHECK_DE_TAXID,
    MN_SCAN__CHECK_ES_DNI,
    MN_SCAN__CHECK_ES_NIE,
    MN_SCAN__CHECK_IT_CF,
    MN_SCAN__CHECK_NL_BSN,
    MN_SCAN__CHECK_PL_PESEL,
    MN_SCAN__CHECK_SE_PNR,
    MN_SCAN__CHECK_FI_HETU,
    MN_SCAN__CHECK_BR_CPF,
    MN_SCAN__CHECK_BR_CNPJ,
    MN_SCAN__CHECK_IN_AADHAAR,
    MN_SCAN__CHECK_CN_RID,
    MN_SCAN__CHECK_RU_INN,
    MN_SCAN__CHECK_RU_SNILS,
    MN_SCAN__CHECK_JWT,
    MN_SCAN__CHECK_BASIC_AUTH,
    MN_SCAN__CHECK_PHONE,
    MN_SCAN__CHECK_DATE,
    MN_SCAN__CHECK_IPV4_PUBLIC,
    MN_SCAN__CHECK_NOT_IDENTIFIER,
    MN_SCAN__CHECK_MIXED,
    MN_SCAN__CHECK_MIXED_CASE,
    MN_SCAN__CHECK_COUNT
} mn_scan__check;

#define MN_SCAN__MAX_CHECKS 4 /* per rule */

/* A rule's pattern compiled by the JIT on first use (scan.c): most texts
 * wake few rules, so a process pays for the JIT of those only. Shared by the
 * scanners that share the rule; `jit` goes from NULL to the code once. */
typedef struct {
    _Atomic(pcre2_code *) jit;
} mn_scan__lazy;

typedef struct {
    char *id;
    mn_scan_class cls;
    pcre2_code *re; /* interpreted; the JIT copy is lazy->jit */
    mn_scan__lazy *lazy;
    uint32_t group;       /* capture group of the secret part; 0 = the whole match */
    size_t before, after; /* window around a trigger, bytes */
    bool multiline;       /* windows may cross lines */
    bool has_keywords;    /* some keyword or prefix triggers it */
    unsigned digits;      /* > 0: a run of this many digits triggers it */
    struct {
        unsigned upper_before; /* that many capitals right before the run (0: any) */
        bool upper_after;      /* a capital right after it */
        bool plus_before;      /* a '+' right before it */
        bool dots;             /* four groups joined by single dots (IPv4) */
    } digit_shape;
    bool always;        /* no trigger: the regex runs over the whole text */
    bool placeholders;  /* drop matches whose secret part is a placeholder */
    double min_entropy; /* bits per byte of the secret part; 0 = none */
    size_t min_len;     /* of the secret part */
    mn_scan__check checks[MN_SCAN__MAX_CHECKS];
    size_t nchecks;
    char **context; /* lower-case words one of which must occur near the match */
    size_t ncontext;
    size_t context_window;
    bool context_if_bare; /* context needed only when the secret part is alphanumeric only */
    pcre2_code **allow;   /* regexes: a secret part matching one is not a hit */
    size_t nallow;
    char **keywords; /* triggers, any case */
    size_t nkeywords;
    char **prefixes; /* triggers, exact case */
    size_t nprefixes;
    bool borrowed; /* owned by the built-in scanner (a project's scanner shares them) */
} mn_scan__rule;

/* One keyword or prefix of the automaton and the rules it triggers. */
typedef struct {
    char *text; /* as written (prefixes compare case-sensitively) */
    size_t len;
    bool exact_case; /* a prefix: the bytes must match as written */
    bool marker;     /* "[REDACTED:": where a redaction marker starts (no rules) */
    uint32_t *rules; /* indexes into the scanner's rules */
    size_t nrules;
} mn_scan__keyword;

/* Aho-Corasick automaton over ASCII-case-folded bytes. States are
 * renumbered so that those with an output are >= first_out: the hot loop
 * tests one integer per byte. */
typedef struct {
    uint8_t cls[256]; /* byte -> symbol class (0: no keyword has it) */
    uint32_t nclasses;
    uint32_t nstates;
    uint32_t first_out;
    uint32_t maxlen;   /* of a keyword */
    uint32_t *delta;   /* nstates * nclasses: next state * nclasses */
    uint16_t *delta16; /* state numbers, rows of 1 << shift16 entries (NULL over 65535 states) */
    uint32_t shift16;
    uint32_t *out_start; /* per state >= first_out: slice of out_kw */
    uint32_t *out_count;
    uint32_t *out_kw;
    mn_scan__keyword *kw;
    size_t nkw;
} mn_scan__ac;

struct mn_scanner {
    mn_scan__rule *rules;
    size_t nrules;
    const char **ids; /* rule ids, in order (mn_scanner_rules) */
    mn_scan__ac ac;
    unsigned min_digits;       /* shortest digit run any rule waits for; 0 = no digit rule */
    size_t max_groups;         /* largest capture count of any rule */
    pcre2_match_context *mctx; /* limits; copied per call, never changed */
    char **allow_values;
    size_t nallow_values;
    pcre2_code **allow_res;
    size_t nallow_res;
    char **allow_paths;
    size_t nallow_paths;
    bool builtin;
};

/* An anchor: the prefilter saw rule `rule`'s trigger at [start, end). */
typedef struct {
    uint32_t rule;
    size_t start, end;
} mn_scan__anchor;

/* scan_prefilter.c */
int mn_scan__ac_build(mn_scan__ac *ac, mn_scan__keyword *kw, size_t nkw);
void mn_scan__ac_release(mn_scan__ac *ac);
/* A growable list of anchors (mn_realloc: out of memory aborts). */
typedef struct {
    mn_scan__anchor *items;
    size_t len, cap;
    size_t *markers; /* where "[REDACTED:" occurs */
    size_t nmarkers, cmarkers;
} mn_scan__anchors;
/* Append an anchor per trigger found in text[0, len) (keywords and
 * prefixes of the automaton, digit runs of at least s->min_digits), and the
 * offsets where a redaction marker may start. */
void mn_scan__prefilter(mn_scan__anchors *out, const mn_scanner *s, const char *text, size_t len);

/* scan_checks.c */
bool mn_scan__check_run(mn_scan__check c, const char *s, size_t n);
int mn_scan__check_parse(mn_scan__check *out, const char *name);
const char *mn_scan__check_name(mn_scan__check c);
double mn_scan__entropy(const char *s, size_t n);
bool mn_scan__placeholder(const char *s, size_t n);
bool mn_scan__glob_match(const char *glob, const char *path);

/* scan_rules.c */
/* The rule's pattern for matching: its JIT copy, made on first use. */
const pcre2_code *mn_scan__code(const mn_scan__rule *r);
int mn_scan__load(mn_scanner *s, const char *yaml, size_t len, const char *origin, bool user);
/* Share base's rules (the built-in scanner's, alive until exit) with s. */
void mn_scan__borrow(mn_scanner *s, const mn_scanner *base);
int mn_scan__finish(mn_scanner *s);
void mn_scan__release(mn_scanner *s);

#endif
