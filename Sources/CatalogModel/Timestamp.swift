import Foundation

/// Timestamps as the API shows them: ISO 8601 in UTC, to the second.
public enum Timestamp {
    public static func now() -> String {
        string(from: Date())
    }

    public static func string(from date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
}
