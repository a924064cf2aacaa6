/*
 * capture.c - what a conversation decided, fixed and warned about
 * (ingest.h: mn_capture), from a Claude Code transcript or a text.
 *
 * Claude Code's transcript is JSON Lines, one record per line: {type:
 * user|assistant|system|summary|file-history-snapshot, message: {role,
 * content}, sessionId, cwd, gitBranch, timestamp, uuid, parentUuid,
 * isSidechain, isMeta}; content is a string, or blocks {type: text, text},
 * {type: thinking}, {type: tool_use, name, input}, {type: tool_result,
 * tool_use_id, content (a string or text blocks), is_error}. Each user or
 * assistant record of the main thread (not a sidechain, not meta) is a
 * turn: its text, its tool calls written as Name(file or command) (so the
 * error-fix finder sees an Edit(...) as a change) and its tool results.
 * A line that is not JSON, or a record of another type, is skipped. A
 * text (not a transcript) is cut into turns at blank lines.
 *
 * Candidates (saved with the review threshold at capture.auto_approve):
 *   decision  the decision detector (Markdown) on the people's and the
 *             assistant's words, not on tool output; confidence mapped as
 *             for commits (ingest.h);
 *   gotcha    the gotcha detector on the same turns, mapped likewise;
 *   fix       an error, a change, a passing run (mn_errfix_find): a fewshot
 *             memory with the error (context.error_messages), the turn with
 *             the error as situation, the change as solution, the files
 *             edited between the two, confidence the finder's (0.6, +0.2
 *             when the same tool shows error and pass, +0.1 for an edit).
 * Each carries the excerpt (the turns around it, each cut to TURN_CHARS,
 * all to EXCERPT_MAX; the pipeline caps and compresses it), the
 * files the session edited, the session id (provenance.session), source
 * agent and trigger keywords (TF-IDF of its own text). Keys
 * "capture:<session>:<kind>:<hash>" make a second capture of the same
 * transcript (the Stop hook runs after every turn) add only what is new.
 *
 * Every turn is scrubbed of secrets as it is read, before anything cuts
 * it (TURN_MAX, a command's 300 bytes, then the excerpts and titles): a
 * token cut in half no longer matches its rule, and the save pipeline's
 * own scrub would keep most of it.
 */
#include "common.h"
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/ingest_internal.h"
#include "text/convo.h"
#include "text/decision.h"
#include "text/keywords.h"
#include "util/util.h"

#define MAX_TRANSCRIPT (64u << 20)
#define TURN_MAX       (64u << 10) /* bytes of one turn looked at */
#define TURN_CHARS     1500        /* of a turn in an excerpt */
#define EXCERPT_MAX    8000
#define FILES_MAX      50
#define ITEMS_MAX      200

typedef struct {
    char *text;
    bool words; /* a person's or the assistant's words (not tool output) */
    const char *role;
} turn;

typedef MN_VEC(turn) turn_vec;

typedef struct {
    mn_store *s;
    const mn_ingest_env *env;
    mn_memory_settings cfg;
    mn_ingest_tally tally;
    turn_vec turns;
    json_t *files; /* edited in the session (relative to the root when inside it) */
    json_t *edits; /* per turn: array of files edited in it */
    char *session;
    char *cwd;     /* the session's working directory (its records' cwd) */
    json_t *calls; /* tool_use id -> the turn of the call */
    json_t *kinds;
    json_t *items;
    bool dry_run;
    uint64_t skipped_bytes; /* of a transcript over MAX_TRANSCRIPT, the start not read */
} capture_run;

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static void push_turn(capture_run *r, mn_buf *b, bool words, const char *role, json_t *edited)
{
    if (!b->len) {
        json_decref(edited);
        return;
    }
    turn t = {mn_ingest_scrub_cut(r->env, b->ptr, b->len, TURN_MAX), words, role};
    mn_vec_push(&r->turns, t);
    json_array_append_new(r->edits, edited ? edited : json_array());
    mn_buf_clear(b);
}

