/// The row number each product key had when a base was read (`FrequentTerms`), found by a 64-bit hash of the key, so
/// that a read finds the row a changed key held at the base even after the key was deleted. Two keys may share a hash:
/// a lookup then gives the rows of both, and a row given in excess is only read again from the engine, never answered
/// wrongly (`CurrentFrequentTerms`).
public struct KeyRowIndex: Sendable {
    /// The keys' hashes, ascending, and beside each the row that key held.
    private let hashes: [UInt64]
    private let rows: [Int64]

    /// The index of `entries`, each a key's hash (`hash(_:)`) and its row, in any order.
    public init(_ entries: [(hash: UInt64, row: Int64)]) {
        self.init(sorted: entries.sorted { ($0.hash, $0.row) < ($1.hash, $1.row) })
    }

    private init(sorted: [(hash: UInt64, row: Int64)]) {
        hashes = sorted.map(\.hash)
        rows = sorted.map(\.row)
    }

    /// The index with `entries` too, each a key's hash and its row, in any order: an entry it holds already is not
    /// added again. A key's older entry stays: a lookup gives its old row in excess, which is only read again.
    public func adding(_ entries: [(hash: UInt64, row: Int64)]) -> KeyRowIndex {
        // An update keeps its row (SQLite's rowid, PostgreSQL's row_order): most writes add nothing.
        let added = entries.filter { entry in !rows(of: entry.hash).contains(entry.row) }.sorted { ($0.hash, $0.row) < ($1.hash, $1.row) }
        guard !added.isEmpty else { return self }
        var merged: [(hash: UInt64, row: Int64)] = []
        merged.reserveCapacity(hashes.count + added.count)
        var (old, new) = (0, 0)
        while old < hashes.count || new < added.count {
            let next: (hash: UInt64, row: Int64)
            if new == added.count || (old < hashes.count && (hashes[old], rows[old]) <= (added[new].hash, added[new].row)) {
                next = (hashes[old], rows[old])
                old += 1
            } else {
                next = added[new]
                new += 1
            }
            if let last = merged.last, last.hash == next.hash, last.row == next.row { continue }
            merged.append(next)
        }
        return KeyRowIndex(sorted: merged)
    }

    /// The rows of the keys that share `key`'s hash: its own row when it had one, and the rare other.
    public func rows(of key: String) -> [Int64] {
        rows(of: Self.hash(key))
    }

    private func rows(of wanted: UInt64) -> [Int64] {
        var low = 0
        var high = hashes.count
        while low < high {
            let middle = (low + high) / 2
            if hashes[middle] < wanted { low = middle + 1 } else { high = middle }
        }
        var found: [Int64] = []
        while low < hashes.count, hashes[low] == wanted {
            found.append(rows[low])
            low += 1
        }
        return found
    }

    /// FNV-1a over the key's UTF-8 bytes: the same on every run and every platform, unlike Swift's seeded `Hasher`.
    public static func hash(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
