import Foundation
import Testing
import TrailPackTestSupport
import TrailPackVerifier

@testable import TrailPackArchive
@testable import TrailPackCore

/// Regressions from attacks on the verifier: each archive here once trapped it, hung it, or
/// reported the wrong thing. Every case must be refused with a finding code, never a crash.
@Suite("verifier hardening", .ownThreads)
struct HardeningTests {
    func verify(_ bytes: [UInt8]) throws -> VerificationReport {
        try Verifier.verify(source: MemorySource(bytes), options: .init(threads: 1))
    }

    @Test(
        "ZIP64 sentinels without their extra field, then a case collision: refused, names right, no trap",
        arguments: [1, 2])
    func sentinelsThenCaseCollision(sentinels: Int) throws {
        let bytes = ZipForge.sentinelArchive(sentinels: sentinels)
        #expect(bytes.count < 400)
        let report = try verify(bytes)
        #expect(!report.isValid)
        let zip64 = report.findings.filter { $0.code == .zipZip64Invalid }
        #expect(zip64.map(\.file) == ["one.txt", "two.txt"].prefix(sentinels).map { $0 })
        let folded = try #require(report.findings.first { $0.code == .zipNameFoldedDuplicate })
        #expect(folded.file == "x/A.txt")
        #expect(folded.message.contains("'x/a.txt'"), "\(folded.message)")
        // Every record is kept: the entry count is the directory's.
        let directory = try ZipDirectory.read(MemorySource(bytes))
        #expect(directory.entries.count == 4)
        #expect(directory.entries.enumerated().allSatisfy { $0.offset == $0.element.index })
        #expect(directory.entries.prefix(sentinels).allSatisfy { !$0.sizesKnown && $0.dataOffset == nil })
    }

    /// Numbers near the top of their range, where arithmetic on them used to overflow and trap.
    static let overflowCases: [(String, @Sendable (inout ZipForge) -> Void)] = [
        (
            "ZIP64 local header offset near 2^63",
            { f in
                f.entries[0].centralOffset = 0xFFFF_FFFF
                f.entries[0].centralExtra = le16(1) + le16(8) + le64(UInt64(Int64.max - 10))
            }
        ),
        (
            "ZIP64 local header offset with the top bit set",
            { f in
                f.entries[0].centralOffset = 0xFFFF_FFFF
                f.entries[0].centralExtra = le16(1) + le16(8) + le64(UInt64.max)
            }
        ),
        (
            "ZIP64 compressed size near 2^63 on a deflated entry",
            { f in
                f.entries[1].centralCompressedSize = 0xFFFF_FFFF
                f.entries[1].centralExtra = le16(1) + le16(8) + le64(UInt64(Int64.max - 1))
            }
        ),
        (
            "ZIP64 uncompressed size of 2^63 - 1",
            { f in
                f.entries[1].centralUncompressedSize = 0xFFFF_FFFF
                f.entries[1].centralExtra = le16(1) + le16(8) + le64(UInt64(Int64.max))
            }
        ),
        (
            "ZIP64 sizes all ones, both",
            { f in
                f.entries[2].centralUncompressedSize = 0xFFFF_FFFF
                f.entries[2].centralCompressedSize = 0xFFFF_FFFF
                f.entries[2].centralExtra = le16(1) + le16(16) + le64(UInt64.max) + le64(UInt64.max)
            }
        ),
        (
            "a ZIP64 extra field shorter than its sentinels need",
            { f in
                f.entries[2].centralUncompressedSize = 0xFFFF_FFFF
                f.entries[2].centralCompressedSize = 0xFFFF_FFFF
                f.entries[2].centralExtra = le16(1) + le16(8) + le64(3)
            }
        ),
        (
            "an extra field whose length runs past the header",
            { f in
                f.entries[0].centralExtra = le16(0x5455) + le16(0xFFFF) + [1, 2, 3]
            }
        ),
    ]

    @Test("sizes and offsets near the top of their range are refused, never trap", arguments: overflowCases.indices)
    func overflow(index: Int) throws {
        var forge = try ZipForge.from(package: VerifierTests.package)
        Self.overflowCases[index].1(&forge)
        let report = try verify(forge.bytes())
        #expect(!report.isValid, "\(Self.overflowCases[index].0)")
        #expect(report.findings.contains { $0.code.rawValue.hasPrefix("zip.") }, "\(report.findings)")
    }

