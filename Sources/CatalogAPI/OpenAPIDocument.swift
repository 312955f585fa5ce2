/// The OpenAPI description served at `/openapi.yaml`: the repository's `openapi.yaml`, compiled in by SwiftPM
/// (`Sources/CatalogAPI/openapi.yaml` links to it), so it is served wherever catalogd runs.
enum OpenAPIDocument {
    static let yaml = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
}
