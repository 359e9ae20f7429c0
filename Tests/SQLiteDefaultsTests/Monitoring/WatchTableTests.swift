import DefaultsTestSupport
@testable import SQLiteDefaults
import Synchronization
import Testing
import TestScheduling

/// The monitor's watch table against a fake ``FileEventSource``: which watches it asks for,
/// and which files look after which events, with no kernel involved.
@Suite("Monitor watch table", .offThePool)
struct WatchTableTests {
    /// Hands out watch numbers per path, refuses what it is told to, records removals.
    final class FakeSource: FileEventSource {
        struct State {
            var watches: [String: Int32] = [:]
            var removed: [Int32] = []
            var missing: Set<String> = []
            var refused: Set<String> = []
        }
        let state = Locked(State())
        var unavailableReason: String? { nil }

        func addWatch(_ path: String, for kind: WatchKind) -> Result<Int32, WatchRefusal> {
            state.withLock { state in
                if state.missing.contains(path) { return .failure(WatchRefusal(isMissingFile: true, description: "missing")) }
                if state.refused.contains(path) { return .failure(WatchRefusal(isMissingFile: false, description: "refused")) }
                if let watch = state.watches[path] { return .success(watch) }
                let watch = Int32(state.watches.count + 1)
                state.watches[path] = watch
                return .success(watch)
            }
        }

        func removeWatch(_ watch: Int32) {
            state.withLock { state in
                state.removed.append(watch)
                state.watches = state.watches.filter { $0.value != watch }
            }
        }

        func prepareWaitingThread() {}
        func wait(timeout: UInt64?) -> [FileEvent] { [] }
        func wake() {}

        func watch(_ path: String) -> Int32? { state.withLock { $0.watches[path] } }
    }

    /// What `events` asks of the monitor: the looks ("id:event") and the files that lost their watches.
    private func apply(_ events: [FileEvent], _ table: inout WatchTable, _ source: FakeSource) -> (looks: [String], lost: [UInt64]) {
        var looks: [String] = [], lost: [UInt64] = []
        table.apply(events, source: source, lost: { lost.append($0) }, look: { looks.append("\($0):\($1)") })
        return (looks, lost)
    }

    @Test("files in one directory share its watch, which goes with the last of them")
    func directoryWatchesAreShared() throws {
        let source = FakeSource()
        var table = WatchTable()
        table.add(1, directory: "/d", name: "a.sqlite")
        table.add(2, directory: "/d", name: "b.sqlite")
        try table.watchDirectory(of: 1, source: source).get()
        try table.watchDirectory(of: 2, source: source).get()
        let directory = try #require(source.watch("/d"))
        #expect(source.state.withLock { $0.watches.count } == 1)
        table.remove(1, source: source)
        #expect(source.state.withLock { $0.removed }.isEmpty)
        table.remove(2, source: source)
        #expect(source.state.withLock { $0.removed } == [directory])
    }

    @Test("the one-shot -wal watch wakes its file once, until re-armed")
    func oneShotWalWatch() throws {
        let source = FakeSource()
        var table = WatchTable()
        table.add(1, directory: "/d", name: "a.sqlite")
        _ = table.watchDirectory(of: 1, source: source)
        #expect(table.armWalWatch(1, source: source) == nil)
        let wal = try #require(source.watch("/d/a.sqlite-wal"))
        let event = FileEvent(watch: wal, kinds: .written, name: "")
        let looks1 = apply([event], &table, source).looks
        #expect(looks1 == ["1:filesChanged"])
        // Fired: a second event on that number is not this file's any more.
        let looks2 = apply([event], &table, source).looks
        #expect(looks2.isEmpty)
        #expect(table.armWalWatch(1, source: source) == nil)
        let looks3 = apply([event], &table, source).looks
        #expect(looks3 == ["1:filesChanged"])
    }

    @Test("a missing -wal is armed once the directory sees it created; any other refusal means polling")
    func missingAndRefusedWal() throws {
        let source = FakeSource()
        source.state.withLock { $0.missing = ["/d/a.sqlite-wal"]; $0.refused = ["/d/b.sqlite-wal"] }
        var table = WatchTable()
        table.add(1, directory: "/d", name: "a.sqlite")
        table.add(2, directory: "/d", name: "b.sqlite")
        _ = table.watchDirectory(of: 1, source: source)
        _ = table.watchDirectory(of: 2, source: source)
        #expect(table.armWalWatch(1, source: source) == nil)
        #expect(table.armWalWatch(2, source: source)?.description.contains("refused") == true)
        // Not retried while missing (no system call per safety poll of an idle file).
        source.state.withLock { $0.missing = [] }
        #expect(table.armWalWatch(1, source: source) == nil)
        #expect(source.watch("/d/a.sqlite-wal") == nil)
        let directory = try #require(source.watch("/d"))
        let created = FileEvent(watch: directory, kinds: .created, name: "a.sqlite-wal")
        let looks4 = apply([created], &table, source).looks
        #expect(looks4 == ["1:filesChanged"])
        #expect(table.armWalWatch(1, source: source) == nil)
        #expect(source.watch("/d/a.sqlite-wal") != nil)
    }

    @Test("directory events: the database replaced, a journal written, the directory gone, events lost")
    func directoryEvents() throws {
        let source = FakeSource()
        var table = WatchTable()
        table.add(1, directory: "/d", name: "a.sqlite")
        table.add(2, directory: "/e", name: "b.sqlite")
        _ = table.watchDirectory(of: 1, source: source)
        _ = table.watchDirectory(of: 2, source: source)
        let d = try #require(source.watch("/d"))
        let e = try #require(source.watch("/e"))
        let looks5 = apply([FileEvent(watch: d, kinds: .movedIn, name: "a.sqlite")], &table, source).looks
        #expect(looks5 == ["1:databaseFileEvent"])
        let looks6 = apply([FileEvent(watch: d, kinds: .closedAfterWriting, name: "a.sqlite")], &table, source).looks
        #expect(looks6 == ["1:filesChanged"])
        let looks7 = apply([FileEvent(watch: d, kinds: .created, name: "a.sqlite-journal")], &table, source).looks
        #expect(looks7 == ["1:filesChanged"])
        let looks8 = apply([FileEvent(watch: d, kinds: .created, name: "unrelated")], &table, source).looks
        #expect(looks8.isEmpty)
        let gone = apply([FileEvent(watch: e, kinds: .watchRemoved, name: "")], &table, source)
        #expect(gone.looks == ["2:databaseFileEvent"])
        #expect(gone.lost == [2])
        let overflow = apply([FileEvent(watch: -1, kinds: .overflow, name: "")], &table, source)
        #expect(Set(overflow.looks) == ["1:databaseFileEvent", "2:databaseFileEvent"])
    }
}
