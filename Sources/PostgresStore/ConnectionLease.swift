import Synchronization

/// Whether a call got its pooled connection before its caller stopped waiting: decided once, by whichever comes
/// first, so that work whose caller was already told 503 never goes on to commit.
final class ConnectionLease: Sendable {
    private enum State {
        case waiting
        case taken
        case abandoned
    }

    private let state = Mutex(State.waiting)
    private let (events, event) = AsyncStream<Void>.makeStream()

    /// Called with the connection in hand; false when the caller has given up, and the work must not start.
    func take() -> Bool {
        let taken = state.withLock { state in
            if state == .waiting { state = .taken }
            return state == .taken
        }
        event.finish()
        return taken
    }

    /// Gives up waiting; false when the connection came first after all.
    func abandon() -> Bool {
        state.withLock { state in
            if state == .waiting { state = .abandoned }
            return state == .abandoned
        }
    }

    var wasTaken: Bool { state.withLock { $0 == .taken } }

    /// Marks the work ended (taken or not), waking `settled()`.
    func settle() {
        event.finish()
    }

    /// Waits until the connection was taken or the work ended, for at most `wait`; false when the wait ran out
    /// first, and the lease is now abandoned.
    func settled(within wait: Duration) async -> Bool {
        let inTime = await withTaskGroup(of: Bool.self) { race in
            race.addTask {
                for await _ in self.events {}
                return true
            }
            race.addTask {
                try? await Task.sleep(for: wait)
                return false
            }
            defer { race.cancelAll() }
            return await race.next() ?? false
        }
        return inTime || !abandon()
    }
}
