/*
 * remote.c - the team servers of a local store: kept in the project's
 * config (remote.h says how), and asked for memories when `context`,
 * `recall` or `search` answers (mn_remote_gather, called by op_context.c
 * and op_search.c), never when `mnemo serve` does (the loop guard).
 *
 * Asking: for each remote in name order, POST URL/v1/search with
 * {"query": Q, "kinds": ["memory"], "k": REMOTE_K or the search's k, its
 * filters and as_of} and "Authorization:
 * Bearer $VAR", one libcurl request bounded by the timeout (config
 * remote.timeout_ms, default 2000) for connecting and answering together,
 * the answer capped at MAX_ANSWER bytes. A remote whose variable is unset,
 * that cannot be reached, times out, answers another status than 200
 * (401: a wrong token) or an answer that is not the search's shape costs
 * one note line naming the remote and why; the answer goes on without it.
 * The server's project is the one its token opens.
 *
 * Packing (the same token budget as the local answer): the remotes'
 * memories are written as one section, "## From the team (remote NAME)"
 * per remote, each entry one line "- [kind] title: snippet (NAME:id)",
 * in the order each server ranked them, an entry taken only while the
 * section stays within max_tokens (the caller passes REMOTE_SHARE of its
 * budget and gives the rest to the local pack). Remote entries are marked
 * with their remote's name in the items and are not recorded in the local
 * served table: feedback on them belongs to their server.
 */
#include "common.h"
#include <pthread.h>

#include "api/api_internal.h"
#include "mnemo/remote.h"
#include "remote/remote.h"
#include "util/buf.h"
#include "util/libs.h"
#include "util/util.h"

#define REMOTE_K      8
#define MAX_ANSWER    (4u << 20)
#define SNIPPET_CHARS 300
#define MAX_REMOTES   16

/* ---- the config rows ---- */

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static char *row_key(const char *name)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s%s", MN_REMOTE_KEY_PREFIX, name);
    return mn_buf_detach(&b);
}

/* The remotes of the project: [{name, url, token_env}] by name (a row that does not parse is
 * left out). */
static int remotes_read(json_t **out, mn_store *s)
{
    json_t *all = NULL;
    int rc = mn_store_config_all(s, &all);
    *out = NULL;
    if (rc)
        return rc;
    json_t *list = json_array();
    const char *key;
    json_t *v;
    json_object_foreach(all, key, v)
    {
        if (strncmp(key, MN_REMOTE_KEY_PREFIX, strlen(MN_REMOTE_KEY_PREFIX)) != 0)
            continue;
        json_t *row = json_loads(json_string_value(v) ? json_string_value(v) : "", 0, NULL);
        const char *url = json_string_value(json_object_get(row, "url"));
        if (url) {
            json_t *token_env = json_object_get(row, "token_env");
            json_array_append_new(
                list, json_pack("{s:s,s:s,s:O?}", "name", key + strlen(MN_REMOTE_KEY_PREFIX), "url",
                                url, "token_env", json_is_string(token_env) ? token_env : NULL));
        }
        json_decref(row);
    }
    json_decref(all);
    *out = list;
    return 0;
}

int mn_remote_add(mn_ctx *ctx, const char *name, const char *url, const char *token_env,
                  json_t **out)
{
    bool loopback = false;
    char *key = NULL, *had = NULL, *value = NULL;
    json_t *row = NULL;
    int rc;
    *out = NULL;
    if ((rc = mn_remote_name_check(name)) != 0 ||
        (rc = mn_remote_url_check(url, token_env, &loopback)) != 0)
        return rc;
    /* URL/v1/search is where it is asked: a trailing slash would double */
    size_t n = strlen(url);
    while (n > 8 && url[n - 1] == '/')
        n--;
    row = json_pack("{s:s%,s:s?}", "url", url, n, "token_env", token_env);
    value = json_dumps(row, JSON_COMPACT);
    key = row_key(name);
    if ((rc = mn_store_begin(ctx->store)) != 0)
        goto out;
    rc = mn_store_config_get(ctx->store, &had, key);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        rc = 0;
    }
    if (rc == 0)
        rc = mn_store_config_set(ctx->store, key, value);
    if (rc == 0)
        rc =
            mn_store_audit(ctx->store, ctx->actor, had ? "remote_change" : "remote_add", name, row);
    if (rc == 0)
        rc = mn_store_commit(ctx->store);
    else
        mn_store_rollback(ctx->store);
    if (rc == 0) {
        *out = json_deep_copy(row);
        json_object_set_new(*out, "name", json_string(name));
        json_object_set_new(*out, "action", json_string(had ? "changed" : "added"));
    }
