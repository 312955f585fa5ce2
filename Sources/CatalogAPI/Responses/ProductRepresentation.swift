import CatalogModel
import CatalogStore

/// The JSON of a product, written from the store's bytes through one reserved space: a page writes a hundred of
/// these. It is made once per page or product written, so that a response served from the cache builds nothing.
struct ProductRepresentation: Sendable {
    /// Where this service's product addresses start, as the inside of a JSON string.
    private let addressPrefixJSON: [UInt8]

    init(base: String) {
        var writer = JSONWriter()
        writer.string(Self.addressPrefix(base: base))
        addressPrefixJSON = Array(writer.bytes.dropFirst().dropLast())
    }

    /// Where product addresses start on the service at `base`.
    static func addressPrefix(base: String) -> String { base + "/products/" }

    /// The text between a product's values, in the order `write` writes it.
    private enum Punctuation {
        static let serialCode: StaticString = "{\"serial_code\":"
        static let name: StaticString = ",\"name\":"
        static let description: StaticString = ",\"description\":"
        static let category: StaticString = ",\"category\":"
        static let brand: StaticString = ",\"brand\":"
        static let price: StaticString = ",\"price\":"
        static let stock: StaticString = ",\"stock\":"
        static let updatedAt: StaticString = ",\"updated_at\":"
        static let url: StaticString = ",\"url\":\""
        static let sourceURL: StaticString = "/\",\"source_url\":"
        static let source: StaticString = ",\"source\":"
        static let end: StaticString = "}"
        static let all: [StaticString] = [serialCode, name, description, category, brand, price, stock, updatedAt, url, sourceURL, source, end]
        static let count = all.reduce(0) { $0 + $1.utf8CodeUnitCount }
    }

    /// The most bytes `write` writes for `product`: its eight strings escaped (or `null` for an empty optional one),
    /// its key percent-encoded in the address (three bytes each at most), the price as it is stored, the stock, and
    /// the punctuation.
    func maximumCount(_ product: StoredProduct) -> Int {
        // Summed in place rather than over arrays: every product of every first read is measured.
        let string = UnsafeJSONCursor.maximumStringCount
        let optional = { (text: UnsafeBufferPointer<UInt8>) in max(Self.nullCount, string(text.count)) }
        let strings =
            string(product.serialCode.count) + string(product.name.count) + string(product.description.count)
            + string(product.category.count) + string(product.source.count)
        let optionals = optional(product.brand) + optional(product.updatedAt) + optional(product.sourceURL)
        return strings + optionals + addressPrefixJSON.count + 3 * product.serialCode.count + product.price.count
            + UnsafeJSONCursor.maximumIntCount + Punctuation.count
    }

    /// What `nonEmptyString` writes for empty text.
    private static let nullCount = "null".utf8.count

    func write(_ product: StoredProduct, into writer: inout JSONWriter) {
        writer.value(reserving: maximumCount(product)) { json in
            json.raw(Punctuation.serialCode)
            json.string(product.serialCode)
            json.raw(Punctuation.name)
            json.string(product.name)
            json.raw(Punctuation.description)
            json.string(product.description)
            json.raw(Punctuation.category)
            json.string(product.category)
            json.raw(Punctuation.brand)
            json.nonEmptyString(product.brand)
            json.raw(Punctuation.price)
            json.raw(product.price)
            json.raw(Punctuation.stock)
            json.int(product.stock)
            json.raw(Punctuation.updatedAt)
            json.nonEmptyString(product.updatedAt)
            json.raw(Punctuation.url)
            addressPrefixJSON.withUnsafeBufferPointer { json.raw($0) }
            PathComponent.withEncoded(product.serialCode) { json.raw($0) }
            json.raw(Punctuation.sourceURL)
            json.nonEmptyString(product.sourceURL)
            json.raw(Punctuation.source)
            json.string(product.source)
            json.raw(Punctuation.end)
        }
    }
}
