/*
 * docs.c - documents into memories (ingest.h: mn_ingest_docs, mn_open_doc).
 *
 * Each path (confined to the project root) is a file or a folder walked
 * recursively (hidden directories such as .git and .obsidian, node_modules
 * and build output left out; symbolic links not followed), at most
 * MAX_FILES Markdown (.md, .markdown, .mdx) or reST (.rst) files of at
 * most MAX_FILE bytes each, valid UTF-8.
 *
 * A document is stored whole (scrubbed) in the docs table for open_doc,
 * and becomes memories:
 *   - an architecture decision record (a file in an adr/, adrs/ or
 *     decisions/ directory, or named NNNN-title.md, with a status or a
 *     decision section) is one decision: title, the Decision section as
 *     body (consequences and options after it), the Context as its reason
 *     (context.situation), status from its Status section or front matter:
 *     accepted active, proposed pending, superseded superseded (linked from
 *     the ADR that replaced it: "Superseded by [...](0005-x.md)",
 *     "Supersedes [...]"), deprecated or rejected archived;
 *   - any other document is one doc_link memory per section (markdown.h),
 *     titled "Document > Section", tagged with its front matter's tags,
 *     scoped to its front matter's scope (paths), dated by its date.
 * Every memory links to its document (derived_from doc:<path>) and to the
 * documents its section links to (relates_to doc:<path>; Obsidian's
 * [[Name]] resolved by file name among the files of the run).
 *
 * Re-ingest: a document whose bytes did not change is skipped; a changed
 * section is updated in place (ingest keys "doc:<path>#<anchor>", source
 * hash of its text); sections gone, and documents gone from a folder that
 * is ingested again, are archived. A memory a person forgot stays so.
 */
#include "common.h"
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/ingest_internal.h"
#include "ingest/markdown.h"
#include "store/store_ingest.h"
#include "util/map.h"
#include "util/util.h"

#define MAX_FILES   5000
#define MAX_FILE    (1u << 20)
#define MIN_SECTION 40 /* bytes of text: a heading over nothing says nothing */
#define BODY_MAX    20000
#define ITEMS_MAX   300

typedef struct {
    mn_store *s;
    const mn_ingest_env *env;
    mn_memory_settings cfg;
    mn_ingest_tally tally;
    size_t files, sections, decisions, skipped;
    json_t *items;
    mn_map seen_files; /* rel path -> NULL: documents read this run */
    mn_map by_name;    /* lower-case file name without extension -> rel path (wikilinks) */
    MN_VEC(char *) todo;
    /* ADRs saved this run: rel path -> memory id, and their supersede links to make */
    mn_map adr_ids;
    json_t *adr_links; /* [[newer rel, older rel]] */
} docs_run;

static bool doc_ext(const char *name)
{
    static const char *const exts[] = {".md", ".markdown", ".mdx", ".rst"};
    size_t n = strlen(name);
    for (size_t i = 0; i < MN_ARRAY_SIZE(exts); i++) {
        size_t m = strlen(exts[i]);
        if (n > m && !strcasecmp(name + n - m, exts[i]))
            return true;
    }
    return false;
}

static bool skip_dir(const char *name)
{
    return name[0] == '.' || !strcmp(name, "node_modules") || !strcmp(name, "_build") ||
           !strcmp(name, "site") || !strcmp(name, "vendor") || !strcmp(name, "__pycache__");
}

