#if Console
import HTTPTypes
import PrefsFormats
import SQLiteDefaults

extension DefaultsConsole {
    /// How many bytes of JSON the history route writes at a time.
    static let historyChunkSize = 64 << 10
    /// How many entries the history route reads from the store at a time: with values of up
    /// to 16 KiB each, at most about 1.6 MiB of them are in memory at once.
    static let historyReadSize = 100

    /// `GET api/history?key=K&limit=N&after=SEQ`: the key's newest changes (every key's when
    /// `key` is absent; `key` may repeat), newest first, at most `limit` (500 by default, at
    /// most 5,000, as `api/keys`), those after `after` in that order (older; `before=SEQ` is the
    /// same cursor under its earlier name) when given, with
    /// the members of `prefs history --json` (``ConsoleJSON/historyEntry(_:declaredType:secret:showsDigest:)``:
    /// `actor` and `reason` when known; a secret's value never, its digest only for a principal
    /// that may read it); an unknown key has none (`[]`). 400 `{"error"}` for
    /// an empty key, a bad limit or cursor.
    ///
    /// The body stays the array earlier clients read; a full page (`limit` entries) names the
    /// next one's cursor in its head: `X-History-Next: SEQ` (`X-History-Next-Before`, the same
    /// number, for earlier clients) and `Link: <…&after=SEQ>; rel="next"`. The entries are read ``historyReadSize`` at
    /// a time and written in chunks as they are encoded, so neither the page nor its JSON is
    /// ever in memory whole: a first pass keeps only the sequence numbers (for the cursor,
    /// which goes in the head), the second reads the same entries again to write them.
    func history(_ request: ConsoleRequest) -> ConsoleResponse {
        let query: HistoryQuery
        let sequences: [Int64]
        // By the keys' bytes: a key's canonically equivalent twin is another key, with its own
        // declaration (or none) and its own secrecy.
        let declaredTypes: [HashedKey: DefaultsValueKind]
        let secrets: Set<HashedKey>
        do {
            query = try HistoryQuery(keys: request.queryValues("key"), limits: request.queryValues("limit"),
                                     befores: request.queryValues("before"), afters: request.queryValues("after"))
            sequences = try historySequences(query)
            // Read after the sequences, as `prefs history` reads them after its entries.
            declaredTypes = sequences.isEmpty ? [:]
                : Dictionary(try store.declarations().map { (HashedKey($0.key), $0.type) }, uniquingKeysWith: { first, _ in first })
            secrets = sequences.isEmpty ? [] : try catalog.secretKeys()
        } catch {
            return Self.responding { throw error }
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        if query.limit > 0, sequences.count == query.limit, let next = sequences.last {
            headers[HTTPField.Name("X-History-Next")!] = String(next)
            headers[HTTPField.Name("X-History-Next-Before")!] = String(next)
            var items = (query.keys ?? []).map { "key=" + Self.queryEscaped($0) }
            items += ["limit=\(query.limit)", "after=\(next)"]
            headers[HTTPField.Name("Link")!] = "<" + request.path + "?" + items.joined(separator: "&") + ">; rel=\"next\""
        }
        let (catalog, store, keys) = (self.catalog, self.store, query.keys)
        // Read now: the body is written after the route returns, outside the principal's scope.
        let principal = ConsolePrincipal.current ?? .owner
        let body = ConsoleResponse.Body.stream { write in
            var chunk = "["
            var written = 0
            // From just above the first entry down to the last one the first pass saw: entries
            // committed since are newer and stay out; pruned ones are simply missing.
            var before = sequences.first.map { $0 + 1 }
            while written < sequences.count, let cursor = before {
                // Read on the store's thread: the stream's task runs on the shared pool.
                let read = try await store.onStoreThread { try catalog.history(keys: keys, limit: Self.historyReadSize, before: cursor) }
                let page = read.prefix { $0.sequence >= sequences[sequences.count - 1] }
                for entry in page {
                    chunk += (written == 0 ? "\n" : ",\n") + ConsoleJSON.historyEntry(entry, declaredType: declaredTypes[HashedKey(entry.key)],
                                                                                        secret: secrets.contains(HashedKey(entry.key)),
                                                                                        showsDigest: principal.seesDigest(ofKeyBytes: Array(entry.key.utf8)))
                    written += 1
                    if chunk.utf8.count >= Self.historyChunkSize {
                        try await write(chunk)
                        chunk = ""
                    }
                }
                before = read.count == Self.historyReadSize ? read.last?.sequence : nil
            }
            chunk += written == 0 ? "]" : "\n]"
            try await write(chunk)
        }
        return ConsoleResponse(status: .ok, headers: headers, body: body)
    }

    /// The sequence numbers of the entries `query` names, newest first, read a few at a time
    /// (the values are dropped as soon as they are read).
    private func historySequences(_ query: HistoryQuery) throws -> [Int64] {
        var sequences: [Int64] = []
        var before = query.before
        while sequences.count < query.limit {
            let want = min(Self.historyReadSize, query.limit - sequences.count)
            let page = try catalog.history(keys: query.keys, limit: want, before: before).map(\.sequence)
            sequences += page
            guard page.count == want, let last = page.last else { break }
            before = last
        }
        return sequences
    }

    /// A query value percent-encoded (every byte but unreserved ones).
    private static func queryEscaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }
}
#endif
