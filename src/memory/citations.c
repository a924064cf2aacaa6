/*
 * citations.c - citations filled in at save, checked after each index run,
 * listed with their diffs, revalidated (citations.h).
 *
 * Three forms, by what the citation names:
 *   symbol  (path, symbol)  hash = the index's content hash of the symbol's
 *           span; text = the index's chunks over the span, whole (with the
 *           comment above it). Same hash at the path: fresh (the lines
 *           follow). Else the same name and hash in another file: moved,
 *           followed. Else a symbol of a file indexed since the citation
 *           was checked, with as many lines, whose text equals the cited
 *           text once the names are blanked out: renamed, followed. Else
 *           stale: changed when a symbol of that name is still at the path
 *           (and its text differs: a hash that moved for another reason,
 *           such as new indexing rules, with the same text, is fresh), gone
 *           when not.
 *   lines   (path, lines)   hash = xxh3-128 of the lines' text (from the
 *           chunks). The same text at the same lines: fresh; the same run
 *           of lines elsewhere in the file: moved, followed; else stale.
 *   file    (path)          hash = the file's content hash. A file
 *           citation vouches for the file, not its content (a memory that
 *           names a file would otherwise go stale at every edit of it): it
 *           is stale only when the file is gone and no file of the same
 *           content took its place (a rename, followed).
 * A stale citation keeps the hash and text it was cited with: the diff in
 * `mnemo stale` is against them, and when the code comes back as it was
 * the citation is fresh again (stale_cleared). Revalidating takes today's
 * span as the new truth.
 *
 * Cost: the check runs after an index run and looks only at the citations
 * the index marked dirty (schema v10 triggers on the cited file); each is a
 * few index lookups (symbols by name, a file's chunks), a rename a scan of
 * the symbols of the files indexed since (bounded by RENAME_CANDIDATES).
 * Nothing reads a file of the repository. Search reads one flag per
 * memory (store_search.h: mn_memory_hit.stale).
 *
 * Automatic citations at save: the paths the memory is scoped to or
 * modified, the symbols it is scoped to, and in its words (title, body,
 * situation, solution, what failed, error messages) the tokens shaped like
 * code: a path with a '/' or a source extension, an identifier with an
 * inner '_' or a lower-upper case change, a dotted name, a word followed
 * by '(' or inside backticks. Each must be a file or a symbol the index
 * knows; a symbol defined in several places counts only where one of them
 * is in a path the memory names (else it is left out rather than guessed).
 */
#include "common.h"
#include <xxhash.h>

#include "memory/citations.h"
#include "store/store_index.h"
#include "store/store_life.h"
#include "util/diff.h"
#include "util/map.h"
#include "util/util.h"
#include "util/vec.h"

#define RENAME_CANDIDATES 4000 /* symbols compared for one renamed citation, at most */
#define AUTO_NAMES_MAX    48   /* code-shaped tokens of a memory looked up, at most */
#define CHECK_BATCH       256  /* dirty citations per transaction */
#define DIFF_CONTEXT      3

/* ---- texts and hashes ---- */

static void hash_hex(char out[MN_HASH_HEX], const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(s, n));
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hex[c.digest[i] >> 4];
        out[2 * i + 1] = hex[c.digest[i] & 15];
    }
    out[32] = '\0';
}

static bool ident_char(unsigned char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c >= 0x80;
}

/*
 * The hash of a text with every whole-identifier occurrence of name
 * replaced by one marker byte: two versions of a function that differ only
 * in its name (its definition, a recursive call, its docstring) agree.
 */
static uint64_t blank_hash(const char *text, const char *name)
{
    XXH3_state_t *h = XXH3_createState();
    XXH3_64bits_reset(h);
    size_t nl = strlen(name), n = strlen(text), from = 0;
    for (size_t i = 0; nl && i + nl <= n;) {
        if (memcmp(text + i, name, nl) == 0 &&
            (i == 0 || !ident_char((unsigned char)text[i - 1])) &&
            (i + nl == n || !ident_char((unsigned char)text[i + nl]))) {
            XXH3_64bits_update(h, text + from, i - from);
            XXH3_64bits_update(h, "\1", 1);
            i += nl;
            from = i;
        } else {
            i++;
        }
    }
    XXH3_64bits_update(h, text + from, n - from);
    uint64_t v = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return v;
}

/* Lines of a file read from its chunks: line number -> text (without '\n'). */
typedef struct {
    int64_t from, to;       /* the lines wanted */
    bool whole;             /* whole chunks, in order, instead of lines */
    mn_buf text;            /* whole: the chunks' text, each ending in '\n' */
    MN_VEC(mn_slice) lines; /* !whole: index (line - from); ptr NULL when no chunk holds it */
    MN_VEC(char *) owned;   /* the chunk texts the slices point into */
} span;

