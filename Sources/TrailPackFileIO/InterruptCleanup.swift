import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files this process is writing (each ``AtomicFile``), for a program's signal handler
/// to remove when the process is interrupted.
///
/// The library installs no handler and never exits: signals are the host program's. A command
/// line tool calls ``prepare()`` once, then from its SIGINT/SIGTERM handler calls
/// ``removeRegisteredFiles()`` before it exits; an app that never does leaves only hidden
/// `*.trailpack-tmp` files, which the next build of the same output removes.
public enum InterruptCleanup {
    // The handler may only use async-signal-safe calls: it walks a fixed table of C strings.
    private static let slots = 8
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
        table.initialize(repeating: nil, count: slots)
        return table
    }()
    /// Orders the changes to the table (the handler only reads it). An NSLock, not
    /// Synchronization's Mutex: this module is linked by phone apps, and Mutex needs iOS 18.
    private static let lock = NSLock()

    /// Sets up the table outside any signal handler. Call it before installing the handler.
    public static func prepare() { _ = paths }

    /// Removes every registered file. Async-signal-safe once ``prepare()`` has run: it only walks
    /// a fixed table and calls `unlink`.
    public static func removeRegisteredFiles() {
        for i in 0..<slots {
            if let p = paths[i] { unlink(p) }
        }
    }

    static func register(_ path: String) {
        lock.withLock {
            for i in 0..<slots where paths[i] == nil {
                paths[i] = strdup(path)
                return
            }
        }
    }

    static func unregister(_ path: String) {
        lock.withLock {
            for i in 0..<slots {
                if let p = paths[i], String(cString: p) == path {
                    paths[i] = nil
                    free(p)
                }
            }
        }
    }
}
