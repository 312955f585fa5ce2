import CatalogModel
import CatalogStore
import Foundation

/// A configuration value that cannot be used; the message names the option, as start-up prints it.
struct ConfigurationError: Error, CustomStringConvertible {
    let description: String

    init(_ option: String, _ variable: String, _ problem: String) {
        description = "invalid \(option) (\(variable)): \(problem)"
    }
}

/// One option as the flag gave it, else as the environment gave it; the flag wins.
struct OptionSource {
    let flag: String
    let variable: String
    let flagValue: String?
    let environment: [String: String]

    var value: String? { flagValue ?? environment[variable] }

    func fail(_ problem: String) -> ConfigurationError {
        ConfigurationError(flag, variable, problem)
    }

    /// `30s`, `15m`, `1h`, `30d`, `500ms`; `off` (when allowed) gives nil.
    func duration(default fallback: Duration?, allowOff: Bool) throws -> Duration? {
        guard let text = value?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else { return fallback }
        if allowOff, text == "off" { return nil }
        if let duration = DurationText.parse(text) { return duration }
        throw fail("'\(text)' is not a duration; use a positive number with ms, s, m, h or d (e.g. 15m)\(allowOff ? ", or off" : "")")
    }

    /// `32MiB`, `512KiB`, `1GiB`, `1048576` (bytes); KB/MB/GB are read as powers of 1024 too.
    /// A size such as `32MiB`; with `allowOff`, `off` is 0.
    func byteSize(default fallback: Int, allowOff: Bool = false) throws -> Int {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return fallback }
        if allowOff && text == "off" { return 0 }
        let units: [(String, Int)] = [
            ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1),
        ]
        var number = Substring(text)
        var multiplier = 1
        for (suffix, size) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            multiplier = size
            break
        }
        guard let amount = Int(number.trimmingCharacters(in: .whitespaces)), amount > 0, amount <= (1 << 40) / multiplier else {
            throw fail("'\(text)' is not a size; use a positive number of bytes with an optional KiB, MiB or GiB (e.g. 32MiB)")
        }
        return amount * multiplier
    }

    func integer(default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw fail("'\(text)' is not an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func string(default fallback: String) -> String {
        value ?? fallback
    }

    func oneOf(_ allowed: [String], default fallback: String) throws -> String {
        let text = (value ?? fallback).lowercased()
        guard allowed.contains(text) else { throw fail("'\(text)' is not one of \(allowed.joined(separator: ", "))") }
        return text
    }

    /// `true`, `false`, `1`, `0`, `yes`, `no`, `on` or `off`, in any case.
    func boolean(default fallback: Bool) throws -> Bool {
        guard let text = value?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else { return fallback }
        if ["true", "1", "yes", "on"].contains(text) { return true }
        if ["false", "0", "no", "off"].contains(text) { return false }
        throw fail("'\(text)' is not a boolean; use true or false")
    }

    /// An absolute http(s) URL, or empty; trailing slashes are kept as given.
    func url(default fallback: String?) throws -> String? {
        guard let text = value ?? fallback, !text.isEmpty else { return nil }
        guard let url = URL(string: text), ["http", "https", "file"].contains(url.scheme ?? ""), url.host != nil || url.scheme == "file" else {
            if !text.contains("://") { return text }  // a plain file path
            throw fail("'\(text)' is not an http(s) or file URL")
        }
        return text
    }
}

extension OptionSource {
    /// `5%`: sets for the words at least that share of products hold; `off` gives nil.
    func frequentTermPolicy(default fallback: FrequentTermPolicy?) throws -> FrequentTermPolicy? {
        guard let text = value?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else { return fallback }
        if text == "off" { return nil }
        guard text.hasSuffix("%"), let percent = Double(text.dropLast()), percent > 0, percent <= 100 else {
            throw fail("'\(text)' is not a share; use a percentage above 0 and up to 100 (e.g. 5%), or off")
        }
        var policy = FrequentTermPolicy()
        policy.minimumShare = percent / 100
        return policy
    }
}
