import CWriteBehind
import CZlib
import Foundation
import SystemPackage
import Testing
import TrailPackArchive
import TrailPackArchiveWriter
import TrailPackCrypto
import TrailPackFileIO
import TrailPackTestSupport
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

/// The ZIP writer (libarchive) on its own: its DOS times, and an archive abandoned half-way.
@Suite("ZIP writer", .ownThreads)
struct ZipWriterTests {
    @Test(
        "DOS date and time from UTC fields, clamped to the DOS range",
        arguments: [
            (Int64(315_532_800), UInt32(0x0021_0000)),  // 1980-01-01 00:00:00
            (Int64(1_700_000_000), UInt32(0x576e_b1aa)),  // 2023-11-14 22:13:20
            (Int64(951_782_399), UInt32(0x285c_bf7d)),  // 2000-02-28 23:59:59 (odd second rounds down)
            (Int64(951_868_800), UInt32(0x2861_0000)),  // 2000-03-01 (a leap year's day after Feb 29)
            (Int64(0), UInt32(0x0021_0000)),  // before 1980: the minimum
            (Int64(-86_401), UInt32(0x0021_0000)),  // before 1970 too
            (Int64(4_354_819_200), UInt32(0xff9f_bf7d)),  // 2108-01-01: the maximum
        ])
    func dosTime(time: Int64, expected: UInt32) {
        #expect(ZipWriter.dosDateTime(time) == expected, "\(time): \(String(ZipWriter.dosDateTime(time), radix: 16))")
    }

