import CatalogModel
import Logging
import PostgresNIO

/// Keys of the advisory locks the replicas of one catalogue share (`pg_advisory_xact_lock` and friends).
///
/// They are fixed numbers in one namespace of our own ("catalogd" in ASCII, then a small number), so that
/// another application's locks on the same database do not collide with them by accident.
enum PostgresLock {
    private static let namespace: Int64 = 0x6361_7461_6C6F_6700

    /// Held while migrations run, so replicas starting together migrate once.
    static let migrations = namespace | 1
    /// Held by every transaction that writes the history (`takeHistory`): one that takes seqs, from before it reads the
    /// last seq until it commits, and a pruning.
    static let history = namespace | 2

    /// Takes the history lock until `connection`'s transaction ends.
    static func takeHistory(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(history))", logger: logger)
    }

    /// Held, at session level on a connection of its own, by the replica sending the webhooks' deliveries.
    static let webhookDelivery = namespace | 3

    /// Held, at session level on a connection of its own, by the replica running an import of `source`.
    static func importRun(_ source: FeedSource) -> Int64 {
        namespace | (0x10 + Int64(FeedSource.allCases.firstIndex(of: source) ?? 0))
    }
}
