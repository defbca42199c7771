import Foundation
import Testing
import TrailPackArchive
import TrailPackCrypto
import TrailPackTestSupport

@testable import TrailPackCore
@testable import TrailPackVerifier

@Suite("verifier", .ownThreads)
struct VerifierTests {
    /// A small valid package (family hikes: 17 entries, deflated and stored), built by the program:
    /// this target may not link the builder. Empty when it cannot be built (every test using it
    /// then fails on its own).
    static let package: [UInt8] = Packages.familyHikes

    func verify(_ bytes: [UInt8], _ options: Verifier.Options = .init()) throws -> VerificationReport {
        try Verifier.verify(source: MemorySource(bytes), options: options)
    }

    func forge() throws -> ZipForge { try ZipForge.from(package: Self.package) }

    @Test(
        "every fixture package verifies, on one thread and on two, and reports the whole-file SHA-256",
        .needs(.sha256sum), arguments: Support.fixtureNames)
    func fixturesVerify(name: String) throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildWithProgram(name, into: dir)
            let expected = try #require(SHA256Digest(hex: try Support.sha256sum(path)))
            for threads in [1, 2] {
                let report = try Verifier.verify(path: path, options: .init(expectedSHA256: expected, threads: threads))
                #expect(report.isValid, "\(report.findings)")
                #expect(report.sha256 == expected)
                #expect(report.sha256Matches == true)
            }
        }
    }

    @Test(
        "the same contents rewritten by Python's zipfile (seekable and streamed) and by zip -r verify",
        .needs(.python3, .unzip, .zip))
    func otherWriters() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildWithProgram("santiam-wagon-road", into: dir)
            let python = """
                import sys, zipfile
                src = zipfile.ZipFile(sys.argv[1])
                with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as out:
                    # maps stay stored (docs/FORMAT.md, "Maps"); everything else deflated
                    for i in src.infolist(): out.writestr(i.filename, src.read(i.filename), zipfile.ZIP_STORED if i.filename.endswith(".pmtiles") else zipfile.ZIP_DEFLATED)
                class Unseekable:
                    def __init__(s, f): s.f = f
                    def write(s, b): return s.f.write(b)
                    def flush(s): s.f.flush()
                with open(sys.argv[3], "wb") as f, zipfile.ZipFile(Unseekable(f), "w", zipfile.ZIP_STORED) as out:
                    for i in src.infolist():
                        with out.open(i.filename, "w") as w: w.write(src.read(i.filename))
                """
            #expect(
                try Support.run("python3", ["-c", python, path, dir + "/py.zip", dir + "/py-stream.zip"]).status == 0)
            try FileManager.default.createDirectory(atPath: dir + "/x", withIntermediateDirectories: true)
            #expect(try Support.run("unzip", ["-q", path, "-d", dir + "/x"]).status == 0)
            #expect(
                try Support.run("zip", ["-q", "-X", dir + "/zip.zip", "manifest.json"], directory: dir + "/x").status
                    == 0)
            #expect(
                try Support.run(
                    "zip", ["-q", "-X", "-n", ".pmtiles", "-r", dir + "/zip.zip", "waypoints", "map"],
                    directory: dir + "/x"
                ).status == 0)
            for file in ["py.zip", "py-stream.zip", "zip.zip"] {
                let report = try Verifier.verify(path: dir + "/" + file)
                #expect(report.isValid, "\(file): \(report.findings)")
            }
        }
    }

    @Test("the entries the hostile cases rely on are what they think")
    func corpusAssumptions() throws {
        let f = try forge()
        #expect(f.entries[1].method == 8 && f.entries[2].method == 0)
    }

    @Test("the forge re-emits a valid package as a valid package (so each hostile case breaks one rule only)")
    func forgeRoundTrip() throws {
        let report = try verify(try forge().bytes())
        #expect(report.isValid, "\(report.findings)")
    }

    /// One hostile archive per structure rule, each derived from the valid package.
    // In the family-hikes package, entries[1] (notes.txt) is deflated and entries[2] (trail.png) stored.
    static let structureCases: [(String, FindingCode, @Sendable (inout ZipForge) -> Void)] = [
        ("prefix bytes", .zipPrefix, { $0.prefix = Array("MZ self-extractor stub".utf8) }),
        ("trailing bytes", .zipTrailing, { $0.trailing = [0, 1, 2, 3] }),
        ("a gap between entries", .zipGap, { $0.entries[1].after = Array("hidden".utf8) }),
        (
            "two end records", .zipEOCDMultiple,
            { f in f.comment = le32(0x0605_4B50) + [UInt8](repeating: 0, count: 18) }
        ),
        ("several disks", .zipEOCDInvalid, { $0.diskNumber = 1 }),
        ("ZIP64 needed but no locator", .zipZip64Invalid, { $0.totalEntriesOverride = 0xFFFF }),
        (
            "entry count disagrees with the directory", .zipCentralDirectory,
            { $0.totalEntriesOverride = UInt16($0.entries.count + 1) }
        ),
        ("local name differs", .zipLocalMismatch, { $0.entries[2].localName = Array("waypoints/evil/notes.txt".utf8) }),
        ("local method differs", .zipLocalMismatch, { $0.entries[2].localMethod = 8 }),
        ("local flags differ", .zipLocalMismatch, { $0.entries[2].localFlags = 0x0002 }),
        ("local CRC differs", .zipLocalMismatch, { $0.entries[2].localCRC = 0xDEAD_BEEF }),
        ("local size differs", .zipLocalMismatch, { $0.entries[2].localUncompressedSize = 1 }),
        (
            "data descriptor disagrees", .zipDescriptor,
            {
                $0.entries[2].descriptor = true; $0.entries[2].descriptorCRC = 1
            }
        ),
        ("two entries share one local header", .zipOverlap, { f in f.entries[3].centralOffset = 0 }),
        ("duplicate name", .zipNameDuplicate, { f in f.entries[3].name = f.entries[2].name }),
        (
            "names differ only in case", .zipNameFoldedDuplicate,
            { f in f.entries[3].name = Array(String(decoding: f.entries[2].name, as: UTF8.self).uppercased().utf8) }
        ),
        (
            "a file used as a folder", .zipNameDuplicate,
            { f in
                f.entries.append(.init("waypoints/01-x/notes.txt/evil.txt", [1]));
                f.entries.append(.init("waypoints/01-x/notes.txt", [2]))
            }
        ),
        ("symbolic link", .zipEntryType, { $0.entries[2].externalAttributes = 0o120777 << 16 }),
        ("device", .zipEntryType, { $0.entries[2].externalAttributes = 0o020644 << 16 }),
        ("directory with data", .zipEntryType, { $0.entries.append(.init("waypoints/", Array("data".utf8))) }),
        ("encrypted", .zipEncrypted, { $0.entries[2].flags |= 0x0001 }),
        ("bzip2 method", .zipMethod, { $0.entries[2].method = 12 }),
        (
            "non-ASCII name without the UTF-8 flag", .zipNameEncoding,
            { f in
                f.entries.append(.init("waypoints/caf\u{E9}.txt", [1])); f.entries[f.entries.count - 1].flags = 0
            }
        ),
        (
            "name that is not UTF-8", .zipNameEncoding,
            { f in
                var e = ZipForge.Entry("x", [1]); e.name = [0x77, 0xFF, 0xFE]; e.flags = 0x0800; f.entries.append(e)
            }
        ),
        (
            "Unicode-path extra field with another name", .zipExtraField,
            { f in
                f.entries[2].centralExtra = le16(0x7075) + le16(UInt16(5 + 9)) + [1] + le32(0) + Array("other.txt".utf8)
            }
        ),
        ("malformed extra field", .zipExtraField, { $0.entries[2].centralExtra = le16(0x5455) + le16(40) + [1, 2] }),
        (
            "CRC mismatch", .zipCRC,
            {
                $0.entries[2].centralCRC = 0x1234_5678; $0.entries[2].localCRC = 0x1234_5678
            }
        ),
        (
            "inflates past the declared size", .zipSizeMismatch,
            { f in
                f.entries[1].centralUncompressedSize = UInt32(f.entries[1].data.count - 10)
                f.entries[1].localUncompressedSize = UInt32(f.entries[1].data.count - 10)
            }
        ),
        (
            "inflates to less than declared", .zipSizeMismatch,
            { f in
                f.entries[1].centralUncompressedSize = UInt32(f.entries[1].data.count + 10)
                f.entries[1].localUncompressedSize = UInt32(f.entries[1].data.count + 10)
            }
        ),
        (
            "corrupt deflate data", .zipDeflate,
            { f in
                var c = ZipForge.deflate(f.entries[1].data)
                for i in stride(from: 2, to: c.count, by: 3) { c[i] ^= 0x5A }
                f.entries[1].compressedBytes = c
            }
        ),
        (
            "bytes after the deflate stream inside the entry", .zipDeflate,
            { f in f.entries[1].compressedBytes = ZipForge.deflate(f.entries[1].data) + [0, 0, 0, 0] }
        ),
        ("manifest not first", .manifestNotFirst, { f in f.entries.swapAt(0, 1) }),
        ("manifest missing", .manifestMissing, { f in f.entries.remove(at: 0) }),
        (
            "unlisted file", .contentUnlisted,
            { f in f.entries.append(.init("waypoints/01-sahalie-and-koosah-falls/extra.txt", Array("x".utf8))) }
        ),
        ("unlisted folder entry", .contentUnlisted, { f in f.entries.append(.init("stray/", [])) }),
        ("asset missing", .contentMissing, { f in f.entries.remove(at: 3) }),
        ("asset altered, same size", .contentSHA256, { f in f.entries[3].data[0] ^= 0xFF }),
        ("asset of another size", .contentSize, { f in f.entries[3].data += [0] }),
    ]

    @Test("each hostile archive is rejected with its code", arguments: structureCases.indices)
    func hostile(index: Int) throws {
        let (name, code, mutate) = Self.structureCases[index]
        var f = try forge()
        mutate(&f)
        let report = try verify(f.bytes())
        #expect(!report.isValid, "\(name) was accepted")
        #expect(
            report.findings.codes.contains(code),
            "\(name): expected \(code.rawValue), got \(report.findings.map(\.description))")
    }

    @Test(
        "a damaged stored entry is found whichever thread takes its CRC-32, and its hash is then not judged",
        arguments: [1, 2])
    func storedCRCOnEitherThread(threads: Int) throws {
        let base = try forge()
        let stored = base.entries.indices.filter { base.entries[$0].method == 0 && !base.entries[$0].data.isEmpty }
        #expect(stored.count >= 2, "the fixture should have stored entries")
        for i in stored {
            var f = try forge()
            f.entries[i].centralCRC = ZipForge.crc(f.entries[i].data) ^ 1
            f.entries[i].localCRC = f.entries[i].centralCRC
            let report = try verify(f.bytes(), .init(threads: threads))
            let name = String(decoding: f.entries[i].name, as: UTF8.self)
            #expect(!report.isValid)
            #expect(
                report.findings.contains { $0.code == .zipCRC && $0.file == name },
                "\(name): \(report.findings.map(\.description))")
            // One cause, one finding: the damaged entry's SHA-256 is not compared with the manifest's.
            #expect(
                !report.findings.contains { $0.code == .contentSHA256 && $0.file == name },
                "\(name): \(report.findings.map(\.description))")
        }
    }

    @Test("the whole-file thread takes the CRC-32 of about half of the stored data, never of overlapping entries")
    func delegatedCRCs() throws {
        let directory = try ZipDirectory.read(MemorySource(Self.package))
        let jobs = Verifier.delegatedCRCs(directory)
        #expect(!jobs.isEmpty)
        let data = directory.entries.reduce(Int64(0)) { $0 + $1.uncompressedSize }
        #expect(jobs.reduce(Int64(0)) { $0 + $1.end - $1.start } <= data / 2 + (1 << 20))
        for job in jobs {
            let e = directory.entries[job.index]
            #expect(e.method == 0 && job.start == e.dataOffset && job.end == e.dataOffset! + e.compressedSize)
        }
        #expect(zip(jobs, jobs.dropFirst()).allSatisfy { $0.end <= $1.start })
        // Two entries sharing their data: neither is delegated (the layout check reports them).
        var f = try forge()
        let i = try #require(f.entries.indices.first { f.entries[$0].method == 0 && f.entries[$0].data.count > 0 })
        f.entries.append(f.entries[i])
        f.entries[f.entries.count - 1].name += Array(".copy".utf8)
        var overlapping = try ZipDirectory.read(MemorySource(f.bytes()))
        let last = overlapping.entries.count - 1
        overlapping.entries[last].dataOffset = overlapping.entries[i].dataOffset
        #expect(!Verifier.delegatedCRCs(overlapping).contains { $0.index == i || $0.index == last })
    }

    @Test(
        "unsafe entry names are rejected",
        arguments: [
            "../evil.txt", "/etc/passwd", "waypoints\\evil.txt", "C:/evil.txt", "a/\u{0}/b", "a/\u{1}b", "a/./b",
            "waypoints/x/CON", "a//b",
        ])
    func unsafeNames(name: String) throws {
        var f = try forge()
        f.entries.append(.init(name, Array("x".utf8)))
        let report = try verify(f.bytes())
        #expect(report.findings.codes.contains(.zipNameUnsafe), "\(name): \(report.findings)")
    }

    @Test("names that differ only in Unicode normalization collide")
    func normalizationCollision() throws {
        var f = try forge()
        f.entries.append(.init("waypoints/caf\u{E9}.txt", [1]))
        f.entries.append(.init("waypoints/cafe\u{301}.txt", [2]))
        let codes = try verify(f.bytes()).findings.codes
        #expect(codes.contains(.zipNameFoldedDuplicate))
        #expect(codes.contains(.zipNameUnsafe))  // the second is not NFC
    }

    @Test("entry-count and size limits are enforced")
    func limits() throws {
        let bytes = try forge().bytes()
        #expect(try verify(bytes, .init(limits: ZipLimits(maxEntries: 3))).findings.codes.contains(.zipTooManyEntries))
        #expect(try verify(bytes, .init(limits: ZipLimits(maxTotalSize: 1000))).findings.codes.contains(.zipTooLarge))
        #expect(try verify(bytes, .init(limits: ZipLimits(maxEntrySize: 100))).findings.codes.contains(.zipTooLarge))
    }

    @Test("a 1 KB archive declaring a 10 GB entry is rejected before inflating")
    func declaredBomb() throws {
        var e = ZipForge.Entry("waypoints/a/bomb.txt", [UInt8](repeating: 0, count: 1000), deflate: true)
        e.centralUncompressedSize = 0xFFFF_FFFF - 1  // the most a 32-bit field can say; ZIP64 below says 10 GB
        var f = ZipForge([e])
        var bytes = f.bytes()
        #expect(bytes.count < 1100)
        var report = try verify(bytes)
        #expect(report.findings.codes.contains(.zipSizeMismatch), "\(report.findings)")
        // The same with a ZIP64 extra field declaring 10 GiB.
        f.entries[0].centralUncompressedSize = 0xFFFF_FFFF
        f.entries[0].centralExtra = le16(1) + le16(8) + le64(10 << 30)
        bytes = f.bytes()
        report = try verify(bytes)
        #expect(report.findings.codes.contains(.zipSizeMismatch), "\(report.findings)")
        // A stored entry claiming 10 GB of data runs past the end of the file.
        var s = ZipForge.Entry("waypoints/a/big.mp4", [1, 2, 3])
        s.centralCompressedSize = 0xFFFF_FFFF
        s.centralUncompressedSize = 0xFFFF_FFFF
        s.centralExtra = le16(1) + le16(16) + le64(10 << 30) + le64(10 << 30)
        report = try verify(ZipForge([s]).bytes())
        #expect(!report.isValid)
        #expect(report.findings.codes.contains(.zipOverlap), "\(report.findings)")
    }

    @Test("a ZIP64 end record that disagrees with the end record is rejected")
    func zip64Inconsistent() throws {
        // Build: entries, central directory, ZIP64 end record (wrong count), locator, end record.
        let f = ZipForge([ZipForge.Entry("a.txt", [1, 2, 3])])
        var bytes = f.bytes()
        let eocd = Array(bytes.suffix(22))
        bytes.removeLast(22)
        let cdOffset = UInt64(eocd[16]) | UInt64(eocd[17]) << 8 | UInt64(eocd[18]) << 16 | UInt64(eocd[19]) << 24
        let cdSize = UInt64(bytes.count) - cdOffset
        let recordOffset = UInt64(bytes.count)
        bytes +=
            le32(0x0606_4B50) + le64(44) + le16(45) + le16(45) + le32(0) + le32(0) + le64(2) + le64(2) + le64(cdSize)
            + le64(cdOffset)
        bytes += le32(0x0706_4B50) + le32(0) + le64(recordOffset) + le32(1)
        bytes += eocd
        #expect(try verify(bytes).findings.codes.contains(.zipZip64Invalid))
    }

    @Test("the expected whole-file SHA-256 is enforced")
    func wholeFileHash() throws {
        let wrong = SHA256.hash([1, 2, 3])
        let report = try verify(Self.package, .init(expectedSHA256: wrong))
        #expect(report.findings.filter { $0.severity == .error }.codes == [.packageSHA256Mismatch])
        #expect(report.sha256Matches == false)
        #expect(report.sha256 == SHA256.hash(Self.package))
    }

    @Test("every manifest rule is enforced inside a package (each invalid example, packaged)")
    func manifestRulesInPackages() throws {
        let expected = try ManifestExamples.expectations()
        for (name, e) in expected where !e.valid {
            let manifest = try Support.read(ManifestExamples.examplesDir + "/" + name)
            let report = try verify(ZipForge([ZipForge.Entry("manifest.json", manifest, deflate: true)]).bytes())
            #expect(!report.isValid)
            for code in e.codes { #expect(report.findings.codes.map(\.rawValue).contains(code), "\(name): \(code)") }
        }
    }

    @Test("truncation at every structure boundary, and anywhere in the last kilobyte, is rejected without a crash")
    func truncation() throws {
        let bytes = Self.package
        let directory = try ZipDirectory.read(MemorySource(bytes))
        var cuts = Set<Int>()
        for e in directory.entries {
            let start = Int(e.localHeaderOffset), data = Int(e.dataOffset!)
            cuts.formUnion([
                start, start + 1, start + 30, data - 1, data, data + Int(e.compressedSize), Int(e.endOffset!) - 1,
            ])
        }
        cuts.formUnion([Int(directory.centralDirectoryOffset), bytes.count - 22, bytes.count - 1, 0, 1, 21])
        cuts.formUnion((bytes.count - 1024)..<bytes.count)
        for cut in cuts.sorted() where cut < bytes.count {
            let report = try verify(Array(bytes.prefix(cut)))
            #expect(!report.isValid, "a package cut at \(cut) of \(bytes.count) bytes was accepted")
        }
    }

    /// Byte ranges whose change cannot matter: DOS times, "version needed/made by", internal and
    /// external attributes (permission bits, not the file type), and libarchive's UT and ux extra fields.
    static func harmlessRanges(_ bytes: [UInt8]) throws -> [Range<Int>] {
        let directory = try ZipDirectory.read(MemorySource(bytes))
        var ranges: [Range<Int>] = []
        func extras(_ start: Int, _ length: Int) {
            var p = start
            while p + 4 <= start + length {
                let id = Int(bytes[p]) | Int(bytes[p + 1]) << 8
                let len = Int(bytes[p + 2]) | Int(bytes[p + 3]) << 8
                if id == 0x5455 || id == 0x7875 { ranges.append(p..<(p + 2)); ranges.append((p + 4)..<(p + 4 + len)) }
                p += 4 + len
            }
        }
        for e in directory.entries {
            let l = Int(e.localHeaderOffset)
            ranges += [(l + 4)..<(l + 6), (l + 10)..<(l + 14)]
            let n = Int(bytes[l + 26]) | Int(bytes[l + 27]) << 8, m = Int(bytes[l + 28]) | Int(bytes[l + 29]) << 8
            extras(l + 30 + n, m)
        }
        var c = Int(directory.centralDirectoryOffset)
        while c + 46 <= bytes.count, bytes[c] == 0x50, bytes[c + 1] == 0x4B, bytes[c + 2] == 1, bytes[c + 3] == 2 {
            ranges += [(c + 4)..<(c + 8), (c + 12)..<(c + 16), (c + 36)..<(c + 38), (c + 38)..<(c + 41)]
            let n = Int(bytes[c + 28]) | Int(bytes[c + 29]) << 8, m = Int(bytes[c + 30]) | Int(bytes[c + 31]) << 8,
                k = Int(bytes[c + 32]) | Int(bytes[c + 33]) << 8
            extras(c + 46 + n, m)
            c += 46 + n + m + k
        }
        return ranges
    }

    @Test("a flip of any single byte is rejected, unless the byte is one that cannot matter; no flip crashes")
    func singleByteFlips() throws {
        let bytes = Self.package
        let harmless = try Self.harmlessRanges(bytes)
        var accepted: [Int] = []
        let directory = try ZipDirectory.read(MemorySource(bytes))
        var paddingOnly = 0
        for i in 0..<bytes.count {
            var copy = bytes
            copy[i] ^= 0x20
            let report = try verify(copy, .init(threads: 1))
            guard report.isValid, !harmless.contains(where: { $0.contains(i) }) else { continue }
            // The unused bits after the end of a deflate stream: the content is byte-identical,
            // which only the whole-file SHA-256 can see. Prove that is what happened.
            if let e = directory.entries.first(where: {
                $0.method == 8 && Int($0.dataOffset!)..<Int($0.dataOffset! + $0.compressedSize) ~= i
            }),
                try inflate(copy, e) == inflate(bytes, e)
            {
                paddingOnly += 1
                #expect(report.sha256 != SHA256.hash(bytes))
                continue
            }
            accepted.append(i)
        }
        #expect(accepted.isEmpty, "flips accepted at \(accepted.prefix(20)) of \(bytes.count)")
        #expect(paddingOnly <= directory.entries.count, "more padding-bit flips than deflate streams")
    }

    func inflate(_ bytes: [UInt8], _ entry: ZipEntry) throws -> [UInt8] {
        let reader = try EntryReader(source: MemorySource(bytes), entry: entry)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        var out: [UInt8] = []
        while true {
            let n = try reader.read(into: buffer)
            if n == 0 { return out }
            out += UnsafeRawBufferPointer(rebasing: buffer[0..<n])
        }
    }

    @Test(
        "on two threads (the manifest read ahead from the first record) the verifier finds what it finds on one, for every flip of the manifest's records and data"
    )
    func twoThreadsAgreeWithOne() throws {
        let bytes = Self.package
        let directory = try ZipDirectory.read(MemorySource(bytes))
        let manifest = try #require(directory.entries.first)
        #expect(manifest.name == "manifest.json")
        #expect(ZipDirectory.leadingEntry(MemorySource(bytes)) == manifest, "the read-ahead guess is the entry itself")
        // The manifest's local header and data, the first central-directory record, the end records.
        let cd = Int(directory.centralDirectoryOffset)
        let dataEnd = Int(manifest.dataOffset! + manifest.compressedSize)
        let flips =
            Array(0..<dataEnd + 16) + Array(cd..<min(bytes.count, cd + 46 + manifest.nameBytes.count + 32))
            + Array(bytes.count - 22..<bytes.count)
        var disagreements: [Int] = []
        var damagedManifests = 0
        for i in flips {
            var copy = bytes
            copy[i] ^= 0x20
            let one = try verify(copy, .init(threads: 1))
            let two = try verify(copy, .init(threads: 2))
            // (Compared as printed: a manifest read best-effort may hold a NaN, which equals nothing.)
            if one.findings != two.findings || one.manifest.map({ "\($0)" }) != two.manifest.map({ "\($0)" }) {
                disagreements.append(i)
            }
            if i >= Int(manifest.dataOffset!), i < dataEnd, one.manifest == nil { damagedManifests += 1 }
        }
        #expect(disagreements.isEmpty, "one and two threads disagree on flips at \(disagreements.prefix(20))")
        #expect(damagedManifests > 0, "no flip of the manifest's data left it unread: the damaged path was not taken")
    }

    @Test("random garbage of many sizes is rejected without a crash")
    func garbage() throws {
        var state: UInt64 = 7
        for size in [0, 1, 21, 22, 23, 100, 4096, 70_000] {
            var bytes = [UInt8](repeating: 0, count: size)
            for i in bytes.indices {
                state = state &* 6364136223846793005 &+ 1442695040888963407;
                bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
            }
            #expect(!(try verify(bytes)).isValid)
            // Garbage behind a real end record.
            if size >= 22 {
                let eocd = le32(0x0605_4B50) + le16(0) + le16(0) + le16(3) + le16(3) + le32(200) + le32(0) + le16(0)
                #expect(!(try verify(bytes + eocd)).isValid)
            }
        }
    }
}

