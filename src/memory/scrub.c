/*
 * scrub.c - redact secrets and personal data in every string of a JSON
 * value; see scrub.h.
 *
 * Most strings hold nothing: mn_scan_any decides that in one pass, and only
 * a string with a hit is rewritten (mn_scan_redact) and replaced in place
 * with json_string_setn, so a large answer with nothing secret costs one
 * scan of its text and no allocation.
 */
#include "common.h"

#include "memory/scrub.h"

static void note_rule(mn_scrub_report *rep, const char *rule)
{
    size_t i;
    json_t *r;
    if (!rep->rules)
        rep->rules = json_array();
    json_array_foreach(rep->rules, i, r) if (strcmp(json_string_value(r), rule) == 0) return;
    json_array_append_new(rep->rules, json_string(rule));
}

static int scrub_string(json_t *v, const mn_scanner *sc, unsigned classes, mn_scrub_report *rep)
{
    const char *text = json_string_value(v);
    size_t len = json_string_length(v);
    if (rep)
        rep->bytes += len;
    if (!len || !mn_scan_any(sc, text, len, classes))
        return 0;
    mn_scan_hit *hits = NULL;
    size_t n = 0;
    int rc = mn_scan_find(&hits, &n, sc, text, len, classes);
    if (rc || n == 0) {
        free(hits);
        return rc;
    }
    mn_buf out = MN_BUF_INIT;
    mn_scan_summary sum;
    rc = mn_scan_redact(&out, sc, text, len, classes, &sum);
    if (rc == 0) {
        if (rep) {
            rep->secrets += sum.secrets;
            rep->pii += sum.pii;
            rep->redacted += sum.bytes;
            rep->strings_changed++;
            for (size_t i = 0; i < n; i++)
                note_rule(rep, hits[i].rule);
        }
        if (json_string_setn(v, out.ptr, out.len) != 0)
            rc = mn_error_set(MN_ENOMEM, "cannot replace a redacted string");
    }
    mn_buf_release(&out);
    free(hits);
    return rc;
}

int mn_scrub_json(json_t *v, const mn_scanner *sc, unsigned classes, mn_scrub_report *rep)
{
    size_t i;
    json_t *x;
    const char *key;
    int rc = 0;
    switch (json_typeof(v)) {
    case JSON_STRING:
        return scrub_string(v, sc, classes, rep);
    case JSON_ARRAY:
        json_array_foreach(v, i, x) if ((rc = mn_scrub_json(x, sc, classes, rep)) != 0) return rc;
        return 0;
    case JSON_OBJECT:
        json_object_foreach(v, key, x) if ((rc = mn_scrub_json(x, sc, classes, rep)) != 0) return rc;
        return 0;
    default:
        return 0;
    }
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

bool mn_scrub_mostly_redacted(const mn_scrub_report *rep)
{
    if (!rep->redacted)
        return false;
    size_t left = rep->bytes > rep->redacted ? rep->bytes - rep->redacted : 0;
    return rep->redacted * 5 > rep->bytes * 4 || left < MN_SCRUB_MIN_LEFT;
}

void mn_scrub_report_release(mn_scrub_report *rep)
{
    json_decref(rep->rules);
    rep->rules = NULL;
}