/* A file the session edited, relative to its working directory (else the project's root). */
static char *rel_path(capture_run *r, const char *p)
{
    const char *bases[] = {r->cwd, r->env->root};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bases); i++) {
        size_t n = bases[i] ? strlen(bases[i]) : 0;
        if (n && !strncmp(p, bases[i], n) && p[n] == '/')
            return mn_strdup(p + n + 1);
    }
    return mn_strdup(p);
}

/* A tool call as a turn of its own: Name(file or command); its result joins it later. */
static void tool_use(capture_run *r, const json_t *blk, const char *role)
{
    const char *name = jstr(blk, "name");
    const json_t *in = json_object_get(blk, "input");
    const char *file = jstr(in, "file_path") ? jstr(in, "file_path") : jstr(in, "notebook_path");
    const char *cmd = jstr(in, "command");
    if (!name)
        return;
    mn_buf b = MN_BUF_INIT;
    json_t *edited = json_array();
    mn_buf_printf(&b, "%s(", name);
    if (file)
        mn_buf_puts(&b, file);
    else if (cmd) {
        char *c = mn_ingest_scrub_cut(r->env, cmd, strlen(cmd), 300);
        mn_buf_puts(&b, c);
        free(c);
    }
    mn_buf_puts(&b, ")");
    if (file && (!strcmp(name, "Edit") || !strcmp(name, "Write") || !strcmp(name, "MultiEdit") ||
                 !strcmp(name, "NotebookEdit"))) {
        char *rel = rel_path(r, file);
        if (strlen(rel) <= 1024 && mn_utf8_valid(rel, strlen(rel))) {
            if (json_array_size(r->files) < FILES_MAX)
                mn_strv_add(r->files, rel);
            mn_strv_add(edited, rel);
        }
        free(rel);
    }
    const char *id = jstr(blk, "id");
    if (id && json_object_size(r->calls) < 10000)
        json_object_set_new(r->calls, id, json_integer((json_int_t)r->turns.len));
    push_turn(r, &b, false, role, edited);
    mn_buf_release(&b);
}

static void content_text(mn_buf *b, const json_t *content)
{
    if (json_is_string(content)) {
        mn_buf_printf(b, "%s%s", b->len ? "\n" : "", json_string_value(content));
        return;
    }
    size_t i;
    json_t *blk;
    json_array_foreach(content, i, blk)
    {
        const char *t = jstr(blk, "text");
        if (t && (!jstr(blk, "type") || !strcmp(jstr(blk, "type"), "text")))
            mn_buf_printf(b, "%s%s", b->len ? "\n" : "", t);
    }
}

typedef struct {
    bool error;
} line_scan;

static int error_line_cb(void *payload, const char *line, size_t n)
{
    line_scan *ls = payload;
    if (mn_errfix_line_kind(line, n) == MN_LINE_ERROR) {
        ls->error = true;
        return 1;
    }
    return 0;
}

/*
 * A tool's result joins the turn of its call ("Bash(pytest -q)" then its
 * output), so that the error-fix finder sees the same tool fail and pass. A
 * result the tool marked as an error without an error line of its own gets
 * one ("error: <its first line>").
 */
static void tool_result(capture_run *r, const json_t *blk)
{
    mn_buf out = MN_BUF_INIT;
    content_text(&out, json_object_get(blk, "content"));
    if (!out.len) {
        mn_buf_release(&out);
        return;
    }
    if (json_is_true(json_object_get(blk, "is_error"))) {
        line_scan ls = {false};
        mn_lines_each(out.ptr, out.len, error_line_cb, &ls);
        if (!ls.error) {
            mn_buf e = MN_BUF_INIT;
            mn_buf_printf(&e, "error: %s", out.ptr);
            mn_buf_release(&out);
            out = e;
        }
    }
    json_t *at =
        json_object_get(r->calls, jstr(blk, "tool_use_id") ? jstr(blk, "tool_use_id") : "");
    if (json_is_integer(at) && (size_t)json_integer_value(at) < r->turns.len) {
        turn *t = &r->turns.items[json_integer_value(at)];
        mn_buf joined = MN_BUF_INIT;
        mn_buf_printf(&joined, "%s\n", t->text);
        size_t room = TURN_MAX > joined.len ? TURN_MAX - joined.len : 0;
        char *clean = mn_ingest_scrub_cut(r->env, out.ptr, out.len, room);
        mn_buf_puts(&joined, clean);
        free(clean);
        free(t->text);
        t->text = mn_ingest_text_dup(joined.ptr, joined.len);
        mn_buf_release(&joined);
    } else {
        push_turn(r, &out, false, "Tool", NULL);
    }
    mn_buf_release(&out);
}

