import Foundation

/// The read path: a cached value when the cache can be trusted, else the row, read through the
/// connection and remembered.
extension StoreEngine {
    func value<Value>(for key: DefaultsKey<Value>) throws -> Value {
        if servesFromCache {
            switch cache.lookup(key.hashedName) {
            case .decoded(let box) where box.holds(Value.self): return box.load(Value.self)
            case .absent: return key.defaultValue
            default: break
            }
        }
        try Self.validate(key.name)
        return try withConnection { connection in
            if connection.transactionDepth > 0 {
                guard let stored = try connection.read(key.name) else { return key.defaultValue }
                return try decode(stored, for: key)
            }
            if !cacheIsCurrent, try connection.refreshDataVersion() { cache.removeAll() }
            let stored: SQLiteValue?
            switch cache.lookup(key.hashedName) {
            case .decoded(let box) where box.holds(Value.self): return box.load(Value.self)
            case .decoded: stored = cache.stored(key.hashedName) ?? nil
            case .absent: return key.defaultValue
            case .stored(let value): stored = value
            case .miss:
                stored = try connection.read(key.name)
                cache.update(key.hashedName, stored: stored)
            }
            guard let stored else { return key.defaultValue }
            let value = try decode(stored, for: key)
            cache.remember(key.hashedName, decoded: value)
            return value
        }
    }

    func decode<Value>(_ stored: SQLiteValue, for key: DefaultsKey<Value>) throws -> Value {
        do {
            return try key.codec.decode(stored)
        } catch let error as DefaultsError {
            throw error.naming(key: key.name)
        } catch {
            throw DefaultsError(.decodingFailed, "stored value cannot be decoded as \(Value.self): \(error)", key: key.name)
        }
    }

    /// The row as stored, through the cache.
    func storedValue(_ key: String) throws -> SQLiteValue? {
        if servesFromCache, case .some(let cached) = cache.stored(HashedKey(key)) { return cached }
        try Self.validate(key)
        return try withConnection { connection in
            if connection.transactionDepth > 0 { return try connection.read(key) }
            if !cacheIsCurrent, try connection.refreshDataVersion() { cache.removeAll() }
            if case .some(let cached) = cache.stored(HashedKey(key)) { return cached }
            let stored = try connection.read(key)
            cache.update(HashedKey(key), stored: stored)
            return stored
        }
    }

    func keys() throws -> [String] {
        try withConnection { connection in
            return try connection.keys()
        }
    }

    func entries() throws -> [(key: String, value: SQLiteValue)] {
        try withConnection { connection in
            return try connection.entries()
        }
    }

    func keysNotValidUTF8() throws -> [Data] { try withConnection { try $0.keysNotValidUTF8() } }
}
