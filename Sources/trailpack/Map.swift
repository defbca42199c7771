import ArgumentParser
import Foundation
import GRDB
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO
import TrailPackMap

/// `trailpack map`: the offline map of a tour (PMTiles), cut from the tile sets a GIS office has.
struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Inspect, cut and convert offline maps (PMTiles).",
        discussion: """
            A package carries its map as map/<name>.pmtiles (docs/FORMAT.md, section 3.1). These commands \
            read a map, cut the region a tour needs out of a larger PMTiles or MBTiles set, convert MBTiles, \
            and estimate the size of a map before anyone downloads anything.

            Examples:
              trailpack map inspect map/santiam.pmtiles --tour ./santiam-wagon-road
              trailpack map extract oregon.pmtiles -o santiam/map/santiam.pmtiles \\
                --tour santiam --zoom 10-16
              trailpack map convert forest.mbtiles forest.pmtiles
              trailpack map estimate --tour ./santiam-wagon-road --zoom 10-16
            """,
        subcommands: [MapInspectCommand.self, MapExtractCommand.self, MapConvertCommand.self, MapEstimateCommand.self])
}

/// The region a command works on: a tour's bounds or explicit ones, grown by a buffer.
struct FrameOptions: ParsableArguments {
    @Option(help: "A tour folder: its bounds (from tour.json, or around its waypoints) are the frame.")
    var tour: String?

    @Option(
        help:
            "The frame as W,S,E,N in degrees, written --bounds=W,S,E,N (west may exceed east across the antimeridian).")
    var bounds: String?

    @Option(help: "Grow the frame by this many metres on every side.")
    var buffer: Double = 0

    func validate(required: Bool) throws {
        if tour != nil && bounds != nil { throw ValidationError("give --tour or --bounds, not both") }
        if required && tour == nil && bounds == nil {
            throw ValidationError("give the region: --tour FOLDER or --bounds W,S,E,N")
        }
        if !(0...1_000_000).contains(buffer) { throw ValidationError("--buffer must be 0 to 1000000 metres") }
    }

    /// The frame, or nil when neither option was given.
    func frame() throws -> Bounds? {
        var b: Bounds?
        if let bounds { b = try Self.parseBounds(bounds) }
        if let tour {
            let loaded = try TourSource.load(tour)
            guard let source = loaded.source else {
                throw CLIError.usage(
                    "cannot read the tour '\(tour)': \(loaded.findings.first(where: { $0.severity == .error })?.description ?? "no tour.json")"
                )
            }
            b = source.tour.bounds ?? Bounds.enclosing(source.waypoints.map(\.coordinate).filter { !$0.latitude.isNaN })
            if b == nil {
                throw CLIError.usage("the tour '\(tour)' has no bounds in tour.json and no waypoints to enclose")
            }
        }
        return b.map { TileMath.buffered($0, metres: buffer) }
    }

    static func parseBounds(_ text: String) throws -> Bounds {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2], let n = parts[3] else {
            throw CLIError.usage("--bounds '\(text)' must be four numbers W,S,E,N, such as -122.8,44.3,-121.6,44.5")
        }
        guard (-180...180).contains(w), (-180...180).contains(e), (-90...90).contains(s), (-90...90).contains(n), s < n,
            w != e
        else {
            throw CLIError.usage(
                "--bounds '\(text)': longitudes must lie in [-180, 180], latitudes in [-90, 90], south below north, west different from east"
            )
        }
        return Bounds(
            southwest: Coordinate(latitude: s, longitude: w), northeast: Coordinate(latitude: n, longitude: e))
    }
}

/// `--zoom 10-16` or `--zoom 14`.
func parseZoomRange(_ text: String) throws -> ClosedRange<Int> {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false).map {
        Int($0.trimmingCharacters(in: .whitespaces))
    }
    guard (1...2).contains(parts.count), let a = parts.first!, let b = parts.last!,
        (0...MapInfo.maxZoomLevel).contains(a), (0...MapInfo.maxZoomLevel).contains(b), a <= b
    else {
        throw CLIError.usage(
            "--zoom '\(text)' must be a zoom or a range of zooms from 0 to \(MapInfo.maxZoomLevel), such as 14 or 10-16"
        )
    }
    return a...b
}

// MARK: inspect