/* Collect the document files under abs (rel: its path relative to the root). */
static void walk(docs_run *r, const char *abs, const char *rel, int depth)
{
    struct stat st;
    if (r->todo.len >= MAX_FILES || depth > 32 || lstat(abs, &st) != 0 || S_ISLNK(st.st_mode))
        return;
    if (S_ISREG(st.st_mode)) {
        if (doc_ext(abs) && !mn_map_has(&r->seen_files, rel)) {
            mn_map_set(&r->seen_files, rel, NULL);
            mn_vec_push(&r->todo, mn_strdup(rel));
        }
        return;
    }
    if (!S_ISDIR(st.st_mode))
        return;
    DIR *d = opendir(abs);
    if (!d)
        return;
    struct dirent *e;
    MN_VEC(char *) names = MN_VEC_INIT;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        mn_vec_push(&names, mn_strdup(e->d_name));
    }
    closedir(d);
    /* sorted, so that a run is deterministic */
    for (size_t i = 1; i < names.len; i++)
        for (size_t j = i; j > 0 && strcmp(names.items[j - 1], names.items[j]) > 0; j--) {
            char *t = names.items[j];
            names.items[j] = names.items[j - 1];
            names.items[j - 1] = t;
        }
    for (size_t i = 0; i < names.len; i++) {
        mn_buf a = MN_BUF_INIT, rl = MN_BUF_INIT;
        mn_buf_printf(&a, "%s/%s", abs, names.items[i]);
        mn_buf_printf(&rl, "%s%s%s", strcmp(rel, ".") ? rel : "", strcmp(rel, ".") ? "/" : "",
                      names.items[i]);
        struct stat cs;
        bool dir = lstat(a.ptr, &cs) == 0 && S_ISDIR(cs.st_mode);
        if (!dir || !skip_dir(names.items[i]))
            walk(r, a.ptr, rl.ptr, depth + 1);
        mn_buf_release(&a);
        mn_buf_release(&rl);
        free(names.items[i]);
    }
    mn_vec_release(&names);
}

/* Read a regular file without following a link; NULL when it is not text. */
static char *read_doc(const char *root, const char *rel, size_t *len)
{
    mn_buf path = MN_BUF_INIT;
    mn_buf_printf(&path, "%s/%s", root, rel);
    /* O_NONBLOCK: a named pipe is not waited on (fstat below refuses it) */
    int fd = open(path.ptr, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    mn_buf_release(&path);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= MAX_FILE) {
        buf = mn_malloc((size_t)st.st_size + 1);
        ssize_t got = 0, n;
        while (got < st.st_size && (n = read(fd, buf + got, (size_t)(st.st_size - got))) > 0)
            got += n;
        buf[got] = '\0';
        *len = (size_t)got;
        if (!mn_utf8_valid(buf, *len)) {
            free(buf);
            buf = NULL;
        }
    }
    close(fd);
    return buf;
}

static json_t *strings_of(const json_t *v, size_t max, size_t maxlen)
{
    json_t *out = json_array();
    if (json_is_string(v)) {
        /* "a, b" or "a b" (Obsidian allows both) */
        const char *s = json_string_value(v);
        while (*s && json_array_size(out) < max) {
            size_t n = strcspn(s, ", ");
            if (n && n <= maxlen) {
                char *t = mn_strndup(s, n);
                mn_strv_add(out, t[0] == '#' ? t + 1 : t);
                free(t);
            }
            s += n;
            while (*s == ',' || *s == ' ')
                s++;
        }
        return out;
    }
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x)
    {
        const char *s = json_string_value(x);
        if (s && *s && strlen(s) <= maxlen && json_array_size(out) < max)
            mn_strv_add(out, s[0] == '#' ? s + 1 : s);
    }
    return out;
}

/*
 * The document's date as RFC 3339, not in the future; NULL when none: the
 * front matter's, else a "Date: 2023-01-10" line (adr-tools writes one).
 */
static char *doc_date(const json_t *front, const char *text)
{
    const char *d = json_string_value(json_object_get(front, "date"));
    char line[32];
    if (!d && text) {
        const char *p = strstr(text, "\nDate: ");
        if (!p && !strncmp(text, "Date: ", 6))
            p = text - 1;
        if (p) {
            p += 7;
            size_t n = strcspn(p, " \r\n");
            if (n < sizeof(line)) {
                memcpy(line, p, n);
                line[n] = '\0';
                d = line;
            }
        }
    }
    int64_t ms;
    if (!d || mn_time_parse(&ms, d) != 0 || ms > mn_time_now_ms() || ms <= 0) {
        mn_error_clear();
        return NULL;
    }
    char t[32];
    mn_time_format(t, ms);
    return mn_strdup(t);
}

