/*
 * bench_swebench.c - code localization on SWE-bench instances
 * (../shared/eval/README.md; SWE-bench's own JSON Lines: instance_id,
 * repo, base_commit, problem_statement, patch): given the problem
 * statement, rank the files (and functions) to change, mnemo against a
 * plain BM25 over the same checkout, in the same run.
 *
 * Protocol, per instance:
 *  - the repository: a full-history clone (bare or not) under --repos DIR,
 *    found as DIR/<owner>+<name>/repo, DIR/<owner>+<name>, DIR/<name> or
 *    DIR/<owner>__<name>, whichever opens first (the owner and name matched
 *    without regard to case when no such path exists: datasets spell
 *    "fasterxml/..." what GitHub spells "FasterXML/..."); base_commit's
 *    tree read with libgit2 (the clone is never written to). A blob the
 *    clone lacks (a partial clone, a size-limited snapshot) leaves that file
 *    out of both systems' documents and of the checkout; the instance runs
 *    and the count is printed.
 *  - gold files: the a/ paths of the patch's "diff --git a/X b/X" headers.
 *    Gold functions: the innermost function or method (mnemo's index of
 *    the base checkout: kinds "function" and "method") whose line span
 *    holds a line the hunks remove or change, or holds both lines around an
 *    insertion (so a function appended after another is not counted, a
 *    line added inside a body is); a patch touching module-level code only
 *    has no gold function and the instance is left out of function Acc.
 *  - bm25: one FTS5 unicode61 document per file of base_commit's tree
 *    (columns path and content; blobs that git calls binary and files over
 *    1 MiB are left out, symlinks and submodules too), query = the first
 *    256 distinct tokens of problem_statement OR-ed (eval_bm25.c), top 10.
 *  - mnemo: git_checkout_tree of base_commit into a temporary directory
 *    (target_directory; the clone's index untouched), given the history
 *    a clone at base_commit has (a .git whose HEAD is base_commit and whose
 *    objects are the clone's, by alternates: give_history), a store in it
 *    (<tmp>/.mnemo, mn_init_at), op "index" (timed: the per-instance index
 *    time, discovery included as `index` runs it), then op "search"
 *    {query, kinds: ["file"], k: 10} (query = problem_statement, cut at a
 *    UTF-8 boundary to the search schema's query.maxLength when longer;
 *    counted) for files, and
 *    {query, kinds: ["code"], k: 50} for functions. The function ranking is
 *    the order of first appearance of the function each returned code item
 *    stands for: the innermost function or method whose span holds the
 *    item's start_line, or, when that line is in none (the doc comment or
 *    attributes a chunk opens with), the first one beginning inside the
 *    item (items with no function add nothing).
 * Metrics: file Acc@k (k = 1, 3, 5) = 1 when every gold file is in the top
 * k; function Acc@k (k = 5, 10) likewise over gold functions (mnemo only:
 * BM25 over files ranks no functions). Latency: the file search call
 * (mnemo), tokenizing + the FTS5 query (bm25). Tokens: bytes/4 of the
 * first 5 items (mnemo: title + snippet; bm25: the whole files).
 *
 * Tables: by language (the instance's `language`, else the language of its
 * first gold file's extension), then by repository; "all" is the mean over
 * every scored instance.
 *
 * An instance that cannot run (no repository, a base commit the clone
 * lacks, a patch without a "diff --git" header, a checkout or an index
 * that fails) is reported with its reason and left out of both systems'
 * figures; the run goes on, and the instances not scored are listed at the
 * end.
 *
 * Usage: bench_swebench [DEV_JSONL] --repos DIR [--limit N] [--sample N] [--k K]
 *                       [--only-baseline] [--verbose] [--json] [--strict] [--keep]
 *                       [--stores DIR [--min-free GB]] [--signals FILE]
 * --sample N takes N instances spread over the repositories: the
 * repositories in order of first appearance, the first instance of each,
 * then the second of each, and so on (deterministic, file order within a
 * repository). Without a path (nor $MNEMO_BENCH_SWEBENCH) it prints that
 * it skipped and exits 0. Exit status: 0; 1 with --strict when a target
 * fails; 2 on bad input or when no instance could be scored.
 */
#include "common.h"
#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <strings.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "eval/eval.h"
#include "util/map.h"
#include "util/util.h"

#define PROG         "bench_swebench"
#define FILE_K       10
#define CODE_K       50
#define MAX_K        200
#define TOKENS_K     5
#define QUERY_TOKENS 256
#define MAX_FILE     (1u << 20)
#define MAX_QUERY    8000

static const char usage[] =
    "usage: bench_swebench [DEV_JSONL] --repos DIR [options]\n"
    "       (e.g. ../shared/eval/swebench/dev.jsonl --repos /work/.mirror)\n"
    "  --repos DIR      full-history clones: DIR/<owner>+<name>/repo, DIR/<owner>+<name>,\n"
    "                   DIR/<name> or DIR/<owner>__<name>\n"
    "  --limit N        only the first N instances\n"
    "  --sample N       N instances spread over the repositories (round robin, file order)\n"
    "  --k K            code items asked of the function search (default 50)\n"
    "  --only-baseline  run the BM25 baseline only (no checkout, no index)\n"
    "  --bm25-files S   the baseline's documents: code (source files, default) or all\n"
    "  --verbose        print each instance's gold and top files (stderr)\n"
    "  --json           a JSON summary on stdout (the table goes to stderr)\n"
    "  --strict         exit 1 when a target of the issue is missed\n"
    "  --keep           keep the temporary checkouts and stores\n"
    "  --db URL         the stores in this PostgreSQL database (a project each; default:\n"
    "                   SQLite files)\n"
    "  --stores DIR     check out and index each instance once into DIR/<instance_id>;\n"
    "                   later runs with the same DIR only search (a faster loop when\n"
    "                   ranking changes; re-index after changing the indexer: new DIR)\n"
    "  --min-free GB    with --stores: keep new stores only while DIR's disk has GB free\n"
    "                   (default 5); below, each instance runs in a temporary directory\n"
    "  --signals FILE   write each instance's file ranking, 50 files with their signals, as\n"
    "                   JSON Lines (a second search: the figures use the first)\n"
    "$MNEMO_BENCH_SWEBENCH is the default path, $MNEMO_BENCH_REPOS the default DIR.\n";

static const char *const metrics[] = {"file_acc@1", "file_acc@3", "file_acc@5", "func_acc@5",
                                      "func_acc@10"};

/* ---- the gold patch ---- */

typedef MN_VEC(int64_t) i64_vec;

