/*
 * test_prompts.c - the MCP prompts (src/mcp/prompts.c) on a real store in a
 * scratch repository: the built-in reasoning schemas (embedded copies equal
 * src/mcp/prompts/NAME.yaml, each parses and lists with its arguments),
 * prompts/get filled with the task and the recall bundle, overrides from
 * <repo>/.mnemo/prompts and $XDG_CONFIG_HOME/mnemo/prompts (project over
 * user over built-in, new names added), bad override files skipped with a
 * warning on stderr, and every bad request refused with the right code.
 */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "mcp/mcp_internal.h"
#include "util/util.h"
#include "test.h"
#include "test_json.h"
#include "test_fs.h"

extern const char mn_prompt_bugfix[], mn_prompt_refactor[], mn_prompt_migration[],
    mn_prompt_review[];

static char tmp[64];
static mn_buf repo = MN_BUF_INIT, user_dir = MN_BUF_INIT, proj_dir = MN_BUF_INIT;
static mn_ctx *ctx;

static bool contains(const char *text, const char *needle)
{
    if (text && strstr(text, needle))
        return true;
    fprintf(stderr, "  text lacks '%s'\n", needle);
    return false;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", dir, name);
    CHECK_OK(mn_fs_mkdir_p(dir));
    FILE *f = fopen(p.ptr, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    mn_buf_release(&p);
}

static void remove_file(const char *dir, const char *name)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", dir, name);
    rm_rf(p.ptr);
    mn_buf_release(&p);
}

/* stderr into a file while a call runs, to see the warnings. */
static int saved_stderr = -1;
static char err_path[96];

static void capture_begin(void)
{
    fflush(stderr);
    snprintf(err_path, sizeof(err_path), "%s/stderr.txt", tmp);
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* What was written to stderr since capture_begin (malloc'd). */
static char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    mn_buf b = MN_BUF_INIT;
    CHECK_OK(mn_fs_read(&b, err_path, 1 << 20));
    fputs(b.ptr, stderr); /* still shown, for whoever reads the test log */
    return mn_buf_detach(&b);
}

typedef int (*handler)(mn_ctx *, const json_t *, json_t **);

static int call(handler h, json_t *params, json_t **out)
{
    json_t *res = NULL;
    mn_error_clear();
    int rc = h(ctx, params, &res);
    json_decref(params);
    if ((rc == 0) != (res != NULL)) {
        fprintf(stderr, "rc %d with%s a result\n", rc, res ? "" : "out");
        mn_test__failed_checks++;
    }
    if (out)
        *out = res;
    else
        json_decref(res);
    return rc;
}

/* prompts/list as "name=title;name=title;..." (malloc'd). */
static char *list_titles(void)
{
    json_t *res = NULL;
    mn_buf b = MN_BUF_INIT;
    if (call(mn_mcp_prompts_list, NULL, &res) != 0) {
        fprintf(stderr, "prompts/list: %s\n", mn_error_last());
        mn_test__failed_checks++;
        return mn_strdup("(error)");
    }
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(res, "prompts"), i, p)
        mn_buf_printf(&b, "%s%s=%s", i ? ";" : "", sget(p, "name"), sget(p, "title"));
    json_decref(res);
    return mn_buf_detach(&b);
}

/* The text of prompts/get's single message (malloc'd), or NULL on failure. */
static char *get_text(const char *name, json_t *arguments)
{
    json_t *res = NULL;
    json_t *params = json_pack("{s:s,s:o}", "name", name, "arguments", arguments);
    if (call(mn_mcp_prompts_get, params, &res) != 0) {
        fprintf(stderr, "prompts/get %s: %s\n", name, mn_error_last());
        mn_test__failed_checks++;
        return NULL;
    }
    CHECK(sget(res, "description") && *sget(res, "description"));
    const json_t *msgs = json_object_get(res, "messages");
    CHECK(json_array_size(msgs) == 1);
    const json_t *m = json_array_get(msgs, 0);
    CHECK_STR(sget(m, "role"), "user");
    const json_t *c = json_object_get(m, "content");
    CHECK_STR(sget(c, "type"), "text");
    char *text = sget(c, "text") ? mn_strdup(sget(c, "text")) : NULL;
    json_decref(res);
    return text;
}

