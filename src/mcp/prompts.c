/*
 * prompts.c - the MCP prompts: reasoning schemas (bugfix, refactor,
 * migration, review) filled with the project's memory for a task.
 *
 * A reasoning schema is a YAML file: a title, a description, an optional
 * intro and finish, and steps, each with what to do, the output it must
 * produce, the tools that help and hints (PROMPT_SCHEMA below is the exact
 * shape; docs/prompts.md shows an example). The built-in ones are
 * src/mcp/prompts/NAME.yaml, embedded at build time (mn_prompt_NAME, see
 * CMakeLists.txt). A file NAME.yaml in <repo>/.mnemo/prompts/ (the store's
 * repository root) or in $XDG_CONFIG_HOME/mnemo/prompts/ (~/.config when
 * unset) replaces the prompt of that name as a whole, project over user over
 * built-in; a new NAME adds a prompt. Files are read on every request, so an
 * edit shows at the next prompts/list without a restart; they are small
 * (FILE_MAX) and few (DIR_MAX).
 *
 * A bad override (unreadable, not UTF-8, not YAML, not the shape, not a
 * regular file, a symlink in the project directory) is skipped with one
 * warning on stderr and the next source is used: a typo in a prompt file
 * must never take the prompts, or the server, down.
 *
 * prompts/get {name, arguments: {task, files?}} returns one user message:
 * the schema with {{task}} and {{files}} filled in, followed by the memory
 * bundle of the `recall` operation for the task (facts and gotchas, worked
 * examples, decisions with their reasons, code to look at), so an agent
 * gets its plan and what the project already knows in one message. Each
 * comma-separated entry of `files` goes to recall as a file when it names a
 * file under the repository root or holds a '/', else as a symbol.
 */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/mcp_internal.h"
#include "util/buf.h"
#include "util/schema.h"
#include "util/util.h"
#include "util/yaml.h"

#define FILE_MAX        ((size_t)256 << 10) /* one prompt file, bytes */
#define DIR_MAX         256                 /* prompt files considered per directory */
#define NAME_MAX_LEN    64
#define TASK_MAX_CHARS  32768 /* recall's limit on a task */
#define FILES_MAX       64    /* recall's limit on files (and on symbols) */
#define FILE_MAX_CHARS  4096
#define SYMBOL_MAX_CHAR 512
#define FILES_ARG_MAX   (FILES_MAX * (FILE_MAX_CHARS + 2))
#define RECALL_TOKENS   1500
#define TITLE_TASK_CHAR 120 /* the task as it appears in the heading */

/* The built-in schemas, in the order prompts/list gives them. */
extern const char mn_prompt_bugfix[], mn_prompt_refactor[], mn_prompt_migration[],
    mn_prompt_review[];
static const struct {
    const char *name;
    const char *yaml;
} builtins[] = {{"bugfix", mn_prompt_bugfix},
                {"refactor", mn_prompt_refactor},
                {"migration", mn_prompt_migration},
                {"review", mn_prompt_review}};

/* The shape of a prompt file (util/schema.h subset). */
static const char PROMPT_SCHEMA[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"title\",\"description\",\"steps\"],\"properties\":{"
    "\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100},"
    "\"description\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":2000},"
    "\"intro\":{\"type\":\"string\",\"maxLength\":8000},"
    "\"finish\":{\"type\":\"string\",\"maxLength\":8000},"
    "\"steps\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":30,\"items\":{"
    "\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"name\",\"do\",\"output\"],\"properties\":{"
    "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100},"
    "\"do\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":8000},"
    "\"output\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4000},"
    "\"tools\":{\"type\":\"array\",\"maxItems\":16,\"items\":"
    "{\"type\":\"string\",\"minLength\":1,\"maxLength\":64}},"
    "\"hints\":{\"type\":\"array\",\"maxItems\":30,\"items\":"
    "{\"type\":\"string\",\"minLength\":1,\"maxLength\":2000}}}}}}}";

static json_t *prompt_schema;
static pthread_once_t prompt_schema_once = PTHREAD_ONCE_INIT;

static void prompt_schema_load(void)
{
    prompt_schema = json_loads(PROMPT_SCHEMA, 0, NULL);
}

/* ---- names and places ---- */

