/*
 * sqlite_store.c - the embedded SQLite back end of store.h.
 *
 * Settings (docs/internals/store.md says why): WAL journal so readers never
 * block the writer; synchronous=NORMAL, which in WAL mode keeps every
 * committed transaction across a process crash (SIGKILL) and loses at most
 * the last ones on power loss; foreign keys on; a busy timeout so that
 * concurrent processes queue instead of failing; every write inside
 * BEGIN IMMEDIATE so two writers never deadlock on a lock upgrade; the
 * VFS of wal_guard.h, so that no checkpoint runs beside another
 * connection's write (SQLite's WAL-reset bug, unfixed in Debian 12's).
 *
 * Opening reads what the file is before anything is written to it
 * (probe): a store of ours (PRAGMA application_id, or meta's written_by
 * for stores older than it), an empty file we may make one, or another
 * program's database, refused and left as it was. Stores are their user's:
 * a new one is created 0600 before SQLite sees it (SQLite gives the -wal,
 * -shm and -journal it creates the database's permissions), an older one
 * is made 0600 when opened. A store that cannot be written (its file, its
 * directory, a read-only file system, a full disk) opens read-only and
 * says why (mn_store_read_only_reason): queries answer, writes are refused
 * with that reason. docs/internals/store.md has the whole story.
 *
 * Statements are prepared once per handle and cached by their SQL text;
 * mn_sqlite__error is the back end's one mapping of SQLite's codes to
 * mnemo's. Here: opening, closing, transactions, config, audit and the
 * back end's table; the memories are memory_store.c's, the other parts
 * each in its *_store.c (sqlite_internal.h lists the shared helpers).
 */
#include "common.h"
#include <sqlite3.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/sqlite/fts_tokenizer.h"
#include "store/sqlite/memory_sizes.h"
#include "store/sqlite/sqlite_internal.h"
#include "store/sqlite/wal_guard.h"
#include "util/map.h"

/* mnemo's code for SQLite's result rc (extended codes are on: the primary code decides) */
static int code_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return MN_EBUSY;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return MN_ECORRUPT;
    default:
        return MN_EIO;
    }
}

int mn_sqlite__error(mn_store *s, int rc, const char *what)
{
    int code = (rc & 0xff) == SQLITE_CONSTRAINT ? MN_EINVAL : code_of(rc);
    return mn_error_set(code, "%s in '%s': %s", what, s->path, sqlite3_errmsg(sq(s)->db));
}

int mn_sqlite__fail(mn_store *s, const char *what)
{
    return mn_error_set(code_of(sqlite3_errcode(sq(s)->db)), "%s in '%s': %s", what, s->path,
                        sqlite3_errmsg(sq(s)->db));
}

sqlite3_stmt *mn_sqlite__stmt(mn_store *s, const char *sql)
{
    sqlite3_stmt *st = mn_map_get(&sq(s)->stmts, sql);
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        return st;
    }
    if (sqlite3_prepare_v3(sq(s)->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
        mn_sqlite__error(s, sqlite3_errcode(sq(s)->db), "cannot prepare a statement");
        return NULL;
    }
    mn_map_set(&sq(s)->stmts, sql, st);
    return st;
}

int mn_sqlite__exec(mn_store *s, const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(sq(s)->db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) {
        mn_error_set((rc & 0xff) == SQLITE_BUSY ? MN_EBUSY : MN_EIO, "database '%s': %s", s->path,
                     err ? err : sqlite3_errstr(rc));
        sqlite3_free(err);
        return mn_error_last_code();
    }
    return 0;
}

int mn_sqlite__step_done(mn_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        mn_sqlite__error(s, rc, what);
        sqlite3_reset(st);
        return mn_error_last_code();
    }
    sqlite3_reset(st);
    return 0;
}

void mn_sqlite__bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* ---- open, close, transactions ---- */

