import Dispatch
import Synchronization

/// Bytes made on one thread and written on another, at most ``ahead`` pieces apart: the
/// package's `manifest.json` is made (the canonical JSON, a tenth of a second at 100,000 assets)
/// on a thread of its own while the writer's thread deflates the pieces made before (twice as
/// long); made and deflated on one thread, the second core had nothing to do meanwhile.
///
/// The maker calls ``put(_:)`` for each piece and ``finish()`` at the end; the writer calls
/// ``take()`` until it returns nil, and ``stop()`` when it ends early (a write that failed):
/// the maker's later pieces are then dropped, never waited for. Each piece is copied once, into
/// an array that passes to the writer with the queue's lock.
final class PieceRelay: Sendable {
    /// How many pieces are made and not yet written, at most (of 64 KiB each: half a MiB).
    static let ahead = 8

    private struct State: ~Copyable {
        var queue: [[UInt8]] = []
        var head = 0
        /// The maker has made its last piece.
        var finished = false
        /// The writer wants no more pieces.
        var stopped = false
        /// Who waits, on which semaphore: each wait is matched by one signal, given by the
        /// other side once it finds the flag set (and clears it) under the lock.
        var makerWaits = false
        var writerWaits = false
        var count: Int { queue.count - head }
    }

    private let state = Mutex(State())
    /// Signalled once the queue is down to half (not at every piece: the threads would then
    /// take turns at every piece).
    private let room = DispatchSemaphore(value: 0)
    private let ready = DispatchSemaphore(value: 0)

    init() {}

    /// Hands a piece to the writer (the maker's thread): waits while ``ahead`` pieces wait.
    /// False once the writer has stopped (the piece is dropped).
    @discardableResult
    func put(_ piece: UnsafeRawBufferPointer) -> Bool {
        var bytes: [UInt8]? = [UInt8](piece)
        while true {
            enum Next { case stopped, wait, queued(wake: Bool) }
            let next: Next = state.withLock { state in
                if state.stopped { return .stopped }
                if state.count >= Self.ahead {
                    state.makerWaits = true
                    return .wait
                }
                state.queue.append(bytes.take()!)
                defer { state.writerWaits = false }
                return .queued(wake: state.writerWaits)
            }
            switch next {
            case .stopped: return false
            case .wait: room.wait()
            case .queued(let wake):
                if wake { ready.signal() }
                return true
            }
        }
    }

    /// Says that the last piece is made (the maker's thread).
    func finish() {
        let wake = state.withLock { state in
            state.finished = true
            defer { state.writerWaits = false }
            return state.writerWaits
        }
        if wake { ready.signal() }
    }

    /// The next piece, in the order made; nil once the maker has finished and every piece is
    /// taken (the writer's thread).
    func take() -> [UInt8]? {
        while true {
            enum Next { case end, wait, piece([UInt8], wake: Bool) }
            let next: Next = state.withLock { state in
                guard state.head < state.queue.count else {
                    if state.finished { return .end }
                    state.writerWaits = true
                    return .wait
                }
                let piece = state.queue[state.head]
                state.queue[state.head] = []
                state.head += 1
                if state.head >= 64 {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                let wake = state.makerWaits && state.count <= Self.ahead / 2
                if wake { state.makerWaits = false }
                return .piece(piece, wake: wake)
            }
            switch next {
            case .end: return nil
            case .wait: ready.wait()
            case .piece(let piece, let wake):
                if wake { room.signal() }
                return piece
            }
        }
    }

    /// The writer takes no more pieces: the maker's ``put(_:)`` returns false from now on,
    /// without waiting.
    func stop() {
        let wake = state.withLock { state in
            state.stopped = true
            state.queue = []
            state.head = 0
            defer { state.makerWaits = false }
            return state.makerWaits
        }
        if wake { room.signal() }
    }
}
