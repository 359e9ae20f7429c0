#if canImport(Glibc)
import Glibc
#endif
import SQLiteDefaults

// `CoreStartup FILE KEY`: opens the store and prints one integer key, as a user's own CLI that
// embeds the library would. Benchmarks/startup.sh times it as a whole process.
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: CoreStartup FILE KEY")
    exit(2)
}
do {
    let store = try DefaultsStore(path: arguments[1])
    print(try store.value(for: DefaultsKey<Int>(arguments[2], default: 0)))
} catch {
    print("CoreStartup: \(error)")
    exit(1)
}
