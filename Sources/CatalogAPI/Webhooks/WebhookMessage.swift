import CatalogModel
import CatalogStore

/// One message of a subscription: up to `maximumChanges` of its changes, in seq order, with each row's `data` as
/// `GET` gives it when the message is made (`null` once the row is deleted), as CouchDB's `include_docs` does.
struct WebhookMessage: Sendable {
    static let maximumChanges = 100

    let id: String
    let changes: [Change]
    let firstSeq: Int64
    let lastSeq: Int64

    /// Nil for no changes.
    init?(webhook: Int64, changes: [Change]) {
        guard let first = changes.first, let last = changes.last else { return nil }
        self.changes = changes
        firstSeq = first.seq
        lastSeq = last.seq
        id = "msg_\(webhook)_\(first.seq)_\(last.seq)"
    }

    /// `{"type": "catalog.changes", "changes": [{"seq", "entity", "key", "op", "author", "at", "data"}, …]}`, each
    /// row read once, however many of the changes name it.
    func body(store: any CatalogStore, representations: Representations) async throws -> [UInt8] {
        var rows: [String: [UInt8]] = [:]
        for change in changes where change.op == .upsert {
            let name = "\(change.entity.rawValue)/\(change.key)"
            guard rows[name] == nil else { continue }
            rows[name] = try await Self.data(of: change, store: store, representations: representations)
        }
        var writer = JSONWriter(capacity: 256 + rows.values.reduce(0) { $0 + $1.count } + changes.count * 160)
        writer.objectStart()
        writer.member("type", "catalog.changes")
        writer.key("changes")
        writer.arrayStart()
        for change in changes {
            writer.objectStart()
            change.writeMembers(into: &writer)
            writer.key("data")
            if change.op == .upsert, let data = rows["\(change.entity.rawValue)/\(change.key)"] {
                writer.json(data[...])
            } else {
                writer.null()
            }
            writer.objectEnd()
        }
        writer.arrayEnd()
        writer.objectEnd()
        return writer.bytes
    }

    /// The row as `GET` shows it now, or `null` when it is gone.
    private static func data(of change: Change, store: any CatalogStore, representations: Representations) async throws -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        switch change.entity {
        case .product:
            guard let row = try await store.product(serialCode: change.key).0 else { return Array("null".utf8) }
            representations.product(row, into: &writer)
        case .film:
            guard let episode = Int(change.key), let row = try await store.film(episodeID: episode).0 else { return Array("null".utf8) }
            representations.film(row, into: &writer)
        }
        return writer.bytes
    }
}
