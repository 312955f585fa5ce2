import CatalogModel
import CatalogStore
import Foundation
import Logging
import NIOHTTP1

/// One step of a subscription's delivery, while the sender holds its claim: the next message (or the one under way
/// again) read, sent and recorded, and the subscription's state moved as that went.
struct WebhookDelivery {
    /// What one step did.
    enum Step {
        /// A message was delivered, or the subscription given up or gone; `localWork` is the step's time but the wait for
        /// the receiver, which `WebhookPacing` rests after.
        case attempted(localWork: Duration)
        /// A message failed; it is sent again after this long.
        case failed(retryIn: Duration)
        /// Nothing to send after this seq.
        case idle(lastSeq: Int64)
        /// The subscription was changed elsewhere (deleted, resumed), or the claim was lost: its loop reads it again.
        case moved
        /// The process stops, or no longer holds the right to send.
        case stopped
    }

    let store: any CatalogStore
    let claim: any StoreClaim
    let metrics: WebhookMetrics
    /// Renders each change's `data`, with links under the service's public URL.
    let representations: Representations
    let settings: WebhookSettings
    let logger: Logger

    /// Sends the subscription's next message, or the one under way again, and records how it went.
    func step(_ webhook: Webhook) async throws -> Step {
        let started = ContinuousClock.now
        let backlog: WebhookBacklog
        do {
            backlog = try await WebhookBacklog.read(webhook, from: store)
        } catch let gone as HistoryGone {
            var next = webhook
            next.state = .gone
            next.nextAttemptAt = nil
            next.lastError = "the history no longer holds the changes after seq \(gone.since) (kept from \(gone.horizon + 1)): it cannot deliver them"
            logger.error("webhook \(webhook.id) gone: \(next.lastError ?? "")", metadata: ["webhook.id": "\(webhook.id)", "webhook.state": "gone"])
            return try await record(next, from: webhook, attempt: nil) ? .attempted(localWork: ContinuousClock.now - started) : .moved
        }
        metrics.recordLag(of: webhook.id, changes: Int(backlog.lastSeq - webhook.deliveredSeq))
        guard let message = WebhookMessage(webhook: webhook.id, changes: backlog.changes) else {
            guard backlog.readThrough > webhook.deliveredSeq || webhook.messageLastSeq != nil else { return .idle(lastSeq: backlog.lastSeq) }
            // Other entities' changes pass: the position moves over them, and the lag counts what is left.
            var next = webhook
            next.deliveredSeq = max(webhook.deliveredSeq, backlog.readThrough)
            next.messageLastSeq = nil
            guard try await record(next, from: webhook, attempt: nil) else { return .moved }
            metrics.recordLag(of: webhook.id, changes: Int(backlog.lastSeq - next.deliveredSeq))
            return next.deliveredSeq >= backlog.lastSeq ? .idle(lastSeq: backlog.lastSeq) : .attempted(localWork: ContinuousClock.now - started)
        }
        var current = webhook
        if webhook.messageLastSeq == nil {
            // The message's extent is kept before it is sent: sent again after a restart, it is the same message.
            current.messageLastSeq = message.lastSeq
            guard try await record(current, from: webhook, attempt: nil) else { return .moved }
        }
        guard let attempt = await attempt(message, to: current) else { return .stopped }
        metrics.recordAttempt(succeeded: attempt.succeeded)
        var next = current
        guard !attempt.succeeded else {
            next.deliveredSeq = message.lastSeq
            next.messageLastSeq = nil
            next.failures = 0
            next.failingSince = nil
            next.lastError = nil
            next.nextAttemptAt = nil
            guard try await record(next, from: current, attempt: attempt) else { return .moved }
            metrics.recordLag(of: webhook.id, changes: Int(backlog.lastSeq - message.lastSeq))
            return .attempted(localWork: max(.zero, ContinuousClock.now - started - .milliseconds(attempt.durationMilliseconds)))
        }
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
            return try await record(next, from: current, attempt: attempt) ? .attempted(localWork: .zero) : .moved
        }
        let delay = WebhookRetryPolicy.delay(afterFailures: next.failures, jitter: .random(in: 0...1))
        next.nextAttemptAt = Timestamp.string(from: Date().addingTimeInterval(delay.timeInterval))
        metadata["webhook.retry_in"] = "\(delay)"
        logger.warning(
            "webhook \(webhook.id) message \(message.id) failed (\(next.failures) in a row): \(attempt.error ?? ""); next attempt in \(delay)",
            metadata: metadata)
        return try await record(next, from: current, attempt: attempt) ? .failed(retryIn: delay) : .moved
    }

    /// Stores `next` if the subscription is still as `previous` left it and the claim is held.
    private func record(_ next: Webhook, from previous: Webhook, attempt: WebhookAttempt?) async throws -> Bool {
        try await store.updateWebhook(
            next, expectedDeliveredSeq: previous.deliveredSeq, expectedState: previous.state, attempt: attempt, under: claim)
    }

    /// One POST of `message`; nil when the process stops during it or no longer holds the right to send, so that it
    /// is neither recorded nor counted, and is sent again. A message whose rows cannot be read is a failed attempt.
    private func attempt(_ message: WebhookMessage, to webhook: Webhook) async -> WebhookAttempt? {
        let at = Timestamp.now()
        var started = ContinuousClock.now
        var status: Int?
        var failure: String?
        do {
            let body: [UInt8]
            do {
                body = try await message.body(store: store, representations: representations)
            } catch {
                throw WebhookPost.Failure(description: "could not read the message's rows: \(error)")
            }
            // The attempt's duration is the POST's, its host's resolution included.
            started = .now
            let target = try WebhookTarget(webhook.url)
            guard claim.isHeld, !Task.isCancelled else { return nil }
            let answer = try await WebhookPost.send(
                body, headers: headers(message, body: body, secret: webhook.secret), to: target, allowsPrivate: settings.allowsPrivateTargets,
                timeout: settings.timeout)
            status = answer
            if !(200..<300).contains(answer) { failure = "answered \(answer)" }
        } catch is CancellationError {
            return nil
        } catch {
            if Task.isCancelled { return nil }
            failure = "\(error)"
        }
        return WebhookAttempt(
            at: at, messageID: message.id, firstSeq: message.firstSeq, lastSeq: message.lastSeq, changes: message.changes.count, status: status,
            error: failure, durationMilliseconds: Int((ContinuousClock.now - started).timeInterval * 1000))
    }

    /// Standard Webhooks' headers, signed now.
    private func headers(_ message: WebhookMessage, body: [UInt8], secret: String) -> HTTPHeaders {
        let timestamp = Int(Date().timeIntervalSince1970)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "User-Agent", value: "catalogd-webhooks")
        headers.add(name: "webhook-id", value: message.id)
        headers.add(name: "webhook-timestamp", value: String(timestamp))
        headers.add(name: "webhook-signature", value: WebhookSignature.sign(messageID: message.id, timestamp: timestamp, body: body, secret: secret))
        return headers
    }
}
