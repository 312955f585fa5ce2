import Dispatch
import Synchronization

/// Hands batches from an async producer (an import reading its feed) to a consumer inside one transaction, with
/// at most `capacity` batches waiting: the producer is suspended while the consumer is behind, so memory stays
/// bounded; the consumer waits for the next message for at most a given time, blocking its thread (SQLite's
/// writer) or suspended (a PostgreSQL connection's task). A consumer that stops early says why, and the
/// producer's next `send` throws that error. An abort overtakes the batches still waiting, which are dropped.
package final class BatchChannel<Batch: Sendable, End: Sendable>: Sendable {
    package enum Message: Sendable {
        case batch(Batch)
        /// Everything was sent; the consumer finishes with this.
        case end(End)
        /// The producer gave up: the consumer stops without finishing.
        case abort
        /// Nothing arrived within the time the consumer was willing to wait.
        case timedOut
    }

    private struct State {
        var queue: [Message] = []
        var waitingForRoom: [CheckedContinuation<Void, Never>] = []
        var consumerFailure: (any Error)?
        /// A suspended consumer, waiting for a message.
        var waitingConsumer: CheckedContinuation<Void, Never>?
        /// The suspended consumer's wait ended (its deadline passed) before a message came.
        var consumerStoppedWaiting = false

        /// The producers waiting for room, to be resumed once the lock is released: each checks for room again.
        mutating func takeWaitingForRoom() -> [CheckedContinuation<Void, Never>] {
            defer { waitingForRoom = [] }
            return waitingForRoom
        }
    }

    private let state = Mutex(State())
    private let arrived = DispatchSemaphore(value: 0)
    package let capacity: Int

    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// Queues `batch` once there is room; throws what stopped the consumer, if it stopped.
    package func send(_ batch: Batch) async throws {
        while true {
            if let failure = state.withLock({ $0.consumerFailure }) { throw failure }
            if state.withLock({ $0.queue.count < capacity }) { break }
            await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    guard state.queue.count >= capacity, state.consumerFailure == nil else { return true }
                    state.waitingForRoom.append(room)
                    return false
                }
                if ready { room.resume() }
            }
        }
        put(.batch(batch))
    }

    /// Tells the consumer everything was sent.
    package func finish(_ end: End) {
        put(.end(end))
    }

    /// Tells the consumer to stop without finishing, ahead of the batches still waiting.
    package func abort() {
        state.withLock { state in
            state.queue = [.abort]
            return state.waitingConsumer.take()
        }?.resume()
        arrived.signal()
    }

    private func put(_ message: Message) {
        state.withLock { state in
            state.queue.append(message)
            return state.waitingConsumer.take()
        }?.resume()
        arrived.signal()
    }

    /// The next message, suspending the calling task until there is one or `wait` has passed. A channel has one
    /// kind of consumer: this one, or the blocking `receive(within:)`.
    package func next(within wait: Duration) async -> Message {
        let deadline = ContinuousClock.now + wait
        while true {
            if let message = takeFirst() { return message }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return .timedOut }
            await withTaskGroup(of: Void.self) { race in
                race.addTask { await self.waitForMessage() }
                race.addTask {
                    try? await Task.sleep(until: deadline)
                    self.stopWaiting()
                }
                await race.next()
                race.cancelAll()
            }
        }
    }

    /// Returns once a message is queued or `stopWaiting` was called.
    private func waitForMessage() async {
        await withCheckedContinuation { (consumer: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                guard state.queue.isEmpty, !state.consumerStoppedWaiting else {
                    state.consumerStoppedWaiting = false
                    return true
                }
                state.waitingConsumer = consumer
                return false
            }
            if ready { consumer.resume() }
        }
    }

    private func stopWaiting() {
        state.withLock { state in
            let consumer = state.waitingConsumer.take()
            if consumer == nil { state.consumerStoppedWaiting = true }
            return consumer
        }?.resume()
    }

    /// The next batch when one is queued already, first in line: a consumer whose work per batch has a fixed cost
    /// (a statement) takes what has piled up while it was busy in one go.
    package func waitingBatch() -> Batch? {
        guard case .batch(let batch)? = takeFirst(where: { if case .batch = $0 { true } else { false } }) else { return nil }
        return batch
    }

    /// The first message, when there is one and `accept` takes it, letting waiting producers check for room again.
    private func takeFirst(where accept: (Message) -> Bool = { _ in true }) -> Message? {
        let (message, waiting) = state.withLock { state -> (Message?, [CheckedContinuation<Void, Never>]) in
            guard let first = state.queue.first, accept(first) else { return (nil, []) }
            state.queue.removeFirst()
            state.consumerStoppedWaiting = false
            return (first, state.takeWaitingForRoom())
        }
        for producer in waiting { producer.resume() }
        return message
    }

    /// The next message, blocking the calling thread until there is one or `wait` has passed.
    package func receive(within wait: Duration) -> Message {
        let nanoseconds = wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000
        guard arrived.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return .timedOut }
        // An abort empties the queue after its signals were counted: a signal may find nothing but the abort.
        return takeFirst() ?? .abort
    }

    /// Records that the consumer stopped because of `error`: a waiting or later `send` throws it.
    package func consumerFailed(_ error: any Error) {
        let waiting = state.withLock { state in
            state.consumerFailure = error
            return state.takeWaitingForRoom()
        }
        for producer in waiting { producer.resume() }
    }
}