/* A prompt name: [a-z0-9][a-z0-9_-]{0,63}, so it is also a safe file name. */
static bool name_ok(const char *s, size_t n)
{
    if (n == 0 || n > NAME_MAX_LEN)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '-' && c != '_')))
            return false;
    }
    return true;
}

typedef enum { SRC_PROJECT, SRC_USER, SRC_COUNT } source;
static const char *const source_name[SRC_COUNT] = {"project", "user"};

/* The override directory of a source (malloc'd), or NULL when there is none. */
static char *source_dir(mn_ctx *ctx, source src)
{
    mn_buf p = MN_BUF_INIT;
    if (src == SRC_PROJECT) {
        const char *root = mn_ctx_root(ctx);
        if (!root || !*root)
            return NULL;
        mn_buf_printf(&p, "%s/.mnemo/prompts", strcmp(root, "/") ? root : "");
        return mn_buf_detach(&p);
    }
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/') { /* the XDG spec: a relative value is ignored */
        mn_buf_printf(&p, "%s/mnemo/prompts", xdg);
        return mn_buf_detach(&p);
    }
    if (!home || !*home) {
        struct passwd pw, *res = NULL;
        char buf[4096];
        if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) != 0 || !res)
            return NULL;
        mn_buf_printf(&p, "%s/.config/mnemo/prompts", res->pw_dir);
        return mn_buf_detach(&p);
    }
    mn_buf_printf(&p, "%s/.config/mnemo/prompts", home);
    return mn_buf_detach(&p);
}

/*
 * Read a prompt file: a regular file of at most FILE_MAX bytes. In the
 * project directory (which comes with the repository) a symlink is refused,
 * so a checkout cannot point the server at a file outside it. O_NONBLOCK:
 * a FIFO must not hang the server. MN_ENOTFOUND when there is no file.
 */
static int read_file(mn_buf *out, const char *path, bool nofollow)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return mn_error_set(MN_ENOTFOUND, "no file '%s'", path);
        if (errno == ELOOP)
            return mn_error_set(MN_EINVAL, "a symlink (not followed in the project directory)");
        return mn_error_set(MN_EIO, "cannot open: %s", strerror(errno));
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0)
        rc = mn_error_set(MN_EIO, "cannot stat: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = mn_error_set(MN_EINVAL, "not a regular file");
    else if ((size_t)st.st_size > FILE_MAX)
        rc = mn_error_set(MN_ETOOBIG, "larger than %zu bytes", FILE_MAX);
    char chunk[8192];
    while (rc == 0) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = mn_error_set(MN_EIO, "cannot read: %s", strerror(errno));
        } else if (n == 0) {
            break;
        } else if (out->len + (size_t)n > FILE_MAX) {
            rc = mn_error_set(MN_ETOOBIG, "larger than %zu bytes", FILE_MAX);
        } else {
            mn_buf_put(out, chunk, (size_t)n);
        }
    }
    close(fd);
    return rc;
}

/* Parse and check a prompt's YAML text: *out is the prompt object. MN_EINVAL says why not. */
static int parse_prompt(json_t **out, const char *text, size_t len)
{
    json_t *docs = NULL;
    *out = NULL;
    if (!mn_utf8_valid(text, len))
        return mn_error_set(MN_EINVAL, "not UTF-8 text");
    int rc = mn_yaml_parse_docs(&docs, text, len);
    if (rc)
        return rc;
    pthread_once(&prompt_schema_once, prompt_schema_load);
    if (json_array_size(docs) != 1)
        rc =
            mn_error_set(MN_EINVAL, "expected one YAML document, found %zu", json_array_size(docs));
    else if (!prompt_schema)
        rc = mn_error_set(MN_EINTERNAL, "the prompt schema does not parse");
    else if ((rc = mn_schema_validate(prompt_schema, json_array_get(docs, 0))) == 0)
        *out = json_incref(json_array_get(docs, 0));
    json_decref(docs);
    return rc;
}

static int builtin_index(const char *name)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(builtins); i++)
        if (!strcmp(builtins[i].name, name))
            return (int)i;
    return -1;
}

/*
 * The override of `name` from one source: 0 with *out set, MN_ENOTFOUND when
 * there is none, or another code when the file is bad (warned about here).
 */
