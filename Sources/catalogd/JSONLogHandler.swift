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
        writer.key("time")
        writer.string(Timestamp.now())
        writer.key("level")
        writer.string(level.rawValue)
        writer.key("logger")
        writer.string(label)
        writer.key("message")
        writer.string(message.description)
        for (key, value) in metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
            writer.key(key)
            writer.string(value.description)
        }
        writer.objectEnd()
        FileHandle.standardError.write(Data(writer.bytes + [UInt8(ascii: "\n")]))
    }
}
