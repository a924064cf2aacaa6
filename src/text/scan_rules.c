/*
 * scan_rules.c - reads rule files (the built-in src/text/scan_rules.yaml and
 * a project's .mnemo-scan.yaml) into the scanner's table, and builds the
 * prefilter once every file is in.
 *
 * A file is YAML (util/yaml.h turns it into JSON) with one document: a
 * mapping with `rules` (a list of rules), and in a project's file also
 * `disable` (built-in rule ids to drop) and `allow` (values, patterns,
 * paths). docs/internals/scan.md gives every key. Unknown keys are errors,
 * so a typo never silently weakens a rule; every error is one line that
 * names the file and the rule ("scan rules 'x.yaml': rule 'acme-token':
 * pattern does not compile at offset 3: missing closing parenthesis").
 *
 * Patterns are compiled for bytes (no UTF mode: the text may hold any
 * bytes), with ^ and $ at line boundaries (PCRE2_MULTILINE) and
 * PCRE2_USE_OFFSET_LIMIT, since a rule's regex runs only where a match may
 * start near one of its triggers (scan.c). A file read here has each
 * pattern compiled at once, for its errors. The built-in rules come as
 * generated data (scripts/scan_rules_gen.c reads the built-in file with
 * this code at build time), and each pattern is compiled on its rule's
 * first use (mn_scan__code), so that a process pays only for the rules its
 * texts wake; a rule's JIT copy is made once the interpreter has spent on
 * the rule about what JIT compilation costs (mn_scan__lazy). Where the JIT
 * is unavailable the interpreter runs the same pattern.
 */
#include "common.h"
#include <pthread.h>
/* valgrind's client-request header, where valgrind is installed (it is a
 * test dependency): see use_jit() */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define MN_HAVE_VALGRIND_H 1
#endif
#endif

#include "text/scan_internal.h"
#include "util/buf.h"
#include "util/util.h"
#include "util/yaml.h"

#define RULES_MAX       2000
#define LIST_MAX        256  /* keywords, prefixes, context words, allow entries per rule */
#define WORD_MAX        128  /* bytes of a keyword, prefix or context word */
#define PATTERN_MAX     8192 /* bytes of a pattern */
#define WINDOW_MAX      65536
#define DEFAULT_BEFORE  128
#define DEFAULT_AFTER   128
#define DEFAULT_CONTEXT 64

static const char *const RULE_KEYS[] = {
    "id",       "class",   "description",    "pattern",         "group",   "keywords",
    "prefixes", "digits",  "window",         "multiline",       "entropy", "min_length",
    "checks",   "context", "context_window", "context_if_bare", "allow",   "placeholders"};

