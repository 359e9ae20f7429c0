import Foundation

/// The first line of a benchmark table: what ran, when, on which kernel and machine, how many
/// cores and how loaded, so a table read later says where its numbers came from.
public enum ReportHeader {
    /// `"<title> — <date>, Linux <release> <machine>, <cores> cores, load <1-min><suffix>"`,
    /// with the smoke marker when `smoke` is set.
    public static func line(title: String, started: Date, suffix: String = "", smoke: Bool) -> String {
        var names = utsname()
        uname(&names)
        let machine = withUnsafeBytes(of: &names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let kernel = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        var load = [Double](repeating: 0, count: 3)
        getloadavg(&load, 3)
        return "\(title) — \(formatter.string(from: started)), Linux \(kernel) \(machine), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load \(String(format: "%.2f", load[0]))\(suffix)"
            + (smoke ? " — SMOKE RUN (tiny counts, not meaningful)" : "")
    }
}
