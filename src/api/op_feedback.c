/*
 * op_feedback.c - the feedback operation: what helped among the items an
 * answer (context, recall, search) served.
 *
 * Explicit feedback (a person, an agent) names items as the answer printed
 * them - a memory's id or a prefix of 8+ characters, code as path:line
 * (path:start-end, path, or chunk:<n>), a file's path - and the answer by
 * its served id; without one, the newest of the last RECENT answers that
 * served the item. An item no answer served is refused with one error, and
 * nothing is recorded. used and ignored move the memories' usefulness
 * counters; refined moves none (the question was at fault, not the items)
 * and records the question that replaced the answer's (query), on the
 * items named or on the answer as a whole.
 *
 * Implicit feedback comes from the hooks, with the agent's session: the
 * files the agent reads or edits after an answer (session + files) mark
 * the answer's items at those files used - code and files by their path,
 * memories whose files modified, scope paths, citations or file links hold
 * it - once per item and answer; at the session's Stop (session, signal
 * ignored, no items, no files) every item its open answers served and
 * nothing marked is counted ignored, and the answers are settled, so that
 * later files do not reach them again. Rows carry the session id, for the
 * learning to come.
 *
 * Everything one call records is one transaction, with an audit row. The
 * note and the new query are kept as answers are given: without secrets.
 */
#include "common.h"
#include <ctype.h>
#include <fnmatch.h>
#include <inttypes.h>

#include "api/api_internal.h"
#include "store/store_search.h"
#include "text/scan.h"
#include "util/buf.h"
#include "util/util.h"

#define RECENT   50 /* answers looked through for an item given without its answer */
#define MIN_PREF 8  /* characters of a memory id prefix, at least */

int mn_op_feedback(mn_ctx *ctx, const json_t *args, json_t **out);

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* ---- where the code items of an answer are ---- */

typedef struct {
    int64_t id;
    char *path;
    int64_t start, end;
} place;

typedef struct {
    place *p;
    size_t n, cap;
} places;

static int on_chunk(void *payload, const mn_chunk_hit *h)
{
    places *ps = payload;
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 16;
        ps->p = mn_realloc(ps->p, ps->cap * sizeof(*ps->p));
    }
    ps->p[ps->n++] = (place){h->id, mn_strdup(h->path ? h->path : ""), h->start_line, h->end_line};
    return 0;
}

static void places_release(places *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        free(ps->p[i].path);
    free(ps->p);
    memset(ps, 0, sizeof(*ps));
}

/* The paths and lines of the answer's code items (chunk:<n>), read in one go. */
static int answer_places(mn_ctx *ctx, const json_t *answer, places *ps)
{
    int64_t ids[256];
    size_t n = 0, i;
    const json_t *it;
    json_array_foreach(json_object_get(answer, "items"), i, it)
    {
        const char *id = jstr(it, "id");
        if (!strcmp(jstr(it, "kind"), "code") && !strncmp(id, "chunk:", 6) &&
            n < MN_ARRAY_SIZE(ids))
            ids[n++] = strtoll(id + 6, NULL, 10);
    }
    return n ? mn_store_chunks_by_id(ctx->store, ids, n, on_chunk, ps) : 0;
}

static const place *place_of(const places *ps, const char *chunk_id)
{
    int64_t id = strtoll(chunk_id + 6, NULL, 10);
    for (size_t i = 0; i < ps->n; i++)
        if (ps->p[i].id == id)
            return &ps->p[i];
    return NULL;
}

/* "path:12" or "path:12-30" -> path length and line (0: no line). */
static size_t split_line(const char *given, int64_t *line)
{
    *line = 0;
    const char *colon = strrchr(given, ':');
    if (!colon || colon == given || !isdigit((unsigned char)colon[1]))
        return strlen(given);
    char *end;
    long long l = strtoll(colon + 1, &end, 10);
    if (*end == '-' && isdigit((unsigned char)end[1]))
        strtoll(end + 1, &end, 10);
    if (*end)
        return strlen(given);
    *line = l;
    return (size_t)(colon - given);
}

typedef enum { MATCH_NONE, MATCH_ONE, MATCH_MANY } match;

/*
 * The item of answer that given names: *kind and *id (the answer's own id
 * for it, a memory's in full). MATCH_MANY when it is the prefix of two
 * memories' ids.
 */