static const char *status_word(const char *s)
{
    static const char *const words[] = {"accepted", "proposed", "superseded", "deprecated",
                                        "rejected", "draft",    "amended",    "approved"};
    if (!s)
        return NULL;
    while (*s && !isalpha((unsigned char)*s))
        s++;
    for (size_t i = 0; i < MN_ARRAY_SIZE(words); i++)
        if (!strncasecmp(s, words[i], strlen(words[i])))
            return words[i];
    return NULL;
}

static bool adr_path(const char *rel)
{
    static const char *const dirs[] = {"adr/", "adrs/", "decisions/", "architecture-decisions/",
                                       "decision-records/"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(dirs); i++) {
        const char *p = strstr(rel, dirs[i]);
        if (p && (p == rel || p[-1] == '/'))
            return true;
    }
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    size_t digits = strspn(base, "0123456789");
    return digits >= 3 && digits <= 5 && (base[digits] == '-' || base[digits] == '_');
}

/* An ADR's status: front matter, a Status section, or a "Status: x" line. */
static const char *adr_status(const mn_md_doc *d, const char *text)
{
    const char *w = status_word(json_string_value(json_object_get(d->front, "status")));
    if (w)
        return w;
    const mn_md_section *s = mn_md_find(d, "Status");
    if (s && (w = status_word(s->text)) != NULL)
        return w;
    const char *p = strcasestr(text, "status:");
    return p ? status_word(p + 7) : NULL;
}

static char *section_text(const mn_md_doc *d, const char *names)
{
    const mn_md_section *s = mn_md_find(d, names);
    return s ? mn_strdup(s->text) : NULL;
}

static void add_item(docs_run *r, const char *rel, const char *section, const json_t *res)
{
    if (json_array_size(r->items) >= ITEMS_MAX || !res)
        return;
    json_t *o = json_pack("{s:s,s:s}", "path", rel, "section", section);
    static const char *const keys[] = {"id", "action", "kind", "status", "title"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(keys); i++)
        if (json_object_get(res, keys[i]))
            json_object_set(o, keys[i], json_object_get(res, keys[i]));
    json_array_append_new(r->items, o);
}

/* Links of a section: doc:<path> for local documents, wikilinks resolved by name. */
static void doc_links(docs_run *r, json_t *links, const char *rel, const char *text)
{
    json_t *targets = json_array();
    mn_md_links(targets, rel, text, strlen(text));
    size_t i;
    json_t *t;
    json_array_foreach(targets, i, t)
    {
        const char *v = json_string_value(t);
        const char *path = v;
        if (!strncmp(v, "wiki:", 5)) {
            char *low = mn_ingest_norm(v + 5, strlen(v + 5));
            path = mn_map_get(&r->by_name, low);
            free(low);
            if (!path)
                continue;
        }
        if (!strcmp(path, rel) || json_array_size(links) >= 32 || strlen(path) > 1000)
            continue;
        mn_buf to = MN_BUF_INIT;
        mn_buf_printf(&to, "doc:%s", path);
        json_array_append_new(links, json_pack("{s:s,s:s}", "kind", "relates_to", "to", to.ptr));
        mn_buf_release(&to);
    }
    json_decref(targets);
}

