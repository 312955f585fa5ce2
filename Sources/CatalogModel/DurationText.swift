/// Durations as people write them in options and request bodies: `500ms`, `30s`, `15m`, `1h`, `90d`.
public enum DurationText {
    /// The duration `text` names, or nil when it names none (what `off` means is the caller's to say).
    public static func parse(_ text: String) -> Duration? {
        let text = text.lowercased()
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        for (suffix, milliseconds) in units where text.hasSuffix(suffix) {
            guard let amount = Int64(text.dropLast(suffix.count)), amount > 0, amount < Int64.max / milliseconds else { return nil }
            return .milliseconds(amount * milliseconds)
        }
        return nil
    }
}
