import CatalogModel
import CatalogStore
import Foundation
import Testing

@testable import CatalogAPI

/// A product is written through one reserved space (`ProductRepresentation.maximumCount`); these products are the
/// ones that need the most of it, and text a store may hold that is not UTF-8.
@Suite("Product representation")
struct ProductRepresentationTests {
    /// Runs `body` with a stored product whose fields are copies of these bytes, freed afterwards.
    static func withStoredProduct<Result>(
        serialCode: [UInt8], text: [UInt8], optional: [UInt8], price: [UInt8], stock: Int64, _ body: (StoredProduct) -> Result
    ) -> Result {
        var owned: [UnsafeMutableBufferPointer<UInt8>] = []
        defer { owned.forEach { $0.deallocate() } }
        func lent(_ bytes: [UInt8]) -> UnsafeBufferPointer<UInt8> {
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = copy.initialize(from: bytes)
            owned.append(copy)
            return UnsafeBufferPointer(copy)
        }
        let product = StoredProduct(
            serialCode: lent(serialCode), name: lent(text), description: lent(text), category: lent(text), brand: lent(optional),
            price: lent(price), priceMicros: 0, stock: stock, updatedAt: lent(optional), sourceURL: lent(optional), source: lent(text),
            changedSeq: 1)
        return body(product)
    }

    /// The bytes written for the product and the space reserved for it.
    static func written(_ product: StoredProduct) -> (bytes: [UInt8], reserved: Int) {
        let representation = ProductRepresentation(base: "http://127.0.0.1:8080")
        var writer = JSONWriter()
        representation.write(product, into: &writer)
        return (writer.bytes, representation.maximumCount(product))
    }

    /// Control bytes are escaped as `\u00XX` (six bytes each) and percent-encoded in the address (three each), the
    /// stock is the longest integer: every part takes its most, and the reservation is exactly what is written.
    @Test func theWorstCaseFillsItsReservationExactly() throws {
        let control = [UInt8](repeating: 0x01, count: 10_000)
        let (bytes, reserved) = Self.withStoredProduct(
            serialCode: Array(control.prefix(200)), text: control, optional: control, price: Array("-123456789.123456".utf8),
            stock: .min, Self.written)
        #expect(bytes.count == reserved)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect((object["name"] as? String)?.unicodeScalars.allSatisfy { $0.value == 1 } == true)
        #expect(object["stock"] as? Int64 == .min)
    }

    /// Empty optional fields are `null`, longer than the quotes an empty string would take.
    @Test func emptyOptionalFieldsFitTheirReservation() throws {
        let (bytes, reserved) = Self.withStoredProduct(
            serialCode: Array("A".utf8), text: [], optional: [], price: Array("1".utf8), stock: 0, Self.written)
        #expect(bytes.count <= reserved)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["brand"] is NSNull)
    }

    /// Text that is not UTF-8 is written repaired, as valid JSON, within the reservation.
    @Test func invalidUTF8IsWrittenRepairedWithinTheReservation() throws {
        let invalid: [UInt8] = Array(repeating: [0xFF, 0xC3, 0x28, 0xE2, 0x82], count: 2_000).flatMap { $0 }
        let (bytes, reserved) = Self.withStoredProduct(
            serialCode: Array(invalid.prefix(100)), text: invalid, optional: invalid, price: Array("2.5".utf8), stock: 3, Self.written)
        #expect(bytes.count <= reserved)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect((object["description"] as? String)?.contains("\u{FFFD}") == true)
    }
}
