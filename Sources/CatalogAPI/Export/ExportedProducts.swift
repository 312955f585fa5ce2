import CatalogModel
import CatalogStore

/// A batch of an export of products, written as NDJSON or CSV while the store is on each row, from its bytes.
struct ExportedProducts: ProductPageRows {
    private let representations: Representations
    private let representation: ProductRepresentation
    private let addressPrefix: [UInt8]
    private(set) var lines: ExportLines

    init(format: ExportFormat, representations: Representations, batchSize: Int) {
        self.representations = representations
        representation = ProductRepresentation(base: representations.base)
        addressPrefix = Array(ProductRepresentation.addressPrefix(base: representations.base).utf8)
        lines = ExportLines(format: format, capacity: batchSize * 400)
    }

    mutating func append(_ product: StoredProduct) {
        lines.append(
            json: { representation.write(product, into: &$0) }, csv: { representations.productCSV(product, addressPrefix: addressPrefix, into: &$0) })
    }

    mutating func reverse() {
        lines.reverse()
    }
}
