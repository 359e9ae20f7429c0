import PrefsFormats
import SQLiteDefaults

/// `prefs import`'s reader on any bytes: ``JSONDocument`` then ``ExportFormat/decodeObject(_:)``,
/// as `ImportCommand` runs them. Promises checked:
///
/// - any input is either read or refused with a typed error (``JSONSyntaxError``,
///   ``FormatError``); the parser's depth limit keeps deep nesting from the stack;
/// - every array and object keeps its exact source: that text parses again to the same value;
/// - every value it reads, written back by `export` (``ExportFormat/encode(_:)``), reads as the
///   same value, bit for bit (`-0.0`, infinities, text that looks like JSON or like a tag).
package enum ImportReaderFuzz {
    /// - Throws: ``FuzzFailure`` on a broken promise.
    package static func check(_ bytes: [UInt8]) throws(FuzzFailure) {
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            guard error.line >= 1, error.column >= 1 else { throw FuzzFailure("a refusal without a position: \(error)") }
            return
        }
        try checkSources(document.root, in: document)
        let entries: [(key: String, value: SQLiteValue?)]
        do {
            entries = try ExportFormat.decodeObject(document)
        } catch {
            return
        }
        for entry in entries {
            guard let value = entry.value else { continue }
            let json = ExportFormat.encode(value)
            let again: JSONDocument
            do {
                again = try JSONDocument(parsing: Array(json.utf8))
            } catch {
                throw FuzzFailure("key \(entry.key.debugDescription): export wrote \(json.debugDescription), which does not parse: \(error)")
            }
            let decoded: SQLiteValue?
            do {
                decoded = try ExportFormat.decode(again.root, in: again, key: entry.key)
            } catch {
                throw FuzzFailure("key \(entry.key.debugDescription): export wrote \(json.debugDescription), which import refuses: \(error.message)")
            }
            guard let decoded, SameValue.same(decoded, value) else {
                throw FuzzFailure("key \(entry.key.debugDescription): \(value) was exported as \(json.debugDescription) and reads back as \(decoded.map { "\($0)" } ?? "nothing")")
            }
        }
    }

    /// Each container's source text, parsed on its own, is the same value.
    private static func checkSources(_ node: JSONDocument.Node, in document: JSONDocument) throws(FuzzFailure) {
        switch node {
        case .array(let elements, let source):
            try reparse(node, source, in: document)
            for element in elements { try checkSources(element, in: document) }
        case .object(let members, let source):
            try reparse(node, source, in: document)
            for member in members { try checkSources(member.value, in: document) }
        default:
            break
        }
    }

    private static func reparse(_ node: JSONDocument.Node, _ source: Range<Int>, in document: JSONDocument) throws(FuzzFailure) {
        let text = Array(document.bytes[source])
        do {
            let again = try JSONDocument(parsing: text)
            guard Shape(again.root) == Shape(node) else {
                throw FuzzFailure("the source text of a container, \(document.text(of: source).debugDescription), parses to a different value")
            }
        } catch let error as JSONSyntaxError {
            throw FuzzFailure("the source text of a container, \(document.text(of: source).debugDescription), does not parse: \(error)")
        } catch let failure as FuzzFailure {
            throw failure
        } catch {
            throw FuzzFailure("\(error)")
        }
    }

    /// A node without its source ranges, which differ once a container is parsed on its own.
    private indirect enum Shape: Equatable {
        case null, bool(Bool), number(String), string(String), loneSurrogateString, array([Shape]), object([String], [Shape])

        init(_ node: JSONDocument.Node) {
            switch node {
            case .null: self = .null
            case .bool(let flag): self = .bool(flag)
            case .number(let lexeme): self = .number(lexeme)
            case .string(let text): self = .string(text)
            case .loneSurrogateString: self = .loneSurrogateString
            case .array(let elements, _): self = .array(elements.map(Shape.init))
            case .object(let members, _): self = .object(members.map(\.name), members.map { Shape($0.value) })
            }
        }
    }
}

/// Two stored values are the same when SQLite would hold the same bytes: reals by bit pattern
/// (`-0.0` is not `0.0`), strings by their UTF-8 bytes (Swift's `==` equates canonically
/// equivalent strings that SQL tells apart).
package enum SameValue {
    package static func same(_ a: SQLiteValue, _ b: SQLiteValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.integer(let x), .integer(let y)): x == y
        case (.real(let x), .real(let y)): x.bitPattern == y.bitPattern
        case (.text(let x), .text(let y)): Array(x.utf8) == Array(y.utf8)
        case (.blob(let x), .blob(let y)): x == y
        case (.invalidUTF8Text(let x), .invalidUTF8Text(let y)): x == y
        default: false
        }
    }
}
