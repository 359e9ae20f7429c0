#if Flags
import SQLiteDefaults
import SQLiteDefaultsFlags
import Testing
import TestScheduling

/// The package has one JSON grammar, the library's (`StrictJSON`, which a `json` key's triggers
/// walk in SQL, held to it by StrictJSONTests): the flags' reader takes exactly the texts a
/// `json` key takes, so a flag set the store keeps is one the evaluator reads.
@Suite(.offThePool) struct FlagJSONParserTests {
    static let texts = [
        #""\ud800""#, #""\udc00""#, #"["\ud800\u0041"]"#, #""\ud83d\ude00""#, #""\u00e9\uD800""#, #""\uD800\uD800""#,
        #""\u12G4""#, #""\x""#, "[1,]", "01", "-0", "1e5", "1E+5", "1.", ".5", "\u{FEFF}[]", " [ 1 , {\"a\" : null} ] ",
        "\"a\u{2028}b\"", "{\"a\":1,\"a\":2}", "[\"\t\"]", "\"a\u{7F}\"", "\u{00A0}1", "tru", "nul", "[true,false,null]",
        String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000),
        String(repeating: "[", count: 1_001) + String(repeating: "]", count: 1_001),
        String(repeating: "{\"a\":", count: 1_000) + "1" + String(repeating: "}", count: 1_000),
        String(repeating: "{\"a\":", count: 1_001) + "1" + String(repeating: "}", count: 1_001),
        "\"\\\"\"", "\"\\\\\"", "\"\\/\"", "{}", "[]", "{\"a\" 1}", "\r\n\t1\t", "\u{0B}1", "", " ", "-", "1e", "[-]",
        "123456789012345678901234567890", "1e400", "{\"a\":[1,{\"b\":null}],\"c\":\"\\\\\"}",
    ]

    /// A number no Double holds (`1e400`) is JSON but no value to evaluate: refused by name, the
    /// only text the grammar takes that this reader does not.
    @Test("FlagJSONParser takes exactly the texts a json key takes, lone surrogates included; a number no Double holds is refused by name", arguments: texts)
    func oneGrammar(_ text: String) {
        let grammar = DefaultsValueKind.json.accepts(.text(text))
        do {
            _ = try FlagJSONParser.parse(text)
            #expect(grammar, "\(text.prefix(40).debugDescription): FlagJSONParser takes what the grammar refuses")
        } catch {
            #expect(!grammar || "\(error)".contains("number out of range"), "\(text.prefix(40).debugDescription): \(error)")
        }
    }
}
#endif
