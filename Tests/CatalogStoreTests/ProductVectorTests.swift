import CatalogModel
import CatalogStore
import CatalogTestSupport
import Logging
import PostgresNIO
import Testing

@testable import PostgresStore

/// A writer computes a product's search vector itself (`PostgresProductVector`) only where it gives exactly what the
/// server would: the stored vectors of earlier rows, computed by the server, and those of new rows must agree for a
/// search to find both.
@Suite("Search vectors computed by the writer are the server's (PostgreSQL)")
struct ProductVectorTests {
    static let logger = Logger(label: "catalogd-tests")

    /// Text drawn from every kind of character the alphabet is asked about, and beyond it: letters of each case and
    /// of Latin-1 and Latin Extended, digits, ASCII punctuation and controls, curly quotes, dashes, currency signs,
    /// the characters that fold to two (`Ǆ`) or keep their marks (`Ǡ`); in words of one to a dozen.
    static func randomText(_ generator: inout some RandomNumberGenerator) -> String {
        let pieces: [String] = [
            "lamp", "Desk", "CAFÉ", "café", "naïve", "Ørsted", "straße", "Ǆemal", "Ǡa", "ǡ", "İstanbul", "x86", "3", "2026", "ǅ", "œuvre",
            "Ñandú", "ĳssel", "ŉ", "℃", "™", "€", "½", "µ", "ß", "ÿ", "Ÿ", "'", "\\", "\"", "-", "_", ".", ",", "/", "&", "’", "–", "—", "…",
            "«", "»", "\u{A0}", "\t", "\n", "\u{7F}", "\u{1}", "\u{200B}", "\u{2009}", "\u{AD}", "\u{200E}", "\u{2060}", "1e5",
            "1E5x", "12ème", "e", "É", "0", " ", " ", " ",
        ]
        let count = Int.random(in: 0...12, using: &generator)
        return (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
    }

    /// Each of `rows` (four columns) beside its vector as the writer computes it, compared on the server with
    /// `catalog_product_search_vector`: how many rows had a vector, and how many of those differ.
    static func compare(_ rows: [[String]], alphabet: PostgresSearchAlphabet, _ store: PostgresCatalogStore) async throws -> (Int, Int) {
        var columns: [[String]] = Array(repeating: [], count: 5)
        var writer = PostgresProductVector(alphabet: alphabet)
        for row in rows {
            guard let vector = writer.text(row) else { continue }
            for (index, text) in (row + [vector]).enumerated() { columns[index].append(text) }
        }
        let query: PostgresQuery = """
            SELECT COUNT(*) FILTER (WHERE vector::tsvector IS DISTINCT FROM catalog_product_search_vector(name, brand, description, category))
            FROM unnest(\(columns[0])::text[], \(columns[1])::text[], \(columns[2])::text[], \(columns[3])::text[], \(columns[4])::text[])
                AS row (name, brand, description, category, vector)
            """
        let differing = try await store.transaction(.single) { connection in
            var differing = 0
            for try await count in try await connection.query(query, logger: Self.logger).decode(Int.self) { differing = count }
            return differing
        }
        return (columns[0].count, differing)
    }

    @Test func aWritersVectorIsTheServers() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        let alphabet = try await store.transaction(.single) { try await PostgresSearchAlphabet.load($0, logger: Self.logger) }
        #expect(alphabet.letter(0x51) == .word("q".utf8))
        #expect(alphabet.letter(0xE9) == .word("e".utf8), "é folds to e")
        #expect(alphabet.letter(0x2D) == .separator)

        var generator = SplitMix64(seed: 43)
        var rows = (0..<20_000).map { _ in (0..<4).map { _ in Self.randomText(&generator) } }
        // A word that each column repeats, and many words, within the writer's limits.
        rows.append(["lamp lamp", "lamp", String(repeating: "lamp desk ", count: 120), "lamp"])
        rows.append(["a", "", (0..<15_000).map { "w\($0 % 7_000)" }.joined(separator: " "), "z"])
        rows.append([String(repeating: "é", count: PostgresProductVector.longestWord), "", "", ""])
        let (computed, differing) = try await Self.compare(rows, alphabet: alphabet, store)
        #expect(computed >= rows.count / 2, "the writer computed \(computed) of \(rows.count) vectors")
        #expect(differing == 0, "\(differing) of \(computed) vectors differ from the server's")

        // Beyond the alphabet, at the server's limits, and a number the parser reads before a word, the writer computes
        // none.
        let leftToServer: [[String]] = [
            ["中文", "", "", ""], ["cafe\u{301}", "", "", ""], ["", "", "lamp 3É4b", ""], ["", "", "", "12e34abc"],
            [String(repeating: "x", count: PostgresProductVector.longestWord + 1), "", "", ""],
            ["", "", String(repeating: "w ", count: PostgresProductVector.mostWords + 1), ""],
            ["", "", String(repeating: "w ", count: PostgresProductVector.mostPositions + 1), ""],
        ]
        var writer = PostgresProductVector(alphabet: alphabet)
        for row in leftToServer { #expect(writer.text(row) == nil) }
    }

    /// Every way products are written stores the server's vector, whether the writer computed it or left it to the
    /// server: an upsert, an import into a store with rows, a first import streamed into an empty one, and statements
    /// that do not name the column.
    @Test func everyWriteStoresTheServersVector() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        func product(_ key: String, _ name: String) throws -> Product {
            Product(
                serialCode: key, name: name, description: "Ørsted’s lamp – \(name)", category: "Lamps", brand: "Brand",
                price: try Price(parsing: "1.00"))
        }
        guard case .claimed(let claim) = try await store.claimImport(of: .products) else {
            Issue.record("the products claim was refused")
            return
        }
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A", "Zebra crossing")), (1, try product("B", "斑马线 crossing"))])
        let report = try await store.beginImport(source: .products)
        _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        await streamed.discard()
        _ = try await store.upsertProducts([try product("C", "Café crème"), try product("D", "Κρέμα crème")], author: "api")
        let second = try await store.beginImport(source: .products)
        let listing = [try product("A", "Zebra crossing"), try product("B", "斑马线 crossing renamed"), try product("E", "Naïve ǅ")]
        _ = try await store.completeImport(second, listing: CompletedListing(records: .products(listing), pages: []), under: claim)
        await claim.release()
        #expect(try await store.check().isEmpty)
        // A writer that does not know the column, as a statement typed by hand or a replica of an earlier catalogd.
        try await store.transaction(.write) { connection in
            for statement in [
                "UPDATE products SET name = 'Crème brûlée' WHERE serial_code = 'A'",
                """
                INSERT INTO products (serial_code, name, description, category, brand, price, price_micros, stock, updated_at, source_url,
                    source, changed_seq) VALUES ('F', 'Brûlée lamp', '', 'Lamps', '', '1.00', 1000000, 1, '', '', 'api', 0)
                """,
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
            }
        }

        let query: PostgresQuery = """
            SELECT COUNT(*) FILTER (WHERE search_vector IS DISTINCT FROM catalog_product_search_vector(name, brand, description, category)),
                COUNT(*) FILTER (WHERE search_vector IS NULL) FROM products
            """
        let (differing, missing) = try await store.transaction(.single) { connection in
            var counts = (0, 0)
            for try await row in try await connection.query(query, logger: Self.logger).decode((Int, Int).self) { counts = row }
            return counts
        }
        #expect(differing == 0 && missing == 0)
        let crossing = try await store.products(ProductFilter(search: "crossing "), page: PageRequest()).rows.map(\.product.serialCode)
        // A kept the words of its description; B holds the word in its name, which ranks first.
        #expect(crossing == ["B", "A"])
        let cream = try await store.products(ProductFilter(search: "creme "), page: PageRequest()).rows.map(\.product.serialCode)
        #expect(cream == ["A", "C", "D"])
        let brulee = try await store.products(ProductFilter(search: "brulee "), page: PageRequest()).rows.map(\.product.serialCode)
        #expect(brulee == ["A", "F"])
    }
}

extension PostgresProductVector {
    /// The vector `write` writes, as text; nil when it writes none.
    fileprivate mutating func text(_ texts: [String]) -> String? {
        var buffer = ByteBuffer()
        return write(texts, to: &buffer) ? String(buffer: buffer) : nil
    }
}
