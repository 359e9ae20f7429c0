#ifndef CSQLITEBENCH_SHIM_H
#define CSQLITEBENCH_SHIM_H

#include <sqlite3.h>
#include <malloc.h>

/* SQLITE_TRANSIENT casts -1 to a function pointer, which Swift does not import. */
static inline sqlite3_destructor_type csqlitebench_transient(void) {
    return SQLITE_TRANSIENT;
}

/* Bytes of heap in use (glibc), for memory-per-observer measurements. */
static inline size_t csqlitebench_heap_in_use(void) {
    return mallinfo2().uordblks;
}

#if defined(__linux__)
#include <sys/inotify.h>
#include <poll.h>
#endif

#endif
