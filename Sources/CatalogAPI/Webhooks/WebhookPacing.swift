import Synchronization

/// How deliveries yield to a busy API: while the service answers more than `busyRate` requests a second, each message
/// of any subscription waits its turn, and each turn comes `restFactor` times the message's own work (reading its
/// changes and rows, recording it; not the wait for the receiver) after the last one, so that deliveries together take
/// at most about a fifth of the time they would from the requests. On a quieter service messages go back to back.
final class WebhookPacing: Sendable {
    static let busyRate = 1_000.0
    static let restFactor = 4

    private struct State {
        var lastCount: Int
        var lastTime: ContinuousClock.Instant
        var nextTurn: ContinuousClock.Instant
    }

    private let answered: AnsweredRequests
    private let state: Mutex<State>

    init(answered: AnsweredRequests) {
        self.answered = answered
        state = Mutex(State(lastCount: answered.total, lastTime: .now, nextTurn: .now))
    }

    /// How long the message that did `work` waits before the next one of its subscription: zero on a quiet service.
    func rest(after work: Duration) -> Duration {
        let count = answered.total
        let now = ContinuousClock.now
        return state.withLock { state in
            let elapsed = (now - state.lastTime).timeInterval
            let rate = elapsed > 0 ? Double(count - state.lastCount) / elapsed : 0
            if elapsed >= 0.05 { (state.lastCount, state.lastTime) = (count, now) }
            guard rate > Self.busyRate else { return .zero }
            state.nextTurn = max(state.nextTurn, now) + work * Self.restFactor
            return state.nextTurn - now
        }
    }
}