static int load_override(mn_ctx *ctx, source src, const char *name, json_t **out)
{
    char *dir = source_dir(ctx, src);
    *out = NULL;
    if (!dir)
        return MN_ENOTFOUND;
    mn_buf path = MN_BUF_INIT, text = MN_BUF_INIT;
    mn_buf_printf(&path, "%s/%s.yaml", dir, name);
    int rc = read_file(&text, path.ptr, src == SRC_PROJECT);
    if (rc == 0)
        rc = parse_prompt(out, text.ptr, text.len);
    if (rc && rc != MN_ENOTFOUND)
        mn_log(MN_LOG_WARN, "prompt file '%s' skipped: %s", path.ptr, mn_error_last());
    mn_error_clear();
    mn_buf_release(&path);
    mn_buf_release(&text);
    free(dir);
    return rc;
}

/*
 * The prompt `name` as the client sees it: the project's override, else the
 * user's, else the built-in. *out is a new reference; MN_ENOTFOUND when no
 * source has a usable one.
 */
static int load_prompt(mn_ctx *ctx, const char *name, json_t **out, const char **origin)
{
    for (int s = 0; s < SRC_COUNT; s++)
        if (load_override(ctx, (source)s, name, out) == 0) {
            *origin = source_name[s];
            return 0;
        }
    int b = builtin_index(name);
    if (b < 0)
        return MN_ENOTFOUND;
    const char *y = builtins[b].yaml;
    if (parse_prompt(out, y, strlen(y)) != 0) { /* test_prompts keeps this from happening */
        char why[256];
        snprintf(why, sizeof(why), "%s", mn_error_last());
        return mn_error_set(MN_EINTERNAL, "built-in prompt '%s' is broken: %s", name, why);
    }
    *origin = "built-in";
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the prompt files in a source's directory that are not built-ins, sorted. */
static void extra_names(mn_ctx *ctx, source src, json_t *names)
{
    char *dir = source_dir(ctx, src);
    DIR *d = dir ? opendir(dir) : NULL;
    char *found[DIR_MAX];
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len <= 5 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue; /* hidden, editor backups, other files: not prompts */
        if (!name_ok(e->d_name, len - 5)) {
            mn_log(MN_LOG_WARN,
                   "prompt file '%s/%s' skipped: the name must be lower-case letters, digits, "
                   "'-' and '_' (at most %d)",
                   dir, e->d_name, NAME_MAX_LEN);
            continue;
        }
        if (n == DIR_MAX) {
            mn_log(MN_LOG_WARN,
                   "prompt directory '%s': more than %d prompt files, the rest "
                   "are ignored",
                   dir, DIR_MAX);
            break;
        }
        found[n++] = mn_strndup(e->d_name, len - 5);
    }
    if (d)
        closedir(d);
    qsort(found, n, sizeof(found[0]), cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (builtin_index(found[i]) < 0 && !json_object_get(names, found[i]))
            json_object_set_new(names, found[i], json_true());
        free(found[i]);
    }
    free(dir);
}

/* ---- arguments ---- */

static const char *const TASK_DESC =
    "The task in your own words, or the issue or bug report as written: what to do, what "
    "happens, error messages. It fills the schema and selects the project memory that comes "
    "with it.";
static const char *const FILES_DESC =
    "Optional: comma-separated repository paths or symbols you will work on (src/auth.py, "
    "Session.refresh); what the project knows about them counts as relevant.";

typedef struct {
    const char *task;
    json_t *files;   /* entries naming files, for recall */
    json_t *symbols; /* the other entries, for recall */
    mn_buf shown;    /* every entry, comma separated, as the text shows them */
} prompt_args;

static void args_release(prompt_args *a)
{
    json_decref(a->files);
    json_decref(a->symbols);
    mn_buf_release(&a->shown);
}

static bool all_space(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return false;
    return true;
}

