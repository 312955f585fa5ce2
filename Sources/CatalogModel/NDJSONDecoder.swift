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
