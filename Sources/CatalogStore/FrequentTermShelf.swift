import Synchronization

/// Where a store keeps the `FrequentTerms` its reads use: the latest read, which a read makes exact at its own
/// snapshot (`CurrentFrequentTerms`).
public final class FrequentTermShelf: Sendable {
    private let installed = Mutex<FrequentTerms?>(nil)
    /// The newest products version a read found past the sets'.
    private let newestSeen = Atomic<Int64>(0)
    /// The typed prefixes reads found wide (`ask`), the most recent first.
    private let asked = Mutex<[String]>([])

    public init() {}

    /// The sets, whatever products version they were read at.
    public var latest: FrequentTerms? {
        installed.withLock { $0 }
    }

    /// Installs `terms`, unless the installed sets are the same whole read's (`FrequentTerms.wholeReadSeq`) brought
    /// further forward: a write and FrequentTermsService bring them forward each in its own snapshot, and may end in
    /// either order.
    public func install(_ terms: FrequentTerms) {
        installed.withLock { installed in
            if let current = installed, current.wholeReadSeq == terms.wholeReadSeq, current.productsVersion > terms.productsVersion { return }
            installed = terms
        }
    }

    /// The products version of the installed sets, nil before the first.
    public var productsVersion: Int64? {
        installed.withLock { $0?.productsVersion }
    }

    /// Notes a products version a read found: sets older than it are known to be behind.
    public func saw(productsVersion: Int64) {
        newestSeen.max(productsVersion, ordering: .relaxed)
    }

    /// Asks for sets of `search`'s own when it is one typed prefix (a term of two characters or more) that `matches`
    /// rows match, at least `FrequentTerms.widePrefixMatches`: bringing the sets forward adds them, at its own snapshot,
    /// so that they are exact as the words' sets are (`CatalogStore.advanceFrequentTerms`). The most recently asked or
    /// read `FrequentTerms.maximumWidePrefixes` are kept: a prefix whose sets answered a read is asked again.
    public func ask(_ search: SearchQuery?, matches: Int) {
        // A prefix the sets spell out as words (`FrequentTerms.expanded`) is counted from them already; a single letter
        // is most of the index's words, read again with every whole read.
        guard let search, case .prefix(let prefix)? = search.onlyPart, let term = FrequentTerms.term(prefix), term.count >= 2,
            matches >= FrequentTerms.widePrefixMatches, let terms = latest, terms.expanded(search) == search
        else { return }
        asked.withLock { asked in
            asked.removeAll { $0 == term }
            asked.insert(term, at: 0)
            asked = Array(asked.prefix(FrequentTerms.maximumWidePrefixes))
        }
    }

    /// The sets `read` reads, the prefixes reads asked for among them; when it fails, the asked prefixes are forgotten,
    /// so that a prefix whose sets cannot be read fails no other read of the sets (a read asks again).
    public func reading<Terms>(_ read: ([String]) async throws -> Terms) async rethrows -> Terms {
        do {
            return try await read(askedPrefixes)
        } catch {
            asked.withLock { $0 = [] }
            throw error
        }
    }

    /// `page`, once it has asked for sets of `filter`'s typed prefix when its matches were read from the engine, walked
    /// or from their entries, or from the prefix's own sets (`ask`). A corrected search's page is the correction's.
    public func asking<Rows>(after page: Page<Rows>, of filter: ProductFilter) -> Page<Rows> {
        if page.searchRead == .walk || page.searchRead == .wordEntries, page.corrections.isEmpty {
            ask(filter.searchQuery, matches: page.count)
        }
        return page
    }

    /// The typed prefixes reads asked for sets of (`ask`), the most recent first.
    public var askedPrefixes: [String] { asked.withLock { $0 } }

    /// Whether reads asked for sets of a typed prefix that `latest` does not hold.
    public var wantsPrefixes: Bool {
        let terms = latest
        return askedPrefixes.contains { terms?.holdsPrefix($0) == false }
    }

    /// Whether `terms` may be of the newest products version: no read has found a newer one.
    public func mayBeNewest(_ terms: FrequentTerms) -> Bool {
        terms.productsVersion >= newestSeen.load(ordering: .relaxed)
    }
}
