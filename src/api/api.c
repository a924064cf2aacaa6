/*
 * api.c - dispatch of the operation table, and the context operations run in.
 *
 * mn_api_call() validates the input against the op's schema, then runs the
 * handler; a handler therefore sees only well-typed JSON and checks what a
 * schema cannot say (that an id exists, that a link target is sound).
 * An op's schemas are parsed once per process, on its first use.
 */
#include "common.h"
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <unistd.h>

#include "api/access.h"
#include "api/api_internal.h"
#include "memory/scrub.h"
#include "util/schema.h"

/* Each op's schemas, parsed on its first use: a process answers one op or a
 * few (a hook, a CLI command), and parsing all of them was 5% of a hook. */
static pthread_mutex_t schemas_lock = PTHREAD_MUTEX_INITIALIZER;
static json_t **input_schemas, **output_schemas;

static size_t parse_schemas(const mn_op *op)
{
    size_t n;
    const mn_op *ops = mn_api_ops(&n);
    size_t i = (size_t)(op - ops);
    pthread_mutex_lock(&schemas_lock);
    if (!input_schemas) {
        input_schemas = mn_calloc(n, sizeof(json_t *));
        output_schemas = mn_calloc(n, sizeof(json_t *));
    }
    if (!input_schemas[i]) {
        json_error_t err;
        input_schemas[i] = json_loads(op->input_schema, 0, &err);
        if (!input_schemas[i]) {
            fprintf(stderr, "mnemo: bug: schema of '%s' does not parse: %s\n", op->name, err.text);
            abort();
        }
        output_schemas[i] = op->output_schema ? json_loads(op->output_schema, 0, &err) : NULL;
    }
    pthread_mutex_unlock(&schemas_lock);
    return i;
}

