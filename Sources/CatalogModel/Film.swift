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
