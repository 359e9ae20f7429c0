import Foundation

#if FUZZING
/// libFuzzer's entry for a program with its own `main` (compiler-rt's FuzzerInterface.h).
/// SwiftPM links an executable's `main` to the module's own entry point, so the program calls
/// the driver rather than linking libFuzzer's `main`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

/// The `main` of each fuzzer executable. Built by `Scripts/fuzz.sh` (`-sanitize=fuzzer,address`,
/// `-DFUZZING`) it hands the process to libFuzzer with the target's entry; built normally it
/// replays the files and folders named on the command line through the same check, so a crash
/// file from CI can be run under a debugger: `swift run FuzzImportReader crash-…`.
package enum FuzzDriver {
    /// The body of `LLVMFuzzerTestOneInput`: runs `target`'s check, and on a broken promise
    /// prints it and aborts (libFuzzer saves the input as the crash).
    package static func runOne(_ data: UnsafePointer<UInt8>?, _ size: Int, _ target: FuzzTarget) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        do {
            try target.check(bytes)
        } catch {
            FileHandle.standardError.write(Data("\n\(target.rawValue): \(error.description)\n".utf8))
            abort()
        }
        return 0
    }

    /// Runs the fuzzer (fuzzing build) or replays the inputs named in the arguments.
    package static func main(_ target: FuzzTarget, entry: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = Optional(CommandLine.unsafeArgv)
        let status = withUnsafeMutablePointer(to: &argv) { LLVMFuzzerRunDriver(&argc, $0, entry) }
        exit(status)
        #else
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) FILE|FOLDER… (replays inputs; Scripts/fuzz.sh builds the fuzzer)\n".utf8))
            exit(2)
        }
        var failures = 0, count = 0
        for path in paths {
            do {
                for input in try FuzzCorpus.inputs(at: path) {
                    count += 1
                    do {
                        try target.check(input.bytes)
                    } catch {
                        failures += 1
                        print("\(input.name): \(error.description)")
                    }
                }
            } catch {
                print("\(path): \(error)")
                failures += 1
            }
        }
        print("\(target.rawValue): replayed \(count) inputs, \(failures) failures")
        exit(failures == 0 ? 0 : 1)
        #endif
    }
}