/* Split `files` at commas into files and symbols (see the top of the file). */
static int split_files(mn_ctx *ctx, prompt_args *a, const char *list)
{
    const char *root = mn_ctx_root(ctx);
    const char *p = list;
    size_t count = 0;
    while (*p) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *s = p, *e = end;
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
            e--;
        p = *end ? end + 1 : end;
        if (s == e)
            continue;
        if (++count > FILES_MAX)
            return mn_error_set(MN_EINVAL, "argument 'files': more than %d entries", FILES_MAX);
        size_t chars = mn_utf8_len(s, (size_t)(e - s));
        char *item = mn_strndup(s, (size_t)(e - s));
        bool is_file = memchr(s, '/', (size_t)(e - s)) != NULL;
        if (!is_file && root) {
            mn_buf path = MN_BUF_INIT;
            mn_buf_printf(&path, "%s/%s", root, item);
            struct stat st;
            is_file = stat(path.ptr, &st) == 0 && S_ISREG(st.st_mode);
            mn_buf_release(&path);
        }
        if (chars > (is_file ? FILE_MAX_CHARS : SYMBOL_MAX_CHAR)) {
            free(item);
            return mn_error_set(MN_EINVAL,
                                "argument 'files': an entry is longer than %d characters",
                                is_file ? FILE_MAX_CHARS : SYMBOL_MAX_CHAR);
        }
        json_array_append_new(is_file ? a->files : a->symbols, json_string(item));
        mn_buf_printf(&a->shown, "%s%s", a->shown.len ? ", " : "", item);
        free(item);
    }
    return 0;
}

/* Check the arguments of prompts/get; every message names the argument. */
static int parse_args(mn_ctx *ctx, const char *name, const json_t *args, prompt_args *a)
{
    const char *key;
    const json_t *v;
    if (args && !json_is_object(args) && !json_is_null(args))
        return mn_error_set(MN_EINVAL, "prompts/get '%s': arguments must be an object", name);
    json_object_foreach((json_t *)args, key, v)
    {
        if (strcmp(key, "task") != 0 && strcmp(key, "files") != 0)
            return mn_error_set(MN_EINVAL,
                                "prompts/get '%s': unknown argument '%.64s' (expected task, files)",
                                name, key);
        if (!json_is_string(v) && !json_is_null(v))
            return mn_error_set(MN_EINVAL, "prompts/get '%s': argument '%s' must be a string", name,
                                key);
    }
    a->task = json_string_value(json_object_get(args, "task"));
    if (!a->task || all_space(a->task))
        return mn_error_set(MN_EINVAL,
                            "prompts/get '%s': missing required argument 'task' (what to do, in "
                            "a sentence or the issue text)",
                            name);
    if (mn_utf8_len(a->task, strlen(a->task)) > TASK_MAX_CHARS)
        return mn_error_set(MN_EINVAL,
                            "prompts/get '%s': argument 'task' is longer than %d "
                            "characters",
                            name, TASK_MAX_CHARS);
    const char *files = json_string_value(json_object_get(args, "files"));
    if (files && strlen(files) > FILES_ARG_MAX)
        return mn_error_set(MN_EINVAL, "prompts/get '%s': argument 'files' is too long", name);
    int rc = files ? split_files(ctx, a, files) : 0;
    if (rc)
        return mn_error_prefix("prompts/get '%s'", name);
    return 0;
}

/* ---- the text ---- */

/* Append text with {{task}} and {{files}} filled in. */
static void put_filled(mn_buf *b, const char *text, const prompt_args *a)
{
    const char *p = text;
    for (;;) {
        const char *open = strstr(p, "{{");
        if (!open)
            break;
        const char *with = NULL;
        size_t skip = 0;
        if (!strncmp(open, "{{task}}", 8)) {
            with = a->task;
            skip = 8;
        } else if (!strncmp(open, "{{files}}", 9)) {
            with = a->shown.len ? a->shown.ptr : "(none given)";
            skip = 9;
        }
        mn_buf_put(b, p, (size_t)(open - p));
        if (with) {
            mn_buf_puts(b, with);
            p = open + skip;
        } else {
            mn_buf_puts(b, "{{");
            p = open + 2;
        }
    }
    mn_buf_puts(b, p);
}

