/// The product documents the fake upstream serves, for writing to files.
public enum FixtureDocuments {
    public static func productsNDJSON(_ catalog: FixtureCatalog) -> [UInt8] { FixtureJSON.productsNDJSON(catalog, invalid: []) }
    public static func productsArray(_ catalog: FixtureCatalog) -> [UInt8] { FixtureJSON.productsArray(catalog, invalid: []) }
    public static func productsPage(_ catalog: FixtureCatalog) -> [UInt8] {
        FixtureJSON.productsPage(catalog, skip: 0, limit: catalog.products.count, invalid: [])
    }
}