static int on_chunk(void *payload, int64_t start_line, const char *text, size_t len)
{
    span *sp = payload;
    if (sp->whole) {
        size_t room = sp->text.len >= MN_CITE_TEXT_MAX ? 0 : MN_CITE_TEXT_MAX - sp->text.len;
        size_t n = len < room ? len : mn_utf8_floor(text, len, room);
        mn_buf_put(&sp->text, text, n);
        if (n == len && (len == 0 || text[len - 1] != '\n') && sp->text.len < MN_CITE_TEXT_MAX)
            mn_buf_putc(&sp->text, '\n');
        return 0;
    }
    char *copy = mn_strndup(text, len);
    mn_vec_push(&sp->owned, copy);
    int64_t line = start_line;
    for (const char *p = copy, *e = copy + len; p < e && line <= sp->to; line++) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
        if (line >= sp->from) {
            size_t k = (size_t)(line - sp->from);
            while (sp->lines.len <= k)
                mn_vec_push(&sp->lines, ((mn_slice){NULL, 0}));
            if (!sp->lines.items[k].ptr)
                sp->lines.items[k] = (mn_slice){p, n};
        }
        p += n + 1;
    }
    return 0;
}

static void span_release(span *sp)
{
    mn_buf_release(&sp->text);
    mn_vec_release(&sp->lines);
    for (size_t i = 0; i < sp->owned.len; i++)
        free(sp->owned.items[i]);
    mn_vec_release(&sp->owned);
}

/* The index's text of a symbol's span: its chunks, whole (malloc'd; "" when none). */
static int symbol_text(mn_store *s, char **out, int64_t file_id, int64_t start, int64_t end)
{
    span sp = {start, end, true, MN_BUF_INIT, MN_VEC_INIT, MN_VEC_INIT};
    int rc = mn_store_cite_chunks(s, file_id, start, end, on_chunk, &sp);
    *out = rc ? NULL : mn_buf_detach(&sp.text);
    span_release(&sp);
    return rc;
}

/* Read lines [from, to] of a file into sp (!whole). */
static int read_lines(mn_store *s, span *sp, int64_t file_id, int64_t from, int64_t to)
{
    memset(sp, 0, sizeof(*sp));
    sp->text = (mn_buf)MN_BUF_INIT;
    sp->from = from;
    sp->to = to;
    return mn_store_cite_chunks(s, file_id, from, to, on_chunk, sp);
}

/* The text of lines [a, b] of sp (each line + '\n'; lines no chunk holds are left out). */
static char *lines_text(const span *sp, int64_t a, int64_t b)
{
    mn_buf t = MN_BUF_INIT;
    for (int64_t l = a; l <= b; l++) {
        size_t k = (size_t)(l - sp->from);
        if (l < sp->from || k >= sp->lines.len || !sp->lines.items[k].ptr)
            continue;
        if (t.len + sp->lines.items[k].len + 1 > MN_CITE_TEXT_MAX)
            break;
        mn_buf_put(&t, sp->lines.items[k].ptr, sp->lines.items[k].len);
        mn_buf_putc(&t, '\n');
    }
    return mn_buf_detach(&t);
}

/* ---- symbols ---- */

typedef struct {
    int64_t id, file_id, start_line, end_line;
    char *path, *name, *qualified_name, *kind, *hash;
} sym;

typedef MN_VEC(sym) sym_vec;

static int collect_sym(void *payload, const mn_cite_symbol *y)
{
    sym v = {y->id,
             y->file_id,
             y->start_line,
             y->end_line,
             mn_strdup(y->path),
             mn_strdup(y->name),
             mn_strdup(y->qualified_name),
             mn_strdup(y->kind),
             y->hash ? mn_strdup(y->hash) : NULL};
    mn_vec_push((sym_vec *)payload, v);
    return 0;
}

static void syms_release(sym_vec *v)
{
    for (size_t i = 0; i < v->len; i++) {
        free(v->items[i].path);
        free(v->items[i].name);
        free(v->items[i].qualified_name);
        free(v->items[i].kind);
        free(v->items[i].hash);
    }
    mn_vec_release(v);
}

/* The one nearest a line (0: the first). */
static const sym *nearest(const sym_vec *v, int64_t line)
{
    const sym *best = NULL;
    int64_t bd = INT64_MAX;
    for (size_t i = 0; i < v->len; i++) {
        int64_t d = line > 0 ? llabs(v->items[i].start_line - line) : (int64_t)i;
        if (line > 0 && line >= v->items[i].start_line && line <= v->items[i].end_line)
            d = -1; /* holds the line */
        if (d < bd) {
            bd = d;
            best = &v->items[i];
        }
    }
    return best;
}

static const char *last_part(const char *name)
{
    const char *p = name;
    for (const char *q = name; *q; q++) {
        if (*q == '.' && q[1])
            p = q + 1;
        else if (q[0] == ':' && q[1] == ':' && q[2])
            p = q + 2;
    }
    return p;
}

/* ---- one citation, as the check sees it ---- */

typedef struct {
    char *path, *symbol, *hash, *text;
    int64_t start, end, checked_at;
    int stale;
} cite;

static void cite_release(cite *c)
{
    free(c->path);
    free(c->symbol);
    free(c->hash);
    free(c->text);
    memset(c, 0, sizeof(*c));
}

static void cite_set_str(char **dst, const char *v)
{
    char *n = v ? mn_strdup(v) : NULL;
    free(*dst);
    *dst = n;
}

typedef enum { OUT_UNRESOLVED, OUT_FRESH, OUT_FOLLOWED, OUT_CHANGED, OUT_GONE } outcome;

/* Point c at symbol y: its path, name, lines, hash and text. */
static int take_symbol(mn_store *s, cite *c, const sym *y)
{
    char *text = NULL;
    int rc = symbol_text(s, &text, y->file_id, y->start_line, y->end_line);
    if (rc)
        return rc;
    cite_set_str(&c->path, y->path);
    cite_set_str(&c->symbol, y->qualified_name);
    cite_set_str(&c->hash, y->hash);
    free(c->text);
    c->text = *text ? text : NULL;
    if (!c->text)
        free(text);
    c->start = y->start_line;
    c->end = y->end_line;
    return 0;
}

