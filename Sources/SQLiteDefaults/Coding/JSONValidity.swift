/// Whether text is JSON, as the schema decides it for a `json` key: strict RFC 8259, nested at
/// most ``DefaultsValueKind/maximumJSONDepth`` levels, the same answer on every SQLite version
/// (see ``StrictJSON``). The judge of this library's own writes since schema 15: the write path
/// passes its verdict to the upsert, and the triggers walk the same grammar in SQL for every
/// other client (the Architecture article, "One redefined built-in").
enum JSONValidity {
    static func isValid(_ text: String) -> Bool {
        StrictJSON.isValid(text)
    }

    /// The same for TEXT whose bytes are not UTF-8: the schema's check reads a value's bytes as
    /// they are (`sqlite3_value_text`), so these are judged by their bytes too.
    static func isValid<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        StrictJSON.isValid(bytes)
    }
}
