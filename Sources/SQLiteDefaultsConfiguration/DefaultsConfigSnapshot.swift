#if Configuration
import Configuration
import SQLiteDefaults

/// Every row of the store, read in one read transaction (`DefaultsStore/entries()`), or the
/// error that reading them threw.
struct DefaultsConfigSnapshot: ConfigSnapshot, CustomStringConvertible {
    let providerName: String
    /// By bytes, as SQLite compares keys: NFC and NFD "café" are two rows, never one entry.
    let rows: Result<[HashedKey: SQLiteValue], DefaultsError>
    let secrets: SecretsSpecifier<String, ConfigContent>
    /// The keys the file declares secret, read with the rows.
    let declaredSecrets: Set<HashedKey>
    /// Asked for a key's declaration only when a row cannot be read as the asked type.
    let store: DefaultsStore

    init(store: DefaultsStore, providerName: String, secrets: SecretsSpecifier<String, ConfigContent>) {
        self.store = store
        self.providerName = providerName
        self.secrets = secrets
        // A failure to read them fails the rows too (below), so none is reported here.
        self.declaredSecrets = (try? store.secretKeysByBytes()) ?? []
        do {
            let entries = try store.entries()
            rows = .success(Dictionary(entries.map { (HashedKey($0.key), $0.value) }, uniquingKeysWith: { _, last in last }))
        } catch let error as DefaultsError {
            rows = .failure(error)
        } catch {
            rows = .failure(DefaultsError(.sqlite, "reading the store failed: \(error)"))
        }
    }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let name = try RowKey.name(of: key)
        switch rows {
        case .success(let rows):
            return LookupResult(
                encodedKey: name,
                value: try RowDecoding.namingDeclaration(of: name, in: store) {
                    try RowDecoding.configValue(of: rows[HashedKey(name)], key: name, type: type, secrets: secrets,
                                                declaredSecret: declaredSecrets.contains(HashedKey(name)))
                }
            )
        case .failure(let error):
            throw DefaultsError(error.code, "\(error.message) (reading configuration key '\(name)')", key: name)
        }
    }

    /// Whether two snapshots hold the same rows (failures never compare equal).
    func hasSameRows(as other: DefaultsConfigSnapshot) -> Bool {
        guard case .success(let mine) = rows, case .success(let theirs) = other.rows else { return false }
        return mine == theirs
    }

    var description: String {
        switch rows {
        case .success(let rows): "\(providerName)[\(rows.count) values]"
        case .failure(let error): "\(providerName)[unreadable: \(error)]"
        }
    }
}
#endif
