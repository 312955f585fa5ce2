import CatalogModel
import CatalogStore
import Foundation
import Logging

/// Why an import could not start.
public enum ImportStartError: Error, Sendable, Equatable {
    /// A run of this source is in progress; its report id, unless the process holding the source has not
    /// recorded its run yet.
    case alreadyRunning(Int64?)
    case notConfigured(FeedSource)
    /// The service is shutting down: no run starts any more.
    case shuttingDown
}

/// Runs imports, at most one per source at a time, whoever asks: the scheduler, `POST /imports` or the CLI.
public actor Importer {
    private let store: any CatalogStore
    private let client: UpstreamClient
    private let locations: FeedLocations
    private let logger: Logger
    private let inMemoryProductLimit: Int
    private let streamsProducts: Bool
    private let onCompletion: @Sendable (ImportReport, Duration) -> Void
    private var running: [FeedSource: (id: Int64, task: Task<ImportReport, Never>)] = [:]
    private var isShuttingDown = false

    /// - Parameters:
    ///   - inMemoryProductLimit: listings longer than this are staged by the store rather than held in memory.
    ///   - streamsProducts: whether products are written while they are read, when the store can (its streamed
    ///     listing); otherwise a listing is read whole before it is written, as for a store that cannot.
    ///   - onCompletion: told of every run's final report and duration, once it is recorded (for metrics).
    public init(
        store: any CatalogStore, locations: FeedLocations, client: UpstreamClient, logger: Logger,
        inMemoryProductLimit: Int = FeedReader.defaultInMemoryProductLimit, streamsProducts: Bool = true,
        onCompletion: @escaping @Sendable (ImportReport, Duration) -> Void = { _, _ in }
    ) {
        self.store = store
        self.inMemoryProductLimit = inMemoryProductLimit
        self.streamsProducts = streamsProducts
        self.locations = locations
        self.client = client
        self.logger = logger
        self.onCompletion = onCompletion
    }

    /// How long ago the last successful run of `source` finished, by this process or any other on the store; nil
    /// when none has.
    public nonisolated func timeSinceLastSuccess(of source: FeedSource) async throws -> Duration? {
        guard let finished = try await store.lastSuccessfulImports()[source].flatMap(Timestamp.date(from:)) else { return nil }
        return .milliseconds(Int64(max(0, Date().timeIntervalSince(finished)) * 1000))
    }

    public nonisolated var configuredSources: [FeedSource] {
        FeedSource.allCases.filter { locations.location(of: $0) != nil }
    }

    /// Starts a run in the background and returns its report, still `running`; `startedBy` names who asked for it
    /// through the API.
    public func start(
        _ source: FeedSource, startedBy: String? = nil, from override: String? = nil, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> (report: ImportReport, completion: Task<ImportReport, Never>) {
        guard !isShuttingDown else { throw ImportStartError.shuttingDown }
        try await awaitFinishedRun(of: source)
        guard let location = override ?? locations.location(of: source) else { throw ImportStartError.notConfigured(source) }
        // One run of a source at a time in the whole deployment: this process, another on the same store, a replica.
        let claim: any StoreClaim
        switch try await store.claimImport(of: source) {
        case .claimed(let claimed): claim = claimed
        case .heldElsewhere(let runningImport): throw ImportStartError.alreadyRunning(runningImport ?? running[source]?.id)
        }
        let report: ImportReport
        do {
            report = try await store.beginImport(source: source, startedBy: startedBy)
            // While the report row was written, shutdown may have begun.
            if isShuttingDown {
                try await store.failImport(failed(report, because: Self.shutdownReason))
                throw ImportStartError.shuttingDown
            }
        } catch {
            await claim.release()
            throw error
        }
        let task = Task { await self.perform(report, location: location, claim: claim, progress: progress) }
        running[source] = (report.id, task)
        return (report, task)
    }

    /// Throws `alreadyRunning` while a run of `source` is in progress.
    ///
    /// A run's final report is committed before the run leaves `running`; a client that saw that report
    /// finished may ask for the next run in between, and must not be told the finished one is in progress.
    private func awaitFinishedRun(of source: FeedSource) async throws {
        while let current = running[source] {
            guard try await store.importReport(id: current.id).0?.status != .running else {
                throw ImportStartError.alreadyRunning(current.id)
            }
            _ = await current.task.value
        }
    }

    /// Runs one import to the end and returns its final report.
    public func run(_ source: FeedSource, from override: String? = nil, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws
        -> ImportReport
    {
        let (_, completion) = try await start(source, from: override, progress: progress)
        return await withTaskCancellationHandler {
            await completion.value
        } onCancel: {
            completion.cancel()
        }
    }

    static let shutdownReason = "cancelled: the service is shutting down"

    /// Refuses every later start, then cancels every run in progress and waits for each to roll back and record
    /// its failure: once it returns, no import writes to the store.
    public func shutDown() async {
        isShuttingDown = true
        await cancelAll()
    }

    /// Cancels every run in progress and waits for each to roll back and record its failure.
    public func cancelAll() async {
        let tasks = running.values.map(\.task)
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.value }
    }

    private func finished(_ source: FeedSource) {
        running[source] = nil
    }

    private nonisolated func failed(_ report: ImportReport, because reason: String) -> ImportReport {
        var report = report
        report.status = .failed
        report.error = reason
        report.finishedAt = Timestamp.now()
        return report
    }

    /// Runs one import to its recorded end, then gives back its claim and leaves `running`, in that order: the
    /// next start, here or anywhere, finds the source free as soon as it can see this run ended.
    private nonisolated func perform(
        _ report: ImportReport, location: String, claim: any StoreClaim, progress: @escaping @Sendable (Int, Int) -> Void
    ) async -> ImportReport {
        let started = ContinuousClock.now
        var report = report
        var logger = self.logger
        logger[metadataKey: "import.id"] = .stringConvertible(report.id)
        logger[metadataKey: "import.source"] = "\(report.source.rawValue)"
        logger.info("importing \(report.source.rawValue) from \(location)")
        let outcome: ImportReport
        do {
            let readEnded: ContinuousClock.Instant
            let initial = report
            do {
                (outcome, readEnded) = try await readAndApply(&report, location: location, claim: claim, streams: streamsProducts, progress: progress)
            } catch let abandoned as StreamedListingAbandoned {
                // Rolled back: read whole, with a run's time of its own, the listing is written as a store that cannot stream writes it.
                logger.warning("\(abandoned); reading it again whole")
                report = initial
                (outcome, readEnded) = try await readAndApply(&report, location: location, claim: claim, streams: false, progress: progress)
            }
            let read = Self.milliseconds(since: started, until: readEnded)
            let total = Self.milliseconds(since: started)
            logger.info(
                "\(outcome.summary) in \(total) ms (\(read) ms reading and checking the feed, \(total - read) ms writing after the last page)",
                metadata: outcome.logMetadata.merging(
                    [
                        "import.duration_ms": .stringConvertible(total), "import.read_ms": .stringConvertible(read),
                        "import.write_ms": .stringConvertible(total - read),
                    ], uniquingKeysWith: { $1 }))
        } catch {
            let reason = Task.isCancelled || error is CancellationError ? Self.shutdownReason : String(describing: error)
            outcome = failed(report, because: reason)
            // Recorded from a fresh task: this one may be cancelled, and the store refuses work for cancelled tasks.
            let store = self.store
            let recorded = await Task { try await store.failImport(outcome) }.result
            if case .failure(let recordError) = recorded {
                logger.error("could not record the failed import: \(recordError)")
            }
            let elapsed = Self.milliseconds(since: started)
            let variable = "CATALOG_\(report.source.rawValue.uppercased())_URL"
            logger.error(
                """
                \(outcome.summary) after \(elapsed) ms; the store is unchanged. Point \(variable) at a reachable feed \
                (scripts/demo runs a local one) or wait for the next scheduled run
                """,
                metadata: outcome.logMetadata.merging(["import.duration_ms": .stringConvertible(elapsed)], uniquingKeysWith: { $1 }))
        }
        onCompletion(outcome, ContinuousClock.now - started)
        await claim.release()
        await finished(report.source)
        return outcome
    }

    /// Reads the listing of `report`'s source within the run timeout and applies it in one transaction; returns the
    /// final report and when the last page was read (a streamed listing is written while it is read).
    private nonisolated func readAndApply(
        _ report: inout ImportReport, location: String, claim: any StoreClaim, streams: Bool, progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws -> (ImportReport, ContinuousClock.Instant) {
        let started = ContinuousClock.now
        let previousPages = try await store.feedPages(source: report.source)
        // The pages of one run share connections; the next run, maybe an interval later, opens its own.
        let listing = try await client.withSharedConnections { client in
            let reader = FeedReader(
                client: client, store: store, previousPages: previousPages, deadline: started + client.policy.runTimeout,
                inMemoryProductLimit: inMemoryProductLimit, streamsProducts: streams, progress: progress)
            switch report.source {
            case .films: return try await reader.readFilms(from: location, report: &report)
            case .products: return try await reader.readProducts(from: location, pageSize: locations.productPageSize, report: &report)
            }
        }
        let readEnded = ContinuousClock.now
        let completion: Result<ImportReport, any Error>
        do {
            try Task.checkCancellation()
            completion = .success(try await store.completeImport(report, listing: listing, under: claim))
        } catch {
            completion = .failure(error)
        }
        if case .stagedProducts(let staging) = listing.records { await staging.discard() }
        return (try completion.get(), readEnded)
    }

    static func milliseconds(since start: ContinuousClock.Instant, until end: ContinuousClock.Instant = .now) -> Int64 {
        let elapsed = end - start
        return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }
}
