import Foundation
import Glibc
import Testing
import TrailPackCore
import TrailPackCrypto
import TrailPackTestSupport

@testable import TrailPackBuilder

/// The plan's records stay in the stops' own lists, found by position, and the write gives each
/// list up once its files are written, while a second thread reads the small files ahead.
@Suite("builder: the records kept stop by stop", .ownThreads)
struct FileRecordsTests {
    static func record(_ folders: TourSource.SourceFile.Folders, _ name: String) -> TourSource.SourceFile {
        TourSource.SourceFile(
            folders: folders, name: name, type: MediaTypes.byExtension["txt"]!, size: 1, modified: timespec(),
            title: nil)
    }

    @Test(
        "every position finds its record, past lists of no files first, between and last; a released list's positions find none, the others still theirs"
    )
    func positions() {
        let folders = TourSource.SourceFile.Folders(real: "/t/", inTour: "w/", inPackage: "w/")
        let counts = [0, 3, 0, 0, 1, 5, 0, 2, 0]
        var names: [String] = []
        var groups: [[TourSource.SourceFile]] = []
        for (g, count) in counts.enumerated() {
            groups.append(
                (0..<count).map { k in
                    names.append("\(g)-\(k).txt")
                    return Self.record(folders, "\(g)-\(k).txt")
                })
        }
        var records = FileRecords(groups: groups)
        #expect(records.count == names.count && records.stopCount == counts.count - 1)
        #expect(records.stopFileCount == names.count)  // the last list (the maps') is empty
        #expect(records.map(\.name) == names)
        for p in names.indices {
            let g = records.group(of: p)
            #expect(counts[g] > 0 && records.groups[g][p - Int(records.starts[g])].name == names[p])
            #expect(records.recordIfKept(p)?.name == names[p])
        }
        records.release(group: 5)
        for p in names.indices {
            #expect((records.recordIfKept(p) == nil) == names[p].hasPrefix("5-"), "\(names[p])")
        }
        #expect(FileRecords(groups: [[]]).isEmpty && FileRecords(groups: [[], []]).stopCount == 1)
    }

    /// A tour whose stops' folders sort apart from their order (stop-1, stop-10, stop-2), some
    /// of no files, files whose names sort by their bytes (upper case first), large files that
    /// are not read ahead last in a stop and among small ones, and a map folder with a subfolder.
    static func tour(in dir: String) throws -> String {
        let root = dir + "/tour"
        try TourFolders.start(root, id: "gov.example.records", name: "Records", description: "Stop by stop.")
        try FileManager.default.createDirectory(atPath: root + "/map/extra", withIntermediateDirectories: true)
        try "a note beside the map\n".write(toFile: root + "/map/extra/notes.txt", atomically: false, encoding: .utf8)
        try "legend\n".write(toFile: root + "/map/legend.txt", atomically: false, encoding: .utf8)
        let large = 32 << 10 + 1  // past what the writer reads ahead (FileReadAhead.maxFileSize)
        for i in 1...12 {
            let folder = root + "/waypoints/" + String(format: "%02d-stop-%d", i, i)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            var assets: [String] = []
            let count = i % 4 == 0 ? 0 : 3 + i % 3
            for j in 0..<count {
                let name = j == 1 ? "B-\(j).txt" : "a-\(j).txt"
                // The last file of every other stop, and one in the middle of stop 5, are large.
                let size = (j == count - 1 && i % 2 == 1) || (i == 5 && j == 1) ? large + i : 20 + j
                let bytes = (0..<size).map { UInt8(ascii: "a") + UInt8((i * 7 + j + $0 / 97) % 26) }
                try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
                assets.append(name)
            }
            try TourFolders.stop(folder, name: "Stop \(i)", east: i, assets: assets)
        }
        return root
    }

    @Test(
        "a build given the plan's last copy, as the command gives it, writes every file in the order of its path's bytes with the folder's bytes, large files (not read ahead) among small ones and stops of none; zipfile and unzip agree, and the package verifies"
    )
    func writtenStopByStop() throws {
        try Support.withTemporaryDirectory { dir in
            let root = try Self.tour(in: dir)
            let plan = try #require(try TourBuilder.plan(root, budget: .default).plan)
            let expected = plan.records.map(\.archivePath).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            #expect(plan.files.map(\.archivePath) == expected, "the entry order is the paths' order")
            #expect(expected.contains("map/extra/notes.txt") && expected.contains("waypoints/stop-10/B-1.txt"))
            let sources = Dictionary(uniqueKeysWithValues: plan.records.map { ($0.archivePath, $0.sourcePath) })
            let out = dir + "/records.zip"
            // Its last copy, as the command passes it: the stops' lists are then let go as written.
            _ = try TourBuilder.write(consume plan, to: out, timestamp: TourBuilder.defaultTimestamp)
            let listing = try Support.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint('\\n'.join(i.filename for i in z.infolist()))",
                    out,
                ])
            let names = listing.stdout.split(separator: "\n").map(String.init)
            #expect(names == [Manifest.entryName] + expected, "\(listing.stderr)")
            for name in expected {
                let unzipped = try Support.run("/usr/bin/unzip", ["-p", out, name])
                let source = try #require(sources[name])
                #expect(
                    SHA256.hash(Array(unzipped.stdoutBytes)).hex == SHA256.hash(try Support.read(source)).hex, "\(name)"
                )
            }
            let verified = try Support.trailpack(["verify", out])
            #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        }
    }
}