@Suite("reading single assets through the library", .ownThreads)
struct ReaderLibraryTests {
    @Test("the library opens one asset as a verified stream")
    func libraryStream() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildWithProgram("family-hikes", into: dir)
            let reader = try PackageReader(path: path)
            let asset = reader.manifest.waypoints[0].assets[1]
            let stream = try reader.openAsset(asset.path)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 100, alignment: 1)
            defer { buffer.deallocate() }
            var bytes: [UInt8] = []
            while true {
                let n = try stream.read(into: buffer)
                if n == 0 { break }
                bytes += UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            }
            #expect(SHA256.hash(bytes).hex == asset.sha256)
            #expect(throws: PackageError.self) { try reader.openAsset("waypoints/nope.txt") }
        }
    }

}

@Suite("a package's id and version, read from its manifest alone", .ownThreads)
struct PackageIdentityTests {
    func identity(_ bytes: [UInt8]) throws -> (id: String, version: String)? {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/p.zip"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return PackageReader.identity(path: path)
        }
    }

    func forge(manifest edit: (inout [UInt8]) -> Void) throws -> [UInt8] {
        var forge = try ZipForge.from(package: VerifierTests.package)
        let i = try #require(forge.entries.firstIndex { $0.name == Array("manifest.json".utf8) })
        edit(&forge.entries[i].data)
        return forge.bytes()
    }

    @Test(
        "a package's id and version are its manifest's; without a manifest first and intact, with both as strings, there are none"
    )
    func identityOfPackages() throws {
        let manifest = try #require(try Verifier.verify(source: MemorySource(VerifierTests.package)).manifest)
        let read = try #require(try identity(VerifierTests.package))
        #expect(read.id == manifest.id && read.version == manifest.version)
        // The manifest's data damaged: its CRC-32 no longer matches.
        var damaged = try ZipForge.from(package: VerifierTests.package)
        damaged.entries[0].centralCRC = 0xDEAD_BEEF
        damaged.entries[0].localCRC = 0xDEAD_BEEF
        #expect(try identity(damaged.bytes()) == nil)
        // Not first.
        var moved = try ZipForge.from(package: VerifierTests.package)
        moved.entries.append(moved.entries.removeFirst())
        #expect(try identity(moved.bytes()) == nil)
        // A version given twice: which one counts is not for a glance to say.
        let twice = try forge { data in
            let text = String(decoding: data, as: UTF8.self)
            data = Array(text.replacingOccurrences(of: "\"version\":", with: "\"version\": \"9\", \"version\":").utf8)
        }
        #expect(try identity(twice) == nil)
        // An id that is not a string; not JSON; not a ZIP; no file.
        let number = try forge { data in
            let text = String(decoding: data, as: UTF8.self)
            data = Array(text.replacingOccurrences(of: "\"id\": \"\(manifest.id)\"", with: "\"id\": 7").utf8)
        }
        #expect(try identity(number) == nil)
        #expect(try identity(try forge { $0 = Array("{\"id\": ".utf8) }) == nil)
        #expect(try identity(Array(repeating: 0x50, count: 4096)) == nil)
        #expect(PackageReader.identity(path: "/nonexistent/p.zip") == nil)
        // The waypoints are parsed, not kept: a manifest of many stops gives its id all the same.
        let many = try forge { data in
            let text = String(decoding: data, as: UTF8.self)
            let stop = #"{"name": "x", "padding": "\#(String(repeating: "y", count: 1000))"}"#
            data = Array(
                text.replacingOccurrences(
                    of: "\"waypoints\": [",
                    with: "\"waypoints\": [" + Array(repeating: stop + ",", count: 2_000).joined()
                ).utf8)
        }
        #expect(try identity(many).map { [$0.id, $0.version] } == [manifest.id, manifest.version])
    }
}

