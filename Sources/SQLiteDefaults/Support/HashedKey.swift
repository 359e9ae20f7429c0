import Foundation

/// A row's key as SQLite sees it — its exact UTF-8 bytes — with its hash computed once.
///
/// Two reasons not to key the engine's tables by `String`:
///
/// - *Identity.* Swift compares strings by canonical equivalence: "é" as one code point and
///   "e" + U+0301 are equal `String`s, but two rows in the `defaults` table. Keyed by `String`,
///   the cache served one row's value for the other and observers of one heard the other.
///   `HashedKey` hashes and compares the bytes. (`package`: the fleet's sets and tables of
///   keys need the same identity.)
/// - *Speed.* Hashing the name was about half the instructions of a cached `get`. A
///   ``DefaultsKey`` makes its `HashedKey` once, when it is created, so a `get` hashes nothing.
package struct HashedKey: Hashable, Sendable, CustomStringConvertible {
    package let name: String
    private let hash: Int

    package init(_ name: String) {
        var hasher = Hasher()
        var bytes = name
        bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        self.name = name
        self.hash = hasher.finalize()
    }

    package static func == (lhs: HashedKey, rhs: HashedKey) -> Bool {
        lhs.hash == rhs.hash && sameBytes(lhs.name, rhs.name)
    }

    /// Byte equality. Through contiguous storage (every native string has it) and `memcmp`:
    /// `utf8.elementsEqual` walks index by index and cost more than the rest of a `get`.
    private static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        // Two strings with the same representation (the same small-string bits, or the same
        // buffer with the same count) hold the same bytes: the usual case, a key looked up by
        // its own `DefaultsKey`, ends here. Different representations may still hold equal
        // bytes, so they are compared below. (The size test is constant: on a platform whose
        // `String` is not two words the shortcut is compiled out instead of trapping.)
        if MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size,
           unsafeBitCast(lhs, to: (UInt64, UInt64).self) == unsafeBitCast(rhs, to: (UInt64, UInt64).self) { return true }
        let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        return (compared ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    /// What `Dictionary` asks for, with its per-instance seed. The default runs a `Hasher`
    /// (seeding and SipHash finalization, ≈150 instructions: a third of a cached `get`) over
    /// a word that already is a SipHash output. One multiply and shift mix the seed into every
    /// bit instead, so tables with different seeds still order keys differently.
    package func _rawHashValue(seed: Int) -> Int {
        let mixed = UInt64(truncatingIfNeeded: hash ^ seed) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 32))
    }

    package var description: String { name }
}
