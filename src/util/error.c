/*
 * error.c - thread-local last error, as libgit2's giterr.
 *
 * The message lives in a fixed thread-local buffer so that setting an error
 * never allocates (it is used on out-of-memory paths too). Messages longer
 * than the buffer are truncated.
 */
#include "common.h"

#define MN_ERROR_MAX 1024

static _Thread_local char last_msg[MN_ERROR_MAX];
static _Thread_local int last_code;

int mn_error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
    va_end(ap);
    last_code = code;
    return code;
}

int mn_error_prefix(const char *fmt, ...)
{
    char prefix[256];
    char old[MN_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, last_msg, sizeof(old));
    /* "prefix: old", truncated to the buffer */
    size_t n = strlen(prefix);
    if (n > sizeof(last_msg) - 3)
        n = sizeof(last_msg) - 3;
    memcpy(last_msg, prefix, n);
    memcpy(last_msg + n, ": ", 2);
    size_t m = strlen(old);
    if (m > sizeof(last_msg) - n - 3)
        m = sizeof(last_msg) - n - 3;
    memcpy(last_msg + n + 2, old, m);
    last_msg[n + 2 + m] = '\0';
    return last_code;
}

const char *mn_error_last(void)
{
    return last_msg;
}

int mn_error_last_code(void)
{
    return last_code;
}

void mn_error_clear(void)
{
    last_msg[0] = '\0';
    last_code = MN_OK;
}

const char *mn_error_name(int code)
{
    switch (code) {
    case MN_OK:
        return "ok";
    case MN_EINVAL:
        return "invalid";
    case MN_ENOTFOUND:
        return "not_found";
    case MN_EEXISTS:
        return "exists";
    case MN_ENOMEM:
        return "no_memory";
    case MN_EIO:
        return "io";
    case MN_EBUSY:
        return "busy";
    case MN_ECORRUPT:
        return "corrupt";
    case MN_ETOOBIG:
        return "too_big";
    case MN_EVERSION:
        return "version";
    case MN_EAMBIGUOUS:
        return "ambiguous";
    case MN_EINTERNAL:
        return "internal";
    case MN_EAUTH:
        return "unauthenticated";
    case MN_EDENIED:
        return "denied";
    case MN_EUNAVAILABLE:
        return "unavailable";
    case MN_EUNSUPPORTED:
        return "unsupported";
    default:
        return "error";
    }
}