extension VerifierTests {
    /// The family-hikes package with its manifest's last `}` moved past `padding` lines, then
    /// `tail`: a manifest far larger than the 64 KiB the parser keeps while it is inflated.
    func largeManifest(padding: Int, tail: String) throws -> (forge: ZipForge, manifest: [UInt8]) {
        var f = try forge()
        let index = try #require(f.entries.firstIndex { $0.name == Array("manifest.json".utf8) })
        var manifest = f.entries[index].data
        let close = try #require(manifest.lastIndex(of: UInt8(ascii: "}")))
        manifest.removeSubrange(close...)
        manifest += Array(String(repeating: "  \n", count: padding).utf8) + Array(tail.utf8)
        f.entries[index].data = manifest
        return (f, manifest)
    }

    @Test("a large manifest is parsed as it is inflated: its errors are where they are, on one thread and on two")
    func largeManifestErrors() throws {
        let (f, manifest) = try largeManifest(padding: 40_000, tail: "x}")
        #expect(manifest.count > 100_000)
        let expected = ManifestReader.read(manifest).findings.map { $0.inFile(Manifest.entryName) }
        #expect(expected.map(\.message).contains { $0.contains("line 40") })
        for threads in [1, 2] {
            let report = try verify(f.bytes(), .init(threads: threads))
            #expect(report.manifest == nil)
            #expect(report.findings.filter { $0.code == .jsonSyntax } == expected, "\(threads) threads")
        }
        // The same padding with the `}` after it is valid.
        let valid = try largeManifest(padding: 40_000, tail: "}")
        for threads in [1, 2] {
            let report = try verify(valid.forge.bytes(), .init(threads: threads))
            #expect(report.isValid, "\(report.findings)")
            #expect(report.manifest?.waypoints.isEmpty == false)
        }
    }

