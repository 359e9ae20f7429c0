/// Whether text is JSON, as the schema decides it for a `json` key: strict RFC 8259, the same
/// answer on every SQLite version (see ``StrictJSON``). Lets a refusal be explained before
/// anything is sent; the database stays the judge.
enum JSONValidity {
    static func isValid(_ text: String) -> Bool {
        StrictJSON.isValid(text)
    }
}