/* A symbol renamed since c was checked: same span length, same text with the names blanked. */
static int find_renamed(mn_store *s, const cite *c, sym_vec *cands, const sym **out)
{
    *out = NULL;
    if (!c->text || c->start <= 0 || c->end < c->start)
        return 0;
    int rc = mn_store_cite_symbols_since(s, c->checked_at, NULL, c->end - c->start + 1,
                                         RENAME_CANDIDATES, collect_sym, cands);
    if (rc)
        return rc;
    const char *old_name = last_part(c->symbol);
    uint64_t want = blank_hash(c->text, old_name);
    for (size_t i = 0; i < cands->len && !*out && rc == 0; i++) {
        const sym *y = &cands->items[i];
        if (!strcmp(y->name, old_name))
            continue; /* not a rename; its hash was checked already */
        char *text = NULL;
        if ((rc = symbol_text(s, &text, y->file_id, y->start_line, y->end_line)) == 0 &&
            blank_hash(text, y->name) == want)
            *out = y;
        free(text);
    }
    return rc;
}

static int check_symbol(mn_store *s, cite *c, outcome *o)
{
    sym_vec at = MN_VEC_INIT, moved = MN_VEC_INIT, cands = MN_VEC_INIT;
    const sym *y;
    int rc = mn_store_cite_symbols(s, c->symbol, c->path, NULL, collect_sym, &at);
    if (rc)
        goto out;
    if (!c->hash) { /* never resolved: the index knows it now, or still not */
        *o = OUT_UNRESOLVED;
        if ((y = nearest(&at, c->start)) != NULL) {
            rc = take_symbol(s, c, y);
            *o = OUT_FRESH;
        }
        goto out;
    }
    for (size_t i = 0; i < at.len; i++)
        if (at.items[i].hash && !strcmp(at.items[i].hash, c->hash)) {
            *o = OUT_FRESH; /* the same code: its lines may have moved */
            c->start = at.items[i].start_line;
            c->end = at.items[i].end_line;
            goto out;
        }
    /* the same code under the same name in another file (or place) */
    if ((rc = mn_store_cite_symbols(s, last_part(c->symbol), NULL, c->hash, collect_sym, &moved)) !=
        0)
        goto out;
    if (moved.len) {
        const sym *best = &moved.items[0];
        for (size_t i = 0; i < moved.len; i++)
            if (!strcmp(moved.items[i].qualified_name, c->symbol))
                best = &moved.items[i];
        rc = take_symbol(s, c, best);
        *o = OUT_FOLLOWED;
        goto out;
    }
    if ((rc = find_renamed(s, c, &cands, &y)) != 0)
        goto out;
    if (y) {
        rc = take_symbol(s, c, y);
        *o = OUT_FOLLOWED;
        goto out;
    }
    if (at.len) {
        /* its hash moved: the text decides (new indexing rules change hashes, not code) */
        y = nearest(&at, c->start);
        char *text = NULL;
        if ((rc = symbol_text(s, &text, y->file_id, y->start_line, y->end_line)) != 0)
            goto out;
        bool same = c->text && strlen(c->text) < MN_CITE_TEXT_MAX - 1 && !strcmp(text, c->text);
        free(text);
        if (same) {
            cite_set_str(&c->hash, y->hash);
            c->start = y->start_line;
            c->end = y->end_line;
            *o = OUT_FRESH;
        } else {
            *o = OUT_CHANGED;
        }
        goto out;
    }
    *o = OUT_GONE;
out:
    syms_release(&at);
    syms_release(&moved);
    syms_release(&cands);
    return rc;
}

/* Lines: the same text where it was, or the same run of lines elsewhere in the file. */
static int check_lines(mn_store *s, cite *c, int64_t file_id, outcome *o)
{
    span sp;
    int rc = read_lines(s, &sp, file_id, c->start, c->end);
    if (rc) {
        span_release(&sp);
        return rc;
    }
    char *now = lines_text(&sp, c->start, c->end);
    span_release(&sp);
    char h[MN_HASH_HEX];
    hash_hex(h, now, strlen(now));
    if (!c->hash || !strcmp(h, c->hash)) {
        if (!c->hash) {
            cite_set_str(&c->hash, h);
            free(c->text);
            c->text = now;
            now = NULL;
        }
        free(now);
        *o = OUT_FRESH;
        return 0;
    }
    free(now);
    *o = OUT_CHANGED;
    if (!c->text || c->stale)
        return 0;
    /* the cited lines, whole, somewhere else in the file */
    size_t n = 0;
    for (const char *p = c->text; *p; p++)
        n += *p == '\n';
    if (n == 0)
        return 0;
    if ((rc = read_lines(s, &sp, file_id, 1, INT64_MAX / 2)) != 0) {
        span_release(&sp);
        return rc;
    }
    for (size_t first = 0; first + n <= sp.lines.len; first++) {
        if (!sp.lines.items[first].ptr)
            continue;
        char *t = lines_text(&sp, (int64_t)first + 1, (int64_t)(first + n));
        bool same = !strcmp(t, c->text);
        free(t);
        if (same) {
            c->start = (int64_t)first + 1;
            c->end = (int64_t)(first + n);
            *o = OUT_FOLLOWED;
            break;
        }
    }
    span_release(&sp);
    return 0;
}

