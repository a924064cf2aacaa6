/*
 * hook.c - Claude Code's hooks: the project memory for a prompt, added
 * before the model sees it, and what the agent did with it.
 *
 * Claude Code runs `mnemo hook claude-code` with the hook's JSON on stdin
 * and reads our JSON on stdout (docs/clients/claude-code.md):
 *  - UserPromptSubmit {session_id, prompt, cwd}: the `context` operation's
 *    Markdown for the prompt goes back as
 *    hookSpecificOutput.additionalContext. The session id goes with it:
 *    the project overview comes once per agent session, later prompts get
 *    only its lines that share words with them (op_context.c);
 *  - PreToolUse of the sub-agent tool (tool_name "Task", "Agent" since
 *    Claude Code 2.1.63) {tool_input: {prompt, ...}}: the context is
 *    appended to the sub-agent's prompt through updatedInput (the whole
 *    tool_input, changed only in prompt), which Claude Code honours only
 *    beside a permissionDecision: "allow" lets the call through as it
 *    would go anyway, and it does not override the user's deny or ask rules;
 *    after the context comes the plan of files for the sub-agent's task
 *    (the plan_files op: Graph Seeds, Semantic Hits, Final Context Files)
 *    within MNEMO_PLAN_BUDGET tokens (default 1800, 0: no plan);
 *  - PostToolUse of Read, Edit, MultiEdit, Write, NotebookEdit
 *    {tool_input: {file_path | notebook_path}}: implicit feedback, the
 *    items the session's answers served at that file are used;
 *  - Stop and SessionEnd {transcript_path}: the session's answers are
 *    settled, what they served and the agent never touched counts as
 *    ignored (op_feedback.c); and the transcript is captured (ingest's
 *    capture op: decisions, fixed errors, warnings, through the save
 *    pipeline) by a process of its own once the hook has answered
 *    (cmd_hook.c), so that Claude Code never waits for it.
 * The last two print nothing.
 *
 * Quiet when there is nothing to say: a conversational turn ("yes, go
 * ahead", "thanks", "looks good, continue": every word is one that keeps a
 * conversation going, or fewer than two words say what it is about),
 * context finding nothing relevant, a budget (config hook.max_tokens) of
 * 0, all give an empty answer. The store is the one found from the hook's
 * cwd, never created, and only a project's: outside a repository (no
 * .mnemo/ or .git above cwd) the hooks answer nothing, unless MNEMO_DB
 * names a store, so the per-user store never serves one project's memory
 * for another's prompt.
 *
 * Everything from stdin is checked: a JSON object under a size cap, the
 * event name, an absolute cwd that is a directory, the prompt a string.
 * The caller (cmd_hook.c) turns any failure into silence.
 */
#include "common.h"
#include <ctype.h>
#include <sys/stat.h>

#include "mnemo/agent.h"
#include "mnemo/api.h"
#include "agent/agent.h"
#include "util/util.h"

#define DEFAULT_MAX_TOKENS  1800
#define DEFAULT_PLAN_BUDGET 1800 /* MNEMO_PLAN_BUDGET unset */
#define MIN_PLAN_BUDGET     50   /* plan_files' budget.minimum */
/* context's query is at most 32768 characters; a longer prompt is cut */
#define MAX_QUERY_BYTES 32000
#define MAX_SESSION     200 /* bytes of a session id kept (the context op's schema) */
#define MARK            "<project-memory source=\"mnemo\">"

/*
 * Words that keep a conversation going without saying what it is about:
 * acknowledgements, go-aheads, pronouns, and the verbs and nouns of any
 * task ("run the tests again", "commit it", "undo that change"). A prompt
 * made of these alone asks nothing of the project's memory.
 */
