/// Eight bytes of text read as one integer, to look for bytes that need work in the text written most (JSON strings,
/// CSV fields): nearly every eight bytes hold none, and are passed over with a few operations instead of eight tests.
public struct ByteWord {
    public let value: UInt64

    /// The eight bytes at `offset` of `base`.
    public init(_ base: UnsafePointer<UInt8>, at offset: Int) {
        value = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    /// The high bit of every byte: any set in `value` means a byte that is not ASCII.
    public static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether one of the bytes is `byte` (exact).
    public func contains(_ byte: UInt8) -> Bool {
        let other = value ^ (Self.ones &* UInt64(byte))
        return (other &- Self.ones) & ~other & Self.highBits != 0
    }

    /// Whether one of the bytes is below `limit` (at most 0x80): exact for ASCII bytes, and may be true where only
    /// bytes that are not ASCII follow one that is.
    public func mayContainByteBelow(_ limit: UInt8) -> Bool {
        (value &- Self.ones &* UInt64(limit)) & ~value & Self.highBits != 0
    }
}
