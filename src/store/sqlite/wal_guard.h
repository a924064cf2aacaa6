/*
 * wal_guard.h - no checkpoint of a store's write-ahead log while another
 * connection writes to it.
 *
 * SQLite 3.7.0 to 3.51.2 have a race (the "WAL-reset bug", fixed in
 * 3.51.3): a checkpoint that overlaps a write that restarts the log can
 * leave a wrong mark of what it copied, and a later checkpoint then skips
 * committed pages, which damages the file. It takes WAL, two connections
 * or more in separate threads or processes, and a write beside a
 * checkpoint: a team server's workers and sync, the CLI and the hooks all
 * writing one store. Debian 12 ships 3.40.1, without the fix.
 *
 * The guard is a VFS over the default one ("unix") that every store is
 * opened with. Once a store is known as mnemo's (mn_wal_guard_enable,
 * after the probe: another program's database is never touched), taking
 * the log's writer lock or its checkpoint lock also takes an exclusive
 * flock on <store>-wlock, without waiting: when another connection holds
 * it, the lock is SQLite's "busy" as ever (a writer waits in its busy
 * handler, an automatic checkpoint is skipped until the next commit). The
 * flock goes with the last of the two locks. So at any moment one
 * connection at most writes or checkpoints, whatever the write (a
 * transaction, an autocommit statement) and whatever the checkpoint
 * (SQLite's own after a commit, a TRUNCATE). flock belongs to the open
 * file, so it parts two connections of one process as well as two
 * processes, and it goes with a process that dies. A -wlock that cannot
 * be made (a read-only directory, where nothing can be written) leaves the
 * store unguarded.
 */
#ifndef MN_STORE_SQLITE_WAL_GUARD_H
#define MN_STORE_SQLITE_WAL_GUARD_H

#include <sqlite3.h>

/** The guard VFS's name: sqlite3_open_v2's last argument. */
#define MN_WAL_GUARD_VFS "mnemo"

/** Register the VFS once, over the default VFS; SQLite's result code. */
int mn_wal_guard_register(void);

/** Guard db's main file with the flock of lock_path (copied); SQLite's result code. */
int mn_wal_guard_enable(sqlite3 *db, const char *lock_path);

#endif
