/*
 * resources.c - the MCP resources: the project overview and each memory.
 *
 *   mnemo://overview       text/markdown: what every task needs to know about
 *                          the project. The L0 part is exactly what `context`
 *                          writes for an empty question (discovery mode, the
 *                          same Markdown an agent gets from the tool), then the
 *                          L1 facts (domains, packages) one line each with
 *                          their memory's URI to read further.
 *   mnemo://memory/{id}    application/json: the output of the `get`
 *                          operation ({memory, linked_from}), the same JSON
 *                          the get tool and `mnemo get --json` give, so a
 *                          client needs one parser for all of them. {id} is
 *                          the full 26-character ULID (either case).
 *
 * Everything goes through mn_api_call (context, list, get): no store access
 * here, and the ops' own validation and snapshots apply. A read that
 * answered leaves an audit row (mn_api_audit_resource: the URI and the
 * memory ids it served), like every read.
 *
 * Paging (resources/list): the overview comes first on the first page, then
 * live memories (forgotten and expired ones excluded, every status included) in id
 * order, PAGE_SIZE per page. New memories get larger ids (ULIDs are
 * time-ordered), so they land on later pages and never shift a page a
 * client is walking; only a forget between two pages can make one memory
 * slide past the page boundary. The cursor is "o<offset>.<check>": the
 * offset of the next memory and 8 hex digits of a hash of it, so a cursor
 * this server did not issue (edited, truncated, from another server) is
 * refused with MN_EINVAL instead of silently serving some page.
 */
#include "common.h"

#include "api/api_internal.h"
#include "mcp/mcp_internal.h"
#include "util/buf.h"
#include "util/util.h"

#define SCHEME          "mnemo://"
#define OVERVIEW_URI    "mnemo://overview"
#define MEMORY_PREFIX   "mnemo://memory/"
#define PAGE_SIZE       50
#define OVERVIEW_TOKENS 8000 /* context's budget: L0 facts get up to 35% of it */
#define DOMAINS_MAX     64   /* L1 facts listed in the overview */
#define CURSOR_MAX_LEN  32
#define URI_MAX_LEN     2048
#define OFFSET_MAX      1000000000LL
#define MEMORY_MIME     "application/json"
#define OVERVIEW_MIME   "text/markdown"

/* ---- params ---- */

/* params must be absent, null or an object; the dispatch passes them as received. */
static int check_params(const json_t *params, const char *method)
{
    if (params && !json_is_object(params) && !json_is_null(params))
        return mn_error_set(MN_EINVAL, "%s: params must be an object", method);
    return 0;
}

/* ---- the cursor ---- */

static uint32_t cursor_check(int64_t offset)
{
    /* FNV-1a over a tag and the offset: not a secret, a guard against cursors we never issued */
    char text[64];
    int n = snprintf(text, sizeof(text), "mnemo-resources:%lld", (long long)offset);
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++) {
        h ^= (unsigned char)text[i];
        h *= 16777619u;
    }
    return h;
}

static json_t *cursor_make(int64_t offset)
{
    char c[CURSOR_MAX_LEN];
    snprintf(c, sizeof(c), "o%lld.%08x", (long long)offset, (unsigned)cursor_check(offset));
    return json_string(c);
}

