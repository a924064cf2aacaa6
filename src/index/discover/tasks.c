/*
 * tasks.c - task runners any project may use: Makefile (GNUmakefile,
 * makefile), justfile and Taskfile.yml.
 *
 * A Makefile is scanned line by line into targets with their first recipe
 * lines (echo and printf lines left out) and prerequisites; pattern rules,
 * variables, conditionals and special targets are skipped. Targets whose
 * names say a kind of command (build/all, test/check, run/serve, lint/
 * format-check...; `target_names`, best first) become candidates at score
 * 80, above an ecosystem's defaults and below its package manager's
 * scripts: "make" alone when `all` is the first target. Justfile recipes
 * and Taskfile tasks are matched the same way.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static bool make_name_ok(const char *s, size_t n)
{
    if (!n || s[0] == '.' || n > 40)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!dx_name_char(s[i]) && s[i] != '.')
            return false;
    return true;
}

/*
 * Targets of a Makefile: {target: {recipe, deps}}, where recipe is the
 * first recipe lines joined with " && " (echo lines left out) and deps the
 * prerequisites. Pattern rules, variables and special targets are skipped.
 */
static json_t *make_targets(const char *text, size_t len)
{
    json_t *out = json_object(), *cur = json_array();
    const char *p = text, *end = text + len, *line;
    size_t n;
    while (dx_next_line(&p, end, &line, &n)) {
        if (n && line[0] == '\t') {
            size_t i = 1;
            while (i < n && (line[i] == '@' || line[i] == '-' || line[i] == '+' || line[i] == ' ' ||
                             line[i] == '\t'))
                i++;
            if (i == n || !strncmp(line + i, "echo ", 5) || !strncmp(line + i, "printf ", 7) ||
                !strncmp(line + i, "$(info", 6) || !strncmp(line + i, "$(warning", 9) ||
                line[i] == '#')
                continue;
            size_t j;
            json_t *t;
            json_array_foreach(cur, j, t)
            {
                json_t *r = json_object_get(t, "recipe");
                if (json_integer_value(json_object_get(t, "nlines")) >= 3)
                    continue;
                mn_buf b = MN_BUF_INIT;
                mn_buf_printf(&b, "%s%s%.*s", json_string_value(r),
                              json_string_length(r) ? " && " : "", (int)(n - i), line + i);
                json_object_set_new(t, "recipe", json_string(b.ptr));
                json_object_set_new(
                    t, "nlines",
                    json_integer(json_integer_value(json_object_get(t, "nlines")) + 1));
                mn_buf_release(&b);
            }
            continue;
        }
        if (!n || line[0] == ' ' || line[0] == '#')
            continue;
        json_array_clear(cur);
        const char *colon = memchr(line, ':', n);
        /* variables, functions, quotes and conditionals are not target lists */
        if (!colon || (colon + 1 < line + n && colon[1] == '=') ||
            memchr(line, '=', (size_t)(colon - line)) ||
            memchr(line, '$', (size_t)(colon - line)) ||
            memchr(line, '"', (size_t)(colon - line)) || memchr(line, '(', (size_t)(colon - line)))
            continue;
        const char *deps = colon + 1;
        if (deps < line + n && *deps == ':')
            deps++;
        const char *q = line;
        while (q < colon) {
            while (q < colon && (*q == ' ' || *q == '\t'))
                q++;
            const char *s = q;
            while (q < colon && *q != ' ' && *q != '\t')
                q++;
            if (q > s && make_name_ok(s, (size_t)(q - s))) {
                char *name = mn_strndup(s, (size_t)(q - s));
                json_t *t = json_object_get(out, name);
                if (!t) {
                    mn_buf db = MN_BUF_INIT;
                    const char *dend = line + n, *semi = memchr(deps, ';', (size_t)(dend - deps));
                    dx_put_oneline(&db, "", 0);
                    mn_buf_put(&db, deps, (size_t)((semi ? semi : dend) - deps));
                    mn_buf dd = MN_BUF_INIT;
                    dx_put_oneline(&dd, db.ptr, 200);
                    t = json_pack("{s:s,s:s,s:I,s:i}", "recipe", "", "deps", dd.ptr, "nlines",
                                  (json_int_t)0, "order", (int)json_object_size(out));
                    json_object_set_new(out, name, t);
                    mn_buf_release(&db);
                    mn_buf_release(&dd);
                }
                json_array_append(cur, t);
                free(name);
            }
        }
    }
    json_decref(cur);
    return out;
}