/* a literal, so that the format is checked */
#define MINIMAL                                     \
    "title: %s\n"                                   \
    "description: A prompt written for the test.\n" \
    "steps:\n"                                      \
    "  - name: Only step\n"                         \
    "    do: Handle {{task}} in {{files}}.\n"       \
    "    output: A result.\n"

static void write_prompt(const char *dir, const char *name, const char *title)
{
    char text[512], file[96];
    snprintf(text, sizeof(text), MINIMAL, title);
    snprintf(file, sizeof(file), "%s.yaml", name);
    write_file(dir, file, text);
}

static void test_setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-prompts-XXXXXX");
    REQUIRE(mkdtemp(tmp) != NULL);
    unsetenv("MNEMO_NOW_MS");
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    setenv("USER", "tester", 1);
    mn_buf_printf(&repo, "%s/repo", tmp);
    mn_buf_printf(&proj_dir, "%s/.mnemo/prompts", repo.ptr);
    mn_buf_printf(&user_dir, "%s/xdg/mnemo/prompts", tmp);
    mn_buf xdg = MN_BUF_INIT;
    mn_buf_printf(&xdg, "%s/xdg", tmp);
    setenv("XDG_CONFIG_HOME", xdg.ptr, 1);
    mn_buf_release(&xdg);
    /* a repository with a store in .mnemo/ and one source file */
    mn_buf src = MN_BUF_INIT;
    mn_buf_printf(&src, "%s/src", repo.ptr);
    write_file(src.ptr, "session.py",
               "def refresh_session(token):\n"
               "    \"\"\"Refresh the session token before it expires.\"\"\"\n"
               "    return token\n");
    mn_buf_release(&src);
    mn_buf dot = MN_BUF_INIT;
    mn_buf_printf(&dot, "%s/.mnemo", repo.ptr);
    CHECK_OK(mn_fs_mkdir_p(dot.ptr));
    mn_buf_release(&dot);
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.start_dir = repo.ptr;
    o.actor = "test";
    CHECK_OK(mn_ctx_open(&ctx, &o));
    REQUIRE(ctx != NULL);
    CHECK_STR(mn_ctx_root(ctx), repo.ptr);
}

/* The embedded schemas are the files in src/mcp/prompts/, and there are no others. */
static void test_builtins_match_source(void)
{
    static const struct {
        const char *name;
        const char *text;
    } b[] = {{"bugfix", mn_prompt_bugfix},
             {"refactor", mn_prompt_refactor},
             {"migration", mn_prompt_migration},
             {"review", mn_prompt_review}};
    const char *data = getenv("MNEMO_TEST_DATA");
    REQUIRE(data != NULL);
    mn_buf dir = MN_BUF_INIT;
    mn_buf_printf(&dir, "%s/../../src/mcp/prompts", data);
    DIR *d = opendir(dir.ptr);
    REQUIRE(d != NULL);
    size_t files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
            continue;
        files++;
        bool known = false;
        for (size_t i = 0; i < MN_ARRAY_SIZE(b); i++) {
            if (strlen(b[i].name) != n - 5 || strncmp(b[i].name, e->d_name, n - 5) != 0)
                continue;
            known = true;
            mn_buf p = MN_BUF_INIT, text = MN_BUF_INIT;
            mn_buf_printf(&p, "%s/%s", dir.ptr, e->d_name);
            CHECK_OK(mn_fs_read(&text, p.ptr, 1 << 20));
            CHECK(strcmp(text.ptr, b[i].text) == 0);
            mn_buf_release(&p);
            mn_buf_release(&text);
        }
        if (!known)
            fprintf(stderr, "  %s is not in prompts.c's table of built-ins\n", e->d_name);
        CHECK(known);
    }
    closedir(d);
    CHECK(files == MN_ARRAY_SIZE(b));
    mn_buf_release(&dir);
}

