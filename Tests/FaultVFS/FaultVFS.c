/* strdup and friends: POSIX, declared under strict C modes too. */
#define _POSIX_C_SOURCE 200809L

#include "FaultVFS.h"
#include "FaultVFSRecording.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* The scope and the armed fault are kept behind one mutex: the store's connections and its
   monitor call in from several threads. What is recorded has its own (FaultVFSRecording.c). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fault_vfs;
static char *scope;
static size_t scope_length;

static long fault_nth;  /* 0: disarmed */
static int fault_mask, fault_flavor, fault_sticky;
static long fault_calls, fault_failures;
static int fault_suspended;
/* The errno of the last injected failure, for xGetLastError (sqlite3_system_errno). */
static int injected_errno;

typedef struct {
    sqlite3_file base;
    /* The watched file's index (faultvfs_watch), or -1 for a file outside the scope. */
    int file;
    /* The unix VFS syncs the directory at the first sync of a journal or -wal it created. */
    int syncs_directory;
    sqlite3_file *real;
} fault_file;

static int in_scope(const char *path) {
    if (path == NULL) return 0;
    pthread_mutex_lock(&lock);
    int inside = scope != NULL && strncmp(path, scope, scope_length) == 0;
    pthread_mutex_unlock(&lock);
    return inside;
}

static int ends_with(const char *path, const char *suffix) {
    size_t length = strlen(path), suffix_length = strlen(suffix);
    return length >= suffix_length && strcmp(path + length - suffix_length, suffix) == 0;
}

/* Whether this call fails; sets `injected_errno` when it does. */
static int faulted(int kind, int watched) {
    if (!watched) return 0;
    pthread_mutex_lock(&lock);
    int fails = 0;
    if (fault_nth > 0 && !fault_suspended && (fault_mask & kind)) {
        fault_calls++;
        if (fault_calls == fault_nth || (fault_sticky && fault_calls > fault_nth)) {
            fails = 1;
            fault_failures++;
            injected_errno = fault_flavor == FAULTVFS_ENOSPC ? ENOSPC : fault_flavor == FAULTVFS_EACCES ? EACCES : EIO;
        }
    }
    pthread_mutex_unlock(&lock);
    return fails;
}

/* The result code of a faulted call of `kind`. */
static int failure(int kind) {
    if (kind == FAULTVFS_OPEN) return SQLITE_CANTOPEN;
    if (kind == FAULTVFS_WRITE && fault_flavor == FAULTVFS_ENOSPC) return SQLITE_FULL;
    switch (kind) {
    case FAULTVFS_READ: return SQLITE_IOERR_READ;
    case FAULTVFS_WRITE: return SQLITE_IOERR_WRITE;
    case FAULTVFS_SYNC: return SQLITE_IOERR_FSYNC;
    case FAULTVFS_TRUNCATE: return SQLITE_IOERR_TRUNCATE;
    case FAULTVFS_LOCK: return SQLITE_IOERR_LOCK;
    case FAULTVFS_SHM_MAP: return SQLITE_IOERR_SHMMAP;
    case FAULTVFS_SHM_LOCK: return SQLITE_IOERR_SHMLOCK;
    case FAULTVFS_FILE_SIZE: return SQLITE_IOERR_FSTAT;
    case FAULTVFS_DELETE: return SQLITE_IOERR_DELETE;
    case FAULTVFS_ACCESS: return SQLITE_IOERR_ACCESS;
    default: return SQLITE_IOERR;
    }
}

#define REAL(file) (((fault_file *)(file))->real)
#define WATCHED(file) (((fault_file *)(file))->file >= 0)

static int fault_close(sqlite3_file *file) {
    int rc = REAL(file)->pMethods->xClose(REAL(file));
    file->pMethods = NULL;
    return rc;
}

static int fault_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    if (faulted(FAULTVFS_READ, WATCHED(file))) return failure(FAULTVFS_READ);
    return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}

static int fault_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    if (faulted(FAULTVFS_WRITE, WATCHED(file))) return failure(FAULTVFS_WRITE);
    int rc = REAL(file)->pMethods->xWrite(REAL(file), buffer, amount, offset);
    if (rc == SQLITE_OK && WATCHED(file)) {
        faultvfs_note(FAULTVFS_OP_WRITE, ((fault_file *)file)->file, offset, buffer, amount);
    }
    return rc;
}