    @Test(
        "what the verifier holds per entry stays small: its check 56 bytes, its first bytes inline, its directory record 80"
    )
    func perEntrySizes() {
        // One check per entry of the package (100,000 at the format's limit): the damaged case's
        // finding is boxed, so the intact one (a SHA-256 and 16 bytes) sets the size.
        #expect(MemoryLayout<Verifier.EntryCheck?>.stride <= 56)
        #expect(MemoryLayout<EntryHead>.size <= EntryHead.capacity + 1)
        // And the central directory's record, its fields in the order that packs them (88 bytes in the ZIP's order).
        #expect(MemoryLayout<ZipEntry>.stride <= 80)
        let finding = Finding(.zipCRC, file: "waypoints/a/b.txt", "the CRC-32 is wrong")
        guard case .damaged(let kept) = Verifier.EntryCheck.damaged(finding) else {
            Issue.record("not damaged")
            return
        }
        #expect(kept.message == finding.message && kept.file == finding.file)
    }

    @Test(
        "unlisted is judged by name: a second entry named as a listed asset is a duplicate, not unlisted; the manifest and a listed asset's folder entry are not unlisted, a stray file is"
    )
    func unlistedByName() throws {
        #expect(!(try verify(forge().bytes())).findings.contains { $0.code == .contentUnlisted })
        var f = try forge()
        let asset = try #require(f.entries.first { $0.name.last != UInt8(ascii: "/") && $0.name.contains(0x2F) })
        let name = String(decoding: asset.name, as: UTF8.self)
        let folder = String(name[...name.lastIndex(of: "/")!])
        f.entries.append(asset)
        f.entries.append(.init(folder, []))
        f.entries.append(.init(folder + "stray.txt", Array("x".utf8)))
        let findings = try verify(f.bytes()).findings
        #expect(findings.contains { $0.code == .zipNameDuplicate && $0.file == name }, "\(findings)")
        #expect(
            findings.filter { $0.code == .contentUnlisted }.map(\.file) == [folder + "stray.txt"],
            "\(findings.map(\.description))")
    }

    @Test("a large manifest whose data is damaged counts for nothing, though it parsed: CRC-32, cut, too long")
    func largeManifestDamaged() throws {
        var (f, _) = try largeManifest(padding: 40_000, tail: "}")
        f.entries[0].centralCRC = 0x1234_5678
        f.entries[0].localCRC = 0x1234_5678
        var cut = try largeManifest(padding: 40_000, tail: "}").forge
        cut.entries[0].method = 8
        cut.entries[0].compressedBytes = Array(ZipForge.deflate(cut.entries[0].data).dropLast(20))
        var long = try largeManifest(padding: 40_000, tail: "}").forge
        long.entries[0].centralUncompressedSize = UInt32(long.entries[0].data.count - 10)
        long.entries[0].localUncompressedSize = UInt32(long.entries[0].data.count - 10)
        for (name, forged, code) in [
            ("a wrong CRC-32", f, FindingCode.zipCRC), ("cut", cut, .zipDeflate), ("too long", long, .zipSizeMismatch),
        ] {
            for threads in [1, 2] {
                let report = try verify(forged.bytes(), .init(threads: threads))
                #expect(report.manifest == nil, "\(name), \(threads) threads")
                #expect(
                    report.findings.contains { $0.code == code && $0.file == Manifest.entryName },
                    "\(name), \(threads) threads: \(report.findings)")
                #expect(!report.findings.contains { $0.code == .jsonSyntax }, "\(name)")
            }
        }
    }
}
