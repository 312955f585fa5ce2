/// One condition a list's filters put on its rows, described once for every engine: each writes it in its own SQL
/// with its own placeholders (`sql(_:)`), SQLite's `?` and PostgreSQL's `$1`.
public enum ListCondition: Sendable, Equatable {
    /// The column holds the value.
    case equals(String, ListCursor.Value)
    case atLeast(String, ListCursor.Value)
    case atMost(String, ListCursor.Value)
    /// The column holds a number above zero.
    case positive(String)
    /// The column holds zero.
    case zero(String)

    /// The condition in SQL, each value written as the placeholder `placeholder` gives it (and keeps it for).
    public func sql(_ placeholder: (ListCursor.Value) -> String) -> String {
        switch self {
        case .equals(let column, let value): "\(column) = \(placeholder(value))"
        case .atLeast(let column, let value): "\(column) >= \(placeholder(value))"
        case .atMost(let column, let value): "\(column) <= \(placeholder(value))"
        case .positive(let column): "\(column) > 0"
        case .zero(let column): "\(column) = 0"
        }
    }

    /// The column the condition holds to one value: an index on (that column, key) gives the rows it selects in
    /// the key's order.
    public var equalityColumn: String? {
        switch self {
        case .equals(let column, _), .zero(let column): column
        case .atLeast, .atMost, .positive: nil
        }
    }
}