typedef struct {
    char *path;
    bool is_new;       /* --- /dev/null: not in the base tree */
    i64_vec removed;   /* old line numbers removed or changed */
    i64_vec ins_after; /* insertion between old line P and P + 1: P */
} gold_file;

typedef MN_VEC(gold_file) gold_vec;

static void gold_release(gold_vec *g)
{
    for (size_t i = 0; i < g->len; i++) {
        free(g->items[i].path);
        mn_vec_release(&g->items[i].removed);
        mn_vec_release(&g->items[i].ins_after);
    }
    mn_vec_release(g);
}

/* "@@ -a[,b] +c[,d] @@": 0 when it parses. */
static int hunk_header(const char *l, int64_t *old, int64_t *old_n, int64_t *new_n)
{
    char *end;
    if (strncmp(l, "@@ -", 4) != 0)
        return -1;
    *old = strtoll(l + 4, &end, 10);
    *old_n = 1;
    if (*end == ',')
        *old_n = strtoll(end + 1, &end, 10);
    if (strncmp(end, " +", 2) != 0)
        return -1;
    strtoll(end + 2, &end, 10);
    *new_n = 1;
    if (*end == ',')
        *new_n = strtoll(end + 1, &end, 10);
    return 0;
}

static void parse_patch(const char *patch, gold_vec *out)
{
    gold_file *cur = NULL;
    int64_t old = 0, old_left = 0, new_left = 0;
    const char *p = patch;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char *l = mn_strndup(p, len);
        p += len + (eol ? 1 : 0);
        if (old_left > 0 || new_left > 0) {
            if (l[0] == '\\') {
                /* "\ No newline at end of file" */
            } else if (l[0] == '-') {
                mn_vec_push(&cur->removed, old);
                old++;
                old_left--;
            } else if (l[0] == '+') {
                mn_vec_push(&cur->ins_after, old - 1);
                new_left--;
            } else { /* context (' ' or an empty line) */
                old++;
                old_left--;
                new_left--;
            }
        } else if (!strncmp(l, "diff --git a/", 13)) {
            char *b = strstr(l + 13, " b/");
            for (char *n; b && (n = strstr(b + 1, " b/")) != NULL;)
                b = n;
            gold_file g = {mn_strndup(l + 13, b ? (size_t)(b - (l + 13)) : strlen(l + 13)), false,
                           MN_VEC_INIT, MN_VEC_INIT};
            mn_vec_push(out, g);
            cur = &out->items[out->len - 1];
        } else if (cur && !strcmp(l, "--- /dev/null")) {
            cur->is_new = true;
        } else if (cur && hunk_header(l, &old, &old_left, &new_left) == 0) {
            /* counters set */
        }
        free(l);
    }
}

/* ---- symbols (functions and methods) of the indexed checkout ---- */

typedef struct {
    char *path, *name;
    int64_t start, end;
} sym;

typedef struct {
    MN_VEC(sym) v; /* sorted by path, then start */
    mn_map first;  /* path -> index of its first symbol + 1 */
} sym_table;

static int cmp_sym(const void *a, const void *b)
{
    const sym *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->start > y->start) - (x->start < y->start);
}

static void syms_release(sym_table *t)
{
    for (size_t i = 0; i < t->v.len; i++) {
        free(t->v.items[i].path);
        free(t->v.items[i].name);
    }
    mn_vec_release(&t->v);
    mn_map_release(&t->first);
}

static int syms_load(sym_table *t, ev_store *st)
{
    json_t *args = json_pack("{s:I}", "limit", (json_int_t)1000000), *res = NULL;
    int rc = ev_call(st, "symbols", args, &res);
    json_decref(args);
    if (rc)
        return rc;
    size_t i;
    json_t *y;
    json_array_foreach(json_object_get(res, "symbols"), i, y)
    {
        const char *kind = ev_str(y, "kind");
        if (strcmp(kind, "function") != 0 && strcmp(kind, "method") != 0)
            continue;
        sym s = {mn_strdup(ev_str(y, "path")),
                 mn_strdup(*ev_str(y, "qualified_name") ? ev_str(y, "qualified_name")
                                                        : ev_str(y, "name")),
                 json_integer_value(json_object_get(y, "start_line")),
                 json_integer_value(json_object_get(y, "end_line"))};
        mn_vec_push(&t->v, s);
    }
    json_decref(res);
    if (t->v.len)
        qsort(t->v.items, t->v.len, sizeof(sym), cmp_sym);
    for (size_t j = t->v.len; j-- > 0;)
        mn_map_set(&t->first, t->v.items[j].path, (void *)(uintptr_t)(j + 1));
    return 0;
}

/* The innermost function or method of path whose span holds lines [a, b]; -1 if none. */
static int64_t innermost(const sym_table *t, const char *path, int64_t a, int64_t b)
{
    uintptr_t f = (uintptr_t)mn_map_get(&t->first, path);
    int64_t best = -1;
    for (size_t i = f ? f - 1 : t->v.len; i < t->v.len && !strcmp(t->v.items[i].path, path); i++) {
        const sym *s = &t->v.items[i];
        if (s->start > a)
            break; /* sorted by start */
        if (s->end >= b &&
            (best < 0 || s->end - s->start < t->v.items[best].end - t->v.items[best].start))
            best = (int64_t)i;
    }
    return best;
}

/*
 * The function a returned code item stands for: the innermost function or
 * method holding its first line; when that line is in none (a chunk opens
 * with the doc comment, attributes or blank lines above its function, as
 * Go, Rust, Java and C chunks do: the symbol's span starts at its
 * declaration), the first function or method that begins inside the item.
 */
static int64_t item_function(const sym_table *t, const char *path, int64_t a, int64_t b)
{
    int64_t in = innermost(t, path, a, a);
    if (in >= 0)
        return in;
    uintptr_t f = (uintptr_t)mn_map_get(&t->first, path);
    for (size_t i = f ? f - 1 : t->v.len; i < t->v.len && !strcmp(t->v.items[i].path, path); i++) {
        const sym *s = &t->v.items[i];
        if (s->start > b)
            break; /* sorted by start */
        if (s->start > a)
            return (int64_t)i;
    }
    return -1;
}

static void push_distinct(i64_vec *v, int64_t x)
{
    if (x < 0)
        return;
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i] == x)
            return;
    mn_vec_push(v, x);
}

