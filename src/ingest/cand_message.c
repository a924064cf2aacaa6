/*
 * cand_message.c - what a commit message says in words: decisions
 * (text/decision.h, with MN_DECISION_COMMIT: the subject is a sentence,
 * trailers are left out) and gotchas (text/convo.h).
 *
 * Confidence: the detector's own (mostly 0.5-0.7) mapped onto the memory
 * scale by mn_ingest_detector_confidence (ingest.h: 0.7 -> 0.85, the
 * auto-approve default), plus 0.10 when the diff agrees: a dependency
 * the commit adds or drops is what the decision chose or replaced
 * ("Switch from chardet to charset_normalizer" with charset_normalizer
 * added to setup.py). The dependency extractor runs first (extractors.c),
 * so its candidates are in `out` already.
 *
 * Chains: a decision holds the state "chosen:<what it chose>" and
 * supersedes the states of what it replaced ("switched from A": the
 * decision that chose A), so `chain` follows one to the other (save.c).
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest_internal.h"
#include "text/convo.h"
#include "text/decision.h"

#define STATE_MAX 60 /* a chosen thing longer than this is a clause, not a name */

static char *span(const char *text, mn_text_span s)
{
    return mn_ingest_one_line(text + s.start, s.end - s.start);
}

/* Whether a dependency candidate of this commit names what the decision is about. */
static bool diff_agrees(const mn_candidate_vec *out, const char *text, const mn_decision *d)
{
    for (size_t i = 0; i < out->len; i++) {
        const mn_candidate *k = &out->items[i];
        if (strcmp(k->kind, "dependency") != 0 || !k->state_key)
            continue;
        const char *name = strrchr(k->state_key, ':');
        if (!name || strlen(name + 1) < 3)
            continue;
        name++;
        mn_text_span spans[1 + 2 * MN_DECISION_MAX_SPANS];
        size_t n = 0;
        spans[n++] = d->chosen.end > d->chosen.start ? d->chosen : d->statement;
        for (size_t j = 0; j < d->n_supersedes; j++)
            spans[n++] = d->supersedes[j];
        for (size_t j = 0; j < d->n_alternatives; j++)
            spans[n++] = d->alternatives[j];
        for (size_t j = 0; j < n; j++) {
            char *s = mn_ingest_norm(text + spans[j].start, spans[j].end - spans[j].start);
            /* pip folds - and _: so does the comparison */
            for (char *p = s; *p; p++)
                if (*p == '_' || *p == '.')
                    *p = '-';
            bool hit = strstr(s, name) != NULL;
            free(s);
            if (hit)
                return true;
        }
    }
    return false;
}

/*
 * The state a decision's chosen (or replaced) thing names: normalised, a
 * leading verb of adoption dropped ("Use charset_normalizer" ->
 * "charset-normalizer"), '_' and '.' folded to '-' as package names are, so
 * "switched from charset_normalizer" finds what "use charset-normalizer" chose.
 */
static char *state_of(const char *prefix, const char *text, mn_text_span s)
{
    static const char *const verbs[] = {"use ",     "using ",      "uses ",        "adopt ",
                                        "prefer ",  "switch to ",  "move to ",     "migrate to ",
                                        "go with ", "choose ",     "pick ",        "rely on ",
                                        "keep ",    "stick with ", "start using ", "we use "};
    if (s.end <= s.start)
        return NULL;
    char *n = mn_ingest_norm(text + s.start, s.end - s.start);
    char *p = n;
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < MN_ARRAY_SIZE(verbs); i++)
            if (!strncmp(p, verbs[i], strlen(verbs[i]))) {
                p += strlen(verbs[i]);
                again = true;
            }
    }
    while (*p == ' ')
        p++;
    for (char *q = p; *q; q++)
        if (*q == '_' || *q == '.')
            *q = '-';
    char *out = NULL;
    if (*p && strlen(p) <= STATE_MAX) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%s%s", prefix, p);
        out = mn_buf_detach(&b);
    }
    free(n);
    return out;
}

