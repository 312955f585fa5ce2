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
/// database treats otherwise than as one of these two, is left to the server (`PostgresProductVector.write`).
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

    /// The texts each candidate is asked about in, before and after it: between letters, at a word's start and end,
    /// between digits, and alone. A character that a parser treats by its place (one of zero width is a letter inside a
    /// word and a space before one, in some locales) answers differently in some of them.
    private static let contexts: [(before: String, after: String)] = [("a", "a"), ("", "a"), ("a", ""), ("1", "1"), ("", "")]

    /// Asks the database about every candidate in each of `contexts`, in one statement, through the same functions as a
    /// product's vector. A separator leaves the words around it as they were; a letter is one word with them, the same
    /// text in each. Anything else (a character that vanishes, or answers otherwise in one of them) is left out.
    static func load(_ connection: PostgresConnection, logger: Logger) async throws -> Self {
        let codes = candidates.flatMap { $0.map { Int32($0) } }
        let query: PostgresQuery = """
            SELECT code, array_agg(to_tsvector('simple'::regconfig, catalog_search_words(context.before || chr(code) || context.after))::text
                ORDER BY context.place)
            FROM unnest(\(codes)::int[]) AS code,
                unnest(\(contexts.map(\.before))::text[], \(contexts.map(\.after))::text[]) WITH ORDINALITY AS context (before, after, place)
            GROUP BY code
            """
        let separator = ["'a':1,2", "'a':1", "'a':1", "'1':1,2", ""]
        var letters: [UInt32: Letter] = [:]
        for try await (code, vectors) in try await connection.query(query, logger: logger).decode((Int32, [String]).self) {
            if vectors == separator {
                letters[UInt32(code)] = .separator
                continue
            }
            // Alone, a letter is the word `'text':1`.
            guard let alone = vectors.last, alone.hasPrefix("'"), alone.hasSuffix("':1") else { continue }
            let text = alone.dropFirst().dropLast(3)
            let expected = contexts.map { "'\($0.before)\(text)\($0.after)':1" }
            if vectors == expected { letters[UInt32(code)] = .word(text.utf8) }
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
