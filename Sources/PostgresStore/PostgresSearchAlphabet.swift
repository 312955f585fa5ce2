import Logging
import PostgresNIO
import Synchronization

/// What the database makes of each character it is asked about, in a product's `search_vector`: a character that
/// separates words, or one that is part of a word, as the text it becomes there (folded by `catalog_search_words`,
/// lowered by the `simple` dictionary). With it, a writer computes a product's vector itself
/// (`PostgresProductVector`), exactly as `catalog_product_search_vector` (migration v15) would, and the server only
/// reads it: for a million products, 29 s of one core computing vectors became about 8 s reading them.
///
/// The answers are the database's own, read once (`load`), because they depend on its locale: which characters its
/// parser counts as letters, and how its dictionary lowers them. Text with a character not asked about, or that the
/// database treats otherwise than as one of these two, is left to the server (`PostgresProductVector.text` is nil).
struct PostgresSearchAlphabet: Sendable {
    /// What the database makes of one character, packed in 64 bits so that a lookup copies no array: `unknown`,
    /// `separator`, or a letter's bytes (1 to 7) in the high bytes with their count in the lowest.
    struct Letter: Sendable, Equatable {
        let packed: UInt64

        static let unknown = Letter(packed: 0)
        /// Ends the word before it, if any.
        static let separator = Letter(packed: 1 << 8)

        /// Part of a word, as `bytes`; unknown when they are more than 7, or hold a byte that a quoted lexeme or a
        /// field of `COPY` would have to escape (no letter does).
        static func word(_ bytes: some Collection<UInt8>) -> Letter {
            guard (1...7).contains(bytes.count), !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "'") || $0 == UInt8(ascii: "\\") })
            else { return .unknown }
            var packed = UInt64(bytes.count)
            for (index, byte) in bytes.enumerated() { packed |= UInt64(byte) << (8 * (index + 1)) }
            return Letter(packed: packed)
        }

        /// How many bytes a letter has: 0 for a separator or an unknown character.
        var count: Int { Int(packed & 0xFF) }
    }

    /// The characters asked about, by scalar value: ASCII but NUL, the Latin letters of Latin-1 and Latin Extended-A
    /// and -B, and the general punctuation and currency signs that product text carries (dashes, curly quotes, `€`).
    /// No combining mark: whether one stays depends on the letter before it.
    static let candidates: [ClosedRange<UInt32>] = [0x01...0x24F, 0x2000...0x206F, 0x20A0...0x20C0, 0x2100...0x214F]

    /// The letter of every scalar through the end of `candidates[0]`.
    private let latin: [Letter]
    /// The other candidates' letters.
    private let others: [UInt32: Letter]

    init(_ letters: [UInt32: Letter]) {
        let latinEnd = Self.candidates[0].upperBound
        latin = (0...latinEnd).map { letters[$0] ?? .unknown }
        others = letters.filter { $0.key > latinEnd && $0.value != .unknown }
    }

    /// What the database makes of `scalar`.
    func letter(_ scalar: UInt32) -> Letter {
        scalar < latin.count ? latin[Int(scalar)] : others[scalar] ?? .unknown
    }

    /// How many characters are known.
    var count: Int { latin.lazy.filter { $0 != .unknown }.count + others.count }

    /// Asks the database about every candidate, in one statement: each one between two `a`s, through the same
    /// functions as a product's vector. A separator leaves the word `a` twice; a letter makes one word of the three,
    /// whose middle is what the letter becomes. Anything else (a character that vanishes, or splits the word
    /// otherwise) is left out.
    static func load(_ connection: PostgresConnection, logger: Logger) async throws -> Self {
        let codes = candidates.flatMap { $0.map { Int32($0) } }
        let query: PostgresQuery = """
            SELECT code, array_agg(entry.lexeme ORDER BY entry.lexeme), array_agg(array_length(entry.positions, 1) ORDER BY entry.lexeme)
            FROM unnest(\(codes)::int[]) AS code,
                unnest(to_tsvector('simple'::regconfig, catalog_search_words('a' || chr(code) || 'a'))) AS entry
            GROUP BY code
            """
        var letters: [UInt32: Letter] = [:]
        for try await (code, lexemes, positions) in try await connection.query(query, logger: logger).decode((Int32, [String], [Int32]).self) {
            guard lexemes.count == 1, let lexeme = lexemes.first?.utf8 else { continue }
            if lexeme.elementsEqual("a".utf8), positions == [2] {
                letters[UInt32(code)] = .separator
            } else if positions == [1], lexeme.count > 2, lexeme.first == UInt8(ascii: "a"), lexeme.last == UInt8(ascii: "a") {
                letters[UInt32(code)] = .word(lexeme.dropFirst().dropLast())
            }
        }
        return Self(letters)
    }

    /// Where a store keeps its alphabet once read: the first write of products reads it on its own connection.
    final class Shelf: Sendable {
        private let alphabet = Mutex<PostgresSearchAlphabet?>(nil)

        init() {}

        func alphabet(_ connection: PostgresConnection, logger: Logger) async throws -> PostgresSearchAlphabet {
            if let known = alphabet.withLock({ $0 }) { return known }
            let loaded = try await PostgresSearchAlphabet.load(connection, logger: logger)
            logger.debug("search alphabet read", metadata: ["search.alphabet_characters": "\(loaded.count)"])
            alphabet.withLock { $0 = loaded }
            return loaded
        }
    }
}
