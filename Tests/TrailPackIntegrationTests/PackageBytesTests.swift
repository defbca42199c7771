import Foundation
import Testing
import TrailPackTestSupport

/// What `trailpack build` writes for the same files, across versions: the bytes, not only the
/// contents (updates by part reuse the entries that did not change).
@Suite("builder: the same bytes as before", .ownThreads)
struct PackageBytesTests {
    @Test(
        "the fuzzer's seed tour builds to the very bytes trailpack built on 2026-11-25: how a file is read (ahead, or hashed early) never shows in the package"
    )
    func sameBytesAsBefore() throws {
        // scripts/make_fuzz_seeds.py's tour, whose package fixtures/fuzz/seeds/trailpack.zip was
        // built then. Updates by part reuse unchanged entries: a builder that wrote other bytes for
        // the same files would make every first update after it cost the whole package.
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            func write(_ path: String, _ bytes: [UInt8]) throws {
                let file = tour + "/" + path
                try FileManager.default.createDirectory(
                    atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Support.write(bytes, to: file)
            }
            try write(
                "tour.json",
                Array(
                    #"{"id": "gov.example.fuzz", "version": "1.0.0", "name": "Fuzz Seed Tour", "park": "Test Forest", "site": {"id": "test-site", "name": "Test Site"}, "mapName": "fuzz", "description": "A tiny tour for the fuzzer."}"#
                        .utf8))
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<512).map { UInt8($0 % 256) }
            for (folder, name, lat, files) in [
                (
                    "01-trailhead", "Trailhead", "44.4",
                    [("notes.txt", Array(String(repeating: "Start here. ", count: 20).utf8))]
                ),
                ("02-fish-lake", "Fish Lake", "44.41", [("lake.txt", Array("A lake.\n".utf8)), ("map.png", png)]),
            ] {
                for (file, bytes) in files { try write("waypoints/\(folder)/\(file)", bytes) }
                let assets = files.map { "\"\($0.0)\"" }.joined(separator: ", ")
                try write(
                    "waypoints/\(folder)/waypoint.json",
                    Array(
                        #"{"name": "\#(name)", "coordinate": {"latitude": \#(lat), "longitude": -121.9}, "description": "Stop \#(name)", "assets": [\#(assets)]}"#
                            .utf8))
            }
            // With the build's default time (SOURCE_DATE_EPOCH unset), as the seed was built.
            var environment = ProcessInfo.processInfo.environment
            environment["SOURCE_DATE_EPOCH"] = nil
            let out = try Support.trailpack(["build", tour, "-o", dir + "/seed.zip", "-q"], environment: environment)
            #expect(out.status == 0, "\(out.stderr)")
            let built = try Data(contentsOf: URL(fileURLWithPath: dir + "/seed.zip"))
            let before = try Data(contentsOf: URL(fileURLWithPath: Support.fixture("fuzz/seeds/trailpack.zip")))
            #expect(built == before, "the package's bytes changed: \(built.count) bytes against \(before.count)")
        }
    }
}