static void test_list_builtin(void)
{
    json_t *res = NULL;
    REQUIRE_OK(call(mn_mcp_prompts_list, NULL, &res));
    const json_t *list = json_object_get(res, "prompts");
    static const char *const names[] = {"bugfix", "refactor", "migration", "review"};
    REQUIRE(json_array_size(list) == MN_ARRAY_SIZE(names));
    for (size_t i = 0; i < MN_ARRAY_SIZE(names); i++) {
        const json_t *p = json_array_get(list, i);
        CHECK_STR(sget(p, "name"), names[i]);
        CHECK(sget(p, "title") && *sget(p, "title"));
        CHECK(sget(p, "description") && strlen(sget(p, "description")) > 40);
        const json_t *args = json_object_get(p, "arguments");
        REQUIRE(json_array_size(args) == 2);
        CHECK_STR(sget(json_array_get(args, 0), "name"), "task");
        CHECK(json_is_true(json_object_get(json_array_get(args, 0), "required")));
        CHECK_STR(sget(json_array_get(args, 1), "name"), "files");
        CHECK(json_is_false(json_object_get(json_array_get(args, 1), "required")));
    }
    CHECK_STR(sget(json_array_get(list, 0), "title"), "Fix a bug");
    CHECK(json_object_get(res, "nextCursor") == NULL);
    json_decref(res);
    CHECK_OK(call(mn_mcp_prompts_list, J("{}"), NULL));
    CHECK(call(mn_mcp_prompts_list, J("{'cursor':'x'}"), NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_prompts_list, J("7"), NULL) == MN_EINVAL);
}

static void test_get_filled(void)
{
    json_t *out = NULL;
    json_t *args = J("{'kind':'gotcha','title':'Session refresh fails when the token expired',"
                     "'body':'refresh_session must renew an expired token instead of raising',"
                     "'context':{'situation':'refresh_session raised TokenExpired after idle',"
                     "'what_failed':'retrying the request','solution':'renew the token first',"
                     "'trigger_keywords':['session','refresh','token','expired']},"
                     "'scope':{'paths':['src/session.py']}}");
    REQUIRE_OK(mn_api_call(ctx, "save", args, &out));
    json_decref(args);
    char id[MN_ID_LEN + 1];
    snprintf(id, sizeof(id), "%s", sget(out, "id"));
    json_decref(out);

    char *text = get_text("bugfix", J("{'task':'Session refresh fails: token expired',"
                                      "'files':' src/session.py , refresh_session,,'}"));
    REQUIRE(text != NULL);
    CHECK(contains(text, "# Fix a bug: Session refresh fails: token expired\n"));
    CHECK(contains(text, "## Task\n\nSession refresh fails: token expired\n"));
    CHECK(contains(text, "Files and symbols in scope: src/session.py, refresh_session\n"));
    /* the schema: every step in order, with output, tools and hints */
    const char *s1 = strstr(text, "### 1. Reproduce\n"),
               *s6 = strstr(text, "### 6. Save the gotcha");
    CHECK(s1 && s6 && s1 < s6);
    CHECK(contains(text, "**Output:** "));
    CHECK(contains(text, "**Tools:** `context`, `search_code`"));
    CHECK(contains(text, "**Hints:**\n- "));
    CHECK(contains(text, "context.what_failed"));
    CHECK(contains(text, "given with the task: src/session.py, refresh_session."));
    CHECK(strstr(text, "{{") == NULL);
    /* the bundle from recall, after the steps */
    const char *mem = strstr(text, "## What the project's memory knows about this task");
    CHECK(mem && s6 && mem > s6);
    CHECK(strstr(text, "### Worked examples") || strstr(text, "### Facts, gotchas and rules"));
    CHECK(contains(text, "Session refresh fails when the token expired"));
    char prefix[32];
    snprintf(prefix, sizeof(prefix), "(%s)", id);
    CHECK(contains(text, prefix));
    CHECK(contains(text, "## When you are done"));
    free(text);

    /* each built-in fills; without files the placeholder says so */
    static const char *const names[] = {"bugfix", "refactor", "migration", "review"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(names); i++) {
        text = get_text(names[i], J("{'task':'Move the session store to Redis'}"));
        CHECK(text != NULL);
        CHECK(contains(text, "### 1. "));
        CHECK(text == NULL || strstr(text, "{{") == NULL);
        CHECK(text == NULL || strstr(text, "Files and symbols in scope") == NULL);
        free(text);
    }
    /* nothing relevant: said plainly */
    text = get_text("review", J("{'task':'zyxwv qwerty unrelated words','files':null}"));
    CHECK(contains(text, "Nothing in the project's memory matches this task yet"));
    free(text);
}

