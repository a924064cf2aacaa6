/*
 * issues.c - issue trackers' exports into tasks (ingest.h:
 * mn_ingest_issues, mn_link_issue).
 *
 * Formats, told apart by their keys:
 *   GitHub REST   issues: [{number, title, body, state, labels, user,
 *                 created_at, updated_at, closed_at, html_url,
 *                 pull_request?}], with their comments either in the same
 *                 array or beside it ({issues, comments}) as
 *                 [{issue_url .../issues/N, body, user, created_at}], or
 *                 inside each issue as comments: [{body, author|user,
 *                 createdAt|created_at}] (gh issue list --json);
 *   Jira          {issues: [{key, fields: {summary, description, status,
 *                 labels, reporter, created, updated, resolutiondate,
 *                 comment: {comments: [...]}}}]}; descriptions and comments
 *                 as text or as Atlassian Document Format (its text nodes);
 *   YouTrack      [{idReadable, summary, description, created, updated,
 *                 resolved, reporter, tags, customFields: [{name: State,
 *                 value: {name}}], comments: [{text, author, created}]}].
 *
 * Each issue becomes a task (its id as people write it: "#123" on
 * GitHub, "CS-214" on Jira and YouTrack), scrubbed, and one doc_link
 * memory that search, recall and context find by its id (title "#123:
 * ...", tag issue:#123; source issue, provenance.task); the decisions its
 * body and comments state (text/decision.h, Markdown) are candidates under
 * capture.auto_approve (not the title: "Switch from yarn to pnpm" is as
 * often a request as a decision). Keys "issue:<tracker>:<id>" and
 * "...:decision:<hash>": a re-ingest updates the issue's memory when the
 * issue changed, and never saves a decision twice.
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest_internal.h"
#include "store/store_ingest.h"
#include "text/decision.h"
#include "util/libs.h"
#include "util/util.h"

#define MAX_FILE        (64u << 20)
#define TASK_BODY_MAX   (256u << 10)
#define MEMORY_BODY_MAX 1500
#define ITEMS_MAX       300

typedef struct {
    mn_store *s;
    const mn_ingest_env *env;
    mn_memory_settings cfg, cand_cfg;
    mn_ingest_tally tally, cand_tally;
    size_t issues, comments, created, updated, unchanged, decisions, linked, skipped;
    json_t *items;
} issues_run;

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* Atlassian Document Format: the text of its text nodes, paragraphs on lines. */
static void adf_text(mn_buf *b, const json_t *node)
{
    const char *type = jstr(node, "type");
    const char *text = jstr(node, "text");
    if (text)
        mn_buf_puts(b, text);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(node, "content"), i, c) adf_text(b, c);
    if (type && (!strcmp(type, "paragraph") || !strcmp(type, "heading") ||
                 !strcmp(type, "listItem") || !strcmp(type, "codeBlock")))
        mn_buf_putc(b, '\n');
}

static char *text_of(const json_t *v)
{
    if (json_is_string(v))
        return mn_strdup(json_string_value(v));
    if (json_is_object(v)) {
        mn_buf b = MN_BUF_INIT;
        adf_text(&b, v);
        return b.ptr ? mn_buf_detach(&b) : mn_strdup("");
    }
    return mn_strdup("");
}

/* A time as ms: RFC 3339, Jira's +0000 offset, or YouTrack's ms number. */
static int64_t time_of(const json_t *v)
{
    if (json_is_integer(v))
        return json_integer_value(v);
    const char *s = json_string_value(v);
    if (!s)
        return 0;
    char buf[64];
    size_t n = strlen(s);
    if (n >= sizeof(buf))
        return 0;
    memcpy(buf, s, n + 1);
    /* 2021-03-04T10:00:00.000+0000 -> +00:00 */
    if (n > 5 && (buf[n - 5] == '+' || buf[n - 5] == '-') && isdigit((unsigned char)buf[n - 1]) &&
        isdigit((unsigned char)buf[n - 4]) && n + 1 < sizeof(buf)) {
        memmove(buf + n - 1, buf + n - 2, 3);
        buf[n - 2] = ':';
    }
    int64_t ms = 0;
    if (mn_time_parse(&ms, buf) != 0) {
        mn_error_clear();
        return 0;
    }
    return ms;
}

