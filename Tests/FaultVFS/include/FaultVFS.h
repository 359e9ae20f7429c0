#ifndef FAULTVFS_H
#define FAULTVFS_H

/* A test-only SQLite VFS that wraps the default one (`unix`) and is registered as the new
   default, so the library opens every connection through it unchanged. Only files under the
   directory given to faultvfs_scope() are watched; everything else is passed through.

   - Recording: every write, truncate, sync and delete of a watched file (the database, its
     -wal, a rollback journal; never the -shm, which the unix VFS maps without xOpen) is kept
     in order with its bytes, for the tests to rebuild what a power cut would have left.
   - Faults: the Nth call of the chosen kinds on a watched file fails with an I/O error, a full
     disk or a refused open, as the operating system would have made it fail. */

#include <stddef.h>
#include <stdint.h>

/* The kinds of calls, as bits of a mask. */
enum {
    FAULTVFS_READ = 1 << 0,
    FAULTVFS_WRITE = 1 << 1,
    FAULTVFS_SYNC = 1 << 2,
    FAULTVFS_TRUNCATE = 1 << 3,
    FAULTVFS_LOCK = 1 << 4,
    FAULTVFS_SHM_MAP = 1 << 5,
    FAULTVFS_SHM_LOCK = 1 << 6,
    FAULTVFS_OPEN = 1 << 7,
    FAULTVFS_FILE_SIZE = 1 << 8,
    FAULTVFS_DELETE = 1 << 9,
    FAULTVFS_ACCESS = 1 << 10,
};

/* How a faulted call fails. */
enum {
    /* EIO: SQLITE_IOERR_<kind> (an open: SQLITE_CANTOPEN). */
    FAULTVFS_EIO = 0,
    /* ENOSPC: a write fails with SQLITE_FULL; any other kind with SQLITE_IOERR_<kind>. */
    FAULTVFS_ENOSPC = 1,
    /* EACCES: an open fails with SQLITE_CANTOPEN, anything else with SQLITE_IOERR_<kind>. */
    FAULTVFS_EACCES = 2,
};

/* The kinds of recorded operations. */
enum {
    FAULTVFS_OP_WRITE = 1,
    FAULTVFS_OP_TRUNCATE = 2,
    FAULTVFS_OP_SYNC = 3,
    FAULTVFS_OP_DELETE = 4,
    /* The directory was synced: files created and deleted in it so far are durable. */
    FAULTVFS_OP_DIRECTORY_SYNC = 5,
};

typedef struct {
    int kind;
    int file;
    int64_t offset;  /* a write's offset; a truncate's new size */
    int64_t length;  /* a write's length */
    const unsigned char *bytes;  /* a write's bytes, valid until the next faultvfs_scope */
} faultvfs_op;

/* Registers the VFS as the default (once; later calls do nothing). Returns SQLITE_OK. */
int faultvfs_install(void);

/* Watches the files under `directory` (a prefix of their paths) from now on, or none (NULL);
   forgets what was recorded and disarms any fault. */
void faultvfs_scope(const char *directory);

/* Recording of the watched files' operations. */
void faultvfs_record(int on);
long faultvfs_op_count(void);
faultvfs_op faultvfs_op_at(long index);
int faultvfs_file_count(void);
/* The watched file's path, valid until the next faultvfs_scope. */
const char *faultvfs_file_path(int file);

/* Fails the `nth` call (1-based, counted from now) of the kinds in `mask` on a watched file
   the way `flavor` says; with `sticky`, every later one of those calls fails too until
   faultvfs_disarm. */
void faultvfs_arm(long nth, int mask, int flavor, int sticky);
void faultvfs_disarm(void);
/* While suspended (on), no call is counted or fails: for the test's own checks. */
void faultvfs_suspend(int on);
/* Calls of the armed kinds counted since faultvfs_arm, and how many of them failed. */
long faultvfs_calls(void);
long faultvfs_failures(void);

#endif
