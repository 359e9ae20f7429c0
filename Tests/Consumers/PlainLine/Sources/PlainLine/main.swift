import SQLiteDefaults

// Scripts/consumers.sh only resolves this package (CoreOnly builds and runs the same product):
// what it proves is in the Package.resolved it produces. It builds and runs all the same.
print("store: \(DefaultsStore.self)")