static json_t *base_memory(docs_run *r, const mn_md_doc *d, const char *rel, const char *kind,
                           const char *title, const char *body, const char *doc_text)
{
    json_t *mem = json_pack("{s:s,s:s}", "kind", kind, "title", title);
    /* scrubbed before the cut: a token the cut split would match no rule */
    char *clean = mn_ingest_scrub_cut(r->env, body, strlen(body), BODY_MAX);
    json_object_set_new(mem, "body", json_string(clean));
    free(clean);
    json_t *scope = json_object();
    json_t *tags = strings_of(json_object_get(d->front, "tags"), 28, 64);
    mn_strv_add(tags, !strcmp(kind, "decision") ? "adr" : "doc");
    json_object_set_new(scope, "tags", tags);
    json_t *paths = strings_of(json_object_get(d->front, "scope"), 64, 1024);
    if (json_array_size(paths))
        json_object_set(scope, "paths", paths);
    json_decref(paths);
    json_object_set_new(mem, "scope", scope);
    json_object_set_new(mem, "provenance", json_pack("{s:s}", "source", "document"));
    char *date = doc_date(d->front, doc_text);
    if (date)
        json_object_set_new(mem, "created_at", json_string(date));
    free(date);
    json_t *links = json_array();
    mn_buf to = MN_BUF_INIT;
    mn_buf_printf(&to, "doc:%s", rel);
    json_array_append_new(links, json_pack("{s:s,s:s}", "kind", "derived_from", "to", to.ptr));
    mn_buf_release(&to);
    json_object_set_new(mem, "links", links);
    return mem;
}

static int save_one(docs_run *r, const char *key, const char *hash, json_t *mem, const char *rel,
                    const char *section, json_t **res)
{
    int rc = mn_ingest_save_keyed(r->s, &r->cfg, key, hash, mem, &r->tally, res);
    if (rc == 0)
        add_item(r, rel, section, *res);
    return rc;
}

static int ingest_adr(docs_run *r, const mn_md_doc *d, const char *rel, const char *text,
                      const char *status, const char *doc_hash)
{
    char *decision = section_text(d, "Decision|Decision Outcome|Decision outcome|The decision");
    char *context = section_text(d, "Context|Context and Problem Statement|Context and problem "
                                    "statement|Problem|Background");
    char *cons = section_text(d, "Consequences|Consequence");
    char *options = section_text(d, "Considered Options|Considered options|Options|Alternatives");
    mn_buf body = MN_BUF_INIT;
    mn_buf_puts(&body, decision ? decision : text);
    if (cons)
        mn_buf_printf(&body, "\n\nConsequences:\n%s", cons);
    if (options)
        mn_buf_printf(&body, "\n\nConsidered options:\n%s", options);
    char *title = mn_ingest_clip_scrubbed(r->env, d->title, 200);
    json_t *mem = base_memory(r, d, rel, "decision", title, body.ptr ? body.ptr : "", text);
    if (context && *context) {
        char *sit = mn_ingest_clip_scrubbed(r->env, context, 4000);
        json_object_set_new(mem, "context", json_pack("{s:s}", "situation", sit));
        free(sit);
    }
    json_object_set_new(mem, "confidence",
                        json_real(!status || !strcmp(status, "accepted") ||
                                          !strcmp(status, "approved") || !strcmp(status, "amended")
                                      ? 0.9
                                      : 0.7));
    doc_links(r, json_object_get(mem, "links"), rel, text);
    char key[1100];
    snprintf(key, sizeof(key), "doc:%s", rel);
    json_t *res = NULL;
    int rc = save_one(r, key, doc_hash, mem, rel, "", &res);
    json_decref(mem);
    const char *id = json_string_value(json_object_get(res, "id"));
    const char *action = json_string_value(json_object_get(res, "action"));
    if (rc == 0 && id) {
        r->decisions++;
        mn_map_set(&r->adr_ids, rel, mn_strdup(id));
        /* the status the ADR gives, when the pipeline's differs */
        const char *want = !status || !strcmp(status, "accepted") || !strcmp(status, "approved") ||
                                   !strcmp(status, "amended")
                               ? "active"
                           : !strcmp(status, "proposed") || !strcmp(status, "draft") ? "pending"
                           : !strcmp(status, "superseded")                           ? "superseded"
                                                                                     : "archived";
        const char *have = json_string_value(json_object_get(res, "status"));
        if (action && strcmp(action, "unchanged") != 0 && (!have || strcmp(have, want) != 0))
            rc = mn_ingest_set_status(r->s, &r->cfg, id, want);
        /* "Superseded by [..](x.md)" / "Supersedes [..](y.md)": chains, made after the run */
        const mn_md_section *st = mn_md_find(d, "Status");
        const char *scan = st ? st->text : text;
        for (const char *p = scan; rc == 0 && (p = strcasestr(p, "supersede")) != NULL; p++) {
            bool by = !strncasecmp(p, "superseded by", 13);
            const char *line_end = strchr(p, '\n');
            size_t n = line_end ? (size_t)(line_end - p) : strlen(p);
            json_t *targets = json_array();
            mn_md_links(targets, rel, p, n);
            size_t i;
            json_t *t;
            json_array_foreach(targets, i, t)
            {
                const char *other = json_string_value(t);
                if (strncmp(other, "wiki:", 5) != 0)
                    json_array_append_new(r->adr_links, by ? json_pack("[s,s]", other, rel)
                                                           : json_pack("[s,s]", rel, other));
            }
            json_decref(targets);
        }
    }
    json_decref(res);
    mn_buf_release(&body);
    free(title);
    free(decision);
    free(context);
    free(cons);
    free(options);
    return rc;
}

