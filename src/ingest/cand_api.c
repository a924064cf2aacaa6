/*
 * cand_api.c - public API removed, renamed or moved between a commit's
 * parent and the commit, and source modules renamed.
 *
 * From the patch of each changed source file (not tests, examples,
 * vendored or generated code): a removed line that defines public API
 * (mn_def_line: def, class, func, fn, function... that the language makes
 * public) names a symbol that is gone from the file unless an added line
 * of the same file defines it again (then only its signature changed).
 * A deleted file loses every public definition at its top two levels.
 * A symbol gone from one file and defined by an added line of another file
 * moved; one gone whose hunk adds a definition of the same kind with the
 * same parameters under another name was renamed; the rest were removed.
 * Methods are named Class.method when the hunk's function context (git's)
 * is the class.
 *
 * The index says whether the name is defined today under that path
 * (mn_store_symbols_named_each): a symbol removed then and back today is a
 * fact of history that could mislead (0.60, the review queue).
 *
 * Confidence: renamed 0.90, moved 0.86, removed 0.86, a source module
 * renamed (git's rename detection) 0.86; more than MANY changes in a
 * commit are one candidate listing them, 0.75 (a large refactoring is
 * better read by a person than learnt as many facts).
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest_internal.h"
#include "store/store_index.h"

#define MANY      8
#define NAME_MAX_ 96

typedef struct {
    char name[NAME_MAX_];
    char qualified[2 * NAME_MAX_];
    const char *kind;
    char *tail; /* the parameters, normalised */
    mn_delta *d;
    const mn_hunk *h;
    bool used;
} def;

typedef MN_VEC(def) def_vec;

/* "(self, url, **kwargs):" -> "(self,url,**kwargs)": spaces and the trailing ':' '{' go. */
static char *norm_tail(const char *t, const char *end)
{
    mn_buf b = MN_BUF_INIT;
    for (; t < end; t++)
        if (!isspace((unsigned char)*t))
            mn_buf_putc(&b, *t);
    while (b.len && strchr(":{", b.ptr[b.len - 1]))
        b.len--;
    mn_buf_putc(&b, '\0');
    return mn_buf_detach(&b);
}

/* The class a hunk's context names ("class Session(Base):" -> Session), or "". */
static void context_class(const char *lang, const char *header, char *out, size_t cap)
{
    bool pub;
    const char *kind;
    out[0] = '\0';
    if (!header || !*header)
        return;
    if (!mn_def_line(lang, header, strlen(header), out, cap, &pub, &kind, NULL) ||
        strcmp(kind, "class") != 0)
        out[0] = '\0';
}

static void collect(def_vec *v, mn_delta *d, const mn_hunk *h, const char *text, bool top_only)
{
    const char *lang = d->cls.language;
    char cls[NAME_MAX_];
    context_class(lang, h ? h->header : NULL, cls, sizeof(cls));
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        size_t indent = 0;
        while (indent < n && (p[indent] == ' ' || p[indent] == '\t'))
            indent++;
        def x;
        memset(&x, 0, sizeof(x));
        bool pub;
        const char *tail;
        if ((!top_only || indent <= 4) &&
            mn_def_line(lang, p, n, x.name, sizeof(x.name), &pub, &x.kind, &tail) && pub &&
            /* indented and not in a class: a nested function, no API */
            (indent == 0 || *cls || !strcmp(x.kind, "class"))) {
            /* a class line in this text becomes the context of what follows */
            if (!strcmp(x.kind, "class") && indent == 0)
                snprintf(cls, sizeof(cls), "%s", x.name);
            if (indent > 0 && *cls && strcmp(x.kind, "class") != 0)
                snprintf(x.qualified, sizeof(x.qualified), "%s.%s", cls, x.name);
            else
                snprintf(x.qualified, sizeof(x.qualified), "%s", x.name);
            x.tail = norm_tail(tail, p + n);
            x.d = d;
            x.h = h;
            mn_vec_push(v, x);
        }
        p += n + (p[n] == '\n');
    }
}