/* Set the error for rule `id` (or its position when it has none) of `origin`. */
static int rule_error(const char *origin, const char *id, size_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int rule_error(const char *origin, const char *id, size_t index, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (id)
        return mn_error_set(MN_EINVAL, "scan rules '%s': rule '%s': %s", origin, id, msg);
    return mn_error_set(MN_EINVAL, "scan rules '%s': rule #%zu: %s", origin, index + 1, msg);
}

/* v and its strings are malloc'd (a rule read from a file); const only
 * because the built-in rules' lists are static data. */
static void free_strings(const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((void *)v[i]);
    free((void *)v);
}

static void free_codes(pcre2_code **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pcre2_code_free(v[i]);
    free(v);
}

static void rule_release(mn_scan__rule *r)
{
    if (r->borrowed) {
        memset(r, 0, sizeof(*r));
        return;
    }
    free((void *)r->id);
    free((void *)r->pattern);
    if (r->lazy) {
        pcre2_code_free(atomic_load(&r->lazy->code));
        pcre2_code_free(atomic_load(&r->lazy->jit));
        pcre2_code_free(r->lazy->pending);
        if (r->lazy->allow)
            free_codes(r->lazy->allow, r->nallow);
        free(r->lazy);
    }
    free_strings(r->context, r->ncontext);
    free_strings(r->allow, r->nallow);
    free_strings(r->keywords, r->nkeywords);
    free_strings(r->prefixes, r->nprefixes);
    memset(r, 0, sizeof(*r));
}

/* PCRE2's JIT code reads the subject 16 bytes at a time and may read past
 * its end (never past the page): harmless, but memcheck reports each such
 * read. Under valgrind the interpreter runs instead (same results), so that
 * the project's valgrind tests see mnemo's own errors only. */
static bool use_jit(void)
{
#ifdef MN_HAVE_VALGRIND_H
    return !RUNNING_ON_VALGRIND;
#else
    return true;
#endif
}

/* Compile `pattern` as every pattern is compiled; on failure, *why gets
 * PCRE2's message with the offset. A rule's pattern (wrap) is compiled as
 * "(?:PATTERN)(?C1)": the callout at the end runs the rule's checks on each
 * candidate match, so that a candidate that fails them makes the engine
 * backtrack to the next one (a shorter number, another start) instead of
 * ending the search (scan.c). jit: also make the JIT code (where it runs). */
static pcre2_code *compile(const char *pattern, size_t len, bool wrap, bool jit, char *why,
                           size_t cap)
{
    int err = 0;
    PCRE2_SIZE off = 0;
    mn_buf b = MN_BUF_INIT;
    if (wrap) {
        mn_buf_puts(&b, "(?:");
        mn_buf_put(&b, pattern, len);
        mn_buf_puts(&b, ")(?C1)");
    } else {
        mn_buf_put(&b, pattern, len);
    }
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)b.ptr, b.len,
                                   PCRE2_MULTILINE | PCRE2_USE_OFFSET_LIMIT, &err, &off, NULL);
    mn_buf_release(&b);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof(msg));
        size_t at = (size_t)off;
        if (wrap)
            at = at >= 3 ? (at - 3 > len ? len : at - 3) : 0;
        snprintf(why, cap, "does not compile at offset %zu: %s", at, (const char *)msg);
        return NULL;
    }
    /* JIT is an optimisation (a platform without it runs the interpreter) */
    if (jit && use_jit())
        (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    return re;
}

/* A JSON array of strings (or a single string) into a malloc'd vector. */
static int strings_of(const char *const **out, size_t *n, const json_t *v, bool lower,
                      const char *what, const char *origin, const char *id, size_t index)
{
    *out = NULL;
    *n = 0;
    if (!v)
        return 0;
    size_t count = json_is_array(v) ? json_array_size(v) : 1;
    if (!json_is_array(v) && !json_is_string(v))
        return rule_error(origin, id, index, "'%s' must be a list of strings", what);
    if (count > LIST_MAX)
        return rule_error(origin, id, index, "'%s' has more than %d entries", what, LIST_MAX);
    char **vec = mn_calloc(count ? count : 1, sizeof(*vec));
    for (size_t i = 0; i < count; i++) {
        const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
        size_t len = json_is_string(e) ? json_string_length(e) : 0;
        if (!json_is_string(e) || len == 0 || len > WORD_MAX) {
            free_strings((const char *const *)vec, i);
            return rule_error(origin, id, index, "'%s' entries must be strings of 1 to %d bytes",
                              what, WORD_MAX);
        }
        vec[i] = mn_strndup(json_string_value(e), len);
        if (lower)
            for (char *p = vec[i]; *p; p++)
                if (*p >= 'A' && *p <= 'Z')
                    *p = (char)(*p - 'A' + 'a');
    }
    *out = (const char *const *)vec;
    *n = count;
    return 0;
}

static bool valid_id(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 64)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
              *p == '.'))
            return false;
    return true;
}

/* The index of the rule `id` that runs (disabled ones are gone), or -1. */
static ptrdiff_t find_rule(const mn_scanner *s, const char *id)
{
    for (size_t i = 0; i < s->nrules; i++)
        if (!s->rules[i].disabled && strcmp(s->rules[i].id, id) == 0)
            return (ptrdiff_t)i;
    return -1;
}

static int size_field(size_t *out, const json_t *v, size_t min, size_t max, const char *what,
                      const char *origin, const char *id, size_t index)
{
    if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)min ||
        json_integer_value(v) > (json_int_t)max)
        return rule_error(origin, id, index, "'%s' must be an integer from %zu to %zu", what, min,
                          max);
    *out = (size_t)json_integer_value(v);
    return 0;
}

