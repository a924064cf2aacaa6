/*
 * graph.c - the code a query names, and the graph around what matched.
 *
 * Named code (mn_graph_named_code). Each name the query mentions (query.c)
 * is looked up among the symbol definitions; a name defined in F files
 * gives each of them strength / F (a name every module defines says little
 * about which one is meant; names defined in more than NAME_MAX_FILES files
 * are skipped), times its specificity (specificity(): a name in most
 * chunks, like a central class every function handles, says little too).
 * A qualified mention (Class.method) counts for definitions whose qualified
 * name ends with it; when none does, for the module-level definitions of
 * its last name, at 0.8 (xr.where: an alias of a package, then a
 * function). Paths and module paths are matched
 * against the indexed files by suffix on '/' boundaries (a traceback's
 * /home/u/.../site-packages/pkg/mod.py finds pkg/mod.py), dropping leading
 * directories until something matches; a path matching M files gives each
 * strength / M. Traceback frames nearer the fault (the last ones) count
 * more: strength * (1 + FRAME_BONUS * position / frames); the files the
 * deepest frame in the project matches (M of them) get fault = 1 / M: the
 * exception was raised there, library frames after it left aside. A link
 * to a line of a file of the repository (query.c) is matched whole (no
 * leading directory dropped: it may be another repository's file) and
 * points at the code as that frame does: fault = 1 / its files too.
 *
 * Error messages (messages()). An exception line the query quotes
 * ("ValueError: Resulting object does not have monotonic ...") is looked
 * for as an FTS5 phrase over the chunks (the code that raises it holds the
 * string); a formatted value often ends a message, so without a match its
 * last word goes, down to MN_QUERY_MESSAGE_MIN words (MESSAGE_TRIES
 * queries at most). The files holding it (F, at most MESSAGE_FILES) get
 * message += 1 / F.
 *
 * Spreading (mn_graph_spread). The SPREAD_SEEDS best files so far pass part
 * of their score to their neighbours in the import / call graph (both
 * directions, weighted by edge counts):
 *     graph(g) = sum over seeds f of pre(f) * w(f, g) / sum_h w(f, h)
 * one hop; a personalised PageRank truncated after its first step, which
 * on these seeds is where almost all of its mass lands. The fusion damps it
 * (fusion.c). For code items (not file ranking) only the best 3 seed it.
 *
 * Memories attached (mn_graph_attached_memories): memories scoped to the
 * best files (or a directory above them, or linked `about` them) come along
 * with graph = the file's normalised score. Memories scoped to the files of
 * the request (mn_graph_scoped_memories) come along with their scope signal.
 * Episodes saved next to the best episodes, in the same session, come
 * along too (mn_graph_episodes, at the end of this file).
 */
#include "common.h"
#include <inttypes.h>
#include <math.h>

#include "retrieve/retrieve_internal.h"
#include "text/tokenize.h"

#define NAME_MAX_FILES  24  /* a name defined in more files is too common to point anywhere */
#define NAMES_LOOKED_UP 96  /* names probed per query, strongest first */
#define FRAME_BONUS     0.5 /* the last traceback frame counts 1.5 times the first */
#define SPREAD_SEEDS    8
#define FAULT_FILES     4    /* files the deepest frame's path may match */
#define MESSAGE_CHUNKS  32   /* chunks read per quoted error message */
#define MESSAGE_FILES   3    /* files holding a message, at most, for it to count */
#define MESSAGE_TRIES   6    /* phrase queries per message, its last words dropped one by one */
#define SPREAD_EDGES    2000 /* edges read per spread */
#define ATTACH_FILES    5
#define SCOPE_FILES_MAX 256 /* files of the request's scope made candidates */

typedef struct {
    size_t mention; /* index into q.mentions */
    bool fallback;  /* a qualified mention's top-level definition of its last name */
    int64_t file_id, symbol_id;
    const char *path, *role, *qualified_name;
} def;

typedef MN_VEC(def) def_vec;

typedef struct {
    mn_search_ctx *c;
    const size_t *which; /* lookup index -> mention index */
    const char *const *names;
    def_vec defs;
} lookup;

