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
@Suite("ZIP writer")
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