/* Read one rule of a file into r (zeroed). */
static int parse_rule(mn_scan__rule *r, const mn_scanner *s, const json_t *j, const char *origin,
                      size_t index, bool user)
{
    int rc = 0;
    const char *id = NULL;
    char why[384];
    if (!json_is_object(j))
        return rule_error(origin, NULL, index, "must be a mapping with id, class and pattern");
    const json_t *jid = json_object_get(j, "id");
    if (jid && json_is_string(jid))
        id = json_string_value(jid);
    if (!id)
        return rule_error(origin, NULL, index, "has no 'id' (a string)");
    if (!valid_id(id))
        return rule_error(origin, id, index, "'id' must be 1 to 64 of a-z, 0-9, '-', '_' and '.'");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)j, key, val)
    {
        bool known = false;
        for (size_t k = 0; k < MN_ARRAY_SIZE(RULE_KEYS); k++)
            known |= strcmp(key, RULE_KEYS[k]) == 0;
        if (!known)
            return rule_error(origin, id, index, "unknown key '%s'", key);
    }
    if (find_rule(s, id) >= 0)
        return rule_error(origin, id, index,
                          user ? "a rule with this id exists already (disable the built-in one "
                                 "to replace it)"
                               : "a rule with this id exists already");
    r->id = mn_strdup(id);

    const json_t *cls = json_object_get(j, "class");
    if (json_is_string(cls) && strcmp(json_string_value(cls), "secret") == 0)
        r->cls = MN_SCAN_SECRET;
    else if (json_is_string(cls) && strcmp(json_string_value(cls), "pii") == 0)
        r->cls = MN_SCAN_PII;
    else {
        rc = rule_error(origin, id, index, "'class' must be 'secret' or 'pii'");
        goto out;
    }

    const json_t *pat = json_object_get(j, "pattern");
    if (!json_is_string(pat) || json_string_length(pat) == 0 ||
        json_string_length(pat) > PATTERN_MAX) {
        rc = rule_error(origin, id, index, "'pattern' must be a string of 1 to %d bytes",
                        PATTERN_MAX);
        goto out;
    }
    r->pattern = mn_strndup(json_string_value(pat), json_string_length(pat));
    r->pattern_len = json_string_length(pat);
    r->lazy = mn_calloc(1, sizeof(*r->lazy));
    /* compiled now for its errors, kept for its first use */
    r->lazy->pending = compile(r->pattern, r->pattern_len, true, false, why, sizeof(why));
    if (!r->lazy->pending) {
        rc = rule_error(origin, id, index, "pattern %s", why);
        goto out;
    }
    uint32_t ncap = 0;
    pcre2_pattern_info(r->lazy->pending, PCRE2_INFO_CAPTURECOUNT, &ncap);
    r->ncap = ncap;

    /* The secret part: `group` (a number or a name), else a group named
     * "secret", else the whole match. */
    const json_t *grp = json_object_get(j, "group");
    if (json_is_integer(grp)) {
        if (json_integer_value(grp) < 0 || (uint32_t)json_integer_value(grp) > ncap) {
            rc = rule_error(origin, id, index, "'group' %lld: the pattern has %u groups",
                            (long long)json_integer_value(grp), ncap);
            goto out;
        }
        r->group = (uint32_t)json_integer_value(grp);
    } else if (json_is_string(grp) || !grp) {
        const char *name = grp ? json_string_value(grp) : "secret";
        int g = pcre2_substring_number_from_name(r->lazy->pending, (PCRE2_SPTR)name);
        if (g < 0 && grp) {
            rc =
                rule_error(origin, id, index, "'group': the pattern has no group named '%s'", name);
            goto out;
        }
        r->group = g < 0 ? 0 : (uint32_t)g;
    } else {
        rc = rule_error(origin, id, index, "'group' must be a group number or name");
        goto out;
    }

    if ((rc = strings_of(&r->keywords, &r->nkeywords, json_object_get(j, "keywords"), true,
                         "keywords", origin, id, index)) ||
        (rc = strings_of(&r->prefixes, &r->nprefixes, json_object_get(j, "prefixes"), false,
                         "prefixes", origin, id, index)) ||
        (rc = strings_of(&r->context, &r->ncontext, json_object_get(j, "context"), true, "context",
                         origin, id, index)))
        goto out;
    r->has_keywords = r->nkeywords + r->nprefixes > 0;

    const json_t *v;
    if ((v = json_object_get(j, "digits"))) {
        /* `digits: N`, or `digits: {min: N, upper_before: K, upper_after: true,
         * plus_before: true, dots: true}` (scan_prefilter.c says what each means) */
        size_t d;
        const json_t *min = json_is_object(v) ? json_object_get(v, "min") : v;
        if ((rc = size_field(&d, min, 2, 64, "digits", origin, id, index)))
            goto out;
        r->digits = (unsigned)d;
        const char *dk;
        json_t *dv;
        json_object_foreach((json_t *)(json_is_object(v) ? v : NULL), dk, dv)
        {
            if (strcmp(dk, "min") == 0)
                continue;
            if (strcmp(dk, "upper_before") == 0) {
                if ((rc = size_field(&d, dv, 1, 8, "digits.upper_before", origin, id, index)))
                    goto out;
                r->digit_shape.upper_before = (unsigned)d;
            } else if (strcmp(dk, "upper_after") == 0 || strcmp(dk, "plus_before") == 0 ||
                       strcmp(dk, "dots") == 0) {
                if (!json_is_true(dv)) {
                    rc = rule_error(origin, id, index, "'digits.%s' can only be true", dk);
                    goto out;
                }
                if (strcmp(dk, "upper_after") == 0)
                    r->digit_shape.upper_after = true;
                else if (strcmp(dk, "plus_before") == 0)
                    r->digit_shape.plus_before = true;
                else
                    r->digit_shape.dots = true;
            } else {
                rc = rule_error(origin, id, index,
                                "unknown key 'digits.%s' (expected min, upper_before, "
                                "upper_after, plus_before or dots)",
                                dk);
                goto out;
            }
        }
    }
    r->always = !r->has_keywords && !r->digits;

    r->before = DEFAULT_BEFORE;
    r->after = DEFAULT_AFTER;
    if ((v = json_object_get(j, "window"))) {
        if (json_is_array(v) && json_array_size(v) == 2) {
            if ((rc = size_field(&r->before, json_array_get(v, 0), 0, WINDOW_MAX, "window", origin,
                                 id, index)) ||
                (rc = size_field(&r->after, json_array_get(v, 1), 0, WINDOW_MAX, "window", origin,
                                 id, index)))
                goto out;
        } else {
            if ((rc = size_field(&r->before, v, 0, WINDOW_MAX, "window", origin, id, index)))
                goto out;
            r->after = r->before;
        }
    }
    if ((v = json_object_get(j, "multiline"))) {
        if (!json_is_boolean(v)) {
            rc = rule_error(origin, id, index, "'multiline' must be true or false");
            goto out;
        }
        r->multiline = json_is_true(v);
    }
    r->placeholders = r->cls == MN_SCAN_SECRET;
    if ((v = json_object_get(j, "placeholders"))) {
        if (!json_is_boolean(v)) {
            rc = rule_error(origin, id, index, "'placeholders' must be true or false");
            goto out;
        }
        r->placeholders = json_is_true(v);
    }
    if ((v = json_object_get(j, "context_if_bare"))) {
        if (!json_is_boolean(v)) {
            rc = rule_error(origin, id, index, "'context_if_bare' must be true or false");
            goto out;
        }
        r->context_if_bare = json_is_true(v);
    }
    if ((v = json_object_get(j, "entropy"))) {
        if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 8) {
            rc = rule_error(origin, id, index,
                            "'entropy' must be a number from 0 to 8 (bits per "
                            "character)");
            goto out;
        }
        r->min_entropy = json_number_value(v);
    }
    if ((v = json_object_get(j, "min_length")) &&
        (rc = size_field(&r->min_len, v, 0, 4096, "min_length", origin, id, index)))
        goto out;
    r->context_window = DEFAULT_CONTEXT;
    if ((v = json_object_get(j, "context_window")) &&
        (rc = size_field(&r->context_window, v, 1, 4096, "context_window", origin, id, index)))
        goto out;

    if ((v = json_object_get(j, "checks"))) {
        const char *const *names = NULL;
        size_t n = 0;
        if ((rc = strings_of(&names, &n, v, false, "checks", origin, id, index)))
            goto out;
        if (n > MN_SCAN__MAX_CHECKS) {
            free_strings(names, n);
            rc = rule_error(origin, id, index, "at most %d checks", MN_SCAN__MAX_CHECKS);
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            if (mn_scan__check_parse(&r->checks[r->nchecks++], names[i]) != 0) {
                rc = rule_error(origin, id, index, "unknown check '%s'", names[i]);
                free_strings(names, n);
                goto out;
            }
        free_strings(names, n);
    }

    if ((v = json_object_get(j, "allow"))) {
        if (!json_is_array(v) && !json_is_string(v)) {
            rc = rule_error(origin, id, index, "'allow' must be a list of regexes");
            goto out;
        }
        /* allow-list regexes may be long: read them without WORD_MAX */
        size_t n = json_is_array(v) ? json_array_size(v) : 1;
        if (n > LIST_MAX) {
            rc = rule_error(origin, id, index, "'allow' has more than %d entries", LIST_MAX);
            goto out;
        }
        char **pats = mn_calloc(n ? n : 1, sizeof(*pats));
        r->allow = (const char *const *)pats;
        r->lazy->allow = mn_calloc(n ? n : 1, sizeof(*r->lazy->allow));
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
            if (!json_is_string(e) || json_string_length(e) == 0 ||
                json_string_length(e) > PATTERN_MAX) {
                rc = rule_error(origin, id, index, "'allow' entries must be regexes (strings)");
                goto out;
            }
            pats[i] = mn_strndup(json_string_value(e), json_string_length(e));
            r->nallow++;
            /* run on a match's secret part (a few bytes): no JIT */
            r->lazy->allow[i] = compile(pats[i], strlen(pats[i]), false, false, why, sizeof(why));
            if (!r->lazy->allow[i]) {
                rc = rule_error(origin, id, index, "allow pattern '%.60s' %s", pats[i], why);
                goto out;
            }
        }
    }
