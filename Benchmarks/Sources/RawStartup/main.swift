#if canImport(Glibc)
import Glibc
#endif
import CSQLiteBench

// `RawStartup FILE KEY`: sqlite3_open and one SELECT of the same row, the floor CoreStartup is
// compared with (Benchmarks/startup.sh).
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: RawStartup FILE KEY")
    exit(2)
}
var db: OpaquePointer?
guard sqlite3_open_v2(arguments[1], &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
    print("RawStartup: cannot open \(arguments[1])")
    exit(1)
}
var statement: OpaquePointer?
guard sqlite3_prepare_v2(db, "SELECT value FROM defaults WHERE key = ?1", -1, &statement, nil) == SQLITE_OK else {
    print("RawStartup: \(String(cString: sqlite3_errmsg(db)))")
    exit(1)
}
sqlite3_bind_text(statement, 1, arguments[2], -1, csqlitebench_transient())
if sqlite3_step(statement) == SQLITE_ROW {
    print(sqlite3_column_int64(statement, 0))
}
sqlite3_finalize(statement)
sqlite3_close(db)
