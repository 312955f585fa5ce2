import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB
import GRDBSQLite

extension SQLiteCatalogStore {
    /// Upserts products through the API in one transaction.
    public func upsertProducts(_ products: [Product], author: String) async throws -> WriteCounts {
        try await write { db in
            var log = try SQLiteChangeLog(db, author: author)
            let counts = try SQLiteProductWriter.apply(products, mode: .merge, db: db, log: &log)
            try log.finish()
            return counts
        }
    }

    /// Upserts films through the API in one transaction.
    public func upsertFilms(_ films: [Film], author: String) async throws -> WriteCounts {
        try await write { db in
            var log = try SQLiteChangeLog(db, author: author)
            let counts = try SQLiteFilmWriter(db: db, mode: .merge).apply(films, log: &log)
            try log.finish()
            return counts
        }
    }

    /// Deletes one product; false when there was none.
    public func deleteProduct(serialCode: String, author: String) async throws -> Bool {
        try await deleteRow(.product, key: serialCode, author: author)
    }

    /// Deletes one film and its links; false when there was none.
    public func deleteFilm(episodeID: Int, author: String) async throws -> Bool {
        try await deleteRow(.film, key: String(episodeID), author: author)
    }

    private func deleteRow(_ entity: Change.Entity, key: String, author: String) async throws -> Bool {
        try await write { db in
            var log = try SQLiteChangeLog(db, author: author)
            try db.execute(sql: "DELETE FROM \(entity.table) WHERE \(entity.keyColumn) = ?", arguments: [key])
            guard db.changesCount > 0 else { return false }
            try log.record(entity, key: key, .delete)
            try log.finish()
            return true
        }
    }
}