static void gold_functions(const gold_vec *g, const sym_table *t, i64_vec *out)
{
    for (size_t i = 0; i < g->len; i++) {
        const gold_file *f = &g->items[i];
        if (f->is_new)
            continue;
        for (size_t j = 0; j < f->removed.len; j++)
            push_distinct(out, innermost(t, f->path, f->removed.items[j], f->removed.items[j]));
        for (size_t j = 0; j < f->ins_after.len; j++)
            if (f->ins_after.items[j] >= 1)
                push_distinct(
                    out, innermost(t, f->path, f->ins_after.items[j], f->ins_after.items[j] + 1));
    }
}

/* ---- the base tree ---- */

typedef struct {
    git_repository *repo;
    ev_bm25 *bm;
    MN_VEC(char *) paths; /* id (the baseline's rowid) -> path: every blob of the tree */
    MN_VEC(size_t) sizes;
    MN_VEC(bool) missing; /* id -> the clone lacks its blob */
    mn_map ids;           /* path -> id + 1 */
    size_t docs, skipped, nmissing;
    bool all_files;
    int err;
} tree_docs;

/*
 * Source files by extension: the baseline's default document set, as
 * SWE-bench's own BM25 retrieval indexes the repository's Python files
 * (documentation and changelogs, which repeat an issue's words in prose,
 * are left out). --bm25-files all keeps every text file.
 */
static bool is_source(const char *path)
{
    static const char *const exts[] = {
        "py",  "pyi",   "js", "jsx", "mjs",  "cjs",  "ts",  "tsx", "go",  "rs",    "java",
        "kt",  "scala", "c",  "h",   "cc",   "cpp",  "cxx", "hpp", "hh",  "rb",    "php",
        "cs",  "swift", "m",  "mm",  "sh",   "bash", "lua", "pl",  "pm",  "ex",    "exs",
        "erl", "hs",    "ml", "clj", "dart", "jl",   "r",   "zig", "vue", "svelte"};
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
        return false;
    for (size_t i = 0; i < MN_ARRAY_SIZE(exts); i++)
        if (!strcasecmp(dot + 1, exts[i]))
            return true;
    return false;
}

/* The language a path's extension says, for instances that do not name theirs. */
static const char *language_of_path(const char *path)
{
    static const struct {
        const char *ext, *lang;
    } map[] = {{"py", "python"}, {"pyi", "python"}, {"js", "js"},  {"jsx", "js"},  {"mjs", "js"},
               {"cjs", "js"},    {"ts", "ts"},      {"tsx", "ts"}, {"go", "go"},   {"rs", "rust"},
               {"java", "java"}, {"c", "c"},        {"h", "c"},    {"cc", "cpp"},  {"cpp", "cpp"},
               {"cxx", "cpp"},   {"hpp", "cpp"},    {"hh", "cpp"}, {"rb", "ruby"}, {"php", "php"},
               {"cs", "csharp"}, {"kt", "kotlin"}};
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return "other";
    for (size_t i = 0; i < MN_ARRAY_SIZE(map); i++)
        if (!strcasecmp(dot + 1, map[i].ext))
            return map[i].lang;
    return "other";
}

static int on_entry(const char *root, const git_tree_entry *e, void *payload)
{
    tree_docs *d = payload;
    git_filemode_t mode = git_tree_entry_filemode(e);
    if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
        return 0;
    /* every file gets an id (mnemo may return any); the baseline indexes the eligible ones */
    mn_buf path = MN_BUF_INIT;
    mn_buf_printf(&path, "%s%s", root, git_tree_entry_name(e));
    int64_t id = (int64_t)d->paths.len;
    mn_map_set(&d->ids, path.ptr, (void *)(uintptr_t)(id + 1));
    mn_vec_push(&d->paths, mn_strdup(path.ptr));
    git_blob *blob = NULL;
    if (git_blob_lookup(&blob, d->repo, git_tree_entry_id(e)) != 0) {
        /* a partial clone or a size-limited snapshot: the file is left out of the checkout */
        mn_vec_push(&d->sizes, 0);
        mn_vec_push(&d->missing, true);
        d->nmissing++;
        d->skipped++;
        mn_buf_release(&path);
        return 0;
    }
    git_object_size_t size = git_blob_rawsize(blob);
    mn_vec_push(&d->sizes, (size_t)size);
    mn_vec_push(&d->missing, false);
    if ((!d->all_files && !is_source(path.ptr)) || size > MAX_FILE || git_blob_is_binary(blob)) {
        d->skipped++;
    } else {
        mn_buf content = MN_BUF_INIT;
        mn_buf_put(&content, git_blob_rawcontent(blob), (size_t)size);
        const char *cols[] = {path.ptr, content.ptr};
        if (ev_bm25_add(d->bm, id, cols) != 0)
            d->err = -1;
        mn_buf_release(&content);
        d->docs++;
    }
    mn_buf_release(&path);
    git_blob_free(blob);
    return d->err;
}

static void tree_docs_release(tree_docs *d)
{
    ev_bm25_close(d->bm);
    for (size_t i = 0; i < d->paths.len; i++)
        free(d->paths.items[i]);
    mn_vec_release(&d->paths);
    mn_vec_release(&d->sizes);
    mn_vec_release(&d->missing);
    mn_map_release(&d->ids);
}

/* ---- the run ---- */

typedef struct {
    char *name; /* owner/name */
    git_repository *repo;
} repo_entry;

typedef struct {
    ev_options o;
    FILE *signals;     /* --signals FILE */
    ev_report r;       /* by language */
    ev_report by_repo; /* the same values by repository */
    FILE *out;
    MN_VEC(repo_entry) repos;
    size_t instances, cut_queries, no_gold_fn, new_gold_files;
    size_t missing_blobs, missing_instances;
    size_t not_python; /* scored instances in another language: issue 22's targets differ */
    /* instances whose every gold file is in the base tree and that have at most 1, 3, 5 of
     * them: the only ones file Acc@1, @3, @5 can count (a file the tree lacks is no answer) */
    size_t reachable[3];
    size_t not_kept; /* --stores: instances run in a temporary directory, the disk nearly full */
    ev_samples index_s, checkout_s, bm25_build_s, bm25_docs, files_indexed, code_ms;
} run;

