import CatalogModel
import Foundation
import Logging

/// Writes one JSON object per log line to standard error, for log collectors (`--log-format json`).
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let level = event.level
        let message = event.message
        let explicit = event.metadata
        var writer = JSONWriter(capacity: 256)
        writer.objectStart()
        writer.member("time", Timestamp.now())
        writer.member("level", level.rawValue)
        writer.member("logger", label)
        writer.member("message", message.description)
        for (key, value) in metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
            writer.key(key)
            Self.write(value, into: &writer)
        }
        writer.objectEnd()
        FileHandle.standardError.write(Data(writer.bytes + [UInt8(ascii: "\n")]))
    }

    /// Integers and finite numbers given as `.stringConvertible` are written as JSON numbers, so that collectors
    /// can compare them (`http.duration_ms > 100`); everything else as a string.
    static func write(_ value: Logger.Metadata.Value, into writer: inout JSONWriter) {
        switch value {
        case .stringConvertible(let number as any BinaryInteger):
            writer.number(literal: "\(number)")
        case .stringConvertible(let number as Double) where number.isFinite:
            writer.number(literal: "\(number)")
        default:
            writer.string(value.description)
        }
    }
}
