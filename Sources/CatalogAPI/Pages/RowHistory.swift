import CatalogModel
import CatalogStore
import Hummingbird

/// A row with its newest changes, as its page shows them.
struct RowHistory<Row: Sendable>: Sendable {
    let row: Row
    /// Newest first.
    let changes: [Change]

    /// How many of a row's changes its page lists.
    static var newest: Int { 20 }

    /// The row `fetch` reads, with the changes of `entity` `key` that its read already reflects: the page is cached
    /// under the row's versions, so it never shows a change made after them.
    static func read(
        _ store: any CatalogStore, _ entity: Change.Entity, key: String, fetch: () async throws -> (Row?, StoreVersions)
    ) async throws -> (RowHistory?, StoreVersions) {
        let (row, versions) = try await fetch()
        guard let row else { return (nil, versions) }
        let changes = try await store.changes(of: entity, key: key, limit: newest).filter { $0.seq <= versions[entity.family] }
        return (RowHistory(row: row, changes: changes), versions)
    }

    /// The changes as a list under a heading, newest first, in the shape of the change page's.
    func write(into html: inout HTMLWriter) {
        html.element("h2", "History")
        html.element("div", ["class": "card"]) { card in
            guard !changes.isEmpty else { return card.element("p", ["class": "muted"], "No retained change.") }
            card.element("p", ["class": "muted"], "The newest \(Self.newest) changes at most, newest first.")
            card.element("ol", ["class": "changes", "reversed": ""]) { list in
                for change in changes { ChangesPage.item(change, into: &list) }
            }
        }
    }
}
