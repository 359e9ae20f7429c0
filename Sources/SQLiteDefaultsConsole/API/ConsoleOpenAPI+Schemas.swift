#if Console
/// The document's schemas: the bodies the console reads and writes, and the event-stream
/// event, described once and referred to by name from the operations.
extension ConsoleOpenAPI {
    /// Any JSON value, in the export format; null where the member says so.
    static func value(_ description: String, nullable: Bool = true) -> [String: Any] {
        nullable ? ["description": description, "nullable": true] : ["description": description]
    }

    static func string(nullable: Bool = false, _ description: String? = nil) -> [String: Any] {
        var schema: [String: Any] = ["type": "string"]
        if nullable { schema["nullable"] = true }
        if let description { schema["description"] = description }
        return schema
    }

    static func object(_ properties: [String: Any], required: [String], closed: Bool = false) -> [String: Any] {
        ["type": "object", "properties": properties, "required": required, "additionalProperties": !closed]
    }

    static let valueTypes = ["bool", "int", "double", "string", "json", "data", "date", "url"]

    static var schemas: [String: Any] {
        [
            "Error": object(["error": string("what was refused, in words")], required: ["error"], closed: true),
            "Conflict": object([
                "error": string("why the condition failed"),
                "current": ["allOf": [ref(schema: "Entry")], "nullable": true,
                            "description": "the key as it is now; null when neither stored nor declared"],
            ], required: ["error", "current"], closed: true),
            "Writer": ["type": "object", "description": "who made a change, as `prefs history --json` says it",
                       "properties": ["kind": ["type": "string"]], "required": ["kind"], "additionalProperties": true],
            "HistoryEntry": object([
                "seq": ["type": "integer", "format": "int64"],
                "key": string(),
                "type": ["type": "string", "enum": valueTypes],
                "value": value("the value written; null for a removal, a secret, or a value too large to keep"),
                "omitted": ["type": "integer", "description": "the size of a value too large to keep"],
                "secret": ["type": "boolean"],
                "digest": string(nullable: false, "for a secret written by this library, to a principal that may read it (an admin): an HMAC of the key and the value under the file's own key, hex"),
                "time": ["type": "string", "format": "date-time"],
                "writer": ref(schema: "Writer"),
                "actor": string(),
                "reason": string(),
            ], required: ["seq", "key", "value", "time", "writer"]),
            "Entry": object([
                "key": string(nullable: false, "the key (a key that is not UTF-8: its escaped address)"),
                "value": value("the value; null when unset, or secret"),
                "text": string(nullable: true, "the value as `prefs read` prints it"),
                "type": ["type": "string", "enum": valueTypes],
                "storage": string(nullable: true, "the storage class held now"),
                "declared": ["type": "boolean"],
                "seq": ["type": "integer", "format": "int64", "minimum": 0, "description": "the key's version (what If-Match names)"],
                "secret": ["type": "boolean"],
                "set": ["type": "boolean", "description": "whether a secret key has a value"],
                "keyHex": string(),
                "default": value("the declared default"),
                "defaultText": string(nullable: true),
                "summary": string(nullable: true),
                "allowed": ["type": "array", "items": ["type": "string"], "nullable": true],
                "changed": ["allOf": [ref(schema: "HistoryEntry")], "nullable": true, "description": "the key's last change"],
                "writable": ["type": "boolean", "description": "whether the request's principal may change it"],
            ], required: ["key", "value", "text", "type", "storage", "declared", "seq", "default", "defaultText", "summary",
                          "allowed", "changed", "writable"]),
            "KeyList": object([
                "keys": ["type": "array", "items": ref(schema: "Entry")],
                "history": ["type": "boolean"],
                "next": string("the next page's `after` (the last key of this page); absent on the last page"),
                "nextHex": string("the next page's `afterHex` (the last key's bytes in hex); absent on the last page"),
            ], required: ["keys", "history"]),
            "Session": object([
                "name": string(),
                "role": ["type": "string", "enum": ["read", "write", "admin"]],
                "prefixes": ["type": "array", "items": ["type": "string"]],
            ], required: ["prefixes"]),
            "SecretValue": object([
                "key": string(),
                "seq": ["type": "integer", "format": "int64"],
                "value": value("the value; null when unset"),
                "text": string(nullable: true),
            ], required: ["key", "seq", "value", "text"]),
            "Write": object([
                "value": value("the value to store: any JSON but null (DELETE removes), stored as the declared type says, else as its JSON kind says"),
                "type": ["type": "string", "enum": valueTypes, "nullable": true,
                         "description": "the type to parse the value as (a declared key's must be its own)"],
                "reason": string("why, recorded in the history (at most 16 KiB of UTF-8)"),
            ], required: ["value"], closed: true),
            "ServerSentEvent": object([
                // No enum: a stream may name events a client does not know, and skips them.
                "event": ["type": "string", "minLength": 1,
                          "description": "the event's name: `message` (no `event:` line) for a change; `compacted`, `declarations`, `overflow`"],
                "data": string("the `data:` lines, joined: JSON (an Event object for a change; `{\"oldest\": SEQ, \"newest\": SEQ}` for `compacted`, `{}` for the others)"),
                "id": ["type": "string", "pattern": "^[0-9]+$", "description": "a change's history sequence (`id:`), for `Last-Event-ID`"],
                "retry": ["type": "integer", "minimum": 0, "description": "the reconnection delay in milliseconds"],
            ], required: ["event", "data"]),
            "Event": object([
                "seq": ["type": "integer", "format": "int64"],
                "key": string(),
                "value": value("null when removed, or secret"),
                "text": string(nullable: true),
                "storage": string(nullable: true),
                "secret": ["type": "boolean"],
                "origin": ["type": "string", "enum": ["local", "external"]],
                "time": ["type": "string", "format": "date-time"],
                "writer": ["allOf": [ref(schema: "Writer")], "nullable": true],
                "actor": string(),
                "reason": string(),
            ], required: ["seq", "key", "value", "text", "storage", "origin", "time", "writer"]),
        ]
    }
}
#endif
