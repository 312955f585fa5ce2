import CatalogModel
import CatalogStore
import Logging
import PostgresNIO

/// Records the history of one write transaction: seqs taken in order under the history lock, one change row
/// per row written, and at the end the versions moved, the last seq kept and the commit announced.
struct PostgresChangeLog {
    let connection: PostgresConnection
    let logger: Logger
    let author: String
    let at: String
    /// The seq the next change gets.
    private(set) var nextSeq: Int64
    private var changedFamilies: Set<ResourceFamily> = []

    /// Takes the history lock (held until the transaction ends) and reads the last seq given.
    init(_ connection: PostgresConnection, author: String, logger: Logger) async throws {
        self.connection = connection
        self.logger = logger
        self.author = author
        at = Timestamp.now()
        try await PostgresLock.takeHistory(connection, logger: logger)
        var last: Int64 = 0
        for try await seq in try await connection.query("SELECT last_seq FROM history_state", logger: logger).decode(Int64.self) {
            last = seq
        }
        nextSeq = last + 1
    }

    /// Records that the rows `keys` of `entity` were written with consecutive seqs from `nextSeq`.
    mutating func record(_ entity: Change.Entity, keys: [String], _ operation: Change.Operation) async throws {
        guard !keys.isEmpty else { return }
        let first = nextSeq
        try await connection.query(
            """
            INSERT INTO changes (seq, entity, key, op, author, at)
            SELECT \(first) - 1 + n, \(entity.rawValue), key, \(operation.rawValue), \(author), \(at)
            FROM unnest(\(keys)::text[]) WITH ORDINALITY AS listed(key, n)
            """, logger: logger)
        recorded(entity, count: keys.count)
    }

    /// Notes that a statement of the caller's wrote `count` change rows of `entity`, with consecutive seqs from
    /// `nextSeq`.
    mutating func recorded(_ entity: Change.Entity, count: Int) {
        guard count > 0 else { return }
        changedFamilies.insert(entity.family)
        nextSeq += Int64(count)
    }

    /// The version this transaction gives `family` once it commits; nil when it wrote no row of it.
    func versionGiven(to family: ResourceFamily) -> Int64? {
        changedFamilies.contains(family) ? nextSeq - 1 : nil
    }

    /// The version `family` will have once this transaction commits.
    func versionAtCommit(of family: ResourceFamily) async throws -> Int64 {
        if let given = versionGiven(to: family) { return given }
        var version: Int64 = 0
        for try await stored in try await connection.query("SELECT version FROM versions WHERE name = \(family.rawValue)", logger: logger)
            .decode(Int64.self)
        {
            version = stored
        }
        return version
    }

    /// Moves the version of every family this transaction changed to its last seq, keeps that seq, and has
    /// PostgreSQL announce it when (and only if) the transaction commits.
    func finish() async throws {
        guard !changedFamilies.isEmpty else { return }
        let last = nextSeq - 1
        // One statement, not three: each round trip is a write's work on both sides, beside the reads.
        try await connection.query(
            """
            WITH families AS (UPDATE versions SET version = \(last) WHERE name = ANY(\(changedFamilies.map(\.rawValue))::text[])),
            history AS (UPDATE history_state SET last_seq = \(last))
            SELECT pg_notify(\(PostgresCatalogStore.commitChannel), \(String(last)))
            """, logger: logger)
    }
}
