/// How webhooks are delivered; every default works (docs/webhooks.md).
public struct WebhookSettings: Sendable {
    /// The longest one attempt may take, connecting and reading the answer included (`--webhook-timeout`).
    public var timeout: Duration = .seconds(10)
    /// Whether a webhook may go to a loopback, link-local, private or unique-local address (`--webhook-allow-private`),
    /// for tests and receivers inside the deployment.
    public var allowsPrivateTargets = false
    /// How long a subscription's failures may last before it is given up (`--webhook-give-up-after`).
    public var giveUpAfter: Duration = .seconds(24 * 3600)
    /// The most subscriptions the store keeps (`--max-webhooks`).
    public var maximumSubscriptions = 100
    /// How often a process that does not send asks for the right to: another replica takes over within this long
    /// of the sender's end.
    var claimInterval: Duration = .seconds(5)
    /// How often the sender reads the subscriptions again, for ones made or resumed (on any replica).
    var pollInterval: Duration = .seconds(1)

    public init() {}
}