/* The detail of a target for the evidence: its recipe, else its prerequisites. */
static char *target_detail(const json_t *t)
{
    mn_buf b = MN_BUF_INIT;
    const char *r = dx_jstr(t, "recipe"), *deps = dx_jstr(t, "deps");
    if (r && *r)
        dx_put_oneline(&b, r, 160);
    else if (deps && *deps)
        mn_buf_printf(&b, "runs %s", deps);
    return b.len ? mn_buf_detach(&b) : (mn_buf_release(&b), NULL);
}

/* Targets that name a kind of command, best first. */
static const char *const target_names[CMD_N] = {
    "build all compile dist",
    "test tests check test-all unittest unit-test",
    "run serve start dev server",
    "lint check-format format-check lint-all style vet typecheck",
};

static void targets_to_cmds(dx_ctx *d, const json_t *targets, const char *tool, const char *file,
                            int score)
{
    for (int k = 0; k < CMD_N; k++) {
        char words[128];
        snprintf(words, sizeof(words), "%s", target_names[k]);
        char *save = NULL;
        for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            json_t *t = json_object_get(targets, w);
            if (!t)
                continue;
            mn_buf cmd = MN_BUF_INIT, why = MN_BUF_INIT;
            char *detail = target_detail(t);
            if (!strcmp(tool, "make") && !strcmp(w, "all") &&
                json_integer_value(json_object_get(t, "order")) == 0)
                mn_buf_puts(&cmd, "make");
            else
                mn_buf_printf(&cmd, "%s %s", tool, w);
            mn_buf_printf(&why, "%s target %s", file, w);
            dx_add_cmd(d, k, score, cmd.ptr, why.ptr, detail);
            free(detail);
            mn_buf_release(&cmd);
            mn_buf_release(&why);
            break;
        }
    }
}

static void scan_tasks(dx_ctx *d)
{
    static const char *const names[] = {"Makefile", "GNUmakefile", "makefile"};
    mn_buf b = MN_BUF_INIT;
    for (size_t i = 0; i < MN_ARRAY_SIZE(names); i++) {
        if (!dx_load_text(d, names[i], &b))
            continue;
        json_t *t = make_targets(b.ptr, b.len);
        targets_to_cmds(d, t, "make", names[i], 80);
        json_decref(t);
        break;
    }
    /* Justfile: "name args...:" at the start of a line */
    static const char *const just[] = {"justfile", "Justfile", ".justfile"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(just); i++) {
        if (!dx_load_text(d, just[i], &b))
            continue;
        json_t *t = json_object();
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (dx_next_line(&p, end, &line, &n)) {
            size_t k = 0;
            if (line[0] == '@')
                line++, n--;
            while (k < n && (dx_name_char(line[k])))
                k++;
            const char *colon = memchr(line, ':', n);
            if (!k || !colon || colon < line + k || (colon + 1 < line + n && colon[1] == '='))
                continue;
            char *name = mn_strndup(line, k);
            if (!json_object_get(t, name))
                json_object_set_new(t, name,
                                    json_pack("{s:s,s:s,s:i}", "recipe", "", "deps", "", "order",
                                              (int)json_object_size(t)));
            free(name);
        }
        targets_to_cmds(d, t, "just", just[i], 80);
        json_decref(t);
        break;
    }
    mn_buf_release(&b);
    static const char *const task[] = {"Taskfile.yml", "Taskfile.yaml", "taskfile.yml"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(task); i++) {
        json_t *y = dx_have(d, task[i]) ? dx_load(d, task[i], FMT_YAML, false) : NULL;
        json_t *tasks = dx_jget(y, "tasks", NULL), *t = json_object();
        const char *k;
        json_t *v;
        json_object_foreach(tasks, k, v)
        {
            json_t *cmds = json_object_get(v, "cmds");
            const char *first = json_string_value(json_array_get(cmds, 0));
            json_object_set_new(t, k,
                                json_pack("{s:s,s:s,s:i}", "recipe", first ? first : "", "deps", "",
                                          "order", (int)json_object_size(t)));
        }
        targets_to_cmds(d, t, "task", task[i], 80);
        json_decref(t);
        json_decref(y);
    }
}

const dx_ecosystem dx_tasks = {
    .name = "task runners",
    .scan = scan_tasks,
};