out:
    if (rc)
        rule_release(r);
    return rc;
}

static int file_error(const char *origin, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int file_error(const char *origin, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return mn_error_set(MN_EINVAL, "scan rules '%s': %s", origin, msg);
}

/* The `allow` section of a project's file. */
static int parse_allow(mn_scanner *s, const json_t *a, const char *origin)
{
    char why[384];
    if (!json_is_object(a))
        return file_error(origin, "'allow' must be a mapping with values, patterns and paths");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)a, key, val)
    {
        if (strcmp(key, "values") && strcmp(key, "patterns") && strcmp(key, "paths"))
            return file_error(origin,
                              "allow: unknown key '%s' (expected values, patterns or paths)", key);
        if (!json_is_array(val) || json_array_size(val) > 10000)
            return file_error(origin, "allow: '%s' must be a list of strings", key);
        for (size_t i = 0; i < json_array_size(val); i++) {
            const json_t *e = json_array_get(val, i);
            if (!json_is_string(e) || json_string_length(e) == 0 ||
                json_string_length(e) > PATTERN_MAX)
                return file_error(origin, "allow: '%s' entry %zu must be a non-empty string", key,
                                  i + 1);
            const char *str = json_string_value(e);
            size_t len = json_string_length(e);
            if (strcmp(key, "values") == 0) {
                s->allow_values =
                    mn_realloc(s->allow_values, (s->nallow_values + 1) * sizeof(char *));
                s->allow_values[s->nallow_values++] = mn_strndup(str, len);
            } else if (strcmp(key, "paths") == 0) {
                s->allow_paths = mn_realloc(s->allow_paths, (s->nallow_paths + 1) * sizeof(char *));
                s->allow_paths[s->nallow_paths++] = mn_strndup(str, len);
            } else {
                pcre2_code *re = compile(str, len, false, true, why, sizeof(why));
                if (!re)
                    return file_error(origin, "allow: pattern '%.60s' %s", str, why);
                s->allow_res =
                    mn_realloc(s->allow_res, (s->nallow_res + 1) * sizeof(*s->allow_res));
                s->allow_res[s->nallow_res++] = re;
            }
        }
    }
    return 0;
}

