import Foundation

/// Whether text is JSON, as SQLite's `json_valid` (which the triggers use) decides it for the
/// texts this library and `prefs` write. The database stays the judge: this only lets a
/// refusal be explained before anything is sent.
enum JSONValidity {
    static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
    }
}