static bool defined_in(const def_vec *v, const mn_delta *d, const char *qualified)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i].d == d && !strcmp(v->items[i].qualified, qualified))
            return true;
    return false;
}

/* Parameters in a normalised tail "(a,b=1,*c)": top-level commas + 1, 0 for "()". */
static int params(const char *tail)
{
    int depth = 0, n = 0;
    bool any = false;
    for (const char *p = tail; *p; p++) {
        if (*p == '(' || *p == '[' || *p == '{' || *p == '<')
            depth++;
        else if (*p == ')' || *p == ']' || *p == '}' || *p == '>') {
            if (--depth == 0)
                break;
        } else if (depth == 1) {
            any = true;
            n += *p == ',';
        }
    }
    return any ? n + 1 : 0;
}

/* Whether the file's new text still binds the name at its top: an import or an assignment. */
static bool still_named(mn_commit_view *c, const def *g)
{
    size_t len;
    const char *t = mn_delta_text(c, g->d, 1, &len);
    size_t n = strlen(g->name);
    if (!t || strchr(g->qualified, '.'))
        return false;
    for (const char *p = t; (p = strstr(p, g->name)) != NULL; p += n) {
        bool word = (p == t || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
                    !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (!word)
            continue;
        const char *bol = p;
        while (bol > t && bol[-1] != '\n')
            bol--;
        const char *eol = strchr(p, '\n');
        size_t ln = eol ? (size_t)(eol - bol) : strlen(bol);
        if ((memmem(bol, ln, "import", 6) && bol[0] != ' ') ||
            (bol == p && p[n] == ' ' && p[n + 1] == '='))
            return true;
    }
    return false;
}

typedef struct {
    const char *qualified; /* Class.method, or the name alone */
    bool found;
} today_ctx;

static int today_cb(void *payload, const mn_symbol_row *y)
{
    today_ctx *t = payload;
    if (!strchr(t->qualified, '.') ||
        (y->qualified_name && !strcmp(y->qualified_name, t->qualified))) {
        t->found = true;
        return 1;
    }
    return 0;
}

/* Whether the index defines the symbol today (anywhere: one moved back counts). */
static bool exists_today(mn_store *s, const def *g)
{
    today_ctx t = {g->qualified, false};
    int rc = mn_store_symbols_each(s, g->name, today_cb, &t);
    if (rc && rc != 1)
        mn_error_clear();
    return t.found;
}

typedef struct {
    const char *what; /* removed renamed moved */
    def *gone;
    def *to; /* renamed: the new one; moved: where */
} change;

static void emit(mn_commit_view *c, mn_candidate_vec *out, change *x)
{
    def *g = x->gone;
    double conf = !strcmp(x->what, "renamed") ? 0.90 : 0.86;
    bool back = !strcmp(x->what, "removed") && exists_today(c->store, g);
    if (back)
        conf = 0.60;
    mn_candidate *k = mn_candidate_add(out, "api", "fact", conf);
    mn_candidate_key(k, "api:%s:%s:%s", g->d->old_path, g->qualified, x->what);
    if (!strcmp(x->what, "renamed")) {
        mn_candidate_title(k, "Renamed %s %s to %s (%s)", g->kind, g->qualified, x->to->qualified,
                           x->to->d->path);
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\n%s %s%s was renamed to %s%s in %s; callers use the new name.",
                      g->kind, g->qualified, g->tail, x->to->qualified, x->to->tail,
                      x->to->d->path);
        mn_strv_add(k->paths, x->to->d->path);
    } else if (!strcmp(x->what, "moved")) {
        mn_candidate_title(k, "Moved %s %s from %s to %s", g->kind, g->qualified, g->d->old_path,
                           x->to->d->path);
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\n%s %s is now defined in %s (it was in %s).", g->kind,
                      g->qualified, x->to->d->path, g->d->old_path);
        mn_strv_add(k->paths, x->to->d->path);
        mn_strv_add(k->paths, g->d->old_path);
    } else {
        mn_candidate_title(k, "Removed public %s %s from %s", g->kind, g->qualified,
                           g->d->old_path);
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\n%s %s%s was removed from %s%s.", g->kind, g->qualified, g->tail,
                      g->d->old_path,
                      g->d->status == MN_DELTA_DELETED ? " (the file was deleted)" : "");
        if (back)
            mn_buf_puts(&k->body, " A symbol of this name is defined again today.");
        mn_strv_add(k->paths, g->d->old_path);
    }
    k->symbols = json_array();
    mn_strv_add(k->symbols, g->qualified);
    if (x->to)
        mn_strv_add(k->symbols, x->to->qualified);
    mn_strv_add(k->tags, "api");
    if (g->h)
        mn_candidate_evidence(k, g->d->path, g->h);
    else if (x->to && x->to->h)
        mn_candidate_evidence(k, x->to->d->path, x->to->h);
    else
        mn_candidate_evidence(k, g->d->path, NULL);
}

