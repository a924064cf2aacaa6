/*
 * test_vector_store.c - vectors in the store (store_vector.h), kept in step
 * by schema v5's triggers and by mn_embed_sync, and ranked by
 * mn_semantic_topk, with the built-in embedder as the real embedder.
 *
 * The corpus is a small "conversation": eight topics of five memories each,
 * saved in order, every topic with words of its own. The built-in model
 * learns from windows of neighbouring memories, so a memory that shares no
 * word with a query ("It was so relaxing and calm", said about a pottery
 * class) is still found by a query about pottery: the test that the
 * embedder adds something full-text search cannot.
 *
 * Runs on both back ends (tests/test_store.h: pg/unit/retrieve/vector_store
 * on PostgreSQL); stored facts are read with the back end's own client.
 */
#include "common.h"
#include <math.h>
#include <sqlite3.h>

#include "retrieve/embed.h"
#include "retrieve/semantic.h"
#include "store/store.h"
#include "store/store_index.h"
#include "store/store_search.h"
#include "store/store_vector.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_store.h"

static char tmp[64];

static const char *const topics[8][5] = {
    {"Melanie: I signed up for a pottery class at the studio downtown",
     "Caroline: a pottery class, with clay and a wheel?", "Melanie: It was so relaxing and calm",
     "Melanie: we shaped clay bowls on the wheel and glazed them",
     "Caroline: your pottery bowls look great"},
    {"Caroline: the adoption agency called about the interview",
     "Melanie: adoption paperwork takes months",
     "Caroline: the agency wants references from friends",
     "Melanie: I will write a reference letter for the agency",
     "Caroline: thanks, the adoption interview is next week"},
    {"Melanie: we went camping by the lake with the kids",
     "Caroline: did you pitch the tent near the lake?",
     "Melanie: the kids roasted marshmallows at the campfire",
     "Caroline: camping trips make great memories",
     "Melanie: next summer we camp in the mountains"},
    {"Caroline: my guitar lessons start on monday", "Melanie: acoustic or electric guitar?",
     "Caroline: acoustic, the teacher plays folk songs", "Melanie: practice chords every evening",
     "Caroline: my fingers hurt from the guitar strings"},
    {"Melanie: the marathon training plan is brutal",
     "Caroline: how many miles do you run each week?",
     "Melanie: forty miles, with a long run on sunday",
     "Caroline: remember to stretch after running", "Melanie: the marathon is in october"},
    {"Caroline: I painted a sunset over the ocean", "Melanie: watercolor or acrylic paint?",
     "Caroline: acrylic on a large canvas", "Melanie: hang the canvas in the hallway",
     "Caroline: painting helps me unwind after work"},
    {"Melanie: our dog learned to fetch the frisbee", "Caroline: what breed is the puppy?",
     "Melanie: a golden retriever who loves the park", "Caroline: dogs need long walks every day",
     "Melanie: the retriever sleeps on the sofa"},
    {"Caroline: I volunteer at the shelter on weekends",
     "Melanie: which shelter, the one for youth?", "Caroline: yes, the youth shelter needs mentors",
     "Melanie: mentoring teenagers takes patience",
     "Caroline: the shelter thanked the volunteers with a dinner"},
};

static char *new_db_path(void)
{
    char *p = test_store_new(tmp);
    if (!p)
        abort();
    return p;
}

static json_t *memory(const char *id, const char *body)
{
    json_t *m = J("{'id':'','kind':'episode','level':'L1','title':'','body':'',"
                  "'provenance':{'source':'import'},'status':'active','confidence':0.9,"
                  "'created_at':'2026-01-01T00:00:00.000Z','updated_at':'2026-01-01T00:00:00.000Z',"
                  "'counters':{'hits':0,'used':0,'ignored':0}}");
    json_object_set_new(m, "id", json_string(id));
    json_object_set_new(m, "title", json_string(body));
    json_object_set_new(m, "body", json_string(body));
    return m;
}

/* Memory ids by topic and position, as inserted. */
static char ids[8][5][MN_ID_LEN + 1];

