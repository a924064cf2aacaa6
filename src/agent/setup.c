/*
 * setup.c - put mnemo into an agent client's configuration, or take it out.
 *
 * Each client is a row of `clients`: where its MCP servers live for a
 * project and for the user, and how an entry looks. What setup adds:
 *  - an MCP server named "mnemo" that runs `<mnemo> mcp` (JSON: under
 *    mcpServers or servers; Codex: the TOML table [mcp_servers.mnemo]);
 *  - for Claude Code, five hooks in its settings, all running `<mnemo>
 *    hook claude-code`: UserPromptSubmit and PreToolUse of the sub-agent
 *    tool (matcher "Task|Agent": Claude Code 2.1.63 renamed Task to Agent)
 *    add the context; PostToolUse of the file tools (matcher
 *    "Read|Edit|MultiEdit|Write|NotebookEdit"), Stop and SessionEnd record
 *    what the agent used of it (implicit feedback), and the last two
 *    capture the session's transcript (hook.c).
 * How the server finds the project's store: Claude Code and Codex start it
 * in the project's directory, where mnemo finds .mnemo/ as git finds .git;
 * Cursor and VS Code may not, so their entry sets MNEMO_DB to
 * ${workspaceFolder}/.mnemo/mnemo.db, a variable both expand.
 *
 * With --remote URL (opts->remote) the entry is an HTTP one instead: the
 * laptop's agent talks to a team's `mnemo serve`. The token never goes
 * into a file, only its variable's name in the client's own expansion
 * syntax: Claude Code {"type":"http","url","headers":{"Authorization":
 * "Bearer ${VAR}"}}, Cursor {"url","headers":{... "${env:VAR}"}}, Codex
 * url + bearer_token_env_var. VS Code is refused (its env expansion in
 * headers is not verified). The URL must be https://, or http:// to a
 * loopback host; without a token variable only loopback is allowed. The
 * hooks are not written with --remote: they read a local store, and the
 * team's memory is on the server.
 *
 * Edits change only mnemo's entries (agent/jsonedit.c, tomledit.c keep the
 * rest byte for byte), are idempotent, and are planned for every file
 * before any is written. Remove takes out exactly the entries setup
 * writes (hooks are recognised by their command, whatever path of mnemo it
 * names) and containers that this leaves empty; it deletes a file only
 * when its bytes are exactly what setup writes into a new file, or what
 * remove leaves equals what it leaves of such a file (the entry may be of
 * the other kind, stdio or remote), so a file that held anything else
 * survives.
 */
#include "common.h"
#include <ctype.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mnemo/agent.h"
#include "mnemo/api.h"
#include "agent/agent.h"
#include "remote/remote.h"
#include "util/util.h"

#define MAX_CONFIG_FILE (64u << 20)

typedef enum { FMT_MCP_JSON, FMT_HOOKS_JSON, FMT_TOML } file_kind;

typedef struct {
    const char *name;
    const char *servers_key; /* the object holding MCP servers; NULL for TOML */
    bool toml;
    bool hooks;         /* Claude Code: also the hooks in settings.json */
    bool workspace_env; /* the entry sets MNEMO_DB from ${workspaceFolder} */
    bool stdio_type;    /* the entry says "type": "stdio" */
    const char *project_file;
    /* a remote entry's token: "Bearer " + open + VAR + "}"; NULL: no JSON headers */
    const char *env_open;
    bool remote_type; /* the remote entry says "type": "http" */
    bool remote_ok;   /* the client's format for a remote entry is verified */
} client;

static const client clients[] = {
    {"claude-code", "mcpServers", false, true, false, true, ".mcp.json", "${", true, true},
    {"cursor", "mcpServers", false, false, true, false, ".cursor/mcp.json", "${env:", false, true},
    {"codex", NULL, true, false, false, false, ".codex/config.toml", NULL, false, true},
    {"vscode", "servers", false, false, true, true, ".vscode/mcp.json", NULL, true, false},
};

/* Both kinds of Codex entry's keys: remove takes out a table of either. */
static const char toml_all_keys[] =
    "command = \"\"\nargs = []\nurl = \"\"\nbearer_token_env_var = \"\"\n";

const char *const *mn_setup_clients(void)
{
    static const char *const names[] = {"claude-code", "cursor", "codex", "vscode", NULL};
    return names;
}

