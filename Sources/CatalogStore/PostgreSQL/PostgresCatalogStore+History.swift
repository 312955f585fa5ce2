import CatalogModel
import CatalogStore
import PostgresNIO

extension PostgresCatalogStore {
    public func changes(since: Int64, limit: Int, entity: Change.Entity?) async throws -> ChangeSlice {
        try await transaction(.read) { connection in
            let lastSeq = try await Self.versions(connection, logger: logger).lastSeq
            var oldest: Int64?
            for try await seq in try await connection.query("SELECT MIN(seq) FROM changes", logger: logger).decode(Int64?.self) { oldest = seq }
            // Every seq up to the horizon is either retained or known to be followed by nothing missing.
            let horizon = (oldest ?? (lastSeq + 1)) - 1
            if since < horizon { throw HistoryGone(since: since, horizon: horizon, lastSeq: lastSeq) }
            var conditions = PostgresConditions()
            conditions.add("seq > \(conditions.parameter(since))")
            if let entity { conditions.add("entity = \(conditions.parameter(entity.rawValue))") }
            let limitParameter = conditions.parameter(Int64(limit))
            let sql = "SELECT seq, entity, key, op, author, at FROM changes \(conditions.whereSQL) ORDER BY seq LIMIT \(limitParameter)"
            var changes: [Change] = []
            for try await (seq, entityText, key, operationText, author, at) in try await connection.query(
                PostgresQuery(unsafeSQL: sql, binds: conditions.binds), logger: logger
            ).decode((Int64, String, String, String, String, String).self) {
                guard let entity = Change.Entity(rawValue: entityText) else {
                    throw UnreadableStoredValue(column: "changes.entity", value: entityText)
                }
                guard let operation = Change.Operation(rawValue: operationText) else {
                    throw UnreadableStoredValue(column: "changes.op", value: operationText)
                }
                changes.append(Change(seq: seq, entity: entity, key: key, op: operation, author: author, at: at))
            }
            let shown = changes.last?.seq ?? since
            let pending: Int
            if let entity {
                let query: PostgresQuery = "SELECT COUNT(*) FROM changes WHERE seq > \(shown) AND entity = \(entity.rawValue)"
                pending = try await fetchInteger(connection, query)
            } else {
                // Seqs are gapless after the horizon, so counting the rest of a long history is a subtraction.
                pending = Int(max(0, lastSeq - shown))
            }
            return ChangeSlice(changes: changes, lastSeq: lastSeq, pending: pending)
        }
    }

    /// Changes are recorded in seq order with the time of their transaction, so the old ones are a prefix of the
    /// history; the newest is always kept, and `history_state` keeps the last seq whatever is pruned.
    public func pruneHistory(before cutoff: String) async throws -> Int {
        try await transaction(.write) { connection in
            let query: PostgresQuery = """
                DELETE FROM changes WHERE seq < COALESCE(
                    (SELECT seq FROM changes WHERE at >= \(cutoff) ORDER BY seq LIMIT 1), (SELECT MAX(seq) FROM changes))
                RETURNING 1
                """
            var pruned = 0
            for try await _ in try await connection.query(query, logger: logger) { pruned += 1 }
            return pruned
        }
    }

    func fetchInteger(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> Int {
        for try await value in try await connection.query(query, logger: logger).decode(Int.self) { return value }
        return 0
    }
}
