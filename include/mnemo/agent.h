/*
 * mnemo/agent.h - putting mnemo into agent clients: `mnemo setup` writes
 * a client's MCP configuration (and Claude Code's hooks), and `mnemo hook`
 * answers Claude Code's hooks with the project memory for a prompt.
 *
 * json_t through `out` are new references (json_decref()).
 */
#ifndef MNEMO_AGENT_H
#define MNEMO_AGENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    unsigned version;
    const char *client;      /* "claude-code", "cursor", "codex" or "vscode" */
    bool global;             /* the user's configuration instead of the project's */
    bool remove;             /* undo what setup added */
    const char *project_dir; /* NULL: the repository around the current directory */
    const char *command;     /* the program clients start; NULL: this mnemo */
    const char *remote;      /* an HTTP MCP entry for this URL of mnemo serve; NULL: stdio */
    const char *token_env;   /* the variable holding the bearer token (its name only) */
} mn_setup_options;

#define MN_SETUP_OPTIONS_VERSION 1
#define MN_SETUP_OPTIONS_INIT                                                \
    {                                                                        \
        MN_SETUP_OPTIONS_VERSION, NULL, false, false, NULL, NULL, NULL, NULL \
    }

/** The clients setup knows, NULL-terminated. */
const char *const *mn_setup_clients(void);

/**
 * Add mnemo to a client's configuration, or remove it (opts->remove).
 * Every file is checked before any is written, so a file that cannot be
 * read as JSON (or TOML) leaves all of them untouched. *out is
 * {"client", "scope", "command", "changes": [{"file", "action", "what"}]}
 * with action one of created, updated, unchanged, removed, deleted, absent.
 */
int mn_setup(json_t **out, const mn_setup_options *opts);

/** Largest hook input read from stdin, in bytes. */
#define MN_HOOK_MAX_INPUT (4u << 20)

/**
 * Answer one Claude Code hook call (the JSON it writes on stdin).
 * UserPromptSubmit: *out is the hook output carrying the context for the
 * prompt as additionalContext. PreToolUse of the Task (Agent) tool: *out
 * extends the sub-agent's prompt with the context. Stop and SessionEnd:
 * after names the transcript to capture. *out is NULL when there
 * is nothing to add: no relevant memory, a trivial prompt, another event
 * or tool. A failure returns its code with a one-line message.
 */
/** What a hook call leaves to a process of its own, started once the answer is out. */
typedef struct {
    /** The index was found stale: re-index the project at this root. */
    char *reindex_root;
    /**
     * The session stopped (Stop, SessionEnd): capture what its transcript
     * decided, fixed or warned about (the capture op) into the store found
     * from capture_dir.
     */
    char *capture_dir, *transcript;
} mn_hook_after;

/** Free what *a holds and zero it. */
void mn_hook_after_release(mn_hook_after *a);

int mn_hook_claude_code(json_t **out, const char *input, size_t len, mn_hook_after *after);
/*
 * The hook answers from the index as it is, so a prompt never waits for a
 * re-index: when the index is older than config index.refresh_age,
 * *stale_root (malloc'd; NULL otherwise) is the repository to re-index
 * after answering (cmd_hook.c starts `mnemo index` there, detached).
 */

/*
 * The hook's warm path (src/agent/warm.c): `mnemo mcp` answers `context`
 * for `mnemo hook` over a local socket named after the user and the store,
 * so a prompt is answered by a process that has everything loaded.
 * mn_warm_start starts the listening thread (its own store connection,
 * opened at the first request); mn_warm_stop ends it. mn_warm_context
 * asks the server of the store at db_path: *out is the context result, or
 * an error when none listens or it failed (the hook then answers itself).
 */
typedef struct mn_warm mn_warm;
int mn_warm_start(mn_warm **out, const char *db_path, const char *start_dir);
void mn_warm_stop(mn_warm *w);
int mn_warm_context(json_t **out, const char *db_path, const json_t *args);

#ifdef __cplusplus
}
#endif

#endif
