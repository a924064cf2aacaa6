/*
 * libs.c - dlopen of libcurl, libgit2, libmicrohttpd and libpq on first use
 * (libs.h says why). The sonames come from the build (CMakeLists.txt
 * reads them off the libraries it found), so the library loaded is the
 * one the headers were compiled against. Never unloaded: the tables live
 * as long as the process.
 */
#include "common.h"
#include <dlfcn.h>
#include <pthread.h>

#include "util/libs.h"

typedef struct {
    const char *soname, *prefix;
    const char *const *names;
    void **fns;
    size_t n;
    pthread_once_t once;
    char error[256]; /* empty: loaded */
} lib;

static void load(lib *l)
{
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(l->error, sizeof(l->error), "%s", dlerror());
        return;
    }
    for (size_t i = 0; i < l->n; i++) {
        char name[64];
        snprintf(name, sizeof(name), "%s%s", l->prefix, l->names[i]);
        /* POSIX: a data pointer converts to a function pointer's bytes */
        void *f = dlsym(h, name);
        if (!f) {
            snprintf(l->error, sizeof(l->error), "%s has no %s", l->soname, name);
            return;
        }
        l->fns[i] = f;
    }
}

#define MN_LIBS_NAME(ret, name, args) #name,
static const char *const curl_names[] = {MN_CURL_API(MN_LIBS_NAME)};
static const char *const git_names[] = {MN_GIT_API(MN_LIBS_NAME)};
static const char *const mhd_names[] = {MN_MHD_API(MN_LIBS_NAME)};
static const char *const pq_names[] = {MN_PQ_API(MN_LIBS_NAME)};
#undef MN_LIBS_NAME

static mn_curl_api curl_api;
static mn_git_api git_api;
static mn_mhd_api mhd_api;
static mn_pq_api pq_api;

/* The tables are arrays of function pointers in the order of the names. */
_Static_assert(sizeof(curl_api) == MN_ARRAY_SIZE(curl_names) * sizeof(void *), "curl table");
_Static_assert(sizeof(git_api) == MN_ARRAY_SIZE(git_names) * sizeof(void *), "git table");
_Static_assert(sizeof(mhd_api) == MN_ARRAY_SIZE(mhd_names) * sizeof(void *), "mhd table");
_Static_assert(sizeof(pq_api) == MN_ARRAY_SIZE(pq_names) * sizeof(void *), "pq table");

static lib curl_lib = {
    MN_SONAME_CURL,    "curl_", curl_names, (void **)&curl_api, MN_ARRAY_SIZE(curl_names),
    PTHREAD_ONCE_INIT, ""};
static lib git_lib = {
    MN_SONAME_GIT2,    "git_", git_names, (void **)&git_api, MN_ARRAY_SIZE(git_names),
    PTHREAD_ONCE_INIT, ""};
static lib mhd_lib = {
    MN_SONAME_MICROHTTPD, "MHD_", mhd_names, (void **)&mhd_api, MN_ARRAY_SIZE(mhd_names),
    PTHREAD_ONCE_INIT,    ""};

static lib pq_lib = {MN_SONAME_PQ,      "PQ", pq_names, (void **)&pq_api, MN_ARRAY_SIZE(pq_names),
                     PTHREAD_ONCE_INIT, ""};

static void load_curl(void)
{
    load(&curl_lib);
}
static void load_git(void)
{
    load(&git_lib);
}
static void load_mhd(void)
{
    load(&mhd_lib);
}

static void load_pq(void)
{
    load(&pq_lib);
}

static const void *get(lib *l, void (*init)(void), const char *what)
{
    pthread_once(&l->once, init);
    if (l->error[0]) {
        mn_error_set(MN_ERROR, "cannot load %s (%s): %s", l->soname, what, l->error);
        return NULL;
    }
    return l->fns;
}

const mn_curl_api *mn_libs_curl(void)
{
    return get(&curl_lib, load_curl, "needed by the HTTP embedder");
}

const mn_git_api *mn_libs_git(void)
{
    return get(&git_lib, load_git, "needed to read git repositories");
}

const mn_mhd_api *mn_libs_mhd(void)
{
    return get(&mhd_lib, load_mhd, "needed by mnemo serve");
}

const mn_pq_api *mn_libs_pq(void)
{
    return get(&pq_lib, load_pq, "needed by a PostgreSQL store");
}
