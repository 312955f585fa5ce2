import CatalogStore
import CatalogStoreKit
import Logging
import PostgresNIO

/// The parts of an export in a keyset ordering (`PostgresPackedProducts`), being read, and the one being handed out a
/// page at a time.
///
/// A task reads them in order and hands them over through a channel that holds one. The server's work for a part
/// (walking the ordering's index to rows spread over the table, and packing them) is most of an export's time, so
/// the next part's statement is always queued on the session behind the one under way: where it starts is asked of
/// the ordering's index alone where the filters allow (`PostgresListing.partEndStatement`), without waiting for the
/// part before. At most two parts are being read and one waits in the channel, so that the server reads ahead while
/// the export sends, and no further.
struct PostgresExportParts: Sendable {
    private let channel = BatchChannel<PostgresPackedProducts, (any Error)?>(capacity: 1)
    let walk: KeysetWalk
    /// The part being handed out, and where its next page starts.
    var part: PostgresPackedProducts?
    var offset = PostgresPackedProducts.Offset()
    /// The cursor of the page that goes on from here.
    var nextCursor: String?

    /// The statements of a part of `partSize` rows and of where it ends, after a position (from the start for nil).
    struct Statements: Sendable {
        let part: @Sendable (KeysetWalk.Position?) -> (sql: String, binds: PostgresBindings)
        let partEnd: @Sendable (KeysetWalk.Position?) -> (sql: String, binds: PostgresBindings)
        let partSize: Int
        let sortColumn: ProductColumn
    }

    /// Starts reading on `connection`, the snapshot's session.
    init(walk: KeysetWalk, statements: Statements, connection: PostgresConnection, logger: Logger) {
        self.walk = walk
        Task { [channel] in
            do {
                try await Self.read(statements, on: connection, logger: logger) { try await channel.send($0) }
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        }
    }

    private static func read(
        _ statements: Statements, on connection: PostgresConnection, logger: Logger, send: (PostgresPackedProducts) async throws -> Void
    ) async throws {
        func part(after start: KeysetWalk.Position?) -> Task<PostgresPackedProducts, any Error> {
            Task {
                let (sql, binds) = statements.part(start)
                var part = PostgresPackedProducts(sortColumn: statements.sortColumn)
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
                    // A part of no rows is NULL in every column.
                    let columns = row.compactMap(\.bytes)
                    if !columns.isEmpty { part = try PostgresPackedProducts(columns: columns, sortColumn: statements.sortColumn) }
                }
                return part
            }
        }
        func sendIfAny(_ part: PostgresPackedProducts) async throws {
            if part.rowCount > 0 { try await send(part) }
        }
        let first = try await part(after: nil).value
        try await sendIfAny(first)
        guard first.rowCount == statements.partSize, var start = try first.lastPosition() else { return }
        // Parts under way, oldest first: at most two.
        var reading: [Task<PostgresPackedProducts, any Error>] = []
        defer { for task in reading { task.cancel() } }
        while true {
            reading.append(part(after: start))
            let (sql, binds) = statements.partEnd(start)
            var next: KeysetWalk.Position?
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
                let cells = row.makeRandomAccess()
                next = (try ListCursor.Value(cells[0]), try ListCursor.Value(cells[1]))
            }
            if reading.count == 2 || next == nil { try await sendIfAny(try await reading.removeFirst().value) }
            guard let next else { break }
            start = next
        }
        while !reading.isEmpty { try await sendIfAny(try await reading.removeFirst().value) }
    }

    /// The next part; nil after the last.
    func next(store: String) async throws -> PostgresPackedProducts? {
        switch await channel.next(within: .seconds(600)) {
        case .batch(let part): return part
        case .end(nil): return nil
        case .end(let failure?): throw failure
        case .abort, .timedOut: throw StoreUnavailable(store: store, reason: "the rows of an export stopped coming")
        }
    }

    /// Stops the reading task: its next part is refused.
    func stop() {
        channel.consumerFailed(CancellationError())
    }
}
