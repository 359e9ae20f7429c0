#if Console
import Foundation
import PrefsFormats
import SQLiteDefaults

/// The body of `PUT /api/keys/{key}`, `{"value": …, "type": "int", "reason": "…"}` (`type` and
/// `reason` optional), turned into the value to store and the reason to record, or a refusal
/// worded for the operator. `reason` must be a string (the store refuses one over 16 KiB).
///
/// - With a type (the declared one, else the request's `type`): a JSON string is parsed exactly
///   as `prefs write KEY VALUE --type TYPE` parses it; a number is taken by `int`, `double` and
///   `date` (seconds since 1970), `true`/`false` by `bool`, and any JSON value by `json` (its
///   text). A `type` that differs from the declared one is refused.
/// - Without one (an undeclared key): by the value's JSON kind — an integer number → INTEGER,
///   another number → REAL, a string → TEXT, `true`/`false` → INTEGER 1/0, an array or object
///   → its JSON text — plus the export format's tagged values (`{"$data": "base64"}`, …).
enum RequestValue {
    /// Why a body was refused; the message goes back as `{"error": …}` with status 400.
    struct Refusal: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// What a `PUT` body asks for: the value, and why (nil when not said).
    struct Parsed: Equatable {
        let value: SQLiteValue
        let reason: String?
    }

    /// The value to store for `key` and the reason, from the request body's bytes.
    /// - Throws: ``Refusal`` for a body that is not such an object, a member given twice (the
    ///   import reader refuses a key named twice alike: which one counts would be a guess),
    ///   a `reason` that is not a string, or a value that does not fit.
    static func decode(_ body: [UInt8], key: String, declared: ValueType?) throws(Refusal) -> Parsed {
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: body)
        } catch {
            throw Refusal("the body is not JSON: \(error.description)")
        }
        guard case .object(let members, _) = document.root else {
            throw Refusal(#"the body must be a JSON object such as {"value": 42}"#)
        }
        var valueNode: JSONDocument.Node?
        var requested: ValueType?
        var reason: String?
        // Names compared by bytes, after JSON's escapes: `"v\u0061lue"` is "value" again.
        var seen = Set<[UInt8]>()
        for member in members {
            guard seen.insert(Array(member.name.utf8)).inserted else {
                throw Refusal("the body gives \(ValueFormatting.quoted(member.name)) twice; give each member once")
            }
            guard member.nameIsExact else {
                throw Refusal("the body has a member name with a \\u escape that leaves a UTF-16 surrogate unpaired")
            }
            switch (member.name, member.value) {
            case ("value", let node):
                valueNode = node
            case ("type", .string(let word)):
                guard let type = ValueType(rawValue: word) else {
                    throw Refusal("unknown type \(ValueFormatting.quoted(word)) (types: \(ValueType.allNames))")
                }
                requested = type
            case ("type", .null):
                break
            case ("reason", .string(let text)):
                reason = text
            case ("reason", _):
                throw Refusal(#""reason" must be a string"#)
            case ("type", _):
                throw Refusal(#""type" must be a string such as "int""#)
            default:
                throw Refusal("unknown member \(ValueFormatting.quoted(member.name)) (expected \"value\" and optionally \"type\" and \"reason\")")
            }
        }
        guard let node = valueNode else { throw Refusal(#"the body has no "value""#) }
        if case .null = node {
            throw Refusal("null is not a value; DELETE the key to remove it")
        }
        if let declared, let requested, declared != requested {
            throw Refusal("key \(ValueFormatting.quoted(key)) is declared \(declared.rawValue), not \(requested.rawValue)")
        }
        guard let type = declared ?? requested else {
            let decoded: SQLiteValue?
            do {
                decoded = try ExportFormat.decode(node, in: document, key: key)
            } catch {
                throw Refusal(error.message)
            }
            guard let value = decoded else { throw Refusal("null is not a value; DELETE the key to remove it") }
            if case .real(let number) = value, !number.isFinite {
                throw Refusal("infinity and NaN cannot be stored")
            }
            return Parsed(value: value, reason: reason)
        }
        return Parsed(value: try typed(node, as: type, in: document, key: key, declared: declared != nil), reason: reason)
    }

    /// `node` as a value of `type`.
    private static func typed(_ node: JSONDocument.Node, as type: ValueType, in document: JSONDocument, key: String, declared: Bool) throws(Refusal) -> SQLiteValue {
        func misfit(_ kind: String) -> Refusal {
            let what = declared ? "is declared \(type.rawValue)" : "is edited as \(type.rawValue)"
            return Refusal("key \(ValueFormatting.quoted(key)) \(what): \(kind) does not fit")
        }
        func parse(_ text: String) throws(Refusal) -> SQLiteValue {
            do {
                return try type.parse(text)
            } catch {
                let prefix = declared ? "key \(ValueFormatting.quoted(key)) is declared \(type.rawValue): " : ""
                throw Refusal(prefix + error.message)
            }
        }
        switch (type, node) {
        case (_, .string(let text)):
            return try parse(text)
        case (.json, .array(_, let source)), (.json, .object(_, let source)):
            return .text(document.text(of: source))
        case (.json, .number(let lexeme)):
            return .text(lexeme)
        case (.json, .bool(let flag)):
            return .text(flag ? "true" : "false")
        case (.int, .number(let lexeme)), (.double, .number(let lexeme)):
            return try parse(lexeme)
        case (.date, .number(let lexeme)):
            guard let seconds = Double(lexeme), seconds.isFinite else { throw misfit("the number \(lexeme)") }
            return .real(seconds)
        case (.bool, .bool(let flag)):
            return .integer(flag ? 1 : 0)
        case (.bool, .number(let lexeme)) where lexeme == "0" || lexeme == "1":
            return .integer(lexeme == "1" ? 1 : 0)
        case (_, .bool):
            throw misfit("true/false")
        case (_, .number(let lexeme)):
            throw misfit("the number \(lexeme)")
        case (_, .array):
            throw misfit("an array")
        case (_, .object):
            throw misfit("an object")
        case (_, .null):
            throw Refusal("null is not a value; DELETE the key to remove it")
        case (_, .loneSurrogateString):
            throw Refusal("the value of key \(ValueFormatting.quoted(key)): " + ExportFormat.loneSurrogate)
        }
    }
}
#endif