typedef struct {
    const char *tracker;
    char id[64];
    char *title, *body, *state, *url, *author;
    json_t *labels;
    int64_t created, updated, closed;
    json_t *comments; /* [{author, created, text}] */
    bool pull_request;
} issue;

static void issue_release(issue *i)
{
    free(i->title);
    free(i->body);
    free(i->state);
    free(i->url);
    free(i->author);
    json_decref(i->labels);
    json_decref(i->comments);
    memset(i, 0, sizeof(*i));
}

static void add_comment(issue *i, const char *author, int64_t created, char *text)
{
    if (!i->comments)
        i->comments = json_array();
    char t[32] = "";
    if (created)
        mn_time_format(t, created);
    json_array_append_new(i->comments, json_pack("{s:s,s:s,s:s}", "author", author ? author : "",
                                                 "created", t, "text", text ? text : ""));
    free(text);
}

static char *login_of(const json_t *u)
{
    const char *s = jstr(u, "login");
    if (!s)
        s = jstr(u, "displayName");
    if (!s)
        s = jstr(u, "fullName");
    if (!s)
        s = jstr(u, "name");
    return s ? mn_strdup(s) : NULL;
}

static void github_issue(issue *i, const json_t *o)
{
    i->tracker = "github";
    snprintf(i->id, sizeof(i->id), "#%lld",
             (long long)json_integer_value(json_object_get(o, "number")));
    i->title = text_of(json_object_get(o, "title"));
    i->body = text_of(json_object_get(o, "body"));
    i->state = mn_strdup(jstr(o, "state") ? jstr(o, "state") : "");
    const char *url = jstr(o, "html_url") ? jstr(o, "html_url") : jstr(o, "url");
    i->url = url ? mn_strdup(url) : NULL;
    i->author = login_of(json_object_get(o, "user"));
    if (!i->author)
        i->author = login_of(json_object_get(o, "author"));
    i->labels = json_array();
    size_t k;
    json_t *l;
    json_array_foreach(json_object_get(o, "labels"), k, l)
    {
        const char *n = json_is_string(l) ? json_string_value(l) : jstr(l, "name");
        if (n && *n && strlen(n) <= 60)
            mn_strv_add(i->labels, n);
    }
    i->created = time_of(json_object_get(o, "created_at") ? json_object_get(o, "created_at")
                                                          : json_object_get(o, "createdAt"));
    i->updated = time_of(json_object_get(o, "updated_at") ? json_object_get(o, "updated_at")
                                                          : json_object_get(o, "updatedAt"));
    i->closed = time_of(json_object_get(o, "closed_at") ? json_object_get(o, "closed_at")
                                                        : json_object_get(o, "closedAt"));
    i->pull_request = json_object_get(o, "pull_request") != NULL;
    json_t *c;
    json_array_foreach(json_object_get(o, "comments"), k, c)
    {
        char *who = login_of(json_object_get(c, "user"));
        if (!who)
            who = login_of(json_object_get(c, "author"));
        add_comment(i, who,
                    time_of(json_object_get(c, "created_at") ? json_object_get(c, "created_at")
                                                             : json_object_get(c, "createdAt")),
                    text_of(json_object_get(c, "body")));
        free(who);
    }
}

