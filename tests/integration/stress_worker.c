/*
 * stress_worker.c - the process that concurrency.sh and crash_safety.sh run
 * many copies of, to prove that a store shared by processes stays whole.
 *
 *   stress_worker save DB N TAG          N saves, titles TAG-0 .. TAG-(N-1)
 *   stress_worker read DB SECONDS|FILE   list + export in a loop, for SECONDS
 *                                        or until FILE exists
 *   stress_worker check DB [EXPECT_N] [--committed LOG]
 *                                        integrity + every memory complete
 *   stress_worker crashloop DB [LOG]     save forever (the caller kills it)
 *   stress_worker open DB                open (create) the store and exit
 *   stress_worker unwal DB               switch the store back to a rollback
 *                                        journal, as a store copied by a
 *                                        backup tool may be
 *
 * Every memory is a pure function of its title "PREFIX-i": make_memory()
 * builds the save input from it and check_memory() rebuilds that input
 * from the stored title and compares every field, so a memory that was
 * torn by a crash or a race (a missing tag or citation, a cut excerpt) is
 * found. Memory i has 1 + i % 4 tags, 1 + i % 2 scope paths, 1 + i % 3
 * citations and a conversation excerpt of 2-6 KB, so its transaction
 * touches the memory row, both side tables, the citations and the audit log.
 *
 * Saves go through mn_api_call(), as every front end does; each is one
 * transaction. Any error, a busy timeout included, makes the process print
 * it and exit 1. check also reads the side tables and the audit log with
 * SQL, because export shows neither: a memory must have exactly the
 * memory_tags and memory_paths rows its JSON lists and one 'save' audit row.
 *
 * With MNEMO_STRESS_BARRIER naming a FIFO, save opens it for reading before
 * it opens the store: that blocks until the caller opens the FIFO for
 * writing, which releases every waiting process at the same moment.
 *
 * crashloop appends the title of each save it saw commit to LOG, one
 * write(2) per line; check --committed LOG then requires every title in it
 * to be stored, which proves that a commit survives a SIGKILL.
 */
#include "common.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mnemo/api.h"
#include "store/store.h"
#include "util/util.h"

#define LIST_LIMIT 100

static const char *const kinds[] = {"fact", "gotcha", "decision", "pattern"};
static const char *const words[] = {
    "the",   "store", "lock",      "busy",   "commit", "rollback", "writer", "reader",
    "WAL",   "page",  "index",     "memory", "save",   "export",   "agent",  "session",
    "retry", "cart",  "delay",     "nil",    "401",    "timeout",  "fixed",  "by",
    "using", "BEGIN", "IMMEDIATE", "so",     "two",    "writers",  "never",  "deadlock"};

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static size_t excerpt_len(long i)
{
    return 2048 + (size_t)(i * 7919 % 4096);
}

/* A few KB of conversation, deterministic in the title, exactly excerpt_len(i) bytes. */
static char *excerpt_text(const char *title, long i)
{
    mn_buf b = MN_BUF_INIT;
    uint64_t x = fnv1a(title);
    size_t len = excerpt_len(i);
    mn_buf_printf(&b, "user: why does %s fail?\nassistant: ", title);
    while (b.len < len) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        mn_buf_puts(&b, words[(x >> 33) % MN_ARRAY_SIZE(words)]);
        mn_buf_puts(&b, (x >> 20) % 13 == 0 ? "\nuser: " : " ");
    }
    mn_buf_truncate(&b, len);
    return mn_buf_detach(&b);
}

/*
 * n made-up words, deterministic in (title, salt): the subject of a
 * memory. Memories whose texts differed only in their numbers would be
 * near-duplicates with another conclusion (sent to review, not active);
 * each stress memory must be a memory of its own.
 */
