/*
 * judge.c - the judge of the save pipeline; see judge.h for the scores and
 * the formula.
 *
 * Specificity counts anchors in the memory's words (title, body, situation,
 * solution, what failed, error messages), each kind at most once per
 * distinct token:
 *   a path      a token with a '/' or ending in a file extension ("cart/
 *               session.py", "settings.py");
 *   a name      an identifier shaped like code: an '_' inside, a lower-case
 *               letter followed by a capital, "::", or a call "f()";
 *   an error    error messages given, or a token ending in Error or
 *               Exception;
 *   a number    a token with a digit ("30s", "401", "2.31.0"), at most two.
 * specificity = min(1, anchors / 4): four anchors make a memory checkable.
 * Length is of the same words: < 20 bytes 0.2 (nothing to act on), < 60
 * bytes 0.6, up to 4,000 bytes 1, longer 0.7 (a document, not a memory).
 */
#include "common.h"
#include <ctype.h>

#include "memory/judge.h"
#include "util/map.h"

#define MAX_NUMBERS 2

static const char *str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static bool has_extension(const char *t, size_t n)
{
    static const char *const exts[] = {
        "py",  "c",    "h",    "cc",   "cpp", "hpp", "js",    "jsx", "ts",   "tsx", "go",
        "rs",  "java", "kt",   "rb",   "php", "cs",  "swift", "m",   "md",   "rst", "txt",
        "yml", "yaml", "json", "toml", "ini", "cfg", "sh",    "sql", "html", "css", "lock"};
    const char *dot = NULL;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '.')
            dot = t + i;
    if (!dot || dot == t || dot == t + n - 1)
        return false;
    size_t elen = (size_t)(t + n - dot - 1);
    for (size_t i = 0; i < MN_ARRAY_SIZE(exts); i++)
        if (strlen(exts[i]) == elen && strncmp(dot + 1, exts[i], elen) == 0)
            return true;
    return false;
}

static bool code_name(const char *t, size_t n)
{
    if (n >= 3 && t[n - 2] == '(' && t[n - 1] == ')')
        return true;
    for (size_t i = 1; i + 1 < n; i++) {
        if (t[i] == '_' && isalnum((unsigned char)t[i - 1]) && isalnum((unsigned char)t[i + 1]))
            return true;
        if (t[i] == ':' && t[i + 1] == ':')
            return true;
        if (islower((unsigned char)t[i - 1]) && isupper((unsigned char)t[i]))
            return true;
    }
    return false;
}

static bool ends_with(const char *t, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n > k && strncmp(t + n - k, suffix, k) == 0;
}

typedef struct {
    mn_map seen; /* distinct tokens already counted */
    int paths, names, errors, numbers;
} anchors;

static void count_token(anchors *a, const char *t, size_t n)
{
    /* trailing punctuation a sentence puts after a token */
    while (n && strchr(".,;:!?)'\"`", t[n - 1]) && !(n >= 2 && t[n - 2] == '(' && t[n - 1] == ')'))
        n--;
    while (n && strchr("('\"`", t[0]))
        t++, n--;
    if (n < 2)
        return;
    char *key = mn_strndup(t, n);
    if (mn_map_has(&a->seen, key)) {
        free(key);
        return;
    }
    mn_map_set(&a->seen, key, NULL);
    free(key);
    bool digit = false;
    for (size_t i = 0; i < n; i++)
        digit |= isdigit((unsigned char)t[i]) != 0;
    if ((memchr(t, '/', n) && n > 2) || has_extension(t, n))
        a->paths++;
    else if (ends_with(t, n, "Error") || ends_with(t, n, "Exception"))
        a->errors++;
    else if (code_name(t, n))
        a->names++;
    else if (digit && a->numbers < MAX_NUMBERS)
        a->numbers++;
}

static void count_text(anchors *a, const char *s)
{
    if (!s)
        return;
    while (*s) {
        while (*s && isspace((unsigned char)*s))
            s++;
        const char *t = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (s > t)
            count_token(a, t, (size_t)(s - t));
    }
}

