import CatalogModel
import CatalogStore
import CatalogTestSupport
import Testing

/// A snapshot reads the store as it was when it was taken, page after page, while writes go on: on every engine, from
/// the cursor each page gives and from any other one.
@Suite("Snapshots of the store")
struct StoreSnapshotTests {
    static func products(_ keys: some Sequence<Int>, name: String) throws -> [Product] {
        try keys.map {
            Product(
                serialCode: String(format: "S%03d", $0), name: "\(name) \($0)", category: "c\($0 % 3)", price: try Price(parsing: "\($0 % 17 + 1)"))
        }
    }

    @Test(arguments: StoreBackend.available) func aSnapshotReadsTheStoreAsItWasWhileWritesGoOn(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts(try Self.products(0..<60, name: "Lamp"), author: "api")
        let snapshot = try await store.snapshot()
        let seq = try await store.versions().lastSeq
        #expect(snapshot.versions.lastSeq == seq)
        // Written after the snapshot: a new product, a changed one, a deleted one.
        _ = try await store.upsertProducts(try Self.products([60, 5], name: "Chair"), author: "api")
        _ = try await store.deleteProduct(serialCode: "S007", author: "api")
        for ordering in ["serial_code", "-price", "name"] {
            var (walked, cursors): ([ProductRow], [String]) = ([], [])
            var cursor: String?
            repeat {
                let page = try await snapshot.products(ProductFilter(), page: PageRequest(ordering: ordering, pageSize: 7, cursor: cursor), into: [])
                walked += page.rows
                cursor = page.nextCursor
                if let cursor { cursors.append(cursor) }
                if cursors.count == 2 {
                    // Mid-walk, a page from the first cursor again; the walk then goes on from its own.
                    let first = try await snapshot.products(
                        ProductFilter(), page: PageRequest(ordering: ordering, pageSize: 7, cursor: cursors[0]), into: [])
                    #expect(first.rows.map(\.product.serialCode) == walked[7..<14].map(\.product.serialCode), "\(ordering)")
                }
            } while cursor != nil && walked.count < 200
            #expect(walked.count == 60, "\(ordering)")
            #expect(Set(walked.map(\.product.serialCode)) == Set(try Self.products(0..<60, name: "").map(\.serialCode)))
            #expect(walked.allSatisfy { $0.product.name.hasPrefix("Lamp") }, "\(ordering): a write after the snapshot was read")
            // A page from an earlier cursor, read again: the same rows as when the walk passed it.
            let again = try await snapshot.products(ProductFilter(), page: PageRequest(ordering: ordering, pageSize: 7, cursor: cursors[2]), into: [])
            #expect(again.rows.map(\.product.serialCode) == walked[21..<28].map(\.product.serialCode), "\(ordering)")
        }
        // The store itself has moved on.
        #expect(try await store.products(ProductFilter(), page: PageRequest(pageSize: 100)).count == 60)
        #expect(try await store.product(serialCode: "S005").0?.product.name == "Chair 5")
        await snapshot.close()
    }

    /// A long walk, read on PostgreSQL twenty pages at a time, each part packed by the server, the next one's statement
    /// queued while the one before is read: every row, whatever its text holds, in the order and with the values the
    /// store's own pages gave when the snapshot was taken, across parts that end inside the walk and one that ends
    /// exactly at its end. Writes after the snapshot show in no part.
    @Test(.timeLimit(.minutes(1)), arguments: StoreBackend.available) func aLongWalkReadsEveryRowAsTheStoresPagesDo(
        _ backend: StoreBackend
    ) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        var products = try Self.products(0..<2_100, name: "Lampe 12:3; é")
        for index in products.indices {
            products[index].description = "\(index % 7):\(index);\n\"quoted\" 😀 \(String(repeating: "ß", count: index % 5))"
            products[index].brand = index % 4 == 0 ? nil : "B:\(index % 9);"
            products[index].stock = index % 11
        }
        _ = try await store.upsertProducts(products, author: "api")
        // Pages of 20: five parts of 400 rows and one of 100; of 21: five full parts of 420, then an empty one.
        let walks = [("serial_code", 20), ("-price", 20), ("name", 21), ("-stock", 21)]
        var listed: [String: [ProductRow]] = [:]
        for (ordering, _) in walks {
            var cursor: String?
            repeat {
                let page = try await store.products(ProductFilter(), page: PageRequest(ordering: ordering, pageSize: 500, cursor: cursor))
                listed[ordering, default: []] += page.rows
                cursor = page.nextCursor
            } while cursor != nil && listed[ordering, default: []].count < 3_000
        }
        let snapshot = try await store.snapshot()
        // After the snapshot: every row renamed, some deleted, new ones.
        _ = try await store.upsertProducts(try Self.products(0..<2_100, name: "Changed") + Self.products(5_000..<5_100, name: "New"), author: "api")
        for key in ["S010", "S1500", "S2099"] { _ = try await store.deleteProduct(serialCode: key, author: "api") }
        for (ordering, pageSize) in walks {
            var walked: [ProductRow] = []
            var cursor: String?
            repeat {
                let page = try await snapshot.products(
                    ProductFilter(), page: PageRequest(ordering: ordering, pageSize: pageSize, cursor: cursor), into: [])
                walked += page.rows
                cursor = page.nextCursor
            } while cursor != nil && walked.count < 3_000
            #expect(walked.count == 2_100, "\(ordering)")
            #expect(walked == listed[ordering], "\(ordering)")
        }
        await snapshot.close()
    }

    /// Pages read from other cursors in the middle of a long walk, whose rows are far more than the connection holds:
    /// on PostgreSQL the walk's statement is still under way then, and is stopped for them.
    @Test(.timeLimit(.minutes(1)), arguments: StoreBackend.available) func pagesFromOtherCursorsInTheMiddleOfALongWalkAreReadOnTheirOwn(
        _ backend: StoreBackend
    ) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        let long = String(repeating: "a long description ", count: 100)
        var products = try Self.products(0..<3_000, name: "Lamp")
        for index in products.indices { products[index].description = long }
        _ = try await store.upsertProducts(products, author: "api")
        let snapshot = try await store.snapshot()
        let first = try await snapshot.products(ProductFilter(), page: PageRequest(pageSize: 50), into: [])
        let second = try await snapshot.products(ProductFilter(), page: PageRequest(pageSize: 50, cursor: first.nextCursor), into: [])
        // From the first page's cursor again: the same rows as the second page, however the walk goes on.
        let again = try await snapshot.products(ProductFilter(), page: PageRequest(pageSize: 50, cursor: first.nextCursor), into: [])
        #expect(again.rows.map(\.product.serialCode) == second.rows.map(\.product.serialCode))
        let third = try await snapshot.products(ProductFilter(), page: PageRequest(pageSize: 50, cursor: again.nextCursor), into: [])
        #expect(third.rows.first?.product.serialCode == "S100")
        await snapshot.close()
    }
}