static int on_def(void *payload, size_t which, const mn_symbol_def *d)
{
    lookup *l = payload;
    def x;
    x.mention = l->which[which];
    const mn_mention *m = &l->c->q.mentions[x.mention];
    x.fallback = false;
    if (m->kind == MN_MENTION_QUALIFIED) {
        /* Class.method: the definition's qualified name must end with it;
         * else a module-level definition of the name stands in for it
         * (xr.where, np.zeros: an alias of a module, then a function) */
        size_t ql = strlen(d->qualified_name), ml = strlen(m->text);
        if (ql < ml || strcmp(d->qualified_name + ql - ml, m->text) != 0 ||
            (ql > ml && d->qualified_name[ql - ml - 1] != '.')) {
            if (strcmp(d->qualified_name, d->name) != 0)
                return 0;
            x.fallback = true;
        }
    }
    x.file_id = d->file_id;
    x.symbol_id = d->id;
    x.path = mn_arena_strdup(l->c->arena, d->path);
    x.role = mn_arena_strdup(l->c->arena, d->role);
    x.qualified_name = NULL;
    mn_vec_push(&l->defs, x);
    return 0;
}

static int cmp_def(const void *a, const void *b)
{
    const def *x = a, *y = b;
    if (x->mention != y->mention)
        return x->mention < y->mention ? -1 : 1;
    if (x->fallback != y->fallback)
        return x->fallback ? 1 : -1;
    return x->file_id < y->file_id ? -1 : x->file_id > y->file_id;
}

static double frame_weight(const mn_search_ctx *c, const mn_mention *m)
{
    if (!m->frame || c->q.nframes <= 0)
        return 1.0;
    return 1.0 + FRAME_BONUS * (double)m->frame / (double)c->q.nframes;
}

/* The mention's weight: strength, repeated mentions a little more, frames by position. */
static double mention_weight(const mn_search_ctx *c, const mn_mention *m)
{
    return m->strength * (1.0 + 0.25 * log((double)m->count)) * frame_weight(c, m);
}

static int cmp_by_strength(const void *a, const void *b, void *payload)
{
    const mn_mention *ms = payload;
    const mn_mention *x = &ms[*(const size_t *)a], *y = &ms[*(const size_t *)b];
    if (x->strength != y->strength)
        return x->strength > y->strength ? -1 : 1;
    return x->count > y->count ? -1 : x->count < y->count;
}

/* The term a name is indexed as: its whole when it has several pieces, else its one piece. */
typedef struct {
    char term[MN_TOK_MAX_BYTES + 1];
    int n;
    bool whole;
} index_term;

static int on_index_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                          int colocated)
{
    index_term *t = payload;
    MN_UNUSED(start);
    MN_UNUSED(end);
    if (colocated == MN_TOK_COLOC_WHOLE || (t->n == 0 && !colocated)) {
        memcpy(t->term, tok, len);
        t->term[len] = '\0';
        t->whole = colocated == MN_TOK_COLOC_WHOLE;
    }
    if (!colocated)
        t->n++;
    return t->whole ? 1 : 0;
}

/*
 * How specific each name is in this code base, from the number of chunks
 * holding it (df among N chunks):
 *     spec = clamp(ln(N / df) / ln(N / SPEC_DF), 0, 1)
 * a name in at most SPEC_DF chunks is fully specific; one in every chunk
 * (a central class every function handles) says nothing about where to
 * look, however few files define it.
 */
#define SPEC_DF 20

static int specificity(mn_search_ctx *c, const char *const *names, size_t n, double *spec)
{
    const char **terms = mn_calloc(n ? n : 1, sizeof(char *));
    index_term *t = mn_calloc(n ? n : 1, sizeof(index_term));
    int64_t *df = mn_calloc(n ? n : 1, sizeof(int64_t)), ndocs = 0;
    for (size_t i = 0; i < n; i++) {
        mn_tokenize(names[i], strlen(names[i]), MN_LANG_EN, 0, on_index_token, &t[i]);
        terms[i] = t[i].term;
    }
    int rc = mn_store_chunk_df(c->store, terms, n, df, &ndocs);
    for (size_t i = 0; i < n && rc == 0; i++) {
        double floor = SPEC_DF;
        if (ndocs <= floor || df[i] <= floor) {
            spec[i] = 1;
            continue;
        }
        double v = log((double)ndocs / (double)df[i]) / log((double)ndocs / floor);
        spec[i] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
    free(terms);
    free(t);
    free(df);
    return rc;
}

typedef MN_VEC(int64_t) id_vec;

static int on_import(void *payload, int64_t file_id)
{
    mn_vec_push((id_vec *)payload, file_id);
    return 0;
}

static bool has_id(const id_vec *v, int64_t id)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i] == id)
            return true;
    return false;
}

