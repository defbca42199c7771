import Foundation
import Synchronization
import TrailPackArchive
import TrailPackArchiveWriter
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackMap

#if canImport(Glibc)
import Glibc
#endif

/// Builds a package from a tour folder: plan (read, check, hash), then write (atomically).
public enum TourBuilder {
    /// The default time stamped on every entry: 1980-01-01T00:00:00Z, the earliest DOS time.
    public static let defaultTimestamp: Int64 = 315_532_800
    /// The latest time a ZIP's DOS date can hold: 2107-12-31.
    public static let latestTimestamp: Int64 = 4_354_819_199

    /// A checked tour, with every asset hashed: what will be written.
    ///
    /// It holds no `TourSource`, but the folder's per-file records, each stop's list as the folder
    /// was read (``FileRecords``): moved, never copied into one list (the two were held side by
    /// side as the plan was made, 9.6 MB at 100,000 files), and given up stop by stop as they are
    /// written.
    public struct Plan: Sendable {
        /// What `manifest.json` will say, but for the stops' assets: each stop holds only those
        /// with any detail (a title, texts, a language, translations) and the captions files those
        /// name, what the language rules read. The rest are made
        /// from `files` when asked for (``manifest``, ``assets(ofStop:)``), never all held: 17 MB
        /// at 100,000 files.
        public let outline: Manifest
        /// Every file to package, by its position in the folder's order: the stops' files, stop by
        /// stop, then the maps'.
        var records: FileRecords
        /// The positions in entry order (after `manifest.json`): the package's entries are sorted
        /// by path, the records are not moved.
        let entryOrder: [Int32]
        /// Each file's SHA-256, by its position in the folder's order.
        let digests: [Bytes32]
        /// Every file to package, in entry order: a new list of every record at each call (4.8 MB
        /// at 100,000 files), for callers that want them all at once; the write reads the records
        /// by position.
        public var files: [TourSource.SourceFile] { entryOrder.map { records[Int($0)] } }
        /// The files the builder makes itself (the route, `map/route.geojson`), written in their
        /// place among `files` by path.
        public var generated: [GeneratedEntry] = []
        public var findings: [Finding]
        public var totalBytes: Int64 { records.reduce(0) { $0 + $1.size } }
        /// The size of `manifest.json` (`manifest.canonicalBytes`, counted by `plan` without
        /// holding them: they are made again, a piece at a time, as they are written).
        var manifestSize: Int

        /// What `manifest.json` will say, every asset made (from `files`) when asked for.
        public var manifest: Manifest {
            var m = outline
            for i in m.waypoints.indices { m.waypoints[i].assets = assets(ofStop: i) }
            return m
        }

        /// The assets of the stop at position `i` of the manifest's `waypoints`, as `manifest.json` lists them.
        public func assets(ofStop i: Int) -> [Asset] {
            guard i < records.stopCount else { return [] }
            let first = Int(records.starts[i])
            return records.groups[i].enumerated().map { k, f in
                TourBuilder.asset(f, digest: digests[first + k], map: nil)
            }
        }

        /// How many assets the manifest lists (the stops' and the maps').
        public var assetCount: Int { records.stopFileCount + outline.mapAssets.count }

        /// The bytes a phone needs for a visitor of `language` (``Manifest/bytes(for:)``),
        /// without making the stops' assets.
        public func phoneBytes(for language: String?) -> Int64 {
            var total = outline.mapAssets.reduce(0) { $0 + $1.size }
            for stop in records.groups.prefix(records.stopCount) {
                for f in stop where f.language == nil || f.language == language { total += f.size }
            }
            return total
        }
    }

    /// The asset `manifest.json` lists for the folder's file `f` (of that SHA-256, and that map's
    /// fields for a PMTiles map).
    static func asset(_ f: TourSource.SourceFile, digest: Bytes32?, map: MapInfo?) -> Asset {
        // Not hashed (a plan for its findings only): 64 zeros.
        Asset(
            path: f.archivePath, kind: f.type.kind, mediaType: f.type.mediaType, size: f.size,
            sha256: digest ?? Bytes32(), title: f.title, map: map, alt: f.alt, transcript: f.transcript,
            captions: f.captions, language: f.language, translations: f.translations)
    }