struct MapInspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a PMTiles map: header, bounds, zooms, tiles and bytes per zoom; check it whole.",
        usage: "trailpack map inspect <file> [--tour <folder> | --bounds=W,S,E,N]",
        discussion: """
            Every directory is read and every tile's placement checked. With --tour or --bounds the map is \
            also judged against that frame: bounds, detail, and coverage zoom by zoom.

            Examples:
              trailpack map inspect santiam.pmtiles
              trailpack map inspect santiam.pmtiles --tour ./santiam-wagon-road --json

            Exit codes: 0 valid, 1 the map has problems, 2 usage error, 3 the file cannot be read.
            """)

    @Argument(help: "The PMTiles file.")
    var file: String

    @OptionGroup var frame: FrameOptions

    @Option(
        name: .customLong("min-map-zoom"), help: "Warn when the map's most detailed zoom is below this (with a frame).")
    var minMapZoom: Int = 14

    @Flag(help: "Print the report as JSON.")
    var json = false

    func validate() throws { try frame.validate(required: false) }

    func run() throws {
        let f = try frame.frame()
        let source: MapFile
        do { source = try MapFile(path: file) } catch { throw CLIError.io(error.message) }
        let report: MapReport
        do {
            report = try MapCheck.check(
                source, file: file, frame: f, options: MapCheckOptions(minDetailZoom: minMapZoom))
        } catch {
            throw CLIError.io(error.message)
        }
        if json {
            var members = MapOutput.json(report).objectMembers
            members.insert(JSONMember("file", .string(file)), at: 0)
            members.insert(JSONMember("valid", .bool(!report.findings.hasErrors)), at: 1)
            members.insert(JSONMember("size", .number(JSONNumber(source.size))), at: 2)
            CLI.printJSON(.object(members))
            // This is the report: exiting 1 for its findings must not print a second one.
            Report.printed = true
        } else {
            CLI.out("map       \(file) (\(Format.bytes(source.size)))\n")
            CLI.out(MapOutput.text(report))
            CLI.printFindings(report.findings)
            CLI.out(
                report.findings.hasErrors
                    ? "NOT VALID: \(CLI.counts(report.findings))\n" : "valid (\(CLI.counts(report.findings)))\n")
        }
        if report.findings.hasErrors { throw ExitCode(CLIExit.invalid.rawValue) }
    }
}

/// How map reports are printed (inspect, verify).
enum MapOutput {
    static func json(_ r: MapReport) -> JSONValue {
        var members: [JSONMember] = []
        if let h = r.header {
            members.append(
                JSONMember(
                    "header",
                    .object([
                        JSONMember("tileType", .string(h.tileType?.name ?? "\(h.tileTypeByte)")),
                        JSONMember("tileCompression", .string(h.tileCompression.name)),
                        JSONMember("internalCompression", .string(h.internalCompression.name)),
                        JSONMember("clustered", .bool(h.clustered)),
                        JSONMember("minZoom", .number(JSONNumber(Int64(h.minZoom)))),
                        JSONMember("maxZoom", .number(JSONNumber(Int64(h.maxZoom)))),
                        JSONMember(
                            "bounds",
                            .object([
                                "southwest": h.bounds.southwest.jsonValue, "northeast": h.bounds.northeast.jsonValue,
                            ])),
                        JSONMember(
                            "center",
                            .object([
                                JSONMember("latitude", .number(JSONNumber(Double(h.centerLatE7) / 1e7))),
                                JSONMember("longitude", .number(JSONNumber(Double(h.centerLonE7) / 1e7))),
                                JSONMember("zoom", .number(JSONNumber(Int64(h.centerZoom)))),
                            ])),
                    ])))
        } else {
            members.append(JSONMember("header", .null))
        }
        if let s = r.summary {
            members.append(
                JSONMember(
                    "tiles",
                    .object([
                        JSONMember("addressed", .number(JSONNumber(s.addressedTiles))),
                        JSONMember("entries", .number(JSONNumber(s.tileEntries))),
                        JSONMember("contents", .number(JSONNumber(Int64(r.uniqueContents)))),
                        JSONMember("leafDirectories", .number(JSONNumber(Int64(s.leafDirectories)))),
                    ])))
        } else {
            members.append(JSONMember("tiles", .null))
        }
        members.append(
            JSONMember(
                "zooms",
                .array(
                    r.zooms.map { z in
                        .object([
                            JSONMember("zoom", .number(JSONNumber(Int64(z.zoom)))),
                            JSONMember("tiles", .number(JSONNumber(z.tiles))),
                            JSONMember("bytes", .number(JSONNumber(z.bytes))),
                            JSONMember("frameTiles", z.frameTiles.map { .number(JSONNumber(Int64($0))) } ?? .null),
                            JSONMember(
                                "framePresent", z.frameTiles == nil ? .null : .number(JSONNumber(Int64(z.framePresent)))
                            ),
                            JSONMember("coveragePercent", z.coveragePercent.map { .number(JSONNumber($0)) } ?? .null),
                            JSONMember("missingArea", z.missingArea.map { .string($0) } ?? .null),
                        ])
                    })))
        members.append(
            JSONMember("corridorMetres", r.corridorMetres.map { .number(JSONNumber($0)) } ?? .null))
        members.append(JSONMember("findings", .array(r.findings.map(\.jsonValue))))
        return .object(members)
    }

