import Synchronization
import TrailPackArchive
import TrailPackFileIO

/// Small source files read ahead, in order, on a thread of their own, while the writer deflates
/// the ones before them: opening, reading and closing a file of a few kilobytes was a fifth of
/// the writer's time on 20,000 files of 1 KB (`openat` alone an eighth), and the writer's thread
/// then does only the deflating and the writing.
///
/// The thread goes through the files `0..<count` in order and reads those that `file` names
/// (a file of at most ``maxFileSize`` bytes), as ``ZipWriter/addEntry(path:contentsOf:size:compress:progress:)``
/// would: opened as a regular file, exactly its declared size read, `fstat` after. It is at most
/// ``slots`` files ahead (``maxFileSize`` × (``slots`` + 3) = 2.2 MiB at most held: the queue, the
/// file it is reading, one taken before its turn and the one being written), and stops at the
/// first file it cannot read: that file's error is what ``take(_:)`` returns for it, in its place.
/// The thread is owned: ``stop()``, which `deinit` calls, joins it.
///
/// Ownership passes with each file (``HandOff``): the thread fills a file's bytes, then hands them
/// over behind the lock and never touches them again.
package final class FileReadAhead: Sendable {
    /// The largest file read ahead: larger ones are read by the writer in blocks as before.
    package static let maxFileSize = 32 << 10
    /// How many files are read ahead at most.
    package static let slots = 64

    /// Whether a file of `size` bytes is read ahead.
    package static func reads(size: Int64) -> Bool { size >= 0 && size <= Int64(maxFileSize) }

    /// A file read ahead: its bytes (its declared size, or fewer when it ended sooner) and what
    /// `fstat` said of the open file after they were read.
    package struct File: Sendable {
        package var bytes: [UInt8]
        package var status: FileStatus
    }

    /// One file the thread read: its position among the files, and what reading it gave.
    private struct Item: Sendable {
        var index: Int
        var outcome: Result<File, FileIOError>
    }

    /// The files read, in order, at most ``slots`` ahead. The thread holds this, not the
    /// ``FileReadAhead``, so that dropping the reader stops and joins it (see `deinit`).
    private let queue = HandOff<Item>(capacity: slots)
    /// The file taken from the queue whose turn has not come (the writer's thread alone).
    private let early: Mutex<Item?> = Mutex(nil)
    private let thread: Mutex<OwnedThread<Void>?> = Mutex(nil)

    /// Starts reading ahead. `file(i)` is the path and declared size of the `i`th file when it is
    /// one to read ahead (``reads(size:)``), nil otherwise.
    package init(count: Int, file: @escaping @Sendable (Int) -> (path: String, size: Int64)?) {
        let queue = self.queue
        // Not on the caller's thread if the system refuses one: it would wait for room that only
        // the caller makes. Nothing is read ahead then.
        let started = OwnedThread(unlessRefused: { Self.run(queue, count: count, file: file) })
        if started == nil { queue.finish() }
        thread.withLock { $0 = started }
    }

    deinit { stop() }

    private static func run(_ queue: HandOff<Item>, count: Int, file: (Int) -> (path: String, size: Int64)?) {
        defer { queue.finish() }  // a taker waiting for a file that will not come
        for i in 0..<count {
            guard let (path, size) = file(i) else { continue }
            if queue.isStopped { return }
            let outcome = read(path: path, size: Int(size))
            guard queue.put(Item(index: i, outcome: outcome)) else { return }
            if case .failure = outcome { return }
        }
    }

    /// Reads as ``ZipWriter/addEntry(path:contentsOf:size:compress:progress:)`` does: exactly
    /// `size` bytes (fewer when the file ended sooner), then `fstat` of the open file.
    private static func read(path: String, size: Int) -> Result<File, FileIOError> {
        do throws(FileIOError) {
            let file = try FileOperations.openRegularFile(path)
            defer { try? file.descriptor.close() }
            var failure: FileIOError?
            let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                do throws(FileIOError) {
                    count = try file.descriptor.readFully(into: UnsafeMutableRawBufferPointer(buffer), path: path)
                } catch {
                    failure = error
                    count = 0
                }
            }
            if let failure { throw failure }
            return .success(File(bytes: bytes, status: try file.descriptor.status(path: path)))
        } catch {
            return .failure(error)
        }
    }

    /// The `index`th file's bytes, or why it could not be read; nil when it was not read ahead
    /// (the caller reads it itself). Files are taken in order: `index` is the next file the
    /// thread read, or an earlier one's turn has been missed and nil is returned for every later one.
    package func take(_ index: Int) -> Result<File, FileIOError>? {
        // The next file the thread read: one taken before whose turn had not come, or the queue's
        // next (waiting for the thread; nil once it has read all it will).
        guard let item = early.withLock({ $0.take() }) ?? queue.take() else { return nil }
        guard item.index == index else {
            early.withLock { $0 = item }
            return nil
        }
        return item.outcome
    }

    /// How many files are read and not yet taken (for the tests: the thread waits once it is ``slots``).
    package var queued: Int { queue.count }

    /// Stops the thread and waits for it to end (it finishes the file it is reading).
    package func stop() {
        queue.stop()
        let owned = thread.withLock { $0.take() }
        owned?.join()
    }
}
