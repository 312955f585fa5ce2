import CatalogStore
import CatalogStoreKit
import GRDB

/// SQL conditions and their arguments, built from filters.
struct SQLiteConditions {
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
    /// (`SQLiteListing.selecting`).
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
    mutating func addSearch(_ search: SearchQuery?, _ index: SQLiteSearchIndex) {
        guard let search else { return }
        guard !search.matchesNothing else { return add("0") }
        let condition = index.condition(search)
        add(condition.sql, condition.argument)
    }

    var whereSQL: String { clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ") }

    var values: [DatabaseValue] { arguments.map(\.databaseValue) }
}