/* One record of a transcript into turns: the words, then each tool call with its result. */
static void record(capture_run *r, const json_t *rec)
{
    const char *type = jstr(rec, "type");
    if (!type || (strcmp(type, "user") && strcmp(type, "assistant")) ||
        json_is_true(json_object_get(rec, "isSidechain")) ||
        json_is_true(json_object_get(rec, "isMeta")))
        return;
    if (!r->session && jstr(rec, "sessionId") && strlen(jstr(rec, "sessionId")) <= 200)
        r->session = mn_strdup(jstr(rec, "sessionId"));
    if (!r->cwd && jstr(rec, "cwd") && *jstr(rec, "cwd"))
        r->cwd = mn_strdup(jstr(rec, "cwd"));
    const json_t *msg = json_object_get(rec, "message");
    const json_t *content = json_object_get(msg, "content");
    const char *role = !strcmp(type, "user") ? "User" : "Assistant";
    mn_buf words = MN_BUF_INIT;
    if (json_is_string(content)) {
        mn_buf_puts(&words, json_string_value(content));
        push_turn(r, &words, true, role, NULL);
    } else {
        size_t i;
        json_t *blk;
        json_array_foreach(content, i, blk)
        {
            const char *bt = jstr(blk, "type");
            if (!bt)
                continue;
            if (!strcmp(bt, "text") && jstr(blk, "text")) {
                mn_buf_printf(&words, "%s%s", words.len ? "\n" : "", jstr(blk, "text"));
            } else if (!strcmp(bt, "tool_use")) {
                push_turn(r, &words, true, role, NULL);
                tool_use(r, blk, role);
            } else if (!strcmp(bt, "tool_result")) {
                push_turn(r, &words, true, role, NULL);
                tool_result(r, blk);
            }
        }
        push_turn(r, &words, true, role, NULL);
    }
    mn_buf_release(&words);
}

static int read_transcript(capture_run *r, const char *path)
{
    mn_buf b = MN_BUF_INIT;
    /* a regular file only, opened without waiting: a named pipe in the project would hold a
     * request worker (or the Stop hook) forever; a session over the limit (long tool outputs)
     * is read from its end, where the turns the Stop hook has not captured yet are */
    int rc = mn_fs_read_tail(&b, path, MAX_TRANSCRIPT, &r->skipped_bytes);
    if (rc) {
        mn_buf_release(&b);
        return rc;
    }
    const char *p = b.ptr ? b.ptr : "", *end = p + b.len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        json_t *rec = n ? json_loadb(p, n, 0, NULL) : NULL;
        if (json_is_object(rec))
            record(r, rec);
        json_decref(rec);
        p = nl ? nl + 1 : end;
    }
    mn_buf_release(&b);
    return 0;
}

static void read_text(capture_run *r, const char *text)
{
    mn_buf cur = MN_BUF_INIT;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        bool blank = true;
        for (size_t i = 0; i < n; i++)
            if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
                blank = false;
        if (blank)
            push_turn(r, &cur, true, "", NULL);
        else
            mn_buf_printf(&cur, "%s%.*s", cur.len ? "\n" : "", (int)n, p);
        p += n + (p[n] == '\n');
    }
    push_turn(r, &cur, true, "", NULL);
    mn_buf_release(&cur);
}

/* The turns [from, to] as an excerpt: each cut, the whole capped (the turns are scrubbed). */
static char *excerpt(capture_run *r, size_t from, size_t to)
{
    mn_buf b = MN_BUF_INIT;
    for (size_t i = from; i <= to && i < r->turns.len && b.len < EXCERPT_MAX; i++) {
        const turn *t = &r->turns.items[i];
        size_t n = strlen(t->text);
        n = mn_utf8_floor(t->text, n, TURN_CHARS);
        if (b.len + n > EXCERPT_MAX)
            n = mn_utf8_floor(t->text, n, EXCERPT_MAX - b.len);
        mn_buf_printf(&b, "%s%s%s%.*s%s", b.len ? "\n\n" : "", t->role, *t->role ? ": " : "",
                      (int)n, t->text, n < strlen(t->text) ? " …" : "");
    }
    return b.ptr ? mn_buf_detach(&b) : mn_strdup("");
}

