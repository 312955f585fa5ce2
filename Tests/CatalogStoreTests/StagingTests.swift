import CatalogModel
import CatalogStore
import CatalogTestSupport
import Testing

@Suite("A staged listing")
struct StagingTests {
    /// A key given again, in the same batch or a later one, replaces the record given before, which is rejected
    /// naming the one that replaced it; the listing applied holds each key's last record.
    @Test(arguments: StoreBackend.available) func aRepeatedKeyKeepsItsLastRecordInAnyBatch(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        guard case .claimed(let claim) = try await store.claimImport(of: .products) else {
            Issue.record("the products claim was refused")
            return
        }
        let staging = try await store.makeStaging()
        let first = try await staging.stage([
            (0, try product("A", name: "A first")), (1, try product("B")), (2, try product("A", name: "A second")),
        ])
        #expect(first == [Rejection(index: 0, key: "A", reason: "duplicate key: replaced by the record at index 2")])
        let second = try await staging.stage([(3, try product("C")), (4, try product("B", name: "B again"))])
        #expect(second == [Rejection(index: 1, key: "B", reason: "duplicate key: replaced by the record at index 4")])
        let third = try await staging.stage([(5, try product("A", name: "A third")), (6, try product("D"))])
        #expect(third == [Rejection(index: 2, key: "A", reason: "duplicate key: replaced by the record at index 5")])
        let report = try await store.completeImport(
            try await store.beginImport(source: .products), listing: CompletedListing(records: .stagedProducts(staging), pages: []),
            under: claim)
        await claim.release()
        #expect(report.inserted == 4)
        let names = try await store.products(ProductFilter(), page: PageRequest()).rows.map(\.product.name)
        #expect(names == ["A third", "B again", "name C", "name D"])
    }
}
