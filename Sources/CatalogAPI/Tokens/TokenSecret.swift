import Crypto
import Foundation

/// A token's secret: 256 random bits from the system's generator, shown once and kept only as its SHA-256 (a random
/// secret needs no slow hash: there is nothing to guess from a dictionary).
public enum TokenSecret {
    /// What every secret starts with, so that secret scanners can recognise a leaked one.
    public static let prefix = "catd_"

    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return prefix + text.replacingOccurrences(of: "=", with: "")
    }

    /// The SHA-256 of `secret`, as the store keeps it (hex).
    public static func hash(_ secret: some Sequence<UInt8>) -> String {
        digest(secret).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    static func digest(_ secret: some Sequence<UInt8>) -> [UInt8] {
        Array(SHA256.hash(data: Array(secret)))
    }

    /// Compares without returning early, so that the time taken does not tell how much of a guess was right.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0)
        }
        return difference == 0
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
