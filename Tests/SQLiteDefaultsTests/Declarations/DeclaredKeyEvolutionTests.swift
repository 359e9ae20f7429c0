import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("Declared keys: evolving a declaration across versions of an app", .offThePool)
struct DeclaredKeyEvolutionTests {
    static let oldTimeout = DefaultsKey<Int>("timeout", default: 30)
    static let newTimeout = DefaultsKey<Double>("timeout_seconds", default: 30, summary: "Request timeout, in seconds")
    static let sameNameDouble = DefaultsKey<Double>("timeout", default: 30)

    @Test("type and name change in one transaction; each key's observers are told once")
    func renameAndConvert() async throws {
        let store = try DefaultsStore.inMemory()
        try await store.declare(Self.oldTimeout)
        store[Self.oldTimeout] = 45
        let heard = Collected<String>()
        let token = store.observe { heard.append($0.key) }
        defer { token.cancel() }
        try await store.evolve(Self.oldTimeout, to: Self.newTimeout) { Double($0) + 0.5 }
        #expect(store[Self.newTimeout] == 45.5)
        #expect(!store.contains(Self.oldTimeout))
        #expect(try store.declaration(for: "timeout") == nil)
        #expect(try store.declaration(for: "timeout_seconds")?.type == .double)
        #expect(await heard.waitAsync(count: 2))
        #expect(heard.all.sorted() == ["timeout", "timeout_seconds"])
        // Run again at the next start-up: nothing left under the old name, nothing changes.
        try await store.evolve(Self.oldTimeout, to: Self.newTimeout) { Double($0) }
        #expect(store[Self.newTimeout] == 45.5)
        #expect(heard.all.count == 2)
    }

    @Test("a type change under the same name converts the stored value")
    func convertInPlace() throws {
        let store = try DefaultsStore.inMemory()
        try store.declare(Self.oldTimeout)
        store[Self.oldTimeout] = 10
        // Declaring the new type directly would leave an INTEGER, which `double` accepts; a
        // string declaration would not: evolve converts.
        let asText = DefaultsKey<String>("timeout", default: "30")
        expectCode(.declarationConflict) { try store.declare(asText) }
        try store.evolve(Self.oldTimeout, to: asText) { "\($0)s" }
        #expect(store[asText] == "10s")
        #expect(try store.declaration(for: "timeout")?.type == .string)
        try store.evolve(Self.oldTimeout, to: asText) { "\($0)s" }  // the next start-up: nothing to do
        #expect(store[asText] == "10s")
    }

    @Test("a rename keeps the value")
    func renameKeepsValue() throws {
        let store = try DefaultsStore.inMemory()
        let renamed = DefaultsKey<Int>("request_timeout", default: 30)
        try store.declare(Self.oldTimeout)
        store[Self.oldTimeout] = 12
        try store.evolve(Self.oldTimeout, to: renamed)
        #expect(store[renamed] == 12)
        #expect(try store.keys() == ["request_timeout"])
    }

    @Test("a conversion that throws, or a value that does not read as the old type, changes nothing")
    func failureChangesNothing() throws {
        let store = try DefaultsStore.inMemory()
        struct Refused: Error {}
        try store.declare(Self.oldTimeout)
        store[Self.oldTimeout] = 7
        #expect(throws: Refused.self) { try store.evolve(Self.oldTimeout, to: Self.newTimeout) { _ in throw Refused() } }
        #expect(store[Self.oldTimeout] == 7)
        #expect(try store.declaration(for: "timeout")?.type == .int)
        #expect(try store.declaration(for: "timeout_seconds") == nil)
        expectCode(.typeMismatch) {
            try store.evolve(DefaultsKey<String>("timeout", default: ""), to: Self.newTimeout) { Double($0) ?? 0 }
        }
        #expect(store[Self.oldTimeout] == 7)
        #expect(try store.declaration(for: "timeout")?.type == .int)
    }
}
