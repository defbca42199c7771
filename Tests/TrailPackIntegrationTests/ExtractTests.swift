import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport

/// `trailpack cat` and `trailpack extract`: one asset streamed, a package unpacked (the reader they
/// use is tested in TrailPackVerifierTests).
@Suite("reading single assets and extracting", .ownThreads)
struct ReaderTests {
    @Test("cat streams a verified asset; a tampered asset fails with a message and a non-zero exit")
    func cat() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildFixture("santiam-wagon-road", into: dir)
            let out = try Support.trailpack("cat", path, "waypoints/house-rock/birdsong.wav")
            #expect(out.status == 0)
            #expect(
                Array(out.stdoutBytes)
                    == (try Support.read(Support.fixture("santiam-wagon-road/waypoints/04-house-rock/birdsong.wav"))))
            let missing = try Support.trailpack("cat", path, "waypoints/house-rock/birdsong.mp3")
            #expect(
                missing.status == 2 && missing.stderr.contains("did you mean 'waypoints/house-rock/birdsong.wav'"),
                "\(missing.stderr)")

            // Tamper with the stored WAV in place (same size, CRC fixed up): only the manifest's SHA-256 can tell.
            var f = try ZipForge.from(package: try Support.read(path))
            let i = try #require(
                f.entries.firstIndex { String(decoding: $0.name, as: UTF8.self).hasSuffix("birdsong.wav") })
            f.entries[i].data[100] ^= 0xFF
            try Support.write(f.bytes(), to: dir + "/tampered.zip")
            let bad = try Support.trailpack("cat", dir + "/tampered.zip", "waypoints/house-rock/birdsong.wav")
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("SHA-256"), "\(bad.stderr)")
            // Other assets of the same package still read.
            #expect(try Support.trailpack("cat", dir + "/tampered.zip", "waypoints/fish-lake/about.md").status == 0)
        }
    }

    @Test("extract writes nothing outside the target: a traversal archive is refused whole")
    func extractTraversal() throws {
        try Support.withTemporaryDirectory { dir in
            var f = try ZipForge.from(package: Packages.familyHikes)
            f.entries.append(.init("../escaped.txt", Array("gotcha".utf8)))
            f.entries.append(.init("waypoints/../../escaped2.txt", Array("gotcha".utf8)))
            try Support.write(f.bytes(), to: dir + "/evil.zip")
            try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
            let out = try Support.trailpack("extract", dir + "/evil.zip", dir + "/sub/target")
            #expect(out.status == 1, "\(out.stderr)")
            #expect(out.stderr.contains("zip.name-unsafe"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["evil.zip", "sub"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/sub").isEmpty)
        }
    }

    @Test(
        "extract of a valid package is complete and atomic; it refuses to overwrite unless told to",
        .needs(.unzip, .diff))
    func extractValid() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildFixture("santiam-wagon-road", into: dir)
            #expect(try Support.trailpack("extract", path, dir + "/t").status == 0)
            let unzip = dir + "/u"
            #expect(try Support.run("unzip", ["-q", path, "-d", unzip]).status == 0)
            #expect(try Support.run("diff", ["-r", dir + "/t", unzip]).status == 0)
            let again = try Support.trailpack("extract", path, dir + "/t")
            #expect(again.status == 2 && again.stderr.contains("--force"))
            try "old".write(toFile: dir + "/t/stale.txt", atomically: true, encoding: .utf8)
            #expect(try Support.trailpack("extract", path, dir + "/t", "--force").status == 0)
            #expect(!FileManager.default.fileExists(atPath: dir + "/t/stale.txt"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }.isEmpty)
        }
    }
}
