import FuzzTargets

// libFuzzer calls this with each input (see FuzzDriver for how it is built and run).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.runOne(data, size, .roundTrip)
}

@main
enum FuzzRoundTrip {
    static func main() {
        FuzzDriver.main(.roundTrip, entry: fuzzOneInput)
    }
}
