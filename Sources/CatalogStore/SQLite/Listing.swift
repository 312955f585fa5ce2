import CatalogModel
import CatalogStore
import Foundation
import GRDB

/// How the list query of one resource reads its table in each ordering it accepts.
struct ListingSpec {
    let table: String
    let columns: String
    let keyColumn: String
    let ordering: ListOrdering
    /// The SQL expression of each field whose column is named otherwise; every sorted expression is backed by
    /// an index or a small table.
    var expressions: [String: String] = [:]

    func sortExpression(_ field: String) -> String { expressions[field] ?? field }

    /// How many rows match `conditions`, over all pages.
    func count(_ db: Database, _ conditions: Conditions) throws -> Int {
        try Int.fetchOne(
            try db.cachedStatement(sql: "SELECT COUNT(*) FROM \(table) \(conditions.whereSQL)"), arguments: StatementArguments(conditions.arguments))
            ?? 0
    }
}

/// SQL conditions and their arguments, built from filters.
struct Conditions {
    var clauses: [String] = []
    var arguments: [any DatabaseValueConvertible & Sendable] = []

    mutating func add(_ clause: String, _ values: any DatabaseValueConvertible & Sendable...) {
        clauses.append(clause)
        arguments.append(contentsOf: values)
    }

    /// Adds a case-insensitive substring match over `columns`.
    mutating func addSearch(_ text: String?, columns: [String]) {
        guard let text, !text.isEmpty else { return }
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        let pattern = "%\(escaped)%"
        clauses.append("(" + columns.map { "\($0) LIKE ? ESCAPE '\\'" }.joined(separator: " OR ") + ")")
        arguments.append(contentsOf: columns.map { _ in pattern })
    }

    var whereSQL: String { clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ") }
}

extension ListingSpec {
    /// Reads one page into `rows`: each row is handed to `append` while the statement is on it, so that text and
    /// integers are read straight from SQLite rather than copied into a row of `DatabaseValue`s first. Returns
    /// the cursors of the pages on either side, when there are rows there.
    func page<Rows: PageRows>(
        _ db: Database, request: PageRequest, conditions: Conditions, into rows: inout Rows,
        append: (inout Rows, GRDB.Row, SQLiteStatement) throws -> Void
    ) throws -> (next: String?, previous: String?) {
        let resolved = try ordering.resolve(request)
        let (descending, cursor) = (resolved.descending, resolved.cursor)
        let sortExpression = sortExpression(resolved.field)
        let forward = cursor?.direction != .previous
        let ascendingInQuery = forward != descending
        var pageConditions = conditions
        if let cursor {
            pageConditions.add(
                "(\(sortExpression), \(keyColumn)) \(ascendingInQuery ? ">" : "<") (?, ?)", cursor.sortValue.databaseValue, cursor.key.databaseValue)
        }
        let direction = ascendingInQuery ? "ASC" : "DESC"
        // A page read from a cursor has rows on the cursor's other side when some are at or behind its position (in
        // the query's direction): the page's own statement answers that in a column (SQLite runs the subquery once).
        var behind = Conditions()
        var hasRowsBehind = "0"
        if let cursor {
            behind = conditions
            behind.add(
                "(\(sortExpression), \(keyColumn)) \(ascendingInQuery ? "<=" : ">=") (?, ?)", cursor.sortValue.databaseValue, cursor.key.databaseValue
            )
            hasRowsBehind = "EXISTS (SELECT 1 FROM \(table) \(behind.whereSQL))"
        }
        let sql = """
            SELECT \(columns), \(sortExpression), \(keyColumn), \(hasRowsBehind) FROM \(table) \(pageConditions.whereSQL)
            ORDER BY \(sortExpression) \(direction), \(keyColumn) \(direction) LIMIT ?
            """
        let statement = try db.cachedStatement(sql: sql)
        let (sortColumn, keyColumnIndex, behindColumn) = (statement.columnCount - 3, statement.columnCount - 2, statement.columnCount - 1)
        func position(_ row: GRDB.Row) -> (sort: DatabaseValue, key: DatabaseValue) { (row[sortColumn], row[keyColumnIndex]) }
        // Cursors start from the edges of the page: its first row as read, and its last when the page is full (a
        // page that is not has nothing beyond it in the query's direction).
        var firstRead: (sort: DatabaseValue, key: DatabaseValue)?
        var lastRead: (sort: DatabaseValue, key: DatabaseValue)?
        var count = 0
        // The row after the page only tells that there is more: it is not read.
        var hasMoreInQueryDirection = false
        var hasRowsBehindCursor = false
        let cursorRows = try GRDB.Row.fetchCursor(
            statement, arguments: StatementArguments(behind.arguments + pageConditions.arguments + [request.pageSize + 1]))
        while let row = try cursorRows.next() {
            guard count < request.pageSize else {
                hasMoreInQueryDirection = true
                break
            }
            if count == 0 {
                hasRowsBehindCursor = row[behindColumn]
                firstRead = position(row)
            }
            count += 1
            if count == request.pageSize { lastRead = position(row) }
            try append(&rows, row, statement.sqliteStatement)
        }
        if !forward { rows.reverse() }
        func encoded(_ edge: (sort: DatabaseValue, key: DatabaseValue)?, _ direction: ListCursor.Direction) -> String? {
            edge.map { ListCursor(ordering: resolved.ordering, direction: direction, sortValue: .init($0.sort), key: .init($0.key)).encoded() }
        }
        // Read backwards, the page's first row was read last.
        let hasNext = forward ? hasMoreInQueryDirection : hasRowsBehindCursor
        let hasPrevious = forward ? hasRowsBehindCursor : hasMoreInQueryDirection
        return (
            hasNext ? encoded(forward ? lastRead : firstRead, .next) : nil, hasPrevious ? encoded(forward ? firstRead : lastRead, .previous) : nil
        )
    }

