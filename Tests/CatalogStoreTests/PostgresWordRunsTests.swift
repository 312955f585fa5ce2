import CatalogStore
import PostgresNIO
import Testing

@testable import PostgresStore

@Suite("A first import's word runs, sorted a range of words at a time (PostgreSQL)")
struct PostgresWordRunsTests {
    static let words = ["lamp", "desk", "café", "ø", "a"]
    static let columns = PostgresSearchIndex.products.fields.columns

    /// Every fifth row's vector is left to the server, whose words come after every row's, last row first.
    static func leftToServer(_ row: Int) -> Bool { row % 5 == 3 }

    /// Runs of 1,000 rows numbered from 41: `lamp` in the first column of every row (five runs of one list), the
    /// other words in some rows, each in a column of its own for the row.
    static func runs() -> PostgresWordRuns {
        var runs = PostgresWordRuns(firstOrder: 41)
        for row in 0..<1_000 {
            _ = runs.numberRow(vectorWritten: !leftToServer(row))
            guard !leftToServer(row) else { continue }
            for (number, word) in words.enumerated() where number == 0 || row % (number + 1) == 0 {
                var text = word
                text.withUTF8 { runs.add($0, column: number == 0 ? 0 : (row / 7 + number) % columns.count) }
            }
        }
        let ranks = PostgresSearchIndex.products.fields.ranks
        for row in (0..<1_000).reversed() where leftToServer(row) {
            for (number, word) in words.enumerated() where number == 0 || row % (number + 1) == 0 {
                let column = columns[number == 0 ? 0 : (row / 7 + number) % columns.count]
                runs.addServersWord(word, rank: ranks.firstIndex { $0.contains(column) } ?? 0, order: 41 + Int64(row))
            }
        }
        return runs
    }

    /// The rows of each word and rank, in order: what the runs must hold.
    static func expected() -> [String: [Int64]] {
        let ranks = PostgresSearchIndex.products.fields.ranks
        var lists: [String: [Int64]] = [:]
        for row in 0..<1_000 {
            for (number, word) in words.enumerated() where number == 0 || row % (number + 1) == 0 {
                let column = columns[number == 0 ? 0 : (row / 7 + number) % columns.count]
                let rank = ranks.firstIndex { $0.contains(column) } ?? 0
                lists["\(word)\t\(rank)", default: []].append(41 + Int64(row))
            }
        }
        return lists
    }

    static func copyText(_ runs: PostgresWordRuns, atOnce: Int) async -> String {
        var text = ""
        await runs.copyText(atOnce: atOnce) { buffer in text += String(buffer: buffer) }
        return text
    }

    /// The runs hold every row of each word and rank in order, the server's among the others, however many entries
    /// are sorted at once: none, one, some words, all.
    @Test func theRunsAreTheSameHoweverManyEntriesAreSortedAtOnce() async throws {
        let runs = Self.runs()
        let whole = await Self.copyText(runs, atOnce: .max)
        for atOnce in [0, 1, 150, 1_000, 1_500] {
            #expect(await Self.copyText(runs, atOnce: atOnce) == whole, "\(atOnce) at once")
        }
        var lists: [String: [Int64]] = [:]
        for line in whole.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            try #require(fields.count == 4)
            let orders = fields[3].dropFirst().dropLast().split(separator: ",").compactMap { Int64($0) }
            #expect(orders.count <= PostgresSearchIndex.wordRunLength)
            #expect(orders.first == Int64(fields[2]), "a run's first order")
            lists["\(fields[0])\t\(fields[1])", default: []] += orders
        }
        #expect(lists == Self.expected())
        #expect(lists["lamp\t0"]?.count == 1_000)
    }
}