static void subject(mn_buf *b, const char *title, unsigned salt, int n)
{
    static const char cons[] = "bdfgklmnprstvz", vow[] = "aeiou";
    uint64_t x = fnv1a(title) ^ (0x9e3779b97f4a7c15ULL * (salt + 1));
    for (int w = 0; w < n; w++) {
        if (w)
            mn_buf_putc(b, ' ');
        for (int k = 0; k < 3; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            mn_buf_putc(b, cons[(x >> 33) % (sizeof(cons) - 1)]);
            mn_buf_putc(b, vow[(x >> 45) % (sizeof(vow) - 1)]);
        }
    }
}

/* The save input of memory PREFIX-i (a new reference). */
static json_t *make_memory(const char *prefix, long i)
{
    char title[256], s[512];
    mn_buf b = MN_BUF_INIT;
    snprintf(title, sizeof(title), "%s-%ld", prefix, i);
    json_t *m = json_object();
    json_object_set_new(m, "kind", json_string(kinds[i % 4]));
    json_object_set_new(m, "title", json_string(title));
    mn_buf_printf(&b, "Stress memory %s: ", title);
    subject(&b, title, 0, 14);
    mn_buf_puts(&b, ".");
    json_object_set_new(m, "body", json_stringn(b.ptr, b.len));

    json_t *ctx = json_object();
    mn_buf_truncate(&b, 0);
    subject(&b, title, 1, 8);
    json_object_set_new(ctx, "situation", json_stringn(b.ptr, b.len));
    mn_buf_truncate(&b, 0);
    subject(&b, title, 2, 8);
    json_object_set_new(ctx, "solution", json_stringn(b.ptr, b.len));
    mn_buf_release(&b);
    snprintf(s, sizeof(s), "case%ld", i);
    json_object_set_new(ctx, "trigger_keywords", json_pack("[s,s,s]", "stress", s, "race"));
    json_t *errs = json_array();
    snprintf(s, sizeof(s), "SQLITE_BUSY: database is locked (case %ld)", i);
    json_array_append_new(errs, json_string(s));
    snprintf(s, sizeof(s), "E%ld: torn write in %s", i, title);
    json_array_append_new(errs, json_string(s));
    json_object_set_new(ctx, "error_messages", errs);
    char *ex = excerpt_text(title, i);
    json_object_set_new(ctx, "conversation_excerpt", json_string(ex));
    free(ex);
    json_object_set_new(m, "context", ctx);

    json_t *scope = json_object(), *paths = json_array(), *tags = json_array();
    for (long k = 0; k <= i % 2; k++) {
        snprintf(s, sizeof(s), "src/stress/m%ld/f%ld.c", i % 97, k);
        json_array_append_new(paths, json_string(s));
    }
    json_array_append_new(tags, json_string("stress"));
    for (long k = 1; k <= i % 4; k++) {
        snprintf(s, sizeof(s), "t%ld", k);
        json_array_append_new(tags, json_string(s));
    }
    json_object_set_new(scope, "paths", paths);
    json_object_set_new(scope, "tags", tags);
    snprintf(s, sizeof(s), "stress_fn_%ld", i);
    json_object_set_new(scope, "symbols", json_pack("[s]", s));
    json_object_set_new(m, "scope", scope);

    snprintf(s, sizeof(s), "STRESS-%ld", i);
    json_object_set_new(m, "provenance", json_pack("{s:s,s:s}", "source", "agent", "task", s));

    json_t *cits = json_array();
    for (long k = 0; k <= i % 3; k++) {
        char path[64], sym[64];
        snprintf(path, sizeof(path), "src/stress/m%ld/f0.c", i % 97);
        snprintf(sym, sizeof(sym), "stress_fn_%ld_%ld", i, k);
        json_array_append_new(cits, json_pack("{s:s,s:s,s:I,s:I}", "path", path, "symbol", sym,
                                              "start_line", (json_int_t)(10 * k + 1), "end_line",
                                              (json_int_t)(10 * k + 5)));
    }
    json_object_set_new(m, "citations", cits);
    return m;
}

/* Split a title "PREFIX-i"; *prefix is malloc'd. */
static bool parse_title(const char *title, char **prefix, long *i)
{
    const char *dash = title ? strrchr(title, '-') : NULL;
    char *end;
    if (!dash || dash == title || !dash[1])
        return false;
    errno = 0;
    *i = strtol(dash + 1, &end, 10);
    if (errno || *end || *i < 0)
        return false;
    *prefix = mn_strndup(title, (size_t)(dash - title));
    return true;
}

