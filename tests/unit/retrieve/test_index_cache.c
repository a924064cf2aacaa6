/*
 * test_index_cache.c - the index cache plan reads the file table and the
 * files' neighbours from (retrieve/index_cache.c): its neighbours are the
 * store's, call for call and row for row, for one seed and several, first
 * read and replayed; an index run that changes a file's imports, adds a
 * file or removes one gives a new cache with the new answers, while a
 * holder of the old one can still read it; an index run that changes
 * nothing keeps the same cache; and a plan in the same process follows
 * the index (a file added after a first plan is in the next one). On a
 * real index of a small Python package written by the test.
 */
#include "common.h"
#include <unistd.h>

#include "api/api_internal.h"
#include "mnemo/api.h"
#include "retrieve/index_cache.h"
#include "store/store_search.h"
#include "util/util.h"
#include "util/vec.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_ctx.h"

static void write_file(const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/repo/%s", test_tmp, rel);
    char *slash = strrchr(p.ptr, '/');
    *slash = '\0';
    mn_fs_mkdir_p(p.ptr);
    *slash = '/';
    if (mn_fs_write_atomic(p.ptr, text, strlen(text)) != 0)
        abort();
    mn_buf_release(&p);
}

static void index_repo(void)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "{'path':'%s/repo'}", test_tmp);
    json_decref(test_call("index", J(p.ptr)));
    mn_buf_release(&p);
}

/* a hub every module imports and calls, a chain a -> b -> c, and a file nothing links */
static void make_repo(void)
{
    write_file("pkg/__init__.py", "");
    write_file("pkg/hub.py", "def shared(x):\n    return x\n\n\ndef other(x):\n    return x\n");
    write_file("pkg/a.py", "from pkg.b import beta\nfrom pkg.hub import shared\n\n\n"
                           "def alpha(x):\n    return beta(shared(x))\n");
    write_file("pkg/b.py", "from pkg.c import gamma\nfrom pkg.hub import shared, other\n\n\n"
                           "def beta(x):\n    return gamma(other(shared(x)))\n");
    write_file("pkg/c.py", "from pkg.hub import other\n\n\ndef gamma(x):\n    return other(x)\n");
    write_file("pkg/lonely.py", "def lonely():\n    return 1\n");
    for (int i = 0; i < 6; i++) {
        mn_buf p = MN_BUF_INIT, t = MN_BUF_INIT;
        mn_buf_printf(&p, "pkg/user%d.py", i);
        mn_buf_printf(&t,
                      "from pkg.hub import shared\nfrom pkg.a import alpha\n\n\n"
                      "def use%d(x):\n    return alpha(shared(x))\n",
                      i);
        write_file(p.ptr, t.ptr);
        mn_buf_release(&p);
        mn_buf_release(&t);
    }
}

static mn_store *store(void)
{
    return test_ctx->store;
}

typedef struct {
    int64_t seed, other;
    double weight;
    bool outgoing;
} row;

typedef MN_VEC(row) rows;

static int on_row(void *payload, int64_t seed, int64_t other, double weight, bool outgoing)
{
    row r = {seed, other, weight, outgoing};
    mn_vec_push((rows *)payload, r);
    return 0;
}

static bool same_rows(const rows *x, const rows *y)
{
    if (x->len != y->len)
        return false;
    for (size_t i = 0; i < x->len; i++)
        if (x->items[i].seed != y->items[i].seed || x->items[i].other != y->items[i].other ||
            x->items[i].weight != y->items[i].weight ||
            x->items[i].outgoing != y->items[i].outgoing)
            return false;
    return true;
}

static int64_t id_of(const mn_index_cache *c, const char *path)
{
    const mn_icache_file *f = mn_index_cache_files(c);
    for (size_t i = 0; i < mn_index_cache_nfiles(c); i++)
        if (!strcmp(f[i].path, path))
            return f[i].id;
    return -1;
}

/* Whether other is among the neighbours of seed (any direction), through the cache. */
static bool linked(mn_index_cache *c, int64_t seed, int64_t other)
{
    rows r = MN_VEC_INIT;
    CHECK_OK(mn_index_cache_neighbours(c, store(), &seed, 1, 0, on_row, &r));
    bool found = false;
    for (size_t i = 0; i < r.len; i++)
        found |= r.items[i].other == other;
    mn_vec_release(&r);
    return found;
}

