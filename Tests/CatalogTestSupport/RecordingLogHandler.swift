import Logging
import Synchronization

/// The lines a `RecordingLogHandler` kept, in order.
public final class RecordedLines: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public var all: [String] { lines.withLock { $0 } }

    public func append(_ line: String) { lines.withLock { $0.append(line) } }

    public func removeAll() { lines.withLock { $0.removeAll() } }
}

/// Keeps every message and its metadata (`level message key=value …`, the keys sorted), so that a test can read what
/// the service or a store logged.
public struct RecordingLogHandler: LogHandler {
    let lines: RecordedLines
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(lines: RecordedLines) {
        self.lines = lines
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append("\(event.level) \(event.message) \(merged.map { "\($0)=\($1)" }.sorted().joined(separator: " "))")
    }
}