/*
 * Waiting for a lock. SQLite's own busy timeout sleeps 1, 2, 5, ... up to
 * 100 ms between tries, so the threads of one server (`mnemo serve`: a
 * connection per thread, and every answer writes what it served) slept far
 * longer than a write holds the lock: with 8 HTTP clients, p95 per call was
 * 60 ms against 6 ms for one. Instead, this process's writers announce the
 * end of each write transaction and a waiter wakes on that, or after 2 ms
 * at most, so a lock held by another process is still retried often, until
 * the store's busy timeout is spent.
 */
static pthread_mutex_t lock_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lock_cv = PTHREAD_COND_INITIALIZER;
static uint64_t lock_gen; /* moves at the end of every write transaction */

static void lock_released(void)
{
    pthread_mutex_lock(&lock_mu);
    lock_gen++;
    pthread_cond_broadcast(&lock_cv);
    pthread_mutex_unlock(&lock_mu);
}

static int busy_wait(void *arg, int tries)
{
    mn_store *s = arg;
    uint64_t now = mn_time_mono_ns();
    if (tries == 0)
        sq(s)->busy_since_ns = now;
    else if (now - sq(s)->busy_since_ns >= (uint64_t)sq(s)->busy_timeout_ms * 1000000u)
        return 0; /* give up: SQLITE_BUSY, "the store stayed locked" */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 2000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&lock_mu);
    uint64_t gen = lock_gen;
    while (gen == lock_gen && pthread_cond_timedwait(&lock_cv, &lock_mu, &until) == 0)
        ;
    pthread_mutex_unlock(&lock_mu);
    return 1;
}

/*
 * A TRUNCATE checkpoint that waits as a write does. SQLite tries the
 * checkpoint's lock once and answers busy when it is held, and the WAL
 * guard (wal_guard.c) holds it while any connection of the store writes:
 * without the retry the purge (`mnemo scan --fix`) failed at once whenever
 * another process or thread wrote beside it. Waiting for readers stays
 * SQLite's (its busy handler, inside the call).
 */
int mn_sqlite__checkpoint_truncate(mn_store *s)
{
    uint64_t since = mn_time_mono_ns(), timeout = (uint64_t)sq(s)->busy_timeout_ms * 1000000u;
    int rc;
    while ((rc = sqlite3_wal_checkpoint_v2(sq(s)->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL,
                                           NULL)) == SQLITE_BUSY &&
           mn_time_mono_ns() - since < timeout)
        sqlite3_sleep(2);
    return rc == SQLITE_OK ? 0 : mn_sqlite__fail(s, "cannot checkpoint the write-ahead log");
}

/*
 * Changing the journal mode takes an exclusive lock without calling the
 * busy handler, so when several processes created a store at once all but
 * one failed at once with "database is locked". Retry within the busy
 * timeout instead; on a store already in WAL mode this is a no-op.
 */
static int set_wal(mn_store *s, int timeout_ms)
{
    int rc, waited = 0;
    while ((rc = mn_sqlite__exec(s, "PRAGMA journal_mode=WAL")) == MN_EBUSY &&
           waited < timeout_ms) {
        sqlite3_sleep(5);
        waited += 5;
    }
    return rc;
}

static int ensure_project(mn_store *s, const char *name, const char *root)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT id FROM projects WHERE name = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) {
        s->project_id = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
        return 0;
    }
    sqlite3_reset(st);
    if (s->read_only)
        return mn_error_set(MN_ENOTFOUND, "project '%s' not found in '%s'", name, s->path);
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    st = mn_sqlite__stmt(s, "INSERT INTO projects(name, root_path, created_at) VALUES (?1, ?2, ?3) "
                            "ON CONFLICT(name) DO NOTHING");
    if (!st) {
        mn_store_rollback(s);
        return mn_error_last_code();
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    mn_sqlite__bind_text(st, 2, root);
    sqlite3_bind_int64(st, 3, mn_time_now_ms());
    if ((rc = mn_sqlite__step_done(s, st, "cannot create the project")) != 0) {
        mn_store_rollback(s);
        return rc;
    }
    if ((rc = mn_store_commit(s)) != 0)
        return rc;
    return ensure_project(s, name, root);
}

