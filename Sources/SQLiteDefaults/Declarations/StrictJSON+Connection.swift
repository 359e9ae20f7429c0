import CSQLiteDefaults

extension StrictJSON {
    /// Lets the schema's JSON check run ``StrictJSON`` on this library's connections.
    ///
    /// Trigger `defaults_json_validate` (Migrations/0010) judges a `json` key's text with a strict
    /// validator written in SQL, which reads about 1.5 µs a byte: right for a `sqlite3` shell, far
    /// too slow for this library's writes. On this library's connections (those whose
    /// `sqlite_source_id()` is this process's identity, see ``WriterIdentity``) the trigger asks
    /// `sqlite_compileoption_used(text)` instead, which this function overrides, for the
    /// connection alone, to answer whether `text` is strict JSON, in Swift. A function that every
    /// SQLite from 3.34 on has, with one argument and innocuous, is needed: the trigger must
    /// compile in every client, though only this library's connections take that branch. SQLite's
    /// own meaning (whether the library was built with a compile option) is never asked on this
    /// library's connections.
    static func install(on database: Database) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(database.handle, "sqlite_compileoption_used", 1, flags, nil, { context, count, arguments in
            guard count == 1, let argument = arguments?[0] else { return sqlite3_result_int(context, 0) }
            guard let text = sqlite3_value_text(argument) else { return sqlite3_result_int(context, 0) }
            let length = Int(sqlite3_value_bytes(argument))  // after _text: the length of that text
            let valid = StrictJSON.isValid(UnsafeBufferPointer(start: text, count: length))
            sqlite3_result_int(context, valid ? 1 : 0)
        }, nil, nil, nil)
        guard code == SQLITE_OK else { throw database.error(code, "installing the JSON check of declared keys") }
    }
}
