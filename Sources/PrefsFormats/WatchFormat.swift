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
}
