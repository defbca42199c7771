import Dispatch
import Synchronization
import TrailPackArchive
import TrailPackCrypto

/// The stops' small files hashed on a thread of its own while the tour folder is still being
/// read: reading the folder (a `stat` and more for every file) keeps one core busy, and the
/// hashing that followed it took both (on 20,000 files of 1 KB, 0.12 s of reading then 0.10 s
/// of hashing on two cores).
///
/// Each stop is handed over (``add(_:)``) as soon as its folder is read; ``finish()`` stops the
/// thread where it is (after the file it is reading: files above ``maxFileSize`` are left for
/// later, so that is never long). ``digests(ofStop:)`` then gives what was hashed. What it could
/// not hash — a file that cannot be read, or whose size is not the one its folder gave — is left
/// nil: the build's own hashing reads it again and says what is wrong with it, as it always did.
final class EarlyHashing: Sendable {
    /// Larger files are hashed after the folder is read, by every core.
    static let maxFileSize: Int64 = 1 << 20

    /// Where the digests go: blocks of ``blockSlots`` (528 KiB, above the 256 KiB mmap threshold
    /// the `trailpack` program pins, so each is mapped on its own and given back whole). Made on the reading
    /// thread, written by the hashing thread (each slot by it alone, before it is joined), read
    /// after the join. An array of digests per stop, made on either thread and let go, left 4 MiB
    /// of holes in the heap at 100,000 files.
    private final class Slots: @unchecked Sendable {  // see above: one writer per slot, ordered by the join
        static let blockSlots = 16_384
        private var blocks: [UnsafeMutableBufferPointer<SHA256Digest?>] = []
        private var used = blockSlots

        /// `count` slots, all nil, in one block.
        func reserve(_ count: Int) -> UnsafeMutableBufferPointer<SHA256Digest?> {
            guard count > 0 else { return UnsafeMutableBufferPointer(start: nil, count: 0) }  // a stop with no files
            if count > Self.blockSlots - used {
                let block = UnsafeMutableBufferPointer<SHA256Digest?>.allocate(capacity: max(count, Self.blockSlots))
                block.initialize(repeating: nil)
                blocks.append(block)
                used = 0
            }
            defer { used += count }
            return UnsafeMutableBufferPointer(rebasing: blocks[blocks.count - 1][used..<used + count])
        }

        deinit { for block in blocks { block.deallocate() } }
    }

    /// A stop's slots (see `Slots` for who writes and reads them when).
    private struct Digests: @unchecked Sendable {
        var slots: UnsafeMutableBufferPointer<SHA256Digest?>
    }

    /// A stop handed to the hashing thread.
    private struct Stop: Sendable {
        var files: [TourSource.SourceFile]
        var digests: Digests
    }

    private struct State: ~Copyable {
        /// Stops handed over and not yet taken.
        var pending: [Stop] = []
        var head = 0
        var stopped = false
        /// How many files were hashed.
        var hashed = 0
        /// Stopped only once every stop handed over is hashed (the tests' finish).
        var draining = false
        /// The thread waits for a stop.
        var waiting = false
    }

    /// What the two threads share; the thread holds this, not the ``EarlyHashing``, so that
    /// dropping it (`deinit`) stops and joins the thread.
    private final class Channel: Sendable {
        let state = Mutex(State())
        let work = DispatchSemaphore(value: 0)
    }

    private let channel = Channel()
    private let thread: Mutex<OwnedThread<Void>?> = Mutex(nil)
    private let slots = Slots()
    /// Each stop's slots, by its folder (reading thread only; read after ``finish()``).
    private let byFolder: Mutex<[String: Digests]> = Mutex([:])

    init() {
        let channel = self.channel
        // Not on the reading thread if the system refuses one: it would wait for stops that only
        // that thread hands over. Nothing is hashed early then.
        let started = OwnedThread(unlessRefused: { Self.run(channel) })
        if started == nil { channel.state.withLock { $0.stopped = true } }
        thread.withLock { $0 = started }
    }

    deinit { finish() }

    /// Hands a stop over (called in the folder's reading, on the reading thread).
    func add(_ stop: TourSource.WaypointSource) {
        let digests = Digests(slots: slots.reserve(stop.assets.count))
        byFolder.withLock { $0[stop.folder] = digests }
        let wake = channel.state.withLock { state in
            state.pending.append(Stop(files: stop.assets, digests: digests))
            defer { state.waiting = false }
            return state.waiting
        }
        if wake { channel.work.signal() }
    }

    /// Stops the thread and waits for it: where it is, or (`waitingForAll`, for the tests) once
    /// it has hashed every stop handed over.
    func finish(waitingForAll: Bool = false) {
        let wake = channel.state.withLock { state in
            state.stopped = true
            state.draining = waitingForAll
            defer { state.waiting = false }
            return state.waiting
        }
        if wake { channel.work.signal() }
        thread.withLock { $0.take() }?.join()
        // The stops not reached hold their files' records: let them go now, or they would
        // outlive the build's own copy of them.
        channel.state.withLock { state in
            state.pending = []
            state.head = 0
        }
    }

    /// How many files the thread hashed (after ``finish()``).
    var hashedCount: Int { channel.state.withLock { $0.hashed } }

    /// The digests of the stop in `folder`, one per file (nil: not hashed); nil for a stop that
    /// was not handed over. Only after ``finish()``; valid while this object lives.
    func digests(ofStop folder: String) -> UnsafeBufferPointer<SHA256Digest?>? {
        byFolder.withLock { $0[folder] }.map { UnsafeBufferPointer($0.slots) }
    }

    private static func run(_ channel: Channel) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileHashing.chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            enum Next {
                case end, wait
                case hash(Stop)
            }
            let next: Next = channel.state.withLock { state in
                if state.stopped && !(state.draining && state.head < state.pending.count) { return .end }
                guard state.head < state.pending.count else {
                    state.waiting = true
                    return .wait
                }
                defer {
                    state.pending[state.head].files = []  // the one reference left is the one returned
                    state.head += 1
                }
                return .hash(state.pending[state.head])
            }
            switch next {
            case .end: return
            case .wait: channel.work.wait()
            case .hash(let stop):
                var hashed = 0
                for (k, f) in stop.files.enumerated() {
                    if channel.state.withLock({ $0.stopped && !$0.draining }) { break }
                    guard f.size <= Self.maxFileSize,
                        let r = try? FileHashing.sha256(path: f.sourcePath, buffer: buffer), r.size == f.size
                    else { continue }
                    stop.digests.slots[k] = r.digest
                    hashed += 1
                }
                channel.state.withLock { $0.hashed += hashed }
            }
        }
    }
}
