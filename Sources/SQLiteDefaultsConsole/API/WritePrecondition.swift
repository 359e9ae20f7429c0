#if Console
import Foundation
import HTTPTypes
import SQLiteDefaults

/// The condition of a `PUT` or `DELETE` of a key, from its `If-Match` or `If-None-Match`
/// header, checked in the transaction that writes (so nobody writes in between):
///
/// - `If-Match: "SEQ"` (an entity tag, quoted; `W/"SEQ"` is read alike, as a key's version is
///   exact): only while the key is at version SEQ (`seq` in `api/keys`, the `ETag` of a key's
///   response). `"0"`: only while no change of the key is kept — for a key never written,
///   "create it only if nobody did meanwhile".
/// - `If-Match: *`: only if the key is stored now.
/// - `If-None-Match: *`: only if it is not (create only).
///
/// Anything else (an unquoted or non-numeric tag, a list of tags, both headers, an
/// `If-None-Match` that is not `*`) is malformed: 400, nothing written. SEQ is read exactly
/// as an `ETag` writes it: decimal digits, no sign, no space, no leading zero (`"+5"`, `"05"`
/// and `"-0"` are not version 5 or 0 but malformed), since an entity tag is compared as
/// text and a tag that only parses to a version was not sent by this console.
enum WritePrecondition: Equatable {
    /// No condition.
    case none
    /// Only at this version.
    case version(Int64)
    /// Only if a row is stored.
    case exists
    /// Only if no row is stored.
    case absent

    static let ifMatch = HTTPField.Name("If-Match")!
    static let ifNoneMatch = HTTPField.Name("If-None-Match")!

    /// The condition `headers` state.
    /// - Throws: ``RequestValue/Refusal`` for a malformed one.
    init(headers: HTTPFields) throws(RequestValue.Refusal) {
        let matches = headers[values: Self.ifMatch], noneMatches = headers[values: Self.ifNoneMatch]
        switch (matches.count, noneMatches.count) {
        case (0, 0):
            self = .none
        case (1, 0):
            let tag = matches[0].trimmingCharacters(in: .whitespaces)
            if tag == "*" {
                self = .exists
                return
            }
            var quoted = Substring(tag)
            if quoted.hasPrefix("W/") { quoted = quoted.dropFirst(2) }
            guard quoted.count >= 3, quoted.first == "\"", quoted.last == "\"",
                  let version = Self.version(quoted.dropFirst().dropLast()) else {
                throw RequestValue.Refusal(#"If-Match must be one version as an entity tag, such as "12" (quoted, the key's seq), or *"#)
            }
            self = .version(version)
        case (0, 1):
            guard noneMatches[0].trimmingCharacters(in: .whitespaces) == "*" else {
                throw RequestValue.Refusal("If-None-Match takes only * (write only if the key is not stored)")
            }
            self = .absent
        default:
            throw RequestValue.Refusal("give one If-Match or one If-None-Match header, not several")
        }
    }

    /// The version `text` writes as an `ETag` does: `0`, or a digit 1–9 and more digits; nil
    /// for anything else (a sign, a space, a leading zero, a digit that is not ASCII, past
    /// `Int64.max`).
    static func version(_ text: Substring) -> Int64? {
        let digits = text.utf8
        guard let first = digits.first, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        return Int64(text)
    }

    /// Why the condition does not hold (412, nothing written).
    struct Failed: Error {
        let message: String
    }

    /// Throws ``Failed`` unless the condition holds for `key` in `transaction` (`stored`: whether
    /// a row is stored now).
    func check(_ key: String, stored: Bool, in transaction: DefaultsTransaction) throws {
        switch self {
        case .none:
            return
        case .exists where !stored:
            throw Failed(message: "If-Match: * — the key is not stored; nothing was changed")
        case .absent where stored:
            throw Failed(message: "If-None-Match: * — the key is stored already; nothing was changed")
        case .exists, .absent:
            return
        case .version(let expected):
            do {
                try transaction.requireVersion(expected, of: key)
            } catch let error as DefaultsError where error.code == .versionConflict {
                let now = error.currentVersion.map(String.init) ?? "another"
                throw Failed(message: "the key changed: it is at version \(now), not \(expected); nothing was changed")
            }
        }
    }
}
#endif