static match match_item(const json_t *answer, const places *ps, const char *given,
                        const char **kind, const char **id)
{
    size_t i, glen = strlen(given), prefixed = 0;
    const json_t *it;
    /* exactly an id of the answer, or the prefix of one memory's (of two: neither) */
    json_array_foreach(json_object_get(answer, "items"), i, it)
    {
        const char *k = jstr(it, "kind"), *x = jstr(it, "id");
        if (!strcmp(x, given)) {
            *kind = k;
            *id = x;
            return MATCH_ONE;
        }
        if (!strcmp(k, "memory") && glen >= MIN_PREF && !strncasecmp(x, given, glen) &&
            (!prefixed || strcmp(*id, x) != 0)) {
            prefixed++;
            *kind = k;
            *id = x;
        }
    }
    if (prefixed)
        return prefixed == 1 ? MATCH_ONE : MATCH_MANY;
    /* code by path:line (a chunk holding the line, else the file) or by path */
    int64_t line;
    size_t plen = split_line(given, &line);
    const json_t *file = NULL, *any_code = NULL;
    json_array_foreach(json_object_get(answer, "items"), i, it)
    {
        const char *k = jstr(it, "kind"), *x = jstr(it, "id");
        if (!strcmp(k, "file") && strlen(x) == plen && !strncmp(x, given, plen))
            file = it;
        if (strcmp(k, "code") != 0 || strncmp(x, "chunk:", 6) != 0)
            continue;
        const place *p = place_of(ps, x);
        if (!p || strlen(p->path) != plen || strncmp(p->path, given, plen) != 0)
            continue;
        if (line && p->start <= line && line <= p->end) {
            *kind = k;
            *id = x;
            return MATCH_ONE;
        }
        if (!any_code)
            any_code = it;
    }
    const json_t *found = file ? file : line ? NULL : any_code;
    if (!found && line && any_code) /* a line just outside the chunks: the file's first */
        found = any_code;
    if (!found)
        return MATCH_NONE;
    *kind = jstr(found, "kind");
    *id = jstr(found, "id");
    return MATCH_ONE;
}

static int ambiguous(const char *given, int64_t served)
{
    return mn_error_set(
        MN_EINVAL, "item '%.80s' names several memories of answer %" PRId64 ": give more of its id",
        given, served);
}

/* ---- recording ---- */

typedef struct {
    mn_ctx *ctx;
    const json_t *args; /* for the audit row */
    const char *signal, *note, *session, *query;
    const char **uids; /* memories rated, for their counters */
    size_t nuids, capuids;
    json_t *answers; /* ids of the answers rated */
    size_t recorded;
} rec;

static void remember_answer(rec *r, int64_t served)
{
    size_t i;
    const json_t *v;
    json_array_foreach(r->answers, i, v) if (json_integer_value(v) == served) return;
    json_array_append_new(r->answers, json_integer(served));
}

static int record(rec *r, int64_t served, const char *kind, const char *id, const char *signal)
{
    int rc = mn_store_feedback_add(r->ctx->store, served, r->ctx->actor, kind, id, signal, r->note,
                                   r->session, r->query);
    if (rc)
        return rc;
    r->recorded++;
    if (served > 0)
        remember_answer(r, served);
    if (!strcmp(kind, "memory")) {
        if (r->nuids == r->capuids) {
            r->capuids = r->capuids ? 2 * r->capuids : 16;
            r->uids = mn_realloc(r->uids, r->capuids * sizeof(*r->uids));
        }
        r->uids[r->nuids++] = mn_strdup(id);
    }
    return 0;
}

/* ---- explicit: items of an answer ---- */

typedef struct {
    mn_ctx *ctx;
    const char *given;
    json_t *answer; /* the newest that serves given (new reference) */
    match m;
} find_state;

static int find_in(void *payload, json_t *a)
{
    find_state *f = payload;
    places ps = {0};
    const char *kind, *id;
    int rc = answer_places(f->ctx, a, &ps);
    if (rc == 0 && (f->m = match_item(a, &ps, f->given, &kind, &id)) != MATCH_NONE) {
        f->answer = json_incref(a);
        rc = 1; /* stop: found (or ambiguous: the caller says so) */
    }
    places_release(&ps);
    return rc;
}