static int insert_topics(mn_store *s)
{
    int rc = mn_store_begin(s);
    for (int t = 0; t < 8 && rc == 0; t++)
        for (int i = 0; i < 5 && rc == 0; i++) {
            mn_id_new(ids[t][i]);
            json_t *m = memory(ids[t][i], topics[t][i]);
            rc = mn_store_memory_insert(s, m);
            json_decref(m);
        }
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

/* One integer from SQL on the store, outside mnemo. */
static int64_t sql_int(const char *path, const char *sql)
{
    return test_store_sql_int(path, sql);
}

static int64_t rowid_of(const char *path, const char *uid)
{
    mn_buf sql = MN_BUF_INIT;
    mn_buf_printf(&sql, "SELECT id FROM memories WHERE uid = '%s'", uid);
    int64_t v = sql_int(path, sql.ptr);
    mn_buf_release(&sql);
    return v;
}

typedef struct {
    int64_t ids[64];
    double scores[64];
    size_t n;
} hits;

static int collect(void *payload, int64_t id, double score)
{
    hits *h = payload;
    if (h->n < 64) {
        h->ids[h->n] = id;
        h->scores[h->n++] = score;
    }
    return 0;
}

static bool has(const hits *h, size_t within, int64_t id)
{
    for (size_t i = 0; i < h->n && i < within; i++)
        if (h->ids[i] == id)
            return true;
    return false;
}

typedef struct {
    mn_buf b;
    int n;
} texts_seen;

static int on_text(void *payload, int64_t id, const char *text, size_t len)
{
    texts_seen *t = payload;
    MN_UNUSED(id);
    mn_buf_printf(&t->b, "%.*s|", (int)len, text);
    t->n++;
    return 0;
}

static void test_models_and_vectors(void)
{
    char *path = new_db_path();
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    REQUIRE_OK(insert_topics(s));
    int64_t m1 = rowid_of(path, ids[0][0]), m2 = rowid_of(path, ids[0][1]);

    /* a vector needs its model recorded, with the same dimension */
    int8_t q[20];
    for (int i = 0; i < 20; i++)
        q[i] = (int8_t)(i - 10);
    CHECK_OK(mn_store_begin(s));
    CHECK(mn_store_vector_put(s, "memory", m1, "http:x", q, 20, 0.01f) == MN_EINVAL);
    mn_embed_model_rec rec = {"http:x", false, 20, 0, NULL, 0, -1};
    CHECK_OK(mn_store_embed_model_put(s, &rec));
    CHECK_OK(mn_store_embed_model_put(s, &rec)); /* again: nothing changes */
    mn_embed_model_rec other = {"http:x", false, 21, 0, NULL, 0, -1};
    CHECK(mn_store_embed_model_put(s, &other) == MN_EINVAL);
    CHECK(mn_store_vector_put(s, "memory", m1, "http:x", q, 19, 0.01f) == MN_EINVAL);
    CHECK(mn_store_vector_put(s, "symbol", m1, "http:x", q, 20, 0.01f) == MN_EINVAL);
    CHECK_OK(mn_store_vector_put(s, "memory", m1, "http:x", q, 20, 0.01f));
    CHECK_OK(mn_store_vector_put(s, "memory", m2, "http:x", q, 20, 0.02f));
    CHECK_OK(mn_store_commit(s));

    /* read back, padded with zeros to 32 */
    int8_t *got = NULL;
    size_t dim = 0;
    float scale = 0;
    CHECK_OK(mn_store_vector_get(s, "memory", m1, "http:x", &got, &dim, &scale));
    CHECK(dim == 20 && scale > 0.0099f && scale < 0.0101f);
    CHECK(got && memcmp(got, q, 20) == 0);
    bool zero = true;
    for (size_t i = 20; got && i < 32; i++)
        zero = zero && got[i] == 0;
    CHECK(zero);
    free(got);
    CHECK(mn_store_vector_get(s, "memory", m1, "http:y", &got, &dim, &scale) == MN_ENOTFOUND);

    /* the shared set: padded stride, the same set while nothing changes (rows in the order
     * they were written here) */
    const mn_vector_set *a = NULL, *b = NULL;
    CHECK_OK(mn_store_vectors_load(s, "http:x", "memory", &a));
    CHECK_OK(mn_store_vectors_load(s, "http:x", "memory", &b));
    REQUIRE(a && b);
    CHECK(a == b);
    CHECK(a->n == 2 && a->dim == 20 && a->stride == 32);
    CHECK(a->ids[0] == m1 && a->ids[1] == m2);
    CHECK(a->data[32 + 1] == q[1] && a->data[20] == 0);
    mn_vector_set_release(b);

    /* a vector written gives a new set, in every transaction that writes one (the epoch moves
     * once per transaction, schema v17): here m2's vector, twice, then both in one */
    for (int round = 0; round < 3; round++) {
        int8_t q2[20];
        for (int i = 0; i < 20; i++)
            q2[i] = (int8_t)(round * 10 + i);
        CHECK_OK(mn_store_begin(s));
        if (round == 2) /* first, so that the rows stay in the order m1, m2 */
            CHECK_OK(mn_store_vector_put(s, "memory", m1, "http:x", q2, 20, 0.01f));
        CHECK_OK(mn_store_vector_put(s, "memory", m2, "http:x", q2, 20, 0.02f));
        CHECK_OK(mn_store_commit(s));
        CHECK_OK(mn_store_vectors_load(s, "http:x", "memory", &b));
        REQUIRE(b);
        CHECK(b != a && b->n == 2 && b->ids[0] == m1 && b->ids[1] == m2);
        CHECK(b->data[32 + 1] == q2[1] && b->data[1] == (round == 2 ? q2[1] : q[1]));
        mn_vector_set_release(a);
        a = b;
    }
    /* a write rolled back moves nothing: the same set */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_vector_put(s, "memory", m2, "http:x", q, 20, 0.02f));
    mn_store_rollback(s);
    CHECK_OK(mn_store_vectors_load(s, "http:x", "memory", &b));
    CHECK(b == a);
    mn_vector_set_release(b);

    /* a change of the vectors (here a memory's text) gives a new set; the old one stays
     * readable by whoever holds it */
    json_t *mem = NULL;
    REQUIRE_OK(mn_store_memory_get(s, &mem, ids[0][1]));
    json_object_set_new(mem, "body", json_string("changed text"));
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_replace(s, mem));
    CHECK_OK(mn_store_commit(s));
    json_decref(mem);
    CHECK_OK(mn_store_vectors_load(s, "http:x", "memory", &b));
    CHECK(b != a && b->n == 1 && b->ids[0] == m1);
    CHECK(a->n == 2 && a->ids[1] == m2);
    mn_vector_set_release(a);
    mn_vector_set_release(b);

    /* counters and status leave vectors alone; forgetting and purging do not */
    CHECK(sql_int(path, "SELECT count(*) FROM vectors") == 1);
    int64_t rows[1] = {m1};
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memories_touch(s, rows, 1, 1000));
    CHECK_OK(mn_store_commit(s));
    CHECK(sql_int(path, "SELECT count(*) FROM vectors") == 1);
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ids[0][0], 1000));
    CHECK_OK(mn_store_commit(s));
    CHECK(sql_int(path, "SELECT count(*) FROM vectors") == 0);

    int64_t have = -1, missing = -1;
    CHECK_OK(mn_store_vectors_count(s, "http:x", "memory", &have, &missing));
    CHECK(have == 0 && missing == 39);

    /* what still needs embedding, with the text to embed: the title is not repeated when
     * the body starts with it */
    texts_seen t = {MN_BUF_INIT, 0};
    CHECK_OK(mn_store_vectors_missing(s, "http:x", "memory", 3, on_text, &t));
    CHECK(t.n == 3);
    CHECK_STR(t.b.ptr, "Caroline: a pottery class, with clay and a wheel?\nchanged text|"
                       "Melanie: It was so relaxing and calm|"
                       "Melanie: we shaped clay bowls on the wheel and glazed them|");
    mn_buf_release(&t.b);

    /* dropping every model but one takes their vectors along */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_vector_put(s, "memory", m2, "http:x", q, 20, 0.02f));
    int64_t dropped = 0;
    CHECK_OK(mn_store_embed_models_drop(s, "http:other", &dropped));
    CHECK_OK(mn_store_commit(s));
    CHECK(dropped == 1);
    CHECK(mn_store_embed_model_get(s, "http:x", &rec) == MN_ENOTFOUND);

    /* how vectors are ranked (mnemo status): exact int8 in mnemo; on PostgreSQL, what the
     * server says of pgvector */
    const char *how = NULL;
    CHECK_OK(mn_store_vector_search(s, &how));
    CHECK(how && strstr(how, "exact top-k in mnemo"));
    if (test_store_pg()) {
        int64_t avail = sql_int(path, "SELECT count(*) FROM pg_available_extensions WHERE name = "
                                      "'vector'");
        CHECK(how && strstr(how, avail ? "pgvector is available" : "pgvector is not available"));
    }
    mn_store_free(s);
    free(path);
}

