/*
 * cmd_edit.c - mnemo edit ID [options].
 *
 * With options it is the update operation. With only an id it opens the
 * memory's editable fields as YAML in $VISUAL / $EDITOR (default vi), and
 * sends what changed as one update: a key removed from context or scope
 * becomes null (removed). If the update is refused, the edited file is kept
 * and its path printed, so no typing is lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static const char *const plain_keys[] = {"kind",   "level",      "title",  "body",
                                         "status", "confidence", "quality"};
static const char *const group_keys[] = {"context", "scope"};

static json_t *editable(const json_t *mem)
{
    json_t *doc = json_object();
    for (size_t i = 0; i < sizeof(plain_keys) / sizeof(plain_keys[0]); i++) {
        json_t *v = json_object_get(mem, plain_keys[i]);
        if (v)
            json_object_set(doc, plain_keys[i], v);
        if (i == 3)
            for (size_t k = 0; k < 2; k++) {
                json_t *gv = json_object_get(mem, group_keys[k]);
                json_object_set_new(doc, group_keys[k], gv ? json_deep_copy(gv) : json_object());
            }
    }
    json_t *c = json_object_get(mem, "citations");
    json_object_set_new(doc, "citations", c ? json_deep_copy(c) : json_array());
    return doc;
}

/* The update input that turns `before` into `after`. */
static json_t *diff(const char *id, const json_t *before, const json_t *after)
{
    json_t *args = json_pack("{s:s}", "id", id);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)after, key, v)
    {
        bool known = !strcmp(key, "citations");
        for (size_t i = 0; i < sizeof(plain_keys) / sizeof(plain_keys[0]); i++)
            known |= !strcmp(key, plain_keys[i]);
        for (size_t i = 0; i < 2; i++)
            known |= !strcmp(key, group_keys[i]);
        if (!known) /* let the schema name it */
            json_object_set(args, key, v);
    }
    for (size_t i = 0; i < sizeof(plain_keys) / sizeof(plain_keys[0]); i++) {
        json_t *b = json_object_get(before, plain_keys[i]);
        json_t *a = json_object_get(after, plain_keys[i]);
        if (a && !json_is_null(a) && (!b || !json_equal(a, b)))
            json_object_set(args, plain_keys[i], a);
        else if ((!a || json_is_null(a)) && !strcmp(plain_keys[i], "body") && b)
            json_object_set_new(args, "body", json_string(""));
    }
    for (size_t k = 0; k < 2; k++) {
        json_t *b = json_object_get(before, group_keys[k]);
        json_t *a = json_object_get(after, group_keys[k]);
        json_t *changes = json_object();
        if (a && !json_is_object(a) && !json_is_null(a)) {
            json_object_set(args, group_keys[k], a); /* wrong type: the schema says so */
            json_decref(changes);
            continue;
        }
        json_object_foreach(a, key, v) if (!json_equal(v, json_object_get(b, key)))
            json_object_set(changes, key, v);
        json_object_foreach(b, key, v) if (!json_object_get(a, key))
            json_object_set_new(changes, key, json_null());
        if (json_object_size(changes))
            json_object_set(args, group_keys[k], changes);
        json_decref(changes);
    }
    json_t *bc = json_object_get(before, "citations"), *ac = json_object_get(after, "citations");
    if (json_is_null(ac) || !ac)
        ac = NULL;
    if (!json_equal(bc ? bc : json_array(), ac ? ac : json_array())) {
        if (ac)
            json_object_set(args, "citations", ac);
        else
            json_object_set_new(args, "citations", json_array());
    }
    return args;
}

