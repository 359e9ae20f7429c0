/// The monitor's plan: when each watched file wants its next look, smallest first.
///
/// A min-heap of `(deadline, file)` that is never updated in place: a file whose deadline
/// changes is pushed again, and entries that no longer match their file are dropped when they
/// reach the top (the monitor checks them against the file). So each wake-up of the monitor
/// costs a few heap steps, not a walk over every file: with 10,000 idle stores the walk was
/// most of the monitor's idle CPU.
struct DeadlineHeap {
    struct Entry {
        let deadline: UInt64
        let id: UInt64
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func push(_ deadline: UInt64, _ id: UInt64) {
        entries.append(Entry(deadline: deadline, id: id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func popFirst() -> Entry? {
        guard let top = entries.first else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return top }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