/* The text of one memory with every field that goes into it, as vectors_missing gives it. */
static char *text_of(const char *path)
{
    mn_store *s = NULL;
    texts_seen t = {MN_BUF_INIT, 0};
    char id[MN_ID_LEN + 1];
    mn_id_new(id);
    json_t *m = memory(id, "Retries double-charge the card when the key is missing");
    json_object_set_new(m, "title", json_string("Checkout retries charge twice"));
    json_object_set_new(m, "context",
                        J("{'situation':'a checkout retried after a timeout',"
                          "'solution':'send the idempotency key','trigger_keywords':['retry',"
                          "'idempotency','caf\u00e9'],'what_failed':'a lock in the handler',"
                          "'error_messages':['E1: duplicate charge','E2: \\\\timeout'],"
                          "'files_modified':['shop/pay.py','shop/cart.py']}"));
    json_object_set_new(m, "scope",
                        J("{'paths':['shop/'],'symbols':['pay','Cart.total'],'tags':['billing']}"));
    if (mn_store_open(&s, path, NULL) == 0 && mn_store_begin(s) == 0) {
        if (mn_store_memory_insert(s, m) == 0)
            mn_store_commit(s);
        else
            mn_store_rollback(s);
    }
    json_decref(m);
    if (s)
        CHECK_OK(mn_store_vectors_missing(s, "http:none", "memory", 0, on_text, &t));
    mn_store_free(s);
    CHECK(t.n == 1);
    return mn_buf_detach(&t.b);
}

