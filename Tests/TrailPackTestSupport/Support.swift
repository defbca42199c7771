import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Shared helpers: temporary folders, the package root, running the CLI and peer tools.
package enum Support {
    /// The repository root (this file is Tests/TrailPackTestSupport/Support.swift).
    package static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    package static func fixture(_ name: String) -> String { root + "/fixtures/" + name }

    package static let fixtureNames = ["santiam-wagon-road", "colorado-fourteeners", "family-hikes"]

    /// The trailpack binary: TRAILPACK_BIN, else the debug build.
    package static var binary: String {
        ProcessInfo.processInfo.environment["TRAILPACK_BIN"] ?? root + "/.build/debug/trailpack"
    }

    /// A fresh temporary folder, removed when `body` returns.
    package static func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
        let path = NSTemporaryDirectory() + "trailpack-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    /// A fresh temporary folder, removed when `body` returns (for a body that awaits).
    package static func withTemporaryDirectory<R>(_ body: (String) async throws -> R) async throws -> R {
        let path = NSTemporaryDirectory() + "trailpack-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    package struct Output {
        package var status: Int32
        package var stdout: String
        package var stderr: String
        package var stdoutBytes: Data
    }

    /// How long one program a test runs may take before it is judged stuck and stopped:
    /// `TRAILPACK_TEST_PROCESS_LIMIT` seconds, else 20 minutes. A guard against a hang, not a timing:
    /// the slowest program the tests run (a browser walkthrough, a 60 MiB GPX in a debug build) takes
    /// a few minutes on a loaded two-core machine.
    package static var processLimit: Double {
        if let text = ProcessInfo.processInfo.environment["TRAILPACK_TEST_PROCESS_LIMIT"], let seconds = Double(text),
            seconds > 0
        {
            return seconds
        }
        return 20 * 60
    }

    /// Runs a program and waits for it; standard input is empty.
    ///
    /// Foundation starts the program in a process group of its own. When it exits, whatever it left
    /// running in that group is stopped: a leftover (a browser driver, a server a script forgot)
    /// holds the output pipes open, and reading them to their end would wait for it forever. A
    /// program still running after ``processLimit`` is stopped with its group, and the test records
    /// an issue naming it, instead of holding the whole run until CI's own limit.
    @discardableResult
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let group = process.processIdentifier
        let stuck = Mutex(false)
        let guardItem = DispatchWorkItem {
            stuck.withLock { $0 = true }
            kill(-group, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + processLimit, execute: guardItem)
        // Read both pipes while the process runs, so a full pipe cannot block it. Not to their end:
        // a process another test started at the same moment may have inherited their write ends (the
        // pipes are not close-on-exec), and then the end never comes; once the program has exited,
        // what is left in the pipe is read and the reading stops.
        let readers = DispatchGroup()
        let exited = ExitFlag()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        DispatchQueue.global().async(group: readers) { outData = drain(out.fileHandleForReading, exited) }
        DispatchQueue.global().async(group: readers) { errData = drain(err.fileHandleForReading, exited) }
        process.waitUntilExit()
        exited.set()
        guardItem.cancel()
        // What it left running in its group (nothing, for most programs) would keep the pipes open.
        // The program itself is gone; a process now holding its number leads a new group of the
        // same number, which is not ours to stop.
        if access("/proc/\(group)", F_OK) != 0 { kill(-group, SIGKILL) }
        readers.wait()
        if stuck.withLock({ $0 }) {
            Issue.record(
                "\(([executable] + arguments).joined(separator: " ")) was still running after \(Int(processLimit)) s and was stopped (TRAILPACK_TEST_PROCESS_LIMIT)"
            )
        }
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: outData)
    }

    /// Set once a program has exited (read by its pipes' readers).
    final class ExitFlag: Sendable {
        private let state = Mutex(false)
        func set() { state.withLock { $0 = true } }
        var isSet: Bool { state.withLock { $0 } }
    }

    /// What `handle` gives until its end, or until `exited` is set and nothing more comes for 100 ms
    /// (a writer that outlives the program, in a process that inherited the pipe, is not waited for).
    static func drain(_ handle: FileHandle, _ exited: ExitFlag) -> Data {
        let fd = handle.fileDescriptor
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    data.append(contentsOf: buffer[0..<count])
                    continue
                }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return data  // the end (0), or a failed read
            }
            if ready < 0 && errno != EINTR { return data }
            if ready == 0 && exited.isSet { return data }
        }
    }

    /// Runs the trailpack CLI.
    @discardableResult
    package static func trailpack(
        _ arguments: String..., environment: [String: String]? = nil, directory: String? = nil
    ) throws -> Output {
        try run(binary, arguments, environment: environment, directory: directory)
    }

    package static func trailpack(_ arguments: [String], environment: [String: String]? = nil) throws -> Output {
        try run(binary, arguments, environment: environment)
    }

    package static func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    package static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Copies a folder tree.
    package static func copyTree(_ from: String, _ to: String) throws {
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }
}