static size_t words_len(const json_t *mem)
{
    const json_t *c = json_object_get(mem, "context");
    size_t n = json_string_length(json_object_get(mem, "title")) +
               json_string_length(json_object_get(mem, "body"));
    for (const char *const *f = (const char *const[]){"situation", "solution", "what_failed", NULL};
         *f; f++)
        n += json_string_length(json_object_get(c, *f));
    return n;
}

static double evidence_of(const json_t *mem, const json_t *links, const char **why)
{
    const json_t *prov = json_object_get(mem, "provenance");
    size_t i;
    json_t *l;
    if (str(prov, "commit")) {
        *why = "evidence: a commit";
        return 1;
    }
    if (str(prov, "task")) {
        *why = "evidence: an issue or task";
        return 1;
    }
    if (json_array_size(json_object_get(mem, "citations"))) {
        *why = "evidence: cited code";
        return 1;
    }
    json_array_foreach(links, i, l)
    {
        const char *to = str(l, "to");
        if (to && (!strncmp(to, "commit:", 7) || !strncmp(to, "issue:", 6) ||
                   !strncmp(to, "task:", 5) || !strncmp(to, "file:", 5))) {
            *why = "evidence: a link to a commit, issue or file";
            return 1;
        }
    }
    if (json_array_size(json_object_get(json_object_get(mem, "context"), "files_modified")) ||
        json_array_size(json_object_get(json_object_get(mem, "scope"), "paths"))) {
        *why = "some evidence: the files it is about";
        return 0.5;
    }
    *why = "no evidence: no commit, issue, citation or file";
    return 0;
}

json_t *mn_memory_judge(const json_t *mem, const json_t *links, double nearest)
{
    json_t *reasons = json_array();
    const json_t *c = json_object_get(mem, "context");
    anchors a = {MN_MAP_INIT, 0, 0, 0, 0};
    count_text(&a, str(mem, "title"));
    count_text(&a, str(mem, "body"));
    for (const char *const *f = (const char *const[]){"situation", "solution", "what_failed", NULL};
         *f; f++)
        count_text(&a, str(c, *f));
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(c, "error_messages"), i, e)
        count_text(&a, json_string_value(e));
    if (json_array_size(json_object_get(c, "error_messages")))
        a.errors++;
    mn_map_release(&a.seen);

    double novelty = nearest > 0 ? 1 - nearest : 1;
    if (nearest > 0)
        json_array_append_new(reasons, json_sprintf("novelty %.2f: the nearest memory is %.0f%% "
                                                    "similar",
                                                    novelty, 100 * nearest));
    else
        json_array_append_new(reasons, json_string("novel: no similar memory"));

    int n = a.paths + a.names + (a.errors ? 2 : 0) + a.numbers;
    double specificity = n >= 4 ? 1 : n / 4.0;
    if (n)
        json_array_append_new(reasons,
                              json_sprintf("specific: %d path%s, %d name%s, %s%d number%s", a.paths,
                                           a.paths == 1 ? "" : "s", a.names,
                                           a.names == 1 ? "" : "s", a.errors ? "an error, " : "",
                                           a.numbers, a.numbers == 1 ? "" : "s"));
    else
        json_array_append_new(reasons, json_string("not specific: no path, name, error or number"));

    const char *why = NULL;
    double evidence = evidence_of(mem, links, &why);
    json_array_append_new(reasons, json_string(why));

    size_t len = words_len(mem);
    double length = len < 20 ? 0.2 : len < 60 ? 0.6 : len <= 4000 ? 1 : 0.7;
    if (len < 60)
        json_array_append_new(reasons, json_sprintf("short: %zu bytes", len));
    else if (len > 4000)
        json_array_append_new(reasons, json_sprintf("long: %zu bytes, a document more than a "
                                                    "memory",
                                                    len));

    double score = 0.15 + 0.25 * novelty + 0.25 * specificity + 0.20 * evidence + 0.15 * length;
    /* two decimals: a judgement is read by people and compared in tests */
#define R2(x) (double)(int)((x)*100 + 0.5) / 100
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:o}", "score", R2(score), "novelty", R2(novelty),
                     "specificity", R2(specificity), "evidence", R2(evidence), "length", R2(length),
                     "reasons", reasons);
#undef R2
}
