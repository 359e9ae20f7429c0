import Foundation

extension DefaultsStore {
    /// The store an application uses by default: `$XDG_CONFIG_HOME/<name>/defaults.sqlite`,
    /// or `~/.config/<name>/defaults.sqlite` when `XDG_CONFIG_HOME` is unset or not absolute.
    ///
    /// - Parameters:
    ///   - name: the application's name; one path component (no `/`, not `.` or `..`).
    ///   - configuration: how the store opens and runs the database.
    /// - Throws: ``DefaultsError`` — `.invalidName`, or the errors of ``init(path:configuration:)``.
    public static func standard(name: String, configuration: Configuration = Configuration()) throws -> DefaultsStore {
        try DefaultsStore(path: standardPath(name: name), configuration: configuration)
    }

    /// Where ``standard(name:configuration:)`` keeps the database for `name`.
    /// - Throws: ``DefaultsError`` with code `.invalidName` for an empty name, one with `/`
    ///   or a NUL character, `.` or `..`.
    public static func standardPath(name: String) throws -> String {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw DefaultsError(.invalidName, "'\(name)' is not a valid application name: use one path component, without '/' or '..'")
        }
        return configDirectory() + "/" + name + "/defaults.sqlite"
    }

    private static func configDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return xdg
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config"
    }
}
