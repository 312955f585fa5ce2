import CatalogModel
import Foundation
import GRDB

/// A request for one page of a list.
public struct PageRequest: Sendable {
    public static let defaultPageSize = 20
    public static let maximumPageSize = 1000

    /// A field name, `-` first for descending; nil for the resource's default.
    public var ordering: String?
    public var pageSize: Int
    /// An opaque cursor from a previous page's `next` or `previous`.
    public var cursor: String?

    public init(ordering: String? = nil, pageSize: Int = defaultPageSize, cursor: String? = nil) {
        self.ordering = ordering
        self.pageSize = pageSize
        self.cursor = cursor
    }
}

/// One page of a list, read in one transaction together with the versions it reflects.
public struct Page<Row: Sendable>: Sendable {
    public var rows: [Row]
    /// How many rows match the filters, over all pages.
    public var count: Int
    public var nextCursor: String?
    public var previousCursor: String?
    public var versions: StoreVersions
}

/// A query parameter the store cannot accept; the API answers 400 naming it.
public struct InvalidQuery: Error, Sendable, Equatable {
    public var parameter: String
    public var detail: String

    public init(parameter: String, detail: String) {
        self.parameter = parameter
        self.detail = detail
    }
}

/// A `cursor` that names no page of this listing: forged, damaged, or from another ordering.
///
/// A cursor is opaque, so the client cannot have got its syntax wrong; like Django REST Framework's cursor
/// pagination, the service answers that the page does not exist (404) rather than that the request is malformed.
public struct UnknownCursor: Error, Sendable, Equatable {
    public var detail: String

    public init(detail: String) {
        self.detail = detail
    }
}

public struct FilmFilter: Sendable {
    public var director: String?
    /// Matched against title, director and producer.
    public var search: String?

    public init(director: String? = nil, search: String? = nil) {
        self.director = director
        self.search = search
    }
}

public struct ProductFilter: Sendable {
    public var category: String?
    public var brand: String?
    public var minimumPrice: Price?
    public var maximumPrice: Price?
    public var inStock: Bool?
    /// Matched against name, description and brand.
    public var search: String?

    public init(
        category: String? = nil, brand: String? = nil, minimumPrice: Price? = nil, maximumPrice: Price? = nil, inStock: Bool? = nil,
        search: String? = nil
    ) {
        self.category = category
        self.brand = brand
        self.minimumPrice = minimumPrice
        self.maximumPrice = maximumPrice
        self.inStock = inStock
        self.search = search
    }

    var isEmpty: Bool {
        category == nil && brand == nil && minimumPrice == nil && maximumPrice == nil && inStock == nil && search == nil
    }
}

public struct CategoryFilter: Sendable {
    /// Matched against the name.
    public var search: String?

    public init(search: String? = nil) {
        self.search = search
    }
}

/// What the list query of one resource may order by, and how.
struct ListingSpec {
    let table: String
    let columns: String
    let keyColumn: String
    /// API field name → SQL expression; every expression here is backed by an index or a small table.
    let orderings: [String: String]
    let defaultOrdering: String

    /// The allowed `ordering` values, for documentation and errors.
    var orderingNames: [String] { orderings.keys.sorted() }
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

/// An opaque keyset position: the ordering it belongs to, the direction, and the sort value and key of the row it starts after.
struct ListCursor {
    enum Direction: String {
        case next = "n"
        case previous = "p"
    }

    var ordering: String
    var direction: Direction
    var sortValue: DatabaseValue
    var key: DatabaseValue