typedef struct {
    docs_run *r;
    const char *rel;
    json_t *keep; /* keys produced this run */
} stale_ctx;

static int archive_stale(void *payload, const char *key, const char *uid)
{
    stale_ctx *c = payload;
    size_t n = strlen(c->rel);
    /* "doc:<rel>" or "doc:<rel>#..." of this document only */
    if (key[4 + n] != '\0' && key[4 + n] != '#')
        return 0;
    if (json_object_get(c->keep, key))
        return 0;
    json_t *m = NULL;
    int rc = mn_store_memory_get(c->r->s, &m, uid);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        rc = 0;
    } else if (rc == 0 && !json_object_get(m, "deleted_at") &&
               strcmp(json_string_value(json_object_get(m, "status")), "archived") != 0) {
        rc = mn_ingest_set_status(c->r->s, &c->r->cfg, uid, "archived");
        c->r->tally.superseded++; /* counted as archived in the report */
    }
    json_decref(m);
    if (rc == 0 && (rc = mn_store_begin(c->r->s)) == 0) {
        rc = mn_store_ingest_key_del(c->r->s, key);
        if (rc)
            mn_store_rollback(c->r->s);
        else
            rc = mn_store_commit(c->r->s);
    }
    return rc;
}

static int archive_keys(docs_run *r, const char *rel, json_t *keep)
{
    char prefix[1100];
    snprintf(prefix, sizeof(prefix), "doc:%s", rel);
    stale_ctx c = {r, rel, keep};
    return mn_store_ingest_keys_each(r->s, prefix, archive_stale, &c);
}

