/// The formats a whole list is exported in (`Exports`), asked for with `format=` or `Accept`.
enum ExportFormat: String, CaseIterable, Sendable {
    /// One JSON object a line, each the same as in a list's `results` (JSON Lines, NDJSON).
    case ndjson
    /// RFC 4180 CSV, UTF-8, with a header row.
    case csv

    var contentType: String {
        switch self {
        case .ndjson: "application/x-ndjson"
        case .csv: "text/csv; charset=utf-8; header=present"
        }
    }
}