typedef struct {
    char *path;
    size_t n;
} one_path;

static int on_same_file(void *payload, const char *path)
{
    one_path *p = payload;
    if (p->n++ == 0)
        p->path = mn_strdup(path);
    return 0;
}

/* What c's code is today; c is updated where it follows its code or resolves. */
static int check_one(mn_store *s, cite *c, outcome *o)
{
    int64_t file_id = 0;
    char file_hash[MN_HASH_HEX];
    int rc = mn_store_file_lookup(s, &file_id, file_hash, c->path);
    if (rc && rc != MN_ENOTFOUND)
        return rc;
    mn_error_clear();
    bool have = rc == 0;
    *o = OUT_UNRESOLVED;
    if (c->symbol)
        return check_symbol(s, c, o);
    if (have && c->start > 0)
        return check_lines(s, c, file_id, o);
    if (have) { /* a file: it is there */
        if (!c->stale)
            cite_set_str(&c->hash, file_hash);
        *o = OUT_FRESH;
        return 0;
    }
    if (!c->hash)
        return 0;
    if (c->start > 0) {
        *o = OUT_GONE;
        return 0;
    }
    one_path p = {NULL, 0};
    if ((rc = mn_store_cite_files_with_hash(s, c->hash, on_same_file, &p)) == 0) {
        if (p.n == 1) {
            cite_set_str(&c->path, p.path);
            *o = OUT_FOLLOWED;
        } else {
            *o = OUT_GONE;
        }
    }
    free(p.path);
    return rc;
}

/* ---- the check after an index run ---- */

typedef struct {
    int64_t id;
    char *memory_id;
    cite c;
} pending;

typedef MN_VEC(pending) pending_vec;

static void cite_from_rec(cite *c, const mn_cite_rec *r)
{
    c->path = mn_strdup(r->path);
    c->symbol = r->symbol ? mn_strdup(r->symbol) : NULL;
    c->hash = r->hash ? mn_strdup(r->hash) : NULL;
    c->text = r->text ? mn_strdup(r->text) : NULL;
    c->start = r->start_line;
    c->end = r->end_line;
    c->checked_at = r->checked_at;
    c->stale = r->stale;
}

static int collect_pending(void *payload, const mn_cite_rec *r)
{
    pending p = {r->id, mn_strdup(r->memory_id), {0}};
    cite_from_rec(&p.c, r);
    mn_vec_push((pending_vec *)payload, p);
    return 0;
}

static void pending_release(pending_vec *v)
{
    for (size_t i = 0; i < v->len; i++) {
        free(v->items[i].memory_id);
        cite_release(&v->items[i].c);
    }
    mn_vec_release(v);
}

static json_t *where_json(const char *path, const char *symbol, int64_t start, int64_t end)
{
    json_t *o = json_pack("{s:s}", "path", path);
    if (symbol)
        json_object_set_new(o, "symbol", json_string(symbol));
    if (start > 0) {
        json_object_set_new(o, "start_line", json_integer(start));
        json_object_set_new(o, "end_line", json_integer(end));
    }
    return o;
}

static int write_back(mn_store *s, int64_t id, const cite *c, int64_t now)
{
    mn_cite_rec r = {0};
    r.id = id;
    r.path = c->path;
    r.symbol = c->symbol;
    r.hash = c->hash;
    r.text = c->text;
    r.start_line = c->start;
    r.end_line = c->end;
    r.checked_at = now;
    r.stale = c->stale;
    return mn_store_cite_set(s, &r);
}

static int check_batch(mn_store *s, const char *actor, int64_t now, pending_vec *v,
                       mn_cite_stats *st)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    for (size_t i = 0; i < v->len && rc == 0; i++) {
        pending *p = &v->items[i];
        cite *c = &p->c;
        char *old_path = mn_strdup(c->path), *old_symbol = c->symbol ? mn_strdup(c->symbol) : NULL;
        int was = c->stale;
        outcome o;
        st->checked++;
        if ((rc = check_one(s, c, &o)) != 0) {
            free(old_path);
            free(old_symbol);
            break;
        }
        const char *action = NULL;
        json_t *detail = NULL;
        switch (o) {
        case OUT_UNRESOLVED:
            break;
        case OUT_FRESH:
            st->fresh++;
            if (was) {
                c->stale = MN_CITE_FRESH;
                st->cleared++;
                action = "stale_cleared";
                detail = json_pack("{s:o}", "citation",
                                   where_json(c->path, c->symbol, c->start, c->end));
            }
            break;
        case OUT_FOLLOWED:
            st->followed++;
            c->stale = MN_CITE_FRESH;
            action = "cite_follow";
            detail = json_pack("{s:o,s:o}", "from", where_json(old_path, old_symbol, 0, 0), "to",
                               where_json(c->path, c->symbol, c->start, c->end));
            if (was) {
                st->cleared++;
                json_object_set_new(detail, "stale_cleared", json_true());
            }
            break;
        case OUT_CHANGED:
        case OUT_GONE:
            c->stale = o == OUT_CHANGED ? MN_CITE_CHANGED : MN_CITE_GONE;
            if (!was) {
                st->stale++;
                action = "stale";
                detail = json_pack("{s:o,s:s}", "citation",
                                   where_json(c->path, c->symbol, c->start, c->end), "reason",
                                   o == OUT_CHANGED ? "changed" : "gone");
            }
            break;
        }
        free(old_path);
        free(old_symbol);
        rc = write_back(s, p->id, c, now);
        if (rc == 0 && action)
            rc = mn_store_audit(s, actor, action, p->memory_id, detail);
        json_decref(detail);
    }
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}