typedef struct {
    char *path;
    file_kind kind;
    bool existed;
    mn_buf text; /* the content, then the new content */
    bool changed;
    bool delete_it;
    const char *what;
} plan;

static char *home_dir(void)
{
    const char *h = getenv("HOME");
    if (!h || !*h) {
        mn_error_set(MN_ENOTFOUND, "$HOME is not set: cannot find the user's configuration");
        return NULL;
    }
    return mn_strdup(h);
}

/* "base/rel" (base from $ENV when set, else $HOME/dflt). */
static char *user_path(const char *env, const char *dflt, const char *rel)
{
    const char *e = env ? getenv(env) : NULL;
    mn_buf b = MN_BUF_INIT;
    if (e && *e) {
        mn_buf_printf(&b, "%s/%s", e, rel);
    } else {
        char *h = home_dir();
        if (!h)
            return NULL;
        mn_buf_printf(&b, "%s/%s%s%s", h, dflt, *dflt ? "/" : "", rel);
        free(h);
    }
    return mn_buf_detach(&b);
}

static char *global_mcp_path(const client *c)
{
    if (!strcmp(c->name, "claude-code")) {
        const char *dir = getenv("CLAUDE_CONFIG_DIR");
        return dir && *dir ? user_path("CLAUDE_CONFIG_DIR", "", ".claude.json")
                           : user_path(NULL, "", ".claude.json");
    }
    if (!strcmp(c->name, "cursor"))
        return user_path(NULL, ".cursor", "mcp.json");
    if (!strcmp(c->name, "codex"))
        return user_path("CODEX_HOME", ".codex", "config.toml");
#ifdef __APPLE__
    return user_path(NULL, "Library/Application Support/Code/User", "mcp.json");
#else
    return user_path("XDG_CONFIG_HOME", ".config", "Code/User/mcp.json");
#endif
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* "mnemo" when the mnemo that PATH finds is this program, else this program's path. */
static char *self_command(void)
{
    char *self = realpath("/proc/self/exe", NULL);
    const char *path = getenv("PATH");
    if (!self)
        return mn_strdup("mnemo");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        mn_buf cand = MN_BUF_INIT;
        mn_buf_printf(&cand, "%.*s/mnemo", (int)n, n ? p : ".");
        bool found = access(cand.ptr, X_OK) == 0;
        bool same = found && same_file(cand.ptr, self);
        mn_buf_release(&cand);
        if (found) { /* the first one on PATH is what a client would run */
            if (same) {
                free(self);
                return mn_strdup("mnemo");
            }
            break;
        }
        p += n + (p[n] == ':');
    }
    return self;
}

/* A word for sh -c: as is when it needs no quoting, else in single quotes. */
static void shell_word(mn_buf *out, const char *s)
{
    if (*s &&
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+-:@%=") ==
            strlen(s)) {
        mn_buf_puts(out, s);
        return;
    }
    mn_buf_putc(out, '\'');
    for (; *s; s++)
        if (*s == '\'')
            mn_buf_puts(out, "'\\''");
        else
            mn_buf_putc(out, *s);
    mn_buf_putc(out, '\'');
}

/*
 * A hook command that setup wrote: the one it writes now (hook_cmd, whatever the program is
 * named: a copy named mnemo2 wrote "…/mnemo2 hook claude-code" and, not knowing it, added
 * five more hooks on every run), or "<…mnemo> hook claude-code" with any path of mnemo.
 */
static bool is_our_hook(const char *cmd, const char *hook_cmd)
{
    static const char tail[] = " hook claude-code";
    if (cmd && hook_cmd && strcmp(cmd, hook_cmd) == 0)
        return true;
    size_t n = cmd ? strlen(cmd) : 0, t = sizeof(tail) - 1;
    if (n <= t || strcmp(cmd + n - t, tail) != 0)
        return false;
    size_t end = n - t;
    if (end && cmd[end - 1] == '\'')
        end--;
    return end >= 5 && !memcmp(cmd + end - 5, "mnemo", 5) &&
           (end == 5 || cmd[end - 6] == '/' || cmd[end - 6] == '\'');
}