/*
 * SQLite's own log (sqlite3_log): a corruption says where SQLite found it ("database corruption
 * at line N of [...]"), which the "database disk image is malformed" of the error does not, so
 * it is shown at the default level; the rest (a statement prepared again after a schema
 * change, a write-ahead log recovered, an I/O error the caller reports in its own words) only
 * with MNEMO_LOG=debug. Called on any thread, and never calls SQLite.
 */
static void on_sqlite_log(void *payload, int code, const char *msg)
{
    MN_UNUSED(payload);
    mn_log((code & 0xff) == SQLITE_CORRUPT ? MN_LOG_WARN : MN_LOG_DEBUG, "sqlite (%d): %s", code,
           msg ? msg : "");
}

/*
 * Before the first connection: no memory statistics. With them on (the
 * default), every allocation inside SQLite takes one process-wide mutex
 * (a few percent of a search on 100k memories), and mnemo never reads
 * them; SQLite's log to mnemo's. Too late when the process used SQLite
 * already (SQLITE_MISUSE: a program that opened a database of its own
 * first): then nothing changes, which is fine.
 */
static bool guarded; /* the WAL guard's VFS is registered (wal_guard.h) */

static void sqlite_setup(void)
{
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    (void)sqlite3_config(SQLITE_CONFIG_LOG, on_sqlite_log, (void *)NULL);
    guarded = mn_wal_guard_register() == SQLITE_OK;
    if (!guarded)
        mn_log(MN_LOG_WARN, "the WAL guard could not be registered: checkpoints are not kept "
                            "apart from other processes' writes");
}

/* ---- what a file is, before anything is written to it ---- */

/* What opening may do to the file: nothing is written before probe() says it is ours. */
typedef struct {
    int application_id, user_version, objects, pages;
    bool written_by_mnemo; /* meta 'written_by' = "mnemo ..." (every store before application_id) */
} probe_result;

static int probe(mn_store *s, probe_result *p)
{
    sqlite3_stmt *st = NULL;
    int rc;
    memset(p, 0, sizeof(*p));
    rc = sqlite3_prepare_v2(sq(s)->db,
                            "SELECT (SELECT application_id FROM pragma_application_id), "
                            "(SELECT user_version FROM pragma_user_version), "
                            "(SELECT count(*) FROM sqlite_schema), "
                            "(SELECT page_count FROM pragma_page_count), "
                            "(SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                            "name = 'meta')",
                            -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        p->application_id = sqlite3_column_int(st, 0);
        p->user_version = sqlite3_column_int(st, 1);
        p->objects = sqlite3_column_int(st, 2);
        p->pages = sqlite3_column_int(st, 3);
        rc = sqlite3_column_int(st, 4) ? SQLITE_DONE : SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) {
        /* another program's "meta" table may have other columns: then it is not ours */
        if (sqlite3_prepare_v2(
                sq(s)->db, "SELECT 1 FROM meta WHERE key = 'written_by' AND value LIKE 'mnemo %'",
                -1, &st, NULL) == SQLITE_OK) {
            p->written_by_mnemo = sqlite3_step(st) == SQLITE_ROW;
            sqlite3_finalize(st);
        }
        rc = SQLITE_OK;
    }
    return rc == SQLITE_OK ? 0 : sqlite3_extended_errcode(sq(s)->db);
}

/* Whether the directory of a store can take the files SQLite writes beside it. */
typedef enum { DIR_WRITABLE, DIR_READ_ONLY_FS, DIR_NO_PERMISSION } dir_state;

/* The state of path's directory; *dir_out (malloc'd) names the directory. */
static dir_state dir_of(const char *path, char **dir_out)
{
    char *dir = mn_strdup(path), *slash = strrchr(dir, '/');
    struct statvfs vfs;
    dir_state st = DIR_WRITABLE;
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(dir, strlen(path) + 1, ".");
    if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
        st = DIR_READ_ONLY_FS;
    else if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) != 0 && errno != ENOENT)
        st = DIR_NO_PERMISSION;
    *dir_out = dir;
    return st;
}

