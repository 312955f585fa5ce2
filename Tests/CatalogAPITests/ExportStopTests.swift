import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

@testable import CatalogAPI

extension StoppingSuites {
    /// Exports that end early: past `--export-max-duration`, for a client that stops reading, and when the service
    /// stops. Each is cut, a chunked body without its last chunk, and frees its place for the next export.
    @Suite("Exports that are cut")
    struct ExportStopTests {
        static let sendTimeoutSeries = "catalogd_http_send_timeouts_total"
        /// The end of a chunked body: an export that has it was sent whole.
        static let lastChunk = "\r\n0\r\n\r\n"

        /// A service on a fresh store of `backend` with `products` products, configured by `configure`.
        static func running(
            _ backend: StoreBackend, products: Int, _ configure: (inout ServiceConfiguration) -> Void
        ) async throws -> RunningService {
            let service = try await RunningService.start(backend, configure: configure)
            try await seedCatalogue(service.components.store, products: products)
            return service
        }

        static func exportRequest(_ path: String = "/products?format=ndjson") -> [UInt8] {
            RawConnection.request("GET", path, headers: [("Connection", "close")])
        }

        @Test(arguments: StoreBackend.available) func anExportPastItsLongestDurationIsCutAndFreesItsPlace(_ backend: StoreBackend) async throws {
            let service = try await Self.running(backend, products: 50) {
                // Cut before the second batch: the first is read before the answer's head.
                $0.exportMaximumDuration = .zero
                $0.exportBatchSize = 10
                $0.maximumExports = 1
            }
            defer { service.testStore.remove() }
            let cut = try await RawConnection.exchange(port: service.port, request: Self.exportRequest())
            #expect(cut.received.hasPrefix("HTTP/1.1 200 OK"), "\(cut.received.prefix(200))")
            #expect(cut.received.contains(#"{"serial_code":"P009""#))
            #expect(!cut.received.contains(#"{"serial_code":"P010""#))
            #expect(!cut.received.hasSuffix(Self.lastChunk))
            // Its place is free again: the next one is answered, not refused.
            let next = try await RawConnection.exchange(port: service.port, request: Self.exportRequest("/films?format=csv"))
            #expect(next.received.hasPrefix("HTTP/1.1 200 OK"), "\(next.received.prefix(300))")
            #expect(next.received.hasSuffix(Self.lastChunk))
            _ = try await service.stop()
        }

        @Test(arguments: StoreBackend.available) func aClientThatStopsReadingIsCutAndItsSnapshotClosed(_ backend: StoreBackend) async throws {
            let service = try await Self.running(backend, products: 6_000) {
                $0.sendTimeout = .seconds(1)
                $0.maximumExports = 1
            }
            defer { service.testStore.remove() }
            let stalled = try await SilentFollower.connect(port: service.port, request: Self.exportRequest())
            let cut = await eventually(within: .seconds(60)) { service.sample(Self.sendTimeoutSeries) == 1 }
            #expect(cut, "the stalled export was not cut: \(service.sample(Self.sendTimeoutSeries)) send timeouts")
            await stalled.close()
            // The place and the snapshot are free: an export now sees a write made after the stall.
            _ = try await service.components.store.upsertProducts(
                [Product(serialCode: "AFTER", name: "After", category: "c0", price: try Price(parsing: "1"))], author: "api")
            let next = try await RawConnection.exchange(port: service.port, request: Self.exportRequest("/products?format=csv&search=after"))
            #expect(next.received.hasPrefix("HTTP/1.1 200 OK"), "\(next.received.prefix(300))")
            #expect(next.received.contains("\r\nAFTER,After,"))
            _ = try await service.stop()
        }

        @Test(arguments: StoreBackend.available) func aStopDuringAnExportCutsItAndEndsAtOnce(_ backend: StoreBackend) async throws {
            let service = try await Self.running(backend, products: 10_000) {
                $0.shutdownTimeout = .seconds(5)
                // A row a batch: the export lasts seconds, a stop finds it under way.
                $0.exportBatchSize = 1
            }
            defer { service.testStore.remove() }
            let export = Task { try await RawConnection.exchange(port: service.port, request: Self.exportRequest(), deadline: .seconds(60)) }
            try await Task.sleep(for: .milliseconds(300))
            let took = try await service.stop()
            let received = try await export.value.received
            #expect(took < .seconds(2), "the stop took \(took)")
            #expect(received.hasPrefix("HTTP/1.1 200 OK"), "\(received.prefix(200))")
            #expect(received.contains(#"{"serial_code":"P000""#))
            #expect(!received.hasSuffix(Self.lastChunk), "the export was whole before the stop: \(received.count) bytes")
        }
    }
}