    /// The paths of a plan's stop assets by number (their position in the folder's order), for
    /// the validator's rules that compare paths; it keeps none of the assets it is given.
    private final class PlannedPaths: ManifestAssetSink {
        let files: FileRecords
        init(_ files: FileRecords) { self.files = files }
        func take(_ assets: [Asset], waypoint: Int, first: Int) {}
        func path(ofAsset number: Int) -> String { files[number].archivePath }
        var keepsAssets: Bool { false }
        var assetCapacity: Int { files.count }
    }

    /// A file the builder makes (never one of the folder's), held whole: the route, at most 16 MiB.
    public struct GeneratedEntry: Sendable {
        /// Its path in the package.
        public var path: String
        /// Its bytes.
        public var bytes: [UInt8]
    }

    /// What `plan` made of a tour folder: a plan to write, or only findings.
    public enum PlanOutcome: Sendable {
        /// The tour can be written: this plan (its findings are warnings, if any).
        case ready(Plan)
        /// Nothing can be written — the folder has errors, or its assets were not hashed
        /// (`hashAssets: false`) — and these are every finding.
        case findingsOnly([Finding])

        /// The plan, when the tour can be written.
        public var plan: Plan? {
            if case .ready(let plan) = self { return plan }
            return nil
        }

        /// Every finding, errors and warnings.
        public var findings: [Finding] {
            switch self {
            case .ready(let plan): plan.findings
            case .findingsOnly(let findings): findings
            }
        }
    }

