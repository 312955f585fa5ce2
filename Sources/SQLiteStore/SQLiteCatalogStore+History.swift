import CatalogModel
import CatalogStore
import GRDB

extension SQLiteCatalogStore {
    /// Changes after `since`, oldest first, optionally of one entity; throws `HistoryGone` when `since` is
    /// older than the retained history.
    public func changes(since: Int64, limit: Int, entity: Change.Entity?) async throws -> ChangeSlice {
        try await read { db in
            let (lastSeq, horizon) = try Self.historyBounds(db)
            if since < horizon {
                throw HistoryGone(since: since, horizon: horizon, lastSeq: lastSeq)
            }
            var conditions = SQLiteConditions()
            conditions.add("seq > ?", since)
            if let entity { conditions.add("entity = ?", entity.rawValue) }
            let rows = try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT seq, entity, key, op, author, at FROM changes \(conditions.whereSQL) ORDER BY seq LIMIT ?"),
                arguments: StatementArguments(conditions.arguments + [limit]))
            let changes = try rows.map(Self.decodeChange)
            let shown = changes.last?.seq ?? since
            let pending: Int
            if let entity {
                pending =
                    try Int.fetchOne(
                        try db.cachedStatement(sql: "SELECT COUNT(*) FROM changes WHERE seq > ? AND entity = ?"), arguments: [shown, entity.rawValue])
                    ?? 0
            } else {
                // Seqs are gapless after the horizon (every write transaction takes them in order, pruning only
                // removes the oldest), so counting the rest of a long history is a subtraction.
                pending = Int(max(0, lastSeq - shown))
            }
            return ChangeSlice(changes: changes, lastSeq: lastSeq, pending: pending)
        }
    }

    /// The newest seq, and the horizon: every seq up to it is either retained or known to be followed by nothing
    /// missing, so a position older than it has lost changes to pruning.
    static func historyBounds(_ db: Database) throws -> (lastSeq: Int64, horizon: Int64) {
        let lastSeq = try StoreVersions.lastSeq(db)
        let oldest = try Int64.fetchOne(try db.cachedStatement(sql: "SELECT MIN(seq) FROM changes"))
        return (lastSeq, (oldest ?? (lastSeq + 1)) - 1)
    }

    /// Read on the calling thread when a `DirectReader` is free (`DirectReaders`), else on GRDB's readers: an index
    /// answers it, and a page asks for it on every first read.
    public func changes(of entity: Change.Entity, key: String, limit: Int) async throws -> [Change] {
        if let changes = try directReaders.read({ try Self.changes(of: entity, key: key, limit: limit, $0) }) { return changes }
        return try await read { try Self.changes(of: entity, key: key, limit: limit, $0) }
    }

    private static func changes(of entity: Change.Entity, key: String, limit: Int, _ source: some SQLiteReading) throws -> [Change] {
        try source.rows(
            "SELECT seq, entity, key, op, author, at FROM changes WHERE entity = ? AND key = ? ORDER BY seq DESC LIMIT ?",
            [entity.rawValue.databaseValue, key.databaseValue, limit.databaseValue]
        ) { row in
            try Change(
                seq: row.integer(0), storedEntity: row.text(1), key: row.text(2), storedOperation: row.text(3), author: row.text(4), at: row.text(5))
        }
    }

    private static func decodeChange(_ row: Row) throws -> Change {
        // By position, as every statement here selects them: a name is looked up, case-insensitively, for each row.
        try Change(seq: row[0], storedEntity: row[1], key: row[2], storedOperation: row[3], author: row[4], at: row[5])
    }

    /// Deletes history recorded before `cutoff` (an ISO 8601 UTC timestamp); returns how many changes went.
    /// The newest change is always kept, so the sequence never restarts.
    ///
    /// Changes are recorded in seq order with the time of their transaction, so the old ones are a prefix
    /// of the history: the first change at or after the cutoff is found from the oldest end, and everything
    /// before it goes. The cost follows what is pruned, not the length of the history (a scan of a million
    /// changes every hour would also fill the writer's page cache for nothing).
    public func pruneHistory(before cutoff: String) async throws -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM changes WHERE seq < COALESCE(
                        (SELECT seq FROM changes WHERE at >= ? ORDER BY seq LIMIT 1), (SELECT MAX(seq) FROM changes))
                    """,
                arguments: [cutoff])
            return db.changesCount
        }
    }
}
