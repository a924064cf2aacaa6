/*
 * test_json.h - JSON literals and small JSON and error checks for the unit tests
 * (include after common.h).
 */
#ifndef MN_TEST_JSON_H
#define MN_TEST_JSON_H

#include <jansson.h>

#include "mnemo/errors.h"
#include "util/buf.h"

/* JSON with ' for " (a literal apostrophe is \u0027); aborts on a typo in the test. */
static inline json_t *J(const char *text)
{
    mn_buf b = MN_BUF_INIT;
    json_error_t err;
    for (const char *p = text; *p; p++)
        mn_buf_putc(&b, *p == '\'' ? '"' : *p);
    json_t *v = json_loads(b.ptr, JSON_DECODE_ANY, &err);
    if (!v) {
        fprintf(stderr, "bad JSON in test: %s: %s\n", b.ptr, err.text);
        abort();
    }
    mn_buf_release(&b);
    return v;
}

/* The string at key of an object, or NULL. */
static inline const char *sget(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* Whether the last error message holds needle; says what it was when not. */
static inline bool has_msg(const char *needle)
{
    if (strstr(mn_error_last(), needle))
        return true;
    fprintf(stderr, "  message '%s' lacks '%s'\n", mn_error_last(), needle);
    return false;
}

#endif
