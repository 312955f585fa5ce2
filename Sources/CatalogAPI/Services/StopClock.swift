import Synchronization

/// When graceful shutdown began, as the first service to hear of it saw it, so that a later one counts its deadline
/// from the signal rather than from its own turn.
final class StopClock: Sendable {
    private let began = Mutex<ContinuousClock.Instant?>(nil)

    /// Records now as the start of the stop, unless a start is recorded already.
    func markStart() {
        began.withLock { $0 = $0 ?? .now }
    }

    /// The recorded start, or now when none was recorded.
    var start: ContinuousClock.Instant { began.withLock { $0 ?? .now } }
}
