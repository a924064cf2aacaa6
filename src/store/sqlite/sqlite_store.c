/*
 * sqlite_store.c - the embedded SQLite back end of store.h.
 *
 * Settings (docs/internals/store.md says why): WAL journal so readers never
 * block the writer; synchronous=NORMAL, which in WAL mode keeps every
 * committed transaction across a process crash (SIGKILL) and loses at most
 * the last ones on power loss; foreign keys on; a busy timeout so that
 * concurrent processes queue instead of failing; every write inside
 * BEGIN IMMEDIATE so two writers never deadlock on a lock upgrade.
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
 * Statements are prepared once per handle and cached by their SQL text.
 * Memory rows convert to and from the canonical JSON through the field
 * table of fields.h, so adding a field is one line there and one migration.
 */
#include "common.h"
#include <sqlite3.h>
#include <zlib.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/fields.h"
#include "store/sqlite/fts_tokenizer.h"
#include "store/sqlite/memory_sizes.h"
#include "store/sqlite/sqlite_internal.h"
#include "util/map.h"

#define MN_EXCERPT_MAX_STORED (16u << 20) /* sanity bound on a stored excerpt */

static int sql_error(mn_store *s, int rc, const char *what)
{
    int code = MN_EIO;
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        code = MN_EBUSY;
    else if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
        code = MN_ECORRUPT;
    else if (rc == SQLITE_FULL)
        code = MN_EIO;
    else if ((rc & 0xff) == SQLITE_CONSTRAINT)
        code = MN_EINVAL;
    return mn_error_set(code, "%s in '%s': %s", what, s->path, sqlite3_errmsg(sq(s)->db));
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
        sql_error(s, sqlite3_errcode(sq(s)->db), "cannot prepare a statement");
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

static int step_done(mn_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        sql_error(s, rc, what);
        sqlite3_reset(st);
        return mn_error_last_code();
    }
    sqlite3_reset(st);
    return 0;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
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
    bind_text_or_null(st, 2, root);
    sqlite3_bind_int64(st, 3, mn_time_now_ms());
    if ((rc = step_done(s, st, "cannot create the project")) != 0) {
        mn_store_rollback(s);
        return rc;
    }
    if ((rc = mn_store_commit(s)) != 0)
        return rc;
    return ensure_project(s, name, root);
}

/*
 * Before the first connection: no memory statistics. With them on (the
 * default), every allocation inside SQLite takes one process-wide mutex
 * (a few percent of a search on 100k memories), and mnemo never reads
 * them. Too late when the process used SQLite already (SQLITE_MISUSE):
 * then nothing changes, which is fine.
 */
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

static void sqlite_setup(void)
{
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    /* before SQLite's first initialization, or refused (SQLITE_MISUSE) and nothing is lost */
    (void)sqlite3_config(SQLITE_CONFIG_LOG, on_sqlite_log, (void *)NULL);
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
    int rc = sqlite3_open_v2(uri ? uri : s->path, &sq(s)->db, flags, NULL);
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
    static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
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
        return sql_error(s, sqlite3_errcode(sq(s)->db), "cannot check the database");
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
        rc = sql_error(s, step, "cannot check the database");
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

/* ---- memories ---- */

static int bind_field(mn_store *s, sqlite3_stmt *st, int *idx, const mn_field *f, const json_t *v)
{
    int i = (*idx)++;
    switch (f->type) {
    case MN_F_TEXT:
        bind_text_or_null(st, i, json_string_value(v));
        break;
    case MN_F_STRV:
        if (json_is_array(v) && json_array_size(v) > 0) {
            char *txt = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII);
            sqlite3_bind_text(st, i, txt, -1, free);
        } else {
            sqlite3_bind_null(st, i);
        }
        break;
    case MN_F_LEVEL: {
        const char *l = json_string_value(v);
        sqlite3_bind_int(st, i, l && l[0] == 'L' && l[1] >= '0' && l[1] <= '3' ? l[1] - '0' : 2);
        break;
    }
    case MN_F_REAL:
        if (json_is_number(v))
            sqlite3_bind_double(st, i, json_number_value(v));
        else
            sqlite3_bind_null(st, i);
        break;
    case MN_F_COUNT:
        sqlite3_bind_int64(st, i, json_is_integer(v) ? json_integer_value(v) : 0);
        break;
    case MN_F_TIME: {
        int64_t ms;
        if (json_is_string(v) && mn_time_parse(&ms, json_string_value(v)) == 0)
            sqlite3_bind_int64(st, i, ms);
        else if (v && !json_is_null(v))
            return mn_error_set(MN_EINVAL, "field '%s' must be an RFC 3339 time", f->key);
        else
            sqlite3_bind_null(st, i);
        break;
    }
    case MN_F_EXCERPT: {
        int j = (*idx)++;
        const char *txt = json_string_value(v);
        if (!txt || !*txt) {
            sqlite3_bind_null(st, i);
            sqlite3_bind_null(st, j);
            break;
        }
        size_t len = strlen(txt);
        uLongf clen = compressBound(len);
        Bytef *z = mn_malloc(clen);
        if (compress2(z, &clen, (const Bytef *)txt, len, 6) != Z_OK) {
            free(z);
            return mn_error_set(MN_EINTERNAL, "cannot compress a conversation excerpt");
        }
        sqlite3_bind_blob(st, i, z, (int)clen, free);
        sqlite3_bind_int64(st, j, (sqlite3_int64)len);
        break;
    }
    case MN_F_OBJECT:
        if (json_is_object(v)) {
            char *txt = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII);
            sqlite3_bind_text(st, i, txt, -1, free);
        } else {
            sqlite3_bind_null(st, i);
        }
        break;
    }
    MN_UNUSED(s);
    return 0;
}