static int write_fd(int fd, const char *path, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return mn_error_set(MN_EIO, "cannot write '%s': %s", path, strerror(errno));
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int run_editor(const char *path)
{
    const char *editor = getenv("VISUAL");
    if (!editor || !*editor)
        editor = getenv("EDITOR");
    if (!editor || !*editor)
        editor = "vi";
    pid_t pid = fork();
    if (pid < 0)
        return mn_error_set(MN_ERROR, "cannot start the editor");
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", "exec $0 \"$1\"", editor, path, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return mn_error_set(MN_ERROR, "the editor '%s' failed; nothing changed", editor);
    return 0;
}

static int edit_in_editor(const cli_command *cmd, cli_global *g, const char *id)
{
    mn_ctx *ctx = NULL;
    json_t *got = NULL, *before = NULL, *after = NULL, *args = NULL, *out = NULL;
    char path[4096];
    char *yaml = NULL, *text = NULL;
    size_t len = 0;
    int rc, fd;
    bool made = false, keep = false;

    /* $TMPDIR like mktemp(1), so a test or a locked-down /tmp can move it */
    const char *tmpdir = getenv("TMPDIR");
    snprintf(path, sizeof(path), "%s/mnemo-edit-XXXXXX.yaml", tmpdir && *tmpdir ? tmpdir : "/tmp");
    json_t *q = json_pack("{s:s}", "id", id);
    rc = cli_open(&ctx, g);
    if (rc == 0)
        rc = mn_api_call(ctx, "get", q, &got);
    json_decref(q);
    if (rc)
        goto out;
    const char *full_id = json_string_value(json_object_get(json_object_get(got, "memory"), "id"));
    before = editable(json_object_get(got, "memory"));
    if ((rc = mn_format_yaml(&yaml, before)) != 0)
        goto out;
    /* 0600, and written through this descriptor: the memory's text (and an
     * edit kept after a refusal) is nobody else's to read in a shared /tmp */
    fd = mkstemps(path, 5);
    if (fd < 0) {
        rc = mn_error_set(MN_EIO, "cannot create a temporary file for editing");
        goto out;
    }
    made = true;
    {
        char header[200];
        snprintf(header, sizeof(header),
                 "# mnemo: editing memory %s. Save and quit to apply; empty the file to "
                 "cancel.\n",
                 full_id);
        if ((rc = write_fd(fd, path, header, strlen(header))) == 0)
            rc = write_fd(fd, path, yaml, strlen(yaml));
        if (close(fd) != 0 && rc == 0)
            rc = mn_error_set(MN_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    if (rc || (rc = run_editor(path)) != 0)
        goto out;
    if ((rc = cli_read_input(&text, &len, path, 16 << 20, "the edited file")) != 0) {
        keep = true; /* what was typed stays */
        goto out;
    }
    json_t *docs = NULL;
    if ((rc = mn_format_read(&docs, MN_FORMAT_YAML, text, len)) != 0) {
        keep = true;
        goto out;
    }
    if (json_array_size(docs) == 0 || json_is_null(json_array_get(docs, 0))) {
        json_decref(docs);
        cli_eprintf("mnemo: edit cancelled; nothing changed\n");
        goto out;
    }
    if (json_array_size(docs) != 1 || !json_is_object(json_array_get(docs, 0))) {
        json_decref(docs);
        rc = mn_error_set(MN_EINVAL, "the edited file must hold one YAML mapping");
        keep = true;
        goto out;
    }
    after = json_incref(json_array_get(docs, 0));
    json_decref(docs);
    args = diff(full_id, before, after);
    if ((rc = mn_api_call(ctx, "update", args, &out)) != 0) {
        keep = true;
        goto out;
    }
    if (g->json)
        cli_print_json(out);
    else
        cmd->print(out);
out:
    if (keep)
        mn_error_prefix("your edit is kept in %s", path);
    else if (made)
        unlink(path);
    mn_ctx_free(ctx);
    json_decref(got);
    json_decref(before);
    json_decref(after);
    json_decref(args);
    json_decref(out);
    free(yaml);
    free(text);
    return rc ? cli_fail(rc) : CLI_EXIT_OK;
}

int cli_cmd_edit(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    if (argc == 0)
        return cli_usage_error(cmd, "needs a memory id");
    if (argc == 1 && argv[0][0] != '-')
        return edit_in_editor(cmd, g, argv[0]);
    return cli_run_generic(cmd, g, argc, argv);
}
