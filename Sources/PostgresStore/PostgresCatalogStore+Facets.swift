import CatalogStore
import PostgresNIO

extension PostgresCatalogStore {
    public func productFacets(_ filter: ProductFilter, fields: [ProductFacetField], size: Int) async throws -> ProductFacets {
        let base = frequentTerms.latest
        return try await transaction(.read) { [logger] connection in
            var filter = filter
            var terms: PostgresCurrentFrequentTerms?
            let versions: StoreVersions
            // The sets made exact at this snapshot answer a search when they hold every word of it.
            if let base, base.mayAnswer(filter, page: false), filter.searchQuery != nil {
                (versions, terms) = try await PostgresCurrentFrequentTerms.read(
                    base, filter: filter, searches: PostgresCurrentFrequentTerms.searches(of: filter, in: base), connection, logger: logger)
            } else {
                versions = try await Self.versions(connection, logger: logger)
            }
            if let terms {
                // The facets of the search the page read: corrected when it was.
                if let (corrected, _) = try terms.corrected(filter) { filter = corrected }
                if let typed = filter.searchQuery,
                    let selected = try terms.selection(filter, search: try terms.current.expanded(typed, matchChanged: terms.matchChanged))
                {
                    return ProductFacets(counts: fields.map { ($0, terms.current.facetValues($0, among: selected, size: size)) }, versions: versions)
                }
            }
            // The categories of the whole listing are its derived counts; the other facets are counted together, in
            // one pass over the selected rows grouped by all their fields (a common search selects most of the table).
            let derived = filter.isEmpty ? fields.filter { $0 == .category } : []
            let grouped = fields.filter { !derived.contains($0) }
            var values: [ProductFacetField: [FacetValue]] = [:]
            if !derived.isEmpty {
                let query: PostgresQuery = "SELECT name, product_count::bigint FROM categories ORDER BY product_count DESC, name LIMIT \(size)"
                values[.category] = try await connection.query(query, logger: logger)
                    .decode((String, Int).self).reduce(into: []) { $0.append(FacetValue(value: $1.0, count: $1.1)) }
            }
            if !grouped.isEmpty {
                let query = filter.query
                let selected = PostgresListing.products.selecting(PostgresConditions(query.conditions), query.search)
                let columns = grouped.map(\.rawValue).joined(separator: ", ")
                let sql = "SELECT \(columns), COUNT(*) FROM products \(selected.whereSQL) GROUP BY \(columns)"
                // Values are told apart by their bytes, as the database compares them, not by Swift's canonical equivalence.
                var tallies = [[[UInt8]: Int]](repeating: [:], count: grouped.count)
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: selected.binds), logger: logger) {
                    let cells = Array(row)
                    let count = try cells[grouped.count].decode(Int.self)
                    for index in grouped.indices {
                        // Products without a brand hold ''; they are not a value of the facet.
                        let value = try cells[index].decode(String.self)
                        if !value.isEmpty { tallies[index][Array(value.utf8), default: 0] += count }
                    }
                }
                for (field, tally) in zip(grouped, tallies) {
                    values[field] = FacetValue.largestFirst(
                        tally.map { FacetValue(value: String(decoding: $0.key, as: UTF8.self), count: $0.value) }, size: size)
                }
            }
            return ProductFacets(counts: fields.map { ($0, values[$0] ?? []) }, versions: versions)
        }
    }
}
