/*
 * context_batch.c - runs the context operation for each line of stdin,
 * in one process on the store found from DIR:
 *
 *   context_batch DIR < questions.jsonl > answers.jsonl
 *
 * Each input line is the op's arguments ({"query", "max_tokens",
 * "tokenizer", ...}; refresh is set to false: the store is indexed
 * first); each output line is {"args": <the arguments>, "answer": <the
 * result>}, or {"args", "error"}. For token_context.sh, which checks the
 * answers against js-tiktoken, and bench/.
 */
#include "common.h"
#include <jansson.h>

#include "mnemo/api.h"
#include "mnemo/format.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: context_batch DIR < questions.jsonl\n");
        return 2;
    }
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_ctx *ctx = NULL;
    o.start_dir = argv[1];
    o.create = false;
    o.actor = "test";
    if (mn_ctx_open(&ctx, &o) != 0) {
        fprintf(stderr, "context_batch: %s\n", mn_error_last());
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        json_error_t jerr;
        json_t *args = json_loadb(line, (size_t)n, 0, &jerr), *r = NULL, *row;
        if (!json_is_object(args)) {
            fprintf(stderr, "context_batch: bad line: %s\n", jerr.text);
            json_decref(args);
            rc = 2;
            break;
        }
        json_t *call = json_deep_copy(args);
        json_object_set_new(call, "refresh", json_false());
        if (mn_api_call(ctx, "context", call, &r) == 0)
            row = json_pack("{s:O,s:o}", "args", args, "answer", r);
        else
            row = json_pack("{s:O,s:s}", "args", args, "error", mn_error_last());
        mn_error_clear();
        char *s = json_dumps(row, JSON_COMPACT);
        puts(s);
        free(s);
        json_decref(row);
        json_decref(call);
        json_decref(args);
    }
    free(line);
    mn_ctx_free(ctx);
    return rc;
}
