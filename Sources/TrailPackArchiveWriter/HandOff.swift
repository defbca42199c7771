import Dispatch
import Synchronization

/// Items made on one thread and used on another, in order, at most ``capacity`` apart: what the
/// writer's helpers hand over (the small files read ahead, ``FileReadAhead``; the pieces of the
/// package's `manifest.json`, made while the writer deflates the ones before).
///
/// The maker calls ``put(_:)`` for each item and ``finish()`` at the end; the user calls
/// ``take()`` until it returns nil, and ``stop()`` when it wants no more: the maker's later
/// items are then dropped, never waited for. Each item passes from one thread to the other with
/// the lock and is not touched by the maker again.
package final class HandOff<Element: Sendable>: Sendable {
    /// How many items are made and not yet taken, at most.
    package let capacity: Int

    private struct State: ~Copyable {
        var queue: [Element?] = []
        var head = 0
        /// The maker has made its last item.
        var finished = false
        /// The user wants no more items.
        var stopped = false
        /// Who waits, on which semaphore: each wait is matched by one signal, given by the other
        /// side once it finds the flag set (and clears it) under the lock.
        var makerWaits = false
        var userWaits = false
        var count: Int { queue.count - head }
    }

    /// What a ``put(_:)`` found under the lock, and a ``take()``.
    private enum PutStep { case stopped, wait, queued(wake: Bool) }
    private enum TakeStep { case end, wait, item(Element, wake: Bool) }

    private let state = Mutex(State())
    /// Signalled once the queue is down to half (not at every item: the two threads would then
    /// take turns at every item, a twentieth of a small-file build in the scheduler).
    private let room = DispatchSemaphore(value: 0)
    private let ready = DispatchSemaphore(value: 0)

    package init(capacity: Int) {
        precondition(capacity > 0, "a hand-off holds at least one item")
        self.capacity = capacity
    }

    /// Hands `item` over (the maker's thread), waiting while ``capacity`` items wait. False once
    /// the user has stopped (the item is dropped).
    @discardableResult
    package func put(_ item: Element) -> Bool {
        var item: Element? = item
        while true {
            let next: PutStep = state.withLock { state in
                if state.stopped { return .stopped }
                if state.count >= capacity {
                    state.makerWaits = true
                    return .wait
                }
                state.queue.append(item.take())
                defer { state.userWaits = false }
                return .queued(wake: state.userWaits)
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

    /// Says that the last item is made (the maker's thread).
    package func finish() {
        let wake = state.withLock { state in
            state.finished = true
            defer { state.userWaits = false }
            return state.userWaits
        }
        if wake { ready.signal() }
    }

    /// The next item, in the order made, waiting for the maker when there is none yet; nil once
    /// the maker has finished and every item is taken, or after ``stop()``.
    package func take() -> Element? {
        while true {
            let next: TakeStep = state.withLock { state in
                guard state.head < state.queue.count else {
                    if state.finished || state.stopped { return .end }
                    state.userWaits = true
                    return .wait
                }
                let item = state.queue[state.head].take()!
                state.head += 1
                if state.head >= 64 {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                let wake = state.makerWaits && state.count <= capacity / 2
                if wake { state.makerWaits = false }
                return .item(item, wake: wake)
            }
            switch next {
            case .end: return nil
            case .wait: ready.wait()
            case .item(let item, let wake):
                if wake { room.signal() }
                return item
            }
        }
    }

    /// The user takes no more items: those waiting are dropped, and the maker's ``put(_:)``
    /// returns false from now on, without waiting.
    package func stop() {
        let wake = state.withLock { state in
            state.stopped = true
            state.queue = []
            state.head = 0
            defer { state.makerWaits = false }
            return state.makerWaits
        }
        if wake { room.signal() }
    }

    /// Whether ``stop()`` was called (the maker checks it before work it would only drop).
    package var isStopped: Bool { state.withLock { $0.stopped } }

    /// How many items are made and not yet taken.
    package var count: Int { state.withLock { $0.count } }
}
