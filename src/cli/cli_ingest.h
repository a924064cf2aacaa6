/*
 * cli_ingest.h - the commands of memory that fills itself: ingest, hooks,
 * decide, chain, capture, issue (link_issue), doc (open_doc) (cmd_ingest.c, cmd_hooks.c,
 * cmd_decide.c). Declared apart from cli.h, which every command shares.
 */
#ifndef MN_CLI_INGEST_H
#define MN_CLI_INGEST_H

#include "cli.h"

int cli_cmd_ingest(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_hooks(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_chain(const cli_command *cmd, cli_global *g, int argc, char **argv);

void cli_print_decision(const json_t *r);
void cli_print_chain(const json_t *r);
void cli_print_capture(const json_t *r);
void cli_print_link_issue(const json_t *r);
void cli_print_open_doc(const json_t *r);

#define CLI_INGEST_USAGE "git [--since REV] [--max N] [--dry-run] | docs PATH... | issues FILE"
#define CLI_INGEST_SUMMARY                                                                     \
    "Turn what the project already wrote into memories: its git history (dependencies, APIs, " \
    "CI, decisions, reverts), its documents (ADRs, a wiki, a vault) or an issue export "       \
    "(GitHub, Jira, YouTrack)."
#define CLI_INGEST_OPTIONS                                                            \
    "  git                  ingest_git: the commits not read before, newest first\n"  \
    "    --since REV        only commits after REV (a sha, tag, branch, HEAD~50)\n"   \
    "                       or a date (2024-01-31, 30d)\n"                            \
    "    --max N            at most N commits this run\n"                             \
    "    --dry-run          list the candidates, save nothing\n"                      \
    "  docs PATH...         ingest_docs: Markdown and reST files or folders of the\n" \
    "                       project (ADRs become decisions with their status)\n"      \
    "  issues FILE          ingest_issues: a JSON export of issues and comments\n"    \
    "Candidates at or above config capture.auto_approve (0.85) are saved active,\n"   \
    "the rest wait for review (mnemo review). Running again never duplicates.\n"

#define CLI_HOOKS_USAGE "install | uninstall | status"
#define CLI_HOOKS_SUMMARY                                                                     \
    "Install git hooks that learn from every commit (post-commit) and keep the index and "    \
    "the branch filter fresh (post-merge, post-checkout), in the background; existing hooks " \
    "are chained and restored byte for byte by uninstall."
#define CLI_HOOKS_OPTIONS                                                            \
    "  install              write the hooks (the hooks already there are kept and\n" \
    "                       run first); the hooks run this mnemo binary\n"           \
    "  uninstall            remove them and put the chained hooks back\n"            \
    "  status               which hooks are installed and chained, and the binary\n" \
    "                       they run\n"

#endif
