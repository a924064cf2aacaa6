/*
 * hook.c - Claude Code's hooks: the project memory for a prompt, added
 * before the model sees it.
 *
 * Claude Code runs `mnemo hook claude-code` with the hook's JSON on stdin
 * and reads our JSON on stdout (docs/clients/claude-code.md):
 *  - UserPromptSubmit {prompt, cwd}: the `context` operation's Markdown for
 *    the prompt goes back as hookSpecificOutput.additionalContext;
 *  - PreToolUse of the sub-agent tool (tool_name "Task", "Agent" since
 *    Claude Code 2.1.63) {tool_input: {prompt, ...}}: the context is
 *    appended to the sub-agent's prompt through updatedInput (the whole
 *    tool_input, changed only in prompt), which Claude Code honours only
 *    beside a permissionDecision: "allow" lets the call through as it
 *    would go anyway, and it does not override the user's deny or ask rules.
 * The store is the one found from the hook's cwd, never created. The
 * budget is config hook.max_tokens (0: the hook adds nothing). When context
 * finds nothing relevant (relevant: false), or the prompt is too short to
 * search for ("yes", "go on"), nothing is added: an empty answer.
 *
 * Everything from stdin is checked: a JSON object under a size cap, the
 * event name, an absolute cwd that is a directory, the prompt a string.
 * The caller (cmd_hook.c) turns any failure into silence.
 */
#include "common.h"
#include <sys/stat.h>

#include "mnemo/agent.h"
#include "mnemo/api.h"
#include "agent/agent.h"
#include "util/util.h"

#define DEFAULT_MAX_TOKENS 1800
/* context's query is at most 32768 characters; a longer prompt is cut */
#define MAX_QUERY_BYTES 32000
#define MARK            "<project-memory source=\"mnemo\">"

/* Too short to search for: under two words or under 8 letters and digits. */
static bool trivial(const char *s)
{
    size_t words = 0, alnum = 0;
    bool in = false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool w = (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') ||
                 *p == '_' || *p >= 0x80;
        alnum += w && *p != '_';
        if (w && !in)
            words++;
        in = w;
    }
    return words < 2 || alnum < 8;
}

int mn_hook__budget(mn_ctx *ctx, json_int_t *out)
{
    json_t *args = json_pack("{s:s,s:s}", "action", "get", "key", "hook.max_tokens"), *r = NULL;
    int rc = mn_api_call(ctx, "config", args, &r);
    json_decref(args);
    *out = DEFAULT_MAX_TOKENS;
    if (rc == MN_EINVAL) { /* a mnemo without the key */
        mn_error_clear();
        return 0;
    }
    if (rc == 0) {
        const char *v = json_string_value(json_object_get(r, "value"));
        int64_t n;
        if (v && mn_parse_int64(&n, v, 0, 200000, "hook.max_tokens") == 0)
            *out = n;
    }
    json_decref(r);
    return rc;
}

/* The context op's arguments for prompt; NULL when it is not valid UTF-8. */
static json_t *context_args(const char *prompt)
{
    size_t n = mn_utf8_floor(prompt, strlen(prompt), MAX_QUERY_BYTES);
    return json_pack("{s:s%,s:b}", "query", prompt, n, "refresh", 0);
}

/*
 * The Markdown of a context result (*md NULL when nothing relevant) and,
 * when it says the index is stale, root into *stale_root.
 */
static void take_result(char **md, char **stale_root, const json_t *r, const char *root)
{
    size_t i;
    const json_t *note;
    json_array_foreach(json_object_get(r, "notes"), i, note)
    {
        if (json_is_string(note) && !strcmp(json_string_value(note), MN_API_NOTE_STALE) && root &&
            !*stale_root)
            *stale_root = mn_strdup(root);
    }
    const char *m = json_string_value(json_object_get(r, "markdown"));
    if (json_is_true(json_object_get(r, "relevant")) && m && *m) {
        size_t len = strlen(m);
        while (len && (m[len - 1] == '\n' || m[len - 1] == ' '))
            len--;
        *md = mn_strndup(m, len);
    }
}

/*
 * The context Markdown for prompt in the store around cwd; *md NULL when
 * nothing relevant. A `mnemo mcp` serving that store answers it when one
 * listens (warm.c: everything loaded already); else this process does.
 * refresh is false: an index older than index.refresh_age is used as it is
 * (walking sympy's tree costs ~40 ms of the hook's budget) and *stale_root
 * says where to re-index later.
 */