static json_t *server_entry(const client *c, const char *command, const mn_setup_options *o)
{
    json_t *e = json_object();
    if (o->remote) {
        if (c->remote_type)
            json_object_set_new(e, "type", json_string("http"));
        json_object_set_new(e, "url", json_string(o->remote));
        if (o->token_env) {
            mn_buf b = MN_BUF_INIT;
            mn_buf_printf(&b, "Bearer %s%s}", c->env_open, o->token_env);
            json_object_set_new(e, "headers", json_pack("{s:s}", "Authorization", b.ptr));
            mn_buf_release(&b);
        }
        return e;
    }
    if (c->stdio_type)
        json_object_set_new(e, "type", json_string("stdio"));
    json_object_set_new(e, "command", json_string(command));
    json_object_set_new(e, "args", json_pack("[s]", "mcp"));
    if (c->workspace_env)
        json_object_set_new(e, "env",
                            json_pack("{s:s}", "MNEMO_DB", "${workspaceFolder}/.mnemo/mnemo.db"));
    return e;
}

static int edit_mcp_json(mn_buf *text, const client *c, const char *command,
                         const mn_setup_options *o, bool remove, bool *changed)
{
    const char *path[] = {c->servers_key, "mnemo", NULL};
    json_t *entry = server_entry(c, command, o), *cur = NULL;
    int rc;
    if (remove) {
        /* the servers object stays: the user may have had it, empty, before */
        rc = mn_jsonedit_remove(text, path, 2, 1, changed);
        goto out;
    }
    if ((rc = mn_jsonedit_get(&cur, text->ptr, text->len, path, 2)) != 0)
        goto out;
    /* none yet, or one of the other kind (stdio <-> http): ours, whole */
    if (!json_is_object(cur) || !json_object_get(cur, "url") != !json_object_get(entry, "url")) {
        rc = mn_jsonedit_set(text, path, 2, entry, changed);
        goto out;
    }
    /* an entry of ours exists: bring our keys up to date, keep any others */
    *changed = false;
    const char *key;
    json_t *v;
    json_object_foreach(entry, key, v)
    {
        /* env and headers are the user's too (MNEMO_LOG, X-...): only ours in them */
        const char *sub = !strcmp(key, "env")       ? "MNEMO_DB"
                          : !strcmp(key, "headers") ? "Authorization"
                                                    : NULL;
        const char *kpath[] = {c->servers_key, "mnemo", key, sub};
        bool ch = false;
        if ((rc = mn_jsonedit_set(text, kpath, sub ? 4 : 3, sub ? json_object_get(v, sub) : v,
                                  &ch)) != 0)
            break;
        *changed |= ch;
    }
    if (rc == 0 && o->remote && !o->token_env) {
        /* a loopback server without a token now: our header goes (headers too when empty) */
        const char *hpath[] = {c->servers_key, "mnemo", "headers", "Authorization"};
        bool ch = false;
        rc = mn_jsonedit_remove(text, hpath, 4, 2, &ch);
        *changed |= ch;
    }
out:
    json_decref(entry);
    json_decref(cur);
    return rc;
}

static const struct {
    const char *event;
    const char *matcher;
} hook_events[] = {{"UserPromptSubmit", NULL},
                   {"PreToolUse", "Task|Agent"},
                   {"PostToolUse", "Read|Edit|MultiEdit|Write|NotebookEdit"},
                   {"Stop", NULL},
                   {"SessionEnd", NULL}};

/* Find a hook of ours under hooks.<event>: its group and index in the group. */
static bool find_our_hook(const json_t *groups, const char *hook_cmd, size_t *gi, size_t *hi)
{
    size_t i, j;
    json_t *g, *h;
    json_array_foreach(groups, i, g)
    {
        json_array_foreach(json_object_get(g, "hooks"), j, h)
        {
            if (is_our_hook(json_string_value(json_object_get(h, "command")), hook_cmd)) {
                *gi = i;
                *hi = j;
                return true;
            }
        }
    }
    return false;
}

