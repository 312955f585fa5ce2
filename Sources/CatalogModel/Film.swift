/// The five kinds of links a film carries, each with a derived count.
public enum FilmLinkKind: String, Sendable, CaseIterable {
    case characters
    case planets
    case starships
    case vehicles
    case species

    /// One of the things linked: what a count of them is named after (`character_count` in the API and the store).
    public var singular: String {
        switch self {
        case .characters: "character"
        case .planets: "planet"
        case .starships: "starship"
        case .vehicles: "vehicle"
        case .species: "species"
        }
    }
}

/// A film as the SWAPI-shaped feed and the write API describe it, validated.
public struct Film: FeedRecord, Equatable {
    /// The largest episode a store keeps: a search's cursor holds a film's position in 48 bits (`RankedWalk`).
    public static let maximumEpisodeID = (1 << 48) - 1

    public var episodeID: Int
    public var title: String
    public var openingCrawl: String
    public var director: String
    public var producer: String
    /// A calendar date, `YYYY-MM-DD`.
    public var releaseDate: String
    public var created: String
    public var edited: String
    /// The film's address upstream (`url` in the feed).
    public var sourceURL: String
    public var links: [FilmLinkKind: [String]]

    public init(
        episodeID: Int, title: String, openingCrawl: String = "", director: String = "", producer: String = "",
        releaseDate: String, created: String = "", edited: String = "", sourceURL: String = "",
        links: [FilmLinkKind: [String]] = [:]
    ) {
        self.episodeID = episodeID
        self.title = title
        self.openingCrawl = openingCrawl
        self.director = director
        self.producer = producer
        self.releaseDate = releaseDate
        self.created = created
        self.edited = edited
        self.sourceURL = sourceURL
        self.links = links
    }

    public func links(_ kind: FilmLinkKind) -> [String] { links[kind] ?? [] }

    /// Reads and validates one film object of the feed.
    public init(json: JSONValue) throws(RecordError) {
        let fields = try FieldReader(json, entity: "film")
        guard let episodeID = try fields.integer("episode_id") else { throw RecordError("episode_id is missing") }
        guard episodeID > 0 else { throw RecordError("episode_id must be a positive integer, got \(episodeID)") }
        guard episodeID <= Self.maximumEpisodeID else {
            throw RecordError("episode_id must be at most \(Self.maximumEpisodeID), got \(episodeID)")
        }
        let releaseDate = try fields.requiredString("release_date")
        guard CalendarDate.isValid(releaseDate) else {
            throw RecordError("release_date must be a calendar date YYYY-MM-DD, got \(releaseDate)")
        }
        var links: [FilmLinkKind: [String]] = [:]
        for kind in FilmLinkKind.allCases {
            links[kind] = try fields.stringArray(kind.rawValue)
        }
        self.init(
            episodeID: episodeID,
            title: try fields.requiredString("title"),
            openingCrawl: try fields.optionalString("opening_crawl") ?? "",
            director: try fields.optionalString("director") ?? "",
            producer: try fields.optionalString("producer") ?? "",
            releaseDate: releaseDate,
            created: try fields.optionalString("created") ?? "",
            edited: try fields.optionalString("edited") ?? "",
            sourceURL: try fields.optionalString("url") ?? "",
            links: links
        )
    }

    public var key: String { String(episodeID) }

    /// The key of a film object, when it can be read, for a rejection line.
    public static func key(of json: JSONValue) -> String? {
        if case .number(let text) = json["episode_id"] { return text }
        return nil
    }
}

/// Validation of `YYYY-MM-DD` dates by the proleptic Gregorian calendar.
///
/// Parsed by hand: a `DateFormatter` with `YYYY` reads the week-based year and shifts dates near New Year.
public enum CalendarDate {
    public static func isValid(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-") else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in utf8[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return false }
        guard year >= 1, (1...12).contains(month), day >= 1 else { return false }
        let isLeapYear = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let daysInMonth = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= daysInMonth[month - 1]
    }
}
