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
/// Words are found by their bytes in a table of their own (open addressing on an FNV-1a hash), and each row's entries
/// are kept in one flat array, in the rows' order, as the number of the word and rank they go to: sorted into runs by
/// counting when they are written, a range of words at a time (`entriesSortedAtOnce`). A `String` and a dictionary
/// lookup for each of 25 million entries took the import's one client core 11 s; an array of orders for each word
/// and rank, appended to, 4-5 s more of it than this (28.5 s of the client's CPU for a million products, against
/// 23.8).
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
    /// The entries of the rows numbered here, row after row: each the list it goes to, `word * ranks + rank`.
    private var entries: [UInt32] = []
    /// Where each row's entries start in `entries`, the row numbered `firstOrder + n` at `n`.
    private var rowStarts: [Int] = []
    /// Entries of the rows whose words the server computed, which come in no order of rows: their list, and their
    /// row's order as an offset from `firstOrder` (an import of four billion rows would need hundreds of gigabytes
    /// here first).
    private var laterEntries: [(list: UInt32, offset: UInt32)] = []

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
        rowStarts.append(entries.count)
        if !vectorWritten { leftToServer.append(order) }
        return order
    }

    /// Adds the row numbered last to the runs of the word of `bytes`, which the row holds first in the searched column
    /// numbered `column`.
    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>, column: Int) {
        entries.append(UInt32(truncatingIfNeeded: number(of: bytes) * ranks + columnRanks[column]))
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
        for try await (word, rank, order) in rows.decode((String, Int, Int64).self) { addServersWord(word, rank: rank, order: order) }
    }

    /// Adds the row numbered `order`, whose vector the server computed, to the runs of `word` at `rank`: in no order
    /// of rows.
    mutating func addServersWord(_ word: String, rank: Int, order: Int64) {
        var word = word
        let list = word.withUTF8 { number(of: $0) * ranks + rank }
        laterEntries.append((UInt32(truncatingIfNeeded: list), UInt32(truncatingIfNeeded: order - firstOrder)))
    }

    /// How many entries are sorted at a time (`copyText`), unless one word alone has more: 32 MB of orders. The
    /// 25 million entries of a million products sorted at once took 100 MB beside the entries themselves, and the
    /// import's peak rose from 270 MB to 370.
    static let entriesSortedAtOnce = 8 << 20

    /// Where each list's orders start among every list's, sorted (one more than the lists, the last the end).
    private func listStarts() -> [Int] {
        let lists = wordHashes.count * ranks
        var starts = [Int](repeating: 0, count: lists + 1)
        for list in entries { starts[Int(list) + 1] += 1 }
        for entry in laterEntries { starts[Int(entry.list) + 1] += 1 }
        for list in 0..<lists { starts[list + 1] += starts[list] }
        return starts
    }

    /// The orders of the lists of `words`, as offsets from `firstOrder`, ascending, each list's at its place in
    /// `starts` less the first list's: sorted by counting, the rows' entries in their order and then the server's,
    /// which are sorted again in the lists they reach. Every entry is read once for each range of words.
    private func sortedOrders(of words: Range<Int>, starts: [Int]) -> [UInt32] {
        let lists = (words.lowerBound * ranks)..<(words.upperBound * ranks)
        let base = starts[lists.lowerBound]
        var next = starts[lists.lowerBound...lists.upperBound].map { $0 - base }
        var orders = [UInt32](repeating: 0, count: starts[lists.upperBound] - base)
        let (first, end) = (UInt32(truncatingIfNeeded: lists.lowerBound), UInt32(truncatingIfNeeded: lists.upperBound))
        for (row, start) in rowStarts.enumerated() {
            let rowEnd = row + 1 < rowStarts.count ? rowStarts[row + 1] : entries.count
            for index in start..<rowEnd where entries[index] >= first && entries[index] < end {
                let list = Int(entries[index] - first)
                orders[next[list]] = UInt32(truncatingIfNeeded: row)
                next[list] += 1
            }
        }
        var reached = Set<Int>()
        for entry in laterEntries where entry.list >= first && entry.list < end {
            let list = Int(entry.list - first)
            orders[next[list]] = entry.offset
            next[list] += 1
            reached.insert(list)
        }
        for list in reached { orders[(starts[lists.lowerBound + list] - base)..<(starts[lists.lowerBound + list + 1] - base)].sort() }
        return orders
    }

    /// The runs as the text of a `COPY` into (`word`, `rank`, `first_order`, `orders`), in runs of at most
    /// `PostgresSearchIndex.wordRunLength`, handed to `body` a few megabytes at a time; the entries are sorted for a
    /// range of words at a time, of at most `atOnce` entries unless one word alone has more.
    func copyText(atOnce: Int = Self.entriesSortedAtOnce, _ body: (ByteBuffer) async throws -> Void) async rethrows {
        let length = PostgresSearchIndex.wordRunLength
        let starts = listStarts()
        var buffer = ByteBuffer()
        var firstWord = 0
        while firstWord < wordHashes.count {
            var endWord = firstWord + 1
            while endWord < wordHashes.count, starts[(endWord + 1) * ranks] - starts[firstWord * ranks] <= atOnce { endWord += 1 }
            let orders = sortedOrders(of: firstWord..<endWord, starts: starts)
            let base = starts[firstWord * ranks]
            for word in firstWord..<endWord {
                var escaped = ByteBuffer()
                PostgresStagedProducts.appendField(String(decoding: wordBytes[wordStarts[word]..<wordStarts[word + 1]], as: UTF8.self), to: &escaped)
                for rank in 0..<ranks {
                    let list = word * ranks + rank
                    let (listStart, listEnd) = (starts[list] - base, starts[list + 1] - base)
                    for start in stride(from: listStart, to: listEnd, by: length) {
                        let run = orders[start..<min(start + length, listEnd)]
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
                    try await body(buffer)
                    buffer.clear()
                }
            }
            firstWord = endWord
        }
        if buffer.readableBytes > 0 { try await body(buffer) }
    }

    /// Writes every run into `table` with `COPY` (`copyText`).
    func write(into table: String, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.copyFrom(table: table, columns: ["word", "rank", "first_order", "orders"], logger: logger) { writer in
            try await copyText { try await writer.write($0) }
        }
    }
}