static void decisions(mn_commit_view *c, mn_candidate_vec *out)
{
    mn_decision_opts opts = MN_DECISION_OPTS_INIT;
    opts.flags = MN_DECISION_COMMIT;
    mn_decision *d = NULL;
    size_t n = 0;
    const char *text = c->message;
    if (mn_decisions_find(&d, &n, text, strlen(text), &opts) != 0) {
        mn_error_clear();
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double conf = mn_ingest_detector_confidence(d[i].confidence);
        bool agrees = diff_agrees(out, text, &d[i]);
        if (agrees)
            conf = conf + 0.10 > 0.97 ? 0.97 : conf + 0.10;
        mn_candidate *k = mn_candidate_add(out, "decision", "decision", conf);
        char *statement = mn_ingest_decision_title(text, &d[i]);
        char hash[17];
        mn_ingest_hash(hash, statement, strlen(statement));
        mn_candidate_key(k, "decision:%s", hash);
        k->global_key = true; /* a merge repeats its pull request's words */
        mn_candidate_title(k, "%s", statement);
        /* the body says what the title does not: what was set aside or replaced, and where
         * it was said (the reasons are context.situation, which answers show as "Because:") */
        for (size_t j = 0; j < d[i].n_alternatives; j++) {
            char *x = span(text, mn_ingest_cut_reason(text, d[i].alternatives[j], &d[i]));
            mn_buf_printf(&k->body, "%s%s", j ? ", " : "Instead of: ", x);
            free(x);
        }
        if (d[i].n_alternatives)
            mn_buf_puts(&k->body, ".\n");
        for (size_t j = 0; j < d[i].n_supersedes; j++) {
            char *x = span(text, d[i].supersedes[j]);
            mn_buf_printf(&k->body, "%s%s", j ? ", " : "Replaces: ", x);
            free(x);
        }
        if (d[i].n_supersedes)
            mn_buf_puts(&k->body, ".\n");
        mn_buf reasons = MN_BUF_INIT;
        for (size_t j = 0; j < d[i].n_reasons; j++) {
            char *x = span(text, d[i].reasons[j]);
            mn_buf_printf(&reasons, "%s%s", j ? "; " : "", x);
            free(x);
        }
        if (reasons.len)
            k->reasons = mn_buf_detach(&reasons);
        mn_buf_release(&reasons);
        /* the commit's subject when the decision is not the subject itself */
        if (!strstr(c->subject, statement))
            mn_candidate_intro(k, c);
        /* how sure the detector was, for the person reviewing it: the report's evidence */
        mn_buf why = MN_BUF_INIT;
        mn_decision_why_format(&why, d[i].why);
        mn_buf ev = MN_BUF_INIT;
        char *msg = mn_ingest_one_line(text, strlen(text));
        mn_buf_printf(&ev, "decision detector: %s, %.2f%s; message: %s", why.ptr ? why.ptr : "",
                      d[i].confidence, agrees ? "; the diff agrees" : "", msg);
        free(msg);
        free(k->hunk);
        k->hunk = mn_buf_detach(&ev);
        mn_buf_release(&why);
        k->state_key = state_of("chosen:", text, d[i].chosen);
        for (size_t j = 0; j < d[i].n_supersedes; j++) {
            char *st = state_of("chosen:", text, d[i].supersedes[j]);
            if (st) {
                if (!k->supersedes_states)
                    k->supersedes_states = json_array();
                mn_strv_add(k->supersedes_states, st);
                free(st);
            }
        }
        mn_strv_add(k->tags, "decision");
        /* the files it is about: those the commit changed, when few */
        for (size_t j = 0; j < c->ndeltas && c->ndeltas <= 5; j++)
            if (!mn_cand_noise_path(&c->deltas[j]))
                mn_strv_add(k->paths, c->deltas[j].path);
        free(k->file);
        k->file = mn_strdup("");
        free(statement);
    }
    mn_decisions_free(d);
}

static void gotchas(mn_commit_view *c, mn_candidate_vec *out)
{
    mn_gotcha *g = NULL;
    size_t n = 0;
    const char *text = c->message;
    if (mn_gotchas_find(&g, &n, text, strlen(text), MN_DECISION_COMMIT) != 0) {
        mn_error_clear();
        return;
    }
    for (size_t i = 0; i < n; i++) {
        mn_candidate *k = mn_candidate_add(out, "gotcha", "gotcha",
                                           mn_ingest_detector_confidence(g[i].confidence));
        char *statement = span(text, g[i].statement);
        char hash[17];
        mn_ingest_hash(hash, statement, strlen(statement));
        mn_candidate_key(k, "gotcha:%s", hash);
        k->global_key = true;
        mn_candidate_title(k, "%s", statement);
        if (g[i].reason.end > g[i].reason.start)
            k->reasons = span(text, g[i].reason);
        mn_candidate_intro(k, c);
        mn_strv_add(k->tags, "gotcha");
        for (size_t j = 0; j < c->ndeltas && c->ndeltas <= 5; j++)
            if (!mn_cand_noise_path(&c->deltas[j]))
                mn_strv_add(k->paths, c->deltas[j].path);
        free(statement);
    }
    mn_gotchas_free(g);
}

int mn_cand_message(mn_commit_view *c, mn_candidate_vec *out)
{
    /* git's own merge messages say nothing; a pull request's title below them may */
    decisions(c, out);
    gotchas(c, out);
    return 0;
}
