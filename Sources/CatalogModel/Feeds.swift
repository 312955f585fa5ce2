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
        // An integer may be written as `215891.0` (JSON does not tell integers from other numbers).
        guard case .number(let text) = json["total"], let total = Int(text) ?? Self.integralValue(text), total >= 0 else {
            throw FeedError("expected a DummyJSON page with a non-negative integer \"total\"")
        }
        self.products = products
        self.total = total
    }

    /// `215891.0` as 215891; nil for a fraction, an exponent or anything out of range.
    static func integralValue(_ text: String) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].utf8.allSatisfy({ $0 == UInt8(ascii: "0") }) else { return nil }
        return Int(parts[0])
    }
}

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

/// Splits NDJSON arriving in chunks into records, holding no more than one partial line, so that
/// a feed of any length can be read with bounded memory.
///
/// A line that is not JSON is a rejected record; a last line cut off without its newline means the
/// body was truncated, which fails the whole document.
public struct NDJSONDecoder {
    public static let defaultMaximumLineBytes = 1 << 20

    /// Longest line: a longer one fails the listing, as a line cut off would.
    public let maximumLineBytes: Int
    private var pending: [UInt8] = []

    public init(maximumLineBytes: Int = defaultMaximumLineBytes) {
        self.maximumLineBytes = maximumLineBytes
    }

    /// The records of every line completed by `chunk`; throws only for a line over `maximumLineBytes`.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(FeedError) -> [Result<JSONValue, RecordError>] {
        // Lines are found and parsed over contiguous bytes: a generic search over the collection cost more
        // than parsing the lines (an NDJSON import of 100,000 products spent a third of its reading in it).
        let result =
            chunk.withContiguousStorageIfAvailable { feed(contiguous: $0) } ?? Array(chunk).withUnsafeBufferPointer { feed(contiguous: $0) }
        return try result.get()
    }

    private mutating func feed(contiguous chunk: UnsafeBufferPointer<UInt8>) -> Result<[Result<JSONValue, RecordError>], FeedError> {
        var records: [Result<JSONValue, RecordError>] = []
        var lineStart = 0
        while let newline = Self.newline(in: chunk, from: lineStart) {
            guard pending.count + newline - lineStart <= maximumLineBytes else { return .failure(lineTooLong) }
            if pending.isEmpty {
                Self.decodeLine(UnsafeBufferPointer(rebasing: chunk[lineStart..<newline]), into: &records)
            } else {
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[lineStart..<newline]))
                pending.withUnsafeBufferPointer { Self.decodeLine($0, into: &records) }
                pending.removeAll(keepingCapacity: true)
            }
            lineStart = newline + 1
        }
        pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[lineStart...]))
        guard pending.count <= maximumLineBytes else { return .failure(lineTooLong) }
        return .success(records)
    }

    private var lineTooLong: FeedError { FeedError("an NDJSON line is longer than \(maximumLineBytes) bytes") }

    /// The record of a last line that has no newline; throws when that line is cut off.
    public mutating func finish() throws(FeedError) -> [Result<JSONValue, RecordError>] {
        defer { pending.removeAll() }
        let parsed = pending.withUnsafeBufferPointer { bytes -> Result<JSONValue, JSONParseError>? in
            let line = Self.trimmingCarriageReturn(bytes)
            guard Self.hasContent(line) else { return nil }
            do throws(JSONParseError) {
                return .success(try JSONParser.parse(line))
            } catch {
                return .failure(error)
            }
        }
        switch parsed {
        case nil: return []
        case .success(let value): return [.success(value)]
        case .failure(let error): throw FeedError("NDJSON body ends in a cut-off line: \(error)")
        }
    }

    private static func newline(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") { return index }
            index += 1
        }
        return nil
    }

    private static func decodeLine(_ line: UnsafeBufferPointer<UInt8>, into records: inout [Result<JSONValue, RecordError>]) {
        let line = trimmingCarriageReturn(line)
        guard hasContent(line) else { return }
        do {
            records.append(.success(try JSONParser.parse(line)))
        } catch {
            records.append(.failure(RecordError("line is not JSON: \(error)")))
        }
    }

    private static func trimmingCarriageReturn(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        line.last == UInt8(ascii: "\r") ? UnsafeBufferPointer(rebasing: line.dropLast()) : line
    }

    private static func hasContent(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.contains { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }
    }
}

func parseDocument(_ body: some Collection<UInt8>) throws(FeedError) -> JSONValue {
    do {
        return try JSONParser.parse(body)
    } catch {
        throw FeedError(error.description)
    }
}