static int cursor_parse(int64_t *out, const json_t *params, const char *method)
{
    const json_t *c = json_object_get(params, "cursor");
    *out = 0;
    if (!c || json_is_null(c))
        return 0;
    const char *s = json_string_value(c);
    if (!s)
        return mn_error_set(MN_EINVAL, "%s: cursor must be a string", method);
    const char *dot = strchr(s, '.');
    size_t n = strlen(s);
    /* exactly what cursor_make writes: no sign, no leading zero, lower-case hex */
    bool ok = n < CURSOR_MAX_LEN && s[0] == 'o' && s[1] != '0' && dot && dot > s + 1 &&
              strlen(dot + 1) == 8;
    for (const char *p = s + 1; ok && p < dot; p++)
        ok = *p >= '0' && *p <= '9';
    for (const char *p = dot ? dot + 1 : s; ok && *p; p++)
        ok = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f');
    int64_t off = 0;
    if (ok) {
        char num[CURSOR_MAX_LEN];
        snprintf(num, sizeof(num), "%.*s", (int)(dot - s - 1), s + 1);
        ok = mn_parse_int64(&off, num, 1, OFFSET_MAX, "cursor") == 0;
        mn_error_clear();
    }
    if (ok) {
        char want[16];
        snprintf(want, sizeof(want), "%08x", (unsigned)cursor_check(off));
        ok = strcmp(want, dot + 1) == 0;
    }
    if (!ok)
        return mn_error_set(MN_EINVAL,
                            "%s: invalid cursor '%.40s': pass back a nextCursor exactly as "
                            "received, or none for the first page",
                            method, s);
    *out = off;
    return 0;
}

/* ---- resources/list ---- */

static json_t *overview_entry(void)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:[s,s],s:f}}", "uri", OVERVIEW_URI, "name",
                     "overview", "title", "Project overview", "description",
                     "What the project is and how to work in it: languages, build/test/run "
                     "commands, frameworks, layout and domains (the L0/L1 facts discovery keeps). "
                     "Read it before a task.",
                     "mimeType", OVERVIEW_MIME, "annotations", "audience", "assistant", "user",
                     "priority", 1.0);
}

/* One memory of the list op's output as a resource. */
static json_t *memory_entry(const json_t *m)
{
    const char *id = json_string_value(json_object_get(m, "id"));
    const char *title = json_string_value(json_object_get(m, "title"));
    const char *kind = json_string_value(json_object_get(m, "kind"));
    const char *level = json_string_value(json_object_get(m, "level"));
    const char *status = json_string_value(json_object_get(m, "status"));
    const char *updated = json_string_value(json_object_get(m, "updated_at"));
    if (!id)
        return NULL;
    mn_buf uri = MN_BUF_INIT, desc = MN_BUF_INIT;
    mn_buf_printf(&uri, MEMORY_PREFIX "%s", id);
    mn_buf_printf(&desc, "%s, %s", kind ? kind : "memory", level ? level : "?");
    if (status && strcmp(status, "active") != 0)
        mn_buf_printf(&desc, ", %s", status);
    const json_t *tags = json_object_get(m, "tags");
    size_t i;
    const json_t *t;
    json_array_foreach(tags, i, t)
    {
        const char *tag = json_string_value(t);
        mn_buf_printf(&desc, "%s%s", i ? ", " : "; tags: ", tag ? tag : "");
    }
    /* name is what clients of the 2024-11-05 and 2025-03-26 revisions (no title) display */
    const char *shown = title && *title ? title : id;
    json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:s}", "uri", uri.ptr, "name", shown, "title", shown,
                          "description", desc.ptr, "mimeType", MEMORY_MIME);
    json_t *ann = json_pack("{s:[s]}", "audience", "assistant");
    if (updated)
        json_object_set_new(ann, "lastModified", json_string(updated));
    json_object_set_new(e, "annotations", ann);
    mn_buf_release(&uri);
    mn_buf_release(&desc);
    return e;
}

