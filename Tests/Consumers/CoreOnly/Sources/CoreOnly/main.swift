#if canImport(Glibc)
import Glibc
#endif
import SQLiteDefaults

// Writes a key, reopens the file and reads it back: prints "timeout 30" when the store works.
extension DefaultsKeys {
    static let timeout = DefaultsKey<Int>("timeout", default: 5)
}

let path = CommandLine.arguments.dropFirst().first ?? "consumer.sqlite"
do {
    let store = try DefaultsStore(path: path)
    try store.set(30, for: .timeout)
    try store.close()
    let again = try DefaultsStore(path: path)
    print("timeout \(try again.value(for: .timeout))")
    try again.close()
} catch {
    print("CoreOnly: \(error)")
    exit(1)
}
