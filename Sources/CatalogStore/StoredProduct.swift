import CatalogModel

/// A stored product as the store reads it, its text lent as UTF-8 for the time of one call: a page is written out
/// from these without a `Product`, and its nine strings, per row.
///
/// `brand`, `updatedAt` and `sourceURL` are empty when the product has none, as `Product` reads them.
public struct StoredProduct {
    public var serialCode: UnsafeBufferPointer<UInt8>
    public var name: UnsafeBufferPointer<UInt8>
    public var description: UnsafeBufferPointer<UInt8>
    public var category: UnsafeBufferPointer<UInt8>
    public var brand: UnsafeBufferPointer<UInt8>
    /// The price exactly as stored, a JSON number.
    public var price: UnsafeBufferPointer<UInt8>
    public var priceMicros: Int64
    public var stock: Int64
    public var updatedAt: UnsafeBufferPointer<UInt8>
    public var sourceURL: UnsafeBufferPointer<UInt8>
    /// `products` (the feed) or `api`.
    public var source: UnsafeBufferPointer<UInt8>
    public var changedSeq: Int64

    public init(
        serialCode: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>, description: UnsafeBufferPointer<UInt8>,
        category: UnsafeBufferPointer<UInt8>, brand: UnsafeBufferPointer<UInt8>, price: UnsafeBufferPointer<UInt8>, priceMicros: Int64,
        stock: Int64, updatedAt: UnsafeBufferPointer<UInt8>, sourceURL: UnsafeBufferPointer<UInt8>, source: UnsafeBufferPointer<UInt8>,
        changedSeq: Int64
    ) {
        self.serialCode = serialCode
        self.name = name
        self.description = description
        self.category = category
        self.brand = brand
        self.price = price
        self.priceMicros = priceMicros
        self.stock = stock
        self.updatedAt = updatedAt
        self.sourceURL = sourceURL
        self.source = source
        self.changedSeq = changedSeq
    }

    /// Lends the bytes of a row held as strings, for the code that writes products out to serve one row as it
    /// serves a page.
    public static func withStored<Result>(_ row: ProductRow, _ body: (StoredProduct) throws -> Result) rethrows -> Result {
        let product = row.product
        var text = TextFields()
        let serialCode = text.add(product.serialCode)
        let name = text.add(product.name)
        let description = text.add(product.description)
        let category = text.add(product.category)
        let brand = text.add(product.brand ?? "")
        let price = text.add(product.price.text)
        let updatedAt = text.add(product.updatedAt ?? "")
        let sourceURL = text.add(product.sourceURL ?? "")
        let source = text.add(row.source)
        return try text.bytes.withUnsafeBufferPointer { bytes in
            try body(
                StoredProduct(
                    serialCode: bytes.slice(serialCode), name: bytes.slice(name), description: bytes.slice(description),
                    category: bytes.slice(category), brand: bytes.slice(brand), price: bytes.slice(price), priceMicros: product.price.micros,
                    stock: Int64(product.stock), updatedAt: bytes.slice(updatedAt), sourceURL: bytes.slice(sourceURL), source: bytes.slice(source),
                    changedSeq: row.changedSeq))
        }
    }

    /// Text fields copied one after another into one buffer, each remembered by its range.
    private struct TextFields {
        var bytes: [UInt8] = []

        mutating func add(_ text: String) -> Range<Int> {
            let start = bytes.count
            bytes.append(contentsOf: text.utf8)
            return start..<bytes.count
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    fileprivate func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: self[range])
    }
}

extension ProductRow {
    /// The row a stored product's bytes describe, as strings.
    public init(_ stored: StoredProduct) {
        func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
        self.init(
            product: Product(
                serialCode: text(stored.serialCode), name: text(stored.name), description: text(stored.description),
                category: text(stored.category), brand: text(stored.brand), price: Price(storedText: text(stored.price), micros: stored.priceMicros),
                stock: Int(stored.stock), updatedAt: text(stored.updatedAt), sourceURL: text(stored.sourceURL)),
            source: text(stored.source), changedSeq: stored.changedSeq)
    }
}