/* The error of a store that could not even be read (the probe failed with code). */
static int unreadable(mn_store *s, int code)
{
    char *dir = NULL;
    dir_state ds = dir_of(s->path, &dir);
    const char *why = ds == DIR_READ_ONLY_FS    ? "it is on a read-only file system at"
                      : ds == DIR_NO_PERMISSION ? "there is no write permission on its directory"
                                                : NULL;
    int rc;
    if ((code & 0xff) == SQLITE_NOTADB)
        rc = mn_error_set(MN_ECORRUPT,
                          "'%s' is not a mnemo store: not a SQLite database (left untouched)",
                          s->path);
    else if (((code & 0xff) == SQLITE_CANTOPEN || (code & 0xff) == SQLITE_READONLY) && why)
        /* the store's write-ahead log needs a shared-memory file (-shm) beside it to be read */
        rc = mn_error_set(MN_EIO,
                          "cannot read store '%s': %s '%s', and SQLite must create '%s-shm' "
                          "there to read the store's write-ahead log ('%s-wal'); open it once "
                          "where it can be written, or copy the store with its -wal file to a "
                          "writable directory",
                          s->path, why, dir, s->path, s->path);
    else if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
        rc = mn_error_set(MN_EBUSY, "store '%s' stayed locked by another process: %s", s->path,
                          sqlite3_errmsg(sq(s)->db));
    else
        rc = mn_error_set(MN_EIO, "cannot read store '%s': %s", s->path, sqlite3_errmsg(sq(s)->db));
    free(dir);
    return rc;
}

/* How a store is opened: as usual, or without the shared-memory file (-shm). */
typedef enum {
    OPEN_SHARED,    /* the usual way: the -wal index in the -shm file beside the store */
    OPEN_EXCLUSIVE, /* exclusive locking mode: the -wal index in this process's memory */
    OPEN_IMMUTABLE  /* no locks, no -wal: only for a store with no write-ahead log to read */
} open_mode;

/* "file:" URI of path for SQLite (immutable=1 needs one): %, ? and # escaped. */
static char *uri_of(const char *path)
{
    mn_buf u = MN_BUF_INIT;
    mn_buf_puts(&u, "file:");
    for (const char *p = path; *p; p++)
        if (*p == '%' || *p == '?' || *p == '#')
            mn_buf_printf(&u, "%%%02X", (unsigned char)*p);
        else
            mn_buf_putc(&u, *p);
    mn_buf_puts(&u, "?immutable=1");
    return mn_buf_detach(&u);
}

static int open_db(mn_store *s, int flags, open_mode mode)
{
    char *uri = mode == OPEN_IMMUTABLE ? uri_of(s->path) : NULL;
    if (uri)
        flags = (flags & ~SQLITE_OPEN_READWRITE) | SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    int rc =
        sqlite3_open_v2(uri ? uri : s->path, &sq(s)->db, flags, guarded ? MN_WAL_GUARD_VFS : NULL);
    free(uri);
    if (rc != SQLITE_OK)
        return mn_error_set(MN_EIO, "cannot open store '%s': %s", s->path,
                            sq(s)->db ? sqlite3_errmsg(sq(s)->db) : sqlite3_errstr(rc));
    sqlite3_extended_result_codes(sq(s)->db, 1);
    sqlite3_busy_handler(sq(s)->db, busy_wait, s);
    if (mode == OPEN_EXCLUSIVE)
        return mn_sqlite__exec(s, "PRAGMA locking_mode=EXCLUSIVE");
    return 0;
}

/*
 * After a first read failed with code: how to read the store without its
 * -shm file, or OPEN_SHARED when that is not what failed.
 *  - A full disk (the directory is writable, the read failed on I/O) has
 *    no room for the 32 KB -shm: in exclusive locking mode SQLite keeps
 *    the index of the -wal in memory; this connection then holds the
 *    store to itself (other processes wait; a one-shot command is over in
 *    a moment).
 *  - A directory that cannot be written (permissions, a read-only file
 *    system) cannot take a -shm either. Without a write-ahead log to read
 *    (the usual state: the last process to close a store removes it), the
 *    store file is all there is, and is read immutable (no locks, no
 *    -wal): nothing can commit to it there without creating a -wal. With
 *    one, exclusive mode reads it when the store file is writable; else
 *    the error says what to do.
 */
