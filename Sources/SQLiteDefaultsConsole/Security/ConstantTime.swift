#if Console
/// Comparison whose time does not depend on where two byte strings differ, so a token cannot
/// be guessed byte by byte from response times.
enum ConstantTime {
    /// Whether `a` and `b` are equal; reads every byte of the longer one whatever they hold.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        let length = max(a.count, b.count)
        for index in 0..<length {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
#endif
