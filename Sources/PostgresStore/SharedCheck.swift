import Synchronization

/// A check that callers arriving together share: one runs at a time, and every caller that arrives while it
/// runs waits for the next one, which starts as soon as it ends. Each caller so gets a check that began after
/// it asked, as strict as a check of its own, while a burst of callers costs one check per round trip instead
/// of one each.
final class SharedCheck<Value: Sendable>: Sendable {
    private struct State {
        var running = false
        var waiting: [CheckedContinuation<Value, any Error>] = []
    }

    private let state = Mutex(State())

    /// The outcome of a check that starts after this call; `check` runs it when this caller starts the rounds.
    func value(_ check: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let startsRounds = state.withLock { state in
                state.waiting.append(continuation)
                defer { state.running = true }
                return !state.running
            }
            if startsRounds { Task { await runRounds(check) } }
        }
    }

    /// Runs checks while callers wait; each round answers the callers that were waiting when it started.
    private func runRounds(_ check: @Sendable () async throws -> Value) async {
        while true {
            let round = state.withLock { state in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.running = false }
                return state.waiting
            }
            guard !round.isEmpty else { return }
            let outcome: Result<Value, any Error>
            do {
                outcome = .success(try await check())
            } catch {
                outcome = .failure(error)
            }
            for caller in round { caller.resume(with: outcome) }
        }
    }
}
