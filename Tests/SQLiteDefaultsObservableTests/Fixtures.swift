#if Observable
import Foundation
import SQLiteDefaultsObservable

enum Theme: String, Codable, Sendable {
    case light, dark
}

struct Profile: Codable, Equatable, Sendable {
    var name: String
    var age: Int
}

/// The DESIGN example, plus one property of each kind of value.
@ObservableDefaults(prefix: "app.")
final class Settings {
    var name = "Guest"
    @DefaultsBacked("launch_count") var launchCount = 0
    var theme: Theme = .light
    var profile: Profile?
    var recent: [URL] = []
    var volume = 0.5
    var tags: Set<String> = []
    var limits: [String: Int] = [:]
    var nickname: String? = nil
    var backup = Profile(name: "backup", age: 1)
    @ObservableOnly var isEditing = false
    @Ignore var scratch = 0
}

/// Observers on persisted and observable-only properties.
@ObservableDefaults(prefix: "obs.")
final class ObservedSettings {
    @Ignore var log: [String] = []

    var level = 1 {
        willSet { log.append("will \(level)->\(newValue)") }
        didSet(previous) {
            log.append("did \(previous)->\(level)")
            if level > 10 { self.level = 10 }  // `self.`: the assignment goes through the store
        }
    }

    @ObservableOnly var mode = "idle" {
        didSet { log.append("mode \(oldValue)->\(mode)") }
    }
}

/// Only `@DefaultsBacked` properties persist.
@ObservableDefaults(prefix: "session.", observeFirst: true)
final class Session {
    @DefaultsBacked var user = "nobody"
    @DefaultsBacked("login_count") var logins = 0
    var selection = 3
}

/// Ignores everybody else's writes.
@ObservableDefaults(prefix: "app.", ignoreExternalChanges: true)
final class IsolatedSettings {
    var name = "Guest"
}

/// A user-written initializer (autoInit: false) and a non-final class with a subclass.
@ObservableDefaults(prefix: "custom.", autoInit: false)
class CustomInit {
    @Ignore let id: Int
    var title = "untitled"

    init(id: Int, store: DefaultsStore, prefix: String = "custom.") {
        self.id = id
        setUpDefaults(store: store, prefix: prefix)
    }
}

final class CustomInitChild: CustomInit {
    var extra = 7
}

/// A non-final class using the generated initializer, and a subclass inheriting it.
@ObservableDefaults(prefix: "base.")
class BaseSettings {
    var color = "red"
}

final class DerivedSettings: BaseSettings {
    func describe() -> String { "color \(color)" }
}
#endif
