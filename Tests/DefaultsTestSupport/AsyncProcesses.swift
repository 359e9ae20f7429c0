import ChildProcesses
import Foundation
import SQLiteDefaults

// The process helpers as `async` overloads of the same names, which the compiler picks in an
// `async` function (`try await sqlite3(…)`): each waits for its child with
// `ChildProcess.wait(timeout:)`, which suspends, where the synchronous forms block their thread
// until the child ends. Every test runs on the cooperative pool (one thread per core: two in
// CI); a test that held one of them for the life of a child starved every async test of the
// process meanwhile. The synchronous forms stay for the helper executables and for bodies
// that run on a thread of their own (`onOwnThread { }`).

/// ``runProcess(_:_:input:)``, suspending until the child ends.
@discardableResult
public func runProcess(_ executable: String, _ arguments: [String], input: String? = nil) async throws -> ProcessResult {
    ignoreSIGPIPE
    let child = try ChildProcess(executable, arguments, input: input.map { Array($0.utf8) })
    guard let outcome = await child.wait(timeout: .seconds(600)) else {
        throw DefaultsError(.ioError, "\(child.commandLine) did not finish within ten minutes; it was killed")
    }
    return ProcessResult(status: outcome.status,
                         output: outcome.standardOutput, error: outcome.standardError)
}

/// ``runHelper(_:)``, suspending until the helper ends.
@discardableResult
public func runHelper(_ arguments: String...) async throws -> ProcessResult {
    try await runProcess(builtExecutable("DefaultsTestHelper"), arguments)
}

/// ``sqlite3(_:_:)``, suspending until the shell ends.
@discardableResult
public func sqlite3(_ database: String, _ sql: String) async throws -> String {
    try sqlite3Output(await runProcess(try sqlite3Path(), sqlite3Arguments(database), input: sql))
}

/// ``queryPlan(_:_:)``, suspending until the shell ends.
public func queryPlan(_ database: String, _ sql: String) async throws -> String {
    planInTodaysWords(try await sqlite3(database, "EXPLAIN QUERY PLAN " + sql))
}