static bool open_at(git_repository **repo, const char *path)
{
    if (*repo || !mn_fs_is_dir(path))
        return *repo != NULL;
    if (git_repository_open_ext(repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0)
        *repo = NULL;
    return *repo != NULL;
}

/* DIR's entry named like want without regard to case (malloc'd), or NULL. */
static char *entry_nocase(const char *dir, const char *want)
{
    DIR *dh = opendir(dir);
    struct dirent *de;
    char *found = NULL;
    while (dh && !found && (de = readdir(dh)) != NULL)
        if (!strcasecmp(de->d_name, want))
            found = mn_strdup(de->d_name);
    if (dh)
        closedir(dh);
    return found;
}

static git_repository *open_repo(run *R, const char *name)
{
    for (size_t i = 0; i < R->repos.len; i++)
        if (!strcmp(R->repos.items[i].name, name))
            return R->repos.items[i].repo;
    git_repository *repo = NULL;
    const char *slash = strchr(name, '/');
    if (slash && R->o.repos) {
        int owner_len = (int)(slash - name);
        const char *base = slash + 1;
        mn_buf c[4] = {MN_BUF_INIT, MN_BUF_INIT, MN_BUF_INIT, MN_BUF_INIT};
        mn_buf_printf(&c[0], "%.*s+%s", owner_len, name, base);
        mn_buf_printf(&c[1], "%s", base);
        mn_buf_printf(&c[2], "%.*s__%s", owner_len, name, base);
        for (size_t i = 0; i < 3 && !repo; i++) {
            /* as spelled, then DIR's entry of that name in another case */
            char *spell[2] = {mn_strdup(c[i].ptr), entry_nocase(R->o.repos, c[i].ptr)};
            for (size_t j = 0; j < 2 && !repo && spell[j]; j++) {
                mn_buf_clear(&c[3]);
                mn_buf_printf(&c[3], "%s/%s/repo", R->o.repos, spell[j]);
                if (i == 0 && open_at(&repo, c[3].ptr))
                    break;
                mn_buf_clear(&c[3]);
                mn_buf_printf(&c[3], "%s/%s", R->o.repos, spell[j]);
                open_at(&repo, c[3].ptr);
            }
            free(spell[0]);
            free(spell[1]);
        }
        for (size_t i = 0; i < MN_ARRAY_SIZE(c); i++)
            mn_buf_release(&c[i]);
    }
    repo_entry e = {mn_strdup(name), repo};
    mn_vec_push(&R->repos, e);
    return repo;
}

static const char *short_name(const char *repo)
{
    const char *s = strrchr(repo, '/');
    return s ? s + 1 : repo;
}

static void print_files(const char *sys, const int64_t *rank, size_t n, const tree_docs *d)
{
    fprintf(stderr, "    %s:", sys);
    for (size_t i = 0; i < n && i < 5; i++)
        fprintf(stderr, " %s",
                rank[i] >= 0 && (size_t)rank[i] < d->paths.len ? d->paths.items[rank[i]] : "?");
    fputc('\n', stderr);
}

/* One value into both tables: by language and by repository. */
static void add_value(run *R, const char *lang, const char *repo, const char *metric, int sys,
                      double v)
{
    ev_report_add(&R->r, lang, metric, sys, v);
    ev_report_add(&R->by_repo, repo, metric, sys, v);
}

static void add_file_acc(run *R, const char *lang, const char *repo, int sys, const int64_t *rank,
                         size_t n, const int64_t *gold, size_t ngold)
{
    static const size_t ks[] = {1, 3, 5};
    for (size_t i = 0; i < MN_ARRAY_SIZE(ks); i++) {
        char name[32];
        snprintf(name, sizeof(name), "file_acc@%zu", ks[i]);
        add_value(R, lang, repo, name, sys, ev_hits(rank, n, ks[i], gold, ngold) == ngold);
    }
}

/*
 * The checkout's history, as a clone at base_commit has it: a repository in
 * the checkout whose HEAD is base_commit (detached) and whose objects are
 * the clone's (objects/info/alternates: nothing copied). The index reads
 * the commits reachable from base_commit, the fix's own among none of them.
 */
static int give_history(git_repository *repo, const git_commit *commit, const char *dir)
{
    git_repository *r = NULL;
    mn_buf p = MN_BUF_INIT, v = MN_BUF_INIT;
    int rc = -1;
    if (git_repository_init(&r, dir, 0) != 0)
        goto out;
    mn_buf_printf(&p, "%sobjects/info", git_repository_path(r));
    if (mn_fs_mkdir_p(p.ptr) != 0)
        goto out;
    mn_buf_puts(&p, "/alternates");
    mn_buf_printf(&v, "%sobjects\n", git_repository_path(repo));
    if (mn_fs_write_atomic(p.ptr, v.ptr, v.len) != 0)
        goto out;
    mn_buf_clear(&p);
    mn_buf_clear(&v);
    mn_buf_printf(&p, "%sHEAD", git_repository_path(r));
    mn_buf_printf(&v, "%s\n", git_oid_tostr_s(git_commit_id(commit)));
    rc = mn_fs_write_atomic(p.ptr, v.ptr, v.len);
out:
    git_repository_free(r);
    mn_buf_release(&p);
    mn_buf_release(&v);
    return rc;
}

/*
 * base_commit's tree into dir. When the clone lacks some blobs, only the
 * files it has are checked out (an explicit path list, no pathspec
 * matching): libgit2 fails the whole checkout on one missing object.
 */
static int checkout(git_repository *repo, git_commit *commit, const tree_docs *d, const char *dir)
{
    git_checkout_options co;
    git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
    co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
    co.target_directory = dir;
    MN_VEC(char *) have = MN_VEC_INIT;
    if (d->nmissing) {
        for (size_t i = 0; i < d->paths.len; i++)
            if (!d->missing.items[i])
                mn_vec_push(&have, d->paths.items[i]);
        co.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
        co.paths.strings = have.items;
        co.paths.count = have.len;
    }
    int rc = 0;
    if (!d->nmissing || have.len)
        rc = git_checkout_tree(repo, (const git_object *)commit, &co);
    mn_vec_release(&have);
    return rc;
}

typedef struct {
    int64_t rank[MAX_K]; /* files, as tree ids */
    size_t nrank;
    bool have_fn;   /* the instance has gold functions */
    bool fn_hit[2]; /* every gold function in the top 5, 10 */
} mnemo_result;

#define MIN_FREE_GB 5 /* --min-free's default: a set's stores take 2-3 GB per 80 checkouts */

/*
 * Whether --stores DIR's disk has room for another kept store. A set's
 * stores filled the shared disk once and stopped every job on the machine;
 * below the floor the instance runs in a temporary directory, removed after
 * it, so the run finishes with its figures. True when the space cannot be
 * told.
 */
static bool stores_have_room(run *R)
{
    struct statvfs fs;
    if (statvfs(R->o.stores, &fs) != 0)
        return true;
    double free_gb = (double)fs.f_bavail * (double)fs.f_frsize / (1024.0 * 1024 * 1024);
    double floor_gb = (double)(R->o.min_free_gb ? R->o.min_free_gb : MIN_FREE_GB);
    if (free_gb >= floor_gb)
        return true;
    if (R->not_kept++ == 0)
        fprintf(stderr,
                PROG ": %.1f GB free under %s, under --min-free %.0f: new stores are not kept "
                     "(each instance runs in a temporary directory)\n",
                free_gb, R->o.stores, floor_gb);
    return false;
}

/*
 * --signals: the file ranking of one instance, 50 files with every signal
 * of each (op_search.c), and its gold files, as one JSON line. A search of
 * its own, so that the figures stay those of the k the bench scores; a
 * ranking to read or to fuse again outside (docs/internals/retrieval.md).
 */
static void write_signals(run *R, ev_store *st, const char *iid, const char *query,
                          const gold_vec *gold)
{
    json_t *args = json_pack("{s:s,s:[s],s:i}", "query", query, "kinds", "file", "k", 50),
           *res = NULL;
    double ms;
    if (ev_search(st, args, &res, &ms) != 0) {
        fprintf(stderr, PROG ": %s: --signals: %s\n", iid, mn_error_last());
        mn_error_clear();
        json_decref(args);
        return;
    }
    json_t *g = json_array(), *items = json_array();
    for (size_t i = 0; i < gold->len; i++)
        json_array_append_new(g, json_string(gold->items[i].path));
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(res, "items"), i, it)
    {
        json_array_append_new(items,
                              json_pack("{s:s,s:O,s:O}", "path",
                                        *ev_str(it, "path") ? ev_str(it, "path") : ev_str(it, "id"),
                                        "score", json_object_get(it, "score"), "signals",
                                        json_object_get(it, "signals")));
    }
    json_t *line = json_pack("{s:s,s:o,s:o}", "instance_id", iid, "gold", g, "files", items);
    char *text = json_dumps(line, JSON_COMPACT);
    if (text) {
        fprintf(R->signals, "%s\n", text);
        free(text);
    }
    json_decref(line);
    json_decref(res);
    json_decref(args);
}

