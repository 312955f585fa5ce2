import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import NIOPosix
import ServiceLifecycle
import Synchronization
import Testing

@testable import CatalogAPI

/// A change-feed follower on a plain loopback connection that sends its request and then reads nothing, or one
/// byte at a time when told to: a phone asleep with the feed open, or a consumer stuck in a pause.
struct SilentFollower {
    let channel: any Channel
    let received: ReceivedBytes

    /// Bytes a follower has read so far.
    final class ReceivedBytes: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let count = Atomic(0)

        var total: Int { count.load(ordering: .relaxed) }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            count.add(unwrapInboundIn(data).readableBytes, ordering: .relaxed)
        }
    }

    /// Connects with a small receive buffer and the segment size of a mobile network, and sends `request`. Over
    /// loopback's 64 KiB segments the server's kernel would take megabytes for the connection before it filled;
    /// with 536-byte segments it takes under 200 KiB, as over the Internet.
    static func connect(port: Int, request: [UInt8], bytesPerRead: Int = 1) async throws -> SilentFollower {
        let received = ReceivedBytes()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: false)
            .channelOption(.socketOption(.so_rcvbuf), value: 4096)
            .channelOption(ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_MAXSEG)), value: 536)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: bytesPerRead))
            .channelOption(.maxMessagesPerRead, value: 1)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(received) } }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(bytes: request))
        return SilentFollower(channel: channel, received: received)
    }

    /// Reads once: at most `bytesPerRead` bytes, if any have arrived.
    func readOnce() { channel.read() }

    func close() async { try? await channel.close() }
}

/// A service on a fresh store of one engine, run in its own service group as `catalogd serve` runs it.
struct RunningService {
    let testStore: TestStore
    let components: ServiceComponents
    let group: ServiceGroup
    let running: Task<Void, any Error>
    let port: Int

    static func start(_ backend: StoreBackend, configure: (inout ServiceConfiguration) -> Void = { _ in }) async throws -> RunningService {
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.feeds = FeedLocations(films: "", products: "")
        configuration.importInterval = nil
        configuration.apiToken = "secret"
        configure(&configuration)
        let logger = Logger(label: "catalogd-tests")
        let testStore = try await TestStore.open(backend)
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let (application, components) = try await buildApplication(configuration, store: testStore.store, logger: logger) { portSink.yield($0) }
        let group = serviceGroup(application, components: components, gracefulShutdownSignals: [], logger: logger)
        let running = Task { try await group.run() }
        var portIterator = ports.makeAsyncIterator()
        let port = try #require(await portIterator.next())
        return RunningService(testStore: testStore, components: components, group: group, running: running, port: port)
    }

    func sample(_ series: String) -> Double { CatalogAPITests.sample(components.metrics.registry, series) ?? 0 }

    /// Stops the service as SIGTERM does and says how long that took.
    func stop() async throws -> Duration {
        let started = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await running.value
        return ContinuousClock.now - started
    }
}

/// Waits, for at most `limit`, until this process spends less than a tenth of a core for half a second; says whether it did.
func processIsIdle(within limit: Duration = .seconds(60)) async -> Bool {
    func cpuTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        let before = cpuTime()
        try? await Task.sleep(for: .milliseconds(500))
        if cpuTime() - before < .milliseconds(50) { return true }
    }
    return false
}

extension StoppingSuites {
    @Suite("Followers that stop reading: send timeout, a stop that always ends, a limit on followers")
    struct StuckClientTests {
        static let sendTimeoutSeries = "catalogd_http_send_timeouts_total"
        static let refusedSeries = "catalogd_changes_clients_refused_total"

