import Foundation
import Testing

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

    /// Runs a program and waits for it; standard input is empty.
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
        // Read both pipes while the process runs, so a full pipe cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        process.waitUntilExit()
        group.wait()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: outData)
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