/* SQL text for the field columns, built once from the table. */
static void build_sql(mn_store *s)
{
    if (sq(s)->insert_sql)
        return;
    mn_field_sql f;
    mn_field_sql_build(&f, '?');
    int n = f.params + 1;
    mn_buf ins = MN_BUF_INIT, rep = MN_BUF_INIT, get = MN_BUF_INIT;
    /* saved_at (schema v10): when this store took the memory in, the clock of its kind's
     * time to live; the store's own, never exported */
    mn_buf_printf(&ins,
                  "INSERT INTO memories (%suid, project_id, content_hash, saved_at) "
                  "VALUES (%s?%d, ?%d, ?%d, ?%d)",
                  f.cols.ptr, f.vals.ptr, n, n + 1, n + 2, n + 3);
    mn_buf_printf(&rep,
                  "UPDATE memories SET %scontent_hash = ?%d WHERE uid = ?%d AND project_id = ?%d",
                  f.sets.ptr, n + 2, n, n + 1);
    mn_buf_printf(&get, "SELECT %sid, uid FROM memories", f.cols.ptr);
    sq(s)->insert_sql = mn_buf_detach(&ins);
    sq(s)->replace_sql = mn_buf_detach(&rep);
    sq(s)->select_sql = mn_buf_detach(&get);
    sq(s)->field_params = f.params;
    mn_field_sql_release(&f);
}

static int64_t memory_rowid(mn_store *s, const char *id)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT id FROM memories WHERE uid = ?1 AND project_id = ?2");
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    int64_t rowid = 0;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        rowid = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE)
        rowid = -1, sql_error(s, rc, "cannot read a memory");
    sqlite3_reset(st);
    if (rowid == 0)
        mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return rowid;
}

