import CatalogModel
import CatalogStore
import Foundation
import GRDB
import GRDBSQLite

/// How the list query of one resource reads its table in each ordering it accepts.
struct ListingSpec {
    let table: String
    let columns: String
    let keyColumn: String
    let ordering: ListOrdering
    /// The SQL expression of each field whose column is named otherwise; every sorted expression is backed by
    /// an index or a small table.
    var expressions: [String: String] = [:]
    /// The index a search reads, when the resource has one.
    var searchIndex: SearchIndex?
    /// The indexes that give the rows in each order (`pageStatement` names the one it reads), and the name SQLite
    /// gives the key's own.
    var indexes: ListIndexes?
    var keyIndex = ""

    func sortExpression(_ field: String) -> String { expressions[field] ?? field }

    /// How many rows match `conditions`, over all pages.
    func count(_ source: some SQLiteReading, _ conditions: Conditions) throws -> Int {
        Int(try source.integer("SELECT COUNT(*) FROM \(table) \(conditions.whereSQL)", conditions.values) ?? 0)
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

    /// Adds the comparison of a row's position with `cursor`'s.
    mutating func add(_ position: KeysetComparison, _ comparison: String, _ cursor: ListCursor) {
        clauses.append(position.condition(comparison, sortValue: "?", key: "?"))
        if !position.comparesKeyOnly { arguments.append(cursor.sortValue.databaseValue) }
        arguments.append(cursor.key.databaseValue)
    }

    /// The columns compared for equality, so that an index on one of them can be chosen.
    var equalities: [String] = []

    init() {}

    /// The SQL of `conditions`, which a list's filters put on its rows (`ListQuery`); its search is added apart
    /// (`ListingSpec.selecting`).
    init(_ conditions: [ListCondition]) {
        for condition in conditions {
            clauses.append(
                condition.sql { value in
                    arguments.append(value.databaseValue)
                    return "?"
                })
        }
        equalities = conditions.compactMap(\.equalityColumn)
    }

    /// Adds the match of `search` in `index` (`SearchQuery` says what matches).
    mutating func addSearch(_ search: SearchQuery?, _ index: SearchIndex) {
        guard let search else { return }
        guard !search.matchesNothing else { return add("0") }
        let condition = index.condition(search)
        add(condition.sql, condition.argument)
    }

    var whereSQL: String { clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ") }

    var values: [DatabaseValue] { arguments.map(\.databaseValue) }
}

extension ListingSpec {
    /// The statement that reads one page of the rows `conditions` select, in `request`'s ordering from its cursor: the
    /// listed columns, then the sort value, the key and whether there are rows behind the cursor. `ListingPlanTests`
    /// asks SQLite's plan for it.
    func pageStatement(_ request: PageRequest, conditions: Conditions) throws -> (
        sql: String, arguments: [DatabaseValue], resolved: ListOrdering.Resolved
    ) {
        let resolved = try ordering.resolve(request)
        let (descending, cursor) = (resolved.descending, resolved.cursor)
        let sortExpression = sortExpression(resolved.field)
        let forward = cursor?.direction != .previous
        let ascendingInQuery = forward != descending
        let position = KeysetComparison(sortExpression: sortExpression, keyColumn: keyColumn)
        var pageConditions = conditions
        if let cursor { pageConditions.add(position, ascendingInQuery ? ">" : "<", cursor) }
        let direction = ascendingInQuery ? "ASC" : "DESC"
        // Walking an index in the page's order reads as many rows as the page shows, or as many more as the filters
        // pass over; left to choose, SQLite took the filter's index and sorted all it selects (a category's products
        // by price) whenever it had no statistics to weigh them, which is always here.
        let index = indexes?.index(equalityColumns: conditions.equalities, field: resolved.field, in: ordering)
        let source = index.map { "\(table) INDEXED BY \(name($0))" } ?? table
        // A page read from a cursor has rows on the cursor's other side when some are at or behind its position (in
        // the query's direction): the page's own statement answers that in a column (SQLite runs the subquery once).
        var behind = Conditions()
        var hasRowsBehind = "0"
        if let cursor {
            behind = conditions
            behind.add(position, ascendingInQuery ? "<=" : ">=", cursor)
            hasRowsBehind = "EXISTS (SELECT 1 FROM \(source) \(behind.whereSQL))"
        }
        // The key twice in ORDER BY makes SQLite sort what an index on (filter, key) gives in order.
        let order = sortExpression == keyColumn ? "\(keyColumn) \(direction)" : "\(sortExpression) \(direction), \(keyColumn) \(direction)"
        let sql = """
            SELECT \(columns), \(sortExpression), \(keyColumn), \(hasRowsBehind) FROM \(source) \(pageConditions.whereSQL)
            ORDER BY \(order) LIMIT ?
            """
        return (sql, behind.values + pageConditions.values + [(request.pageSize + 1).databaseValue], resolved)
    }

    private func name(_ index: ListIndex) -> String {
        switch index {
        case .key: keyIndex
        case .named(let name): name
        }
    }

    /// Reads one page into `rows`: each row is handed to `append` while the statement is on it, so that text and
    /// integers are read straight from SQLite rather than copied into a row of `DatabaseValue`s first. Returns
    /// the cursors of the pages on either side, when there are rows there.
    func page<Source: SQLiteReading, Rows: PageRows>(
        _ source: Source, request: PageRequest, conditions: Conditions, into rows: inout Rows,
        append: (inout Rows, Source.Row, SQLiteStatement) throws -> Void
    ) throws -> (next: String?, previous: String?) {
        let (sql, arguments, resolved) = try pageStatement(request, conditions: conditions)
        let forward = resolved.cursor?.direction != .previous
        // Cursors start from the edges of the page: its first row as read, and its last when the page is full (a
        // page that is not has nothing beyond it in the query's direction).
        var firstRead: ListCursor?
        var lastRead: ListCursor?
        var count = 0
        // The row after the page only tells that there is more: it is not read.
        var hasMoreInQueryDirection = false
        var hasRowsBehindCursor = false
        try source.forEachRow(sql, arguments) { row, statement in
            guard count < request.pageSize else {
                hasMoreInQueryDirection = true
                return false
            }
            let columns = sqlite3_column_count(statement)
            func position() -> ListCursor {
                ListCursor(
                    ordering: resolved.ordering, direction: .next, sortValue: .init(statement, column: columns - 3),
                    key: .init(statement, column: columns - 2))
            }
            if count == 0 {
                hasRowsBehindCursor = sqlite3_column_int64(statement, columns - 1) != 0
                firstRead = position()
            }
            count += 1
            if count == request.pageSize { lastRead = position() }
            try append(&rows, row, statement)
            return true
        }
        if !forward { rows.reverse() }
        func encoded(_ edge: ListCursor?, _ direction: ListCursor.Direction) -> String? {
            guard var edge else { return nil }
            edge.direction = direction
            return edge.encoded()
        }
        // Read backwards, the page's first row was read last.
        let hasNext = forward ? hasMoreInQueryDirection : hasRowsBehindCursor
        let hasPrevious = forward ? hasRowsBehindCursor : hasMoreInQueryDirection
        return (
            hasNext ? encoded(forward ? lastRead : firstRead, .next) : nil, hasPrevious ? encoded(forward ? firstRead : lastRead, .previous) : nil
        )
    }
}

extension SQLiteCatalogStore {
    static let filmListing = ListingSpec(
        table: "films", columns: FilmRow.columns, keyColumn: "episode_id",
        ordering: .films, searchIndex: .films)

    static let productListing = ListingSpec(
        table: "products", columns: ProductRow.columns, keyColumn: "serial_code",
        ordering: .products, expressions: ["price": "price_micros"], searchIndex: .products, indexes: .products,
        keyIndex: "sqlite_autoindex_products_1")

    static let categoryListing = ListingSpec(
        table: "categories", columns: CategoryRow.columns, keyColumn: "name",
        ordering: .categories, searchIndex: .categories)

    public func films(_ filter: FilmFilter, page request: PageRequest) async throws -> Page<[FilmRow]> {
        try await database.read { db in
            let query = filter.query
            let conditions = Conditions(query.conditions)
            var (rows, next, previous) = try Self.filmListing.page(
                db, request: request.ranked(by: query.search, in: .films), filters: conditions, search: query.search,
                decode: FilmRow.init(row:))
            try FilmRow.attachLinks(to: &rows, db)
            let count = try Self.filmListing.count(db, Self.filmListing.selecting(conditions, query.search))
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
        let request = request.ranked(by: filter.searchQuery, in: .products)
        if try Self.indexAnswers(filter, request) {
            return try directReaders.read { try Self.products(filter, page: request, into: rows, $0) }
        }
        return try await database.read { try Self.products(filter, page: request, into: rows, $0) }
    }

    /// Whether an index gives the page's rows in the order asked, so that reading it takes microseconds: then it
    /// is read on the calling thread; any other (a search, or an order no index has, which sort the table) on
    /// GRDB's readers, so that it never holds up a thread the server answers on.
    private static func indexAnswers(_ filter: ProductFilter, _ request: PageRequest) throws -> Bool {
        let field = try productListing.ordering.resolveOrdering(request).field
        var otherFilters = filter
        otherFilters.category = nil
        // products_by_category holds each category's products by serial_code.
        return filter.isEmpty ? indexOrderedFields.contains(field) : otherFilters.isEmpty && field == "serial_code"
    }

    /// The orderings of products an index gives (`DirectReadTests` asks SQLite's plans).
    static let indexOrderedFields = Set(ListIndexes.products.orderings.keys)

    private static func products<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, into rows: Rows, _ source: some SQLiteReading
    ) throws -> Page<Rows> {
        var rows = rows
        let query = filter.query
        let filters = Conditions(query.conditions)
        let search = query.search
        let conditions = productListing.selecting(filters, search)
        let (next, previous) = try productListing.page(
            source, request: request, filters: filters, search: search, into: &rows
        ) { rows, _, statement in
            rows.append(ProductColumn.stored(statement))
        }
        let counting = productCount(query, conditions)
        let count = Int(try source.integer(counting.sql, counting.arguments) ?? 0)
        return Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: try StoreVersions.fetch(source))
    }

    /// The statement that counts the products `query` selects (`conditions`), as its `count` says
    /// (`ListingPlanTests` asks SQLite's plans).
    static func productCount(_ query: ListQuery, _ conditions: Conditions) -> (sql: String, arguments: [DatabaseValue]) {
        switch (query.count, query.search) {
        case (.derived(let expression, nil), _): ("SELECT COALESCE(SUM(\(expression)), 0) FROM categories", [])
        case (.derived(let expression, let category?), _): ("SELECT \(expression) FROM categories WHERE name = ?", [category.databaseValue])
        case (.searchIndex, let search?): SearchIndex.products.countStatement(search)
        case (.searchIndex, nil), (.rows, _): ("SELECT COUNT(*) FROM products \(conditions.whereSQL)", conditions.values)
        }
    }

    public func product(serialCode: String) async throws -> (ProductRow?, StoreVersions) {
        try directReaders.read { reader in
            var row: ProductRow?
            try reader.forEachRow("SELECT \(ProductRow.columns) FROM products WHERE serial_code = ?", [serialCode.databaseValue]) { _, statement in
                row = ProductRow(ProductColumn.stored(statement))
                return false
            }
            return (row, try StoreVersions.fetch(reader))
        }
    }

    public func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> Page<[CategoryRow]> {
        try await database.read { db in
            let (rows, next, previous) = try Self.categoryListing.page(
                db, request: request.ranked(by: filter.searchQuery, in: .categories), filters: Conditions(), search: filter.searchQuery,
                decode: CategoryRow.init(row:))
            let count = try Self.categoryListing.count(db, Self.categoryListing.selecting(Conditions(), filter.searchQuery))
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
    /// The value in `column` of the row the statement is on.
    init(_ statement: SQLiteStatement, column: Int32) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, column))
        case SQLITE_TEXT:
            let bytes = UnsafeBufferPointer(start: sqlite3_column_text(statement, column), count: Int(sqlite3_column_bytes(statement, column)))
            self = .text(String(decoding: bytes, as: UTF8.self))
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
