/* strdup and friends: POSIX, declared under strict C modes too. */
#define _POSIX_C_SOURCE 200809L

#include "FaultVFS.h"
#include "FaultVFSRecording.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* What was recorded, behind a mutex of its own: the files' methods note their operations from
   the store's threads while a test reads them back. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int kind;
    int file;
    int64_t offset;
    int64_t length;
    size_t bytes;  /* offset into `data` */
} op_record;

static int recording;
static op_record *ops;
static long op_count, op_capacity;
static unsigned char *data;
static size_t data_length, data_capacity;
static char **paths;
static int path_count, path_capacity;

/* The index of a watched path, added when new; -1 when out of memory. Called with the lock. */
static int file_index(const char *path) {
    for (int index = 0; index < path_count; index++) {
        if (strcmp(paths[index], path) == 0) return index;
    }
    if (path_count == path_capacity) {
        int capacity = path_capacity ? path_capacity * 2 : 8;
        char **grown = realloc(paths, (size_t)capacity * sizeof *paths);
        if (grown == NULL) return -1;
        paths = grown;
        path_capacity = capacity;
    }
    char *copy = strdup(path);
    if (copy == NULL) return -1;
    paths[path_count] = copy;
    return path_count++;
}

/* Appends an operation (with a write's bytes). Called with the lock. */
static void record(int kind, int file, int64_t offset, const void *bytes, int64_t length) {
    if (!recording || file < 0) return;
    if (op_count == op_capacity) {
        long capacity = op_capacity ? op_capacity * 2 : 1024;
        op_record *grown = realloc(ops, (size_t)capacity * sizeof *ops);
        if (grown == NULL) abort();
        ops = grown;
        op_capacity = capacity;
    }
    size_t start = data_length;
    if (bytes != NULL && length > 0) {
        size_t needed = data_length + (size_t)length;
        if (needed > data_capacity) {
            size_t capacity = data_capacity ? data_capacity : 1 << 20;
            while (capacity < needed) capacity *= 2;
            unsigned char *grown = realloc(data, capacity);
            if (grown == NULL) abort();
            data = grown;
            data_capacity = capacity;
        }
        memcpy(data + data_length, bytes, (size_t)length);
        data_length = needed;
    }
    ops[op_count++] = (op_record){ kind, file, offset, bytes != NULL ? length : 0, start };
}

int faultvfs_watch(const char *path, sqlite3_file *real) {
    pthread_mutex_lock(&lock);
    int index = file_index(path);
    /* A file that existed before recording began: its bytes then are where it starts. */
    if (recording && index >= 0) {
        int known = 0;
        for (long op = 0; op < op_count && !known; op++) known = ops[op].file == index;
        sqlite3_int64 size = 0;
        if (!known && real->pMethods->xFileSize(real, &size) == SQLITE_OK && size > 0) {
            void *bytes = malloc((size_t)size);
            if (bytes != NULL && real->pMethods->xRead(real, bytes, (int)size, 0) == SQLITE_OK) {
                record(FAULTVFS_OP_WRITE, index, 0, bytes, size);
                record(FAULTVFS_OP_SYNC, index, 0, NULL, 0);
            }
            free(bytes);
        }
    }
    pthread_mutex_unlock(&lock);
    return index;
}

void faultvfs_note(int kind, int file, int64_t offset, const void *bytes, int64_t length) {
    pthread_mutex_lock(&lock);
    record(kind, file, offset, bytes, length);
    pthread_mutex_unlock(&lock);
}

void faultvfs_note_delete(const char *path, int sync_directory) {
    pthread_mutex_lock(&lock);
    int index = file_index(path);
    record(FAULTVFS_OP_DELETE, index, 0, NULL, 0);
    if (sync_directory) record(FAULTVFS_OP_DIRECTORY_SYNC, index, 0, NULL, 0);
    pthread_mutex_unlock(&lock);
}

void faultvfs_forget_recording(void) {
    pthread_mutex_lock(&lock);
    for (int index = 0; index < path_count; index++) free(paths[index]);
    path_count = 0;
    op_count = 0;
    data_length = 0;
    recording = 0;
    pthread_mutex_unlock(&lock);
}

void faultvfs_record(int on) {
    pthread_mutex_lock(&lock);
    recording = on;
    pthread_mutex_unlock(&lock);
}

long faultvfs_op_count(void) {
    pthread_mutex_lock(&lock);
    long count = op_count;
    pthread_mutex_unlock(&lock);
    return count;
}

faultvfs_op faultvfs_op_at(long index) {
    pthread_mutex_lock(&lock);
    faultvfs_op result = { 0, -1, 0, 0, NULL };
    if (index >= 0 && index < op_count) {
        op_record op = ops[index];
        result = (faultvfs_op){ op.kind, op.file, op.offset, op.length, op.length > 0 ? data + op.bytes : NULL };
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int faultvfs_file_count(void) {
    pthread_mutex_lock(&lock);
    int count = path_count;
    pthread_mutex_unlock(&lock);
    return count;
}

const char *faultvfs_file_path(int file) {
    pthread_mutex_lock(&lock);
    const char *path = file >= 0 && file < path_count ? paths[file] : NULL;
    pthread_mutex_unlock(&lock);
    return path;
}
