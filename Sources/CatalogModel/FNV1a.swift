/// The 64-bit FNV-1a hash: the same value for the same bytes in every process, which Swift's seeded `Hasher` is not.
public struct FNV1a: Sendable {
    @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    /// The hash of every byte combined so far.
    public var value: UInt64 { state }

    /// Feeds `bytes` in order; inlinable so that a caller's loop over UTF-8 or an array is specialised, not generic.
    @inlinable public mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    }
}
