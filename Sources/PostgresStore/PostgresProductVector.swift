import PostgresNIO

/// Writes products' `search_vector`s as the text PostgreSQL reads a `tsvector` from, computed with the database's
/// alphabet (`PostgresSearchAlphabet`), equal to what `catalog_product_search_vector` (migration v15) computes from
/// the same columns: each column's words, folded and lowered, numbered across the columns in order (as `||` does,
/// adding the positions of those before), each position weighted by its column (`A` to `D`).
///
/// A vector is left to the server (`write` answers false) for a character the alphabet does not know, a word the
/// parser splits as a number (`splitsAsNumber`), or text at PostgreSQL's own limits (a word too long to index,
/// positions past the last one a vector holds, too many positions of one word), where the server's handling is its
/// own.
///
/// One writer serves a whole batch, reusing its buffers: a vector is written straight into the batch's `COPY` text,
/// with no string or array made for it.
struct PostgresProductVector {
    /// The longest word computed here, in bytes: PostgreSQL drops a word of 2,047 or more.
    static let longestWord = 1_024
    /// The most words a vector has here: PostgreSQL numbers no position past 16,383.
    static let mostWords = 16_000
    /// The most positions of one word: PostgreSQL keeps 255 at most.
    static let mostPositions = 250

    /// The weight letter of each column, in the order of `catalog_product_search_vector`'s arguments.
    private static let weights: [UInt8] = Array("ABCD".utf8)

    private struct Token {
        /// Where the word's bytes start in `bytes`, and how many there are.
        var start: Int32
        var count: Int32
        var position: UInt16
        var column: UInt8
    }

    let alphabet: PostgresSearchAlphabet
    /// The bytes of the words of the vector being written, one after the other.
    private var bytes: [UInt8] = []
    private var tokens: [Token] = []

    init(alphabet: PostgresSearchAlphabet) {
        self.alphabet = alphabet
    }

    /// Writes the vector of the columns `texts` (name, brand, description, category) to `buffer`; false, with nothing
    /// written, when the server must compute it.
    mutating func write(_ texts: [String], to buffer: inout ByteBuffer) -> Bool {
        guard read(texts) else { return false }
        let bytes = bytes
        return bytes.withUnsafeBufferPointer { words in
            tokens.sort { left, right in
                let order = Self.compare(words, left, right)
                return order != 0 ? order < 0 : left.position < right.position
            }
            // One pass: a word with too many positions is found while it is written, and what was written goes back.
            let start = buffer.writerIndex
            var positions = 0
            for index in tokens.indices {
                let token = tokens[index]
                if index > 0 && Self.compare(words, tokens[index - 1], token) == 0 {
                    positions += 1
                    guard positions <= Self.mostPositions else {
                        buffer.moveWriterIndex(to: start)
                        return false
                    }
                    buffer.writeInteger(UInt8(ascii: ","))
                } else {
                    positions = 1
                    if index > 0 { buffer.writeInteger(UInt8(ascii: " ")) }
                    buffer.writeInteger(UInt8(ascii: "'"))
                    buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: words[Int(token.start)..<Int(token.start + token.count)])))
                    buffer.writeStaticString("':")
                }
                Self.writeDecimal(Int(token.position), to: &buffer)
                buffer.writeInteger(Self.weights[Int(token.column)])
            }
            return true
        }
    }

    /// Adds each word of the vector `write` last wrote to `runs`, once, with the first column that holds it (the first
    /// of its positions, which `write` sorted), as the row `runs` numbered last.
    func addWords(to runs: inout PostgresWordRuns) {
        bytes.withUnsafeBufferPointer { words in
            for index in tokens.indices where index == 0 || Self.compare(words, tokens[index - 1], tokens[index]) != 0 {
                let token = tokens[index]
                let word = UnsafeBufferPointer(rebasing: words[Int(token.start)..<Int(token.start + token.count)])
                runs.add(word, column: Int(token.column))
            }
        }
    }

    /// Splits `texts` into `tokens`, numbered across the columns; false at a character the alphabet does not know or
    /// past the limits.
    private mutating func read(_ texts: [String]) -> Bool {
        bytes.removeAll(keepingCapacity: true)
        tokens.removeAll(keepingCapacity: true)
        for (column, text) in texts.prefix(Self.weights.count).enumerated() {
            var wordStart = bytes.count
            for scalar in text.unicodeScalars {
                let letter = alphabet.letter(scalar.value)
                if letter == .separator {
                    guard endWord(startingAt: &wordStart, column: column) else { return false }
                    continue
                }
                guard letter != .unknown else { return false }
                var packed = letter.packed >> 8
                for _ in 0..<letter.count {
                    bytes.append(UInt8(truncatingIfNeeded: packed))
                    packed >>= 8
                }
            }
            guard endWord(startingAt: &wordStart, column: column) else { return false }
        }
        return true
    }

    /// Ends the word whose bytes start at `wordStart`, if it has any, at the next position; false past the limits.
    private mutating func endWord(startingAt wordStart: inout Int, column: Int) -> Bool {
        defer { wordStart = bytes.count }
        guard bytes.count > wordStart else { return true }
        let position = tokens.count + 1
        guard bytes.count - wordStart <= Self.longestWord, position <= Self.mostWords, !Self.splitsAsNumber(bytes[wordStart...]) else {
            return false
        }
        tokens.append(Token(start: Int32(wordStart), count: Int32(bytes.count - wordStart), position: UInt16(position), column: UInt8(column)))
        return true
    }

    /// Whether PostgreSQL's parser reads a number in scientific notation at the start of `word` and a word after it:
    /// digits, `e`, digits, then more (`1e5x` is `1e5` and `x`), the one way it splits letters and digits that no
    /// separator parts. Such a word is left to the server.
    private static func splitsAsNumber(_ word: ArraySlice<UInt8>) -> Bool {
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let mantissa = word.prefix(while: isDigit)
        guard !mantissa.isEmpty, word.dropFirst(mantissa.count).first == UInt8(ascii: "e") else { return false }
        let rest = word.dropFirst(mantissa.count + 1)
        let exponent = rest.prefix(while: isDigit)
        return !exponent.isEmpty && exponent.count < rest.count
    }

    /// How the words of two tokens compare, byte by byte and then by length.
    private static func compare(_ bytes: UnsafeBufferPointer<UInt8>, _ left: Token, _ right: Token) -> Int {
        let (leftCount, rightCount) = (Int(left.count), Int(right.count))
        for offset in 0..<min(leftCount, rightCount) {
            let (a, b) = (bytes[Int(left.start) + offset], bytes[Int(right.start) + offset])
            if a != b { return a < b ? -1 : 1 }
        }
        return leftCount - rightCount
    }

    /// `value`'s decimal digits, for a number not below 0 (a position, a row's order).
    static func writeDecimal(_ value: Int, to buffer: inout ByteBuffer) {
        var divisor = 1
        while divisor * 10 <= value { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            buffer.writeInteger(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
