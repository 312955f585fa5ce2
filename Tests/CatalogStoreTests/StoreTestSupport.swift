import CatalogModel
import CatalogStore
import Foundation
import GRDB
import SQLiteStore

/// A store on a fresh SQLite file in its own temporary folder.
struct TemporaryStore {
    let directory: URL
    let store: SQLiteCatalogStore

    /// A streamed listing's writer waits `streamedListingWait` for the next batch: a minute unless a test says
    /// otherwise, not the service's 2 seconds, since a suite's task that stages batches may wait that long for a
    /// thread on a loaded two-core machine while the other suites run.
    init(streamedListingWait: Duration = .seconds(60)) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-store-\(UUID().uuidString)")
        store = try SQLiteCatalogStore(path: directory.appendingPathComponent("catalog.sqlite").path, streamedListingWait: streamedListingWait)
    }

    var path: String { store.path }

    /// A second connection to the same file, for writes "from another process" and for recounts.
    func rawQueue() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    func remove() {
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A first import of `batches` into the empty store, as a feed's listing is written while it is read: claimed,
    /// begun and staged batch by batch, for the caller to complete or discard.
    func stageFirstImport(_ batches: [[Product]]) async throws -> (claim: any StoreClaim, report: ImportReport, staging: any ImportStaging) {
        guard case .claimed(let claim) = try await store.claimImport(of: .products) else {
            throw ForeignImportPart("import claim", store: "a store whose products claim was refused")
        }
        let report = try await store.beginImport(source: .products)
        guard let streamed = try await store.makeStreamedListing(of: .products) else {
            throw ForeignImportPart("streamed listing", store: "a store that streams no listing")
        }
        var index = 0
        for batch in batches {
            _ = try await streamed.stage(
                batch.map { product in
                    defer { index += 1 }
                    return (index, product)
                })
        }
        return (claim, report, streamed)
    }
}

func product(_ key: String, category: String = "c", price: String = "1.00", name: String? = nil, stock: Int = 1, updatedAt: String = "")
    throws -> Product
{
    Product(
        serialCode: key, name: name ?? "name \(key)", category: category, price: try Price(parsing: price), stock: stock, updatedAt: updatedAt)
}