out:
    free(key);
    free(had);
    free(value);
    json_decref(row);
    return rc;
}

int mn_remote_remove(mn_ctx *ctx, const char *name, json_t **out)
{
    char *key = NULL, *had = NULL;
    int rc;
    *out = NULL;
    if ((rc = mn_remote_name_check(name)) != 0)
        return rc;
    key = row_key(name);
    if ((rc = mn_store_begin(ctx->store)) != 0)
        goto out;
    rc = mn_store_config_get(ctx->store, &had, key);
    if (rc == MN_ENOTFOUND)
        rc = mn_error_set(MN_ENOTFOUND, "no remote named '%s' ('mnemo remote list' shows them)",
                          name);
    if (rc == 0)
        rc = mn_store_config_set(ctx->store, key, NULL);
    if (rc == 0)
        rc = mn_store_audit(ctx->store, ctx->actor, "remote_remove", name, NULL);
    if (rc == 0)
        rc = mn_store_commit(ctx->store);
    else
        mn_store_rollback(ctx->store);
    if (rc == 0)
        *out = json_pack("{s:s,s:s}", "name", name, "action", "removed");
out:
    free(key);
    free(had);
    return rc;
}

int mn_remote_list(mn_ctx *ctx, json_t **out)
{
    json_t *list = NULL;
    int rc = remotes_read(&list, ctx->store);
    if (rc)
        return rc;
    size_t i;
    json_t *r;
    json_array_foreach(list, i, r)
    {
        const char *var = json_string_value(json_object_get(r, "token_env"));
        const char *v = var ? getenv(var) : NULL;
        json_object_set_new(r, "token_set", json_boolean(v && *v));
    }
    *out = json_pack("{s:o}", "remotes", list);
    return 0;
}

/* ---- asking ---- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static const mn_curl_api *curl; /* NULL: libcurl could not be loaded or initialised */