static int ingest_file(docs_run *r, const char *rel)
{
    size_t len = 0;
    char *text = read_doc(r->env->root, rel, &len);
    if (!text) {
        r->skipped++;
        return 0;
    }
    char hash[17];
    mn_ingest_hash(hash, text, len);
    char fkey[1100], uid[27], *old = NULL;
    snprintf(fkey, sizeof(fkey), "docfile:%s", rel);
    int rc = mn_store_ingest_key_get(r->s, fkey, uid, &old);
    bool same = rc == 0 && old && !strcmp(old, hash);
    free(old);
    mn_error_clear();
    r->files++;
    if (same) {
        r->tally.unchanged++;
        free(text);
        return 0;
    }
    mn_md_doc d;
    mn_md_parse(&d, rel, text, len);
    const char *status = adr_status(&d, text);
    bool adr = adr_path(rel) && (status || mn_md_find(&d, "Decision|Decision Outcome"));
    /* the whole document, scrubbed, for open_doc */
    char *clean = mn_ingest_scrub_text(r->env, text, len);
    /* its title and front matter's url are stored beside it: scrubbed as its text */
    const char *url = json_string_value(json_object_get(d.front, "url"));
    char *clean_title = d.title ? mn_ingest_scrub_text(r->env, d.title, strlen(d.title)) : NULL;
    char *clean_url = url ? mn_ingest_scrub_text(r->env, url, strlen(url)) : NULL;
    mn_doc_rec rec = {rel, adr ? "adr" : "doc", clean_title, clean, hash, clean_url};
    json_t *keep = json_object();
    if ((rc = mn_store_begin(r->s)) == 0) {
        rc = mn_store_doc_upsert(r->s, &rec);
        rc = rc ? (mn_store_rollback(r->s), rc) : mn_store_commit(r->s);
    }
    char first_id[27] = "";
    if (rc == 0 && adr) {
        char key[1100];
        snprintf(key, sizeof(key), "doc:%s", rel);
        json_object_set_new(keep, key, json_true());
        r->sections++;
        rc = ingest_adr(r, &d, rel, text, status, hash);
        char *id = mn_map_get(&r->adr_ids, rel);
        if (id)
            snprintf(first_id, sizeof(first_id), "%s", id);
    } else if (rc == 0) {
        for (size_t i = 0; i < d.nsections && rc == 0; i++) {
            const mn_md_section *sec = &d.sections[i];
            if (strlen(sec->text) < MIN_SECTION)
                continue;
            r->sections++;
            mn_buf title = MN_BUF_INIT;
            if (sec->level && strcmp(sec->heading, d.title) != 0)
                mn_buf_printf(&title, "%s > %s", d.title, sec->heading);
            else
                mn_buf_puts(&title, d.title);
            char *t = mn_ingest_clip_scrubbed(r->env, title.ptr, 200);
            json_t *mem = base_memory(r, &d, rel, "doc_link", t, sec->text, text);
            doc_links(r, json_object_get(mem, "links"), rel, sec->text);
            char key[1200], shash[17];
            snprintf(key, sizeof(key), "doc:%s#%s", rel, sec->anchor);
            char *dump = json_dumps(mem, JSON_COMPACT | JSON_SORT_KEYS);
            mn_ingest_hash(shash, dump, strlen(dump));
            free(dump);
            json_object_set_new(keep, key, json_true());
            json_t *res = NULL;
            rc = save_one(r, key, shash, mem, rel, sec->heading, &res);
            const char *id = json_string_value(json_object_get(res, "id"));
            if (id && !first_id[0])
                snprintf(first_id, sizeof(first_id), "%s", id);
            json_decref(res);
            json_decref(mem);
            free(t);
            mn_buf_release(&title);
        }
    }
    if (rc == 0)
        rc = archive_keys(r, rel, keep);
    if (rc == 0 && first_id[0])
        rc = mn_store_begin(r->s) == 0 ? (mn_store_ingest_key_set(r->s, fkey, first_id, hash) == 0
                                              ? mn_store_commit(r->s)
                                              : (mn_store_rollback(r->s), mn_error_last_code()))
                                       : mn_error_last_code();
    json_decref(keep);
    free(clean);
    free(clean_title);
    free(clean_url);
    mn_md_doc_release(&d);
    free(text);
    return rc;
}

typedef struct {
    docs_run *r;
    const char *dir;
} gone_ctx;

/* Documents of an ingested folder that are no longer there: their memories are archived. */
static int gone_cb(void *payload, const char *key, const char *uid)
{
    gone_ctx *g = payload;
    (void)uid;
    const char *rel = key + 8; /* "docfile:" */
    if (mn_map_has(&g->r->seen_files, rel))
        return 0;
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", g->r->env->root, rel);
    bool there = mn_fs_exists(p.ptr);
    mn_buf_release(&p);
    if (there)
        return 0;
    json_t *none = json_object();
    int rc = archive_keys(g->r, rel, none);
    json_decref(none);
    if (rc == 0 && (rc = mn_store_begin(g->r->s)) == 0) {
        rc = mn_store_ingest_key_del(g->r->s, key);
        rc = rc ? (mn_store_rollback(g->r->s), rc) : mn_store_commit(g->r->s);
    }
    return rc;
}

