extension PageRequest {
    /// The request as a search reads it: best match first (`ordering=relevance`) unless it names another ordering.
    /// Relevance ranks the matches of a search: without one it is an `InvalidQuery`.
    public func ranked(by search: SearchQuery?) throws -> PageRequest {
        var ranked = self
        if ordering == nil, search != nil { ranked.ordering = ListOrdering.relevance }
        if search == nil, let ordering, ordering.hasSuffix(ListOrdering.relevance) {
            throw InvalidQuery(parameter: "ordering", detail: "ordering=\(ordering) ranks the matches of a search: give search too")
        }
        return ranked
    }
}