    @Test(
        "central headers are stamped (time and CRC-32) as they pass in pieces of any size; the end records pass unchanged",
        arguments: [1, 2, 3, 7, 45, 46, 47, 100, 4096])
    func centralHeadersStampedInPieces(pieceSize: Int) {
        // Three central headers with names, extra fields and comments of other lengths, then an end record.
        func header(name: String, extra: Int, comment: Int) -> [UInt8] {
            var h: [UInt8] = [0x50, 0x4b, 1, 2] + [UInt8](repeating: 0xAA, count: 42)
            for i in 16..<20 { h[i] = 0 }  // the CRC-32 as libarchive writes it when told `fakecrc32`
            let lengths = [name.utf8.count, extra, comment]
            for (i, n) in lengths.enumerated() {
                h[28 + 2 * i] = UInt8(n & 0xff)
                h[29 + 2 * i] = UInt8(n >> 8)
            }
            // A variable part that looks like a header's signature must not be taken for one.
            return h + Array(name.utf8) + [UInt8](repeating: 0x50, count: extra)
                + [UInt8](repeating: 0x02, count: comment)
        }
        let headers = [
            header(name: "manifest.json", extra: 0, comment: 0),
            header(name: "waypoints/a/PK.jpg", extra: 24, comment: 3),
            header(name: "x", extra: 0, comment: 300),
        ]
        let end: [UInt8] = [0x50, 0x4b, 5, 6] + [UInt8](repeating: 0x11, count: 18)
        let time: UInt32 = 0x576e_b1aa
        let crcs: [UInt32] = [0x1234_5678, 0, 0xdead_beef]
        var expected: [UInt8] = []
        for (h, crc) in zip(headers, crcs) {
            var stamped = h
            for i in 0..<4 { stamped[12 + i] = UInt8(truncatingIfNeeded: time >> (8 * UInt32(i))) }
            for i in 0..<4 { stamped[16 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
            expected += stamped
        }
        expected += end
        let input = headers.flatMap { $0 } + end

        var stamper = CentralHeaderStamper(dosDateTime: time, crcs: crcs)
        var output: [UInt8] = []
        var at = 0
        while at < input.count {
            let piece = Array(input[at..<min(at + pieceSize, input.count)])
            let passed = piece.withUnsafeBytes {
                stamper.pass($0) {
                    output += $0; return true
                }
            }
            #expect(passed)
            at += pieceSize
        }
        #expect(output == expected)
        #expect(stamper.stamped == 3)
        #expect(stamper.isBetweenHeaders)

        // A directory cut inside a header is noticed.
        var cut = CentralHeaderStamper(dosDateTime: time, crcs: crcs)
        _ = Array(input.prefix(60)).withUnsafeBytes { cut.pass($0) { _ in true } }
        #expect(!cut.isBetweenHeaders)
    }

    @Test(
        "a central header whose CRC-32 field holds another value than 0 or the writer's, or one too many, stops the directory with words to report"
    )
    func centralHeaderCRCRefused() {
        var header: [UInt8] = [0x50, 0x4b, 1, 2] + [UInt8](repeating: 0, count: 42) + Array("a.txt".utf8)
        header[28] = 5
        // The writer's own value already there (a libarchive that computed it) passes.
        var same = header
        same[16] = 0x78
        same[17] = 0x56
        same[18] = 0x34
        same[19] = 0x12
        var agreeing = CentralHeaderStamper(dosDateTime: 0, crcs: [0x1234_5678])
        #expect(same.withUnsafeBytes { agreeing.pass($0) { _ in true } })
        #expect(agreeing.problem == nil && agreeing.stamped == 1)
        // Another value: refused, nothing of the header passed on.
        var other = header
        other[16] = 1
        var emitted = 0
        var disagreeing = CentralHeaderStamper(dosDateTime: 0, crcs: [0x1234_5678])
        #expect(
            !other.withUnsafeBytes {
                disagreeing.pass($0) {
                    emitted += $0.count; return true
                }
            })
        #expect(emitted == 0)
        #expect(disagreeing.problem?.contains("libarchive wrote the CRC-32 1 into central header 1") == true)
        // More headers than entries.
        var extra = CentralHeaderStamper(dosDateTime: 0, crcs: [])
        #expect(!header.withUnsafeBytes { extra.pass($0) { _ in true } })
        #expect(extra.problem?.contains("more central headers than entries") == true)
    }

    @Test(
        "a data descriptor gets the writer's CRC-32 (16 and 24 bytes); anything else, or another CRC-32, is refused naming the entry",
        arguments: [16, 24])
    func dataDescriptor(length: Int) {
        var descriptor: [UInt8] = [0x50, 0x4b, 7, 8] + [UInt8](repeating: 0, count: length - 4)
        descriptor[8] = 9  // a size, left as it is
        #expect(DataDescriptor.putCRC(0xcafe_f00d, into: &descriptor, entry: "a.txt") == nil)
        #expect(Array(descriptor[4..<8]) == [0x0d, 0xf0, 0xfe, 0xca] && descriptor[8] == 9)
        // The same value again (libarchive's own, when it computed one) passes; another does not.
        #expect(DataDescriptor.putCRC(0xcafe_f00d, into: &descriptor, entry: "a.txt") == nil)
        let other = DataDescriptor.putCRC(1, into: &descriptor, entry: "waypoints/x/a.txt")
        #expect(
            other?.contains("libarchive wrote the CRC-32 cafef00d for 'waypoints/x/a.txt'") == true, "\(other ?? "")")
        // Not a descriptor: deflated data, a descriptor of another length, nothing.
        let data: [UInt8] = [0x50, 0x4b, 3, 4] + [UInt8](repeating: 0, count: length - 4)
        for var piece in [data, Array(descriptor.prefix(12)), []] {
            let problem = DataDescriptor.putCRC(7, into: &piece, entry: "b.bin")
            #expect(problem?.contains("did not end 'b.bin' with a data descriptor") == true, "\(problem ?? "")")
        }
    }

