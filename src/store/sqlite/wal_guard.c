/*
 * wal_guard.c - the VFS that keeps checkpoints and writes apart (wal_guard.h
 * says why).
 *
 * A guard file is the base VFS's file with a header in front (szOsFile is
 * the sum): every method forwards to the base file, but for xShmLock, which
 * adds the flock around SQLite's lock slots 0 (the writer) and 1 (the
 * checkpointer) of the log's index, and xFileControl, which answers the
 * guard's own opcode. wal.c takes those two slots only exclusively; a range
 * that covers one of them (recovery takes slots 1 to 7) counts as taking it.
 */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "store/sqlite/wal_guard.h"

#define SLOT_WRITE (1u << 0)
#define SLOT_CKPT  (1u << 1)
/* a file control opcode of the guard's own ("mn" and 1): the base VFS answers NOTFOUND to it */
#define FCNTL_GUARD 0x6d6e0001

typedef struct {
    sqlite3_file base;
    sqlite3_file *real; /* the base VFS's file, right after this header */
    char *lock_path;    /* NULL: not guarded (yet) */
    int fd;             /* the -wlock, opened on first need; -1 */
    unsigned held;      /* SLOT_* this connection holds */
} guard_file;

static sqlite3_vfs guard_vfs;
static sqlite3_vfs *base_vfs;

/* The bits of the guarded slots in [ofst, ofst + n). */
static unsigned guarded(int ofst, int n)
{
    unsigned bits = 0;
    for (int i = ofst; i < ofst + n && i < 2; i++)
        bits |= 1u << i;
    return bits;
}

/* SQLITE_OK with the flock held (or the store unguardable here), SQLITE_BUSY when taken. */
static int flock_take(guard_file *g)
{
    if (g->fd < 0) {
        g->fd = open(g->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (g->fd < 0)
            return SQLITE_OK; /* a directory that cannot be written takes no write either */
    }
    for (;;) {
        if (flock(g->fd, LOCK_EX | LOCK_NB) == 0)
            return SQLITE_OK;
        if (errno == EWOULDBLOCK)
            return SQLITE_BUSY;
        if (errno != EINTR)
            return SQLITE_OK; /* a file system without flock: unguarded, as before */
    }
}

static void flock_drop(guard_file *g)
{
    if (g->fd >= 0)
        (void)flock(g->fd, LOCK_UN);
}

static int g_shm_lock(sqlite3_file *f, int ofst, int n, int flags)
{
    guard_file *g = (guard_file *)f;
    sqlite3_file *r = g->real;
    unsigned bits = guarded(ofst, n);
    if (!bits || !g->lock_path)
        return r->pMethods->xShmLock(r, ofst, n, flags);
    if (flags & SQLITE_SHM_UNLOCK) {
        int rc = r->pMethods->xShmLock(r, ofst, n, flags);
        bool had = g->held != 0;
        g->held &= ~bits;
        if (had && !g->held)
            flock_drop(g);
        return rc;
    }
    if (!(flags & SQLITE_SHM_EXCLUSIVE))
        return r->pMethods->xShmLock(r, ofst, n, flags);
    bool first = g->held == 0;
    if (first) {
        int rc = flock_take(g);
        if (rc != SQLITE_OK)
            return rc;
    }
    int rc = r->pMethods->xShmLock(r, ofst, n, flags);
    if (rc == SQLITE_OK)
        g->held |= bits;
    else if (first)
        flock_drop(g);
    return rc;
}

static int g_file_control(sqlite3_file *f, int op, void *arg)
{
    guard_file *g = (guard_file *)f;
    if (op == FCNTL_GUARD) {
        if (g->lock_path || !arg)
            return SQLITE_OK;
        g->lock_path = sqlite3_mprintf("%s", (const char *)arg);
        return g->lock_path ? SQLITE_OK : SQLITE_NOMEM;
    }
    return g->real->pMethods->xFileControl(g->real, op, arg);
}

static int g_close(sqlite3_file *f)
{
    guard_file *g = (guard_file *)f;
    if (g->fd >= 0)
        close(g->fd); /* the flock, if held, goes with it */
    g->fd = -1;
    sqlite3_free(g->lock_path);
    g->lock_path = NULL;
    return g->real->pMethods->xClose(g->real);
}

/* ---- the rest forwards to the base file ---- */

#define REAL(f) (((guard_file *)(f))->real)

static int g_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
    return REAL(f)->pMethods->xRead(REAL(f), p, n, off);
}

static int g_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
    return REAL(f)->pMethods->xWrite(REAL(f), p, n, off);
}

static int g_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int g_sync(sqlite3_file *f, int flags)
{
    return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int g_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int g_lock(sqlite3_file *f, int lock)
{
    return REAL(f)->pMethods->xLock(REAL(f), lock);
}

static int g_unlock(sqlite3_file *f, int lock)
{
    return REAL(f)->pMethods->xUnlock(REAL(f), lock);
}

static int g_check_reserved(sqlite3_file *f, int *out)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int g_sector_size(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int g_device(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int g_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **pp)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, pp);
}

static void g_shm_barrier(sqlite3_file *f)
{
    REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int g_shm_unmap(sqlite3_file *f, int delete_flag)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag);
}

