// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "trailpack",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "trailpack", targets: ["trailpack"]),
        .library(name: "TrailPackCore", targets: ["TrailPackCore"]),
        .library(name: "TrailPackVerifier", targets: ["TrailPackVerifier"]),
        .library(name: "TrailPackBuilder", targets: ["TrailPackBuilder"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // System libraries, found by pkg-config. No Swift in these.
        .systemLibrary(name: "CLibArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // Manifest model, JSON, validation, path rules: pure Swift.
        .target(name: "TrailPackCore"),
        // SHA-256 (and signatures) over OpenSSL EVP.
        .target(name: "TrailPackCrypto", dependencies: ["CLibCrypto"]),
        // ZIP writing over libarchive; ZIP reading (our own central-directory parse) over zlib.
        .target(name: "TrailPackArchive", dependencies: ["CLibArchive", "CZlib", "TrailPackCore", "TrailPackCrypto"]),
        // Tour folder -> deterministic package.
        .target(name: "TrailPackBuilder", dependencies: ["TrailPackCore", "TrailPackCrypto", "TrailPackArchive"]),
        // Package -> report. A mobile client needs Core + Verifier (+ the C libraries) only.
        .target(name: "TrailPackVerifier", dependencies: ["TrailPackCore", "TrailPackCrypto", "TrailPackArchive"]),
        .executableTarget(
            name: "trailpack",
            dependencies: [
                "TrailPackCore", "TrailPackCrypto", "TrailPackArchive", "TrailPackBuilder", "TrailPackVerifier",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The verifier's fuzz target: `make fuzz` builds it with libFuzzer; built plainly it replays inputs.
        .executableTarget(name: "trailpack-fuzz", dependencies: ["TrailPackArchive", "TrailPackVerifier"]),
        .testTarget(
            name: "TrailPackTests",
            dependencies: ["TrailPackCore", "TrailPackCrypto", "TrailPackArchive", "TrailPackBuilder", "TrailPackVerifier", "CZlib"]
        ),
    ]
)
