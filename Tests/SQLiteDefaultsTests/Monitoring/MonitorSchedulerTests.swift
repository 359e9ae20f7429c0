@testable import SQLiteDefaults
import Testing
import TestScheduling

/// The monitor's scheduler on a fake clock: "now" is a number the test moves, nothing sleeps.
@Suite("Monitor scheduler", .offThePool)
struct MonitorSchedulerTests {
    typealias Scheduler = MonitorScheduler
    static let ms: UInt64 = 1_000_000
    static let never = UInt64.max

    /// Runs everything due at the scheduler's next deadline, answering `outcome`, and returns
    /// the time and the runs.
    @discardableResult
    private func step(_ scheduler: inout Scheduler, outcome: MonitorOutcome = .nothingNew, latency: UInt64 = 0)
        -> (now: UInt64, runs: [Scheduler.Run]) {
        let now = scheduler.earliestDeadline()
        guard now != Self.never else { return (now, []) }
        let runs = scheduler.takeDue(now: now)
        for run in runs { scheduler.finished(run, outcome: outcome, now: now + latency) }
        return (now, runs)
    }

    @Test("a wake-up that finds nothing new is re-checked quickly, then slowly, then left to the safety poll")
    func recheckAfterAWakeUp() {
        var scheduler = Scheduler()
        scheduler.add(1, safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0)
        #expect(scheduler.earliestDeadline() == 2_000 * Self.ms)  // only the safety poll is planned
        scheduler.mark(1, .filesChanged, now: 10)
        #expect(scheduler.earliestDeadline() == 10)
        #expect(scheduler.takeDue(now: 9).isEmpty)
        let first = scheduler.takeDue(now: 10)
        #expect(first == [.init(id: 1, event: .filesChanged, fromEvent: true)])
        // Running: nothing is due for it until the handler answers.
        #expect(scheduler.earliestDeadline() == Self.never)
        scheduler.finished(first[0], outcome: .nothingNew, now: 100)
        var times: [UInt64] = []
        var now: UInt64 = 100
        while true {
            let next = scheduler.earliestDeadline()
            if next >= 2_000 * Self.ms { break }
            let runs = scheduler.takeDue(now: next)
            #expect(runs == [.init(id: 1, event: .filesChanged, fromEvent: false)])
            times.append(next - now)
            now = next
            scheduler.finished(runs[0], outcome: .nothingNew, now: now)
        }
        #expect(times == Scheduler.quickRechecks + Scheduler.slowRechecks)
        // After the last re-check only the safety poll is left.
        let poll = scheduler.takeDue(now: 2_000 * Self.ms)
        #expect(poll == [.init(id: 1, event: .safetyPoll, fromEvent: false)])
    }

    @Test("a look that sees another connection's commit, or only its own, skips the quick re-checks")
    func commitsSkipTheQuickRechecks() {
        for outcome in [MonitorOutcome.sawCommit, .ownCommits] {
            var scheduler = Scheduler()
            scheduler.add(1, safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0)
            scheduler.mark(1, .filesChanged, now: 5)
            let runs = scheduler.takeDue(now: 5)
            scheduler.finished(runs[0], outcome: outcome, now: 20)
            #expect(scheduler.earliestDeadline() == 20 + Scheduler.slowRechecks[0], "\(outcome)")
        }
    }

    @Test("after a wake-up that found nothing from others, the file's next event waits out the cool-down; another's commit clears it")
    func coolDown() {
        for (outcome, expected) in [(MonitorOutcome.ownCommits, 1_000 + Scheduler.cooldown), (.sawCommit, 7_000)] {
            var scheduler = Scheduler()
            scheduler.add(1, safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0)
            scheduler.mark(1, .filesChanged, now: 0)
            let woken = scheduler.takeDue(now: 0)
            scheduler.finished(woken[0], outcome: .nothingNew, now: 1_000)  // cool-down until 1_000 + 1 ms
            // The first quick re-check: its answer decides whether the cool-down stays.
            let recheck = scheduler.takeDue(now: scheduler.earliestDeadline())
            #expect(recheck.first?.fromEvent == false)
            scheduler.finished(recheck[0], outcome: outcome, now: 6_000)
            scheduler.mark(1, .filesChanged, now: 7_000)
            #expect(scheduler.earliestDeadline() == expected, "\(outcome)")
            #expect(scheduler.takeDue(now: expected) == [.init(id: 1, event: .filesChanged, fromEvent: true)])
        }
    }

    @Test("a busy store is asked again a millisecond later")
    func busyRetries() {
        var scheduler = Scheduler()
        scheduler.add(1, safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0)
        scheduler.mark(1, .databaseFileEvent, now: 50)
        let runs = scheduler.takeDue(now: 50)
        #expect(runs == [.init(id: 1, event: .databaseFileEvent, fromEvent: true)])
        scheduler.finished(runs[0], outcome: .busy, now: 60)
        #expect(scheduler.earliestDeadline() == 60 + Scheduler.busyRetry)
    }

    @Test("a database-file event is not downgraded by a plain change before it is handled")
    func databaseFileEventsStick() {
        var scheduler = Scheduler()
        scheduler.add(1, safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0)
        scheduler.mark(1, .databaseFileEvent, now: 10)
        scheduler.mark(1, .filesChanged, now: 11)
        #expect(scheduler.takeDue(now: 11) == [.init(id: 1, event: .databaseFileEvent, fromEvent: true)])
    }

