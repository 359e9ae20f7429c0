#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `write --type TYPE` takes a value type (the library's `DefaultsValueKind`) by its name (`bool`, `int`, …).
extension DefaultsValueKind: ExpressibleByArgument {}
#endif
