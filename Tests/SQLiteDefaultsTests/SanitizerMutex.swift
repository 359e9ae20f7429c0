#if SQLITEDEFAULTS_PTHREAD_MUTEX
import SanitizerMutex

/// Under `Scripts/sanitize.sh` this module's locks are pthread mutexes, which ThreadSanitizer
/// understands (see `PthreadMutex`); every other build uses `Synchronization.Mutex`.
typealias Mutex = PthreadMutex
#endif
