import CatalogModel
import CatalogStore
import CatalogStoreKit
import PostgresNIO

extension PostgresCatalogStore {
    public func upsertProducts(_ products: [Product], author: String) async throws -> WriteCounts {
        try await recordingTransaction(author: author) { connection, log in
            let alphabet = try await searchAlphabet.alphabet(connection, logger: log.logger)
            return try await PostgresStagedProducts.withStaged(products, on: connection, alphabet: alphabet, logger: log.logger) { staged in
                try await PostgresProductWriter(mode: .merge).apply(staged, log: &log)
            }
        }
    }

    public func upsertFilms(_ films: [Film], author: String) async throws -> WriteCounts {
        try await recordingTransaction(author: author) { connection, log in
            try await PostgresFilmWriter(mode: .merge).apply(films, log: &log)
        }
    }

    public func deleteProduct(serialCode: String, author: String) async throws -> Bool {
        try await deleteRow(.product, key: serialCode, author: author)
    }

    public func deleteFilm(episodeID: Int, author: String) async throws -> Bool {
        try await deleteRow(.film, key: String(episodeID), author: author)
    }

    private func deleteRow(_ entity: Change.Entity, key: String, author: String) async throws -> Bool {
        try await recordingTransaction(author: author) { connection, log in
            let sql = "DELETE FROM \(entity.table) WHERE \(entity.keyColumn)::text = $1 RETURNING 1"
            let deleted = try await fetch(connection, sql, [key], decode: Self.integer)
            guard !deleted.isEmpty else { return false }
            try await log.record(entity, keys: [key], .delete)
            return true
        }
    }
}