/* mnemo on one instance: checkout, index, search files and code. */
static int run_mnemo(run *R, const json_t *inst, git_repository *repo, git_commit *commit,
                     const tree_docs *d, const gold_vec *gold, mnemo_result *mr)
{
    const char *iid = ev_str(inst, "instance_id");
    const char *ps = ev_str(inst, "problem_statement");
    char *dir = NULL, *marker = NULL;
    bool reuse = false, kept = R->o.stores != NULL; /* kept: the store stays in --stores DIR */
    ev_store st = {0};
    sym_table syms = {MN_VEC_INIT, MN_MAP_INIT};
    i64_vec gold_fn = MN_VEC_INIT, fn_rank = MN_VEC_INIT;
    json_t *args = NULL, *res = NULL;
    char *query = NULL;
    bool have_store = false;
    int rc = 2;
    if (R->o.stores) {
        /* DIR/<instance_id>: checked out and indexed once; the marker says the index finished */
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%s/%s", R->o.stores, iid);
        dir = mn_buf_detach(&b);
        mn_buf_printf(&b, "%s/.mnemo/bench-indexed", dir);
        marker = mn_buf_detach(&b);
        reuse = mn_fs_exists(marker);
        if (!reuse && mn_fs_mkdir_p(R->o.stores) == 0 && !stores_have_room(R)) {
            kept = false;
            free(dir);
            free(marker);
            dir = marker = NULL;
        } else if (!reuse && mn_fs_mkdir_p(dir) != 0) {
            ev_report_unscored(&R->r, iid, "%s: %s", dir, mn_error_last());
            free(dir);
            free(marker);
            return 2;
        }
    }
    if (!kept && (dir = ev_mkdtemp("mnemo-swe")) == NULL) {
        ev_report_unscored(&R->r, iid, "cannot make a temporary directory");
        return 2;
    }
    if (reuse) {
        have_store = true;
        if (ev_store_open_named(&st, dir, iid) != 0) {
            ev_report_unscored(&R->r, iid, "cannot open the store in %s", dir);
            goto out;
        }
        goto indexed;
    }

    uint64_t t0 = ev_now_ns();
    if (checkout(repo, commit, d, dir) != 0) {
        ev_report_unscored(&R->r, iid, "checkout: %s",
                           git_error_last() ? git_error_last()->message : "?");
        goto out;
    }
    if (give_history(repo, commit, dir) != 0) {
        ev_report_unscored(&R->r, iid, "cannot give the checkout its history");
        goto out;
    }
    mn_vec_push(&R->checkout_s, ev_ms_since(t0) / 1000);

    have_store = true;
    if (ev_store_open_named(&st, dir, kept ? iid : NULL) != 0) {
        ev_report_unscored(&R->r, iid, "cannot make a store in %s", dir);
        goto out;
    }
    args = json_pack("{s:s}", "path", dir);
    t0 = ev_now_ns();
    if (ev_call(&st, "index", args, &res) != 0) {
        ev_report_unscored(&R->r, iid, "index: %s", mn_error_last());
        goto out;
    }
    mn_vec_push(&R->index_s, ev_ms_since(t0) / 1000);
    mn_vec_push(&R->files_indexed, (double)json_integer_value(json_object_get(res, "files")));
    json_decref(args);
    json_decref(res);
    args = res = NULL;
    if (marker) { /* DIR/.mnemo exists only when the store is a SQLite file there (not --db) */
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%s/.mnemo", dir);
        int e = mn_fs_mkdir_p(b.ptr);
        mn_buf_release(&b);
        if (e != 0) {
            ev_report_unscored(&R->r, iid, "%s: %s", dir, mn_error_last());
            goto out;
        }
    }
    if (marker && mn_fs_write_atomic(marker, "", 0) != 0) {
        ev_report_unscored(&R->r, iid, "%s: %s", marker, mn_error_last());
        goto out;
    }

indexed:
    /* gold functions, from the index of the base checkout */
    if (syms_load(&syms, &st) != 0) {
        ev_report_unscored(&R->r, iid, "symbols: %s", mn_error_last());
        goto out;
    }
    gold_functions(gold, &syms, &gold_fn);
    if (gold_fn.len == 0)
        R->no_gold_fn++;
    if (R->o.verbose) {
        fprintf(stderr, "    gold functions:");
        for (size_t i = 0; i < gold_fn.len; i++)
            fprintf(stderr, " %s:%s", syms.v.items[gold_fn.items[i]].path,
                    syms.v.items[gold_fn.items[i]].name);
        fputc('\n', stderr);
    }
    if (!R->r.available[EV_MNEMO]) {
        rc = 0;
        goto out;
    }

    /* files */
    size_t len = strlen(ps), max = ev_search_query_max(MAX_QUERY);
    if (len > max) { /* bytes >= characters: a byte cap is a character cap */
        R->cut_queries++;
        len = mn_utf8_floor(ps, len, max);
    }
    query = mn_strndup(ps, len);
    args = json_pack("{s:s,s:[s],s:I}", "query", query, "kinds", "file", "k", (json_int_t)FILE_K);
    size_t bytes = 0;
    double ms;
    if (ev_search(&st, args, &res, &ms) == 0) {
        mn_vec_push(&R->r.latency[EV_MNEMO], ms);
        const json_t *items = json_object_get(res, "items");
        size_t i;
        json_t *it;
        json_array_foreach(items, i, it)
        {
            const char *path = *ev_str(it, "path") ? ev_str(it, "path") : ev_str(it, "id");
            uintptr_t v = (uintptr_t)mn_map_get(&d->ids, path);
            if (mr->nrank < MAX_K)
                mr->rank[mr->nrank++] = v ? (int64_t)(v - 1) : -1;
            if (i < TOKENS_K)
                bytes += ev_item_bytes(it);
        }
        mr->nrank = ev_rank_dedup(mr->rank, mr->nrank);
        mn_vec_push(&R->r.tokens[EV_MNEMO], (double)ev_tokens(bytes));
    } else {
        R->r.errors++;
    }
    if (R->o.verbose)
        print_files("mnemo", mr->rank, mr->nrank, d);
    json_decref(args);
    json_decref(res);
    args = res = NULL;
    if (R->signals)
        write_signals(R, &st, iid, query, gold);

    /* functions */
    if (gold_fn.len) {
        size_t K = R->o.k ? R->o.k : CODE_K;
        args = json_pack("{s:s,s:[s],s:I}", "query", query, "kinds", "code", "k",
                         (json_int_t)(K > MAX_K ? MAX_K : K));
        if (ev_search(&st, args, &res, &ms) == 0) {
            mn_vec_push(&R->code_ms, ms);
            size_t i;
            json_t *it;
            json_array_foreach(json_object_get(res, "items"), i, it)
            {
                json_t *sl = json_object_get(it, "start_line"),
                       *el = json_object_get(it, "end_line");
                if (!*ev_str(it, "path") || !json_is_integer(sl))
                    continue;
                int64_t a = json_integer_value(sl);
                int64_t b = json_is_integer(el) ? json_integer_value(el) : a;
                push_distinct(&fn_rank, item_function(&syms, ev_str(it, "path"), a, b));
            }
        } else {
            R->r.errors++;
        }
        mr->have_fn = true;
        mr->fn_hit[0] =
            ev_hits(fn_rank.items, fn_rank.len, 5, gold_fn.items, gold_fn.len) == gold_fn.len;
        mr->fn_hit[1] =
            ev_hits(fn_rank.items, fn_rank.len, 10, gold_fn.items, gold_fn.len) == gold_fn.len;
        if (R->o.verbose) {
            fprintf(stderr, "    mnemo functions:");
            for (size_t i = 0; i < fn_rank.len && i < 10; i++)
                fprintf(stderr, " %s", syms.v.items[fn_rank.items[i]].name);
            fputc('\n', stderr);
        }
    }
    rc = 0;
out:
    if (rc == 0 && R->o.keep)
        fprintf(stderr, PROG ": %s: checkout and store kept at %s\n", iid, dir);
    if (have_store)
        ev_store_close(&st, false);
    if (!R->o.keep && !kept)
        ev_rm_rf(dir);
    free(dir);
    free(marker);
    free(query);
    json_decref(args);
    json_decref(res);
    syms_release(&syms);
    mn_vec_release(&gold_fn);
    mn_vec_release(&fn_rank);
    return rc;
}