static void test_get_errors(void)
{
    CHECK(call(mn_mcp_prompts_get, J("{'name':'bugfix'}"), NULL) == MN_EINVAL);
    CHECK(has_msg("missing required argument 'task'"));
    CHECK(call(mn_mcp_prompts_get, J("{'name':'bugfix','arguments':{}}"), NULL) == MN_EINVAL);
    CHECK(has_msg("'task'"));
    CHECK(call(mn_mcp_prompts_get, J("{'name':'bugfix','arguments':{'task':'  \\n '}}"), NULL) ==
          MN_EINVAL);
    CHECK(call(mn_mcp_prompts_get, J("{'name':'bugfix','arguments':{'task':3}}"), NULL) ==
          MN_EINVAL);
    CHECK(has_msg("must be a string"));
    CHECK(call(mn_mcp_prompts_get, J("{'name':'bugfix','arguments':{'task':'x','files':[1]}}"),
               NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_prompts_get, J("{'name':'bugfix','arguments':{'task':'x','colour':'red'}}"),
               NULL) == MN_EINVAL);
    CHECK(has_msg("unknown argument 'colour'"));
    CHECK(call(mn_mcp_prompts_get, J("{'name':'bugfix','arguments':['x']}"), NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_prompts_get, J("{'arguments':{'task':'x'}}"), NULL) == MN_EINVAL);
    CHECK(has_msg("missing 'name'"));
    CHECK(call(mn_mcp_prompts_get, J("{'name':5}"), NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_prompts_get, NULL, NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_prompts_get, J("'bugfix'"), NULL) == MN_EINVAL);
    /* unknown prompts, including names that are not file names */
    CHECK(call(mn_mcp_prompts_get, J("{'name':'nope','arguments':{'task':'x'}}"), NULL) ==
          MN_ENOTFOUND);
    CHECK(has_msg("prompt 'nope' not found"));
    static const char *const bad_names[] = {"",        "../bugfix", "Bugfix",
                                            "bug fix", "-x",        "bugfix.yaml"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad_names); i++)
        CHECK(call(mn_mcp_prompts_get,
                   json_pack("{s:s,s:{s:s}}", "name", bad_names[i], "arguments", "task", "x"),
                   NULL) == MN_ENOTFOUND);
    /* sizes */
    mn_buf big = MN_BUF_INIT;
    for (int i = 0; i < 32769; i++)
        mn_buf_putc(&big, 'a');
    CHECK(call(mn_mcp_prompts_get,
               json_pack("{s:s,s:{s:s}}", "name", "bugfix", "arguments", "task", big.ptr),
               NULL) == MN_EINVAL);
    CHECK(has_msg("longer than"));
    mn_buf_clear(&big);
    for (int i = 0; i < 65; i++)
        mn_buf_printf(&big, "%sf%d", i ? "," : "", i);
    CHECK(call(mn_mcp_prompts_get,
               json_pack("{s:s,s:{s:s,s:s}}", "name", "bugfix", "arguments", "task", "x", "files",
                         big.ptr),
               NULL) == MN_EINVAL);
    CHECK(has_msg("more than 64"));
    mn_buf_release(&big);
}

