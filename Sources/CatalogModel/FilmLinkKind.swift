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
