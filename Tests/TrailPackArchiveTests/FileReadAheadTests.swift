import Foundation
import SystemPackage
import Testing
import TrailPackArchive
import TrailPackArchiveWriter
import TrailPackFileIO
import TrailPackTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The small files the builder's writer reads on a second thread: in order, as the writer would
/// read them itself, stopped at the first file it cannot read, and joined when dropped.
@Suite("File read-ahead", .ownThreads)
struct FileReadAheadTests {
    /// `count` files `f0000`… of `size(i)` bytes each (byte `j` of file `i` is `(i + j) % 251`).
    static func files(in dir: String, count: Int, size: @Sendable (Int) -> Int) throws -> [String] {
        try (0..<count).map { i in
            let path = dir + "/f" + String(format: "%04d", i)
            try Data((0..<size(i)).map { UInt8(($0 + i) % 251) }).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test(
        "files are read in order, six times as many as it holds ahead (its queue compacted on the way); the large ones are left to the writer"
    )
    func inOrder() throws {
        try Support.withTemporaryDirectory { dir in
            // Every seventh file is too large to read ahead.
            let size: @Sendable (Int) -> Int = { i in i % 7 == 3 ? FileReadAhead.maxFileSize + 1 : i % 50 }
            // More than 256 small files: the queue drops what was taken every 256.
            let paths = try Self.files(in: dir, count: FileReadAhead.slots * 6 + 5, size: size)
            let reader = FileReadAhead(count: paths.count) { i in
                let n = Int64(size(i))
                return FileReadAhead.reads(size: n) ? (paths[i], n) : nil
            }
            for (i, path) in paths.enumerated() {
                let taken = reader.take(i)
                if !FileReadAhead.reads(size: Int64(size(i))) {
                    #expect(taken == nil, "file \(i) is the writer's to read")
                    continue
                }
                let file = try #require(try taken?.get(), "file \(i)")
                #expect(file.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: path))), "file \(i)")
                #expect(file.status.size == Int64(size(i)))
            }
            reader.stop()
        }
    }

    @Test("a file it cannot read is that file's error, in its place; nothing after it is read ahead")
    func stopsAtFirstError() throws {
        try Support.withTemporaryDirectory { dir in
            var paths = try Self.files(in: dir, count: 10, size: { _ in 10 })
            paths[4] = dir + "/missing"
            let named = paths
            let reader = FileReadAhead(count: named.count) { i in (named[i], 10) }
            for i in 0..<4 { #expect(try reader.take(i)?.get().bytes.count == 10) }
            guard case .failure(let error)? = reader.take(4) else {
                Issue.record("the missing file is not an error")
                return
            }
            #expect(error.message.contains("missing"), "\(error.message)")
            #expect(reader.take(5) == nil, "read ahead past the error")
        }
    }

    @Test("a folder named as a file is refused as the writer refuses it")
    func folderRefused() throws {
        try Support.withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: false)
            let reader = FileReadAhead(count: 1) { _ in (dir + "/folder", 0) }
            guard case .failure(let error)? = reader.take(0) else {
                Issue.record("a folder was read as a file")
                return
            }
            #expect(error.code == .notRegularFile, "\(error)")
        }
    }

    @Test("dropped while it waits for room, or before anything is taken, its thread stops and is joined")
    func droppedAhead() throws {
        try Support.withTemporaryDirectory { dir in
            let paths = try Self.files(in: dir, count: FileReadAhead.slots * 3, size: { _ in 100 })
            for taken in [0, 1, FileReadAhead.slots] {
                let reader = FileReadAhead(count: paths.count) { i in (paths[i], 100) }
                for i in 0..<taken { #expect(try reader.take(i)?.get().bytes.count == 100) }
                // Until it waits for room (its queue full), or gives up after a minute.
                for _ in 0..<60_000 where reader.queued < FileReadAhead.slots { usleep(1000) }
                #expect(reader.queued == FileReadAhead.slots)
                reader.stop()  // returns only once the thread has ended
                // What it read before it stopped can still be taken, in order; then nothing. It
                // never read more than it holds ahead (and the one file it was reading).
                var next = taken
                while let file = reader.take(next) {
                    #expect(try file.get().bytes.count == 100)
                    next += 1
                }
                #expect(next <= taken + FileReadAhead.slots + 1, "read \(next - taken) ahead")
                #expect(reader.take(next + 1) == nil)
            }
            // And without `stop()`: `deinit` joins the thread.
            do {
                let reader = FileReadAhead(count: paths.count) { i in (paths[i], 100) }
                #expect(try reader.take(0)?.get().bytes.count == 100)
            }
        }
    }

    @Test("a file that shrank or grew after its size was taken is refused by the writer, as when it reads it itself")
    func changedFiles() throws {
        try Support.withTemporaryDirectory { dir in
            let paths = try Self.files(in: dir, count: 2, size: { _ in 10 })
            // Declared 20 (it has 10: it shrank), then declared 5 (it has 10: it grew).
            let declared: [Int64] = [20, 5]
            let reader = FileReadAhead(count: 2) { i in (paths[i], declared[i]) }
            for i in 0..<2 {
                // A writer each: the first refusal leaves its archive failed.
                let out = dir + "/out\(i).zip"
                let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                try #require(fd >= 0)
                defer { close(fd) }
                var writer = try ZipWriter(fileDescriptor: FileDescriptor(rawValue: fd), path: out, modificationTime: 0)
                let file = try #require(try reader.take(i)?.get())
                do {
                    try writer.addEntry(path: "f\(i)", readAhead: file, size: declared[i], compress: true)
                    Issue.record("file \(i) was written though it changed")
                } catch let error as ArchiveError {
                    #expect(error.code == .sourceChanged, "\(error)")
                    #expect(
                        error.message.contains(
                            i == 0 ? "expected 20 bytes, got 10" : "expected 5 bytes, the file now has 10"),
                        "\(error.message)")
                }
            }
        }
    }
}
