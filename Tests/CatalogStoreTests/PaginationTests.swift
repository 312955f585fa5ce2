import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

@Suite("Keyset pagination")
struct PaginationTests {
    static func seed(_ store: any CatalogStore, count: Int) async throws {
        let products = try (0..<count).map { index in
            try product(
                String(format: "S%04d", index), category: "c\(index % 3)", price: "\(index % 9).\(index % 2 == 0 ? "50" : "25")",
                name: "name \(index % 11)", stock: index % 5, updatedAt: "2025-01-\(10 + index % 7)")
        }
        _ = try await store.upsertProducts(products, author: "api")
    }

    func walk(_ store: any CatalogStore, ordering: String, pageSize: Int, between: () async throws -> Void = {}) async throws -> [ProductRow] {
        var rows: [ProductRow] = []
        var request = PageRequest(ordering: ordering, pageSize: pageSize)
        for _ in 0..<1000 {
            let page = try await store.products(ProductFilter(), page: request)
            rows += page.rows
            guard let next = page.nextCursor else { return rows }
            request.cursor = next
            try await between()
        }
        Issue.record("the walk did not end")
        return rows
    }

    @Test func aCursorIsUnpaddedBase64URLOfItsJSONAndReadsBack() throws {
        // Keys of 1 to 9 characters cover every length modulo 3; "~" and "?" give the sextets base64 writes as + and /.
        for key in (1...9).map({ String(repeating: "~", count: $0) }) + ["é?>", "a\"b"] {
            let cursor = ListCursor(ordering: "name", direction: .next, sortValue: .integer(-42), key: .text(key))
            let text = cursor.encoded()
            let json = #"{"o":"name","d":"n","v":-42,"k":"\#(key.replacingOccurrences(of: "\"", with: "\\\""))"}"#
            let expected = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(text == expected)
            #expect(try ListCursor(decoding: text) == cursor)
            // Only what `encoded()` writes reads back: no padding, no standard alphabet, and no stray bits in the last
            // character's padding (which would decode to the very same bytes).
            #expect(throws: UnknownCursor.self) { try ListCursor(decoding: text + "=") }
            #expect(throws: UnknownCursor.self) { try ListCursor(decoding: text.replacingOccurrences(of: "-", with: "+") + "+") }
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            if text.count % 4 != 0, let last = text.last, let value = alphabet.firstIndex(of: last) {
                #expect(value & 1 == 0)
                #expect(throws: UnknownCursor.self) { try ListCursor(decoding: String(text.dropLast()) + String(alphabet[value | 1])) }
            }
        }
    }

    /// A list sorted by its key gives cursors without the sort value; those issued with it, before, still read.
    @Test func aCursorWhoseSortValueIsItsKeyLeavesItOutAndOlderOnesStillRead() throws {
        func base64URL(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let cursor = ListCursor(ordering: "serial_code", direction: .previous, sortValue: .text("SKU-1"), key: .text("SKU-1"))
        #expect(cursor.encoded() == base64URL(#"{"o":"serial_code","d":"p","k":"SKU-1"}"#))
        #expect(try ListCursor(decoding: cursor.encoded()) == cursor)
        #expect(try ListCursor(decoding: base64URL(#"{"o":"serial_code","d":"p","v":"SKU-1","k":"SKU-1"}"#)) == cursor)
        #expect(throws: UnknownCursor.self) { try ListCursor(decoding: base64URL(#"{"o":"serial_code","d":"p","v":true,"k":"SKU-1"}"#)) }
    }

    @Test(arguments: StoreBackend.available, ["serial_code", "-price", "name", "stock", "-updated_at", "category"])
    func everyRowAppearsOnceInOrder(backend: StoreBackend, ordering: String) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        try await Self.seed(temporary.store, count: 250)
        let rows = try await walk(temporary.store, ordering: ordering, pageSize: 7)
        #expect(rows.count == 250)
        #expect(Set(rows.map(\.product.serialCode)).count == 250)
        let descending = ordering.hasPrefix("-")
        func sortKey(_ row: ProductRow) -> String {
            let product = row.product
            let value: String
            switch ordering.trimmingCharacters(in: CharacterSet(charactersIn: "-")) {
            case "price": value = String(format: "%020lld", product.price.micros)
            case "name": value = product.name
            case "stock": value = String(format: "%010d", product.stock)
            case "updated_at": value = product.updatedAt ?? ""
            case "category": value = product.category
            default: value = ""
            }
            return value + "\u{0}" + product.serialCode
        }
        let keys = rows.map(sortKey)
        #expect(keys == (descending ? keys.sorted(by: >) : keys.sorted()))
    }

