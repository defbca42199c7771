import Foundation
import Glibc
import Testing
import TrailPackCore
import TrailPackCrypto
import TrailPackTestSupport

@testable import TrailPackBuilder

/// The stops' files hashed while the tour folder is still being read: the digests are the
/// files', the large ones and those that changed are left to the build's own hashing (which says
/// what is wrong with them), and a build gives the very package it gave without it.
@Suite("builder: hashing while the folder is read", .ownThreads)
struct EarlyHashingTests {
    /// A tour of `stops` stops of `files` text files each (file `j` of stop `i` holds `i`, `j`).
    static func tour(in dir: String, stops: Int, files: Int, large: Bool = false) throws -> String {
        let root = dir + "/tour"
        try TourFolders.start(root, id: "gov.example.early", name: "Early", description: "Hashed early.")
        for i in 0..<stops {
            let folder = root + "/waypoints/" + String(format: "%03d-stop-%d", i + 1, i + 1)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            var assets: [String] = []
            for j in 0..<files {
                let name = String(format: "note-%03d.txt", j)
                try "Stop \(i), note \(j).\n".write(toFile: folder + "/" + name, atomically: false, encoding: .utf8)
                assets.append(name)
            }
            if large && i == 0 {
                // Past the size hashed early: left to the build's own hashing.
                let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: Int(EarlyHashing.maxFileSize) + 1)
                try Data(bytes).write(to: URL(fileURLWithPath: folder + "/large.txt"))
                assets.append("large.txt")
            }
            try TourFolders.stop(folder, name: "Stop \(i)", east: i + 1, assets: assets)
        }
        return root
    }

    @Test(
        "each stop's digests are its files' SHA-256s; a file above the size is left nil, and so is one whose size changed"
    )
    func digests() throws {
        try Support.withTemporaryDirectory { dir in
            let root = try Self.tour(in: dir, stops: 6, files: 30, large: true)
            var handed: [TourSource.WaypointSource] = []
            let loaded = try TourSource.load(root) { handed.append($0) }
            #expect(!loaded.findings.hasErrors, "\(loaded.findings)")
            #expect(handed.count == 6 && handed.map(\.folder) == loaded.source?.waypoints.map(\.folder))
            // As if the file had grown since the folder was read.
            handed[1].assets[3].size += 1
            // A stop with no files, first (before any block of slots is made) and among the others.
            var empty = handed[0]
            empty.assets = []
            empty.folder = "waypoints/000-empty"
            handed.insert(empty, at: 0)
            empty.folder = "waypoints/003-empty"
            handed.insert(empty, at: 3)
            let early = EarlyHashing()
            for stop in handed { early.add(stop) }
            early.finish(waitingForAll: true)
            for stop in handed {
                let digests = try #require(early.digests(ofStop: stop.folder))
                #expect(digests.count == stop.assets.count)
                for (k, (file, digest)) in zip(stop.assets, digests).enumerated() {
                    if file.size > EarlyHashing.maxFileSize || (stop.folder == handed[2].folder && k == 3) {
                        #expect(digest == nil, "\(file.relativePath)")
                    } else {
                        #expect(
                            digest == (try FileHashing.sha256(path: file.sourcePath).digest), "\(file.relativePath)")
                    }
                }
            }
            #expect(early.digests(ofStop: "waypoints/99-none") == nil)
        }
    }

    @Test("stopped where it is, as the build stops it once the folder is read: what it hashed is right, the rest nil")
    func stoppedWhereItIs() throws {
        try Support.withTemporaryDirectory { dir in
            let root = try Self.tour(in: dir, stops: 30, files: 40)
            let early = EarlyHashing()
            var handed: [TourSource.WaypointSource] = []
            _ = try TourSource.load(root) { stop in
                handed.append(stop)
                early.add(stop)
            }
            early.finish()
            var hashed = 0
            for stop in handed {
                let digests = try #require(early.digests(ofStop: stop.folder))
                for (file, digest) in zip(stop.assets, digests) {
                    guard let digest else { continue }
                    hashed += 1
                    #expect(digest == (try FileHashing.sha256(path: file.sourcePath).digest), "\(file.relativePath)")
                }
            }
            #expect(hashed == early.hashedCount)
            #expect(hashed <= 30 * 40)
        }
    }

    @Test("finished before it is given anything, or dropped without finishing, it stops its thread")
    func stops() throws {
        let idle = EarlyHashing()
        idle.finish()
        idle.finish()  // twice is harmless
        try Support.withTemporaryDirectory { dir in
            let root = try Self.tour(in: dir, stops: 3, files: 200)
            do {
                let dropped = EarlyHashing()
                _ = try TourSource.load(root) { dropped.add($0) }
            }  // deinit joins
        }
    }

    @Test("a plan's digests, hashed while the folder was read or after it, are what sha256sum says of each file")
    func planDigests() throws {
        try Support.withTemporaryDirectory { dir in
            // Enough stops that the folder's reading ends before the hashing does.
            let root = try Self.tour(in: dir, stops: 40, files: 50, large: true)
            let outcome = try TourBuilder.plan(root)
            guard let plan = outcome.plan else {
                Issue.record("no plan: \(outcome)")
                return
            }
            let assets = plan.manifest.waypoints.flatMap(\.assets)
            #expect(assets.count == 40 * 50 + 1)
            // `files` is in the package's order, the assets in the stops' own.
            let out = try Support.run("/usr/bin/sha256sum", plan.files.map(\.sourcePath))
            let sums = out.stdout.split(separator: "\n").map { String($0.prefix(64)) }
            #expect(sums.count == plan.files.count)
            let byPath = Dictionary(uniqueKeysWithValues: zip(plan.files.map(\.archivePath), sums))
            for asset in assets { #expect(asset.sha256 == byPath[asset.path], "\(asset.path)") }
        }
    }
}

/// The content check of a media file, when the file cannot be opened: said as that, not as
/// damaged content (the mode may promise a read that the file system refuses).
@Suite("builder: a media file that cannot be opened", .ownThreads)
struct ContentCheckTests {
    @Test("a .png that cannot be opened is unreadable to the content check and refused as such by the panel's check")
    func unopenable() throws {
        try Support.withTemporaryDirectory { dir in
            let missing = dir + "/view.png"
            #expect(throws: (any Error).self) { try ContentCheck.mismatch(path: missing, fileName: "view.png") }
            guard case .refused(let why) = MediaCheck.verdict(path: missing, fileName: "view.png") else {
                Issue.record("accepted a file that cannot be read")
                return
            }
            #expect(why.hasPrefix("'view.png' cannot be read") && !why.contains("damaged"), "\(why)")
            // A readable one that is not a PNG is still said as its content.
            try Data("not a picture".utf8).write(to: URL(fileURLWithPath: missing))
            #expect(
                try ContentCheck.mismatch(path: missing, fileName: "view.png")?.contains("is not a PNG image") == true)
        }
    }
}