static void jira_issue(issue *i, const json_t *o)
{
    const json_t *f = json_object_get(o, "fields");
    i->tracker = "jira";
    snprintf(i->id, sizeof(i->id), "%s", jstr(o, "key") ? jstr(o, "key") : "");
    i->title = text_of(json_object_get(f, "summary"));
    i->body = text_of(json_object_get(f, "description"));
    const char *st = jstr(json_object_get(f, "status"), "name");
    i->state = mn_strdup(st ? st : "");
    i->author = login_of(json_object_get(f, "reporter"));
    const char *self = jstr(o, "self");
    if (self) {
        /* https://x.atlassian.net/rest/api/2/issue/10001 -> https://x.atlassian.net/browse/KEY */
        const char *rest = strstr(self, "/rest/");
        mn_buf u = MN_BUF_INIT;
        mn_buf_printf(&u, "%.*s/browse/%s", rest ? (int)(rest - self) : (int)strlen(self), self,
                      i->id);
        i->url = mn_buf_detach(&u);
    }
    i->labels = json_array();
    size_t k;
    json_t *l;
    json_array_foreach(json_object_get(f, "labels"), k,
                       l) if (json_is_string(l) && json_string_length(l) <= 60)
        mn_strv_add(i->labels, json_string_value(l));
    i->created = time_of(json_object_get(f, "created"));
    i->updated = time_of(json_object_get(f, "updated"));
    i->closed = time_of(json_object_get(f, "resolutiondate"));
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(f, "comment"), "comments"), k, c)
    {
        char *who = login_of(json_object_get(c, "author"));
        add_comment(i, who, time_of(json_object_get(c, "created")),
                    text_of(json_object_get(c, "body")));
        free(who);
    }
}

static void youtrack_issue(issue *i, const json_t *o)
{
    i->tracker = "youtrack";
    snprintf(i->id, sizeof(i->id), "%s", jstr(o, "idReadable") ? jstr(o, "idReadable") : "");
    i->title = text_of(json_object_get(o, "summary"));
    i->body = text_of(json_object_get(o, "description"));
    i->author = login_of(json_object_get(o, "reporter"));
    i->labels = json_array();
    size_t k;
    json_t *x;
    i->state = mn_strdup("");
    json_array_foreach(json_object_get(o, "customFields"), k, x)
    {
        const char *name = jstr(x, "name");
        if (!name)
            name = jstr(json_object_get(json_object_get(x, "projectCustomField"), "field"), "name");
        const char *v = jstr(json_object_get(x, "value"), "name");
        if (name && v && (!strcasecmp(name, "State") || !strcasecmp(name, "Status"))) {
            free(i->state);
            i->state = mn_strdup(v);
        }
    }
    json_array_foreach(json_object_get(o, "tags"), k, x)
    {
        const char *n = jstr(x, "name");
        if (n && strlen(n) <= 60)
            mn_strv_add(i->labels, n);
    }
    i->created = time_of(json_object_get(o, "created"));
    i->updated = time_of(json_object_get(o, "updated"));
    i->closed = time_of(json_object_get(o, "resolved"));
    json_array_foreach(json_object_get(o, "comments"), k, x)
    {
        char *who = login_of(json_object_get(x, "author"));
        add_comment(i, who, time_of(json_object_get(x, "created")),
                    text_of(json_object_get(x, "text")));
        free(who);
    }
}

/* ---- saving ---- */

static char *task_body(issues_run *r, const issue *i)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_puts(&b, i->body);
    size_t k;
    json_t *c;
    json_array_foreach(i->comments, k, c)
    {
        if (b.len > TASK_BODY_MAX)
            break;
        mn_buf_printf(&b, "\n\n---\n%s (%s):\n%s", jstr(c, "author"), jstr(c, "created"),
                      jstr(c, "text"));
    }
    /* scrubbed whole, then cut: a token the cut split in two would match no rule, and most
     * of it would be stored */
    char *out = mn_ingest_scrub_text(r->env, b.ptr ? b.ptr : "", b.len);
    size_t n = strlen(out);
    if (n > TASK_BODY_MAX)
        out[mn_utf8_floor(out, n, TASK_BODY_MAX)] = '\0';
    mn_buf_release(&b);
    return out;
}

/* The fields a task row keeps beside its title and body, scrubbed alike: a token in an
 * issue's url, its author's login, its state or a label is stored text as much as its body
 * (the issue's memory passes the save's scrub; the task row is written here). */