/* The modules the __init__.py of package pkg (a dotted name or a query's alias of one) imports. */
static int package_modules(mn_search_ctx *c, const char *pkg, size_t len, id_vec *ids)
{
    mn_buf name = MN_BUF_INIT, path = MN_BUF_INIT;
    mn_buf_put(&name, pkg, len);
    for (size_t a = 0; a < c->q.naliases; a++)
        if (strcmp(c->q.aliases[a].alias, name.ptr) == 0) {
            mn_buf_clear(&name);
            mn_buf_puts(&name, c->q.aliases[a].module);
            break;
        }
    for (char *p = name.ptr; *p; p++)
        if (*p == '.')
            *p = '/';
    static const char *const roots[] = {"", "src/", "lib/"};
    int rc = 0;
    for (size_t r = 0; r < MN_ARRAY_SIZE(roots) && rc == 0 && ids->len == 0; r++) {
        mn_buf_clear(&path);
        mn_buf_printf(&path, "%s%s/__init__.py", roots[r], name.ptr);
        rc = mn_store_file_imports(c->store, path.ptr, on_import, ids);
    }
    mn_buf_release(&name);
    mn_buf_release(&path);
    return rc;
}

/*
 * xr.where, requests.get: a qualified mention that matched no qualified name
 * whole, whose first part is a package (through the query's own "import
 * xarray as xr", or named itself). Of the module-level definitions of its
 * last name standing in for it, those in a module the package's
 * __init__.py imports are the package's name (xarray's where is
 * computation.py's, not duck_array_ops.py's); the others are dropped when
 * one is, and the last name on its own ("where", a mention of the same
 * words) is held to the same files: it named no method of DataArray. A
 * package the index does not hold (numpy's np.where) changes nothing.
 */
static int prefer_exports(mn_search_ctx *c, def_vec *defs)
{
    id_vec *keep = mn_calloc(c->q.nmentions ? c->q.nmentions : 1, sizeof(id_vec));
    id_vec mods = MN_VEC_INIT; /* of package pkg, read once for its mentions in a row */
    mn_buf pkg = MN_BUF_INIT;
    int rc = 0;
    /* the files each mention is held to (none: all of its definitions) */
    for (size_t i = 0; i < defs->len && rc == 0;) {
        size_t end = i;
        while (end < defs->len && defs->items[end].mention == defs->items[i].mention)
            end++;
        const mn_mention *m = &c->q.mentions[defs->items[i].mention];
        const char *dot = strchr(m->text, '.'), *last = strrchr(m->text, '.');
        if (!defs->items[i].fallback || !dot || dot == m->text || end - i < 2) {
            i = end;
            continue;
        }
        size_t plen = (size_t)(dot - m->text);
        if (pkg.len != plen || memcmp(pkg.ptr, m->text, plen) != 0) {
            mn_buf_clear(&pkg);
            mn_buf_put(&pkg, m->text, plen);
            mods.len = 0;
            rc = package_modules(c, m->text, plen, &mods);
        }
        for (size_t k = i; k < end && mods.len; k++) {
            if (!has_id(&mods, defs->items[k].file_id))
                continue;
            mn_vec_push(&keep[defs->items[i].mention], defs->items[k].file_id);
            for (size_t j = 0; j < c->q.nmentions; j++)
                if (c->q.mentions[j].kind == MN_MENTION_NAME &&
                    strcmp(c->q.mentions[j].text, last + 1) == 0)
                    mn_vec_push(&keep[j], defs->items[k].file_id);
        }
        i = end;
    }
    mn_vec_release(&mods);
    mn_buf_release(&pkg);
    size_t out = 0;
    for (size_t k = 0; k < defs->len; k++) {
        const id_vec *v = &keep[defs->items[k].mention];
        if (v->len == 0 || has_id(v, defs->items[k].file_id))
            defs->items[out++] = defs->items[k];
    }
    if (rc == 0)
        defs->len = out;
    for (size_t i = 0; i < c->q.nmentions; i++)
        mn_vec_release(&keep[i]);
    free(keep);
    return rc;
}

/*
 * The indexes of the query's mentions of the given kinds, strongest first,
 * at most NAMES_LOOKED_UP of them (the names a lookup probes).
 */
static size_t strongest_mentions(const mn_search_ctx *c, mn_mention_kind a, mn_mention_kind b,
                                 size_t cand[MN_QUERY_MAX_MENTIONS])
{
    size_t n = 0;
    for (size_t i = 0; i < c->q.nmentions; i++)
        if (c->q.mentions[i].kind == a || c->q.mentions[i].kind == b)
            cand[n++] = i;
    if (n > 1)
        qsort_r(cand, n, sizeof(size_t), cmp_by_strength, (void *)c->q.mentions);
    return n > NAMES_LOOKED_UP ? NAMES_LOOKED_UP : n;
}

