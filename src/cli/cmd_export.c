/*
 * cmd_export.c - mnemo export / mnemo import: memories to and from files.
 *
 * The format is JSON Lines unless --format or the file's extension says
 * yaml or json. Import reads and validates the whole file before the store
 * is touched, and the import operation is one transaction.
 *
 * The audit log, when the export includes it (a full export does), follows
 * the memories as records of their own, {"audit": {...row...}}, one per
 * row (docs/memory-format.md). Import recognises them by that one key and
 * leaves them out: the log of the store imported into is its own.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Take "-o FILE" / "--output FILE" and "--format F" out of argv. */
static int take_file_flags(const cli_command *cmd, const char **file, int *fmt, bool want_output,
                           int *argc, char **argv)
{
    int n = 0;
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i];
        if (want_output && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
            if (i + 1 >= *argc)
                return cli_usage_error(cmd, "%s needs a file", a);
            *file = argv[++i];
        } else if (!strcmp(a, "--format")) {
            if (i + 1 >= *argc)
                return cli_usage_error(cmd, "--format needs jsonl, yaml or json");
            int was = *fmt;
            *fmt = mn_format_parse(argv[++i]);
            if (*fmt < 0 || strchr(argv[i], '.'))
                return cli_usage_error(cmd, "unknown format '%.40s' (jsonl, yaml or json)",
                                       argv[i]);
            if (was >= 0 && was != *fmt)
                return cli_usage_error(cmd, "--yaml and --format %s ask for two formats", argv[i]);
        } else if (!strcmp(a, "--yaml")) {
            if (*fmt >= 0 && *fmt != MN_FORMAT_YAML)
                return cli_usage_error(cmd, "--yaml and --format %s ask for two formats",
                                       *fmt == MN_FORMAT_JSON ? "json" : "jsonl");
            *fmt = MN_FORMAT_YAML;
        } else {
            argv[n++] = argv[i];
        }
    }
    *argc = n;
    return 0;
}

int cli_cmd_export(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    const char *file = NULL;
    int fmt = -1, rc;
    json_t *args = NULL, *out = NULL;
    mn_ctx *ctx = NULL;
    char *text = NULL;
    size_t len;

    if ((rc = take_file_flags(cmd, &file, &fmt, true, &argc, argv)) != 0)
        return rc;
    if (fmt < 0)
        fmt = file && mn_format_parse(file) >= 0 ? mn_format_parse(file) : MN_FORMAT_JSONL;
    if ((rc = cli_parse_op_args(&args, mn_api_find(cmd->op), argc, argv)) != 0)
        return cli_usage_error(cmd, "%s", mn_error_last());
    if ((rc = cli_open_op(&ctx, g, cmd->op)) == 0)
        rc = mn_api_call(ctx, cmd->op, args, &out);
    mn_ctx_free(ctx);
    json_decref(args);
    if (rc == 0) {
        json_t *records = json_copy(json_object_get(out, "memories"));
        size_t i;
        const json_t *row;
        json_array_foreach(json_object_get(out, "audit"), i, row)
            json_array_append_new(records, json_pack("{s:O}", "audit", row));
        rc = mn_format_write(&text, &len, (mn_format)fmt, records);
        json_decref(records);
    }
    if (rc == 0) {
        if (file && strcmp(file, "-") != 0) {
            rc = mn_file_write(file, text, len);
        } else if (cli_put_data(stdout, text, len) != 0) {
            rc = mn_error_set(MN_EIO, "cannot write the export to stdout");
        }
    }
    if (rc == 0 && file && strcmp(file, "-") != 0)
        cli_eprintf("exported %lld memories to %s\n",
                    (long long)json_integer_value(json_object_get(out, "count")), file);
    free(text);
    json_decref(out);
    return rc ? cli_fail(rc) : CLI_EXIT_OK;
}

int cli_cmd_import(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    const char *file = NULL, *on_conflict = NULL;
    int fmt = -1, rc;
    json_t *mems = NULL, *args = NULL, *out = NULL;
    mn_ctx *ctx = NULL;
    char *text = NULL;
    size_t len = 0;

    if ((rc = take_file_flags(cmd, &file, &fmt, false, &argc, argv)) != 0)
        return rc;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--on-conflict")) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "--on-conflict needs skip, replace or fail");
            on_conflict = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error(cmd, "unknown option '%.40s'", argv[i]);
        } else if (file) {
            return cli_usage_error(cmd, "takes one file");
        } else {
            file = argv[i];
        }
    }
    if (!file)
        return cli_usage_error(cmd, "needs a file (or - for stdin)");
    if (fmt < 0)
        fmt = mn_format_parse(file) >= 0 ? mn_format_parse(file) : MN_FORMAT_JSONL;
    if ((rc = cli_read_input(&text, &len, file, MN_API_MAX_REQUEST, "the file")) != 0) {
        mn_error_prefix("import");
        return cli_fail(rc);
    }
    rc = mn_format_read(&mems, (mn_format)fmt, text, len);
    free(text);
    if (rc) {
        mn_error_prefix("import: '%s'", file);
        return cli_fail(rc);
    }
    /* the audit records of an export are its store's history, not memories */
    for (size_t i = json_array_size(mems); i-- > 0;) {
        const json_t *m = json_array_get(mems, i);
        if (json_is_object(m) && json_object_size(m) == 1 && json_object_get(m, "audit"))
            json_array_remove(mems, i);
    }
    args = json_pack("{s:o}", "memories", mems);
    if (on_conflict)
        json_object_set_new(args, "on_conflict", json_string(on_conflict));
    if ((rc = cli_open(&ctx, g)) == 0)
        rc = mn_api_call(ctx, cmd->op, args, &out);
    mn_ctx_free(ctx);
    json_decref(args);
    if (rc)
        return cli_fail(rc);
    if (g->json)
        cli_print_json(out);
    else
        cli_printf("imported %lld, replaced %lld, skipped %lld memories; %lld links\n",
                   (long long)json_integer_value(json_object_get(out, "imported")),
                   (long long)json_integer_value(json_object_get(out, "replaced")),
                   (long long)json_integer_value(json_object_get(out, "skipped")),
                   (long long)json_integer_value(json_object_get(out, "links")));
    json_decref(out);
    return CLI_EXIT_OK;
}
