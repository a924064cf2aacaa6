/*
 * cmd_save.c - mnemo save: from flags, from stdin (BODY "-"), or, on a
 * terminal with nothing given, by asking for each field.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* One line from stdin without its newline; NULL at end of input, or at a NUL byte (*nul set). */
static bool saw_nul;
static char *read_line(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0 || memchr(line, '\0', (size_t)n)) {
        saw_nul |= n >= 0;
        free(line);
        return NULL;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    return line;
}

static char *ask(const char *prompt)
{
    cli_eprintf("%s", prompt);
    fflush(stderr);
    return read_line();
}

static void set_list(json_t *args, const char *group, const char *key, const char *csv)
{
    json_t *arr = json_array();
    for (const char *p = csv; *p;) {
        size_t n = strcspn(p, ",");
        size_t a = 0, z = n;
        while (a < z && p[a] == ' ')
            a++;
        while (z > a && p[z - 1] == ' ')
            z--;
        if (z > a) {
            json_t *s = json_stringn(p + a, z - a);
            if (s)
                json_array_append_new(arr, s);
        }
        p += n + (p[n] == ',');
    }
    if (json_array_size(arr)) {
        json_t *g = json_object_get(args, group);
        if (!g) {
            g = json_object();
            json_object_set_new(args, group, g);
        }
        json_object_set_new(g, key, arr);
    } else {
        json_decref(arr);
    }
}

/* Ask for kind, title, body, situation, solution, what failed, tags and keywords; NULL when
 * input ended early. */
static json_t *interactive(void)
{
    json_t *args = json_object();
    char *kind = ask("Kind [fact] (fact, decision, gotcha, pattern, rule, fewshot, episode): ");
    if (!kind)
        goto eof;
    if (*kind)
        json_object_set_new(args, "kind", json_string(kind));
    free(kind);
    char *title = ask("Title: ");
    if (!title)
        goto eof;
    if (*title) {
        json_t *t = json_string(title);
        if (t)
            json_object_set_new(args, "title", t);
    }
    free(title);
    cli_eprintf("Body (end with a line holding only '.', or Ctrl-D):\n");
    {
        char *body = NULL;
        size_t len = 0;
        char *line;
        while ((line = read_line()) != NULL && strcmp(line, ".") != 0) {
            size_t l = strlen(line);
            body = realloc(body, len + l + 2);
            if (!body)
                abort();
            memcpy(body + len, line, l);
            len += l;
            body[len++] = '\n';
            body[len] = '\0';
            free(line);
        }
        free(line);
        while (len && body[len - 1] == '\n')
            body[--len] = '\0';
        if (len) {
            json_t *b = json_string(body);
            if (b)
                json_object_set_new(args, "body", b);
        }
        free(body);
    }
    /* the structured context that brings a memory back and says what to do (optional; empty
     * answers leave a field out) */
    static const struct {
        const char *key, *prompt;
    } fields[] = {
        {"situation", "Situation: when does this apply, what did you see (optional): "},
        {"solution", "Solution: what to do (optional): "},
        {"what_failed", "What failed: what was tried and did not work (optional): "},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        char *v = ask(fields[i].prompt);
        if (!v) /* input ended: what was answered is saved, as after the body */
            break;
        if (*v) {
            json_t *ctx = json_object_get(args, "context");
            if (!ctx) {
                ctx = json_object();
                json_object_set_new(args, "context", ctx);
            }
            json_t *t = json_string(v);
            if (t)
                json_object_set_new(ctx, fields[i].key, t);
        }
        free(v);
    }
    char *tags = ask("Tags (comma-separated, optional): ");
    if (tags)
        set_list(args, "scope", "tags", tags);
    free(tags);
    char *kw = ask("Trigger keywords (comma-separated, optional): ");
    if (kw)
        set_list(args, "context", "trigger_keywords", kw);
    free(kw);
    return args;
eof:
    json_decref(args);
    return NULL;
}

int cli_cmd_save(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    json_t *args = NULL;
    int rc;

    if (argc == 0 && isatty(0)) {
        args = interactive();
        if (!args || saw_nul) {
            json_decref(args);
            cli_eprintf(saw_nul ? "mnemo: error: save: the input holds a NUL byte; nothing saved\n"
                                : "mnemo: nothing saved\n");
            return saw_nul ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
        }
    } else {
        if ((rc = cli_parse_op_args(&args, mn_api_find(cmd->op), argc, argv)) != 0)
            return cli_usage_error(cmd, "%s", mn_error_last());
        const char *body = json_string_value(json_object_get(args, "body"));
        for (int i = 0; body && strcmp(body, "-") != 0 && i < argc; i++)
            /* a word "-" (not a flag's value) asks for stdin: beside other words it would
             * have been saved as a dash and the piped text dropped */
            if (!strcmp(argv[i], "-") &&
                (i == 0 || argv[i - 1][0] != '-' || strchr(argv[i - 1], '='))) {
                json_decref(args);
                return cli_usage_error(cmd, "'-' reads the body from stdin: give it alone, "
                                            "without other words of the body");
            }
        if (body && !strcmp(body, "-")) {
            char *text = NULL;
            size_t len = 0;
            if ((rc = cli_read_input(&text, &len, "-", MN_API_MAX_REQUEST,
                                     "the body read from stdin")) != 0) {
                json_decref(args);
                return cli_fail(rc);
            }
            while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
                text[--len] = '\0';
            json_t *b = json_stringn(text, len);
            free(text);
            if (!b) {
                json_decref(args);
                return cli_usage_error(cmd, "the body read from stdin is not valid UTF-8");
            }
            json_object_set_new(args, "body", b);
        }
        if (!json_object_get(args, "body") && !json_object_get(args, "title")) {
            json_decref(args);
            return cli_usage_error(cmd, "needs a title or a body");
        }
    }
    rc = cli_call_and_print(cmd, g, args);
    json_decref(args);
    return rc;
}