int mn_mcp_resources_list(mn_ctx *ctx, const json_t *params, json_t **result)
{
    int64_t offset = 0;
    json_t *args = NULL, *out = NULL;
    int rc = check_params(params, "resources/list");
    if (rc == 0)
        rc = cursor_parse(&offset, params, "resources/list");
    if (rc)
        return rc;
    /* what expired is not served (memory.ttl.<kind>, a memory's ttl) */
    args = json_pack("{s:I,s:I,s:s}", "limit", (json_int_t)PAGE_SIZE, "offset", (json_int_t)offset,
                     "expired", "exclude");
    if ((rc = mn_api_call(ctx, "list", args, &out)) != 0)
        goto out;
    json_t *list = json_array();
    if (offset == 0)
        json_array_append_new(list, overview_entry());
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(out, "memories"), i, m)
    {
        json_t *e = memory_entry(m);
        if (e)
            json_array_append_new(list, e);
    }
    size_t got = json_array_size(json_object_get(out, "memories"));
    int64_t total = json_integer_value(json_object_get(out, "total"));
    *result = json_pack("{s:o}", "resources", list);
    if (got == PAGE_SIZE && offset + (int64_t)got < total && offset + (int64_t)got <= OFFSET_MAX)
        json_object_set_new(*result, "nextCursor", cursor_make(offset + (int64_t)got));
out:
    json_decref(args);
    json_decref(out);
    return rc;
}

/* ---- resources/templates/list ---- */

int mn_mcp_resource_templates_list(mn_ctx *ctx, const json_t *params, json_t **result)
{
    MN_UNUSED(ctx);
    int rc = check_params(params, "resources/templates/list");
    if (rc)
        return rc;
    /* one page: any cursor is one we never issued */
    const json_t *c = json_object_get(params, "cursor");
    if (c && !json_is_null(c))
        return mn_error_set(MN_EINVAL,
                            "resources/templates/list: invalid cursor: the list has one page");
    *result = json_pack(
        "{s:[{s:s,s:s,s:s,s:s,s:s}]}", "resourceTemplates", "uriTemplate", MEMORY_PREFIX "{id}",
        "name", "memory", "title", "A project memory", "description",
        "One memory by id (the 26-character id that context, recall, search and save return): "
        "every field, its links and what links to it, as the JSON of the get tool.",
        "mimeType", MEMORY_MIME);
    return 0;
}

/* ---- resources/read ---- */

static int read_overview(mn_ctx *ctx, json_t **text_out, json_t *ids)
{
    json_t *cargs =
        json_pack("{s:s,s:I}", "mode", "discovery", "max_tokens", (json_int_t)OVERVIEW_TOKENS);
    json_t *largs = json_pack("{s:s,s:s,s:I}", "level", "L1", "status", "active", "limit",
                              (json_int_t)DOMAINS_MAX);
    json_t *cout = NULL, *lout = NULL;
    mn_buf md = MN_BUF_INIT;
    int rc = mn_api_call(ctx, "context", cargs, &cout);
    if (rc == 0)
        rc = mn_api_call(ctx, "list", largs, &lout);
    if (rc)
        goto out;
    /* the L0 part as the context tool writes it: one implementation of the overview */
    const char *l0 = json_string_value(json_object_get(cout, "markdown"));
    mn_buf_puts(&md, l0 ? l0 : "# Project memory: overview\n");
    const json_t *l1 = json_object_get(lout, "memories");
    if (json_array_size(l1)) {
        mn_buf_puts(&md, "\n## Domains and packages\n");
        size_t i;
        const json_t *m;
        json_array_foreach(l1, i, m)
        {
            const char *title = json_string_value(json_object_get(m, "title"));
            const char *id = json_string_value(json_object_get(m, "id"));
            mn_buf_printf(&md, "- %s (" MEMORY_PREFIX "%s)\n", title ? title : "", id ? id : "");
            if (id)
                json_array_append_new(ids, json_string(id));
        }
    }
    if (json_array_size(json_object_get(cout, "items")) == 0 && json_array_size(l1) == 0)
        mn_buf_puts(&md, "\nNo overview yet: discovery writes it when the repository is indexed "
                         "(`mnemo index`, or the first context call inside the repository).\n");
    else
        mn_buf_puts(&md, "\nEach fact is a memory; read one in full as " MEMORY_PREFIX "{id}.\n");
    *text_out = json_stringn(md.ptr, md.len);
out:
    json_decref(cargs);
    json_decref(largs);
    json_decref(cout);
    json_decref(lout);
    mn_buf_release(&md);
    return rc;
}

