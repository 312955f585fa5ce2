import CatalogModel
import CatalogStore

/// The `results` of a page of products, written as JSON while the store is on each row, from its bytes.
struct RenderedProducts: ProductPageRows {
    private let representation: ProductRepresentation
    /// The products' objects, separated by commas.
    private(set) var json: JSONWriter
    /// Where each product's object starts in `json`, to turn a page read backwards around.
    private var starts: [Int] = []

    init(representations: Representations, pageSize: Int) {
        representation = ProductRepresentation(base: representations.base)
        json = JSONWriter(capacity: pageSize * 400)
        starts.reserveCapacity(pageSize)
    }

    mutating func append(_ product: StoredProduct) {
        starts.append(json.bytes.count)
        representation.write(product, into: &json)
    }

    mutating func reverse() {
        var reversed = JSONWriter(capacity: json.bytes.count)
        var reversedStarts: [Int] = []
        reversedStarts.reserveCapacity(starts.count)
        for (number, start) in starts.enumerated().reversed() {
            // Every object but the first follows the comma that separates it.
            let end = number + 1 < starts.count ? starts[number + 1] : json.bytes.count
            reversedStarts.append(reversed.bytes.count)
            reversed.json(json.bytes[(number == 0 ? start : start + 1)..<end])
        }
        json = reversed
        starts = reversedStarts
    }
}
