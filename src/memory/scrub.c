/*
 * scrub.c - redact secrets and personal data in every string of a JSON
 * value; see scrub.h.
 *
 * Two passes. The first scans every string once (mn_scan_find_redact: the
 * hits and the redacted text from one scan; only a string with a hit is
 * rewritten) and keeps the text of each hit. The second, only when the first found something,
 * replaces every other occurrence of those texts anywhere in the value: a
 * password is recognised in "password = hunter22" but not when the same
 * memory repeats it bare as a tag or a keyword, and an answer that quotes a
 * memory's body and its keywords must not give back in one field what it
 * took out of another. An occurrence counts only as a whole word (no letter
 * or digit on either side), so a short value does not eat into longer
 * numbers or names.
 */
#include "common.h"

#include "memory/scrub.h"
#include "util/vec.h"

/* A hit's text shorter than this is not looked for elsewhere (too common to be telling). */
#define ECHO_MIN 6

typedef struct {
    char *text;
    size_t len;
    const char *rule;
} echo;

typedef struct {
    const mn_scanner *sc;
    unsigned classes;
    mn_scrub_report *rep;
    MN_VEC(echo) echoes;
} scrub_state;

static void note_rule(mn_scrub_report *rep, const char *rule)
{
    size_t i;
    json_t *r;
    if (!rep->rules)
        rep->rules = json_array();
    json_array_foreach(rep->rules, i, r) if (strcmp(json_string_value(r), rule) == 0) return;
    json_array_append_new(rep->rules, json_string(rule));
}

static void keep_echo(scrub_state *st, const char *text, size_t len, const char *rule)
{
    if (len < ECHO_MIN)
        return;
    for (size_t i = 0; i < st->echoes.len; i++)
        if (st->echoes.items[i].len == len && !memcmp(st->echoes.items[i].text, text, len))
            return;
    echo e = {mn_strndup(text, len), len, rule};
    mn_vec_push(&st->echoes, e);
}

static int scrub_string(json_t *v, scrub_state *st)
{
    const char *text = json_string_value(v);
    size_t len = json_string_length(v);
    if (st->rep)
        st->rep->bytes += len;
    if (!len)
        return 0;
    mn_scan_hit *hits = NULL;
    size_t n = 0;
    mn_buf out = MN_BUF_INIT;
    mn_scan_summary sum;
    int rc = mn_scan_find_redact(&hits, &n, &out, st->sc, text, len, st->classes, &sum);
    if (rc == 0 && n) {
        for (size_t i = 0; i < n; i++) {
            keep_echo(st, text + hits[i].start, hits[i].end - hits[i].start, hits[i].rule);
            if (st->rep)
                note_rule(st->rep, hits[i].rule);
        }
        if (st->rep) {
            st->rep->secrets += sum.secrets;
            st->rep->pii += sum.pii;
            st->rep->redacted += sum.bytes;
            st->rep->strings_changed++;
        }
        if (json_string_setn(v, out.ptr, out.len) != 0)
            rc = mn_error_set(MN_ENOMEM, "cannot replace a redacted string");
    }
    mn_buf_release(&out);
    free(hits);
    return rc;
}

static bool word_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c >= 0x80;
}

/* The second pass on one string: whole-word occurrences of the hits' texts. */
static int unecho_string(json_t *v, scrub_state *st)
{
    const char *text = json_string_value(v);
    size_t len = json_string_length(v), from = 0;
    mn_buf out = MN_BUF_INIT;
    bool changed = false;
    for (size_t at = 0; at < len;) {
        const echo *hit = NULL;
        for (size_t i = 0; i < st->echoes.len && !hit; i++) {
            const echo *e = &st->echoes.items[i];
            if (e->len <= len - at && !memcmp(text + at, e->text, e->len) &&
                (at == 0 || !word_char((unsigned char)text[at - 1]) ||
                 !word_char((unsigned char)e->text[0])) &&
                (at + e->len == len || !word_char((unsigned char)text[at + e->len]) ||
                 !word_char((unsigned char)e->text[e->len - 1])))
                hit = e;
        }
        if (!hit) {
            at++;
            continue;
        }
        mn_buf_put(&out, text + from, at - from);
        mn_buf_printf(&out, "[REDACTED:%s]", hit->rule);
        if (st->rep)
            st->rep->redacted += hit->len;
        at += hit->len;
        from = at;
        changed = true;
    }
    int rc = 0;
    if (changed) {
        mn_buf_put(&out, text + from, len - from);
        if (json_string_setn(v, out.ptr, out.len) != 0)
            rc = mn_error_set(MN_ENOMEM, "cannot replace a redacted string");
        if (st->rep)
            st->rep->strings_changed++;
    }
    mn_buf_release(&out);
    return rc;
}

static int walk(json_t *v, scrub_state *st, int (*fn)(json_t *, scrub_state *))
{
    size_t i;
    json_t *x;
    const char *key;
    int rc = 0;
    switch (json_typeof(v)) {
    case JSON_STRING:
        return fn(v, st);
    case JSON_ARRAY:
        json_array_foreach(v, i, x) if ((rc = walk(x, st, fn)) != 0) return rc;
        return 0;
    case JSON_OBJECT:
        json_object_foreach(v, key, x) if ((rc = walk(x, st, fn)) != 0) return rc;
        return 0;
    default:
        return 0;
    }
}

int mn_scrub_json(json_t *v, const mn_scanner *sc, unsigned classes, mn_scrub_report *rep)
{
    scrub_state st = {sc, classes, rep, MN_VEC_INIT};
    int rc = walk(v, &st, scrub_string);
    if (rc == 0 && st.echoes.len)
        rc = walk(v, &st, unecho_string);
    for (size_t i = 0; i < st.echoes.len; i++)
        free(st.echoes.items[i].text);
    mn_vec_release(&st.echoes);
    return rc;
}

bool mn_scrub_json_any(const json_t *v, const mn_scanner *sc, unsigned classes)
{
    size_t i;
    json_t *x;
    const char *key;
    switch (json_typeof(v)) {
    case JSON_STRING:
        return mn_scan_any(sc, json_string_value(v), json_string_length(v), classes);
    case JSON_ARRAY:
        json_array_foreach(v, i, x) if (mn_scrub_json_any(x, sc, classes)) return true;
        return false;
    case JSON_OBJECT:
        json_object_foreach((json_t *)v, key, x) if (mn_scrub_json_any(x, sc, classes)) return true;
        return false;
    default:
        return false;
    }
}

size_t mn_scrub_marker_bytes(const json_t *v, size_t *total)
{
    size_t i, markers = 0;
    json_t *x;
    const char *key;
    switch (json_typeof(v)) {
    case JSON_STRING: {
        const char *t = json_string_value(v), *end = t + json_string_length(v), *p = t;
        *total += json_string_length(v);
        while ((p = memmem(p, (size_t)(end - p), "[REDACTED:", 10)) != NULL) {
            const char *close = memchr(p, ']', (size_t)(end - p));
            if (!close)
                break;
            markers += (size_t)(close + 1 - p);
            p = close + 1;
        }
        return markers;
    }
    case JSON_ARRAY:
        json_array_foreach(v, i, x) markers += mn_scrub_marker_bytes(x, total);
        return markers;
    case JSON_OBJECT:
        json_object_foreach((json_t *)v, key, x) markers += mn_scrub_marker_bytes(x, total);
        return markers;
    default:
        return 0;
    }
}

void mn_scrub_report_release(mn_scrub_report *rep)
{
    json_decref(rep->rules);
    rep->rules = NULL;
}
