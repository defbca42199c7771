// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "trailpack",
    // Linux is built and tested here; the Apple platforms are declared for the libraries an app
    // links (an iOS build needs a libcrypto: see docs/APP-DEVELOPERS.md). macOS 15 because the builder, the
    // panel and the command guard shared state with the standard library's Mutex (macOS 15, iOS 18);
    // the modules a phone links use no Mutex and keep to iOS 16.
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "trailpack", targets: ["trailpack"]),
        .library(name: "TrailPackFileIO", targets: ["TrailPackFileIO"]),
        .library(name: "TrailPackCore", targets: ["TrailPackCore"]),
        .library(name: "TrailPackCrypto", targets: ["TrailPackCrypto"]),
        // The ZIP reader (zlib only) and the writer (libarchive), apart: an app links the reader.
        .library(name: "TrailPackArchive", targets: ["TrailPackArchive"]),
        .library(name: "TrailPackArchiveWriter", targets: ["TrailPackArchiveWriter"]),
        .library(name: "TrailPackVerifier", targets: ["TrailPackVerifier"]),
        .library(name: "TrailPackBuilder", targets: ["TrailPackBuilder"]),
        // What a phone app links: download, check, install and read packages. No writer.
        .library(name: "TrailPackClient", targets: ["TrailPackClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // TLS for `trailpack serve --tls-certificate/--tls-key` (BoringSSL inside; the server target only).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The blob store in S3 (TrailPackS3): our own SigV4 client over AsyncHTTPClient, HMAC by swift-crypto.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // The shared catalog in PostgreSQL (TrailPackCatalogPostgres): several servers, one catalog.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // System libraries, found by pkg-config. No Swift in these.
        .systemLibrary(name: "CLibArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libdeflate's CRC-32 (several times zlib's): every byte a verifier or reader checks.
        .systemLibrary(name: "CLibDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // mallopt for the command's main (a library never sets the process's allocator).
        .systemLibrary(name: "CMallocPolicy"),
        // sync_file_range, which Swift's Glibc module does not declare (WriteBehind).
        .systemLibrary(name: "CWriteBehind"),

        // The one file-I/O layer: swift-system's FileDescriptor, FileIOError, AtomicFile.
        .target(
            name: "TrailPackFileIO",
            dependencies: ["CWriteBehind", .product(name: "SystemPackage", package: "swift-system")]),
        // Manifest model, JSON, validation, path rules: pure Swift.
        .target(name: "TrailPackCore"),
        // SHA-256 by libcrypto's SHA-256 functions; BLAKE2b and signatures over OpenSSL EVP.
        .target(
            name: "TrailPackCrypto",
            dependencies: [
                "CLibCrypto", "TrailPackCore", "TrailPackFileIO",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // ZIP reading (our own central-directory parse) over zlib (inflate) and libdeflate (CRC-32). No libarchive.
        .target(
            name: "TrailPackArchive",
            dependencies: [
                "CZlib", "CLibDeflate", "TrailPackCore", "TrailPackFileIO",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // ZIP writing over libarchive: what the builder links, never a client.
        .target(
            name: "TrailPackArchiveWriter",
            dependencies: [
                "CLibArchive", "TrailPackArchive", "TrailPackCrypto", "TrailPackFileIO",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // PMTiles v3 maps: the bounded reader, the checks against a tour's frame, the writer. Pure Swift + zlib (phones link it).
        .target(
            name: "TrailPackMap",
            dependencies: [
                "TrailPackCore", "CZlib", "TrailPackFileIO", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // Tour folder -> deterministic package.
        .target(
            name: "TrailPackBuilder",
            dependencies: [
                "TrailPackCore", "TrailPackCrypto", "TrailPackArchive", "TrailPackArchiveWriter", "TrailPackMap",
                "TrailPackFileIO", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // Package -> report. A mobile client needs Core + Verifier (+ the C libraries) only.
        .target(
            name: "TrailPackVerifier",
            dependencies: [
                "TrailPackCore", "TrailPackCrypto", "TrailPackArchive", "TrailPackMap", "TrailPackFileIO",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // What changed between two versions of a package, for reviewers (reads manifests through the verified reader).
        .target(name: "TrailPackDiff", dependencies: ["TrailPackCore"]),
        // The client: catalog API, resumable download, checks, atomic install (URLSession).
        .target(
            name: "TrailPackClient",
            dependencies: [
                "TrailPackCore", "TrailPackCrypto", "TrailPackArchive", "TrailPackVerifier", "TrailPackFileIO",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The one pool of threads for blocking work (writes, fsyncs, positioned reads, SQLite, scrypt),
        // handed to the catalog, the blob stores, the S3 client, the intake and the panel.
        .target(name: "TrailPackBlocking"),
        // The catalog's model and the CatalogStore protocol: no database in it.
        .target(
            name: "TrailPackCatalogModel", dependencies: ["TrailPackBlocking", "TrailPackCore", "TrailPackCrypto"]),
        // The catalog in SQLite (GRDB), with migrations: one server per data folder.
        .target(
            name: "TrailPackCatalog",
            dependencies: [
                "TrailPackCatalogModel", "TrailPackCore", "TrailPackCrypto", "TrailPackFileIO",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // The catalog in PostgreSQL (postgres-nio), with migrations: several servers sharing one catalog.
        .target(
            name: "TrailPackCatalogPostgres",
            dependencies: [
                "TrailPackCatalogModel", "TrailPackCore", "TrailPackCrypto",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // An S3-compatible object-store client: Signature V4 (swift-crypto) over AsyncHTTPClient, streaming.
        .target(
            name: "TrailPackS3",
            dependencies: [
                "TrailPackBlocking", "TrailPackFileIO", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The download server (Hummingbird 2).
        .target(
            name: "TrailPackServer",
            dependencies: [
                "TrailPackBlocking",
                "TrailPackCore", "TrailPackCrypto", "TrailPackVerifier", "TrailPackCatalog", "TrailPackCatalogModel",
                "TrailPackCatalogPostgres", "TrailPackS3", "TrailPackArchive", "TrailPackMap", "TrailPackDiff",
                "TrailPackFileIO",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // HTTPS: TLS by NIOSSL, HTTP/1.1 or HTTP/2 by ALPN (HummingbirdHTTP2's upgrade channel).
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        // The web control panel (issue 17): pages, sessions, static assets, mounted by `trailpack serve` at /.
        .target(
            name: "TrailPackPanel",
            dependencies: [
                "TrailPackBlocking",
                "TrailPackCore", "TrailPackCrypto", "TrailPackCatalogModel", "TrailPackServer", "TrailPackBuilder",
                "TrailPackArchive",
                "TrailPackArchiveWriter", "TrailPackVerifier", "TrailPackDiff", "TrailPackMap", "TrailPackFileIO",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The pages, the script and the style sheet, compiled into the program (nothing to find at run time).
            resources: [
                .embedInCode("Resources/templates/admin.mustache"),
                .embedInCode("Resources/templates/built.mustache"),
                .embedInCode("Resources/templates/changes.mustache"),
                .embedInCode("Resources/templates/columns.mustache"),
                .embedInCode("Resources/templates/editor.mustache"),
                .embedInCode("Resources/templates/error.mustache"),
                .embedInCode("Resources/templates/findings.mustache"),
                .embedInCode("Resources/templates/history.mustache"),
                .embedInCode("Resources/templates/home.mustache"),
                .embedInCode("Resources/templates/layout.mustache"),
                .embedInCode("Resources/templates/login.mustache"),
                .embedInCode("Resources/templates/notifications.mustache"),
                .embedInCode("Resources/templates/resume.mustache"),
                .embedInCode("Resources/templates/confirm.mustache"),
                .embedInCode("Resources/templates/review.mustache"),
                .embedInCode("Resources/templates/reviews.mustache"),
                .embedInCode("Resources/templates/routeSummary.mustache"),
                .embedInCode("Resources/templates/stop.mustache"),
                .embedInCode("Resources/templates/translate.mustache"),
                .embedInCode("Resources/templates/translateRow.mustache"),
                .embedInCode("Resources/panel.css"),
                .embedInCode("Resources/js/autosave.js"),
                .embedInCode("Resources/js/forms.js"),
                .embedInCode("Resources/js/grid.js"),
                .embedInCode("Resources/js/map.js"),
                .embedInCode("Resources/js/net.js"),
                .embedInCode("Resources/js/ordering.js"),
                .embedInCode("Resources/js/panel.js"),
                .embedInCode("Resources/js/route.js"),
                .embedInCode("Resources/js/uploads.js"),
            ]
        ),
        // The visitor app (issue 29): an offline web app of static files (ES modules, no build step),
        // served by `trailpack serve` at /visit/. Its JavaScript is tested by Node (Tests/VisitorAppJS).
        .target(
            name: "TrailPackVisitor",
            dependencies: [
                "TrailPackCore", "TrailPackCrypto", "TrailPackServer", "TrailPackVerifier",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // wasm/: the WebAssembly hashes' source (WAT); app/js/hashes.wasm is what it compiles to.
            exclude: ["wasm"],
            // The app's files, compiled into the program (scripts/embed_app.py writes this list).
            resources: [
                .embedInCode("app/app.css"),
                .embedInCode("app/icons/icon-192.png"),
                .embedInCode("app/icons/icon-512.png"),
                .embedInCode("app/icons/icon-maskable-192.png"),
                .embedInCode("app/icons/icon-maskable-512.png"),
                .embedInCode("app/icons/icon.svg"),
                .embedInCode("app/index.html"),
                .embedInCode("app/js/app.js"),
                .embedInCode("app/js/blake2b.js"),
                .embedInCode("app/js/boot.js"),
                .embedInCode("app/js/bytes.js"),
                .embedInCode("app/js/catalog.js"),
                .embedInCode("app/js/download-worker.js"),
                .embedInCode("app/js/downloader.js"),
                .embedInCode("app/js/ed25519.js"),
                .embedInCode("app/js/fasthash.js"),
                .embedInCode("app/js/guide.js"),
                .embedInCode("app/js/hash-worker.js"),
                .embedInCode("app/js/hashes.wasm"),
                .embedInCode("app/js/http.js"),
                .embedInCode("app/js/i18n.js"),
                .embedInCode("app/js/install.js"),
                .embedInCode("app/js/journal.js"),
                .embedInCode("app/js/keep.js"),
                .embedInCode("app/js/language-view.js"),
                .embedInCode("app/js/language.js"),
                .embedInCode("app/js/log-io.js"),
                .embedInCode("app/js/messages-en.js"),
                .embedInCode("app/js/messages-es.js"),
                .embedInCode("app/js/minisign.js"),
                .embedInCode("app/js/narration.js"),
                .embedInCode("app/js/own-view.js"),
                .embedInCode("app/js/pmtiles.js"),
                .embedInCode("app/js/route.js"),
                .embedInCode("app/js/sha256.js"),
                .embedInCode("app/js/status.js"),
                .embedInCode("app/js/storage.js"),
                .embedInCode("app/js/tour.js"),
                .embedInCode("app/js/trust.js"),
                .embedInCode("app/js/update-plan.js"),
                .embedInCode("app/js/updater.js"),
                .embedInCode("app/js/walk.js"),
                .embedInCode("app/js/zip.js"),
                .embedInCode("app/manifest.webmanifest"),
                .embedInCode("app/screenshots/a-stop.png"),
                .embedInCode("app/screenshots/find-a-tour.png"),
                .embedInCode("app/screenshots/my-log.png"),
                .embedInCode("app/sw.js"),
            ],
            // End of the app's files.
        ),
        .executableTarget(
            name: "trailpack",
            dependencies: [
                "TrailPackBlocking",
                "TrailPackCore", "TrailPackCrypto", "TrailPackArchive", "TrailPackBuilder", "TrailPackVerifier",
                "TrailPackServer", "TrailPackMap", "TrailPackPanel", "TrailPackVisitor",
                "TrailPackClient", "TrailPackDiff", "TrailPackCatalog", "TrailPackCatalogModel", "TrailPackFileIO",
                "CMallocPolicy",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // MBTiles (SQLite) for `map convert` and `map extract`: the CLI only; the map reader phones link has no SQLite.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The release program is linked by lld with relative relocations packed (DT_RELR, glibc
            // 2.36+) and without exporting its own symbols (the static standard library's link
            // arguments export them all). The dynamic loader then reads 52 KB of relocations instead
            // of 3.9 MB and no 5 MB symbol table: 5.6 MiB less resident from the first instruction
            // (`trailpack --version`: 29.2 MiB with gold, 23.6 with this). Nothing here looks itself
            // up by name: the one `dlsym` asks libc.
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-Xlinker", "--no-export-dynamic",
                    ],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // The split, proven: a program that links the client product alone (no writer, no libarchive).
        .executableTarget(name: "trailpack-client-example", dependencies: ["TrailPackClient"]),
        // Structure-aware mutation of ZIP archives (records and fields), for the fuzz target and the tests.
        .target(name: "TrailPackFuzzing", dependencies: ["TrailPackArchive", "TrailPackCore", "CZlib"]),
        // The verifier's fuzz target: `make fuzz` builds it with libFuzzer; built plainly it replays
        // inputs or generates structured ones (`--generate`).
        .executableTarget(
            name: "trailpack-fuzz",
            dependencies: [
                "TrailPackArchive", "TrailPackCore", "TrailPackVerifier", "TrailPackFuzzing", "TrailPackMap",
            ]),
        // The tests (Tests/README.md): one target per module, the integration tests, and their helpers.
        // Shared helpers: temporary folders, running programs, the peer-tool gates, ZipForge. No
        // builder and no writer, so that the verifier's tests can use them.
        .target(
            name: "TrailPackTestSupport", dependencies: ["TrailPackCore", "TrailPackArchive", "TrailPackFuzzing"],
            path: "Tests/TrailPackTestSupport"),
        // Fixtures made with the builder library (and the servers that serve them).
        .target(
            name: "TrailPackTestFixtures", dependencies: ["TrailPackTestSupport", "TrailPackCore", "TrailPackBuilder"],
            path: "Tests/TrailPackTestFixtures"),
        .testTarget(
            name: "TrailPackCoreTests", dependencies: ["TrailPackCore", "TrailPackFuzzing", "TrailPackTestSupport"]),
        .testTarget(name: "TrailPackCryptoTests", dependencies: ["TrailPackCrypto", "TrailPackTestSupport"]),
        .testTarget(
            name: "TrailPackArchiveTests",
            dependencies: [
                "TrailPackArchive", "TrailPackArchiveWriter", "TrailPackVerifier", "TrailPackFileIO",
                "TrailPackCrypto", "TrailPackTestSupport", "CWriteBehind", "CZlib",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "TrailPackMapTests",
            dependencies: ["TrailPackMap", "TrailPackCore", "TrailPackBuilder", "TrailPackTestSupport"]),
        .testTarget(
            name: "TrailPackBuilderTests",
            dependencies: [
                "TrailPackBuilder", "TrailPackCore", "TrailPackCrypto", "TrailPackVerifier", "TrailPackTestSupport",
                "TrailPackTestFixtures",
            ]
        ),
        // The verifier's checks with the ZIP reader alone: no writer, no builder can be imported here
        // (its packages are built by the trailpack program).
        .testTarget(
            name: "TrailPackVerifierTests",
            dependencies: [
                "TrailPackVerifier", "TrailPackArchive", "TrailPackCore", "TrailPackCrypto", "TrailPackTestSupport",
            ]),
        .testTarget(
            name: "TrailPackDiffTests",
            dependencies: ["TrailPackDiff", "TrailPackVerifier", "TrailPackTestSupport", "TrailPackTestFixtures"]
        ),
        .testTarget(
            name: "TrailPackClientTests",
            dependencies: ["TrailPackClient", "TrailPackArchive", "TrailPackTestSupport", "TrailPackTestFixtures"]),
        .testTarget(
            name: "TrailPackCatalogTests",
            dependencies: [
                "TrailPackBlocking",
                "TrailPackCatalog", "TrailPackCatalogModel", "TrailPackCatalogPostgres", "TrailPackCore",
                "TrailPackTestSupport", "TrailPackTestFixtures",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "TrailPackServerTests",
            dependencies: [
                "TrailPackServer", "TrailPackCatalog", "TrailPackCatalogModel", "TrailPackCore", "TrailPackBuilder",
                "TrailPackMap",
                "TrailPackTestSupport",
                "TrailPackTestFixtures",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TrailPackPanelTests",
            dependencies: [
                "TrailPackBlocking",
                "TrailPackPanel", "TrailPackServer", "TrailPackCatalog", "TrailPackCatalogModel", "TrailPackCore",
                "TrailPackCrypto",
                "TrailPackBuilder", "TrailPackVerifier",
                "TrailPackFileIO", "TrailPackTestSupport", "TrailPackTestFixtures",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TrailPackFuzzingTests",
            dependencies: ["TrailPackFuzzing", "TrailPackArchive", "TrailPackVerifier", "TrailPackTestSupport"]),
        // The S3 client: signatures against AWS's examples and botocore, and every call against a real
        // SeaweedFS S3 gateway started by the tests (`make deps` installs `weed`).
        .testTarget(
            name: "TrailPackS3Tests",
            dependencies: [
                "TrailPackS3", "TrailPackTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        // Tests that run the trailpack program (its commands, `trailpack serve`) or check it end to
        // end against the peer tools (unzip, bsdtar, 7z, minisign, Python's zipfile, jsonschema and
        // pmtiles, curl, clamscan, Chromium).
        .testTarget(
            name: "TrailPackIntegrationTests",
            dependencies: [
                "TrailPackCore", "TrailPackCrypto", "TrailPackArchive", "TrailPackBuilder", "TrailPackVerifier",
                "TrailPackCatalog", "TrailPackCatalogModel", "TrailPackClient", "TrailPackS3",
                "TrailPackMap", "TrailPackPanel", "TrailPackTestSupport", "TrailPackTestFixtures",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ]
)
