/*
 * scan_internal.h - what the parts of the scanner share (scan.c, scan_rules.c,
 * scan_prefilter.c, scan_checks.c); nothing outside src/text/scan*.c includes it.
 *
 * A scanner is a table of compiled rules plus one prefilter built from the
 * rules' triggers: an Aho-Corasick automaton over their keywords and
 * prefixes, and the shortest digit run any rule waits for. A scan first runs
 * the prefilter once over the text, which yields anchors (rule, span); each
 * rule's regex then runs only in windows around its anchors. Everything here
 * is immutable once mn_scanner_new returns, so threads share it freely, but
 * for each rule's compiled pattern (mn_scan__lazy), made once on the rule's
 * first use under a lock and published atomically.
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

/* What a rule compiles when it runs, shared by the scanners that share the
 * rule (scan_rules.c, mn_scan__code). `code` goes from NULL to the
 * compiled pattern once, on the rule's first use; `jit`, from NULL to a JIT
 * copy once the interpreter has spent mn_scan__jit.after_ns on the rule
 * (`spent_ns`), or at once for a window of mn_scan__jit.window bytes or
 * more. JIT compilation of a pattern costs about what the
 * interpreter spends on a few windows of it, and most processes run a rule
 * on fewer: the JIT is paid for where it pays (the rent-or-buy rule: never
 * more than twice the better of the two). Both are published with a
 * release store under a lock; `allow` is written before `code`, so whoever
 * has loaded `code` may read `allow`. A rule from a project's file is
 * compiled when the file is read (that is how its errors are found):
 * `pending` holds that code until its first use, and `allow` is set then.
 * The built-in rules come from generated data (mn_scan__builtin_data) with
 * all of this zero. */
typedef struct {
    _Atomic(pcre2_code *) code;
    _Atomic(pcre2_code *) jit;
    _Atomic(uint64_t) spent_ns;
    pcre2_code *pending;
    pcre2_code **allow; /* one per source in the rule's `allow` */
} mn_scan__lazy;

/* When a rule's JIT copy is made (mn_scan__lazy): after after_ns of
 * interpreter time, or at once for a window of `window` bytes. Measured by
 * bench_scan ("first use"): JIT compilation of a built-in pattern takes ~25
 * us on average (up to ~150 us; the first of a process more), and the
 * interpreter 5-10 times the JIT code's time per window. Changed only by
 * bench_scan, before any scan, to compare with JIT on first use. */
typedef struct {
    uint64_t after_ns;
    size_t window;
} mn_scan__jit_policy;
#define MN_SCAN__JIT_POLICY_INIT \
    {                            \
        50000, 4096              \
    }
extern mn_scan__jit_policy mn_scan__jit;

/* One rule. Its strings and lists are const because the built-in rules
 * are static data; a project's rules own malloc'd copies (freed with
 * casts in scan_rules.c). A new field is written by
 * scripts/scan_rules_gen.c (put_rule) and compared by unit/text/scan
 * (test_generated_data): the built-in rules are the generator's output. */
typedef struct {
    const char *id;
    mn_scan_class cls;
    const char *pattern; /* as written; compiled as "(?:pattern)(?C1)" (scan_rules.c) */
    size_t pattern_len;
    uint32_t ncap; /* capture groups of the pattern */
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
    const char *const *context; /* lower-case words one of which must occur near the match */
    size_t ncontext;
    size_t context_window;
    bool context_if_bare;     /* context needed only when the secret part is alphanumeric only */
    const char *const *allow; /* regexes (sources): a secret part matching one is not a hit */
    size_t nallow;
    const char *const *keywords; /* triggers, any case (lower-cased) */
    size_t nkeywords;
    const char *const *prefixes; /* triggers, exact case */
    size_t nprefixes;
    bool borrowed; /* owned by the built-in scanner (a project's scanner shares them) */
    bool disabled; /* a project's file disabled it: it keeps its index, and never runs */
} mn_scan__rule;

