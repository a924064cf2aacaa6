/*
 * refs.c - the issues a text refers to (ingest.h: mn_issue_refs).
 *
 *   #123, GH-123            a GitHub issue or pull request: "#123"
 *   CS-214, PROJ_X-12       a Jira or YouTrack key: two or more capitals
 *                           (digits, '_' after the first), '-', digits
 *
 * A closing word right before the id (fix, fixes, fixed, close, closes,
 * closed, resolve, resolves, resolved; a ':' allowed) makes it "fixes";
 * any other mention is "mentions". Not ids: a '#' inside a word or an
 * HTML entity (&#123;), owner/repo#123 (another repository), and the
 * standards and algorithms written like keys (UTF-8, ISO-8859, SHA-256,
 * RFC-2616, PEP-8, CVE-2021-...).
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest.h"

#define MAX_REFS 16

static const char *const not_keys[] = {
    "UTF", "ISO", "SHA", "RFC",  "PEP", "AES", "RSA",    "TLS",  "SSL",  "HTTP", "CVE",
    "MD",  "CP",  "WIN", "X",    "IE",  "ES",  "ECMA",   "IEEE", "ANSI", "GCC",  "CWE",
    "PY",  "CC",  "GPL", "LGPL", "BSD", "MIT", "APACHE", "MPL",  "EPSG", "UCS"};

static bool closing_before(const char *text, const char *at)
{
    static const char *const words[] = {"fixes", "fixed",    "fix",      "closes", "closed",
                                        "close", "resolves", "resolved", "resolve"};
    const char *p = at;
    while (p > text && (p[-1] == ' ' || p[-1] == ':' || p[-1] == '\t'))
        p--;
    const char *e = p;
    while (p > text && isalpha((unsigned char)p[-1]))
        p--;
    size_t n = (size_t)(e - p);
    for (size_t i = 0; i < MN_ARRAY_SIZE(words); i++)
        if (strlen(words[i]) == n && !strncasecmp(p, words[i], n))
            return true;
    return false;
}

static void add(json_t *out, const char *id, bool fixes)
{
    size_t i;
    json_t *r;
    json_array_foreach(out, i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "task")), id)) {
            if (fixes)
                json_object_set_new(r, "kind", json_string("fixes"));
            return;
        }
    }
    if (json_array_size(out) < MAX_REFS)
        json_array_append_new(
            out, json_pack("{s:s,s:s}", "task", id, "kind", fixes ? "fixes" : "mentions"));
}

void mn_issue_refs(json_t **out, const char *text, size_t len)
{
    *out = json_array();
    const char *end = text + len;
    for (const char *p = text; p < end; p++) {
        bool word_start =
            p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-' ||
                           p[-1] == '/' || p[-1] == '&' || p[-1] == '.');
        /* #123 and GH-123 */
        const char *num = NULL;
        if (*p == '#' && (p == text || (p[-1] != '&' && !isalnum((unsigned char)p[-1]) &&
                                        p[-1] != '/' && p[-1] != '#')))
            num = p + 1;
        else if (word_start && end - p > 3 && !strncmp(p, "GH-", 3))
            num = p + 3;
        if (num && num < end && isdigit((unsigned char)*num)) {
            const char *q = num;
            while (q < end && isdigit((unsigned char)*q) && q - num < 9)
                q++;
            if (q < end && (isalpha((unsigned char)*q) || *q == '_'))
                continue; /* #123abc: a colour, an anchor */
            char id[16];
            snprintf(id, sizeof(id), "#%.*s", (int)(q - num), num);
            add(*out, id, closing_before(text, p));
            p = q - 1;
            continue;
        }
        /* KEY-123 */
        if (!word_start || !isupper((unsigned char)*p))
            continue;
        const char *q = p;
        while (q < end && (isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_') &&
               q - p < 12)
            q++;
        size_t klen = (size_t)(q - p);
        if (klen < 2 || q >= end || *q != '-' || q + 1 >= end || !isdigit((unsigned char)q[1]))
            continue;
        const char *d = q + 1;
        while (d < end && isdigit((unsigned char)*d) && d - q < 9)
            d++;
        if (d < end && (isalnum((unsigned char)*d) || *d == '_' ||
                        (*d == '-' && d + 1 < end && isdigit((unsigned char)d[1]))))
            continue; /* CVE-2021-1234, UTF-8x */
        bool stop = false;
        for (size_t i = 0; i < MN_ARRAY_SIZE(not_keys) && !stop; i++)
            stop = strlen(not_keys[i]) == klen && !strncmp(not_keys[i], p, klen);
        if (stop || !strncmp(p, "GH", 2))
            continue;
        char id[32];
        snprintf(id, sizeof(id), "%.*s", (int)(d - p), p);
        add(*out, id, closing_before(text, p));
        p = d - 1;
    }
}