static void scrub_fields(issues_run *r, issue *i)
{
    char **field[] = {&i->url, &i->author, &i->state};
    for (size_t k = 0; k < MN_ARRAY_SIZE(field); k++)
        if (*field[k]) {
            char *clean = mn_ingest_scrub_text(r->env, *field[k], strlen(*field[k]));
            free(*field[k]);
            *field[k] = clean;
        }
    size_t k;
    json_t *l;
    json_array_foreach(i->labels, k, l)
    {
        const char *v = json_string_value(l);
        if (!v)
            continue;
        char *clean = mn_ingest_scrub_text(r->env, v, strlen(v));
        if (strcmp(clean, v) != 0)
            json_array_set_new(i->labels, k, json_string(clean));
        free(clean);
    }
}

static void item(issues_run *r, const char *issue_id, const char *kind, const json_t *res)
{
    if (!res || json_array_size(r->items) >= ITEMS_MAX)
        return;
    json_t *o = json_pack("{s:s,s:s}", "issue", issue_id, "kind", kind);
    static const char *const keys[] = {"id", "action", "title", "status"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(keys); k++)
        if (json_object_get(res, keys[k]))
            json_object_set(o, keys[k], json_object_get(res, keys[k]));
    json_array_append_new(r->items, o);
}

static json_t *memory_of(const issue *i, const char *tag)
{
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT;
    mn_buf_printf(&t, "%s: %s", i->id, i->title);
    char *title = mn_ingest_clip(t.ptr, 200);
    char *one = mn_ingest_one_line(i->body, strlen(i->body));
    char *body = mn_ingest_clip(one, MEMORY_BODY_MAX);
    mn_buf_printf(&b, "%s %s%s (%s%s%s). ", i->pull_request ? "Pull request" : "Issue", i->id,
                  *i->title ? "" : "", *i->state ? i->state : "state unknown",
                  i->author ? ", opened by " : "", i->author ? i->author : "");
    if (*body)
        mn_buf_printf(&b, "%s", body);
    if (json_array_size(i->labels)) {
        mn_buf_puts(&b, "\nLabels: ");
        size_t k;
        json_t *l;
        json_array_foreach(i->labels, k, l)
            mn_buf_printf(&b, "%s%s", k ? ", " : "", json_string_value(l));
    }
    if (json_array_size(i->comments))
        mn_buf_printf(&b, "\n%zu comment(s).", json_array_size(i->comments));
    if (i->url)
        mn_buf_printf(&b, "\n%s", i->url);
    json_t *tags = json_array();
    mn_strv_add(tags, "issue");
    mn_strv_add(tags, tag);
    size_t k;
    json_t *l;
    json_array_foreach(i->labels, k,
                       l) if (json_array_size(tags) < 12 && json_string_length(l) <= 64)
        mn_strv_add(tags, json_string_value(l));
    json_t *mem =
        json_pack("{s:s,s:s,s:s,s:{s:o},s:{s:s,s:s}}", "kind", "doc_link", "title", title, "body",
                  b.ptr, "scope", "tags", tags, "provenance", "source", "issue", "task", i->id);
    if (i->author && *i->author && strlen(i->author) <= 200)
        json_object_set_new(json_object_get(mem, "provenance"), "author", json_string(i->author));
    int64_t now = mn_time_now_ms();
    if (i->created > 0 && i->created < now) {
        char ts[32];
        mn_time_format(ts, i->created);
        json_object_set_new(mem, "created_at", json_string(ts));
    }
    json_t *links = json_array();
    if (i->url && strlen(i->url) < 1000) {
        mn_buf u = MN_BUF_INIT;
        mn_buf_printf(&u, "url:%s", i->url);
        json_array_append_new(links, json_pack("{s:s,s:s}", "kind", "relates_to", "to", u.ptr));
        mn_buf_release(&u);
    }
    json_object_set_new(mem, "links", links);
    free(title);
    free(one);
    free(body);
    mn_buf_release(&t);
    mn_buf_release(&b);
    return mem;
}

