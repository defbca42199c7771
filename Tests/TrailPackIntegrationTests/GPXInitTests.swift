import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

@testable import TrailPackBuilder

/// `trailpack init --from-gpx` on the GPX fixtures, then `validate`. The GPX reader itself is
/// tested in TrailPackBuilderTests' GPXTests.
@Suite("GPX import: init and validate", .ownThreads)
struct GPXInitTests {
    static func path(_ name: String) -> String { GPXFixtures.path(name) }

    /// The refusal for `text`, which must be one.
    static func refusal(_ text: String) -> BuildError? {
        do {
            _ = try GPXReader.read(bytes: Array(text.utf8), name: "test.gpx")
            return nil
        } catch {
            return error
        }
    }

    @Test("init then validate exits 0 on every GPX file with waypoints", arguments: GPXFixtures.withWaypoints)
    func initThenValidate(name: String) throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            let made = try Support.trailpack("init", tour, "--from-gpx", Self.path(name))
            #expect(made.status == 0, "\(made.stderr)")
            let check = try Support.trailpack("validate", tour, "--json")
            #expect(check.status == 0, "\(check.stdout)")
            let report = try JSONParser.parse(Array(check.stdoutBytes)).value
            #expect(report["valid"] == .bool(true))
            // Only warnings: the template text init writes on purpose (tour id, park…), and no map yet.
            guard case .array(let findings)? = report["findings"] else { Issue.record("no findings array"); return }
            // (and a stray-stop warning where a hand-made file puts a stop across the world on purpose).
            #expect(findings.allSatisfy { $0["severity"] == .string("warning") }, "\(findings)")
            // The tour is named as the file names what it records, else after its folder.
            let document = try GPXReader.read(path: Self.path(name))
            let tourName = try JSONParser.parse(Support.read(tour + "/tour.json")).value["name"]
            #expect(
                tourName == .string(document.name.map { TourInit.cleanText(HTMLText.plain($0)) } ?? "tour"),
                "\(String(describing: tourName))")
            // What was written is what the reader returned.
            let points = document.points
            let folders = try FileManager.default.contentsOfDirectory(atPath: tour + "/waypoints").sorted()
            #expect(folders.count == points.count)
            for (folder, point) in zip(folders, points) {
                let json = try JSONParser.parse(Support.read(tour + "/waypoints/" + folder + "/waypoint.json")).value
                if let name = point.name {
                    #expect(
                        json["name"].flatMap { if case .string(let s) = $0 { s } else { nil } }?.hasPrefix(
                            TourInit.oneLine(name).prefix(20)) == true)
                }
                #expect(json["coordinate"]?["latitude"] == .number(JSONNumber(point.coordinate.latitude)))
                #expect(json["coordinate"]?["longitude"] == .number(JSONNumber(point.coordinate.longitude)))
                if let e = point.elevation { #expect(json["properties"]?["elevationMeters"] == .number(e)) }
            }
        }
    }

    @Test(
        "init --stops-from route, then validate; --stops-from without --from-gpx is a usage error; a refused file leaves no folder"
    )
    func initRoute() throws {
        try Support.withTemporaryDirectory { dir in
            let made = try Support.trailpack(
                "init", dir + "/route", "--from-gpx", Self.path("route-only.gpx"), "--stops-from", "route")
            #expect(made.status == 0, "\(made.stderr)")
            #expect(
                made.stderr.contains(
                    "note: the point at line 7 of 'route-only.gpx': the point has no <name>; it is called 'Stop 3'"))
            let check = try Support.trailpack("validate", dir + "/route")
            #expect(check.status == 0, "\(check.stdout)")
            let folders = try FileManager.default.contentsOfDirectory(atPath: dir + "/route/waypoints").sorted()
            #expect(folders == ["01-start", "02-bridge", "03-stop-3", "04-overlook"])

            let usage = try Support.trailpack("init", dir + "/x", "--stops-from", "route")
            #expect(usage.status == 2)
            let refused = try Support.trailpack("init", dir + "/cut", "--from-gpx", Self.path("truncated.gpx"))
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("truncated.gpx' line 4, column 56: the file ends inside <name>"))
            #expect(!FileManager.default.fileExists(atPath: dir + "/cut"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["route"])
        }
    }

    @Test("text from the file is printed with control and bidirectional characters escaped")
    func printable() throws {
        let error = try #require(Self.refusal("<gpx><wpt lat=\"&#x9B;31m\u{202E}\" lon=\"0\"/></gpx>"))
        #expect(
            error.message == "lat=\"\u{9B}31m\u{202E}\" in <wpt> is not a decimal number of degrees (such as 44.4057)")
        #expect(
            error.description
                == #"'test.gpx' line 1, column 6: lat="\u{9b}31m\u{202e}" in <wpt> is not a decimal number of degrees (such as 44.4057)"#
        )
        try Support.withTemporaryDirectory { dir in
            try Support.write(
                Array(
                    "<gpx><wpt lat=\"1\" lon=\"2\"><name>A\u{202E}B</name></wpt><wpt lat=\"1\" lon=\"2\"><name>a\u{202E}b</name></wpt></gpx>"
                        .utf8), to: dir + "/bidi.gpx")
            let made = try Support.trailpack("init", dir + "/t", "--from-gpx", dir + "/bidi.gpx")
            #expect(made.status == 0, "\(made.stderr)")
            #expect(
                made.stderr
                    == #"note: the point at line 1 of 'bidi.gpx': the name 'a\u{202e}b' is already used by stop 1; this stop is now 'a\u{202e}b (2)' (names must differ, also ignoring case; rename it in its waypoint.json)"#
                    + "\n")
        }
    }
}
