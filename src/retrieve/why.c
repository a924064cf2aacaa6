/*
 * why.c - the commits and decisions behind lines of code (why.h).
 *
 * For each target: the lines to explain (a range given, a symbol's lines
 * from the index, or the file's first WHY_LINES when the git ingest has
 * not seen the file), their blame (libgit2, first-parent, cached per blob
 * at HEAD), the distinct commits, newest first; for a whole file already
 * ingested, the commits the ingest recorded as touching it. Each commit
 * comes with its subject, date and author (the ingest's record, else the
 * commit itself) and the memories linked to commit:<sha> — decisions
 * first, then the other facts — with their reasons (context.situation).
 *
 * Writing stops at the budget: a commit line, then its memories, each
 * only when it fits (tokens.h's upper bound, as pack.c counts). Each line
 * written is an item of context's answer with every field its schema
 * requires (out_context.json): ref, what feedback takes for it (a commit's
 * sha, a memory's id as the line prints it), and whole (a commit whose
 * subject was not cut; never a memory, whose body the line leaves out).
 */
#include "common.h"
#include <ctype.h>
#include <git2.h>

#include "retrieve/tokens.h"
#include "retrieve/why.h"
#include "store/store_index.h"
#include "store/store_ingest.h"
#include "store/store_search.h"
#include "util/libs.h"
#include "util/vec.h"
#include "util/util.h"

#define MEMORIES_PER_COMMIT 3
#define LINE_CHARS          160
#define SHORT_ID            12 /* characters of a memory's id printed, as pack.c prints them */

typedef struct {
    char *path;
    char *label;         /* as the caller wrote it, or the symbol's name */
    int64_t first, last; /* 0: the whole file */
} target;

typedef struct {
    const mn_git_api *git;
    git_repository *repo;
    git_oid head;
    bool ok, tried;
} repo_ctx;

static bool open_repo(repo_ctx *r, const char *root)
{
    if (r->tried)
        return r->ok;
    r->tried = true;
    r->git = mn_libs_git();
    if (!r->git || r->git->libgit2_init() < 0) {
        r->git = NULL;
        mn_error_clear();
        return false;
    }
    if (r->git->repository_open_ext(&r->repo, root, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
        r->git->reference_name_to_id(&r->head, r->repo, "HEAD") < 0) {
        mn_error_clear();
        return false;
    }
    r->ok = true;
    return true;
}

static void close_repo(repo_ctx *r)
{
    if (r->git) {
        r->git->repository_free(r->repo);
        r->git->libgit2_shutdown();
    }
}

/* "path:10-20", "path#L10-L20", "path:10": the path and the lines. */
static void parse_target(target *t, const char *spec)
{
    const char *hash = strstr(spec, "#L");
    const char *colon = hash ? NULL : strrchr(spec, ':');
    const char *nums = hash ? hash + 2 : colon ? colon + 1 : NULL;
    t->first = t->last = 0;
    if (nums && isdigit((unsigned char)*nums)) {
        char *end;
        long long a = strtoll(nums, &end, 10), b = a;
        if (*end == '-') {
            const char *q = end + 1;
            if (*q == 'L')
                q++;
            b = strtoll(q, &end, 10);
        }
        if (!*end && a > 0 && b >= a && b < 100000000) {
            t->first = a;
            t->last = b;
            t->path = mn_strndup(spec, (size_t)((hash ? hash : colon) - spec));
            t->label = mn_strdup(spec);
            return;
        }
    }
    t->path = mn_strdup(spec);
    t->label = mn_strdup(spec);
}

typedef struct {
    target *t;
    size_t *n, max;
    const char *name;
} sym_ctx;

static int sym_cb(void *payload, const mn_symbol_row *y)
{
    sym_ctx *c = payload;
    if (*c->n >= c->max)
        return 1;
    /* Session.request: the index is asked for "request", the class must match */
    if (strchr(c->name, '.') && (!y->qualified_name || strcmp(y->qualified_name, c->name) != 0))
        return 0;
    target *t = &c->t[(*c->n)++];
    t->path = mn_strdup(y->path);
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s (%s:%lld-%lld)", y->qualified_name ? y->qualified_name : y->name, y->path,
                  (long long)y->start_line, (long long)y->end_line);
    t->label = mn_buf_detach(&b);
    t->first = y->start_line;
    t->last = y->end_line;
    return 0;
}

