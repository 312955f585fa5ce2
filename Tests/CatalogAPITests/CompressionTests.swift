import CatalogModel
import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CatalogAPI

private let gzipHeaders: HTTPFields = [.acceptEncoding: "gzip, deflate"]

/// A harness serving over a real loopback socket, so that what is checked is what goes on the wire.
private func liveHarness(cache: Bool = true) -> WriteHarness {
    var harness = WriteHarness()
    harness.setup = .live
    if !cache { harness.configuration.responseCacheBytes = 0 }
    return harness
}

private func gunzip(_ body: ByteBuffer) throws -> ByteBuffer {
    var compressed = body
    return try compressed.decompress(with: .gzip())
}

@Suite("gzip responses")
struct CompressionTests {
    @Test(arguments: [true, false])
    func aGzipPageDecompressesToExactlyThePlainPage(cache: Bool) async throws {
        try await liveHarness(cache: cache).run { client, components in
            try await seedCatalogue(components.store, products: 150)
            for uri in ["/products?page_size=100", "/products?category=c1&page_size=100", "/changes?since=0&limit=100"] {
                let plain = try await get(client, uri)
                let compressed = try await get(client, uri, headers: gzipHeaders)
                #expect(plain.headers[.contentEncoding] == nil, "\(uri)")
                #expect(plain.headers[.vary] == "Accept, Accept-Encoding", "\(uri)")
                let encoding = compressed.headers[.contentEncoding]
                #expect(encoding == "gzip", "\(uri)")
                #expect(compressed.headers[.vary] == "Accept, Accept-Encoding", "\(uri)")
                #expect(compressed.headers[.contentLength] == String(compressed.body.readableBytes), "\(uri)")
                #expect(compressed.body.readableBytes * 3 < plain.body.readableBytes, "\(uri)")
                let decompressed = try gunzip(compressed.body)
                #expect(decompressed == plain.body, "\(uri)")
                // Served again, from the cache when it is on: the same bytes.
                let again = try await get(client, uri, headers: gzipHeaders)
                #expect(try gunzip(again.body) == plain.body, "\(uri)")
            }
        }
    }