int mn_citations_check(mn_store *s, const char *actor, int64_t now, mn_cite_stats *st)
{
    memset(st, 0, sizeof(*st));
    if (mn_store_read_only_reason(s))
        return 0; /* checked by the next writer */
    for (;;) {
        pending_vec v = MN_VEC_INIT;
        int rc = mn_store_cite_dirty_each(s, CHECK_BATCH, collect_pending, &v);
        if (rc == 0 && v.len)
            rc = check_batch(s, actor, now, &v, st);
        size_t n = v.len;
        pending_release(&v);
        if (rc || n < CHECK_BATCH)
            return rc;
    }
}

/* ---- save: fill in ---- */

/* A citation object in the canonical order of the memory shape. */
static json_t *cite_json(const cite *c, int64_t now)
{
    json_t *o = where_json(c->path, c->symbol, c->start, c->end);
    if (c->hash)
        json_object_set_new(o, "hash", json_string(c->hash));
    if (c->text)
        json_object_set_new(o, "text", json_string(c->text));
    if (c->stale)
        json_object_set_new(o, "stale", json_string(c->stale == MN_CITE_GONE ? "gone" : "changed"));
    if (now) {
        char t[32];
        mn_time_format(t, now);
        json_object_set_new(o, "checked_at", json_string(t));
    }
    return o;
}

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* A citation as given (a save's, or one read back with a memory). */
static void cite_from_json(cite *c, const json_t *j)
{
    memset(c, 0, sizeof(*c));
    c->path = mn_strdup(jstr(j, "path") ? jstr(j, "path") : "");
    c->symbol = jstr(j, "symbol") && *jstr(j, "symbol") ? mn_strdup(jstr(j, "symbol")) : NULL;
    c->hash = jstr(j, "hash") && *jstr(j, "hash") ? mn_strdup(jstr(j, "hash")) : NULL;
    c->text = jstr(j, "text") ? mn_strdup(jstr(j, "text")) : NULL;
    c->start = json_integer_value(json_object_get(j, "start_line"));
    c->end = json_integer_value(json_object_get(j, "end_line"));
    if (c->start > 0 && c->end < c->start)
        c->end = c->start;
    const char *st = jstr(j, "stale");
    c->stale = !st ? MN_CITE_FRESH : !strcmp(st, "gone") ? MN_CITE_GONE : MN_CITE_CHANGED;
    if (jstr(j, "checked_at") && mn_time_parse(&c->checked_at, jstr(j, "checked_at")) != 0)
        c->checked_at = 0;
}

/* Resolve a citation given at save time against the index (a hash given is kept). */
static int resolve_given(mn_store *s, cite *c, bool *resolved)
{
    char *given = c->hash ? mn_strdup(c->hash) : NULL;
    free(c->hash);
    c->hash = NULL;
    outcome o;
    int rc = check_one(s, c, &o);
    *resolved = rc == 0 && o == OUT_FRESH;
    if (given && *resolved && strcmp(given, c->hash ? c->hash : "") != 0) {
        /* the caller cited another version of this code: checked, it goes stale */
        free(c->hash);
        c->hash = given;
        given = NULL;
        free(c->text);
        c->text = NULL;
        *resolved = false;
    }
    if (given && !c->hash) {
        c->hash = given;
        given = NULL;
    }
    free(given);
    return rc;
}

typedef struct {
    mn_store *s;
    json_t *out;       /* the citations array being built */
    mn_map seen;       /* "path\1symbol\1start" of every citation */
    const json_t *mem; /* for the paths it names */
    size_t autos;
    int64_t now;
} filler;

static void cite_key(mn_buf *k, const char *path, const char *symbol, int64_t start)
{
    mn_buf_clear(k);
    mn_buf_printf(k, "%s\1%s\1%lld", path, symbol ? symbol : "", (long long)start);
}

static bool seen_add(filler *f, const char *path, const char *symbol, int64_t start)
{
    mn_buf k = MN_BUF_INIT;
    cite_key(&k, path, symbol, start);
    bool had = mn_map_has(&f->seen, k.ptr);
    if (!had)
        mn_map_set(&f->seen, k.ptr, (void *)1);
    mn_buf_release(&k);
    return !had;
}

/* Whether path is one the memory names (scope, files modified, a citation), or under one. */
static bool named_path(const filler *f, const char *path)
{
    const json_t *lists[] = {json_object_get(json_object_get(f->mem, "scope"), "paths"),
                             json_object_get(json_object_get(f->mem, "context"), "files_modified")};
    for (size_t l = 0; l < MN_ARRAY_SIZE(lists); l++) {
        size_t i;
        const json_t *v;
        json_array_foreach(lists[l], i, v)
        {
            const char *p = json_string_value(v);
            size_t n = p ? strlen(p) : 0;
            while (n && p[n - 1] == '/')
                n--;
            if (n && !strncmp(path, p, n) && (path[n] == '\0' || path[n] == '/'))
                return true;
        }
    }
    size_t i;
    const json_t *c;
    json_array_foreach(f->out, i, c) if (jstr(c, "path") && !strcmp(jstr(c, "path"), path) &&
                                         !jstr(c, "symbol")) return true;
    return false;
}

static int on_file_named(void *payload, const mn_file_rec *r)
{
    return on_same_file(payload, r->path);
}

static void add_file_cite(filler *f, const char *path, const char *hash);

static void add_auto_file(filler *f, const char *path)
{
    int64_t id;
    char hash[MN_HASH_HEX];
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    if (f->autos >= MN_CITE_AUTO_MAX || json_array_size(f->out) >= 64 || !*path)
        return;
    char *found = NULL;
    if (mn_store_file_lookup(f->s, &id, hash, path) != 0) {
        mn_error_clear();
        /* a bare file name: the one indexed file of that name */
        one_path p = {NULL, 0};
        mn_buf glob = MN_BUF_INIT;
        mn_buf_printf(&glob, "*/%s", path);
        if (strchr(path, '/') || strpbrk(path, "*?[") ||
            mn_store_files_each(f->s, glob.ptr, on_file_named, &p) != 0 || p.n != 1 ||
            mn_store_file_lookup(f->s, &id, hash, p.path) != 0) {
            mn_error_clear();
            mn_buf_release(&glob);
            free(p.path);
            return;
        }
        mn_buf_release(&glob);
        path = found = p.path;
    }
    add_file_cite(f, path, hash);
    free(found);
}

static void add_file_cite(filler *f, const char *path, const char *hash)
{
    if (!seen_add(f, path, NULL, 0))
        return;
    cite c = {0};
    c.path = (char *)path;
    c.hash = (char *)hash;
    json_array_append_new(f->out, cite_json(&c, f->now));
    f->autos++;
}

static int add_auto_symbol(filler *f, const char *name)
{
    sym_vec defs = MN_VEC_INIT;
    if (f->autos >= MN_CITE_AUTO_MAX || json_array_size(f->out) >= 64)
        return 0;
    int rc = mn_store_cite_symbols(f->s, name, NULL, NULL, collect_sym, &defs);
    if (rc) {
        syms_release(&defs);
        return rc;
    }
    const sym *pick = defs.len == 1 ? &defs.items[0] : NULL;
    if (defs.len > 1) { /* several: only one in the paths the memory names will do */
        size_t in = 0;
        for (size_t i = 0; i < defs.len; i++)
            if (named_path(f, defs.items[i].path)) {
                in++;
                pick = &defs.items[i];
            }
        if (in != 1)
            pick = NULL;
    }
    if (pick && seen_add(f, pick->path, pick->qualified_name, pick->start_line)) {
        cite c = {0};
        if ((rc = take_symbol(f->s, &c, pick)) == 0) {
            json_array_append_new(f->out, cite_json(&c, f->now));
            f->autos++;
        }
        cite_release(&c);
    }
    syms_release(&defs);
    return rc;
}

static const char *const code_ext[] = {
    ".c",    ".h",    ".cc",   ".cpp", ".hpp", ".py",  ".js",    ".jsx",   ".ts", ".tsx", ".go",
    ".rs",   ".java", ".kt",   ".rb",  ".php", ".cs",  ".swift", ".scala", ".sh", ".md",  ".json",
    ".yaml", ".yml",  ".toml", ".sql", ".mjs", ".cjs", ".vue",   ".lua",   ".ex", ".exs", ".cfg"};

static bool has_code_ext(const char *t, size_t n)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(code_ext); i++) {
        size_t e = strlen(code_ext[i]);
        if (n > e && !memcmp(t + n - e, code_ext[i], e))
            return true;
    }
    return false;
}