static int symbols(mn_search_ctx *c)
{
    size_t cand[MN_QUERY_MAX_MENTIONS];
    size_t n = strongest_mentions(c, MN_MENTION_NAME, MN_MENTION_QUALIFIED, cand);
    if (n == 0)
        return 0;
    const char *names[NAMES_LOOKED_UP];
    for (size_t i = 0; i < n; i++) {
        const mn_mention *m = &c->q.mentions[cand[i]];
        const char *last = m->kind == MN_MENTION_QUALIFIED ? strrchr(m->text, '.') : NULL;
        names[i] = last ? last + 1 : m->text;
    }
    lookup l = {c, cand, names, MN_VEC_INIT};
    int rc = mn_store_symbols_named(c->store, names, n, on_def, &l);
    if (rc) {
        mn_vec_release(&l.defs);
        return rc;
    }
    if (l.defs.len > 1)
        qsort(l.defs.items, l.defs.len, sizeof(def), cmp_def);
    if ((rc = prefer_exports(c, &l.defs)) != 0) {
        mn_vec_release(&l.defs);
        return rc;
    }
    /* the specificity of the names that name something */
    double *spec = mn_calloc(n, sizeof(double)),
           *by_mention = mn_calloc(c->q.nmentions, sizeof(double));
    const char **found = mn_calloc(n, sizeof(char *));
    size_t *found_mention = mn_calloc(n, sizeof(size_t)), nfound = 0;
    for (size_t i = 0; i < n; i++) {
        bool any = false;
        for (size_t d = 0; d < l.defs.len && !any; d++)
            any = l.defs.items[d].mention == cand[i];
        if (any) {
            found[nfound] = names[i];
            found_mention[nfound++] = cand[i];
        }
    }
    rc = specificity(c, found, nfound, spec);
    for (size_t i = 0; i < nfound; i++)
        by_mention[found_mention[i]] = spec[i];
    free(spec);
    free(found);
    free(found_mention);
    if (rc) {
        free(by_mention);
        mn_vec_release(&l.defs);
        return rc;
    }
    /* per mention: its distinct files F, then strength / F to each (a
     * qualified mention's fallbacks only when nothing matched it whole) */
    for (size_t i = 0; i < l.defs.len;) {
        size_t j = i, files = 0, end;
        bool fallback = l.defs.items[i].fallback;
        for (end = i; end < l.defs.len && l.defs.items[end].mention == l.defs.items[i].mention;)
            end++;
        for (; j < end && l.defs.items[j].fallback == fallback; j++)
            if (j == i || l.defs.items[j].file_id != l.defs.items[j - 1].file_id)
                files++;
        const mn_mention *m = &c->q.mentions[l.defs.items[i].mention];
        if (files <= NAME_MAX_FILES) {
            double w = mention_weight(c, m) / (double)files * (fallback ? 0.8 : 1.0) *
                       by_mention[l.defs.items[i].mention];
            for (size_t k = i; k < j; k++) {
                def *d = &l.defs.items[k];
                if (k == i || d->file_id != l.defs.items[k - 1].file_id) {
                    mn_file_cand *f = mn_search_file(c, d->file_id, d->path, d->role);
                    f->named += w;
                }
                for (size_t x = 0; x < c->chunks.len; x++)
                    if (c->chunks.items[x].symbol_id == d->symbol_id &&
                        c->chunks.items[x].named < w)
                        c->chunks.items[x].named = w;
            }
        }
        i = end;
    }
    free(by_mention);
    mn_vec_release(&l.defs);
    return 0;
}

/* ---- paths ---- */

typedef struct {
    int64_t id;
    const char *path, *role;
} file_row;

typedef MN_VEC(file_row) file_rows;

typedef struct {
    mn_search_ctx *c;
    file_rows *rows;
} rows_payload;

static int on_file(void *payload, const mn_file_rec *f)
{
    rows_payload *p = payload;
    file_row r = {f->id, mn_arena_strdup(p->c->arena, f->path),
                  mn_arena_strdup(p->c->arena, f->role ? f->role : "source")};
    mn_vec_push(p->rows, r);
    return 0;
}

/* path ends with tail on a '/' boundary */
static bool ends_with_path(const char *path, size_t plen, const char *tail, size_t tlen)
{
    if (tlen == 0 || tlen > plen || memcmp(path + plen - tlen, tail, tlen) != 0)
        return false;
    return tlen == plen || path[plen - tlen - 1] == '/';
}

/* The length of path without its extension (of the last component). */
static size_t stem_len(const char *path)
{
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash) && dot != (slash ? slash + 1 : path))
        return (size_t)(dot - path);
    return n;
}