    /// The tile type for people: the manifest's word for the types phones render (png, mvt), the
    /// full name of the others ("MLT (MapLibre Tile)"), the raw byte of an unknown one.
    static func typeName(_ h: PMTilesHeader) -> String {
        guard let type = h.tileType else { return "unknown tile type \(h.tileTypeByte)" }
        return MapInfo.TileType(rawValue: type.name) != nil ? type.name : type.displayName
    }

    static func text(_ r: MapReport, indent: String = "") -> String {
        guard let h = r.header else { return "" }
        let b = h.bounds
        var out =
            "\(indent)tiles     \(MapOutput.typeName(h)), zoom \(h.minZoom)–\(h.maxZoom), bounds \(b.southwest.latitude),\(b.southwest.longitude) to \(b.northeast.latitude),\(b.northeast.longitude)"
        if let s = r.summary { out += ", \(s.addressedTiles) tiles (\(r.uniqueContents) distinct)" }
        out += "\n"
        for z in r.zooms where z.tiles > 0 || z.frameTiles != nil {
            var line =
                "\(indent)  z\(z.zoom < 10 ? " " : "")\(z.zoom)  \(String(repeating: " ", count: max(0, 8 - String(z.tiles).count)))\(z.tiles) tiles  \(Format.bytes(z.bytes))"
            if let f = z.frameTiles {
                line +=
                    "  \(r.corridorMetres == nil ? "frame" : "corridor") \(z.framePresent)/\(f) (\(MapCheck.format(z.coveragePercent ?? 0))%)"
                if let area = z.missingArea { line += ", missing in \(area)" }
            }
            out += line + "\n"
        }
        return out
    }
}

extension JSONValue {
    var objectMembers: [JSONMember] {
        if case .object(let m) = self { return m }
        return []
    }
}

// MARK: extract and convert

/// Writes progress on a terminal (standard error), nothing otherwise.
struct TileProgress {
    let total: Int64
    let enabled = BuildProgress.stderrIsTerminal
    var last: Int64 = -1

    mutating func update(_ n: Int64) {
        guard enabled, n - last >= 500 || n == total else { return }
        last = n
        FileHandle.standardError.write(Data("\r  \(n) / \(total) tiles".utf8))
    }

    func finish() { if enabled { FileHandle.standardError.write(Data("\n".utf8)) } }
}

