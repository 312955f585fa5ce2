import CatalogStore
import Logging
import PostgresNIO

/// The first page of a ranked search of one word or one typed prefix without filters, from the table of each
/// product's words (`PostgresListing.MatchSource.words`), as a statement each connection prepares once: parsing it
/// took a third of its time at a million products. It runs on connections that plan it once for any word
/// (`PostgresGenericPlanPool`), which suits it: whatever the word, its entries are a range of the words table's key
/// (`PostgresPlanTests` asks for that plan).
protocol PostgresWordPage: PostgresPreparedStatement where Row == PostgresRandomAccessRow {
    /// A search of the shape the statement reads: a word, or a typed prefix.
    static var shape: SearchQuery { get }
    var binds: PostgresBindings { get }
    init(binds: PostgresBindings)
}

extension PostgresWordPage {
    /// The statement `PostgresListing.matchesStatement` makes of a first page of `shape`, in the default order.
    static func statement(of listing: PostgresListing) -> String {
        let walk = try? RankedWalk(
            PageRequest(ordering: ListOrdering.relevance), ordering: listing.ordering, ranks: SearchFields.products.ranks.count)
        return walk.flatMap { listing.matchesStatement($0, search: shape, filters: PostgresConditions(), source: .words)?.sql } ?? ""
    }

    func makeBindings() -> PostgresBindings { binds }

    func decodeRow(_ row: PostgresRow) -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

/// The word page a statement is (`PostgresWordPage`), told once from its SQL, which `matchesStatement` makes for
/// the statements' own SQL as well: its rows are read prepared.
enum PreparedWordPage: Sendable {
    case word(PostgresFirstWordPage)
    case prefix(PostgresFirstPrefixPage)

    /// The word page `statement` is; nil for any other statement.
    init?(_ statement: (sql: String, binds: PostgresBindings)) {
        switch statement.sql {
        case PostgresFirstWordPage.sql: self = .word(PostgresFirstWordPage(binds: statement.binds))
        case PostgresFirstPrefixPage.sql: self = .prefix(PostgresFirstPrefixPage(binds: statement.binds))
        default: return nil
        }
    }
}

extension PostgresConnection {
    /// The rows of a word page, prepared once per connection.
    func rows(of page: PreparedWordPage, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var fetched: [PostgresRandomAccessRow] = []
        switch page {
        case .word(let statement): for try await row in try await execute(statement, logger: logger) { fetched.append(row) }
        case .prefix(let statement): for try await row in try await execute(statement, logger: logger) { fetched.append(row) }
        }
        return fetched
    }

    /// The rows of `statement`, not prepared.
    func rows(of statement: (sql: String, binds: PostgresBindings), logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var fetched: [PostgresRandomAccessRow] = []
        for try await row in try await query(PostgresQuery(unsafeSQL: statement.sql, binds: statement.binds), logger: logger) {
            fetched.append(row.makeRandomAccess())
        }
        return fetched
    }
}

/// `PostgresWordPage` of a whole word.
struct PostgresFirstWordPage: PostgresWordPage {
    static let shape = SearchQuery("word ")
    static let sql = statement(of: .products)
    let binds: PostgresBindings
}

/// `PostgresWordPage` of a typed prefix.
struct PostgresFirstPrefixPage: PostgresWordPage {
    static let shape = SearchQuery("prefix")
    static let sql = statement(of: .products)
    let binds: PostgresBindings
}