/* One instance; 0 when scored, 1 when not (reported, the run goes on), 2 on bad input. */
static int run_instance(run *R, const json_t *inst, size_t index)
{
    const char *iid = ev_str(inst, "instance_id"), *repo_name = ev_str(inst, "repo");
    const char *base = ev_str(inst, "base_commit"), *ps = ev_str(inst, "problem_statement");
    const char *patch = ev_str(inst, "patch");
    gold_vec gold = MN_VEC_INIT;
    tree_docs d = {0};
    git_commit *commit = NULL;
    git_tree *tree = NULL;
    int64_t *gold_ids = NULL, rank[FILE_K];
    size_t nrank = 0;
    mnemo_result *mr = mn_calloc(1, sizeof(*mr));
    int rc = 1;

    if (!*iid || !*repo_name || !*base || !*ps || !*patch) {
        char label[32];
        snprintf(label, sizeof(label), "instance %zu", index);
        ev_report_unscored(&R->r, *iid ? iid : label,
                           "needs instance_id, repo, base_commit, problem_statement and patch");
        goto out;
    }
    git_repository *repo = open_repo(R, repo_name);
    if (!repo) {
        ev_report_unscored(&R->r, iid, "no clone of %s under %s", repo_name, R->o.repos);
        goto out;
    }
    git_oid oid;
    if (git_oid_fromstr(&oid, base) != 0 || git_commit_lookup(&commit, repo, &oid) != 0 ||
        git_commit_tree(&tree, commit) != 0) {
        ev_report_unscored(&R->r, iid, "base_commit %s not found in %s's clone", base, repo_name);
        goto out;
    }
    parse_patch(patch, &gold);
    if (gold.len == 0) {
        ev_report_unscored(&R->r, iid, "no 'diff --git' header in the patch");
        goto out;
    }
    const char *group = short_name(repo_name);
    const char *lang =
        *ev_str(inst, "language") ? ev_str(inst, "language") : language_of_path(gold.items[0].path);
    if (R->o.verbose) {
        fprintf(stderr, "%s gold:", iid);
        for (size_t i = 0; i < gold.len; i++)
            fprintf(stderr, " %s", gold.items[i].path);
        fputc('\n', stderr);
    }

    /* bm25 over the base tree */
    uint64_t t0 = ev_now_ns();
    d.repo = repo;
    d.all_files = R->o.all_files;
    if (ev_bm25_open(&d.bm, 2) != 0) {
        ev_report_unscored(&R->r, iid, "cannot open the baseline's table");
        goto out;
    }
    if (git_tree_walk(tree, GIT_TREEWALK_PRE, on_entry, &d) != 0 || d.err) {
        ev_report_unscored(&R->r, iid, "cannot read the tree of %s: %s", base,
                           git_error_last() ? git_error_last()->message : "?");
        goto out;
    }
    if (d.nmissing) {
        fprintf(stderr, PROG ": %s: %zu files of the tree are not in the clone (left out)\n", iid,
                d.nmissing);
        R->missing_blobs += d.nmissing;
        R->missing_instances++;
    }
    mn_vec_push(&R->bm25_build_s, ev_ms_since(t0) / 1000);
    mn_vec_push(&R->bm25_docs, (double)d.docs);
    gold_ids = mn_calloc(gold.len, sizeof(*gold_ids));
    size_t new_gold = 0;
    for (size_t i = 0; i < gold.len; i++) {
        uintptr_t v = (uintptr_t)mn_map_get(&d.ids, gold.items[i].path);
        /* a gold file the tree lacks (new in the patch) gets an id no ranking holds */
        gold_ids[i] = v ? (int64_t)(v - 1) : (int64_t)(d.paths.len + i);
        new_gold += !v;
    }
    t0 = ev_now_ns();
    if (ev_bm25_search(d.bm, ps, QUERY_TOKENS, FILE_K, rank, &nrank) != 0) {
        ev_report_unscored(&R->r, iid, "the baseline's search failed");
        goto out;
    }
    double bm_ms = ev_ms_since(t0);
    if (R->o.verbose)
        print_files("bm25", rank, nrank, &d);

    if (!R->o.only_baseline && run_mnemo(R, inst, repo, commit, &d, &gold, mr) != 0)
        goto out; /* reported by run_mnemo */

    /* scored: both systems' values go in together */
    ev_report_question(&R->r, lang);
    R->not_python += strcasecmp(lang, "python") != 0;
    ev_report_question(&R->by_repo, group);
    mn_vec_push(&R->r.latency[EV_BM25], bm_ms);
    size_t bytes = 0;
    for (size_t i = 0; i < nrank && i < TOKENS_K; i++)
        bytes += d.sizes.items[rank[i]] + strlen(d.paths.items[rank[i]]);
    mn_vec_push(&R->r.tokens[EV_BM25], (double)ev_tokens(bytes));
    add_file_acc(R, lang, group, EV_BM25, rank, nrank, gold_ids, gold.len);
    if (!R->o.only_baseline && R->r.available[EV_MNEMO]) {
        add_file_acc(R, lang, group, EV_MNEMO, mr->rank, mr->nrank, gold_ids, gold.len);
        if (mr->have_fn) {
            add_value(R, lang, group, "func_acc@5", EV_MNEMO, mr->fn_hit[0]);
            add_value(R, lang, group, "func_acc@10", EV_MNEMO, mr->fn_hit[1]);
        }
    }
    R->new_gold_files += new_gold;
    for (size_t i = 0; i < 3 && !new_gold; i++)
        R->reachable[i] += gold.len <= (size_t)(2 * i + 1);
    R->instances++;
    rc = 0;
out:
    tree_docs_release(&d);
    git_tree_free(tree);
    git_commit_free(commit);
    gold_release(&gold);
    free(gold_ids);
    free(mr);
    return rc;
}