int mn_scan__load(mn_scanner *s, const char *yaml, size_t len, const char *origin, bool user)
{
    json_t *docs = NULL;
    int rc = mn_yaml_parse_docs(&docs, yaml, len);
    if (rc) {
        rc = mn_error_prefix("scan rules '%s'", origin);
        goto out;
    }
    if (json_array_size(docs) == 0)
        goto out; /* an empty file adds nothing */
    if (json_array_size(docs) > 1) {
        rc = file_error(origin, "holds %zu YAML documents; put everything in one",
                        json_array_size(docs));
        goto out;
    }
    const json_t *top = json_array_get(docs, 0);
    if (json_is_null(top))
        goto out;
    if (!json_is_object(top)) {
        rc = file_error(origin, "must be a mapping with 'rules'%s",
                        user ? ", 'disable' and 'allow'" : "");
        goto out;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)top, key, val)
    {
        bool known = strcmp(key, "rules") == 0 || strcmp(key, "version") == 0 ||
                     (user && (strcmp(key, "disable") == 0 || strcmp(key, "allow") == 0));
        if (!known) {
            rc = file_error(origin, "unknown key '%s' (expected %s)", key,
                            user ? "version, rules, disable or allow" : "version or rules");
            goto out;
        }
    }
    const json_t *ver = json_object_get(top, "version");
    if (ver && !(json_is_integer(ver) && json_integer_value(ver) == 1)) {
        rc = file_error(origin, "'version' must be 1");
        goto out;
    }
    const json_t *dis = json_object_get(top, "disable");
    if (dis) {
        if (!json_is_array(dis)) {
            rc = file_error(origin, "'disable' must be a list of rule ids");
            goto out;
        }
        /* A disabled rule keeps its place (the built-in automaton, shared,
         * names rules by index) and never runs. */
        for (size_t i = 0; i < json_array_size(dis); i++) {
            const json_t *e = json_array_get(dis, i);
            const char *id = json_is_string(e) ? json_string_value(e) : NULL;
            ptrdiff_t k = id ? find_rule(s, id) : -1;
            if (k < 0) {
                rc = file_error(origin,
                                "disable: no rule '%s' to disable (see `docs/internals/"
                                "scan.md` for the built-in ids)",
                                id ? id : "(not a string)");
                goto out;
            }
            s->rules[k].disabled = true;
        }
    }
    const json_t *rules = json_object_get(top, "rules");
    if (rules && !json_is_array(rules)) {
        rc = file_error(origin, "'rules' must be a list of rules");
        goto out;
    }
    if (s->nrules + json_array_size(rules) > RULES_MAX) {
        rc = file_error(origin, "more than %d rules", RULES_MAX);
        goto out;
    }
    for (size_t i = 0; i < json_array_size(rules); i++) {
        mn_scan__rule r;
        memset(&r, 0, sizeof(r));
        if ((rc = parse_rule(&r, s, json_array_get(rules, i), origin, i, user)))
            goto out;
        s->rules = mn_realloc(s->rules, (s->nrules + 1) * sizeof(*s->rules));
        s->rules[s->nrules++] = r;
    }
    const json_t *allow = json_object_get(top, "allow");
    if (allow && (rc = parse_allow(s, allow, origin)))
        goto out;