static void init_curl(void)
{
    const mn_curl_api *api = mn_libs_curl();
    if (api && api->global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
        curl = api;
}

typedef struct {
    mn_buf body;
    bool too_big;
} answer;

static size_t on_body(char *data, size_t size, size_t n, void *payload)
{
    answer *a = payload;
    size_t len = size * n;
    if (a->body.len + len > MAX_ANSWER) {
        a->too_big = true;
        return 0; /* curl stops: CURLE_WRITE_ERROR */
    }
    mn_buf_put(&a->body, data, len);
    return len;
}

/* The server's one-line message in an error answer ({"error": {"message"}}), or NULL. */
static const char *server_message(const json_t *j)
{
    const json_t *err = json_object_get(j, "error");
    return json_is_string(err) ? json_string_value(err)
                               : json_string_value(json_object_get(err, "message"));
}

/*
 * POST req to URL/v1/OP of one remote: its answer, a JSON object, on HTTP 200 (new reference),
 * or NULL with *why set (malloc'd, one line) and *status the HTTP status (0: none came).
 */
static json_t *post(const char *url, const char *op, const char *token, const json_t *req,
                    int64_t timeout_ms, long *status_out, char **why)
{
    char errbuf[CURL_ERROR_SIZE] = "";
    mn_buf endpoint = MN_BUF_INIT, auth = MN_BUF_INIT, w = MN_BUF_INIT;
    answer a = {MN_BUF_INIT, false};
    struct curl_slist *headers = NULL;
    char *body = json_dumps(req, JSON_COMPACT);
    json_t *j = NULL, *items = NULL; /* items: the answer returned */
    long status = 0;
    CURL *c = body ? curl->easy_init() : NULL;
    *status_out = 0;
    if (!c) {
        mn_buf_puts(&w, body ? "cannot start a request (libcurl)" : "the question is not UTF-8");
        goto out;
    }
    mn_buf_printf(&endpoint, "%s/v1/%s", url, op);
    headers = curl->slist_append(headers, "Content-Type: application/json");
    headers = curl->slist_append(headers, "Accept: application/json");
    headers = curl->slist_append(headers, "Expect:");
    if (token) {
        mn_buf_printf(&auth, "Authorization: Bearer %s", token);
        headers = curl->slist_append(headers, auth.ptr);
    }
    curl->easy_setopt(c, CURLOPT_URL, endpoint.ptr);
    curl->easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl->easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl->easy_setopt(c, CURLOPT_WRITEDATA, &a);
    curl->easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl->easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
    curl->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
    curl->easy_setopt(c, CURLOPT_USERAGENT, "mnemo/" MNEMO_VERSION);
    curl->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    /* a redirect would carry the token elsewhere: not followed (the default, said here) */
    curl->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    CURLcode rc = curl->easy_perform(c);
    if (rc != CURLE_OK) {
        if (a.too_big)
            mn_buf_printf(&w, "answer larger than %u MB", MAX_ANSWER >> 20);
        else if (rc == CURLE_OPERATION_TIMEDOUT)
            mn_buf_printf(&w, "no answer within %lld ms (config remote.timeout_ms)",
                          (long long)timeout_ms);
        else
            mn_buf_printf(&w, "unreachable: %s", errbuf[0] ? errbuf : curl->easy_strerror(rc));
        goto out;
    }
    curl->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    *status_out = status;
    j = json_loadb(a.body.ptr ? a.body.ptr : "", a.body.len, 0, NULL);
    if (status != 200) {
        const char *msg = server_message(j);
        mn_buf_printf(&w, "HTTP %ld%s%.200s%s", status, msg ? " (" : "", msg ? msg : "",
                      msg ? ")" : "");
        if (status == 401 || status == 403)
            mn_buf_puts(&w, ": check the token in its variable");
        goto out;
    }
    if (!json_is_object(j)) {
        mn_buf_puts(&w, "its answer is not JSON (is it a mnemo server?)");
        goto out;
    }
    items = json_incref(j);
out:
    if (!items) {
        /* one line: what a server sent may hold anything */
        for (size_t i = 0; i < w.len; i++)
            if ((unsigned char)w.ptr[i] < ' ')
                w.ptr[i] = ' ';
        *why = mn_buf_detach(&w);
    }
    if (c)
        curl->easy_cleanup(c);
    curl->slist_free_all(headers);
    if (auth.ptr)
        memset(auth.ptr, 0, auth.len); /* the token, gone from memory with the request */
    mn_buf_release(&auth);
    mn_buf_release(&endpoint);
    mn_buf_release(&a.body);
    mn_buf_release(&w);
    json_decref(j);
    free(body);
    return items;
}

/*
 * The token of a remote (its row of remotes_read): *token is getenv's (NULL for a loopback
 * remote without a variable), or false with the reason in line ("remote 'NAME' not asked: ...").
 */
static bool remote_token(const json_t *r, const char **token, mn_buf *line)
{
    const char *name = jstr(r, "name");
    const char *var = json_string_value(json_object_get(r, "token_env"));
    *token = var ? getenv(var) : NULL;
    bool clean = true;
    for (const char *p = *token; p && *p && clean; p++)
        clean = (unsigned char)*p > ' ' && *p != 0x7f;
    if (var && (!*token || !**token))
        mn_buf_printf(line, "remote '%s' not asked: $%s is not set", name, var);
    else if (!clean) /* a line break would end the header and start another */
        mn_buf_printf(line,
                      "remote '%s' not asked: $%s holds a space, line break or control "
                      "character; it must hold the token alone",
                      name, var);
    return line->len == 0;
}

/* POST the search to one remote: its items (new reference), or NULL with *why set. */
static json_t *ask_search(const char *url, const char *token, const json_t *req, int64_t timeout_ms,
                          char **why)
{
    long status = 0;
    json_t *reply = post(url, "search", token, req, timeout_ms, &status, why);
    json_t *items = json_object_get(reply, "items");
    if (reply && !json_is_array(items)) {
        *why = mn_strdup("its answer is not a search result (is it a mnemo server?)");
        items = NULL;
    }
    json_incref(items);
    json_decref(reply);
    return items;
}

void mn_remote_answer_release(mn_remote_answer *a)
{
    json_decref(a->items);
    free(a->markdown);
    memset(a, 0, sizeof(*a));
}

/* One line of text: control characters and newlines become spaces, at most max bytes (UTF-8
 * kept whole). */
static void put_line(mn_buf *b, const char *s, size_t max)
{
    size_t n = 0;
    for (const char *p = s ? s : ""; *p && n < max; p++, n++)
        mn_buf_putc(b, (unsigned char)*p < ' ' ? ' ' : *p);
    if (s && strlen(s) > max) {
        while (b->len && ((unsigned char)b->ptr[b->len - 1] & 0xC0) == 0x80)
            b->len--; /* a cut character */
        if (b->len && ((unsigned char)b->ptr[b->len - 1] & 0xC0) == 0xC0)
            b->len--;
        b->ptr[b->len] = '\0';
        mn_buf_puts(b, "...");
    }
}

/* The remote's item as this answer carries it: its fields on one line each, marked with the
 * remote's name (what a server sent may hold anything, a terminal's escapes included). */
static json_t *remote_item(const json_t *it, const char *name)
{
    static const char *const texts[] = {"id", "title", "kind", "status", "snippet"};
    static const size_t caps[] = {40, 200, 40, 40, SNIPPET_CHARS};
    json_t *o = json_pack("{s:s,s:s}", "type", "memory", "remote", name);
    mn_buf b = MN_BUF_INIT;
    for (size_t i = 0; i < MN_ARRAY_SIZE(texts); i++) {
        if (!json_is_string(json_object_get(it, texts[i])))
            continue;
        mn_buf_clear(&b);
        put_line(&b, jstr(it, texts[i]), caps[i]);
        json_object_set_new(o, texts[i], json_stringn(b.ptr ? b.ptr : "", b.len));
    }
    mn_buf_release(&b);
    if (!json_object_get(o, "title"))
        json_object_set_new(o, "title", json_string(""));
    if (!json_object_get(o, "snippet"))
        json_object_set_new(o, "snippet", json_string(""));
    const json_t *level = json_object_get(it, "level");
    if (json_is_integer(level) && json_integer_value(level) >= 0 && json_integer_value(level) <= 3)
        json_object_set(o, "level", (json_t *)level);
    const json_t *score = json_object_get(it, "score");
    json_object_set_new(o, "score",
                        json_real(json_is_number(score) ? json_number_value(score) : 0));
    return o;
}

/* The request each remote gets: the question, memories only, and the caller's filters. */
static json_t *request_of(const mn_remote_query *q)
{
    size_t k = q->k ? q->k : REMOTE_K;
    json_t *req = json_pack("{s:s,s:[s],s:I}", "query", q->query, "kinds", "memory", "k",
                            (json_int_t)(k > 50 ? 50 : k));
    if (req && json_is_object(q->filters) && json_object_size(q->filters))
        json_object_set(req, "filters", (json_t *)q->filters);
    if (req && q->as_of)
        json_object_set(req, "as_of", (json_t *)q->as_of);
    return req;
}

int mn_remote_gather(mn_remote_answer *out, mn_ctx *ctx, const mn_remote_query *q, json_t *notes)
{
    json_t *list = NULL, *req = NULL;
    mn_buf md = MN_BUF_INIT, line = MN_BUF_INIT;
    double wait_ms = 0;
    memset(out, 0, sizeof(*out));
    out->items = json_array();
    int rc = 0;
    if (ctx->network || !q->query || !*q->query)
        goto out; /* the loop guard: see mn_front_end */
    if ((rc = remotes_read(&list, ctx->store)) != 0 || !json_array_size(list))
        goto out;
    if ((rc = mn_api__config_number(ctx, &wait_ms, "remote.timeout_ms")) != 0)
        goto out;
    int64_t timeout_ms = wait_ms > 0 ? (int64_t)wait_ms : 2000;
    pthread_once(&curl_once, init_curl);
    if (!curl) {
        json_array_append_new(notes, json_string("the team's remotes were not asked: libcurl "
                                                 "cannot be loaded"));
        goto out;
    }
    if (!(req = request_of(q))) {
        json_array_append_new(notes, json_string("the team's remotes were not asked: the "
                                                 "question is not UTF-8"));
        goto out;
    }
    size_t i;
    json_t *r;
    json_array_foreach(list, i, r)
    {
        if (i >= MAX_REMOTES)
            break;
        const char *name = jstr(r, "name"), *url = jstr(r, "url"), *token = NULL;
        char *why = NULL;
        json_t *items = NULL;
        if (!remote_token(r, &token, &line)) {
            /* line says why */
        } else if ((items = ask_search(url, token, req, timeout_ms, &why)) == NULL) {
            mn_buf_printf(&line, "remote '%s' (%s) left out: %s", name, url, why);
        }
        free(why);
        if (line.len) {
            json_array_append_new(notes, json_stringn(line.ptr, line.len));
            mn_buf_clear(&line);
            continue;
        }
        /* the remote's entries, best first: k of them, or while the section fits */
        size_t j, taken = 0;
        json_t *it;
        json_array_foreach(items, j, it)
        {
            if (strcmp(jstr(it, "type"), "memory") != 0 || !*jstr(it, "id"))
                continue;
            if (!q->max_tokens && q->k && taken >= q->k)
                break;
            json_t *item = remote_item(it, name);
            if (q->max_tokens) {
                size_t mark = md.len;
                if (!taken)
                    mn_buf_printf(&md, "\n## From the team (remote %s)\n\n", name);
                mn_buf_puts(&md, "- ");
                if (*jstr(item, "kind"))
                    mn_buf_printf(&md, "[%s] ", jstr(item, "kind"));
                mn_buf_puts(&md, jstr(item, "title"));
                if (*jstr(item, "snippet") && strcmp(jstr(item, "snippet"), jstr(item, "title")))
                    mn_buf_printf(&md, ": %s", jstr(item, "snippet"));
                mn_buf_printf(&md, " (%s:%s)\n", name, jstr(item, "id"));
                size_t tokens = mn_tokens_count(q->counter, md.ptr, md.len);
                if (tokens > q->max_tokens) {
                    md.len = mark;
                    if (md.ptr)
                        md.ptr[mark] = '\0';
                    json_decref(item);
                    break;
                }
                json_object_set_new(item, "tokens",
                                    json_integer((json_int_t)(tokens - out->tokens)));
                out->tokens = tokens;
            }
            taken++;
            json_array_append_new(out->items, item);
        }
        json_decref(items);
    }
out:
    out->markdown = md.ptr ? mn_buf_detach(&md) : mn_strdup("");
    mn_buf_release(&md);
    mn_buf_release(&line);
    json_decref(list);
    json_decref(req);
    return rc;
}

/* Every string of v without control characters but line breaks and tabs (a terminal's escapes
 * among them): what a server sends is printed by `mnemo get`. */
static void clean_strings(json_t *v)
{
    size_t i;
    const char *k;
    json_t *x;
    if (json_is_string(v)) {
        char *c = mn_strdup(json_string_value(v));
        for (char *p = c; *p; p++)
            if (((unsigned char)*p < ' ' && *p != '\n' && *p != '\t') || *p == 0x7f)
                *p = ' ';
        json_string_set(v, c);
        free(c);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x) clean_strings(x);
    } else if (json_is_object(v)) {
        json_object_foreach(v, k, x) clean_strings(x);
    }
}

