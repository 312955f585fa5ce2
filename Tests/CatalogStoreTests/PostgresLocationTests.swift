import PostgresStore
import Testing

@Suite("PostgreSQL URLs")
struct PostgresLocationTests {
    @Test func everyPartIsReadAndThePasswordNeverShows() throws {
        let location = try PostgresLocation(url: "postgresql://cat%40alog:s3cret%2541@db.internal:6543/catalog?sslmode=verify-full")
        #expect(location.username == "cat@alog")
        #expect(location.password == "s3cret%41", "decoded once, as the URL gives it")
        #expect(location.host == "db.internal")
        #expect(location.port == 6543)
        #expect(location.database == "catalog")
        #expect(location.tls == .verifyFull)
        #expect(location.description == "postgres://cat@alog:***@db.internal:6543/catalog?sslmode=verify-full")
        #expect(!location.description.contains("s3cret"))
        let defaults = try PostgresLocation(url: "postgres://catalogd@localhost/catalog")
        #expect(defaults.port == 5432)
        #expect(defaults.tls == .prefer)
        #expect(defaults.password == nil)
        #expect(PostgresLocation.names("postgres://x") && !PostgresLocation.names("./data/catalog.sqlite"))
    }

    @Test(arguments: [
        ("postgres://:pw@host/db", "the URL names no user"),
        ("postgres://user:pw@/db", "the URL names no host"),
        ("postgres://user:pw@host", "the URL names no database"),
        ("postgres://user:pw@host/db?sslmode=maybe", "sslmode must be one of disable, prefer, require, verify-full"),
        ("postgres://user:pw@host/db?password=x", "unknown parameter 'password'; only sslmode is read"),
    ])
    func aBadURLSaysWhatIsWrongWithoutThePassword(url: String, reason: String) {
        #expect(throws: InvalidPostgresURL(reason: reason)) { try PostgresLocation(url: url) }
    }
}
