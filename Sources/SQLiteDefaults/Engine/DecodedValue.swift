/// A decoded value of some type, read back without any generic metadata lookup: the box
/// records its type's identity, and a reader that asks for the same type loads the value
/// straight from the box (a `Decoded<Value>` subclass would need the metadata of
/// `Decoded<Value>` at run time on every read).
struct DecodedValue: @unchecked Sendable {
    // Sendable proof: the box's value is written once, in `init`, with a value of a
    // `Sendable` type (required by `init`), and only read afterwards; the box's deinit
    // destroys it. (`ManagedBuffer` itself is never Sendable, hence this wrapper.)
    private let box: DecodedValueBox

    init<Value: Sendable>(_ value: Value) {
        box = DecodedValueBox.make(value)
    }

    /// Whether the box holds a `Value`.
    @inline(__always)
    func holds<Value>(_: Value.Type) -> Bool { box.type == ObjectIdentifier(Value.self) }

    /// The value; call only after `holds(Value.self)` returned true.
    @inline(__always)
    func load<Value>(_: Value.Type) -> Value { box.address.assumingMemoryBound(to: Value.self).pointee }
}

/// What a ``DecodedValueBox`` knows about the value it holds.
struct DecodedValueHeader {
    /// The identity of the value's type.
    let type: ObjectIdentifier
    /// Where the value lives: nil for the box's own tail words, else memory of its own for a
    /// value too big or too strictly aligned for them.
    let storage: UnsafeMutableRawPointer?
    /// Deinitializes the value (and frees its memory of its own, if any).
    let destroy: (UnsafeMutableRawPointer) -> Void
}

/// The storage of a ``DecodedValue``. Values of up to four words (Int, Double, Bool, String,
/// Date, URL and most small structs) live in the box's own tail-allocated words: one
/// allocation per cached value, and one memory access fewer per read when the table is too
/// large for the CPU caches.
final class DecodedValueBox: ManagedBuffer<DecodedValueHeader, UInt64> {
    static let inlineWords = 4

    static func make<Value>(_ value: Value) -> DecodedValueBox {
        let fitsInline = MemoryLayout<Value>.size <= inlineWords * MemoryLayout<UInt64>.size
            && MemoryLayout<Value>.alignment <= MemoryLayout<UInt64>.alignment
        let buffer = create(minimumCapacity: fitsInline ? inlineWords : 0) { _ in
            if fitsInline {
                return DecodedValueHeader(type: ObjectIdentifier(Value.self), storage: nil, destroy: { raw in
                    raw.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
                })
            }
            let pointer = UnsafeMutablePointer<Value>.allocate(capacity: 1)
            return DecodedValueHeader(type: ObjectIdentifier(Value.self), storage: UnsafeMutableRawPointer(pointer), destroy: { raw in
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

    // Through the pointers, not `header`: reading that `var` of a class would cost a dynamic
    // exclusivity check on every `get`.

    /// The identity of the value's type.
    @inline(__always)
    var type: ObjectIdentifier {
        withUnsafeMutablePointerToHeader { $0.pointee.type }
    }

    /// Where the value is: the tail words, or the header's own storage.
    @inline(__always)
    var address: UnsafeMutableRawPointer {
        withUnsafeMutablePointers { header, words in header.pointee.storage ?? UnsafeMutableRawPointer(words) }
    }
}
