import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Errors are caught by code, as GRDB's result codes are, and each code means one thing.
@Suite("Error codes", .offThePool)
struct ErrorCodeTests {
    @Test("catch DefaultsError.Code.x catches that code and no other")
    func catchByCode() throws {
        let store = try DefaultsStore.inMemory()
        try store.set("not a number", for: DefaultsKey<String>("count", default: ""))
        var caught: DefaultsError.Code?
        do {
            _ = try store.value(for: DefaultsKey<Int>("count", default: 0))
        } catch DefaultsError.Code.decodingFailed {
            caught = .decodingFailed
        } catch DefaultsError.Code.typeMismatch {
            caught = .typeMismatch
        }
        #expect(caught == .typeMismatch)
        #expect(!(DefaultsError.Code.typeMismatch ~= CancellationError()))
    }

    @Test("a transaction used after it ended throws .misuse")
    func transactionAfterItEnded() throws {
        let store = try DefaultsStore.inMemory()
        var escaped: DefaultsTransaction?
        try store.transaction { tx in escaped = tx }
        let key = DefaultsKey<Int>("count", default: 0)
        #expect(throws: DefaultsError.self) { try escaped?.set(1, for: key) }
        do {
            try escaped?.set(1, for: key)
        } catch DefaultsError.Code.misuse {
            // expected
        }
    }

    @Test("Code is CaseIterable: allCases lists every code once, each with its own name")
    func codesAreCaseIterable() {
        func cases<C: CaseIterable>(of _: C.Type) -> [C] { Array(C.allCases) }
        let codes = cases(of: DefaultsError.Code.self)
        #expect(codes.contains(.databaseReplaced))
        #expect(Set(codes).count == codes.count)
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
    }
}