/* A memory's embedded text is the one SQLite's full-text view gives (schema v3), on either
 * back end: title, keywords and tags, body, then the context, one per line. */
static void test_memory_text(void)
{
    char *path = new_db_path(), *file = NULL;
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s/text.sqlite", tmp);
    file = mn_buf_detach(&b);
    char *here = text_of(path), *sqlite = text_of(file);
    CHECK_STR(here, sqlite);
    CHECK_STR(sqlite, "Checkout retries charge twice\nretry idempotency caf\u00e9 billing\n"
                      "Retries double-charge the card when the key is missing\n"
                      "a checkout retried after a timeout\nsend the idempotency key\n"
                      "a lock in the handler\nE1: duplicate charge\nE2: \\timeout\n"
                      "shop/pay.py shop/cart.py\nshop/\npay Cart.total|");
    free(here);
    free(sqlite);
    free(path);
    free(file);
}

/* Two projects in one file: each loads only its own vectors, whether the
 * other project owns rows yet (joins) or not (the plain read). */
static void test_vectors_two_projects(void)
{
    char *path = new_db_path();
    mn_store *a = NULL, *b = NULL;
    mn_store_options oa = MN_STORE_OPTIONS_INIT, ob = MN_STORE_OPTIONS_INIT;
    oa.project = "alpha";
    ob.project = "beta";
    REQUIRE_OK(mn_store_open(&a, path, &oa));
    REQUIRE_OK(mn_store_open(&b, path, &ob));
    int8_t q[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    mn_embed_model_rec rec = {"http:two", false, 8, 0, NULL, 0, -1};
    char ida[MN_ID_LEN + 1], idb[MN_ID_LEN + 1];

    /* alpha alone owns memories: its one vector comes back */
    mn_id_new(ida);
    json_t *m = memory(ida, "alpha's memory");
    CHECK_OK(mn_store_begin(a));
    CHECK_OK(mn_store_memory_insert(a, m));
    CHECK_OK(mn_store_commit(a)); /* rowid_of reads through another connection */
    CHECK_OK(mn_store_begin(a));
    CHECK_OK(mn_store_embed_model_put(a, &rec));
    CHECK_OK(mn_store_vector_put(a, "memory", rowid_of(path, ida), "http:two", q, 8, 0.5f));
    CHECK_OK(mn_store_commit(a));
    json_decref(m);
    const mn_vector_set *va = NULL, *vb = NULL;
    CHECK_OK(mn_store_vectors_load(a, "http:two", "memory", &va));
    CHECK(va && va->n == 1 && va->ids[0] == rowid_of(path, ida));
    mn_vector_set_release(va);
    CHECK_OK(mn_store_vectors_load(b, "http:two", "memory", &vb));
    CHECK(vb && vb->n == 0); /* beta owns nothing: alpha's vector is not beta's */
    mn_vector_set_release(vb);

    /* beta saves one too: each sees its own only */
    mn_id_new(idb);
    m = memory(idb, "beta's memory");
    CHECK_OK(mn_store_begin(b));
    CHECK_OK(mn_store_memory_insert(b, m));
    CHECK_OK(mn_store_commit(b));
    CHECK_OK(mn_store_begin(b));
    CHECK_OK(mn_store_vector_put(b, "memory", rowid_of(path, idb), "http:two", q, 8, 0.25f));
    CHECK_OK(mn_store_commit(b));
    json_decref(m);
    CHECK_OK(mn_store_vectors_load(a, "http:two", "memory", &va));
    CHECK(va && va->n == 1 && va->ids[0] == rowid_of(path, ida));
    CHECK_OK(mn_store_vectors_load(b, "http:two", "memory", &vb));
    CHECK(vb && vb->n == 1 && vb->ids[0] == rowid_of(path, idb));
    mn_vector_set_release(va);
    mn_vector_set_release(vb);
    mn_store_free(a);
    mn_store_free(b);
    free(path);
}

/*
 * An epoch per kind of vector and the corpus epoch's chunk side (SQLite
 * schema v19, PostgreSQL v6): a memory's vector, written or removed, leaves
 * the chunks' set as loaded, and a memory saved leaves the chunks synced; a
 * chunk's vector, or a chunk changed, does not.
 */
/* The model's set of kind loaded again: a new set of n vectors, which replaces *set. */
static void check_reloaded(mn_store *s, const char *kind, const mn_vector_set **set, size_t n)
{
    const mn_vector_set *again = NULL;
    CHECK_OK(mn_store_vectors_load(s, "http:kinds", kind, &again));
    CHECK(again && again != *set && again->n == n);
    mn_vector_set_release(*set);
    *set = again;
}

/* The model's set of kind loaded again: the same set as before (kept, not read again). */
static void check_kept(mn_store *s, const char *kind, const mn_vector_set *set)
{
    const mn_vector_set *again = NULL;
    CHECK_OK(mn_store_vectors_load(s, "http:kinds", kind, &again));
    CHECK(again == set);
    mn_vector_set_release(again);
}

static void test_epoch_per_kind(void)
{
    char *path = new_db_path();
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    REQUIRE_OK(insert_topics(s));
    int64_t m1 = rowid_of(path, ids[0][0]), m2 = rowid_of(path, ids[0][1]);
    int8_t q[16];
    for (int i = 0; i < 16; i++)
        q[i] = (int8_t)(3 * i - 20);
    mn_embed_model_rec rec = {"http:kinds", false, 16, 0, NULL, 0, -1};
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_embed_model_put(s, &rec));
    CHECK_OK(mn_store_vector_put(s, "memory", m1, "http:kinds", q, 16, 0.5f));
    /* chunk vectors under ids no chunk has: the set is every chunk vector of the model */
    CHECK_OK(mn_store_vector_put(s, "chunk", 9001, "http:kinds", q, 16, 0.5f));
    CHECK_OK(mn_store_vector_put(s, "chunk", 9002, "http:kinds", q, 16, 0.5f));
    CHECK_OK(mn_store_commit(s));
    const mn_vector_set *chunks = NULL, *mems = NULL;
    CHECK_OK(mn_store_vectors_load(s, "http:kinds", "chunk", &chunks));
    CHECK_OK(mn_store_vectors_load(s, "http:kinds", "memory", &mems));
    REQUIRE(chunks && mems);
    CHECK(chunks->n == 2 && mems->n == 1);

    /* a memory's vector written: the memories' set is new, the chunks' the same */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_vector_put(s, "memory", m2, "http:kinds", q, 16, 0.5f));
    CHECK_OK(mn_store_commit(s));
    check_reloaded(s, "memory", &mems, 2);
    check_kept(s, "chunk", chunks);
    /* removed (a memory forgotten: its trigger deletes the vector): the same */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ids[0][1], 1000));
    CHECK_OK(mn_store_commit(s));
    check_reloaded(s, "memory", &mems, 1);
    check_kept(s, "chunk", chunks);
    /* a chunk's vector written: the chunks' set is new, the memories' the same */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_vector_put(s, "chunk", 9003, "http:kinds", q, 16, 0.5f));
    CHECK_OK(mn_store_commit(s));
    check_reloaded(s, "chunk", &chunks, 3);
    check_kept(s, "memory", mems);
    /* removed (the vectors of chunks that are not there: the trigger of their delete): new */
    int64_t removed = 0;
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_vectors_gc(s, &removed));
    CHECK_OK(mn_store_commit(s));
    CHECK(removed == 3);
    check_reloaded(s, "chunk", &chunks, 0);
    mn_vector_set_release(chunks);
    mn_vector_set_release(mems);

    /* the chunks are current from a sync that left nothing to embed until a chunk changes;
     * memories saved, changed or forgotten in between leave them so */
    bool current = true;
    CHECK_OK(mn_store_embed_chunks_current(s, "http:kinds", &current));
    CHECK(!current); /* never synced */
    int64_t epoch = 0;
    CHECK_OK(mn_store_embed_corpus_epoch(s, &epoch));
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_embed_model_synced(s, "http:kinds", epoch));
    CHECK_OK(mn_store_commit(s));
    CHECK_OK(mn_store_embed_chunks_current(s, "http:kinds", &current));
    CHECK(current);
    char id[MN_ID_LEN + 1];
    mn_id_new(id);
    json_t *m = memory(id, "a memory saved after the sync");
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_insert(s, m));
    CHECK_OK(mn_store_memory_set_deleted(s, ids[1][0], 1000));
    CHECK_OK(mn_store_commit(s));
    json_decref(m);
    int64_t moved = 0;
    CHECK_OK(mn_store_embed_corpus_epoch(s, &moved));
    CHECK(moved > epoch); /* the corpus moved: a sync looks at the memories */
    CHECK_OK(mn_store_embed_chunks_current(s, "http:kinds", &current));
    CHECK(current);
    /* a chunk (a file's) written: not current, and a sync at an older epoch does not make it so */
    mn_chunk_rec chunk = {-1, 1, 1, "int main(void) { return 0; }", "c1"};
    mn_file_rec f = {0};
    f.path = "main.c";
    f.language = "c";
    f.role = "source";
    snprintf(f.hash, sizeof(f.hash), "%s", "c1");
    mn_file_content c = {NULL, 0, NULL, 0, &chunk, 1, NULL, 0};
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_file_replace(s, &f, &c));
    CHECK_OK(mn_store_commit(s));
    CHECK_OK(mn_store_embed_chunks_current(s, "http:kinds", &current));
    CHECK(!current);
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_embed_model_synced(s, "http:kinds", moved));
    CHECK_OK(mn_store_commit(s));
    CHECK_OK(mn_store_embed_chunks_current(s, "http:kinds", &current));
    CHECK(!current);
    mn_store_free(s);
    free(path);
}