static int decisions_of(issues_run *r, const issue *i, const char *tag, const char *text,
                        const char *author, const char *created)
{
    mn_decision_opts opts = MN_DECISION_OPTS_INIT;
    opts.flags = MN_DECISION_MARKDOWN;
    mn_decision *d = NULL;
    size_t n = 0;
    if (!text || !*text || mn_decisions_find(&d, &n, text, strlen(text), &opts) != 0) {
        mn_error_clear();
        return 0;
    }
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        char *st = mn_ingest_decision_title(text, &d[k]);
        char hash[17];
        mn_ingest_hash(hash, st, strlen(st));
        char *title = mn_ingest_clip(st, 200);
        mn_buf body = MN_BUF_INIT, reasons = MN_BUF_INIT;
        mn_buf_printf(&body, "%s\n\nFrom %s %s (%s), by %s on %s.", st,
                      i->pull_request ? "pull request" : "issue", i->id, i->title,
                      author && *author ? author : "someone", created && *created ? created : "?");
        for (size_t j = 0; j < d[k].n_reasons; j++) {
            char *x = mn_ingest_one_line(text + d[k].reasons[j].start,
                                         d[k].reasons[j].end - d[k].reasons[j].start);
            mn_buf_printf(&reasons, "%s%s", j ? "; " : "", x);
            free(x);
        }
        json_t *tags = json_pack("[s,s]", "decision", tag);
        json_t *mem = json_pack("{s:s,s:s,s:s,s:f,s:{s:o},s:{s:s,s:s}}", "kind", "decision",
                                "title", title, "body", body.ptr, "confidence",
                                mn_ingest_detector_confidence(d[k].confidence), "scope", "tags",
                                tags, "provenance", "source", "issue", "task", i->id);
        if (reasons.len)
            json_object_set_new(mem, "context", json_pack("{s:s}", "situation", reasons.ptr));
        if (author && *author && strlen(author) <= 200)
            json_object_set_new(json_object_get(mem, "provenance"), "author", json_string(author));
        char key[300];
        snprintf(key, sizeof(key), "issue:%s:%s:decision:%s", i->tracker, i->id, hash);
        json_t *res = NULL;
        rc = mn_ingest_save_keyed(r->s, &r->cand_cfg, key, NULL, mem, &r->cand_tally, &res);
        if (rc == 0 && res && strcmp(jstr(res, "action") ? jstr(res, "action") : "", "unchanged")) {
            r->decisions++;
            item(r, i->id, "decision", res);
        }
        json_decref(res);
        json_decref(mem);
        mn_buf_release(&body);
        mn_buf_release(&reasons);
        free(title);
        free(st);
    }
    mn_decisions_free(d);
    return rc;
}

static int count_commits(json_t *links)
{
    size_t k, n = 0;
    json_t *l;
    json_array_foreach(links, k, l)
    {
        const char *ref = jstr(l, "ref");
        n += ref && !strncmp(ref, "commit:", 7);
    }
    return (int)n;
}

static int save_issue(issues_run *r, issue *i)
{
    if (!i->id[0] || !strcmp(i->id, "#0") || !i->title)
        return r->skipped++, 0;
    scrub_fields(r, i);
    char *body = task_body(r, i);
    char *title = mn_ingest_scrub_text(r->env, i->title, strlen(i->title));
    mn_task_rec t = {i->tracker, i->id,     title,      body,       i->state, i->url,
                     i->author,  i->labels, i->created, i->updated, i->closed};
    bool changed = false;
    int rc = mn_store_begin(r->s);
    if (rc == 0) {
        rc = mn_store_task_upsert(r->s, &t, &changed);
        rc = rc ? (mn_store_rollback(r->s), rc) : mn_store_commit(r->s);
    }
    free(body);
    free(title);
    if (rc)
        return rc;
    r->issues++;
    r->comments += json_array_size(i->comments);
    char tag[80];
    snprintf(tag, sizeof(tag), "issue:%s", i->id);
    json_t *mem = memory_of(i, tag);
    char key[200], hash[17];
    snprintf(key, sizeof(key), "issue:%s:%s", i->tracker, i->id);
    char *dump = json_dumps(mem, JSON_COMPACT | JSON_SORT_KEYS);
    mn_ingest_hash(hash, dump, strlen(dump));
    free(dump);
    json_t *res = NULL;
    rc = mn_ingest_save_keyed(r->s, &r->cfg, key, hash, mem, &r->tally, &res);
    json_decref(mem);
    const char *action = jstr(res, "action");
    if (rc == 0 && action) {
        if (!strcmp(action, "created") || !strcmp(action, "merged"))
            r->created++;
        else if (!strcmp(action, "updated"))
            r->updated++;
        else
            r->unchanged++;
        item(r, i->id, "issue", res);
    }
    json_decref(res);
    /* decisions of the thread: the body, then each comment */
    if (rc == 0 && strcmp(action ? action : "", "unchanged") != 0) {
        char created[32] = "";
        if (i->created)
            mn_time_format(created, i->created);
        rc = decisions_of(r, i, tag, i->body, i->author, created);
        size_t k;
        json_t *c;
        json_array_foreach(i->comments, k, c)
        {
            if (rc)
                break;
            rc = decisions_of(r, i, tag, jstr(c, "text"), jstr(c, "author"), jstr(c, "created"));
        }
    }
    json_t *links = NULL;
    if (rc == 0 && mn_store_task_links(r->s, i->id, &links) == 0)
        r->linked += (size_t)count_commits(links);
    json_decref(links);
    return rc;
}

