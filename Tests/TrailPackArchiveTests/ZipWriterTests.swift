import Foundation
import SystemPackage
import Testing
import TrailPackArchive
import TrailPackArchiveWriter
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
        "central headers are stamped as they pass in pieces of any size; the end records pass unchanged",
        arguments: [1, 2, 3, 7, 45, 46, 47, 100, 4096])
    func centralHeadersStampedInPieces(pieceSize: Int) {
        // Three central headers with names, extra fields and comments of other lengths, then an end record.
        func header(name: String, extra: Int, comment: Int) -> [UInt8] {
            var h: [UInt8] = [0x50, 0x4b, 1, 2] + [UInt8](repeating: 0xAA, count: 42)
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
        var expected: [UInt8] = []
        for h in headers {
            var stamped = h
            for i in 0..<4 { stamped[12 + i] = UInt8(truncatingIfNeeded: time >> (8 * UInt32(i))) }
            expected += stamped
        }
        expected += end
        let input = headers.flatMap { $0 } + end

        var stamper = CentralHeaderStamper(dosDateTime: time)
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
        var cut = CentralHeaderStamper(dosDateTime: time)
        _ = Array(input.prefix(60)).withUnsafeBytes { cut.pass($0) { _ in true } }
        #expect(!cut.isBetweenHeaders)
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