/* Side tables that mirror list fields: tags, scope paths, citations. */
static int write_side_tables(mn_store *s, int64_t rowid, const json_t *mem)
{
    int fprc = mn_sqlite__fingerprint_put(s, rowid, mem);
    if (fprc)
        return fprc;
    static const char *const del[] = {
        "DELETE FROM memory_tags WHERE memory_id = ?1",
        "DELETE FROM memory_paths WHERE memory_id = ?1",
        "DELETE FROM citations WHERE memory_id = ?1",
    };
    int rc;
    for (size_t i = 0; i < MN_ARRAY_SIZE(del); i++) {
        sqlite3_stmt *st = mn_sqlite__stmt(s, del[i]);
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, rowid);
        if ((rc = step_done(s, st, "cannot update a memory")) != 0)
            return rc;
    }
    const json_t *scope = json_object_get(mem, "scope");
    struct {
        const char *key, *sql;
    } lists[] = {
        {"tags", "INSERT OR IGNORE INTO memory_tags(tag, memory_id) VALUES (?1, ?2)"},
        {"paths", "INSERT OR IGNORE INTO memory_paths(path, memory_id) VALUES (?1, ?2)"},
    };
    for (size_t l = 0; l < MN_ARRAY_SIZE(lists); l++) {
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(scope, lists[l].key), i, v)
        {
            sqlite3_stmt *st = mn_sqlite__stmt(s, lists[l].sql);
            if (!st)
                return mn_error_last_code();
            sqlite3_bind_text(st, 1, json_string_value(v), -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(st, 2, rowid);
            if ((rc = step_done(s, st, "cannot store a memory")) != 0)
                return rc;
        }
    }
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(mem, "citations"), i, c)
    {
        /* text, stale and checked_at come back as they were read (schema v10); a citation
         * whose file was indexed again since it was checked (or never checked) waits for
         * the next check: a rewrite never loses a mark the index left */
        sqlite3_stmt *st = mn_sqlite__stmt(
            s, "INSERT INTO citations(memory_id, seq, path, symbol, start_line, end_line, "
               "content_hash, text, stale, checked_at, dirty) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
               "?7, ?8, ?9, ?10, CASE WHEN ?10 IS NULL THEN 1 ELSE coalesce((SELECT "
               "f.indexed_at > ?10 FROM files f WHERE f.project_id = ?11 AND f.path = ?3), "
               "?9 = 0 AND ?7 IS NOT NULL) END)");
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, rowid);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        bind_text_or_null(st, 3, json_string_value(json_object_get(c, "path")));
        bind_text_or_null(st, 4, json_string_value(json_object_get(c, "symbol")));
        json_t *sl = json_object_get(c, "start_line"), *el = json_object_get(c, "end_line");
        if (json_is_integer(sl))
            sqlite3_bind_int64(st, 5, json_integer_value(sl));
        if (json_is_integer(el))
            sqlite3_bind_int64(st, 6, json_integer_value(el));
        bind_text_or_null(st, 7, json_string_value(json_object_get(c, "hash")));
        bind_text_or_null(st, 8, json_string_value(json_object_get(c, "text")));
        const char *stale = json_string_value(json_object_get(c, "stale"));
        sqlite3_bind_int(st, 9, !stale ? 0 : !strcmp(stale, "gone") ? 2 : 1);
        int64_t checked = 0;
        const char *ct = json_string_value(json_object_get(c, "checked_at"));
        if (ct && mn_time_parse(&checked, ct) == 0)
            sqlite3_bind_int64(st, 10, checked);
        else
            sqlite3_bind_null(st, 10);
        sqlite3_bind_int64(st, 11, s->project_id);
        if ((rc = step_done(s, st, "cannot store a citation")) != 0)
            return rc;
    }
    return 0;
}

static int bind_memory(mn_store *s, sqlite3_stmt *st, const json_t *mem)
{
    int idx = 1, rc;
    for (size_t i = 0; i < mn_memory_field_count; i++)
        if ((rc = bind_field(s, st, &idx, &mn_memory_fields[i],
                             mn_field_get(mem, &mn_memory_fields[i]))))
            return rc;
    char hash[17];
    mn_store_content_hash(hash, mem);
    sqlite3_bind_text(st, idx, json_string_value(json_object_get(mem, "id")), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, idx + 1, s->project_id);
    sqlite3_bind_text(st, idx + 2, hash, -1, SQLITE_TRANSIENT);
    if (sqlite3_bind_parameter_count(st) >= idx + 3) /* insert only: saved_at */
        sqlite3_bind_int64(st, idx + 3, mn_time_now_ms());
    return 0;
}

int mn_sqlite__memory_insert(mn_store *s, const json_t *mem)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    const char *id = json_string_value(json_object_get(mem, "id"));
    MN_ASSERT_OR(id != NULL, MN_EINTERNAL);
    build_sql(s);
    sqlite3_stmt *st = mn_sqlite__stmt(s, sq(s)->insert_sql);
    if (!st)
        return mn_error_last_code();
    int rc = bind_memory(s, st, mem);
    if (rc)
        return rc;
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
        return mn_error_set(MN_EEXISTS, "memory '%s' exists already", id);
    if (rc != SQLITE_DONE)
        return sql_error(s, rc, "cannot store memory");
    return write_side_tables(s, sqlite3_last_insert_rowid(sq(s)->db), mem);
}