static int chain_adrs(docs_run *r)
{
    size_t i;
    json_t *pair;
    int rc = 0;
    json_array_foreach(r->adr_links, i, pair)
    {
        const char *newer = json_string_value(json_array_get(pair, 0));
        const char *older = json_string_value(json_array_get(pair, 1));
        char k1[1100], k2[1100], id1[27], id2[27];
        snprintf(k1, sizeof(k1), "doc:%s", newer);
        snprintf(k2, sizeof(k2), "doc:%s", older);
        if (mn_store_ingest_key_get(r->s, k1, id1, NULL) != 0 ||
            mn_store_ingest_key_get(r->s, k2, id2, NULL) != 0) {
            mn_error_clear();
            continue;
        }
        if ((rc = mn_ingest_supersede(r->s, &r->cfg, id1, id2)) != 0)
            break;
    }
    return rc;
}

int mn_ingest_docs(mn_store *s, const mn_ingest_env *env, const char *const *paths, size_t n,
                   json_t **out)
{
    docs_run r;
    int rc = 0;
    memset(&r, 0, sizeof(r));
    *out = NULL;
    if (!env->root)
        return mn_error_set(MN_EINVAL, "not inside a project: documents are read from inside one");
    r.s = s;
    r.env = env;
    r.cfg = *env->settings;
    r.items = json_array();
    r.adr_links = json_array();
    json_t *dirs = json_array();
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *abs = NULL, *rel = NULL;
        const char *fences[] = {env->root};
        if ((rc = mn_ingest_confine(&abs, &rel, env->root, paths[i], fences, 1, "document path")) !=
            0)
            break;
        if (mn_fs_is_dir(abs))
            json_array_append_new(dirs, json_string(rel));
        walk(&r, abs, rel, 0);
        free(abs);
        free(rel);
    }
    for (size_t i = 0; i < r.todo.len; i++) {
        const char *base = strrchr(r.todo.items[i], '/');
        base = base ? base + 1 : r.todo.items[i];
        const char *dot = strrchr(base, '.');
        char *name = mn_ingest_norm(base, dot ? (size_t)(dot - base) : strlen(base));
        if (!mn_map_has(&r.by_name, name))
            mn_map_set(&r.by_name, name, r.todo.items[i]);
        free(name);
    }
    uint64_t last = 0;
    for (size_t i = 0; i < r.todo.len && rc == 0; i++) {
        rc = ingest_file(&r, r.todo.items[i]);
        if (env->progress && mn_time_mono_ns() - last > 100000000u) {
            last = mn_time_mono_ns();
            fprintf(stderr, "\r\033[Kingesting documents: %zu/%zu", i + 1, r.todo.len);
        }
    }
    if (env->progress && r.todo.len)
        fprintf(stderr, "\r\033[K");
    if (rc == 0)
        rc = chain_adrs(&r);
    size_t i;
    json_t *d;
    json_array_foreach(dirs, i, d)
    {
        if (rc)
            break;
        const char *dir = json_string_value(d);
        mn_buf prefix = MN_BUF_INIT;
        mn_buf_printf(&prefix, "docfile:%s%s", strcmp(dir, ".") ? dir : "",
                      strcmp(dir, ".") ? "/" : "");
        gone_ctx g = {&r, dir};
        rc = mn_store_ingest_keys_each(s, prefix.ptr, gone_cb, &g);
        mn_buf_release(&prefix);
    }
    if (rc == 0)
        *out = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:O}", "files",
                         (json_int_t)r.files, "sections", (json_int_t)r.sections, "created",
                         (json_int_t)(r.tally.saved + r.tally.queued), "updated",
                         (json_int_t)r.tally.updated, "unchanged", (json_int_t)r.tally.unchanged,
                         "archived", (json_int_t)r.tally.superseded, "decisions",
                         (json_int_t)r.decisions, "merged", (json_int_t)r.tally.merged, "queued",
                         (json_int_t)r.tally.queued, "refused", (json_int_t)r.tally.refused,
                         "skipped", (json_int_t)r.skipped, "items", r.items);
    json_decref(dirs);
    json_decref(r.items);
    json_decref(r.adr_links);
    for (size_t k = 0; k < r.todo.len; k++)
        free(r.todo.items[k]);
    mn_vec_release(&r.todo);
    mn_map_release(&r.seen_files);
    mn_map_release(&r.by_name);
    size_t pos = 0;
    const char *key;
    void *v;
    while (mn_map_next(&r.adr_ids, &pos, &key, &v))
        free(v);
    mn_map_release(&r.adr_ids);
    return rc;
}

