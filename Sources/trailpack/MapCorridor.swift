import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO
import TrailPackMap

/// `--corridor`, `--stop-buffer` and `--route` of `map estimate` and `map extract`: keep only the
/// tiles near the tour's route and its stops instead of the whole frame.
struct CorridorOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Keep only the tiles within this many metres of the tour's route (and of its stops), not the whole frame.",
            valueName: "metres"))
    var corridor: Double?

    @Option(
        name: .customLong("stop-buffer"),
        help: ArgumentHelp(
            "With --corridor: the metres kept around each stop (default: the corridor's).", valueName: "metres"))
    var stopBuffer: Double?

    @Option(
        help: ArgumentHelp(
            "With --corridor: the route, a GeoJSON LineString, MultiLineString, or Feature holding one (default: the tour's route).",
            valueName: "file"))
    var route: String?

    func validate() throws {
        if let corridor, !(corridor.isFinite && (0...50_000).contains(corridor)) {
            throw ValidationError("--corridor must be 0 to 50000 metres")
        }
        if let stopBuffer, !(stopBuffer.isFinite && (0...50_000).contains(stopBuffer)) {
            throw ValidationError("--stop-buffer must be 0 to 50000 metres")
        }
        if corridor == nil && (stopBuffer != nil || route != nil) {
            throw ValidationError("--stop-buffer and --route go with --corridor METRES")
        }
    }

    /// Whether the command needs a frame of its own: not when a corridor's route is given as a file.
    var needsFrame: Bool { corridor == nil || route == nil }

    /// The corridor (nil without --corridor): the route from --route or from the tour (its
    /// route.gpx or route.geojson), the stops from the tour.
    func corridor(tour: String?) throws -> RouteCorridor? {
        guard let corridor else { return nil }
        var source: TourRoute.Source?
        var stops: [Coordinate] = []
        if let route {
            let read = TourRoute.read(file: route)
            if let problem = read.findings.first(where: { $0.severity == .error }) {
                throw CLIError(code: .invalid, message: "the route '\(route)' cannot be used: \(problem.message)")
            }
            source = read.source
        }
        if let tour {
            let loaded = try TourSource.load(tour)
            if let tourSource = loaded.source {
                stops = tourSource.waypoints.map(\.coordinate).filter { $0.latitude.isFinite && $0.longitude.isFinite }
                if source == nil { source = tourSource.route }
            }
        }
        guard let source, !source.lines.isEmpty else {
            throw CLIError.usage(
                "--corridor needs the tour's route: give it with --route FILE (GPX or GeoJSON)\(tour.map { ", or put route.gpx or route.geojson beside tour.json in '\($0)'" } ?? "")"
            )
        }
        let lines = RouteMath.cutAtAntimeridian(source.lines).map { $0.map(\.coordinate) }
        return RouteCorridor(lines: lines, stops: stops, halfWidth: corridor, stopBuffer: stopBuffer)
    }
}

/// How `map estimate` prints a corridor against its frame.
enum CorridorEstimate {
    /// What the offline map costs a phone either way, for `validate`: the frame's tiles against a
    /// ±500 m corridor of the route, at the zooms of the tour's base map (10–16 without one).
    static func mapCost(_ manifest: Manifest, route: Route, folder: String) -> String {
        let base = manifest.mapAssets.first { $0.map?.role == .base }?.map
        let zooms = base.map { $0.minZoom...$0.maxZoom } ?? 10...16
        let corridor = RouteCorridor(
            lines: RouteMath.cutAtAntimeridian(route.lines).map { $0.map(\.coordinate) },
            stops: manifest.waypoints.map(\.coordinate), halfWidth: 500, stopBuffer: nil)
        var frame: Int64 = 0, near: Int64 = 0
        for z in zooms {
            frame += Int64(TileMath.range(manifest.bounds, zoom: z).count)
            near += Int64(corridor.count(zoom: z))
        }
        let typical: Int64 = 30_000
        let percent = frame > 0 ? (Double(near) * 1000 / Double(frame)).rounded() / 10 : 0
        return
            "  map cost  z\(zooms.lowerBound)–\(zooms.upperBound): the whole frame \(grouped(frame)) tiles (about \(Format.bytes(frame * typical))); "
            + "within 500 m of the route \(grouped(near)) tiles (about \(Format.bytes(near * typical)), \(MapCheck.format(percent)) %), at about 30 KB a tile\n"
            + "            cut the smaller map with 'trailpack map extract SOURCE.pmtiles --tour \(folder) --corridor 500 --zoom \(zooms.lowerBound)-\(zooms.upperBound) -o \(folder)/map/\(manifest.mapName).pmtiles'\n"
    }

    /// "±500 m" for people.
    static func width(_ metres: Double) -> String { "±\(MapCheck.format(metres)) m" }

    /// 15498 → "15,498" (the grouping of ``Format/whole(_:)``).
    static func grouped(_ n: Int64) -> String { Format.whole(Double(n)) }
}
