/// Reads the records of one product feed document in any of the three formats.
public enum ProductFeedDocument {
    /// What a product document holds: its records and, when paged, the listing's total.
    public struct Content: Sendable {
        public var records: [Result<JSONValue, RecordError>]
        public var total: Int?
    }

    /// Parses a body, telling NDJSON from a single JSON document by its content:
    /// a body whose first value ends before the end of the first line and is followed by more lines.
    public static func parse(_ body: [UInt8], format declared: ProductFeedFormat? = nil) throws(FeedError) -> Content {
        let format = declared ?? detectFormat(body)
        switch format {
        case .ndjson:
            return Content(records: try ndjsonRecords(body), total: nil)
        case .array, .dummyJSON:
            let json = try parseDocument(body)
            if case .array(let elements) = json {
                return Content(records: elements.map { .success($0) }, total: nil)
            }
            let page = try DummyJSONPage(json: json)
            return Content(records: page.products.map { .success($0) }, total: page.total)
        }
    }

    /// NDJSON when the first line is a whole JSON value followed by more lines; otherwise a JSON document.
    public static func detectFormat(_ body: [UInt8]) -> ProductFeedFormat {
        let firstByte = body.first { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        guard firstByte == UInt8(ascii: "{") else { return .array }
        guard let newline = body.firstIndex(of: UInt8(ascii: "\n")) else { return .dummyJSON }
        let firstLine = body[..<newline]
        let rest = body[(newline + 1)...]
        let restHasContent = rest.contains { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        if restHasContent, (try? JSONParser.parse(firstLine)) != nil { return .ndjson }
        return .dummyJSON
    }

    /// Splits a whole NDJSON body into records.
    static func ndjsonRecords(_ body: [UInt8]) throws(FeedError) -> [Result<JSONValue, RecordError>] {
        var decoder = NDJSONDecoder()
        return try decoder.feed(body) + decoder.finish()
    }
}