    /// Reads and checks the tour folder, hashes every asset (on all cores), and validates the
    /// manifest it would write. Findings name the tour's own files. With `hashAssets` false nothing is
    /// hashed and no plan is made: only the findings, cheaply (the control panel checks every save so).
    public static func plan(
        _ root: String, progress: BuildProgress? = nil, budget: PhoneBudget = .default,
        map mapOptions: MapCheckOptions = MapCheckOptions(), hashAssets: Bool = true
    ) throws -> PlanOutcome {
        // The stops' small files are hashed on a second thread while the next stops are read:
        // reading the folder takes one core, and hashing 20,000 small files took both after it.
        var early = hashAssets ? EarlyHashing() : nil
        var loaded = try TourSource.load(root, onStop: early.map { early in { early.add($0) } })
        early?.finish()
        let sourceFindings = loaded.findings
        // Taken out of `loaded`, so that letting go of `source` below frees the folder's records.
        guard var source = loaded.source.take() else { return .findingsOnly(sourceFindings) }

        // Each stop's list of files is moved out of the source as it is, then the maps': one list
        // of them all was a copy of every record, both held as the plan was made.
        var groups: [[TourSource.SourceFile]] = []
        groups.reserveCapacity(source.waypoints.count + 1)
        let fileCount = source.waypoints.reduce(source.mapFiles.count) { $0 + $1.assets.count }
        // What was hashed while the folder was read, by position in the folder's order (nil: not
        // yet), and how much of it there is (shown as done when the hashing begins).
        var digests: [SHA256Digest?] = []
        var hashedEarly = (files: 0, bytes: Int64(0))
        if early != nil { digests.reserveCapacity(fileCount) }
        for i in source.waypoints.indices {
            let stop = source.waypoints[i]
            if let early {
                let hashed = early.digests(ofStop: stop.folder).flatMap { $0.count == stop.assets.count ? $0 : nil }
                for (k, f) in stop.assets.enumerated() {
                    let digest = hashed?[k]
                    digests.append(digest)
                    if digest != nil {
                        hashedEarly.files += 1
                        hashedEarly.bytes += f.size
                    }
                }
            }
            groups.append(stop.assets)
            source.waypoints[i].assets = []
        }
        groups.append(source.mapFiles)
        let files = FileRecords(groups: groups)
        groups = []
        if early != nil { digests += repeatElement(nil, count: source.mapFiles.count) }
        // With errors in the folder nothing will be written: skip hashing, but still check
        // everything else, so the ranger sees every problem in one round.
        early = nil  // its digests are in `digests` now
        if !sourceFindings.hasErrors && hashAssets {
            // What was hashed while the folder was read is shown as done, and left out of the rate.
            progress?.start(
                phase: "hashing", files: files.count, bytes: files.reduce(0) { $0 + $1.size },
                doneFiles: hashedEarly.files,
                doneBytes: hashedEarly.bytes)
            // Handed over, not shared: the workers write into the same array (a copy of 4 MB at
            // 100,000 files otherwise).
            let known = digests
            digests = []
            digests = try hashAll(files, known: known, progress: progress)
            progress?.finish()
        } else {
            digests = []
        }

        // Without bounds in tour.json the frame holds every stop and the whole route.
        let routeCoordinates = (source.route?.lines ?? []).flatMap { $0.map(\.coordinate) }
        let bounds =
            source.tour.bounds
            ?? Bounds.enclosing(
                source.waypoints.map(\.coordinate).filter { !$0.latitude.isNaN } + routeCoordinates)?
            .roundedOutward
            ?? Bounds(
                southwest: Coordinate(latitude: 0, longitude: 0), northeast: Coordinate(latitude: 0, longitude: 0))
        // Each PMTiles map is read (its directories, not its tiles) and judged against the frame;
        // what its header says goes into the manifest.
        var mapInfos: [String: MapInfo] = [:]
        var mapFindings: [Finding] = []
        // With a route, a map is judged against the route's corridor (docs/FORMAT.md §3.1).
        var mapOptions = mapOptions
        if let route = source.route, mapOptions.route == nil {
            mapOptions.route = MapCheckOptions.Route(
                lines: RouteMath.cutAtAntimeridian(route.lines).map { $0.map(\.coordinate) },
                stops: source.waypoints.map(\.coordinate).filter { $0.latitude.isFinite && $0.longitude.isFinite })
        }
        for f in source.mapFiles where MapInfo.isPMTiles(f.archivePath) {
            let report: MapReport
            do {
                report = try MapCheck.check(
                    try MapFile(path: f.sourcePath), file: f.relativePath, frame: bounds,
                    options: mapOptions.forMap(at: f.archivePath))
            } catch {
                throw BuildError(
                    code: .io, message: "cannot read the map '\(f.relativePath)': \(error.message)", file: f.sourcePath,
                    systemCall: error.systemCall, cause: error)
            }
            mapFindings += report.findings
            mapInfos[f.archivePath] = report.mapInfo(role: MapInfo.role(forPath: f.archivePath))
        }
        if mapInfos.isEmpty && !source.mapFiles.contains(where: { MapInfo.isPMTiles($0.archivePath) }) {
            mapFindings.append(
                Finding(
                    .mapNone, file: "map/",
                    "the tour has no offline map (map/*.pmtiles), so the apps will need a network to show one where visitors go; cut one from a larger tile set with '\(FileSystem.statInfo(root + "/map").kind == .directory ? "" : "mkdir \(root)/map && ")trailpack map extract SOURCE.pmtiles -o \(root)/map/region.pmtiles --tour \(root)\(source.route == nil ? "" : " --corridor 500")' (SOURCE: a PMTiles or MBTiles file of the region)"
                ))
        }

        // Each file's SHA-256, by position (zero when not hashed: a plan for its findings only).
        // 32 bytes each: an optional digest took 40.
        var sums = [Bytes32](repeating: Bytes32(), count: files.count)
        for (p, digest) in digests.enumerated() where p < sums.count { sums[p] = digest?.value ?? Bytes32() }
        digests = []
        let hashed = hashAssets && !sums.isEmpty
        // The stops are made one at a time and checked as they are made; each keeps only the
        // assets the language rules read (the rest are made again from the records when the
        // manifest is written): the stops' 100,000 assets were 17 MB held through the plan and
        // the manifest's writing.
        var waypoints: [Waypoint] = []
        waypoints.reserveCapacity(source.waypoints.count)
        var manifestFindings: [Finding] = []
        var generatedRoute: (GeneratedEntry?, [Finding]) = (nil, [])
        var planned: Manifest?
        do {
            let validation = ManifestValidator.StopByStop(assets: PlannedPaths(files))
            for (i, w) in source.waypoints.enumerated() {
                var stop = Waypoint(
                    name: w.name, slug: w.slug, order: w.order, coordinate: w.coordinate, description: w.description,
                    assets: files.groups[i].enumerated().map { k, f in
                        asset(f, digest: hashed ? sums[Int(files.starts[i]) + k] : nil, map: nil)
                    }, properties: w.properties, accessibilityWaiver: w.accessibilityWaiver,
                    translations: w.translations)
                validation.take(&stop, at: i)
                waypoints.append(stop)
            }
            // The route (format 1.2): made from route.gpx or route.geojson, checked against the stops,
            // and packaged as map/route.geojson, a map asset readers of format 1.1 ignore.
            let (routeEntry, routeAsset, routeFindings) = makeRoute(source, waypoints: waypoints, bounds: bounds)
            generatedRoute = (routeEntry, routeFindings)
            let outline = Manifest(
                id: source.tour.id, version: source.tour.version, name: source.tour.name, park: source.tour.park,
                site: source.tour.site, mapName: source.tour.mapName, bounds: bounds,
                description: source.tour.description, waypoints: waypoints,
                mapAssets: ((files.stopFileCount..<files.count).map { p in
                    asset(files[p], digest: hashed ? sums[p] : nil, map: mapInfos[files[p].archivePath])
                } + (routeAsset.map { [$0] } ?? [])).sorted {
                    $0.path.utf8.lexicographicallyPrecedes($1.path.utf8)
                },
                languages: source.tour.languages, requireAllLanguages: source.tour.requireAllLanguages,
                translations: source.tour.translations)
            waypoints = []
            // Fields the folder's own files failed to give are reported there already.
            manifestFindings = validation.validate(outline).map { translate($0, source: source) }
                .map { explainOutsideBounds($0, source: source, bounds: bounds) }
                .filter { f in
                    !sourceFindings.contains { $0.file == f.file && $0.location != nil && $0.location == f.location }
                }
            planned = outline
        }
        let (routeEntry, routeFindings) = generatedRoute
        let findings =
            sourceFindings + routeFindings + mapFindings + manifestFindings + strayFindings(source)
            + TourInit.placeholderFindings(source)
            + budget.findings(files)
        // Without hashes the plan only served its findings (an editor's check on every save): never written.
        guard hashAssets, !findings.hasErrors, let outline = planned else { return .findingsOnly(findings) }
        // The folder's records (every stop's list of files, its texts) are in `files` and `outline`
        // now: let them go before the manifest's bytes are made, the plan's peak (at 20,000 files,
        // 4.7 MB of records held next to the manifest and its bytes).
        _ = consume source
        // The entry order: the positions sorted by the files' paths in the package (the records
        // stay where they are; each stop's go once written).
        // The manifest's bytes are counted on a thread of their own while this one sorts (a tenth
        // of a second each at 100,000 files): so that a manifest no reader would accept is never
        // packaged, and written with the entries, as it is made: its bytes are never held whole
        // (25 MB at 100,000 files). The records are shared, read by both, changed by neither.
        let counted = Plan(
            outline: outline, records: files, entryOrder: [], digests: sums, generated: [], findings: [],
            manifestSize: 0)
        let counting = OwnedThread { counted.outline.writeCanonical(stopAssets: counted.assets(ofStop:)) { _ in } }
        var order = [Int32](unsafeUninitializedCapacity: files.count) { buffer, made in
            for p in 0..<files.count { buffer[p] = Int32(p) }
            made = files.count
        }
        do {
            // Each position's stop, so that the sort does not look it up at every comparison.
            var groupOf = [Int32](repeating: 0, count: files.count)
            for g in files.groups.indices {
                let range = Int(files.starts[g])..<Int(files.starts[g + 1])
                for p in range { groupOf[p] = Int32(g) }
            }
            order.sort {
                let (a, b) = (Int($0), Int($1))
                let (ga, gb) = (Int(groupOf[a]), Int(groupOf[b]))
                return TourSource.SourceFile.packageOrder(files.record(a, in: ga), files.record(b, in: gb))
            }
        }
        var plan = Plan(
            outline: outline, records: files, entryOrder: order, digests: sums,
            generated: routeEntry.map { [$0] } ?? [], findings: findings, manifestSize: 0)
        order = []
        sums = []
        let size = counting.join()
        guard size <= Manifest.maxBytes else {
            return .findingsOnly(
                findings + [
                    Finding(
                        .jsonTooLarge, file: Manifest.entryName,
                        "the package's manifest.json would be \(size) bytes, and readers accept at most \(Manifest.maxBytes): "
                            + "the tour lists too many files (\(plan.records.count)); split it into two tours, or put the files of a stop together in fewer, larger files"
                    )
                ])
        }
        plan.manifestSize = size
        return .ready(plan)
    }

