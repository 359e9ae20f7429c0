/// The fuzzed surfaces, each a check that takes any bytes: it returns when the code under test
/// handled them as promised (a typed refusal counts) and throws ``FuzzFailure`` when not.
/// A crash or a memory error inside is the sanitizer's to report.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// `prefs import`'s reader: ``ImportReaderFuzz``.
    case importReader = "ImportReader"
    /// What `export` writes, `import` restores exactly: ``RoundTripFuzz``.
    case roundTrip = "RoundTrip"
    /// The console's request decoding: ``ConsoleRequestFuzz`` (with the Console trait).
    case consoleRequest = "ConsoleRequest"

    /// Runs this target's check on one input from a task (the tests): nothing blocks a thread
    /// of the cooperative pool, which the console's handling needs.
    /// - Throws: ``FuzzFailure`` when the code under test broke a promise on `bytes`.
    package func checkInTask(_ bytes: [UInt8]) async throws(FuzzFailure) {
        switch self {
        case .importReader, .roundTrip: try check(bytes)
        case .consoleRequest:
            #if Console
            try await ConsoleRequestFuzz.shared.get().checkInTask(bytes)
            #else
            break
            #endif
        }
    }

    /// Runs this target's check on one input, on a thread that may block (libFuzzer's, a
    /// replay's main thread): never from a task.
    /// - Throws: ``FuzzFailure`` when the code under test broke a promise on `bytes`.
    package func check(_ bytes: [UInt8]) throws(FuzzFailure) {
        switch self {
        case .importReader: try ImportReaderFuzz.check(bytes)
        case .roundTrip: try RoundTripFuzz.shared.get().check(bytes)
        case .consoleRequest:
            #if Console
            try ConsoleRequestFuzz.shared.get().check(bytes)
            #else
            break  // Built without the console: nothing to fuzz.
            #endif
        }
    }
}
