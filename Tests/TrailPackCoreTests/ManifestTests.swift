import Foundation
import Testing
import TrailPackTestSupport

@testable import TrailPackCore

@Suite("manifest validation", .ownThreads)
struct ManifestTests {
    static let hash = String(repeating: "a", count: 64)

    @Test("an asset's optional fields: set, copied, changed and cleared by value; equal when the fields are")
    func assetOptionalFields() {
        let plain = Asset(path: "waypoints/a/p.jpg", kind: .image, mediaType: "image/jpeg", size: 3, sha256: Self.hash)
        var described = plain
        described.alt = "A wagon rut"
        described.translations["es", .alt] = "Un surco"
        let copy = described
        described.alt = "Two wagon ruts"
        #expect(copy.alt == "A wagon rut")
        #expect(described.alt == "Two wagon ruts")
        #expect(described.translations["es", .alt] == "Un surco")
        #expect(copy != described && copy != plain)
        // The same fields given to the initializer make an equal asset.
        #expect(
            copy
                == Asset(
                    path: "waypoints/a/p.jpg", kind: .image, mediaType: "image/jpeg", size: 3, sha256: Self.hash,
                    alt: "A wagon rut", translations: Translations(["es": [.alt: "Un surco"]])))
        described.alt = nil
        described.translations = Translations()
        #expect(described == plain)
    }

    @Test("an asset's SHA-256: held as bytes when it is 64 lowercase hex digits, any other text kept as given")
    func assetDigestText() {
        let lower = "0123456789abcdef" + String(repeating: "0f", count: 24)
        var a = Asset(path: "waypoints/a/p.jpg", kind: .image, mediaType: "image/jpeg", size: 3, sha256: lower)
        #expect(a.sha256 == lower)
        #expect(a.alt == nil && a == Asset(path: a.path, kind: .image, mediaType: "image/jpeg", size: 3, sha256: lower))
        // What the verifier reports must reach it exactly: capitals, short, long, not hex, empty.
        for text in [lower.uppercased(), String(lower.dropLast()), lower + "0", "xyz" + lower.dropFirst(3), ""] {
            a.sha256 = text
            #expect(Array(a.sha256.utf8) == Array(text.utf8))
            #expect(a != Asset(path: a.path, kind: .image, mediaType: "image/jpeg", size: 3, sha256: lower))
        }
        // Back to a canonical digest: equal again to an asset made with it (the kept text is gone).
        a.sha256 = String(repeating: "0", count: 64)
        #expect(a.sha256 == String(repeating: "0", count: 64))
        #expect(a == Asset(path: a.path, kind: .image, mediaType: "image/jpeg", size: 3, sha256: a.sha256))
        a.sha256 = lower
        a.alt = "A rut"
        #expect(a.sha256 == lower && a.alt == "A rut")
    }

    @Test(
        "asset paths the same on a case-insensitive phone are found, also when every key's hash is the same, with the paths kept in the table or named by the caller"
    )
    func foldedPathsCollide() {
        // The caller's paths, by number, for the table that keeps none.
        final class Names {
            var paths: [String] = []
            func insert(_ table: inout FoldedPaths, _ path: String) -> String? {
                paths.append(path)
                return table.insert(path, number: paths.count - 1)
            }
        }
        for named in [false, true] {
            for hash in [{ (key: String) in key.hashValue }, { _ in 7 }] {
                let names = Names()
                var paths = FoldedPaths(capacity: 4, hash: hash, name: named ? { names.paths[$0] } : nil)
                #expect(names.insert(&paths, "waypoints/a/x.mp3") == nil)
                #expect(names.insert(&paths, "waypoints/a/y.mp3") == nil)
                #expect(names.insert(&paths, "waypoints/a/X.mp3") == "waypoints/a/x.mp3")
                #expect(names.insert(&paths, "waypoints/a/Y.MP3") == "waypoints/a/y.mp3")
                #expect(names.insert(&paths, "waypoints/a/x.mp3") == "waypoints/a/x.mp3")
                // Canonically equivalent names (é as one code point, and as e and a combining accent).
                #expect(names.insert(&paths, "waypoints/a/caf\u{E9}.txt") == nil)
                #expect(names.insert(&paths, "waypoints/a/cafe\u{301}.txt") == "waypoints/a/caf\u{E9}.txt")
                #expect(names.insert(&paths, "waypoints/a/z.mp3") == nil)
            }
            // Past the room asked for, the table grows and still finds every earlier path: keys of
            // one hash, of hashes that share only their high or their low bits, and of their own.
            for hash in [
                { (key: String) in key.hashValue }, { _ in 7 }, { key in key.utf8.count },
                { key in key.utf8.count << 40 },
            ] {
                let names = Names()
                var paths = FoldedPaths(capacity: 2, hash: hash, name: named ? { names.paths[$0] } : nil)
                let files = (0..<300).map { "waypoints/a/file-\($0).txt" }
                for file in files { #expect(names.insert(&paths, file) == nil) }
                for file in files.reversed() { #expect(names.insert(&paths, file.uppercased()) == file) }
            }
        }
    }

    @Test("a media type's essence and a path's extension, lowercased only when they need it")
    func essenceAndExtension() {
        #expect(ContentSniff.essence("video/mp4") == "video/mp4")
        #expect(ContentSniff.essence(" Text/HTML ; charset=utf-8") == "text/html")
        #expect(ContentSniff.essence("\timage/PNG\t") == "image/png")
        #expect(ContentSniff.essence(";") == "")
        #expect(ContentSniff.essence("TEXT/Ü") == "text/ü")
        #expect(ContentSniff.lowercased(Substring(PathText.fileExtension("waypoints/a.b/Photo.JPG"))) == "jpg")
        #expect(PathText.fileExtension("waypoints/a.b/.hidden").isEmpty)
    }

    static func sample() -> Manifest {
        Manifest(
            id: "gov.usda.fs.willamette.fish-lake", version: "1.2.0", name: "Fish Lake Walk",
            park: "Willamette National Forest",
            site: Site(id: "willamette-mckenzie-river", name: "McKenzie River Ranger District"), mapName: "fish-lake",
            bounds: Bounds(
                southwest: Coordinate(latitude: 44.38, longitude: -122.02),
                northeast: Coordinate(latitude: 44.42, longitude: -121.97)),
            description: "A short walk.",
            waypoints: [
                Waypoint(
                    name: "Remount Depot", slug: "remount-depot", order: 1,
                    coordinate: Coordinate(latitude: 44.4057, longitude: -121.9929),
                    description: "Pack mules.",
                    assets: [
                        Asset(
                            path: "waypoints/remount-depot/about.md", kind: .text, mediaType: "text/markdown", size: 10,
                            sha256: hash)
                    ]),
                Waypoint(
                    name: "Fish Lake", slug: "fish-lake", order: 2,
                    coordinate: Coordinate(latitude: 44.401, longitude: -121.999),
                    description: "A lake.", assets: []),
            ])
    }

    func codes(_ mutate: (inout Manifest) -> Void) -> [FindingCode] {
        var m = Self.sample()
        mutate(&m)
        return ManifestValidator.validate(m).codes
    }

    @Test("the sample is valid, and survives a write-read round trip")
    func sampleIsValid() throws {
        let m = Self.sample()
        #expect(ManifestValidator.validate(m).isEmpty)
        let result = ManifestReader.read(m.canonicalBytes)
        #expect(result.findings.isEmpty)
        #expect(result.manifest == m)
    }

    @Test(
        "canonicalBytes, written a waypoint at a time, is byte for byte the whole tree written at once",
        arguments: try FileManager.default.contentsOfDirectory(atPath: Support.root + "/manifests/examples/valid")
            .sorted())
    func streamedManifestBytes(example: String) throws {
        let bytes = try Support.read(Support.root + "/manifests/examples/valid/" + example)
        var manifest = try #require(ManifestReader.read(bytes).manifest)
        #expect(manifest.canonicalBytes == JSONWriter.bytes(manifest.jsonValue), "\(example)")
        // Written a piece at a time (as the builder writes it into the package), in pieces of
        // every size from a byte: the same bytes, counted.
        for piece in [1, 7, 100, 4096, 1 << 20] {
            var pieces: [[UInt8]] = []
            let count = manifest.writeCanonical(piece: piece) { pieces.append(Array($0)) }
            #expect(pieces.joined().elementsEqual(manifest.canonicalBytes), "\(example), pieces of \(piece)")
            #expect(count == manifest.canonicalBytes.count)
            if piece == 1 { #expect(pieces.count > manifest.waypoints.count, "\(example): not cut per waypoint") }
        }
        // The edges: no waypoints, no map assets, map assets only, one waypoint without assets.
        let waypoints = manifest.waypoints, maps = manifest.mapAssets
        for (w, m) in [
            ([Waypoint](), maps), (waypoints, []), ([], []),
            (
                Array(waypoints.prefix(1)).map {
                    var w = $0; w.assets = []; return w
                }, maps
            ),
        ] {
            manifest.waypoints = w
            manifest.mapAssets = m
            #expect(
                manifest.canonicalBytes == JSONWriter.bytes(manifest.jsonValue),
                "\(example): \(w.count) waypoints, \(m.count) map assets")
        }
    }

    @Test("each rule, broken on its own, gives its code")
    func eachRule() {
        #expect(codes { $0.id = "Bad ID" } == [.manifestID])
        #expect(codes { $0.id = "ab" } == [.manifestID])
        #expect(codes { $0.version = "1.02" } == [.manifestVersion])
        #expect(codes { $0.version = "1.2.3.4.5" } == [.manifestVersion])
        #expect(codes { $0.name = " " } == [.manifestText])
        #expect(codes { $0.park = String(repeating: "x", count: 201) } == [.manifestText])
        #expect(codes { $0.mapName = "a\u{7}b" } == [.manifestText])
        #expect(codes { $0.description = "" } == [.manifestText])
        #expect(codes { $0.site.id = "Sweet Home" } == [.siteID])
        #expect(codes { $0.waypoints[0].coordinate.latitude = 90.5 } == [.coordinateLatitude])
        #expect(codes { $0.waypoints[0].coordinate.longitude = 180.5 } == [.coordinateLongitude])
        #expect(codes { $0.bounds.southwest.latitude = 44.5 } == [.boundsInverted])
        #expect(codes { $0.bounds.northeast.longitude = $0.bounds.southwest.longitude } == [.boundsDegenerate])
        #expect(codes { $0.waypoints = [] } == [.waypointNone])
        #expect(codes { $0.waypoints[1].name = "REMOUNT depot" } == [.waypointNameDuplicate])
        #expect(codes { $0.waypoints[1].slug = "Fish Lake" } == [.waypointSlug])
        #expect(codes { $0.waypoints[1].slug = "remount-depot" } == [.waypointSlugDuplicate])
        #expect(codes { $0.waypoints[1].order = 0 } == [.waypointOrder])
        #expect(codes { $0.waypoints[1].order = 1 } == [.waypointOrderDuplicate])
        #expect(codes { $0.waypoints[1].coordinate.latitude = 44.5 } == [.waypointOutsideBounds])
        #expect(codes { $0.waypoints[0].properties = [JSONMember("2x", .bool(true))] } == [.waypointProperty])
        #expect(codes { $0.waypoints[0].properties = [JSONMember("nested", .object([:]))] } == [.waypointProperty])
        #expect(codes { $0.waypoints[0].assets[0].path = "waypoints/fish-lake/about.md" } == [.assetPathFolder])
        #expect(codes { $0.waypoints[0].assets.append($0.waypoints[0].assets[0]) } == [.assetPathDuplicate])
        #expect(codes { $0.waypoints[0].assets[0].mediaType = "markdown" } == [.assetMediaType])
        #expect(codes { $0.waypoints[0].assets[0].size = -1 } == [.assetSize])
        #expect(codes { $0.waypoints[0].assets[0].sha256 = "xyz" } == [.assetSHA256])
        // Held as bytes (64 lowercase digits) or as the text given (any other): judged the same.
        let digits = String(repeating: "0123456789abcdef", count: 4)
        #expect(codes { $0.waypoints[0].assets[0].sha256 = digits } == [])
        #expect(codes { $0.waypoints[0].assets[0].sha256 = digits.uppercased() } == [])
        #expect(codes { $0.waypoints[0].assets[0].sha256 = String(digits.dropLast()) } == [.assetSHA256])
        #expect(codes { $0.waypoints[0].assets[0].sha256 = digits + "0" } == [.assetSHA256])
        #expect(codes { $0.waypoints[0].assets[0].sha256 = String(digits.dropLast()) + "g" } == [.assetSHA256])
    }

    @Test("all findings come together, not only the first")
    func allAtOnce() {
        let found = codes {
            $0.id = "X"
            $0.waypoints[0].coordinate.latitude = 99
            $0.waypoints[1].order = 1
            $0.waypoints[0].assets[0].sha256 = "no"
        }
        #expect(found == [.assetSHA256, .coordinateLatitude, .manifestID, .waypointOrderDuplicate].sorted())
    }

    @Test("names that differ only in Unicode normalization collide")
    func normalization() {
        #expect(
            codes {
                $0.waypoints[0].name = "Caf\u{E9}"; $0.waypoints[1].name = "Cafe\u{301}"
            } == [.waypointNameDuplicate])
    }

    @Test(
        "unsafe asset paths are refused",
        arguments: [
            "../x", "/abs/x", "waypoints/remount-depot/../x", "waypoints//x", "waypoints/remount-depot/a\\b", "", ".",
            "waypoints/remount-depot/", "C:/x", "waypoints/remount-depot/a\u{0}b", "waypoints/remount-depot/a\u{1B}b",
            "waypoints/remount-depot/cafe\u{301}.md", "waypoints/remount-depot/CON.txt",
            "waypoints/remount-depot/trail.",
            "waypoints/remount-depot/" + String(repeating: "x", count: 256),
        ])
    func unsafePaths(path: String) {
        #expect(!ArchivePath.problems(path).isEmpty, "\(path) was accepted")
        #expect(codes { $0.waypoints[0].assets[0].path = path }.contains(.assetPath))
    }

    @Test(
        "safe paths are accepted",
        arguments: [
            "waypoints/remount-depot/about.md", "waypoints/a/b/c/d.png", "map/tiles.mbtiles", "waypoints/x/Église.md",
            "waypoints/x/a b.txt",
        ])
    func safePaths(path: String) {
        #expect(ArchivePath.problems(path).isEmpty)
    }

    @Test("bounds across the antimeridian contain points on both sides and nothing in between")
    func antimeridian() {
        let b = Bounds(
            southwest: Coordinate(latitude: -17.2, longitude: 179.5),
            northeast: Coordinate(latitude: -16.6, longitude: -179.6))
        #expect(b.crossesAntimeridian)
        #expect(b.contains(Coordinate(latitude: -16.8, longitude: 179.9)))
        #expect(b.contains(Coordinate(latitude: -16.8, longitude: -179.9)))
        #expect(b.contains(Coordinate(latitude: -16.8, longitude: 180)))
        #expect(!b.contains(Coordinate(latitude: -16.8, longitude: 0)))
        #expect(!b.contains(Coordinate(latitude: -16.8, longitude: 179.4)))
        #expect(!b.contains(Coordinate(latitude: -18, longitude: 179.9)))
        let enclosing = Bounds.enclosing(
            [Coordinate(latitude: -16.8, longitude: 179.9), Coordinate(latitude: -16.9, longitude: -179.9)],
            margin: 0.01)!
        #expect(enclosing.crossesAntimeridian)
        #expect(enclosing.contains(Coordinate(latitude: -16.85, longitude: 180)))
    }

    @Test("versions compare numerically; malformed ones are refused")
    func versions() throws {
        let v = { (s: String) in PackageVersion(s) }
        #expect(try #require(v("1.10")) > #require(v("1.9")))
        #expect(try #require(v("2")) > #require(v("1.999.999")))
        #expect(v("1.0") == v("1"))
        #expect(try #require(v("2024.1")) < #require(v("2024.1.1")))
        for bad in ["", "1.", ".1", "1..2", "01", "1.2.3.4.5", "v1", "1.-1", "1e3", "1234567890"] {
            #expect(v(bad) == nil, "\(bad)")
        }
    }

    @Test("an unknown format version is refused with a clear message, before anything else")
    func unknownFormatVersion() {
        var text = String(decoding: Self.sample().canonicalBytes, as: UTF8.self)
        text = text.replacingOccurrences(of: "\"formatVersion\": 1", with: "\"formatVersion\": 2")
        let result = ManifestReader.read(Array(text.utf8))
        #expect(result.findings.codes == [.manifestFormatVersion])
        #expect(result.findings.first?.message.contains("newer trailpack") == true)
    }

    @Test("missing and mistyped fields are reported once each, with JSON paths")
    func missingAndMistyped() {
        let text =
            #"{"formatVersion": 1, "id": "a.b.c", "version": 3, "park": "P", "site": {"id": "s"}, "mapName": "m", "bounds": {"southwest": {"latitude": 1, "longitude": 1}, "northeast": {"latitude": 2, "longitude": 2}}, "description": "d", "waypoints": [{"name": "W", "slug": "w", "order": 1.5, "coordinate": {"latitude": "1.5", "longitude": 1.5}, "description": "x", "assets": [], "colour": "red"}]}"#
        let result = ManifestReader.read(Array(text.utf8))
        let byPath = Dictionary(grouping: result.findings, by: { $0.path ?? "" })
        #expect(byPath["version"]?.map(\.code) == [.manifestWrongType])
        #expect(byPath["name"]?.map(\.code) == [.manifestMissingField])
        #expect(byPath["site.name"]?.map(\.code) == [.manifestMissingField])
        #expect(byPath["waypoints[0].order"]?.map(\.code) == [.manifestWrongType])
        #expect(byPath["waypoints[0].coordinate.latitude"]?.map(\.code) == [.manifestWrongType])
        #expect(byPath["waypoints[0].colour"]?.map(\.code) == [.manifestUnknownField])
        #expect(result.findings.count == 6, "\(result.findings)")
    }
}
