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

    public init() {}
}
