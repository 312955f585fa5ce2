/// The rows of a page, collected in the order the store reads them.
public protocol PageRows {
    /// Puts the rows in the opposite order: a page read backwards from a cursor is read last row first.
    mutating func reverse()
}

extension Array: PageRows {}

/// What a page of products is made into, one product at a time while the store is on its row: rows for a test
/// or a write's answer (`[ProductRow]`), or the page's JSON written straight from the stored bytes.
public protocol ProductPageRows: PageRows, Sendable {
    mutating func append(_ product: StoredProduct)
}

extension Array: ProductPageRows where Element == ProductRow {
    public mutating func append(_ product: StoredProduct) {
        append(ProductRow(product))
    }
}