struct MapExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Cut the region a tour needs out of a larger PMTiles or MBTiles set.",
        usage: """
            trailpack map extract <source> -o <out> --tour <folder> [options]
            trailpack map extract <source> -o <out> --bounds=W,S,E,N [options]
            """,
        discussion: """
            The output is a clustered PMTiles file with identical tiles stored once and gzip-compressed \
            directories. The source is read once, in order; memory stays flat. The output is written under a \
            temporary name and renamed at the end. The new map is then checked against the frame. With \
            --corridor, only the tiles within that many metres of the tour's route (and of its stops) are cut, \
            the width is recorded in the map's metadata (trailpack:corridorMetres), and the map is checked \
            against that corridor instead of the frame.

            Examples:
              trailpack map extract oregon.pmtiles -o santiam/map/santiam.pmtiles \\
                --tour santiam --zoom 10-16 --buffer 500
              trailpack map extract forest.mbtiles -o lake.pmtiles \\
                --bounds=-122.02,44.38,-121.97,44.42
              trailpack map extract oregon.pmtiles -o santiam/map/santiam.pmtiles \\
                --tour santiam --zoom 10-16 --corridor 500 --route santiam-route.geojson

            Exit codes: 0 written and covering the frame, 1 the source or the result has problems, 2 usage error, 3 I/O error.
            """)

    @Argument(help: "The source: a .pmtiles or .mbtiles file.")
    var source: String

    @Option(name: .shortAndLong, help: "The PMTiles file to write.")
    var output: String

    @OptionGroup var frame: FrameOptions

    @Option(help: "The zooms to keep, such as 10-16 (default: all the source has).")
    var zoom: String?

    @OptionGroup var corridor: CorridorOptions

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws { try frame.validate(required: corridor.needsFrame) }

    func run() throws {
        let route = try corridor.corridor(tour: frame.tour)
        guard let f = try frame.frame() ?? route?.bounds else {
            throw CLIError.usage("give the region: --tour FOLDER or --bounds W,S,E,N")
        }
        let zooms = try zoom.map(parseZoomRange)
        let result = try MapTools.cut(source: source, output: output, frame: f, corridor: route, zooms: zooms)
        try MapTools.report(output: output, frame: f, corridor: route, tiles: result.tiles, json: json)
    }
}

struct MapConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an MBTiles 1.3 file (QGIS, TileMill, MOBAC) to PMTiles.",
        discussion: """
            Rows are flipped from MBTiles' TMS order; tiles are written clustered with identical tiles stored \
            once. The metadata table becomes the PMTiles metadata.

            Examples:
              trailpack map convert forest.mbtiles forest.pmtiles

            Exit codes: 0 written, 1 the source has problems, 2 usage error, 3 I/O error.
            """)

    @Argument(help: "The MBTiles file.")
    var input: String

    @Argument(help: "The PMTiles file to write.")
    var output: String

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        let result = try MapTools.cut(source: input, output: output, frame: nil, corridor: nil, zooms: nil)
        try MapTools.report(output: output, frame: nil, corridor: nil, tiles: result.tiles, json: json)
    }
}