    /// The package's route entry and asset, and what was found making it (findings name the
    /// folder's route file, or tour.json for its stages).
    static func makeRoute(
        _ source: TourSource, waypoints: [Waypoint], bounds: Bounds
    )
        -> (GeneratedEntry?, Asset?, [Finding])
    {
        guard let routeSource = source.route else {
            guard !source.tour.stages.isEmpty else { return (nil, nil, []) }
            return (
                nil, nil,
                [
                    Finding(
                        .routeStages, file: TourSource.tourFileName, path: JSONPath.root.member("stages"),
                        "the tour lists stages but has no route; put the recorded track beside tour.json as route.gpx (or the line as route.geojson), or remove \"stages\""
                    )
                ]
            )
        }
        let made = TourRoute.make(routeSource, stops: waypoints, stages: source.tour.stages)
        guard let route = made.route else { return (nil, nil, made.findings) }
        // Stages are the ranger's lines of tour.json: said there.
        let checks = RouteChecks.check(route, waypoints: waypoints, bounds: bounds, file: routeSource.file).map {
            finding -> Finding in
            guard let path = finding.jsonPath, path.components.count > 2,
                path.components[0] == .key("properties"), path.components[1] == .key("stages")
            else { return finding }
            var f = finding
            f.file = TourSource.tourFileName
            f.location = .json(JSONPath(Array(path.components.dropFirst())))
            return f
        }
        let bytes = RouteFile.bytes(route)
        let type = MediaTypes.byExtension["geojson"]!
        let asset = Asset(
            path: Route.entryName, kind: type.kind, mediaType: type.mediaType, size: Int64(bytes.count),
            sha256: SHA256.hash(bytes).hex)
        return (GeneratedEntry(path: Route.entryName, bytes: bytes), asset, made.findings + checks)
    }

