import Foundation
import Synchronization
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// The Debian package (`make deb`, scripts/make_deb.py), checked as Debian checks packages and
/// installed as an operator installs it. The tests package the program `make test` built (a debug
/// build, which finds Swift's libraries through its RUNPATH); `make deb` packages the release
/// program, which links them statically.
@Suite(
    "the Debian package: lintian, systemd-analyze, the one program extracted, an upgrade that keeps the data",
    .ownThreads, .serialized)
struct DebianPackageTests {
    /// Packages made once per test run, by version (the upgrade needs two).
    static let made = Mutex<[String: String]>([:])
    static let folder = NSTemporaryDirectory() + "trailpack-deb-" + UUID().uuidString.prefix(8)

    /// scripts/make_deb.py over the built program, as package version `version`.
    static func package(_ version: String) throws -> String {
        if let path = made.withLock({ $0[version] }) { return path }
        let out = try Support.run(
            "python3",
            [
                Support.root + "/scripts/make_deb.py", "--binary", Support.binary, "--version", version, "--out",
                folder + "/" + version,
            ])
        #expect(out.status == 0, "make_deb.py: \(out.stderr)")
        let path = out.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasSuffix("trailpack_\(version)_amd64.deb") || path.hasSuffix(".deb"), "\(out.stdout)")
        made.withLock { $0[version] = path }
        return path
    }

    @Test(
        "lintian finds nothing but the stated overrides; the unit passes systemd-analyze verify, and its exposure is at most 2.0 of 10 (systemd-analyze security)",
        .needs(.dpkgDeb, .dpkgShlibdeps, .lintian, .systemdAnalyze))
    func checked() throws {
        let deb = try Self.package("0.1.0-1")
        // The debug program's RUNPATH (to the toolchain's Swift libraries) is the one thing the
        // release program does not have: `make deb` packages that one.
        let lint = try Support.run(
            "lintian", ["--fail-on", "error,warning", "--suppress-tags", "custom-library-search-path", deb])
        #expect(lint.status == 0, "lintian:\n\(lint.stdout)\(lint.stderr)")
        #expect(!lint.stdout.contains("W: ") && !lint.stdout.contains("E: "), "\(lint.stdout)")

        try Support.withTemporaryDirectory { root in
            #expect(try Support.run("dpkg-deb", ["-x", deb, root]).status == 0)
            let unit = root + "/lib/systemd/system/trailpack.service"
            // The units it names (multi-user.target, network-online.target…) are this machine's.
            #expect(try Support.run("cp", ["-an", "/lib/systemd/system/.", root + "/lib/systemd/system/"]).status == 0)
            let verify = try Support.run("systemd-analyze", ["verify", "--man=no", "--root=" + root, unit])
            #expect(verify.status == 0, "systemd-analyze verify: \(verify.stdout)\(verify.stderr)")
            #expect(verify.stderr.isEmpty, "systemd-analyze verify warns: \(verify.stderr)")
            let security = try Support.run(
                "systemd-analyze", ["security", "--offline=true", "--threshold=20", "--root=" + root, unit])
            #expect(security.status == 0, "\(security.stdout)\(security.stderr)")
            let level = security.stdout.firstMatch(of: /Overall exposure level for [^:]+: ([0-9.]+)/)
                .flatMap { Double($0.1) }
            #expect(level != nil && level! <= 2.0, "exposure: \(security.stdout.suffix(300))")
            print("systemd-analyze security: \(level ?? -1) of 10")
        }
    }

    @Test(
        "extracted into an empty folder, the one program serves the panel and /visit/ (the app compiled in, nothing beside it) and carries its manual pages and completions",
        .needs(.dpkgDeb, .dpkgShlibdeps, .curl))
    func extracted() throws {
        let deb = try Self.package("0.1.0-1")
        try Support.withTemporaryDirectory { root in
            #expect(try Support.run("dpkg-deb", ["-x", deb, root]).status == 0)
            let program = root + "/usr/bin/trailpack"
            let beside = try FileManager.default.contentsOfDirectory(atPath: root + "/usr/bin")
            #expect(beside == ["trailpack"], "\(beside)")
            let version = try Support.run(program, ["--version"])
            #expect(version.stdout.contains("compiled in: the visitor app"), "\(version.stdout)")
            for page in ["trailpack.1.gz", "trailpack-serve.1.gz", "trailpack-admin-user-add.1.gz"] {
                #expect(FileManager.default.fileExists(atPath: root + "/usr/share/man/man1/" + page), "\(page)")
            }
            let manual = try Support.run("sh", ["-c", "zcat '\(root)/usr/share/man/man1/trailpack-serve.1.gz'"])
            #expect(manual.stdout.contains(".Nm trailpack-serve") && manual.stdout.contains("--data"))
            let completion = try String(
                contentsOfFile: root + "/usr/share/bash-completion/completions/trailpack", encoding: .utf8)
            #expect(completion.contains("trailpack") && !completion.hasPrefix("#!"))
            let server = try ServeProcess.launch(
                ["--data", root + "/var/lib/trailpack", "--no-malware-scan"], binary: program)
            defer { server.stop() }
            let app = try ServeProcess.curl(["-w", "\n%{http_code}", server.base + "/visit/"])
            #expect(ServeProcess.statusAndBody(app).status == "200")
            #expect(ServeProcess.statusAndBody(app).body.contains("<html"), "\(app.stdout.prefix(200))")
            let script = try ServeProcess.curl(["-w", "\n%{http_code}", server.base + "/visit/js/app.js"])
            #expect(ServeProcess.statusAndBody(script).status == "200")
            let panel = try ServeProcess.curl(["-w", "\n%{http_code}", server.base + "/login"])
            #expect(ServeProcess.statusAndBody(panel).status == "200", "\(panel.stdout.suffix(200))")
        }
    }

    @Test(
        "installed with dpkg into a root of its own, a tour published, the next version installed over it: the data as it was, the tour served with the same bytes; remove keeps the data, purge leaves a data folder that is not empty",
        .needs(.dpkgDeb, .dpkgShlibdeps, .curl, .sha256sum))
    func upgrade() throws {
        let first = try Self.package("0.1.0-1")
        let next = try Self.package("0.1.1-1")
        try Support.withTemporaryDirectory { dir in
            let root = dir + "/root"
            for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates"] {
                try FileManager.default.createDirectory(
                    atPath: root + "/" + folder, withIntermediateDirectories: true)
            }
            for file in ["var/lib/dpkg/status", "var/lib/dpkg/available"] {
                FileManager.default.createFile(atPath: root + "/" + file, contents: nil)
            }
            // dpkg's own root: the maintainer scripts run without chroot, with DPKG_ROOT set (no
            // user is made, no service started there); the libraries come from this machine.
            func dpkg(_ arguments: [String]) throws -> Support.Output {
                let out = try Support.run(
                    "dpkg",
                    ["--root=" + root, "--force-script-chrootless", "--force-depends", "--log=/dev/null"] + arguments)
                #expect(out.status == 0, "dpkg \(arguments.joined(separator: " ")): \(out.stdout)\(out.stderr)")
                return out
            }
            _ = try dpkg(["-i", first])
            let data = root + "/var/lib/trailpack"
            let mode = try FileManager.default.attributesOfItem(atPath: data)[.posixPermissions] as? Int
            #expect(mode == 0o750, "the data folder's mode: \(String(mode ?? 0, radix: 8))")
            let conf = root + "/etc/trailpack/serve.conf"
            #expect(try String(contentsOfFile: conf, encoding: .utf8).contains("TRAILPACK_SERVE_OPTIONS="))

            // Publish a tour with the installed program.
            try ServeProcess.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let tour = try Support.buildFixture("family-hikes", into: dir)
            let sha = try Support.sha256sum(tour)
            func serve() throws -> ServeProcess.Running {
                try ServeProcess.launch(
                    ["--data", data, "--admin-token-file", dir + "/token", "--approvals", "0", "--no-malware-scan"],
                    binary: root + "/usr/bin/trailpack")
            }
            var server = try serve()
            let up = try ServeProcess.curl([
                "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(ServeProcess.token)", "--data-binary",
                "@" + tour,
                server.base + "/v1/admin/packages",
            ])
            #expect(ServeProcess.statusAndBody(up).status == "201", "\(up.stdout)")
            server.stop()
            // The operator's own setting, which the upgrade must keep.
            try (String(contentsOfFile: conf, encoding: .utf8) + "# kept by the operator\n")
                .write(toFile: conf, atomically: true, encoding: .utf8)
            let before = try Self.listing(data)

            _ = try dpkg(["-i", next])
            let status = try Support.run("dpkg-query", ["--admindir=" + root + "/var/lib/dpkg", "-W", "trailpack"])
            #expect(status.stdout.contains("0.1.1-1"), "\(status.stdout)")
            #expect(try String(contentsOfFile: conf, encoding: .utf8).hasSuffix("# kept by the operator\n"))
            #expect(try Self.listing(data) == before, "the data folder changed in the upgrade")
            server = try serve()
            let got = try ServeProcess.curl([
                "-w", "\n%{http_code}", "-o", dir + "/got.zip", server.base + "/v1/blobs/\(sha).zip",
            ])
            #expect(got.stdout.hasSuffix("200"), "\(got.stdout)")
            #expect(try Support.sha256sum(dir + "/got.zip") == sha)
            server.stop()

            _ = try dpkg(["-r", "trailpack"])
            #expect(!FileManager.default.fileExists(atPath: root + "/usr/bin/trailpack"))
            #expect(FileManager.default.fileExists(atPath: conf), "remove keeps the configuration")
            #expect(try Self.listing(data).count >= before.count, "remove keeps the data")
            _ = try dpkg(["--purge", "trailpack"])
            #expect(!FileManager.default.fileExists(atPath: conf), "purge removes the configuration")
            #expect(FileManager.default.fileExists(atPath: data + "/catalog.sqlite"), "purge keeps published tours")
        }
    }

    /// Every file under `folder` with its size, except the server's own temporary folder.
    static func listing(_ folder: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder).sorted().compactMap { path in
            if path == "tmp" || path.hasPrefix("tmp/") { return nil }
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            if attributes[.type] as? FileAttributeType == .typeDirectory { return path + "/" }
            return "\(path) \(attributes[.size] as? Int ?? -1)"
        }
    }
}
