/// Why an upstream document cannot be read as the feed it should be.
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// One page of a SWAPI-shaped listing: `{count, next, previous, results}`.
public struct SWAPIPage: Sendable {
    public var count: Int?
    public var next: String?
    public var results: [JSONValue]

    public init(body: some Collection<UInt8>) throws(FeedError) {
        let json = try parseDocument(body)
        guard case .array(let results) = json["results"] else {
            throw FeedError("expected a SWAPI page with a \"results\" array, got \(json["results"]?.typeName ?? "no results")")
        }
        self.results = results
        switch json["next"] {
        case .string(let next): self.next = next
        case nil, .null: self.next = nil
        case .some(let other): throw FeedError("\"next\" must be a URL or null, got \(other.typeName)")
        }
        if case .number(let text) = json["count"] { count = Int(text) }
    }
}

/// The layouts a product feed may have.
public enum ProductFeedFormat: String, Sendable {
    /// `{products, total, skip, limit}`, paged with `?limit=&skip=`.
    case dummyJSON = "dummyjson"
    /// One JSON array of products.
    case array
    /// One product object per line.
    case ndjson
}

/// One page of a DummyJSON-shaped listing.
public struct DummyJSONPage: Sendable {
    public var products: [JSONValue]
    public var total: Int

    public init(json: JSONValue) throws(FeedError) {
        guard case .array(let products) = json["products"] else {
            throw FeedError("expected a DummyJSON page with a \"products\" array")
        }
        guard case .number(let text) = json["total"], let total = Int(text), total >= 0 else {
            throw FeedError("expected a DummyJSON page with a non-negative integer \"total\"")
        }
        self.products = products
        self.total = total
    }
}

/// Reads the records of one product feed document in any of the three formats.
public enum ProductFeedDocument {
    /// What a product document holds: its records and, when paged, the listing's total.
    public struct Content: Sendable {
        public var format: ProductFeedFormat
        public var records: [Result<JSONValue, RecordError>]
        public var total: Int?
    }

    /// Parses a body, telling NDJSON from a single JSON document by its content:
    /// a body whose first value ends before the end of the first line and is followed by more lines.
    public static func parse(_ body: [UInt8], format declared: ProductFeedFormat? = nil) throws(FeedError) -> Content {
        let format = declared ?? detectFormat(body)
        switch format {
        case .ndjson:
            return Content(format: .ndjson, records: try ndjsonRecords(body), total: nil)
        case .array, .dummyJSON:
            let json = try parseDocument(body)
            if case .array(let elements) = json {
                return Content(format: .array, records: elements.map { .success($0) }, total: nil)
            }
            let page = try DummyJSONPage(json: json)
            return Content(format: .dummyJSON, records: page.products.map { .success($0) }, total: page.total)
        }
    }

    static func detectFormat(_ body: [UInt8]) -> ProductFeedFormat {
        let firstByte = body.first { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        guard firstByte == UInt8(ascii: "{") else { return .array }
        guard let newline = body.firstIndex(of: UInt8(ascii: "\n")) else { return .dummyJSON }
        let firstLine = body[..<newline]
        let rest = body[(newline + 1)...]
        let restHasContent = rest.contains { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        if restHasContent, (try? JSONParser.parse(firstLine)) != nil { return .ndjson }
        return .dummyJSON
    }

    /// Splits NDJSON into records; a bad line is a rejected record, but a last line cut off
    /// without its newline means the body was truncated and fails the whole document.
    static func ndjsonRecords(_ body: [UInt8]) throws(FeedError) -> [Result<JSONValue, RecordError>] {
        var records: [Result<JSONValue, RecordError>] = []
        var lineStart = body.startIndex
        while lineStart < body.endIndex {
            let lineEnd = body[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? body.endIndex
            var line = body[lineStart..<lineEnd]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let isLastLineWithoutNewline = lineEnd == body.endIndex
            if line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) {
                do {
                    records.append(.success(try JSONParser.parse(line)))
                } catch {
                    if isLastLineWithoutNewline { throw FeedError("NDJSON body ends in a cut-off line: \(error)") }
                    records.append(.failure(RecordError("line is not JSON: \(error)")))
                }
            }
            lineStart = lineEnd == body.endIndex ? lineEnd : lineEnd + 1
        }
        return records
    }
}

func parseDocument(_ body: some Collection<UInt8>) throws(FeedError) -> JSONValue {
    do {
        return try JSONParser.parse(body)
    } catch {
        throw FeedError(error.description)
    }
}