/* The comments of a GitHub export given apart: issue_url .../issues/<n>. */
static void attach_comments(issue *issues, size_t n, const json_t *comments)
{
    size_t k;
    json_t *c;
    json_array_foreach(comments, k, c)
    {
        const char *u = jstr(c, "issue_url");
        const char *slash = u ? strrchr(u, '/') : NULL;
        if (!slash)
            continue;
        char id[32];
        snprintf(id, sizeof(id), "#%s", slash + 1);
        for (size_t j = 0; j < n; j++)
            if (!strcmp(issues[j].id, id)) {
                char *who = login_of(json_object_get(c, "user"));
                add_comment(&issues[j], who, time_of(json_object_get(c, "created_at")),
                            text_of(json_object_get(c, "body")));
                free(who);
                break;
            }
    }
}

int mn_ingest_issues(mn_store *s, const mn_ingest_env *env, const char *path, const json_t *data,
                     json_t **out)
{
    issues_run r;
    json_t *loaded = NULL;
    const json_t *list = NULL, *comments = json_array();
    json_t *own_comments = (json_t *)comments;
    issue *issues = NULL;
    size_t n = 0;
    const char *format = "github";
    int rc = 0;
    memset(&r, 0, sizeof(r));
    *out = NULL;
    if (path) {
        char *abs = NULL;
        const char *fences[] = {env->root};
        if (!env->root)
            return mn_error_set(MN_EINVAL, "not inside a project: give the export as data");
        if ((rc = mn_ingest_confine(&abs, NULL, env->root, path, fences, 1, "issue export")) != 0)
            return rc;
        json_error_t err;
        mn_buf b = MN_BUF_INIT;
        rc = mn_fs_read_regular(&b, abs, MAX_FILE); /* never a named pipe to wait on */
        if (rc == 0) {
            loaded = json_loadb(b.ptr ? b.ptr : "", b.len, JSON_REJECT_DUPLICATES, &err);
            if (!loaded)
                rc = mn_error_set(MN_EINVAL, "issue export '%s' is not JSON: line %d: %s", path,
                                  err.line, err.text);
        }
        mn_buf_release(&b);
        free(abs);
        if (rc)
            return rc;
        data = loaded;
    }
    r.s = s;
    r.env = env;
    r.cfg = *env->settings;
    mn_ingest_settings(&r.cand_cfg, env);
    r.items = json_array();
    /* which format */
    if (json_is_object(data) && json_is_array(json_object_get(data, "issues"))) {
        list = json_object_get(data, "issues");
        const json_t *first = json_array_get(list, 0);
        if (json_object_get(first, "fields"))
            format = "jira";
        else if (json_object_get(first, "idReadable"))
            format = "youtrack";
        if (json_is_array(json_object_get(data, "comments")))
            comments = json_object_get(data, "comments");
    } else if (json_is_array(data)) {
        list = data;
        size_t k;
        json_t *x;
        json_array_foreach(data, k, x)
        {
            if (json_object_get(x, "idReadable")) {
                format = "youtrack";
                break;
            }
            if (json_object_get(x, "fields") && json_object_get(x, "key")) {
                format = "jira";
                break;
            }
            if (json_object_get(x, "number"))
                break;
        }
        if (!strcmp(format, "github")) {
            json_array_foreach(data, k, x) if (json_object_get(x, "issue_url") &&
                                               !json_object_get(x, "title"))
                json_array_append(own_comments, x);
        }
    } else if (json_is_object(data) && json_object_get(data, "number")) {
        list = NULL;
    } else {
        rc = mn_error_set(MN_EINVAL, "the export is neither GitHub's issues (an array, or "
                                     "{issues, comments}), Jira's ({issues: [{key, fields}]}) "
                                     "nor YouTrack's ([{idReadable, summary}])");
        goto out;
    }
    size_t total = list ? json_array_size(list) : 1;
    issues = mn_calloc(total ? total : 1, sizeof(issue));
    for (size_t k = 0; k < total; k++) {
        const json_t *o = list ? json_array_get(list, k) : data;
        if (!json_is_object(o))
            continue;
        issue *i = &issues[n];
        if (!strcmp(format, "jira"))
            jira_issue(i, o);
        else if (!strcmp(format, "youtrack"))
            youtrack_issue(i, o);
        else if (json_object_get(o, "number") && json_object_get(o, "title"))
            github_issue(i, o);
        else
            continue;
        mn_ingest_utf8_fix(i->id, strlen(i->id));
        n++;
    }
    attach_comments(issues, n, comments);
    for (size_t k = 0; k < n && rc == 0; k++)
        rc = save_issue(&r, &issues[k]);
    if (rc == 0)
        *out = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:O}", "format", format,
                         "issues", (json_int_t)r.issues, "comments", (json_int_t)r.comments,
                         "created", (json_int_t)r.created, "updated", (json_int_t)r.updated,
                         "unchanged", (json_int_t)r.unchanged, "decisions", (json_int_t)r.decisions,
                         "queued", (json_int_t)r.cand_tally.queued, "refused",
                         (json_int_t)(r.tally.refused + r.cand_tally.refused), "linked_commits",
                         (json_int_t)r.linked, "skipped", (json_int_t)r.skipped, "items", r.items);
