import CatalogStore
import Logging
import PostgresNIO
import Synchronization

/// The connection the per-GET version check runs on: its own, outside the pool, so that a check is one round
/// trip with no lease, task or timer race around it (under load those cost more than the query). Opened on
/// first use and again after a failure; a check without an answer within `wait` closes it and is
/// `StoreUnavailable`, as a pooled call would be. `SharedCheck` runs one check at a time on it.
final class PostgresCheckConnection: Sendable {
    private let location: PostgresLocation
    private let wait: Duration
    private let logger: Logger
    /// Called when a connection is opened after the server was away (a connection could not be made, or the server
    /// closed the one before, or a check failed on it): the server is there again.
    private let reconnected: @Sendable () -> Void
    /// The open connection, and whether the server was away since one was last opened. A check that merely took too
    /// long (a busy server) does not count: the pools are not started afresh for it.
    private let open = Mutex<(connection: PostgresConnection?, serverWasAway: Bool)>((nil, false))

    init(location: PostgresLocation, wait: Duration, logger: Logger, reconnected: @escaping @Sendable () -> Void = {}) {
        self.location = location
        self.wait = wait
        self.logger = logger
        self.reconnected = reconnected
    }

    func versions() async throws -> StoreVersions {
        logger.trace("reading the versions for a check")
        let connection = try await connected()
        // Closing the connection fails the query at once: the bound holds whatever the server does.
        let overran = Mutex(false)
        let deadline = connection.eventLoop.scheduleTask(in: TimeAmount(wait)) {
            overran.withLock { $0 = true }
            Self.end(connection)
        }
        defer { deadline.cancel() }
        do {
            for try await versions in try await connection.execute(PostgresVersionsStatement(), logger: logger) { return versions }
            throw UnreadableStoredValue(column: "versions", value: "no row")
        } catch {
            guard PostgresFailure.isConnectionFailure(error) || connection.isClosed else { throw error }
            discard(connection, serverWasAway: !overran.withLock { $0 })
            throw StoreUnavailable(store: location.description, reason: PostgresFailure.describe(error))
        }
    }

    func close() {
        open.withLock { open in
            open.connection.map(Self.end)
            open.connection = nil
        }
    }

    private func connected() async throws -> PostgresConnection {
        if let connection = open.withLock({ $0.connection }), !connection.isClosed { return connection }
        let connection: PostgresConnection
        do {
            connection = try await Self.connect(to: location, within: wait, logger: logger)
        } catch {
            open.withLock { $0.serverWasAway = true }
            throw error
        }
        let serverWasAway = open.withLock { open in
            // A connection the server closed since the last check: it was away (a restart) or ended the session.
            let closedByServer = open.connection?.isClosed == true
            open.connection.map(Self.end)
            open.connection = connection
            defer { open.serverWasAway = false }
            return open.serverWasAway || closedByServer
        }
        if serverWasAway { reconnected() }
        return connection
    }

    /// A new connection, or `StoreUnavailable` after `wait`: a server that accepts and then says nothing holds
    /// the handshake up for as long as it likes, and the driver's timeout covers only the TCP connect.
    static func connect(to location: PostgresLocation, within wait: Duration, logger: Logger) async throws -> PostgresConnection {
        let configuration = try location.connectionConfiguration(connectTimeout: wait)
        do {
            return try await withThrowingTaskGroup(of: PostgresConnection?.self) { group in
                group.addTask { try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger) }
                group.addTask {
                    try await Task.sleep(for: wait)
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                // A connection that was made after all is closed, never dropped open.
                while true {
                    do {
                        guard let late = try await group.next() else { break }
                        if let late { try? await late.close() }
                    } catch {
                        continue
                    }
                }
                guard let first else { throw StoreUnavailable(store: location.description, reason: "no answer within \(wait)") }
                return first
            }
        } catch let error as StoreUnavailable {
            throw error
        } catch {
            throw StoreUnavailable(store: location.description, reason: PostgresFailure.describe(error))
        }
    }

    private func discard(_ connection: PostgresConnection, serverWasAway: Bool) {
        Self.end(connection)
        open.withLock { open in
            if open.connection === connection { open.connection = nil }
            if serverWasAway { open.serverWasAway = true }
        }
    }

    /// Starts closing `connection` without waiting: its pending query fails at once. The connection is kept until
    /// it is closed (one released before would be a leak the driver asserts against).
    private static func end(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