/* Open the built-in embedder (training when needed) and sync; stats into *st. */
static int sync_builtin(mn_store *s, mn_embedder **e, mn_embed_sync_stats *st)
{
    mn_embed_options o = MN_EMBED_OPTIONS_INIT;
    memset(st, 0, sizeof(*st));
    mn_embedder_free(*e);
    *e = NULL;
    int rc = mn_embedder_open(e, s, &o, MN_EMBED_MAY_TRAIN, st);
    if (rc == 0 && !*e)
        rc = mn_error_set(MN_ERROR, "no embedder");
    if (rc == 0)
        rc = mn_embed_sync(s, *e, 0, st);
    return rc;
}

static void test_sync_and_semantic(void)
{
    char *path = new_db_path();
    mn_store *s = NULL;
    mn_embedder *e = NULL;
    mn_embed_sync_stats st;
    REQUIRE_OK(mn_store_open(&s, path, NULL));

    /* too small a corpus: no model, and a message saying why */
    mn_embed_options o = MN_EMBED_OPTIONS_INIT;
    CHECK(mn_embedder_open(&e, s, &o, MN_EMBED_MAY_TRAIN, &st) == MN_ENOTFOUND);
    CHECK(strstr(mn_error_last(), "at least 32") != NULL);
    CHECK(e == NULL);

    REQUIRE_OK(insert_topics(s));
    REQUIRE_OK(sync_builtin(s, &e, &st));
    CHECK(st.train.trained && st.train.docs == 40 && st.train.dim == 32);
    CHECK(st.embedded == 40 && st.missing == 0);
    CHECK(strncmp(e->model, "builtin:lsa32@", 14) == 0 && strlen(e->model) == 14 + 16);
    CHECK(sql_int(path, "SELECT count(*) FROM vectors WHERE owner_kind = 'memory'") == 40);
    CHECK(sql_int(path, "SELECT count(*) FROM embed_terms") > 60);

    /* nothing changed: nothing to do, and the model is not trained again */
    REQUIRE_OK(sync_builtin(s, &e, &st));
    CHECK(!st.train.trained && st.embedded == 0);

    /* the contextual effect: a query about pottery finds the pottery turns first, among them
     * one that shares no word with it */
    hits h = {{0}, {0}, 0};
    CHECK_OK(mn_semantic_search(s, e, "what did Melanie think about the pottery class?", "memory",
                                10, collect, &h));
    int64_t relaxing = rowid_of(path, ids[0][2]);
    CHECK(h.n >= 5);
    CHECK(has(&h, 3, relaxing));
    int pottery = 0;
    for (int i = 0; i < 5; i++)
        pottery += has(&h, 5, rowid_of(path, ids[0][i]));
    CHECK(pottery >= 4);
    for (size_t i = 1; i < h.n; i++)
        CHECK(h.scores[i] <= h.scores[i - 1] && h.scores[i] > 0 && h.scores[i] <= 1);
    h.n = 0;
    CHECK_OK(mn_semantic_search(s, e, "guitar chords", "memory", 3, collect, &h));
    CHECK(h.n == 3 && has(&h, 3, rowid_of(path, ids[3][3])));
    /* a query of words the model never saw has nothing to rank by */
    h.n = 0;
    CHECK_OK(mn_semantic_search(s, e, "zyxxy qwertz", "memory", 10, collect, &h));
    CHECK(h.n == 0);

    /* one memory edited: one vector again, same model */
    char *model = mn_strdup(e->model);
    json_t *mem = NULL;
    REQUIRE_OK(mn_store_memory_get(s, &mem, ids[2][0]));
    json_object_set_new(mem, "body", json_string("we went hiking by the river with the kids"));
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_replace(s, mem));
    CHECK_OK(mn_store_commit(s));
    json_decref(mem);
    REQUIRE_OK(sync_builtin(s, &e, &st));
    CHECK(!st.train.trained && st.embedded == 1);
    CHECK_STR(e->model, model);

    /* a sync may stop early and say what is left */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ids[1][0], 1000));
    CHECK_OK(mn_store_memory_set_deleted(s, ids[1][0], 0));
    CHECK_OK(mn_store_memory_set_deleted(s, ids[1][1], 1000));
    CHECK_OK(mn_store_memory_set_deleted(s, ids[1][1], 0));
    CHECK_OK(mn_store_commit(s));
    memset(&st, 0, sizeof(st));
    CHECK_OK(mn_embed_sync(s, e, 1, &st));
    CHECK(st.embedded == 1 && st.missing == 1);
    memset(&st, 0, sizeof(st));
    CHECK_OK(mn_embed_sync(s, e, 0, &st));
    CHECK(st.embedded == 1 && st.missing == 0);

    /* code: a file's chunks get vectors; re-indexing the file replaces its chunks, and
     * their vectors go with them */
    mn_file_rec f = {0, "studio/kiln.py", "python", "source", "aaaa", 10, 3, 0, 0, false};
    mn_chunk_rec chunks[2] = {{-1, 1, 2, "def fire_kiln(clay):\n    glaze(clay)\n", "c1"},
                              {-1, 3, 3, "def spin_wheel(): pass\n", "c2"}};
    mn_file_content fc = {NULL, 0, NULL, 0, chunks, 2, NULL, 0};
    CHECK_OK(mn_store_begin(s));
    int code = mn_store_file_replace(s, &f, &fc);
    if (code == MN_EUNSUPPORTED) { /* a back end without the code index yet */
        printf("skip on %s: the vectors of code chunks: %s\n", mn_store_backend_name(s),
               mn_error_last());
        mn_store_rollback(s);
        goto corpus;
    }
    CHECK_OK(code);
    CHECK_OK(mn_store_commit(s));
    REQUIRE_OK(sync_builtin(s, &e, &st));
    CHECK(st.embedded == 2);
    CHECK(sql_int(path, "SELECT count(*) FROM vectors WHERE owner_kind = 'chunk'") == 2);
    h.n = 0;
    CHECK_OK(mn_semantic_search(s, e, "clay glaze", "chunk", 10, collect, &h));
    CHECK(h.n >= 1);
    chunks[1].text = "def spin_wheel(speed): pass\n";
    snprintf(chunks[1].hash, sizeof(chunks[1].hash), "c3");
    snprintf(f.hash, sizeof(f.hash), "bbbb");
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_file_replace(s, &f, &fc));
    CHECK_OK(mn_store_commit(s));
    int64_t live = sql_int(path, "SELECT count(*) FROM vectors v JOIN chunks c ON c.id = "
                                 "v.owner_id WHERE v.owner_kind = 'chunk'");
    CHECK(live == sql_int(path, "SELECT count(*) FROM vectors WHERE owner_kind = 'chunk'"));
    REQUIRE_OK(sync_builtin(s, &e, &st));
    CHECK(sql_int(path, "SELECT count(*) FROM vectors WHERE owner_kind = 'chunk'") == 2);
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_file_remove(s, "studio/kiln.py"));
    CHECK_OK(mn_store_commit(s));
    CHECK(sql_int(path, "SELECT count(*) FROM vectors WHERE owner_kind = 'chunk'") == 0);

