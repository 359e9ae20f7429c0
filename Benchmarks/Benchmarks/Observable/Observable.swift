import Benchmark
import BenchmarkSuite
import BenchmarkSupport
import SQLiteDefaults
import SQLiteDefaultsObservable

/// A settings class as a user writes it.
@ObservableDefaults(prefix: "bench.")
final class BenchSettings {
    var count = 0
    var name = "Guest"
}

// `@ObservableDefaults` property read and write, next to the same `get`/`set` through the
// store (the macro's cost is the difference), on one file store.
let benchmarks: @Sendable () -> Void = {
    Suite.configure()

    Suite.add("@ObservableDefaults property read (Int)", scaling: .kilo) {
        let fixture = try StoreFixture("observable")
        let settings = BenchSettings(store: fixture.store)
        settings.count = 42
        return Workload("read", keep: [settings, fixture]) { count in
            var total = 0
            for _ in 0..<count { total &+= settings.count }
            consume(total)
        }
    }
    Suite.add("store get of the same key (Int)", scaling: .kilo) {
        let fixture = try StoreFixture("observable")
        let store = fixture.store, key = DefaultsKey<Int>("bench.count", default: 0)
        try store.set(42, for: key)
        return Workload("get", keep: [fixture]) { count in
            var total = 0
            for _ in 0..<count { total &+= store[key] }
            consume(total)
        }
    }
    Suite.add("@ObservableDefaults property read (String)", scaling: .kilo) {
        let fixture = try StoreFixture("observable")
        let settings = BenchSettings(store: fixture.store)
        settings.name = "Ada"
        return Workload("read", keep: [settings, fixture]) { count in
            var total = 0
            for _ in 0..<count { total &+= settings.name.utf8.count }
            consume(total)
        }
    }
    Suite.add("@ObservableDefaults property write (Int)") {
        let fixture = try StoreFixture("observable")
        let settings = BenchSettings(store: fixture.store)
        var counter = 0
        return Workload("write", keep: [settings, fixture]) { count in
            for _ in 0..<count {
                counter += 1
                settings.count = counter
            }
        }
    }
    Suite.add("store set of the same key (Int)") {
        let fixture = try StoreFixture("observable")
        let store = fixture.store, key = DefaultsKey<Int>("bench.count", default: 0)
        var counter = 0
        return Workload("set", keep: [fixture]) { count in
            for _ in 0..<count {
                counter += 1
                try store.set(counter, for: key)
            }
        }
    }
}
