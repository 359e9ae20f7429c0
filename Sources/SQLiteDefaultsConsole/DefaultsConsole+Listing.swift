#if Console
import Foundation
import HTTPTypes
import PrefsFormats
import SQLiteDefaults

extension DefaultsConsole {
    /// How many keys the key list reads from the store at a time: with values of up to 16 KiB
    /// each, at most about 8 MiB of them are in memory at once, whatever the page's limit.
    static let keysReadSize = 500
    /// How many bytes of JSON the key list writes at a time.
    static let keysChunkSize = 64 << 10

    /// `GET api/keys?prefix=P&contains=S&limit=N&after=KEY` (``KeysQuery``): `{"keys": […],
    /// "history": true, "next": KEY, "nextHex": HEX}`, at most `limit` keys (500 by default,
    /// at most 5,000) in key order (by bytes), each as ``ConsoleJSON/entry(_:principal:)`` writes
    /// it (saying whether the request's principal may change it). `next` and `nextHex` name
    /// the page's last key, the next page's `after` (or `afterHex`), and are absent on the last
    /// page. 400 `{"error"}` for a bad query, 503 when the store cannot be read.
    ///
    /// The keys are read ``keysReadSize`` at a time on the store's own thread, each slice from
    /// the key index with a LIMIT, and written as they are encoded: neither the list nor its
    /// JSON is ever in memory whole, however many keys the file holds.
    func listKeys(_ request: ConsoleRequest) async -> ConsoleResponse {
        let query: KeysQuery
        do {
            query = try KeysQuery(request)
        } catch {
            return ConsoleResponses.json(ConsoleJSON.error(error.message), status: .badRequest)
        }
        let principal = ConsolePrincipal.current ?? .owner
        let catalog = self.catalog, store = self.store
        let read: @Sendable (Data?, Int) async throws -> ConsoleCatalog.Page = { after, limit in
            try await store.onStoreThread {
                try catalog.page(prefix: query.prefix, contains: query.contains, after: after, limit: min(limit, Self.keysReadSize))
            }
        }
        let first: ConsoleCatalog.Page
        do {
            first = try await read(query.after, query.limit)
        } catch {
            return Self.responding { throw error }
        }
        let history = catalog.hasHistory
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let body = ConsoleResponse.Body.stream { write in
            var chunk = #"{"keys":["#
            var page = first
            var written = 0
            while true {
                for entry in page.entries {
                    chunk += (written == 0 ? "\n" : ",\n") + ConsoleJSON.entry(entry, principal: principal)
                    written += 1
                    if chunk.utf8.count >= Self.keysChunkSize {
                        try await write(chunk)
                        chunk = ""
                    }
                }
                // A slice that came back short but not last (declared keys merged in, or rows
                // of NULL skipped) reads on until the page is full or the keys end.
                guard let next = page.next, written < query.limit else { break }
                page = try await read(next, query.limit - written)
            }
            chunk += (written == 0 ? "]" : "\n]") + #","history":"# + (history ? "true" : "false")
            if let next = page.next {
                let address = KeyAddress(bytes: next)
                chunk += #","next":"# + ExportFormat.quote(address.shown) + #","nextHex":"# + ExportFormat.quote(address.hex)
            }
            try await write(chunk + "}")
        }
        return ConsoleResponse(status: .ok, headers: headers, body: body)
    }
}
#endif