out:
    for (size_t k = 0; k < n; k++)
        issue_release(&issues[k]);
    free(issues);
    json_decref(own_comments);
    json_decref(r.items);
    json_decref(loaded);
    return rc;
}

/* ---- link_issue ---- */

/* "GH-12", "12" and "#12" are one GitHub issue; keys keep their case. */
static void norm_issue(char out[64], const char *in)
{
    while (*in == ' ')
        in++;
    if (!strncasecmp(in, "GH-", 3))
        in += 3;
    if (isdigit((unsigned char)*in))
        snprintf(out, 64, "#%s", in);
    else
        snprintf(out, 64, "%s", in);
}

static int resolve_commit(const mn_ingest_env *env, const char *in, char out[41])
{
    size_t n = strlen(in);
    bool hex = n >= 4 && n <= 40 && strspn(in, "0123456789abcdefABCDEF") == n;
    if (hex && n == 40) {
        for (size_t k = 0; k <= n; k++)
            out[k] = (char)tolower((unsigned char)in[k]);
        return 0;
    }
    const mn_git_api *git = env->root ? mn_libs_git() : NULL;
    git_repository *repo = NULL;
    git_object *obj = NULL, *peeled = NULL;
    int rc = MN_ENOTFOUND;
    if (git && git->libgit2_init() >= 0) {
        if (git->repository_open_ext(&repo, env->root, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0 &&
            git->revparse_single(&obj, repo, in) == 0 &&
            git->object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
            git->oid_fmt(out, git->object_id(peeled));
            out[40] = '\0';
            rc = 0;
        }
        git->object_free(peeled);
        git->object_free(obj);
        git->repository_free(repo);
        git->libgit2_shutdown();
    }
    if (rc)
        return mn_error_set(MN_ENOTFOUND, "commit '%.60s' is not in the repository: give a sha",
                            in);
    return 0;
}

typedef struct {
    mn_store *s;
    const mn_memory_settings *cfg;
    const char *tag;
} tag_ctx;

static int tag_memory(mn_store *s, const mn_memory_settings *cfg, const char *id, const char *task)
{
    char tag[80], to[80];
    snprintf(tag, sizeof(tag), "issue:%s", task);
    snprintf(to, sizeof(to), "issue:%s", task);
    json_t *res = NULL, *upd = json_pack("{s:s,s:[s]}", "id", id, "add_tags", tag);
    int rc = mn_memory_update(&res, s, cfg, upd);
    json_decref(upd);
    json_decref(res);
    res = NULL;
    if (rc == 0) {
        json_t *in = json_pack("{s:s,s:s,s:s}", "from", id, "kind", "relates_to", "to", to);
        rc = mn_memory_link(&res, s, cfg, in);
        json_decref(in);
        json_decref(res);
    }
    return rc;
}

static int tag_key(void *payload, const char *key, const char *uid)
{
    tag_ctx *t = payload;
    (void)key;
    int rc = tag_memory(t->s, t->cfg, uid, t->tag);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        rc = 0;
    }
    return rc;
}

