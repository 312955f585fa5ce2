import CatalogModel

/// The `products` columns, listed once for both engines. Reads select them in this order; the writers and the
/// staging areas bind a product's `record` columns in this order.
package enum ProductColumn: String, CaseIterable, Sendable {
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
    package static let record = Array(allCases.prefix(through: allCases.firstIndex(of: .sourceURL) ?? 0))
    /// The record's columns after the key.
    package static let values = Array(record.dropFirst())

    /// `serial_code, name, …` for SQL.
    package static func list(_ columns: [ProductColumn]) -> String {
        columns.map(\.rawValue).joined(separator: ", ")
    }

    /// The column's place in a row that selected `allCases` (or `record`, its prefix), the order of the cases
    /// above: a name is read without a search of the row's column names, or a hash, which a page of 100 rows
    /// would do 1,200 times (`ProductColumnTests` checks the two orders agree).
    package var position: Int {
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

    /// Whether the column holds text (the others hold integers).
    package var isText: Bool {
        switch self {
        case .priceMicros, .stock, .changedSeq: false
        default: true
        }
    }

    /// A value of a product column.
    package enum Value: Sendable {
        case text(String)
        case integer(Int64)
    }

    /// The column's value in a product record, as the column holds it: `''` for none (the columns have been NOT
    /// NULL since the first schema, and `Product` reads `''` back as none); nil for a column the record does not fill.
    package func value(in product: Product) -> Value? {
        switch self {
        case .serialCode: .text(product.serialCode)
        case .name: .text(product.name)
        case .description: .text(product.description)
        case .category: .text(product.category)
        case .brand: .text(product.brand ?? "")
        case .price: .text(product.price.text)
        case .priceMicros: .integer(product.price.micros)
        case .stock: .integer(Int64(product.stock))
        case .updatedAt: .text(product.updatedAt ?? "")
        case .sourceURL: .text(product.sourceURL ?? "")
        case .source, .changedSeq: nil
        }
    }
}