        /// The reproduction of the stuck stop: 30 followers that never read, each with more history to send than its socket
        /// takes (6,000 changes; `scripts/shutdown.py` runs it with 30,000 on the real binary), then a stop.
        @Test(arguments: StoreBackend.available) func aStopEndsWithinItsTimeoutWhileFollowersStopReading(_ backend: StoreBackend) async throws {
            // A send timeout far longer than the test, so that the followers are still there when the stop begins.
            let service = try await RunningService.start(backend) {
                $0.shutdownTimeout = .seconds(2)
                $0.sendTimeout = .seconds(600)
            }
            defer { service.testStore.remove() }
            try await seedCatalogue(service.components.store, products: 6_000)
            let lastSeq = try await service.components.store.versions().lastSeq
            var followers: [SilentFollower] = []
            for _ in 0..<30 { followers.append(try await SilentFollower.connect(port: service.port, request: StoppingSuites.streamRequest)) }
            let connected = await eventually { service.sample(StoppingSuites.streamSeries) == 30 }
            #expect(connected, "streams: \(service.sample(StoppingSuites.streamSeries))")
            // Every stream has filled its socket and waits for room once the process stops working.
            let idle = await processIsIdle()
            #expect(idle, "the streams were still writing")
            #expect(service.sample(StoppingSuites.streamSeries) == 30, "the followers left before the stop")

            let took = try await service.stop()
            #expect(took < .seconds(3), "the stop took \(took)")
            #expect(service.components.connections.count == 0)
            for follower in followers { await follower.close() }
            // Closed as always: the store opens again with the whole history and passes its check.
            let reopened = try await service.testStore.openAnother()
            #expect(try await reopened.versions().lastSeq == lastSeq)
            #expect(try await reopened.check() == [])
            try await reopened.close()
            if backend == .sqlite {
                let log = service.testStore.directory.appendingPathComponent("catalog.sqlite-wal").path
                #expect(!FileManager.default.fileExists(atPath: log), "the write-ahead log was left behind")
            }
        }

        @Test func followersThatStopReadingAreDisconnectedWhileOneReadingSlowlyIsNot() async throws {
            let service = try await RunningService.start(.sqlite) { $0.sendTimeout = .seconds(3) }
            defer { service.testStore.remove() }
            let store = service.components.store
            try await seedCatalogue(store, products: 6_000)
            let lastSeq = try await store.versions().lastSeq
            let slow = try await SilentFollower.connect(
                port: service.port, request: RawConnection.request("GET", "/changes?since=\(lastSeq)", headers: [("Accept", "text/event-stream")]))
            var stuck: [SilentFollower] = []
            for _ in 0..<10 { stuck.append(try await SilentFollower.connect(port: service.port, request: StoppingSuites.streamRequest)) }
            let connected = await eventually { service.sample(StoppingSuites.streamSeries) == 11 }
            #expect(connected, "streams: \(service.sample(StoppingSuites.streamSeries))")

            // A byte a second, and a change a second for it to follow, for at least twice the send timeout and until the
            // others are gone (a debug build under a full test run takes its time to fill their sockets).
            let started = ContinuousClock.now
            var seconds = 0
            while seconds < 8 || (service.sample(StoppingSuites.streamSeries) > 1 && seconds < 40) {
                slow.readOnce()
                _ = try await store.upsertProducts([try slowProduct(seconds)], author: "api")
                seconds += 1
                try await Task.sleep(until: started + .seconds(seconds))
            }
            #expect(service.sample(StoppingSuites.streamSeries) == 1, "streams: \(service.sample(StoppingSuites.streamSeries))")
            #expect(service.sample(Self.sendTimeoutSeries) == 10)
            #expect(slow.received.total >= 8, "the slow follower read \(slow.received.total) bytes")
            #expect(slow.channel.isActive)
            for follower in stuck + [slow] { await follower.close() }
            _ = try await service.stop()
        }