out:
    json_decref(docs);
    return rc;
}

static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;

mn_scan__jit_policy mn_scan__jit = MN_SCAN__JIT_POLICY_INIT;

/* The rule's code, made under lazy_lock: the pattern compiled (or the code
 * compiled when the file was read) and its allow-list regexes, published
 * once all of it is ready. Its first use by 8 threads at once is a test
 * (unit/text/scan, test_threads_first_use). */
static pcre2_code *first_use(const mn_scan__rule *r)
{
    mn_scan__lazy *l = r->lazy;
    char why[384];
    pcre2_code *code = l->pending;
    pcre2_code **allow = l->allow;
    if (!code && !(code = compile(r->pattern, r->pattern_len, true, false, why, sizeof(why)))) {
        /* a built-in pattern compiled when mnemo was built: out of memory,
         * or a PCRE2 at run time that differs from the one at build time */
        mn_error_set(MN_EINTERNAL, "scan: rule '%s': pattern %s", r->id, why);
        return NULL;
    }
    if (!allow && r->nallow) {
        allow = mn_calloc(r->nallow, sizeof(*allow));
        for (size_t i = 0; i < r->nallow; i++)
            if (!(allow[i] =
                      compile(r->allow[i], strlen(r->allow[i]), false, false, why, sizeof(why)))) {
                mn_error_set(MN_EINTERNAL, "scan: rule '%s': allow pattern %s", r->id, why);
                free_codes(allow, i);
                if (code != l->pending)
                    pcre2_code_free(code);
                return NULL;
            }
    }
    l->pending = NULL;
    l->allow = allow;
    atomic_store_explicit(&l->code, code, memory_order_release);
    return code;
}

