import CatalogStoreKit
import Synchronization
import Testing

/// `BatchChannel` carries a streamed listing's batches into the transaction that writes them; these tests drive it
/// directly: its bound on waiting batches, an abort, a consumer that fails, and a consumer that waits in vain.
@Suite("BatchChannel")
struct BatchChannelTests {
    struct ConsumerStopped: Error, Equatable {}

    /// The batch a message carries, or a name for the others.
    static func describe(_ message: BatchChannel<Int, String>.Message) -> String {
        switch message {
        case .batch(let batch): "batch \(batch)"
        case .end(let end): "end \(end)"
        case .abort: "abort"
        case .timedOut: "timed out"
        }
    }

    @Test func batchesAndTheEndArriveInOrderForBothKindsOfConsumer() async throws {
        let suspended = BatchChannel<Int, String>(capacity: 4)
        try await suspended.send(1)
        try await suspended.send(2)
        suspended.finish("done")
        var received: [String] = []
        for _ in 0..<3 { received.append(Self.describe(await suspended.next(within: .seconds(5)))) }
        #expect(received == ["batch 1", "batch 2", "end done"])

        let blocking = BatchChannel<Int, String>(capacity: 4)
        try await blocking.send(3)
        blocking.finish("over")
        #expect(Self.describe(blocking.receive(within: .seconds(5))) == "batch 3")
        #expect(Self.describe(blocking.receive(within: .seconds(5))) == "end over")
    }

    /// A producer ahead of its consumer by `capacity` batches waits for room, and goes on once one is taken.
    @Test func aProducerWaitsWhileCapacityBatchesAreWaiting() async throws {
        let channel = BatchChannel<Int, String>(capacity: 2)
        try await channel.send(1)
        try await channel.send(2)
        let sentThird = Atomic<Bool>(false)
        let producer = Task {
            try await channel.send(3)
            sentThird.store(true, ordering: .sequentiallyConsistent)
        }
        try await Task.sleep(for: .milliseconds(200))
        let sentEarly = sentThird.load(ordering: .sequentiallyConsistent)
        #expect(!sentEarly, "a third batch was queued beside two waiting ones")
        #expect(Self.describe(await channel.next(within: .seconds(5))) == "batch 1")
        try await producer.value
        let sentAfter = sentThird.load(ordering: .sequentiallyConsistent)
        #expect(sentAfter)
        #expect(Self.describe(await channel.next(within: .seconds(5))) == "batch 2")
        #expect(Self.describe(await channel.next(within: .seconds(5))) == "batch 3")
    }

    @Test func anAbortOvertakesTheWaitingBatches() async throws {
        let channel = BatchChannel<Int, String>(capacity: 4)
        try await channel.send(1)
        try await channel.send(2)
        channel.abort()
        #expect(Self.describe(await channel.next(within: .seconds(5))) == "abort")
        #expect(channel.waitingBatch() == nil)
    }

    /// A consumer that stops with an error makes the producer's next `send` throw it, and wakes one waiting for room.
    @Test func aFailedConsumerStopsTheProducerWithItsError() async throws {
        let channel = BatchChannel<Int, String>(capacity: 1)
        try await channel.send(1)
        let waiting = Task { try await channel.send(2) }
        try await Task.sleep(for: .milliseconds(100))
        channel.consumerFailed(ConsumerStopped())
        await #expect(throws: ConsumerStopped.self) { try await waiting.value }
        await #expect(throws: ConsumerStopped.self) { try await channel.send(3) }
    }

    /// A consumer that nothing reaches hears `timedOut` once the time it gives has passed, suspended or blocked,
    /// rather than waiting on. (The upper bound only tells a wait that never ends: beside the other suites on two
    /// cores, a suspended task has been seen to resume seconds late.)
    @Test func aConsumerWaitsNoLongerThanItSays() async throws {
        let channel = BatchChannel<Int, String>(capacity: 1)
        let clock = ContinuousClock()
        let suspended = clock.now
        #expect(Self.describe(await channel.next(within: .milliseconds(100))) == "timed out")
        #expect(clock.now - suspended >= .milliseconds(100))
        #expect(clock.now - suspended < .seconds(60))
        let blocked = clock.now
        #expect(Self.describe(channel.receive(within: .milliseconds(100))) == "timed out")
        #expect(clock.now - blocked >= .milliseconds(100))
        #expect(clock.now - blocked < .seconds(60))
        // A batch sent after a wait timed out is still delivered.
        try await channel.send(7)
        #expect(Self.describe(await channel.next(within: .seconds(5))) == "batch 7")
    }

    /// What piled up while the consumer was busy is taken without waiting, batches only.
    @Test func waitingBatchTakesQueuedBatchesButNotTheEnd() async throws {
        let channel = BatchChannel<Int, String>(capacity: 4)
        #expect(channel.waitingBatch() == nil)
        try await channel.send(1)
        channel.finish("done")
        #expect(channel.waitingBatch() == 1)
        #expect(channel.waitingBatch() == nil)
        #expect(Self.describe(await channel.next(within: .seconds(5))) == "end done")
    }
}