static open_mode without_shm(const mn_store *s, int code)
{
    char *dir = NULL;
    dir_state ds = dir_of(s->path, &dir);
    free(dir);
    int primary = code & 0xff;
    if (ds == DIR_WRITABLE)
        return primary == SQLITE_IOERR || primary == SQLITE_FULL ? OPEN_EXCLUSIVE : OPEN_SHARED;
    if (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY)
        return OPEN_SHARED;
    mn_buf wal = MN_BUF_INIT;
    struct stat st;
    mn_buf_printf(&wal, "%s-wal", s->path);
    bool has_log = stat(wal.ptr, &st) == 0 && st.st_size > 0;
    mn_buf_release(&wal);
    if (!has_log)
        return OPEN_IMMUTABLE;
    return access(s->path, W_OK) == 0 && ds == DIR_NO_PERMISSION ? OPEN_EXCLUSIVE : OPEN_SHARED;
}

/* Whether the file system of path has no space left for an unprivileged user. */
static bool disk_full(const char *path)
{
    char *dir = NULL;
    struct statvfs vfs;
    dir_of(path, &dir);
    bool full = statvfs(dir, &vfs) == 0 && vfs.f_bavail == 0;
    free(dir);
    return full;
}

/* The files SQLite keeps beside a store: they get the store's permissions. */
static void make_private(const char *path)
{
    static const char *const sides[] = {"", "-wal", "-shm", "-journal", "-wlock"};
    mn_buf p = MN_BUF_INIT;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sides); i++) {
        mn_buf_clear(&p);
        mn_buf_printf(&p, "%s%s", path, sides[i]);
        if (mn_fs_make_private(p.ptr))
            mn_log(MN_LOG_DEBUG, "'%s' was readable by other users: now 0600", p.ptr);
    }
    mn_buf_release(&p);
}

/*
 * Before SQLite sees a store that does not exist yet: an empty file made
 * 0600 (SQLite would make it 0644, less the umask, and gives the -wal,
 * -shm and -journal files it creates the database file's permissions).
 */
static int create_private(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) /* EEXIST: another process made it first */
        return mn_error_set(errno == ENOENT ? MN_ENOTFOUND : MN_EIO, "cannot create store '%s': %s",
                            path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return 0;
}

