/*
 * main.c - the mnemo command: global flags, the command table, dispatch.
 *
 * Global flags (--json, --db PATH, --help) may stand anywhere before a
 * "--". Commands that only run an operation use cli_run_generic (flags from
 * the op's schema, a printer for people); the others have a cmd_<name>.c.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_ingest.h"

#define FORMAT_HELP(dflt)                                             \
    "  --format WORD        jsonl, yaml or json. [jsonl|yaml|json]\n" \
    "                       Default: " dflt ".\n"                     \
    "  --yaml               Same as --format yaml.\n"

static const cli_command commands[] = {
    {"init", NULL, "[DIR]",
     "Create the store of a repository. DIR/.mnemo/ holds it (DIR defaults to the repository "
     "around the current directory) and git's info/exclude keeps it out of git (in a linked "
     "work tree or submodule, that of the git dir its .git file names).",
     cli_cmd_init, NULL, NULL, NULL},
    {"save", "save", "[options] [BODY...]", NULL, cli_cmd_save, cli_print_saved, NULL, NULL},
    {"show", "get", "ID", NULL, cli_run_generic, cli_print_memory, NULL, NULL},
    {"list", "list", "[options]", NULL, cli_run_generic, cli_print_list, NULL, NULL},
    {"edit", "update", "ID [options]",
     "Change a memory: with options, change those fields; without, open it as YAML in $EDITOR.",
     cli_cmd_edit, cli_print_saved, NULL, NULL},
    {"forget", "forget", "ID [--purge | --undo]", NULL, cli_run_generic, cli_print_saved, NULL,
     NULL},
    {"link", "link", "FROM KIND TO [--note TEXT] [--remove]", NULL, cli_run_generic, cli_print_link,
     NULL, NULL},
    {"export", "export", "[options] [-o FILE] [--format jsonl|yaml|json]",
     "Export memories with every field, as JSON Lines (default) or YAML, to stdout or FILE.",
     cli_cmd_export, NULL, NULL,
     "  -o, --output FILE    Write FILE (replaced whole) instead of stdout; its\n"
     "                       extension (.jsonl, .yaml, .json) picks the format.\n" FORMAT_HELP(
         "from -o FILE's extension, else jsonl")},
    {"import", "import", "FILE|- [--format jsonl|yaml|json] [--on-conflict skip|replace|fail]",
     "Import memories from a file written by export (the format follows the extension).",
     cli_cmd_import, NULL, "memories", FORMAT_HELP("from FILE's extension, else jsonl")},
    {"config", "config", "list | get KEY | set KEY VALUE | unset KEY", NULL, cli_run_generic,
     cli_print_config, NULL, NULL},
    {"audit", "audit", "[--since AGE|TIME] [--op OP] [--actor ACTOR] [--limit N] [--offset N]",
     NULL, cli_run_generic, cli_print_audit, NULL, NULL},
    {"index", "index", "[PATH] [--full]", NULL, cli_run_generic, cli_print_index, NULL, NULL},
    {"status", "status", "[PATH] [--files]", NULL, cli_run_generic, cli_print_status, NULL, NULL},
    {"files", "files", "[PATTERN] [options]", NULL, cli_run_generic, cli_print_files, NULL, NULL},
    {"symbols", "symbols", "[NAME] [options]", NULL, cli_run_generic, cli_print_symbols, NULL,
     NULL},
    {"graph", "graph", "FILE|SYMBOL", NULL, cli_run_generic, cli_print_graph, NULL, NULL},
    {"discover", "discover", "[PATH] [--force]", NULL, cli_run_generic, cli_print_discover, NULL,
     NULL},
    {"search", "search", "QUERY [--kinds memory,code,file] [--k N] [options]", NULL,
     cli_run_generic, cli_print_search, NULL, NULL},
    {"feedback", "feedback", "used|ignored|refined --item ID,... [--served N] [--query TEXT]", NULL,
     cli_run_generic, cli_print_saved_feedback, NULL, NULL},
    {"context", "context", "[QUESTION] [--max-tokens N] [--mode auto|route|discovery]", NULL,
     cli_run_generic, cli_print_context, NULL, NULL},
    {"plan", "plan_files", "TASK [--json] [--trace] [--legacy] [--budget N] [--k N]",
     "Which files to read for a task, graph first: Graph Seeds, Semantic Hits, Final Context "
     "Files, within a token budget (docs/plan.md).",
     cli_run_generic, cli_print_plan, NULL, NULL},
    {"recall", "recall", "[QUESTION] [--limit-tokens N] [--symbols S,...]", NULL, cli_run_generic,
     cli_print_recall, NULL, NULL},
    {"scan", "scan", "[--fix]", NULL, cli_run_generic, cli_print_scan, NULL, NULL},
    {"stale", "stale", "[--limit N] [--offset N]", NULL, cli_run_generic, cli_print_stale, NULL,
     NULL},
    {"revalidate", "revalidate", "ID", NULL, cli_run_generic, cli_print_revalidate, NULL, NULL},
    {"gc", "gc", "[--apply] [--purge-archived-older-than AGE] [--purge-forgotten-older-than AGE]",
     NULL, cli_run_generic, cli_print_gc, NULL, NULL},
    {"review", "review", "[list] [options] | approve|reject|edit|merge [ID [INTO]] [options]", NULL,
     cli_run_generic, cli_print_review, NULL, NULL},
    {"consolidate", "consolidate", "[--apply] [--kinds episode,gotcha] [--min-size N]", NULL,
     cli_run_generic, cli_print_consolidate, NULL, NULL},
    {"ingest", NULL, CLI_INGEST_USAGE, CLI_INGEST_SUMMARY, cli_cmd_ingest, NULL, NULL,
     CLI_INGEST_OPTIONS},
    {"hooks", NULL, CLI_HOOKS_USAGE, CLI_HOOKS_SUMMARY, cli_cmd_hooks, NULL, NULL,
     CLI_HOOKS_OPTIONS},
    {"decide", "record_decision", "DECISION [--reason R] [--alternative A,...] [--supersedes ID]",
     NULL, cli_run_generic, cli_print_decision, NULL, NULL},
    {"chain", "chain", "ID|QUESTION [--depth N]", NULL, cli_cmd_chain, cli_print_chain, NULL, NULL},
    {"capture", "capture", "TRANSCRIPT | --text TEXT [--session-id ID] [--dry-run]", NULL,
     cli_run_generic, cli_print_capture, NULL, NULL},
    {"issue", "link_issue", "ISSUE [--memory ID,...] [--commit SHA,...] [--kind K]", NULL,
     cli_run_generic, cli_print_link_issue, NULL, NULL},
    {"doc", "open_doc", "TITLE | --path PATH | --url URL", NULL, cli_run_generic,
     cli_print_open_doc, NULL, NULL},
    {"call", NULL, "OPERATION [JSON | -]",
     "Run any operation with JSON in and out. The input is an argument, or stdin with -; "
     "'mnemo call' alone lists the operations.",
     cli_cmd_call, NULL, NULL, NULL},
    {"serve", NULL, "[--host H] [--port P] [--tls-cert FILE --tls-key FILE]",
     "Serve MCP over streamable HTTP at http://H:P/mcp until interrupted (config serve.*; "
     "default 127.0.0.1:7077); HTTPS with --tls-cert and --tls-key.",
     cli_cmd_serve, NULL, NULL,
     "  --host H             Address to listen on (config serve.host, default\n"
     "                       127.0.0.1: this machine only).\n"
     "  --port P             TCP port (config serve.port, default 7077; 0: any\n"
     "                       free port, printed on stderr).\n"
     "  --tls-cert FILE      Serve HTTPS with this PEM certificate (chain);\n"
     "                       needs --tls-key.\n"
     "  --tls-key FILE       The PEM private key of --tls-cert; must be private\n"
     "                       to its owner (chmod 600), or serve refuses it.\n"},
    {"token", NULL,
     "create --project P --role reader|writer|admin [--name N] [--expires AGE|DATE] | list | "
     "revoke NAME|ID",
     "Access tokens of `mnemo serve`: create prints the secret once (only its hash is kept), "
     "list shows every token without it, revoke ends one at the server's next request. See "
     "docs/http.md.",
     cli_cmd_token, NULL, NULL,
     "  --project P          The project the token opens (and nothing else).\n"
     "  --role R             reader (reads, context, recall), writer (also saves,\n"
     "                       forgets, links), admin (also config, import, export,\n"
     "                       audit, gc, index).\n"
     "  --name N             A unique name (letters, digits, . _ -); audit rows\n"
     "                       say token:N. Default: P-R-<8 hex>.\n"
     "  --expires AGE|DATE   90d, 12h, 2w from now, or a date; default never.\n"},
    {"migrate", NULL, "--from LOCATION --to LOCATION [--project P] [--merge]",
     "Move the team's knowledge to another store (a SQLite path, postgres:// URL or conninfo): "
     "every project's memories, links, config and audit log, verified by comparing both "
     "exports. The code index is not moved (mnemo index rebuilds it). See docs/cli.md.",
     cli_cmd_migrate, NULL, NULL,
     "  --from LOCATION      The store to read (never written).\n"
     "  --to LOCATION        The store to write; made when missing.\n"
     "  --project P          This project only (default: every project).\n"
     "  --merge              Add to a target project that holds memories already\n"
     "                       (refused without it); ids there are kept.\n"},
    {"remote", NULL, "add NAME URL [--token-env VAR] | list | remove NAME",
     "Team servers whose memories `context` merges into its answers (POST URL/v1/search with "
     "the bearer token from $VAR); the local index stays the source of code. See docs/cli.md.",
     cli_cmd_remote, NULL, NULL,
     "  --token-env VAR      The variable holding the server's token; only its name\n"
     "                       is stored.\n"},
    {"mcp", NULL, "[--db PATH|URL]",
     "Serve MCP on stdin and stdout for an agent (newline-delimited JSON-RPC; logs on stderr). "
     "See docs/mcp.md.",
     cli_cmd_mcp, NULL, NULL, NULL},
    {"setup", NULL,
     "claude-code|cursor|codex|vscode [--global] [--remove] [--remote URL [--token-env VAR]]",
     "Put mnemo into an agent client's configuration. Writes its MCP server (for claude-code "
     "also two hooks) into the project's files or, with --global, the user's; --remove takes "
     "out what setup added. Other entries stay byte for byte. See docs/clients/.",
     cli_cmd_setup, NULL, NULL,
     "  --global             The user's configuration instead of the project's.\n"
     "  --remove             Remove what setup added (nothing else).\n"
     "  --remote URL         An HTTP entry for a team's `mnemo serve` at URL instead\n"
     "                       (claude-code, cursor, codex; no hooks). https://, or\n"
     "                       http:// for localhost.\n"
     "  --token-env VAR      The variable holding the bearer token; only its name is\n"
     "                       written. Required unless URL is on localhost.\n"},
    {"hook", NULL, "claude-code",
     "Answer a Claude Code hook (JSON on stdin): the project memory for the prompt. Prints "
     "nothing and exits 0 on any error, so the agent's turn goes on.",
     cli_cmd_hook, NULL, NULL, NULL},
};

int cli_fail(int rc)
{
    const char *msg = mn_error_last();
    cli_eprintf("mnemo: error: %s\n", *msg ? msg : mn_error_name(rc));
    return rc == MN_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cli_eprintf("mnemo: error: %s: %s (see 'mnemo %s --help')\n", cmd->name, msg, cmd->name);
    return CLI_EXIT_USAGE;
}

int cli_open_op(mn_ctx **out, const cli_global *g, const char *op)
{
    return cli_open_call(out, g, op, NULL);
}

int cli_open_call(mn_ctx **out, const cli_global *g, const char *op, const json_t *args)
{
    const mn_op *o = op ? mn_api_find(op) : NULL;
    mn_ctx_options opts = MN_CTX_OPTIONS_INIT;
    opts.db_path = g->db;
    opts.actor = "cli";
    opts.front_end = MN_FRONT_LOCAL_CLI; /* the one place that says so */
    opts.progress = isatty(2) && !g->json;
    /* an operation that only reads (list, search, config list, scan without --fix, ...)
     * finds a store, never makes one */
    opts.create = !(o && mn_api_op_looks(o, args));
    return mn_ctx_open(out, &opts);
}