    func encoded() -> String {
        var writer = JSONWriter(capacity: 64)
        writer.objectStart()
        writer.key("o")
        writer.string(ordering)
        writer.key("d")
        writer.string(direction.rawValue)
        for (name, value) in [("v", sortValue), ("k", key)] {
            writer.key(name)
            switch value.storage {
            case .int64(let number): writer.int(number)
            case .string(let text): writer.string(text)
            default: writer.null()
            }
        }
        writer.objectEnd()
        return Data(writer.bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    init(ordering: String, direction: Direction, sortValue: DatabaseValue, key: DatabaseValue) {
        self.ordering = ordering
        self.direction = direction
        self.sortValue = sortValue
        self.key = key
    }

    init(decoding text: String) throws(UnknownCursor) {
        let invalid = UnknownCursor(detail: "no page at this cursor: it is not one this service issued; follow the next or previous links")
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.count <= 4096, let data = Data(base64Encoded: base64), let json = try? JSONParser.parse(data),
            case .string(let ordering) = json["o"], case .string(let directionText) = json["d"],
            let direction = Direction(rawValue: directionText), let sortValue = Self.databaseValue(json["v"]),
            let key = Self.databaseValue(json["k"])
        else { throw invalid }
        self.init(ordering: ordering, direction: direction, sortValue: sortValue, key: key)
    }

    private static func databaseValue(_ json: JSONValue?) -> DatabaseValue? {
        switch json {
        case .number(let text): Int64(text).map { $0.databaseValue }
        case .string(let text): text.databaseValue
        default: nil
        }
    }
}

extension ListingSpec {
    /// Reads one page: the rows, whether there are rows on either side, and cursors for them.
    func page<Row: Sendable>(
        _ db: Database, request: PageRequest, conditions: Conditions, decode: (GRDB.Row) throws -> Row
    ) throws -> (rows: [Row], next: String?, previous: String?) {
        let ordering = request.ordering ?? defaultOrdering
        let descending = ordering.hasPrefix("-")
        let field = descending ? String(ordering.dropFirst()) : ordering
        guard let sortExpression = orderings[field] else {
            throw InvalidQuery(
                parameter: "ordering",
                detail: "ordering must be one of \(orderingNames.joined(separator: ", ")), optionally prefixed with '-'; got '\(ordering)'")
        }
        let cursor = try request.cursor.map { text throws(UnknownCursor) in try ListCursor(decoding: text) }
        if let cursor, cursor.ordering != ordering {
            throw UnknownCursor(detail: "no page at this cursor: it belongs to ordering '\(cursor.ordering)', not '\(ordering)'")
        }
        let forward = cursor?.direction != .previous
        let ascendingInQuery = forward != descending
        var pageConditions = conditions
        if let cursor {
            pageConditions.add("(\(sortExpression), \(keyColumn)) \(ascendingInQuery ? ">" : "<") (?, ?)", cursor.sortValue, cursor.key)
        }
        let direction = ascendingInQuery ? "ASC" : "DESC"
        let sql = """
            SELECT \(columns), \(sortExpression), \(keyColumn) FROM \(table) \(pageConditions.whereSQL)
            ORDER BY \(sortExpression) \(direction), \(keyColumn) \(direction) LIMIT ?
            """
        var fetched = try GRDB.Row.fetchAll(
            try db.cachedStatement(sql: sql), arguments: StatementArguments(pageConditions.arguments + [request.pageSize + 1]))
        let hasMoreInQueryDirection = fetched.count > request.pageSize
        if hasMoreInQueryDirection { fetched.removeLast() }
        if !forward { fetched.reverse() }
        guard let first = fetched.first, let last = fetched.last else {
            return ([], nil, nil)
        }
        let positionColumns = (sort: first.count - 2, key: first.count - 1)
        func position(_ row: GRDB.Row, _ direction: ListCursor.Direction) -> ListCursor {
            ListCursor(ordering: ordering, direction: direction, sortValue: row[positionColumns.sort], key: row[positionColumns.key])
        }
        func exists(beyond cursor: ListCursor) throws -> Bool {
            var probe = conditions
            let greater = (cursor.direction == .next) != descending
            probe.add("(\(sortExpression), \(keyColumn)) \(greater ? ">" : "<") (?, ?)", cursor.sortValue, cursor.key)
            return try Bool.fetchOne(
                try db.cachedStatement(sql: "SELECT 1 FROM \(table) \(probe.whereSQL) LIMIT 1"), arguments: StatementArguments(probe.arguments))
                ?? false
        }
        let nextPosition = position(last, .next)
        let previousPosition = position(first, .previous)
        let hasNext = forward ? hasMoreInQueryDirection : try exists(beyond: nextPosition)
        let hasPrevious = forward ? try (cursor != nil && exists(beyond: previousPosition)) : hasMoreInQueryDirection
        return (try fetched.map(decode), hasNext ? nextPosition.encoded() : nil, hasPrevious ? previousPosition.encoded() : nil)
    }
}

extension CatalogStore {
    static let filmListing = ListingSpec(
        table: "films", columns: FilmRow.columns, keyColumn: "episode_id",
        orderings: ["episode_id": "episode_id", "title": "title", "release_date": "release_date", "director": "director"],
        defaultOrdering: "episode_id")

    static let productListing = ListingSpec(
        table: "products", columns: ProductRow.columns, keyColumn: "serial_code",
        orderings: [
            "serial_code": "serial_code", "name": "name", "price": "price_micros", "category": "category", "stock": "stock",
            "updated_at": "updated_at",
        ],
        defaultOrdering: "serial_code")

    static let categoryListing = ListingSpec(
        table: "categories", columns: CategoryRow.columns, keyColumn: "name",
        orderings: ["name": "name", "product_count": "product_count"], defaultOrdering: "name")

    /// The `ordering` values each list accepts.
    public static var orderingNames: (films: [String], products: [String], categories: [String]) {
        (filmListing.orderingNames, productListing.orderingNames, categoryListing.orderingNames)
    }

    public func films(_ filter: FilmFilter, page request: PageRequest) async throws -> Page<FilmRow> {
        try await database.read { db in
            var conditions = Conditions()
            if let director = filter.director { conditions.add("director = ?", director) }
            conditions.addSearch(filter.search, columns: ["title", "director", "producer"])
            var (rows, next, previous) = try Self.filmListing.page(db, request: request, conditions: conditions, decode: FilmRow.init(row:))
            try FilmRow.attachLinks(to: &rows, db)
            let count =
                try Int.fetchOne(
                    try db.cachedStatement(sql: "SELECT COUNT(*) FROM films \(conditions.whereSQL)"),
                    arguments: StatementArguments(conditions.arguments))
                ?? 0
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

    public func products(_ filter: ProductFilter, page request: PageRequest) async throws -> Page<ProductRow> {
        try await database.read { db in
            var conditions = Conditions()
            if let category = filter.category { conditions.add("category = ?", category) }
            if let brand = filter.brand { conditions.add("brand = ?", brand) }
            if let minimum = filter.minimumPrice { conditions.add("price_micros >= ?", minimum.micros) }
            if let maximum = filter.maximumPrice { conditions.add("price_micros <= ?", maximum.micros) }
            if let inStock = filter.inStock { conditions.add(inStock ? "stock > 0" : "stock = 0") }
            conditions.addSearch(filter.search, columns: ["name", "description", "brand"])
            let (rows, next, previous) = try Self.productListing.page(db, request: request, conditions: conditions, decode: ProductRow.init(row:))
            // The derived category counts answer the common cases without scanning products.
            let count: Int
            if filter.isEmpty {
                count = try Int.fetchOne(try db.cachedStatement(sql: "SELECT COALESCE(SUM(product_count), 0) FROM categories")) ?? 0
            } else if let category = filter.category, conditions.clauses.count == 1 {
                count =
                    try Int.fetchOne(try db.cachedStatement(sql: "SELECT product_count FROM categories WHERE name = ?"), arguments: [category]) ?? 0
            } else {
                count =
                    try Int.fetchOne(
                        try db.cachedStatement(sql: "SELECT COUNT(*) FROM products \(conditions.whereSQL)"),
                        arguments: StatementArguments(conditions.arguments)) ?? 0
            }
            return Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: try StoreVersions.fetch(db))
        }
    }

    public func product(serialCode: String) async throws -> (ProductRow?, StoreVersions) {
        try await database.read { db in
            let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT \(ProductRow.columns) FROM products WHERE serial_code = ?"), arguments: [serialCode])
            return (row.map(ProductRow.init(row:)), try StoreVersions.fetch(db))
        }
    }

    public func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> Page<CategoryRow> {
        try await database.read { db in
            var conditions = Conditions()
            conditions.addSearch(filter.search, columns: ["name"])
            let (rows, next, previous) = try Self.categoryListing.page(db, request: request, conditions: conditions, decode: CategoryRow.init(row:))
            let count =
                try Int.fetchOne(
                    try db.cachedStatement(sql: "SELECT COUNT(*) FROM categories \(conditions.whereSQL)"),
                    arguments: StatementArguments(conditions.arguments)) ?? 0
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