static bool module_match(const file_row *r, const char *mod, size_t mlen)
{
    size_t sl = stem_len(r->path);
    if (ends_with_path(r->path, sl, mod, mlen))
        return true;
    /* a package: mod/__init__.py */
    static const char init[] = "/__init__";
    if (sl > sizeof(init) - 1 &&
        memcmp(r->path + sl - (sizeof(init) - 1), init, sizeof(init) - 1) == 0)
        return ends_with_path(r->path, sl - (sizeof(init) - 1), mod, mlen);
    return false;
}

/*
 * A frame's file by its name alone, when no path with a directory matched
 * and exactly one file of the project has that name: a frame prints where
 * the file was built or installed (Go's /opt/gopath/src/app/vendor/
 * google.golang.org/grpc/clientconn.go, a package at the root of its
 * repository), a prefix no tail of the repository's paths ends with. A
 * name that several files share stays unmatched, as before.
 */
static size_t frame_file_alone(const file_rows *rows, const char *path, size_t *hits)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base), n = 0;
    for (size_t r = 0; r < rows->len && n < 2; r++)
        if (ends_with_path(rows->items[r].path, strlen(rows->items[r].path), base, bl))
            hits[n++] = r;
    return n == 1 ? 1 : 0;
}

static int paths(mn_search_ctx *c)
{
    bool any = c->req->nfiles > 0;
    for (size_t i = 0; i < c->q.nmentions && !any; i++)
        any =
            c->q.mentions[i].kind == MN_MENTION_PATH || c->q.mentions[i].kind == MN_MENTION_MODULE;
    if (!any)
        return 0;
    file_rows rows = MN_VEC_INIT;
    rows_payload p = {c, &rows};
    int rc = mn_store_files_each(c->store, NULL, on_file, &p);
    /* the files in the request's scope are candidates (fusion scores the scope) */
    size_t in_scope = 0;
    for (size_t r = 0; rc == 0 && r < rows.len && in_scope < SCOPE_FILES_MAX; r++) {
        const char *path = rows.items[r].path;
        size_t pl = strlen(path);
        for (size_t i = 0; i < c->req->nfiles; i++) {
            const char *f = c->req->files[i];
            size_t fl = strlen(f);
            while (fl && f[fl - 1] == '/')
                fl--;
            if (fl && pl >= fl && memcmp(path, f, fl) == 0 && (pl == fl || path[fl] == '/')) {
                mn_search_file(c, rows.items[r].id, path, rows.items[r].role);
                in_scope++;
                break;
            }
        }
    }
    size_t *hits = rc ? NULL : mn_malloc((rows.len ? rows.len : 1) * sizeof(size_t));
    size_t fault[FAULT_FILES], nfault = 0, fault_n = 1;
    int fault_frame = 0;
    for (size_t i = 0; rc == 0 && i < c->q.nmentions; i++) {
        const mn_mention *m = &c->q.mentions[i];
        if (m->kind != MN_MENTION_PATH && m->kind != MN_MENTION_MODULE)
            continue;
        const char *tail = m->text;
        size_t nhits = 0;
        bool had_dir = strchr(tail, '/') != NULL;
        for (;;) {
            size_t tl = strlen(tail);
            for (size_t r = 0; r < rows.len; r++) {
                bool ok =
                    m->kind == MN_MENTION_PATH
                        ? ends_with_path(rows.items[r].path, strlen(rows.items[r].path), tail, tl)
                        : module_match(&rows.items[r], tail, tl);
                if (ok)
                    hits[nhits++] = r;
            }
            if (nhits || m->kind == MN_MENTION_MODULE || m->link)
                break; /* a link's path is the file's path in its repository, whole */
            /* drop a leading directory, but keep at least one (a bare
             * file name from a long path matches too much) */
            const char *slash = strchr(tail, '/');
            if (!slash || (had_dir && !strchr(slash + 1, '/')))
                break;
            tail = slash + 1;
        }
        if (nhits == 0 && m->frame && m->kind == MN_MENTION_PATH && !m->link)
            nhits = frame_file_alone(&rows, m->text, hits);
        if (nhits == 0)
            continue;
        if (m->frame > fault_frame) {
            /* the deepest frame in the repository so far */
            fault_frame = m->frame;
            nfault = nhits < FAULT_FILES ? nhits : FAULT_FILES;
            for (size_t h = 0; h < nfault; h++)
                fault[h] = hits[h];
            fault_n = nhits;
        }
        double w = mention_weight(c, m) / (double)nhits;
        for (size_t h = 0; h < nhits; h++) {
            file_row *r = &rows.items[hits[h]];
            mn_file_cand *f = mn_search_file(c, r->id, r->path, r->role);
            f->path_hit += w;
            if (!m->frame)
                f->path_named = true;
            /* a link to a line of it: the reporter points at the code, as
             * the deepest frame of a traceback does */
            if (m->link == 2 && f->fault < 1.0 / (double)nhits)
                f->fault = 1.0 / (double)nhits;
        }
    }
    for (size_t h = 0; rc == 0 && h < nfault; h++) {
        file_row *r = &rows.items[fault[h]];
        mn_file_cand *f = mn_search_file(c, r->id, r->path, r->role);
        if (f->fault < 1.0 / (double)fault_n)
            f->fault = 1.0 / (double)fault_n;
    }
    free(hits);
    mn_vec_release(&rows);
    return rc;
}

