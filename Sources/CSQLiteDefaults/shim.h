#ifndef CSQLITEDEFAULTS_SHIM_H
#define CSQLITEDEFAULTS_SHIM_H

#include <sqlite3.h>

/* Swift cannot call C variadic functions; these fixed-arity wrappers cover the ones we need. */

static inline int csqlitedefaults_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift does not import. */
static inline sqlite3_destructor_type csqlitedefaults_transient(void) {
    return SQLITE_TRANSIENT;
}

#if defined(__linux__)
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>

/* Declared by glibc only for _GNU_SOURCE, which Swift's Glibc module does not define. */
int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);

/* poll(2) with a nanosecond time-out (negative: wait for ever): the monitor's re-checks are
   tens of microseconds apart, finer than poll's milliseconds. */
static inline int csqlitedefaults_poll(struct pollfd *fds, unsigned int count, long long nanoseconds) {
    if (nanoseconds < 0) return poll(fds, count, -1);
    struct timespec timeout = { (time_t)(nanoseconds / 1000000000LL), (long)(nanoseconds % 1000000000LL) };
    return ppoll(fds, count, &timeout, NULL);
}

/* Makes the calling thread's timed waits end when asked. Linux lets a thread's sleep run up to
   its timer slack (50 us by default) late, so that wake-ups batch; the monitor's first re-check
   is due 20 us after a wake-up and would otherwise take three times that. prctl is variadic. */
static inline void csqlitedefaults_precise_timers(void) {
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

/* The process-wide change monitor's wake-up descriptor. Swift's Glibc module does not declare
   eventfd; made close-on-exec and non-blocking in one call, so a child spawned meanwhile by
   another thread never inherits it. */
static inline int csqlitedefaults_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}
#endif

#endif
