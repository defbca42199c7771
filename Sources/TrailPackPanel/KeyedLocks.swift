import Synchronization

/// One lock per key, waited for without holding a thread: a task that finds the key's lock taken
/// suspends until the holder lets it go (first come, first served). Nothing is kept for a key
/// nobody holds.
final class KeyedLocks<Key: Hashable & Sendable>: Sendable {
    private struct State {
        var held: Set<Key> = []
        var waiting: [Key: [CheckedContinuation<Void, Never>]] = [:]
    }
    private let state = Mutex(State())

    /// Waits until the lock of `key` is this caller's.
    func lock(_ key: Key) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let taken = state.withLock { state -> Bool in
                if state.held.contains(key) {
                    state.waiting[key, default: []].append(continuation)
                    return false
                }
                state.held.insert(key)
                return true
            }
            if taken { continuation.resume() }
        }
    }

    /// Lets the lock of `key` go: to the next waiter, if any.
    func unlock(_ key: Key) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if var queue = state.waiting[key], !queue.isEmpty {
                let next = queue.removeFirst()
                state.waiting[key] = queue.isEmpty ? nil : queue
                return next
            }
            state.held.remove(key)
            return nil
        }
        next?.resume()
    }
}
