import CatalogModel
import CatalogStore
import Foundation
import Logging
import NIOHTTP1
import ServiceLifecycle

/// Delivers each active subscription's changes (`Webhook`): the next message once the last was answered 2xx, a failed
/// one again after a back-off (`WebhookRetryPolicy`), its position stored only after a 2xx, so that a restart or a
/// kill goes on from there and a message sent again keeps its `webhook-id`.
///
/// One process of the deployment sends at a time (`claimWebhookDelivery`); the others ask every `claimInterval`, and
/// one of them takes over once the sender stops. A stop cancels the attempts under way: they are sent again later.
struct WebhookSender: Service {
    let store: any CatalogStore
    let notifier: ChangeNotifier
    let metrics: WebhookMetrics
    /// The API's answered requests, which deliveries yield to (`WebhookPacing`).
    let answered: AnsweredRequests
    /// Renders each change's `data`, with links under the service's public URL.
    let representations: Representations
    let settings: WebhookSettings
    let logger: Logger

    /// What one step of a subscription's loop did.
    private enum Step {
        /// A message was delivered (or the subscription given up): the next step may come at once.
        case attempted
        /// A message failed; it is sent again after this long.
        case failed(retryIn: Duration)
        /// Nothing to send after this seq.
        case idle(lastSeq: Int64)
        /// The subscription was changed elsewhere (deleted, resumed, given up): its loop reads it again.
        case moved
        /// The process stops, or no longer holds the right to send.
        case stopped
    }

    func run() async {
        await cancelWhenGracefulShutdown { await sendWhileClaimed() }
    }

