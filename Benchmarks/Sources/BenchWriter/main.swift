import CSQLiteBench
import Foundation
import SQLiteDefaults

// The second process of the external-write latency benchmark.
//
//     BenchWriter write-timed DB KEY N INTERVAL_US       sets KEY (Int) to 1…N through a DefaultsStore
//     BenchWriter write-timed-sql DB KEY N INTERVAL_US   the same with plain SQL (raw SQLite C API)
//
// After each write returns it prints "VALUE NANOSECONDS" (CLOCK_REALTIME), then sleeps
// INTERVAL_US microseconds; 0 writes back to back, without calling usleep at all (Linux
// rounds even a zero sleep up to the thread's timer slack, about 50 µs).

/// Sleeps between two writes, unless they are to go back to back.
func pause(_ microseconds: UInt32) {
    if microseconds > 0 { usleep(microseconds) }
}

func stamp(_ value: Int) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    print("\(value) \(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))")
    fflush(nil)
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let count = Int(arguments[4]), let interval = UInt32(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: BenchWriter write-timed|write-timed-sql DB KEY N INTERVAL_US\n".utf8))
    exit(2)
}
let (command, path, keyName) = (arguments[1], arguments[2], arguments[3])

do {
    switch command {
    case "write-timed":
        let store = try DefaultsStore(path: path)
        let key = DefaultsKey<Int>(keyName, default: 0)
        for value in 1...max(count, 1) {
            try store.set(value, for: key)
            stamp(value)
            pause(interval)
        }
    case "write-timed-sql":
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
            throw DefaultsError(.cannotOpen, "cannot open \(path)")
        }
        defer { sqlite3_close_v2(handle) }
        sqlite3_busy_timeout(handle, 10_000)
        sqlite3_exec(handle, "PRAGMA synchronous = NORMAL", nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, """
            INSERT INTO defaults(key, value) VALUES (?1, ?2)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value
            WHERE value IS NOT excluded.value OR typeof(value) IS NOT typeof(excluded.value)
            """, -1, &statement, nil)
        guard let statement else { throw DefaultsError(.sqlite, "cannot prepare the upsert") }
        defer { sqlite3_finalize(statement) }
        for value in 1...max(count, 1) {
            _ = keyName.withCString { sqlite3_bind_text(statement, 1, $0, -1, csqlitebench_transient()) }
            sqlite3_bind_int64(statement, 2, Int64(value))
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw DefaultsError(.sqlite, "upsert failed: \(code)") }
            stamp(value)
            pause(interval)
        }
    default:
        FileHandle.standardError.write(Data("BenchWriter: unknown command \(command)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("BenchWriter: \(error)\n".utf8))
    exit(1)
}
