import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

/// An NDJSON listing is read line by line and limited per line; a JSON document, read whole, is limited whole.
@Suite("Limits on a listing: a whole JSON document, an NDJSON line")
struct ListingLimitTests {
    static let catalog = FixtureCatalog(films: 0, products: 1000)

    /// Limits far below the fixture's listing (about 200 KB), so that the listing is over the document limit.
    static func policy(documentBytes: Int = 16 * 1024, lineBytes: Int = NDJSONDecoder.defaultMaximumLineBytes) -> UpstreamPolicy {
        var policy = ImportHarness.quickPolicy
        policy.maximumResponseBytes = documentBytes
        policy.maximumLineBytes = lineBytes
        return policy
    }

    /// Where the fixture's products are, as NDJSON or as one JSON array: a file in the harness's folder, or the upstream.
    static func listing(ndjson: Bool, from origin: String, of harness: ImportHarness) throws -> String {
        let name = ndjson ? "products.ndjson" : "products.json"
        guard origin == "file" else { return "\(harness.baseURL)/\(name)" }
        let path = harness.directory.appendingPathComponent(name).path
        let bytes = ndjson ? FixtureDocuments.productsNDJSON(Self.catalog) : FixtureDocuments.productsArray(Self.catalog)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: ["file", "http"]) func anNDJSONListingLargerThanTheDocumentLimitIsImported(_ origin: String) async throws {
        let harness = try await ImportHarness.start(Self.catalog)
        defer { Task { await harness.stop() } }
        let location = try Self.listing(ndjson: true, from: origin, of: harness)
        let report = try await harness.importer(policy: Self.policy()).run(.products, from: location)
        #expect(report.status == .succeeded, "\(report.error ?? "")")
        #expect(report.inserted == 1000)
    }

    @Test(arguments: ["file", "http"]) func aJSONDocumentOverTheLimitFailsNamingTheOptionThatRaisesIt(_ origin: String) async throws {
        let harness = try await ImportHarness.start(Self.catalog)
        defer { Task { await harness.stop() } }
        let location = try Self.listing(ndjson: false, from: origin, of: harness)
        let report = try await harness.importer(policy: Self.policy()).run(.products, from: location)
        #expect(report.status == .failed)
        #expect(report.error?.contains("16384-byte limit") == true, "\(report.error ?? "")")
        #expect(report.error?.contains("--upstream-max-body") == true, "\(report.error ?? "")")
        #expect(try await harness.allProducts().isEmpty)
    }

    @Test func anNDJSONLineOverTheLineLimitFailsNamingTheOptionThatRaisesIt() async throws {
        let harness = try await ImportHarness.start(Self.catalog)
        defer { Task { await harness.stop() } }
        let path = try Self.listing(ndjson: true, from: "file", of: harness)
        let report = try await harness.importer(policy: Self.policy(documentBytes: 1 << 30, lineBytes: 64)).run(.products, from: path)
        #expect(report.status == .failed)
        #expect(report.error?.contains("an NDJSON line is longer than 64 bytes") == true, "\(report.error ?? "")")
        #expect(report.error?.contains("--upstream-max-line") == true, "\(report.error ?? "")")
        #expect(try await harness.allProducts().isEmpty)
    }
}
