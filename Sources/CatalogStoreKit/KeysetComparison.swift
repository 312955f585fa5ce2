/// How a list query compares a row's position with a cursor's, in SQL, for every store: by the sorted
/// expression and then the key, or by the key alone when the list is sorted by its key. The row value
/// `(key, key) > (?, ?)` says the same as `key > ?`, but SQLite seeks the index on its first term and then
/// compares the whole row value on every row it reads, which made a page read from a cursor cost more than
/// the first page.
package struct KeysetComparison: Sendable {
    package let sortExpression: String
    package let keyColumn: String

    package init(sortExpression: String, keyColumn: String) {
        self.sortExpression = sortExpression
        self.keyColumn = keyColumn
    }

    /// Whether the comparison is on the key alone, so that the cursor's sort value is not a parameter of it.
    package var comparesKeyOnly: Bool { sortExpression == keyColumn }

    /// `position <comparison> cursor's position`, the cursor's values written as the placeholders given; the sort
    /// value's is not used when `comparesKeyOnly`.
    package func condition(_ comparison: String, sortValue: String, key: String) -> String {
        comparesKeyOnly ? "\(keyColumn) \(comparison) \(key)" : "(\(sortExpression), \(keyColumn)) \(comparison) (\(sortValue), \(key))"
    }
}