int mn_sqlite__memory_replace(mn_store *s, const json_t *mem)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    const char *id = json_string_value(json_object_get(mem, "id"));
    MN_ASSERT_OR(id != NULL, MN_EINTERNAL);
    int64_t rowid = memory_rowid(s, id);
    if (rowid <= 0)
        return mn_error_last_code();
    build_sql(s);
    sqlite3_stmt *st = mn_sqlite__stmt(s, sq(s)->replace_sql);
    if (!st)
        return mn_error_last_code();
    int rc = bind_memory(s, st, mem);
    if (rc)
        return rc;
    if ((rc = step_done(s, st, "cannot update memory")) != 0)
        return rc;
    return write_side_tables(s, rowid, mem);
}

static json_t *column_json(mn_store *s, sqlite3_stmt *st, int *col, const mn_field *f)
{
    int i = (*col)++;
    int type = sqlite3_column_type(st, i);
    switch (f->type) {
    case MN_F_TEXT:
        if (type == SQLITE_NULL)
            return NULL;
        return json_stringn((const char *)sqlite3_column_text(st, i),
                            (size_t)sqlite3_column_bytes(st, i));
    case MN_F_STRV: {
        if (type == SQLITE_NULL)
            return NULL;
        json_t *a = json_loadb((const char *)sqlite3_column_text(st, i),
                               (size_t)sqlite3_column_bytes(st, i), 0, NULL);
        if (!json_is_array(a)) {
            json_decref(a);
            mn_error_set(MN_ECORRUPT, "database '%s': column %s is not a JSON array", s->path,
                         f->column);
            return NULL;
        }
        return a;
    }
    case MN_F_LEVEL: {
        char l[3] = {'L', (char)('0' + (sqlite3_column_int(st, i) & 3)), 0};
        return json_string(l);
    }
    case MN_F_REAL:
        return type == SQLITE_NULL ? NULL : json_real(sqlite3_column_double(st, i));
    case MN_F_COUNT:
        return json_integer(sqlite3_column_int64(st, i));
    case MN_F_TIME: {
        if (type == SQLITE_NULL)
            return NULL;
        char t[32];
        mn_time_format(t, sqlite3_column_int64(st, i));
        return json_string(t);
    }
    case MN_F_EXCERPT: {
        int j = (*col)++;
        if (type == SQLITE_NULL)
            return NULL;
        sqlite3_int64 len = sqlite3_column_int64(st, j);
        if (len <= 0 || len > (sqlite3_int64)MN_EXCERPT_MAX_STORED) {
            mn_error_set(MN_ECORRUPT, "database '%s': bad excerpt length", s->path);
            return NULL;
        }
        uLongf out_len = (uLongf)len;
        Bytef *raw = mn_malloc((size_t)len + 1);
        int zr = uncompress(raw, &out_len, sqlite3_column_blob(st, i),
                            (uLong)sqlite3_column_bytes(st, i));
        json_t *v = NULL;
        if (zr == Z_OK && out_len == (uLongf)len)
            v = json_stringn((const char *)raw, (size_t)len);
        else
            mn_error_set(MN_ECORRUPT, "database '%s': a conversation excerpt is damaged", s->path);
        free(raw);
        return v;
    }
    case MN_F_OBJECT: {
        if (type == SQLITE_NULL)
            return NULL;
        json_t *o = json_loadb((const char *)sqlite3_column_text(st, i),
                               (size_t)sqlite3_column_bytes(st, i), 0, NULL);
        if (!json_is_object(o)) {
            json_decref(o);
            mn_error_set(MN_ECORRUPT, "database '%s': column %s is not a JSON object", s->path,
                         f->column);
            return NULL;
        }
        return o;
    }
    }
    return NULL;
}

