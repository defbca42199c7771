import TrailPackCore

/// How much a phone should be asked to download and keep: above it, `validate` and `build` warn
/// (`source.asset-large`, `source.package-large`) with the figure. Visitors download a tour over
/// the park's Wi-Fi or their data plan and keep every file of it offline.
public struct PhoneBudget: Sendable, Equatable {
    /// The largest single asset without a warning.
    public var assetBytes: Int64
    /// The largest total of all assets without a warning.
    public var packageBytes: Int64

    public init(
        assetBytes: Int64 = PhoneBudget.default.assetBytes, packageBytes: Int64 = PhoneBudget.default.packageBytes
    ) {
        self.assetBytes = assetBytes
        self.packageBytes = packageBytes
    }

    /// 100 MiB for one file (about 20 minutes of 720p video), 500 MiB for a tour.
    public static let `default` = PhoneBudget(uncheckedAsset: 100 << 20, package: 500 << 20)

    private init(uncheckedAsset: Int64, package: Int64) {
        assetBytes = uncheckedAsset
        packageBytes = package
    }

    /// The warnings for `files`.
    func findings(_ files: some Sequence<TourSource.SourceFile>) -> [Finding] {
        var out: [Finding] = []
        for f in files where f.size > assetBytes {
            let advice =
                f.type.kind == .video
                ? "export the video smaller (720p is about 5 MB a minute) or shorter"
                : (f.type.kind == .image
                    ? "export the image smaller (2000 pixels wide is plenty for a phone)" : "make the file smaller")
            out.append(
                Finding(
                    .sourceAssetLarge, file: f.relativePath,
                    "this file is \(Format.bytes(f.size)); phones keep every file of the tour, and the budget for one file is \(Format.bytes(assetBytes)) (--asset-budget-mb); \(advice)"
                ))
        }
        let total = files.reduce(0) { $0 + $1.size }
        if total > packageBytes {
            let largest = files.sorted { $0.size > $1.size }.prefix(3).map {
                "\($0.relativePath) (\(Format.bytes($0.size)))"
            }
            out.append(
                Finding(
                    .sourcePackageLarge,
                    "the tour's files add up to \(Format.bytes(total)); the budget for a phone is \(Format.bytes(packageBytes)) (--package-budget-mb). The largest: \(largest.joined(separator: ", "))"
                ))
        }
        return out
    }
}
