/// When a failed message is tried again: exponential back-off with jitter, from about a second, capped. (When a
/// subscription is given up is `WebhookSettings.giveUpAfter`.)
enum WebhookRetryPolicy {
    /// The longest wait between two attempts.
    static let longestDelay: Duration = .seconds(300)
    /// The base of the first wait; each failure doubles it.
    static let firstDelay: Duration = .seconds(1)

    /// The wait after the `failures`-th failure in a row: between half and all of `firstDelay` doubled each time,
    /// capped at `longestDelay`; `jitter` (0...1) picks where in that range, so that receivers coming back are not
    /// met by every sender at once.
    static func delay(afterFailures failures: Int, jitter: Double) -> Duration {
        let doublings = min(max(failures - 1, 0), 16)
        let full = min(firstDelay * (1 << doublings), longestDelay)
        let jittered = full * (0.5 + 0.5 * min(max(jitter, 0), 1))
        // Whole milliseconds, which read well in logs.
        return .milliseconds(Int64(jittered.timeInterval * 1000))
    }
}
