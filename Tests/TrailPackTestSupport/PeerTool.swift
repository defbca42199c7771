import Foundation
import Testing

/// A program (or a Python module) that a test runs besides trailpack: the peer tools the tests
/// cross-check against, and the system programs they use along the way. A test that needs one is
/// gated with `.needs(...)`, which is Swift Testing's `.enabled(if:_:)` with a reason naming the
/// tool and the Debian package that has it: on a machine without it the test is skipped with that
/// reason instead of failing. Each check runs once per test run (the tools are `static let`s).
package struct PeerTool: Sendable, CustomStringConvertible {
    /// What the test runs: a program's name, or `python3 module x`.
    package let name: String
    /// Where it comes from: the Debian package, or pip.
    package let source: String
    /// Whether it is there: the program on PATH, or the module importable by that Python.
    package let isAvailable: Bool

    package var description: String { "\(name) (\(source))" }

    /// A program found on PATH (or at that path, when `program` is absolute).
    package init(program: String, debianPackage: String) {
        name = program
        source = "Debian package \(debianPackage)"
        isAvailable = PeerTool.executable(program) != nil
    }

    /// A file a package installs (not a program): present or not.
    package init(file: String, name: String, debianPackage: String) {
        self.name = name
        source = "Debian package \(debianPackage)"
        isAvailable = FileManager.default.fileExists(atPath: file)
    }

    /// Python modules importable by `interpreter` (found on PATH unless absolute).
    package init(python modules: [String], interpreter: String = "python3", source: String) {
        name = "\(interpreter) module\(modules.count > 1 ? "s" : "") \(modules.joined(separator: ", "))"
        self.source = source
        guard let python = PeerTool.executable(interpreter) else {
            isAvailable = false
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", modules.map { "import \($0)" }.joined(separator: "; ")]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            isAvailable = process.terminationReason == .exit && process.terminationStatus == 0
        } catch {
            isAvailable = false
        }
    }

    /// The path `program` runs from: itself when absolute, else the first executable of that name on PATH.
    package static func executable(_ program: String) -> String? {
        if program.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = folder + "/" + program
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

extension PeerTool {
    // The peer tools: independent readers and writers of what trailpack makes.
    package static let unzip = PeerTool(program: "unzip", debianPackage: "unzip")
    package static let zip = PeerTool(program: "zip", debianPackage: "zip")
    package static let bsdtar = PeerTool(program: "bsdtar", debianPackage: "libarchive-tools")
    package static let sevenZip = PeerTool(program: "7z", debianPackage: "p7zip-full")
    package static let sha256sum = PeerTool(program: "sha256sum", debianPackage: "coreutils")
    package static let minisign = PeerTool(program: "minisign", debianPackage: "minisign")
    package static let clamscan = PeerTool(program: "clamscan", debianPackage: "clamav")
    package static let curl = PeerTool(program: "curl", debianPackage: "curl")
    package static let openssl = PeerTool(program: "openssl", debianPackage: "openssl")
    package static let nginx = PeerTool(program: "/usr/sbin/nginx", debianPackage: "nginx-light")
    package static let jq = PeerTool(program: "jq", debianPackage: "jq")
    package static let python3 = PeerTool(program: "python3", debianPackage: "python3")
    /// Debian's own Python, for the tests that run /usr/bin/python3 by its path.
    package static let debianPython3 = PeerTool(program: "/usr/bin/python3", debianPackage: "python3")
    package static let chromium = PeerTool(program: "/usr/bin/chromium", debianPackage: "chromium")
    package static let chromedriver = PeerTool(program: "/usr/bin/chromedriver", debianPackage: "chromium-driver")
    // Python modules (for the `python3` on PATH; the browser tests use Debian's /usr/bin/python3).
    package static let jsonschema = PeerTool(
        python: ["jsonschema"], source: "Debian package python3-jsonschema, or pip install jsonschema")
    package static let openAPIChecker = PeerTool(
        python: ["yaml", "openapi_spec_validator", "jsonschema"],
        source:
            "Debian packages python3-yaml, python3-openapi-spec-validator and python3-jsonschema, or pip install pyyaml openapi-spec-validator jsonschema"
    )
    /// A real SMTP server (Debian's python3-aiosmtpd) for the review mails.
    package static let aiosmtpd = PeerTool(
        python: ["aiosmtpd.handlers"], interpreter: "/usr/bin/python3", source: "apt-get install python3-aiosmtpd")
    package static let pmtiles = PeerTool(python: ["pmtiles.reader", "pmtiles.writer"], source: "pip install pmtiles")
    package static let selenium = PeerTool(
        python: ["selenium", "axe_selenium_python"], interpreter: "/usr/bin/python3",
        source: "Debian package python3-selenium, and pip install axe-selenium-python")
    // System programs the tests use along the way.
    package static let timeout = PeerTool(program: "timeout", debianPackage: "coreutils")
    package static let diff = PeerTool(program: "diff", debianPackage: "diffutils")
    package static let pgrep = PeerTool(program: "pgrep", debianPackage: "procps")
    package static let script = PeerTool(program: "script", debianPackage: "bsdutils")
    package static let strace = PeerTool(program: "/usr/bin/strace", debianPackage: "strace")
    package static let setpriv = PeerTool(program: "setpriv", debianPackage: "util-linux")
    package static let readelf = PeerTool(program: "readelf", debianPackage: "binutils")
    package static let nm = PeerTool(program: "nm", debianPackage: "binutils")
    package static let ldd = PeerTool(program: "ldd", debianPackage: "libc-bin")
    // Debian's packaging tools, for the package `make deb` builds.
    package static let dpkgDeb = PeerTool(program: "dpkg-deb", debianPackage: "dpkg")
    package static let dpkgShlibdeps = PeerTool(program: "dpkg-shlibdeps", debianPackage: "dpkg-dev")
    package static let lintian = PeerTool(program: "lintian", debianPackage: "lintian")
    package static let systemdAnalyze = PeerTool(program: "systemd-analyze", debianPackage: "systemd")
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where every one of `tools` is available; elsewhere it is skipped with a
    /// reason naming each tool and its Debian package (`make deps` installs them all).
    package static func needs(_ tools: PeerTool...) -> Self {
        let missing = tools.filter { !$0.isAvailable }
        let named = missing.isEmpty ? tools : missing
        let list = named.map(\.description).joined(separator: ", ")
        return .enabled(
            if: missing.isEmpty,
            Comment(rawValue: "needs \(list) (make deps installs \(named.count == 1 ? "it" : "them"))"))
    }
}