/* Text on one line, at most max characters: for headings. */
static void put_line(mn_buf *b, const char *text, size_t max)
{
    size_t chars = 0;
    bool space = false;
    for (const unsigned char *s = (const unsigned char *)text; *s && chars <= max;) {
        if (*s == '\n' || *s == '\r' || *s == '\t' || *s == ' ') {
            space = true;
            s++;
            continue;
        }
        if (chars == max) {
            mn_buf_puts(b, "…");
            break;
        }
        if (space && chars)
            mn_buf_putc(b, ' ');
        space = false;
        size_t n = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc0 ? 2 : 1;
        size_t i = 0;
        for (; i < n && s[i]; i++) /* never past the NUL, even in a cut sequence */
            mn_buf_putc(b, (char)s[i]);
        s += i;
        chars++;
    }
}

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* The steps of a schema as Markdown. */
static void put_schema(mn_buf *b, const json_t *p, const prompt_args *a)
{
    if (*jstr(p, "intro")) {
        put_filled(b, jstr(p, "intro"), a);
        mn_buf_puts(b, "\n\n");
    }
    mn_buf_puts(b, "## Steps\n");
    size_t i, j;
    const json_t *st, *x;
    json_array_foreach(json_object_get(p, "steps"), i, st)
    {
        mn_buf_printf(b, "\n### %zu. ", i + 1);
        put_line(b, jstr(st, "name"), 100);
        mn_buf_puts(b, "\n");
        put_filled(b, jstr(st, "do"), a);
        mn_buf_puts(b, "\n\n**Output:** ");
        put_filled(b, jstr(st, "output"), a);
        mn_buf_puts(b, "\n");
        const json_t *tools = json_object_get(st, "tools");
        if (json_array_size(tools)) {
            mn_buf_puts(b, "**Tools:** ");
            json_array_foreach(tools, j, x)
                mn_buf_printf(b, "%s`%s`", j ? ", " : "", json_string_value(x));
            mn_buf_puts(b, "\n");
        }
        const json_t *hints = json_object_get(st, "hints");
        if (json_array_size(hints)) {
            mn_buf_puts(b, "**Hints:**\n");
            json_array_foreach(hints, j, x)
            {
                mn_buf_puts(b, "- ");
                put_filled(b, json_string_value(x), a);
                mn_buf_puts(b, "\n");
            }
        }
    }
}

static void put_id(mn_buf *b, const json_t *row)
{
    const char *id = jstr(row, "id");
    if (*id)
        mn_buf_printf(b, " (%s)", id); /* whole: ids made in one millisecond share 12 chars */
}

