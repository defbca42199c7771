#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread that a library starts, owns and joins: `join()` returns only when the thread's body
/// has returned and the thread is gone, so nothing a library started outlives the object that
/// started it. (Foundation's `Thread` and Dispatch's global queues are detached: they cannot be
/// joined.) `join()` hands over what the body returned: the thread's result reaches the joining
/// thread through the join, not through shared fields.
///
/// The corresponding C functions are `pthread_create` and `pthread_join`.
// `handle` is set before init returns; the body's value is written by the thread before it ends and read only after pthread_join
package final class OwnedThread<Value>: @unchecked Sendable {
    /// Where the body's value is left for `join()`.
    private final class Slot {
        var value: Value?
    }

    private let slot = Slot()
    #if canImport(Darwin)
    private var handle: pthread_t?
    #else
    private var handle = pthread_t()
    #endif
    private var started = false
    /// True once `join()` has returned: the thread has ended.
    package private(set) var isJoined = false

    /// Starts `body` on a new thread. When the system refuses a thread, `body` runs on the
    /// calling thread instead, so the work is still done (only without the overlap).
    package convenience init(_ body: @escaping () -> Value) {
        self.init(body, runHereIfRefused: true)!
    }

    /// Starts `body` on a new thread; nil when the system refuses one, and `body` is not run. For
    /// a body that waits for its caller (a queue the caller fills), which would wait for ever on
    /// the caller's own thread.
    package convenience init?(unlessRefused body: @escaping () -> Value) {
        self.init(body, runHereIfRefused: false)
    }

    private init?(_ body: @escaping () -> Value, runHereIfRefused: Bool) {
        let slot = self.slot
        let box = Unmanaged.passRetained(ThreadStart { slot.value = body() }).toOpaque()
        #if canImport(Darwin)
        let status = pthread_create(
            &handle, nil,
            { raw in
                Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue().run()
                return nil
            }, box)
        #else
        let status = pthread_create(
            &handle, nil,
            { raw in
                Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box)
        #endif
        if status == 0 {
            started = true
        } else if runHereIfRefused {
            Unmanaged<ThreadStart>.fromOpaque(box).takeRetainedValue().run()
        } else {
            Unmanaged<ThreadStart>.fromOpaque(box).release()
            return nil
        }
    }

    /// Waits for the thread to end and returns what its body returned. Calling it again waits for
    /// nothing and returns the same value.
    @discardableResult
    package func join() -> Value {
        waitForThread()
        // The body has returned: on the thread just joined, or on this one when none was started.
        return slot.value!
    }

    /// Waits for the thread to end, once.
    private func waitForThread() {
        guard !isJoined else { return }
        #if canImport(Darwin)
        if started, let handle { pthread_join(handle, nil) }
        #else
        if started { pthread_join(handle, nil) }
        #endif
        isJoined = true
    }

    // Not `join()`: a thread the system refused (`init(unlessRefused:)`) made no value.
    deinit { waitForThread() }
}

/// What a new thread runs (not generic: the C start function cannot capture a type parameter).
private final class ThreadStart {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
