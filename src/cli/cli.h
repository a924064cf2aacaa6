/*
 * cli.h - what the CLI's files share.
 *
 * The CLI is a thin front end: a command parses its words into the JSON
 * input of one operation (flags are generated from the operation's input
 * schema by args.c), calls mn_api_call(), and prints the result, as JSON
 * with --json or for a person otherwise. Exit codes: 0 ok, 1 failure,
 * 2 usage (bad flags or invalid input). Errors are one line on stderr.
 */
#ifndef MN_CLI_H
#define MN_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "mnemo/mnemo.h"

#define CLI_EXIT_OK    0
#define CLI_EXIT_FAIL  1
#define CLI_EXIT_USAGE 2

typedef struct {
    bool json;      /* --json: print the operation's JSON result */
    const char *db; /* --db PATH */
} cli_global;

typedef struct cli_command {
    const char *name;
    const char *op;    /* the operation it runs, for flags and --help; NULL for none */
    const char *usage; /* words after "mnemo NAME" in the usage line */
    const char *summary;
    int (*run)(const struct cli_command *cmd, cli_global *g, int argc, char **argv);
    void (*print)(const json_t *result); /* human output of a generic op command */
    const char *not_flags; /* op properties the command fills itself: not shown as flags */
    const char *options;   /* --help lines of the options the command parses itself */
} cli_command;

/*
 * Output (out.c): the only functions of src/cli/ that write. Every %s
 * argument is escaped for the terminal (mn_text_escape, one line); the
 * format itself is written as is.
 */
void cli_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_vfprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/** A multi-line text (Markdown, YAML): escaped, but its newlines and tabs kept. */
void cli_put_text(FILE *f, const char *text);
/** Data in a format of its own (JSON, an export), unchanged, then flushed; -1 on a write error. */
int cli_put_data(FILE *f, const char *data, size_t len);

/** Print "mnemo: error: <last error>" and return the exit code for rc. */
int cli_fail(int rc);
/** Print a usage error naming the command, and return CLI_EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int cli_open(mn_ctx **out, const cli_global *g);
/**
 * Read the text the CLI is given (a file, or stdin for "-") up to max
 * bytes into *out (malloc'd, NUL-terminated) and *len. A NUL byte in it is
 * refused (MN_EINVAL naming `what` and where the byte is): every later step
 * reads the text as a C string and would silently stop there.
 */
int cli_read_input(char **out, size_t *len, const char *path, size_t max, const char *what);
/** cli_open for one operation: one that only reads (MN_OP_READONLY) never creates the store. */
int cli_open_op(mn_ctx **out, const cli_global *g, const char *op);
/** cli_open_op for one call: a call that only looks (mn_api_op_looks) makes no store */
int cli_open_call(mn_ctx **out, const cli_global *g, const char *op, const json_t *args);

/**
 * Build an operation's input from command-line words: --flags generated
 * from the schema (nested context/scope/provenance keys are flags of their
 * own), positional words bound to op->cli_positional. *out is a new object.
 */
int cli_parse_op_args(json_t **out, const mn_op *op, int argc, char **argv);
/** True when the words contain a flag other than the positional ones. */
bool cli_has_flags(int argc, char **argv);

/** Run an operation with these args, print its result; returns the exit code. */
int cli_call_and_print(const cli_command *cmd, cli_global *g, const json_t *args);
/** The generic run: parse flags for cmd->op, call, print. */
int cli_run_generic(const cli_command *cmd, cli_global *g, int argc, char **argv);

void cli_print_json(const json_t *v);
void cli_help(const cli_command *cmd, FILE *f);
/** The length of the first sentence of s, without its final period. */
size_t cli_first_sentence(const char *s);
/** "  NAME     first sentence of summary", wrapped at 78 columns. */
void cli_help_summary(FILE *f, const char *name, const char *summary);

/* human printers (print.c) */
void cli_print_saved(const json_t *r);
void cli_print_memory(const json_t *r);
void cli_print_list(const json_t *r);
void cli_print_link(const json_t *r);
void cli_print_config(const json_t *r);
void cli_print_index(const json_t *r);
void cli_print_status(const json_t *r);
void cli_print_scan(const json_t *r);
void cli_print_files(const json_t *r);
void cli_print_symbols(const json_t *r);
void cli_print_graph(const json_t *r);
void cli_print_discover(const json_t *r);
void cli_print_search(const json_t *r);
void cli_print_saved_feedback(const json_t *r);
void cli_print_context(const json_t *r);
void cli_print_plan(const json_t *r);
void cli_print_recall(const json_t *r);
/* the life cycle (print_life.c) */
void cli_print_stale(const json_t *r);
void cli_print_revalidate(const json_t *r);
void cli_print_gc(const json_t *r);
void cli_print_audit(const json_t *r);
void cli_print_review(const json_t *r); /* print_review.c */
void cli_print_consolidate(const json_t *r);

/* commands with their own logic (cmd_*.c) */
int cli_cmd_init(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_save(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_edit(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_export(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_import(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_call(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_serve(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_token(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_migrate(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_remote(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_mcp(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_setup(const cli_command *cmd, cli_global *g, int argc, char **argv);
int cli_cmd_hook(const cli_command *cmd, cli_global *g, int argc, char **argv);

/*
 * No file of src/cli/ but out.c writes by itself: text from outside must not
 * reach a terminal unescaped (out.c says why).
 */
#ifndef CLI_OUT_IMPL
#undef printf
#undef fprintf
#undef puts
#undef fputs
#undef putchar
#undef fputc
#undef putc
#undef fwrite
#undef vprintf
#undef vfprintf
#define printf(...)   cli_output_goes_through_out_c(__VA_ARGS__)
#define fprintf(...)  cli_output_goes_through_out_c(__VA_ARGS__)
#define puts(...)     cli_output_goes_through_out_c(__VA_ARGS__)
#define fputs(...)    cli_output_goes_through_out_c(__VA_ARGS__)
#define putchar(...)  cli_output_goes_through_out_c(__VA_ARGS__)
#define fputc(...)    cli_output_goes_through_out_c(__VA_ARGS__)
#define putc(...)     cli_output_goes_through_out_c(__VA_ARGS__)
#define fwrite(...)   cli_output_goes_through_out_c(__VA_ARGS__)
#define vprintf(...)  cli_output_goes_through_out_c(__VA_ARGS__)
#define vfprintf(...) cli_output_goes_through_out_c(__VA_ARGS__)
#endif

#endif