static int load_citations(mn_store *s, json_t *mem, int64_t rowid)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT path, symbol, start_line, end_line, content_hash, text, stale, "
                           "checked_at FROM citations WHERE memory_id = ?1 ORDER BY seq");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, rowid);
    json_t *arr = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *c = json_object();
        json_object_set_new(c, "path", json_string((const char *)sqlite3_column_text(st, 0)));
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            json_object_set_new(c, "symbol", json_string((const char *)sqlite3_column_text(st, 1)));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            json_object_set_new(c, "start_line", json_integer(sqlite3_column_int64(st, 2)));
        if (sqlite3_column_type(st, 3) != SQLITE_NULL)
            json_object_set_new(c, "end_line", json_integer(sqlite3_column_int64(st, 3)));
        if (sqlite3_column_type(st, 4) != SQLITE_NULL)
            json_object_set_new(c, "hash", json_string((const char *)sqlite3_column_text(st, 4)));
        if (sqlite3_column_type(st, 5) != SQLITE_NULL)
            json_object_set_new(c, "text", json_string((const char *)sqlite3_column_text(st, 5)));
        int stale = sqlite3_column_int(st, 6);
        if (stale)
            json_object_set_new(c, "stale", json_string(stale == 2 ? "gone" : "changed"));
        if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
            char t[32];
            mn_time_format(t, sqlite3_column_int64(st, 7));
            json_object_set_new(c, "checked_at", json_string(t));
        }
        if (!arr)
            arr = json_array();
        json_array_append_new(arr, c);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        json_decref(arr);
        return sql_error(s, rc, "cannot read citations");
    }
    if (arr)
        json_object_set_new(mem, "citations", arr);
    return 0;
}

static int load_links(mn_store *s, json_t *mem, int64_t rowid)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT l.kind, coalesce(m.uid, l.dst_ref), l.note, l.created_at FROM links l "
           "LEFT JOIN memories m ON m.id = l.dst_memory_id WHERE l.src_id = ?1 ORDER BY l.id");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, rowid);
    json_t *arr = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *l = json_object();
        char t[32];
        json_object_set_new(l, "kind", json_string((const char *)sqlite3_column_text(st, 0)));
        json_object_set_new(l, "to", json_string((const char *)sqlite3_column_text(st, 1)));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            json_object_set_new(l, "note", json_string((const char *)sqlite3_column_text(st, 2)));
        mn_time_format(t, sqlite3_column_int64(st, 3));
        json_object_set_new(l, "created_at", json_string(t));
        if (!arr)
            arr = json_array();
        json_array_append_new(arr, l);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        json_decref(arr);
        return sql_error(s, rc, "cannot read links");
    }
    if (arr)
        json_object_set_new(mem, "links", arr);
    return 0;
}

/* One row of select_sql to canonical JSON; the statement is positioned on a row. */
static int row_to_json(mn_store *s, sqlite3_stmt *st, json_t **out)
{
    json_t *mem = json_object();
    int col = 0, rc = 0;
    int64_t rowid;
    json_object_set_new(mem, "id", json_null()); /* keep "id" first */
    mn_error_clear();
    for (size_t i = 0; i < mn_memory_field_count; i++) {
        const mn_field *f = &mn_memory_fields[i];
        json_t *v = column_json(s, st, &col, f);
        if (!v) {
            if (mn_error_last_code() == MN_ECORRUPT) {
                rc = MN_ECORRUPT;
                goto out;
            }
            continue;
        }
        if (json_is_array(v) && json_array_size(v) == 0) {
            json_decref(v);
            continue;
        }
        mn_field_set(mem, f, v);
    }
    rowid = sqlite3_column_int64(st, col);
    json_object_set_new(mem, "id", json_string((const char *)sqlite3_column_text(st, col + 1)));
    *out = mem;
    (void)rowid;
    return 0;
out:
    json_decref(mem);
    return rc;
}

static int complete_memory(mn_store *s, json_t *mem, int64_t rowid)
{
    int rc = load_citations(s, mem, rowid);
    if (rc == 0)
        rc = load_links(s, mem, rowid);
    return rc;
}

