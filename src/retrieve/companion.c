/*
 * companion.c - a C or C++ file's declaration and its definition rank
 * together (fusion.c calls it once the files have their scores).
 *
 * Why: a change to what a C or C++ function does or takes usually touches
 * its header and its source both (catch_message.h and catch_message.cpp,
 * simdjson's serialization.h and serialization-inl.h), but an issue's words
 * match one of the two better: the source holds the code and its comments,
 * the header the declarations. 13 of the 21 C++ fixes of
 * ../shared/eval/swebench/multi_dev.jsonl change such a pair; the second
 * file of the pair ranked 2 to 7 places below the first
 * (docs/internals/retrieval.md, "Companion files").
 *
 * Not in C: a C source and its header (x.c, x.h) keep their own scores.
 * C declares in headers and defines in sources, so a fix to behaviour
 * changes the source alone: of the changes to an x.c in the last 4,000
 * commits of jq, ponyc and zstd (commits of at most 10 files, tests left
 * out), 14%, 15% and 9% changed an x.h too, against 28% and 37% of the
 * changes to an x.cpp / x.cc in Catch2 and simdjson, where class bodies,
 * templates and inline functions live in headers. Lifted, C headers took
 * the places of the next files: 18 of the 80 instances of a C check set
 * (jq, ponyc; retrieval.md) ranked their last gold file higher without it.
 *
 * Each file of a pair gets at least COMPANION times the other's score, so
 * the one the words missed ranks right below the one they found (unless
 * its own evidence puts it higher); nothing else moves. COMPANION below 1
 * keeps the order of the pair its own.
 *
 * Companions are source files among the candidates (not tests, not generated
 * amalgamations) with a C-family extension whose stems are the same once an
 * "-inl" / "_inl" / ".inl" ending is dropped: two of one directory (x.h and
 * x.cpp, x.h and x-inl.h), or, when only two such candidates have that stem,
 * two of any directories (include/a/x.h and src/x.cpp; simdjson's
 * dom/element.h and inline/element.h). Three x.h of three directories (one
 * per platform) pair with no one across directories.
 * Nothing is read from the store: the candidates' paths are all it needs.
 */
#include "common.h"

#include "retrieve/retrieve_internal.h"

#define COMPANION 0.95

typedef struct {
    size_t cand;      /* index into c->files */
    const char *stem; /* into the path: the file name without extension and -inl */
    size_t stem_len;
    size_t dir_len; /* the path's directory: path[0, dir_len) */
    char kind;      /* 'c' for x.c, 'h' for x.h, '+' for the other extensions */
} member;

static bool ext_in(const char *ext, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strlen(list[i]) == n && strncasecmp(ext, list[i], n) == 0)
            return true;
    return false;
}

/* The file's stem when it is C or C++ (header, source or inline part), else false. */
static bool c_family(const char *path, member *m)
{
    static const char *const exts[] = {"h", "hh", "hpp", "hxx", "h++", "inl", "ipp", "tpp", "tcc",
                                       "c", "cc", "cpp", "cxx", "c++", "m",   "mm",  NULL};
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || !ext_in(dot + 1, strlen(dot + 1), exts))
        return false;
    size_t n = (size_t)(dot - base);
    m->kind = !strcmp(dot, ".c") ? 'c' : !strcmp(dot, ".h") ? 'h' : '+';
    /* x-inl.h, x_inl.h, x.inl.h: the inline definitions of x.h */
    if (n > 4 && (base[n - 4] == '-' || base[n - 4] == '_' || base[n - 4] == '.') &&
        strncasecmp(base + n - 3, "inl", 3) == 0)
        n -= 4;
    m->stem = base;
    m->stem_len = n;
    m->dir_len = slash ? (size_t)(slash - path) : 0;
    return true;
}

static int by_stem_dir(const void *a, const void *b)
{
    const member *x = a, *y = b;
    size_t n = x->stem_len < y->stem_len ? x->stem_len : y->stem_len;
    int r = memcmp(x->stem, y->stem, n);
    if (r || x->stem_len != y->stem_len)
        return r ? r : (x->stem_len < y->stem_len ? -1 : 1);
    if (x->dir_len != y->dir_len)
        return x->dir_len < y->dir_len ? -1 : 1;
    return x->cand < y->cand ? -1 : x->cand > y->cand;
}

static bool same_stem(const member *x, const member *y)
{
    return x->stem_len == y->stem_len && memcmp(x->stem, y->stem, x->stem_len) == 0;
}

static void lift(mn_file_cand *files, const double *before, const member *x, const member *y)
{
    if ((x->kind == 'c' && y->kind == 'h') || (x->kind == 'h' && y->kind == 'c'))
        return;
    size_t a = x->cand, b = y->cand;
    if (files[b].score < COMPANION * before[a])
        files[b].score = COMPANION * before[a];
    if (files[a].score < COMPANION * before[b])
        files[a].score = COMPANION * before[b];
}

void mn_companions(mn_search_ctx *c)
{
    size_t n = c->files.len;
    if (n < 2)
        return;
    member *m = mn_malloc(n * sizeof(*m));
    size_t nm = 0;
    for (size_t i = 0; i < n; i++) {
        const mn_file_cand *f = &c->files.items[i];
        /* source files only: a test named like its subject (test/x.c beside src/x.c) keeps
         * its own score */
        if (f->path && f->score > 0 && (!f->role || strcmp(f->role, "source") == 0) &&
            c_family(f->path, &m[nm])) {
            m[nm].cand = i;
            nm++;
        }
    }
    if (nm < 2) {
        free(m);
        return;
    }
    qsort(m, nm, sizeof(*m), by_stem_dir);
    double *before = mn_malloc(n * sizeof(*before));
    for (size_t i = 0; i < n; i++)
        before[i] = c->files.items[i].score;
    mn_file_cand *files = c->files.items;
    for (size_t g = 0; g < nm;) {
        size_t e = g + 1;
        while (e < nm && same_stem(&m[g], &m[e]))
            e++;
        if (e - g == 2) {
            /* the only two source candidates with this stem: companions wherever they are */
            lift(files, before, &m[g], &m[g + 1]);
        } else {
            /* more: only those of one directory, two by two */
            for (size_t i = g; i < e; i++)
                for (size_t j = i + 1; j < e && m[j].dir_len == m[i].dir_len; j++)
                    if (memcmp(files[m[i].cand].path, files[m[j].cand].path, m[i].dir_len) == 0)
                        lift(files, before, &m[i], &m[j]);
        }
        g = e;
    }
    free(before);
    free(m);
}
