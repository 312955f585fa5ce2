import CatalogModel
import CatalogStore
import HTTPTypes
import Hummingbird

/// `GET /changes`: the history after a change token, as a page, a long poll, or a Server-Sent Events stream.
///
/// A stream reads the history from the store at its own pace after each wake-up, so a slow client holds
/// no buffer on the server and never delays writers or other clients; it only falls behind. A stream that
/// falls more than `maximumLag` changes behind is closed with a `lagging` event naming the id to resume from.
/// On graceful shutdown every stream ends with a `shutdown` event naming the id to resume from, and every
/// long poll answers at once with what it has. Streams and waiting long polls take one of the server's follower
/// slots each (`--max-followers`); when none is free the request is answered 503 with `Retry-After`.
struct ChangesController<Context: RequestContext> {
    static var defaultLimit: Int { 100 }
    static var defaultLongPollTimeout: Int { 30_000 }
    static var maximumLongPollTimeout: Int { 120_000 }
    static var defaultHeartbeatInterval: Duration { .seconds(15) }

    static var defaultMaximumLag: Int { 100_000 }

    let store: any CatalogStore
    let notifier: ChangeNotifier
    let followers: ChangeFeedFollowers
    /// Changes a stream may trail the history by before it is told to resume later.
    var maximumLag = Self.defaultMaximumLag
    /// Changes read from the store per wake-up of a stream: a stream whose client does not read holds at most two
    /// batches' events (one waiting to be written, one partly written), about 19 KB each.
    var streamBatchSize = 100
    /// Time between comments on an idle stream; a client that has gone is noticed at the next one.
    var heartbeatInterval = Self.defaultHeartbeatInterval

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let query = QueryReader(request)
        let limit = try query.integer("limit", in: 1...ChangeSlice.maximumLimit) ?? Self.defaultLimit
        // An empty one is absent, as every empty parameter is (`QueryReader`).
        let entity = try query.parameters["entity"].map { text throws(Problem) in
            guard let entity = Change.Entity(rawValue: text) else {
                throw Problem.badParameter("entity", "entity must be film or product, got '\(text)'")
            }
            return entity
        }
        let feed = query.parameters["feed"]
        // Checked whatever the feed, so that a bad value is never silently ignored.
        let timeout = try query.integer("timeout", in: 0...Self.maximumLongPollTimeout)
        // Checked whatever the feed too; an empty one is no position, as an EventSource that has read no event sends none.
        let lastEventID = try request.headers[.lastEventID].flatMap { $0.isEmpty ? nil : $0 }.map { text throws(Problem) in
            try Self.changeToken(text, parameter: "Last-Event-ID")
        }
        let wantsStream = feed == "eventsource" || (feed == nil && request.headers[.accept]?.contains("text/event-stream") == true)
        if !wantsStream, feed == nil, try ResponseFormat(request) == .html { return try await ChangesPage(store: store).render(request) }
        let since = try query.string("since").map { text throws(Problem) in try Self.changeToken(text) } ?? (wantsStream ? lastEventID : nil) ?? 0
        switch feed {
        case nil, "normal", "eventsource":
            if wantsStream { return try await stream(since: since, entity: entity) }
            return try await page(request, since: since, limit: limit, entity: entity, wait: nil)
        case "longpoll":
            // A token ahead of the newest change was not given by this store (another one, or a backup restored
            // since): it waits for the next change from now, not for the history to catch up with it.
            let newest = try await store.currentVersions().lastSeq
            return try await page(
                request, since: min(since, newest), limit: limit, entity: entity, wait: .milliseconds(timeout ?? Self.defaultLongPollTimeout))
        default:
            throw Problem.badParameter("feed", "feed must be normal, longpoll or eventsource, got '\(feed ?? "")'")
        }
    }

    /// A position in the history, as `since` or `Last-Event-ID` gives it.
    static func changeToken(_ text: String, parameter: String = "since") throws(Problem) -> Int64 {
        // Digits alone, as `Last-Event-ID`'s pattern says: `Int64` would take `+5` too.
        guard text.utf8.allSatisfy(QueryReader.isDigit), let since = Int64(text), since >= 0 else {
            throw Problem.badParameter(
                parameter, "\(parameter) must be a change token (a non-negative integer such as a last_seq), got '\(text)'")
        }
        return since
    }

    /// Reads the history, mapping a token older than the retained history to 410.
    private func slice(since: Int64, limit: Int, entity: Change.Entity?) async throws -> ChangeSlice {
        do {
            return try await store.changes(since: since, limit: limit, entity: entity)
        } catch let gone as HistoryGone {
            throw Problem(
                .gone, type: "history-gone",
                detail:
                    "changes after \(gone.since) are no longer kept (history starts after \(gone.horizon)); re-list the resources and resume from last_seq \(gone.lastSeq)",
                extensions: [("last_seq", .number(String(gone.lastSeq)))])
        }
    }

    private func page(_ request: Request, since: Int64, limit: Int, entity: Change.Entity?, wait: Duration?) async throws -> Response {
        var slice = try await slice(since: since, limit: limit, entity: entity)
        if let wait, slice.changes.isEmpty {
            let slot = try followers.takeSlot()
            followers.longPolls.increment()
            defer {
                followers.longPolls.decrement()
                withExtendedLifetime(slot) {}
            }
            let deadline = ContinuousClock.now + wait
            // Woken by any change; a change of another entity means waiting on, until the deadline.
            while slice.changes.isEmpty, ContinuousClock.now < deadline,
                let seq = await notifier.wait(after: max(since, slice.lastSeq), timeout: deadline - ContinuousClock.now), seq > slice.lastSeq
            {
                slice = try await self.slice(since: since, limit: limit, entity: entity)
            }
        }
        var writer = JSONWriter(capacity: 128 + slice.changes.count * 128)
        writer.objectStart()
        writer.key("results")
        writer.arrayStart()
        for change in slice.changes { change.write(into: &writer) }
        writer.arrayEnd()
        writer.key("last_seq")
        // Where to resume: after the last change shown, or after everything read when nothing of interest is left.
        writer.int(slice.pending > 0 ? (slice.changes.last?.seq ?? since) : max(since, slice.lastSeq))
        writer.member("pending", slice.pending)
        writer.objectEnd()
        return try JSONResponder.negotiatedJSON(request, bytes: writer.bytes, headers: [.cacheControl: "no-store"])
    }

    /// The last event of a stream the server ends: where the client resumes.
    static func shutdownEvent(resumingFrom last: Int64) -> ByteBuffer {
        ByteBuffer(string: "event: shutdown\ndata: {\"resume_from\": \(last)}\n\n")
    }

    /// Streams every change after `since` as `id: seq` / `data: change` events, with a comment as heartbeat.
    private func stream(since: Int64, entity: Change.Entity?) async throws -> Response {
        // Answer 410 before the stream starts rather than inside it.
        _ = try await slice(since: since, limit: 1, entity: entity)
        // Held by the body, and freed with it, also when the body never runs.
        let slot = try followers.takeSlot()
        let store = self.store
        let notifier = self.notifier
        let maximumLag = self.maximumLag
        let batchSize = self.streamBatchSize
        let heartbeatInterval = self.heartbeatInterval
        let streams = followers.streams
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                streams.increment()
                defer {
                    streams.decrement()
                    withExtendedLifetime(slot) {}
                }
                var last = since
                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                streaming: while true {
                    let stopping = await notifier.isShuttingDown
                    if Task.isCancelled || stopping {
                        // Ended from outside (the server stopping, the connection closing): still say where to resume;
                        // a stream with history left to send stops sending it too.
                        try? await writer.write(Self.shutdownEvent(resumingFrom: last))
                        break streaming
                    }
                    // The changes read are dropped once rendered: a stream waiting for its client holds only bytes.
                    let batch: EventBatch
                    do {
                        batch = EventBatch(try await store.changes(since: last, limit: batchSize, entity: entity))
                    } catch is HistoryGone {
                        try await writer.write(ByteBuffer(string: "event: gone\ndata: {\"resume_from\": \(last)}\n\n"))
                        break streaming
                    }
                    if let events = batch.events {
                        try await writer.write(events)
                        last = batch.lastChangeSeq ?? last
                        if batch.pending > maximumLag {
                            try await writer.write(
                                ByteBuffer(string: "event: lagging\ndata: {\"resume_from\": \(last), \"pending\": \(batch.pending)}\n\n"))
                            break streaming
                        }
                        if batch.pending > 0 { continue }
                    }
                    last = max(last, batch.lastSeq)
                    guard let seq = await notifier.wait(after: last, timeout: heartbeatInterval) else {
                        try await writer.write(Self.shutdownEvent(resumingFrom: last))
                        break streaming
                    }
                    if seq <= last { try await writer.write(ByteBuffer(string: ": heartbeat\n\n")) }
                }
                try await writer.finish(nil)
            })
    }
}

extension HTTPField.Name {
    /// Where a reconnecting Server-Sent Events client resumes.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