/* ---- error messages ---- */

typedef struct {
    mn_search_ctx *c;
    int64_t files[MESSAGE_CHUNKS];
    const char *paths[MESSAGE_CHUNKS], *roles[MESSAGE_CHUNKS];
    size_t n;
} message_hits;

static int on_message_chunk(void *payload, const mn_chunk_hit *h)
{
    message_hits *m = payload;
    for (size_t i = 0; i < m->n; i++)
        if (m->files[i] == h->file_id)
            return 0;
    if (m->n < MESSAGE_CHUNKS) {
        m->files[m->n] = h->file_id;
        m->paths[m->n] = mn_arena_strdup(m->c->arena, h->path);
        m->roles[m->n++] = h->role ? mn_arena_strdup(m->c->arena, h->role) : NULL;
    }
    return 0;
}

/*
 * The files holding an error message the query quotes, as a phrase (the
 * code that raises it): message = 1 / the files holding it, none when more
 * than MESSAGE_FILES do (a message every module raises points nowhere).
 */
static int messages(mn_search_ctx *c)
{
    for (size_t i = 0; i < c->q.nmessages; i++) {
        const char *msg = c->q.messages[i];
        size_t len = strlen(msg), words = 1;
        for (size_t k = 0; k < len; k++)
            words += msg[k] == ' ';
        message_hits m = {0};
        m.c = c;
        /* a formatted value often ends a message ("along dimension y"):
         * without a match, the last word goes, down to MN_QUERY_MESSAGE_MIN */
        for (int tries = 0; m.n == 0 && words >= MN_QUERY_MESSAGE_MIN && tries < MESSAGE_TRIES;
             tries++) {
            mn_buf match = MN_BUF_INIT;
            mn_buf_putc(&match, '"');
            mn_buf_put(&match, msg, len);
            mn_buf_putc(&match, '"');
            mn_chunk_query q = {0};
            q.match = match.ptr;
            q.limit = MESSAGE_CHUNKS;
            int rc = mn_store_search_chunks(c->store, &q, on_message_chunk, &m);
            mn_buf_release(&match);
            if (rc) /* plain words in quotes: always a valid phrase */
                return rc;
            while (len && msg[len - 1] != ' ')
                len--;
            while (len && msg[len - 1] == ' ')
                len--;
            words--;
        }
        if (m.n == 0 || m.n > MESSAGE_FILES)
            continue;
        for (size_t k = 0; k < m.n; k++) {
            mn_file_cand *f = mn_search_file(c, m.files[k], m.paths[k], m.roles[k]);
            f->message += 1.0 / (double)m.n;
        }
    }
    return 0;
}

/* ---- declared names ---- */

struct decl_hit {
    size_t mention;
    int64_t file_id;
    const char *path, *role;
};

typedef struct {
    mn_search_ctx *c;
    const size_t *which; /* lookup index -> mention index */
    MN_VEC(struct decl_hit) hits;
} declared_lookup;

static int on_declared(void *payload, size_t which, const mn_declared_def *d)
{
    declared_lookup *l = payload;
    const mn_mention *m = &l->c->q.mentions[l->which[which]];
    /* an option mention finds options; a name finds env variables and config keys */
    if ((m->kind == MN_MENTION_OPTION) != (strcmp(d->kind, "option") == 0))
        return 0;
    size_t n = l->hits.len;
    if (n && l->hits.items[n - 1].mention == l->which[which] &&
        l->hits.items[n - 1].file_id == d->file_id)
        return 0; /* rows come in file order */
    struct decl_hit h = {l->which[which], d->file_id, mn_arena_strdup(l->c->arena, d->path),
                         mn_arena_strdup(l->c->arena, d->role ? d->role : "source")};
    mn_vec_push(&l->hits, h);
    return 0;
}