const mn_op *mn_api_find(const char *name)
{
    size_t n;
    const mn_op *ops = mn_api_ops(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return NULL;
}

bool mn_api_op_looks(const mn_op *op, const json_t *args)
{
    /* the ops that change what is stored only when an argument asks them to (their default
     * is a look), and stale, which notes what it checked and has nothing to check without a
     * store (key NULL) */
    static const struct {
        const char *op, *key, *reads; /* reads: the values that look; NULL: a flag that is off */
    } looks[] = {
        {"config", "action", "get list"},
        {"review", "action", "list"},
        {"scan", "fix", NULL},
        {"gc", "apply", NULL},
        {"consolidate", "apply", NULL},
        {"stale", NULL, NULL},
    };
    if (op->flags & MN_OP_READONLY)
        return true;
    for (size_t i = 0; i < MN_ARRAY_SIZE(looks); i++) {
        if (strcmp(op->name, looks[i].op) != 0)
            continue;
        if (!looks[i].key)
            return true;
        const json_t *v = json_object_get(args, looks[i].key);
        if (!looks[i].reads) /* a flag: absent or false looks */
            return !json_is_true(v);
        const char *s = json_string_value(v);
        if (!v)
            return true; /* the default action is the first, a look */
        size_t n = s ? strlen(s) : 0;
        for (const char *w = looks[i].reads; n && *w; w += strcspn(w, " "), w += *w == ' ')
            if (strncmp(w, s, n) == 0 && (w[n] == ' ' || !w[n]))
                return true;
        return false;
    }
    return false;
}

const json_t *mn_api_input_schema(const mn_op *op)
{
    size_t i = parse_schemas(op); /* before the array is read: it may be allocated by the call */
    return input_schemas[i];
}

const json_t *mn_api_output_schema(const mn_op *op)
{
    size_t i = parse_schemas(op);
    return output_schemas[i];
}

/*
 * The way out: every answer, whatever the front end (CLI, MCP tools,
 * resources and prompts, HTTP, hooks), is scrubbed of secrets (and personal
 * data, by config scan.pii) before it leaves, so that what was stored before
 * a rule existed, or slipped past one, is not served. An error message
 * (which may quote the input) is scrubbed too.
 */
static int scrub_answer(mn_ctx *ctx, json_t *out)
{
    const mn_scanner *sc;
    int rc = mn_api__scanner(ctx, &sc);
    if (rc == 0 && out)
        rc = mn_scrub_json(out, sc, ctx->redact_out, NULL);
    return rc;
}

static void scrub_error(mn_ctx *ctx)
{
    int code = mn_error_last_code();
    char *msg = mn_strdup(mn_error_last());
    size_t len = strlen(msg);
    const mn_scanner *sc = NULL;
    /* the scanner is loaded on first use: an operation refused at its first check (the
     * schema's, which quotes the input) may be the first call of a fresh context, a server
     * worker's; loading it may set an error of its own, so the message is set again below */
    if (len && mn_api__scanner(ctx, &sc) != 0 && mn_scanner_builtin(&sc) != 0)
        sc = NULL;
    mn_buf b = MN_BUF_INIT;
    if (!len || (sc && !mn_scan_any(sc, msg, len, MN_SCAN_ALL)))
        mn_error_set(code, "%s", msg);
    else if (sc && mn_scan_redact(&b, sc, msg, len, MN_SCAN_ALL, NULL) == 0)
        mn_error_set(code, "%s", b.ptr);
    else
        mn_error_set(code, "the message is withheld: it could not be checked for secrets");
    mn_buf_release(&b);
    free(msg);
}

/* The observer of every call (mn_api_observer_set): a server's metrics, or none. */
static _Atomic(mn_api_observer) observer;

void mn_api_observer_set(mn_api_observer fn)
{
    atomic_store(&observer, fn);
}

int mn_api_call(mn_ctx *ctx, const char *name, const json_t *args, json_t **out)
{
    const mn_op *op = mn_api_find(name);
    mn_api_observer obs = atomic_load_explicit(&observer, memory_order_relaxed);
    uint64_t start = obs ? mn_time_mono_ns() : 0;
    json_t *empty = NULL;
    int rc;
    *out = NULL;
    if (!op)
        return mn_error_set(MN_EINVAL, "unknown operation '%.60s'", name);
    /* who may run it (access.c), before the input is even read */
    if ((rc = mn_access_check(ctx, op)) != 0)
        return rc; /* the message names the op */
    if (!args)
        args = empty = json_object();
    rc = mn_schema_validate(mn_api_input_schema(op), args);
    if (rc == 0) {
        mn_error_clear();
        mn_api__config_changed(ctx); /* each op reads the settings as they are now */
        rc = op->handler(ctx, args, out);
    }
    if (rc == 0)
        rc = scrub_answer(ctx, *out);
    if (rc == 0) /* who read what: the reads that record no served answer themselves */
        mn_api__audit_answer(ctx, op->name, *out);
    if (rc) {
        json_decref(*out);
        *out = NULL;
        scrub_error(ctx);
        mn_error_prefix("%s", name);
    }
    if (obs)
        obs(op->name, rc, args, *out, mn_time_mono_ns() - start);
    json_decref(empty);
    return rc;
}

int mn_api__scanner(mn_ctx *ctx, const mn_scanner **out)
{
    if (!ctx->scanner_used) {
        int rc;
        if (ctx->root) {
            mn_buf path = MN_BUF_INIT;
            mn_buf_printf(&path, "%s/.mnemo-scan.yaml", ctx->root);
            rc = mn_scanner_new(&ctx->scanner, path.ptr);
            mn_buf_release(&path);
            ctx->scanner_used = ctx->scanner;
        } else {
            rc = mn_scanner_builtin(&ctx->scanner_used);
        }
        if (rc)
            return rc;
        char *pii = NULL;
        /* the way out keeps what a quarantine keeps, for the person who reviews it */
        ctx->redact_out = MN_SCAN_SECRET;
        if (mn_store_config_get(ctx->store, &pii, "scan.pii") == MN_ENOTFOUND || !pii ||
            strcmp(pii, "redact") == 0)
            ctx->redact_out |= MN_SCAN_PII;
        mn_error_clear();
        free(pii);
    }
    *out = ctx->scanner_used;
    return 0;
}

/* ---- locating and opening the store ---- */

int mn_api__as_of(const json_t *args, int64_t *now_ms)
{
    const char *s = json_string_value(json_object_get(args, "as_of"));
    *now_ms = 0;
    if (!s)
        return 0;
    /* the schema checked its shape; a relative time ("2h") is no moment */
    if (mn_time_parse(now_ms, s) != 0 || *now_ms <= 0)
        return mn_error_set(
            MN_EINVAL, "as_of: '%s' is not a date-time after 1970 like 2026-11-21T15:47:00Z", s);
    return 0;
}

static char *find_upward(const char *start, const char *entry, bool want_dir)
{
    char *dir = mn_fs_abspath(start);
    mn_buf probe = MN_BUF_INIT;
    for (;;) {
        mn_buf_clear(&probe);
        mn_buf_printf(&probe, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", entry);
        if (want_dir ? mn_fs_is_dir(probe.ptr) : mn_fs_exists(probe.ptr))
            break;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) {
            if (strcmp(dir, "/") == 0) {
                free(dir);
                dir = NULL;
                break;
            }
            dir[1] = '\0';
            continue;
        }
        *slash = '\0';
    }
    mn_buf_release(&probe);
    return dir;
}

/*
 * A store named by --db or MNEMO_DB: a path (made absolute), or a URL or
 * conninfo (store.h: mn_store_kind_of) taken as it is and never as a
 * path: mn_store_open picks its back end, or refuses it with one error.
 * A scheme no back end speaks (https://...) is refused here, redacted,
 * since it could only become a directory named "https:".
 */
static int named_store(mn_location *out, const char *db, const char *how)
{
    mn_store_kind kind = mn_store_kind_of(db);
    if (kind == MN_STORE_URL) {
        char *shown = mn_store_redact(db);
        mn_error_set(MN_EINVAL,
                     "%s '%s' is a URL mnemo cannot open: a store is a SQLite file (a path) or "
                     "a PostgreSQL database (postgres://... or a conninfo such as "
                     "'service=team'); name a file with such a name ./NAME",
                     how, shown);
        free(shown);
        return MN_EINVAL;
    }
    out->db_path = kind == MN_STORE_FILE ? mn_fs_abspath(db) : mn_strdup(db);
    out->how = how;
    return 0;
}

int mn_locate(mn_location *out, const char *explicit_path, const char *start_dir)
{
    memset(out, 0, sizeof(*out));
    const char *env = getenv("MNEMO_DB");
    const char *start = start_dir ? start_dir : ".";
    char *root;
    int rc;
    if (explicit_path || (env && *env)) {
        if ((rc = named_store(out, explicit_path ? explicit_path : env,
                              explicit_path ? "--db" : "MNEMO_DB")) != 0)
            return rc;
        out->root = find_upward(start, ".git", false);
        return 0;
    }
    /* the nearest .mnemo/ above, else the root of the enclosing git work tree */
    root = find_upward(start, ".mnemo", true);
    if (!root)
        root = find_upward(start, ".git", false);
    if (root) {
        mn_buf p = MN_BUF_INIT;
        mn_buf_printf(&p, "%s/.mnemo/mnemo.db", strcmp(root, "/") ? root : "");
        out->db_path = mn_buf_detach(&p);
        out->root = root;
        out->how = "repository";
        return 0;
    }
    mn_buf p = MN_BUF_INIT;
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/') {
        mn_buf_printf(&p, "%s/mnemo/mnemo.db", xdg);
    } else {
        struct passwd pw, *res = NULL;
        char buf[4096]; /* getpwuid_r: contexts open on several threads of a server */
        if ((!home || !*home) && getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) == 0 && res)
            home = res->pw_dir;
        if (!home || !*home)
            return mn_error_set(MN_ENOTFOUND,
                                "no repository here and no home directory: give --db PATH");
        mn_buf_printf(&p, "%s/.local/share/mnemo/mnemo.db", home);
    }
    out->db_path = mn_buf_detach(&p);
    out->how = "user default";
    return 0;
}

