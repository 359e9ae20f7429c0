import BenchmarkSupport
import Foundation

struct Row {
    var comparison: String
    var value: String
    var target: String
    var verdict: String
    var detail: String
}

/// The table's rows, in the order they are printed.
@MainActor var rows: [Row] = []

func formatTime(_ nanoseconds: Double) -> String {
    if nanoseconds.isNaN { return "n/a" }
    if nanoseconds < 1_000 { return String(format: "%.1f ns", nanoseconds) }
    if nanoseconds < 1_000_000 { return String(format: "%.2f µs", nanoseconds / 1_000) }
    return String(format: "%.2f ms", nanoseconds / 1_000_000)
}

func formatMallocs(_ value: Double?) -> String {
    guard let value else { return "" }
    return value == value.rounded() ? "\(Int(value)) mallocs" : String(format: "%.2f mallocs", value)
}

/// The median over rounds of `a / b` in the same round.
func medianRatio(_ a: Measured, _ b: Measured) -> Double {
    Stats.median(zip(a.rounds, b.rounds).map { $0 / $1 })
}

/// A row comparing two measured workloads; `limit` is the target (ratio ≤ limit), if any.
@MainActor
func ratio(_ comparison: String, _ results: [String: Measured], _ numerator: String, _ denominator: String,
           limit: Double? = nil, zeroAllocations: Bool = false) {
    guard let a = results[numerator], let b = results[denominator] else {
        rows.append(Row(comparison: comparison, value: "n/a", target: "", verdict: "", detail: "not measured"))
        return
    }
    let value = medianRatio(a, b)
    var verdict = ""
    var target = ""
    if let limit {
        target = "≤ \(limit)×" + (zeroAllocations ? ", 0 mallocs" : "")
        var met = value <= limit
        if zeroAllocations, let mallocs = a.mallocs { met = met && mallocs == 0 }
        verdict = met ? "met" : "MISSED"
    }
    var detail = "\(formatTime(a.median)) vs \(formatTime(b.median))"
    if a.mallocs != nil || b.mallocs != nil {
        detail += " (\(formatMallocs(a.mallocs)) vs \(formatMallocs(b.mallocs)) per op)"
    }
    rows.append(Row(comparison: comparison, value: String(format: "%.2f", value), target: target, verdict: verdict, detail: detail))
}

/// A row dividing one ratio by another, both from the same `results` and each the median of
/// its per-round ratios (as `ratio` prints them): how much more the library slows down than
/// its floor does on the same change, the floor's own slowdown (caches, memory) divided out.
@MainActor
func ratioOfRatios(_ comparison: String, _ results: [String: Measured],
                   _ numerator: (String, String), over denominator: (String, String), limit: Double? = nil) {
    guard let a = results[numerator.0], let b = results[numerator.1],
          let c = results[denominator.0], let d = results[denominator.1] else {
        rows.append(Row(comparison: comparison, value: "n/a", target: "", verdict: "", detail: "not measured"))
        return
    }
    let top = medianRatio(a, b), bottom = medianRatio(c, d)
    let value = top / bottom
    rows.append(Row(comparison: comparison, value: String(format: "%.2f", value), target: limit.map { "≤ \($0)×" } ?? "",
                    verdict: limit.map { value <= $0 ? "met" : "MISSED" } ?? "",
                    detail: String(format: "%.2f vs %.2f", top, bottom)))
}

@MainActor
func absolute(_ comparison: String, _ results: [String: Measured], _ name: String, note: String = "") {
    guard let a = results[name] else { return }
    let parts = [note, a.mallocs.map { "\(formatMallocs($0)) per op" }, a.note].compactMap { $0 }.filter { !$0.isEmpty }
    rows.append(Row(comparison: comparison, value: formatTime(a.median), target: "", verdict: "", detail: parts.joined(separator: "; ")))
}

/// Prints the table (Markdown) on standard output.
@MainActor
func printTable(harness: Harness, started: Date, smoke: Bool) {
    print(ReportHeader.line(title: "SQLiteDefaults benchmark ratios", started: started, smoke: smoke))
    print("Ratios are medians over \(harness.rounds) interleaved rounds; lower is better for SQLiteDefaults except the UserDefaults / SQLiteDefaults rows.")
    print("")
    print("| comparison | ratio or value | target | | medians per op |")
    print("| --- | ---: | --- | --- | --- |")
    for row in rows {
        print("| \(row.comparison) | \(row.value) | \(row.target) | \(row.verdict) | \(row.detail) |")
    }
}
