extension StrictJSON {
    /// Lets the schema's JSON check run ``StrictJSON`` on this library's connections.
    ///
    /// Trigger `defaults_json_validate` (Migrations/0014) judges a `json` key's text with a strict
    /// validator written in SQL (a walk over the table `defaults_json_grammar`), which reads about
    /// 1.6 µs a byte: right for a `sqlite3` shell, far
    /// too slow for this library's writes. On this library's connections (those whose
    /// `sqlite_source_id()` is this process's identity, see ``WriterIdentity``) the trigger asks
    /// `sqlite_compileoption_used(text)` instead, which this function overrides, for the
    /// connection alone, to answer whether `text` is strict JSON, in Swift. A function that every
    /// SQLite from 3.34 on has, with one argument and innocuous, is needed: the trigger must
    /// compile in every client, though only this library's connections take that branch. SQLite's
    /// own meaning (whether the library was built with a compile option) is never asked on this
    /// library's connections.
    static func install(on database: Database) throws {
        try database.definePredicate("sqlite_compileoption_used", operation: "installing the JSON check of declared keys") { text, length in
            StrictJSON.isValid(UnsafeBufferPointer(start: text, count: length))
        }
    }
}