    @Test(arguments: StoreBackend.available, ["-price", "name"])
    func aPageAfterACursorLinksBackExactlyWhileRowsComeBeforeIt(_ backend: StoreBackend, ordering: String) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        try await Self.seed(store, count: 60)
        let filter = ProductFilter(category: "c1")
        let first = try await store.products(filter, page: PageRequest(ordering: ordering, pageSize: 5))
        #expect(first.previousCursor == nil)
        let cursor = try #require(first.nextCursor)
        let second = try await store.products(filter, page: PageRequest(ordering: ordering, pageSize: 5, cursor: cursor))
        #expect(second.previousCursor != nil)
        // Read backwards from the second page, the first links forward exactly while rows come after it.
        let back = try #require(second.previousCursor)
        let firstAgain = try await store.products(filter, page: PageRequest(ordering: ordering, pageSize: 5, cursor: back))
        #expect(firstAgain.rows.map(\.product.serialCode) == first.rows.map(\.product.serialCode))
        #expect(firstAgain.nextCursor != nil)
        #expect(firstAgain.previousCursor == nil)
        // Rows of another category before the cursor do not count; once the first page's rows are gone, none come before.
        for row in first.rows { _ = try await store.deleteProduct(serialCode: row.product.serialCode, author: "api") }
        let again = try await store.products(filter, page: PageRequest(ordering: ordering, pageSize: 5, cursor: cursor))
        #expect(again.rows.map(\.product.serialCode) == second.rows.map(\.product.serialCode))
        #expect(again.previousCursor == nil)
    }

    @Test(arguments: StoreBackend.available) func walkingBackFromTheLastPageGivesTheSameRowsReversed(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        try await Self.seed(store, count: 50)
        var request = PageRequest(ordering: "-price", pageSize: 7)
        var forward: [String] = []
        var last: Page<[ProductRow]>?
        for _ in 0..<100 {
            let page = try await store.products(ProductFilter(), page: request)
            forward += page.rows.map(\.product.serialCode)
            last = page
            guard let next = page.nextCursor else { break }
            request.cursor = next
        }
        var backward: [String] = []
        var previous = last?.previousCursor
        backward += (last?.rows ?? []).map(\.product.serialCode).reversed()
        for _ in 0..<100 {
            guard let cursor = previous else { break }
            let page = try await store.products(ProductFilter(), page: PageRequest(ordering: "-price", pageSize: 7, cursor: cursor))
            backward += page.rows.map(\.product.serialCode).reversed()
            previous = page.previousCursor
        }
        #expect(backward == forward.reversed())
    }

    @Test(arguments: StoreBackend.available) func rowsThatStayAreNeitherMissedNorRepeatedWhileOthersComeAndGo(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        try await Self.seed(store, count: 120)
        var step = 0
        let rows = try await walk(store, ordering: "name", pageSize: 9) {
            step += 1
            _ = try await store.upsertProducts([try product("NEW\(step)", name: "name \(step % 11)")], author: "api")
            _ = try await store.deleteProduct(serialCode: String(format: "S%04d", step * 7), author: "api")
        }
        let seen = rows.map(\.product.serialCode)
        #expect(Set(seen).count == seen.count)
        let deleted = Set((1...step).map { String(format: "S%04d", $0 * 7) })
        let stayed = (0..<120).map { String(format: "S%04d", $0) }.filter { !deleted.contains($0) }
        #expect(Set(stayed).isSubset(of: Set(seen)))
    }

    @Test(arguments: StoreBackend.available) func badOrderingsNameTheParameterAndForeignCursorsNameNoPage(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        try await Self.seed(store, count: 20)
        let ordering = await #expect(throws: InvalidQuery.self) {
            try await store.products(ProductFilter(), page: PageRequest(ordering: "password"))
        }
        #expect(ordering?.parameter == "ordering")
        let garbage = await #expect(throws: UnknownCursor.self) {
            try await store.products(ProductFilter(), page: PageRequest(cursor: "not-a-cursor"))
        }
        #expect(garbage?.detail.contains("not one this service issued") == true)
        let page = try await store.products(ProductFilter(), page: PageRequest(ordering: "name", pageSize: 5))
        let other = await #expect(throws: UnknownCursor.self) {
            try await store.products(ProductFilter(), page: PageRequest(ordering: "-price", pageSize: 5, cursor: page.nextCursor))
        }
        #expect(other?.detail.contains("belongs to ordering 'name'") == true)
    }

    /// A cursor made by hand whose values are not of the kinds its ordering sorts names no page on either store, as
    /// one that does not decode: a text where a price (an integer) belongs made PostgreSQL fail the statement.
    @Test(arguments: StoreBackend.available) func aCursorWhoseValuesAreNotOfItsFieldsKindsNamesNoPage(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        try await Self.seed(temporary.store, count: 20)
        for (ordering, sortValue, key) in [
            ("price", ListCursor.Value.text("cheap"), ListCursor.Value.text("S0001")),
            ("serial_code", .integer(7), .integer(7)), ("stock", .integer(1), .integer(1)), ("price", .null, .text("S0001")),
        ] {
            let cursor = ListCursor(ordering: ordering, direction: .next, sortValue: sortValue, key: key).encoded()
            let refused = await #expect(throws: UnknownCursor.self) {
                try await temporary.store.products(ProductFilter(), page: PageRequest(ordering: ordering, pageSize: 5, cursor: cursor))
            }
            #expect(refused?.detail.contains("not one this service issued") == true)
        }
    }
}