        @Test(arguments: StoreBackend.available) func followersOverTheLimitAre503WithRetryAfterAndCounted(_ backend: StoreBackend) async throws {
            let service = try await RunningService.start(backend) { $0.maximumFollowers = 2 }
            defer { service.testStore.remove() }
            let port = service.port
            let longPoll = RawConnection.request("GET", "/changes?since=0&feed=longpoll&timeout=3000", headers: [("Connection", "close")])
            let waiting = (0..<2).map { _ in Task { try await RawConnection.exchange(port: port, request: longPoll) } }
            let connected = await eventually { service.sample(StoppingSuites.longPollSeries) == 2 }
            #expect(connected)
            let refusedStream = try await RawConnection.exchange(port: port, request: StoppingSuites.streamRequest) { $0.contains("}") }
            let refusedPoll = try await RawConnection.exchange(port: port, request: longPoll)
            for refused in [refusedStream.received, refusedPoll.received] {
                #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused.prefix(200))")
                #expect(refused.contains("Retry-After: 5"))
                #expect(refused.contains("too-many-followers"))
                #expect(refused.contains("--max-followers"))
            }
            #expect(service.sample(Self.refusedSeries) == 2)

            // A slot is freed with its follower: once the long polls have answered, a stream is served.
            for poll in waiting {
                let answered = try await poll.value.received
                #expect(answered.hasPrefix("HTTP/1.1 200"), "\(answered.prefix(200))")
            }
            let admitted = try await RawConnection.exchange(port: port, request: StoppingSuites.streamRequest) { $0.contains("retry: 2000") }
            #expect(admitted.received.hasPrefix("HTTP/1.1 200"), "\(admitted.received.prefix(200))")
            _ = try await service.stop()
        }

        /// A follower with much history to catch up on, taking 40 KB a second: its writes wait for the socket all along,
        /// longer than the send timeout, but each time some reach it the clock starts again, so it is not cut.
        @Test func aFollowerCatchingUpSlowlyButSteadilyIsNotCut() async throws {
            let service = try await RunningService.start(.sqlite) { $0.sendTimeout = .seconds(3) }
            defer { service.testStore.remove() }
            try await seedCatalogue(service.components.store, products: 6_000)
            let reader = try await SilentFollower.connect(port: service.port, request: StoppingSuites.streamRequest, bytesPerRead: 4_000)
            let started = ContinuousClock.now
            for tick in 1...80 {
                reader.readOnce()
                try await Task.sleep(until: started + .milliseconds(100 * tick))
            }
            #expect(reader.received.total > 150_000, "read \(reader.received.total) bytes")
            #expect(reader.received.total < 700_000, "read \(reader.received.total) bytes: the history was not left waiting")
            #expect(service.sample(Self.sendTimeoutSeries) == 0)
            #expect(service.sample(StoppingSuites.streamSeries) == 1)
            await reader.close()
            _ = try await service.stop()
        }

        /// A large body goes on in slices, each of which counts as progress when it reaches the socket; together they
        /// are the body's bytes, in order, and the caller's promise completes with the last.
        @Test func aLargeBodyGoesOnInSlicesThatTogetherAreTheBody() async throws {
            let channel = EmbeddedChannel(handler: SendTimeout(timeout: .seconds(30)) { _ in })
            let body = ByteBuffer(bytes: (0..<(3 * SendTimeout.sliceBytes + 100)).map { UInt8(truncatingIfNeeded: $0 * 7) })
            let written = channel.eventLoop.makePromise(of: Void.self)
            channel.writeAndFlush(HTTPResponsePart.body(body), promise: written)
            var slices: [ByteBuffer] = []
            while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
                guard case .body(let slice) = part else { continue }
                slices.append(slice)
            }
            #expect(slices.map(\.readableBytes) == [SendTimeout.sliceBytes, SendTimeout.sliceBytes, SendTimeout.sliceBytes, 100])
            var joined = ByteBuffer()
            for var slice in slices { joined.writeBuffer(&slice) }
            #expect(joined == body)
            try await written.futureResult.get()
            _ = try channel.finish()
        }

        private func slowProduct(_ index: Int) throws -> Product {
            Product(
                serialCode: "SLOW-\(index)", name: "Slow \(index)", description: "", category: "slow", brand: "", price: try Price(parsing: "1.00"),
                stock: 1)
        }
    }
}