int mn_sqlite__open(mn_store **out, const char *path, const mn_store_options *opts)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, sqlite_setup);
    mn_store_options defaults = MN_STORE_OPTIONS_INIT;
    mn_store *s;
    probe_result pr;
    struct stat sb;
    int rc, flags;

    *out = NULL;
    if (!opts)
        opts = &defaults;
    if (opts->version != MN_STORE_OPTIONS_VERSION)
        return mn_error_set(MN_EINVAL, "store options version %u is not supported", opts->version);
    if (stat(path, &sb) != 0) {
        if (errno != ENOENT)
            return mn_error_set(MN_EIO, "cannot open store '%s': %s", path, strerror(errno));
        if (!opts->create || opts->read_only)
            return mn_error_set(MN_ENOTFOUND,
                                "no mnemo store at '%s'; run 'mnemo init' first, or a command "
                                "that writes (mnemo save, mnemo index) to create it",
                                path);
        if ((rc = create_private(path)) != 0)
            return rc;
    } else if (S_ISDIR(sb.st_mode)) {
        return mn_error_set(MN_EINVAL,
                            "'%s' is a directory, not a mnemo store: give the store's file "
                            "(such as %s/mnemo.db)",
                            path, path);
    } else {
        if (sb.st_size == 0 && (!opts->create || opts->read_only))
            return mn_error_set(MN_ENOTFOUND,
                                "'%s' is an empty file, not a mnemo store; a command that "
                                "writes (mnemo save, mnemo index) makes it one",
                                path);
    }

    s = mn_calloc(1, sizeof(mn_sqlite_store));
    s->backend = &mn_sqlite_backend;
    s->path = mn_strdup(path);
    /* never SQLITE_OPEN_CREATE: the file exists now, and a path that vanished is an error */
    flags = (opts->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX;
    sq(s)->busy_timeout_ms = opts->busy_timeout_ms > 0 ? opts->busy_timeout_ms : 10000;
    if ((rc = open_db(s, flags, OPEN_SHARED)) != 0)
        goto fail;

    /* What the file is, read before anything is written: a store of ours (the
     * application id, or meta's written_by for stores older than it), an
     * empty file we may make one, or anything else, which is left untouched. */
    open_mode mode;
    if ((rc = probe(s, &pr)) != 0 && (mode = without_shm(s, rc)) != OPEN_SHARED) {
        int first = rc;
        mn_log(MN_LOG_DEBUG, "store '%s': %s; reading it %s", path, sqlite3_errmsg(sq(s)->db),
               mode == OPEN_IMMUTABLE ? "as an immutable file" : "in exclusive mode");
        sqlite3_close(sq(s)->db);
        sq(s)->db = NULL;
        if ((rc = open_db(s, flags, mode)) != 0)
            goto fail;
        if ((rc = probe(s, &pr)) == 0) {
            if (mode == OPEN_EXCLUSIVE && disk_full(path))
                s->read_only_why = "the disk is full";
            else if (mode == OPEN_EXCLUSIVE)
                mn_log(MN_LOG_INFO,
                       "store '%s': no shared-memory file beside it; this process holds the "
                       "store to itself",
                       path);
        } else {
            rc = first; /* the first failure says what is wrong */
        }
    }
    if (rc) {
        rc = unreadable(s, rc);
        goto fail;
    }
    /* empty: no page at all (a new file, or one whose first migration was cut short by a
     * crash: SQLite rolled its hot journal back to the 0 pages it had). Another program's
     * empty database has its first page. */
    bool ours = pr.application_id == MN_STORE_APPLICATION_ID || pr.written_by_mnemo;
    bool empty = pr.pages == 0 && pr.objects == 0 && pr.user_version == 0;
    if (!ours && !(empty && opts->create) && !opts->adopt) {
        rc = mn_error_set(MN_EINVAL,
                          "'%s' is not a mnemo store but another program's SQLite "
                          "database; mnemo left it untouched (name a mnemo store or a new file "
                          "with --db PATH)",
                          path);
        goto fail;
    }
    /* ours (or to be made ours): from here no checkpoint overlaps another connection's write
     * (wal_guard.h); before, another program's database was only read */
    if (guarded) {
        mn_buf lock = MN_BUF_INIT;
        mn_buf_printf(&lock, "%s-wlock", path);
        int grc = mn_wal_guard_enable(sq(s)->db, lock.ptr);
        mn_buf_release(&lock);
        if (grc != SQLITE_OK && grc != SQLITE_NOTFOUND) {
            rc = mn_sqlite__error(s, grc, "cannot guard the write-ahead log");
            goto fail;
        }
    }
    /* a store made before stores were private: its files lose group and other access */
    make_private(path);
    {
        /* a store SQLite cannot write (its file, its directory, the file system) is read as
         * it is: queries answer, nothing is recorded (mn_store_read_only_reason says why) */
        char *dir = NULL;
        dir_state ds = dir_of(path, &dir);
        free(dir);
        if (s->read_only_why) /* the disk is full: found by the first read */
            ds = DIR_WRITABLE;
        if (opts->read_only)
            s->read_only_why = "the store was opened read-only";
        else if (ds == DIR_READ_ONLY_FS)
            s->read_only_why = "the store is on a read-only file system";
        else if (ds == DIR_NO_PERMISSION)
            s->read_only_why = "there is no write permission on the store's directory";
        else if (sqlite3_db_readonly(sq(s)->db, "main") == 1)
            s->read_only_why = "there is no write permission on the store's file";
    }
    s->read_only = s->read_only_why != NULL;

    /* mmap and a 32 MB page cache: a search reads the full-text indexes all
     * over; through the default 2 MB cache a third of it was pread() */
    if ((rc = mn_sqlite__exec(s, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; "
                                 "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-32768")) != 0 ||
        (rc = mn_sqlite__map_set(s, true)) != 0)
        goto fail;
    /* the full-text tables (schema v3) are tokenized by "mnemo": every
     * connection needs it before a migration or a write touches them */
    if ((rc = mn_sqlite_fts_register(sq(s)->db)) != 0)
        goto fail;
    if ((rc = mn_sqlite__migrate(s, pr.application_id)) != 0)
        goto fail;
    /* After the version check: switching to WAL writes the file header, and
     * a store from a newer mnemo must be left untouched. */
    if (!s->read_only) {
        if ((rc = set_wal(s, opts->busy_timeout_ms > 0 ? opts->busy_timeout_ms : 10000)) != 0)
            goto fail;
    }

    {
        char *copy = mn_strdup(opts->root_path ? opts->root_path : "default");
        const char *name = opts->project     ? opts->project
                           : opts->root_path ? basename(copy)
                                             : "default";
        /* no project: project_id 0 matches no row (ids start at 1) */
        rc = opts->any_project ? 0 : ensure_project(s, name, opts->root_path);
        free(copy);
        if (rc)
            goto fail;
    }
    *out = s;
    return 0;
fail:
    mn_store_free(s);
    return rc;
}