static void add_seconds_line(run *R, const char *what, const ev_samples *s)
{
    if (s->len)
        ev_report_line(&R->r, "%s: p50 %.2f s, p95 %.2f s, max %.2f s, %.1f s in all (n=%zu)", what,
                       ev_percentile(s, 0.5), ev_percentile(s, 0.95), ev_percentile(s, 1.0),
                       ev_sum(s), s->len);
}

/*
 * The instances to run, as indexes into data: all (or the first --limit),
 * or --sample N spread over the repositories: repositories in order of
 * first appearance, round after round the next instance of each.
 */
static size_t pick_instances(const ev_options *o, const json_t *data, size_t **out)
{
    size_t n = json_array_size(data), m = 0;
    size_t *pick = mn_calloc(n ? n : 1, sizeof(*pick));
    if (!o->sample) {
        m = o->limit && o->limit < n ? o->limit : n;
        for (size_t i = 0; i < m; i++)
            pick[i] = i;
        *out = pick;
        return m;
    }
    bool *taken = mn_calloc(n ? n : 1, sizeof(*taken));
    size_t want = o->sample < n ? o->sample : n;
    while (m < want) {
        mn_map round = MN_MAP_INIT; /* repositories served this round */
        for (size_t i = 0; i < n && m < want; i++) {
            const char *repo = ev_str(json_array_get(data, i), "repo");
            if (taken[i] || mn_map_has(&round, repo))
                continue;
            mn_map_set(&round, repo, NULL);
            taken[i] = true;
            pick[m++] = i;
        }
        mn_map_release(&round);
    }
    free(taken);
    *out = pick;
    return m;
}

