#if Console
import Foundation
import PrefsFormats

/// The query of `GET api/keys?prefix=P&contains=S&limit=N&after=KEY` (or `afterHex=HEX`),
/// checked: each parameter at most once; `prefix` keeps keys that start with it (empty or
/// absent: every key); `contains` keeps keys holding it anywhere, ASCII letters in either case;
/// `limit` from 1, ``defaultLimit`` when absent, clamped to ``maximumLimit``; `after` (a key
/// address, as `api/keys/{key}` names one: the escaped form names a key that is not UTF-8) or
/// `afterHex` (its exact bytes) starts after that key, stored or not.
struct KeysQuery: Equatable {
    /// The keys a page holds when the request names no limit.
    static let defaultLimit = 500
    /// The most keys one response holds, whatever `limit` asks: a larger limit reads one full
    /// page, whose `next` names the following one. Clamped rather than refused, as the history
    /// route does: a client that asks for "everything" expects a first page, not an error.
    static let maximumLimit = 5_000

    /// Only keys that start with this (its UTF-8); empty for every key.
    let prefix: String
    /// Only keys that contain this; nil for no such filter.
    let contains: String?
    /// At most this many keys.
    let limit: Int
    /// Only keys whose bytes sort after these; nil for the first page.
    let after: Data?

    /// The query from the request's percent-decoded parameters.
    /// - Throws: ``RequestValue/Refusal`` for a repeated parameter, a limit that is not a
    ///   whole number from 1, both `after` and `afterHex`, or a malformed `afterHex`; the
    ///   route answers 400 with its message.
    init(_ request: ConsoleRequest) throws(RequestValue.Refusal) {
        func single(_ name: String) throws(RequestValue.Refusal) -> String? {
            let values = request.queryValues(name)
            guard values.count <= 1 else { throw RequestValue.Refusal("\(name) must be given once") }
            return values.first.map(String.init)
        }
        prefix = try single("prefix") ?? ""
        contains = try single("contains").flatMap { $0.isEmpty ? nil : $0 }
        let after = try single("after").flatMap { $0.isEmpty ? nil : $0 }
        let afterHex = try single("afterHex").flatMap { $0.isEmpty ? nil : $0 }
        switch (after, afterHex) {
        case (nil, nil):
            self.after = nil
        case (let text?, nil):
            self.after = Self.bytes(KeyAddress(parsing: text))
        case (nil, let hex?):
            do {
                self.after = Self.bytes(try KeyAddress(hex: hex))
            } catch {
                throw RequestValue.Refusal("afterHex: " + error.message)
            }
        case (_?, _?):
            throw RequestValue.Refusal("give after=KEY or afterHex=HEX, not both")
        }
        guard let text = try single("limit") else {
            limit = Self.defaultLimit
            return
        }
        guard let requested = Int(text), requested >= 1 else {
            throw RequestValue.Refusal("limit must be a whole number from 1 (a page holds at most \(Self.maximumLimit); read further with after=NEXT), not \(ValueFormatting.quoted(text))")
        }
        limit = min(requested, Self.maximumLimit)
    }

    private static func bytes(_ address: KeyAddress) -> Data {
        switch address {
        case .text(let text): Data(text.utf8)
        case .bytes(let bytes): bytes
        }
    }
}
#endif
