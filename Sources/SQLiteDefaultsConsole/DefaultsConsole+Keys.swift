#if Console
import Foundation
import Hummingbird
import PrefsFormats
import SQLiteDefaults

/// `PUT` and `DELETE` of one key, whichever way the request names it.
extension DefaultsConsole {
    /// The key a request names: the path's last segment (`api/keys/{key}`, percent-decoded, the
    /// escaped form of a key that is not UTF-8 included; see `KeyAddress`), or the query of
    /// `api/keys?key=TEXT` (the text as it is) or `api/keys?keyHex=HEX` (the exact bytes). The
    /// query forms are what the page uses: a browser never rewrites a query, while it resolves
    /// `.` and `..` (even as `%2E`) in a path before sending it.
    static func address(of request: Request, context: some RequestContext) -> Result<KeyAddress, RequestValue.Refusal> {
        if let raw = context.parameters.get("key") {
            guard let key = raw.removingPercentEncoding, !key.isEmpty else {
                return .failure(RequestValue.Refusal("the path must name a key, percent-encoded"))
            }
            return .success(KeyAddress(parsing: key))
        }
        let parameters = request.uri.queryParameters
        let texts = parameters[values: "key"], hexes = parameters[values: "keyHex"]
        switch (texts.count, hexes.count) {
        case (1, 0) where !texts[0].isEmpty:
            return .success(.text(String(texts[0])))
        case (0, 1):
            do {
                return .success(try KeyAddress(hex: String(hexes[0])))
            } catch {
                return .failure(RequestValue.Refusal("keyHex: " + error.message))
            }
        default:
            return .failure(RequestValue.Refusal("name one key: api/keys/KEY, api/keys?key=KEY or api/keys?keyHex=HEX"))
        }
    }

    /// `PUT` with `{"value": …}`: 200 and the entry, 400 `{"error"}` for a refused value, 404
    /// for a key that is not UTF-8 and no longer stored (such a key is changed, never created).
    func putKey(_ request: Request, context: some RequestContext) async throws -> Response {
        let address: KeyAddress
        switch Self.address(of: request, context: context) {
        case .success(let named): address = named
        case .failure(let refusal): return ConsoleResponses.json(ConsoleJSON.error(refusal.message), status: .badRequest)
        }
        let principal = ConsolePrincipal.current ?? .owner
        if let refusal = Self.forbidden(address, for: principal) { return refusal }
        let body = try await request.body.collect(upTo: configuration.maximumBodySize)
        return Self.responding {
            switch address {
            case .text(let key):
                let declared = try catalog.declaration(for: key)
                let value = try RequestValue.decode(Array(buffer: body), key: key, declared: declared?.type)
                if let allowed = declared?.allowedValues, case .text(let text) = value, !allowed.contains(text) {
                    throw RequestValue.Refusal("key \(ValueFormatting.quoted(key)) takes one of: \(allowed.joined(separator: ", "))")
                }
                try store.set(value, for: DefaultsKey<SQLiteValue?>(key))
                let entry = try catalog.entry(for: key) ?? ConsoleEntry(key: key, value: value, declaration: declared)
                return ConsoleResponses.json(ConsoleJSON.entry(entry, principal: principal))
            case .bytes(let bytes):
                let value = try RequestValue.decode(Array(buffer: body), key: address.shown, declared: nil)
                guard try store.replaceValue(value, forKeyBytes: bytes) else { return Self.notStored(address) }
                return ConsoleResponses.json(ConsoleJSON.entry(ConsoleEntry(bytes: bytes, value: value), principal: principal))
            }
        }
    }

    /// `DELETE`: 204 when the row was removed (the key now reads its default, if it has one);
    /// 404 when no row was stored, so nothing changed.
    func deleteKey(_ request: Request, context: some RequestContext) -> Response {
        let address: KeyAddress
        switch Self.address(of: request, context: context) {
        case .success(let named): address = named
        case .failure(let refusal): return ConsoleResponses.json(ConsoleJSON.error(refusal.message), status: .badRequest)
        }
        if let refusal = Self.forbidden(address, for: ConsolePrincipal.current ?? .owner) { return refusal }
        return Self.responding {
            let removed: Bool
            switch address {
            case .text(let key):
                let row = DefaultsKey<SQLiteValue?>(key)
                // In one transaction, so that "was it there" and the removal are one fact.
                removed = try store.transaction { transaction in
                    guard transaction.contains(row) else { return false }
                    try transaction.remove(row)
                    return true
                }
            case .bytes(let bytes):
                removed = try store.removeValue(forKeyBytes: bytes)
            }
            return removed ? Response(status: .noContent) : Self.notStored(address)
        }
    }

    /// 403 `{"error"}` when `principal` may not change the key `address` names (a `read`
    /// token, or a `write` token's key outside its prefixes); nil when it may.
    static func forbidden(_ address: KeyAddress, for principal: ConsolePrincipal) -> Response? {
        let allowed: Bool
        switch address {
        case .text(let key): allowed = principal.mayWrite(key: key)
        case .bytes(let bytes): allowed = principal.mayWrite(keyBytes: Array(bytes))
        }
        guard !allowed else { return nil }
        let who = principal.name.map(ValueFormatting.quoted) ?? "this user"
        let scope = principal.role == .read ? "may only read (role read)"
            : "may change only keys that start with " + principal.prefixes.map(ValueFormatting.quoted).joined(separator: " or ")
        return ConsoleResponses.json(ConsoleJSON.error("\(who) \(scope): \(ValueFormatting.quoted(address.shown)) is not one of them; nothing was changed"),
                                     status: .forbidden)
    }

    /// 404 `{"error"}`: the key has no stored row, so nothing was changed.
    static func notStored(_ address: KeyAddress) -> Response {
        ConsoleResponses.json(ConsoleJSON.error("no key \(ValueFormatting.quoted(address.shown)) is stored; nothing was changed"), status: .notFound)
    }
}
#endif
