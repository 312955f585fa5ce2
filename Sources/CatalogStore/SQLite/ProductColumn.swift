import CatalogModel
import GRDB

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

    /// The column's place in a row that selected `allCases` (or `record`, its prefix): a name is read without
    /// GRDB's search of the row's column names, which a page of 100 rows would do 1,200 times.
    var position: Int { Self.positions[self] ?? 0 }
    private static let positions = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })

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

extension Row {
    /// The value of a `products` column, by name.
    subscript<Value: DatabaseValueConvertible>(_ column: ProductColumn) -> Value {
        self[column.position]
    }
}
