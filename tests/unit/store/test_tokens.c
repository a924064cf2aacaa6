/*
 * test_tokens.c - the tokens table (token_store.c, schema v15): a token is
 * added once per name, found by the hash of its secret (and only by it),
 * listed oldest first without any hash, revoked by name or by id (keeping
 * its first revocation time), and its last use noted. Rows are global:
 * a store opened on another project sees the same tokens. Runs on both
 * back ends (tests/test_store.h).
 */
#include "common.h"
#include <sqlite3.h>
#include <unistd.h>

#include "store/store_tokens.h"
#include "util/digest.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_store.h"

static char tmp[64];
static char *path;

static int add(mn_store *s, const char *name, const char *project, const char *role,
               const char *secret, int64_t expires_at, int64_t *id)
{
    char hash[MN_SHA256_HEX];
    mn_token t = {0, (char *)name, (char *)project, (char *)role, 1000, expires_at, 0, 0};
    mn_sha256_hex(hash, secret, strlen(secret));
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_token_add(s, &t, hash, id)) == 0)
        return mn_store_commit(s);
    if (rc != MN_EBUSY)
        mn_store_rollback(s);
    return rc;
}

static int find(mn_store *s, const char *secret, mn_token *t, char stored[65])
{
    char hash[MN_SHA256_HEX];
    mn_sha256_hex(hash, secret, strlen(secret));
    return mn_store_token_find(s, hash, t, stored);
}

static int revoke_token(mn_store *s, const char *which, int64_t now, mn_token *t)
{
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_token_revoke(s, which, now, t)) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

static void test_tokens(void)
{
    mn_store *s = NULL, *other = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_token t = {0};
    char stored[65], hash[MN_SHA256_HEX];
    int64_t id1 = 0, id2 = 0, id3 = 0;

    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-tokens-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    path = test_store_new(tmp);
    REQUIRE(path);
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    o.project = "beta";
    REQUIRE_OK(mn_store_open(&other, path, &o));

    REQUIRE_OK(add(s, "alice", "alpha", "reader", "mnemo_secret-a", 0, &id1));
    REQUIRE_OK(add(other, "bob", "beta", "writer", "mnemo_secret-b", 5000, &id2));
    CHECK(id1 > 0 && id2 > id1);
    /* a name is taken once, in any project */
    CHECK(add(other, "alice", "beta", "admin", "mnemo_secret-c", 0, &id3) == MN_EEXISTS);
    CHECK(strstr(mn_error_last(), "'alice'") != NULL);
    /* a role the table does not know is refused by the store itself */
    CHECK(add(s, "carol", "alpha", "owner", "mnemo_secret-d", 0, &id3) != 0);

    /* found by its secret's hash, from either project's handle */
    REQUIRE_OK(find(other, "mnemo_secret-a", &t, stored));
    CHECK(t.id == id1);
    CHECK_STR(t.name, "alice");
    CHECK_STR(t.project, "alpha");
    CHECK_STR(t.role, "reader");
    CHECK(t.expires_at == 0 && t.revoked_at == 0 && t.last_used_at == 0);
    mn_sha256_hex(hash, "mnemo_secret-a", strlen("mnemo_secret-a"));
    CHECK(mn_equal_const_time(hash, stored, 64));
    mn_token_release(&t);
    REQUIRE_OK(find(s, "mnemo_secret-b", &t, stored));
    CHECK(t.expires_at == 5000);
    mn_token_release(&t);
    /* nothing else finds one: another secret, the secret's own text */
    CHECK(find(s, "mnemo_secret-x", &t, stored) == MN_ENOTFOUND);
    CHECK(mn_store_token_find(s, "mnemo_secret-a", &t, stored) == MN_ENOTFOUND);

    /* the list: oldest first, both */
    mn_token *v = NULL;
    size_t n = 0;
    REQUIRE_OK(mn_store_token_list(other, &v, &n));
    CHECK(n == 2);
    if (n == 2) {
        CHECK_STR(v[0].name, "alice");
        CHECK_STR(v[1].name, "bob");
    }
    mn_tokens_free(v, n);

    /* revoke by id (digits that are no name), then by name; the first time stays */
    char idtext[24];
    snprintf(idtext, sizeof(idtext), "%lld", (long long)id2);
    REQUIRE_OK(revoke_token(s, idtext, 7000, &t));
    CHECK_STR(t.name, "bob");
    CHECK(t.revoked_at == 7000);
    mn_token_release(&t);
    REQUIRE_OK(revoke_token(s, "bob", 9000, &t));
    CHECK(t.revoked_at == 7000);
    mn_token_release(&t);
    REQUIRE_OK(find(s, "mnemo_secret-b", &t, stored));
    CHECK(t.revoked_at == 7000);
    mn_token_release(&t);
    CHECK(revoke_token(s, "nobody", 9000, &t) == MN_ENOTFOUND);
    CHECK(strstr(mn_error_last(), "'nobody'") != NULL);
    /* a name made of digits wins over the id it looks like */
    REQUIRE_OK(add(s, "1", "alpha", "admin", "mnemo_secret-e", 0, &id3));
    REQUIRE_OK(revoke_token(s, "1", 9000, &t));
    CHECK(t.id == id3);
    mn_token_release(&t);
    REQUIRE_OK(find(s, "mnemo_secret-a", &t, stored));
    CHECK(t.revoked_at == 0);
    mn_token_release(&t);

    /* last use */
    REQUIRE_OK(mn_store_token_touch(s, id1, 12345));
    REQUIRE_OK(find(s, "mnemo_secret-a", &t, stored));
    CHECK(t.last_used_at == 12345);
    mn_token_release(&t);

    CHECK_OK(mn_store_check(s));
    mn_store_free(other);
    mn_store_free(s);
    rm_rf(tmp);
    test_store_drop_all();
    free(path);
}

MN_TEST_MAIN(MN_TEST(test_tokens))
