import Synchronization

/// Opens once, and lets every task that waits for it go on: what a pooled call waits for until its client runs
/// (`PostgresPool`), so that postgres-nio never sees a connection asked for before `run()`, which it warns of.
final class StartGate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Lets every waiting task go on, and every later one at once.
    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for task in waiting { task.resume() }
    }

    /// Returns once the gate is open, or at once when the task is cancelled. An open gate is passed without a
    /// suspension: a resumed task waits for a thread again, which takes long on a busy service.
    func wait() async {
        let waiter = state.withLock { state -> Int? in
            guard !state.isOpen else { return nil }
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        guard let waiter else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (task: CheckedContinuation<Void, Never>) in
                let goOn = state.withLock { state in
                    guard !state.isOpen, !Task.isCancelled else { return true }
                    state.waiting[waiter] = task
                    return false
                }
                if goOn { task.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: waiter) }?.resume()
        }
    }
}