static int edit_hooks_json(mn_buf *text, const char *hook_cmd, bool remove, bool *changed)
{
    int rc = 0;
    *changed = false;
    for (size_t e = 0; e < MN_ARRAY_SIZE(hook_events) && rc == 0; e++) {
        const char *path[6] = {"hooks", hook_events[e].event};
        json_t *groups = NULL;
        size_t gi, hi;
        char gs[32], hs[32];
        bool ch = false;
        if ((rc = mn_jsonedit_get(&groups, text->ptr, text->len, path, 2)) != 0)
            break;
        if (groups && !json_is_array(groups)) {
            json_decref(groups);
            return mn_error_set(MN_EINVAL, "hooks.%s is not an array", hook_events[e].event);
        }
        while (remove && rc == 0 && find_our_hook(groups, hook_cmd, &gi, &hi)) {
            json_t *g = json_array_get(groups, gi);
            snprintf(gs, sizeof(gs), "#%zu", gi);
            snprintf(hs, sizeof(hs), "#%zu", hi);
            path[2] = gs;
            path[3] = "hooks";
            path[4] = hs;
            /* the whole group when the hook is all it holds */
            size_t depth = json_array_size(json_object_get(g, "hooks")) == 1 ? 3 : 5;
            rc = mn_jsonedit_remove(text, path, depth, 0, &ch);
            *changed |= ch;
            json_decref(groups);
            groups = NULL;
            if (rc == 0)
                rc = mn_jsonedit_get(&groups, text->ptr, text->len, path, 2);
        }
        if (!remove && find_our_hook(groups, hook_cmd, &gi, &hi)) {
            /* installed; bring the command up to date (mnemo moved) */
            json_t *cmd = json_string(hook_cmd);
            snprintf(gs, sizeof(gs), "#%zu", gi);
            snprintf(hs, sizeof(hs), "#%zu", hi);
            const char *cpath[] = {"hooks", hook_events[e].event, gs, "hooks", hs, "command"};
            rc = mn_jsonedit_set(text, cpath, 6, cmd, &ch);
            *changed |= ch;
            json_decref(cmd);
        } else if (!remove) {
            json_t *group = json_object();
            if (hook_events[e].matcher)
                json_object_set_new(group, "matcher", json_string(hook_events[e].matcher));
            json_object_set_new(group, "hooks",
                                json_pack("[{s:s,s:s}]", "type", "command", "command", hook_cmd));
            rc = mn_jsonedit_append(text, path, 2, group);
            *changed = true;
            json_decref(group);
        }
        json_decref(groups);
    }
    return rc;
}

static void toml_body(mn_buf *body, const char *command, const mn_setup_options *o)
{
    if (o->remote) {
        mn_buf_puts(body, "url = ");
        mn_toml_quote(body, o->remote);
        mn_buf_puts(body, "\n");
        if (o->token_env) {
            mn_buf_puts(body, "bearer_token_env_var = ");
            mn_toml_quote(body, o->token_env);
            mn_buf_puts(body, "\n");
        }
        return;
    }
    mn_buf_puts(body, "command = ");
    mn_toml_quote(body, command);
    mn_buf_puts(body, "\nargs = [\"mcp\"]\n");
}

static int apply(plan *p, const client *c, const char *command, const char *hook_cmd,
                 const mn_setup_options *o, bool remove)
{
    if (p->kind == FMT_TOML) {
        mn_buf body = MN_BUF_INIT;
        bool gone = false;
        int rc = 0;
        toml_body(&body, command, o);
        if (remove) {
            rc =
                mn_tomledit_remove_table(&p->text, "mcp_servers.mnemo", toml_all_keys, &p->changed);
        } else {
            /* ours updated in place; but when the table then still holds keys
             * of the other kind (command vs url: Codex refuses both), and only
             * keys of ours, it is written anew; one with the user's keys stays */
            mn_buf cur = MN_BUF_INIT, probe = MN_BUF_INIT;
            bool ch = false;
            mn_buf_put(&cur, p->text.ptr, p->text.len);
            rc = mn_tomledit_set_table(&cur, "mcp_servers.mnemo", body.ptr, &ch);
            mn_buf_put(&probe, cur.ptr, cur.len);
            if (rc == 0 && mn_tomledit_remove_table(&probe, "mcp_servers.mnemo", body.ptr, &gone)) {
                mn_buf_clear(&probe);
                mn_buf_put(&probe, p->text.ptr, p->text.len);
                if (mn_tomledit_remove_table(&probe, "mcp_servers.mnemo", toml_all_keys, &gone) ==
                        0 &&
                    gone &&
                    mn_tomledit_set_table(&probe, "mcp_servers.mnemo", body.ptr, &ch) == 0) {
                    mn_buf_clear(&cur);
                    mn_buf_put(&cur, probe.ptr, probe.len);
                    ch = true;
                }
                mn_error_clear();
            }
            if (rc == 0) {
                mn_buf_release(&p->text);
                p->text = cur;
                mn_buf_init(&cur);
                p->changed = ch;
            }
            mn_buf_release(&cur);
            mn_buf_release(&probe);
        }
        mn_buf_release(&body);
        return rc;
    }
    if (p->kind == FMT_HOOKS_JSON)
        return edit_hooks_json(&p->text, hook_cmd, remove, &p->changed);
    return edit_mcp_json(&p->text, c, command, o, remove, &p->changed);
}