    @Test("a ZIP64 end record whose size field is all ones is refused, never traps")
    func zip64RecordSize() throws {
        let forge = try ZipForge.from(package: VerifierTests.package)
        var bytes = forge.bytes()
        // Turn the end record into one that needs ZIP64, with a locator and a ZIP64 end record
        // before it whose size field would overflow an addition.
        let eocd = bytes.count - 22
        let cdOffset =
            UInt64(bytes[eocd + 16]) | UInt64(bytes[eocd + 17]) << 8 | UInt64(bytes[eocd + 18]) << 16 | UInt64(
                bytes[eocd + 19]) << 24
        let cdSize =
            UInt64(bytes[eocd + 12]) | UInt64(bytes[eocd + 13]) << 8 | UInt64(bytes[eocd + 14]) << 16 | UInt64(
                bytes[eocd + 15]) << 24
        let count = UInt64(bytes[eocd + 10]) | UInt64(bytes[eocd + 11]) << 8
        let end = Array(bytes[eocd...])
        bytes.removeLast(22)
        let recordOffset = UInt64(bytes.count)
        bytes += le32(0x0606_4B50) + le64(UInt64.max) + le16(45) + le16(45) + le32(0) + le32(0)
        bytes += le64(count) + le64(count) + le64(cdSize) + le64(cdOffset)
        bytes += le32(0x0706_4B50) + le32(0) + le64(recordOffset) + le32(1)
        var newEnd = end
        newEnd.replaceSubrange(16..<20, with: le32(0xFFFF_FFFF))
        bytes += newEnd
        let report = try verify(bytes)
        #expect(report.findings.contains { $0.code == .zipZip64Invalid }, "\(report.findings)")
    }

