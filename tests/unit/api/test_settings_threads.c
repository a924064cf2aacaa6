/*
 * test_settings_threads.c - a served store's request threads each hold a
 * context and load its settings together. With USER unset (as under ctest,
 * cron or a service manager), the author comes from the password database:
 * that read was getpwuid(), whose record is static, and two threads at once
 * raced on it (ThreadSanitizer stopped the HTTP server in http_mcp). Here
 * THREADS contexts load their settings at once (a barrier), ROUNDS times;
 * each gets the user's name. Labelled "threads": the ThreadSanitizer run
 * reports the race if it comes back (the store's own locks order some
 * threads' loads, so one round alone caught it 1 time in 3 with getpwuid).
 */
#include "common.h"
#include <pthread.h>
#include <pwd.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "test.h"
#include "test_fs.h"
#include "test_ctx.h"

#define THREADS 16
#define ROUNDS  12

static char tmp[64];
static char db[96];
static pthread_barrier_t start;

typedef struct {
    mn_ctx *ctx;
    int rc;
} worker;

static mn_ctx *open_ctx(void)
{
    mn_ctx *ctx = test_ctx_at(db, tmp, MN_FRONT_RELAYED);
    if (!ctx) {
        fprintf(stderr, "cannot open %s: %s\n", db, mn_error_last());
        abort();
    }
    return ctx;
}

static void *load_together(void *arg)
{
    worker *w = arg;
    const mn_memory_settings *cfg = NULL;
    pthread_barrier_wait(&start);
    w->rc = mn_api__settings(w->ctx, &cfg);
    return NULL;
}

static void test_author_from_passwd(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-settings-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    snprintf(db, sizeof(db), "%s/mnemo.db", tmp);
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    unsetenv("USER");
    struct passwd pw, *res = NULL;
    char buf[4096];
    REQUIRE(getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) == 0 && res);

    mn_ctx_free(open_ctx()); /* creates the store */
    for (int round = 0; round < ROUNDS; round++) {
        worker w[THREADS];
        pthread_t th[THREADS];
        REQUIRE(pthread_barrier_init(&start, NULL, THREADS) == 0);
        for (int i = 0; i < THREADS; i++) {
            w[i].ctx = open_ctx();
            w[i].rc = -1;
        }
        for (int i = 0; i < THREADS; i++)
            REQUIRE(pthread_create(&th[i], NULL, load_together, &w[i]) == 0);
        for (int i = 0; i < THREADS; i++)
            pthread_join(th[i], NULL);
        for (int i = 0; i < THREADS; i++) {
            CHECK(w[i].rc == 0);
            CHECK_STR(w[i].ctx->author, res->pw_name);
            mn_ctx_free(w[i].ctx);
        }
        pthread_barrier_destroy(&start);
    }
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_author_from_passwd))
