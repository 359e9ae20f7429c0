/// A broken promise found by a fuzz check: the input and what went wrong. The fuzzer aborts
/// on it (libFuzzer then saves the input as a crash file); a replay reports it.
package struct FuzzFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