/* The JIT copy of code, made under lazy_lock: a copy, since other threads
 * may be running the interpreted code; the interpreted code when the copy
 * cannot be made (out of memory: the interpreter gives the same hits). */
static const pcre2_code *jit_copy(const mn_scan__rule *r, pcre2_code *code)
{
    pcre2_code *jit = pcre2_code_copy(code);
    if (!jit)
        return code;
    (void)pcre2_jit_compile(jit, PCRE2_JIT_COMPLETE);
    atomic_store_explicit(&r->lazy->jit, jit, memory_order_release);
    return jit;
}

const pcre2_code *mn_scan__code(const mn_scan__rule *r, size_t bytes, bool *timed)
{
    mn_scan__lazy *l = r->lazy;
    *timed = false;
    pcre2_code *jit = atomic_load_explicit(&l->jit, memory_order_acquire);
    if (jit)
        return jit;
    pcre2_code *code = atomic_load_explicit(&l->code, memory_order_acquire);
    bool hot = use_jit() &&
               (bytes >= mn_scan__jit.window ||
                atomic_load_explicit(&l->spent_ns, memory_order_relaxed) >= mn_scan__jit.after_ns);
    if (code && !hot) {
        *timed = use_jit();
        return code;
    }
    const pcre2_code *out;
    pthread_mutex_lock(&lazy_lock);
    code = atomic_load_explicit(&l->code, memory_order_relaxed);
    if (!code)
        code = first_use(r);
    out = code;
    if (code && hot) {
        jit = atomic_load_explicit(&l->jit, memory_order_relaxed);
        out = jit ? jit : jit_copy(r, code);
    }
    pthread_mutex_unlock(&lazy_lock);
    *timed = out == code && use_jit();
    return out;
}

void mn_scan__spent(const mn_scan__rule *r, uint64_t ns)
{
    atomic_fetch_add_explicit(&r->lazy->spent_ns, ns, memory_order_relaxed);
}

void mn_scan__borrow(mn_scanner *s, const mn_scanner *base)
{
    s->rules = mn_calloc(base->nrules ? base->nrules : 1, sizeof(*s->rules));
    for (size_t i = 0; i < base->nrules; i++) {
        s->rules[i] = base->rules[i];
        s->rules[i].borrowed = true;
    }
    s->nrules = base->nrules;
}

