import CatalogModel
import CatalogStore
import Logging
import PostgresNIO

/// SQL conditions with their numbered parameters (`$1`, `$2`, …), built from filters.
struct PostgresConditions {
    var clauses: [String] = []
    var binds = PostgresBindings()

    /// Adds `value` as the next parameter and returns its placeholder.
    mutating func parameter<Value: PostgresNonThrowingEncodable>(_ value: Value) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    mutating func add(_ clause: String) {
        clauses.append(clause)
    }

    /// Adds a case-insensitive substring match over `columns`.
    mutating func addSearch(_ text: String?, columns: [String]) {
        guard let text, !text.isEmpty else { return }
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        let pattern = parameter("%\(escaped)%")
        clauses.append("(" + columns.map { "\($0) ILIKE \(pattern) ESCAPE '\\'" }.joined(separator: " OR ") + ")")
    }

    var whereSQL: String { clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ") }
}

/// How the list query of one resource reads its table in each ordering it accepts.
struct PostgresListing {
    let table: String
    let columns: String
    let keyColumn: String
    let ordering: ListOrdering
    /// The SQL expression of each field whose column is named otherwise.
    var expressions: [String: String] = [:]

    static let films = PostgresListing(table: "films", columns: PostgresRows.filmColumns, keyColumn: "episode_id", ordering: .films)
    static let products = PostgresListing(
        table: "products", columns: PostgresRows.productColumns, keyColumn: "serial_code", ordering: .products,
        expressions: ["price": "price_micros"])
    static let categories = PostgresListing(table: "categories", columns: "name, product_count", keyColumn: "name", ordering: .categories)
    static let imports = PostgresListing(table: "imports", columns: PostgresRows.importColumns, keyColumn: "id", ordering: .imports)

    /// Reads one page: the rows, and cursors for the pages on either side when there are rows there.
    func page<Row: Sendable>(
        _ connection: PostgresConnection, request: PageRequest, conditions: PostgresConditions, logger: Logger,
        decode: (PostgresRandomAccessRow) throws -> Row
    ) async throws -> (rows: [Row], next: String?, previous: String?) {
        let resolved = try ordering.resolve(request)
        let (descending, cursor) = (resolved.descending, resolved.cursor)
        let sortExpression = expressions[resolved.field] ?? resolved.field
        let forward = cursor?.direction != .previous
        let ascendingInQuery = forward != descending
        var pageConditions = conditions
        if let cursor {
            let (sort, key) = (pageConditions.parameter(cursor.sortValue), pageConditions.parameter(cursor.key))
            pageConditions.add("(\(sortExpression), \(keyColumn)) \(ascendingInQuery ? ">" : "<") (\(sort), \(key))")
        }
        let direction = ascendingInQuery ? "ASC" : "DESC"
        let limit = pageConditions.parameter(Int64(request.pageSize + 1))
        let sql = """
            SELECT \(columns), \(sortExpression) AS position_sort, \(keyColumn) AS position_key FROM \(table) \(pageConditions.whereSQL)
            ORDER BY \(sortExpression) \(direction), \(keyColumn) \(direction) LIMIT \(limit)
            """
        var fetched: [PostgresRandomAccessRow] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: pageConditions.binds), logger: logger) {
            fetched.append(row.makeRandomAccess())
        }
        let hasMoreInQueryDirection = fetched.count > request.pageSize
        if hasMoreInQueryDirection { fetched.removeLast() }
        if !forward { fetched.reverse() }
        guard let first = fetched.first, let last = fetched.last else { return ([], nil, nil) }
        func position(_ row: PostgresRandomAccessRow, _ direction: ListCursor.Direction) throws -> ListCursor {
            ListCursor(
                ordering: resolved.ordering, direction: direction, sortValue: try .init(row["position_sort"]),
                key: try .init(row["position_key"]))
        }
        func exists(beyond cursor: ListCursor) async throws -> Bool {
            var probe = conditions
            let greater = (cursor.direction == .next) != descending
            let (sort, key) = (probe.parameter(cursor.sortValue), probe.parameter(cursor.key))
            probe.add("(\(sortExpression), \(keyColumn)) \(greater ? ">" : "<") (\(sort), \(key))")
            let sql = "SELECT 1 FROM \(table) \(probe.whereSQL) LIMIT 1"
            for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: probe.binds), logger: logger) { return true }
            return false
        }
        let nextPosition = try position(last, .next)
        let previousPosition = try position(first, .previous)
        let hasNext = forward ? hasMoreInQueryDirection : try await exists(beyond: nextPosition)
        let hasPrevious = forward ? (cursor != nil ? try await exists(beyond: previousPosition) : false) : hasMoreInQueryDirection
        return (try fetched.map(decode), hasNext ? nextPosition.encoded() : nil, hasPrevious ? previousPosition.encoded() : nil)
    }

    /// How many rows match `conditions`, over all pages.
    func count(_ connection: PostgresConnection, _ conditions: PostgresConditions, logger: Logger) async throws -> Int {
        let sql = "SELECT COUNT(*) FROM \(table) \(conditions.whereSQL)"
        for try await count in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: conditions.binds), logger: logger).decode(Int.self) {
            return count
        }
        return 0
    }
}

extension PostgresConditions {
    /// A cursor's sort value or key as the next parameter.
    mutating func parameter(_ value: ListCursor.Value) -> String {
        switch value {
        case .integer(let number): return parameter(number)
        case .text(let text): return parameter(text)
        case .null:
            binds.appendNull()
            return "$\(binds.count)"
        }
    }
}

extension ListCursor.Value {
    /// A sort value or key as a row holds it: text, or an integer of any width.
    init(_ cell: PostgresCell) throws {
        if cell.bytes == nil {
            self = .null
        } else if cell.dataType == .text || cell.dataType == .varchar {
            self = .text(try cell.decode(String.self))
        } else {
            self = .integer(try cell.decode(Int64.self))
        }
    }
}
