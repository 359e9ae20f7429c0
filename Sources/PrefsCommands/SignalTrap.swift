#if Prefs
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT/SIGTERM into a call of `handler` on a Dispatch queue instead of the default
/// of dying mid-write, so `watch` can stop cleanly and exit 0.
///
/// The signals are ignored at the process level (`SIG_IGN`) and observed with
/// `DispatchSource` signal sources, which is the only safe way to run Swift code in response:
/// nothing runs inside a real signal handler. Deinit restores the default dispositions.
final class SignalTrap {
    private let signals: [Int32]
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        self.sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}
#endif