    /// Reads one page as an array of the rows `decode` makes.
    func page<Row: Sendable>(
        _ db: Database, request: PageRequest, conditions: Conditions, decode: (GRDB.Row) throws -> Row
    ) throws -> (rows: [Row], next: String?, previous: String?) {
        var rows: [Row] = []
        rows.reserveCapacity(request.pageSize)
        let (next, previous) = try page(db, request: request, conditions: conditions, into: &rows) { rows, row, _ in rows.append(try decode(row)) }
        return (rows, next, previous)
    }
}

extension SQLiteCatalogStore {
    static let filmListing = ListingSpec(
        table: "films", columns: FilmRow.columns, keyColumn: "episode_id",
        ordering: .films)

    static let productListing = ListingSpec(
        table: "products", columns: ProductRow.columns, keyColumn: "serial_code",
        ordering: .products, expressions: ["price": "price_micros"])

    static let categoryListing = ListingSpec(
        table: "categories", columns: CategoryRow.columns, keyColumn: "name",
        ordering: .categories)

    public func films(_ filter: FilmFilter, page request: PageRequest) async throws -> Page<[FilmRow]> {
        try await database.read { db in
            var conditions = Conditions()
            if let director = filter.director { conditions.add("director = ?", director) }
            conditions.addSearch(filter.search, columns: ["title", "director", "producer"])
            var (rows, next, previous) = try Self.filmListing.page(db, request: request, conditions: conditions, decode: FilmRow.init(row:))
            try FilmRow.attachLinks(to: &rows, db)
            let count = try Self.filmListing.count(db, conditions)
            return Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: try StoreVersions.fetch(db))
        }
    }

    public func film(episodeID: Int) async throws -> (FilmRow?, StoreVersions) {
        try await database.read { db in
            var rows = try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT \(FilmRow.columns) FROM films WHERE episode_id = ?"), arguments: [episodeID]
            )
            .map(FilmRow.init(row:))
            try FilmRow.attachLinks(to: &rows, db)
            return (rows.first, try StoreVersions.fetch(db))
        }
    }

    public func products<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, into rows: Rows
    ) async throws -> Page<Rows> {
        try await database.read { db in
            var rows = rows
            var conditions = Conditions()
            if let category = filter.category { conditions.add("category = ?", category) }
            if let brand = filter.brand { conditions.add("brand = ?", brand) }
            if let minimum = filter.minimumPrice { conditions.add("price_micros >= ?", minimum.micros) }
            if let maximum = filter.maximumPrice { conditions.add("price_micros <= ?", maximum.micros) }
            if let inStock = filter.inStock { conditions.add(inStock ? "stock > 0" : "stock = 0") }
            conditions.addSearch(filter.search, columns: ["name", "description", "brand"])
            let (next, previous) = try Self.productListing.page(db, request: request, conditions: conditions, into: &rows) { rows, _, statement in
                rows.append(ProductColumn.stored(statement))
            }
            // The derived category counts answer the common cases without scanning products.
            let count: Int
            if filter.isEmpty {
                count = try Int.fetchOne(try db.cachedStatement(sql: "SELECT COALESCE(SUM(product_count), 0) FROM categories")) ?? 0
            } else if let category = filter.category, conditions.clauses.count == 1 {
                count =
                    try Int.fetchOne(try db.cachedStatement(sql: "SELECT product_count FROM categories WHERE name = ?"), arguments: [category]) ?? 0
            } else {
                count = try Self.productListing.count(db, conditions)
            }
            return Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: try StoreVersions.fetch(db))
        }
    }

    public func product(serialCode: String) async throws -> (ProductRow?, StoreVersions) {
        try await database.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(ProductRow.columns) FROM products WHERE serial_code = ?")
            // The cursor is kept while the row is read: once it ends, the statement is reset and its text gone.
            let rows = try Row.fetchCursor(statement, arguments: [serialCode])
            let row = try rows.next().map { _ in ProductRow(ProductColumn.stored(statement.sqliteStatement)) }
            withExtendedLifetime(rows) {}
            return (row, try StoreVersions.fetch(db))
        }
    }

    public func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> Page<[CategoryRow]> {
        try await database.read { db in
            var conditions = Conditions()
            conditions.addSearch(filter.search, columns: ["name"])
            let (rows, next, previous) = try Self.categoryListing.page(db, request: request, conditions: conditions, decode: CategoryRow.init(row:))
            let count = try Self.categoryListing.count(db, conditions)
            return Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: try StoreVersions.fetch(db))
        }
    }

    public func category(name: String) async throws -> (CategoryRow?, StoreVersions) {
        try await database.read { db in
            let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT \(CategoryRow.columns) FROM categories WHERE name = ?"), arguments: [name])
            return (row.map(CategoryRow.init(row:)), try StoreVersions.fetch(db))
        }
    }
}

extension ListCursor.Value {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .int64(let number): self = .integer(number)
        case .string(let text): self = .text(text)
        default: self = .null
        }
    }

    /// The value as a statement argument.
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .null: .null
        }
    }
}