bool mn_location_is_file(const char *db_path)
{
    return mn_store_kind_of(db_path) == MN_STORE_FILE;
}

void mn_location_release(mn_location *loc)
{
    free(loc->db_path);
    free(loc->root);
    memset(loc, 0, sizeof(*loc));
}

/*
 * The first line of a small file git writes (".git" of a linked work tree
 * or submodule, a git dir's "commondir"), as a path: relative ones are
 * taken from `base`. NULL when the file is missing or not of that form.
 */
static char *git_pointer(const char *file, const char *prefix, const char *base)
{
    mn_buf text = MN_BUF_INIT, path = MN_BUF_INIT;
    char *out = NULL;
    size_t plen = strlen(prefix);
    if (mn_fs_read(&text, file, 4096) == 0 && text.len > plen &&
        strncmp(text.ptr, prefix, plen) == 0) {
        const char *p = text.ptr + plen, *end = text.ptr + text.len;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        end = nl ? nl : end;
        while (end > p && (end[-1] == '\r' || end[-1] == ' '))
            end--;
        if (end > p && !memchr(p, '\0', (size_t)(end - p))) {
            if (*p != '/')
                mn_buf_printf(&path, "%s/", base);
            mn_buf_put(&path, p, (size_t)(end - p));
            out = mn_fs_abspath(path.ptr);
        }
    }
    mn_error_clear();
    mn_buf_release(&text);
    mn_buf_release(&path);
    return out;
}

