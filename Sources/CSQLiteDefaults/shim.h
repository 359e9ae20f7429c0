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

#endif
