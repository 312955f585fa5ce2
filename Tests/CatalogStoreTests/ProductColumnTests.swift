import CatalogStoreKit
import Testing

@testable import SQLiteStore

@Suite("Product columns")
struct ProductColumnTests {
    @Test func eachColumnsPositionIsItsPlaceInTheSelectList() {
        let positions = ProductColumn.allCases.map(\.position)
        #expect(positions == Array(0..<ProductColumn.allCases.count))
    }
}