void mn_sqlite__close(mn_store *s)
{
    size_t pos = 0;
    const char *key;
    void *st;
    while (mn_map_next(&sq(s)->stmts, &pos, &key, &st))
        sqlite3_finalize(st);
    mn_map_release(&sq(s)->stmts);
    free(sq(s)->insert_sql);
    free(sq(s)->replace_sql);
    free(sq(s)->select_sql);
    free(sq(s)->get_sql);
    free(sq(s)->epoch_moved);
    mn_memory_sizes_free(s);
    if (sq(s)->db)
        sqlite3_close(sq(s)->db);
    free(s->path);
    free(s);
}

/* What a transaction remembers ends with it; a new one starts with nothing. */
static void tx_ended(mn_store *s)
{
    free(sq(s)->epoch_moved);
    sq(s)->epoch_moved = NULL;
}

int mn_sqlite__begin(mn_store *s)
{
    MN_ASSERT_OR(!sq(s)->in_tx, MN_EINTERNAL);
    if (s->read_only)
        return mn_error_set(MN_EIO, "store '%s' cannot be written: %s", s->path,
                            s->read_only_why ? s->read_only_why : "it was opened read-only");
    int rc = mn_sqlite__exec(s, "BEGIN IMMEDIATE");
    if (rc == 0)
        sq(s)->in_tx = true;
    tx_ended(s);
    return rc;
}

/* SQLite has one writer per file: a log transaction is a write transaction (store.h). */
int mn_sqlite__begin_log(mn_store *s)
{
    return mn_sqlite__begin(s);
}

int mn_sqlite__begin_read(mn_store *s)
{
    MN_ASSERT_OR(!sq(s)->in_tx, MN_EINTERNAL);
    int rc = mn_sqlite__exec(s, "BEGIN DEFERRED");
    if (rc == 0)
        sq(s)->in_tx = true;
    return rc;
}

int mn_sqlite__commit(mn_store *s)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int rc = mn_sqlite__exec(s, "COMMIT");
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    sq(s)->in_tx = false;
    tx_ended(s);
    lock_released();
    return 0;
}

void mn_sqlite__rollback(mn_store *s)
{
    if (!sq(s)->in_tx)
        return;
    if (!sqlite3_get_autocommit(sq(s)->db))
        sqlite3_exec(sq(s)->db, "ROLLBACK", NULL, NULL, NULL);
    sq(s)->in_tx = false;
    tx_ended(s);
    lock_released();
}