static const char *str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static bool same_str(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/*
 * Is the stored memory exactly what make_memory() saved under its title?
 * On a difference, a message in why and false; *out_i is the case number.
 */
static bool check_memory(const json_t *mem, mn_buf *why, long *out_i)
{
    const char *title = str(mem, "title");
    char *prefix = NULL;
    long i;
    bool ok = false;
    mn_buf_clear(why);
    if (!parse_title(title, &prefix, &i)) {
        mn_buf_printf(why, "memory '%s': title '%s' is not PREFIX-N", str(mem, "id"),
                      title ? title : "(none)");
        return false;
    }
    *out_i = i;
    json_t *want = make_memory(prefix, i);
    const json_t *ctx = json_object_get(mem, "context"), *wctx = json_object_get(want, "context");
    const json_t *scope = json_object_get(mem, "scope"), *wscope = json_object_get(want, "scope");
    const json_t *cits = json_object_get(mem, "citations");
    const json_t *wcits = json_object_get(want, "citations");
    const json_t *kw = json_object_get(ctx, "trigger_keywords");
    const char *ex = str(ctx, "conversation_excerpt");
    size_t i_c;
    const json_t *c;

    mn_buf_printf(why, "memory '%s' (%s): ", str(mem, "id"), title);
    if (!same_str(str(mem, "kind"), str(want, "kind")) ||
        !same_str(str(mem, "body"), str(want, "body"))) {
        mn_buf_puts(why, "kind or body differs from what was saved");
    } else if (!same_str(str(mem, "status"), "active")) {
        mn_buf_printf(why, "status is '%s', not active", str(mem, "status"));
    } else if (json_array_size(json_object_get(scope, "tags")) != 1 + (size_t)(i % 4)) {
        mn_buf_printf(why, "has %zu tags, saved with %ld",
                      json_array_size(json_object_get(scope, "tags")), 1 + i % 4);
    } else if (json_array_size(cits) != 1 + (size_t)(i % 3)) {
        mn_buf_printf(why, "has %zu citations, saved with %ld", json_array_size(cits), 1 + i % 3);
    } else if (!ex || strlen(ex) != excerpt_len(i)) {
        mn_buf_printf(why, "conversation excerpt is %zu bytes, saved %zu", ex ? strlen(ex) : 0,
                      excerpt_len(i));
    } else if (json_array_size(kw) != 3 ||
               !json_equal(kw, json_object_get(wctx, "trigger_keywords"))) {
        mn_buf_puts(why, "trigger keywords missing or changed");
    } else if (!json_equal(ctx, wctx)) {
        mn_buf_puts(why, "context differs from what was saved");
    } else if (!json_equal(scope, wscope)) {
        mn_buf_puts(why, "scope differs from what was saved");
    } else if (!same_str(str(json_object_get(mem, "provenance"), "task"),
                         str(json_object_get(want, "provenance"), "task"))) {
        mn_buf_puts(why, "provenance differs from what was saved");
    } else {
        ok = true;
        json_array_foreach(cits, i_c, c)
        {
            const json_t *w = json_array_get(wcits, i_c);
            static const char *const keys[] = {"path", "symbol", "start_line", "end_line"};
            for (size_t k = 0; ok && k < MN_ARRAY_SIZE(keys); k++) {
                if (!json_equal(json_object_get(c, keys[k]), json_object_get(w, keys[k]))) {
                    mn_buf_printf(why, "citation %zu: '%s' differs from what was saved", i_c,
                                  keys[k]);
                    ok = false;
                }
            }
        }
    }
    json_decref(want);
    free(prefix);
    return ok;
}

static int open_ctx(mn_ctx **ctx, const char *db)
{
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.db_path = db;
    o.actor = "stress";
    o.create = true;
    int rc = mn_ctx_open(ctx, &o);
    if (rc)
        fprintf(stderr, "stress_worker: cannot open '%s': %s\n", db, mn_error_last());
    return rc;
}

static double ms_since(uint64_t t0)
{
    return (double)(mn_time_mono_ns() - t0) / 1e6;
}

/* One save; 0, or 1 with the error printed. */
static int save_one(mn_ctx *ctx, const char *prefix, long i, double *max_ms)
{
    json_t *in = make_memory(prefix, i), *out = NULL;
    uint64_t t0 = mn_time_mono_ns();
    int rc = mn_api_call(ctx, "save", in, &out);
    double ms = ms_since(t0);
    if (ms > *max_ms)
        *max_ms = ms;
    if (rc)
        fprintf(stderr, "stress_worker: save '%s-%ld' failed (%s): %s\n", prefix, i,
                mn_error_name(rc), mn_error_last());
    else if (!same_str(str(out, "action"), "created"))
        fprintf(stderr, "stress_worker: save '%s-%ld' was %s, not created\n", prefix, i,
                str(out, "action") ? str(out, "action") : "(no action)");
    int failed = rc || !same_str(str(out, "action"), "created");
    json_decref(out);
    json_decref(in);
    return failed;
}

static int cmd_save(const char *db, const char *count, const char *tag)
{
    int64_t n;
    mn_ctx *ctx;
    double max_ms = 0;
    if (mn_parse_int64(&n, count, 0, 10000000, "N")) {
        fprintf(stderr, "stress_worker: %s\n", mn_error_last());
        return 2;
    }
    const char *barrier = getenv("MNEMO_STRESS_BARRIER");
    if (barrier && *barrier) {
        int fd = open(barrier, O_RDONLY);
        if (fd < 0) {
            fprintf(stderr, "stress_worker: cannot open '%s': %s\n", barrier, strerror(errno));
            return 1;
        }
        close(fd);
    }
    if (open_ctx(&ctx, db))
        return 1;
    uint64_t t0 = mn_time_mono_ns();
    int failed = 0;
    for (long i = 0; i < n && !failed; i++)
        failed = save_one(ctx, tag, i, &max_ms);
    mn_ctx_free(ctx);
    if (failed)
        return 1;
    printf("save %s: %lld memories in %.0f ms, slowest save %.1f ms\n", tag, (long long)n,
           ms_since(t0), max_ms);
    return 0;
}

static int cmd_crashloop(const char *db, const char *log)
{
    mn_ctx *ctx;
    double max_ms = 0;
    char prefix[96], marker[4096], line[160];
    int fd = -1;
    if (open_ctx(&ctx, db))
        return 1;
    /* tells the caller the store was open when it killed us */
    snprintf(marker, sizeof(marker), "%s.opened", db);
    int mfd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (mfd >= 0)
        close(mfd);
    if (log && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0) {
        fprintf(stderr, "stress_worker: cannot open '%s': %s\n", log, strerror(errno));
        mn_ctx_free(ctx);
        return 1;
    }
    /* unique across runs even when a pid is reused */
    snprintf(prefix, sizeof(prefix), "crash.%ld.%llu", (long)getpid(),
             (unsigned long long)(mn_time_mono_ns() % 1000000007ULL));
    for (long i = 0;; i++) {
        if (save_one(ctx, prefix, i, &max_ms)) {
            mn_ctx_free(ctx);
            if (fd >= 0)
                close(fd);
            return 1;
        }
        int len = snprintf(line, sizeof(line), "%s-%ld\n", prefix, i);
        if (fd >= 0 && write(fd, line, (size_t)len) != len) {
            fprintf(stderr, "stress_worker: cannot write '%s': %s\n", log, strerror(errno));
            mn_ctx_free(ctx);
            close(fd);
            return 1;
        }
    }
}

static int cmd_open(const char *db)
{
    mn_ctx *ctx;
    uint64_t t0 = mn_time_mono_ns();
    if (open_ctx(&ctx, db))
        return 1;
    printf("open: %.1f ms\n", ms_since(t0));
    mn_ctx_free(ctx);
    return 0;
}

typedef struct {
    mn_buf why;
    size_t checked;
    bool failed;
} verify_state;

/* Check every memory of an export; the first failure goes to st->why. */
static void verify_all(verify_state *st, const json_t *mems)
{
    size_t i;
    json_t *m;
    long n;
    json_array_foreach(mems, i, m)
    {
        if (!check_memory(m, &st->why, &n)) {
            st->failed = true;
            return;
        }
        st->checked++;
    }
}

static bool stop_now(const char *stop, double seconds, uint64_t t0)
{
    if (!stop)
        return ms_since(t0) >= seconds * 1000;
    if (mn_fs_exists(stop))
        return true;
    /* the caller's scratch directory is gone: it will not tell us to stop */
    char *dir = mn_strdup(stop), *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    bool gone = slash && !mn_fs_is_dir(dir);
    free(dir);
    return gone;
}

static int cmd_read(const char *db, const char *until)
{
    mn_ctx *ctx;
    char *end;
    double seconds = strtod(until, &end);
    const char *stop = *end || end == until ? until : NULL;
    long lists = 0, exports = 0;
    int64_t last_total = 0, last_count = 0;
    double max_list = 0, max_export = 0;
    verify_state st = {MN_BUF_INIT, 0, false};
    int rc = 0;
    if (open_ctx(&ctx, db))
        return 1;
    json_t *list_args = json_pack("{s:i}", "limit", LIST_LIMIT), *export_args = json_object();
    uint64_t t0 = mn_time_mono_ns();
    do {
        json_t *out = NULL;
        uint64_t t = mn_time_mono_ns();
        if ((rc = mn_api_call(ctx, "list", list_args, &out)) != 0) {
            fprintf(stderr, "stress_worker: list failed (%s): %s\n", mn_error_name(rc),
                    mn_error_last());
            break;
        }
        double ms = ms_since(t);
        max_list = ms > max_list ? ms : max_list;
        json_int_t total = json_integer_value(json_object_get(out, "total"));
        size_t got = json_array_size(json_object_get(out, "memories"));
        json_decref(out);
        if (total < last_total || got > LIST_LIMIT || (int64_t)got > total) {
            fprintf(stderr, "stress_worker: list total went from %lld to %lld (%zu shown)\n",
                    (long long)last_total, (long long)total, got);
            rc = 1;
            break;
        }
        last_total = total;
        lists++;

        t = mn_time_mono_ns();
        if ((rc = mn_api_call(ctx, "export", export_args, &out)) != 0) {
            fprintf(stderr, "stress_worker: export failed (%s): %s\n", mn_error_name(rc),
                    mn_error_last());
            break;
        }
        ms = ms_since(t);
        max_export = ms > max_export ? ms : max_export;
        json_int_t count = json_integer_value(json_object_get(out, "count"));
        const json_t *mems = json_object_get(out, "memories");
        verify_all(&st, mems);
        if (!st.failed && (count < last_count || (size_t)count != json_array_size(mems))) {
            mn_buf_printf(&st.why, "export count went from %lld to %lld", (long long)last_count,
                          (long long)count);
            st.failed = true;
        }
        json_decref(out);
        if (st.failed) {
            fprintf(stderr, "stress_worker: export %ld: %s\n", exports + 1, st.why.ptr);
            rc = 1;
            break;
        }
        last_count = count;
        exports++;
    } while (!stop_now(stop, seconds, t0));
    json_decref(list_args);
    json_decref(export_args);
    mn_buf_release(&st.why);
    mn_ctx_free(ctx);
    if (rc)
        return 1;
    printf("read: %ld lists (slowest %.1f ms), %ld exports (slowest %.1f ms), %zu memories "
           "verified, last export %lld memories\n",
           lists, max_list, exports, max_export, st.checked, (long long)last_count);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A count from SQL that must be 0; -1 and a message in why on an SQL error. */
static long long sql_count(sqlite3 *db, const char *sql, mn_buf *why)
{
    sqlite3_stmt *st;
    long long n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        mn_buf_printf(why, "cannot check the side tables: %s", sqlite3_errmsg(db));
        return -1;
    }
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    else
        mn_buf_printf(why, "cannot check the side tables: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return n;
}

/* The rows that export does not show agree with the memories. */
static bool check_side_tables(const char *path, mn_buf *why)
{
    static const struct {
        const char *what, *sql;
    } checks[] = {
        {"memories whose memory_tags rows differ from their tags",
         "SELECT count(*) FROM memories m WHERE (SELECT count(*) FROM memory_tags t WHERE "
         "t.memory_id = m.id) != coalesce(json_array_length(m.tags), 0)"},
        {"memories whose memory_paths rows differ from their scope paths",
         "SELECT count(*) FROM memories m WHERE (SELECT count(*) FROM memory_paths p WHERE "
         "p.memory_id = m.id) != coalesce(json_array_length(m.scope_paths), 0)"},
        {"memories without exactly one 'save' audit row",
         "SELECT count(*) FROM memories m LEFT JOIN (SELECT target, count(*) AS n FROM audit "
         "WHERE action = 'save' GROUP BY target) a ON a.target = m.uid WHERE coalesce(a.n, 0) "
         "!= 1"},
        {"'save' audit rows of a memory that is not stored",
         "SELECT count(*) FROM audit WHERE action = 'save' AND target NOT IN (SELECT uid FROM "
         "memories)"},
    };
    sqlite3 *db = NULL;
    bool ok = true;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        mn_buf_printf(why, "cannot open '%s' read-only: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return false;
    }
    sqlite3_busy_timeout(db, 10000);
    for (size_t i = 0; ok && i < MN_ARRAY_SIZE(checks); i++) {
        long long n = sql_count(db, checks[i].sql, why);
        if (n != 0) {
            if (n > 0)
                mn_buf_printf(why, "%lld %s", n, checks[i].what);
            ok = false;
        }
    }
    sqlite3_close(db);
    return ok;
}

/* Every title in the crashloop log (complete lines) is in the sorted titles. */
static bool check_committed(const char *log, const char **titles, size_t n, mn_buf *why,
                            size_t *out_count)
{
    mn_buf text = MN_BUF_INIT;
    bool ok = true;
    *out_count = 0;
    if (mn_fs_read(&text, log, 1u << 30)) {
        mn_buf_printf(why, "%s", mn_error_last());
        return false;
    }
    char *line = text.ptr, *nl;
    while (ok && (nl = strchr(line, '\n')) != NULL) {
        *nl = '\0';
        const char *key = line;
        if (!bsearch(&key, titles, n, sizeof(*titles), cmp_str)) {
            mn_buf_printf(why, "memory '%s' was committed before the kill but is not stored", line);
            ok = false;
        }
        (*out_count)++;
        line = nl + 1;
    }
    mn_buf_release(&text);
    return ok;
}

static int cmd_check(const char *db, int argc, char **argv)
{
    int64_t expect = -1;
    const char *committed = NULL;
    mn_store *s = NULL;
    mn_store_options so = MN_STORE_OPTIONS_INIT;
    mn_ctx *ctx = NULL;
    json_t *out = NULL, *list = NULL;
    mn_buf why = MN_BUF_INIT;
    const char **titles = NULL;
    size_t n = 0, n_committed = 0;
    int rc = 1;

    for (int a = 0; a < argc; a++) {
        if (strcmp(argv[a], "--committed") == 0 && a + 1 < argc) {
            committed = argv[++a];
        } else if (mn_parse_int64(&expect, argv[a], 0, INT64_MAX, "EXPECT_N")) {
            fprintf(stderr, "stress_worker: %s\n", mn_error_last());
            return 2;
        }
    }
    /* The store as the crash left it: it must open (migrating it if the crash came first). */
    if (mn_store_open(&s, db, &so) || mn_store_check(s)) {
        fprintf(stderr, "stress_worker: check '%s': %s\n", db, mn_error_last());
        goto out;
    }
    mn_store_free(s);
    s = NULL;
    if (open_ctx(&ctx, db))
        goto out;
    json_t *args = json_object();
    int erc = mn_api_call(ctx, "export", args, &out);
    json_decref(args);
    if (erc) {
        fprintf(stderr, "stress_worker: export of '%s' failed: %s\n", db, mn_error_last());
        goto out;
    }
    args = json_pack("{s:i}", "limit", 1);
    erc = mn_api_call(ctx, "list", args, &list);
    json_decref(args);
    if (erc) {
        fprintf(stderr, "stress_worker: list of '%s' failed: %s\n", db, mn_error_last());
        goto out;
    }
    const json_t *mems = json_object_get(out, "memories"), *m;
    size_t i;
    long k;
    n = json_array_size(mems);
    titles = mn_calloc(n ? n : 1, sizeof(*titles));
    json_array_foreach(mems, i, m)
    {
        if (!check_memory(m, &why, &k)) {
            fprintf(stderr, "stress_worker: check '%s': %s\n", db, why.ptr);
            goto out;
        }
        titles[i] = str(m, "title");
    }
    qsort(titles, n, sizeof(*titles), cmp_str);
    for (i = 1; i < n; i++) {
        if (strcmp(titles[i - 1], titles[i]) == 0) {
            fprintf(stderr, "stress_worker: check '%s': title '%s' is stored twice\n", db,
                    titles[i]);
            goto out;
        }
    }
    if ((json_int_t)n != json_integer_value(json_object_get(list, "total"))) {
        fprintf(stderr, "stress_worker: check '%s': export has %zu memories, list counts %lld\n",
                db, n, (long long)json_integer_value(json_object_get(list, "total")));
        goto out;
    }
    if (expect >= 0 && (int64_t)n != expect) {
        fprintf(stderr, "stress_worker: check '%s': %zu memories stored, expected %lld\n", db, n,
                (long long)expect);
        goto out;
    }
    mn_buf_clear(&why);
    if (!check_side_tables(db, &why)) {
        fprintf(stderr, "stress_worker: check '%s': %s\n", db, why.ptr);
        goto out;
    }
    mn_buf_clear(&why);
    if (committed && !check_committed(committed, titles, n, &why, &n_committed)) {
        fprintf(stderr, "stress_worker: check '%s': %s\n", db, why.ptr);
        goto out;
    }
    printf("check: %zu memories, all complete; integrity and foreign keys ok; side tables ok", n);
    if (committed)
        printf("; all %zu committed saves present", n_committed);
    printf("\n");
    rc = 0;
out:
    free(titles);
    json_decref(out);
    json_decref(list);
    mn_buf_release(&why);
    mn_ctx_free(ctx);
    mn_store_free(s);
    return rc;
}

/* A rollback journal again, so that the next opens switch the file to WAL mode. */
static int cmd_unwal(const char *path)
{
    sqlite3 *db = NULL;
    int rc = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "stress_worker: unwal '%s': %s\n", path, sqlite3_errmsg(db));
        rc = 1;
    }
    sqlite3_close(db);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: stress_worker save DB N TAG\n"
                    "       stress_worker read DB SECONDS|STOP_FILE\n"
                    "       stress_worker check DB [EXPECT_N] [--committed LOG]\n"
                    "       stress_worker crashloop DB [LOG]\n"
                    "       stress_worker open DB\n"
                    "       stress_worker unwal DB\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    const char *cmd = argv[1], *db = argv[2];
    if (strcmp(cmd, "save") == 0 && argc == 5)
        return cmd_save(db, argv[3], argv[4]);
    if (strcmp(cmd, "read") == 0 && argc == 4)
        return cmd_read(db, argv[3]);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(db, argc - 3, argv + 3);
    if (strcmp(cmd, "crashloop") == 0 && argc <= 4)
        return cmd_crashloop(db, argc == 4 ? argv[3] : NULL);
    if (strcmp(cmd, "open") == 0 && argc == 3)
        return cmd_open(db);
    if (strcmp(cmd, "unwal") == 0 && argc == 3)
        return cmd_unwal(db);
    return usage();
}