/*
 * The files that declare what the query names for users (issue 22): an
 * option it types ("--tb", "-x": MN_MENTION_OPTION), an environment
 * variable or config key among its names (PYTEST_ADDOPTS, testpaths). As
 * for symbols, a name declared in F files gives each of them
 *     named += mention_weight / F
 * (none when F > NAME_MAX_FILES: "--help", "-v" are declared everywhere).
 * No specificity factor: a declared name is not a word of the code's
 * prose. The NAMES_LOOKED_UP strongest names are probed.
 */
static int declared(mn_search_ctx *c)
{
    size_t cand[MN_QUERY_MAX_MENTIONS];
    size_t n = strongest_mentions(c, MN_MENTION_NAME, MN_MENTION_OPTION, cand);
    if (n == 0)
        return 0;
    const char *names[NAMES_LOOKED_UP];
    for (size_t i = 0; i < n; i++)
        names[i] = c->q.mentions[cand[i]].text;
    declared_lookup l = {c, cand, MN_VEC_INIT};
    int rc = mn_store_declared_named(c->store, names, n, on_declared, &l);
    for (size_t i = 0; rc == 0 && i < l.hits.len;) {
        size_t end = i;
        while (end < l.hits.len && l.hits.items[end].mention == l.hits.items[i].mention)
            end++;
        size_t files = end - i;
        if (files <= NAME_MAX_FILES) {
            double w = mention_weight(c, &c->q.mentions[l.hits.items[i].mention]) / (double)files;
            for (size_t k = i; k < end; k++) {
                mn_file_cand *f = mn_search_file(c, l.hits.items[k].file_id, l.hits.items[k].path,
                                                 l.hits.items[k].role);
                f->named += w;
            }
        }
        i = end;
    }
    mn_vec_release(&l.hits);
    return rc;
}

int mn_graph_named_code(mn_search_ctx *c)
{
    int rc = symbols(c);
    if (rc == 0)
        rc = declared(c);
    if (rc == 0)
        rc = messages(c);
    return rc ? rc : paths(c);
}

/* ---- spreading ---- */

typedef struct {
    mn_search_ctx *c;
    int64_t seed;
    double total;
    MN_VEC(struct edge {
        int64_t other;
        double w;
    })
    edges;
} spread;

static int on_neighbour(void *payload, int64_t seed, int64_t other, double weight, bool outgoing)
{
    spread *sp = payload;
    MN_UNUSED(seed);
    MN_UNUSED(outgoing);
    struct edge e = {other, weight > 0 ? weight : 1};
    mn_vec_push(&sp->edges, e);
    sp->total += e.w;
    return 0;
}

static int on_file_info(void *payload, const mn_file_rec *f)
{
    mn_search_ctx *c = payload;
    mn_search_file(c, f->id, f->path, f->role);
    return 0;
}

static int cmp_pre(const void *a, const void *b, void *payload)
{
    const mn_file_cand *fs = payload;
    double x = fs[*(const size_t *)a].score, y = fs[*(const size_t *)b].score;
    return x > y ? -1 : x < y;
}

int mn_graph_spread(mn_search_ctx *c)
{
    size_t n = c->files.len, nseeds = 0;
    if (n == 0)
        return 0;
    size_t *order = mn_malloc(n * sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof(size_t), cmp_pre, c->files.items);
    int64_t seeds[SPREAD_SEEDS];
    double pre[SPREAD_SEEDS];
    /* ranking files, the graph matters more; for code items it only
     * nudges, from the best three */
    size_t max_seeds = (c->req->kinds & MN_SEARCH_FILE) ? SPREAD_SEEDS : 3;
    for (size_t i = 0; i < n && nseeds < max_seeds; i++) {
        const mn_file_cand *f = &c->files.items[order[i]];
        if (f->score <= 0)
            break;
        seeds[nseeds] = f->id;
        pre[nseeds++] = f->score;
    }
    free(order);
    int rc = 0;
    MN_VEC(int64_t) unknown = MN_VEC_INIT;
    for (size_t s = 0; s < nseeds && rc == 0; s++) {
        spread sp = {c, seeds[s], 0, MN_VEC_INIT};
        rc = mn_store_file_neighbours(c->store, &seeds[s], 1, (size_t)(SPREAD_EDGES / SPREAD_SEEDS),
                                      on_neighbour, &sp);
        for (size_t e = 0; rc == 0 && e < sp.edges.len; e++) {
            mn_file_cand *g = mn_search_file(c, sp.edges.items[e].other, NULL, NULL);
            if (!g->path)
                mn_vec_push(&unknown, g->id);
            /* `g` may move when files grow: add through the id next time */
            g->graph += pre[s] * sp.edges.items[e].w / sp.total;
        }
        mn_vec_release(&sp.edges);
    }
    if (rc == 0 && unknown.len)
        rc = mn_store_files_by_id(c->store, unknown.items, unknown.len, on_file_info, c);
    mn_vec_release(&unknown);
    return rc;
}