int mn_sqlite__memory_get(mn_store *s, json_t **out, const char *id)
{
    mn_buf sql = MN_BUF_INIT;
    json_t *mem = NULL;
    int rc;
    *out = NULL;
    if (!sq(s)->get_sql) { /* built once: formatting it cost ~6% of a get */
        build_sql(s);
        mn_buf_printf(&sql, "%s WHERE uid = ?1 AND project_id = ?2", sq(s)->select_sql);
        sq(s)->get_sql = mn_buf_detach(&sql);
    }
    sqlite3_stmt *st = mn_sqlite__stmt(s, sq(s)->get_sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(st);
        return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    }
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return sql_error(s, rc, "cannot read memory");
    }
    int64_t rowid = sqlite3_column_int64(st, sq(s)->field_params);
    rc = row_to_json(s, st, &mem);
    sqlite3_reset(st);
    if (rc == 0)
        rc = complete_memory(s, mem, rowid);
    if (rc)
        json_decref(mem);
    else
        *out = mem;
    return rc;
}

int mn_sqlite__memory_resolve(mn_store *s, char out[MN_ID_LEN + 1], const char *prefix)
{
    size_t n = strlen(prefix);
    char upper[MN_ID_LEN + 1];
    if (!mn_id_is_prefix(prefix))
        return mn_error_set(MN_EINVAL, "'%.60s' is not a memory id", prefix);
    for (size_t i = 0; i <= n; i++) /* ids are stored upper-case; Crockford is case-blind */
        upper[i] = prefix[i] >= 'a' && prefix[i] <= 'z' ? (char)(prefix[i] - 'a' + 'A') : prefix[i];
    prefix = upper;
    /* INDEXED BY keeps the planner on the key (project_id, uid), a range
     * scan inside the project: without statistics it may take another index
     * that starts with project_id (memories_hash, memories_listing) and read
     * every memory of the project, O(n) per lookup instead of O(log n). */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT uid FROM memories INDEXED BY memories_uid WHERE project_id = ?1 AND uid >= ?2 "
           "AND uid < ?2 || '~' ORDER BY uid LIMIT 2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, prefix, (int)n, SQLITE_TRANSIENT);
    int found = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *uid = (const char *)sqlite3_column_text(st, 0);
        if (found == 0)
            snprintf(out, MN_ID_LEN + 1, "%s", uid);
        if (strcmp(uid, prefix) == 0) { /* an exact id wins over longer ones */
            snprintf(out, MN_ID_LEN + 1, "%s", uid);
            found = 1;
            break;
        }
        found++;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return sql_error(s, rc, "cannot look up memory");
    if (found == 0)
        return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", prefix);
    if (found > 1)
        return mn_error_set(MN_EAMBIGUOUS, "memory id '%s' is ambiguous: give more characters",
                            prefix);
    return 0;
}

int mn_sqlite__memory_find_hash(mn_store *s, char out[MN_ID_LEN + 1], const char *hash)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT uid FROM memories WHERE project_id = ?1 AND content_hash = ?2 "
                           "AND deleted_at IS NULL ORDER BY uid LIMIT 1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, hash, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        snprintf(out, MN_ID_LEN + 1, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_reset(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return MN_ENOTFOUND;
    return sql_error(s, rc, "cannot look up memory");
}

/* WHERE clause and bindings for a filter; parameters are numbered from 1. */
static void filter_sql(mn_buf *sql, const mn_memory_filter *f)
{
    mn_buf_puts(sql, " WHERE project_id = ?1");
    if (f->only_deleted)
        mn_buf_puts(sql, " AND deleted_at IS NOT NULL");
    else if (!f->include_deleted)
        mn_buf_puts(sql, " AND deleted_at IS NULL");
    if (f->kind)
        mn_buf_puts(sql, " AND kind = ?2");
    if (f->level >= 0)
        mn_buf_puts(sql, " AND level = ?3");
    if (f->status)
        mn_buf_puts(sql, " AND status = ?4");
    if (f->tag)
        mn_buf_puts(sql, " AND id IN (SELECT memory_id FROM memory_tags WHERE tag = ?5)");
    if (f->path)
        mn_buf_puts(sql, " AND id IN (SELECT memory_id FROM memory_paths WHERE path = ?6 OR "
                         "(path > ?6 || '/' AND path < ?6 || '0') OR "
                         "(?6 > path || '/' AND ?6 < path || '0'))");
    if (f->source)
        mn_buf_puts(sql, " AND source = ?7");
    if (f->since)
        mn_buf_puts(sql, " AND updated_at >= ?8");
    if (f->expiry.at) {
        int next = 9;
        mn_buf_puts(sql, f->expiry.only ? " AND " : " AND NOT ");
        mn_sqlite__expired_sql(sql, "", &f->expiry, &next);
    }
    /* named: numbered after the expiry's parameters, however many they are */
    if (f->after && !f->newest_first)
        mn_buf_puts(sql, " AND uid > :after");
}

