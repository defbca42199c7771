/// Takes a manifest's stop assets as they are read (``ManifestReader/read(chunks:limits:assets:)``),
/// one stop at a time: a verifier checks them against its package's entries then and there, so
/// that the assets of a large tour (100,000 of them are 17 MB of model) need not all be held.
public protocol ManifestAssetSink: AnyObject {
    /// The assets of the stop at `waypoint` among the manifest's stops as decoded, numbered on from
    /// `first` (each stop's assets in order, across the stops): the reader calls it in the stops'
    /// order, on the thread that reads.
    func take(_ assets: [Asset], waypoint: Int, first: Int)
    /// The path of the asset numbered `number`, as given to ``take(_:waypoint:first:)``.
    func path(ofAsset number: Int) -> String
    /// Whether the manifest read keeps every stop's assets; false: only those with any detail
    /// (a title, texts, a language, translations, map fields, or a `sha256` that is not 64
    /// lowercase hex digits), which the language rules read, and the captions files those name, so
    /// that a stop's `assets` are a part of what its manifest lists.
    var keepsAssets: Bool { get }
    /// About how many assets the manifest may list (room is made for them; more still fit).
    var assetCapacity: Int { get }
}

/// The rules on the stops' assets, run as each stop is read when a sink takes its assets, and what
/// they found, for ``ManifestValidator/validate(_:unreadable:precheck:)`` to put in its place.
final class AssetPrecheck {
    let sink: any ManifestAssetSink
    /// How many stop assets were read.
    private(set) var assetCount = 0
    /// Each stop's asset and accessibility findings, by the stop's position in the manifest's
    /// `waypoints` as decoded (stops without any are absent).
    private(set) var stopFindings: [Int: [Finding]] = [:]
    /// The stops' assets that carry `map` fields, in order.
    private(set) var mapFieldFindings: [Finding] = []
    /// For a stop some of whose assets were let go (by its position, as ``stopFindings``): the
    /// positions of those kept among its assets.
    private(set) var keptIndices: [Int: [Int32]] = [:]
    private var paths: FoldedPaths?

    init(sink: any ManifestAssetSink) { self.sink = sink }

    /// Checks the stop at position `i` as it is read, hands its assets to the sink, and lets go of
    /// those no later rule reads (unless the sink keeps them all).
    func take(_ w: inout Waypoint, at i: Int) {
        let first = assetCount
        sink.take(w.assets, waypoint: i, first: first)
        if paths == nil {
            let sink = self.sink
            paths = FoldedPaths(
                capacity: min(sink.assetCapacity, ManifestValidator.maxAssets), name: { sink.path(ofAsset: $0) })
        }
        var f: [Finding] = []
        var number = first
        ManifestValidator.checkStopAssets(
            w, JSONPath.root.member("waypoints").element(i), number: &number, paths: &paths!, &f)
        if !f.isEmpty { stopFindings[i] = f }
        ManifestValidator.checkStopMapFields(w, i, &mapFieldFindings)
        assetCount += w.assets.count
        guard !sink.keepsAssets else { return }
        // Kept: what the language rules read (assets with any details), and the first asset at
        // each captions path those name (its language, or that it is listed at all).
        var keep = w.assets.map(\.hasDetails)
        for a in w.assets where a.hasDetails {
            var named = a.captions.map { [$0] } ?? []
            for tag in a.translations.languages(orderedBy: []) {
                if let c = a.translations[tag, .captions] { named.append(c) }
            }
            for c in named {
                if let at = w.assets.firstIndex(where: { $0.path == c }) { keep[at] = true }
            }
        }
        guard keep.contains(false) else { return }
        var kept: [Asset] = []
        var positions: [Int32] = []
        for (j, a) in w.assets.enumerated() where keep[j] {
            kept.append(a)
            positions.append(Int32(j))
        }
        w.assets = kept
        if !kept.isEmpty { keptIndices[i] = positions }
    }

    /// The folded paths of the stops' assets, to go on with the map assets of `m` (numbered after them).
    func mapPaths(_ m: Manifest) -> FoldedPaths {
        let sink = self.sink
        let stops = assetCount
        let maps = m.mapAssets
        var paths = self.paths ?? FoldedPaths(capacity: maps.count)
        paths.name = { $0 < stops ? sink.path(ofAsset: $0) : maps[$0 - stops].path }
        return paths
    }
}

extension ManifestValidator {
    /// ``ManifestValidator/validate(_:unreadable:)`` a stop at a time, for a writer that makes a
    /// manifest's stops one by one and need not hold all their assets (the builder, whose 100,000
    /// files would be 17 MB of assets): each stop is checked as it is made, its assets handed to
    /// the sink and let go unless it keeps them, then the whole is checked with the same findings
    /// in the same order as `validate` gives for the manifest with every asset.
    public final class StopByStop {
        private let precheck: AssetPrecheck

        /// Checks stops whose assets go to `sink` (which names them by number for the rules that
        /// compare paths, and says whether they are kept).
        public init(assets sink: any ManifestAssetSink) { precheck = AssetPrecheck(sink: sink) }

        /// Checks the stop at position `i` of the manifest's `waypoints` (given in order, each
        /// once) and lets go of the assets no later rule reads, unless the sink keeps them all.
        public func take(_ w: inout Waypoint, at i: Int) { precheck.take(&w, at: i) }

        /// How many stop assets were taken.
        public var assetCount: Int { precheck.assetCount }

        /// Every finding for `m`, whose `waypoints` are the stops given to ``take(_:at:)``, in order.
        public func validate(_ m: Manifest) -> [Finding] {
            ManifestValidator.validate(m, unreadable: [], precheck: precheck)
        }
    }
}