/*
 * Files whose definitions are API: source, not tests, examples, vendored or
 * generated code; and for Python not the scripts at the top of the tree or
 * the tooling files anywhere (setup.py, conftest.py, noxfile.py, tasks.py,
 * manage.py, fabfile.py): their functions are nobody's interface.
 */
static bool api_file(const mn_delta *d)
{
    if (d->binary || d->cls.role != MN_ROLE_SOURCE || !d->cls.language || mn_cand_noise_path(d))
        return false;
    if (!strcmp(d->cls.language, "python")) {
        const char *base = strrchr(d->path, '/');
        static const char *const tooling[] = {"setup.py", "conftest.py", "noxfile.py",
                                              "tasks.py", "manage.py",   "fabfile.py"};
        if (!base)
            return false;
        for (size_t i = 0; i < MN_ARRAY_SIZE(tooling); i++)
            if (!strcmp(base + 1, tooling[i]))
                return false;
    }
    return true;
}

/*
 * Many source files renamed at once: the directory move they share ("requests/" ->
 * "src/requests/": the longest common suffix of old and new paths taken off both), as one
 * candidate listing the modules.
 */
static void moved_tree(mn_commit_view *c, mn_candidate_vec *out, size_t n)
{
    char *from = NULL, *to = NULL;
    bool same = true;
    for (size_t i = 0; i < c->ndeltas && same; i++) {
        mn_delta *d = &c->deltas[i];
        if (d->status != MN_DELTA_RENAMED || !api_file(d))
            continue;
        size_t a = strlen(d->old_path), b = strlen(d->path);
        while (a && b && d->old_path[a - 1] == d->path[b - 1])
            a--, b--;
        /* back to a directory boundary */
        while (a && d->old_path[a - 1] != '/')
            a--, b--;
        char *f = mn_strndup(d->old_path, a), *t = mn_strndup(d->path, b);
        if (!from) {
            from = f;
            to = t;
        } else {
            same = !strcmp(from, f) && !strcmp(to, t);
            free(f);
            free(t);
        }
    }
    mn_candidate *k = mn_candidate_add(out, "api", "fact", same && from ? 0.88 : 0.75);
    mn_candidate_key(k, "modules-moved");
    if (same && from)
        mn_candidate_title(k, "Moved %zu modules from %s to %s", n, *from ? from : "./",
                           *to ? to : "./");
    else
        mn_candidate_title(k, "Renamed %zu modules", n);
    mn_candidate_intro(k, c);
    mn_buf_puts(&k->body, "\nImports of the old paths break:");
    size_t listed = 0;
    for (size_t i = 0; i < c->ndeltas; i++) {
        mn_delta *d = &c->deltas[i];
        if (d->status != MN_DELTA_RENAMED || !api_file(d))
            continue;
        if (listed++ < 12)
            mn_buf_printf(&k->body, "%s %s -> %s", listed > 1 ? "," : "", d->old_path, d->path);
        if (listed == 1)
            mn_candidate_evidence(k, d->path, NULL);
    }
    if (listed > 12)
        mn_buf_printf(&k->body, " (and %zu more)", listed - 12);
    mn_buf_puts(&k->body, ".");
    if (same && from && *to)
        mn_strv_add(k->paths, to);
    mn_strv_add(k->tags, "api");
    free(from);
    free(to);
}