/* ---- commits of a target ---- */

typedef struct {
    char sha[41];
    int64_t time_ms;
} commit_ref;

typedef MN_VEC(commit_ref) commit_vec;

static void add_commit(commit_vec *v, const char *sha, int64_t t)
{
    for (size_t i = 0; i < v->len; i++)
        if (!strcmp(v->items[i].sha, sha))
            return;
    commit_ref c;
    snprintf(c.sha, sizeof(c.sha), "%s", sha);
    c.time_ms = t;
    mn_vec_push(v, c);
}

static int path_cb(void *payload, const char *sha, int64_t t)
{
    add_commit(payload, sha, t);
    return 0;
}

static int64_t commit_time(repo_ctx *r, const char *sha)
{
    git_oid oid;
    git_commit *c = NULL;
    int64_t t = 0;
    if (r->ok && r->git->oid_fromstr(&oid, sha) == 0 &&
        r->git->commit_lookup(&c, r->repo, &oid) == 0) {
        t = (int64_t)r->git->commit_time(c) * 1000;
        r->git->commit_free(c);
    }
    mn_error_clear();
    return t;
}

/* The blob the path has at HEAD (hex), or "" when it has none. */
static void head_blob(repo_ctx *r, const char *path, char out[41])
{
    git_commit *c = NULL;
    git_tree *tree = NULL;
    git_tree_entry *e = NULL;
    out[0] = '\0';
    if (r->git->commit_lookup(&c, r->repo, &r->head) == 0 && r->git->commit_tree(&tree, c) == 0 &&
        r->git->tree_entry_bypath(&e, tree, path) == 0) {
        r->git->oid_fmt(out, r->git->tree_entry_id(e));
        out[40] = '\0';
    }
    r->git->tree_entry_free(e);
    r->git->tree_free(tree);
    r->git->commit_free(c);
    mn_error_clear();
}

static int blame(mn_store *s, repo_ctx *r, const target *t, commit_vec *out, json_t *notes)
{
    char blob[41];
    int64_t first = t->first ? t->first : 1;
    int64_t last = t->last ? t->last : WHY_LINES;
    if (last - first + 1 > WHY_LINES)
        last = first + WHY_LINES - 1;
    head_blob(r, t->path, blob);
    if (!blob[0])
        return 0; /* not in HEAD's tree: nothing to blame */
    char *cached = NULL;
    json_t *hunks = NULL;
    if (mn_store_blame_get(s, t->path, blob, first, last, &cached) == 0) {
        hunks = json_loads(cached, 0, NULL);
        free(cached);
    } else {
        mn_error_clear();
        git_blame_options o;
        git_blame *b = NULL;
        r->git->blame_options_init(&o, GIT_BLAME_OPTIONS_VERSION);
        o.flags = GIT_BLAME_FIRST_PARENT;
        o.min_line = (size_t)first;
        o.max_line = (size_t)last;
        o.newest_commit = r->head;
        if (r->git->blame_file(&b, r->repo, t->path, &o) < 0) {
            /* a range past the end of the file: blame it whole, once */
            mn_error_clear();
            o.min_line = 0;
            o.max_line = 0;
            if (r->git->blame_file(&b, r->repo, t->path, &o) < 0) {
                const git_error *e = r->git->error_last();
                json_array_append_new(notes, json_sprintf("cannot blame '%s': %s", t->path,
                                                          e && e->message ? e->message : "error"));
                mn_error_clear();
                return 0;
            }
        }
        hunks = json_array();
        uint32_t n = r->git->blame_get_hunk_count(b);
        for (uint32_t i = 0; i < n; i++) {
            const git_blame_hunk *h = r->git->blame_get_hunk_byindex(b, i);
            char hex[41];
            r->git->oid_fmt(hex, &h->final_commit_id);
            hex[40] = '\0';
            json_array_append_new(hunks, json_pack("{s:s,s:I,s:I}", "sha", hex, "start",
                                                   (json_int_t)h->final_start_line_number, "lines",
                                                   (json_int_t)h->lines_in_hunk));
        }
        r->git->blame_free(b);
        char *dump = json_dumps(hunks, JSON_COMPACT);
        if (!mn_store_read_only(s) && mn_store_begin(s) == 0) {
            if (mn_store_blame_put(s, t->path, blob, first, last, dump) == 0)
                mn_store_commit(s);
            else
                mn_store_rollback(s);
        }
        mn_error_clear();
        free(dump);
    }
    size_t i;
    json_t *h;
    json_array_foreach(hunks, i, h)
    {
        const char *sha = json_string_value(json_object_get(h, "sha"));
        if (sha && strspn(sha, "0") != strlen(sha)) /* zeros: not committed yet */
            add_commit(out, sha, commit_time(r, sha));
    }
    json_decref(hunks);
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const commit_ref *x = a, *y = b;
    return x->time_ms > y->time_ms ? -1 : x->time_ms < y->time_ms;
}

