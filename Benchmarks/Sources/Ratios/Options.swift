import BenchmarkSupport
import FlagWorkloads
import Foundation

/// The command line: `Ratios [--smoke] [--only GROUP,…]` or `Ratios --profile WORKLOAD COUNT`.
struct Options {
    var smoke = false
    var only: Set<String>?
    var profile: (name: String, count: Int)?

    @MainActor
    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--smoke": smoke = true
            case "--only": only = Set((iterator.next() ?? "").split(separator: ",").map(String.init))
            case "--profile":
                profile = (iterator.next() ?? "", Int(iterator.next() ?? "") ?? 100_000)
            case "-h", "--help":
                print("usage: Ratios [--smoke] [--only get,miss,set,notify,observers,scale,external,idle,stores,memory]")
                print("       Ratios --profile WORKLOAD COUNT   run one workload COUNT times, nothing else (for valgrind/perf)")
                print("       workloads: \(profiles.keys.sorted().joined(separator: " "))")
                exit(0)
            default:
                FileHandle.standardError.write(Data("Ratios: unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
    }

    func wants(_ group: String) -> Bool { only?.contains(group) ?? true }
}

/// Single workloads for `--profile` (valgrind --tool=callgrind, perf): run with COUNT and with
/// 1 and subtract to get the cost of one operation.
@MainActor
let profiles: [String: () throws -> Workload] = [
    "get-int": { try Workloads.getInt(.defaults) },
    "get-int-dictionary": { try Workloads.getInt(.dictionary) },
    "get-string": { try Workloads.getString(.defaults) },
    "get-string-dictionary": { try Workloads.getString(.dictionary) },
    "get-codable": { try Workloads.getCodable(.defaults) },
    "get-codable-dictionary": { try Workloads.getCodable(.dictionary) },
    "get-random-large": { Workloads.scaleGetRandom(try Workloads.LargeTable(rows: RunMode.largeTable)) },
    "get-random-large-dictionary": { Workloads.scaleDictionaryGetRandom(rows: RunMode.largeTable) },
    "get-random-large-dictionary-keys": { Workloads.scaleDictionaryGetRandomThroughKeys(rows: RunMode.largeTable) },
    "set-int": { try Workloads.setInt(.defaults) },
    "set-int-nomonitor": { try Workloads.setIntWithoutMonitor() },
    "set-int-async": { try Workloads.setIntAsync() },
    "flag-static": { try FlagWorkloads.resolve("static-flag", "static") },
    "flag-targeting": { try FlagWorkloads.resolve("targeted-flag", "targeting") },
    "flag-fractional": { try FlagWorkloads.resolve("fractional-flag", "fractional") },
    "set-int-raw": { try Workloads.setInt(.raw) },
    "set-int-bare": { try Workloads.setIntBare() },
    "set-string": { try Workloads.setString(.defaults) },
    "set-string-raw": { try Workloads.setString(.raw) },
    "tx100": { try Workloads.transaction100(.defaults) },
    "tx100-raw": { try Workloads.transaction100(.raw) },
    "modify": { try Workloads.modify(.defaults) },
    "modify-raw": { try Workloads.modify(.raw) },
    "notify": { try Workloads.localNotify(.defaults) },
    "notify-raw": { try Workloads.localNotify(.raw) },
]