static int read_memory(mn_ctx *ctx, const char *uri, const char *id_in, json_t **text_out,
                       json_t *ids)
{
    char id[MN_ID_LEN + 1];
    size_t n = strlen(id_in);
    if (n != MN_ID_LEN || !mn_id_is_prefix(id_in))
        return mn_error_set(MN_EINVAL,
                            "resources/read: invalid memory uri '%.100s': expected "
                            "mnemo://memory/{id} with a 26-character id",
                            uri);
    for (size_t i = 0; i < n; i++) /* ids are stored upper case; the URI may not be */
        id[i] = (id_in[i] >= 'a' && id_in[i] <= 'z') ? (char)(id_in[i] - 'a' + 'A') : id_in[i];
    id[n] = '\0';
    json_t *args = json_pack("{s:s}", "id", id), *out = NULL;
    /* the read's audit row is the resource's (mn_api_audit_resource, below), not a get's */
    ctx->own_reads = true;
    int rc = mn_api_call(ctx, "get", args, &out);
    ctx->own_reads = false;
    json_decref(args);
    if (rc)
        return rc;
    /* a forgotten memory is gone for every reader but `get --json` on the CLI */
    if (json_object_get(json_object_get(out, "memory"), "deleted_at")) {
        json_decref(out);
        return mn_error_set(MN_ENOTFOUND, "memory '%s' not found (it was forgotten)", id);
    }
    char *text = json_dumps(out, JSON_COMPACT);
    json_decref(out);
    if (!text)
        return mn_error_set(MN_EINTERNAL, "resources/read: cannot write memory '%s' as JSON", id);
    *text_out = json_string(text);
    free(text);
    json_array_append_new(ids, json_string(id));
    return *text_out ? 0 : mn_error_set(MN_EINTERNAL, "resources/read: bad text in '%s'", id);
}

int mn_mcp_resources_read(mn_ctx *ctx, const json_t *params, json_t **result)
{
    int rc = check_params(params, "resources/read");
    if (rc)
        return rc;
    const json_t *u = json_object_get(params, "uri");
    if (!u)
        return mn_error_set(MN_EINVAL, "resources/read: missing 'uri'");
    const char *uri = json_string_value(u);
    if (!uri)
        return mn_error_set(MN_EINVAL, "resources/read: 'uri' must be a string");
    if (strlen(uri) > URI_MAX_LEN)
        return mn_error_set(MN_EINVAL, "resources/read: 'uri' is longer than %d bytes",
                            URI_MAX_LEN);
    if (strncmp(uri, SCHEME, strlen(SCHEME)) != 0)
        return mn_error_set(MN_EINVAL,
                            "resources/read: unsupported uri '%.100s': this server serves "
                            "mnemo://overview and mnemo://memory/{id}",
                            uri);
    json_t *text = NULL, *ids = json_array();
    const char *mime;
    if (!strcmp(uri, OVERVIEW_URI)) {
        mime = OVERVIEW_MIME;
        rc = read_overview(ctx, &text, ids);
    } else if (!strncmp(uri, MEMORY_PREFIX, strlen(MEMORY_PREFIX))) {
        mime = MEMORY_MIME;
        rc = read_memory(ctx, uri, uri + strlen(MEMORY_PREFIX), &text, ids);
    } else {
        json_decref(ids);
        return mn_error_set(MN_ENOTFOUND,
                            "resource '%.100s' not found: this server serves mnemo://overview "
                            "and mnemo://memory/{id}",
                            uri);
    }
    /* who read which memories, as for every read (the overview's context call has its own row) */
    if (rc == 0)
        mn_api_audit_resource(ctx, uri, ids);
    json_decref(ids);
    if (rc)
        return rc;
    *result =
        json_pack("{s:[{s:s,s:s,s:o}]}", "contents", "uri", uri, "mimeType", mime, "text", text);
    return 0;
}