static int fault_truncate(sqlite3_file *file, sqlite3_int64 size) {
    if (faulted(FAULTVFS_TRUNCATE, WATCHED(file))) return failure(FAULTVFS_TRUNCATE);
    int rc = REAL(file)->pMethods->xTruncate(REAL(file), size);
    if (rc == SQLITE_OK && WATCHED(file)) {
        faultvfs_note(FAULTVFS_OP_TRUNCATE, ((fault_file *)file)->file, size, NULL, 0);
    }
    return rc;
}

static int fault_sync(sqlite3_file *file, int flags) {
    if (faulted(FAULTVFS_SYNC, WATCHED(file))) return failure(FAULTVFS_SYNC);
    int rc = REAL(file)->pMethods->xSync(REAL(file), flags);
    if (rc == SQLITE_OK && WATCHED(file)) {
        fault_file *wrapper = (fault_file *)file;
        faultvfs_note(FAULTVFS_OP_SYNC, wrapper->file, 0, NULL, 0);
        if (wrapper->syncs_directory) faultvfs_note(FAULTVFS_OP_DIRECTORY_SYNC, wrapper->file, 0, NULL, 0);
        wrapper->syncs_directory = 0;
    }
    return rc;
}

static int fault_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    if (faulted(FAULTVFS_FILE_SIZE, WATCHED(file))) return failure(FAULTVFS_FILE_SIZE);
    return REAL(file)->pMethods->xFileSize(REAL(file), size);
}

static int fault_lock(sqlite3_file *file, int level) {
    if (faulted(FAULTVFS_LOCK, WATCHED(file))) return failure(FAULTVFS_LOCK);
    return REAL(file)->pMethods->xLock(REAL(file), level);
}

static int fault_unlock(sqlite3_file *file, int level) {
    return REAL(file)->pMethods->xUnlock(REAL(file), level);
}

static int fault_check_reserved_lock(sqlite3_file *file, int *result) {
    if (faulted(FAULTVFS_LOCK, WATCHED(file))) return SQLITE_IOERR_CHECKRESERVEDLOCK;
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), result);
}

static int fault_file_control(sqlite3_file *file, int op, void *argument) {
    return REAL(file)->pMethods->xFileControl(REAL(file), op, argument);
}

static int fault_sector_size(sqlite3_file *file) {
    return REAL(file)->pMethods->xSectorSize(REAL(file));
}

static int fault_device_characteristics(sqlite3_file *file) {
    return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}

static int fault_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **pointer) {
    if (faulted(FAULTVFS_SHM_MAP, WATCHED(file))) return failure(FAULTVFS_SHM_MAP);
    return REAL(file)->pMethods->xShmMap(REAL(file), region, size, extend, pointer);
}

static int fault_shm_lock(sqlite3_file *file, int offset, int count, int flags) {
    /* Only taking a lock fails: SQLite expects releasing one to succeed. */
    if ((flags & SQLITE_SHM_LOCK) && faulted(FAULTVFS_SHM_LOCK, WATCHED(file))) return failure(FAULTVFS_SHM_LOCK);
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, count, flags);
}

static void fault_shm_barrier(sqlite3_file *file) {
    REAL(file)->pMethods->xShmBarrier(REAL(file));
}

static int fault_shm_unmap(sqlite3_file *file, int delete_flag) {
    return REAL(file)->pMethods->xShmUnmap(REAL(file), delete_flag);
}

static int fault_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    return REAL(file)->pMethods->xFetch(REAL(file), offset, amount, pointer);
}

static int fault_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    return REAL(file)->pMethods->xUnfetch(REAL(file), offset, pointer);
}

/* Version 3, as the unix VFS's: the methods past version 1 are only called when the real
   file's methods have them (a unix file always does). */
static const sqlite3_io_methods fault_methods = {
    3,
    fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size,
    fault_lock, fault_unlock, fault_check_reserved_lock, fault_file_control,
    fault_sector_size, fault_device_characteristics,
    fault_shm_map, fault_shm_lock, fault_shm_barrier, fault_shm_unmap,
    fault_fetch, fault_unfetch,
};

static int fault_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    fault_file *wrapper = (fault_file *)file;
    wrapper->real = (sqlite3_file *)(wrapper + 1);
    wrapper->file = -1;
    wrapper->syncs_directory = (flags & SQLITE_OPEN_CREATE)
        && (flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL | SQLITE_OPEN_WAL));
    file->pMethods = NULL;
    int watched = name != NULL && in_scope(name);
    if (faulted(FAULTVFS_OPEN, watched)) return failure(FAULTVFS_OPEN);
    int rc = real_vfs->xOpen(real_vfs, name, wrapper->real, flags, out_flags);
    if (wrapper->real->pMethods == NULL) return rc;
    file->pMethods = &fault_methods;
    if (rc != SQLITE_OK || !watched || ends_with(name, "-shm")) return rc;
    wrapper->file = faultvfs_watch(name, wrapper->real);
    return rc;
}

