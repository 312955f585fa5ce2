/// The header of a WAL database's shared index, read from memory: SQLite rewrites it with every commit, by any
/// process, and its `iChange` counter moves each time (the wal-index format, sqlite.org/walformat.html). Equal
/// stamps, read moments apart, mean that nothing committed in between, which a read of the header tells in
/// nanoseconds, where `PRAGMA data_version` opens a read transaction and takes a file lock (two `fcntl` calls).
struct WALIndexStamp: Equatable {
    /// The size of the index's regions, in which SQLite maps it; the header opens the first.
    static let regionSize: Int32 = 32768

    /// The header's first copy: 48 bytes. SQLite writes it after the second copy, so once it is new, a read
    /// transaction sees the commit it announces. A copy read while it is being written is either still the old
    /// header (and that commit is not visible yet) or a mix, which only makes the caller look at the store again.
    private let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    init(_ index: UnsafeRawPointer) {
        func word(_ number: Int) -> UInt64 { index.load(fromByteOffset: number * 8, as: UInt64.self) }
        words = (word(0), word(1), word(2), word(3), word(4), word(5))
    }

    static func == (left: WALIndexStamp, right: WALIndexStamp) -> Bool { left.words == right.words }
}
