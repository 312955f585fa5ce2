import CatalogModel

/// The rows of an export as they go out, in one buffer: a JSON object and a line feed each (NDJSON), or a CSV row.
struct ExportLines: Sendable {
    let format: ExportFormat
    private var json: JSONWriter
    private var csv: CSVWriter
    /// Where each row starts, to turn a batch read backwards around.
    private var starts: [Int] = []

    init(format: ExportFormat, capacity: Int) {
        self.format = format
        json = JSONWriter(capacity: format == .ndjson ? capacity : 0)
        csv = CSVWriter(capacity: format == .csv ? capacity : 0)
    }

    var bytes: [UInt8] { format == .ndjson ? json.bytes : csv.bytes }
    var count: Int { starts.count }

    /// One row, written as JSON by `json` or as CSV fields by `csv`, whichever the format is.
    mutating func append(json writeJSON: (inout JSONWriter) -> Void, csv writeCSV: (inout CSVWriter) -> Void) {
        starts.append(bytes.count)
        switch format {
        case .ndjson:
            writeJSON(&json)
            json.lineEnd()
        case .csv:
            writeCSV(&csv)
            csv.endRow()
        }
    }

    mutating func reverse() {
        let bytes = self.bytes
        var reversed = ExportLines(format: format, capacity: bytes.count)
        for (number, start) in starts.enumerated().reversed() {
            let end = number + 1 < starts.count ? starts[number + 1] : bytes.count
            reversed.starts.append(reversed.bytes.count)
            switch format {
            case .ndjson:
                // The object without its line feed, which `lineEnd` writes again.
                reversed.json.json(bytes[start..<(end - 1)])
                reversed.json.lineEnd()
            case .csv: reversed.csv.written(bytes[start..<end])
            }
        }
        self = reversed
    }
}
