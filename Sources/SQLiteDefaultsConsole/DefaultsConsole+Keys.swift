#if Console
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `PUT` and `DELETE` of one key, whichever way the request names it.
extension DefaultsConsole {
    /// The key a request names: the path's last segment (`api/keys/{key}`, percent-decoded, the
    /// escaped form of a key that is not UTF-8 included; see `KeyAddress`), or the query of
    /// `api/keys?key=TEXT` (the text as it is) or `api/keys?keyHex=HEX` (the exact bytes). The
    /// query forms are what the page uses: a browser never rewrites a query, while it resolves
    /// `.` and `..` (even as `%2E`) in a path before sending it.
    static func address(of request: ConsoleRequest) -> Result<KeyAddress, RequestValue.Refusal> {
        if let raw = request.keyParameter {
            guard let key = raw.removingPercentEncoding, !key.isEmpty else {
                return .failure(RequestValue.Refusal("the path must name a key, percent-encoded"))
            }
            return .success(KeyAddress(parsing: key))
        }
        let texts = request.queryValues("key"), hexes = request.queryValues("keyHex")
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

    /// `PUT` with `{"value": …, "reason": "…"}`: 200 and the entry (with `ETag: "SEQ"`, the
    /// key's new version), 400 `{"error"}` for a refused value or reason, 404 for a key that is
    /// not UTF-8 and no longer stored (such a key is changed, never created), 412 `{"error",
    /// "current"}` when the request's `If-Match`/`If-None-Match` (``WritePrecondition``) does
    /// not hold. The write is made for the request's principal (its name is the history's
    /// `actor`; none for the owner) because of `reason`, in one transaction with the check.
    func putKey(_ request: ConsoleRequest) async throws -> ConsoleResponse {
        let address: KeyAddress
        switch Self.address(of: request) {
        case .success(let named): address = named
        case .failure(let refusal): return ConsoleResponses.json(ConsoleJSON.error(refusal.message), status: .badRequest)
        }
        let principal = ConsolePrincipal.current ?? .owner
        if let refusal = Self.forbidden(address, for: principal) { return refusal }
        let body = try await request.collectBody(configuration.maximumBodySize)
        return await onStoreThread { respondingToWrite(address, principal: principal) {
            let condition = try WritePrecondition(headers: request.headers)
            switch address {
            case .text(let key):
                let declared = try catalog.declaration(for: key)
                let parsed = try RequestValue.decode(body, key: key, declared: declared?.type)
                if let allowed = declared?.allowedValues, case .text(let text) = parsed.value, !allowed.contains(text) {
                    throw RequestValue.Refusal("key \(ValueFormatting.quoted(key)) takes one of: \(allowed.joined(separator: ", "))")
                }
                let row = DefaultsKey<SQLiteValue?>(key)
                try store.transaction(actor: principal.name, reason: parsed.reason) { transaction in
                    try condition.check(key, stored: transaction.contains(row), in: transaction)
                    try transaction.set(parsed.value, for: row)
                }
                var entry = try catalog.entry(for: key) ?? ConsoleEntry(key: key, value: parsed.value, declaration: declared)
                if entry.version == 0 { entry.version = try store.version(of: key) }
                return Self.tagged(ConsoleResponses.json(ConsoleJSON.entry(entry, principal: principal)), version: entry.version)
            case .bytes(let bytes):
                guard condition == .none else { throw Self.noConditionByBytes }
                let parsed = try RequestValue.decode(body, key: address.shown, declared: nil)
                let replaced = try store.transaction(actor: principal.name, reason: parsed.reason) { _ in
                    try store.replaceValue(parsed.value, forKeyBytes: bytes)
                }
                guard replaced else { return Self.notStored(address) }
                return ConsoleResponses.json(ConsoleJSON.entry(ConsoleEntry(bytes: bytes, value: parsed.value), principal: principal))
            }
        } }
    }

    /// `DELETE`, with an optional `?reason=TEXT` (percent-encoded) recorded in the history:
    /// 204 when the row was removed (the key now reads its default, if it has one); 404 when
    /// no row was stored, so nothing changed; 412 as ``putKey(_:)`` when the request's
    /// condition does not hold (checked first: `If-Match: "SEQ"` on a key with no row is 412
    /// when SEQ is not its version, 404 when it is).
    func deleteKey(_ request: ConsoleRequest) -> ConsoleResponse {
        let address: KeyAddress
        switch Self.address(of: request) {
        case .success(let named): address = named
        case .failure(let refusal): return ConsoleResponses.json(ConsoleJSON.error(refusal.message), status: .badRequest)
        }
        let principal = ConsolePrincipal.current ?? .owner
        if let refusal = Self.forbidden(address, for: principal) { return refusal }
        return respondingToWrite(address, principal: principal) {
            let condition = try WritePrecondition(headers: request.headers)
            let reasons = request.queryValues("reason")
            guard reasons.count <= 1 else { throw RequestValue.Refusal("reason must be given once") }
            let reason = reasons.first.map(String.init)
            let removed: Bool
            switch address {
            case .text(let key):
                let row = DefaultsKey<SQLiteValue?>(key)
                // In one transaction, so that the condition, "was it there" and the removal
                // are one fact.
                removed = try store.transaction(actor: principal.name, reason: reason) { transaction in
                    let stored = transaction.contains(row)
                    try condition.check(key, stored: stored, in: transaction)
                    guard stored else { return false }
                    try transaction.remove(row)
                    return true
                }
            case .bytes(let bytes):
                guard condition == .none else { throw Self.noConditionByBytes }
                removed = try store.transaction(actor: principal.name, reason: reason) { _ in
                    try store.removeValue(forKeyBytes: bytes)
                }
            }
            return removed ? ConsoleResponse(status: .noContent) : Self.notStored(address)
        }
    }

    /// A key that is not UTF-8 has no version the console can name.
    static let noConditionByBytes = RequestValue.Refusal("If-Match and If-None-Match need a key that is valid UTF-8 (a key given by keyHex has no version to compare)")

    /// ``responding(_:)`` for a write: 412 `{"error", "current"}` when its condition failed
    /// (the entry as it is now, a secret masked; `ETag` its version).
    func respondingToWrite(_ address: KeyAddress, principal: ConsolePrincipal, _ body: () throws -> ConsoleResponse) -> ConsoleResponse {
        Self.responding {
            do {
                return try body()
            } catch let failed as WritePrecondition.Failed {
                guard case .text(let key) = address else { throw failed }
                let current = try catalog.entry(for: key)
                let version = try current.map(\.version) ?? store.version(of: key)
                let response = ConsoleResponses.json(ConsoleJSON.conflict(failed.message, current: current, principal: principal),
                                                     status: .preconditionFailed)
                return Self.tagged(response, version: version)
            }
        }
    }

    /// `response` with `ETag: "VERSION"`.
    static func tagged(_ response: ConsoleResponse, version: Int64) -> ConsoleResponse {
        var response = response
        response.headers[.eTag] = "\"\(version)\""
        return response
    }

    /// 403 `{"error"}` when `principal` may not change the key `address` names (a `read`
    /// token, or a `write` token's key outside its prefixes); nil when it may.
    static func forbidden(_ address: KeyAddress, for principal: ConsolePrincipal) -> ConsoleResponse? {
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
    static func notStored(_ address: KeyAddress) -> ConsoleResponse {
        ConsoleResponses.json(ConsoleJSON.error("no key \(ValueFormatting.quoted(address.shown)) is stored; nothing was changed"), status: .notFound)
    }
}
#endif
