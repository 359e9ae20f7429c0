#ifndef FAULTVFS_RECORDING_H
#define FAULTVFS_RECORDING_H

/* The recording half of the fault VFS, for FaultVFS.c (not part of the module's interface):
   the watched files by index, and their operations in order, with a write's bytes. */

#include <sqlite3.h>
#include <stdint.h>

/* The index of the watched file at `path` (added when new; -1 when out of memory). While
   recording, a file seen for the first time is noted as written whole and synced: its bytes
   then are where it starts. `real` is the opened file, read for that. */
int faultvfs_watch(const char *path, sqlite3_file *real);

/* Appends an operation on file `file` (nothing when not recording or `file` is -1). */
void faultvfs_note(int kind, int file, int64_t offset, const void *bytes, int64_t length);

/* Appends the deletion of `path` (and a directory sync when the delete synced it). */
void faultvfs_note_delete(const char *path, int sync_directory);

/* Forgets the watched files and what was recorded, and stops recording. */
void faultvfs_forget_recording(void);

#endif
