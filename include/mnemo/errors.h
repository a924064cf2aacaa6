/*
 * mnemo/errors.h - the error model shared by every mnemo function.
 *
 * A fallible function returns int: 0 on success, one of the negative
 * mn_error_code values on failure. It also records a one-line, lower-case
 * message for the calling thread, read back with mn_error_last(). Callers
 * pass lower-level codes up unchanged; they may prefix context to the
 * message with mn_error_prefix().
 */
#ifndef MNEMO_ERRORS_H
#define MNEMO_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MN_OK = 0,
    MN_ERROR = -1,         /* generic failure */
    MN_EINVAL = -2,        /* invalid input from the caller (usage error) */
    MN_ENOTFOUND = -3,     /* the named thing does not exist */
    MN_EEXISTS = -4,       /* the thing exists already */
    MN_ENOMEM = -5,        /* out of memory for a large, caller-sized allocation */
    MN_EIO = -6,           /* file system or database I/O failed */
    MN_EBUSY = -7,         /* the store stayed locked past the busy timeout */
    MN_ECORRUPT = -8,      /* stored data is damaged */
    MN_ETOOBIG = -9,       /* input over a documented size limit */
    MN_EVERSION = -10,     /* the store was written by a newer mnemo */
    MN_EAMBIGUOUS = -11,   /* an id prefix matches several things */
    MN_EINTERNAL = -12,    /* a broken invariant: a bug in mnemo */
    MN_EAUTH = -13,        /* no credentials, or ones that are unknown, revoked or expired (401) */
    MN_EDENIED = -14,      /* the caller is known but its role does not allow this (403) */
    MN_EUNAVAILABLE = -15, /* the store's server cannot be reached now; retrying may work (503) */
    MN_EUNSUPPORTED = -16  /* this back end or build cannot do it (the message says what can) */
} mn_error_code;

/** Record the current error for this thread; returns code for `return mn_error_set(...)`. */
int mn_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Prefix the current message with "prefix: "; returns the current code. */
int mn_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** The last message recorded on this thread ("" when none); owned by mnemo. */
const char *mn_error_last(void);

/** The last code recorded on this thread (MN_OK when none). */
int mn_error_last_code(void);

/** Forget the last error of this thread. */
void mn_error_clear(void);

/** A short, stable name of a code ("invalid", "not_found", ...). */
const char *mn_error_name(int code);

#ifdef __cplusplus
}
#endif

#endif
