import Foundation
import Testing
import TrailPackBuilder
@testable import TrailPackCore

/// Shared helpers: temporary folders, the package root, running the CLI and peer tools.
enum Support {
    /// The repository root (this file is Tests/TrailPackTests/Support.swift).
    static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func fixture(_ name: String) -> String { root + "/fixtures/" + name }

    static let fixtureNames = ["santiam-wagon-road", "colorado-fourteeners", "family-hikes"]

    /// The trailpack binary: TRAILPACK_BIN, else the debug build.
    static var binary: String {
        ProcessInfo.processInfo.environment["TRAILPACK_BIN"] ?? root + "/.build/debug/trailpack"
    }

    /// A fresh temporary folder, removed when `body` returns.
    static func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
        let path = NSTemporaryDirectory() + "trailpack-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var stdoutBytes: Data
    }

    /// Runs a program and waits for it; standard input is empty.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil) throws -> Output {
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
        return Output(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: outData)
    }

    /// Runs the trailpack CLI.
    @discardableResult
    static func trailpack(_ arguments: String..., environment: [String: String]? = nil, directory: String? = nil) throws -> Output {
        try run(binary, arguments, environment: environment, directory: directory)
    }

    static func trailpack(_ arguments: [String], environment: [String: String]? = nil) throws -> Output { try run(binary, arguments, environment: environment) }

    /// Builds a fixture with the library into `directory`; returns the package path.
    static func buildFixture(_ name: String, into directory: String, timestamp: Int64 = TourBuilder.defaultTimestamp) throws -> String {
        let planned = try TourBuilder.plan(fixture(name)), plan = planned.plan, findings = planned.findings
        let p = try #require(plan, "fixture \(name) has findings: \(findings)")
        let output = directory + "/" + name + ".zip"
        _ = try TourBuilder.write(p, to: output, timestamp: timestamp)
        return output
    }

    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    /// Copies a folder tree.
    static func copyTree(_ from: String, _ to: String) throws { try FileManager.default.copyItem(atPath: from, toPath: to) }
}