int cli_read_input(char **out, size_t *len, const char *path, size_t max, const char *what)
{
    int rc = mn_file_read(out, len, path, max);
    if (rc)
        return rc;
    const char *nul = memchr(*out, '\0', *len);
    if (nul) {
        size_t at = (size_t)(nul - *out), line = 1;
        for (const char *p = *out; p < nul; p++)
            line += *p == '\n';
        free(*out);
        *out = NULL;
        *len = 0;
        return mn_error_set(MN_EINVAL,
                            "%s holds a NUL byte (line %zu, byte %zu); mnemo keeps text, so "
                            "nothing was read",
                            what, line, at + 1);
    }
    return 0;
}

int cli_open(mn_ctx **out, const cli_global *g)
{
    return cli_open_op(out, g, NULL);
}

void cli_print_json(const json_t *v)
{
    /* JSON escapes control characters itself: written as is */
    char *s = json_dumps(v, MN_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
    if (s) {
        cli_put_data(stdout, s, strlen(s));
        cli_put_data(stdout, "\n", 1);
        free(s);
    }
}

int cli_call_and_print(const cli_command *cmd, cli_global *g, const json_t *args)
{
    mn_ctx *ctx = NULL;
    json_t *out = NULL;
    int rc = cli_open_call(&ctx, g, cmd->op, args);
    if (rc == 0)
        rc = mn_api_call(ctx, cmd->op, args, &out);
    mn_ctx_free(ctx);
    if (rc)
        return cli_fail(rc);
    if (g->json || !cmd->print)
        cli_print_json(out);
    else
        cmd->print(out);
    json_decref(out);
    return CLI_EXIT_OK;
}

int cli_run_generic(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    json_t *args;
    int rc = cli_parse_op_args(&args, mn_api_find(cmd->op), argc, argv);
    if (rc)
        return cli_usage_error(cmd, "%s", mn_error_last());
    rc = cli_call_and_print(cmd, g, args);
    json_decref(args);
    return rc;
}

static void usage(FILE *f)
{
    cli_fprintf(f,
                "usage: mnemo [--json] [--db PATH|URL] <command> [options]\n\n"
                "mnemo is the long-term memory of a software project: facts, decisions, gotchas\n"
                "and patterns, kept beside the code for the agents and people who work on it.\n\n"
                "commands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        const cli_command *c = &commands[i];
        const mn_op *op = c->op ? mn_api_find(c->op) : NULL;
        cli_help_summary(f, c->name, c->summary ? c->summary : op ? op->summary : "");
    }
    cli_fprintf(f,
                "\n'mnemo <command> --help' tells more. Exit codes: 0 ok, 1 failure, 2 usage.\n");
}

/* Take global flags out of argv (up to a "--"); returns the new argc or -1. */
static int take_globals(cli_global *g, bool *help, bool *version, int argc, char **argv)
{
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            while (i < argc)
                argv[n++] = argv[i++];
            break;
        }
        if (!strcmp(a, "--json")) {
            g->json = true;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            *help = true;
        } else if (!strcmp(a, "--version") && n == 0) {
            *version = true;
        } else if (!strcmp(a, "--db") || !strncmp(a, "--db=", 5)) {
            if (a[4] == '=') {
                g->db = a + 5;
            } else if (i + 1 < argc) {
                g->db = argv[++i];
            } else {
                cli_eprintf("mnemo: error: --db needs a path\n");
                return -1;
            }
            if (!*g->db) {
                cli_eprintf("mnemo: error: --db needs a path\n");
                return -1;
            }
        } else {
            argv[n++] = argv[i];
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    cli_global g = {false, NULL};
    bool help = false, version = false;
    int n = take_globals(&g, &help, &version, argc - 1, argv + 1);
    char **args = argv + 1;

    if (n < 0)
        return CLI_EXIT_USAGE;
    if (version) {
        cli_printf("mnemo %s\n", MNEMO_VERSION);
        return CLI_EXIT_OK;
    }
    if (n == 0 || !strcmp(args[0], "help")) {
        if (n >= 2) {
            for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (!strcmp(commands[i].name, args[1])) {
                    cli_help(&commands[i], stdout);
                    return CLI_EXIT_OK;
                }
            cli_eprintf("mnemo: error: no command '%s' (see 'mnemo --help')\n", args[1]);
            return CLI_EXIT_USAGE;
        }
        usage(n == 0 && !help ? stderr : stdout);
        return n == 0 && !help ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        const cli_command *c = &commands[i];
        if (strcmp(c->name, args[0]) != 0)
            continue;
        if (help) {
            cli_help(c, stdout);
            return CLI_EXIT_OK;
        }
        return c->run(c, &g, n - 1, args + 1);
    }
    cli_eprintf("mnemo: error: no command '%s' (see 'mnemo --help')\n", args[0]);
    return CLI_EXIT_USAGE;
}
