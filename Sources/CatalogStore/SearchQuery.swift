/// Search text as every store matches it: words and quoted phrases, each required, as whole words, ignoring case
/// and the diacritics of Latin letters (`café` is `cafe`), the last word also as the start of a word while it is typed.
///
/// Only letters and digits make words; everything else separates them, so that operators of either engine's query
/// language (`AND`, `NEAR`, `*`, `:`, `-`, `|`) typed by a user are never passed on: `AND` is a word like any other,
/// and text with no letter or digit matches nothing. A double quote opens a phrase when another one closes it;
/// an unbalanced quote separates words.
public struct SearchQuery: Sendable, Equatable {
    public enum Part: Sendable, Equatable {
        /// A whole word.
        case word(String)
        /// A word or the start of one: the last word of text that ends in it.
        case prefix(String)
        /// Words next to each other, in this order.
        case phrase([String])
        /// Any of these whole words: a prefix spelled out as the words of the search index that start with it, when
        /// a store knows them (`FrequentTerms.expanded`), so that the engine steps through each word's matches in
        /// order instead of merging them all first.
        case anyWord([String])
        /// A word starting with any of these: a mistyped prefix, corrected (`SearchPlanner.corrected`).
        case anyPrefix([String])
    }

    /// The longest search a store is asked for, in parts: engines' costs grow with each term.
    public static let maximumParts = 16

    public let parts: [Part]

    /// A search of these parts as they are, the longest ones cut to `maximumParts`.
    public init(parts: [Part]) {
        self.parts = Array(parts.prefix(Self.maximumParts))
    }

    public init(_ text: String) {
        var parts: [Part] = []
        var word = ""
        var phrase: [String]?
        let characters = Array(text)
        var closingQuotes = characters.filter { $0 == "\"" }.count
        func endWord() {
            guard !word.isEmpty else { return }
            if phrase != nil { phrase?.append(word) } else { parts.append(.word(word)) }
            word = ""
        }
        for character in characters {
            if character.isLetter || character.isNumber {
                word.append(character)
                continue
            }
            endWord()
            guard character == "\"" else { continue }
            closingQuotes -= 1
            if let words = phrase {
                parts.append(contentsOf: words.count == 1 ? [.word(words[0])] : words.isEmpty ? [] : [.phrase(words)])
                phrase = nil
            } else if closingQuotes > 0 {
                phrase = []
            }
        }
        // Text that ends in a word is still being typed; a quote always closes before the end.
        if !word.isEmpty { parts.append(.prefix(word)) }
        self.parts = Array(parts.prefix(Self.maximumParts))
    }

    /// Whether nothing can match: the text held no letter or digit.
    public var matchesNothing: Bool { parts.isEmpty }

    /// The search's only part; nil when it has none or several.
    public var onlyPart: Part? { parts.count == 1 ? parts[0] : nil }

    /// Whether the search is one whole word.
    public var isWholeWord: Bool {
        guard case .word = onlyPart else { return false }
        return true
    }

    /// Whether the search is one typed prefix.
    public var isTypedPrefix: Bool {
        guard case .prefix = onlyPart else { return false }
        return true
    }
}