    /// Writes an archive of every kind of entry (empty, one byte, stored, deflated, noise and
    /// text), each handed over in pieces of odd sizes; returns each entry's CRC-32 as zlib computes
    /// it, and whether libarchive left the CRC-32s to the writer.
    static func writeEveryKind(to path: String, forcingZIP64: Bool = false) throws -> ([String: UInt32], Bool) {
        let fd = try FileDescriptor.open(
            path, .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite])
        defer { try? fd.close() }
        var writer = try ZipWriter(
            fileDescriptor: fd, path: path, modificationTime: 1_700_000_000, forcingZIP64: forcingZIP64)
        let skips = writer.libarchiveSkipsCRC
        let noise = WriteBehindTests.noise(count: 3 << 20, seed: 5)
        let text = Array(String(repeating: "Cascadia to Mountain House, PK\u{7}\u{8}. ", count: 5_000).utf8)
        let entries: [(String, [UInt8], Bool)] = [
            ("manifest.json", Array("{\"id\":\"x\"}".utf8), true), ("empty-stored", [], false),
            ("empty-deflated", [], true), ("one", [0x50], false), ("noise-stored", noise, false),
            ("noise-deflated", noise, true), ("text-deflated", text, true), ("text-stored", text, false),
        ]
        var expected: [String: UInt32] = [:]
        for (name, bytes, compress) in entries {
            // Handed over in pieces of odd sizes: the CRC-32 runs over the pieces as they come.
            try writer.addEntry(path: name, size: Int64(bytes.count), compress: compress) { write in
                var at = 0
                var piece = 1
                while at < bytes.count {
                    let n = min(piece, bytes.count - at)
                    try bytes.withUnsafeBytes { try write(UnsafeRawBufferPointer(rebasing: $0[at..<at + n])) }
                    at += n
                    piece = piece * 7 + 3
                }
            }
            expected[name] = bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
        }
        _ = try writer.finish()
        return (expected, skips)
    }

    @Test(
        "the CRC-32s are the writer's own (libarchive computes none) and zlib's values, in every data descriptor (16 and 24 bytes) and central header",
        arguments: [false, true])
    func crcsOfEveryKind(forcingZIP64: Bool) throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/crcs.zip"
            let (expected, skips) = try Self.writeEveryKind(to: path, forcingZIP64: forcingZIP64)
            #expect(skips, "libarchive refused fakecrc32: it computes every CRC-32 again (through zlib)")
            // Our reader: every local header and data descriptor against the central directory.
            let directory = try ZipDirectory.read(FileSource(path: path))
            #expect(directory.findings.isEmpty, "\(directory.findings)")
            #expect(Dictionary(uniqueKeysWithValues: directory.entries.map { ($0.name, $0.crc32) }) == expected)
            // Each data descriptor, read here byte by byte: the CRC-32 at its offset 4, its length
            // as ZIP64 makes it (every entry's data ends where the next local header starts).
            let bytes = try #require(FileManager.default.contents(atPath: path))
            let ordered = directory.entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
            let directoryStart = directory.centralDirectoryOffset
            for (k, entry) in ordered.enumerated() {
                let end = Int(k + 1 < ordered.count ? ordered[k + 1].localHeaderOffset : directoryStart)
                let length = forcingZIP64 ? 24 : 16
                let d = bytes[(end - length)..<end]
                #expect(Array(d.prefix(4)) == [0x50, 0x4b, 7, 8], "\(entry.name): no \(length)-byte descriptor")
                let crc = d.dropFirst(4).prefix(4).enumerated().reduce(UInt32(0)) {
                    $0 | UInt32($1.element) << (8 * $1.offset)
                }
                #expect(crc == expected[entry.name], "\(entry.name)")
            }
        }
    }

    @Test(
        "the writer's CRC-32s as unzip and Python's zipfile read them (every entry's data checked against them)",
        .needs(.unzip, .debianPython3))
    func crcsAsPeersReadThem() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/crcs.zip"
            _ = try Self.writeEveryKind(to: path)
            let unzip = try Support.run("unzip", ["-tq", path])
            #expect(unzip.status == 0, "\(unzip.stdout)\(unzip.stderr)")
            let python = try Support.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sys, zipfile, zlib; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; "
                        + "print(all(i.CRC == zlib.crc32(z.read(i)) for i in z.infolist()), len(z.infolist()))",
                    path,
                ])
            #expect(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "True 8", "\(python.stderr)")
        }
    }

    @Test(
        "an output that fails while libarchive ends an entry (/dev/full, the end's pieces filling a block): the output's error, and no entry after it",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full")
    )
    func outputFailingAtAnEntrysEnd() throws {
        // Nothing reaches the file until a block of the sink's fills (`PipelinedHasher.slotSize`).
        // The first entry, stored, nearly fills one; the second is deflated, and zlib gives its
        // output (incompressible, about its own size) only when libarchive ends the entry
        // (`archive_write_finish_entry`): those pieces fill the block, and its write fails.
        let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0, "cannot open /dev/full")
        defer { close(fd) }
        var writer = try ZipWriter(
            fileDescriptor: FileDescriptor(rawValue: fd), path: "/dev/full", modificationTime: 1_700_000_000)
        let first = WriteBehindTests.noise(count: 262_144 - 2_000, seed: 1)
        try writer.addEntry(path: "a.bin", bytes: first, compress: false)
        let second = WriteBehindTests.noise(count: 4_000, seed: 2)
        var bodyWritten = false
        let error = #expect(throws: ArchiveError.self) {
            try writer.addEntry(path: "b.bin", size: Int64(second.count), compress: true) { write in
                try second.withUnsafeBytes { try write($0) }
                bodyWritten = true
            }
        }
        #expect(bodyWritten, "the output failed before the entry's end: the test no longer reaches the end's path")
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("/dev/full"), "\(message)")
        #expect(
            message.contains(String(cString: strerror(ENOSPC))), "the output's own error, not libarchive's: \(message)")
        #expect(!message.contains("descriptor"), "a failed end is not a missing data descriptor: \(message)")
        // Nothing is written after a failure: the next entry is refused with the same error.
        let next = #expect(throws: ArchiveError.self) {
            try writer.addEntry(path: "c.txt", bytes: [1, 2, 3], compress: true)
        }
        #expect(next.map { "\($0)" } == message)
    }

    @Test("an abandoned writer joins its hashing thread and leaves a failed archive, not a well-formed one")
    func abandonedWriterJoinsItsThread() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/abandoned.zip"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            var thread: OwnedThread<Void>?
            do {
                var writer = try ZipWriter(
                    fileDescriptor: FileDescriptor(rawValue: fd), path: path, modificationTime: 1_700_000_000)
                thread = writer.hashingThread
                #expect(thread?.isJoined == false)
                try writer.addEntry(path: "a.txt", bytes: Array("hello".utf8), compress: true)
                _ = consume writer
            }
            #expect(thread?.isJoined == true, "the hashing thread outlived its writer")
            let report = try Verifier.verify(path: path)
            #expect(!report.isValid, "an abandoned writer must not leave a valid archive")
        }
    }
}

