import Dispatch
import Synchronization

/// Hands batches from an async producer (an import reading its feed) to a consumer on a thread of its own
/// (SQLite's writer, inside one transaction), with at most `capacity` batches waiting: the producer is
/// suspended while the consumer is behind, so memory stays bounded; the consumer blocks until the next
/// message, for at most a given time. A consumer that stops early says why, and the producer's next `send`
/// throws that error. An abort overtakes the batches still waiting, which are dropped.
final class BatchChannel<Batch: Sendable, End: Sendable>: Sendable {
    enum Message: Sendable {
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
    }

    private let state = Mutex(State())
    private let arrived = DispatchSemaphore(value: 0)
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Queues `batch` once there is room; throws what stopped the consumer, if it stopped.
    func send(_ batch: Batch) async throws {
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
    func finish(_ end: End) {
        put(.end(end))
    }

    /// Tells the consumer to stop without finishing, ahead of the batches still waiting.
    func abort() {
        state.withLock { $0.queue = [.abort] }
        arrived.signal()
    }

    private func put(_ message: Message) {
        state.withLock { $0.queue.append(message) }
        arrived.signal()
    }

    /// The next message, blocking the calling thread until there is one or `wait` has passed.
    func receive(within wait: Duration) -> Message {
        let nanoseconds = wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000
        guard arrived.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return .timedOut }
        let (message, waiting) = state.withLock { state in
            // An abort empties the queue after its signals were counted: a signal may find nothing but the abort.
            let message = state.queue.isEmpty ? Message.abort : state.queue.removeFirst()
            let waiting = state.waitingForRoom
            state.waitingForRoom = []
            return (message, waiting)
        }
        for producer in waiting { producer.resume() }
        return message
    }

    /// Records that the consumer stopped because of `error`: a waiting or later `send` throws it.
    func consumerFailed(_ error: any Error) {
        let waiting = state.withLock { state in
            state.consumerFailure = error
            let waiting = state.waitingForRoom
            state.waitingForRoom = []
            return waiting
        }
        for producer in waiting { producer.resume() }
    }
}