static void test_overrides(void)
{
    /* the user's bugfix replaces the built-in; a new name is added */
    write_prompt(user_dir.ptr, "bugfix", "User bugfix");
    write_prompt(user_dir.ptr, "deploy", "User deploy");
    char *titles = list_titles();
    CHECK_STR(titles, "bugfix=User bugfix;refactor=Refactor;migration=Migrate;"
                      "review=Review a change;deploy=User deploy");
    free(titles);
    char *text = get_text("bugfix", J("{'task':'Crash on start','files':'src/session.py'}"));
    CHECK(contains(text, "# User bugfix: Crash on start"));
    CHECK(contains(text, "### 1. Only step\nHandle Crash on start in src/session.py.\n"));
    CHECK(text == NULL || strstr(text, "### 2.") == NULL);
    free(text);

    /* the project's wins over the user's, and adds its own */
    write_prompt(proj_dir.ptr, "bugfix", "Project bugfix");
    write_prompt(proj_dir.ptr, "onboard", "Project onboard");
    write_prompt(proj_dir.ptr, "deploy", "Project deploy");
    titles = list_titles();
    CHECK_STR(titles, "bugfix=Project bugfix;refactor=Refactor;migration=Migrate;"
                      "review=Review a change;deploy=Project deploy;onboard=Project onboard");
    free(titles);
    text = get_text("onboard", J("{'task':'Learn the code'}"));
    CHECK(contains(text, "# Project onboard: Learn the code"));
    CHECK(contains(text, "Handle Learn the code in (none given)."));
    free(text);

    /* the example of docs/prompts.md, every key used */
    write_file(proj_dir.ptr, "flaky.yaml",
               "title: Fix a flaky test                  # required\n"
               "description: >-\n"
               "  Find why a test fails sometimes and make it deterministic.\n"
               "intro: >-\n"
               "  Work through the steps in order.\n"
               "steps:\n"
               "  - name: Reproduce\n"
               "    do: >-\n"
               "      Run {{task}} in a loop until it fails; start from {{files}}.\n"
               "    output: The failure rate and a failing seed.   # required\n"
               "    tools: [context, search_code]\n"
               "    hints:\n"
               "      - Timing, ordering and shared state are the usual causes.\n"
               "finish: Report the cause and the fix.\n");
    text = get_text("flaky", J("{'task':'test_login','files':'tests/test_login.py'}"));
    CHECK(contains(text, "# Fix a flaky test: test_login\n\nFind why a test fails sometimes"));
    CHECK(contains(text, "Work through the steps in order.\n\n## Steps\n"));
    CHECK(contains(text, "### 1. Reproduce\nRun test_login in a loop until it fails; start from "
                         "tests/test_login.py.\n\n**Output:** The failure rate and a failing "
                         "seed.\n**Tools:** `context`, `search_code`\n**Hints:**\n- Timing"));
    CHECK(contains(text, "## When you are done\n\nReport the cause and the fix.\n"));
    free(text);
    remove_file(proj_dir.ptr, "flaky.yaml");

    /* edits show at the next request, without a restart */
    remove_file(proj_dir.ptr, "bugfix.yaml");
    remove_file(proj_dir.ptr, "deploy.yaml");
    remove_file(proj_dir.ptr, "onboard.yaml");
    titles = list_titles();
    CHECK_STR(titles, "bugfix=User bugfix;refactor=Refactor;migration=Migrate;"
                      "review=Review a change;deploy=User deploy");
    free(titles);
    remove_file(user_dir.ptr, "bugfix.yaml");
    remove_file(user_dir.ptr, "deploy.yaml");
    CHECK(call(mn_mcp_prompts_get, J("{'name':'deploy','arguments':{'task':'x'}}"), NULL) ==
          MN_ENOTFOUND);

    /* a relative XDG_CONFIG_HOME is ignored (the XDG rule), so ~/.config is used */
    const char *home = getenv("HOME");
    char *saved_home = home ? mn_strdup(home) : NULL;
    mn_buf h = MN_BUF_INIT, cfg = MN_BUF_INIT;
    mn_buf_printf(&h, "%s/home", tmp);
    mn_buf_printf(&cfg, "%s/.config/mnemo/prompts", h.ptr);
    setenv("HOME", h.ptr, 1);
    setenv("XDG_CONFIG_HOME", "relative/dir", 1);
    write_prompt(cfg.ptr, "refactor", "Home refactor");
    titles = list_titles();
    CHECK(contains(titles, "refactor=Home refactor"));
    free(titles);
    if (saved_home)
        setenv("HOME", saved_home, 1);
    else
        unsetenv("HOME");
    free(saved_home);
    mn_buf_clear(&h);
    mn_buf_printf(&h, "%s/xdg", tmp);
    setenv("XDG_CONFIG_HOME", h.ptr, 1);
    mn_buf_release(&h);
    mn_buf_release(&cfg);
}