/* The recall bundle as Markdown: what the project already knows about the task. */
static void put_bundle(mn_buf *b, const json_t *r)
{
    const json_t *facts = json_object_get(r, "facts"), *shots = json_object_get(r, "few_shots"),
                 *decisions = json_object_get(r, "decisions"), *links = json_object_get(r, "links");
    size_t i, j;
    const json_t *x, *y;
    mn_buf_puts(b, "\n## What the project's memory knows about this task\n");
    if (!json_array_size(facts) && !json_array_size(shots) && !json_array_size(decisions) &&
        !json_array_size(links)) {
        mn_buf_puts(b, "\nNothing in the project's memory matches this task yet. Use `context` as "
                       "you go, and save what you learn (the last step) so the next session "
                       "starts from it.\n");
        return;
    }
    json_int_t served = json_integer_value(json_object_get(r, "served"));
    mn_buf_printf(b, "\nFrom `recall` (confidence %.2f",
                  json_number_value(json_object_get(r, "confidence")));
    if (served)
        mn_buf_printf(b, ", served %lld", (long long)served);
    mn_buf_puts(b, "). Ids are memory ids: `get` shows one in full");
    if (served)
        mn_buf_printf(b, "; `feedback` with served %lld says which helped", (long long)served);
    mn_buf_puts(b, ".\n");
    if (json_array_size(facts)) {
        mn_buf_puts(b, "\n### Facts, gotchas and rules\n");
        json_array_foreach(facts, i, x)
        {
            mn_buf_printf(b, "- **%s** ", jstr(x, "kind"));
            put_line(b, jstr(x, "text"), 400);
            if (*jstr(x, "status"))
                mn_buf_printf(b, " [%s]", jstr(x, "status"));
            put_id(b, x);
            mn_buf_puts(b, "\n");
        }
    }
    if (json_array_size(shots)) {
        mn_buf_puts(b, "\n### Worked examples\n");
        json_array_foreach(shots, i, x)
        {
            mn_buf_puts(b, "- ");
            put_line(b, jstr(x, "text"), 400);
            put_id(b, x);
            mn_buf_puts(b, "\n");
            static const char *const parts[][2] = {{"situation", "Situation"},
                                                   {"what_failed", "What failed"},
                                                   {"solution", "Solution"}};
            for (size_t k = 0; k < MN_ARRAY_SIZE(parts); k++)
                if (*jstr(x, parts[k][0])) {
                    mn_buf_printf(b, "  - %s: ", parts[k][1]);
                    put_line(b, jstr(x, parts[k][0]), 600);
                    mn_buf_puts(b, "\n");
                }
        }
    }
    if (json_array_size(decisions)) {
        mn_buf_puts(b, "\n### Decisions and their reasons\n");
        json_array_foreach(decisions, i, x)
        {
            mn_buf_puts(b, "- ");
            put_line(b, jstr(x, "title"), 200);
            if (*jstr(x, "reason")) {
                mn_buf_puts(b, ". Because: ");
                put_line(b, jstr(x, "reason"), 400);
            }
            put_id(b, x);
            mn_buf_puts(b, "\n");
            json_array_foreach(json_object_get(x, "chain"), j, y)
            {
                mn_buf_printf(b, "  - %s: ", jstr(y, "kind"));
                put_line(b, *jstr(y, "title") ? jstr(y, "title") : jstr(y, "to"), 200);
                mn_buf_puts(b, "\n");
            }
        }
    }
    if (json_array_size(links)) {
        mn_buf_puts(b, "\n### Code to look at\n");
        json_array_foreach(links, i, x)
        {
            mn_buf_printf(b, "- `%s", jstr(x, "path"));
            json_int_t from = json_integer_value(json_object_get(x, "start_line"));
            json_int_t to = json_integer_value(json_object_get(x, "end_line"));
            if (from > 0)
                mn_buf_printf(b, ":%lld-%lld", (long long)from, (long long)to);
            mn_buf_puts(b, "`");
            if (*jstr(x, "symbol") && strcmp(jstr(x, "symbol"), jstr(x, "path")) != 0) {
                mn_buf_puts(b, " ");
                put_line(b, jstr(x, "symbol"), 120);
            }
            if (*jstr(x, "why")) {
                mn_buf_puts(b, ": ");
                put_line(b, jstr(x, "why"), 200);
            }
            mn_buf_puts(b, "\n");
        }
    }
}

/* ---- prompts/list ---- */

static json_t *arguments_json(void)
{
    return json_pack("[{s:s,s:s,s:s,s:b},{s:s,s:s,s:s,s:b}]", "name", "task", "title", "Task",
                     "description", TASK_DESC, "required", 1, "name", "files", "title", "Files",
                     "description", FILES_DESC, "required", 0);
}

int mn_mcp_prompts_list(mn_ctx *ctx, const json_t *params, json_t **result)
{
    if (params && !json_is_object(params) && !json_is_null(params))
        return mn_error_set(MN_EINVAL, "prompts/list: params must be an object");
    const json_t *c = json_object_get(params, "cursor");
    if (c && !json_is_null(c)) /* one page: any cursor is one we never issued */
        return mn_error_set(MN_EINVAL, "prompts/list: invalid cursor: the list has one page");
    json_t *names = json_object(); /* insertion-ordered: built-ins, then the others by name */
    for (size_t i = 0; i < MN_ARRAY_SIZE(builtins); i++)
        json_object_set_new(names, builtins[i].name, json_true());
    json_t *extra = json_object();
    for (int s = 0; s < SRC_COUNT; s++)
        extra_names(ctx, (source)s, extra);
    const char **sorted = mn_calloc(json_object_size(extra) + 1, sizeof(*sorted));
    size_t n = 0;
    const char *key;
    json_t *v;
    json_object_foreach(extra, key, v) sorted[n++] = key;
    qsort(sorted, n, sizeof(sorted[0]), cmp_str);
    for (size_t i = 0; i < n; i++)
        json_object_set_new(names, sorted[i], json_true());
    free(sorted);
    json_decref(extra);

    json_t *list = json_array();
    int rc = 0;
    json_object_foreach(names, key, v)
    {
        json_t *p = NULL;
        const char *origin = NULL;
        int lrc = load_prompt(ctx, key, &p, &origin);
        if (lrc == MN_ENOTFOUND) { /* an added prompt whose files are all bad: warned already */
            mn_error_clear();
            continue;
        }
        if (lrc) {
            rc = lrc;
            break;
        }
        json_array_append_new(list, json_pack("{s:s,s:O,s:O,s:o}", "name", key, "title",
                                              json_object_get(p, "title"), "description",
                                              json_object_get(p, "description"), "arguments",
                                              arguments_json()));
        json_decref(p);
    }
    json_decref(names);
    if (rc) {
        json_decref(list);
        return rc;
    }
    *result = json_pack("{s:o}", "prompts", list);
    return 0;
}