int mn_scan__finish(mn_scanner *s, const mn_scanner *base)
{
    free((void *)s->ids);
    const char **ids = mn_calloc(s->nrules + 1, sizeof(*ids));
    s->ids = ids;
    s->nids = 0;
    s->min_digits = 0;
    s->max_groups = 0;
    bool own_keywords = false;
    for (size_t i = 0; i < s->nrules; i++) {
        const mn_scan__rule *r = &s->rules[i];
        if (r->disabled)
            continue;
        ids[s->nids++] = r->id;
        if (r->ncap > s->max_groups)
            s->max_groups = r->ncap;
        if (r->digits && (!s->min_digits || r->digits < s->min_digits))
            s->min_digits = r->digits;
        own_keywords |= !r->borrowed && r->has_keywords;
    }
    mn_scan__ac_release(&s->ac);
    if (base && !own_keywords) {
        /* The built-in automaton names the same rules by the same indexes
         * (a disabled rule keeps its place; the prefilter skips it): share
         * it rather than build it again. */
        s->ac = base->ac;
        s->ac.shared = true;
        return 0;
    }
    /* One keyword entry per distinct (text, case rule); each lists its
     * rules once, in order. Two passes over the rules' triggers (a hash
     * table finds the entry; the first pass counts, the second fills), so
     * that a project's file with a hundred keywords costs no quadratic
     * search. */
    size_t cap = 1;
    for (size_t i = 0; i < s->nrules; i++)
        if (!s->rules[i].disabled)
            cap += s->rules[i].nkeywords + s->rules[i].nprefixes;
    size_t hcap = 16;
    while (hcap < 2 * cap)
        hcap *= 2;
    mn_scan__keyword *kw = mn_calloc(cap, sizeof(*kw));
    uint32_t *table = mn_calloc(hcap, sizeof(*table)); /* keyword index + 1; 0: empty */
    uint32_t *last = mn_calloc(cap, sizeof(*last));    /* per keyword: last rule + 1 counted */
    size_t nkw = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < s->nrules; i++) {
            const mn_scan__rule *r = &s->rules[i];
            if (r->disabled)
                continue;
            for (size_t k = 0; k < r->nkeywords + r->nprefixes; k++) {
                bool exact = k >= r->nkeywords;
                const char *t = exact ? r->prefixes[k - r->nkeywords] : r->keywords[k];
                size_t len = strlen(t);
                uint64_t h = exact ? 0x9e3779b97f4a7c15ull : 0xcbf29ce484222325ull; /* FNV-1a */
                for (size_t b = 0; b < len; b++)
                    h = (h ^ (uint8_t)t[b]) * 0x100000001b3ull;
                size_t at = (size_t)h & (hcap - 1);
                while (table[at] &&
                       !(kw[table[at] - 1].exact_case == exact && kw[table[at] - 1].len == len &&
                         memcmp(kw[table[at] - 1].text, t, len) == 0))
                    at = (at + 1) & (hcap - 1);
                if (!table[at]) {
                    kw[nkw].text = mn_strndup(t, len);
                    kw[nkw].len = len;
                    kw[nkw].exact_case = exact;
                    table[at] = (uint32_t)++nkw;
                }
                mn_scan__keyword *w = &kw[table[at] - 1];
                uint32_t *l = &last[table[at] - 1];
                if (*l == (uint32_t)i + 1)
                    continue; /* the rule is listed already */
                *l = (uint32_t)i + 1;
                if (pass == 0)
                    w->nrules++;
                else
                    ((uint32_t *)w->rules)[w->nrules++] = (uint32_t)i;
            }
        }
        if (pass == 0) {
            for (size_t j = 0; j < nkw; j++) {
                kw[j].rules = mn_malloc(kw[j].nrules * sizeof(uint32_t));
                kw[j].nrules = 0;
                last[j] = 0;
            }
        }
    }
    free(table);
    free(last);
    /* where redaction markers start, found in the same pass (scan.c blanks them) */
    kw[nkw].text = mn_strdup("[REDACTED:");
    kw[nkw].len = strlen(kw[nkw].text);
    kw[nkw].exact_case = true;
    kw[nkw].marker = true;
    nkw++;
    return mn_scan__ac_build(&s->ac, kw, nkw); /* takes kw */
}

void mn_scan__release(mn_scanner *s)
{
    for (size_t i = 0; i < s->nrules; i++)
        rule_release(&s->rules[i]);
    free(s->rules);
    free((void *)s->ids);
    mn_scan__ac_release(&s->ac);
    pcre2_match_context_free(s->mctx);
    free_strings((const char *const *)s->allow_values, s->nallow_values);
    free_codes(s->allow_res, s->nallow_res);
    free_strings((const char *const *)s->allow_paths, s->nallow_paths);
    memset(s, 0, sizeof(*s));
}