struct MapEstimateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "estimate",
        abstract: "Estimate how many tiles and bytes a frame needs, before downloading anything.",
        usage: """
            trailpack map estimate --tour <folder> --zoom <a-b> [options]
            trailpack map estimate --bounds=W,S,E,N --zoom <a-b> [options]
            """,
        discussion: """
            Counts the tiles that intersect the frame at each zoom; bytes are estimated from --source (its \
            average tile size at each zoom) or from a typical tile size for --type. With --corridor, also counts \
            the tiles within that many metres of the tour's route and stops, against the frame's.

            Examples:
              trailpack map estimate --tour ./santiam-wagon-road --zoom 10-16
              trailpack map estimate --bounds=-122.02,44.38,-121.97,44.42 \\
                --zoom 12-17 --type mvt --json
              # the tiles within 500 m of the route, against the whole frame
              trailpack map estimate --tour ./santiam-wagon-road --zoom 10-16 \\
                --corridor 500 --route santiam-route.geojson

            Exit codes: 0 estimated, 2 usage error, 3 the source cannot be read.
            """)

    enum TileKind: String, ExpressibleByArgument, CaseIterable {
        case png, jpeg, webp, mvt
        /// A typical tile, in bytes (topographic rasters, vector tiles of rural areas).
        var typicalBytes: Int64 { [.png: 30_000, .jpeg: 20_000, .webp: 14_000, .mvt: 12_000][self]! }
    }

    @OptionGroup var frame: FrameOptions

    @Option(help: "The zooms, such as 10-16.")
    var zoom: String

    @Option(help: "The tile format, for a typical tile size.")
    var type: TileKind = .png

    @Option(help: "A PMTiles set to take the average tile size per zoom from.")
    var source: String?

    @OptionGroup var corridor: CorridorOptions

    @Flag(help: "Print the estimate as JSON.")
    var json = false

    func validate() throws { try frame.validate(required: corridor.needsFrame) }

    func run() throws {
        let route = try corridor.corridor(tour: frame.tour)
        guard let f = try frame.frame() ?? route?.bounds else {
            throw CLIError.usage("give the region: --tour FOLDER or --bounds W,S,E,N")
        }
        let zooms = try parseZoomRange(zoom)
        var average: [Int: Double] = [:]
        if let source {
            let report: MapReport
            do { report = try MapCheck.check(try MapFile(path: source), file: source, frame: nil) } catch {
                throw CLIError.io(error.message)
            }
            if report.findings.hasErrors {
                CLI.printFindings(report.findings, to: .standardError)
                throw CLIError(code: .invalid, message: "the source '\(source)' has problems; no estimate from it")
            }
            for z in report.zooms where z.tiles > 0 { average[z.zoom] = Double(z.bytes) / Double(z.tiles) }
        }
        var rows: [JSONValue] = []
        var totalTiles: Int64 = 0, totalBytes: Int64 = 0
        var corridorRows: [JSONValue] = []
        var corridorTiles: Int64 = 0, corridorBytes: Int64 = 0
        var text =
            "frame     \(f.southwest.latitude),\(f.southwest.longitude) to \(f.northeast.latitude),\(f.northeast.longitude)\n"
        if let route {
            text +=
                "corridor  \(CorridorEstimate.width(route.halfWidth)) around the route (\(String(format: "%.1f", route.lengthMetres / 1000)) km), \(MapCheck.format(route.stopBuffer)) m around each of \(route.stops.count) stops\n"
        }
        for z in zooms {
            let r = TileMath.range(f, zoom: z)
            let each = average[z] ?? Double(type.typicalBytes)
            let bytes = Int64((Double(r.count) * each).rounded())
            totalTiles += Int64(r.count)
            totalBytes += bytes
            rows.append(
                .object([
                    JSONMember("zoom", .number(JSONNumber(Int64(z)))),
                    JSONMember("tiles", .number(JSONNumber(Int64(r.count)))),
                    JSONMember("columns", .number(JSONNumber(Int64(r.width)))),
                    JSONMember("rows", .number(JSONNumber(Int64(r.height)))),
                    JSONMember("bytes", .number(JSONNumber(bytes))),
                ]))
            text +=
                "  z\(z < 10 ? " " : "")\(z)  \(r.count) tiles (\(r.width) × \(r.height))  about \(Format.bytes(bytes))"
            if let route {
                let n = Int64(route.count(zoom: z))
                let b = Int64((Double(n) * each).rounded())
                corridorTiles += n
                corridorBytes += b
                corridorRows.append(
                    .object([
                        JSONMember("zoom", .number(JSONNumber(Int64(z)))),
                        JSONMember("tiles", .number(JSONNumber(n))),
                        JSONMember("bytes", .number(JSONNumber(b))),
                    ]))
                text += "; corridor \(n) tiles, about \(Format.bytes(b))"
            }
            text += "\n"
        }
        let basis =
            source.map { "average tile sizes of '\($0)'" }
            ?? "a typical \(type.rawValue) tile of \(Format.bytes(type.typicalBytes))"
        let percent = totalTiles > 0 ? Double(corridorTiles) * 100 / Double(totalTiles) : 0
        if json {
            var members = [
                JSONMember("frame", .object(["southwest": f.southwest.jsonValue, "northeast": f.northeast.jsonValue])),
                JSONMember("zooms", .array(rows)),
                JSONMember("tiles", .number(JSONNumber(totalTiles))),
                JSONMember("bytes", .number(JSONNumber(totalBytes))),
                JSONMember("basis", .string(basis)),
            ]
            members.append(
                JSONMember(
                    "corridor",
                    route.map { route in
                        .object([
                            JSONMember("metres", .number(JSONNumber(route.halfWidth))),
                            JSONMember("stopBufferMetres", .number(JSONNumber(route.stopBuffer))),
                            JSONMember("routeMetres", .number(JSONNumber((route.lengthMetres * 10).rounded() / 10))),
                            JSONMember("stops", .number(JSONNumber(Int64(route.stops.count)))),
                            JSONMember("zooms", .array(corridorRows)),
                            JSONMember("tiles", .number(JSONNumber(corridorTiles))),
                            JSONMember("bytes", .number(JSONNumber(corridorBytes))),
                            JSONMember("percentOfFrame", .number(JSONNumber((percent * 10).rounded() / 10))),
                        ])
                    } ?? .null))
            CLI.printJSON(.object(members))
        } else {
            text += "  total \(totalTiles) tiles, about \(Format.bytes(totalBytes)) (from \(basis))\n"
            if let route {
                text +=
                    "  corridor \(CorridorEstimate.width(route.halfWidth)): \(CorridorEstimate.grouped(corridorTiles)) tiles, about \(Format.bytes(corridorBytes)) — \(MapCheck.format((percent * 10).rounded() / 10)) % of the frame's \(CorridorEstimate.grouped(totalTiles)) tiles\n"
            }
            CLI.out(text)
        }
    }
}

