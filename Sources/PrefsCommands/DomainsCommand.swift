#if Prefs
import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `prefs domains`
struct DomainsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "domains",
        abstract: "List the apps that have a standard database.",
        discussion: """
            One name per line, sorted: every directory of $XDG_CONFIG_HOME (~/.config when \
            XDG_CONFIG_HOME is unset or not an absolute path) that holds a defaults.sqlite, \
            which is what --name APP opens. Prints nothing when there is none.
            """
    )

    func run() throws {
        for name in try Self.domains() {
            try Console.out(ValueFormatting.escaped(name))  // one name per line, even a name with a newline
        }
    }

    /// The app names, sorted, whose standard database file exists.
    /// - Throws: `DefaultsError` only if the library refuses a directory name (it never does
    ///   for a real directory entry).
    static func domains() throws -> [String] {
        // The library decides where standard databases live; this asks it for one and takes
        // the directory two levels up, so both always agree.
        let probe = try DefaultsStore.standardPath(name: StoreOptions.defaultName)
        let configDirectory = URL(fileURLWithPath: probe).deletingLastPathComponent().deletingLastPathComponent().path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: configDirectory)) ?? []
        var domains: [String] = []
        for name in names {
            let path = try DefaultsStore.standardPath(name: name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                domains.append(name)
            }
        }
        return domains.sorted()
    }
}
#endif
