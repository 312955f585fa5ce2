import Foundation

/// What a search ignores in text: case, and the diacritics of Latin letters (`é`, `Ç`, `ø̈` …): a letter whose
/// canonical decomposition is an ASCII letter followed by combining marks only is that letter.
///
/// SQLite's FTS5 tokenizer folds so (`unicode61 remove_diacritics 2`); PostgreSQL is given the same letters as a
/// `translate` table (`PostgresSchema`), so that a search finds the same rows on either engine.
public enum SearchFolding {
    /// The letters with diacritics, and the lower-case ASCII letter each stands for, in the same order.
    public static let latinLetters: (from: String, to: String) = {
        var from = ""
        var to = ""
        let ranges: [ClosedRange<UInt32>] = [0x00C0...0x024F, 0x1E00...0x1EFF]
        for value in ranges.joined() {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let decomposed = Array(String(Character(scalar)).decomposedStringWithCanonicalMapping.unicodeScalars)
            guard decomposed.count > 1, let base = decomposed.first, base.isASCII, base.properties.isAlphabetic,
                decomposed.dropFirst().allSatisfy({ $0.properties.generalCategory == .nonspacingMark })
            else { continue }
            from.unicodeScalars.append(scalar)
            to.unicodeScalars.append(contentsOf: String(base).lowercased().unicodeScalars)
        }
        return (from, to)
    }()
}
