import ArgumentParser
import PrefsFormats

/// `write --type TYPE` takes a ``ValueType`` by its name (`bool`, `int`, …).
extension ValueType: ExpressibleByArgument {}