static json_t *keywords(const char *text)
{
    mn_keyword *kw = NULL;
    size_t n = 0;
    json_t *out = json_array();
    if (mn_keywords_extract(&kw, &n, text, strlen(text), MN_LANG_UNKNOWN, NULL, 6) == 0) {
        for (size_t i = 0; i < n; i++)
            if (strlen(kw[i].text) <= 64)
                mn_strv_add(out, kw[i].text);
        mn_keywords_free(kw, n);
    }
    mn_error_clear();
    if (json_array_size(out) == 0)
        json_array_append_new(out, json_string("conversation"));
    return out;
}

static int save(capture_run *r, const char *kind, const char *memory_kind, const char *key_text,
                json_t *mem, double confidence)
{
    char hash[17], key[400];
    mn_ingest_hash(hash, key_text, strlen(key_text));
    snprintf(key, sizeof(key), "capture:%s:%s:%s", r->session ? r->session : "text", kind, hash);
    json_object_set_new(mem, "kind", json_string(memory_kind));
    json_object_set_new(mem, "confidence", json_real(confidence));
    json_t *prov = json_pack("{s:s}", "source", "agent");
    if (r->session) {
        json_object_set_new(prov, "session", json_string(r->session));
        json_object_set_new(prov, "dialog", json_string(r->session));
    }
    json_object_set_new(mem, "provenance", prov);
    json_t *ctx = json_object_get(mem, "context");
    if (!ctx) {
        ctx = json_object();
        json_object_set_new(mem, "context", ctx);
    }
    if (!json_object_get(ctx, "files_modified") && json_array_size(r->files))
        json_object_set(ctx, "files_modified", r->files);
    json_t *kv = json_object_get(r->kinds, kind);
    json_object_set_new(r->kinds, kind, json_integer(json_integer_value(kv) + 1));
    json_t *res = NULL;
    int rc = 0;
    if (!r->dry_run)
        rc = mn_ingest_save_keyed(r->s, &r->cfg, key, NULL, mem, &r->tally, &res);
    if (rc == 0 && json_array_size(r->items) < ITEMS_MAX) {
        json_t *o = json_pack("{s:s,s:O,s:f}", "kind", kind, "title", json_object_get(mem, "title"),
                              "confidence", confidence);
        static const char *const keys[] = {"id", "action", "status"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(keys); i++)
            if (json_object_get(res, keys[i]))
                json_object_set(o, keys[i], json_object_get(res, keys[i]));
        json_array_append_new(r->items, o);
    }
    json_decref(res);
    return rc;
}