static int fault_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    int watched = in_scope(name);
    if (faulted(FAULTVFS_DELETE, watched)) return failure(FAULTVFS_DELETE);
    int rc = real_vfs->xDelete(real_vfs, name, sync_directory);
    if (rc == SQLITE_OK && watched && !ends_with(name, "-shm")) {
        faultvfs_note_delete(name, sync_directory);
    }
    return rc;
}

static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    if (faulted(FAULTVFS_ACCESS, in_scope(name))) return failure(FAULTVFS_ACCESS);
    return real_vfs->xAccess(real_vfs, name, flags, result);
}

static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, size, out);
}

static void *fault_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return real_vfs->xDlOpen(real_vfs, name);
}

static void fault_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    real_vfs->xDlError(real_vfs, size, out);
}

static void (*fault_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return real_vfs->xDlSym(real_vfs, handle, symbol);
}

static void fault_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    real_vfs->xDlClose(real_vfs, handle);
}

static int fault_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return real_vfs->xRandomness(real_vfs, size, out);
}

static int fault_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return real_vfs->xSleep(real_vfs, microseconds);
}

static int fault_current_time(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return real_vfs->xCurrentTime(real_vfs, now);
}

static int fault_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    pthread_mutex_lock(&lock);
    int injected = injected_errno;
    injected_errno = 0;
    pthread_mutex_unlock(&lock);
    if (injected != 0) return injected;
    return real_vfs->xGetLastError(real_vfs, size, out);
}

static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, now);
}

static int fault_set_system_call(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr call) {
    (void)vfs;
    return real_vfs->xSetSystemCall(real_vfs, name, call);
}

static sqlite3_syscall_ptr fault_get_system_call(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return real_vfs->xGetSystemCall(real_vfs, name);
}

static const char *fault_next_system_call(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return real_vfs->xNextSystemCall(real_vfs, name);
}

int faultvfs_install(void) {
    pthread_mutex_lock(&lock);
    int rc = SQLITE_OK;
    if (real_vfs == NULL) {
        sqlite3_vfs *found = sqlite3_vfs_find(NULL);
        if (found == NULL || found->iVersion < 3) {
            rc = SQLITE_ERROR;
        } else {
            real_vfs = found;
            fault_vfs = (sqlite3_vfs){
                3, (int)sizeof(fault_file) + found->szOsFile, found->mxPathname, NULL, "faultvfs", NULL,
                fault_open, fault_delete, fault_access, fault_full_pathname,
                fault_dl_open, fault_dl_error, fault_dl_sym, fault_dl_close,
                fault_randomness, fault_sleep, fault_current_time, fault_get_last_error,
                fault_current_time_int64,
                fault_set_system_call, fault_get_system_call, fault_next_system_call,
            };
            rc = sqlite3_vfs_register(&fault_vfs, 1);
            if (rc != SQLITE_OK) real_vfs = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void faultvfs_scope(const char *directory) {
    pthread_mutex_lock(&lock);
    free(scope);
    scope = directory != NULL ? strdup(directory) : NULL;
    scope_length = scope != NULL ? strlen(scope) : 0;
    fault_nth = 0;
    fault_calls = 0;
    fault_failures = 0;
    fault_suspended = 0;
    injected_errno = 0;
    pthread_mutex_unlock(&lock);
    faultvfs_forget_recording();
}

void faultvfs_arm(long nth, int mask, int flavor, int sticky) {
    pthread_mutex_lock(&lock);
    fault_nth = nth;
    fault_mask = mask;
    fault_flavor = flavor;
    fault_sticky = sticky;
    fault_calls = 0;
    fault_failures = 0;
    pthread_mutex_unlock(&lock);
}

void faultvfs_disarm(void) {
    pthread_mutex_lock(&lock);
    fault_nth = 0;
    pthread_mutex_unlock(&lock);
}

void faultvfs_suspend(int on) {
    pthread_mutex_lock(&lock);
    fault_suspended = on;
    pthread_mutex_unlock(&lock);
}

long faultvfs_calls(void) {
    pthread_mutex_lock(&lock);
    long calls = fault_calls;
    pthread_mutex_unlock(&lock);
    return calls;
}

long faultvfs_failures(void) {
    pthread_mutex_lock(&lock);
    long failures = fault_failures;
    pthread_mutex_unlock(&lock);
    return failures;
}