/* ---- what a commit brings ---- */

typedef struct {
    MN_VEC(char *) ids;
} id_list;

static int id_cb(void *payload, const char *uid)
{
    id_list *l = payload;
    mn_vec_push(&l->ids, mn_strdup(uid));
    return 0;
}

static json_t *commit_info(mn_store *s, repo_ctx *r, const char *sha)
{
    json_t *c = NULL;
    if (mn_store_git_commit_get(s, sha, &c) == 0) {
        json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "sha", sha, "date",
                              json_string_value(json_object_get(c, "time"))
                                  ? json_string_value(json_object_get(c, "time"))
                                  : "",
                              "author",
                              json_string_value(json_object_get(c, "author"))
                                  ? json_string_value(json_object_get(c, "author"))
                                  : "",
                              "subject",
                              json_string_value(json_object_get(c, "subject"))
                                  ? json_string_value(json_object_get(c, "subject"))
                                  : "");
        json_decref(c);
        return o;
    }
    mn_error_clear();
    git_oid oid;
    git_commit *gc = NULL;
    json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "sha", sha, "date", "", "author", "", "subject", "");
    if (r->ok && r->git->oid_fromstr(&oid, sha) == 0 &&
        r->git->commit_lookup(&gc, r->repo, &oid) == 0) {
        char t[32];
        mn_time_format(t, (int64_t)r->git->commit_time(gc) * 1000);
        json_object_set_new(o, "date", json_string(t));
        const char *sum = r->git->commit_summary(gc);
        const git_signature *a = r->git->commit_author(gc);
        if (sum && mn_utf8_valid(sum, strlen(sum)))
            json_object_set_new(o, "subject", json_string(sum));
        if (a && a->name && mn_utf8_valid(a->name, strlen(a->name)))
            json_object_set_new(o, "author", json_string(a->name));
        r->git->commit_free(gc);
    }
    mn_error_clear();
    return o;
}

static json_t *commit_memories(mn_store *s, const char *sha)
{
    char ref[48];
    id_list l = {MN_VEC_INIT};
    json_t *out = json_array(), *later = json_array();
    snprintf(ref, sizeof(ref), "commit:%s", sha);
    if (mn_store_memories_linked_to(s, ref, 16, id_cb, &l) != 0)
        mn_error_clear();
    for (size_t i = 0; i < l.ids.len; i++) {
        json_t *m = NULL;
        if (mn_store_memory_get(s, &m, l.ids.items[i]) == 0) {
            const char *status = json_string_value(json_object_get(m, "status"));
            if (status && (!strcmp(status, "active") || !strcmp(status, "pending") ||
                           !strcmp(status, "superseded"))) {
                json_t *row = json_pack(
                    "{s:s,s:O,s:O,s:O}", "id", l.ids.items[i], "kind", json_object_get(m, "kind"),
                    "title", json_object_get(m, "title"), "status", json_object_get(m, "status"));
                const char *reason =
                    json_string_value(json_object_get(json_object_get(m, "context"), "situation"));
                if (reason)
                    json_object_set_new(row, "reason", json_string(reason));
                const char *kind = json_string_value(json_object_get(m, "kind"));
                json_array_append_new(kind && !strcmp(kind, "decision") ? out : later, row);
            }
        }
        mn_error_clear();
        json_decref(m);
        free(l.ids.items[i]);
    }
    mn_vec_release(&l.ids);
    json_array_extend(out, later);
    json_decref(later);
    while (json_array_size(out) > MEMORIES_PER_COMMIT)
        json_array_remove(out, json_array_size(out) - 1);
    return out;
}