/* ---- open_doc ---- */

typedef struct {
    mn_store *s;
    json_t *arr;
    const char *path;
} mems_ctx;

static int mem_cb(void *payload, const char *key, const char *uid)
{
    mems_ctx *c = payload;
    size_t n = strlen(c->path);
    if (key[4 + n] != '\0' && key[4 + n] != '#') /* "doc:<path>" or "doc:<path>#..." only */
        return 0;
    json_t *m = NULL;
    if (mn_store_memory_get(c->s, &m, uid) == 0 && !json_object_get(m, "deleted_at"))
        json_array_append_new(c->arr, json_pack("{s:s,s:O,s:O,s:O}", "id", uid, "title",
                                                json_object_get(m, "title"), "kind",
                                                json_object_get(m, "kind"), "status",
                                                json_object_get(m, "status")));
    mn_error_clear();
    json_decref(m);
    return 0;
}

int mn_open_doc(mn_store *s, const mn_ingest_env *env, const json_t *args, json_t **out)
{
    const char *title = json_string_value(json_object_get(args, "title"));
    const char *path = json_string_value(json_object_get(args, "path"));
    const char *url = json_string_value(json_object_get(args, "url"));
    char *abs = NULL, *rel = NULL;
    json_t *doc = NULL;
    int rc = 0;
    *out = NULL;
    if (!title && !path && !url)
        return mn_error_set(MN_EINVAL, "give the document's title, path or url");
    if (path) {
        const char *fences[] = {env->root};
        if (!env->root)
            return mn_error_set(MN_EINVAL, "not inside a project: a path names nothing");
        if ((rc = mn_ingest_confine(&abs, &rel, env->root, path, fences, 1, "document path")) != 0)
            return rc;
    }
    rc = mn_store_doc_find(s, rel, url, title, &doc);
    if (rc == MN_ENOTFOUND && rel && !mn_fs_is_dir(abs) && doc_ext(abs)) {
        /* a document of the project not ingested: read as it is, scrubbed */
        mn_error_clear();
        size_t len = 0;
        char *text = read_doc(env->root, rel, &len);
        if (!text) {
            rc = mn_error_set(MN_EINVAL, "'%s' is not a text document mnemo can read", rel);
            goto out;
        }
        mn_md_doc d;
        mn_md_parse(&d, rel, text, len);
        char *clean = mn_ingest_scrub_text(env, text, len);
        doc = json_pack("{s:s,s:s,s:s,s:s}", "path", rel, "kind", "doc", "title", d.title, "body",
                        clean);
        json_object_set_new(doc, "ingested", json_false());
        free(clean);
        mn_md_doc_release(&d);
        free(text);
        rc = 0;
    } else if (rc == 0) {
        json_object_set_new(doc, "ingested", json_true());
    }
    if (rc)
        goto out;
    if (!json_object_get(doc, "title"))
        json_object_set_new(doc, "title",
                            json_string(json_string_value(json_object_get(doc, "path"))));
    if (!json_object_get(doc, "body"))
        json_object_set_new(doc, "body", json_string(""));
    const char *dp = json_string_value(json_object_get(doc, "path"));
    mems_ctx mc = {s, json_array(), dp ? dp : ""};
    if (dp) {
        char prefix[1100];
        snprintf(prefix, sizeof(prefix), "doc:%s", dp);
        rc = mn_store_ingest_keys_each(s, prefix, mem_cb, &mc);
    }
    json_object_set_new(doc, "memories", mc.arr);
    if (rc == 0) {
        *out = doc;
        doc = NULL;
    }
out:
    json_decref(doc);
    free(abs);
    free(rel);
    return rc;
}
