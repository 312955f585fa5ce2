import CatalogModel
import CatalogStore
import Hummingbird

/// `/films` and `/films/{episode_id}` as pages: the films with their derived counts, and one film with its links.
struct FilmPages {
    let reads: ResourceReads

    static let listPage = ListPage<FilmRow>(
        title: "Films", section: "/films", noun: ("film", "films"),
        columns: [
            .init(title: "Episode", ordering: "episode_id", isNumber: true), .init(title: "Title", ordering: "title"),
            .init(title: "Director", ordering: "director"), .init(title: "Released", ordering: "release_date"),
        ] + FilmLinkKind.allCases.map { .init(title: $0.rawValue.capitalized, isNumber: true) },
        cells: cells, empty: "No films match.", searchLabel: "Search by title, director, producer or opening crawl")

    func list(_ request: Request) async throws -> Response {
        try await reads.list(request, page: Self.listPage) { query in
            try await reads.store.films(FilmsController<BasicRequestContext>.filter(query), page: try query.pageRequest())
        }
    }

    func item(_ request: Request, episodeID: Int) async throws -> Response {
        try await reads.itemPage(
            request, notFound: "no film with episode_id \(episodeID)",
            fetch: { try await RowHistory.read(reads.store, .film, key: String(episodeID)) { try await reads.store.film(episodeID: episodeID) } },
            section: "/films", back: "All films", title: \.row.film.title
        ) { item, html in
            let (row, film) = (item.row, item.row.film)
            PageTable.fields(
                [
                    ("Episode", .init(String(film.episodeID))), ("Title", .init(film.title)),
                    ("Director", .init(film.director, link: "/films?director=" + PathComponent.encode(film.director))),
                    ("Producer", .init(film.producer)), ("Released", .init(film.releaseDate)), ("Opening crawl", .init(film.openingCrawl)),
                    ("Created upstream", .init(film.created)), ("Edited upstream", .init(film.edited)),
                    ("Source", .init(row.source == "api" ? "written through the API" : "the \(row.source) feed")),
                    ("Upstream address", .init(film.sourceURL, link: PageURLs.external(film.sourceURL))),
                    ("Last change", .init("#\(row.changedSeq)", link: "/changes?since=\(max(row.changedSeq - 1, 0))")),
                ], into: &html)
            html.element("h2", "Links")
            html.element("div", ["class": "card"]) { card in
                for kind in FilmLinkKind.allCases {
                    let links = film.links(kind)
                    card.element("details") { details in
                        details.element("summary", PageTable.counted(row.counts[kind] ?? 0, kind.singular, kind.rawValue))
                        details.element("ul") { list in
                            for link in links {
                                list.element("li") { item in
                                    if let external = PageURLs.external(link) { item.link(external, link) } else { item.text(link) }
                                }
                            }
                        }
                    }
                }
            }
            item.write(into: &html)
        }
    }

    @Sendable static func cells(_ row: FilmRow) -> [PageTable.Cell] {
        let film = row.film
        return [
            .init(String(film.episodeID), link: "/films/\(film.episodeID)"), .init(film.title, link: "/films/\(film.episodeID)"),
            .init(film.director, link: "/films?director=" + PathComponent.encode(film.director)), .init(film.releaseDate),
        ] + FilmLinkKind.allCases.map { .init(String(row.counts[$0] ?? 0)) }
    }
}
