import CatalogTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import PostgresStore

/// Migration v14 replaced `catalog_search_words` without computing a single stored vector again: that holds only if
/// it gives what v4's function gave for every text. Each code point is folded in the contexts where v4's function
/// treated it differently: after a Latin letter, before combining marks, after Ǡ's marks, beside punctuation, alone,
/// and in text that is all ASCII.
@Suite("The words of a search folded by v14 are those of v4 (PostgreSQL)")
struct SearchWordsFoldTests {
    static let logger = Logger(label: "catalogd-tests")

    /// v4's `catalog_search_words`, as it shipped, under a temporary name.
    static var shippedFunction: String {
        get throws {
            let statement = try #require(PostgresSchema.searchVectors.first { $0.contains("FUNCTION catalog_search_words(") })
            return statement.replacingOccurrences(of: "FUNCTION catalog_search_words(", with: "FUNCTION pg_temp.shipped_search_words(")
        }
    }

    /// The code points that fold otherwise than a letter of no decomposition could: all of planes 0 and 1 but the
    /// surrogates, the compatibility ideographs of plane 2 (which decompose), the first 4,096 of plane 14 (all it
    /// assigns); and one in 97 of the rest of planes 2 and 3, which are ideographs alone. The planes above hold no
    /// letters, digits or marks.
    static let points = """
        SELECT point FROM generate_series(1, 921599) AS point
        WHERE point < 55296 OR point BETWEEN 57344 AND 131071 OR point BETWEEN 194560 AND 195103
            OR (point BETWEEN 131072 AND 262143 AND point % 97 = 0) OR point >= 917504
        """
    /// How many `points` are: below the surrogates, above them through plane 1, the compatibility ideographs, the 1,351
    /// sampled ideographs but the 6 of them among those, plane 14's.
    static let pointCount = 55_295 + 73_728 + 544 + 1_351 - 6 + 4_096

    /// Each code point in the contexts where v4's function treats it differently: after a Latin letter, before
    /// combining marks, beside punctuation, doubled, and beside Ǡ's marks, which compose again once folded. Then each
    /// code point of the Basic Multilingual Plane in text that is in NFC once its marks are gone but for what the point
    /// brings; each ASCII character in text that is all ASCII; and the empty text.
    static let texts = """
        SELECT 'a' || chr(point) || chr(769) || ' b' || chr(point) || ' A' || chr(775) || chr(772) || chr(point) || ' '
            || chr(point) || '.x' || chr(point) || chr(point) || 'Z' || chr(803) || chr(point) AS text
        FROM (\(points)) AS points
        UNION ALL
        SELECT 'e' || chr(769) || chr(point) || ' ' || chr(point) || 'n' || chr(771) FROM (\(points)) AS points WHERE point < 65536
        UNION ALL
        SELECT 'x' || chr(point) || 'y-' || chr(point) || chr(point) FROM generate_series(1, 127) AS point
        UNION ALL
        SELECT ''
        """
    /// How many code points of the Basic Multilingual Plane `points` holds.
    static let basicPlanePoints = 65_535 - 2_048

    @Test func everyCodePointFoldsAsV4FoldedIt() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        let shipped = try Self.shippedFunction
        let counts = try await store.transaction(.write) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: shipped), logger: Self.logger)
            let comparison = """
                SELECT COUNT(*)::bigint,
                    COUNT(*) FILTER (WHERE catalog_search_words(text) IS DISTINCT FROM pg_temp.shipped_search_words(text))::bigint,
                    COUNT(*) FILTER (WHERE pg_temp.shipped_search_words(text) <> regexp_replace(text, '[!-/:-@[-`{-~]+', ' ', 'g'))::bigint
                FROM (\(Self.texts)) AS texts
                """
            var counts: [(Int64, Int64, Int64)] = []
            let rows = try await connection.query(PostgresQuery(unsafeSQL: comparison), logger: Self.logger)
            for try await row in rows.decode((Int64, Int64, Int64).self) { counts.append(row) }
            return counts
        }
        let (texts, differing, folded) = try #require(counts.first)
        let marked = Int64(Self.pointCount + Self.basicPlanePoints)
        #expect(texts == marked + 127 + 1)
        // Every text with a mark is folded beyond its punctuation: the comparison reaches the marks' removal.
        #expect(folded == marked)
        #expect(differing == 0, "\(differing) of \(texts) texts fold otherwise than v4 folded them")
    }
}