/// The work behind extract and convert.
enum MapTools {
    /// Cuts (or, without a frame, converts) `source` into `output`.
    static func cut(
        source: String, output: String, frame: Bounds?, corridor: RouteCorridor?, zooms: ClosedRange<Int>?
    ) throws -> (tiles: Int64, missing: Int64) {
        guard FileManager.default.fileExists(atPath: source) else { throw CLIError.io("'\(source)' does not exist") }
        if CLI.isDirectory(output) {
            throw CLIError.usage("'\(output)' is a folder; give a file name ending in .pmtiles")
        }
        let outFolder = URL(fileURLWithPath: output).deletingLastPathComponent().path
        guard CLI.isDirectory(outFolder) else {
            throw CLIError.usage("cannot write '\(output)': the folder '\(outFolder)' does not exist")
        }
        let head = try FileOperations.readPrefix(source, maxBytes: 16)
        do {
            if head.starts(with: Array("SQLite format 3".utf8)) {
                if corridor != nil {
                    throw CLIError.usage(
                        "--corridor cuts PMTiles sources; convert '\(source)' first with 'trailpack map convert'")
                }
                do { return try MBTiles(path: source).write(to: output, frame: frame, zooms: zooms) } catch let
                    error as DatabaseError
                {
                    throw MBTiles.failure(error, path: source)
                }
            }
            guard head.starts(with: PMTilesHeader.magic) else {
                throw CLIError.usage(
                    "'\(source)' is neither PMTiles nor MBTiles (SQLite); give a .pmtiles or .mbtiles file")
            }
            guard let frame else {
                throw CLIError.usage(
                    "'\(source)' is already PMTiles; to cut a region from it use 'trailpack map extract'")
            }
            let archive: PMTilesArchive
            do { archive = try PMTilesArchive(source: try MapFile(path: source)) } catch {
                if error.code == .io { throw CLIError.io(error.message) }
                CLI.printFindings([error.finding(file: source)], to: .standardError)
                throw CLIError(
                    code: .invalid, message: "the source map '\(source)' cannot be read; nothing was written")
            }
            let range = zooms ?? archive.header.minZoom...archive.header.maxZoom
            var progress = TileProgress(
                total: corridor?.count(zooms: range) ?? MapExtract.FrameCursor.count(frame: frame, zooms: range))
            let writer = try PMTilesWriter(outputPath: output)
            let result = try MapExtract.extract(
                from: archive, frame: frame, corridor: corridor, zooms: range, to: writer
            ) {
                progress.update($0)
            }
            progress.finish()
            return (result.tiles, result.missing)
        } catch let error as MapError {
            if let code = error.code.findingCode {
                CLI.printFindings([Finding(code, file: source, error.message)], to: .standardError)
                throw CLIError(code: .invalid, message: "the source '\(source)' has problems; nothing was written")
            }
            throw CLIError.io(error.message)
        }
    }

    /// Checks the written map against the frame (or the corridor's route) and prints the result.
    static func report(output: String, frame: Bounds?, corridor: RouteCorridor?, tiles: Int64, json: Bool) throws {
        let report: MapReport
        let size: Int64
        do {
            let file = try MapFile(path: output)
            size = file.size
            let route = corridor.map { MapCheckOptions.Route(lines: $0.lines, stops: $0.stops) }
            report = try MapCheck.check(
                file, file: output, frame: frame, options: MapCheckOptions(minDetailZoom: 0, route: route))
        } catch { throw CLIError.io(error.message) }
        if json {
            var members = MapOutput.json(report).objectMembers
            members.insert(JSONMember("output", .string(output)), at: 0)
            members.insert(JSONMember("written", .number(JSONNumber(tiles))), at: 1)
            members.insert(JSONMember("size", .number(JSONNumber(size))), at: 2)
            CLI.printJSON(.object(members))
            // This is the report: exiting 1 for its findings must not print a second one.
            Report.printed = true
        } else {
            CLI.out("wrote     \(output) (\(Format.bytes(size)), \(tiles) tiles)\n")
            CLI.out(MapOutput.text(report))
            CLI.printFindings(report.findings)
        }
        if report.findings.hasErrors { throw ExitCode(CLIExit.invalid.rawValue) }
    }
}

