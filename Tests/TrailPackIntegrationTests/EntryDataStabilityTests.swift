import Foundation
import Testing
import TrailPackArchive
import TrailPackCore
import TrailPackTestSupport

/// FORMAT.md §5's promise that updates by part rest on: an asset that did not change keeps its
/// entry data (the compressed bytes) byte for byte from version to version, whatever the build's
/// SOURCE_DATE_EPOCH, the version or the neighbouring entries.
@Suite("format: an unchanged asset's entry data is identical across versions", .ownThreads)
struct EntryDataStabilityTests {
    /// Each entry's name → (CRC-32, sizes, compressed bytes).
    static func entryData(_ path: String) throws -> [String: (UInt32, Int64, Int64, [UInt8])] {
        let source = try FileSource(path: path)
        let directory = try ZipDirectory.read(source)
        let bytes = try Support.read(path)
        var out: [String: (UInt32, Int64, Int64, [UInt8])] = [:]
        for entry in directory.entries {
            let start = Int(try #require(entry.dataOffset))
            out[entry.name] = (
                entry.crc32, entry.compressedSize, entry.uncompressedSize,
                Array(bytes[start..<start + Int(entry.compressedSize)])
            )
        }
        return out
    }

    @Test(
        "two versions built with different SOURCE_DATE_EPOCHs, one with a stop's description changed: every entry but manifest.json has the same data, CRC and sizes; the local headers' times differ"
    )
    func unchangedEntriesKeepTheirData() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
            let first = try Support.trailpack(
                "build", tour, "-o", dir + "/v1.zip", "--quiet",
                environment: ["SOURCE_DATE_EPOCH": "1700000000", "PATH": "/usr/bin:/bin"])
            #expect(first.status == 0, "\(first.stderr)")
            try Support.editJSON(tour + "/tour.json") { $0["version"] = "1.1.0" }
            try Support.editJSON(tour + "/waypoints/02-cascadia/waypoint.json") {
                $0["description"] = "A typo fixed in Cascadia's description."
            }
            let second = try Support.trailpack(
                "build", tour, "-o", dir + "/v2.zip", "--quiet",
                environment: ["SOURCE_DATE_EPOCH": "1750000000", "PATH": "/usr/bin:/bin"])
            #expect(second.status == 0, "\(second.stderr)")
            let (v1, v2) = (try Self.entryData(dir + "/v1.zip"), try Self.entryData(dir + "/v2.zip"))
            #expect(Set(v1.keys) == Set(v2.keys))
            #expect(v1.count > 10, "the fixture has assets and a map: \(v1.keys.sorted())")
            for (name, old) in v1 where name != "manifest.json" {
                let new = try #require(v2[name])
                #expect(old.0 == new.0 && old.1 == new.1 && old.2 == new.2, "\(name): CRC or sizes changed")
                #expect(old.3 == new.3, "\(name): the entry's compressed bytes changed")
            }
            #expect(v1["manifest.json"]?.3 != v2["manifest.json"]?.3, "the manifest did change")
            // What differs besides: the stamped times (the client rebuilds local headers and the directory).
            #expect(try Support.read(dir + "/v1.zip") != Support.read(dir + "/v2.zip"))
        }
    }
}
