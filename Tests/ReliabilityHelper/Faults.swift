import DefaultsTestSupport
import Foundation
import SQLiteDefaults

// MARK: - Crash loop

/// Runs until killed. Every line is printed after the call it reports has returned, so a
/// line on stdout is an acknowledged write; "txbegin N" is printed from inside transaction N.
func crashWriter(path: String, seed: UInt64) throws {
    var random = SeededRandom(seed: seed)
    let store = try DefaultsStore(path: path)
    let sequenceKey = DefaultsKey<Int>("crash.seq", default: 0)
    let counter = DefaultsKey<Int>("crash.counter", default: 0)
    let txKeys = (0..<20).map { DefaultsKey<Int>("crash.tx.\($0)", default: 0) }
    let payload = DefaultsKey<Data>("crash.tx.payload", default: Data())
    let removable = DefaultsKey<Int?>("crash.removable")
    var sequence = try store.value(for: sequenceKey)
    var transaction = try store.value(for: txKeys[0])
    say("open")
    while true {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            sequence += 1
            try store.set(sequence, for: sequenceKey)
            say("seq \(sequence)")
        case 1:
            let value = try store.modify(counter) { value -> Int in value += 1; return value }
            say("counter \(value)")
        case 2:
            let number = transaction + 1
            let size = Int.random(in: 1...64, using: &random) * 4096  // up to 64 pages: many WAL frames
            try store.transaction { tx in
                for (index, key) in txKeys.enumerated() {
                    try tx.set(number, for: key)
                    if index == 10 {
                        say("txbegin \(number)")
                        try tx.set(Data(repeating: UInt8(truncatingIfNeeded: number), count: size), for: payload)
                        usleep(UInt32.random(in: 0...2_000, using: &random))
                    }
                }
                if number % 3 == 0 { try tx.remove(removable) } else { try tx.set(number, for: removable) }
            }
            transaction = number
            say("tx \(number)")
        default:
            usleep(UInt32.random(in: 0...500, using: &random))
        }
    }
}

// MARK: - Disk full