/* The end of a call's transaction: its audit row (when anything was recorded), then commit, or
 * roll back on any failure. */
static int finish(rec *r, int rc, bool audit)
{
    if (rc == 0 && audit)
        rc = mn_store_audit(r->ctx->store, r->ctx->actor, "feedback", NULL, r->args);
    if (rc)
        mn_store_rollback(r->ctx->store);
    else
        rc = mn_store_commit(r->ctx->store);
    return rc;
}

static int explicit_items(rec *r, const json_t *items, int64_t served_id)
{
    json_t *answer = NULL;
    places ps = {0};
    int rc = 0;
    if (served_id && (rc = mn_store_served_get(r->ctx->store, &answer, served_id)) != 0) {
        if (rc == MN_ENOTFOUND)
            rc = mn_error_set(MN_ENOTFOUND,
                              "answer %" PRId64 " was not served here: give the served number "
                              "context or search printed",
                              served_id);
        return rc;
    }
    if (answer && (rc = answer_places(r->ctx, answer, &ps)) != 0)
        goto out;
    /* every item is checked before anything is written */
    size_t n = json_array_size(items), i;
    const char **kinds = mn_calloc(n ? n : 1, sizeof(*kinds)),
               **ids = mn_calloc(n ? n : 1, sizeof(*ids));
    json_t **from = mn_calloc(n ? n : 1, sizeof(*from));
    const json_t *v;
    json_array_foreach(items, i, v)
    {
        const char *given = json_string_value(v);
        if (answer) {
            match m = match_item(answer, &ps, given, &kinds[i], &ids[i]);
            if (m == MATCH_MANY) {
                rc = ambiguous(given, served_id);
                break;
            }
            if (m == MATCH_NONE) {
                rc = mn_error_set(MN_EINVAL,
                                  "item '%.80s' is not in answer %" PRId64
                                  ": give the ids it printed (a memory's id, code as "
                                  "path:line, a file's path)",
                                  given, served_id);
                break;
            }
            from[i] = json_incref(answer);
            continue;
        }
        find_state f = {r->ctx, given, NULL, MATCH_NONE};
        rc = mn_store_served_recent(r->ctx->store, RECENT, find_in, &f);
        if (rc < 0)
            break;
        rc = 0;
        if (f.m == MATCH_MANY) {
            rc = ambiguous(given, json_integer_value(json_object_get(f.answer, "id")));
            json_decref(f.answer);
            break;
        }
        if (!f.answer) {
            rc = mn_error_set(MN_EINVAL,
                              "item '%.80s' was not served (not in the last %d answers): give "
                              "the ids an answer printed, and its served number",
                              given, RECENT);
            break;
        }
        places fp = {0};
        if ((rc = answer_places(r->ctx, f.answer, &fp)) == 0)
            match_item(f.answer, &fp, given, &kinds[i], &ids[i]);
        places_release(&fp);
        from[i] = f.answer;
        if (rc)
            break;
    }
    if (rc == 0 && (rc = mn_store_begin(r->ctx->store)) == 0) {
        for (i = 0; i < n && rc == 0; i++)
            rc = record(r, json_integer_value(json_object_get(from[i], "id")), kinds[i], ids[i],
                        r->signal);
        rc = finish(r, rc, true);
    }
    /* the ids point into the answers: the memories' ids are copied by record() */
    for (i = 0; i < n; i++)
        json_decref(from[i]);
    free(from);
    free(kinds);
    free(ids);
out:
    places_release(&ps);
    json_decref(answer);
    return rc;
}

/* refined with no items: the answer as a whole, with the question that replaced it */
static int refine_answer(rec *r, int64_t served_id)
{
    json_t *answer = NULL;
    int rc = mn_store_served_get(r->ctx->store, &answer, served_id);
    if (rc == MN_ENOTFOUND)
        rc = mn_error_set(MN_ENOTFOUND,
                          "answer %" PRId64 " was not served here: give the served number "
                          "context or search printed",
                          served_id);
    json_decref(answer);
    if (rc)
        return rc;
    char id[32];
    snprintf(id, sizeof(id), "%" PRId64, served_id);
    if ((rc = mn_store_begin(r->ctx->store)) != 0)
        return rc;
    rc = record(r, served_id, "answer", id, "refined");
    return finish(r, rc, true);
}

/* ---- implicit: an agent session's files and its end ---- */

