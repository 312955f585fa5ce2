/// A product as the DummyJSON-shaped, array and NDJSON feeds and the write API describe it, validated.
public struct Product: FeedRecord, Equatable {
    public var serialCode: String
    public var name: String
    public var description: String
    public var category: String
    public var brand: String?
    public var price: Price
    public var stock: Int
    /// When the feed last changed the product, as the feed gives it.
    public var updatedAt: String?
    /// The product's address upstream.
    public var sourceURL: String?

    /// An empty `brand`, `updatedAt` or `sourceURL` is none: feeds write `""` for a value they do not have.
    public init(
        serialCode: String, name: String, description: String = "", category: String, brand: String? = nil,
        price: Price, stock: Int = 0, updatedAt: String? = nil, sourceURL: String? = nil
    ) {
        self.serialCode = serialCode
        self.name = name
        self.description = description
        self.category = category
        self.brand = Self.present(brand)
        self.price = price
        self.stock = stock
        self.updatedAt = Self.present(updatedAt)
        self.sourceURL = Self.present(sourceURL)
    }

    private static func present(_ text: String?) -> String? {
        text?.isEmpty == false ? text : nil
    }

    public static let maximumKeyLength = 200

    /// Reads and validates one product object; `sku`/`serial_code`, `title`/`name` and
    /// `meta.updatedAt`/`updated_at` are accepted alike.
    public init(json: JSONValue) throws(RecordError) {
        let fields = try FieldReader(json, entity: "product")
        let serialCode = try fields.requiredString("serial_code", "sku")
        guard serialCode.utf8.count <= Self.maximumKeyLength else {
            throw RecordError("serial_code is longer than \(Self.maximumKeyLength) bytes")
        }
        guard !serialCode.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 < 0x20 || $0 == 0x7F }) else {
            throw RecordError("serial_code must not contain '/' or control characters")
        }
        let stock = try fields.integer("stock") ?? 0
        guard stock >= 0 else { throw RecordError("stock must not be negative, got \(stock)") }
        // meta.updatedAt is checked even when updated_at wins, so that a malformed record is never half read.
        var metaUpdatedAt: String?
        switch json["meta"] {
        case nil, .null: break
        case .object(let members): metaUpdatedAt = try FieldReader(.object(members), entity: "meta").optionalString("updatedAt")
        case .some(let other): throw RecordError("meta must be an object, got \(other.typeName)")
        }
        let updatedAt = try fields.optionalString("updated_at") ?? metaUpdatedAt
        self.init(
            serialCode: serialCode,
            name: try fields.requiredString("name", "title"),
            description: try fields.optionalString("description") ?? "",
            category: try fields.requiredString("category"),
            brand: try fields.optionalString("brand"),
            price: try Price(json: json["price"]),
            stock: stock,
            updatedAt: updatedAt,
            sourceURL: try fields.optionalString("url")
        )
    }

    public var key: String { serialCode }

    /// The key of a product object, when it can be read, for a rejection line.
    public static func key(of json: JSONValue) -> String? {
        for name in ["serial_code", "sku"] {
            if case .string(let key) = json[name] { return key }
        }
        return nil
    }
}
