import CatalogModel

extension FilmLinkKind {
    /// The `films` column in which every engine keeps the derived count of this kind of link.
    public var countColumn: String { "\(singular)_count" }
}