/* Whether pattern (a scope path, a file modified, a cited path) covers file. */
static bool covers_file(const char *pattern, const char *file)
{
    size_t n = strlen(pattern);
    if (!n)
        return false;
    if (!strcmp(pattern, file))
        return true;
    if (pattern[n - 1] == '/' ? !strncmp(file, pattern, n)
                              : !strncmp(file, pattern, n) && file[n] == '/')
        return true; /* a directory */
    return strpbrk(pattern, "*?[") && fnmatch(pattern, file, 0) == 0;
}

/* Whether a memory talks about file: files modified, scope paths, citations, file links. */
static bool memory_at(mn_ctx *ctx, const char *id, const char *file)
{
    json_t *mem = NULL;
    if (mn_store_memory_get(ctx->store, &mem, id) != 0) {
        mn_error_clear();
        return false;
    }
    bool at = false;
    const json_t *lists[] = {json_object_get(json_object_get(mem, "context"), "files_modified"),
                             json_object_get(json_object_get(mem, "scope"), "paths")};
    size_t i;
    const json_t *v;
    for (size_t k = 0; k < MN_ARRAY_SIZE(lists) && !at; k++)
        json_array_foreach(lists[k], i, v) at = at || covers_file(json_string_value(v), file);
    json_array_foreach(json_object_get(mem, "citations"), i, v) at =
        at || covers_file(jstr(v, "path"), file);
    json_array_foreach(json_object_get(mem, "links"), i, v)
    {
        const char *to = jstr(v, "to");
        at = at || (!strncmp(to, "file:", 5) && covers_file(to + 5, file));
    }
    json_decref(mem);
    return at;
}

/* A repository path: relative as given, or absolute inside the root (made relative). */
static const char *relative(const mn_ctx *ctx, const char *path)
{
    size_t n = ctx->root ? strlen(ctx->root) : 0;
    if (path[0] != '/')
        return path;
    if (n && !strncmp(path, ctx->root, n) && path[n] == '/')
        return path + n + 1;
    return NULL; /* outside the repository: nothing of ours */
}

typedef struct {
    rec *r;
    const json_t *files; /* NULL: settle (Stop) */
    json_t *answers;     /* the session's open answers, collected first */
} session_state;

static int collect_answer(void *payload, json_t *a)
{
    json_array_append(((session_state *)payload)->answers, a);
    return 0;
}

static int session_answer(session_state *st, const json_t *a)
{
    rec *r = st->r;
    int64_t served = json_integer_value(json_object_get(a, "id"));
    places ps = {0};
    int rc = st->files ? answer_places(r->ctx, a, &ps) : 0;
    size_t i;
    const json_t *it;
    json_array_foreach(json_object_get(a, "items"), i, it)
    {
        if (rc)
            break;
        const char *kind = jstr(it, "kind"), *id = jstr(it, "id");
        bool rated = false;
        if ((rc = mn_store_feedback_has(r->ctx->store, served, kind, id, &rated)) != 0 || rated)
            continue;
        if (!st->files) { /* the session ends: never touched */
            rc = record(r, served, kind, id, "ignored");
            continue;
        }
        size_t j;
        const json_t *f;
        bool hit = false;
        json_array_foreach(st->files, j, f)
        {
            const char *file = relative(r->ctx, json_string_value(f));
            if (!file || hit)
                continue;
            if (!strcmp(kind, "file"))
                hit = !strcmp(id, file);
            else if (!strcmp(kind, "code")) {
                const place *p = !strncmp(id, "chunk:", 6) ? place_of(&ps, id) : NULL;
                hit = p && !strcmp(p->path, file);
            } else if (!strcmp(kind, "memory"))
                hit = memory_at(r->ctx, id, file);
        }
        if (hit)
            rc = record(r, served, kind, id, "used");
    }
    if (rc == 0 && !st->files)
        rc = mn_store_served_settle(r->ctx->store, served, mn_time_now_ms());
    places_release(&ps);
    return rc;
}

