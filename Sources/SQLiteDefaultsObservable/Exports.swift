#if Observable
// One import gives a macro user the store, the keys and the Observation framework:
// `import SQLiteDefaultsObservable` is all an `@ObservableDefaults` class needs.
@_exported import Observation
@_exported import SQLiteDefaults
#endif