    /// Stops far from all the others: a typo in a coordinate that the computed frame would hide.
    static func strayFindings(_ source: TourSource) -> [Finding] {
        StrayStops.find(source.waypoints.map(\.coordinate)).map { stray in
            let w = source.waypoints[stray.index]
            let km = Int((stray.metres / 1000).rounded()), typical = max(1, Int((stray.typicalMetres / 1000).rounded()))
            return Finding(
                .waypointStray, file: w.folder + "/" + TourSource.waypointFileName,
                path: JSONPath.root.member("coordinate"),
                "the stop '\(w.name)' at \(w.coordinate.latitude), \(w.coordinate.longitude) is \(km) km from the middle of the tour, "
                    + "where the other stops are within about \(typical) km; check the coordinate for a typo (a digit off, a "
                    + "missing minus sign, latitude and longitude swapped) — the map frame is stretched to include it")
        }
    }

    /// A stop outside the bounds, said for the ranger: where the stop is, where the frame is,
    /// and the two ways out.
    static func explainOutsideBounds(_ finding: Finding, source: TourSource, bounds: Bounds) -> Finding {
        guard finding.code == .waypointOutsideBounds, let file = finding.file,
            let w = source.waypoints.first(where: { $0.folder + "/" + TourSource.waypointFileName == file })
        else { return finding }
        var f = finding
        f.message =
            "'\(w.name)' at latitude \(w.coordinate.latitude), longitude \(w.coordinate.longitude) lies outside the map bounds "
            + "set in tour.json (\(bounds.frameDescription)); either fix the coordinate in this waypoint.json, or widen the bounds "
            + "in tour.json, or delete \"bounds\" from tour.json and the build draws them around every stop"
        return f
    }

    /// Points a manifest finding (`waypoints[2].coordinate.latitude`) at the tour file it came from.
    static func translate(_ finding: Finding, source: TourSource) -> Finding {
        var f = finding
        guard let path = finding.jsonPath, path.components.count >= 2, case .key(let list) = path.components[0],
            case .index(let index) = path.components[1]
        else { return f.inFile(TourSource.tourFileName) }
        if list == "waypoints", index < source.waypoints.count {
            let w = source.waypoints[index]
            let rest = Array(path.components.dropFirst(2))
            if rest == [.key("slug")] {
                f.file = w.folder
                f.location = nil
            } else {
                f.file = w.folder + "/" + TourSource.waypointFileName
                f.location = rest.isEmpty ? nil : .json(JSONPath(rest))
            }
            // The message names the stop's files as the package will ('waypoints/trailhead/lake.png'):
            // the ranger has them in the stop's folder ('waypoints/01-trailhead/lake.png').
            let inPackage = "'waypoints/\(w.slug)/"
            let inTour = "'\(w.folder)/"
            if inPackage != inTour, f.message.contains(inPackage) {
                f.message = f.message.replacingOccurrences(of: inPackage, with: inTour)
            }
            return f
        }
        if list == "mapAssets" { f.file = "map/"; return f }
        return f.inFile(TourSource.tourFileName)
    }