static void filter_bind(mn_store *s, sqlite3_stmt *st, const mn_memory_filter *f)
{
    sqlite3_bind_int64(st, 1, s->project_id);
    bind_text_or_null(st, 2, f->kind);
    sqlite3_bind_int(st, 3, f->level);
    bind_text_or_null(st, 4, f->status);
    bind_text_or_null(st, 5, f->tag);
    bind_text_or_null(st, 6, f->path);
    bind_text_or_null(st, 7, f->source);
    sqlite3_bind_int64(st, 8, f->since);
    if (f->expiry.at) {
        int next = 9;
        mn_sqlite__expired_bind(st, &f->expiry, &next);
    }
    if (f->after && !f->newest_first)
        bind_text_or_null(st, sqlite3_bind_parameter_index(st, ":after"), f->after);
}

int mn_sqlite__memory_list(mn_store *s, const mn_memory_filter *f,
                           int (*cb)(void *payload, json_t *mem), void *payload)
{
    mn_buf sql = MN_BUF_INIT;
    sqlite3_stmt *st = NULL;
    int rc = 0, step;
    build_sql(s);
    mn_buf_puts(&sql, sq(s)->select_sql);
    filter_sql(&sql, f);
    /* memories_updated indexes updated_at; uid breaks ties so that pages never overlap */
    mn_buf_puts(&sql, f->newest_first ? " ORDER BY updated_at DESC, uid DESC" : " ORDER BY uid");
    if (f->limit > 0)
        mn_buf_printf(&sql, " LIMIT %lld", (long long)f->limit);
    else if (f->offset > 0)
        mn_buf_puts(&sql, " LIMIT -1");
    if (f->offset > 0)
        mn_buf_printf(&sql, " OFFSET %lld", (long long)f->offset);
    if (sqlite3_prepare_v2(sq(s)->db, sql.ptr, -1, &st, NULL) != SQLITE_OK) {
        rc = sql_error(s, sqlite3_errcode(sq(s)->db), "cannot list memories");
        goto out;
    }
    filter_bind(s, st, f);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *mem;
        int64_t rowid = sqlite3_column_int64(st, sq(s)->field_params);
        if ((rc = row_to_json(s, st, &mem)) != 0)
            goto out;
        if ((rc = complete_memory(s, mem, rowid)) == 0)
            rc = cb(payload, mem);
        json_decref(mem);
        if (rc)
            goto out;
    }
    if (step != SQLITE_DONE)
        rc = sql_error(s, step, "cannot list memories");
out:
    sqlite3_finalize(st);
    mn_buf_release(&sql);
    return rc;
}

int mn_sqlite__memory_count(mn_store *s, const mn_memory_filter *f, int64_t *out)
{
    mn_buf sql = MN_BUF_INIT;
    sqlite3_stmt *st = NULL;
    int rc = 0;
    mn_buf_puts(&sql, "SELECT count(*) FROM memories");
    filter_sql(&sql, f);
    if (sqlite3_prepare_v2(sq(s)->db, sql.ptr, -1, &st, NULL) != SQLITE_OK) {
        rc = sql_error(s, sqlite3_errcode(sq(s)->db), "cannot count memories");
        goto out;
    }
    filter_bind(s, st, f);
    if (sqlite3_step(st) == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else
        rc = sql_error(s, sqlite3_errcode(sq(s)->db), "cannot count memories");
out:
    sqlite3_finalize(st);
    mn_buf_release(&sql);
    return rc;
}

int mn_sqlite__memory_set_deleted(mn_store *s, const char *id, int64_t ms)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "UPDATE memories SET deleted_at = CASE WHEN ?1 IS NULL THEN NULL "
                           "ELSE coalesce(deleted_at, ?1) END WHERE uid = ?2 AND project_id = ?3");
    if (!st)
        return mn_error_last_code();
    if (ms)
        sqlite3_bind_int64(st, 1, ms);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, s->project_id);
    int rc = step_done(s, st, "cannot forget memory");
    if (rc == 0 && sqlite3_changes(sq(s)->db) == 0)
        rc = mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return rc;
}