int main(int argc, char **argv)
{
    run R;
    memset(&R, 0, sizeof(R));
    /* --signals is this bench's own: taken out before the common options are parsed */
    const char *signals = NULL;
    if (ev_take_option(&argc, argv, "--signals", &signals, PROG, usage) != 0)
        return 2;
    int rc = ev_parse_args(&R.o, argc, argv, PROG, usage, "MNEMO_BENCH_SWEBENCH");
    if (rc)
        return rc == 1 ? 0 : 2;
    if (!R.o.repos)
        R.o.repos = getenv("MNEMO_BENCH_REPOS");
    if (!R.o.repos || !mn_fs_is_dir(R.o.repos)) {
        fprintf(stderr, PROG ": --repos DIR (a directory of full-history clones) is needed\n%s",
                usage);
        return 2;
    }
    R.out = R.o.json ? stderr : stdout;
    json_t *data = ev_load_jsonl(R.o.input);
    if (!data)
        return 2;
    if (json_array_size(data) == 0) {
        fprintf(stderr, PROG ": %s: no instance\n", R.o.input);
        json_decref(data);
        return 2;
    }
    if (signals && !(R.signals = fopen(signals, "w"))) {
        fprintf(stderr, PROG ": %s: %s\n", signals, strerror(errno));
        json_decref(data);
        return 2;
    }
    git_libgit2_init();
    ev_report_init(&R.r, "swebench", R.o.input, metrics, MN_ARRAY_SIZE(metrics));
    ev_report_init(&R.by_repo, "swebench", R.o.input, metrics, MN_ARRAY_SIZE(metrics));
    R.r.tokens_k = TOKENS_K;
    R.r.available[EV_BM25] = R.by_repo.available[EV_BM25] = true;
    R.r.available[EV_MNEMO] = !R.o.only_baseline && ev_search_available();
    R.by_repo.available[EV_MNEMO] = R.r.available[EV_MNEMO];
    if (!R.o.only_baseline && !R.r.available[EV_MNEMO])
        fprintf(R.out, "search: not available (this mnemo has no 'search' operation); "
                       "running the baseline, checkout and index only\n");

    uint64_t t0 = ev_now_ns();
    size_t *pick = NULL, n = pick_instances(&R.o, data, &pick);
    for (size_t j = 0; j < n; j++) {
        size_t i = pick[j];
        run_instance(&R, json_array_get(data, i), i);
        if (R.o.verbose || isatty(2))
            fprintf(stderr, "\r%zu/%zu %s%s", j + 1, n,
                    ev_str(json_array_get(data, i), "instance_id"), R.o.verbose ? "\n" : "   ");
    }
    free(pick);
    if (!R.o.verbose && isatty(2))
        fputc('\n', stderr);
    double wall = ev_ms_since(t0) / 1000;
    rc = 0;
    if (R.instances == 0) {
        fprintf(stderr, PROG ": no instance could be scored (repositories not found under %s?)\n",
                R.o.repos);
        rc = 2;
    }

    if (rc == 0) {
        fprintf(R.out, "SWE-bench %s: %zu instances scored of %zu\n", R.o.input, R.instances, n);
        add_seconds_line(&R, "mnemo index per instance", &R.index_s);
        if (R.files_indexed.len)
            ev_report_line(&R.r, "mnemo files indexed per instance: p50 %.0f, max %.0f",
                           ev_percentile(&R.files_indexed, 0.5),
                           ev_percentile(&R.files_indexed, 1.0));
        add_seconds_line(&R, "checkout per instance", &R.checkout_s);
        add_seconds_line(&R, "bm25 build per instance (tree read + FTS5)", &R.bm25_build_s);
        ev_report_line(&R.r, "bm25 documents per instance: p50 %.0f, max %.0f (%s)",
                       ev_percentile(&R.bm25_docs, 0.5), ev_percentile(&R.bm25_docs, 1.0),
                       R.o.all_files ? "every text file" : "source files by extension");
        if (R.code_ms.len)
            ev_report_line(&R.r, "mnemo code search (functions) latency ms: p50 %.3f p95 %.3f",
                           ev_percentile(&R.code_ms, 0.5), ev_percentile(&R.code_ms, 0.95));
        ev_report_line(&R.r, "wall time %.1f s", wall);
        double n_in = R.instances ? (double)R.instances : 1;
        ev_report_line(&R.r,
                       "reachable (every gold file in the base tree, at most k of them): k=1 %zu, "
                       "k=3 %zu, k=5 %zu of %zu instances; file_acc@1/3/5 at most %.3f / %.3f / "
                       "%.3f",
                       R.reachable[0], R.reachable[1], R.reachable[2], R.instances,
                       (double)R.reachable[0] / n_in, (double)R.reachable[1] / n_in,
                       (double)R.reachable[2] / n_in);
        ev_report_note(&R.r,
                       "%zu instances not scored (listed at the end); %zu without a gold function "
                       "(left out of func_acc); %zu gold files not in the base tree; %zu "
                       "queries cut to %zu bytes for mnemo; %zu files missing from the clones of "
                       "%zu instances (left out of their checkouts)",
                       R.r.unscored.len, R.no_gold_fn, R.new_gold_files, R.cut_queries,
                       ev_search_query_max(MAX_QUERY), R.missing_blobs, R.missing_instances);
        if (R.r.errors)
            ev_report_note(&R.r, "%zu mnemo searches failed (scored as empty)", R.r.errors);
        if (R.not_kept)
            ev_report_note(&R.r,
                           "%zu stores not kept in %s: under --min-free (indexed again next run)",
                           R.not_kept, R.o.stores);
        fprintf(R.out, "by language:\n");
        ev_report_print(&R.r, R.out);
        fprintf(R.out, "\nby repository:\n");
        ev_report_print_table(&R.by_repo, R.out);
        /* issue 22: SWE-bench (Python) Acc@1 >= .60 and @5 >= .85; in the other languages
         * (multi_dev.jsonl) .45 and .70 */
        bool py = R.not_python == 0;
        bool ok = ev_report_target(&R.r, R.out, "all", "file_acc@1", py ? 0.60 : 0.45);
        ok &= ev_report_target(&R.r, R.out, "all", "file_acc@5", py ? 0.85 : 0.70);
        json_object_set_new(R.r.extra, "instances", json_integer((json_int_t)R.instances));
        json_object_set_new(R.r.extra, "wall_s", json_real(wall));
        json_object_set_new(
            R.r.extra, "index_s",
            R.index_s.len ? json_pack("{s:f,s:f,s:f,s:I}", "p50", ev_percentile(&R.index_s, 0.5),
                                      "p95", ev_percentile(&R.index_s, 0.95), "sum",
                                      ev_sum(&R.index_s), "n", (json_int_t)R.index_s.len)
                          : json_null());
        json_object_set_new(R.r.extra, "target_pass", json_boolean(ok));
        json_t *rj = ev_report_json(&R.by_repo);
        json_object_set(R.r.extra, "by_repository", json_object_get(rj, "groups"));
        json_decref(rj);
        if (R.o.strict && !ok)
            rc = 1;
    }
    if (R.o.json && R.instances) {
        json_t *j = ev_report_json(&R.r);
        char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
        printf("%s\n", s);
        free(s);
        json_decref(j);
    } else if (R.instances == 0) {
        for (size_t i = 0; i < R.r.unscored.len; i++)
            fprintf(stderr, "  %s\n", R.r.unscored.items[i]);
    }
    for (size_t i = 0; i < R.repos.len; i++) {
        free(R.repos.items[i].name);
        git_repository_free(R.repos.items[i].repo);
    }
    mn_vec_release(&R.repos);
    ev_samples *ss[] = {&R.index_s,   &R.checkout_s,    &R.bm25_build_s,
                        &R.bm25_docs, &R.files_indexed, &R.code_ms};
    for (size_t i = 0; i < MN_ARRAY_SIZE(ss); i++)
        mn_vec_release(ss[i]);
    ev_report_release(&R.r);
    ev_report_release(&R.by_repo);
    json_decref(data);
    if (R.signals && fclose(R.signals) != 0) {
        fprintf(stderr, PROG ": --signals: %s\n", strerror(errno));
        rc = 2;
    }
    git_libgit2_shutdown();
    return rc;
}
