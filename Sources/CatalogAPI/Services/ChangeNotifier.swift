/// Wakes change-feed clients when the history moves, from one watch of the store for the whole process.
///
/// The store's watch also sees commits made by other processes, such as `catalogd import` run from a shell;
/// writes through this process's API call `publish` right after their commit, so their clients need not
/// wait for the watch.
public actor ChangeNotifier {
    private var latest: Int64 = 0
    /// Set once graceful shutdown begins: streams stop reading history and end.
    private(set) var isShuttingDown = false
    private var waiters: [Int: (after: Int64, continuation: CheckedContinuation<Int64?, Never>)] = [:]
    private var nextWaiterID = 0

    public init() {}

    /// Records that the history reached `seq` and wakes every client waiting for less.
    public func publish(_ seq: Int64) {
        guard seq > latest else { return }
        latest = seq
        for (id, waiter) in waiters where waiter.after < seq {
            waiters[id] = nil
            waiter.continuation.resume(returning: seq)
        }
    }

    /// Ends every wait, now and later, so streams close before the server stops.
    func shutDown() {
        isShuttingDown = true
        for waiter in waiters.values { waiter.continuation.resume(returning: nil) }
        waiters = [:]
    }

    /// The newest seq once it passes `after`, or the current one when `timeout` passes first;
    /// nil when the service is shutting down.
    func wait(after: Int64, timeout: Duration) async -> Int64? {
        if isShuttingDown { return nil }
        if latest > after { return latest }
        let id = nextWaiterID
        nextWaiterID += 1
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.expire(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiters[id] = (after, continuation)
            }
        } onCancel: {
            Task { await self.expire(id) }
        }
    }

    private func expire(_ id: Int) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.continuation.resume(returning: isShuttingDown ? nil : latest)
    }
}
