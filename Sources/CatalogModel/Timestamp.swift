import Foundation

/// Timestamps as the API shows them: ISO 8601 in UTC, to the second.
public enum Timestamp {
    public static func now() -> String {
        string(from: Date())
    }

    public static func string(from date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// The instant a timestamp of `string(from:)` names; nil for any other text.
    public static func date(from text: String) -> Date? {
        try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text)
    }
}

extension Duration {
    /// The duration in seconds, for Foundation APIs that take a `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
