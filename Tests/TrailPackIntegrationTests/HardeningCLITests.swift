import Foundation
import Testing
import TrailPackArchive
import TrailPackCore
import TrailPackTestSupport

/// Regressions from attacks on the verifier, through the command line: each must end in an exit
/// code and escaped text, never a signal, a hang or raw control characters on the terminal.
@Suite("verifier hardening: the command line", .ownThreads)
struct HardeningCLITests {
    @Test("the server-crashing archive is refused by the CLI with exit 1, not a signal")
    func sentinelArchiveCLI() throws {
        try Support.withTemporaryDirectory { dir in
            try Support.write(ZipForge.sentinelArchive(sentinels: 2), to: dir + "/crafted.zip")
            let result = try Support.trailpack("verify", dir + "/crafted.zip", "--json")
            #expect(result.status == 1, "\(result.stderr)")
            let report = try JSONParser.parse(Array(result.stdoutBytes)).value
            #expect(report["valid"] == .bool(false))
        }
    }

    @Test(
        "verify, extract and validate refuse a FIFO with no writer at once instead of waiting for ever",
        .needs(.timeout))
    func fifo() throws {
        try Support.withTemporaryDirectory { dir in
            let fifo = dir + "/package.zip"
            #expect(mkfifo(fifo, 0o644) == 0)
            #expect(throws: ArchiveError.self) { try FileSource(path: fifo) }
            for arguments in [
                ["verify", fifo], ["verify", fifo, "--json"], ["extract", fifo, dir + "/out"], ["validate", fifo],
                ["verify", dir + "/x.zip", "--sha256-file", fifo],
            ] {
                try Support.write(Packages.familyHikes, to: dir + "/x.zip")
                // `timeout` ends a hang with 124; the test then fails instead of waiting.
                let result = try Support.run("timeout", ["20", Support.binary] + arguments)
                #expect(result.status == 3, "\(arguments): status \(result.status) \(result.stderr)")
                #expect(
                    result.stderr.contains("not a regular file") || result.stdout.contains("not a regular file"),
                    "\(arguments): \(result.stderr) \(result.stdout)")
            }
        }
    }

    @Test("control and bidirectional characters from a package never reach the terminal raw")
    func escapes() throws {
        var forge = try ZipForge.from(package: Packages.familyHikes)
        let evil = "waypoints/\u{1b}]0;owned\u{7}\u{1b}[31mred\u{202e}txt.exe"
        forge.entries.append(ZipForge.Entry(evil, Array("x".utf8)))
        try Support.withTemporaryDirectory { dir in
            try Support.write(forge.bytes(), to: dir + "/evil.zip")
            let text = try Support.trailpack("verify", dir + "/evil.zip")
            #expect(text.status == 1)
            let bytes = Array(text.stdoutBytes) + Array(text.stderr.utf8)
            #expect(!bytes.contains(0x1B) && !bytes.contains(0x07))
            #expect(!(text.stdout + text.stderr).unicodeScalars.contains("\u{202e}"))
            #expect(
                (text.stdout + text.stderr).contains("\\u{1b}]0;owned\\u{7}\\u{1b}[31mred\\u{202e}txt.exe"),
                "\(text.stdout) \(text.stderr)")
            // JSON keeps the real name, escaped the JSON way.
            let json = try Support.trailpack("verify", dir + "/evil.zip", "--json")
            #expect(json.status == 1)
            let report = try JSONParser.parse(Array(json.stdoutBytes)).value
            guard case .array(let findings)? = report["findings"] else { Issue.record("no findings array"); return }
            #expect(findings.contains { $0["file"] == .string(evil) })
        }
    }
}