    /// The records being written, shared with the thread reading small files ahead: each stop's
    /// list is let go once its files are written (``FileRecords/release(group:)``), where the
    /// library's own central directory (about 100 bytes an entry, held until the archive is
    /// closed) takes its place. Both threads look a record up under the lock; the thread reading
    /// ahead finds nil for a file already written (its list let go), which it never needs: the
    /// writer waits for every file read ahead before it writes it.
    private final class RecordsBeingWritten: Sendable {
        let records: Mutex<FileRecords>
        init(_ records: consuming FileRecords) { self.records = Mutex(records) }
    }

    /// Writes `plan`'s manifest as `manifest.json` (its canonical bytes, `manifestSize` of them,
    /// made a piece at a time as they are written, each stop's assets as its turn comes), then
    /// every file of the plan in entry order, into `file` as a ZIP; each file must still be what
    /// the folder held when it was read (and hashed). The plan is let go once the manifest is
    /// written (`plan` is left nil), and each stop's records once its files are.
    private static func writeEntries(
        plan: inout Plan?, to file: AtomicFile, timestamp: Int64, progress: BuildProgress?, pages: WriteBehind.Pages
    ) throws -> ZipWriter.Summary {
        // Flushed as it is written: `write` flushes the whole package before it renames it.
        var writer = try ZipWriter(
            fileDescriptor: file.descriptor, path: file.temporaryPath, modificationTime: timestamp,
            flushingBehind: pages)
        guard let model = plan.take() else { return try writer.finish() }
        // The manifest's pieces (the canonical JSON, a tenth of a second at 100,000 assets) are
        // made on a thread of their own while this one deflates the ones before (twice as long):
        // made and deflated on one thread, the second core had nothing to do meanwhile. At most
        // eight pieces of 64 KiB wait. The thread holds the plan until it has made the last (it is
        // joined before the entry ends), so the records are the write's alone afterwards.
        let pieces = HandOff<[UInt8]>(capacity: 8)
        let maker = OwnedThread(unlessRefused: { [model] in
            _ = model.outline.writeCanonical(stopAssets: model.assets(ofStop:)) { pieces.put([UInt8]($0)) }
            pieces.finish()
        })
        do {
            // Stopped and joined on every way out: a header refused before the first piece is
            // taken too (the maker would wait for room for ever, and the join for it).
            defer {
                pieces.stop()
                maker?.join()
            }
            try writer.addEntry(path: Manifest.entryName, size: Int64(model.manifestSize), compress: true) { write in
                if maker != nil {
                    while let piece = pieces.take() { try piece.withUnsafeBytes { try write($0) } }
                    return
                }
                // No thread to be had: made here. The first failure to write stops the entry; the
                // pieces made after it are dropped.
                var failure: (any Error)?
                _ = model.outline.writeCanonical(stopAssets: model.assets(ofStop:)) { piece in
                    guard failure == nil else { return }
                    do { try write(piece) } catch { failure = error }
                }
                if let failure { throw failure }
            }
        }
        let order = model.entryOrder, generated = model.generated
        // How many of each list's files are still to be written.
        var left = zip(model.records.starts, model.records.starts.dropFirst()).map { $1 - $0 }
        let shared = RecordsBeingWritten(model.records)
        _ = consume model  // the records are now held by `shared` alone
        // The builder's own files go in their place by path (entries are sorted by their UTF-8 bytes).
        var pending = generated.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }[...]
        // Small files are opened and read on a second thread while this one deflates and writes.
        let readAhead = FileReadAhead(count: order.count) { i in
            guard let f = shared.records.withLock({ $0.recordIfKept(Int(order[i])) }),
                FileReadAhead.reads(size: f.size)
            else { return nil }
            return (f.sourcePath, f.size)
        }
        defer { readAhead.stop() }
        for (i, position) in order.enumerated() {
            let (group, source) = shared.records.withLock { records in
                let g = records.group(of: Int(position))
                return (g, records.record(Int(position), in: g))
            }
            let path = source.archivePath
            while let next = pending.first, next.path.utf8.lexicographicallyPrecedes(path.utf8) {
                try writer.addEntry(path: next.path, bytes: next.bytes, compress: true)
                pending.removeFirst()
            }
            // Maps are always stored: phones read their tiles in place (docs/FORMAT.md, "Maps").
            let compress = source.type.compress && !MapInfo.isPMTiles(path)
            let after: FileStatus
            // Only a file it reads ahead is asked for: a large one does not wait for the next small one.
            switch FileReadAhead.reads(size: source.size) ? readAhead.take(i) : nil {
            case .success(let file)?:
                after = try writer.addEntry(path: path, readAhead: file, size: source.size, compress: compress)
                progress?.advance(bytes: file.bytes.count)
            case .failure(let error)?:
                throw ArchiveError(error)
            case nil:
                after = try writer.addEntry(
                    path: path, contentsOf: source.sourcePath, size: source.size, compress: compress
                ) { n in
                    progress?.advance(bytes: n)
                }
            }
            // Unchanged since the folder was read, so since it was hashed: the manifest's hash is of these bytes.
            // (Its size was checked by the writer, which stops with ArchiveError.sourceChanged.)
            let modified = source.modified
            if Int64(modified.tv_sec) != after.modifiedSeconds || Int64(modified.tv_nsec) != after.modifiedNanoseconds {
                throw BuildError(
                    code: .sourceChanged,
                    message:
                        "'\(source.relativePath)' changed while it was being packaged; build again once nothing is writing to the tour folder"
                )
            }
            progress?.advance(files: 1)
            left[group] -= 1
            if left[group] == 0 { shared.records.withLock { $0.release(group: group) } }
        }
        for next in pending { try writer.addEntry(path: next.path, bytes: next.bytes, compress: true) }
        return try writer.finish()
    }

    /// SHA-256 of every file, spread over the machine's cores; in the files' order. `known` (one
    /// per file) holds those already hashed, which are not read again.
    static func hashAll(
        _ files: FileRecords, known: consuming [SHA256Digest?], progress: BuildProgress?
    ) throws -> [SHA256Digest?] {
        // The workers' shared state, behind one lock: the next file to take, the digests by
        // position, and the first failure (which stops the others).
        struct Shared {
            var next = 0
            var digests: [SHA256Digest?]
            var failure: BuildError?
        }
        precondition(known.count == files.count)
        let shared = Mutex(Shared(digests: known))
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, files.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            // One buffer per worker, not per file (see FileHashing.sha256(path:buffer:)).
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileHashing.chunkSize, alignment: 64)
            defer { buffer.deallocate() }
            while true {
                let taken: Int? = shared.withLock { state in
                    while state.next < files.count, state.digests[state.next] != nil { state.next += 1 }
                    guard state.next < files.count, state.failure == nil else { return nil }
                    defer { state.next += 1 }
                    return state.next
                }
                guard let i = taken else { return }
                let f = files[i]
                let outcome: Result<SHA256Digest, BuildError>
                do throws(FileIOError) {
                    let r = try FileHashing.sha256(path: f.sourcePath, buffer: buffer) { n in
                        progress?.advance(bytes: n)
                    }
                    progress?.advance(files: 1)
                    outcome =
                        r.size == f.size
                        ? .success(r.digest)
                        : .failure(
                            BuildError(
                                code: .sourceChanged,
                                message:
                                    "'\(f.relativePath)' changed size while it was being read; build again once nothing is writing to the tour folder"
                            ))
                } catch {
                    outcome = .failure(BuildError(error))
                }
                shared.withLock { state in
                    switch outcome {
                    case .success(let digest): state.digests[i] = digest
                    case .failure(let error): state.failure = state.failure ?? error
                    }
                }
            }
        }
        return try shared.withLock { state throws(BuildError) in
            if let failure = state.failure { throw failure }
            return state.digests
        }
    }

    /// What a finished build produced.
    public struct BuildOutcome: Sendable {
        public var packagePath: String
        public var checksumPath: String
        public var sha256: SHA256Digest
        public var packageBytes: Int64
        public var assetBytes: Int64
        public var waypointCount: Int
        public var assetCount: Int
        /// Seconds spent in fsync before the renames (the durability flush), reported apart.
        public var flushSeconds: Double
    }

    /// The time to stamp on entries: `SOURCE_DATE_EPOCH` when set, else 1980-01-01.
    public static func timestamp(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int64 {
        let epoch: Int64?
        do { epoch = try SourceDateEpoch.value(environment: environment) } catch {
            throw BuildError.usage(error.description)
        }
        guard let value = epoch else { return defaultTimestamp }
        // DOS dates start in 1980 and end in 2107: clamp, as other reproducible-build tools do.
        return min(max(value, defaultTimestamp), latestTimestamp)
    }

    /// The default output file name: `<id>-<version>.zip`.
    public static func defaultFileName(for manifest: Manifest) -> String { "\(manifest.id)-\(manifest.version).zip" }

    /// Writes the package and its `.sha256` file. Both are written under temporary names in the
    /// output's folder, flushed to disk and renamed at the end, so the output path holds either
    /// the previous package or the complete new one, never a partial file.
    ///
    /// The package is flushed to disk as it is written (`WriteBehind`); `pagesWritten` says whether
    /// its pages stay in memory afterwards (`.kept`, for a caller that reads it next) or are let go.
    ///
    /// `beforeReplacing` is called with the new package's SHA-256 when `output` already exists,
    /// before anything is renamed; throwing from it leaves the old package in place.
    ///
    /// The plan is consumed: its manifest is written as `manifest.json` a piece at a time and let
    /// go once written, so a caller that passes its last copy (`write(consume plan, …)`) holds it
    /// only through the first entry. Take what is needed of `plan.outline` before.
    public static func write(
        _ plan: consuming Plan, to output: String, timestamp: Int64, progress: BuildProgress? = nil,
        pagesWritten: WriteBehind.Pages = .kept, beforeReplacing: (SHA256Digest) throws -> Void = { _ in }
    ) throws -> BuildOutcome {
        let waypointCount = plan.outline.waypoints.count, assetBytes = plan.totalBytes
        let fileCount = plan.records.count
        // The manifest's outline and what makes its stops' assets, let go once it is written.
        var manifest: Plan? = consume plan
        let outputURL = URL(fileURLWithPath: output)
        let directory = outputURL.deletingLastPathComponent().path
        let baseName = outputURL.lastPathComponent
        guard FileSystem.statInfo(directory).kind == .directory else {
            throw BuildError.io("cannot write '\(output)': the folder '\(directory)' does not exist; create it first")
        }
        if FileSystem.statInfo(output).kind == .directory {
            throw BuildError.usage("cannot write '\(output)': it is a folder; give a file name ending in .zip")
        }
        let temp: AtomicFile
        let tempSum: AtomicFile
        do {
            temp = try AtomicFile(destination: output)
            tempSum = try AtomicFile(destination: output + ".sha256")
        } catch { throw BuildError(error) }

        progress?.start(phase: "writing", files: fileCount, bytes: assetBytes)
        let summary: ZipWriter.Summary
        do {
            summary = try writeEntries(
                plan: &manifest, to: temp, timestamp: timestamp, progress: progress, pages: pagesWritten)
        } catch let error as ArchiveError {
            // The writer's failures (input/output, a file that grew or shrank) as the builder's errors.
            throw BuildError(error)
        }
        progress?.finish()

        let flushStart = DispatchTime.now()
        do {
            try tempSum.write(Array(summary.sha256.sha256sumLine(name: baseName).utf8))
            try temp.flush()
            try tempSum.flush()
        } catch { throw BuildError(error) }
        let flushSeconds = Double(DispatchTime.now().uptimeNanoseconds - flushStart.uptimeNanoseconds) / 1e9
        if FileSystem.lstatInfo(output).kind != .missing { try beforeReplacing(summary.sha256) }
        do {
            try temp.moveIntoPlace()
            try tempSum.moveIntoPlace()
            try FileOperations.syncFolder(directory)
        } catch { throw BuildError(error) }
        return BuildOutcome(
            packagePath: output, checksumPath: output + ".sha256", sha256: summary.sha256, packageBytes: summary.size,
            assetBytes: assetBytes, waypointCount: waypointCount, assetCount: fileCount,
            flushSeconds: flushSeconds)
    }
}
