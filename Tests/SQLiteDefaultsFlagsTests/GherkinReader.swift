#if Flags
/// A small Gherkin reader, enough for flagd-testbed's suites: `Feature`, `Background`,
/// `Scenario`, `Scenario Outline` with `Examples` tables, tags on each, steps with data tables.
struct GherkinFeature {
    struct Step {
        var text: String
        var table: [[String]] = []
    }

    struct Examples {
        var tags: Set<String>
        var header: [String] = []
        var rows: [[String]] = []
    }

    struct Scenario {
        var name: String
        var tags: Set<String>
        var steps: [Step] = []
        var examples: [Examples] = []
        var isOutline: Bool
    }

    /// One runnable case: a scenario, or one row of an outline's examples.
    struct Case {
        var name: String
        var tags: Set<String>
        var steps: [Step]
    }

    var tags: Set<String> = []
    var background: [Step] = []
    var scenarios: [Scenario] = []

    struct ReadError: Error, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    init(text: String) throws {
        enum Section { case none, background, scenario, examples }
        var section = Section.none
        var pendingTags: Set<String> = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("@") {
                pendingTags.formUnion(line.split(separator: " ").filter { $0.hasPrefix("@") }.map(String.init))
                continue
            }
            if line.dropPrefix("Feature:") != nil {
                tags = pendingTags
                pendingTags = []
            } else if line.dropPrefix("Background:") != nil {
                section = .background
            } else if let rest = line.dropPrefix("Scenario Outline:") ?? line.dropPrefix("Scenario Template:") {
                scenarios.append(Scenario(name: rest.trimmingWhitespace(), tags: pendingTags, isOutline: true))
                pendingTags = []
                section = .scenario
            } else if let rest = line.dropPrefix("Scenario:") ?? line.dropPrefix("Example:") {
                scenarios.append(Scenario(name: rest.trimmingWhitespace(), tags: pendingTags, isOutline: false))
                pendingTags = []
                section = .scenario
            } else if line.dropPrefix("Examples:") != nil || line.dropPrefix("Scenarios:") != nil {
                guard !scenarios.isEmpty else { throw ReadError(line: number + 1, message: "Examples outside a scenario") }
                scenarios[scenarios.count - 1].examples.append(Examples(tags: pendingTags))
                pendingTags = []
                section = .examples
            } else if line.hasPrefix("|") {
                let cells = Self.cells(line)
                switch section {
                case .examples:
                    let last = scenarios.count - 1
                    let examples = scenarios[last].examples.count - 1
                    if scenarios[last].examples[examples].header.isEmpty {
                        scenarios[last].examples[examples].header = cells
                    } else {
                        scenarios[last].examples[examples].rows.append(cells)
                    }
                case .background:
                    guard !background.isEmpty else { throw ReadError(line: number + 1, message: "a table with no step") }
                    background[background.count - 1].table.append(cells)
                case .scenario:
                    let last = scenarios.count - 1
                    guard !scenarios[last].steps.isEmpty else { throw ReadError(line: number + 1, message: "a table with no step") }
                    scenarios[last].steps[scenarios[last].steps.count - 1].table.append(cells)
                case .none:
                    throw ReadError(line: number + 1, message: "a table outside a scenario")
                }
            } else if let step = Self.step(line) {
                switch section {
                case .background: background.append(Step(text: step))
                case .scenario: scenarios[scenarios.count - 1].steps.append(Step(text: step))
                case .none, .examples: throw ReadError(line: number + 1, message: "a step outside a scenario")
                }
            } else if section == .none {
                continue // the feature's description
            } else {
                throw ReadError(line: number + 1, message: "cannot read \"\(line)\"")
            }
        }
    }

    /// Every runnable case, outlines expanded row by row, with the tags of the feature, the
    /// scenario and the examples.
    var cases: [Case] {
        var out: [Case] = []
        for scenario in scenarios {
            let scenarioTags = tags.union(scenario.tags)
            guard scenario.isOutline else {
                out.append(Case(name: scenario.name, tags: scenarioTags, steps: background + scenario.steps))
                continue
            }
            for examples in scenario.examples {
                for (index, row) in examples.rows.enumerated() {
                    func fill(_ text: String) -> String {
                        var text = text
                        for (name, value) in zip(examples.header, row) { text = text.replacing("<\(name)>", with: value) }
                        return text
                    }
                    let steps = (background + scenario.steps).map { Step(text: fill($0.text), table: $0.table.map { $0.map(fill) }) }
                    out.append(Case(name: "\(scenario.name) #\(index + 1) \(row.joined(separator: " | "))",
                                    tags: scenarioTags.union(examples.tags), steps: steps))
                }
            }
        }
        return out
    }

    static func step(_ line: String) -> String? {
        for keyword in ["Given ", "When ", "Then ", "And ", "But ", "* "] {
            if let rest = line.dropPrefix(keyword) { return rest }
        }
        return nil
    }

    /// A table row's cells: `|` separates, `\|`, `\\` and `\n` are escapes, and any other
    /// backslash stays (the suite's `A\u0000B` is those six characters).
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var characters = line.dropFirst().makeIterator()
        while let character = characters.next() {
            if character == "\\" {
                switch characters.next() {
                case "|"?: current.append("|")
                case "\\"?: current.append("\\")
                case "n"?: current.append("\n")
                case let other?: current.append("\\"); current.append(other)
                case nil: current.append("\\")
                }
            } else if character == "|" {
                cells.append(current.trimmingWhitespace())
                current = ""
            } else {
                current.append(character)
            }
        }
        return cells
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
    }

    func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
#endif