    /// Asks for the right to send while there is an active subscription, and sends while it holds it; a deployment
    /// without webhooks holds no claim (nor, on PostgreSQL, the connection a claim keeps).
    private func sendWhileClaimed() async {
        var announced = false
        while !Task.isCancelled {
            guard await hasActiveSubscription() else {
                try? await Task.sleep(for: settings.pollInterval)
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
                try? await Task.sleep(for: settings.claimInterval)
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
    /// active, the claim is lost or the task is cancelled.
    private func send(while claim: any StoreClaim) async {
        let running = RunningWebhooks()
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled, claim.isHeld {
                do {
                    let active = try await store.webhooks().filter { $0.state == .active }
                    if active.isEmpty { break }
                    for webhook in active where running.start(webhook.id) {
                        group.addTask {
                            await deliver(webhook.id, while: claim)
                            running.end(webhook.id)
                        }
                    }
                } catch {
                    logger.warning("could not read the webhooks: \(error)")
                }
                try? await Task.sleep(for: settings.pollInterval)
            }
            group.cancelAll()
        }
    }

    /// Delivers one subscription's messages one after the other while it is active.
    private func deliver(_ id: Int64, while claim: any StoreClaim) async {
        defer { metrics.forgetLag(of: id) }
        var pacing = WebhookPacing(answered: answered)
        while !Task.isCancelled, claim.isHeld {
            do {
                guard let webhook = try await store.webhook(id: id), webhook.state == .active else { return }
                if let due = webhook.nextAttemptAt.flatMap(Timestamp.date(from:)), due > Date() {
                    try await Task.sleep(for: .seconds(due.timeIntervalSinceNow))
                    continue
                }
                let started = ContinuousClock.now
                switch try await step(webhook, claim: claim) {
                case .attempted:
                    let rest = pacing.rest(after: ContinuousClock.now - started)
                    if rest > .zero { try await Task.sleep(for: rest) }
                case .moved: continue
                case .stopped: return
                case .failed(let delay): try await Task.sleep(for: delay)
                case .idle(let lastSeq):
                    guard await notifier.wait(after: lastSeq, timeout: settings.pollInterval) != nil else { return }
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("webhook \(id): \(error)", metadata: ["webhook.id": "\(id)"])
                try? await Task.sleep(for: settings.pollInterval)
            }
        }
    }

    /// Sends the subscription's next message, or the one under way again, and records how it went.
    private func step(_ webhook: Webhook, claim: any StoreClaim) async throws -> Step {
        let backlog: WebhookBacklog
        do {
            backlog = try await WebhookBacklog.read(webhook, from: store)
        } catch let gone as HistoryGone {
            var next = webhook
            next.state = .gone
            next.nextAttemptAt = nil
            next.lastError = "the history no longer holds the changes after seq \(gone.since) (kept from \(gone.horizon + 1)): it cannot deliver them"
            logger.error("webhook \(webhook.id) gone: \(next.lastError ?? "")", metadata: ["webhook.id": "\(webhook.id)", "webhook.state": "gone"])
            return try await store.updateWebhook(next, expectedDeliveredSeq: webhook.deliveredSeq, expectedState: .active, attempt: nil)
                ? .attempted : .moved
        }
        metrics.recordLag(of: webhook.id, changes: Int(backlog.lastSeq - webhook.deliveredSeq))
        guard let message = WebhookMessage(webhook: webhook.id, changes: backlog.changes) else {
            guard backlog.readThrough > webhook.deliveredSeq || webhook.messageLastSeq != nil else { return .idle(lastSeq: backlog.lastSeq) }
            // Other entities' changes pass: the position moves over them, and the lag counts what is left.
            var next = webhook
            next.deliveredSeq = max(webhook.deliveredSeq, backlog.readThrough)
            next.messageLastSeq = nil
            guard try await store.updateWebhook(next, expectedDeliveredSeq: webhook.deliveredSeq, expectedState: .active, attempt: nil) else {
                return .moved
            }
            metrics.recordLag(of: webhook.id, changes: Int(backlog.lastSeq - next.deliveredSeq))
            return next.deliveredSeq >= backlog.lastSeq ? .idle(lastSeq: backlog.lastSeq) : .attempted
        }
        var current = webhook
        if webhook.messageLastSeq == nil {
            // The message's extent is kept before it is sent: sent again after a restart, it is the same message.
            current.messageLastSeq = message.lastSeq
            guard try await store.updateWebhook(current, expectedDeliveredSeq: webhook.deliveredSeq, expectedState: .active, attempt: nil) else {
                return .moved
            }
        }
        guard let attempt = try await attempt(message, to: current, claim: claim) else { return .stopped }
        metrics.recordAttempt(succeeded: attempt.succeeded)
        var next = current
        if attempt.succeeded {
            next.deliveredSeq = message.lastSeq
            next.messageLastSeq = nil
            next.failures = 0
            next.failingSince = nil
            next.nextAttemptAt = nil
            metrics.recordLag(of: webhook.id, changes: Int(backlog.lastSeq - message.lastSeq))
        } else {
            next.failures += 1
            next.failingSince = current.failingSince ?? attempt.at
            next.lastError = attempt.error
            let failingFor = next.failingSince.flatMap(Timestamp.date(from:)).map { Date().timeIntervalSince($0) } ?? 0
            var metadata: Logger.Metadata = [
                "webhook.id": "\(webhook.id)", "webhook.message": "\(message.id)", "webhook.failures": "\(next.failures)",
                "webhook.error": "\(attempt.error ?? "")",
            ]
            if failingFor >= settings.giveUpAfter.timeInterval {
                next.state = .failing
                next.nextAttemptAt = nil
                metadata["webhook.state"] = "failing"
                logger.error(
                    "webhook \(webhook.id) given up after failing for \(settings.giveUpAfter): \(attempt.error ?? ""); POST /webhooks/\(webhook.id)/resume sends again",
                    metadata: metadata)
            } else {
                let delay = WebhookRetryPolicy(giveUpAfter: settings.giveUpAfter).delay(afterFailures: next.failures, jitter: .random(in: 0...1))
                next.nextAttemptAt = Timestamp.string(from: Date().addingTimeInterval(delay.timeInterval))
                metadata["webhook.retry_in"] = "\(delay)"
                logger.warning(
                    "webhook \(webhook.id) message \(message.id) failed (\(next.failures) in a row): \(attempt.error ?? ""); next attempt in \(delay)",
                    metadata: metadata)
                let recorded = try await store.updateWebhook(
                    next, expectedDeliveredSeq: current.deliveredSeq, expectedState: .active, attempt: attempt)
                return recorded ? .failed(retryIn: delay) : .moved
            }
        }
        _ = try await store.updateWebhook(next, expectedDeliveredSeq: current.deliveredSeq, expectedState: .active, attempt: attempt)
        return .attempted
    }

    /// One POST of `message`; nil when the process stops during it or no longer holds the right to send, so that it
    /// is neither recorded nor counted, and is sent again.
    private func attempt(_ message: WebhookMessage, to webhook: Webhook, claim: any StoreClaim) async throws -> WebhookAttempt? {
        let body = try await message.body(store: store, representations: representations)
        let timestamp = Int(Date().timeIntervalSince1970)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "User-Agent", value: "catalogd-webhooks")
        headers.add(name: "webhook-id", value: message.id)
        headers.add(name: "webhook-timestamp", value: String(timestamp))
        headers.add(
            name: "webhook-signature", value: WebhookSignature.sign(messageID: message.id, timestamp: timestamp, body: body, secret: webhook.secret))
        let at = Timestamp.now()
        let started = ContinuousClock.now
        var status: Int?
        var failure: String?
        do {
            let target = try WebhookTarget(webhook.url)
            let address = try await target.resolve(allowsPrivate: settings.allowsPrivateTargets)
            guard claim.isHeld, !Task.isCancelled else { return nil }
            let answer = try await WebhookPost.send(body, headers: headers, to: target, at: address, timeout: settings.timeout)
            status = answer
            if !(200..<300).contains(answer) { failure = "answered \(answer)" }
        } catch is CancellationError {
            return nil
        } catch {
            if Task.isCancelled { return nil }
            failure = "\(error)"
        }
        let elapsed = ContinuousClock.now - started
        return WebhookAttempt(
            at: at, messageID: message.id, firstSeq: message.firstSeq, lastSeq: message.lastSeq, changes: message.changes.count, status: status,
            error: failure, durationMilliseconds: Int(elapsed.timeInterval * 1000))
    }
}
