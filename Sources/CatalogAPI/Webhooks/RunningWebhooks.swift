import Synchronization

/// The subscriptions whose delivery loops run, so that each has one loop at a time.
final class RunningWebhooks: Sendable {
    private let ids = Mutex<Set<Int64>>([])

    /// True when `id` had no loop and is now marked as running one.
    func start(_ id: Int64) -> Bool {
        ids.withLock { $0.insert(id).inserted }
    }

    func end(_ id: Int64) {
        _ = ids.withLock { $0.remove(id) }
    }
}