int mn_remote_get(mn_ctx *ctx, const char *ref, json_t **out)
{
    const char *colon = strchr(ref, ':');
    size_t nlen = colon ? (size_t)(colon - ref) : strlen(ref);
    char *name = mn_malloc(nlen + 1);
    memcpy(name, ref, nlen);
    name[nlen] = '\0';
    const char *id = colon ? colon + 1 : "";
    json_t *list = NULL, *row = NULL, *req = NULL, *reply = NULL;
    mn_buf line = MN_BUF_INIT;
    char *why = NULL;
    double wait_ms = 0;
    long status = 0;
    size_t i;
    json_t *r;
    *out = NULL;
    int rc = mn_remote_name_check(name);
    if (rc)
        goto out;
    if (ctx->network) {
        rc = mn_error_set(MN_EINVAL,
                          "'%s' names a memory of remote '%s': a server does not ask remotes", ref,
                          name);
        goto out;
    }
    if (!*id || strlen(id) > 26 || strchr(id, ':')) {
        rc = mn_error_set(MN_EINVAL,
                          "'%.80s': NAME:ID wants the remote memory's id after the colon", ref);
        goto out;
    }
    if ((rc = remotes_read(&list, ctx->store)) != 0)
        goto out;
    json_array_foreach(list, i, r) if (!row && !strcmp(jstr(r, "name"), name)) row = r;
    if (!row) {
        rc = mn_error_set(MN_ENOTFOUND, "no remote named '%s' ('mnemo remote list' shows them)",
                          name);
        goto out;
    }
    const char *token = NULL;
    if (!remote_token(row, &token, &line)) {
        rc = mn_error_set(MN_EAUTH, "%s", line.ptr);
        goto out;
    }
    if ((rc = mn_api__config_number(ctx, &wait_ms, "remote.timeout_ms")) != 0)
        goto out;
    pthread_once(&curl_once, init_curl);
    if (!curl) {
        rc = mn_error_set(MN_EUNSUPPORTED, "remote '%s' not asked: libcurl cannot be loaded", name);
        goto out;
    }
    req = json_pack("{s:s}", "id", id);
    reply = post(jstr(row, "url"), "get", token, req, wait_ms > 0 ? (int64_t)wait_ms : 2000,
                 &status, &why);
    if (!reply) {
        int code = status == 404                    ? MN_ENOTFOUND
                   : status == 401 || status == 403 ? MN_EAUTH
                   : status == 400                  ? MN_EINVAL
                                                    : MN_EUNAVAILABLE;
        rc = mn_error_set(code, "remote '%s' (%s): %s", name, jstr(row, "url"), why);
        goto out;
    }
    json_t *mem = json_object_get(reply, "memory");
    json_t *back = json_object_get(reply, "linked_from");
    if (!json_is_object(mem)) {
        rc = mn_error_set(MN_EUNAVAILABLE, "remote '%s' (%s): its answer is not a memory", name,
                          jstr(row, "url"));
        goto out;
    }
    *out = json_pack("{s:O,s:o,s:s}", "memory", mem, "linked_from",
                     json_is_array(back) ? json_incref(back) : json_array(), "remote", name);
    clean_strings(*out);
out:
    free(name);
    free(why);
    mn_buf_release(&line);
    json_decref(list);
    json_decref(req);
    json_decref(reply);
    return rc;
}