/*
 * The directory whose info/exclude git reads for the work tree at root:
 * root/.git itself, or, when .git is a file ("gitdir: ..." in a linked work
 * tree or a submodule), the git dir it names, and for a linked work tree
 * the common dir of all its work trees (git has no per-work-tree exclude).
 * NULL when root is no git work tree, or its .git names nothing usable.
 */
static char *git_exclude_dir(const char *root)
{
    mn_buf dot = MN_BUF_INIT;
    mn_buf_printf(&dot, "%s/.git", root);
    if (mn_fs_is_dir(dot.ptr))
        return mn_buf_detach(&dot);
    char *gitdir = git_pointer(dot.ptr, "gitdir: ", root);
    mn_buf_release(&dot);
    if (!gitdir || !mn_fs_is_dir(gitdir)) {
        free(gitdir);
        return NULL;
    }
    mn_buf common_file = MN_BUF_INIT;
    mn_buf_printf(&common_file, "%s/commondir", gitdir);
    char *common = git_pointer(common_file.ptr, "", gitdir);
    mn_buf_release(&common_file);
    if (common && mn_fs_is_dir(common)) {
        free(gitdir);
        return common;
    }
    free(common);
    return gitdir;
}

/*
 * Create the directory of a database (0700: the store is its user's alone);
 * inside a git work tree, keep it out of git.
 */
static int prepare_dir(const char *db_path, const char *root)
{
    char *dir = mn_strdup(db_path);
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash && slash != dir) {
        *slash = '\0';
        rc = mn_fs_mkdir_private(dir);
    }
    if (rc == 0 && root) {
        mn_buf mnemo_dir = MN_BUF_INIT;
        mn_buf_printf(&mnemo_dir, "%s/.mnemo", root);
        char *git_dir = strcmp(dir, mnemo_dir.ptr) == 0 ? git_exclude_dir(root) : NULL;
        if (git_dir) {
            /* `git init --template=` makes no info/, yet git reads info/exclude */
            mn_buf exclude = MN_BUF_INIT;
            mn_buf_printf(&exclude, "%s/info", git_dir);
            rc = mn_fs_mkdir_p(exclude.ptr);
            mn_buf_puts(&exclude, "/exclude");
            if (rc == 0)
                rc = mn_fs_append_line_once(exclude.ptr, "/.mnemo/");
            mn_buf_release(&exclude);
        }
        free(git_dir);
        mn_buf_release(&mnemo_dir);
    }
    free(dir);
    return rc;
}

int mn_init_at(char **out_db, const char *dir)
{
    char *root = mn_fs_abspath(dir);
    mn_buf db = MN_BUF_INIT;
    mn_store *s = NULL;
    mn_store_options opts = MN_STORE_OPTIONS_INIT;
    int rc;
    mn_buf_printf(&db, "%s/.mnemo/mnemo.db", strcmp(root, "/") ? root : "");
    if ((rc = prepare_dir(db.ptr, root)) == 0) {
        /* .mnemo/ made by an older mnemo (0755): private now */
        char *slash = strrchr(db.ptr, '/');
        *slash = '\0';
        mn_fs_make_private(db.ptr);
        *slash = '/';
        opts.root_path = root;
        opts.adopt = true; /* asked for explicitly: a SQLite file already there becomes the store */
        rc = mn_store_open(&s, db.ptr, &opts);
        mn_store_free(s);
    }
    free(root);
    if (rc == 0)
        *out_db = mn_buf_detach(&db);
    mn_buf_release(&db);
    return rc;
}