static int context_for(char **md, char **stale_root, const char *cwd, const char *prompt)
{
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_location loc = {0};
    mn_ctx *ctx = NULL;
    json_t *args = NULL, *r = NULL;
    json_int_t budget;
    int rc;
    *md = NULL;
    if (!(args = context_args(prompt)))
        return mn_error_set(MN_EINVAL, "hook input: the prompt is not valid UTF-8");
    if (mn_locate(&loc, NULL, cwd) == 0 && mn_fs_exists(loc.db_path) &&
        mn_warm_context(&r, loc.db_path, args) == 0) {
        take_result(md, stale_root, r, loc.root);
        rc = 0;
        goto out;
    }
    mn_error_clear();
    o.start_dir = cwd;
    o.actor = "hook";
    o.create = false;
    o.progress = false;
    if ((rc = mn_ctx_open(&ctx, &o)) != 0)
        goto out;
    if ((rc = mn_hook__budget(ctx, &budget)) != 0 || budget == 0)
        goto out;
    json_object_set_new(args, "max_tokens", json_integer(budget < 64 ? 64 : budget));
    if ((rc = mn_api_call(ctx, "context", args, &r)) != 0)
        goto out;
    take_result(md, stale_root, r, mn_ctx_root(ctx));
out:
    mn_location_release(&loc);
    json_decref(args);
    json_decref(r);
    mn_ctx_free(ctx);
    return rc;
}

static int need_string(const char **out, const json_t *o, const char *key, const char *where)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        return mn_error_set(MN_EINVAL, "hook input: %s%s must be a string", where, key);
    *out = json_string_value(v);
    return 0;
}

int mn_hook_claude_code(json_t **out, const char *input, size_t len, char **stale_root)
{
    json_t *in = NULL;
    json_error_t jerr;
    const char *event = NULL, *cwd = NULL, *prompt = NULL;
    char *md = NULL;
    struct stat st;
    int rc = 0;

    *out = NULL;
    *stale_root = NULL;
    if (len > MN_HOOK_MAX_INPUT)
        return mn_error_set(MN_ETOOBIG, "hook input is over %u bytes", MN_HOOK_MAX_INPUT);
    if (!(in = json_loadb(input, len, JSON_REJECT_DUPLICATES, &jerr)))
        return mn_error_set(MN_EINVAL, "hook input is not JSON (line %d, column %d: %s)", jerr.line,
                            jerr.column, jerr.text);
    if (!json_is_object(in)) {
        rc = mn_error_set(MN_EINVAL, "hook input must be a JSON object");
        goto out;
    }
    if ((rc = need_string(&event, in, "hook_event_name", "")) != 0 ||
        (rc = need_string(&cwd, in, "cwd", "")) != 0)
        goto out;
    if (cwd[0] != '/' || stat(cwd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rc = mn_error_set(MN_EINVAL, "hook input: cwd '%.200s' is not an absolute directory", cwd);
        goto out;
    }
    if (!strcmp(event, "UserPromptSubmit")) {
        if ((rc = need_string(&prompt, in, "prompt", "")) != 0 || trivial(prompt))
            goto out;
        if ((rc = context_for(&md, stale_root, cwd, prompt)) != 0 || !md)
            goto out;
        *out = json_pack("{s:{s:s,s:s}}", "hookSpecificOutput", "hookEventName", "UserPromptSubmit",
                         "additionalContext", md);
    } else if (!strcmp(event, "PreToolUse")) {
        const char *tool = json_string_value(json_object_get(in, "tool_name"));
        const json_t *ti = json_object_get(in, "tool_input");
        if (!tool || (strcmp(tool, "Task") != 0 && strcmp(tool, "Agent") != 0))
            goto out; /* installed with matcher Task|Agent; anything else is not ours */
        if (!json_is_object(ti)) {
            rc = mn_error_set(MN_EINVAL, "hook input: tool_input must be an object");
            goto out;
        }
        if ((rc = need_string(&prompt, ti, "prompt", "tool_input.")) != 0 || trivial(prompt) ||
            strstr(prompt, MARK))
            goto out;
        if ((rc = context_for(&md, stale_root, cwd, prompt)) != 0 || !md)
            goto out;
        mn_buf p = MN_BUF_INIT;
        mn_buf_printf(&p, "%s\n\n" MARK "\n%s\n</project-memory>", prompt, md);
        json_t *updated = json_deep_copy(ti);
        json_object_set_new(updated, "prompt", json_string(p.ptr));
        mn_buf_release(&p);
        *out = json_pack("{s:{s:s,s:s,s:s,s:o}}", "hookSpecificOutput", "hookEventName",
                         "PreToolUse", "permissionDecision", "allow", "permissionDecisionReason",
                         "mnemo added the project memory for this task to the sub-agent's prompt",
                         "updatedInput", updated);
    }
    /* other events: nothing to add */
out:
    free(md);
    json_decref(in);
    return rc;
}