/// `WriteBehind`: the build's output flushed while it is written (docs/PERFORMANCE.md, durable builds).
@Suite("Flushing behind the writer", .ownThreads)
struct WriteBehindTests {
    /// Pseudo-random bytes (deflate cannot shrink them), the same for the same seed.
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// ext2/3/4's `statfs` type: where the tests run, and where clean pages can be let go.
    static let ext4 = 0xEF53

    @Test("a writer that flushes behind writes the very bytes, and the same SHA-256, as one that does not")
    func sameBytes() throws {
        try Support.withTemporaryDirectory { dir in
            // Past three chunks, so that chunks are started, waited for and let go while it writes.
            let big = Self.noise(count: 3 * Int(WriteBehind.chunkSize) + 12_345, seed: 7)
            let text = Array(String(repeating: "Santiam Wagon Road, stop 3. ", count: 40_000).utf8)
            var digests: [String] = []
            var files: [[UInt8]] = []
            for behind in [false, true] {
                let path = dir + "/\(behind).zip"
                let fd = try FileDescriptor.open(
                    path, .readWrite, options: [.create, .truncate], permissions: [.ownerReadWrite])
                defer { try? fd.close() }
                var writer = try ZipWriter(
                    fileDescriptor: fd, path: path, modificationTime: 1_700_000_000,
                    flushingBehind: behind ? .letGo : nil)
                try writer.addEntry(path: "manifest.json", bytes: Array("{}".utf8), compress: true)
                try writer.addEntry(path: "waypoints/a/video.mp4", bytes: big, compress: false)
                try writer.addEntry(path: "waypoints/a/text.txt", bytes: text, compress: true)
                try writer.addEntry(path: "waypoints/b/video.mp4", bytes: Array(big.prefix(5_000_000)), compress: false)
                let summary = try writer.finish()
                digests.append(summary.sha256.hex)
                #if os(Linux)
                // The writer did flush behind itself: the start of its output is written back and
                // out of memory (asked to let the pages go), which a writer that does not flush
                // leaves dirty there. Looked at before the file is read back, which brings it in.
                if behind, trailpack_file_system_type(fd.rawValue) == Self.ext4 {
                    let resident = try Self.residentPages(fd: fd.rawValue, count: Int(summary.size), path: path)
                    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
                    let firstTwo = resident[0..<(2 * Int(WriteBehind.chunkSize) / page)].filter { $0 }.count
                    #expect(firstTwo == 0, "\(firstTwo) pages of the first two chunks are still in the page cache")
                }
                #endif
                let bytes = try #require(FileManager.default.contents(atPath: path))
                #expect(Int64(bytes.count) == summary.size)
                #expect(SHA256.hash(Array(bytes)).hex == summary.sha256.hex, "the summary's SHA-256 is of the file")
                files.append(Array(bytes))
            }
            #expect(files[0] == files[1], "flushing behind changed the archive's bytes")
            #expect(digests[0] == digests[1])
        }
    }

