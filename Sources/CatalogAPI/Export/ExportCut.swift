/// Why an export stopped before its last row: its response then ends without the last chunk, so that the client
/// sees a truncated transfer and never mistakes it for the whole.
enum ExportCut: Error, CustomStringConvertible {
    /// It outlasted `--export-max-duration`.
    case overran(Duration)
    /// The server is stopping.
    case stopping

    var description: String {
        switch self {
        case .overran(let limit): "it outlasted --export-max-duration (\(limit))"
        case .stopping: "the server is stopping"
        }
    }
}
