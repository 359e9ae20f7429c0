import DefaultsTestSupport
import Foundation
import SQLiteDefaults

/// A value of a Codable kind, stored as JSON.
struct WindowFrame: Codable, Sendable, Equatable {
    var x: Int
    var y: Int
    var title: String
}

/// The store a scripted workload runs against: one path, reopened by the workload's
/// checkpoint step.
final class WorkloadSession {
    let path: String
    let configuration: DefaultsStore.Configuration
    var store: DefaultsStore?

    init(path: String, configuration: DefaultsStore.Configuration) {
        self.path = path
        self.configuration = configuration
    }

    /// The open store (a step that needs one after a failed open opens it first).
    func open() throws -> DefaultsStore {
        if let store { return store }
        let store = try DefaultsStore(path: path, configuration: configuration)
        self.store = store
        return store
    }
}

/// One committing call of a scripted workload.
struct WorkloadStep {
    let name: String
    let run: (WorkloadSession) throws -> Void

    init(_ name: String, _ run: @escaping (WorkloadSession) throws -> Void) {
        self.name = name
        self.run = run
    }

    /// A step on the open store.
    static func on(_ name: String, _ run: @escaping (DefaultsStore) throws -> Void) -> WorkloadStep {
        WorkloadStep(name) { try run(try $0.open()) }
    }
}

/// What a store holds, as the checks compare it: its rows and its declarations.
struct StoreContents: Equatable {
    let rows: [String: SQLiteValue]
    let declarations: [DefaultsDeclaration]

    init(_ store: DefaultsStore) throws {
        var rows: [String: SQLiteValue] = [:]
        for entry in try store.entries() { rows[entry.key] = entry.value }
        self.rows = rows
        declarations = try store.declarations()
    }

    static let empty = StoreContents(rows: [:], declarations: [])

    init(rows: [String: SQLiteValue], declarations: [DefaultsDeclaration]) {
        self.rows = rows
        self.declarations = declarations
    }
}

enum FaultWorkload {
    static let flag = DefaultsKey<Bool>("flag", default: false)
    static let count = DefaultsKey<Int>("count", default: 0)
    static let ratio = DefaultsKey<Double>("ratio", default: 0)
    static let name = DefaultsKey<String>("name", default: "")
    static let blob = DefaultsKey<Data>("blob", default: Data())
    static let when = DefaultsKey<Date>("when", default: Date(timeIntervalSince1970: 0))
    static let home = DefaultsKey<URL?>("home")
    static let tags = DefaultsKey<[String]>("tags", default: [])
    static let frame = DefaultsKey<WindowFrame?>("frame")
    static let nickname = DefaultsKey<String?>("nickname")
    static let countAsDouble = DefaultsKey<Double>("count_double", default: 0, summary: "count, evolved to a Double")
    static let counter = DefaultsKey<Int>("counter", default: 0)

    /// Writes of every value kind, removals, transactions, a declaration, an `evolve`, a
    /// history length that makes the log prune, and checkpoints (closing the store checkpoints
    /// its log and removes the `-wal`; the next open makes a new one).
    static func steps(checkpoints: Bool = true) -> [WorkloadStep] {
        var steps: [WorkloadStep] = [
            WorkloadStep("open") { _ = try $0.open() },
            .on("set Bool") { try $0.set(true, for: flag) },
            .on("set Int") { try $0.set(42, for: count) },
            .on("set Double") { try $0.set(0.25, for: ratio) },
            .on("set String") { try $0.set("Ada", for: name) },
            .on("set Data") { try $0.set(Data((0..<3_000).map { UInt8($0 % 251) }), for: blob) },
            .on("set Date") { try $0.set(Date(timeIntervalSince1970: 1_700_000_000.5), for: when) },
            .on("set URL") { try $0.set(URL(string: "https://example.com/a"), for: home) },
            .on("set [String]") { try $0.set(["a", "b", "c"], for: tags) },
            .on("set Codable") { try $0.set(WindowFrame(x: 1, y: 2, title: "main"), for: frame) },
            .on("subscript set") { $0[nickname] = "ada" },
            .on("transaction of 10") { store in
                try store.transaction { tx in
                    for index in 0..<10 { tx[DefaultsKey<Int>("tx.\(index)", default: 0)] = index }
                }
            },
            .on("remove") { try $0.remove(ratio) },
            .on("declare") { try $0.declare(count, name) },
            .on("evolve") { try $0.evolve(count, to: countAsDouble) { Double($0) } },
            .on("modify") { try $0.modify(counter) { $0 += 1 } },
            .on("history length 100") { try $0.setHistoryRetention(100) },
            .on("transaction of 120") { store in
                try store.transaction { tx in
                    for index in 0..<120 { tx[DefaultsKey<String>("bulk.\(index)", default: "")] = "value \(index)" }
                }
            },
        ]
        if checkpoints { steps.append(checkpoint) }
        steps += (0..<8).map { round in .on("set counter \(round)") { try $0.set(round + 2, for: counter) } }
        steps += [
            .on("transaction rewriting 120") { store in
                try store.transaction { tx in
                    for index in 0..<120 { tx[DefaultsKey<String>("bulk.\(index)", default: "")] = "second \(index)" }
                }
            },
            .on("remove nickname") { try $0.set(nil, for: nickname) },
            .on("set Data again") { try $0.set(Data(repeating: 7, count: 5_000), for: blob) },
        ]
        if checkpoints { steps.append(checkpoint) }
        steps += [
            .on("set after checkpoint") { try $0.set("Grace", for: name) },
            .on("remove all tx") { store in
                try store.transaction { tx in
                    for index in 0..<10 { try tx.remove(DefaultsKey<Int>("tx.\(index)", default: 0)) }
                }
            },
            .on("set last") { try $0.set(false, for: flag) },
        ]
        return steps
    }

    /// Closes the store (which checkpoints) and opens it again.
    static var checkpoint: WorkloadStep { WorkloadStep("checkpoint (close and reopen)") { session in
        try session.store?.close()
        session.store = nil
        _ = try session.open()
    } }
}
