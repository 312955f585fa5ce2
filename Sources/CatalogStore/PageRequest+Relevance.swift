extension PageRequest {
    /// The request as a search reads it: best match first (`ordering=relevance`) unless it names another ordering.
    /// Without a search every row is as relevant as the next: `relevance` is then the list's own ordering
    /// (reversed with `-`), so that a client may keep it on while the search box is empty.
    public func ranked(by search: SearchQuery?, in listOrdering: ListOrdering) -> PageRequest {
        var ranked = self
        if ordering == nil, search != nil { ranked.ordering = ListOrdering.relevance }
        if search == nil, let ordering, ordering.hasSuffix(ListOrdering.relevance) {
            let reversed = ordering.hasPrefix("-") != listOrdering.defaultOrdering.hasPrefix("-")
            ranked.ordering = (reversed ? "-" : "") + listOrdering.keyField
        }
        return ranked
    }
}
