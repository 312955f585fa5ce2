import ArgumentParser
import CatalogAPI

/// How webhooks are made and sent; shared by `serve` and `webhook create`, which check a URL alike.
struct WebhookOptions: ParsableArguments {
    @Flag(
        help: """
            Webhooks may go to loopback, link-local, private and unique-local addresses, for tests and receivers inside the \
            deployment (CATALOG_WEBHOOK_ALLOW_PRIVATE=true; default off: refused with a 400).
            """)
    var webhookAllowPrivate = false
    @Option(help: "Most webhook subscriptions kept (CATALOG_MAX_WEBHOOKS; default 100).") var maxWebhooks: String?
    @Option(help: "Longest one webhook delivery may take, answer included, e.g. 10s (CATALOG_WEBHOOK_TIMEOUT; default 10s).")
    var webhookTimeout: String?
    @Option(
        help: """
            How long a webhook's deliveries may fail before it is given up and waits for POST /webhooks/{id}/resume, e.g. 24h \
            (CATALOG_WEBHOOK_GIVE_UP_AFTER; default 24h).
            """)
    var webhookGiveUpAfter: String?

    func settings(_ common: CommonOptions) throws -> WebhookSettings {
        var settings = WebhookSettings()
        let source = common.source
        settings.allowsPrivateTargets = try source("--webhook-allow-private", "CATALOG_WEBHOOK_ALLOW_PRIVATE", webhookAllowPrivate ? "true" : nil)
            .boolean(default: false)
        settings.maximumSubscriptions = try source("--max-webhooks", "CATALOG_MAX_WEBHOOKS", maxWebhooks).integer(
            default: settings.maximumSubscriptions, in: 1...100_000)
        settings.timeout =
            try source("--webhook-timeout", "CATALOG_WEBHOOK_TIMEOUT", webhookTimeout).duration(default: settings.timeout, allowOff: false)
            ?? settings.timeout
        settings.giveUpAfter =
            try source("--webhook-give-up-after", "CATALOG_WEBHOOK_GIVE_UP_AFTER", webhookGiveUpAfter).duration(
                default: settings.giveUpAfter, allowOff: false) ?? settings.giveUpAfter
        return settings
    }
}
