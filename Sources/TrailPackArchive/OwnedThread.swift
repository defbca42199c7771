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
/// joined.)
///
/// The corresponding C functions are `pthread_create` and `pthread_join`.
package final class OwnedThread: @unchecked Sendable {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

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
    package init(_ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
        let status = pthread_create(&handle, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        #else
        let status = pthread_create(&handle, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, box)
        #endif
        if status == 0 {
            started = true
        } else {
            Unmanaged<Body>.fromOpaque(box).takeRetainedValue().run()
        }
    }

    /// Waits for the thread to end. Calling it again does nothing.
    package func join() {
        guard !isJoined else { return }
        #if canImport(Darwin)
        if started, let handle { pthread_join(handle, nil) }
        #else
        if started { pthread_join(handle, nil) }
        #endif
        isJoined = true
    }

    deinit { join() }
}