/// Lowers RLIMIT_FSIZE so the `-wal` cannot grow past `limit` bytes, writes until SQLite
/// refuses, and reports what the store said and what stayed readable.
func diskFull(path: String, limit: UInt64) throws {
    signal(SIGXFSZ, SIG_IGN)
    let store = try DefaultsStore(path: path)
    let failures = store.reportedErrors()
    let collected = Locked<[DefaultsError]>([])
    let listener = Task.detached {
        for await failure in failures { collected.withLock { $0.append(failure) } }
    }
    var limits = rlimit()
    getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits)
    let original = limits
    limits.rlim_cur = rlim_t(limit)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits) == 0 else {
        throw DefaultsError(.sqlite, "setrlimit failed: \(String(cString: strerror(errno)))")
    }

    func report(_ name: String, _ error: (any Error)?) {
        if let error = error as? DefaultsError {
            say("\(name) \(error.code.rawValue) \(error.sqliteCode.map(String.init) ?? "-") \(error.message.replacingOccurrences(of: "\n", with: " "))")
        } else if let error {
            say("\(name) foreign \(error)")
        } else {
            say("\(name) ok")
        }
    }

    // 1. Throwing sets of 8 KiB blobs until one fails.
    var written: [Int] = []
    var firstFailure: (any Error)?
    for index in 0..<10_000 {
        do {
            try store.set(Data(repeating: UInt8(index % 251), count: 8192), for: DefaultsKey<Data>("blob.\(index)", default: Data()))
            written.append(index)
        } catch {
            firstFailure = error
            break
        }
    }
    say("written \(written.count)")
    report("set", firstFailure)

    // 2. Everything acknowledged before is still readable, in this store and in a new one.
    func readable(_ reader: DefaultsStore) -> Bool {
        written.allSatisfy { index in
            (try? reader.value(for: DefaultsKey<Data>("blob.\(index)", default: Data()))) == Data(repeating: UInt8(index % 251), count: 8192)
        }
    }
    say("readable \(readable(store))")
    // Kept open to the end: closing a store checkpoints, which would move the -wal into the
    // main file and make room again in the middle of the run.
    var second: DefaultsStore?
    do {
        second = try DefaultsStore(path: path)
        say("reopened-readable \(readable(second!))")
    } catch {
        report("reopen", error)
    }

    // 3. A transaction that does not fit: all or nothing.
    do {
        try store.transaction { tx in
            for index in 0..<8 {
                try tx.set(Data(repeating: 7, count: 16_384), for: DefaultsKey<Data>("tx.\(index)", default: Data()))
            }
        }
        report("transaction", nil)
    } catch {
        report("transaction", error)
    }
    let present = (0..<8).filter { store.contains(DefaultsKey<Data>("tx.\($0)", default: Data())) }.count
    say("transaction-rows \(present)")

    // 3b. A transaction larger than the page cache: SQLite spills it into the -wal before
    //     COMMIT, so the failure comes from a statement inside the transaction.
    do {
        try store.transaction { tx in
            for index in 0..<48 {
                try tx.set(Data(repeating: 8, count: 65_536), for: DefaultsKey<Data>("spill.\(index)", default: Data()))
            }
        }
        report("spill", nil)
    } catch {
        report("spill", error)
    }
    let spilled = (0..<48).filter { store.contains(DefaultsKey<Data>("spill.\($0)", default: Data())) }.count
    say("spill-rows \(spilled)")

    // 4. modify that grows a value.
    do {
        try store.modify(DefaultsKey<Data>("blob.0", default: Data())) { $0 = Data(repeating: 9, count: 65_536) }
        report("modify", nil)
    } catch {
        report("modify", error)
    }
    say("modify-kept \((try? store.value(for: DefaultsKey<Data>("blob.0", default: Data()))) == Data(repeating: 0, count: 8192))")

    // 5. The non-throwing setter reports instead of crashing or dropping it.
    store[DefaultsKey<Data>("subscript", default: Data())] = Data(repeating: 1, count: 65_536)
    report("subscript-last", store.lastReportedError)
    waitBlocking(timeout: .seconds(5)) { !collected.withLock { $0.isEmpty } }
    report("subscript-stream", collected.withLock { $0.first })
    say("subscript-absent \(!store.contains(DefaultsKey<Data>("subscript", default: Data())))")

    // 6. Space again: the same store writes again.
    var restored = original
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &restored)
    do {
        try store.set(42, for: DefaultsKey<Int>("after", default: 0))
        report("after-space", nil)
    } catch {
        report("after-space", error)
    }
    listener.cancel()
    withExtendedLifetime(second) {}
}

// MARK: - Corruption probe

/// Opens a possibly damaged database and touches everything; prints what happened. A crash
/// shows up in the test as a signal.
func probe(path: String, prefix: String, count: Int) {
    let store: DefaultsStore
    do {
        store = try DefaultsStore(path: path)
        say("open ok")
    } catch let error as DefaultsError {
        say("open \(error.code.rawValue) \(error.message.replacingOccurrences(of: "\n", with: " "))")
        return
    } catch {
        say("open foreign \(error)")
        return
    }
    var codes: [String: Int] = [:]
    var values: [String] = []
    for index in 0..<count {
        do {
            let value = try store.value(for: DefaultsKey<SQLiteValue?>("\(prefix)\(index)"))
            codes["ok", default: 0] += 1
            values.append(canonical(value))
        } catch let error as DefaultsError {
            codes[error.code.rawValue, default: 0] += 1
        } catch {
            codes["foreign", default: 0] += 1
        }
    }
    say("reads " + codes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    do {
        say("keys \(try store.keys().count)")
    } catch let error as DefaultsError {
        say("keys failed \(error.code.rawValue)")
    } catch {
        say("keys failed foreign")
    }
    do {
        try store.set("probe", for: DefaultsKey<String>("probe.write", default: ""))
        say("write ok")
    } catch let error as DefaultsError {
        say("write \(error.code.rawValue)")
    } catch {
        say("write foreign")
    }
    say("first \(values.first ?? "-")")
}