    @Test("files sharing a safety-poll interval take turns: one look per interval among them all; alone again, a file is looked at every interval")
    func safetyPollsAreSpread() {
        var scheduler = Scheduler()
        let interval = 100 * Self.ms
        for id in 1...50 { scheduler.add(UInt64(id), safetyPoll: interval, pollInterval: nil, now: 0) }
        // A file with another interval keeps its own timeline.
        scheduler.add(99, safetyPoll: 3 * interval, pollInterval: nil, now: 0)
        var looks: [(now: UInt64, id: UInt64)] = []
        while true {
            let (now, runs) = step(&scheduler)
            if now > 60 * interval { break }
            for run in runs {
                #expect(run.event == .safetyPoll)
                looks.append((now, run.id))
            }
        }
        let shared = looks.filter { $0.id != 99 }
        let gaps = zip(shared.dropFirst(), shared).map { $0.now - $1.now }
        #expect(gaps.allSatisfy { $0 >= interval }, "looks closer than one interval: \(gaps.filter { $0 < interval })")
        #expect(shared.count >= 55 && shared.count <= 61, "looks in 60 intervals: \(shared.count)")
        #expect(Set(shared.map(\.id)).count == 50, "every file is looked at within 50 intervals")
        #expect(looks.filter { $0.id == 99 }.count == 20)

        // The others go: after at most the slot it already holds, the last file is looked at
        // every interval.
        for id in 2...50 { scheduler.remove(UInt64(id)) }
        scheduler.remove(99)
        var alone: [UInt64] = []
        while alone.count < 10 {
            let (now, runs) = step(&scheduler)
            if runs.contains(where: { $0.id == 1 }) { alone.append(now) }
        }
        let laterGaps = zip(alone.dropFirst(2), alone.dropFirst()).map { $0 - $1 }
        #expect(laterGaps.allSatisfy { $0 == interval }, "gaps of the file left alone: \(laterGaps)")
    }

    @Test("polled files are looked at every interval, on shared instants")
    func pollingFiles() {
        var scheduler = Scheduler()
        let interval = 100 * Self.ms
        scheduler.add(1, safetyPoll: 2_000 * Self.ms, pollInterval: interval, now: 3 * Self.ms)
        scheduler.add(2, safetyPoll: 2_000 * Self.ms, pollInterval: interval, now: 7 * Self.ms)
        #expect(scheduler.isPolled(1) && scheduler.isPolled(2))
        // Rounded up to a tenth of the interval: both at 110 ms.
        let (first, runs) = step(&scheduler)
        #expect(first == 110 * Self.ms)
        #expect(Set(runs.map(\.id)) == [1, 2] && runs.allSatisfy { $0.event == .safetyPoll })
        #expect(scheduler.earliestDeadline() == 220 * Self.ms)
        // An event on a polled file gets no re-checks.
        scheduler.mark(1, .filesChanged, now: 150 * Self.ms)
        let (_, evented) = step(&scheduler)
        #expect(evented == [.init(id: 1, event: .filesChanged, fromEvent: true)])
        #expect(scheduler.earliestDeadline() == 220 * Self.ms)
    }

    @Test("a file whose watch was refused is polled from then on, no later than one interval")
    func startPolling() {
        var scheduler = Scheduler()
        scheduler.add(1, safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0)
        #expect(!scheduler.isPolled(1))
        scheduler.startPolling(1, every: 100 * Self.ms, now: 0)
        #expect(scheduler.isPolled(1))
        #expect(scheduler.earliestDeadline() == MonitorScheduler.deadline(after: 100 * Self.ms, from: 0))
    }

    @Test("the deadline heap yields entries earliest first")
    func deadlineHeapOrder() {
        var heap = DeadlineHeap()
        var generator = SystemRandomNumberGenerator()
        let deadlines = (0..<500).map { _ in UInt64.random(in: 0..<1_000, using: &generator) }
        for (index, deadline) in deadlines.enumerated() { heap.push(deadline, UInt64(index)) }
        #expect(heap.count == 500)
        var popped: [UInt64] = []
        while let entry = heap.popFirst() { popped.append(entry.deadline) }
        #expect(popped == deadlines.sorted())
        #expect(heap.isEmpty)

        // The scheduler hands out runs in deadline order across files.
        var scheduler = Scheduler()
        for id in 1...3 { scheduler.add(UInt64(id), safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0) }
        scheduler.mark(2, .filesChanged, now: 30)
        scheduler.mark(3, .filesChanged, now: 10)
        scheduler.mark(1, .filesChanged, now: 20)
        var order: [UInt64] = []
        for _ in 0..<3 {
            let next = scheduler.earliestDeadline()
            let runs = scheduler.takeDue(now: next)
            order += runs.map(\.id)
        }
        #expect(order == [3, 1, 2])
    }

    @Test("a file removed while scheduled, or while its handler runs, is never run again")
    func removedWhileScheduled() {
        var scheduler = Scheduler()
        scheduler.add(1, safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0)
        scheduler.add(2, safetyPoll: 2_000 * Self.ms, pollInterval: nil, now: 0)
        scheduler.mark(1, .filesChanged, now: 10)
        scheduler.remove(1)
        #expect(scheduler.earliestDeadline() == 2_000 * Self.ms + 2_000 * Self.ms)  // file 2's safety slot
        #expect(scheduler.takeDue(now: 1_000 * Self.ms).isEmpty)

        scheduler.mark(2, .filesChanged, now: 20)
        let running = scheduler.takeDue(now: 20)
        #expect(running.map(\.id) == [2])
        scheduler.remove(2)
        scheduler.finished(running[0], outcome: .nothingNew, now: 30)  // answers after the removal
        #expect(scheduler.earliestDeadline() == Self.never)
        #expect(scheduler.takeDue(now: Self.never - 1).isEmpty)
        #expect(scheduler.count == 0)
    }
}