corpus:
    /* the corpus grew by half: a new model, everything embedded again under it */
    CHECK_OK(mn_store_begin(s));
    for (int i = 0; i < 20; i++) {
        char id[MN_ID_LEN + 1], body[96];
        mn_id_new(id);
        snprintf(body, sizeof(body), "Caroline: chess puzzle number %d was hard", i);
        json_t *m = memory(id, body);
        CHECK_OK(mn_store_memory_insert(s, m));
        json_decref(m);
    }
    CHECK_OK(mn_store_commit(s));
    REQUIRE_OK(sync_builtin(s, &e, &st));
    CHECK(st.train.trained && st.train.docs == 60);
    CHECK(strcmp(e->model, model) != 0);
    CHECK(st.embedded == 60 && st.dropped == 0); /* training dropped the old model's vectors */
    CHECK(sql_int(path, "SELECT count(DISTINCT model) FROM vectors") == 1);
    CHECK(sql_int(path, "SELECT count(*) FROM embed_models") == 1);

    /* a read-only store ranks with what is stored */
    mn_store *ro = NULL;
    mn_store_options ropts = MN_STORE_OPTIONS_INIT;
    ropts.read_only = true;
    ropts.create = false;
    REQUIRE_OK(mn_store_open(&ro, path, &ropts));
    mn_embedder *re = NULL;
    CHECK_OK(mn_embedder_open(&re, ro, &o, MN_EMBED_MAY_TRAIN, NULL));
    REQUIRE(re != NULL);
    CHECK_STR(re->model, e->model);
    h.n = 0;
    CHECK_OK(mn_semantic_search(ro, re, "pottery", "memory", 5, collect, &h));
    CHECK(h.n == 5 && has(&h, 5, relaxing));
    mn_embedder_free(re);
    mn_store_free(ro);

    /* a whole-corpus sync reads its rows without a vector in few batches: each read scans the
     * store from the first row, so 256 per batch made sympy's 45,000 chunks a quadratic sync
     * (issue 22) */
    CHECK(e->batch >= 4096);

    /* training is deterministic: the same corpus gives the same model */
    char *before = mn_strdup(e->model);
    mn_embed_train_stats ts;
    CHECK_OK(mn_embed_builtin_train(s, true, &ts));
    CHECK(ts.trained);
    mn_embedder *again = NULL;
    CHECK_OK(mn_embedder_builtin_open(&again, s));
    CHECK(again && strcmp(again->model, before) == 0);
    mn_embedder_free(again);
    free(before);

    /* provider off: no embedder, no error; an unknown provider is an error */
    o.provider = "off";
    mn_embedder *none = NULL;
    CHECK_OK(mn_embedder_open(&none, s, &o, 0, NULL));
    CHECK(none == NULL);
    o.provider = "magic";
    CHECK(mn_embedder_open(&none, s, &o, 0, NULL) == MN_EINVAL);

    free(model);
    mn_embedder_free(e);
    mn_store_free(s);
    free(path);
}