/* ---- memories attached to files ---- */

typedef struct {
    mn_search_ctx *c;
    double weight;
} attach;

static int on_attached(void *payload, const mn_memory_hit *h)
{
    attach *a = payload;
    mn_search_ctx *c = a->c;
    for (size_t i = 0; i < c->memories.len; i++) {
        if (c->memories.items[i].rowid == h->rowid) {
            if (c->memories.items[i].graph < a->weight)
                c->memories.items[i].graph = a->weight;
            return 0;
        }
    }
    mn_search_memory(c, h)->graph = a->weight;
    return 0;
}

int mn_graph_attached_memories(mn_search_ctx *c)
{
    size_t n = c->files.len;
    if (n == 0)
        return 0;
    size_t *order = mn_malloc(n * sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof(size_t), cmp_pre, c->files.items);
    double top = c->files.items[order[0]].score;
    int rc = 0;
    for (size_t i = 0; i < n && i < ATTACH_FILES && rc == 0 && top > 0; i++) {
        const mn_file_cand *f = &c->files.items[order[i]];
        if (f->score <= 0 || !f->path)
            break;
        attach a = {c, f->score / top};
        mn_memory_query q = c->req->filter;
        q.match = NULL;
        q.limit = 20;
        const char *p = f->path;
        rc = mn_store_memories_at_paths(c->store, &q, &p, 1, on_attached, &a);
    }
    free(order);
    return rc;
}

int mn_graph_scoped_memories(mn_search_ctx *c)
{
    if (c->req->nfiles == 0)
        return 0;
    attach a = {c, 0};
    mn_memory_query q = c->req->filter;
    q.match = NULL;
    q.limit = 50;
    size_t n = c->req->nfiles < MN_SEARCH_MAX_FILTER ? c->req->nfiles : MN_SEARCH_MAX_FILTER;
    return mn_store_memories_at_paths(c->store, &q, c->req->files, n, on_attached, &a);
}

/*
 * Episodes around the best episodes: a conversation saved turn by turn
 * answers a question over several turns, of which the words of the
 * question find one. The EPISODE_SEEDS best episodes by lexical score pass
 * graph = EPISODE_SHARE * lexN(seed) / distance to the episodes within
 * EPISODE_SPAN of them in the same session.
 */
#define EPISODE_SEEDS 10
#define EPISODE_SPAN  2
#define EPISODE_SHARE 0.8

typedef struct {
    mn_search_ctx *c;
    int64_t seed;
    double weight;
} episode_payload;

static int on_episode(void *payload, const mn_memory_hit *h)
{
    episode_payload *p = payload;
    int64_t d = h->rowid > p->seed ? h->rowid - p->seed : p->seed - h->rowid;
    attach a = {p->c, p->weight / (double)(d > 0 ? d : 1)};
    return on_attached(&a, h);
}

int mn_graph_episodes(mn_search_ctx *c)
{
    size_t n = c->memories.len, nseeds = 0;
    double best = 0;
    for (size_t i = 0; i < n; i++)
        if (c->memories.items[i].bm25 > best)
            best = c->memories.items[i].bm25;
    if (best <= 0 || EPISODE_SHARE <= 0)
        return 0;
    /* the seeds: memories come best first from the lexical search */
    int64_t seeds[64];
    double weights[64];
    for (size_t i = 0; i < n && nseeds < (size_t)EPISODE_SEEDS && nseeds < 64; i++) {
        const mn_memory_cand *m = &c->memories.items[i];
        if (m->bm25 <= 0 || strcmp(m->kind, "episode") != 0)
            continue;
        seeds[nseeds] = m->rowid;
        weights[nseeds++] = EPISODE_SHARE * m->bm25 / best;
    }
    int rc = 0;
    mn_memory_query q = c->req->filter;
    q.match = NULL;
    for (size_t i = 0; i < nseeds && rc == 0; i++) {
        episode_payload p = {c, seeds[i], weights[i]};
        rc = mn_store_episode_neighbours(c->store, &q, seeds[i], (int)EPISODE_SPAN, on_episode, &p);
    }
    return rc;
}
