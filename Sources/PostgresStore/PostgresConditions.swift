import CatalogModel
import CatalogStore
import CatalogStoreKit
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

    init() {}

    /// The SQL of `conditions`, which a list's filters put on its rows (`ListQuery`); its search is added apart
    /// (`PostgresListing.selecting`).
    init(_ conditions: [ListCondition]) {
        for condition in conditions {
            clauses.append(condition.sql { parameter($0) })
        }
    }

    /// Adds the match of `search` in `index` (`SearchQuery` says what matches).
    mutating func addSearch(_ search: SearchQuery?, _ index: PostgresSearchIndex) {
        guard let search else { return }
        add(index.condition(search, &self))
    }

    var whereSQL: String { clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ") }
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
