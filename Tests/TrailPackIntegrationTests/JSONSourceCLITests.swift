import Foundation
import Testing
import TrailPackTestSupport

/// The plain-words messages of source mode, as `trailpack validate` reports them.
@Suite("JSON in the ranger's files: validate", .ownThreads)
struct JSONSourceCLITests {
    @Test("every mistake in a file is reported in one run, and validate names each line")
    func everyMistakeInOneRun() throws {
        try Support.withTemporaryDirectory { dir in
            #expect(try Support.trailpack("init", dir + "/tour").status == 0)
            let file = dir + "/tour/waypoints/01-trailhead/waypoint.json"
            let text = """
                {
                  “name”: “Trailhead”,
                  "coordinate": {"latitude": 44,42, "longitude": -122.15},
                  "description": "The "Old" mill",
                  "assets": ["about.md", "photos\\IMG_002.JPG",],
                }

                """
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let out = try Support.trailpack("validate", dir + "/tour", "--json")
            #expect(out.status == 1)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            let messages = (report["findings"] as? [[String: Any]] ?? [])
                .filter { ($0["file"] as? String) == "waypoints/01-trailhead/waypoint.json" }
                .compactMap { $0["message"] as? String }
            for words in [
                "line 2, column 3: this line uses curly quotes",
                "line 3, column 32: a decimal comma in 44,42: write 44.42",
                "line 4, column 23: a quote (\") inside the text",
                "line 5, column 33: a backslash (\\) in a file name: use / instead (photos/IMG_002.JPG)",
                "there is a comma after the last item on line 5", "there is a comma after the last item on line 5",
            ] {
                #expect(messages.contains { $0.contains(words) }, "missing '\(words)' in \(messages)")
            }
            #expect(messages.filter { $0.contains("comma after the last item") }.count == 2)
        }
    }
}