/* Whether an identifier-ish token is shaped like code (see the top of the file). */
static bool code_shaped(const char *t, size_t n, bool call, bool ticked)
{
    if (n < 3 || !(t[0] == '_' || (t[0] >= 'A' && t[0] <= 'Z') || (t[0] >= 'a' && t[0] <= 'z')))
        return false;
    if (call || ticked)
        return true;
    for (size_t i = 1; i + 1 < n; i++) {
        if (t[i] == '_' && t[i - 1] != '_' && t[i + 1] != '_')
            return true; /* snake_case */
        if (t[i] >= 'a' && t[i] <= 'z' && t[i + 1] >= 'A' && t[i + 1] <= 'Z')
            return true; /* camelCase */
        if (t[i] == '.' && ident_char((unsigned char)t[i - 1]) &&
            ident_char((unsigned char)t[i + 1]))
            return true; /* dotted */
    }
    return false;
}

typedef struct {
    MN_VEC(char *) paths;
    MN_VEC(char *) names;
    mn_map seen;
} mentions;

static void mention(mentions *m, bool path, const char *t, size_t n)
{
    if (m->paths.len + m->names.len >= AUTO_NAMES_MAX)
        return;
    char *s = mn_strndup(t, n);
    mn_buf k = MN_BUF_INIT;
    mn_buf_printf(&k, "%c%s", path ? 'p' : 'n', s);
    if (mn_map_has(&m->seen, k.ptr)) {
        free(s);
    } else {
        mn_map_set(&m->seen, k.ptr, (void *)1);
        if (path)
            mn_vec_push(&m->paths, s);
        else
            mn_vec_push(&m->names, s);
    }
    mn_buf_release(&k);
}

