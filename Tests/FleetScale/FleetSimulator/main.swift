#if Fleet
import Foundation
import Logging
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres
import Synchronization

// Simulated machines for Scripts/fleet-scale.py: real `DefaultsPostgresSync` instances, each
// with its own SQLite file, its own PostgreSQL client and (relayed) its own relay connection,
// sharing one process. What a machine does is what `prefs sync` does; only the process, its
// threads and the host are shared, which makes latencies pessimistic, not optimistic.
//
//     FleetSimulator --machines N --first I --directory DIR --postgres URL [--relay URL]… [--table T]
//
// Commands on standard input, one per line:
//     write M KEY VALUE      machine M (this process's index) writes KEY = VALUE (text)
//     storm PREFIX           every machine here writes PREFIX.<its number> at once
//     count PREFIX N         how many machines here hold N keys under PREFIX.
//     status                 how many machines here are in step
//     quit
// Events on standard output, with CLOCK_REALTIME in nanoseconds (one clock for every process):
//     arrived KEY M NS       a change of a key under `probe.` reached machine M (its observers)
//     wrote KEY NS / stormed PREFIX NS / count PREFIX K / status K
//     log M NS LINE          a line a machine's sync logged (connected, unreachable…)

/// Lines to standard output, whole, from any thread.
final class Output: Sendable {
    private let lock = Mutex(())
    func say(_ line: String) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }
}

func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// Each of a machine's log lines, as an event.
struct MachineLog: LogHandler {
    let machine: Int
    let output: Output
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        output.say("log \(machine) \(now()) \(event.message.description.replacingOccurrences(of: "\n", with: " "))")
    }
}

struct Options {
    var machines = 10
    var first = 0
    var directory = ""
    var postgres = ""
    var relays: [String] = []
    var table = "defaults_fleet"

    init(_ arguments: [String]) throws {
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw SimulatorError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--machines": machines = Int(try value()) ?? 0
            case "--first": first = Int(try value()) ?? 0
            case "--directory": directory = try value()
            case "--postgres": postgres = try value()
            case "--relay": relays.append(try value())
            case "--table": table = try value()
            default: throw SimulatorError("unknown argument \(arguments[index])")
            }
            index += 1
        }
        guard machines > 0, !directory.isEmpty, !postgres.isEmpty else {
            throw SimulatorError("usage: FleetSimulator --machines N --first I --directory DIR --postgres URL [--relay URL]…")
        }
    }
}

struct SimulatorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct Machine: Sendable {
    let number: Int
    let store: DefaultsStore
    let client: PostgresClient
    let sync: DefaultsPostgresSync
}

let output = Output()
let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("FleetSimulator: \(error)\n".utf8))
    exit(2)
}

let pooler = try PostgresURL(options.postgres)
let relays = try options.relays.map { try PostgresURL($0) }
var machines: [Machine] = []
var observations: [DefaultsObservation] = []
for offset in 0..<options.machines {
    let number = options.first + offset
    let store = try DefaultsStore(path: "\(options.directory)/m\(number).sqlite")
    var configuration = pooler.configuration
    configuration.options.minimumConnections = 0
    configuration.options.maximumConnections = 1
    let client = PostgresClient(configuration: configuration,
                                backgroundLogger: Logger(label: "pool") { _ in SwiftLogNoOpLogHandler() })
    let logger = Logger(label: "m\(number)") { _ in MachineLog(machine: number, output: output) }
    let sync = relays.isEmpty
        ? DefaultsPostgresSync(store: store, client: client, table: options.table, logger: logger, serverURL: pooler)
        : DefaultsPostgresSync(store: store, client: client, relays: relays, table: options.table, logger: logger, serverURL: pooler)
    observations.append(store.observe(prefix: "probe.") { change in
        output.say("arrived \(change.key) \(number) \(now())")
    })
    machines.append(Machine(number: number, store: store, client: client, sync: sync))
}

// Detached: the main actor waits in readLine() for commands.
let started = machines
let running = Task.detached {
    await withTaskGroup(of: Void.self) { group in
        for machine in started {
            group.addTask { await machine.client.run() }
            group.addTask {
                do {
                    try await machine.sync.run()
                } catch {
                    output.say("log \(machine.number) \(now()) ended: \(error)")
                }
            }
        }
    }
}

func text(_ key: String) -> DefaultsKey<String> { DefaultsKey<String>(key, default: "") }

while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    guard let command = words.first else { continue }
    do {
        switch command {
        case "write" where words.count >= 4:
            guard let index = Int(words[1]), machines.indices.contains(index) else { throw SimulatorError("no machine \(words[1])") }
            try machines[index].store.set(words[3...].joined(separator: " "), for: text(words[2]))
            output.say("wrote \(words[2]) \(now())")
        case "storm" where words.count == 2:
            let prefix = words[1]
            await withTaskGroup(of: Void.self) { group in
                for machine in machines {
                    group.addTask { try? machine.store.set("\(machine.number)", for: text("\(prefix).\(machine.number)")) }
                }
            }
            output.say("stormed \(prefix) \(now())")
        case "count" where words.count == 3:
            let expected = Int(words[2]) ?? 0
            var complete = 0
            for machine in machines where (try? machine.store.keys().filter { $0.hasPrefix(words[1] + ".") }.count) == expected {
                complete += 1
            }
            output.say("count \(words[1]) \(complete)")
        case "status":
            output.say("status \(machines.filter { $0.sync.isConnected }.count)")
        case "quit":
            running.cancel()
            _ = await running.value
            for observation in observations { observation.cancel() }
            exit(0)
        default:
            throw SimulatorError("unknown command: \(line)")
        }
    } catch {
        output.say("error \(error)")
    }
}
running.cancel()
_ = await running.value
#else
print("FleetSimulator needs the Fleet trait")
#endif
