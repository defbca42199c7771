// swift-tools-version:6.0
// A peer for `make bench` only: what a Swift developer would reach for. trailpack does not depend on it.
import PackageDescription

let package = Package(
    name: "zf-bench",
    dependencies: [.package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20")],
    targets: [.executableTarget(name: "zf-bench", dependencies: [.product(name: "ZIPFoundation", package: "ZIPFoundation")])]
)