static void test_bad_overrides(void)
{
    write_prompt(user_dir.ptr, "bugfix", "User bugfix");
    /* a broken project file: skipped with a warning, the user's is used */
    write_file(proj_dir.ptr, "bugfix.yaml", "title: Broken\nsteps: [\n");
    capture_begin();
    char *titles = list_titles();
    char *err = capture_end();
    CHECK(contains(titles, "bugfix=User bugfix;"));
    CHECK(contains(err, "bugfix.yaml' skipped: yaml: line"));
    free(titles);
    free(err);

    /* the wrong shape in the user's too: the built-in, and a warning naming the field */
    write_file(user_dir.ptr, "bugfix.yaml",
               "title: Typo\ndescription: d\nstpes:\n  - name: a\n    do: b\n    output: c\n");
    capture_begin();
    char *text = get_text("bugfix", J("{'task':'Crash on start'}"));
    err = capture_end();
    CHECK(contains(text, "# Fix a bug: Crash on start"));
    CHECK(contains(err, "stpes"));
    free(text);
    free(err);

    /* each way a file can be bad; none takes the list down */
    static const char *const bad[][2] = {
        {"b1", "- just\n- a list\n"},
        {"b2", "title: A\ndescription: B\nsteps: []\n"},
        {"b3", "title: A\ndescription: B\nsteps:\n  - name: a\n    do: b\n"},
        {"b4", "title: A\ndescription: B\nsteps:\n  - name: a\n    do: b\n    output: 3\n"},
        {"b5", "title: A\n---\ntitle: B\n"},
        {"b6", "title: \xff\xfe\n"},
        {"b7", ""},
        {"b8", "title: &a [*a]\n"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        char file[32];
        snprintf(file, sizeof(file), "%s.yaml", bad[i][0]);
        write_file(proj_dir.ptr, file, bad[i][1]);
    }
    write_file(proj_dir.ptr, "Bad Name.yaml", MINIMAL);
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/dir.yaml", proj_dir.ptr);
    CHECK_OK(mn_fs_mkdir_p(p.ptr)); /* not a regular file */
    mn_buf_clear(&p);
    /* a symlink in the project directory is not followed, even to a good file */
    write_prompt(tmp, "outside", "Outside");
    mn_buf target = MN_BUF_INIT;
    mn_buf_printf(&target, "%s/outside.yaml", tmp);
    mn_buf_printf(&p, "%s/linked.yaml", proj_dir.ptr);
    CHECK(symlink(target.ptr, p.ptr) == 0);
    mn_buf_release(&target);
    mn_buf_release(&p);
    /* an oversized file */
    mn_buf big = MN_BUF_INIT;
    mn_buf_puts(&big, "title: Big\ndescription: |\n");
    while (big.len < (300u << 10))
        mn_buf_puts(&big, "  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
    write_file(proj_dir.ptr, "big.yaml", big.ptr);
    mn_buf_release(&big);
    write_prompt(proj_dir.ptr, "good", "Good one");

    capture_begin();
    titles = list_titles();
    err = capture_end();
    CHECK_STR(titles, "bugfix=Fix a bug;refactor=Refactor;migration=Migrate;review=Review a "
                      "change;good=Good one");
    static const char *const warned[] = {"b1.yaml",
                                         "b2.yaml",
                                         "b3.yaml",
                                         "b4.yaml",
                                         "b5.yaml",
                                         "b6.yaml",
                                         "b7.yaml",
                                         "b8.yaml",
                                         "Bad Name.yaml",
                                         "dir.yaml",
                                         "linked.yaml' skipped: a symlink",
                                         "big.yaml' skipped: larger than"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(warned); i++)
        CHECK(contains(err, warned[i]));
    free(titles);
    free(err);
    CHECK(call(mn_mcp_prompts_get, J("{'name':'b3','arguments':{'task':'x'}}"), NULL) ==
          MN_ENOTFOUND);
    CHECK(call(mn_mcp_prompts_get, J("{'name':'linked','arguments':{'task':'x'}}"), NULL) ==
          MN_ENOTFOUND);
    text = get_text("good", J("{'task':'x'}"));
    CHECK(contains(text, "# Good one: x"));
    free(text);
    rm_rf(proj_dir.ptr);
    rm_rf(user_dir.ptr);
}

/* Through the dispatch (server.c): the codes a client sees. */
static json_t *rpc(mn_mcp_session *s, const char *msg)
{
    char *reply = NULL;
    if (mn_mcp_handle(s, ctx, msg, strlen(msg), &reply, NULL) != 0 || !reply) {
        fprintf(stderr, "no reply to %s\n", msg);
        mn_test__failed_checks++;
        free(reply);
        return json_object();
    }
    json_t *v = json_loads(reply, 0, NULL);
    free(reply);
    return v ? v : json_object();
}

static void test_over_jsonrpc(void)
{
    mn_mcp_server *srv = NULL;
    mn_mcp_session *s = NULL;
    mn_mcp_options o = {"stdio"};
    REQUIRE_OK(mn_mcp_server_new(&srv, ctx, &o));
    REQUIRE_OK(mn_mcp_session_new(&s, srv, NULL, NULL));
    json_decref(rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                       "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                       "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"));
    json_t *v = rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/list\"}");
    CHECK(json_array_size(json_object_get(json_object_get(v, "result"), "prompts")) == 4);
    json_decref(v);
    v = rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/get\",\"params\":{"
               "\"name\":\"migration\",\"arguments\":{\"task\":\"Move to Python 3.12\"}}}");
    const json_t *msg =
        json_array_get(json_object_get(json_object_get(v, "result"), "messages"), 0);
    CHECK(
        contains(sget(json_object_get(msg, "content"), "text"), "# Migrate: Move to Python 3.12"));
    json_decref(v);
    static const char *const bad[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\",\"params\":{\"name\":\"nope\","
        "\"arguments\":{\"task\":\"x\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{\"name\":"
        "\"bugfix\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/get\",\"params\":{}}"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        v = rpc(s, bad[i]);
        const json_t *err = json_object_get(v, "error");
        CHECK(json_integer_value(json_object_get(err, "code")) == -32602);
        CHECK(sget(err, "message") && *sget(err, "message"));
        json_decref(v);
    }
    mn_mcp_session_free(s);
    mn_mcp_server_free(srv);
}

static void test_teardown(void)
{
    mn_ctx_free(ctx);
    ctx = NULL;
    rm_rf(tmp);
    mn_buf_release(&repo);
    mn_buf_release(&proj_dir);
    mn_buf_release(&user_dir);
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_builtins_match_source), MN_TEST(test_list_builtin),
             MN_TEST(test_get_filled), MN_TEST(test_get_errors), MN_TEST(test_overrides),
             MN_TEST(test_bad_overrides), MN_TEST(test_over_jsonrpc), MN_TEST(test_teardown))
