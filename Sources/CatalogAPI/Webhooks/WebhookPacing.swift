/// How a subscription's messages yield to a busy API: while the service answers more than `busyRate` requests a second,
/// each message is followed by a rest `restFactor` times as long as the message took, so that deliveries take at most
/// about a fifth of the time they would from the requests; on a quieter service messages go back to back.
struct WebhookPacing {
    static let busyRate = 1_000.0
    static let restFactor = 4

    let answered: AnsweredRequests
    private var lastCount: Int
    private var lastTime: ContinuousClock.Instant

    init(answered: AnsweredRequests) {
        self.answered = answered
        lastCount = answered.total
        lastTime = .now
    }

    /// The rest after a message that took `work`; zero on a quiet service.
    mutating func rest(after work: Duration) -> Duration {
        let count = answered.total
        let now = ContinuousClock.now
        let elapsed = (now - lastTime).timeInterval
        let rate = elapsed > 0 ? Double(count - lastCount) / elapsed : 0
        (lastCount, lastTime) = (count, now)
        return rate > Self.busyRate ? work * Self.restFactor : .zero
    }
}