static int task_link(mn_store *s, const char *task, const char *ref, const char *kind)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    rc = mn_store_task_link(s, task, ref, kind);
    return rc ? (mn_store_rollback(s), rc) : mn_store_commit(s);
}

int mn_link_issue(mn_store *s, const mn_ingest_env *env, const json_t *args, json_t **out)
{
    char task[64];
    const char *kind = jstr(args, "kind") ? jstr(args, "kind") : "relates_to";
    int rc = 0;
    size_t added = 0, k;
    json_t *v;
    norm_issue(task, jstr(args, "issue"));
    if (strlen(task) < 2 || strchr(task, ' '))
        return mn_error_set(MN_EINVAL, "issue '%s' is not an issue id (#123, GH-123, CS-214)",
                            task);
    json_array_foreach(json_object_get(args, "memories"), k, v)
    {
        char id[MN_ID_LEN + 1];
        if ((rc = mn_store_memory_resolve(s, id, json_string_value(v))) != 0 ||
            (rc = tag_memory(s, env->settings, id, task)) != 0 ||
            (rc = task_link(s, task, id, kind)) != 0)
            return rc;
        added++;
    }
    json_array_foreach(json_object_get(args, "commits"), k, v)
    {
        char sha[41], ref[48], prefix[64];
        if ((rc = resolve_commit(env, json_string_value(v), sha)) != 0)
            return rc;
        snprintf(ref, sizeof(ref), "commit:%s", sha);
        if ((rc = task_link(s, task, ref, kind)) != 0)
            return rc;
        /* the memories learnt from that commit carry the issue too */
        snprintf(prefix, sizeof(prefix), "git:%s:", sha);
        tag_ctx t = {s, env->settings, task};
        if ((rc = mn_store_ingest_keys_each(s, prefix, tag_key, &t)) != 0)
            return rc;
        added++;
    }
    json_array_foreach(json_object_get(args, "dialogs"), k, v)
    {
        mn_buf ref = MN_BUF_INIT;
        mn_buf_printf(&ref, "dialog:%s", json_string_value(v));
        rc = task_link(s, task, ref.ptr, kind);
        mn_buf_release(&ref);
        if (rc)
            return rc;
        added++;
    }
    json_t *row = NULL, *links = NULL;
    bool known = mn_store_task_get(s, task, &row) == 0;
    mn_error_clear();
    if ((rc = mn_store_task_links(s, task, &links)) != 0) {
        json_decref(row);
        return rc;
    }
    *out = json_pack("{s:s,s:b,s:I,s:o}", "issue", task, "known", known, "added", (json_int_t)added,
                     "links", links);
    if (known && jstr(row, "title"))
        json_object_set_new(*out, "title", json_string(jstr(row, "title")));
    json_decref(row);
    return 0;
}
