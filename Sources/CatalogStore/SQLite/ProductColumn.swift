import CatalogModel
import CatalogStore
import GRDB
import GRDBSQLite

/// The `products` columns, listed once. Reads select them in this order and read them by name; the
/// writer and the staging area bind a product's `record` columns in this order.
enum ProductColumn: String, CaseIterable {
    case serialCode = "serial_code"
    case name
    case description
    case category
    case brand
    case price
    case priceMicros = "price_micros"
    case stock
    case updatedAt = "updated_at"
    case sourceURL = "source_url"
    case source
    case changedSeq = "changed_seq"

    /// What a product record fills: its key, then its values; a prefix of `allCases`.
    static let record = Array(allCases.prefix(through: allCases.firstIndex(of: .sourceURL) ?? 0))
    /// The record's columns after the key.
    static let values = Array(record.dropFirst())

    /// `serial_code, name, …` for SQL.
    static func list(_ columns: [ProductColumn]) -> String {
        columns.map(\.rawValue).joined(separator: ", ")
    }

    /// The column's place in a row that selected `allCases` (or `record`, its prefix), the order of the cases
    /// above: a name is read without GRDB's search of the row's column names, or a hash, which a page of 100 rows
    /// would do 1,200 times (`ProductColumnTests` checks the two orders agree).
    var position: Int {
        switch self {
        case .serialCode: 0
        case .name: 1
        case .description: 2
        case .category: 3
        case .brand: 4
        case .price: 5
        case .priceMicros: 6
        case .stock: 7
        case .updatedAt: 8
        case .sourceURL: 9
        case .source: 10
        case .changedSeq: 11
        }
    }

    /// Binds a product's `record` columns, in order. A value the product lacks is stored as `''`: the columns have
    /// been NOT NULL since the first schema, and `Product` reads `''` back as none.
    static func bind(_ product: Product, into row: inout DirectStatement.Bindings) {
        row.add(product.serialCode)
        row.add(product.name)
        row.add(product.description)
        row.add(product.category)
        row.add(product.brand ?? "")
        row.add(product.price.text)
        row.add(product.price.micros)
        row.add(product.stock)
        row.add(product.updatedAt ?? "")
        row.add(product.sourceURL ?? "")
    }

    /// The product in a row that selected `record` (or `allCases`).
    static func product(_ row: Row) -> Product {
        Product(
            serialCode: row[.serialCode], name: row[.name], description: row[.description], category: row[.category], brand: row[.brand],
            price: Price(storedText: row[.price], micros: row[.priceMicros]), stock: row[.stock], updatedAt: row[.updatedAt],
            sourceURL: row[.sourceURL])
    }
}

extension ProductColumn {
    /// The product the statement is on, which selected `allCases`: its text is SQLite's own, valid until the
    /// statement moves.
    static func stored(_ statement: SQLiteStatement) -> StoredProduct {
        let row = DirectRow(statement: statement)
        func text(_ column: ProductColumn) -> UnsafeBufferPointer<UInt8> { row.bytes(Int32(column.position)) }
        func integer(_ column: ProductColumn) -> Int64 { row.integer(Int32(column.position)) }
        return StoredProduct(
            serialCode: text(.serialCode), name: text(.name), description: text(.description), category: text(.category), brand: text(.brand),
            price: text(.price), priceMicros: integer(.priceMicros), stock: integer(.stock), updatedAt: text(.updatedAt),
            sourceURL: text(.sourceURL), source: text(.source), changedSeq: integer(.changedSeq))
    }
}

extension Row {
    /// The value of a `products` column, by name. Every column is text or an integer, read straight from SQLite's
    /// own conversions (`StatementColumnConvertible`): the generic path through `DatabaseValue` looked up type
    /// metadata at run time for every value, a third of the CPU of a page of 100 products with the cache off.
    subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: ProductColumn) -> Value {
        self[column.position]
    }
}
