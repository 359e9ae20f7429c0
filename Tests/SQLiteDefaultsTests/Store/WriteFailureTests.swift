import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

struct Unencodable: Codable, Sendable, Equatable {
    var value: Double
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "refuses to encode"))
    }
}

@Suite("Non-throwing writes never fail silently", .offThePool)
struct WriteFailureTests {
    @Test func failedSubscriptWritesAreReportedOnTheStreamAndLastFailure() async throws {
        let store = try DefaultsStore.inMemory()
        let failures = store.reportedErrors()
        let key = DefaultsKey<Unencodable>("thing", default: Unencodable(value: 1))
        store[key] = Unencodable(value: 2)
        #expect(store.lastReportedError?.code == .encodingFailed)
        #expect(store.lastReportedError?.key == "thing")
        var iterator = failures.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.code == .encodingFailed)
        #expect(store[key] == Unencodable(value: 1))
        let thrown = #expect(throws: DefaultsError.self) { try store.set(Unencodable(value: 3), for: key) }
        #expect(thrown?.code == .encodingFailed)
    }
}