/* One keyword or prefix of the automaton and the rules it triggers. */
typedef struct {
    const char *text; /* as written (prefixes compare case-sensitively) */
    size_t len;
    bool exact_case;       /* a prefix: the bytes must match as written */
    bool marker;           /* "[REDACTED:": where a redaction marker starts (no rules) */
    const uint32_t *rules; /* indexes into the scanner's rules */
    size_t nrules;
} mn_scan__keyword;

/* Aho-Corasick automaton over ASCII-case-folded bytes. States are
 * renumbered so that those with an output are >= first_out: the hot loop
 * tests one integer per byte. The built-in automaton is generated data;
 * one built at run time (mn_scan__ac_build) owns its tables. */
typedef struct {
    uint8_t cls[256]; /* byte -> symbol class (0: no keyword has it) */
    uint32_t nclasses;
    uint32_t nstates;
    uint32_t first_out;
    uint32_t maxlen; /* of a keyword */
    const uint32_t
        *delta; /* nstates * nclasses: next state * nclasses (NULL when delta16 is set) */
    const uint16_t
        *delta16; /* state numbers, rows of 1 << shift16 entries (NULL over 65535 states) */
    uint32_t shift16;
    const uint32_t *out_start; /* per state >= first_out: slice of out_kw */
    const uint32_t *out_count;
    const uint32_t *out_kw;
    const mn_scan__keyword *kw;
    size_t nkw;
    bool shared; /* the built-in scanner's tables: not freed by mn_scan__ac_release */
} mn_scan__ac;

struct mn_scanner {
    mn_scan__rule *rules;
    size_t nrules;
    const char *const *ids; /* ids of the rules that run, in order (mn_scanner_rules) */
    size_t nids;
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

/* The built-in scanner as data, generated at build time from
 * src/text/scan_rules.yaml by scripts/scan_rules_gen.c (cmake/scan_rules.cmake):
 * rules, ids and automaton, with every pattern left to compile on first
 * use. Only mctx is set at run time (scan.c). */
extern mn_scanner mn_scan__builtin_data;

/* scan.c */
/* A scanner of one rules file alone, read at run time as the built-in one
 * was before it became data: for unit/text/scan, which compares the two,
 * and bench_scan, which times it. Free with mn_scanner_free. */
int mn_scan__from_yaml(mn_scanner **out, const char *yaml, size_t len, const char *origin);
/* The built-in rules file as text (embedded at build time). */
extern const char mn_text_scan_rules[];

/* An anchor: the prefilter saw rule `rule`'s trigger at [start, end). */
typedef struct {
    uint32_t rule;
    size_t start, end;
} mn_scan__anchor;

/* scan_prefilter.c */
/* Build the automaton of kw[0, nkw) (malloc'd; the automaton takes it). */
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
/* The rule's pattern for a window of `bytes` start positions: compiled on
 * the rule's first use, its JIT copy once it has earned it (mn_scan__lazy).
 * *timed is set when the caller should time the interpreter on it and
 * report with mn_scan__spent. NULL with the error set when compiling fails
 * (out of memory). */
const pcre2_code *mn_scan__code(const mn_scan__rule *r, size_t bytes, bool *timed);
/* CPU time the interpreter spent on rule r. */
void mn_scan__spent(const mn_scan__rule *r, uint64_t ns);
/* Read a rules file (YAML) into s: its rules are compiled (for their
 * errors) and appended, its `disable` and `allow` applied. */
int mn_scan__load(mn_scanner *s, const char *yaml, size_t len, const char *origin, bool user);
/* Share base's rules (the built-in scanner's, alive until exit) with s. */
void mn_scan__borrow(mn_scanner *s, const mn_scanner *base);
/* Once every file is in: the ids, the digit and group figures, and the
 * automaton (base's, shared, when s adds no keyword to base's rules; NULL
 * base: always built). */
int mn_scan__finish(mn_scanner *s, const mn_scanner *base);
void mn_scan__release(mn_scanner *s);

#endif
