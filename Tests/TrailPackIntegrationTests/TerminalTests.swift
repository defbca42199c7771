import Foundation
import Testing
import TrailPackTestSupport

/// Colour and progress on a terminal (a pseudo-terminal from `script`), and none off it.
@Suite("terminal output", .ownThreads)
struct TerminalTests {
    /// A broken tour: one error, one warning.
    static func brokenTour(_ dir: String) throws -> String {
        let tour = dir + "/tour"
        try Support.copyTree(Support.fixture("family-hikes"), tour)
        try "x".write(
            toFile: tour + "/waypoints/01-sahalie-and-koosah-falls/extra.txt", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: tour + "/waypoints/01-sahalie-and-koosah-falls/trail.png")
        return tour
    }

    @Test("--color always colours errors and warnings; never and plain pipes do not; a bad choice is a usage error")
    func colorChoice() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = try Self.brokenTour(dir)
            let always = try Support.trailpack("validate", tour, "--color", "always")
            #expect(always.status == 1)
            #expect(always.stderr.contains("\u{1B}[1;31merror\u{1B}[0m[source.asset-missing]"), "\(always.stderr)")
            #expect(always.stderr.contains("\u{1B}[33mwarning\u{1B}[0m[source.unused-file]"))
            let before = try Support.trailpack("--color=always", "validate", tour)
            #expect(before.status == 1 && before.stderr.contains("\u{1B}[1;31m"), "--color goes before the command too")
            for plain in [
                try Support.trailpack("validate", tour), try Support.trailpack("validate", tour, "--color", "never"),
            ] {
                #expect(plain.status == 1)
                #expect(!plain.stdout.contains("\u{1B}") && !plain.stderr.contains("\u{1B}"))
            }
            let bad = try Support.trailpack("validate", tour, "--color", "purple")
            #expect(bad.status == 2 && bad.stderr.contains("not one of: auto, always, never"))
        }
    }

    @Test("on a terminal: colour by default, none with NO_COLOR", .needs(.script))
    func noColor() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = try Self.brokenTour(dir)
            let tty = try Support.run(
                "/usr/bin/script", ["-q", "-e", "-c", "\(Support.binary) validate \(tour)", "/dev/null"],
                environment: ["TERM": "xterm", "PATH": "/usr/bin:/bin"])
            #expect(tty.status == 1)
            #expect(tty.stdout.contains("\u{1B}[1;31merror"), "\(tty.stdout)")
            let quiet = try Support.run(
                "/usr/bin/script", ["-q", "-e", "-c", "\(Support.binary) validate \(tour)", "/dev/null"],
                environment: ["NO_COLOR": "1", "TERM": "xterm", "PATH": "/usr/bin:/bin"])
            #expect(quiet.status == 1)
            #expect(!quiet.stdout.contains("\u{1B}[1;31m") && quiet.stdout.contains("error[source.asset-missing]"))
        }
    }

    @Test("progress fits a 50-column terminal: every redraw shorter than the width", .needs(.script))
    func progressWidth() throws {
        try Support.withTemporaryDirectory { dir in
            let tty = try Support.run(
                "/usr/bin/script",
                [
                    "-q", "-e", "-c",
                    "stty cols 50; \(Support.binary) build \(Support.fixture("santiam-wagon-road")) -o \(dir)/a.zip",
                    "/dev/null",
                ])
            #expect(tty.status == 0)
            // Split on the bytes: "\r\n" is one Character in Swift.
            let redraws = tty.stdout.unicodeScalars.split { $0 == "\r" || $0 == "\n" }.map {
                String(String.UnicodeScalarView($0))
            }
            .filter { $0.contains("files") }
            #expect(redraws.count >= 4, "\(tty.stdout)")
            for r in redraws {
                let visible = r.replacingOccurrences(of: "\u{1B}[K", with: "")
                #expect(visible.count < 50, "'\(visible)' is \(visible.count) columns")
            }
        }
    }
}