static int words_candidates(capture_run *r)
{
    int rc = 0;
    for (size_t i = 0; i < r->turns.len && rc == 0; i++) {
        const turn *t = &r->turns.items[i];
        if (!t->words)
            continue;
        mn_decision_opts opts = MN_DECISION_OPTS_INIT;
        opts.flags = MN_DECISION_MARKDOWN;
        mn_decision *d = NULL;
        size_t n = 0;
        if (mn_decisions_find(&d, &n, t->text, strlen(t->text), &opts) != 0)
            mn_error_clear();
        for (size_t k = 0; k < n && rc == 0; k++) {
            char *st = mn_ingest_decision_title(t->text, &d[k]);
            char *title = mn_ingest_clip(st, 200);
            mn_buf reasons = MN_BUF_INIT;
            for (size_t j = 0; j < d[k].n_reasons; j++) {
                char *x = mn_ingest_one_line(t->text + d[k].reasons[j].start,
                                             d[k].reasons[j].end - d[k].reasons[j].start);
                mn_buf_printf(&reasons, "%s%s", j ? "; " : "", x);
                free(x);
            }
            char *ex = excerpt(r, i ? i - 1 : 0, i);
            json_t *ctx = json_pack("{s:s,s:o}", "conversation_excerpt", ex, "trigger_keywords",
                                    keywords(st));
            if (reasons.len)
                json_object_set_new(ctx, "situation", json_string(reasons.ptr));
            json_t *mem = json_pack("{s:s,s:s,s:o}", "title", title, "body", st, "context", ctx);
            rc = save(r, "decision", "decision", st, mem,
                      mn_ingest_detector_confidence(d[k].confidence));
            json_decref(mem);
            mn_buf_release(&reasons);
            free(ex);
            free(title);
            free(st);
        }
        mn_decisions_free(d);
        mn_gotcha *g = NULL;
        n = 0;
        if (rc == 0 && mn_gotchas_find(&g, &n, t->text, strlen(t->text), MN_DECISION_MARKDOWN) != 0)
            mn_error_clear();
        for (size_t k = 0; k < n && rc == 0; k++) {
            char *st = mn_ingest_one_line(t->text + g[k].statement.start,
                                          g[k].statement.end - g[k].statement.start);
            char *title = mn_ingest_clip(st, 200);
            char *ex = excerpt(r, i ? i - 1 : 0, i);
            json_t *ctx = json_pack("{s:s,s:o}", "conversation_excerpt", ex, "trigger_keywords",
                                    keywords(st));
            if (g[k].reason.end > g[k].reason.start) {
                char *x = mn_ingest_one_line(t->text + g[k].reason.start,
                                             g[k].reason.end - g[k].reason.start);
                json_object_set_new(ctx, "situation", json_string(x));
                free(x);
            }
            json_t *mem = json_pack("{s:s,s:s,s:o}", "title", title, "body", st, "context", ctx);
            rc = save(r, "gotcha", "gotcha", st, mem,
                      mn_ingest_detector_confidence(g[k].confidence));
            json_decref(mem);
            free(ex);
            free(title);
            free(st);
        }
        mn_gotchas_free(g);
    }
    return rc;
}

static int fix_candidates(capture_run *r)
{
    mn_turn *tv = mn_calloc(r->turns.len + 1, sizeof(mn_turn));
    for (size_t i = 0; i < r->turns.len; i++) {
        tv[i].text = r->turns.items[i].text;
        tv[i].len = strlen(r->turns.items[i].text);
    }
    mn_errfix *e = NULL;
    size_t n = 0;
    int rc = 0;
    if (mn_errfix_find(&e, &n, tv, r->turns.len) != 0)
        mn_error_clear();
    for (size_t k = 0; k < n && rc == 0; k++) {
        const char *et = r->turns.items[e[k].error_turn].text;
        char *err = mn_ingest_one_line(et + e[k].error.start, e[k].error.end - e[k].error.start);
        char *err_clip = mn_ingest_clip(err, 400);
        /* the fix in words: the assistant's words before the change (a tool call), else the
         * change's own turn; the files it edited are named apart */
        size_t ftn = e[k].fix_turn;
        if (!r->turns.items[ftn].words && ftn > e[k].error_turn + 1 &&
            r->turns.items[ftn - 1].words)
            ftn--;
        const char *ft = r->turns.items[ftn].text;
        char *fix_one = mn_ingest_one_line(ft, strlen(ft));
        char *fix = mn_ingest_clip(fix_one, 1000);
        json_t *files = json_array();
        for (size_t t = e[k].error_turn; t <= e[k].pass_turn && t < r->turns.len; t++) {
            size_t j;
            json_t *f;
            json_array_foreach(json_array_get(r->edits, t), j, f)
                mn_strv_add(files, json_string_value(f));
        }
        mn_buf title = MN_BUF_INIT;
        mn_buf_printf(&title, "Fixed: %s", err_clip);
        char *t = mn_ingest_clip(title.ptr, 200);
        char *ex = excerpt(r, e[k].error_turn, e[k].pass_turn);
        mn_buf kwt = MN_BUF_INIT;
        mn_buf_printf(&kwt, "%s %s", err, fix);
        json_t *ctx = json_pack("{s:s,s:s,s:[s],s:s,s:o}", "situation", err_clip, "solution", fix,
                                "error_messages", err_clip, "conversation_excerpt", ex,
                                "trigger_keywords", keywords(kwt.ptr));
        if (json_array_size(files))
            json_object_set(ctx, "files_modified", files);
        mn_buf body = MN_BUF_INIT;
        mn_buf_printf(&body, "The error \"%s\" was fixed: %s", err_clip, fix);
        size_t fi;
        json_t *fv;
        json_array_foreach(files, fi, fv)
            mn_buf_printf(&body, "%s%s", fi ? ", " : " (edited: ", json_string_value(fv));
        if (json_array_size(files))
            mn_buf_puts(&body, ")");
        json_t *mem = json_pack("{s:s,s:s,s:o}", "title", t, "body", body.ptr, "context", ctx);
        if (json_array_size(files))
            json_object_set_new(mem, "scope", json_pack("{s:O}", "paths", files));
        rc = save(r, "fix", "fewshot", err, mem, e[k].confidence);
        json_decref(mem);
        json_decref(files);
        mn_buf_release(&body);
        mn_buf_release(&kwt);
        mn_buf_release(&title);
        free(t);
        free(ex);
        free(err);
        free(err_clip);
        free(fix);
        free(fix_one);
    }
    free(e);
    free(tv);
    return rc;
}