static int check_rows(mn_store *s, const char *sql, const char *ok_value)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (sqlite3_prepare_v2(sq(s)->db, sql, -1, &st, NULL) != SQLITE_OK)
        return mn_sqlite__error(s, sqlite3_errcode(sq(s)->db), "cannot check the database");
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        if (!ok_value || !v || strcmp(v, ok_value) != 0) {
            rc = mn_error_set(MN_ECORRUPT, "database '%s' failed its check: %s", s->path,
                              v ? v : "foreign key violation");
            break;
        }
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = mn_sqlite__error(s, step, "cannot check the database");
    sqlite3_finalize(st);
    return rc;
}

/* SQLite unmaps the file when the limit drops below what is mapped and no page of the
 * map is in use (os_unix.c, SQLITE_FCNTL_MMAP_SIZE): between statements, as here, the
 * map goes at once and its pages with it. Every connection of the store has its own. */
int mn_sqlite__map_set(mn_store *s, bool on)
{
    /* 1 GB when on: the whole store of a large project (sympy's is ~140 MB) */
    return mn_sqlite__exec(s, on ? "PRAGMA mmap_size=1073741824" : "PRAGMA mmap_size=0");
}

int mn_sqlite__check(mn_store *s)
{
    int rc = check_rows(s, "PRAGMA integrity_check", "ok");
    if (rc == 0)
        rc = check_rows(s, "PRAGMA foreign_key_check", NULL);
    return rc;
}

/* ---- config ---- */

int mn_sqlite__config_get(mn_store *s, char **out, const char *key)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT value FROM config WHERE project_id = ?1 AND key = ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = mn_strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_reset(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return mn_error_set(MN_ENOTFOUND, "config key '%s' is not set", key);
    return mn_sqlite__error(s, rc, "cannot read config");
}

int mn_sqlite__config_set(mn_store *s, const char *key, const char *value)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st =
        value ? mn_sqlite__stmt(s, "INSERT INTO config(project_id, key, value, updated_at) "
                                   "VALUES (?1, ?2, ?3, ?4) ON CONFLICT(project_id, key) DO "
                                   "UPDATE SET value = excluded.value, updated_at = "
                                   "excluded.updated_at")
              : mn_sqlite__stmt(s, "DELETE FROM config WHERE project_id = ?1 AND key = ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
    if (value) {
        sqlite3_bind_text(st, 3, value, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 4, mn_time_now_ms());
    }
    return mn_sqlite__step_done(s, st, "cannot write config");
}

int mn_sqlite__config_all(mn_store *s, json_t **out)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT key, value FROM config WHERE project_id = ?1 ORDER BY key");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    json_t *obj = json_object();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        json_object_set_new(obj, (const char *)sqlite3_column_text(st, 0),
                            json_string((const char *)sqlite3_column_text(st, 1)));
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        json_decref(obj);
        return mn_sqlite__error(s, rc, "cannot read config");
    }
    *out = obj;
    return 0;
}

/* ---- audit ---- */

int mn_sqlite__audit(mn_store *s, const char *actor, const char *action, const char *target,
                     const json_t *detail)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, "INSERT INTO audit(project_id, ts, actor, action, "
                                          "target, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_int64(st, 2, mn_time_now_ms());
    sqlite3_bind_text(st, 3, actor ? actor : "unknown", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, action, -1, SQLITE_TRANSIENT);
    mn_sqlite__bind_text(st, 5, target);
    if (detail)
        sqlite3_bind_text(st, 6, json_dumps(detail, JSON_COMPACT), -1, free);
    return mn_sqlite__step_done(s, st, "cannot write the audit log");
}

/* The table mn_store_open dispatches to for a file path (store.c). */
#define MN_SQLITE_SLOT(name, params, args) .name = mn_sqlite__##name,
const mn_store_backend mn_sqlite_backend = {.name = "sqlite",
                                            .open = mn_sqlite__open,
                                            .close = mn_sqlite__close,
                                            .rollback = mn_sqlite__rollback,
                                            MN_STORE_FUNCTIONS(MN_SQLITE_SLOT)};
#undef MN_SQLITE_SLOT
