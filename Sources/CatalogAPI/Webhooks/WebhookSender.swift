import CatalogModel
import CatalogStore
import Foundation
import Logging
import ServiceLifecycle

/// Delivers each active subscription's changes (`Webhook`): the next message once the last was answered 2xx, a failed
/// one again after a back-off (`WebhookRetryPolicy`), its position stored only after a 2xx, so that a restart or a
/// kill goes on from there and a message sent again keeps its `webhook-id` (`WebhookDelivery`).
///
/// One process of the deployment sends at a time (`claimWebhookDelivery`), and asks for that right only while an
/// active subscription exists; the others ask every `claimInterval`, and one of them takes over once the sender stops.
/// A stop cancels the attempts under way: they are sent again later.
struct WebhookSender: Service {
    let store: any CatalogStore
    let notifier: ChangeNotifier
    let metrics: WebhookMetrics
    /// Spaces the messages of every subscription while the API is busy.
    let pacing: WebhookPacing
    /// Renders each change's `data`, with links under the service's public URL.
    let representations: Representations
    let settings: WebhookSettings
    let logger: Logger

    /// How often a process that does not send asks for the right to: another replica takes over within this long of
    /// the sender's end.
    static let claimInterval: Duration = .seconds(5)
    /// How often the sender reads the subscriptions again, for ones made or resumed (on any replica).
    static let pollInterval: Duration = .seconds(1)

    func run() async {
        await cancelWhenGracefulShutdown { await sendWhileClaimed() }
    }

    private func sendWhileClaimed() async {
        var announced = false
        while !Task.isCancelled {
            guard await hasActiveSubscription() else {
                try? await Task.sleep(for: Self.pollInterval)
                continue
            }
            let claim: (any StoreClaim)?
            do {
                claim = try await store.claimWebhookDelivery()
            } catch {
                logger.warning("could not ask for the right to send webhooks: \(error)")
                claim = nil
            }
            guard let claim else {
                if !announced {
                    logger.info("another process sends the webhooks; this one takes over when it stops")
                    announced = true
                }
                try? await Task.sleep(for: Self.claimInterval)
                continue
            }
            logger.info("this process sends the webhooks", metadata: ["webhook.sender": "claimed"])
            announced = false
            await send(while: claim)
            await claim.release()
        }
    }

    private func hasActiveSubscription() async -> Bool {
        do {
            return try await store.webhooks().contains { $0.state == .active }
        } catch {
            logger.warning("could not read the webhooks: \(error)")
            return false
        }
    }

    /// Runs one loop per active subscription, reading the subscriptions again every `pollInterval`, until none is
    /// active, the claim is lost or the task is cancelled. The lag of a subscription is shown while it exists and this
    /// process sends.
    private func send(while claim: any StoreClaim) async {
        let running = RunningWebhooks()
        let delivery = WebhookDelivery(
            store: store, claim: claim, metrics: metrics, representations: representations, settings: settings, logger: logger)
        var shown: Set<Int64> = []
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled, claim.isHeld {
                do {
                    let webhooks = try await store.webhooks()
                    for gone in shown.subtracting(webhooks.map(\.id)) { metrics.forgetLag(of: gone) }
                    shown = Set(webhooks.map(\.id))
                    let active = webhooks.filter { $0.state == .active }
                    if active.isEmpty { break }
                    for webhook in active where running.start(webhook.id) {
                        group.addTask {
                            await deliver(webhook.id, with: delivery)
                            running.end(webhook.id)
                        }
                    }
                } catch {
                    logger.warning("could not read the webhooks: \(error)")
                }
                try? await Task.sleep(for: Self.pollInterval)
            }
            group.cancelAll()
        }
        for id in shown { metrics.forgetLag(of: id) }
    }

    /// Delivers one subscription's messages one after the other while it is active. A step the store fails is tried
    /// again after the same back-off as a failed message.
    private func deliver(_ id: Int64, with delivery: WebhookDelivery) async {
        var errors = 0
        while !Task.isCancelled, delivery.claim.isHeld {
            do {
                guard let webhook = try await store.webhook(id: id), webhook.state == .active else { return }
                if let due = webhook.nextAttemptAt.flatMap(Timestamp.date(from:)), due > Date() {
                    try await Task.sleep(for: .seconds(due.timeIntervalSinceNow))
                    continue
                }
                let step = try await delivery.step(webhook)
                errors = 0
                switch step {
                case .attempted(let work):
                    let rest = pacing.rest(after: work)
                    if rest > .zero { try await Task.sleep(for: rest) }
                case .moved: continue
                case .stopped: return
                case .failed(let delay): try await Task.sleep(for: delay)
                case .idle(let lastSeq):
                    guard await notifier.wait(after: lastSeq, timeout: Self.pollInterval) != nil else { return }
                }
            } catch is CancellationError {
                return
            } catch {
                errors += 1
                let delay = WebhookRetryPolicy.delay(afterFailures: errors, jitter: .random(in: 0...1))
                logger.warning("webhook \(id): \(error); trying again in \(delay)", metadata: ["webhook.id": "\(id)", "webhook.error": "\(error)"])
                try? await Task.sleep(for: delay)
            }
        }
    }
}