/* ---- prompts/get ---- */

int mn_mcp_prompts_get(mn_ctx *ctx, const json_t *params, json_t **result)
{
    prompt_args a = {NULL, json_array(), json_array(), MN_BUF_INIT};
    json_t *p = NULL, *rargs = NULL, *bundle = NULL;
    mn_buf text = MN_BUF_INIT;
    const char *origin = NULL;
    int rc = 0;
    if (!json_is_object(params)) {
        rc = mn_error_set(MN_EINVAL, "prompts/get: params must be an object with 'name'");
        goto out;
    }
    const json_t *jn = json_object_get(params, "name");
    const char *name = json_string_value(jn);
    if (!jn) {
        rc = mn_error_set(MN_EINVAL, "prompts/get: missing 'name'");
        goto out;
    }
    if (!name) {
        rc = mn_error_set(MN_EINVAL, "prompts/get: 'name' must be a string");
        goto out;
    }
    if (!name_ok(name, strlen(name)) || (rc = load_prompt(ctx, name, &p, &origin)) != 0) {
        if (rc == 0 || rc == MN_ENOTFOUND)
            rc = mn_error_set(MN_ENOTFOUND,
                              "prompt '%.64s' not found: prompts/list names them (built in: "
                              "bugfix, refactor, migration, review)",
                              name);
        goto out;
    }
    if ((rc = parse_args(ctx, name, json_object_get(params, "arguments"), &a)) != 0)
        goto out;

    rargs = json_pack("{s:s,s:I}", "task", a.task, "limit_tokens", (json_int_t)RECALL_TOKENS);
    if (json_array_size(a.files))
        json_object_set(rargs, "files", a.files);
    if (json_array_size(a.symbols))
        json_object_set(rargs, "symbols", a.symbols);
    if ((rc = mn_api_call(ctx, "recall", rargs, &bundle)) != 0) {
        mn_error_prefix("prompts/get '%s': recall", name);
        goto out;
    }

    mn_buf_puts(&text, "# ");
    put_line(&text, jstr(p, "title"), 100);
    mn_buf_puts(&text, ": ");
    put_line(&text, a.task, TITLE_TASK_CHAR);
    mn_buf_puts(&text, "\n\n");
    mn_buf_puts(&text, jstr(p, "description"));
    mn_buf_puts(&text, "\n\n## Task\n\n");
    mn_buf_puts(&text, a.task);
    mn_buf_puts(&text, "\n");
    if (a.shown.len)
        mn_buf_printf(&text, "\nFiles and symbols in scope: %s\n", a.shown.ptr);
    mn_buf_puts(&text, "\n");
    put_schema(&text, p, &a);
    put_bundle(&text, bundle);
    if (*jstr(p, "finish")) {
        mn_buf_puts(&text, "\n## When you are done\n\n");
        put_filled(&text, jstr(p, "finish"), &a);
        mn_buf_puts(&text, "\n");
    }
    json_t *msg_text = json_stringn(text.ptr, text.len);
    if (!msg_text) {
        rc = mn_error_set(MN_EINTERNAL, "prompts/get '%s': the text is not UTF-8", name);
        goto out;
    }
    *result =
        json_pack("{s:O,s:[{s:s,s:{s:s,s:o}}]}", "description", json_object_get(p, "description"),
                  "messages", "role", "user", "content", "type", "text", "text", msg_text);
    if (!*result)
        rc = mn_error_set(MN_EINTERNAL, "prompts/get '%s': cannot build the result", name);
    mn_log(MN_LOG_DEBUG, "prompt '%s': the %s one", name, origin);
out:
    args_release(&a);
    json_decref(p);
    json_decref(rargs);
    json_decref(bundle);
    mn_buf_release(&text);
    return rc;
}