/* ---- writing ---- */

/* s on one line, at most max characters; false when it was cut. */
static bool clip(mn_buf *b, const char *s, size_t max)
{
    size_t n = strlen(s), cp = 0, i = 0;
    while (i < n && cp < max) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (i + len > n)
            break;
        if (c == '\n' || c == '\r' || c == '\t')
            mn_buf_putc(b, ' ');
        else
            mn_buf_put(b, s + i, len);
        i += len;
        cp++;
    }
    if (i < n)
        mn_buf_puts(b, "…");
    return i == n;
}

typedef struct {
    mn_buf md;
    size_t used, budget;
    json_t *items;
    bool heading;
} writer;

/* Append line (ending in '\n') when it fits, with the heading before the first; item (may be
 * NULL) is taken: added to the items when the line is written, else freed. */
static bool put(writer *w, const char *line, json_t *item)
{
    static const char heading[] = "\n## Why the code is like this\n";
    size_t cost = mn_tokens_estimate(line, strlen(line));
    size_t hcost = w->heading ? 0 : mn_tokens_estimate(heading, sizeof(heading) - 1);
    if (w->used + cost + hcost > w->budget) {
        json_decref(item);
        return false;
    }
    if (!w->heading) {
        mn_buf_puts(&w->md, heading);
        w->heading = true;
    }
    mn_buf_puts(&w->md, line);
    w->used += cost + hcost;
    if (item) {
        json_object_set_new(item, "tokens", json_integer((json_int_t)cost));
        json_array_append_new(w->items, item);
    }
    return true;
}