static int implicit(rec *r, const json_t *files)
{
    session_state st = {r, json_array_size(files) ? files : NULL, json_array()};
    int rc = mn_store_served_open(r->ctx->store, r->session, collect_answer, &st);
    if (rc == 0 && json_array_size(st.answers) && (rc = mn_store_begin(r->ctx->store)) == 0) {
        size_t i;
        const json_t *a;
        json_array_foreach(st.answers, i, a)
        {
            if ((rc = session_answer(&st, a)) != 0)
                break;
        }
        rc = finish(r, rc, r->recorded > 0);
    }
    json_decref(st.answers);
    return rc;
}

static int on_counters(void *payload, const mn_memory_hit *h)
{
    json_array_append_new(payload,
                          json_pack("{s:s,s:I,s:I}", "id", h->uid, "used", (json_int_t)h->used,
                                    "ignored", (json_int_t)h->ignored));
    return 0;
}

/* args with its free text (note, query) scrubbed, as every stored question is (new reference) */
static int scrubbed_args(mn_ctx *ctx, const json_t *args, json_t **out)
{
    static const char *const keys[] = {"note", "query"};
    const mn_scanner *sc = NULL;
    int rc = mn_api__scanner(ctx, &sc);
    *out = rc ? NULL : json_copy((json_t *)args);
    for (size_t i = 0; rc == 0 && i < MN_ARRAY_SIZE(keys); i++) {
        const char *v = json_string_value(json_object_get(*out, keys[i]));
        mn_buf clean = MN_BUF_INIT;
        if (v && (rc = mn_scan_redact(&clean, sc, v, strlen(v), ctx->redact_out, NULL)) == 0)
            json_object_set_new(*out, keys[i], json_stringn(clean.ptr, clean.len));
        mn_buf_release(&clean);
    }
    if (rc) {
        json_decref(*out);
        *out = NULL;
    }
    return rc;
}

int mn_op_feedback(mn_ctx *ctx, const json_t *in, json_t **out)
{
    json_t *args;
    int rc = scrubbed_args(ctx, in, &args);
    if (rc)
        return rc;
    /* the audit row names the answer, items and signal; the free text (a refined
     * question, a note) stays in the feedback row, never in the log (op_audit.c) */
    json_t *audit = json_copy(args);
    json_object_del(audit, "note");
    json_object_del(audit, "query");
    rec r = {ctx,
             audit,
             jstr(args, "signal"),
             json_string_value(json_object_get(args, "note")),
             json_string_value(json_object_get(args, "session")),
             json_string_value(json_object_get(args, "query")),
             NULL,
             0,
             0,
             json_array(),
             0};
    const json_t *items = json_object_get(args, "items"), *files = json_object_get(args, "files");
    int64_t served_id = (int64_t)json_integer_value(json_object_get(args, "served"));
    bool refined = !strcmp(r.signal, "refined");
    if (mn_store_read_only(ctx->store)) {
        rc = mn_error_set(MN_EINVAL, "the store is open read-only: feedback cannot be recorded");
    } else if (r.session && !items) {
        if (refined)
            rc = mn_error_set(MN_EINVAL, "refined takes the answer (served) and its new query, "
                                         "not a session");
        else if (json_array_size(files) && strcmp(r.signal, "used") != 0)
            rc =
                mn_error_set(MN_EINVAL, "the files of a session mark items used, not %s", r.signal);
        else
            rc = implicit(&r, files);
    } else if (files) {
        rc = mn_error_set(MN_EINVAL, "files go with a session (the hooks' implicit feedback)");
    } else if (items) {
        rc = explicit_items(&r, items, served_id);
    } else if (refined && served_id) {
        rc = refine_answer(&r, served_id);
    } else if (refined) {
        rc = mn_error_set(MN_EINVAL,
                          "refined needs the answer it refines: served (and query, the new "
                          "question)");
    } else {
        rc = mn_error_set(MN_EINVAL,
                          "%s needs items: the ids the answer printed (and its served number)",
                          r.signal);
    }
    if (rc == 0) {
        json_t *mems = json_array();
        rc = mn_store_memories_by_uid(ctx->store, r.uids, r.nuids, on_counters, mems);
        if (rc == 0)
            *out = json_pack("{s:I,s:o,s:O}", "recorded", (json_int_t)r.recorded, "memories", mems,
                             "served", r.answers);
        else
            json_decref(mems);
    }
    for (size_t i = 0; i < r.nuids; i++)
        free((char *)r.uids[i]);
    free(r.uids);
    json_decref(r.answers);
    json_decref(audit);
    json_decref(args);
    return rc;
}
