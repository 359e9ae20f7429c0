import BenchmarkSupport
import Foundation

/// The command line: `--smoke` and `--only GROUP,…`.
struct Options {
    var smoke = false
    var only: Set<String>?

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--smoke": smoke = true
            case "--only": only = Set((iterator.next() ?? "").split(separator: ",").map(String.init))
            case "-h", "--help":
                print("usage: FLEET_POSTGRES_URL=postgres://USER@HOST:PORT/DB FleetRatios [--smoke] [--only latency,burst,cost]")
                exit(0)
            default:
                progress("FleetRatios: unknown argument \(argument)")
                exit(2)
            }
        }
    }

    func wants(_ group: String) -> Bool { only?.contains(group) ?? true }
}

/// One line of the printed table.
struct Row {
    var path: String
    var result: String
    var target: String = ""
    var verdict: String = ""
    var detail: String = ""
}