/* The cache's neighbours are the store's: every file, one seed and all, several limits. */
static void test_neighbours_as_the_store(void)
{
    mn_index_cache *c = NULL;
    REQUIRE_OK(mn_index_cache_get(store(), &c));
    size_t n = mn_index_cache_nfiles(c);
    REQUIRE(n >= 12);
    int64_t *all = mn_calloc(n, sizeof(*all));
    for (size_t i = 0; i < n; i++)
        all[i] = mn_index_cache_files(c)[i].id;
    /* 8: a share of 2 rows a direction for one seed, cut for the hub; 0: the default */
    static const size_t limits[] = {0, 8, 40};
    size_t nonempty = 0;
    for (size_t l = 0; l < MN_ARRAY_SIZE(limits); l++) {
        for (size_t i = 0; i <= n; i++) {
            /* i < n: file i alone; i == n: every file at once */
            const int64_t *seeds = i < n ? &all[i] : all;
            size_t ns = i < n ? 1 : n;
            rows want = MN_VEC_INIT, first = MN_VEC_INIT, again = MN_VEC_INIT;
            CHECK_OK(mn_store_file_neighbours(store(), seeds, ns, limits[l], on_row, &want));
            CHECK_OK(mn_index_cache_neighbours(c, store(), seeds, ns, limits[l], on_row, &first));
            CHECK_OK(mn_index_cache_neighbours(c, store(), seeds, ns, limits[l], on_row, &again));
            CHECK(same_rows(&want, &first));
            CHECK(same_rows(&want, &again));
            nonempty += want.len > 0;
            mn_vec_release(&want);
            mn_vec_release(&first);
            mn_vec_release(&again);
        }
    }
    CHECK(nonempty >= 20); /* the graph is there: most files have neighbours */
    /* the file table: every file once, found by its id */
    for (size_t i = 0; i < n; i++)
        CHECK(mn_index_cache_find(c, all[i]) == (ptrdiff_t)i);
    CHECK(mn_index_cache_find(c, -5) == -1);
    free(all);
    mn_index_cache_release(c);
}

/* An index run that writes nothing keeps the cache; one that changes the graph replaces it. */
static void test_follows_the_index(void)
{
    mn_index_cache *c1 = NULL, *c2 = NULL, *c3 = NULL, *c4 = NULL;
    REQUIRE_OK(mn_index_cache_get(store(), &c1));
    index_repo(); /* nothing changed */
    REQUIRE_OK(mn_index_cache_get(store(), &c2));
    CHECK(c1 == c2);
    mn_index_cache_release(c2);
    int64_t a = id_of(c1, "pkg/a.py"), b = id_of(c1, "pkg/b.py"),
            lonely = id_of(c1, "pkg/lonely.py");
    REQUIRE(a > 0 && b > 0 && lonely > 0);
    CHECK(linked(c1, a, b));
    CHECK(!linked(c1, a, lonely));
    size_t n1 = mn_index_cache_nfiles(c1);

    /* a.py now imports lonely.py, not b.py; a new file */
    write_file("pkg/a.py", "from pkg.lonely import lonely\n\n\ndef alpha(x):\n"
                           "    return lonely() + x\n");
    write_file("pkg/fresh.py", "from pkg.a import alpha\n\n\ndef fresh():\n    return alpha(1)\n");
    index_repo();
    REQUIRE_OK(mn_index_cache_get(store(), &c3));
    CHECK(c3 != c1);
    CHECK(mn_index_cache_nfiles(c3) == n1 + 1);
    int64_t fresh = id_of(c3, "pkg/fresh.py");
    CHECK(fresh > 0 && mn_index_cache_find(c3, fresh) >= 0);
    CHECK(linked(c3, id_of(c3, "pkg/a.py"), id_of(c3, "pkg/lonely.py")));
    CHECK(!linked(c3, id_of(c3, "pkg/a.py"), id_of(c3, "pkg/b.py")));
    CHECK(linked(c3, fresh, id_of(c3, "pkg/a.py")));
    /* the old cache is still whole for its holder: its table and its kept rows */
    CHECK(mn_index_cache_nfiles(c1) == n1 && id_of(c1, "pkg/fresh.py") == -1);
    CHECK(linked(c1, a, b));
    mn_index_cache_release(c1);

    /* a file removed */
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/repo/pkg/fresh.py", test_tmp);
    CHECK(unlink(p.ptr) == 0);
    mn_buf_release(&p);
    index_repo();
    REQUIRE_OK(mn_index_cache_get(store(), &c4));
    CHECK(c4 != c3);
    CHECK(mn_index_cache_nfiles(c4) == n1 && id_of(c4, "pkg/fresh.py") == -1);
    mn_index_cache_release(c3);
    mn_index_cache_release(c4);
}

/* plan_files in one process: a file indexed after a first plan is in the next one. */
static void test_plan_follows_the_index(void)
{
    static const char task[] = "{'task':'the quarterly ledger reconciliation totals are off by "
                               "one cent','trace':true}";
    json_t *out = test_call("plan_files", J(task));
    REQUIRE(out);
    size_t i;
    json_t *s;
    bool found = false;
    json_array_foreach(json_object_get(out, "selected"), i, s) found |=
        !strcmp(json_string_value(json_object_get(s, "path")), "pkg/ledger_reconciliation.py");
    CHECK(!found);
    json_decref(out);
    write_file("pkg/ledger_reconciliation.py",
               "def quarterly_ledger_totals(rows):\n"
               "    \"\"\"The reconciliation of a quarter's ledger: totals in cents.\"\"\"\n"
               "    return sum(r.cents for r in rows)\n");
    index_repo();
    out = test_call("plan_files", J(task));
    REQUIRE(out);
    CHECK_STR(json_string_value(json_object_get(out, "pipeline_version")), "graph_first_v1");
    const json_t *first = json_array_get(json_object_get(out, "selected"), 0);
    CHECK(first && !strcmp(json_string_value(json_object_get(first, "path")),
                           "pkg/ledger_reconciliation.py"));
    json_decref(out);
}

static void run_all(void)
{
    test_ctx_open("icache");
    make_repo();
    index_repo();
    test_neighbours_as_the_store();
    test_follows_the_index();
    test_plan_follows_the_index();
    test_ctx_close();
}

MN_TEST_MAIN(MN_TEST(run_all))
