import CatalogModel
import CatalogStore
import Logging
import PostgresNIO

extension PostgresCatalogStore {
    public func changes(since: Int64, limit: Int, entity: Change.Entity?) async throws -> ChangeSlice {
        try await transaction(.read) { connection in
            let (lastSeq, horizon) = try await historyBounds(connection)
            if since < horizon { throw HistoryGone(since: since, horizon: horizon, lastSeq: lastSeq) }
            var conditions = PostgresConditions()
            conditions.add("seq > \(conditions.parameter(since))")
            if let entity { conditions.add("entity = \(conditions.parameter(entity.rawValue))") }
            let limitParameter = conditions.parameter(Int64(limit))
            let sql = "SELECT seq, entity, key, op, author, at FROM changes \(conditions.whereSQL) ORDER BY seq LIMIT \(limitParameter)"
            let changes = try await Self.fetchChanges(connection, PostgresQuery(unsafeSQL: sql, binds: conditions.binds), logger: logger)
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

    /// The newest seq, and the horizon: every seq up to it is either retained or known to be followed by nothing
    /// missing, so a position older than it has lost changes to pruning.
    func historyBounds(_ connection: PostgresConnection) async throws -> (lastSeq: Int64, horizon: Int64) {
        let lastSeq = try await Self.versions(connection, logger: logger).lastSeq
        var oldest: Int64?
        for try await seq in try await connection.query("SELECT MIN(seq) FROM changes", logger: logger).decode(Int64?.self) { oldest = seq }
        return (lastSeq, (oldest ?? (lastSeq + 1)) - 1)
    }

    public func changes(of entity: Change.Entity, key: String, limit: Int) async throws -> [Change] {
        try await transaction(.read) { connection in
            let query: PostgresQuery = """
                SELECT seq, entity, key, op, author, at FROM changes WHERE entity = \(entity.rawValue) AND key = \(key)
                ORDER BY seq DESC LIMIT \(Int64(limit))
                """
            return try await Self.fetchChanges(connection, query, logger: logger)
        }
    }

    private static func fetchChanges(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> [Change] {
        var changes: [Change] = []
        for try await (seq, entity, key, operation, author, at) in try await connection.query(query, logger: logger).decode(
            (Int64, String, String, String, String, String).self)
        {
            changes.append(try Change(seq: seq, storedEntity: entity, key: key, storedOperation: operation, author: author, at: at))
        }
        return changes
    }

    /// Changes are recorded in seq order with the time of their transaction, so the old ones are a prefix of the
    /// history; the newest is always kept, and `history_state` keeps the last seq whatever is pruned. The history lock
    /// is taken first, as every write of the history takes it: a first import fills a copy of the history, which
    /// takes its place at its commit, and a pruning meanwhile would be undone.
    public func pruneHistory(before cutoff: String) async throws -> Int {
        try await transaction(.write) { connection in
            try await PostgresLock.takeHistory(connection, logger: logger)
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