static int g_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
    return REAL(f)->pMethods->xFetch(REAL(f), off, n, pp);
}

static int g_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static const sqlite3_io_methods guard_io = {
    .iVersion = 3,
    .xClose = g_close,
    .xRead = g_read,
    .xWrite = g_write,
    .xTruncate = g_truncate,
    .xSync = g_sync,
    .xFileSize = g_file_size,
    .xLock = g_lock,
    .xUnlock = g_unlock,
    .xCheckReservedLock = g_check_reserved,
    .xFileControl = g_file_control,
    .xSectorSize = g_sector_size,
    .xDeviceCharacteristics = g_device,
    .xShmMap = g_shm_map,
    .xShmLock = g_shm_lock,
    .xShmBarrier = g_shm_barrier,
    .xShmUnmap = g_shm_unmap,
    .xFetch = g_fetch,
    .xUnfetch = g_unfetch,
};

static int g_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
    guard_file *g = (guard_file *)f;
    MN_UNUSED(vfs);
    memset(g, 0, sizeof(*g));
    g->fd = -1;
    g->real = (sqlite3_file *)(g + 1);
    int rc = base_vfs->xOpen(base_vfs, name, g->real, flags, out_flags);
    /* SQLite calls xClose when pMethods is set, whatever xOpen returned */
    if (g->real->pMethods)
        g->base.pMethods = &guard_io;
    return rc;
}

/* The VFS's own methods are the base VFS's, called with the base VFS. */
static int g_delete(sqlite3_vfs *v, const char *name, int sync_dir)
{
    MN_UNUSED(v);
    return base_vfs->xDelete(base_vfs, name, sync_dir);
}

static int g_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
    MN_UNUSED(v);
    return base_vfs->xAccess(base_vfs, name, flags, out);
}

static int g_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out)
{
    MN_UNUSED(v);
    return base_vfs->xFullPathname(base_vfs, name, n, out);
}

static void *g_dl_open(sqlite3_vfs *v, const char *name)
{
    MN_UNUSED(v);
    return base_vfs->xDlOpen(base_vfs, name);
}

static void g_dl_error(sqlite3_vfs *v, int n, char *out)
{
    MN_UNUSED(v);
    base_vfs->xDlError(base_vfs, n, out);
}

static void (*g_dl_sym(sqlite3_vfs *v, void *h, const char *sym))(void)
{
    MN_UNUSED(v);
    return base_vfs->xDlSym(base_vfs, h, sym);
}

static void g_dl_close(sqlite3_vfs *v, void *h)
{
    MN_UNUSED(v);
    base_vfs->xDlClose(base_vfs, h);
}

static int g_randomness(sqlite3_vfs *v, int n, char *out)
{
    MN_UNUSED(v);
    return base_vfs->xRandomness(base_vfs, n, out);
}

static int g_sleep(sqlite3_vfs *v, int us)
{
    MN_UNUSED(v);
    return base_vfs->xSleep(base_vfs, us);
}

static int g_current_time(sqlite3_vfs *v, double *out)
{
    MN_UNUSED(v);
    return base_vfs->xCurrentTime(base_vfs, out);
}

static int g_last_error(sqlite3_vfs *v, int n, char *out)
{
    MN_UNUSED(v);
    return base_vfs->xGetLastError(base_vfs, n, out);
}

static int g_current_time64(sqlite3_vfs *v, sqlite3_int64 *out)
{
    MN_UNUSED(v);
    return base_vfs->xCurrentTimeInt64(base_vfs, out);
}

int mn_wal_guard_register(void)
{
    if (base_vfs)
        return SQLITE_OK;
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    if (!base || base->iVersion < 2 || !base->xCurrentTimeInt64)
        return SQLITE_ERROR;
    memset(&guard_vfs, 0, sizeof(guard_vfs));
    guard_vfs.iVersion = 2; /* no system-call overrides: those stay the base VFS's */
    guard_vfs.szOsFile = (int)sizeof(guard_file) + base->szOsFile;
    guard_vfs.mxPathname = base->mxPathname;
    guard_vfs.zName = MN_WAL_GUARD_VFS;
    guard_vfs.xOpen = g_open;
    guard_vfs.xDelete = g_delete;
    guard_vfs.xAccess = g_access;
    guard_vfs.xFullPathname = g_full_pathname;
    guard_vfs.xDlOpen = g_dl_open;
    guard_vfs.xDlError = g_dl_error;
    guard_vfs.xDlSym = g_dl_sym;
    guard_vfs.xDlClose = g_dl_close;
    guard_vfs.xRandomness = g_randomness;
    guard_vfs.xSleep = g_sleep;
    guard_vfs.xCurrentTime = g_current_time;
    guard_vfs.xGetLastError = g_last_error;
    guard_vfs.xCurrentTimeInt64 = g_current_time64;
    base_vfs = base;
    int rc = sqlite3_vfs_register(&guard_vfs, 0);
    if (rc != SQLITE_OK)
        base_vfs = NULL;
    return rc;
}

int mn_wal_guard_enable(sqlite3 *db, const char *lock_path)
{
    return sqlite3_file_control(db, "main", FCNTL_GUARD, (void *)lock_path);
}
