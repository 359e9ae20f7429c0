#if Configuration && Prefs
import DefaultsTestSupport
import Logging
import SQLiteDefaults
import Testing
import TestScheduling

/// Captures what a logger was asked to log.
struct CapturingLogHandler: LogHandler {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    let records: Collected<Record>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append(Record(level: event.level, message: event.message.description,
                              metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }

    // swift-log 1.6 calls this form; forward it.
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        records.append(Record(level: level, message: message.description, metadata: self.metadata.merging(metadata ?? [:]) { $1 }))
    }
}

@Suite("Logging as swift-log asks libraries to log", .offThePool)
struct LoggingTests {
    @Test("a failed non-throwing write is reported on reportedErrors() and logged at debug, details as metadata")
    func writeFailureIsDebug() async throws {
        let records = Collected<CapturingLogHandler.Record>()
        var configuration = DefaultsStore.Configuration()
        configuration.logger = Logger(label: "SQLiteDefaults") { _ in CapturingLogHandler(records: records) }
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        try store.close()
        store[DefaultsKey<Int>("limits.requests", default: 0)] = 5   // fails: closed
        #expect(store.lastReportedError?.code == .closed)
        let record = try #require(records.all.first { $0.metadata["code"]?.description == "closed" },
                                  "\(records.all.map { "\($0.message) \($0.metadata)" })")
        #expect(record.level == .debug)
        #expect(record.metadata["operation"] != nil && record.metadata["error"] != nil)
        #expect(!record.message.contains("limits.requests"), "details belong in metadata: \(record.message)")
        #expect(!records.all.contains { $0.level >= .warning }, "\(records.all.map { "\($0.level) \($0.message)" })")
    }
}
#endif