/* Every memory vector of the store under ids_model: owner id -> 32 int8 values and a scale, in
 * id order (rows are inserted in topic order). */
static const char *ids_model;
typedef struct {
    int64_t id[64];
    int8_t q[64][32];
    double scale[64];
    int n;
} vecs;

static void read_vecs(mn_store *s, const char *path, vecs *v)
{
    v->n = 0;
    for (int t = 0; t < 8; t++)
        for (int i = 0; i < 5 && v->n < 64; i++) {
            int8_t *q = NULL;
            size_t dim = 0;
            float scale = 0;
            int64_t id = rowid_of(path, ids[t][i]);
            if (mn_store_vector_get(s, "memory", id, ids_model, &q, &dim, &scale) != 0)
                continue;
            v->id[v->n] = id;
            if (dim == 32)
                memcpy(v->q[v->n], q, 32);
            v->scale[v->n] = scale;
            v->n++;
            free(q);
        }
}

/* Training gives the corpus its vectors (issue 22: a sync would read and tokenize it all
 * again), the ones a sync writes up to float rounding. */
static void test_train_embeds_corpus(void)
{
    char *path = new_db_path();
    mn_store *s = NULL;
    mn_embedder *e = NULL;
    mn_embed_train_stats ts;
    mn_embed_sync_stats st;
    vecs *trained = mn_calloc(1, sizeof(*trained)), *synced = mn_calloc(1, sizeof(*synced));
    REQUIRE_OK(mn_store_open(&s, path, NULL));
    REQUIRE_OK(insert_topics(s));
    REQUIRE_OK(mn_embed_builtin_train(s, true, &ts));
    CHECK(ts.trained && ts.dim == 32 && ts.embedded == 40);
    CHECK(sql_int(path, "SELECT count(*) FROM vectors WHERE owner_kind = 'memory'") == 40);
    REQUIRE_OK(mn_embedder_builtin_open(&e, s));
    ids_model = e->model;
    read_vecs(s, path, trained);

    /* training recorded the corpus as synced: a sync right after has nothing to look for */
    CHECK(sql_int(path, "SELECT synced_epoch FROM embed_models") ==
          sql_int(path, "SELECT epoch FROM embed_corpus"));

    /* the same rows embedded by a sync, from the stored term vectors (the vectors removed
     * behind the store's back: the sync must look again) */
    CHECK(test_store_sql_exec(path, "DELETE FROM vectors; UPDATE embed_models SET "
                                    "synced_epoch = -1") == 0);
    memset(&st, 0, sizeof(st));
    CHECK_OK(mn_embed_sync(s, e, 0, &st));
    CHECK(st.embedded == 40);
    read_vecs(s, path, synced);
    REQUIRE(trained->n == 40 && synced->n == 40);
    for (int i = 0; i < 40; i++) {
        double dot = 0, na = 0, nb = 0;
        CHECK(trained->id[i] == synced->id[i]);
        for (int c = 0; c < 32; c++) {
            double a = trained->q[i][c] * trained->scale[i], b = synced->q[i][c] * synced->scale[i];
            dot += a * b;
            na += a * a;
            nb += b * b;
        }
        CHECK(na > 0 && dot / sqrt(na * nb) > 0.9999);
    }
    /* and the sync after training has nothing left to do */
    ids_model = NULL;
    mn_embedder_free(e);
    e = NULL;
    REQUIRE_OK(mn_embed_builtin_train(s, true, &ts));
    CHECK(ts.embedded == 40);
    REQUIRE_OK(mn_embedder_builtin_open(&e, s));
    memset(&st, 0, sizeof(st));
    CHECK_OK(mn_embed_sync(s, e, 0, &st));
    CHECK(st.embedded == 0 && st.missing == 0);

    free(trained);
    free(synced);
    mn_embedder_free(e);
    mn_store_free(s);
    free(path);
}

static void setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-vectors-XXXXXX");
    if (!mkdtemp(tmp))
        abort();
}

static void teardown(void)
{
    test_store_drop_all();
    rm_rf(tmp);
    CHECK(!mn_fs_exists(tmp));
}

MN_TEST_MAIN(MN_TEST(setup), MN_TEST(test_models_and_vectors), MN_TEST(test_vectors_two_projects),
             MN_TEST(test_epoch_per_kind), MN_TEST(test_memory_text),
             MN_TEST(test_sync_and_semantic), MN_TEST(test_train_embeds_corpus), MN_TEST(teardown))
