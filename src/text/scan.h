/*
 * scan.h - finds secrets and personal data in text, and redacts them.
 *
 * Rules are data: the built-in set is src/text/scan_rules.yaml (turned into
 * C data at build time, so a process gets it for nothing); a project adds
 * rules and allow-list entries in its own file (see docs/internals/scan.md
 * for the format). Each rule has an id, a class (secret or pii), a PCRE2
 * pattern (compiled on the rule's first use, with JIT) and optional checks
 * that a match must pass: Shannon entropy of the secret part, Luhn, IBAN
 * mod 97, a known prefix, keywords that must occur nearby. A cheap
 * prefilter (each rule's keywords, prefixes or digit runs) decides which
 * rules run at all, so text with nothing secret-looking costs one pass.
 *
 * Redaction replaces the secret part of a match with "[REDACTED:<rule id>]"
 * (for "password=hunter2" only "hunter2"). Redacting text that is already
 * redacted changes nothing (a redaction marker never matches a rule).
 *
 * A scanner is immutable once built (but for each rule's code, made once on
 * its first use, under a lock) and may be shared by threads; every call
 * allocates its own match data.
 */
#ifndef MN_TEXT_SCAN_H
#define MN_TEXT_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

typedef enum {
    MN_SCAN_SECRET = 1, /* keys, tokens, passwords, private keys, connection strings */
    MN_SCAN_PII = 2,    /* e-mail, phone, card, IBAN, national ids */
    MN_SCAN_ALL = 3
} mn_scan_class;

typedef struct {
    const char *rule;  /* the rule's id ("github-pat"); owned by the scanner */
    mn_scan_class cls; /* MN_SCAN_SECRET or MN_SCAN_PII */
    size_t start, end; /* the byte span that redaction replaces */
} mn_scan_hit;

/* What one redaction did: hits by class, and the bytes they covered. */
typedef struct {
    size_t secrets, pii; /* hits */
    size_t bytes;        /* bytes of the input that were replaced */
    const char *rule; /* id of the first hit's rule (for an error or an audit row); NULL if none */
} mn_scan_summary;

typedef struct mn_scanner mn_scanner;

/**
 * The built-in rules, compiled once per process (thread-safe). *out is
 * owned by the library and lives until exit.
 */
int mn_scanner_builtin(const mn_scanner **out);

/**
 * The built-in rules plus a project's file of extra rules and allow-list
 * entries (YAML, docs/internals/scan.md). A missing file is not an error
 * (the built-in set is used); a file that does not parse, or a rule whose
 * pattern does not compile, is one clear error naming the file and the
 * rule. Free with mn_scanner_free.
 */
int mn_scanner_new(mn_scanner **out, const char *rules_path);

/** Free a scanner from mn_scanner_new (NULL, and the built-in one, are ignored). */
void mn_scanner_free(mn_scanner *s);

/**
 * Every hit in text[0, len) of the given classes (a mask of mn_scan_class),
 * sorted by start and never overlapping (overlapping matches merge into one
 * hit that covers both, named after the longer one's rule). *out is malloc'd (free it), NULL when
 * *n is 0. text need not be NUL-terminated and may hold any bytes.
 */
int mn_scan_find(mn_scan_hit **out, size_t *n, const mn_scanner *s, const char *text, size_t len,
                 unsigned classes);

/** true when text[0, len) holds at least one hit of the classes (cheaper than find). */
bool mn_scan_any(const mn_scanner *s, const char *text, size_t len, unsigned classes);

/**
 * text[0, len) with each hit replaced by "[REDACTED:<rule id>]", appended to
 * out. sum (may be NULL) says what was replaced. Returns 0, or an error
 * only for a failure of the regex engine (out of memory).
 */
int mn_scan_redact(mn_buf *out, const mn_scanner *s, const char *text, size_t len, unsigned classes,
                   mn_scan_summary *sum);

/**
 * *text (malloc'd, NUL-terminated) replaced by its redacted copy when it
 * holds a hit of the classes; left as it is otherwise. Returns 0, or an
 * error of the regex engine (*text then unchanged).
 */
int mn_scan_redact_str(char **text, const mn_scanner *s, unsigned classes);

/**
 * mn_scan_find and mn_scan_redact in one scan, for a caller that wants the
 * hits and the redacted text both. *hits (may be NULL: not wanted) and *n
 * as mn_scan_find gives them. When there is a hit, the redacted text is
 * appended to out and sum (may be NULL) says what was replaced; when there
 * is none, out is left as it was (a clean text costs no copy) and *n is 0.
 */
int mn_scan_find_redact(mn_scan_hit **hits, size_t *n, mn_buf *out, const mn_scanner *s,
                        const char *text, size_t len, unsigned classes, mn_scan_summary *sum);

/**
 * A copy of text[0, len) (NUL-terminated) with each redaction marker,
 * "[REDACTED:<rule id>]", blanked to as many spaces, or NULL when it holds
 * none: for reading a redacted text's own words (a marker's "REDACTED",
 * "aws", "key" are not what the text says).
 */
char *mn_scan_unmarked(const char *text, size_t len);

/**
 * true when a project's file allow-lists this repository path (a glob such
 * as "*.pem", or "tests/fixtures/" for a directory): the index then stores
 * that file's text as is.
 * Always false for the built-in scanner.
 */
bool mn_scanner_path_allowed(const mn_scanner *s, const char *path);

/** The ids of the rules, in order (for a report per kind); owned by the scanner. */
const char *const *mn_scanner_rules(const mn_scanner *s, size_t *n);

#endif
