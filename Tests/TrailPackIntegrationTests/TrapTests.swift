import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport
import TrailPackVerifier

/// The traps a ranger fell into, each closed.
@Suite("no traps for rangers", .ownThreads)
struct TrapTests {
    static func editJSON(_ path: String, _ edit: (inout [String: Any]) -> Void) throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        edit(&object)
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(
            to: URL(fileURLWithPath: path))
    }

    @Test("init writes no bounds: moving the example stop anywhere still builds, with bounds rounded to 6 decimals")
    func noBounds() throws {
        try Support.withTemporaryDirectory { dir in
            #expect(try Support.trailpack("init", dir + "/tour").status == 0)
            let tour = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/tour/tour.json")))
                    as? [String: Any])
            #expect(tour["bounds"] == nil)
            #expect(
                !FileManager.default.fileExists(atPath: dir + "/tour/waypoints/01-trailhead/about.md"),
                "the description lives in waypoint.json only")
            try Self.editJSON(dir + "/tour/waypoints/01-trailhead/waypoint.json") {
                $0["coordinate"] = ["latitude": 44.440000000000005, "longitude": -121.87]
            }
            let build = try Support.trailpack("build", dir + "/tour", "-o", dir + "/t.zip", "--quiet")
            #expect(build.status == 0, "\(build.stderr)")
            let bounds = try PackageReader(path: dir + "/t.zip").manifest.bounds
            for edge in [
                bounds.southwest.latitude, bounds.southwest.longitude, bounds.northeast.latitude,
                bounds.northeast.longitude,
            ] {
                #expect(edge == (edge * 1_000_000).rounded() / 1_000_000, "\(edge) has float noise")
            }
            #expect(bounds.contains(Coordinate(latitude: 44.440000000000005, longitude: -121.87)))
        }
    }

    @Test("a stop outside bounds the ranger set: its coordinate, the frame and the fixes")
    func outsideBounds() throws {
        try Support.withTemporaryDirectory { dir in
            #expect(try Support.trailpack("init", dir + "/tour").status == 0)
            try Self.editJSON(dir + "/tour/tour.json") {
                $0["bounds"] = [
                    "southwest": ["latitude": 44.4, "longitude": -122.2],
                    "northeast": ["latitude": 44.5, "longitude": -122.1],
                ]
            }
            try Self.editJSON(dir + "/tour/waypoints/01-trailhead/waypoint.json") {
                $0["coordinate"] = ["latitude": 45.42, "longitude": -122.15]
            }
            let out = try Support.trailpack("validate", dir + "/tour")
            #expect(out.status == 1)
            for words in [
                "'Trailhead' at latitude 45.42, longitude -122.15", "south 44.4, west -122.2, north 44.5, east -122.1",
                "fix the coordinate in this waypoint.json", "widen the bounds in tour.json",
                "delete \"bounds\" from tour.json",
            ] {
                #expect(out.stderr.contains(words), "missing '\(words)': \(out.stderr)")
            }
        }
    }

    @Test("template text: a warning in validate and build, an error at sign")
    func placeholders() throws {
        try Support.withTemporaryDirectory { dir in
            #expect(try Support.trailpack("init", dir + "/tour").status == 0)
            let validate = try Support.trailpack("validate", dir + "/tour", "--json")
            #expect(validate.status == 0)
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(validate.stdout.utf8)) as? [String: Any])
            let placeholders = (report["findings"] as? [[String: Any]] ?? []).filter {
                $0["code"] as? String == "source.placeholder"
            }
            #expect(
                Set(placeholders.compactMap { $0["path"] as? String }) == [
                    "id", "name", "park", "site.id", "site.name", "description",
                ])
            #expect(placeholders.allSatisfy { $0["severity"] as? String == "warning" })
            let build = try Support.trailpack("build", dir + "/tour", "-o", dir + "/t.zip")
            #expect(build.status == 0)
            #expect(
                build.stderr.contains(
                    "warning[source.placeholder] tour.json: name: the name 'My Tour' is still the template's text"),
                "\(build.stderr)")
            #expect(
                try Support.trailpack("keygen", "-s", dir + "/k.key", "-p", dir + "/k.pub", "--unencrypted").status == 0
            )
            let sign = try Support.trailpack("sign", dir + "/t.zip", "-s", dir + "/k.key")
            #expect(sign.status == 1)
            #expect(
                sign.stderr.contains(
                    "still holds the template's text in id, name, park, site.id, site.name, description"),
                "\(sign.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/t.zip.minisig"))
            // The fixtures are real tours: no template text, and they sign.
            let fixture = try Support.buildFixture("colorado-fourteeners", into: dir)
            #expect(try Support.trailpack("sign", fixture, "-s", dir + "/k.key").status == 0)
        }
    }

    @Test(
        "a rebuild that would replace a package of the same id and version with other bytes is refused unless --force")
    func rebuildSameVersion() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            let out = dir + "/pkg.zip"
            #expect(try Support.trailpack("build", tour, "-o", out, "-q").status == 0)
            #expect(try Support.trailpack("build", tour, "-o", out, "-q").status == 0, "the same bytes again are fine")
            let before = try Support.read(out)
            try "changed notes\n".write(
                toFile: tour + "/waypoints/01-sahalie-and-koosah-falls/notes.txt", atomically: true, encoding: .utf8)
            let refused = try Support.trailpack("build", tour, "-o", out, "-q")
            #expect(refused.status == 2)
            #expect(
                refused.stderr.contains("already holds")
                    && refused.stderr.contains("Raise \"version\" in tour.json (to 4)")
                    && refused.stderr.contains("--force"), "\(refused.stderr)")
            #expect(try Support.read(out) == before)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == [
                    "pkg.zip", "pkg.zip.sha256", "tour",
                ], "temporary files left")
            let forced = try Support.trailpack("build", tour, "-o", out, "-q", "--force")
            #expect(forced.status == 0)
            #expect(try Support.read(out) != before)
            // A package of that version that does not open (its last entry's local header names
            // it otherwise than the directory does; its manifest, the first entry, is intact) is
            // no version anyone holds: replaced without --force, as before.
            var damaged = try Support.read(out)
            let local: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
            let last = try #require(
                damaged.indices.dropLast(4).last { Array(damaged[$0..<$0 + 4]) == local })
            damaged[last + 30] ^= 0x20  // 'w' of 'waypoints/…' to 'W'
            #expect(PackageReader.identity(path: out) != nil)
            try Support.write(damaged, to: out)
            #expect(try Support.trailpack("verify", out).status != 0)
            try "changed again\n".write(
                toFile: tour + "/waypoints/01-sahalie-and-koosah-falls/notes.txt", atomically: true, encoding: .utf8)
            let replaced = try Support.trailpack("build", tour, "-o", out, "-q")
            #expect(replaced.status == 0, "\(replaced.stderr)")
            #expect(try Support.trailpack("verify", out).status == 0)
        }
    }

    @Test("a path written from the tour folder is explained as relative to the stop folder")
    func stopRelativePaths() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            try Self.editJSON(tour + "/waypoints/01-sahalie-and-koosah-falls/waypoint.json") {
                $0["assets"] = ["waypoints/01-sahalie-and-koosah-falls/notes.txt", "trail.png"]
            }
            let out = try Support.trailpack("validate", tour)
            #expect(out.status == 1)
            #expect(
                out.stderr.contains(
                    "asset 'waypoints/01-sahalie-and-koosah-falls/notes.txt' is named from the tour folder, but names in waypoint.json are relative to the stop's own folder ('waypoints/01-sahalie-and-koosah-falls/'); write 'notes.txt'"
                ), "\(out.stderr)")
        }
    }

    @Test(
        "media content is checked against the extension; large files and tours are warnings with the figure and the budget"
    )
    func contentAndSize() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            let stop = tour + "/waypoints/01-sahalie-and-koosah-falls"
            // Random bytes named .mp4, and a PNG named .jpg.
            try Support.write(
                (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }, to: stop + "/random.mp4")
            try FileManager.default.copyItem(atPath: stop + "/trail.png", toPath: stop + "/photo.jpg")
            try Self.editJSON(stop + "/waypoint.json") {
                $0["assets"] = ["notes.txt", "trail.png", "random.mp4", "photo.jpg"]
            }
            let bad = try Support.trailpack("validate", tour)
            #expect(bad.status == 1)
            #expect(
                bad.stderr.contains("error[source.asset-content]")
                    && bad.stderr.contains(
                        "'waypoints/01-sahalie-and-koosah-falls/random.mp4': its name ends in .mp4 but its content is not an MP4/QuickTime (ISO media) file"
                    ), "\(bad.stderr)")
            #expect(
                bad.stderr.contains(
                    "photo.jpg': its name ends in .jpg but its content is a PNG image; rename it (and its name in waypoint.json) to end in .png"
                ),
                "\(bad.stderr)")

            // A real-looking video over a budget of 1 MiB.
            var video = [UInt8](repeating: 0, count: 3 << 20)
            video.replaceSubrange(4..<8, with: Array("ftyp".utf8))
            try Support.write(video, to: stop + "/random.mp4")
            try FileManager.default.removeItem(atPath: stop + "/photo.jpg")
            try Self.editJSON(stop + "/waypoint.json") { $0["assets"] = ["notes.txt", "trail.png", "random.mp4"] }
            let big = try Support.trailpack(
                "validate", tour, "--asset-budget-mb", "1", "--package-budget-mb", "2", "--json")
            #expect(big.status == 0, "warnings only")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(big.stdout.utf8)) as? [String: Any])
            let findings = report["findings"] as? [[String: Any]] ?? []
            let asset = try #require(findings.first { $0["code"] as? String == "source.asset-large" })
            #expect(asset["file"] as? String == "waypoints/01-sahalie-and-koosah-falls/random.mp4")
            #expect(
                (asset["message"] as? String)?.contains("this file is 3.0 MiB") == true
                    && (asset["message"] as? String)?.contains("budget for one file is 1.0 MiB") == true)
            let total = try #require(findings.first { $0["code"] as? String == "source.package-large" })
            #expect((total["message"] as? String)?.contains("the budget for a phone is 2.0 MiB") == true, "\(total)")
            let within = try Support.trailpack("validate", tour, "--json")
            #expect(within.status == 0, "\(within.stdout)")
            let withinCodes = (try JSON.parse(within.stdout)["findings"]?.array ?? []).compactMap { $0["code"]?.string }
            #expect(
                !withinCodes.contains { $0.hasSuffix("-large") },
                "the default budget holds a 3 MiB video: \(withinCodes)")
            #expect(try Support.trailpack("validate", tour, "--asset-budget-mb", "0").status == 2)
        }
    }
}
