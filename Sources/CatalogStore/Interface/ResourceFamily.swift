/// A family of resources that share one version (`versions.name`): a write to any of its rows moves it, and
/// every ETag and cached response of the family carries it. Categories are derived from products and share
/// their version.
public enum ResourceFamily: String, Sendable, CaseIterable {
    case films
    case products
    case imports
}
