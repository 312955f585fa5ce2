/// The frame of every page: the head with the assets, a skip link, the site's navigation with the current section
/// marked, the page's own content in `main`, and a footer that links to the same view as JSON.
enum PageLayout {
    /// The sections the navigation lists, by path.
    static let sections: [(path: String, title: String)] = [
        ("/", "Overview"), ("/products", "Products"), ("/categories", "Categories"), ("/films", "Films"), ("/imports", "Imports"),
        ("/changes", "Changes"),
    ]

    /// The page; with `refreshSeconds`, one the browser loads again after that long (an import that is running).
    static func render(
        title: String, section: String, jsonURL: String, refreshSeconds: Int? = nil, _ content: (inout HTMLWriter) throws -> Void
    ) rethrows -> [UInt8] {
        var html = HTMLWriter()
        html.markup("<!DOCTYPE html>\n")
        html.open("html", ["lang": "en"])
        html.element("head") { head in
            head.open("meta", ["charset": "utf-8"])
            head.open("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
            if let refreshSeconds { head.open("meta", ["http-equiv": "refresh", "content": String(refreshSeconds)]) }
            head.element("title", "\(title) · catalogd")
            head.open("link", ["rel": "stylesheet", "href": PageAsset.stylesheet.path])
            head.open("link", ["rel": "icon", "type": "image/svg+xml", "href": PageAsset.icon.path])
            head.element("script", ["src": PageAsset.script.path, "defer": ""]) { _ in }
            head.open("link", ["rel": "alternate", "type": "application/json", "href": jsonURL])
        }
        html.open("body")
        html.element("a", ["class": "skip", "href": "#main"], "Skip to the content")
        html.element("header", ["class": "site"]) { header in
            header.element("div", ["class": "bar"]) { bar in
                bar.element("a", ["class": "brand", "href": "/"], "catalogd")
                bar.element("nav", ["aria-label": "Sections"]) { nav in
                    nav.element("ul") { list in
                        for (path, name) in sections {
                            list.element("li") { item in
                                item.element("a", ["href": path, "aria-current": path == section ? "page" : nil], name)
                            }
                        }
                    }
                }
            }
        }
        try html.element("main", ["id": "main"]) { main in
            main.element("h1", title)
            try content(&main)
        }
        html.element("footer", ["class": "site"]) { footer in
            footer.text("The same view as ")
            footer.link(jsonURL, "JSON")
            footer.text(" · catalogd keeps a local copy of a remote catalogue in sync and serves it.")
        }
        html.close("body")
        html.close("html")
        return html.bytes
    }
}
