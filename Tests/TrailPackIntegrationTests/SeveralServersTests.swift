import Foundation
import Testing
import TrailPackCore
import TrailPackS3
import TrailPackTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The stack of `scripts/stack.py`, for real: PostgreSQL, SeaweedFS's S3 gateway, two `trailpack
/// serve` instances sharing them (and one drafts folder), nginx balancing the two.
final class Stack: Sendable {
    /// The stack running for the current suite (set by the ``StackScope`` trait).
    @TaskLocal static var current: Stack?

    let folder: String
    let ports: [String: Int]
    let catalog: String
    let blobs: String
    let token: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private init(folder: String, state: JSONValue) throws {
        self.folder = folder
        var ports: [String: Int] = [:]
        if case .object(let members)? = state["ports"] {
            for member in members {
                if case .number(let n) = member.value, let port = n.int64 { ports[member.key] = Int(port) }
            }
        }
        self.ports = ports
        catalog = state["catalog"]?.string ?? ""
        blobs = state["blobs"]?.string ?? ""
        token = try String(contentsOfFile: folder + "/admin.token", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    static var script: String { Support.root + "/scripts/stack.py" }

    /// `stack.py ARGS` (its JSON state printed by `up` and `start`).
    @discardableResult
    static func run(_ arguments: [String]) throws -> Support.Output {
        let out = try Support.run("python3", [script] + arguments)
        guard out.status == 0 else {
            throw Failure(
                description: "stack.py \(arguments.joined(separator: " ")): exit \(out.status): \(out.stderr)")
        }
        return out
    }

    /// Starts the whole stack in a new folder (stopped by itself if this test process dies).
    static func start() throws -> Stack {
        let folder = NSTemporaryDirectory() + "trailpack-stack-" + UUID().uuidString.prefix(8)
        let out = try run([
            "up", folder, "--trailpack", Support.binary, "--watch", String(getpid()),
        ])
        return try Stack(folder: folder, state: try JSON.parse(out.stdout))
    }

    func stop() {
        _ = try? Stack.run(["down", folder])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// `http://127.0.0.1:PORT` of a part: "a", "b" or "nginx".
    func url(_ part: String) -> String { "http://127.0.0.1:\(ports[part] ?? 0)" }

    /// `trailpack admin` on the shared catalog and bucket (with a data folder of its own).
    func admin(_ arguments: String...) throws -> Support.Output {
        try Support.trailpack(
            [
                "admin", "--data", folder + "/admin-data", "--create", "--catalog", catalog,
                "--catalog-password-file", folder + "/catalog.password", "--blobs", blobs,
                "--blobs-credentials", folder + "/aws-credentials",
            ] + arguments)
    }

    /// One curl request: its HTTP status and body.
    func request(
        _ method: String, _ url: String, token: String? = nil, headers: [String] = [], body file: String? = nil
    ) throws -> (status: Int, body: String) {
        var arguments = ["-s", "-S", "-X", method, "-w", "\n%{http_code}"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        for header in headers { arguments += ["-H", header] }
        if let file { arguments += ["--data-binary", "@" + file] }
        let out = try Support.run("curl", arguments + [url])
        let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }
}

/// Starts the stack once for a suite and stops it after.
struct StackScope: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let stack = try Stack.start()
        do {
            try await Stack.$current.withValue(stack) { try await function() }
        } catch {
            stack.stop()
            throw error
        }
        stack.stop()
    }
}

extension Trait where Self == StackScope {
    /// The several-servers stack, for the suite.
    static var stack: StackScope { StackScope() }
}

@Suite(
    "several servers: PostgreSQL, SeaweedFS, two trailpack serve and nginx, started for real", .ownThreads, .serialized,
    .disabled(
        if: ["TRAILPACK_SKIP_POSTGRES", "TRAILPACK_SKIP_S3"].contains {
            ProcessInfo.processInfo.environment[$0] == "1"
        },
        "TRAILPACK_SKIP_POSTGRES=1 or TRAILPACK_SKIP_S3=1"),
    .needs(.curl, .nginx, .python3), .stack)
struct SeveralServersTests {
    static let id = "gov.usda.fs.willamette.family-hikes"

    var stack: Stack {
        get throws { try #require(Stack.current, "the stack did not start") }
    }

    /// A GET of `path` on `part`: its status and whether `Retry-After` came. No answer within
    /// `seconds` (curl's own limit) is a failure.
    static func head(
        _ stack: Stack, _ part: String, _ path: String, token: String? = nil, within seconds: Int
    ) throws -> (status: Int, retry: Bool) {
        let out = try Support.run(
            "curl",
            ["-s", "-D", "-", "-o", "/dev/null", "--max-time", String(seconds)]
                + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? []) + [stack.url(part) + path])
        #expect(out.status == 0, "\(part) \(path): no answer within \(seconds) s (curl exit \(out.status))")
        let status = out.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, out.stdout.lowercased().contains("retry-after:"))
    }

    /// A reviewer with a token and a panel password, made once through `trailpack admin`.
    static func reviewer(_ stack: Stack, _ name: String) throws -> String {
        _ = try stack.admin("user", "add", name, "--role", "reviewer")
        let issued = try stack.admin("token", "issue", name)
        #expect(issued.status == 0, "\(issued.stderr)")
        return try #require(
            issued.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("tp_") }.map(
                String.init), "no token in \(issued.stdout)")
    }

    /// Uploads `package` on A, opens its request on A, approves it on B as `reviewer` and releases
    /// it on A, expecting each step to succeed; returns the version's admin path.
    @discardableResult
    static func release(
        _ stack: Stack, _ package: String, version: String, approvedBy reviewer: String
    ) throws -> String {
        let base = "/v1/admin/packages/\(id)/versions/\(version)"
        #expect(
            try stack.request("POST", stack.url("a") + "/v1/admin/packages", token: stack.token, body: package).status
                == 201)
        #expect(try stack.request("POST", stack.url("a") + base + "/start", token: stack.token).status == 200)
        #expect(try stack.request("POST", stack.url("b") + base + "/approve", token: reviewer).status == 200)
        #expect(try stack.request("POST", stack.url("a") + base + "/push", token: stack.token).status == 200)
        return base
    }

    /// Builds a fixture into the stack's folder, with a version of its own.
    static func package(_ stack: Stack, version: String) throws -> (path: String, sha256: String) {
        let folder = stack.folder + "/tour-" + version
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.copyItem(atPath: Support.root + "/fixtures/family-hikes", toPath: folder)
        let tour = folder + "/tour.json"
        var text = try String(contentsOfFile: tour, encoding: .utf8)
        let old = try #require(text.range(of: #""version"\s*:\s*"[^"]*""#, options: .regularExpression))
        text.replaceSubrange(old, with: "\"version\": \"\(version)\"")
        try text.write(toFile: tour, atomically: true, encoding: .utf8)
        let output = stack.folder + "/family-hikes-\(version).zip"
        let built = try Support.trailpack("build", folder, "-o", output, "-q")
        #expect(built.status == 0, "\(built.stderr)")
        let sha = try String(contentsOfFile: output + ".sha256", encoding: .utf8).prefix(64)
        return (output, String(sha))
    }

    @Test("both servers started at the same moment against an empty catalog: both answer, through nginx too")
    func bothStart() throws {
        let stack = try stack
        for part in ["a", "b", "nginx"] {
            #expect(try stack.request("GET", stack.url(part) + "/healthz").status == 200, "\(part)")
        }
        // One schema: the migrations ran once (each server logged finding it, or making it).
        let sites = try stack.request("GET", stack.url("nginx") + "/v1/sites")
        #expect(sites.status == 200 && sites.body.contains("\"sites\""), "\(sites)")
    }

    @Test(
        "upload on A, approve on B, release on A: listed through nginx within 1 s, downloaded whole and by range from the bucket"
    )
    func uploadApproveRelease() throws {
        let stack = try stack
        let rita = try Self.reviewer(stack, "rita")
        let (package, sha) = try Self.package(stack, version: "2.0.0")
        _ = try Self.release(stack, package, version: "2.0.0", approvedBy: rita)
        let released = ContinuousClock.now
        var listed = false
        while !listed && ContinuousClock.now - released < .seconds(1) {
            // Both servers answer through nginx by turns: each must list it.
            let one = try stack.request("GET", stack.url("nginx") + "/v1/sites/willamette-mckenzie-river/packages")
            let two = try stack.request("GET", stack.url("nginx") + "/v1/sites/willamette-mckenzie-river/packages")
            listed = one.body.contains("\"2.0.0\"") && two.body.contains("\"2.0.0\"")
        }
        #expect(listed, "not listed by both servers within 1 s of the release")
        for part in ["a", "b"] {
            let copy = stack.folder + "/download-\(part).zip"
            let out = try Support.run(
                "curl", ["-s", "-S", "-o", copy, "-w", "%{http_code}", stack.url(part) + "/v1/blobs/\(sha).zip"])
            #expect(out.stdout == "200")
            #expect(try Support.run("sha256sum", [copy]).stdout.hasPrefix(sha), "\(part)")
            let range = try Support.run(
                "curl",
                [
                    "-s", "-S", "-r", "100-199", "-o", copy + ".part", "-w", "%{http_code}",
                    stack.url(part) + "/v1/blobs/\(sha).zip",
                ])
            #expect(range.stdout == "206")
            let whole = try Data(contentsOf: URL(fileURLWithPath: package))
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy + ".part")) == whole[100..<200])
        }
    }

    @Test("the same approval sent to A and B at once: one is counted, the other is refused with 409")
    func racingApprovals() async throws {
        let stack = try stack
        let sam = try Self.reviewer(stack, "sam")
        for round in 0..<5 {
            let version = "3.0.\(round)"
            let (package, _) = try Self.package(stack, version: version)
            let base = "/v1/admin/packages/\(Self.id)/versions/\(version)"
            #expect(
                try stack.request("POST", stack.url("a") + "/v1/admin/packages", token: stack.token, body: package)
                    .status == 201)
            #expect(try stack.request("POST", stack.url("b") + base + "/start", token: stack.token).status == 200)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for part in ["a", "b"] {
                    group.addTask { try stack.request("POST", stack.url(part) + base + "/approve", token: sam).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 409], "round \(round): \(statuses)")
            let state = try stack.request("GET", stack.url("a") + base, token: stack.token)
            #expect(state.body.contains("\"ready\""), "\(state.body)")
        }
    }

    @Test("a control panel session made on A works on B, and a sign-out on B ends it on A")
    func sharedSession() throws {
        let stack = try stack
        _ = try stack.admin("user", "add", "ranger", "--role", "publisher")
        let passwordFile = stack.folder + "/ranger.password"
        try "correct horse battery staple\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let set = try stack.admin("user", "password", "ranger", "--password-file", passwordFile)
        #expect(set.status == 0, "\(set.stderr)")
        let jar = stack.folder + "/cookies.txt"
        let login = try Support.run(
            "curl",
            [
                "-s", "-S", "-c", jar, "-o", "/dev/null", "-w", "%{http_code}", "--data-urlencode", "name=ranger",
                "--data-urlencode", "password=correct horse battery staple", "--data-urlencode", "next=/",
                stack.url("a") + "/login",
            ])
        #expect(login.stdout == "303", "\(login.stdout) \(login.stderr)")
        let onB = try Support.run("curl", ["-s", "-S", "-b", jar, "-w", "\n%{http_code}", stack.url("b") + "/"])
        #expect(onB.stdout.hasSuffix("\n200") && onB.stdout.contains("ranger"), "\(onB.stdout.suffix(300))")
        // The CSRF token of that session, from B's page, is good on A.
        let csrf = try #require(
            onB.stdout.range(of: #"name="_csrf" value="[^"]+""#, options: .regularExpression).map {
                String(onB.stdout[$0].dropFirst(#"name="_csrf" value=""#.count).dropLast())
            }, "no CSRF token on B's page")
        let logout = try Support.run(
            "curl",
            [
                "-s", "-S", "-b", jar, "-o", "/dev/null", "-w", "%{http_code}", "--data-urlencode", "_csrf=\(csrf)",
                stack.url("b") + "/logout",
            ])
        #expect(logout.stdout == "303")
        let onA = try Support.run(
            "curl",
            ["-s", "-S", "-b", jar, "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", stack.url("a") + "/"])
        #expect(onA.stdout.hasPrefix("303") && onA.stdout.contains("/login"), "\(onA.stdout)")
    }

    @Test(
        "one draft edited through A and B from the same page: the first save is kept, the second is a conflict on either server; both see the saved text"
    )
    func sharedDrafts() throws {
        let stack = try stack
        _ = try stack.admin("user", "add", "rowan", "--role", "publisher")
        // The site exists once a version of it was released (an earlier test); alone, it is made here.
        _ = try stack.admin("site", "add", "willamette-mckenzie-river", "McKenzie River Ranger District")
        let granted = try stack.admin("grant", "rowan", "willamette-mckenzie-river")
        #expect(granted.status == 0, "\(granted.stderr)")
        let passwordFile = stack.folder + "/rowan.password"
        try "drafts are shared\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        #expect(try stack.admin("user", "password", "rowan", "--password-file", passwordFile).status == 0)
        let jar = stack.folder + "/rowan-cookies.txt"
        func curl(_ arguments: [String]) throws -> String {
            try Support.run("curl", ["-s", "-S", "-b", jar, "-c", jar] + arguments).stdout
        }
        func field(_ name: String, in page: String) -> String? {
            page.range(of: "name=\"\(name)\" value=\"[^\"]*\"", options: .regularExpression).map {
                String(page[$0].dropFirst("name=\"\(name)\" value=\"".count).dropLast())
            }
        }
        let login = try curl([
            "-o", "/dev/null", "-w", "%{http_code}", "--data-urlencode", "name=rowan", "--data-urlencode",
            "password=drafts are shared", stack.url("a") + "/login",
        ])
        #expect(login == "303")
        let csrf = try #require(field("_csrf", in: try curl([stack.url("b") + "/"])), "no CSRF token")
        let made = try curl([
            "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "--data-urlencode", "_csrf=\(csrf)",
            "--data-urlencode", "site=willamette-mckenzie-river", "--data-urlencode", "name=Shared Loop",
            "--data-urlencode", "park=Willamette National Forest", stack.url("a") + "/drafts",
        ])
        #expect(made.hasPrefix("303") && made.hasSuffix("/drafts/willamette-mckenzie-river/shared-loop"), "\(made)")
        let path = "/drafts/willamette-mckenzie-river/shared-loop"
        let editor = try curl([stack.url("b") + path])
        let revision = try #require(field("revision", in: editor), "no revision on B's editor")
        func save(on part: String, description: String) throws -> String {
            try curl([
                "-o", "/dev/null", "-w", "%{http_code}", "--data-urlencode", "_csrf=\(csrf)",
                "--data-urlencode", "revision=\(revision)", "--data-urlencode", "name=Shared Loop",
                "--data-urlencode", "park=Willamette National Forest", "--data-urlencode",
                "siteName=McKenzie River Ranger District", "--data-urlencode",
                "id=willamette-mckenzie-river.shared-loop",
                "--data-urlencode", "version=1.0.0", "--data-urlencode", "description=\(description)",
                "--data-urlencode", "followStops=1", stack.url(part) + path,
            ])
        }
        #expect(try save(on: "a", description: "Saved through A.") == "303")
        #expect(try save(on: "b", description: "Saved through B from the same page.") == "409")
        for part in ["a", "b"] {
            let page = try curl([stack.url(part) + path])
            #expect(page.contains("Saved through A.") && !page.contains("Saved through B"), "\(part)")
        }
    }

    @Test("a download through nginx cut by killing its server resumes through nginx from the other, byte-exact")
    func resumeAfterKill() async throws {
        let stack = try stack
        let sam = try Self.reviewer(stack, "kim")
        // A package of 48 MB (a recording), released.
        let (package, sha) = try Self.bigPackage(stack)
        _ = try Self.release(stack, package, version: "4.0.0", approvedBy: sam)
        // Only A up behind nginx while the download starts; A is killed mid-way, then B comes back.
        try Stack.run(["stop", stack.folder, "b"])
        let copy = stack.folder + "/resumed.zip"
        let download = Process()
        download.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        download.arguments = [
            "curl", "-s", "--limit-rate", "512K", "-o", copy, stack.url("nginx") + "/v1/blobs/\(sha).zip",
        ]
        try download.run()
        // Both up again however the test ends (the suite's later tests share the stack); `start`
        // leaves a running server alone.
        defer {
            _ = try? Stack.run(["start", stack.folder, "b"])
            _ = try? Stack.run(["start", stack.folder, "a"])
        }
        // A is killed as soon as bytes have arrived, and only then is B started: the cut no longer
        // waits on B's start, which under the whole suite once took longer than the download itself
        // (96 s at this rate), which then finished uncut. Nothing else can serve the rest meanwhile.
        func arrived() -> Int { (try? FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) ?? 0 }
        for _ in 0..<300 where arrived() == 0 { try await Task.sleep(for: .milliseconds(100)) }
        try Stack.run(["kill", stack.folder, "a"])
        download.waitUntilExit()
        try Stack.run(["start", stack.folder, "b"])
        let got = (try? FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) ?? 0
        let size = try #require(try FileManager.default.attributesOfItem(atPath: package)[.size] as? Int)
        #expect(got > 0 && got < size, "the first download was not cut: \(got) of \(size) bytes")
        // As a phone would: resumed from what arrived, trying again while nginx still counts the
        // killed server as failed.
        var statuses: [String] = []
        for _ in 0..<15 where statuses.last != "206" {
            if !statuses.isEmpty { try await Task.sleep(for: .seconds(1)) }
            let resumed = try Support.run(
                "curl",
                [
                    "-s", "-C", "-", "-H", "If-Range: \"\(sha)\"", "-o", copy, "-w", "%{http_code}",
                    "-f", stack.url("nginx") + "/v1/blobs/\(sha).zip",
                ])
            statuses.append(resumed.stdout)
        }
        #expect(statuses.last == "206", "\(statuses)")
        #expect(try Support.run("sha256sum", [copy]).stdout.hasPrefix(sha))
    }

    @Test(
        "gc and scrub across the servers: refused while another holds the catalog's maintenance lock; then gc moves an object no catalog names to quarantine, kept, and scrub finds the rest intact"
    )
    func maintenanceExcludes() async throws {
        let stack = try stack
        // An object in the bucket that no catalog entry names (what a lost upload leaves), put by curl's own SigV4.
        let stray = stack.folder + "/stray.zip"
        try Data("not a package, left by a lost upload".utf8).write(to: URL(fileURLWithPath: stray))
        let digest = String(try Support.run("sha256sum", [stray]).stdout.prefix(64))
        let key = "blobs/\(digest.prefix(2))/\(digest).zip"
        let credentials = try String(contentsOfFile: stack.folder + "/aws-credentials", encoding: .utf8)
        func value(_ name: String) -> String {
            credentials.split(separator: "\n").first { $0.hasPrefix(name) }.map {
                String($0.split(separator: "=", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces)
            } ?? ""
        }
        let bucket = "http://127.0.0.1:\(stack.ports["s3"] ?? 0)/trailpack/" + key
        let signed = [
            "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
            value("aws_access_key_id") + ":" + value("aws_secret_access_key"),
        ]
        let put = try Support.run(
            "curl", ["-s", "-S", "-o", "/dev/null", "-w", "%{http_code}", "-T", stray] + signed + [bucket])
        #expect(put.stdout == "200", "\(put.stdout) \(put.stderr)")
        // Another server's gc holds the lock (a psql session takes the same advisory lock for 20 s; under
        // the whole suite on two cores, runuser and psql once took longer than 1.5 s to take it).
        // A CI run saw the psql session not holding it yet after 5 s (other tests' requests took
        // 100 s then): the test now waits until the lock is held, and ends the session after.
        let lockKey = "8390876161162830592"
        func psql(_ sql: String) -> [String] {
            let command = [
                "/usr/lib/postgresql/15/bin/psql", "-h", stack.folder + "/postgres/sockets", "-p",
                String(stack.ports["postgres"] ?? 0), "-U", "postgres", "-d", "trailpack", "-q", "-A", "-t", "-c", sql,
            ]
            return getuid() == 0 ? ["runuser", "-u", "postgres", "--"] + command : command
        }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = psql("SELECT pg_advisory_lock(\(lockKey)), pg_sleep(600)")
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        // Held by another session: this one cannot take it (and lets it go at once when it could).
        let heldElsewhere =
            "SELECT CASE WHEN pg_try_advisory_lock(\(lockKey)) THEN NOT pg_advisory_unlock(\(lockKey)) ELSE true END"
        var held = false
        for _ in 0..<120 where !held {
            held = (try Support.run("/usr/bin/env", psql(heldElsewhere))).stdout.contains("t")
            if !held { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(held, "the psql session took the maintenance lock within a minute")
        for command in ["gc", "scrub"] {
            let refused = try stack.admin(command)
            #expect(
                refused.status != 0 && refused.stderr.contains("another"),
                "\(command): \(refused.status) \(refused.stderr)")
        }
        _ = try Support.run(
            "/usr/bin/env",
            psql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%pg_advisory_lock(\(lockKey))%pg_sleep%'"
            ))
        holder.waitUntilExit()
        let gc = try stack.admin("gc")
        #expect(gc.status == 0, "\(gc.stdout) \(gc.stderr)")
        #expect(gc.stdout.contains(digest) && gc.stdout.contains("not in the catalog"), "\(gc.stdout)")
        let kept = stack.folder + "/admin-data/quarantine/\(digest).zip"
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == Data(contentsOf: URL(fileURLWithPath: stray)))
        let gone = try Support.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-I"] + signed + [bucket])
        #expect(gone.stdout == "404", "the object is still in the bucket: \(gone.stdout)")
        let scrubbed = try stack.admin("scrub")
        #expect(
            scrubbed.status == 0 && scrubbed.stderr.contains(", 0 damaged"), "\(scrubbed.stdout) \(scrubbed.stderr)")
    }

    @Test(
        "outages: with the bucket or PostgreSQL down, requests that need them get 503 with Retry-After within seconds, and work again once it is back; a mistyped bucket or a missing --catalog is refused before anything is made"
    )
    func outagesAndMistakes() async throws {
        let stack = try stack
        let rita = try Self.reviewer(stack, "olga")
        let (package, sha) = try Self.package(stack, version: "5.0.0")
        let base = try Self.release(stack, package, version: "5.0.0", approvedBy: rita)
        func timed(
            _ part: String, _ path: String, token: String? = nil
        ) throws -> (
            status: Int, seconds: Double, retry: Bool
        ) {
            let started = ContinuousClock.now
            let (status, retry) = try Self.head(stack, part, path, token: token, within: 60)
            return (status, Double((ContinuousClock.now - started).components.seconds), retry)
        }
        // The bucket down: a download is 503 with Retry-After, not a 500 or a hang.
        try Stack.run(["stop", stack.folder, "weed"])
        let download = try timed("a", "/v1/blobs/\(sha).zip")
        #expect(download.status == 503 && download.retry && download.seconds < 20, "\(download)")
        try Stack.run(["start", stack.folder, "weed"])
        #expect(try timed("b", "/v1/blobs/\(sha).zip").status == 200)
        // PostgreSQL down: a call that needs the catalog is 503 with Retry-After within seconds.
        try Stack.run(["stop", stack.folder, "postgres"])
        let state = try timed("a", base, token: stack.token)
        #expect(state.status == 503 && state.retry && state.seconds < 20, "\(state)")
        try Stack.run(["start", stack.folder, "postgres"])
        var back = 0
        for _ in 0..<60 where back != 200 {
            back = try timed("a", base, token: stack.token).status
            if back != 200 { try await Task.sleep(for: .seconds(1)) }
        }
        #expect(back == 200, "the server did not recover after PostgreSQL came back")
        // A mistyped bucket: refused, and no bucket made.
        let typo = stack.blobs.replacingOccurrences(of: "s3://trailpack?", with: "s3://trailpak?")
        let mistyped = try Support.trailpack([
            "admin", "--data", stack.folder + "/admin-typo", "--create", "--catalog", stack.catalog,
            "--catalog-password-file", stack.folder + "/catalog.password", "--blobs", typo,
            "--blobs-credentials", stack.folder + "/aws-credentials", "user", "list",
        ])
        #expect(
            mistyped.status == 3 && mistyped.stderr.contains("'trailpak'")
                && mistyped.stderr.contains("does not exist"),
            "\(mistyped.status) \(mistyped.stderr)")
        // The admin's folder, used with --catalog, refuses a command without it.
        let forgotten = try Support.trailpack(["admin", "--data", stack.folder + "/admin-data", "user", "list"])
        #expect(
            forgotten.status == 3 && forgotten.stderr.contains("stores.json") && forgotten.stderr.contains("--catalog"),
            "\(forgotten.status) \(forgotten.stderr)")
    }

    @Test(
        "stalls: a frozen bucket and a frozen PostgreSQL (processes stopped, their sockets open and silent) get 503 with Retry-After within the promised 10 s (curl gives up at 30), and everything works again once they run"
    )
    func stalls() async throws {
        let stack = try stack
        let reviewer = try Self.reviewer(stack, "petra")
        let (package, sha) = try Self.package(stack, version: "5.1.0")
        let base = try Self.release(stack, package, version: "5.1.0", approvedBy: reviewer)
        /// The status and whether Retry-After came; curl's own timeout (exit 28) is a failure.
        func answer(_ part: String, _ path: String, token: String? = nil) throws -> (status: Int, retry: Bool) {
            try Self.head(stack, part, path, token: token, within: 30)
        }
        // The bucket frozen: a download is 503 with Retry-After, not a minute's wait.
        try Stack.run(["freeze", stack.folder, "weed"])
        let download: (status: Int, retry: Bool)
        do { download = try answer("a", "/v1/blobs/\(sha).zip") } catch {
            try Stack.run(["thaw", stack.folder, "weed"])
            throw error
        }
        try Stack.run(["thaw", stack.folder, "weed"])
        #expect(download.status == 503 && download.retry, "\(download)")
        #expect(try answer("b", "/v1/blobs/\(sha).zip").status == 200)
        // PostgreSQL frozen: a call holding a pooled connection, and the next ones, are 503 with Retry-After.
        try Stack.run(["freeze", stack.folder, "postgres"])
        var frozen: [(status: Int, retry: Bool)] = []
        do {
            for part in ["a", "b", "a"] { frozen.append(try answer(part, base, token: stack.token)) }
        } catch {
            try Stack.run(["thaw", stack.folder, "postgres"])
            throw error
        }
        try Stack.run(["thaw", stack.folder, "postgres"])
        #expect(frozen.allSatisfy { $0.status == 503 && $0.retry }, "\(frozen)")
        var back = 0
        for _ in 0..<60 where back != 200 {
            back = try answer("a", base, token: stack.token).status
            if back != 200 { try await Task.sleep(for: .seconds(1)) }
        }
        #expect(back == 200, "the server did not recover once PostgreSQL ran again")
        #expect(try answer("b", "/v1/blobs/\(sha).zip").status == 200)
    }

    /// The bucket itself, as anyone holding its keys reaches it (the S3 API, not trailpack).
    static func bucket(_ stack: Stack) throws -> S3Client {
        try S3Client(
            location: try S3Location(parsing: stack.blobs),
            credentials: try S3Credentials.sharedCredentialsFile(stack.folder + "/aws-credentials"))
    }

    @Test(
        "the bucket is not trusted: an object swapped through the S3 API for other bytes of the same length, or deleted, is never served under the catalog's hash (whole or by range, on either server); the version is taken out of service and delisted"
    )
    func bucketLies() async throws {
        let stack = try stack
        let reviewer = try Self.reviewer(stack, "quinn")
        let client = try Self.bucket(stack)
        do {
            try await Self.bucketLies(stack, client, reviewer)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    static func bucketLies(_ stack: Stack, _ client: S3Client, _ reviewer: String) async throws {
        /// Someone with the bucket's keys swaps the object for other bytes of the same length.
        func swap(_ package: String, _ sha: String) async throws {
            var bytes = try Support.read(package)
            bytes[bytes.count / 2] ^= 0xFF
            let other = stack.folder + "/swapped-\(sha.prefix(8)).zip"
            try Support.write(bytes, to: other)
            let otherSHA = try #require(
                Support.run("sha256sum", [other]).stdout.split(separator: " ").first.map(String.init))
            let key = "blobs/\(sha.prefix(2))/\(sha).zip"
            try await client.delete(key: key)
            _ = try await client.put(key: key, file: other, sha256: otherSHA, size: Int64(bytes.count))
        }
        // Swapped before any server read it: B's first download reads it whole and refuses it.
        let (first, firstSHA) = try Self.package(stack, version: "5.2.0")
        let firstBase = try Self.release(stack, first, version: "5.2.0", approvedBy: reviewer)
        try await swap(first, firstSHA)
        let whole = try stack.request("GET", stack.url("b") + "/v1/blobs/\(firstSHA).zip")
        #expect(whole.status >= 500 && !whole.body.contains("PK"), "a swapped object was served: \(whole.status)")
        #expect(try stack.request("GET", stack.url("a") + firstBase, token: stack.token).body.contains("damaged"))
        #expect(
            try stack.request("GET", stack.url("a") + "/v1/blobs/\(firstSHA).zip").status == 404,
            "a damaged version is still listed")
        // Swapped after A proved it: A's next download, a range, sees another ETag and refuses it.
        let (second, secondSHA) = try Self.package(stack, version: "5.3.0")
        let secondBase = try Self.release(stack, second, version: "5.3.0", approvedBy: reviewer)
        let blob = "/v1/blobs/\(secondSHA).zip"
        #expect(try stack.request("GET", stack.url("a") + blob).status == 200)
        #expect(try stack.request("GET", stack.url("a") + blob, headers: ["Range: bytes=10-99"]).status == 206)
        try await swap(second, secondSHA)
        let ranged = try stack.request("GET", stack.url("a") + blob, headers: ["Range: bytes=10-99"])
        #expect(ranged.status >= 500, "a swapped object was served by range: \(ranged.status)")
        #expect(try stack.request("GET", stack.url("a") + secondBase, token: stack.token).body.contains("damaged"))
        // A deleted object: the same.
        let (third, thirdSHA) = try Self.package(stack, version: "5.4.0")
        let thirdBase = try Self.release(stack, third, version: "5.4.0", approvedBy: reviewer)
        try await client.delete(key: "blobs/\(thirdSHA.prefix(2))/\(thirdSHA).zip")
        let missing = try stack.request("GET", stack.url("b") + "/v1/blobs/\(thirdSHA).zip")
        #expect(missing.status >= 500, "\(missing)")
        #expect(try stack.request("GET", stack.url("a") + thirdBase, token: stack.token).body.contains("damaged"))
    }

    @Test(
        "eight uploads at once of 8.0 and 8.0.0 (other bytes), by turns on A and B: one version is made, and just after the last answer the bucket holds its blob and no loser's"
    )
    func racingUploadsLeaveNoBlob() async throws {
        let stack = try stack
        let client = try Self.bucket(stack)
        do {
            let before = try await Self.objects(client)
            let plain = try Self.package(stack, version: "8.0"), spelled = try Self.package(stack, version: "8.0.0")
            let answers = Collected()
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                let (path, _) = i % 2 == 0 ? plain : spelled
                let part = i % 4 < 2 ? "a" : "b"
                let status =
                    (try? stack.request(
                        "POST", stack.url(part) + "/v1/admin/packages", token: stack.token, body: path
                    ).status) ?? 0
                answers.add(part, String(status))
            }
            let statuses = answers.items.map(\.1)
            #expect(statuses.filter { $0 == "201" }.count == 1, "\(answers.items)")
            #expect(statuses.allSatisfy { ["201", "200", "409"].contains($0) }, "\(answers.items)")
            let added = try await Self.objects(client).subtracting(before)
            let winner = statuses.contains("201") ? [plain.sha256, spelled.sha256] : []
            #expect(added.count == 1, "blobs stored by this race: \(added)")
            #expect(added.allSatisfy { key in winner.contains { key.contains($0) } }, "\(added)")
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// The keys of the bucket's blobs now.
    static func objects(_ client: S3Client) async throws -> Set<String> {
        var keys: Set<String> = []
        for try await object in client.listAll(prefix: "blobs/") { keys.insert(object.key) }
        return keys
    }

    @Test(
        "a third server with --blob-downloads redirect: a download answers 302 to a presigned URL of the bucket, which curl follows to the very bytes (ranges too); a tampered URL is refused by the bucket"
    )
    func presignedRedirect() throws {
        let stack = try stack
        let kim = try Self.reviewer(stack, "pat")
        let (package, sha) = try Self.package(stack, version: "6.0.0")
        _ = try Self.release(stack, package, version: "6.0.0", approvedBy: kim)
        let third = try ServeProcess.launch(
            [
                "--data", stack.folder + "/server-c", "--catalog", stack.catalog, "--catalog-password-file",
                stack.folder + "/catalog.password", "--blobs", stack.blobs, "--blobs-credentials",
                stack.folder + "/aws-credentials", "--blob-downloads", "redirect", "--no-malware-scan",
            ], logFile: stack.folder + "/logs/c.log")
        defer { third.stop() }
        let head = try Support.run(
            "curl", ["-s", "-S", "-o", "/dev/null", "-D", "-", third.base + "/v1/blobs/\(sha).zip"])
        let location = try #require(
            head.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location: ") }.map {
                String($0.dropFirst("location: ".count))
            }, "\(head.stdout)")
        #expect(head.stdout.hasPrefix("HTTP/1.1 302"), "\(head.stdout)")
        #expect(location.contains("X-Amz-Signature=") && location.contains("/trailpack/blobs/"), "\(location)")
        let copy = stack.folder + "/presigned.zip"
        let followed = try Support.run(
            "curl", ["-s", "-S", "-L", "-o", copy, "-w", "%{http_code}", third.base + "/v1/blobs/\(sha).zip"])
        #expect(followed.stdout == "200")
        #expect(try Support.run("sha256sum", [copy]).stdout.hasPrefix(sha))
        let range = try Support.run(
            "curl", ["-s", "-S", "-r", "0-99", "-o", copy + ".part", "-w", "%{http_code}", location])
        #expect(range.stdout == "206")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: copy + ".part"))
                == Data(contentsOf: URL(fileURLWithPath: package))[0..<100])
        let tampered = location.replacingOccurrences(of: "X-Amz-Signature=", with: "X-Amz-Signature=0")
        #expect(try Support.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", tampered]).stdout == "403")
    }

    @Test("everything stopped and started again: the release, the sessions and the downloads are still there")
    func restartAll() throws {
        let stack = try stack
        try Stack.run(["down", stack.folder])
        try Stack.run(["up", stack.folder, "--trailpack", Support.binary])
        let list = try stack.request("GET", stack.url("nginx") + "/v1/sites/willamette-mckenzie-river/packages")
        #expect(list.status == 200 && list.body.contains(Self.id), "\(list)")
        let (_, sha) = try Self.package(stack, version: "2.0.0")
        let copy = stack.folder + "/after-restart.zip"
        let out = try Support.run(
            "curl", ["-s", "-S", "-o", copy, "-w", "%{http_code}", stack.url("nginx") + "/v1/blobs/\(sha).zip"])
        #expect(out.stdout == "200")
        #expect(try Support.run("sha256sum", [copy]).stdout.hasPrefix(sha))
    }

    /// The family-hikes tour with a 48 MB recording on its first stop, as version 4.0.0: more than
    /// the loopback sockets between curl, nginx and a server can hold at once (some 16 MB).
    static func bigPackage(_ stack: Stack) throws -> (path: String, sha256: String) {
        _ = try package(stack, version: "4.0.0")
        let folder = stack.folder + "/tour-4.0.0"
        try VisitorAppTests.addRecording(to: folder, stop: "01-sahalie-and-koosah-falls", bytes: 48 << 20)
        let output = stack.folder + "/family-hikes-4.0.0.zip"
        try? FileManager.default.removeItem(atPath: output)
        let built = try Support.trailpack("build", folder, "-o", output, "-q")
        #expect(built.status == 0, "\(built.stderr)")
        return (output, String(try String(contentsOfFile: output + ".sha256", encoding: .utf8).prefix(64)))
    }
}
