import Foundation

/// The inputs kept in the repository: each target's seed corpus (`Tests/Fuzz/Corpus/TARGET`)
/// and the inputs that once broke a promise (`Tests/Fuzz/Regressions/TARGET`), replayed by
/// the tests and used by `Scripts/fuzz.sh` as the fuzzer's starting points.
package enum FuzzCorpus {
    /// One input file.
    package struct Input: Sendable {
        package let name: String
        package let bytes: [UInt8]
    }

    /// The repository's `Tests/Fuzz` folder, found from this source file.
    package static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// The seed corpus and the regressions of `target`, in name order.
    /// - Throws: when a folder cannot be listed or a file read.
    package static func inputs(of target: FuzzTarget) throws -> [Input] {
        try ["Corpus", "Regressions"].flatMap { kind -> [Input] in
            let path = folder.appendingPathComponent(kind).appendingPathComponent(target.rawValue).path
            guard FileManager.default.fileExists(atPath: path) else { return [] }
            return try inputs(at: path)
        }
    }

    /// The file at `path`, or every regular file directly in the folder at `path`.
    /// - Throws: when the path cannot be listed or read.
    package static func inputs(at path: String) throws -> [Input] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FuzzFailure("\(path): no such file or folder")
        }
        let files = isDirectory.boolValue
            ? try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
            : [path]
        return try files.map { file in
            guard let data = FileManager.default.contents(atPath: file) else { throw FuzzFailure("\(file): cannot be read") }
            return Input(name: (file as NSString).lastPathComponent, bytes: Array(data))
        }
    }
}
