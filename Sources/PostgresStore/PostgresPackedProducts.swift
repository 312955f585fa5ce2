import CatalogStore
import CatalogStoreKit
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// A part of an export's products as the server packs them, read where they lie in the driver's buffer: one value per
/// column (`ProductColumn` order) for all the part's rows. A text column's values are their UTF-8 bytes, each after
/// the first preceded by a 0xFF byte, which UTF-8 never holds; an integer column's are eight bytes each, big-endian.
///
/// Why packed: the driver hands over each row of a statement on its own, and a million rows cost the service 1.7 s
/// of CPU that way before a byte is written, where psql's `\copy` of them takes 1.6 s in all; a part of thousands of
/// rows costs that once. These aggregates cost the server least of the packings tried, for a million rows read in
/// parts of 5,000: 2.1 s, against 2.5 s as two-dimensional arrays and 1.0–1.3 s for the reading alone (2026-11-28).
struct PostgresPackedProducts: Sendable {
    /// Each column's values, in `ProductColumn` order.
    let columns: [ByteBuffer]
    /// The column the ordering sorts by, whose value and the key's are a row's position.
    let sortColumn: ProductColumn

    /// The aggregates of a part's statement over the rows of its subquery, in the subquery's order.
    static let aggregates = ProductColumn.allCases.map {
        $0.isText ? "string_agg(textsend(\($0.rawValue)), '\\xff'::bytea)" : "string_agg(int8send(\($0.rawValue)), ''::bytea)"
    }.joined(separator: ", ")

    /// Where the text columns are among the columns.
    private static let textPositions = ProductColumn.allCases.filter(\.isText).map(\.position)

    /// The byte between two values of a text column.
    private static let separator: UInt8 = 0xFF

    /// Where a row starts: its place among the rows, and where its value is in each text column.
    struct Offset: Sendable {
        /// The most columns an offset has room for (`init(columns:sortColumn:)` refuses a part of more).
        static let columns = 12
        var row = 0
        /// By column position; the integer columns' are unused.
        var texts = InlineArray<12, Int>(repeating: 0)
    }

    /// How many rows the part holds: its integer columns' length over eight bytes a value.
    let rowCount: Int

    /// A part of no rows.
    init(sortColumn: ProductColumn) {
        columns = []
        self.sortColumn = sortColumn
        rowCount = 0
    }

    /// The part in `columns`, the values of a part's statement, checked once: every column there, and each integer
    /// column of the same whole number of eight-byte values.
    init(columns: [ByteBuffer], sortColumn: ProductColumn) throws {
        guard columns.count == ProductColumn.allCases.count, columns.count <= Offset.columns,
            let integer = ProductColumn.allCases.first(where: { !$0.isText }),
            case let bytes = columns[integer.position].readableBytes, bytes % 8 == 0,
            ProductColumn.allCases.allSatisfy({ $0.isText || columns[$0.position].readableBytes == bytes })
        else { throw Self.unreadable }
        self.columns = columns
        self.sortColumn = sortColumn
        rowCount = bytes / 8
    }

    /// Whether `offset` is past the last row.
    func isEnd(_ offset: Offset) -> Bool { offset.row >= rowCount }

    /// Hands each row from `start` on to `body`, at most `limit` of them. Returns where the next row starts and the
    /// last row's position in the ordering (nil when no row was read).
    func read(
        from start: Offset, limit: Int, _ body: (StoredProduct) throws -> Void
    ) throws -> (next: Offset, last: KeysetWalk.Position?) {
        let count = rowCount
        var offset = start
        var last: KeysetWalk.Position?
        try withColumns { columns in
            var values = InlineArray<12, UnsafeBufferPointer<UInt8>>(repeating: UnsafeBufferPointer(start: nil, count: 0))
            while offset.row < min(count, start.row + limit) {
                for position in Self.textPositions {
                    values[position] = try Self.value(in: columns[position], at: &offset.texts[position], isLast: offset.row == count - 1)
                }
                let integer = { [row = offset.row] (column: ProductColumn) in Self.integer(in: columns[column.position], row: row) }
                try body(
                    StoredProduct(
                        serialCode: values[ProductColumn.serialCode.position], name: values[ProductColumn.name.position],
                        description: values[ProductColumn.description.position], category: values[ProductColumn.category.position],
                        brand: values[ProductColumn.brand.position], price: values[ProductColumn.price.position],
                        priceMicros: integer(.priceMicros), stock: integer(.stock), updatedAt: values[ProductColumn.updatedAt.position],
                        sourceURL: values[ProductColumn.sourceURL.position], source: values[ProductColumn.source.position],
                        changedSeq: integer(.changedSeq)))
                if offset.row + 1 == min(count, start.row + limit) {
                    let text = { (column: ProductColumn) in ListCursor.Value.text(String(decoding: values[column.position], as: UTF8.self)) }
                    last = (sortColumn.isText ? text(sortColumn) : .integer(integer(sortColumn)), text(.serialCode))
                }
                offset.row += 1
            }
        }
        return (offset, last)
    }

    /// The position of the last row: its sort value and key, the last values of their columns.
    func lastPosition() throws -> KeysetWalk.Position? {
        let count = rowCount
        guard count > 0 else { return nil }
        return try withColumns { columns in
            let text = { (column: ProductColumn) -> ListCursor.Value in
                let bytes = columns[column.position]
                let start = bytes.lastIndex(of: Self.separator).map { $0 + 1 } ?? 0
                return .text(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            }
            let sort = sortColumn.isText ? text(sortColumn) : .integer(Self.integer(in: columns[sortColumn.position], row: count - 1))
            return (sort, text(.serialCode))
        }
    }

    /// Lends every column's bytes at once, in one array made once.
    private func withColumns<Result>(_ body: ([UnsafeBufferPointer<UInt8>]) throws -> Result) throws -> Result {
        var lent: [UnsafeBufferPointer<UInt8>] = []
        lent.reserveCapacity(columns.count)
        func lend(_ index: Int) throws -> Result {
            guard index < columns.count else { return try body(lent) }
            return try columns[index].withUnsafeReadableBytes { bytes in
                lent.append(bytes.assumingMemoryBound(to: UInt8.self))
                return try lend(index + 1)
            }
        }
        return try lend(0)
    }

    /// The value of an integer column in row `row`, which `rowCount` has checked the column holds.
    private static func integer(in column: UnsafeBufferPointer<UInt8>, row: Int) -> Int64 {
        Int64(bigEndian: UnsafeRawBufferPointer(column).loadUnaligned(fromByteOffset: row * 8, as: Int64.self))
    }

    /// The value of a text column at `offset`, which moves past it and its separator. The last row's value runs to
    /// the column's end; any other ends at a separator.
    private static func value(in column: UnsafeBufferPointer<UInt8>, at offset: inout Int, isLast: Bool) throws -> UnsafeBufferPointer<UInt8> {
        guard offset <= column.count else { throw unreadable }
        let end = column.baseAddress.flatMap { base in
            memchr(base + offset, Int32(separator), column.count - offset).map { UnsafeRawPointer(base).distance(to: $0) }
        }
        guard (end == nil) == isLast else { throw unreadable }
        let value = UnsafeBufferPointer(rebasing: column[offset..<(end ?? column.count)])
        offset = (end ?? column.count) + 1
        return value
    }

    private static let unreadable = UnreadableStoredValue(column: "products", value: "a part of an export that is not the columns of its rows")
}
