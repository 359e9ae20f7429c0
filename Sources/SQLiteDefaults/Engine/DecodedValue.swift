/// A decoded value of some type, read back without any generic metadata lookup: it records
/// its type's identity, and a reader that asks for the same type loads the value directly
/// (a `Decoded<Value>` subclass would need the metadata of `Decoded<Value>` at run time on
/// every read).
///
/// Plain values of up to two words (`Int`, `Double`, `Bool`, `Date`, `UUID`, enums without
/// payloads that own memory) are held *inline*, in the cache entry itself: a `get` then
/// touches no other object — no retain and release, and one cache miss fewer when the table
/// is larger than the CPU caches. Other values live in a ``DecodedValueBox``.
struct DecodedValue: @unchecked Sendable {
    // Sendable proof: the inline words hold a value of a `Sendable` type (required by
    // `init`) with no references (`_isPOD`), so copying them shares nothing; the box's value
    // is written once, in `init`, and only read afterwards. (`ManagedBuffer` itself is never
    // Sendable, hence the annotation.)
    private let type: ObjectIdentifier
    private let words: (UInt64, UInt64)
    private let box: DecodedValueBox?

    init<Value: Sendable>(_ value: Value) {
        type = ObjectIdentifier(Value.self)
        // `_isPOD`: no references and no custom copy, so a bitwise copy of the words is a
        // copy of the value and nothing needs destroying when an entry is dropped.
        if _isPOD(Value.self), MemoryLayout<Value>.size <= MemoryLayout<(UInt64, UInt64)>.size,
           MemoryLayout<Value>.alignment <= MemoryLayout<UInt64>.alignment {
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.storeBytes(of: value, as: Value.self) }
            self.words = words
            box = nil
        } else {
            words = (0, 0)
            box = DecodedValueBox.make(value)
        }
    }

    /// Whether this holds a `Value`.
    @inline(__always)
    func holds<Value>(_: Value.Type) -> Bool { type == ObjectIdentifier(Value.self) }

    /// The value; call only after `holds(Value.self)` returned true.
    @inline(__always)
    func load<Value>(_: Value.Type) -> Value {
        if let box { return box.address.assumingMemoryBound(to: Value.self).pointee }
        var words = words
        return Self.load(&words, as: Value.self)
    }

    /// Reads the inline words as a `Value`. A pointer argument rather than `withUnsafeBytes`:
    /// in an unspecialized `get` the closure-taking form cost three calls (≈70 instructions).
    @inline(__always)
    private static func load<Value>(_ words: UnsafeRawPointer, as _: Value.Type) -> Value {
        words.load(as: Value.self)
    }
}

/// What a ``DecodedValueBox`` knows about the value it holds.
struct DecodedValueHeader {
    /// Where the value lives: nil for the box's own tail words, else memory of its own for a
    /// value too big or too strictly aligned for them.
    let storage: UnsafeMutableRawPointer?
    /// Deinitializes the value (and frees its memory of its own, if any).
    let destroy: (UnsafeMutableRawPointer) -> Void
}

/// The storage of a boxed ``DecodedValue``. Values of up to four words (`String`, `URL` and
/// most small structs) live in the box's own tail-allocated words: one allocation per cached
/// value, and one memory access fewer per read.
final class DecodedValueBox: ManagedBuffer<DecodedValueHeader, UInt64> {
    static let inlineWords = 4

    static func make<Value>(_ value: Value) -> DecodedValueBox {
        let fitsInline = MemoryLayout<Value>.size <= inlineWords * MemoryLayout<UInt64>.size
            && MemoryLayout<Value>.alignment <= MemoryLayout<UInt64>.alignment
        let buffer = create(minimumCapacity: fitsInline ? inlineWords : 0) { _ in
            if fitsInline {
                return DecodedValueHeader(storage: nil, destroy: { raw in
                    raw.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
                })
            }
            let pointer = UnsafeMutablePointer<Value>.allocate(capacity: 1)
            return DecodedValueHeader(storage: UnsafeMutableRawPointer(pointer), destroy: { raw in
                let typed = raw.assumingMemoryBound(to: Value.self)
                typed.deinitialize(count: 1)
                typed.deallocate()
            })
        }
        let box = unsafeDowncast(buffer, to: DecodedValueBox.self)
        box.address.initializeMemory(as: Value.self, to: value)
        return box
    }

    deinit {
        let address = self.address
        withUnsafeMutablePointerToHeader { $0.pointee.destroy(address) }
    }

    /// Where the value is: the tail words, or the header's own storage. Read through the
    /// pointers, not `header`: reading that `var` of a class would cost a dynamic exclusivity
    /// check on every `get`.
    @inline(__always)
    var address: UnsafeMutableRawPointer {
        withUnsafeMutablePointers { header, words in header.pointee.storage ?? UnsafeMutableRawPointer(words) }
    }
}
