#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex, and a condition over it, for state that two threads of one library call share (the
/// verifier's manifest thread and its entry walk). Not Synchronization's `Mutex`: phones link the
/// verifier, and that needs iOS 18 (the package supports iOS 16).
///
/// The corresponding C functions are `pthread_mutex_lock` and `pthread_cond_wait`.
package final class ThreadLock: @unchecked Sendable {
    // @unchecked: the mutex and the condition are only used through pthread calls, which order
    // what they guard.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Waits until `ready` is true (checked holding the lock), then runs `body` holding it.
    package func wait<T>(until ready: () -> Bool, then body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready() { pthread_cond_wait(condition, mutex) }
        return body()
    }

    /// Runs `body` holding the lock, then wakes every thread waiting in ``wait(until:then:)``.
    package func change(_ body: () -> Void) {
        pthread_mutex_lock(mutex)
        body()
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` holding the lock.
    package func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
