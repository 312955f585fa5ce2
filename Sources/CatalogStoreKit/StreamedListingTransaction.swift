import CatalogModel
import CatalogStore

/// The transaction that writes a products listing while it is read, seen from the run that reads it: batches go
/// in as they come (`send`), the run's end finishes and commits it (`complete`), giving up rolls it back
/// (`discard`). Each store's streamed listing runs its own transaction, which takes its messages from `channel`.
package final class StreamedListingTransaction<End: Sendable>: Sendable {
    /// The transaction stopped because the run gave up (`discard`): it rolled back, and reports nothing.
    package struct Discarded: Error {
        package init() {}
    }

    private let channel: BatchChannel<[Product], End>
    /// The transaction; nil when it was rolled back because the run gave up.
    private let write: Task<ImportReport?, any Error>

    /// Starts `transaction`, which reads batches from the channel until its end, and throws `Discarded` on an abort.
    package init(capacity: Int, _ transaction: @escaping @Sendable (BatchChannel<[Product], End>) async throws -> ImportReport) {
        let channel = BatchChannel<[Product], End>(capacity: capacity)
        self.channel = channel
        write = Task {
            do {
                return try await transaction(channel)
            } catch {
                channel.consumerFailed(error)
                if error is Discarded { return nil }
                throw error
            }
        }
    }

    /// Hands the batch to the transaction once it has room; throws what stopped it, if it stopped.
    package func send(_ batch: [Product]) async throws {
        try await channel.send(batch)
    }

    /// Finishes the transaction with `end` and waits for its commit; cancelled before the commit, it rolls back.
    package func complete(_ end: End) async throws -> ImportReport {
        let (channel, write) = (channel, write)
        return try await withTaskCancellationHandler {
            channel.finish(end)
            guard let finished = try await write.value else { throw CancellationError() }
            return finished
        } onCancel: {
            channel.abort()
        }
    }

    /// Rolls back what was written, and waits until it is: nothing of the run is written afterwards.
    package func discard() async {
        channel.abort()
        _ = await write.result
    }
}
