import CatalogModel

/// A family of resources that share one version (`versions.name`): a write to any of its rows moves it, and
/// every ETag and cached response of the family carries it. Categories are derived from products and share
/// their version.
public enum ResourceFamily: String, Sendable, CaseIterable {
    case films
    case products
    case imports
}

extension FeedSource {
    /// The family this feed's rows belong to.
    public var family: ResourceFamily {
        switch self {
        case .films: .films
        case .products: .products
        }
    }
}
