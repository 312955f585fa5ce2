import CatalogModel
import Hummingbird

/// The stylesheet, the script and the icon every page links to, compiled into the binary (`PackageResources`) and served
/// under names that carry a hash of their bytes: a browser may keep them for a year, and a new build's pages
/// name new files.
struct PageAsset: Sendable {
    let path: String
    let contentType: String
    let bytes: [UInt8]

    /// Where every asset is served from.
    static let directory = "/assets/"

    init(name: String, extension: String, contentType: String, bytes: [UInt8]) {
        var hash = FNV1a()
        hash.combine(bytes)
        path = "\(Self.directory)\(name)-\(String(hash.value, radix: 16)).\(`extension`)"
        self.contentType = contentType
        self.bytes = bytes
    }

    static let stylesheet = PageAsset(
        name: "catalogd", extension: "css", contentType: "text/css; charset=utf-8", bytes: PackageResources.catalogd_css)
    static let script = PageAsset(
        name: "catalogd", extension: "js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.catalogd_js)
    static let icon = PageAsset(name: "catalogd", extension: "svg", contentType: "image/svg+xml", bytes: PackageResources.catalogd_svg)
    static let all = [stylesheet, script, icon]
}

/// `GET /assets/{file}`: the page assets, cached for a year.
struct AssetsController<Context: RequestContext> {
    func addRoutes(to router: Router<Context>) {
        router.get("/assets/{file}", use: asset)
    }

    @Sendable func asset(_ request: Request, context: Context) async throws -> Response {
        guard let asset = PageAsset.all.first(where: { $0.path == request.uri.path }) else {
            throw Problem.notFound("no asset at \(request.uri.path)")
        }
        var headers = PageSecurity.headers
        headers[.contentType] = asset.contentType
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}
