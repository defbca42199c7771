import Foundation
import Testing
import TrailPackArchive
import TrailPackFuzzing
import TrailPackTestSupport
import TrailPackVerifier

/// The structure-aware fuzzer's seeds, its findings kept as regressions, and a bounded run of it.
@Suite("structure-aware fuzzing", .ownThreads)
struct FuzzRegressionTests {
    static let seedFolder = Support.fixture("fuzz/seeds")
    static let crashFolder = Support.fixture("fuzz/crashes")

    static func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".zip") }.sorted()
    }

    @Test("every seed is a valid package that the model re-emits as a valid package")
    func seedsRoundTrip() throws {
        let names = Self.files(Self.seedFolder)
        #expect(names.count >= 4)
        for name in names {
            let bytes = try Support.read(Self.seedFolder + "/" + name)
            #expect(try Verifier.verify(source: MemorySource(bytes)).isValid, "\(name)")
            let model = try #require(ZipModel(seed: bytes), "\(name) does not parse as a model")
            let report = try Verifier.verify(source: MemorySource(model.bytes()))
            #expect(report.isValid, "\(name) re-emitted: \(report.findings)")
        }
    }

    @Test("the ZIP64 and descriptor seeds really exercise those records")
    func seedShapes() throws {
        let zip64Bytes = try Support.read(Self.seedFolder + "/python-zip64.zip")
        let zip64 = try #require(ZipModel(seed: zip64Bytes))
        #expect(zip64.entries.allSatisfy { $0.zip64 })
        let streamedBytes = try Support.read(Self.seedFolder + "/python-streamed.zip")
        let streamed = try #require(ZipModel(seed: streamedBytes))
        #expect(streamed.entries.allSatisfy { $0.descriptor })
        let infozipBytes = try Support.read(Self.seedFolder + "/info-zip.zip")
        let infozip = try #require(ZipModel(seed: infozipBytes))
        #expect(infozip.entries.contains { $0.name.last == UInt8(ascii: "/") })
    }

    @Test("each mutation changes the archive, and a pinned field lands where the format puts it")
    func mutationsApply() throws {
        let seedBytes = try Support.read(Self.seedFolder + "/trailpack.zip")
        let seed = try #require(ZipModel(seed: seedBytes))
        let honest = seed.bytes()
        var random = SeededRandom(seed: 42)
        var changed = 0
        for _ in 0..<200 {
            var m = seed
            ZipMutator.mutate(&m, using: &random)
            if m.bytes() != honest { changed += 1 }
        }
        #expect(changed >= 180, "only \(changed) of 200 mutations changed the bytes")
        // The central record's uncompressed size (offset 24 in the record) takes the pinned value.
        var m = seed
        m.entries[0].overrides[.centralUncompressed] = 0xFFFF_FFFF
        let bytes = m.bytes()
        let directory = try ZipDirectory.read(MemorySource(bytes))
        let cd = Int(directory.centralDirectoryOffset)
        #expect(Array(bytes[cd + 24..<cd + 28]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(directory.findings.contains { $0.code == .zipZip64Invalid && $0.file == "manifest.json" })
    }

    @Test(
        "every archive that once trapped the verifier is refused with a finding code, on one thread and on two",
        arguments: files(crashFolder))
    func crash(name: String) throws {
        let bytes = try Support.read(Self.crashFolder + "/" + name)
        let report = try Verifier.verify(source: MemorySource(bytes), options: .init(threads: 1))
        #expect(!report.isValid)
        #expect(!report.findings.isEmpty)
        // Two threads take another way (the manifest read ahead, CRC-32s on the whole-file thread).
        let two = try Verifier.verify(source: MemorySource(bytes), options: .init(threads: 2))
        #expect(two.findings.map(\.description).sorted() == report.findings.map(\.description).sorted())
        // The reader refuses it too, with findings, rather than trapping.
        #expect(throws: PackageError.self) { try PackageReader(source: MemorySource(bytes)) }
    }

    @Test("a bounded structured run (3,000 inputs, a fixed seed) never traps the verifier or the reader")
    func boundedRun() throws {
        let fuzz = URL(fileURLWithPath: Support.binary).deletingLastPathComponent().appendingPathComponent(
            "trailpack-fuzz"
        ).path
        try #require(FileManager.default.isExecutableFile(atPath: fuzz), "build trailpack-fuzz first (swift build)")
        try Support.withTemporaryDirectory { dir in
            // In a child process: a trap ends the child, not the test run, and leaves its input behind.
            let result = try Support.run(
                fuzz, ["--generate", "3000", "--seed", "20261122", "--last", dir + "/last.zip"],
                environment: ["TRAILPACK_FUZZ_SEEDS": Self.seedFolder], directory: Support.root)
            let last = (try? String(contentsOfFile: dir + "/last.zip.txt", encoding: .utf8)) ?? ""
            #expect(result.status == 0, "trapped on: \(last)\n\(result.stderr.suffix(2000))")
            #expect(result.stdout.contains("generated 3000 structured inputs"))
            #expect(result.stdout.contains("0 unreadable"))
        }
    }
}
