/*
 * cmd_decide.c - `mnemo decide` (record_decision) and `mnemo chain`
 * (chain): their printers, and chain's argument, which is a memory id or a
 * question.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli_ingest.h"

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

void cli_print_decision(const json_t *r)
{
    cli_print_saved(r);
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(r, "superseded"), i, v)
        cli_printf("superseded %s\n", json_string_value(v));
}

static void node(const json_t *n, int depth)
{
    const char *rel = str(n, "relation");
    static const struct {
        const char *rel, *words;
    } words[] = {{"supersedes", "supersedes"},
                 {"caused_by", "caused by"},
                 {"superseded_by", "superseded by"},
                 {"led_to", "led to"}};
    cli_printf("%*s", 2 * depth, "");
    if (*rel) {
        const char *w = rel;
        for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
            if (!strcmp(rel, words[i].rel))
                w = words[i].words;
        cli_printf("%s: ", w);
    }
    cli_printf("%s %s", str(n, "date"), str(n, "title"));
    if (*str(n, "status") && strcmp(str(n, "status"), "active") != 0)
        cli_printf(" [%s]", str(n, "status"));
    cli_printf(" (%.12s)\n", str(n, "id"));
    if (*str(n, "reasons"))
        cli_printf("%*s  because: %s\n", 2 * depth, "", str(n, "reasons"));
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(n, "children"), i, c) node(c, depth + 1);
}

void cli_print_chain(const json_t *r)
{
    size_t i;
    const json_t *n;
    json_array_foreach(json_object_get(r, "roots"), i, n)
    {
        if (i)
            cli_printf("\n");
        node(n, 0);
    }
    json_array_foreach(json_object_get(r, "notes"), i, n)
        cli_eprintf("mnemo: %s\n", json_string_value(n));
}

/* A ULID or a prefix of one (8 characters at least, no space): an id, not a question. */
static bool looks_like_id(const char *s)
{
    size_t n = strlen(s);
    if (n < 8 || n > 26 || s[0] < '0' || s[0] > '7')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) || strchr("ILOUilou", s[i]))
            return false;
    return true;
}

int cli_cmd_chain(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    json_t *args;
    int rc = cli_parse_op_args(&args, mn_api_find(cmd->op), argc, argv);
    if (rc)
        return cli_usage_error(cmd, "%s", mn_error_last());
    const char *q = str(args, "query");
    if (*q && !json_object_get(args, "id") && looks_like_id(q)) {
        json_object_set_new(args, "id", json_string(q));
        json_object_del(args, "query");
    }
    rc = cli_call_and_print(cmd, g, args);
    json_decref(args);
    return rc;
}
