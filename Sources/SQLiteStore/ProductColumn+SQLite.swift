import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB
import GRDBSQLite

extension ProductColumn {
    /// Binds a product's `record` columns, in order.
    static func bind(_ product: Product, into row: inout DirectStatement.Bindings) {
        for column in record {
            switch column.value(in: product) {
            case .text(let text): row.add(text)
            case .integer(let integer): row.add(integer)
            case nil: break
            }
        }
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
    /// The value of a `products` column, named by its case and read at its place (`position`). Every column is text
    /// or an integer, read straight from SQLite's own conversions (`StatementColumnConvertible`): the generic path
    /// through `DatabaseValue` looked up type metadata at run time for every value, a third of the CPU of a page of
    /// 100 products with the cache off.
    subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: ProductColumn) -> Value {
        self[column.position]
    }
}
