import Foundation
import SQLiteDefaults

/// How `prefs watch` prints one change: a human line, or one JSON object per line.
///
/// ```text
/// 2026-11-24T07:41:03.120Z external timeout = 45 (integer) for alice: "INC-4711"
/// 2026-11-24T07:41:04.002Z external api.token = (secret) for alice
/// ```
/// ```json
/// {"key":"timeout","value":45,"origin":"external","time":"…","writer":{…},"actor":"alice","reason":"INC-4711"}
/// {"key":"api.token","value":null,"secret":true,"origin":"external","time":"…","writer":{…},"actor":"alice"}
/// ```
///
/// A change of a secret key says that the key changed, never to what: `(secret)` in the line,
/// `"value": null` with `"secret": true` in JSON (a removal of it reads `removed`, `"value": null`,
/// as any removal). `actor` and `reason` are left out when unknown, `writer` when the writer is
/// not known at all (after a replaced file).
package enum WatchFormat {
    /// One output line for `change`, received at `date`; `isSecret`: the key is declared secret.
    package static func line(for change: AnyDefaultsChange, receivedAt date: Date, json: Bool, isSecret: Bool = false) -> String {
        let time = ISO8601.format(secondsSince1970: date.timeIntervalSince1970)
        let removed = change.newValue == nil || change.newValue == .null
        if json {
            var value = change.newValue.map(ExportFormat.encode) ?? "null"
            if isSecret, !removed { value = #"null,"secret":true"# }
            let writer = change.writer.map { #","writer":"# + HistoryFormat.json($0) } ?? ""
            return #"{"key":\#(ExportFormat.quote(change.key)),"value":\#(value),"origin":"\#(change.origin.rawValue)","time":"\#(time)"\#(writer)"#
                + Attribution.jsonMembers(change.writer) + "}"
        }
        let key = ValueFormatting.escaped(change.key)
        let attribution = Attribution.text(change.writer)
        guard let value = change.newValue, value != .null else {
            return "\(time) \(change.origin.rawValue) \(key) removed" + attribution
        }
        if isSecret { return "\(time) \(change.origin.rawValue) \(key) = (secret)" + attribution }
        return "\(time) \(change.origin.rawValue) \(key) = \(ValueFormatting.displayRepresentation(value)) (\(value.storageClass))" + attribution
    }

    /// One output line for a change read from the history (`watch` follows the change feed):
    /// as ``line(for:receivedAt:json:isSecret:)``, with the change's own commit time, its
    /// history sequence (`"seq"`, in JSON), and what the
    /// history says of a secret (masked) or a value too large to keep (its size).
    package static func line(for entry: DefaultsHistoryEntry<SQLiteValue>, json: Bool) -> String {
        let time = ISO8601.format(millisecondsSince1970: HistoryFormat.milliseconds(entry.date))
        if json {
            var value: String
            switch entry.value {
            case .value(let stored), .undecodable(let stored): value = ExportFormat.encode(stored)
            case .removed: value = "null"
            case .secret: value = #"null,"secret":true"#
            case .tooLargeToKeep(let bytes): value = #"null,"omitted":\#(bytes)"#
            }
            // "seq" between the fields a line had before it existed, leaving the line's start (up
            // to "time") and end ("writer", then "actor" and "reason") as they were for readers
            // that match them.
            return #"{"key":\#(ExportFormat.quote(entry.key)),"value":\#(value),"origin":"external","time":"\#(time)","seq":\#(entry.sequence),"writer":\#(HistoryFormat.json(entry.writer))"#
                + Attribution.jsonMembers(entry.writer) + "}"
        }
        let head = "\(time) external \(ValueFormatting.escaped(entry.key))"
        let attribution = Attribution.text(entry.writer)
        switch entry.value {
        case .value(let stored), .undecodable(let stored):
            return head + " = \(ValueFormatting.displayRepresentation(stored)) (\(stored.storageClass))" + attribution
        case .removed: return head + " removed" + attribution
        case .secret: return head + " = (secret)" + attribution
        case .tooLargeToKeep(let bytes): return head + " = (\(bytes) bytes, too large for the history to keep)" + attribution
        }
    }
}
