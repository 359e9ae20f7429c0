#if Console
import PrefsFormats
import SQLiteDefaults

/// Revealing a secret key's value to an admin.
extension DefaultsConsole {
    /// `GET api/keys/{key}/secret` (or `api/secret?key=KEY`): a secret key's value as
    /// `{"key", "seq", "value", "text"}` with `ETag: "SEQ"`, for an ``ConsoleRole/admin`` (the
    /// owner of a console without a token is one); 403 for any other principal, 404 for a key
    /// that is not secret (its value is in `api/keys`). Each reveal is recorded through
    /// ``Configuration/auditLog`` with the principal's name and the key, never the value.
    func revealSecret(_ request: ConsoleRequest) -> ConsoleResponse {
        let principal = ConsolePrincipal.current ?? .owner
        let key: String
        switch Self.address(of: request) {
        case .success(.text(let named)): key = named
        case .success(.bytes): return ConsoleResponses.json(ConsoleJSON.error("a key that is not UTF-8 is never secret"), status: .notFound)
        case .failure(let refusal): return ConsoleResponses.json(ConsoleJSON.error(refusal.message), status: .badRequest)
        }
        guard principal.mayReadSecrets else {
            let who = principal.name.map(ValueFormatting.quoted) ?? "this user"
            return ConsoleResponses.json(ConsoleJSON.error("\(who) may not reveal a secret (only role admin may)"), status: .forbidden)
        }
        return Self.responding {
            guard try catalog.secretKeys().contains(HashedKey(key)) else {
                return ConsoleResponses.json(ConsoleJSON.error("\(ValueFormatting.quoted(key)) is not a secret key"), status: .notFound)
            }
            var value: SQLiteValue?
            var version: Int64 = 0
            try store.transaction { transaction in
                value = transaction[DefaultsKey<SQLiteValue?>(key)].flatMap { $0 == .null ? nil : $0 }
                version = try transaction.version(of: key)
            }
            let who = principal.name.map(ValueFormatting.quoted) ?? "the owner"
            let line = "prefs console: \(who) revealed the secret key \(ValueFormatting.quoted(key))"
            if let auditLog = configuration.auditLog {
                auditLog(line)
            } else {
                request.logger.notice("\(line)")
            }
            let declared = try catalog.declaration(for: key)
            var response = ConsoleResponses.json(ConsoleJSON.secretValue(key: key, value: value, version: version, declared: declared?.type))
            response.headers[.eTag] = "\"\(version)\""
            return response
        }
    }
}
#endif
