import Foundation
import Testing
import TrailPackArchive
import TrailPackCore
import TrailPackTestSupport
import TrailPackVerifier

/// Header fields where ZIP readers disagree (docs/FORMAT.md section 1, "Header fields"): each
/// value is refused by `verify`, or read the same by unzip, Python's zipfile and bsdtar. The whole
/// sweep over every field is `scripts/zip_sweep.py`; this keeps the fields that were found open.
@Suite("verifier: header fields the ZIP readers disagree on", .ownThreads)
struct ZipHeaderSweepTests {
    enum Place: String, CustomStringConvertible {
        case central, local
        var description: String { rawValue }
    }

    /// The family-hikes package with the last entry (an asset) changed by `change`.
    static func mutant(_ change: (inout ZipForge.Entry) -> Void) throws -> (bytes: [UInt8], expected: [String: [UInt8]])
    {
        var forge = try ZipForge.from(package: Packages.familyHikes)
        try #require(forge.entries.count > 1)
        let expected = Dictionary(
            forge.entries.filter { $0.name.last != UInt8(ascii: "/") }.map {
                (String(decoding: $0.name, as: UTF8.self), $0.data)
            },
            uniquingKeysWith: { a, _ in a })
        change(&forge.entries[forge.entries.count - 1])
        return (forge.bytes(), expected)
    }

    static let versions: [UInt16] = [10, 20, 45, 46, 47, 0x3D, 0x3E, 0x3F, 0x40, 0xFF, 0xFFFF]
    static let versionCases = versions.flatMap { v in [Place.central, .local].map { ($0, v) } }

    static func withVersion(_ place: Place, _ version: UInt16) -> (inout ZipForge.Entry) -> Void {
        { entry in
            if place == .central { entry.centralVersionNeeded = version } else { entry.localVersionNeeded = version }
        }
    }

    @Test(
        "version needed to extract above 4.5 is refused, central or local; up to 4.5 accepted", arguments: versionCases)
    func versionNeeded(place: Place, version: UInt16) throws {
        let report = try Verifier.verify(source: MemorySource(try Self.mutant(Self.withVersion(place, version)).bytes))
        if version <= 45 {
            #expect(report.isValid, "\(place) \(version): \(report.findings)")
        } else {
            #expect(!report.isValid, "\(place) 0x\(String(version, radix: 16)) was accepted")
            let finding = report.findings.first { $0.code == .zipVersionNeeded }
            #expect(finding?.message.contains("the \(place)") == true, "\(report.findings)")
        }
    }

    @Test(
        "where verify accepts a version, unzip, Python's zipfile and bsdtar read the same bytes; where unzip or Python would not, verify refuses",
        .needs(.unzip, .bsdtar, .python3), arguments: versionCases)
    func versionNeededAgainstPeers(place: Place, version: UInt16) throws {
        let (bytes, expected) = try Self.mutant(Self.withVersion(place, version))
        let accepted = try Verifier.verify(source: MemorySource(bytes)).isValid
        let peers = try Self.peerReads(bytes, expected: expected)
        if accepted {
            #expect(peers.values.allSatisfy { $0 }, "verify accepts \(place) \(version), but \(peers)")
        }
        if peers.values.contains(false) {
            #expect(
                !accepted,
                "a peer does not read \(place) 0x\(String(version, radix: 16)) the same (\(peers)) but verify accepts it"
            )
        }
    }

    @Test(
        "flag bits, the DOS folder attribute on a file: what a peer reads otherwise is refused",
        .needs(.unzip, .bsdtar, .python3))
    func otherFieldsAgainstPeers() throws {
        let changes: [(String, (inout ZipForge.Entry) -> Void)] = [
            ("patched data (bit 5) in both headers", { $0.flags |= 0x20 }),
            ("a reserved flag bit (12) in both headers", { $0.flags |= 0x1000 }),
            (
                "the DOS folder attribute on a file, DOS host",
                {
                    $0.versionMadeBy = 0x0014; $0.externalAttributes = 0x10
                }
            ),
            ("the DOS folder attribute on a file, Unix host", { $0.externalAttributes |= 0x10 }),
        ]
        for (name, change) in changes {
            let report = try Verifier.verify(source: MemorySource(try Self.mutant(change).bytes))
            #expect(!report.isValid, "\(name) was accepted")
            #expect(
                report.findings.codes.contains(.zipFlags) || report.findings.codes.contains(.zipEntryType),
                "\(name): \(report.findings)")
        }
        // The control: the package as re-emitted reads the same everywhere and verifies.
        let (bytes, expected) = try Self.mutant { _ in }
        #expect(try Verifier.verify(source: MemorySource(bytes)).isValid)
        #expect(try Self.peerReads(bytes, expected: expected).values.allSatisfy { $0 })
    }

    /// Whether each peer extracts exactly `expected` (every file, the same bytes, exit status 0).
    static func peerReads(_ bytes: [UInt8], expected: [String: [UInt8]]) throws -> [String: Bool] {
        try Support.withTemporaryDirectory { dir in
            let file = dir + "/mutant.zip"
            try Support.write(bytes, to: file)
            var verdicts: [String: Bool] = [:]
            for (tool, arguments) in [
                ("unzip", ["-qq", "-o", file, "-d", dir + "/unzip"]), ("bsdtar", ["-xf", file, "-C", dir + "/bsdtar"]),
            ] {
                try FileManager.default.createDirectory(atPath: dir + "/" + tool, withIntermediateDirectories: true)
                let out = try Support.run(tool, arguments)
                let files = try extracted(dir + "/" + tool)
                verdicts[tool] = out.status == 0 && files == expected
            }
            let python = try Support.run(
                "python3",
                [
                    "-c",
                    """
                    import hashlib, json, sys, zipfile
                    with zipfile.ZipFile(sys.argv[1]) as z:
                        print(json.dumps({i.filename: z.read(i).hex() for i in z.infolist() if not i.is_dir()}))
                    """, file,
                ])
            if python.status == 0,
                let read = try JSONSerialization.jsonObject(with: Data(python.stdout.utf8)) as? [String: String]
            {
                verdicts["python"] = read == expected.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
            } else {
                verdicts["python"] = false
            }
            return verdicts
        }
    }

    static func extracted(_ folder: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let walker = FileManager.default.enumerator(atPath: folder)
        while let relative = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isFolder),
                !isFolder.boolValue
            {
                files[relative] = try Support.read(folder + "/" + relative)
            }
        }
        return files
    }
}