int mn_ctx_open(mn_ctx **out, const mn_ctx_options *opts)
{
    mn_ctx_options defaults = MN_CTX_OPTIONS_INIT;
    mn_location loc;
    mn_store_options so = MN_STORE_OPTIONS_INIT;
    int rc;
    *out = NULL;
    if (!opts)
        opts = &defaults;
    if (opts->version != MN_CTX_OPTIONS_VERSION)
        return mn_error_set(MN_EINVAL, "context options version %u is not supported",
                            opts->version);
    if ((rc = mn_locate(&loc, opts->db_path, opts->start_dir)) != 0)
        return rc;
    bool own_dir = strcmp(loc.how, "repository") == 0 || strcmp(loc.how, "user default") == 0;
    /* a database server's store (a URL, a conninfo) has no directory here to make or guard */
    bool file = mn_store_kind_of(loc.db_path) == MN_STORE_FILE;
    if (file && opts->create && !mn_fs_exists(loc.db_path) &&
        (rc = prepare_dir(loc.db_path, strcmp(loc.how, "repository") == 0 ? loc.root : NULL)))
        goto fail;
    if (own_dir) {
        /* .mnemo/ or ~/.local/share/mnemo/ made by an older mnemo (0755): private now */
        char *dir = mn_strdup(loc.db_path), *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = '\0';
            mn_fs_make_private(dir);
        }
        free(dir);
    }
    so.create = opts->create;
    /* a server's projects are not the directory it runs in (server.c: project_root) */
    so.root_path = opts->front_end == MN_FRONT_NETWORK ? NULL : loc.root;
    so.project = opts->project                                         ? opts->project
                 : getenv("MNEMO_PROJECT") && *getenv("MNEMO_PROJECT") ? getenv("MNEMO_PROJECT")
                                                                       : "default";
    mn_ctx *ctx = mn_calloc(1, sizeof(*ctx));
    if ((rc = mn_store_open(&ctx->store, loc.db_path, &so)) != 0) {
        if (!file)
            mn_error_prefix("%s", loc.how);
        free(ctx);
        goto fail;
    }
    ctx->db_path = loc.db_path;
    ctx->root = loc.root;
    ctx->how = loc.how;
    ctx->actor = mn_strdup(opts->actor ? opts->actor : "cli");
    ctx->project = mn_strdup(so.project);
    ctx->role =
        opts->role >= MN_ROLE_READER && opts->role <= MN_ROLE_ADMIN ? opts->role : MN_ROLE_READER;
    ctx->progress = opts->progress;
    ctx->local_cli = opts->front_end == MN_FRONT_LOCAL_CLI;
    ctx->network = opts->front_end == MN_FRONT_NETWORK;
    *out = ctx;
    return 0;
fail:
    mn_location_release(&loc);
    return rc;
}

void mn_ctx_free(mn_ctx *ctx)
{
    if (!ctx)
        return;
    mn_store_free(ctx->store);
    mn_scanner_free(ctx->scanner);
    json_decref(ctx->config_rows);
    free(ctx->db_path);
    free(ctx->root);
    free(ctx->actor);
    free(ctx->project);
    free(ctx->author);
    free(ctx);
}

const char *mn_ctx_db_path(const mn_ctx *ctx)
{
    return ctx->db_path;
}

const char *mn_ctx_db_shown(const mn_ctx *ctx)
{
    return mn_store_path(ctx->store);
}

const char *mn_ctx_root(const mn_ctx *ctx)
{
    return ctx->root;
}

const char *mn_ctx_project(const mn_ctx *ctx)
{
    return ctx->project;
}

int mn_ctx_set_principal(mn_ctx *ctx, const char *actor, mn_role role)
{
    if (!actor || !*actor)
        return mn_error_set(MN_EINVAL, "a principal needs an actor name");
    if (strcmp(ctx->actor, actor) != 0) {
        free(ctx->actor);
        ctx->actor = mn_strdup(actor);
        /* the memory settings (config.c) keep the actor for the save pipeline's audit rows */
        ctx->settings.actor = ctx->actor;
    }
    ctx->role = role >= MN_ROLE_READER && role <= MN_ROLE_ADMIN ? role : MN_ROLE_READER;
    mn_api__settings_author(ctx);
    return 0;
}

void mn_api__settings_author(mn_ctx *ctx)
{
    /* a token's saves are its holder's, not the server's user's (user.name, $USER) */
    ctx->settings.author = mn_api__token_name(ctx) ? mn_api__token_name(ctx) : ctx->author;
}

const char *mn_api__token_name(const mn_ctx *ctx)
{
    return ctx->actor && strncmp(ctx->actor, "token:", 6) == 0 && ctx->actor[6] ? ctx->actor + 6
                                                                                : NULL;
}