/* The code-shaped tokens of a text: paths and names. */
static void scan_text(mentions *m, const char *text)
{
    bool ticked = false;
    for (const char *p = text; p && *p;) {
        unsigned char c = (unsigned char)*p;
        if (c == '`') {
            ticked = !ticked;
            p++;
            continue;
        }
        if (!(ident_char(c) || c == '/' || c == '.')) {
            p++;
            continue;
        }
        const char *a = p;
        while (*p && (ident_char((unsigned char)*p) || *p == '/' || *p == '.' || *p == '-' ||
                      (p[0] == ':' && p[1] == ':')))
            p += (p[0] == ':') ? 2 : 1;
        size_t n = (size_t)(p - a);
        while (n && (a[n - 1] == '.' || a[n - 1] == '-' || a[n - 1] == ':'))
            n--; /* the end of a sentence */
        if (n == 0 || n > 512)
            continue;
        bool slash = memchr(a, '/', n) != NULL;
        if (n >= 3 && (slash || has_code_ext(a, n)) && !memmem(a, n, "//", 2)) {
            mention(m, true, a, n);
            continue;
        }
        if (slash)
            continue;
        bool call = *p == '(';
        if (code_shaped(a, n, call, ticked))
            mention(m, false, a, n);
    }
}

int mn_citations_fill(mn_store *s, json_t *mem, int64_t now)
{
    filler f = {s, json_array(), MN_MAP_INIT, mem, 0, now};
    mentions m = {MN_VEC_INIT, MN_VEC_INIT, MN_MAP_INIT};
    int rc = 0;
    size_t i;
    json_t *v;
    /* the citations given (resolved now), or read back with the memory (kept as they are) */
    json_array_foreach(json_object_get(mem, "citations"), i, v)
    {
        cite c;
        cite_from_json(&c, v);
        bool as_is = c.checked_at > 0, resolved = false;
        if (!as_is && (rc = resolve_given(s, &c, &resolved)) != 0) {
            cite_release(&c);
            goto out;
        }
        if (json_array_size(f.out) < 64 && seen_add(&f, c.path, c.symbol, c.start))
            json_array_append_new(f.out,
                                  as_is ? json_deep_copy(v) : cite_json(&c, resolved ? now : 0));
        cite_release(&c);
    }
    /* what the memory names */
    const json_t *scope = json_object_get(mem, "scope"), *ctx = json_object_get(mem, "context");
    json_array_foreach(json_object_get(scope, "paths"), i, v)
        add_auto_file(&f, json_string_value(v));
    json_array_foreach(json_object_get(ctx, "files_modified"), i, v)
        add_auto_file(&f, json_string_value(v));
    json_array_foreach(json_object_get(scope, "symbols"), i,
                       v) if ((rc = add_auto_symbol(&f, json_string_value(v))) != 0) goto out;
    scan_text(&m, jstr(mem, "title"));
    scan_text(&m, jstr(mem, "body"));
    scan_text(&m, jstr(ctx, "situation"));
    scan_text(&m, jstr(ctx, "solution"));
    scan_text(&m, jstr(ctx, "what_failed"));
    json_array_foreach(json_object_get(ctx, "error_messages"), i, v)
        scan_text(&m, json_string_value(v));
    for (i = 0; i < m.paths.len; i++)
        add_auto_file(&f, m.paths.items[i]);
    for (i = 0; i < m.names.len && rc == 0; i++)
        rc = add_auto_symbol(&f, m.names.items[i]);
    if (rc)
        goto out;
    if (json_array_size(f.out))
        json_object_set(mem, "citations", f.out);
    else
        json_object_del(mem, "citations");
out:
    json_decref(f.out);
    mn_map_release(&f.seen);
    for (i = 0; i < m.paths.len; i++)
        free(m.paths.items[i]);
    for (i = 0; i < m.names.len; i++)
        free(m.names.items[i]);
    mn_vec_release(&m.paths);
    mn_vec_release(&m.names);
    mn_map_release(&m.seen);
    return rc;
}

/* ---- stale: list, diff, revalidate ---- */

/* Where a stale citation's code is today, with its text: *found false when nowhere. */
static int today(mn_store *s, const cite *c, cite *now, bool *found)
{
    int64_t file_id = 0;
    char file_hash[MN_HASH_HEX];
    int rc = 0;
    memset(now, 0, sizeof(*now));
    *found = false;
    if (c->symbol) {
        sym_vec at = MN_VEC_INIT;
        rc = mn_store_cite_symbols(s, c->symbol, c->path, NULL, collect_sym, &at);
        const sym *y = rc ? NULL : nearest(&at, c->start);
        if (y && (rc = take_symbol(s, now, y)) == 0)
            *found = true;
        syms_release(&at);
        return rc;
    }
    rc = mn_store_file_lookup(s, &file_id, file_hash, c->path);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        return 0;
    }
    if (rc)
        return rc;
    now->path = mn_strdup(c->path);
    *found = true;
    if (c->start <= 0) {
        now->hash = mn_strdup(file_hash);
        return 0;
    }
    span sp;
    if ((rc = read_lines(s, &sp, file_id, c->start, c->end)) == 0) {
        now->text = lines_text(&sp, c->start, c->end);
        char h[MN_HASH_HEX];
        hash_hex(h, now->text, strlen(now->text));
        now->hash = mn_strdup(h);
        now->start = c->start;
        now->end = c->end;
    }
    span_release(&sp);
    return rc;
}