/* Read a file into p (absent: empty) and check it parses. */
static int load(plan *p)
{
    struct stat st;
    int rc;
    p->existed = stat(p->path, &st) == 0;
    if (!p->existed)
        return 0;
    if (!S_ISREG(st.st_mode))
        return mn_error_set(MN_EINVAL, "'%s' is not a regular file", p->path);
    if ((rc = mn_fs_read(&p->text, p->path, MAX_CONFIG_FILE)) != 0)
        return rc;
    if (p->kind != FMT_TOML && (rc = mn_jsonedit_check(p->text.ptr, p->text.len)) != 0)
        return mn_error_prefix("'%s'", p->path);
    return 0;
}

/* Whether path is a symbolic link (lstat: the link itself). */
static bool is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

int mn_setup(json_t **out, const mn_setup_options *opts)
{
    const client *c = NULL;
    plan plans[2];
    size_t nplans = 0;
    char *command = NULL, *root = NULL;
    mn_buf hook_cmd = MN_BUF_INIT;
    json_t *changes = json_array();
    int rc = 0;

    memset(plans, 0, sizeof(plans));
    for (size_t i = 0; i < MN_ARRAY_SIZE(plans); i++)
        mn_buf_init(&plans[i].text);
    for (size_t i = 0; i < MN_ARRAY_SIZE(clients); i++)
        if (opts->client && !strcmp(clients[i].name, opts->client))
            c = &clients[i];
    if (!c) {
        rc = mn_error_set(MN_EINVAL,
                          "unknown client '%.40s' (known: claude-code, cursor, codex, vscode)",
                          opts->client ? opts->client : "");
        goto out;
    }
    if (opts->token_env && !opts->remote) {
        rc = mn_error_set(MN_EINVAL, "--token-env needs --remote URL");
        goto out;
    }
    if (opts->remote && !c->remote_ok) {
        rc = mn_error_set(MN_EINVAL,
                          "--remote is not supported for '%s' (its header variable syntax is "
                          "not verified): use claude-code, cursor or codex",
                          c->name);
        goto out;
    }
    if (opts->remote && !opts->remove) {
        bool loopback;
        if ((rc = mn_remote_url_check(opts->remote, opts->token_env, &loopback)) != 0)
            goto out;
    }
    command = opts->command ? mn_strdup(opts->command) : self_command();
    shell_word(&hook_cmd, command);
    mn_buf_puts(&hook_cmd, " hook claude-code");

    if (!opts->global) {
        if (opts->project_dir) {
            root = mn_fs_abspath(opts->project_dir);
        } else {
            mn_location loc;
            /* the repository around us, as init finds it; MNEMO_DB does not move it */
            char *saved = getenv("MNEMO_DB") ? mn_strdup(getenv("MNEMO_DB")) : NULL;
            unsetenv("MNEMO_DB");
            rc = mn_locate(&loc, NULL, ".");
            if (saved) {
                setenv("MNEMO_DB", saved, 1);
                free(saved);
            }
            if (rc)
                goto out;
            root = mn_fs_abspath(loc.root && !strcmp(loc.how, "repository") ? loc.root : ".");
            mn_location_release(&loc);
        }
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%s/%s", root, c->project_file);
        plans[nplans].path = mn_buf_detach(&b);
    } else if (!(plans[nplans].path = global_mcp_path(c))) {
        rc = MN_ENOTFOUND;
        goto out;
    }
    plans[nplans].kind = c->toml ? FMT_TOML : FMT_MCP_JSON;
    plans[nplans++].what = "MCP server 'mnemo'";
    if (c->hooks && !opts->remote) { /* a remote entry: no local store for hooks to read */
        mn_buf b = MN_BUF_INIT;
        if (opts->global) {
            char *dir = getenv("CLAUDE_CONFIG_DIR") && *getenv("CLAUDE_CONFIG_DIR")
                            ? user_path("CLAUDE_CONFIG_DIR", "", "settings.json")
                            : user_path(NULL, ".claude", "settings.json");
            if (!dir) {
                rc = MN_ENOTFOUND;
                goto out;
            }
            mn_buf_puts(&b, dir);
            free(dir);
        } else {
            mn_buf_printf(&b, "%s/.claude/settings.json", root);
        }
        plans[nplans].path = mn_buf_detach(&b);
        plans[nplans].kind = FMT_HOOKS_JSON;
        plans[nplans++].what =
            "hooks UserPromptSubmit, PreToolUse (Task|Agent), PostToolUse (file tools), Stop, "
            "SessionEnd";
    }

    /* plan every file before writing any */
    for (size_t i = 0; i < nplans; i++) {
        plan *p = &plans[i];
        if ((rc = load(p)) != 0)
            goto out;
        if (opts->remove && !p->existed)
            continue;
        mn_buf before = MN_BUF_INIT, fresh = MN_BUF_INIT;
        mn_buf_put(&before, p->text.ptr, p->text.len);
        if (opts->remove) { /* what setup writes into a new file: the file can go */
            plan f = *p;
            f.text = fresh;
            rc = apply(&f, c, command, hook_cmd.ptr, opts, false);
            fresh = f.text;
        }
        if (rc == 0)
            rc = apply(p, c, command, hook_cmd.ptr, opts, opts->remove);
        /* what is left equals what is left of a new file: held nothing else
         * (whichever kind of entry, stdio or remote, it held) */
        mn_buf left = MN_BUF_INIT;
        if (rc == 0 && opts->remove && p->changed) {
            plan f = *p;
            mn_buf_put(&left, fresh.ptr, fresh.len);
            f.text = left;
            rc = apply(&f, c, command, hook_cmd.ptr, opts, true);
            left = f.text;
            if (rc == 0 &&
                ((before.len == fresh.len && !memcmp(before.ptr, fresh.ptr, fresh.len)) ||
                 (p->text.len == left.len && !memcmp(p->text.ptr, left.ptr, left.len))))
                p->delete_it = true;
        }
        mn_buf_release(&left);
        mn_buf_release(&before);
        mn_buf_release(&fresh);
        if (rc) {
            mn_error_prefix("'%s'", p->path);
            goto out;
        }
    }
    for (size_t i = 0; i < nplans; i++) {
        plan *p = &plans[i];
        const char *action;
        if (opts->remove && !p->existed) {
            action = "absent";
        } else if (!p->changed) {
            action = opts->remove ? "absent" : "unchanged";
        } else if (p->delete_it && !is_link(p->path)) {
            /* a link (a dotfiles repository's file) is the user's: its target keeps what is
             * left, written through it below, and the link stays */
            if (unlink(p->path) != 0) {
                rc = mn_error_set(MN_EIO, "cannot remove '%s': %s", p->path, strerror(errno));
                goto out;
            }
            /* and the client's directory when that leaves it empty (.cursor/) */
            char *dir = mn_strdup(p->path);
            char *slash = strrchr(dir, '/');
            if (!opts->global && slash && root && strlen(root) < (size_t)(slash - dir)) {
                *slash = '\0';
                rmdir(dir);
            }
            free(dir);
            action = "deleted";
        } else {
            if ((rc = mn_agent_write_file(p->path, p->text.ptr, p->text.len)) != 0)
                goto out;
            action = opts->remove ? "removed" : p->existed ? "updated" : "created";
        }
        json_array_append_new(changes, json_pack("{s:s,s:s,s:s}", "file", p->path, "action", action,
                                                 "what", p->what));
    }
    *out = json_pack("{s:s,s:s,s:s,s:O}", "client", c->name, "scope",
                     opts->global ? "global" : "project", "command", command, "changes", changes);
out:
    for (size_t i = 0; i < nplans; i++) {
        free(plans[i].path);
        mn_buf_release(&plans[i].text);
    }
    json_decref(changes);
    mn_buf_release(&hook_cmd);
    free(command);
    free(root);
    return rc;
}
