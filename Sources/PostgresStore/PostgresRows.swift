import CatalogModel
import CatalogStore
import CatalogStoreKit
import Logging
import PostgresNIO

/// The column lists of the PostgreSQL tables, once each, and rows read back by column name.
enum PostgresRows {
    /// The film columns a film record fills, after its key.
    static let filmValues = FilmColumn.values
    static let filmColumns = FilmColumn.selected.joined(separator: ", ")
    /// The product columns a product record fills, after its key.
    static let productValues = ProductColumn.values.map(\.rawValue)
    static let productColumns = ProductColumn.list(ProductColumn.allCases)

    /// A product's values in `productValues` order.
    static func productFields(_ product: Product) -> [ProductColumn.Value] {
        ProductColumn.values.compactMap { $0.value(in: product) }
    }

    static let importColumns =
        "id, source, status, started_at, finished_at, fetched, inserted, updated, unchanged, deleted, rejected, error, started_by"

    static func film(_ row: PostgresRandomAccessRow) throws -> FilmRow {
        let film = Film(
            episodeID: Int(try row["episode_id"].decode(Int64.self)), title: try row["title"].decode(String.self),
            openingCrawl: try row["opening_crawl"].decode(String.self), director: try row["director"].decode(String.self),
            producer: try row["producer"].decode(String.self), releaseDate: try row["release_date"].decode(String.self),
            created: try row["created"].decode(String.self), edited: try row["edited"].decode(String.self),
            sourceURL: try row["source_url"].decode(String.self))
        var counts: [FilmLinkKind: Int] = [:]
        for kind in FilmLinkKind.allCases {
            counts[kind] = Int(try row[kind.countColumn].decode(Int64.self))
        }
        return FilmRow(
            film: film, counts: counts, source: try row["source"].decode(String.self), changedSeq: try row["changed_seq"].decode(Int64.self))
    }

    /// Loads the links of `rows` with one query.
    static func attachLinks(to rows: inout [FilmRow], _ connection: PostgresConnection, logger: Logger) async throws {
        guard !rows.isEmpty else { return }
        let ids = rows.map { Int64($0.film.episodeID) }
        var links: [Int: StoredFilmLinks] = [:]
        let query: PostgresQuery = """
            SELECT episode_id, kind, url FROM film_links WHERE episode_id = ANY(\(ids)::bigint[]) ORDER BY episode_id, kind, position
            """
        for try await (episodeID, kind, url) in try await connection.query(query, logger: logger).decode((Int64, String, String).self) {
            try links[Int(episodeID), default: StoredFilmLinks()].add(kind: kind, url: url)
        }
        for index in rows.indices {
            rows[index].film.links = links[rows[index].film.episodeID]?.links ?? [:]
        }
    }

    /// The product in a row of the columns of `productColumns`, which every product query selects first and in that
    /// order: read by position, as a page reads a hundred of them and a lookup by name costs a hash each. Its
    /// text is copied once, into one buffer lent to `body`.
    static func withStoredProduct<Row: Collection<PostgresCell>, Result>(
        _ row: Row, _ body: (StoredProduct) throws -> Result
    ) throws -> Result {
        var text: [UInt8] = []
        text.reserveCapacity(512)
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(ProductColumn.allCases.count)
        var integers: InlineArray<3, Int64> = [0, 0, 0]
        var integerCount = 0
        // One pass over the cells in column order: a cell made once, its bytes copied whole.
        for (cell, column) in zip(row, ProductColumn.allCases) {
            guard column.isText else {
                guard integerCount < integers.count else { break }
                integers[integerCount] = try cell.decode(Int64.self)
                integerCount += 1
                continue
            }
            guard let bytes = cell.bytes, cell.dataType == .text else {
                throw UnreadableStoredValue(column: "products.\(cell.columnName)", value: cell.bytes == nil ? "NULL" : "\(cell.dataType)")
            }
            let start = text.count
            bytes.withUnsafeReadableBytes { text.append(contentsOf: $0) }
            ranges.append(start..<text.count)
        }
        guard integerCount == integers.count, ranges.count == ProductColumn.allCases.count - integers.count else {
            throw UnreadableStoredValue(column: "products", value: "a row of \(row.count) columns")
        }
        return try text.withUnsafeBufferPointer { bytes in
            func field(_ number: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[ranges[number]]) }
            return try body(
                StoredProduct(
                    serialCode: field(0), name: field(1), description: field(2), category: field(3), brand: field(4), price: field(5),
                    priceMicros: integers[0], stock: integers[1], updatedAt: field(6), sourceURL: field(7), source: field(8),
                    changedSeq: integers[2]))
        }
    }

    /// Appends the product in `row` (`withStoredProduct`) to a page's rows.
    static func appendProduct<Rows: ProductPageRows, Row: Collection<PostgresCell>>(to rows: inout Rows, _ row: Row) throws {
        try withStoredProduct(row) { rows.append($0) }
    }

    static func category(_ row: PostgresRandomAccessRow) throws -> CategoryRow {
        CategoryRow(name: try row["name"].decode(String.self), productCount: Int(try row["product_count"].decode(Int64.self)))
    }

    /// A stored report, without its rejection lines; a value the code cannot read is an error, never a default.
    static func importReport(_ row: PostgresRandomAccessRow) throws -> ImportReport {
        let sourceText = try row["source"].decode(String.self)
        let statusText = try row["status"].decode(String.self)
        guard let source = FeedSource(rawValue: sourceText) else { throw UnreadableStoredValue(column: "imports.source", value: sourceText) }
        guard let status = ImportReport.Status(rawValue: statusText) else {
            throw UnreadableStoredValue(column: "imports.status", value: statusText)
        }
        var report = ImportReport(
            id: try row["id"].decode(Int64.self), source: source, status: status, startedAt: try row["started_at"].decode(String.self))
        report.finishedAt = try row["finished_at"].decode(String?.self)
        report.fetched = Int(try row["fetched"].decode(Int64.self))
        report.inserted = Int(try row["inserted"].decode(Int64.self))
        report.updated = Int(try row["updated"].decode(Int64.self))
        report.unchanged = Int(try row["unchanged"].decode(Int64.self))
        report.deleted = Int(try row["deleted"].decode(Int64.self))
        report.rejected = Int(try row["rejected"].decode(Int64.self))
        report.error = try row["error"].decode(String?.self)
        report.startedBy = try row["started_by"].decode(String?.self)
        return report
    }
}
