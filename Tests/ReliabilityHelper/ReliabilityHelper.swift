import DefaultsTestSupport
import Foundation
import SQLiteDefaults

/// The processes that the reliability suite starts, kills and starves. Each command opens a
/// store on a file, does one job, and reports on stdout in lines the tests parse.
///
///     ReliabilityHelper soak-writer DB ID SECONDS SEED   random set/modify/remove/transaction work on shared
///                                                        keys; ends with one "summary …" line
///     ReliabilityHelper soak-observer DB MODE            MODE callback (observe(_:)) or stream (changes());
///                                                        prints "ready"; on stdin "dump" prints the last value
///                                                        seen per key, then "end"; "quit" exits
///     ReliabilityHelper crash-writer DB SEED             sets, modifies and multi-key transactions forever;
///                                                        prints "seq N", "counter N", "txbegin N", "tx N"
///     ReliabilityHelper disk-full DB LIMIT               writes under RLIMIT_FSIZE = LIMIT bytes (SIGXFSZ
///                                                        ignored); prints "name value" result lines
///     ReliabilityHelper disk-full-open DB                creates a database under RLIMIT_FSIZE = 0; prints "open …"
///     ReliabilityHelper probe DB PREFIX N                opens, reads PREFIX0…PREFIX(N-1), keys(), writes one
///                                                        key; prints "open …", "reads …", "write …"
///     ReliabilityHelper write-and-die DB N               writes N keys, then _exit(0): the -wal stays behind
///     ReliabilityHelper standard NAME                    umask 0, opens standard(name:), writes a key,
///                                                        prints the path, stays open until a line on stdin
///     ReliabilityHelper open-relative PATH               opens a relative path, writes a key, prints "ok"
@main
struct ReliabilityHelper {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            try run(arguments)
        } catch {
            FileHandle.standardError.write(Data("ReliabilityHelper: \(error)\n".utf8))
            exit(2)
        }
    }

    static func run(_ arguments: [String]) throws {
        guard let command = arguments.first else { throw usage() }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "soak-writer":
            guard rest.count == 4, let id = Int(rest[1]), let seconds = Double(rest[2]), let seed = UInt64(rest[3]) else { throw usage() }
            var writer = try SoakWriter(path: rest[0], id: id, seconds: seconds, seed: seed)
            try writer.run()
        case "soak-observer":
            guard rest.count == 2 else { throw usage() }
            try soakObserver(path: rest[0], mode: rest[1])
        case "crash-writer":
            guard rest.count == 2, let seed = UInt64(rest[1]) else { throw usage() }
            try crashWriter(path: rest[0], seed: seed)
        case "disk-full":
            guard rest.count == 2, let limit = UInt64(rest[1]) else { throw usage() }
            try diskFull(path: rest[0], limit: limit)
        case "disk-full-open":
            // A new database under a file size limit of 0 bytes: not even its header fits.
            guard rest.count == 1 else { throw usage() }
            signal(SIGXFSZ, SIG_IGN)
            var limits = rlimit()
            getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits)
            limits.rlim_cur = 0
            setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits)
            do {
                let store = try DefaultsStore(path: rest[0])
                try store.set(1, for: DefaultsKey<Int>("k", default: 0))
                say("open ok")
            } catch let error as DefaultsError {
                say("open \(error.code.rawValue) \(error.message)")
            }
        case "probe":
            guard rest.count == 3, let count = Int(rest[2]) else { throw usage() }
            probe(path: rest[0], prefix: rest[1], count: count)
        case "write-and-die":
            guard rest.count == 2, let count = Int(rest[1]) else { throw usage() }
            let store = try DefaultsStore(path: rest[0])
            for index in 0..<count {
                try store.set("stray-\(index)-" + String(repeating: "w", count: 200), for: DefaultsKey<String>("key.\(index)", default: ""))
            }
            say("written")
            fflush(nil)
            _exit(0)
        case "standard":
            guard rest.count == 1 else { throw usage() }
            umask(0)
            let store = try DefaultsStore.standard(name: rest[0])
            try store.set("secret", for: DefaultsKey<String>("token", default: ""))
            say(store.path ?? "")
            _ = readLine()  // stay open (with -wal and -shm) until told
        case "open-relative":
            guard rest.count == 1 else { throw usage() }
            let store = try DefaultsStore(path: rest[0])
            try store.set("on disk", for: DefaultsKey<String>("where", default: ""))
            say("ok")
        default:
            throw usage()
        }
    }

    static func usage() -> DefaultsError {
        DefaultsError(.sqlite, "usage: ReliabilityHelper soak-writer|soak-observer|crash-writer|disk-full|probe|write-and-die|standard|open-relative ARGS")
    }
}

/// Prints a line and flushes it at once: a line on stdout is an acknowledgement the test
/// may read the moment before this process is killed.
func say(_ line: String) {
    print(line)
    fflush(nil)
}
