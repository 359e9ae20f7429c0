import Foundation

/// A refusal by the declared-key triggers (Migrations/0006_declared_keys.sql), recognised in
/// SQLite's error message. The triggers raise it through `json_extract` with a malformed path,
/// the one way SQL can put the key in the message: "JSON path error near 'declared key
/// "timeout" is int, so a text value is refused'".
struct DeclarationRefusal {
    /// The triggers' own sentence.
    let sentence: String
    /// The key it names.
    let key: String?

    private static let lead = "JSON path error near '"
    private static let marker = "declared key \""

    init?(sqliteMessage: String?) {
        guard let message = sqliteMessage, message.hasPrefix(Self.lead + Self.marker) else { return nil }
        var quoted = message.dropFirst(Self.lead.count)
        if quoted.hasSuffix("'") { quoted = quoted.dropLast() }
        // SQLite quotes the path with %q, which doubles every single quote.
        let sentence = String(quoted).replacingOccurrences(of: "''", with: "'")
        self.sentence = sentence
        // The key sits between the marker and the last `" is ` (a key may hold quotes itself).
        let afterMarker = sentence.dropFirst(Self.marker.count)
        if let end = afterMarker.range(of: "\" is ", options: .backwards) {
            key = String(afterMarker[..<end.lowerBound])
        } else {
            key = nil
        }
    }
}
