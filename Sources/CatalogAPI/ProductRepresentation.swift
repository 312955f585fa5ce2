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

    func write(_ product: StoredProduct, into writer: inout JSONWriter) {
        let textCount =
            product.serialCode.count + product.name.count + product.description.count + product.category.count + product.brand.count
            + product.updatedAt.count + product.sourceURL.count + product.source.count
        // Eight strings, escaped; the address's key percent-encoded (three bytes each at most), the price as it is,
        // the stock; 200 covers the member names and punctuation.
        let maximumCount =
            UnsafeJSONCursor.maximumStringCount(textCount) + 7 * 2 + addressPrefixJSON.count + 3 * product.serialCode.count
            + product.price.count + UnsafeJSONCursor.maximumIntCount + 200
        writer.value(reserving: maximumCount) { json in
            json.raw("{\"serial_code\":")
            json.string(product.serialCode)
            json.raw(",\"name\":")
            json.string(product.name)
            json.raw(",\"description\":")
            json.string(product.description)
            json.raw(",\"category\":")
            json.string(product.category)
            json.raw(",\"brand\":")
            json.nonEmptyString(product.brand)
            json.raw(",\"price\":")
            json.raw(product.price)
            json.raw(",\"stock\":")
            json.int(product.stock)
            json.raw(",\"updated_at\":")
            json.nonEmptyString(product.updatedAt)
            json.raw(",\"url\":\"")
            addressPrefixJSON.withUnsafeBufferPointer { json.raw($0) }
            PathComponent.withEncoded(product.serialCode) { json.raw($0) }
            json.raw("/\",\"source_url\":")
            json.nonEmptyString(product.sourceURL)
            json.raw(",\"source\":")
            json.string(product.source)
            json.raw("}")
        }
    }
}
