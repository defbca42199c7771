import Foundation
import Testing

/// The real `trailpack serve`, started on a free loopback port and driven with curl: for the
/// integration tests, and for module tests that need a real server (the client's).
package enum ServeProcess {
    /// The admin token the end-to-end servers are started with (written to a file by each test).
    package static let token = "e2e-admin-token-0123456789abcdef"

    /// A running `trailpack serve`.
    package final class Running {
        package let process: Process
        package let port: Int
        /// `https` when the banner says the server speaks TLS (`--tls-certificate`), else `http`.
        package let scheme: String
        package var base: String { "\(scheme)://127.0.0.1:\(port)" }
        package init(process: Process, port: Int, scheme: String = "http") {
            self.process = process
            self.port = port
            self.scheme = scheme
        }
        package func stop(_ signal: Int32 = SIGTERM) {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
        }
    }

    /// A server on `data` with the admin token in `tokenFile`, releasing at once (approvals 0) and
    /// scanning uploads with clamscan and the test signature database (needs `PeerTool.clamscan`).
    package static func start(data: String, tokenFile: String) throws -> Running {
        try launch([
            "--data", data, "--admin-token-file", tokenFile, "--max-upload-mb", "64", "--approvals", "0", "--clamav-db",
            TestClamAV.database,
        ])
    }

    /// Starts `trailpack serve` (the built program, or `binary`) on a free port with `arguments` and
    /// waits for its "listening on" line.
    package static func launch(
        _ arguments: [String], environment: [String: String]? = nil, logFile: String? = nil,
        binary: String = Support.binary
    ) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.arguments = ["serve", "--port", "0"] + arguments
        let out = Pipe()
        process.standardOutput = out
        if let logFile {
            FileManager.default.createFile(atPath: logFile, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: logFile)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let scheme = text.contains("https://127.0.0.1:") ? "https" : "http"
                return Running(process: process, port: Int(text[range].split(separator: ":")[1])!, scheme: scheme)
            }
        }
        process.terminate()
        throw CLIFailure("the server did not start: \(text)")
    }

    package struct CLIFailure: Error {
        package var message: String
        package init(_ m: String) { message = m }
    }

    /// curl, silent but showing errors. curl exits 0 whatever the HTTP status (no --fail), so any
    /// other exit status (no connection, a timeout, a file it could not write) fails the test.
    package static func curl(
        _ args: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Support.Output {
        let out = try Support.run("curl", ["-s", "-S"] + args)
        #expect(
            out.status == 0, "curl \(args.joined(separator: " ")): exit \(out.status), \(out.stderr)",
            sourceLocation: sourceLocation)
        return out
    }

    /// The HTTP status and the body of a curl run with `-w "\n%{http_code}"`.
    package static func statusAndBody(_ out: Support.Output) -> (status: String, body: String) {
        let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
    }

    /// The site ids listed by `/v1/sites` (its JSON decoded).
    package static func siteIDs(_ body: String) throws -> [String] {
        let sites = try #require(try JSON.parse(body)["sites"]?.array, "no sites in \(body)")
        return sites.compactMap { $0["id"]?.string }
    }
}

/// A ClamAV signature database made here (the public ones cannot be downloaded): one body
/// signature for the EICAR test string.
package enum TestClamAV {
    package static let eicar = #"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"#

    package static let database: String = {
        let dir = NSTemporaryDirectory() + "trailpack-clamav-db"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let hex = eicar.utf8.map { String(format: "%02x", $0) }.joined()
        try? "Trailpack.Test.EICAR:0:*:\(hex)\n".write(
            toFile: dir + "/trailpack-test.ndb", atomically: true, encoding: .utf8)
        return dir
    }()
}

/// Packages to upload (built in TrailPackTestFixtures), and their hashes as sha256sum gives them.
package enum ServerFixtures {
    /// The SHA-256 of a file, in hex, from GNU sha256sum (needs `PeerTool.sha256sum`): an
    /// independent hash, so a server's ETag or blob name is checked against more than its own code.
    package static func sha(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try Support.sha256sum(path, sourceLocation: sourceLocation)
    }
}