/* Where a transcript may be: the project, or Claude Code's transcript directory. */
static char *claude_projects(void)
{
    const char *cfg = getenv("CLAUDE_CONFIG_DIR");
    const char *home = getenv("HOME");
    mn_buf b = MN_BUF_INIT;
    if (cfg && *cfg)
        mn_buf_printf(&b, "%s/projects", cfg);
    else if (home && *home)
        mn_buf_printf(&b, "%s/.claude/projects", home);
    else
        return NULL;
    return mn_buf_detach(&b);
}

int mn_capture(mn_store *s, const mn_ingest_env *env, const json_t *args, json_t **out)
{
    capture_run r;
    const char *path = jstr(args, "transcript_path"), *text = jstr(args, "text");
    int rc = 0;
    memset(&r, 0, sizeof(r));
    *out = NULL;
    if (!path == !text)
        return mn_error_set(MN_EINVAL, "give either transcript_path or text, not both or neither");
    r.s = s;
    r.env = env;
    mn_ingest_settings(&r.cfg, env);
    r.files = json_array();
    r.edits = json_array();
    r.calls = json_object();
    r.kinds = json_object();
    r.items = json_array();
    r.dry_run = json_is_true(json_object_get(args, "dry_run"));
    if (jstr(args, "session_id"))
        r.session = mn_strdup(jstr(args, "session_id"));
    if (path) {
        char *claude = claude_projects(), *abs = NULL;
        const char *fences[] = {env->root, claude};
        rc = mn_ingest_confine(&abs, NULL, env->root, path, fences, 2, "transcript");
        if (rc == 0)
            rc = read_transcript(&r, abs);
        free(abs);
        free(claude);
    } else {
        read_text(&r, text);
    }
    if (rc == 0)
        rc = words_candidates(&r);
    if (rc == 0)
        rc = fix_candidates(&r);
    if (rc == 0) {
        *out = json_pack("{s:I,s:O,s:O,s:I,s:I,s:I,s:I,s:I,s:O}", "turns", (json_int_t)r.turns.len,
                         "files_touched", r.files, "candidates", r.kinds, "saved",
                         (json_int_t)r.tally.saved, "queued", (json_int_t)r.tally.queued, "merged",
                         (json_int_t)r.tally.merged, "unchanged", (json_int_t)r.tally.unchanged,
                         "refused", (json_int_t)r.tally.refused, "items", r.items);
        if (r.session)
            json_object_set_new(*out, "session_id", json_string(r.session));
        if (r.skipped_bytes)
            json_object_set_new(*out, "skipped_bytes", json_integer((json_int_t)r.skipped_bytes));
    }
    for (size_t i = 0; i < r.turns.len; i++)
        free(r.turns.items[i].text);
    mn_vec_release(&r.turns);
    json_decref(r.files);
    json_decref(r.edits);
    json_decref(r.calls);
    json_decref(r.kinds);
    json_decref(r.items);
    free(r.session);
    free(r.cwd);
    return rc;
}