typedef MN_VEC(mn_cite_rec) rec_vec;

typedef struct {
    MN_VEC(cite) cites;
    MN_VEC(int64_t) ids;
} memory_cites;

static int collect_cites(void *payload, const mn_cite_rec *r)
{
    memory_cites *m = payload;
    cite c;
    cite_from_rec(&c, r);
    mn_vec_push(&m->cites, c);
    mn_vec_push(&m->ids, r->id);
    return 0;
}

static void memory_cites_release(memory_cites *m)
{
    for (size_t i = 0; i < m->cites.len; i++)
        cite_release(&m->cites.items[i]);
    mn_vec_release(&m->cites);
    mn_vec_release(&m->ids);
}

typedef struct {
    mn_store *s;
    json_t *list;
    int rc;
} stale_walk;

static int on_stale_memory(void *payload, const char *id)
{
    stale_walk *w = payload;
    json_t *mem = NULL;
    memory_cites mc = {MN_VEC_INIT, MN_VEC_INIT};
    int rc = mn_store_memory_get(w->s, &mem, id);
    if (rc == 0)
        rc = mn_store_cite_of_memory(w->s, id, collect_cites, &mc);
    json_t *cits = json_array();
    for (size_t i = 0; rc == 0 && i < mc.cites.len; i++) {
        const cite *c = &mc.cites.items[i];
        if (!c->stale)
            continue;
        cite now;
        bool found;
        if ((rc = today(w->s, c, &now, &found)) != 0)
            break;
        json_t *o = where_json(c->path, c->symbol, c->start, c->end);
        json_object_set_new(o, "stale", json_string(c->stale == MN_CITE_GONE ? "gone" : "changed"));
        if (found)
            json_object_set_new(o, "now", where_json(now.path, now.symbol, now.start, now.end));
        mn_buf d = MN_BUF_INIT;
        mn_diff_lines(&d, c->text ? c->text : "", found && now.text ? now.text : "", DIFF_CONTEXT);
        json_object_set_new(o, "diff", json_stringn(d.ptr, d.len));
        mn_buf_release(&d);
        json_array_append_new(cits, o);
        cite_release(&now);
    }
    if (rc == 0)
        json_array_append_new(
            w->list, json_pack("{s:s,s:O,s:O,s:O,s:o}", "id", id, "kind",
                               json_object_get(mem, "kind"), "title", json_object_get(mem, "title"),
                               "status", json_object_get(mem, "status"), "citations", cits));
    else
        json_decref(cits);
    json_decref(mem);
    memory_cites_release(&mc);
    return rc;
}

int mn_citations_stale(mn_store *s, size_t limit, size_t offset, json_t **out)
{
    stale_walk w = {s, json_array(), 0};
    int64_t total = 0;
    int rc = mn_store_begin_read(s);
    if (rc == 0) {
        rc = mn_store_cite_stale_memories(s, limit, offset, on_stale_memory, &w, &total);
        if (rc)
            mn_store_rollback(s);
        else
            rc = mn_store_commit(s);
    }
    if (rc) {
        json_decref(w.list);
        return rc;
    }
    *out = json_pack("{s:o,s:I}", "memories", w.list, "total", (json_int_t)total);
    return 0;
}

int mn_citations_revalidate(mn_store *s, const char *actor, const char *id, int64_t now,
                            json_t **out)
{
    memory_cites mc = {MN_VEC_INIT, MN_VEC_INIT};
    json_t *mem = NULL;
    size_t kept = 0, dropped = 0;
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    if ((rc = mn_store_memory_get(s, &mem, id)) != 0 ||
        (rc = mn_store_cite_of_memory(s, id, collect_cites, &mc)) != 0)
        goto fail;
    for (size_t i = 0; i < mc.cites.len; i++) {
        cite *c = &mc.cites.items[i];
        if (!c->stale)
            continue;
        cite t;
        bool found;
        if ((rc = today(s, c, &t, &found)) != 0)
            goto fail;
        if (found) {
            t.stale = MN_CITE_FRESH;
            rc = write_back(s, mc.ids.items[i], &t, now);
            kept++;
        } else {
            rc = mn_store_cite_delete(s, mc.ids.items[i]);
            dropped++;
        }
        cite_release(&t);
        if (rc)
            goto fail;
    }
    const char *action = kept + dropped ? "revalidated" : "unchanged";
    if (kept + dropped) {
        json_t *detail =
            json_pack("{s:I,s:I}", "citations", (json_int_t)kept, "dropped", (json_int_t)dropped);
        rc = mn_store_memory_set_status(s, id, jstr(mem, "status"), now);
        if (rc == 0)
            rc = mn_store_audit(s, actor, "revalidate", id, detail);
        json_decref(detail);
        if (rc)
            goto fail;
    }
    if ((rc = mn_store_commit(s)) != 0)
        goto out;
    *out = json_pack("{s:s,s:s,s:O,s:I,s:I}", "id", id, "action", action, "title",
                     json_object_get(mem, "title"), "citations", (json_int_t)kept, "dropped",
                     (json_int_t)dropped);
    goto out;
fail:
    mn_store_rollback(s);
out:
    json_decref(mem);
    memory_cites_release(&mc);
    return rc;
}
