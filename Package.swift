// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "catalogd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "catalogd", targets: ["catalogd"]),
        .executable(name: "catalog-fixtures", targets: ["catalog-fixtures"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .target(
            name: "CatalogModel",
            swiftSettings: swiftSettings
        ),
        // The store's interface; one target per engine behind it (SQLiteStore, PostgresStore).
        .target(
            name: "CatalogStore",
            dependencies: [
                "CatalogModel",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // What both engines do alike, for them alone (package access): write modes, keyset comparisons, the channel
        // a streamed listing's batches cross into its transaction.
        .target(
            name: "CatalogStoreKit",
            dependencies: ["CatalogModel", "CatalogStore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SQLiteStore",
            dependencies: [
                "CatalogModel",
                "CatalogStore",
                "CatalogStoreKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PostgresStore",
            dependencies: [
                "CatalogModel",
                "CatalogStore",
                "CatalogStoreKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CatalogImport",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                "CatalogModel",
                "CatalogStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CatalogAPI",
            dependencies: [
                "CatalogModel",
                "CatalogStore",
                "CatalogImport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            // A symbolic link to the repository's openapi.yaml, compiled in as PackageResources.openapi_yaml; the
            // pages' stylesheet, script and icon, as PackageResources.catalogd_css, catalogd_js and catalogd_svg.
            resources: [
                .embedInCode("openapi.yaml"), .embedInCode("Assets/catalogd.css"), .embedInCode("Assets/catalogd.js"),
                .embedInCode("Assets/catalogd.svg"),
            ],
            swiftSettings: swiftSettings
        ),
        // glibc's allocator settings, which Swift's Glibc module does not export.
        .target(name: "CMallocArenas"),
        .executableTarget(
            name: "catalogd",
            dependencies: [
                "CMallocArenas",
                "CatalogAPI",
                "CatalogImport",
                "CatalogStore",
                "PostgresStore",
                "SQLiteStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CatalogFixtures",
            dependencies: [
                "CatalogModel",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "catalog-fixtures",
            dependencies: [
                "CatalogFixtures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        // A fresh store on each backend, for the test targets.
        .target(
            name: "CatalogTestSupport",
            dependencies: [
                "CatalogStore", "PostgresStore", "SQLiteStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/CatalogTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogModelTests",
            dependencies: ["CatalogModel"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogStoreTests",
            dependencies: [
                "CatalogStore", "CatalogStoreKit", "SQLiteStore", "PostgresStore", "CatalogModel", "CatalogFixtures", "CatalogTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // The schema snapshots SchemaSnapshotTests compares fresh and migrated stores with.
            exclude: ["Schema"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogImportTests",
            dependencies: [
                "CatalogImport", "CatalogStore", "SQLiteStore", "CatalogModel", "CatalogFixtures", "CatalogTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogAPITests",
            dependencies: [
                "CatalogAPI", "CatalogStore", "SQLiteStore", "PostgresStore", "CatalogModel", "CatalogImport", "CatalogFixtures",
                "CatalogTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogdTests",
            dependencies: ["catalogd"],
            swiftSettings: swiftSettings
        ),
    ]
)