int mn_cand_api(mn_commit_view *c, mn_candidate_vec *out)
{
    def_vec gone = MN_VEC_INIT, added = MN_VEC_INIT, removed_lines = MN_VEC_INIT;
    MN_VEC(change) ch = MN_VEC_INIT;
    if (c->nparents != 1)
        return 0; /* the root commit adds, a merge repeats its parents */
    /* modules renamed: their import path changed; a whole tree moved is one fact */
    size_t nrenamed = 0;
    for (size_t i = 0; i < c->ndeltas; i++)
        nrenamed += c->deltas[i].status == MN_DELTA_RENAMED && api_file(&c->deltas[i]);
    if (nrenamed > 3) {
        moved_tree(c, out, nrenamed);
        nrenamed = 0;
    }
    for (size_t i = 0; i < c->ndeltas && nrenamed; i++) {
        mn_delta *d = &c->deltas[i];
        if (d->status != MN_DELTA_RENAMED || !api_file(d) || !strcmp(d->path, d->old_path))
            continue;
        mn_candidate *k = mn_candidate_add(out, "api", "fact", 0.86);
        mn_candidate_key(k, "module-renamed:%s", d->old_path);
        mn_candidate_title(k, "Renamed %s to %s", d->old_path, d->path);
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\nThe %s module %s is now %s; imports of the old path break.",
                      d->cls.language, d->old_path, d->path);
        mn_strv_add(k->paths, d->path);
        mn_strv_add(k->tags, "api");
        mn_candidate_evidence(k, d->path, NULL);
    }
    for (size_t i = 0; i < c->ndeltas; i++) {
        mn_delta *d = &c->deltas[i];
        if (!api_file(d))
            continue;
        if (d->status == MN_DELTA_DELETED) {
            size_t len;
            const char *t = mn_delta_text(c, d, 0, &len);
            collect(&gone, d, NULL, t, true);
            continue;
        }
        size_t nh;
        const mn_hunk *h = mn_delta_patch(c, d, &nh);
        for (size_t j = 0; j < nh; j++) {
            collect(&removed_lines, d, &h[j], h[j].removed, false);
            collect(&added, d, &h[j], h[j].added, false);
        }
    }
    /* gone: removed definitions not defined again in the same file */
    for (size_t i = 0; i < removed_lines.len; i++) {
        def *r = &removed_lines.items[i];
        if (!defined_in(&added, r->d, r->qualified)) {
            mn_vec_push(&gone, *r);
            r->tail = NULL; /* owned by gone now */
        }
    }
    for (size_t i = 0; i < gone.len; i++) {
        def *g = &gone.items[i];
        change x = {"removed", g, NULL};
        /* moved: another file of the commit defines it now */
        for (size_t j = 0; j < added.len && !x.to; j++) {
            def *a = &added.items[j];
            if (!a->used && a->d != g->d && !strcmp(a->name, g->name) &&
                !defined_in(&removed_lines, a->d, a->qualified)) {
                x.what = "moved";
                x.to = a;
                a->used = true;
            }
        }
        /*
         * renamed: same hunk, same kind, a name the file did not have, and the same
         * parameters; or as many parameters when the message names both (requote_path(path)
         * -> requote_uri(uri): "Rename utils.requote_path to requote_uri")
         */
        for (size_t j = 0; j < added.len && !x.to && g->h; j++) {
            def *a = &added.items[j];
            if (a->used || a->h != g->h || strcmp(a->kind, g->kind) != 0 || !*g->tail ||
                !strcmp(a->name, g->name) || defined_in(&removed_lines, a->d, a->qualified))
                continue;
            bool same = !strcmp(a->tail, g->tail);
            bool told = params(a->tail) == params(g->tail) && strstr(c->message, g->name) &&
                        strstr(c->message, a->name);
            if (same || told) {
                x.what = "renamed";
                x.to = a;
                a->used = true;
            }
        }
        /* still reachable by its name: imported or assigned in the file now ("from certifi
         * import where"), so no API went */
        if (!x.to && g->d->status != MN_DELTA_DELETED && still_named(c, g))
            continue;
        mn_vec_push(&ch, x);
    }
    if (ch.len > MANY) {
        mn_candidate *k = mn_candidate_add(out, "api", "fact", 0.75);
        mn_candidate_key(k, "api-many");
        size_t nrem = 0, nren = 0, nmov = 0;
        json_t *files = json_array();
        for (size_t i = 0; i < ch.len; i++) {
            nrem += !strcmp(ch.items[i].what, "removed");
            nren += !strcmp(ch.items[i].what, "renamed");
            nmov += !strcmp(ch.items[i].what, "moved");
            mn_strv_add(files, ch.items[i].gone->d->old_path);
        }
        mn_buf fl = MN_BUF_INIT;
        for (size_t i = 0; i < json_array_size(files) && i < 4; i++)
            mn_buf_printf(&fl, "%s%s", i ? ", " : "", json_string_value(json_array_get(files, i)));
        if (json_array_size(files) > 4)
            mn_buf_printf(&fl, " and %zu more", json_array_size(files) - 4);
        mn_candidate_title(k, "API reworked in %s: %zu removed, %zu renamed, %zu moved", fl.ptr,
                           nrem, nren, nmov);
        mn_candidate_intro(k, c);
        mn_buf_puts(&k->body, "\n");
        for (size_t i = 0; i < ch.len && i < 40; i++) {
            change *x = &ch.items[i];
            mn_buf_printf(
                &k->body, "\n- %s %s%s%s (%s)", x->what, x->gone->qualified, x->to ? " -> " : "",
                x->to ? (!strcmp(x->what, "moved") ? x->to->d->path : x->to->qualified) : "",
                x->gone->d->old_path);
            mn_strv_add(k->paths, x->gone->d->old_path);
        }
        mn_strv_add(k->tags, "api");
        mn_candidate_evidence(k, ch.items[0].gone->d->path, ch.items[0].gone->h);
        json_decref(files);
        mn_buf_release(&fl);
    } else {
        for (size_t i = 0; i < ch.len; i++) {
            /* a method of a class that went (or moved) with it: the class's fact says it */
            const char *dot = strchr(ch.items[i].gone->qualified, '.');
            bool with_class = false;
            for (size_t j = 0; dot && j < ch.len && !with_class; j++)
                with_class =
                    j != i && !strcmp(ch.items[j].gone->kind, "class") &&
                    strcmp(ch.items[j].what, "renamed") != 0 &&
                    ch.items[j].gone->d == ch.items[i].gone->d &&
                    strlen(ch.items[j].gone->name) == (size_t)(dot - ch.items[i].gone->qualified) &&
                    !strncmp(ch.items[j].gone->name, ch.items[i].gone->qualified,
                             (size_t)(dot - ch.items[i].gone->qualified));
            if (!with_class)
                emit(c, out, &ch.items[i]);
        }
    }
    for (size_t i = 0; i < gone.len; i++)
        free(gone.items[i].tail);
    for (size_t i = 0; i < added.len; i++)
        free(added.items[i].tail);
    for (size_t i = 0; i < removed_lines.len; i++)
        free(removed_lines.items[i].tail);
    mn_vec_release(&gone);
    mn_vec_release(&added);
    mn_vec_release(&removed_lines);
    mn_vec_release(&ch);
    return 0;
}
