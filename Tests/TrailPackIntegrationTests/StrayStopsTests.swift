import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

/// A stop far from all the others is a typo until shown otherwise: what `validate` says of one
/// (the rule itself is tested in TrailPackCoreTests' StrayStopsTests).
@Suite("stray stops: validate", .ownThreads)
struct StrayStopsCLITests {
    @Test("validate names the stray stop, its coordinate and the fix, as a warning")
    func validateSaysSo() throws {
        try Support.withTemporaryDirectory { dir in
            try
                "name,lat,lon\nHouse Rock,44.3956,-122.0443\nSanitarium,44.4058,-121.9827\nFish Lake,54.4057,-121.8666\nToll Station,44.4056,-121.7050\n"
                .write(toFile: dir + "/stops.csv", atomically: true, encoding: .utf8)
            #expect(try Support.trailpack("init", dir + "/tour", "--from-csv", dir + "/stops.csv").status == 0)
            let result = try Support.trailpack("validate", dir + "/tour", "--json")
            #expect(result.status == 0, "a warning, not an error: \(result.stdout)")
            let report = try JSONParser.parse(Array(result.stdoutBytes)).value
            guard case .array(let findings)? = report["findings"] else { Issue.record("no findings"); return }
            let stray = try #require(findings.first { $0["code"] == .string("waypoint.stray") })
            #expect(stray["severity"] == .string("warning"))
            guard case .string(let message)? = stray["message"], case .string(let file)? = stray["file"] else {
                Issue.record("\(stray)"); return
            }
            #expect(file.hasSuffix("fish-lake/waypoint.json"), "\(file)")
            #expect(message.contains("'Fish Lake' at 54.4057, -121.8666") && message.contains("typo"), "\(message)")
        }
    }
}

/// Messages a new user ran into (a ranger following RANGERS.md): each must say what to write.
@Suite("messages found by a new user", .ownThreads)
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
        #expect(
            result.stderr.contains("is a folder, not a package") && result.stderr.contains("trailpack validate"),
            "\(result.stderr)")
    }

    @Test("usage errors keep their line breaks instead of printing \\u{a}")
    func usageLineBreaks() throws {
        let result = try Support.trailpack("valdate", "x")
        #expect(result.status == 2)
        #expect(
            !result.stderr.contains("\\u{a}") && result.stderr.contains("did you mean 'validate'?\nSee"),
            "\(result.stderr)")
    }
}
