import BenchmarkSupport
import SQLiteDefaults
import SQLiteDefaultsFlags

/// Flags (SQLiteDefaultsFlags) resolved from cached rules: a static flag, a targeting rule of
/// four clauses and a `fractional` split, for the Flags benchmark target and for
/// `Ratios --profile flag-static|flag-targeting|flag-fractional COUNT` (callgrind).
public enum FlagWorkloads {
    public static let flagSet = #"""
        {"flags": {
          "static-flag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
          "targeted-flag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
            "targeting": {"if": [{"and": [
              {"ends_with": [{"var": "email"}, "@example.com"]},
              {"in": [{"var": "country"}, ["de", "fr", "nl"]]},
              {">=": [{"var": "age"}, 18]},
              {"sem_ver": [{"var": "version"}, ">=", "2.3.0"]}
            ]}, "on", "off"]}},
          "fractional-flag": {"state": "ENABLED", "variants": {"a": "a", "b": "b", "c": "c"}, "defaultVariant": "a",
            "targeting": {"fractional": [["a", 50], ["b", 30], ["c", 20]]}}
        }}
        """#

    public static func resolve(_ key: String, _ label: String) throws -> Workload {
        let fixture = try StoreFixture("flags-\(label)")
        let flags = DefaultsFlags(store: fixture.store)
        try flags.load(FlagSet(json: flagSet), actor: "bench")
        let context = FlagEvaluationContext(targetingKey: "user-4711", attributes: [
            "email": "ann@example.com", "country": "fr", "age": 31, "version": "2.4.1",
        ])
        _ = flags.boolean(key, default: false, context: context)  // compiled and cached before measuring
        return Workload("flag \(label) · SQLiteDefaults", keep: [fixture, flags]) { count in
            var hits = 0
            if key == "fractional-flag" {
                for _ in 0..<count where flags.string(key, default: "", context: context).value == "a" { hits &+= 1 }
            } else {
                for _ in 0..<count where flags.boolean(key, default: false, context: context).value { hits &+= 1 }
            }
            consume(hits)
        }
    }
}
