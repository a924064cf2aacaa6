/*
 * cand_revert.c - reverts and what they undid.
 *
 * git revert writes 'Revert "<subject>"' and "This reverts commit <sha>."
 * A commit saying so undid that commit: the fact is what was tried and
 * taken back (and why, when the message says more than git's lines), and
 * the memories learnt from the reverted commit no longer hold: save.c
 * marks them superseded by this one (supersedes_commit). The reverted
 * commit's subject comes from the store when it was ingested (commits are
 * read oldest first), else from the quoted subject.
 *
 * Confidence 0.88 with git's trailer naming the commit; 0.60 for a
 * subject that starts with "Revert" without it (a squash, a manual
 * revert: a person should look), and for the revert of a commit that
 * changed no code, build or configuration (documentation, tests, images:
 * a wording or an asset taken back).
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest_internal.h"
#include "store/store_ingest.h"

static bool hex40(const char *p)
{
    for (int i = 0; i < 40; i++)
        if (!isxdigit((unsigned char)p[i]))
            return false;
    return !isxdigit((unsigned char)p[40]);
}

/* The explanation a person added: the message without its subject and git's lines. */
static char *explanation(const char *msg)
{
    mn_buf b = MN_BUF_INIT;
    const char *p = strchr(msg, '\n');
    while (p && *p) {
        p++;
        size_t n = strcspn(p, "\n");
        bool boiler = (n >= 26 && !strncmp(p, "This reverts commit ", 20)) ||
                      !strncmp(p, "Signed-off-by:", 14) || !strncmp(p, "Co-authored-by:", 15) ||
                      !strncmp(p, "(cherry picked from", 19);
        if (!boiler && n)
            mn_buf_printf(&b, "%s%.*s", b.len ? " " : "", (int)n, p);
        p += n;
    }
    char *out = b.ptr ? mn_ingest_one_line(b.ptr, b.len) : mn_strdup("");
    mn_buf_release(&b);
    return out;
}

int mn_cand_revert(mn_commit_view *c, mn_candidate_vec *out)
{
    const char *subj = c->subject;
    if (strncmp(subj, "Revert", 6) != 0 || isalnum((unsigned char)subj[6]))
        return 0;
    const char *tr = strstr(c->message, "This reverts commit ");
    char sha[41] = "";
    if (tr && hex40(tr + 20)) {
        memcpy(sha, tr + 20, 40);
        sha[40] = '\0';
        for (char *p = sha; *p; p++)
            *p = (char)tolower((unsigned char)*p);
    }
    /* the quoted subject: Revert "Add X" */
    char *quoted = NULL;
    const char *q1 = strchr(subj, '"'), *q2 = q1 ? strrchr(subj, '"') : NULL;
    if (q1 && q2 > q1 + 1)
        quoted = mn_strndup(q1 + 1, (size_t)(q2 - q1 - 1));
    json_t *orig = NULL;
    if (*sha && mn_store_git_commit_get(c->store, sha, &orig) != 0) {
        mn_error_clear();
        orig = NULL;
    }
    const char *what = json_string_value(json_object_get(orig, "subject"));
    if (!what)
        what = quoted ? quoted : subj + 6;
    while (*what == ' ' || *what == ':')
        what++;
    /* undoing a change of words, tests or assets (no code, build or configuration) is no
     * fact about the project: the review queue */
    bool substantive = !orig; /* not ingested: nothing to tell by */
    size_t fi;
    json_t *f;
    json_array_foreach(json_object_get(orig, "files"), fi, f)
    {
        const char *p = json_string_value(json_object_get(f, "path"));
        mn_file_class cls;
        mn_classify(&cls, p ? p : "", NULL, 0, 1);
        if (!cls.binary &&
            (cls.role == MN_ROLE_SOURCE || cls.role == MN_ROLE_BUILD || cls.role == MN_ROLE_CONFIG))
            substantive = true;
    }
    mn_candidate *k = mn_candidate_add(out, "revert", "fact", *sha && substantive ? 0.88 : 0.60);
    mn_candidate_key(k, "revert:%s", *sha ? sha : c->sha);
    if (*sha)
        mn_candidate_title(k, "Reverted \"%s\" (%.12s)", what, sha);
    else
        mn_candidate_title(k, "Reverted: %s", what);
    char *why = explanation(c->message);
    if (*sha)
        mn_buf_printf(&k->body, "Undid commit %.12s: \"%s\".", sha, what);
    else
        mn_buf_printf(&k->body, "Undid \"%s\".", what);
    if (*why) {
        mn_buf_printf(&k->body, "\nWhy: %s", why);
        k->reasons = mn_strdup(why);
    }
    free(why);
    if (*sha) {
        k->supersedes_commit = mn_strdup(sha);
        mn_buf to = MN_BUF_INIT;
        mn_buf_printf(&to, "commit:%s", sha);
        json_array_append_new(k->links, json_pack("{s:s,s:s,s:s}", "kind", "relates_to", "to",
                                                  to.ptr, "note", "the commit it reverted"));
        mn_buf_release(&to);
    }
    for (size_t i = 0; i < c->ndeltas && i < 8; i++)
        if (!mn_cand_noise_path(&c->deltas[i]))
            mn_strv_add(k->paths, c->deltas[i].path);
    mn_strv_add(k->tags, "revert");
    k->file = mn_strdup(c->ndeltas ? c->deltas[0].path : "");
    k->hunk = mn_ingest_one_line(c->message, strlen(c->message));
    json_decref(orig);
    free(quoted);
    return 0;
}
