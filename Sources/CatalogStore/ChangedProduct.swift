/// A product row that a change touched since a base (`FrequentTerms`), as it stands at the snapshot the base is
/// brought forward to (`FrequentTerms.advanced`): what the base keeps of a row, read from the engine.
public struct ChangedProduct: Sendable {
    /// Its row number in the base's numbering (SQLite's rowid, a PostgreSQL row's place in `row_order`).
    public let row: Int64
    public let key: String
    public let category: String
    public let brand: String
    public let priceMicros: Int64

    public init(row: Int64, key: String, category: String, brand: String, priceMicros: Int64) {
        self.row = row
        self.key = key
        self.category = category
        self.brand = brand
        self.priceMicros = priceMicros
    }
}