    @Test(
        "bytes put in front of a package are reported as a prefix of that many bytes, and nothing else", .needs(.unzip))
    func prefixedPackage() throws {
        let stub = Array("#!/bin/sh\necho this is a self-extractor stub\nexit 0\n".utf8)
        let report = try verify(stub + VerifierTests.package)
        #expect(report.findings.map(\.code) == [.zipPrefix], "\(report.findings)")
        #expect(report.findings[0].message.contains("\(stub.count) bytes"))
        // unzip says the same.
        try Support.withTemporaryDirectory { dir in
            try Support.write(stub + VerifierTests.package, to: dir + "/sfx.zip")
            let unzip = try Support.run("unzip", ["-tq", dir + "/sfx.zip"])
            #expect(
                unzip.status == 1,
                "unzip warns (exit 1) and finds the data intact: \(unzip.status) \(unzip.stdout) \(unzip.stderr)")
            #expect((unzip.stdout + unzip.stderr).contains("\(stub.count) extra bytes"))
        }
    }

    @Test("a package zipped one folder too deep says so and how to zip it")
    func nestedFolder() throws {
        let forge = try ZipForge.from(package: VerifierTests.package)
        var nested = forge
        for k in nested.entries.indices { nested.entries[k].name = Array("tour-1.0.0/".utf8) + nested.entries[k].name }
        let report = try verify(nested.bytes())
        let missing = try #require(report.findings.first { $0.code == .manifestMissing })
        #expect(missing.message.contains("'tour-1.0.0/manifest.json'"), "\(missing.message)")
        #expect(missing.message.contains("zip -r"))
        #expect(missing.message.contains("trailpack build"))
    }

    @Test(
        "TerminalText escapes exactly the dangerous characters",
        arguments: [
            ("plain", "plain"), ("tab\there", "tab\\u{9}here"), ("é ü 漢字 🌲", "é ü 漢字 🌲"), ("\u{9b}31m", "\\u{9b}31m"),
            ("a\u{2066}b\u{2069}", "a\\u{2066}b\\u{2069}"), ("line\u{2028}sep", "line\\u{2028}sep"),
            ("del\u{7f}", "del\\u{7f}"),
        ])
    func terminalText(input: String, expected: String) {
        #expect(TerminalText.escaped(input) == expected)
    }

    @Test(
        "a name's folding key: ASCII lowercased, else ArchivePath.foldingKey's bytes (a folder's without its last '/')")
    func foldingKeyOfAName() {
        let cases: [(String, String)] = [
            ("waypoints/a/view.jpg", "waypoints/a/view.jpg"), ("Waypoints/A/View.JPG", "waypoints/a/view.jpg"),
            ("waypoints/Café/Ñ.txt", "waypoints/café/ñ.txt"), ("", ""), ("Z", "z"), ("@[`{", "@[`{"),
            ("e\u{301}", "\u{e9}"), ("\u{212A}", "k"), ("ǅ", "ǆ"),
        ]
        for (name, key) in cases {
            #expect(FoldedKeys.key(Array(name.utf8)[...]) == Array(key.utf8), "\(name)")
        }
    }

    /// The name rules as they were before sorting (hash tables of names), kept as the oracle the
    /// sorting ones must agree with, finding for finding.
    static func referenceNameRules(_ entries: [ZipEntry]) -> [Finding] {
        var findings: [Finding] = []
        var exact: [[UInt8]: Int] = [:]
        var folded: [[UInt8]: Int] = [:]
        var files: Set<[UInt8]> = []
        for e in entries {
            if let first = exact[Array(e.nameBytes)] {
                findings.append(
                    Finding(
                        .zipNameDuplicate, file: e.name,
                        "two entries are named '\(e.name)' (entries \(first) and \(e.index)); readers would disagree on which one counts"
                    ))
                continue
            }
            exact[Array(e.nameBytes)] = e.index
            let key = FoldedKeys.key(e.isDirectory ? e.nameBytes.dropLast() : e.nameBytes[...])
            if let first = folded[key] {
                findings.append(
                    Finding(
                        .zipNameFoldedDuplicate, file: e.name,
                        "'\(e.name)' and '\(entries[first].name)' are the same file on case-insensitive phones"))
            } else {
                folded[key] = e.index
            }
            if !e.isDirectory { files.insert(key) }
        }
        for e in entries {
            let bytes = e.nameBytes
            guard bytes.count >= 3 else { continue }
            for i in 1...(bytes.count - 2) where bytes[i] == 0x2F && files.contains(FoldedKeys.key(bytes[..<i])) {
                findings.append(
                    Finding(
                        .zipNameDuplicate, file: e.name,
                        "'\(String(decoding: bytes[..<i], as: UTF8.self))' is both a file and a folder"))
                break
            }
        }
        return findings
    }

    /// Entries with these names (and nothing else that the name rules or the index read).
    static func entries(named names: [String]) -> [ZipEntry] {
        names.enumerated().map { i, name in
            ZipEntry(
                index: i, nameBytes: ZipName(name.utf8), flags: 0x0800, compressedSize: 0, uncompressedSize: 0,
                localHeaderOffset: 0, descriptorLength: 0, dataOffset: nil, method: 0,
                versionMadeBy: 0x031E, crc32: 0, externalAttributes: 0)
        }
    }

    @Test("the name index finds the first entry of each name by its exact bytes, and nothing for a name not there")
    func nameIndex() {
        let entries = Self.entries(named: ["b", "a", "b", "c/", "a", "A", "é", "e\u{301}", "c/d"])
        let index = ZipNameIndex(entries)
        #expect(index.position(of: "b") == 0 && index.position(of: "a") == 1 && index.position(of: "A") == 5)
        #expect(index.position(of: "c/") == 3 && index.position(of: "c/d") == 8 && index.position(of: "c") == nil)
        #expect(index.position(of: "é") == 6 && index.position(of: "e\u{301}") == 7, "bytes, not canonical equivalence")
        #expect(index.position(of: "") == nil && index.position(of: "bb") == nil && index.position(of: "0") == nil)
        #expect(ZipNameIndex([]).position(of: "a") == nil)
    }

    @Test("the name rules find what hash tables of the names found, on 3,000 sets of colliding names")
    func nameRulesAgreeWithTables() {
        // Parts that collide every way: case, NFC against NFD, the Kelvin sign, a file and a folder of one name.
        let parts = ["a", "A", "b", "é", "e\u{301}", "É", "k", "K", "\u{212A}", "ß", "ss", "a.txt", "A.TXT"]
        var rng = SplitMix(seed: 54)
        var seen = 0
        for _ in 0..<3000 {
            var names: [String] = []
            for _ in 0..<Int.random(in: 1...14, using: &rng) {
                if !names.isEmpty && Int.random(in: 0..<6, using: &rng) == 0 {
                    names.append(names.randomElement(using: &rng)!)  // the same bytes again
                    continue
                }
                let depth = Int.random(in: 1...3, using: &rng)
                var name = (0..<depth).map { _ in parts.randomElement(using: &rng)! }.joined(separator: "/")
                if Int.random(in: 0..<5, using: &rng) == 0 { name += "/" }
                names.append(name)
            }
            let entries = Self.entries(named: names)
            var findings: [Finding] = []
            let firstByName = ZipNameRules.check(entries, findings: &findings)
            let expected = Self.referenceNameRules(entries)
            #expect(findings.map(\.message) == expected.map(\.message), "\(names)")
            #expect(findings.map(\.code) == expected.map(\.code) && findings.map(\.file) == expected.map(\.file))
            seen += expected.count
            // The order the rules sorted is the index a verify searches (the names are sorted once).
            let kept = ZipNameIndex(entries, firstByName: firstByName)
            let sortedAgain = ZipNameIndex(entries)
            // Bytes, not Strings: Swift's String equality would take NFC and NFD 'é' for one name.
            let stored = names.map { Array($0.utf8) }
            for name in Set(stored + [[], Array("a/".utf8), Array("zz".utf8)]) {
                #expect(kept.position(of: name) == sortedAgain.position(of: name), "\(name) in \(names)")
                #expect(kept.position(of: name) == stored.firstIndex(of: name), "\(name) in \(names)")
            }
        }
        #expect(seen > 3000, "the sets collide often enough to test anything: \(seen) findings")
    }

    /// The extra fields as they were read before they were read in place: an array of each
    /// field's id and bytes, and a set of the ids seen (the oracle of `extraFieldsAgree`).
    static func referenceExtraFields(_ bytes: [UInt8]) -> (fields: [(UInt16, [UInt8])], malformed: String?) {
        var r = LittleEndianReader(bytes)
        var seen = Set<UInt16>()
        var fields: [(UInt16, [UInt8])] = []
        var malformed: String?
        while r.remaining > 0 {
            guard r.remaining >= 4 else { return (fields, "an extra field is cut short") }
            let id = r.u16()
            let length = Int(r.u16())
            guard length <= r.remaining else {
                return (fields, "extra field 0x\(String(id, radix: 16)) runs past the end of the header")
            }
            if !seen.insert(id).inserted { malformed = "extra field 0x\(String(id, radix: 16)) appears twice" }
            fields.append((id, r.take(length)))
        }
        return (fields, malformed)
    }

    @Test("extra fields read in place say what the array and set of them said, on 20,000 generated headers")
    func extraFieldsAgree() {
        var rng = SplitMix(seed: 0x5455)
        // Few ids, so that they repeat; up to 40 fields, past the 8 compared one by one.
        let ids: [UInt16] = [0x0001, 0x5455, 0x7875, 0x7075, 0x000A, 0xCAFE]
        var malformedSeen = Set<String>()
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<rng.below(rng.below(4) == 0 ? 40 : 5) {
                let id = rng.pick(ids), data = rng.bytes(rng.below(12))
                bytes += [UInt8(id & 0xFF), UInt8(id >> 8), UInt8(data.count), 0] + data
            }
            if rng.below(3) == 0 { bytes = Array(bytes.prefix(rng.below(bytes.count + 1))) }  // cut anywhere
            // A length past the end.
            if rng.below(5) == 0, bytes.count >= 4 { bytes[bytes.count - rng.below(4) - 1] = 0xFF }
            // Read where they lie inside a larger record, as the central directory's are.
            let before = rng.bytes(rng.below(6))
            let record = before + bytes + rng.bytes(rng.below(6))
            let read = ZipExtraFields(record[before.count..<(before.count + bytes.count)])
            let expected = Self.referenceExtraFields(bytes)
            #expect(read.malformed == expected.malformed, "\(bytes)")
            for id in ids {
                let first = expected.fields.first { $0.0 == id }?.1
                #expect(read.field(id).map(Array.init) == first, "0x\(String(id, radix: 16)) in \(bytes)")
            }
            if let problem = expected.malformed {
                malformedSeen.insert(problem.split(separator: " ").suffix(2).joined(separator: " "))
            }
        }
        #expect(malformedSeen.count >= 3, "each way of being malformed was generated: \(malformedSeen)")
        // The Unicode-path field: the name it carries, compared in place.
        let name = Array("waypoints/a.txt".utf8)
        let field: [UInt8] = [0x75, 0x70, UInt8(5 + name.count), 0, 1, 0, 0, 0, 0] + name
        #expect(ZipExtraFields(field).unicodePathAgrees(with: ZipName(name)))
        #expect(!ZipExtraFields(field).unicodePathAgrees(with: ZipName("waypoints/b.txt".utf8)))
        #expect(ZipExtraFields([]).unicodePathAgrees(with: ZipName(name)) && ZipExtraFields([]).malformed == nil)
    }

    @Test(
        "one inflater for many entries: an entry stopped by corrupt data with input left unread leaves nothing to the next, which reads its own bytes"
    )
    func inflaterReusedAfterCorruptData() throws {
        let text = Array(String(repeating: "the wagon road climbs to the pass. ", count: 40).utf8)
        var forge = ZipForge([])
        // BTYPE 3 (reserved) in the first byte: zlib stops there, with 99 bytes of input unread.
        var corrupt = ZipForge.Entry("a.txt", text, deflate: true)
        corrupt.compressedBytes = [0x07] + [UInt8](repeating: 0x55, count: 99)
        forge.entries = [
            corrupt, .init("b.txt", text, deflate: true), .init("c.txt", Array(text.prefix(7)), deflate: true),
        ]
        let source = MemorySource(forge.bytes())
        let directory = try ZipDirectory.read(source)
        let inflater = Inflater()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        func read(_ i: Int) throws(ArchiveError) -> [UInt8] {
            let reader = try EntryReader(source: source, entry: directory.entries[i], inflater: inflater)
            var out: [UInt8] = []
            while case let n = try reader.read(into: buffer), n > 0 { out += buffer.prefix(n) }
            return out
        }
        for _ in 0..<3 {
            #expect(throws: ArchiveError.self) { try read(0) }
            #expect(try read(1) == text)
            #expect(throws: ArchiveError.self) { try read(0) }
            #expect(try read(2) == Array(text.prefix(7)))
        }
    }

    @Test(
        "a directory's names are read into one buffer, side by side, and compare, hash and print by their bytes; a buffer takes no more than it was sized for"
    )
    func namesInOneBuffer() throws {
        var forge = ZipForge([])
        let names = ["manifest.json", "waypoints/a/é.txt", "waypoints/a/b.txt", "waypoints/a/"]
        for name in names { forge.entries.append(.init(name, Array(name.utf8))) }
        let directory = try ZipDirectory.read(MemorySource(forge.bytes()))
        #expect(directory.entries.map(\.name) == names)
        for (entry, name) in zip(directory.entries, names) {
            let own = ZipName(name.utf8)
            #expect(
                entry.nameBytes == own && entry.nameBytes == Array(name.utf8)
                    && entry.nameBytes.count == name.utf8.count)
            #expect(entry.nameBytes.hashValue == own.hashValue && "\(entry.nameBytes)" == name)
            #expect(Array(entry.nameBytes) == Array(name.utf8))
        }
        #expect(directory.entries[3].isDirectory && !directory.entries[2].isDirectory)
        #expect(!(directory.entries[1].nameBytes == directory.entries[2].nameBytes))
        // Sized once for the names of the records there are: what does not fit is refused, never grown into.
        let buffer = ZipNames(capacity: 5)
        #expect(buffer.append([1, 2, 3]).map(Array.init) == [1, 2, 3])
        #expect(buffer.append([4, 5, 6]) == nil)
        #expect(buffer.append([4, 5]).map(Array.init) == [4, 5])
        #expect(buffer.append([UInt8]()).map(Array.init) == [])
        #expect(
            ZipNames(capacity: 70_000).append([UInt8](repeating: 0x61, count: 65_536)) == nil,
            "a name's length is 16 bits")
        #expect(ZipName([UInt8](repeating: 0x61, count: 65_536)).count == 65_535)
        // The names' room is counted by walking the records as far as they go: a directory cut
        // short, or one whose last record's lengths run past its end, is counted without a trap.
        let centralDirectory = Array(forge.bytes()[Int(directory.centralDirectoryOffset)...].dropLast(22))
        let all = names.reduce(0) { $0 + $1.utf8.count }
        /// Walked in pieces of every size from 1 byte to all of it: the same count.
        func namesLength(_ directory: [UInt8], records: Int) -> Int {
            var counts: Set<Int?> = []
            for pieceSize in [1, 3, 46, 47, 64, 1 << 20] {
                var window = ZipCentralDirectory.Window(
                    source: MemorySource(directory), start: 0, size: directory.count, pieceSize: pieceSize)
                counts.insert(try? ZipCentralDirectory.namesLength(&window, records: records))
            }
            #expect(counts.count == 1)
            return (counts.first ?? nil) ?? -1
        }
        #expect(namesLength(centralDirectory, records: 4) == all)
        #expect(namesLength(centralDirectory, records: 1_000) == all)
        #expect(
            namesLength(centralDirectory, records: 2) == names[0].utf8.count + names[1].utf8.count)
        #expect(namesLength(Array(centralDirectory.prefix(50)), records: 4) == names[0].utf8.count)
        #expect(namesLength([], records: 4) == 0)
    }

    @Test(
        "the central directory read in pieces of any size gives the same entries and findings: the fixture, every hostile archive of the verifier's table, the fuzzer's seeds and crashes"
    )
    func directoryInPieces() throws {
        var archives: [(String, [UInt8])] = [("family-hikes", Packages.familyHikes)]
        for (name, _, mutate) in VerifierTests.structureCases {
            var f = try ZipForge.from(package: Packages.familyHikes)
            mutate(&f)
            archives.append((name, f.bytes()))
        }
        for folder in ["fuzz/seeds", "fuzz/crashes"] {
            let path = Support.fixture(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() where name.hasSuffix(".zip")
            {
                archives.append((folder + "/" + name, try Support.read(path + "/" + name)))
            }
        }
        #expect(archives.count > 30)
        var compared = 0
        for (name, bytes) in archives {
            let source = MemorySource(bytes)
            var before: [Finding] = []
            guard let end = try ZipEndRecords.read(source, limits: .default, findings: &before) else { continue }
            var seen: [String] = []
            for pieceSize in [1, 7, 46, 100, 1 << 20] {
                var findings = before
                let directory = try ZipCentralDirectory.read(
                    source, end: end, limits: .default, findings: &findings, pieceSize: pieceSize)
                seen.append(
                    "\(directory.isComplete) \(directory.entries.map { "\($0)" }) \(findings.map(\.description))")
            }
            #expect(Set(seen).count == 1, "\(name): the pieces' sizes disagree")
            compared += 1
        }
        #expect(compared > 30)
    }

    @Test("each step of the parse is a value of its own: end records, central directory, names, local headers, layout")
    func stepsOnTheirOwn() throws {
        let bytes = ZipForge.sentinelArchive(sentinels: 1)
        let source = MemorySource(bytes)
        var findings: [Finding] = []
        let end = try #require(try ZipEndRecords.read(source, limits: .default, findings: &findings))
        #expect(end.entryCount == 4 && !end.isZip64 && findings.isEmpty)
        #expect(end.centralDirectoryEnd == Int64(bytes.count - 22))
        let directory = try ZipCentralDirectory.read(source, end: end, limits: .default, findings: &findings)
        #expect(directory.isComplete && directory.entries.map(\.name) == ["one.txt", "two.txt", "x/a.txt", "x/A.txt"])
        #expect(findings.map(\.code) == [.zipZip64Invalid])
        findings = []
        ZipNameRules.check(directory.entries, findings: &findings)
        #expect(findings.map(\.code) == [.zipNameFoldedDuplicate])
        var entries = directory.entries
        findings = []
        try ZipLocalHeaders.check(&entries, source: source, limit: end.centralDirectoryOffset, findings: &findings)
        #expect(findings.isEmpty)
        #expect(entries.map { $0.dataOffset != nil } == [false, true, true, true])
        findings = []
        ZipLayout.check(entries, centralDirectoryOffset: end.centralDirectoryOffset, findings: &findings)
        #expect(findings.isEmpty, "the layout check waits until every entry could be placed")
        // The end records alone, on a prefixed archive: the offsets are the archive's, the prefix is found next.
        let prefixed = Array(repeating: UInt8(ascii: "#"), count: 100) + bytes
        findings = []
        let moved = try #require(try ZipEndRecords.read(MemorySource(prefixed), limits: .default, findings: &findings))
        _ = try ZipCentralDirectory.read(MemorySource(prefixed), end: moved, limits: .default, findings: &findings)
        #expect(findings.map(\.code) == [.zipPrefix] && findings[0].message.hasPrefix("100 bytes"))
    }
}