int mn_why_build(mn_store *s, const mn_why_request *req, json_t **out)
{
    target t[2 * WHY_TARGETS];
    size_t nt = 0;
    repo_ctx r;
    writer w;
    memset(&r, 0, sizeof(r));
    memset(&w, 0, sizeof(w));
    mn_buf_init(&w.md);
    w.budget = req->max_tokens;
    w.items = json_array();
    json_t *history = json_array(), *notes = json_array();
    for (size_t i = 0; i < req->nfiles && nt < WHY_TARGETS; i++)
        parse_target(&t[nt++], req->files[i]);
    for (size_t i = 0; i < req->nsymbols && nt < WHY_TARGETS; i++) {
        sym_ctx sc = {t, &nt, nt + 1 < WHY_TARGETS ? nt + 2 : WHY_TARGETS, req->symbols[i]};
        const char *dot = strrchr(req->symbols[i], '.');
        int rc = mn_store_symbols_each(s, dot ? dot + 1 : req->symbols[i], sym_cb, &sc);
        if (rc && rc != 1)
            mn_error_clear();
    }
    /* a symbol over the lines a range named already: once */
    for (size_t i = 1; i < nt; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(t[i].path, t[j].path) && t[i].first == t[j].first &&
                t[i].last == t[j].last) {
                free(t[i].path);
                free(t[i].label);
                t[i--] = t[--nt];
                break;
            }
    if (!req->root || !nt)
        goto done;
    for (size_t i = 0; i < nt; i++) {
        commit_vec commits = MN_VEC_INIT;
        if (!t[i].first &&
            mn_store_git_commits_for_path(s, t[i].path, WHY_COMMITS, path_cb, &commits) != 0)
            mn_error_clear();
        if (!commits.len && open_repo(&r, req->root))
            blame(s, &r, &t[i], &commits, notes);
        if (commits.len > 1)
            qsort(commits.items, commits.len, sizeof(commit_ref), by_time);
        json_t *tj =
            json_pack("{s:s,s:s,s:[]}", "target", t[i].label, "path", t[i].path, "commits");
        if (t[i].first) {
            json_object_set_new(tj, "start_line", json_integer(t[i].first));
            json_object_set_new(tj, "end_line", json_integer(t[i].last));
        }
        mn_buf line = MN_BUF_INIT;
        mn_buf_puts(&line, "- `");
        clip(&line, t[i].label, 120);
        mn_buf_puts(&line, "`, newest first:\n");
        bool shown = commits.len && put(&w, line.ptr, NULL);
        mn_buf_release(&line);
        for (size_t k = 0; k < commits.len && k < WHY_COMMITS; k++) {
            if (!commits.items[k].time_ms && !r.tried && open_repo(&r, req->root))
                commits.items[k].time_ms = commit_time(&r, commits.items[k].sha);
            json_t *ci = commit_info(s, &r, commits.items[k].sha);
            json_t *mems = commit_memories(s, commits.items[k].sha);
            json_object_set_new(ci, "memories", mems);
            json_array_append(json_object_get(tj, "commits"), ci);
            const char *date = json_string_value(json_object_get(ci, "date"));
            mn_buf l = MN_BUF_INIT;
            mn_buf_printf(&l, "  - %.10s %.12s ", date ? date : "", commits.items[k].sha);
            const char *author = json_string_value(json_object_get(ci, "author"));
            if (author && *author) {
                clip(&l, author, 40);
                mn_buf_puts(&l, ": ");
            }
            bool whole = clip(&l, json_string_value(json_object_get(ci, "subject")), LINE_CHARS);
            mn_buf_puts(&l, "\n");
            /* ref: the whole sha, though the line shows 12 of it: feedback takes no prefix of a
             * commit's (only of a memory's id) */
            json_t *item =
                json_pack("{s:s,s:s,s:s,s:s,s:f,s:s,s:s,s:s,s:b}", "section", "history", "type",
                          "commit", "id", commits.items[k].sha, "title",
                          json_string_value(json_object_get(ci, "subject")), "score",
                          1.0 / (double)(k + 1), "why", "a commit that shaped these lines", "path",
                          t[i].path, "ref", commits.items[k].sha, "whole", whole);
            if (t[i].first) {
                json_object_set_new(item, "start_line", json_integer(t[i].first));
                json_object_set_new(item, "end_line", json_integer(t[i].last));
            }
            bool written = false;
            if (shown)
                written = put(&w, l.ptr, item); /* takes item, written or not */
            else
                json_decref(item);
            if (written) {
                size_t j;
                json_t *m;
                json_array_foreach(mems, j, m)
                {
                    mn_buf ml = MN_BUF_INIT;
                    const char *kind = json_string_value(json_object_get(m, "kind"));
                    const char *status = json_string_value(json_object_get(m, "status"));
                    const char *reason = json_string_value(json_object_get(m, "reason"));
                    mn_buf_printf(&ml, "    - %s: ", kind ? kind : "memory");
                    clip(&ml, json_string_value(json_object_get(m, "title")), LINE_CHARS);
                    if (reason) {
                        mn_buf_puts(&ml, " Because: ");
                        clip(&ml, reason, LINE_CHARS);
                    }
                    if (status && strcmp(status, "active") != 0)
                        mn_buf_printf(&ml, " [%s]", status);
                    const char *mid = json_string_value(json_object_get(m, "id"));
                    mn_buf_printf(&ml, " (%.*s)\n", SHORT_ID, mid);
                    /* ref: the id as the line prints it; never whole: the line gives the
                     * title and reason, not the body */
                    json_t *mi = json_pack(
                        "{s:s,s:s,s:s,s:O,s:f,s:s,s:s%,s:b}", "section", "history", "type",
                        "memory", "id", mid, "title", json_object_get(m, "title"), "score",
                        1.0 / (double)(k + 1), "why",
                        "learnt from a commit that shaped these lines", "ref", mid,
                        strlen(mid) < SHORT_ID ? strlen(mid) : (size_t)SHORT_ID, "whole", 0);
                    if (status && strcmp(status, "active") != 0)
                        json_object_set_new(mi, "status", json_string(status));
                    put(&w, ml.ptr, mi);
                    mn_buf_release(&ml);
                }
            }
            mn_buf_release(&l);
            json_decref(ci);
        }
        json_array_append_new(history, tj);
        mn_vec_release(&commits);
    }
done:
    close_repo(&r);
    for (size_t i = 0; i < nt; i++) {
        free(t[i].path);
        free(t[i].label);
    }
    *out = json_pack("{s:s,s:I,s:o,s:o,s:o}", "markdown", w.md.ptr, "tokens", (json_int_t)w.used,
                     "items", w.items, "history", history, "notes", notes);
    mn_buf_release(&w.md);
    return 0;
}
