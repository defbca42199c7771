import Foundation
import Testing
@testable import TrailPackCore

/// A stop far from all the others is a typo until shown otherwise (found trying the CSV import as
/// a ranger: 54.4057 for 44.4057 built silently, the frame stretched over 1,100 km).
@Suite("stray stops")
struct StrayStopsTests {
    static let santiam = [
        (44.3976, -122.7226), (44.4019, -122.4521), (44.4011, -122.2466), (44.4007, -122.1495),
        (44.3956, -122.0443), (44.4058, -121.9827), (44.4192, -121.8666), (44.4056, -121.7050),
    ].map { Coordinate(latitude: $0.0, longitude: $0.1) }

    @Test("a byway's stops spread alike are not strays; a digit off, a lost minus sign or swapped axes are")
    func rules() {
        #expect(StrayStops.find(Self.santiam).isEmpty)
        #expect(StrayStops.find(Array(Self.santiam.prefix(2))).isEmpty, "two stops: nothing to compare with")
        for (typo, what) in [((54.4056, -121.7050), "a digit off"), ((44.4056, 121.7050), "a lost minus sign"),
                             ((-121.7050, 44.4056), "swapped")] {
            var stops = Self.santiam
            stops[7] = Coordinate(latitude: typo.0, longitude: typo.1)
            let strays = StrayStops.find(stops)
            #expect(strays.map(\.index) == [7], "\(what): \(strays)")
        }
        // A state-wide checklist (peaks hundreds of km apart) is not flagged.
        let colorado = [(40.25, -105.61), (39.12, -106.45), (37.58, -105.49), (38.92, -106.32), (39.63, -105.82), (37.97, -107.59)]
            .map { Coordinate(latitude: $0.0, longitude: $0.1) }
        #expect(StrayStops.find(colorado).isEmpty)
    }

    @Test("validate names the stray stop, its coordinate and the fix, as a warning")
    func validateSaysSo() throws {
        try Support.withTemporaryDirectory { dir in
            try "name,lat,lon\nHouse Rock,44.3956,-122.0443\nSanitarium,44.4058,-121.9827\nFish Lake,54.4057,-121.8666\nToll Station,44.4056,-121.7050\n"
                .write(toFile: dir + "/stops.csv", atomically: true, encoding: .utf8)
            #expect(try Support.trailpack("init", dir + "/tour", "--from-csv", dir + "/stops.csv").status == 0)
            let result = try Support.trailpack("validate", dir + "/tour", "--json")
            #expect(result.status == 0, "a warning, not an error: \(result.stdout)")
            let report = try JSONParser.parse(Array(result.stdoutBytes)).value
            guard case .array(let findings)? = report["findings"] else { Issue.record("no findings"); return }
            let stray = try #require(findings.first { $0["code"] == .string("waypoint.stray") })
            #expect(stray["severity"] == .string("warning"))
            guard case .string(let message)? = stray["message"], case .string(let file)? = stray["file"] else { Issue.record("\(stray)"); return }
            #expect(file.hasSuffix("fish-lake/waypoint.json"), "\(file)")
            #expect(message.contains("'Fish Lake' at 54.4057, -121.8666") && message.contains("typo"), "\(message)")
        }
    }
}

/// Messages a new user ran into (a ranger following RANGERS.md): each must say what to write.
@Suite("messages found by a new user")
struct NewUserMessageTests {
    @Test("a Windows path to a file the stop folder holds says to write the name alone")
    func backslashPath() throws {
        try Support.withTemporaryDirectory { dir in
            #expect(try Support.trailpack("init", dir + "/t").status == 0)
            let stop = dir + "/t/waypoints/01-trailhead"
            try Support.write(Array("Notes.".utf8), to: stop + "/notes.txt")
            var json = try String(contentsOfFile: stop + "/waypoint.json", encoding: .utf8)
            json = json.replacingOccurrences(of: "\"assets\": []", with: "\"assets\": [\"photos\\\\notes.txt\"]")
            try json.write(toFile: stop + "/waypoint.json", atomically: true, encoding: .utf8)
            let result = try Support.trailpack("validate", dir + "/t")
            #expect(result.status == 1)
            #expect(result.stderr.contains("write just 'notes.txt'"), "\(result.stderr)")
        }
    }

    @Test("a package command given a tour folder says to validate or build it")
    func folderForPackage() throws {
        let result = try Support.trailpack("inspect", Support.fixture("family-hikes"))
        #expect(result.status == 3)
        #expect(result.stderr.contains("is a folder, not a package") && result.stderr.contains("trailpack validate"), "\(result.stderr)")
    }

    @Test("usage errors keep their line breaks instead of printing \\u{a}")
    func usageLineBreaks() throws {
        let result = try Support.trailpack("valdate", "x")
        #expect(result.status == 2)
        #expect(!result.stderr.contains("\\u{a}") && result.stderr.contains("did you mean 'validate'?\nSee"), "\(result.stderr)")
    }
}