int mn_sqlite__memory_purge(mn_store *s, const char *id)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "DELETE FROM memories WHERE uid = ?1 AND project_id = ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    int rc = step_done(s, st, "cannot purge memory");
    if (rc == 0 && sqlite3_changes(sq(s)->db) == 0)
        rc = mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return rc;
}

int mn_sqlite__memory_backlinks(mn_store *s, json_t **out, const char *id)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT l.kind, src.uid, l.note, l.created_at FROM links l "
           "JOIN memories dst ON dst.id = l.dst_memory_id JOIN memories src ON src.id = l.src_id "
           "WHERE dst.uid = ?1 AND dst.project_id = ?2 ORDER BY l.id");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    json_t *arr = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char t[32];
        json_t *l = json_object();
        json_object_set_new(l, "kind", json_string((const char *)sqlite3_column_text(st, 0)));
        json_object_set_new(l, "from", json_string((const char *)sqlite3_column_text(st, 1)));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            json_object_set_new(l, "note", json_string((const char *)sqlite3_column_text(st, 2)));
        mn_time_format(t, sqlite3_column_int64(st, 3));
        json_object_set_new(l, "created_at", json_string(t));
        json_array_append_new(arr, l);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        json_decref(arr);
        return sql_error(s, rc, "cannot read links");
    }
    *out = arr;
    return 0;
}

/* ---- links ---- */

int mn_sqlite__link_add(mn_store *s, const char *from, const char *kind, const char *to,
                        const char *note, int64_t created_at)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int64_t src = memory_rowid(s, from);
    if (src <= 0)
        return mn_error_last_code();
    int64_t dst = 0;
    if (!strchr(to, ':')) {
        dst = memory_rowid(s, to);
        if (dst <= 0)
            return mn_error_last_code();
    }
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO links(src_id, kind, dst_memory_id, dst_ref, note, created_at) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, src);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
    if (dst)
        sqlite3_bind_int64(st, 3, dst);
    else
        sqlite3_bind_text(st, 4, to, -1, SQLITE_TRANSIENT);
    bind_text_or_null(st, 5, note);
    sqlite3_bind_int64(st, 6, created_at);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_CONSTRAINT_UNIQUE)
        return mn_error_set(MN_EEXISTS, "link %s -[%s]-> %s exists already", from, kind, to);
    if (rc != SQLITE_DONE)
        return sql_error(s, rc, "cannot store link");
    return 0;
}

int mn_sqlite__link_remove(mn_store *s, const char *from, const char *kind, const char *to)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int64_t src = memory_rowid(s, from);
    if (src <= 0)
        return mn_error_last_code();
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "DELETE FROM links WHERE src_id = ?1 AND kind = ?2 AND "
           "(dst_ref = ?3 OR dst_memory_id = (SELECT id FROM memories WHERE uid = ?3 AND "
           "project_id = ?4))");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, src);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, to, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, s->project_id);
    int rc = step_done(s, st, "cannot remove link");
    if (rc == 0 && sqlite3_changes(sq(s)->db) == 0)
        rc = mn_error_set(MN_ENOTFOUND, "no link %s -[%s]-> %s", from, kind, to);
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
    return sql_error(s, rc, "cannot read config");
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
    return step_done(s, st, "cannot write config");
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
        return sql_error(s, rc, "cannot read config");
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
    bind_text_or_null(st, 5, target);
    if (detail)
        sqlite3_bind_text(st, 6, json_dumps(detail, JSON_COMPACT), -1, free);
    return step_done(s, st, "cannot write the audit log");
}

/* The table mn_store_open dispatches to for a file path (store.c). */
#define MN_SQLITE_SLOT(name, params, args) .name = mn_sqlite__##name,
const mn_store_backend mn_sqlite_backend = {.name = "sqlite",
                                            .open = mn_sqlite__open,
                                            .close = mn_sqlite__close,
                                            .rollback = mn_sqlite__rollback,
                                            MN_STORE_FUNCTIONS(MN_SQLITE_SLOT)};
#undef MN_SQLITE_SLOT
