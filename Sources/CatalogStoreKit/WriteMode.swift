import CatalogModel

/// How a batch of records is applied, on every engine.
package enum WriteMode: Sendable, Equatable {
    /// The records are a feed's complete listing: its rows missing from the listing are deleted, and every listed
    /// row is (again) owned by the feed.
    case mirror(FeedSource)
    /// The records are added or updated through the API; nothing else is touched, and existing rows keep their source.
    case merge

    /// The source a written row gets: the feed's name, or `api`.
    package var source: String {
        switch self {
        case .mirror(let feed): feed.rawValue
        case .merge: "api"
        }
    }

    /// Whether a written row is (again) owned by the source, even when it existed before.
    package var ownsSource: Bool {
        if case .mirror = self { true } else { false }
    }
}