    @Test func eachEncodingHasItsOwnETagAndA304OnlyForTheRepresentationItNames() async throws {
        try await liveHarness().run { client, components in
            try await seedCatalogue(components.store, products: 150)
            let uri = "/products?page_size=100"
            let plain = try await get(client, uri)
            let compressed = try await get(client, uri, headers: gzipHeaders)
            let plainTag = try #require(plain.headers[.eTag])
            let gzipTag = try #require(compressed.headers[.eTag])
            #expect(gzipTag != plainTag)
            #expect(gzipTag == String(plainTag.dropLast()) + "-gzip\"")

            let gzipWithGzipTag = try await get(client, uri, headers: [.acceptEncoding: "gzip", .ifNoneMatch: gzipTag])
            #expect(gzipWithGzipTag.status == .notModified)
            #expect(gzipWithGzipTag.headers[.eTag] == gzipTag)
            #expect(gzipWithGzipTag.headers[.vary] == "Accept, Accept-Encoding")
            let plainWithPlainTag = try await get(client, uri, headers: [.ifNoneMatch: plainTag])
            #expect(plainWithPlainTag.status == .notModified)
            #expect(plainWithPlainTag.headers[.eTag] == plainTag)
            let weakGzipTag = try await get(client, uri, headers: [.acceptEncoding: "gzip", .ifNoneMatch: "\"x\", W/\(gzipTag)"])
            #expect(weakGzipTag.status == .notModified)

            // A tag of the other representation is no match: the client gets the bytes it asked for, with their tag.
            let gzipWithPlainTag = try await get(client, uri, headers: [.acceptEncoding: "gzip", .ifNoneMatch: plainTag])
            #expect(gzipWithPlainTag.status == .ok)
            #expect(gzipWithPlainTag.headers[.contentEncoding] == "gzip")
            #expect(gzipWithPlainTag.headers[.eTag] == gzipTag)
            let plainWithGzipTag = try await get(client, uri, headers: [.ifNoneMatch: gzipTag])
            #expect(plainWithGzipTag.status == .ok)
            #expect(plainWithGzipTag.headers[.contentEncoding] == nil)
            #expect(plainWithGzipTag.headers[.eTag] == plainTag)
            #expect(plainWithGzipTag.body == plain.body)

            // Either tag goes stale with a write.
            _ = try await components.store.upsertProducts([try #require(Self.product("P999"))], author: "api")
            let changed = try await get(client, uri, headers: [.acceptEncoding: "gzip", .ifNoneMatch: gzipTag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != gzipTag)
        }
    }

    @Test func aZeroQualityRefusesGzipAndAStarAcceptsIt() async throws {
        try await liveHarness().run { client, components in
            try await seedCatalogue(components.store, products: 150)
            for (header, gzip) in [
                ("gzip;q=0", false), ("*;q=0.5, gzip;q=0", false), ("gzip; q=0.000", false), ("identity", false), ("br, deflate", false),
                ("identity;q=1, gzip;q=0.5", false), ("*", true), ("GZIP;Q=0.8", true), ("deflate, gzip;q=0.2", true), ("x-gzip", true),
            ] {
                let response = try await get(client, "/products?page_size=100", headers: [.acceptEncoding: header])
                let encoding = response.headers[.contentEncoding]
                #expect(encoding == (gzip ? "gzip" : nil), "Accept-Encoding: \(header)")
                #expect(response.headers[.vary] == "Accept, Accept-Encoding")
            }
        }
    }

    @Test func acceptEncodingIsReadWithItsQualities() {
        let cases: [([String], Bool)] = [
            ([], false), ([""], false), (["gzip"], true), (["deflate", "gzip"], true), (["gzip;q=0"], false), (["gzip;q=0.001"], true),
            (["*"], true), (["*;q=0"], false), (["*, gzip;q=0"], false), (["gzip;q=0, *"], false), (["identity;q=0.5, gzip"], true),
            (["gzip;q=0.5, identity"], false), (["gzip;q=2"], false), (["gzip;q=abc"], false), (["gzip;q=0.5;level=1"], true),
            ([" gzip ;  q=1.000 "], true), (["identity"], false), (["br;q=1, gzip;q=0.9"], true),
            (["X-GZIP ; Q=0.5"], true), (["gzip;q=1.5"], false), (["gzip;q=0.5.1"], false), (["gzip;q"], true), ([",,gzip,,"], true),
            (["gzip;;q=0"], false),
            // Only the bytes `,`, `;` and `=` separate: not a character canonically equal to one, nor one a mark follows.
            (["gzip\u{037E}"], false), (["gzip,\u{0301}"], true),
            // Several fields count as one list, the first mention of a coding winning.
            (["br", "gzip"], true), (["gzip;q=0", "gzip"], false), (["identity;q=1", "gzip;q=0.5"], false),
        ]
        for (lines, prefersGzip) in cases {
            let parsed = AcceptEncoding(HTTPFields(lines.map { HTTPField(name: .acceptEncoding, value: $0) })).prefersGzip
            #expect(parsed == prefersGzip, "\(lines)")
        }
    }

    @Test func aSmallBodyIsSentPlainAndKeepsItsTagFor304() async throws {
        try await liveHarness().run { client, components in
            try await seedCatalogue(components.store)
            let small = try await get(client, "/products/P001", headers: gzipHeaders)
            #expect(small.body.readableBytes < GzipEncoding.minimumBytes)
            #expect(small.headers[.contentEncoding] == nil)
            #expect(small.headers[.vary] == "Accept, Accept-Encoding")
            let tag = try #require(small.headers[.eTag])
            #expect(!tag.hasSuffix("-gzip\""))
            let again = try await get(client, "/products/P001", headers: [.acceptEncoding: "gzip", .ifNoneMatch: tag])
            #expect(again.status == .notModified)
            #expect(again.headers[.eTag] == tag)
        }
    }

    @Test func theCacheCompressesAPageOnceAndCountsItsBytes() throws {
        let cache = ResponseCache(byteBudget: 10_000)
        let plain = ByteBuffer(string: String(repeating: "{\"name\":\"a product\"},", count: 100))
        cache.store(plain, for: "t1", subject: 1, family: "products", version: 1)
        var compressions = 0
        let compress = { (body: ByteBuffer) throws -> ByteBuffer in
            compressions += 1
            return try GzipEncoding.compress(body)
        }
        let first = try cache.gzipBody(for: "t1", plain: plain, compress: compress)
        let second = try cache.gzipBody(for: "t1", plain: plain, compress: compress)
        #expect(compressions == 1)
        #expect(first == second)
        #expect(try gunzip(second) == plain)
        // A body the cache does not hold is compressed for each request, and not kept.
        _ = try cache.gzipBody(for: "not cached", plain: plain, compress: compress)
        _ = try cache.gzipBody(for: "not cached", plain: plain, compress: compress)
        #expect(compressions == 3)
        // A newer version drops the gzip form with the plain one.
        cache.store(ByteBuffer(string: "{}"), for: "t2", subject: 2, family: "products", version: 2)
        #expect(cache.body(for: "t1") == nil)
        _ = try cache.gzipBody(for: "t1", plain: plain, compress: compress)
        #expect(compressions == 4)
    }

    @Test func gzipFormsCountAgainstTheBudget() {
        let cache = ResponseCache(byteBudget: 100)
        let incompressible = ByteBuffer(repeating: 1, count: 25)
        cache.store(incompressible, for: "a", subject: 1, family: "f", version: 1)
        cache.store(incompressible, for: "b", subject: 2, family: "f", version: 1)
        cache.store(incompressible, for: "c", subject: 3, family: "f", version: 1)
        // 75 bytes held; a gzip form of over 25 bytes (made up here) pushes the oldest entry out.
        _ = cache.gzipBody(for: "c", plain: incompressible) { _ in ByteBuffer(repeating: 0, count: 40) }
        #expect(cache.body(for: "a") == nil)
        #expect(cache.body(for: "b") != nil)
        #expect(cache.body(for: "c") != nil)
    }

    static func product(_ serialCode: String) -> Product? {
        guard let price = try? Price(parsing: "1.00") else { return nil }
        return Product(serialCode: serialCode, name: "New", description: "", category: "c9", brand: "", price: price, stock: 1)
    }
}
