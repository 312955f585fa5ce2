import CatalogModel
import Foundation
import Logging
import PostgresNIO

/// The runs of `product_word_runs` (`PostgresSchema.wordRuns`) of a first import, gathered in memory as its rows'
/// vectors are written (`PostgresStreamedListing`) and written with one `COPY` after the last row: reading a million
/// products' words back out of their vectors, sorting the 25 million entries and grouping them took the server
/// about 34 s of the import's time after its last page.
///
/// The rows are numbered by the import (`row_order`), in the order they are written, so that each word's orders
/// arrive ascending. A row whose vector the server computes has its words read from the server before the runs are
/// written, and the words it holds are sorted again.
///
/// Words are found by their bytes in a table of their own (open addressing on an FNV-1a hash), and orders kept as
/// offsets from the first: a `String` and a dictionary lookup for each of 25 million entries took the import's one
/// client core 11 s, and `Int64`s twice the memory.
struct PostgresWordRuns {
    private let ranks = PostgresSearchIndex.products.fields.ranks.count
    /// The rank of each searched column, in the order of the vector's weights (`SearchFields.columns`).
    private let columnRanks = PostgresSearchIndex.products.fields.columns.map { column in
        PostgresSearchIndex.products.fields.ranks.firstIndex { $0.contains(column) } ?? 0
    }
    private let firstOrder: Int64
    /// The order the next row written gets.
    private(set) var nextOrder: Int64
    /// The rows whose vectors were left to the server, whose words are read from it (`addServersWords`).
    private var leftToServer: [Int64] = []

    /// Each word's bytes, one after the other, where each starts, and its hash.
    private var wordBytes: [UInt8] = []
    private var wordStarts: [Int] = [0]
    private var wordHashes: [UInt64] = []
    /// The words' numbers by hash, -1 where none; a power of two long, at most half full.
    private var slots = [Int32](repeating: -1, count: 1 << 16)
    /// Each word's orders of each rank (at `word * ranks + rank`), as offsets from `firstOrder` (an import of four
    /// billion rows would need hundreds of gigabytes here first).
    private var orders: [[UInt32]] = []
    /// Whether each word's orders are still ascending.
    private var ascending: [Bool] = []

    /// Runs of rows numbered from `firstOrder`.
    init(firstOrder: Int64) {
        self.firstOrder = firstOrder
        nextOrder = firstOrder
    }

    /// The order of the next row written, whose vector was written with it (its words then added with
    /// `PostgresProductVector.addWords`) or left to the server.
    mutating func numberRow(vectorWritten: Bool) -> Int64 {
        let order = nextOrder
        nextOrder += 1
        if !vectorWritten { leftToServer.append(order) }
        return order
    }

    /// Adds the row `order` to the runs of the word of `bytes`, which the row holds first in the searched column
    /// numbered `column`; after every order before it, as the rows numbered in writing order are.
    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>, column: Int, order: Int64) {
        add(bytes, rank: columnRanks[column], order: order, ascending: true)
    }

    /// Adds the row `order` to the runs of the word of `bytes` in `rank`; after orders greater than any before it
    /// when `ascending`.
    private mutating func add(_ bytes: UnsafeBufferPointer<UInt8>, rank: Int, order: Int64, ascending inOrder: Bool) {
        let word = number(of: bytes)
        orders[word * ranks + rank].append(UInt32(truncatingIfNeeded: order - firstOrder))
        if !inOrder { ascending[word] = false }
    }

    /// The number of the word of `bytes`, which it gets when it is new.
    private mutating func number(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = FNV1a()
        hasher.combine(bytes)
        let hash = hasher.value
        var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[slot] >= 0 {
            let word = Int(slots[slot])
            if wordHashes[word] == hash, isWord(word, bytes) { return word }
            slot = (slot + 1) & (slots.count - 1)
        }
        let word = wordHashes.count
        wordBytes.append(contentsOf: bytes)
        wordStarts.append(wordBytes.count)
        wordHashes.append(hash)
        orders.append(contentsOf: repeatElement([], count: ranks))
        ascending.append(true)
        slots[slot] = Int32(word)
        if wordHashes.count * 2 > slots.count { grow() }
        return word
    }

    /// Whether the word numbered `word` has the bytes `bytes`.
    private func isWord(_ word: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let (start, end) = (wordStarts[word], wordStarts[word + 1])
        guard end - start == bytes.count else { return false }
        return wordBytes.withUnsafeBufferPointer { stored in
            guard let stored = stored.baseAddress, let bytes = bytes.baseAddress else { return true }
            return memcmp(stored + start, bytes, end - start) == 0
        }
    }

    /// Doubles `slots`, placing every word again.
    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        for (word, hash) in wordHashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = Int32(word)
        }
    }

    /// Adds the words the server computed for the rows of `table` whose vectors were left to it.
    mutating func addServersWords(in table: String, _ connection: PostgresConnection, logger: Logger) async throws {
        guard !leftToServer.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(leftToServer)
        let entries = PostgresSearchIndex.products.wordEntries(of: table)
        let sql = "SELECT * FROM (\(entries)) AS entries (word, rank, product_order) WHERE product_order = ANY($1)"
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        for try await (word, rank, order) in rows.decode((String, Int, Int64).self) {
            var word = word
            word.withUTF8 { add($0, rank: rank, order: order, ascending: false) }
        }
    }

    /// Writes every run into `table` (`word`, `rank`, `first_order`, `orders`), in runs of at most
    /// `PostgresSearchIndex.wordRunLength`, with `COPY`, a few megabytes at a time.
    func write(into table: String, _ connection: PostgresConnection, logger: Logger) async throws {
        let length = PostgresSearchIndex.wordRunLength
        try await connection.copyFrom(table: table, columns: ["word", "rank", "first_order", "orders"], logger: logger) { writer in
            var buffer = ByteBuffer()
            for word in wordHashes.indices {
                var escaped = ByteBuffer()
                PostgresStagedProducts.appendField(String(decoding: wordBytes[wordStarts[word]..<wordStarts[word + 1]], as: UTF8.self), to: &escaped)
                for rank in 0..<ranks {
                    let held = orders[word * ranks + rank]
                    let sorted = ascending[word] ? held : held.sorted()
                    for start in stride(from: sorted.startIndex, to: sorted.endIndex, by: length) {
                        let run = sorted[start..<min(start + length, sorted.endIndex)]
                        buffer.writeImmutableBuffer(escaped)
                        buffer.writeString("\t\(rank)\t\(firstOrder + Int64(run[start]))\t{")
                        for (offset, order) in run.enumerated() {
                            if offset > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                            PostgresProductVector.writeDecimal(Int(firstOrder) + Int(order), to: &buffer)
                        }
                        buffer.writeStaticString("}\n")
                    }
                }
                if buffer.readableBytes > 4 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }
}
