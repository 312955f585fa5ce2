/// A SWAPI film.
public struct FixtureFilm: Sendable {
    public var episodeID: Int
    public var title: String
    public var openingCrawl: String
    public var director: String
    public var producer: String
    public var releaseDate: String
    public var created: String
    public var edited: String
    public var characters: [String]
    public var planets: [String]
    public var starships: [String]
    public var vehicles: [String]
    public var species: [String]
}