/// An MBTiles 1.3 file (SQLite), read through GRDB: tiles in TMS rows, flipped to XYZ.
final class MBTiles {
    let path: String
    let queue: DatabaseQueue

    init(path: String) throws {
        self.path = path
        var config = Configuration()
        config.readonly = true
        do { queue = try DatabaseQueue(path: path, configuration: config) } catch let error as DatabaseError {
            throw Self.failure(error, path: path)
        }
    }

    func invalid(_ message: String) -> CLIError { Self.invalid(message, path: path) }

    /// A `map.header` finding (printed, and kept for a `--json` report) and the error that ends the command.
    static func invalid(_ message: String, path: String) -> CLIError {
        let finding = Finding(.mapHeader, file: path, message)
        CLI.printFindings([finding], to: .standardError)
        Report.pendingFindings.append(finding)
        return CLIError(code: .invalid, message: "the MBTiles '\(path)' cannot be converted; nothing was written")
    }

    /// What SQLite's refusal means: a damaged or foreign file is a finding (exit 1); a failure to read
    /// it (permissions, the disk) is input/output (exit 3). SQLite's words only, never the statement.
    static func failure(_ error: DatabaseError, path: String) -> CLIError {
        let damaged: [ResultCode] = [
            .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT, .SQLITE_ERROR, .SQLITE_MISMATCH, .SQLITE_RANGE,
            .SQLITE_TOOBIG, .SQLITE_SCHEMA, .SQLITE_CONSTRAINT,
        ]
        let words = error.message ?? "SQLite result code \(error.resultCode.rawValue)"
        if damaged.contains(error.resultCode.primaryResultCode) {
            return invalid(
                "the MBTiles file is damaged or not an MBTiles database (SQLite: \(words)); export it again from its source",
                path: path)
        }
        return CLIError.io("cannot read the MBTiles '\(path)': \(words)")
    }