    @Test(
        "the chunks written back are let go of the page cache when asked, kept when not; the dirty tail stays",
        arguments: [true, false])
    func chunksLetGo(drops: Bool) throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/out.bin"
            let fd = try FileDescriptor.open(
                path, .readWrite, options: [.create, .truncate], permissions: [.ownerReadWrite])
            defer { try? fd.close() }
            let chunk = Int(WriteBehind.chunkSize)
            let piece = Self.noise(count: 1 << 20, seed: 11)
            var behind = WriteBehind(descriptor: fd, path: path, pages: drops ? .letGo : .kept)
            var written = 0
            while written < 3 * chunk + piece.count {
                try piece.withUnsafeBytes { _ = try fd.writeAll($0) }
                written += piece.count
                try behind.written(through: Int64(written))
            }
            #if os(Linux)
            // Which pages are in memory (looked at before the file is read back, which brings them
            // in): the first two chunks were written back, and let go when asked; the third is being
            // written back; the rest is still dirty. Letting clean pages go is up to the file system
            // (tmpfs keeps them: they are its only copy), so this is asserted on ext4, where the
            // tests run.
            if trailpack_file_system_type(fd.rawValue) == Self.ext4 {
                let resident = try Self.residentPages(fd: fd.rawValue, count: written, path: path)
                let page = Int(sysconf(Int32(_SC_PAGESIZE)))
                let firstTwo = resident[0..<(2 * chunk / page)].filter { $0 }.count
                if drops {
                    #expect(firstTwo == 0, "\(firstTwo) pages of the first two chunks are still in the page cache")
                } else {
                    #expect(firstTwo == 2 * chunk / page, "pages written back were let go unasked")
                }
                let tail = resident[(3 * chunk / page)...].filter { $0 }.count
                #expect(tail == resident.count - 3 * chunk / page, "the dirty tail was let go")
            }
            #endif
            // Every byte is there, whatever was flushed or let go.
            let back = try #require(FileManager.default.contents(atPath: path))
            #expect(back.count == written)
            for at in stride(from: 0, to: written, by: piece.count) {
                #expect(back[at..<at + piece.count].elementsEqual(piece), "bytes at \(at) differ")
            }
        }
    }

    @Test(
        "where the file cannot be flushed in ranges (a pipe) it stops trying; a failed flush is an error naming the file"
    )
    func failures() throws {
        // A pipe: sync_file_range says ESPIPE; nothing is thrown and nothing more is tried.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var onPipe = WriteBehind(descriptor: FileDescriptor(rawValue: ends[1]), path: "a pipe")
        for count in [WriteBehind.chunkSize, 2 * WriteBehind.chunkSize, 3 * WriteBehind.chunkSize] {
            try onPipe.written(through: count)
        }
        // A descriptor that is not open: the call fails, and says so with the file's name.
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/gone.bin"
            let fd = try FileDescriptor.open(
                path, .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite])
            try fd.close()
            var closed = WriteBehind(descriptor: fd, path: path)
            let error = #expect(throws: FileIOError.self) { try closed.written(through: WriteBehind.chunkSize) }
            #expect(error?.message.contains(path) == true, "\(String(describing: error))")
            #expect(error?.systemCall?.name == "sync_file_range")
        }
    }

    #if os(Linux)
    /// `mincore` of the file's pages, through a read-only mapping (which reading through does not fault in).
    static func residentPages(fd: Int32, count: Int, path: String) throws -> [Bool] {
        let map = try #require(mmap(nil, count, PROT_READ, MAP_SHARED, fd, 0), "mmap of '\(path)' failed")
        try #require(map != MAP_FAILED, "mmap of '\(path)' failed")
        defer { munmap(map, count) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: (count + page - 1) / page)
        try #require(mincore(map, count, &vector) == 0, "mincore of '\(path)' failed")
        return vector.map { $0 & 1 != 0 }
    }
    #endif
}
