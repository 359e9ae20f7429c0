#if Configuration
import Configuration
import SQLiteDefaults

/// The first lookup, then one per changed row of the store's `DefaultsStore/updates(_:initial:)`
/// stream; ends with that stream (store closed) or when the consuming task is cancelled.
struct RowUpdates: AsyncSequence, Sendable {
    typealias Element = Result<LookupResult, any Error>
    typealias Failure = Never

    let first: Element
    /// The row the first lookup read (`.some(nil)`: missing), `nil` when it failed.
    let firstRow: SQLiteValue??
    let rows: AsyncStream<SQLiteValue?>
    let transform: @Sendable (SQLiteValue?) async -> Element

    init(first: Element, firstRow: SQLiteValue??, rows: AsyncStream<SQLiteValue?>,
         transform: @escaping @Sendable (SQLiteValue?) async -> Element) {
        self.first = first
        self.firstRow = firstRow
        self.rows = rows
        self.transform = transform
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var pending: Element?
        var last: SQLiteValue??
        var rows: AsyncStream<SQLiteValue?>.Iterator
        let transform: @Sendable (SQLiteValue?) async -> Element

        mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            if let pending {
                self.pending = nil
                return pending
            }
            while let row = await rows.next(isolation: actor) {
                // The stream repeats no row, but the first read may already hold its first one.
                if case .some(let last) = last, last == row { continue }
                last = .some(row)
                return await transform(row)
            }
            return nil
        }

        mutating func next() async -> Element? {
            await next(isolation: nil)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pending: first, last: firstRow, rows: rows.makeAsyncIterator(), transform: transform)
    }
}

/// The first snapshot, then a new one after committed changes (skipping snapshots identical to
/// the last one yielded, so a burst of buffered changes is one snapshot); ends with the
/// store's `DefaultsStore/changes()` stream (store closed) or when the task is cancelled.
struct SnapshotUpdates: AsyncSequence, Sendable {
    typealias Element = any ConfigSnapshot
    typealias Failure = Never

    let first: DefaultsConfigSnapshot
    let changes: AsyncStream<AnyDefaultsChange>
    let read: @Sendable () async -> DefaultsConfigSnapshot?

    struct AsyncIterator: AsyncIteratorProtocol {
        var pending: DefaultsConfigSnapshot?
        var last: DefaultsConfigSnapshot
        var changes: AsyncStream<AnyDefaultsChange>.Iterator
        let read: @Sendable () async -> DefaultsConfigSnapshot?

        mutating func next(isolation actor: isolated (any Actor)?) async -> (any ConfigSnapshot)? {
            if let pending {
                self.pending = nil
                return pending
            }
            while await changes.next(isolation: actor) != nil {
                guard let snapshot = await read() else { return nil }
                if snapshot.hasSameRows(as: last) { continue }
                if case .failure = snapshot.rows, case .failure = last.rows { continue }
                last = snapshot
                return snapshot
            }
            return nil
        }

        mutating func next() async -> (any ConfigSnapshot)? {
            await next(isolation: nil)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pending: first, last: first, changes: changes.makeAsyncIterator(), read: read)
    }
}
#endif