    /// Writes the tiles inside `frame` at `zooms` (all when nil) to a PMTiles file.
    func write(to output: String, frame: Bounds?, zooms: ClosedRange<Int>?) throws -> (tiles: Int64, missing: Int64) {
        try queue.read { db in
            guard try db.tableExists("tiles") || db.viewExists("tiles") else {
                throw invalid("it has no 'tiles' table; it is not an MBTiles file")
            }
            var meta: [(String, String)] = []
            if try db.tableExists("metadata") || db.viewExists("metadata") {
                let rows = try Row.fetchCursor(db, sql: "SELECT name, value FROM metadata")
                while let row = try rows.next() {
                    if let name = row[0] as String?, let value = row[1] as String? { meta.append((name, value)) }
                }
            }
            // The index: (tile id, z, x, TMS row), sorted by tile id. 32 bytes a tile.
            var index: [(UInt64, Int, Int, Int)] = []
            let ranges = frame.map { f in
                Dictionary(uniqueKeysWithValues: (0...MapInfo.maxZoomLevel).map { ($0, TileMath.range(f, zoom: $0)) })
            }
            let cursor = try Row.fetchCursor(db, sql: "SELECT zoom_level, tile_column, tile_row FROM tiles")
            while let row = try cursor.next() {
                guard let z = row[0] as Int64?, let x = row[1] as Int64?, let tms = row[2] as Int64?,
                    (0...Int64(MapInfo.maxZoomLevel)).contains(z), x >= 0, tms >= 0, x < (1 << z), tms < (1 << z)
                else {
                    throw invalid(
                        "a row of 'tiles' holds zoom, column or row values that are not a tile (zoom 0–\(MapInfo.maxZoomLevel), column and row 0 to 2^zoom − 1)"
                    )
                }
                let zi = Int(z), y = (1 << zi) - 1 - Int(tms)
                if let zooms, !zooms.contains(zi) { continue }
                if let r = ranges?[zi], !(r.rows.contains(y) && r.columns.contains(where: { $0.contains(Int(x)) })) {
                    continue
                }
                index.append((TileID(z: zi, x: Int(x), y: y).id!, zi, Int(x), Int(tms)))
            }
            index.sort { $0.0 < $1.0 }
            guard !index.isEmpty else {
                throw invalid("it holds no tiles\(frame == nil ? "" : " inside the frame at those zooms")")
            }
            var h = PMTilesHeader()
            let format = meta.first { $0.0 == "format" }?.1.lowercased()
            var progress = TileProgress(total: Int64(index.count))
            let writer = try PMTilesWriter(outputPath: output)
            var first: [UInt8]?
            for (n, t) in index.enumerated() {
                guard
                    let data = try Data.fetchOne(
                        db,
                        sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                        arguments: [t.1, t.2, t.3]),
                    !data.isEmpty
                else {
                    throw invalid("tile \(t.1)/\(t.2)/\((1 << t.1) - 1 - t.3) has no data")
                }
                let bytes = [UInt8](data)
                if first == nil { first = bytes }
                try writer.add(id: t.0, data: bytes)
                progress.update(Int64(n + 1))
            }
            progress.finish()
            let sniff = first ?? []
            h.tileCompression = sniff.starts(with: [0x1F, 0x8B]) ? .gzip : .none
            switch format {
            case "png": h.tileTypeByte = PMTilesHeader.TileType.png.rawValue
            case "jpg", "jpeg": h.tileTypeByte = PMTilesHeader.TileType.jpeg.rawValue
            case "webp": h.tileTypeByte = PMTilesHeader.TileType.webp.rawValue
            case "pbf", "mvt": h.tileTypeByte = PMTilesHeader.TileType.mvt.rawValue
            default:
                if sniff.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
                    h.tileTypeByte = PMTilesHeader.TileType.png.rawValue
                } else if sniff.starts(with: [0xFF, 0xD8, 0xFF]) {
                    h.tileTypeByte = PMTilesHeader.TileType.jpeg.rawValue
                } else if sniff.starts(with: Array("RIFF".utf8)) {
                    h.tileTypeByte = PMTilesHeader.TileType.webp.rawValue
                } else {
                    h.tileTypeByte = PMTilesHeader.TileType.mvt.rawValue
                }
            }
            let metaBounds = meta.first { $0.0 == "bounds" }.flatMap { try? FrameOptions.parseBounds($0.1) }
            let world = Bounds(
                southwest: Coordinate(latitude: -TileMath.maxLatitude, longitude: -180),
                northeast: Coordinate(latitude: TileMath.maxLatitude, longitude: 180))
            MapExtract.setBounds(&h, frame: frame ?? metaBounds ?? world, within: frame == nil ? nil : metaBounds)
            if frame == nil,
                let center = meta.first(where: { $0.0 == "center" })?.1.split(separator: ",").compactMap({ Double($0) }
                ), center.count == 3
            {
                h.centerLonE7 = Int32((center[0] * 1e7).rounded()); h.centerLatE7 = Int32((center[1] * 1e7).rounded());
                h.centerZoom = Int(center[2])
            }
            var members: [JSONMember] = []
            for (name, value) in meta where name != "json" { members.append(JSONMember(name, .string(value))) }
            if let j = meta.first(where: { $0.0 == "json" })?.1,
                case .object(let extra)? = try? JSONParser.parse(
                    Array(j.utf8),
                    limits: JSONLimits(maxBytes: 16 << 20, maxDepth: 64, maxNumberLength: 400, maxStringBytes: 16 << 20)
                ).value
            {
                for m in extra where !members.contains(where: { $0.key == m.key }) { members.append(m) }
            }
            _ = try writer.finish(header: h, metadata: .object(members))
            let wanted =
                frame.map { f in
                    MapExtract.FrameCursor.count(frame: f, zooms: zooms ?? (index.first!.1...index.last!.1))
                } ?? Int64(index.count)
            return (Int64(index.count), max(0, wanted - Int64(index.count)))
        }
    }
}
