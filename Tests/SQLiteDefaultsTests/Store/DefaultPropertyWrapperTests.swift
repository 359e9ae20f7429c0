import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

struct Greeter {
    @Default<String> var name: String
    init(store: DefaultsStore) { _name = Default(.name, store: store) }
    func rename(_ new: String) { name = new }
}

@Suite("@Default property wrapper and optional keys with a default", .offThePool)
struct DefaultPropertyWrapperTests {
    @Test func readsWritesAndObservesOneKey() async throws {
        let store = try DefaultsStore.inMemory()
        let greeter = Greeter(store: store)
        #expect(greeter.name == "Guest")
        var updates = greeter.$name.updates().makeAsyncIterator()
        #expect(await updates.next() == "Guest")
        greeter.rename("Ada")
        #expect(store[.name] == "Ada")
        #expect(await updates.next() == "Ada")
        let seen = Collected<String>()
        let token = greeter.$name.observe { seen.append($0.newValue) }
        store[.name] = "Bob"
        #expect(seen.all == ["Bob"])
        #expect(greeter.name == "Bob")
        _ = token
    }

    @Test func nilRemovesTheRowWhateverInitializerWasChosen() throws {
        let store = try DefaultsStore.inMemory()
        let text = DefaultsKey<String?>("text", default: "fallback")
        let profile = DefaultsKey<Profile?>("p", default: Profile(name: "D", age: 1, joined: Date(timeIntervalSince1970: 0)))
        store[text] = "set"
        store[profile] = Profile(name: "E", age: 2, joined: Date(timeIntervalSince1970: 1))
        store[text] = nil
        store[profile] = nil
        #expect(!store.contains(text))
        #expect(!store.contains(profile))
        #expect(store[text] == "fallback")
        #expect(store[profile]?.name == "D")
    }
}
