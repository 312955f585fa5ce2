/// A product's `search_vector` as the text PostgreSQL reads a `tsvector` from, computed by the writer with the
/// database's alphabet (`PostgresSearchAlphabet`), equal to what `catalog_product_search_vector` (migration v15)
/// computes from the same columns: each column's words, folded and lowered, numbered across the columns in order
/// (as `||` does, adding the positions of those before), each position weighted by its column (`A` to `D`).
///
/// Nil when the server must compute it: a character the alphabet does not know, or text at PostgreSQL's own limits
/// (a word too long to index, positions past the last one a vector holds, too many positions of one word), where
/// the server's handling is its own.
enum PostgresProductVector {
    /// The longest word computed here, in bytes: PostgreSQL drops a word of 2,047 or more.
    static let longestWord = 1_024
    /// The most words a vector has here: PostgreSQL numbers no position past 16,383.
    static let mostWords = 16_000
    /// The most positions of one word: PostgreSQL keeps 255 at most.
    static let mostPositions = 250

    private static let weights: [UInt8] = Array("ABCD".utf8)

    /// The vector of the columns `texts`, in `SearchFields.products` order (name, brand, description, category).
    static func text(_ texts: [String], alphabet: PostgresSearchAlphabet) -> String? {
        var positions: [[UInt8]: [UInt16]] = [:]
        var position = 0
        var word: [UInt8] = []
        /// Ends the word being read, if any, at the next position, weighted by `column`.
        func endWord(_ column: Int) -> Bool {
            guard !word.isEmpty else { return true }
            position += 1
            guard word.count <= longestWord, position <= mostWords else { return false }
            let weight = UInt16(3 - column)
            positions[word, default: []].append(UInt16(position) | weight << 14)
            word.removeAll(keepingCapacity: true)
            return true
        }
        for (column, text) in texts.prefix(weights.count).enumerated() {
            for scalar in text.unicodeScalars {
                switch alphabet.letter(scalar.value) {
                case .word(let bytes): word += bytes
                case .separator: guard endWord(column) else { return nil }
                case nil: return nil
                }
            }
            guard endWord(column) else { return nil }
        }
        var vector = ""
        vector.reserveCapacity(positions.count * 16)
        for (lexeme, places) in positions {
            guard places.count <= mostPositions else { return nil }
            if !vector.isEmpty { vector += " " }
            vector += "'"
            vector += String(decoding: lexeme, as: UTF8.self).replacingQuotes
            vector += "':"
            for (index, place) in places.enumerated() {
                if index > 0 { vector += "," }
                vector += String(place & 0x3FFF)
                vector.unicodeScalars.append(Unicode.Scalar(weights[3 - Int(place >> 14)]))
            }
        }
        return vector
    }
}

extension String {
    /// The text inside a quoted lexeme of a `tsvector`'s text: a quote or a backslash is escaped with a backslash.
    fileprivate var replacingQuotes: String {
        guard contains(where: { $0 == "'" || $0 == "\\" }) else { return self }
        var escaped = ""
        for character in self {
            if character == "'" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
