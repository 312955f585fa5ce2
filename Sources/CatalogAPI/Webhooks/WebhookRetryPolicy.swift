/// When a failed message is tried again, and when a subscription is given up: exponential back-off with jitter,
/// from about a second, capped, until the failures have lasted `giveUpAfter`.
struct WebhookRetryPolicy: Sendable {
    /// The longest wait between two attempts.
    static let longestDelay: Duration = .seconds(300)
    /// The base of the first wait; each failure doubles it.
    static let firstDelay: Duration = .seconds(1)

    /// How long failures may last before the subscription becomes `failing` (`--webhook-give-up-after`).
    var giveUpAfter: Duration = .seconds(24 * 3600)

    /// The wait after the `failures`-th failure in a row: between half and all of `firstDelay` doubled each time,
    /// capped at `longestDelay`; `jitter` (0...1) picks where in that range, so that receivers coming back are not
    /// met by every sender at once.
    func delay(afterFailures failures: Int, jitter: Double) -> Duration {
        let doublings = min(max(failures - 1, 0), 16)
        let full = min(Self.firstDelay * (1 << doublings), Self.longestDelay)
        let jittered = full * (0.5 + 0.5 * min(max(jitter, 0), 1))
        // Whole milliseconds, which read well in logs.
        return .milliseconds(Int64(jittered.timeInterval * 1000))
    }
}