static const char *const chat_words[] = {
    "a",       "about",    "actually",  "again",     "agree",   "agreed",   "ah",      "ahead",
    "all",     "alright",  "also",      "am",        "amazing", "an",       "and",     "answer",
    "any",     "anything", "approach",  "are",       "as",      "at",       "awesome", "back",
    "be",      "better",   "but",       "by",        "can",     "cancel",   "carry",   "change",
    "changes", "check",    "cheers",    "code",      "commit",  "continue", "cool",    "correct",
    "could",   "did",      "diff",      "different", "do",      "does",     "doing",   "done",
    "dont",    "else",     "exactly",   "excellent", "explain", "file",     "files",   "fine",
    "first",   "fix",      "for",       "from",      "get",     "go",       "going",   "good",
    "got",     "great",    "guess",     "had",       "haha",    "has",      "have",    "he",
    "hello",   "help",     "here",      "hey",       "hi",      "hm",       "hmm",     "hold",
    "how",     "i",        "if",        "im",        "in",      "indeed",   "instead", "is",
    "isnt",    "it",       "its",       "job",       "just",    "keep",     "last",    "let",
    "lets",    "lgtm",     "like",      "lol",       "look",    "looks",    "love",    "make",
    "makes",   "me",       "mean",      "meant",     "more",    "much",     "my",      "nah",
    "need",    "never",    "next",      "nice",      "no",      "nope",     "not",     "now",
    "of",      "oh",       "ok",        "okay",      "on",      "one",      "ones",    "option",
    "or",      "other",    "out",       "perfect",   "please",  "pls",      "plz",     "proceed",
    "push",    "put",      "really",    "redo",      "revert",  "right",    "run",     "same",
    "say",     "second",   "see",       "seems",     "sense",   "set",      "ship",    "should",
    "show",    "so",       "something", "sorry",     "sound",   "sounds",   "start",   "step",
    "steps",   "still",    "stop",      "sure",      "thank",   "thanks",   "that",    "thats",
    "the",     "them",     "then",      "there",     "these",   "they",     "thing",   "things",
    "think",   "this",     "those",     "thx",       "to",      "too",      "try",     "ty",
    "uh",      "um",       "undo",      "up",        "us",      "very",     "wait",    "want",
    "was",     "way",      "we",        "well",      "went",    "were",     "what",    "whats",
    "when",    "where",    "which",     "why",       "will",    "with",     "work",    "worked",
    "working", "works",    "would",     "wow",       "wrong",   "y",        "yeah",    "yep",
    "yes",     "yet",      "you",       "your",      "yup",
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool chat_word(const char *w)
{
    const char *key = w;
    return bsearch(&key, chat_words, MN_ARRAY_SIZE(chat_words), sizeof(*chat_words), cmp_str) !=
           NULL;
}

/*
 * Whether a prompt asks nothing of the project's memory: fewer than two
 * words or eight letters and digits, or its words (lower-cased,
 * apostrophes dropped) are all conversational but one at most, and that
 * one is no identifier (a name with _ . / or an inner capital, a word
 * with digits: those name code even alone).
 */
static bool conversational(const char *s)
{
    size_t words = 0, alnum = 0, content = 0;
    bool named = false;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (!(isalnum(*p) || *p == '_' || *p >= 0x80)) {
            p++;
            continue;
        }
        char w[64];
        size_t n = 0;
        bool ident = false, upper_inside = false, digit = false;
        const unsigned char *start = p;
        while (*p && (isalnum(*p) || *p == '_' || *p == '\'' || *p >= 0x80 ||
                      ((*p == '.' || *p == '/' || *p == '-') && isalnum(p[1]) && p > start))) {
            if (*p == '_' || *p == '.' || *p == '/')
                ident = true;
            if (p > start && isupper(*p) && islower(p[-1]))
                upper_inside = true;
            if (isdigit(*p))
                digit = true;
            if (isalnum(*p) || *p >= 0x80)
                alnum++;
            if (*p != '\'' && n + 1 < sizeof(w))
                w[n++] = (char)tolower(*p);
            p++;
        }
        w[n] = '\0';
        words++;
        if (!n || chat_word(w))
            continue;
        content++;
        named |= ident || upper_inside || (digit && isalpha((unsigned char)w[0]));
    }
    if (words < 2 || alnum < 8)
        return true;
    return content == 0 || (content == 1 && !named);
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
static json_t *context_args(const char *prompt, const char *session)
{
    size_t n = mn_utf8_floor(prompt, strlen(prompt), MAX_QUERY_BYTES);
    json_t *a = json_pack("{s:s%,s:b}", "query", prompt, n, "refresh", 0);
    if (a && session && *session) {
        size_t sn = mn_utf8_floor(session, strlen(session), MAX_SESSION);
        json_t *s = json_stringn(session, sn);
        if (s)
            json_object_set_new(a, "session", s);
    }
    return a;
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
 * The store around cwd, when it is a project's: *loc filled, false (and
 * nothing to say) outside any repository unless MNEMO_DB names a store.
 */
static bool project_store(mn_location *loc, const char *cwd)
{
    memset(loc, 0, sizeof(*loc));
    if (mn_locate(loc, NULL, cwd) != 0) {
        mn_error_clear();
        return false;
    }
    if (!strcmp(loc->how, "user default")) {
        mn_location_release(loc);
        return false;
    }
    return true;
}

/*
 * The context Markdown for prompt in the store around cwd; *md NULL when
 * nothing relevant. A `mnemo mcp` serving that store answers it when one
 * listens (warm.c: everything loaded already); else this process does.
 * refresh is false: an index older than index.refresh_age is used as it
 * is (walking sympy's tree costs ~40 ms of the hook's budget) and *stale_root
 * says where to re-index later.
 */
static int context_for(char **md, char **stale_root, const char *cwd, const char *prompt,
                       const char *session)
{
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_location loc = {0};
    mn_ctx *ctx = NULL;
    json_t *args = NULL, *r = NULL;
    json_int_t budget;
    int rc = 0;
    *md = NULL;
    if (!project_store(&loc, cwd))
        return 0; /* no project here: nothing to say */
    if (!(args = context_args(prompt, session))) {
        rc = mn_error_set(MN_EINVAL, "hook input: the prompt is not valid UTF-8");
        goto out;
    }
    if (mn_fs_exists(loc.db_path) && mn_warm_context(&r, loc.db_path, args) == 0) {
        take_result(md, stale_root, r, loc.root);
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

/*
 * The budget of the plan a sub-agent's prompt gets: MNEMO_PLAN_BUDGET
 * (tokens, 0: no plan), DEFAULT_PLAN_BUDGET when unset; a value that is not
 * a number from 0 to 200000 is ignored (the default), as the hook never
 * fails on its environment.
 */
static json_int_t plan_budget(void)
{
    const char *v = getenv("MNEMO_PLAN_BUDGET");
    int64_t n;
    if (!v || !*v || mn_parse_int64(&n, v, 0, 200000, "MNEMO_PLAN_BUDGET") != 0) {
        mn_error_clear();
        return DEFAULT_PLAN_BUDGET;
    }
    return n;
}

/*
 * The plan_files op's text for a sub-agent's task (the three sections:
 * Graph Seeds, Semantic Hits, Final Context Files) within
 * MNEMO_PLAN_BUDGET; *text NULL when there is no project, a budget of 0,
 * or no file in the plan. The op falls back to the legacy plan by itself.
 */
static int plan_for(char **text, const char *cwd, const char *prompt)
{
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_location loc = {0};
    mn_ctx *ctx = NULL;
    json_t *args = NULL, *r = NULL;
    json_int_t budget = plan_budget();
    int rc = 0;
    *text = NULL;
    if (budget == 0 || !project_store(&loc, cwd))
        goto out;
    size_t n = mn_utf8_floor(prompt, strlen(prompt), MAX_QUERY_BYTES);
    if (!(args = json_pack("{s:s%,s:I}", "task", prompt, n, "budget",
                           budget < MIN_PLAN_BUDGET ? (json_int_t)MIN_PLAN_BUDGET : budget))) {
        rc = mn_error_set(MN_EINVAL, "hook input: the prompt is not valid UTF-8");
        goto out;
    }
    o.start_dir = cwd;
    o.actor = "hook";
    o.create = false;
    o.progress = false;
    if ((rc = mn_ctx_open(&ctx, &o)) != 0 || (rc = mn_api_call(ctx, "plan_files", args, &r)) != 0)
        goto out;
    if (json_array_size(json_object_get(r, "selected")))
        *text = mn_strdup(json_string_value(json_object_get(r, "text")));
out:
    mn_location_release(&loc);
    json_decref(args);
    json_decref(r);
    mn_ctx_free(ctx);
    return rc;
}

/*
 * Implicit feedback of a session: file (absolute, from a tool's input)
 * read or edited, or NULL at the session's Stop. Nothing when the file is
 * outside the repository or there is no project store here.
 */
static int feedback_for(const char *cwd, const char *session, const char *file)
{
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_location loc = {0};
    mn_ctx *ctx = NULL;
    json_t *args = NULL, *r = NULL;
    int rc = 0;
    if (!session || !*session || !project_store(&loc, cwd))
        return 0;
    if (!mn_fs_exists(loc.db_path))
        goto out; /* never creates one */
    o.start_dir = cwd;
    o.actor = "hook";
    o.create = false;
    o.progress = false;
    if ((rc = mn_ctx_open(&ctx, &o)) != 0)
        goto out;
    const char *root = mn_ctx_root(ctx);
    size_t n = root ? strlen(root) : 0;
    if (file && (!n || strncmp(file, root, n) != 0 || file[n] != '/' || !file[n + 1]))
        goto out; /* not a file of this project */
    args = json_pack("{s:s,s:s%}", "signal", file ? "used" : "ignored", "session", session,
                     mn_utf8_floor(session, strlen(session), MAX_SESSION));
    if (!args)
        goto out; /* a session id that is not UTF-8: none of ours */
    if (file) {
        json_t *f = json_string(file + n + 1);
        if (!f)
            goto out; /* not UTF-8: no path of ours */
        json_object_set_new(args, "files", json_pack("[o]", f));
        json_object_set_new(args, "note", json_string("the agent read or edited it"));
    } else {
        json_object_set_new(args, "note", json_string("the session stopped without touching it"));
    }
    rc = mn_api_call(ctx, "feedback", args, &r);
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

static bool file_tool(const char *tool)
{
    static const char *const tools[] = {"Read", "Edit", "MultiEdit", "Write", "NotebookEdit"};
    for (size_t i = 0; tool && i < MN_ARRAY_SIZE(tools); i++)
        if (!strcmp(tool, tools[i]))
            return true;
    return false;
}

void mn_hook_after_release(mn_hook_after *a)
{
    free(a->reindex_root);
    free(a->capture_dir);
    free(a->transcript);
    memset(a, 0, sizeof(*a));
}

/*
 * At a Stop: the transcript to capture, when it is named (an absolute
 * path; the capture op confines it to the project and Claude Code's
 * transcript directory) and the project has a store (never created here).
 */
static void capture_later(mn_hook_after *after, const json_t *in, const char *cwd)
{
    const char *t = json_string_value(json_object_get(in, "transcript_path"));
    mn_location loc;
    if (!t || t[0] != '/' || strlen(t) > 4096 || !project_store(&loc, cwd))
        return;
    if (mn_fs_exists(loc.db_path)) {
        after->capture_dir = mn_strdup(cwd);
        after->transcript = mn_strdup(t);
    }
    mn_location_release(&loc);
}

int mn_hook_claude_code(json_t **out, const char *input, size_t len, mn_hook_after *after)
{
    char **stale_root = &after->reindex_root;
    json_t *in = NULL;
    json_error_t jerr;
    const char *event = NULL, *cwd = NULL, *prompt = NULL;
    char *md = NULL, *plan = NULL;
    struct stat st;
    int rc = 0;

    *out = NULL;
    memset(after, 0, sizeof(*after));
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
    const char *session = json_string_value(json_object_get(in, "session_id"));
    if (!strcmp(event, "UserPromptSubmit")) {
        if ((rc = need_string(&prompt, in, "prompt", "")) != 0 || conversational(prompt))
            goto out;
        if ((rc = context_for(&md, stale_root, cwd, prompt, session)) != 0 || !md)
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
        if ((rc = need_string(&prompt, ti, "prompt", "tool_input.")) != 0 ||
            conversational(prompt) || strstr(prompt, MARK))
            goto out;
        /* a sub-agent starts afresh: its prompt gets the overview (no session), and the plan of
         * files for its task */
        if ((rc = context_for(&md, stale_root, cwd, prompt, NULL)) != 0 ||
            (rc = plan_for(&plan, cwd, prompt)) != 0 || (!md && !plan))
            goto out;
        mn_buf p = MN_BUF_INIT;
        mn_buf_printf(&p, "%s\n\n" MARK "\n%s%s%s\n</project-memory>", prompt, md ? md : "",
                      md && plan ? "\n\n" : "", plan ? plan : "");
        json_t *updated = json_deep_copy(ti);
        json_object_set_new(updated, "prompt", json_string(p.ptr));
        mn_buf_release(&p);
        *out = json_pack("{s:{s:s,s:s,s:s,s:o}}", "hookSpecificOutput", "hookEventName",
                         "PreToolUse", "permissionDecision", "allow", "permissionDecisionReason",
                         "mnemo added the project memory for this task to the sub-agent's prompt",
                         "updatedInput", updated);
    } else if (!strcmp(event, "PostToolUse")) {
        const char *tool = json_string_value(json_object_get(in, "tool_name"));
        const json_t *ti = json_object_get(in, "tool_input");
        if (!file_tool(tool) || !json_is_object(ti))
            goto out; /* installed with matcher Read|Edit|MultiEdit|Write|NotebookEdit */
        const char *file = json_string_value(json_object_get(ti, "file_path"));
        if (!file)
            file = json_string_value(json_object_get(ti, "notebook_path"));
        if (file && file[0] == '/')
            rc = feedback_for(cwd, session, file);
    } else if (!strcmp(event, "Stop") || !strcmp(event, "SessionEnd")) {
        rc = feedback_for(cwd, session, NULL);
        capture_later(after, in, cwd);
    }
    /* other events: nothing to add */
out:
    free(md);
    free(plan);
    json_decref(in);
    return rc;
}
