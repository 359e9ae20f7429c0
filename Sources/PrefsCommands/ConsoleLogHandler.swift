#if Prefs
import Logging

/// Log lines as the tool prints its messages: `prefs: <message>` on standard error, one
/// line each, from `info` up. For `prefs sync`, whose state changes are its log.
struct ConsoleLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        Console.err("prefs: " + event.message.description.split(whereSeparator: \.isNewline).joined(separator: " "))
    }
}
#endif
